/*
 * bundleidx.h — look up Apple-style bundle resources in a bundleidx index from C.
 *
 * The index is written by `bundleidx build` (or kept current by `bundleidx watch`); this
 * library only reads it. Answers are the ones `bundleidx query`, `paths` and `info` print
 * with the same profile and languages: Foundation's Bundle search pattern
 * (docs/search-pattern.md in the bundleidx sources).
 *
 *     bundleidx_index *index;
 *     bundleidx_bundle *app;
 *     char *path;
 *     if (bundleidx_open(NULL, "foundation-linux", &index) == 0) {
 *         if (bundleidx_bundle_open(index, "com.example.phone", &app) == 0) {
 *             if (bundleidx_path_for_resource(app, "icon", "png", NULL, NULL, &path) == 0) {
 *                 puts(path);
 *                 bundleidx_free(path);
 *             }
 *             bundleidx_bundle_close(app);
 *         }
 *         bundleidx_close(index);
 *     }
 *
 * Build with `cc app.c $(pkg-config --cflags --libs bundleidx)`.
 *
 * Return values. Every function returning int returns 0 when it answered,
 * BUNDLEIDX_NOT_FOUND (1) when there is no such bundle, resource or key (not an error: the
 * output is set to NULL), and a negative BUNDLEIDX_ERR_* code on an error. On anything but 0
 * the outputs are NULL (and counts 0). bundleidx_strerror() names every code.
 *
 * Arguments. Strings are NUL-terminated UTF-8; a string that is not valid UTF-8 is
 * BUNDLEIDX_ERR_ARGUMENT. An optional string argument that is NULL means "none", as nil does
 * in Foundation: no type, no subdirectory, no localization. Handles and output pointers are
 * required: NULL there is BUNDLEIDX_ERR_ARGUMENT (the close and free functions accept NULL
 * and do nothing). Paths returned are absolute.
 *
 * Ownership. Handles are released with their close function. Strings and path arrays the
 * library returns belong to the caller: release a string with bundleidx_free() and an array
 * with bundleidx_free_paths(). A bundle handle keeps its index open: closing the index while
 * bundles are open is allowed, the index goes away with the last of them.
 *
 * Threads. An index handle and a bundle handle may be used by several threads at once (each
 * call reads the index in its own read transaction); bundleidx_set_languages() may run
 * concurrently with the others. A handle must not be used during or after its close.
 *
 * Freshness. Lookups read the index as it is now: they see every build and every batch a
 * watcher committed. A bundle's Info.plist values, localizations and language search list
 * are taken when the bundle handle is opened: open it again to see a rebuilt Info.plist.
 *
 * Damage. An index that is missing, not an index, of another format version or truncated is
 * reported when it is opened (or read). LMDB maps the index file and trusts its pages: a file
 * overwritten in the middle can make a read fault (SIGBUS/SIGSEGV) in the calling process.
 * The library installs no signal handlers; the bundleidx command line does and reports
 * "damaged". Rebuild such an index with `bundleidx build`.
 */
#ifndef BUNDLEIDX_H
#define BUNDLEIDX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An open index (opaque). */
typedef struct bundleidx_index bundleidx_index;
/* One bundle of an index, answering under the index's profile and languages (opaque). */
typedef struct bundleidx_bundle bundleidx_bundle;

#define BUNDLEIDX_OK 0
/* No such bundle, resource or Info.plist key. Not an error; negative values are errors. */
#define BUNDLEIDX_NOT_FOUND 1

/* A required argument is NULL, a string is not UTF-8, a profile or language list is unknown. */
#define BUNDLEIDX_ERR_ARGUMENT (-1)
/* There is no index at that path (build one with `bundleidx build`). */
#define BUNDLEIDX_ERR_NO_INDEX (-2)
/* The path holds something that is not a bundleidx index, or one of another format version. */
#define BUNDLEIDX_ERR_NOT_AN_INDEX (-3)
/* The index is damaged (truncated, inconsistent records): rebuild it. */
#define BUNDLEIDX_ERR_DAMAGED (-4)
/* The index's storage failed (LMDB error, unsafe permissions, locked by a writer). */
#define BUNDLEIDX_ERR_STORAGE (-5)
/* A system call failed (opening, mapping or locking the index files). */
#define BUNDLEIDX_ERR_SYSTEM (-6)
/* Memory for an answer could not be allocated. */
#define BUNDLEIDX_ERR_NO_MEMORY (-7)

/*
 * Opens the index in directory `index_dir` read-only. NULL: the default location, as the
 * command line resolves it ($BUNDLEIDX_INDEX, else $XDG_CACHE_HOME/bundleidx, else
 * ~/.cache/bundleidx). `profile`: "apple" (NULL: the documented search pattern for the
 * languages of the environment — LANGUAGE, LC_ALL, LC_MESSAGES, LANG — on Linux) or
 * "foundation-linux" (what Foundation's Bundle answers on Linux). On success *out is a
 * handle to release with bundleidx_close().
 */
int bundleidx_open(const char *index_dir, const char *profile, bundleidx_index **out);

/* Releases an index handle (NULL: nothing). Bundles opened from it stay usable. */
void bundleidx_close(bundleidx_index *index);

/*
 * Maps the whole index into this process now, so that later lookups never pay for touching a
 * page of it for the first time (a page fault each). For a long-lived program that will open
 * many bundles of a large index: it costs about 0.4 microseconds per 4 KiB of index, once; a
 * program making a few lookups should not call it. Stores the bytes mapped in *out_bytes
 * (when not NULL): 0 where the kernel cannot (Linux before 5.14), which is not an error.
 * Pages a later build or watcher commit adds are mapped by the next call.
 */
int bundleidx_warm_up(bundleidx_index *index, size_t *out_bytes);

/*
 * Sets the preferred languages of the apple profile for bundles opened from now on, most
 * preferred first, comma-separated ("fr-CA,en"), as `--lang` does. NULL or "": the
 * environment's languages again. BUNDLEIDX_ERR_ARGUMENT under the foundation-linux profile,
 * whose language is fixed. Bundle handles already open keep their languages.
 */
int bundleidx_set_languages(bundleidx_index *index, const char *comma_separated);

/*
 * Opens a bundle by its path (absolute, or relative to the current directory; links are
 * followed) or by its CFBundleIdentifier. BUNDLEIDX_NOT_FOUND when the index does not hold
 * it. On success *out is a handle to release with bundleidx_bundle_close().
 */
int bundleidx_bundle_open(bundleidx_index *index, const char *path_or_identifier, bundleidx_bundle **out);

/* Releases a bundle handle (NULL: nothing). */
void bundleidx_bundle_close(bundleidx_bundle *bundle);

/*
 * Bundle.path(forResource:ofType:inDirectory:) — or, when `localization` is not NULL,
 * path(forResource:ofType:inDirectory:forLocalization:), which reads the global folder and
 * that .lproj only. `name` may carry the extension when `type` is NULL; `name` NULL with a
 * type: the first resource of that type. Both NULL or empty: BUNDLEIDX_NOT_FOUND, as
 * Foundation answers nil. On success *out_path is the absolute path (bundleidx_free()).
 */
int bundleidx_path_for_resource(bundleidx_bundle *bundle, const char *name, const char *type,
                                const char *subdirectory, const char *localization, char **out_path);

/*
 * Bundle.paths(forResourcesOfType:inDirectory:[forLocalization:]): every resource of `type`
 * (every resource when NULL) along the search list, absolute paths in search order. Returns
 * 0 with *out_count 0 and *out_paths NULL when there is none (as `bundleidx paths` prints
 * nothing). Release the array with bundleidx_free_paths(*out_paths, *out_count).
 */
int bundleidx_paths_for_resources(bundleidx_bundle *bundle, const char *type, const char *subdirectory,
                                  const char *localization, char ***out_paths, size_t *out_count);

/*
 * Bundle.object(forInfoDictionaryKey:) as text: a string value as it is (localized through
 * InfoPlist.strings as Foundation does), any other value as JSON text (true, 42,
 * ["a","b"]), as `bundleidx info BUNDLE KEY` prints it. BUNDLEIDX_NOT_FOUND when the key
 * is absent. On success *out is the value (bundleidx_free()).
 */
int bundleidx_info_string(bundleidx_bundle *bundle, const char *key, char **out);

/*
 * Bundle.localizedString(forKey:value:table:) from the index: `table` NULL or "" is
 * "Localizable"; the table is the one the search pattern finds (its .strings and .stringsdict),
 * as `bundleidx string` answers. Returns 0 with the table's entry, or BUNDLEIDX_NOT_FOUND when
 * the table (or the key in it) is missing — and then *out is what Foundation answers in that
 * case: `value` when it is not NULL or empty, else `key`. In both cases *out must be released
 * with bundleidx_free(). A table too large to be indexed (over 16 MiB) is an error.
 */
int bundleidx_localized_string(bundleidx_bundle *bundle, const char *key, const char *value,
                               const char *table, char **out);

/* A sentence naming `code` (a static string; never NULL, also for unknown codes). */
const char *bundleidx_strerror(int code);

/* Releases a string returned by this library (NULL: nothing). */
void bundleidx_free(void *string);

/* Releases an array from bundleidx_paths_for_resources() and its strings (NULL: nothing). */
void bundleidx_free_paths(char **paths, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* BUNDLEIDX_H */
