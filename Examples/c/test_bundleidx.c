/*
 * test_bundleidx — every function of bundleidx.h against a small bundle the caller indexed:
 * answers, NULL arguments, misses, errors, a damaged and a foreign index, handles shared by
 * threads. Examples/c/check builds the fixture, installs the library and runs this.
 *
 *   test_bundleidx ROOT INDEX DAMAGED_INDEX FOREIGN_INDEX
 *
 * ROOT holds CTest.app (see Examples/c/check); BUNDLEIDX_INDEX must name INDEX and the
 * environment's language must be English (LANG=C). Ends with "N passed, N failed".
 */
#include <bundleidx.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(condition) check((condition), #condition, __LINE__)

static void check(int ok, const char *what, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "test_bundleidx.c:%d: failed: %s\n", line, what);
    }
}

static char root[4096];

/* ROOT/CTest.app/RELATIVE, in a static buffer. */
static const char *in_app(const char *relative) {
    static char path[8192];
    snprintf(path, sizeof path, "%s/CTest.app/%s", root, relative);
    return path;
}

/* The path lookup answers, or a copy of its code in words ("not found", …) when it fails. */
static int lookup(bundleidx_bundle *bundle, const char *name, const char *type, const char *dir, const char *loc,
                  char *answer, size_t size) {
    char *path = (char *)"unset";
    int code = bundleidx_path_for_resource(bundle, name, type, dir, loc, &path);
    snprintf(answer, size, "%s", code == 0 ? path : bundleidx_strerror(code));
    if (code != 0 && path != NULL) {
        check(0, "an output left set after a failure", __LINE__);
    }
    bundleidx_free(path);
    return code;
}

static int found_at(bundleidx_bundle *bundle, const char *name, const char *type, const char *dir, const char *loc,
                    const char *relative) {
    char answer[8192];
    int code = lookup(bundle, name, type, dir, loc, answer, sizeof answer);
    if (code != 0 || strcmp(answer, in_app(relative)) != 0) {
        fprintf(stderr, "  %s.%s in %s (%s): %s, expected %s\n", name ? name : "NULL", type ? type : "NULL",
                dir ? dir : "NULL", loc ? loc : "NULL", answer, in_app(relative));
        return 0;
    }
    return 1;
}

static void test_strerror(void) {
    int codes[] = {BUNDLEIDX_OK, BUNDLEIDX_NOT_FOUND, BUNDLEIDX_ERR_ARGUMENT, BUNDLEIDX_ERR_NO_INDEX,
                   BUNDLEIDX_ERR_NOT_AN_INDEX, BUNDLEIDX_ERR_DAMAGED, BUNDLEIDX_ERR_STORAGE, BUNDLEIDX_ERR_SYSTEM,
                   BUNDLEIDX_ERR_NO_MEMORY};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *message = bundleidx_strerror(codes[i]);
        CHECK(message != NULL && message[0] != '\0');
        for (size_t j = 0; j < i; j++) CHECK(strcmp(message, bundleidx_strerror(codes[j])) != 0);
    }
    CHECK(strstr(bundleidx_strerror(12345), "unknown") != NULL);
    CHECK(strstr(bundleidx_strerror(BUNDLEIDX_ERR_DAMAGED), "damaged") != NULL);
}

static void test_open_errors(const char *damaged, const char *foreign) {
    bundleidx_index *index = (bundleidx_index *)&index;
    CHECK(bundleidx_open(NULL, NULL, NULL) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_open(NULL, "klingon", &index) == BUNDLEIDX_ERR_ARGUMENT && index == NULL);
    CHECK(bundleidx_open(NULL, "\xff\xfe", &index) == BUNDLEIDX_ERR_ARGUMENT && index == NULL);
    char missing[8192];
    snprintf(missing, sizeof missing, "%s/no-index-here", root);
    CHECK(bundleidx_open(missing, NULL, &index) == BUNDLEIDX_ERR_NO_INDEX && index == NULL);
    CHECK(bundleidx_open(damaged, NULL, &index) == BUNDLEIDX_ERR_DAMAGED && index == NULL);
    CHECK(bundleidx_open(foreign, "foundation-linux", &index) == BUNDLEIDX_ERR_NOT_AN_INDEX && index == NULL);
    /* The close and free functions take NULL. */
    bundleidx_close(NULL);
    bundleidx_bundle_close(NULL);
    bundleidx_free(NULL);
    bundleidx_free_paths(NULL, 0);
}

static void test_warm_up(bundleidx_index *index) {
    size_t bytes = 1;
    CHECK(bundleidx_warm_up(NULL, &bytes) == BUNDLEIDX_ERR_ARGUMENT && bytes == 0);
    CHECK(bundleidx_warm_up(index, &bytes) == 0 && bytes >= 4096 && bytes % 4096 == 0);
    CHECK(bundleidx_warm_up(index, NULL) == 0);
}

static void test_bundle_open(bundleidx_index *index) {
    bundleidx_bundle *bundle = (bundleidx_bundle *)&bundle;
    CHECK(bundleidx_bundle_open(index, "com.example.ctest", &bundle) == 0 && bundle != NULL);
    bundleidx_bundle_close(bundle);
    CHECK(bundleidx_bundle_open(index, in_app(""), &bundle) == 0 && bundle != NULL);
    bundleidx_bundle_close(bundle);
    CHECK(bundleidx_bundle_open(index, "com.example.absent", &bundle) == BUNDLEIDX_NOT_FOUND && bundle == NULL);
    CHECK(bundleidx_bundle_open(index, "/nowhere/Absent.app", &bundle) == BUNDLEIDX_NOT_FOUND && bundle == NULL);
    CHECK(bundleidx_bundle_open(index, NULL, &bundle) == BUNDLEIDX_ERR_ARGUMENT && bundle == NULL);
    CHECK(bundleidx_bundle_open(NULL, "com.example.ctest", &bundle) == BUNDLEIDX_ERR_ARGUMENT && bundle == NULL);
    CHECK(bundleidx_bundle_open(index, "com.example.ctest", NULL) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_bundle_open(index, "com.\xc3\x28", &bundle) == BUNDLEIDX_ERR_ARGUMENT && bundle == NULL);
}

static void test_path_for_resource(bundleidx_bundle *app) {
    char answer[8192];
    /* The search pattern: the -linux variant first, a type inside the name, a type only, a
       subdirectory, an English lproj (LANG=C), forLocalization: reading that lproj only. */
    CHECK(found_at(app, "icon", "png", NULL, NULL, "icon-linux.png"));
    CHECK(found_at(app, "readme.txt", NULL, NULL, NULL, "readme.txt"));
    CHECK(found_at(app, "readme", ".txt", NULL, NULL, "readme.txt"));
    CHECK(found_at(app, NULL, "wav", "Sounds", NULL, "Sounds/beep.wav"));
    CHECK(found_at(app, "beep", "wav", "Sounds", NULL, "Sounds/beep.wav"));
    CHECK(found_at(app, "Localizable", "strings", NULL, NULL, "en.lproj/Localizable.strings"));
    CHECK(found_at(app, "Localizable", "strings", NULL, "fr", "fr.lproj/Localizable.strings"));
    CHECK(found_at(app, "only-fr", "txt", NULL, "fr", "fr.lproj/only-fr.txt"));
    /* Misses: nothing there, a language folder that is not searched, both NULL (nil in
       Foundation), a localization the bundle lacks. */
    CHECK(lookup(app, "absent", "png", NULL, NULL, answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    CHECK(lookup(app, "only-fr", "txt", NULL, NULL, answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    CHECK(lookup(app, NULL, NULL, NULL, NULL, answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    CHECK(lookup(app, "", "", NULL, NULL, answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    CHECK(lookup(app, "beep", "wav", NULL, NULL, answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    CHECK(lookup(app, "only-fr", "txt", NULL, "de", answer, sizeof answer) == BUNDLEIDX_NOT_FOUND);
    /* Errors. */
    char *path = (char *)"unset";
    CHECK(bundleidx_path_for_resource(NULL, "icon", "png", NULL, NULL, &path) == BUNDLEIDX_ERR_ARGUMENT && path == NULL);
    CHECK(bundleidx_path_for_resource(app, "icon", "png", NULL, NULL, NULL) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(lookup(app, "icon\xff", "png", NULL, NULL, answer, sizeof answer) == BUNDLEIDX_ERR_ARGUMENT);
}

static void test_paths_for_resources(bundleidx_bundle *app) {
    char **paths = (char **)&paths;
    size_t count = 99;
    CHECK(bundleidx_paths_for_resources(app, "png", NULL, NULL, &paths, &count) == 0);
    CHECK(count == 2 && paths != NULL);
    int icon = 0, linux_icon = 0;
    for (size_t i = 0; i < count; i++) {
        icon += strcmp(paths[i], in_app("icon.png")) == 0;
        linux_icon += strcmp(paths[i], in_app("icon-linux.png")) == 0;
    }
    CHECK(icon == 1 && linux_icon == 1);
    bundleidx_free_paths(paths, count);

    CHECK(bundleidx_paths_for_resources(app, "txt", NULL, "fr", &paths, &count) == 0);
    int only_fr = 0;
    for (size_t i = 0; i < count; i++) only_fr += strcmp(paths[i], in_app("fr.lproj/only-fr.txt")) == 0;
    CHECK(count == 2 && only_fr == 1);
    bundleidx_free_paths(paths, count);

    CHECK(bundleidx_paths_for_resources(app, "wav", "Sounds", NULL, &paths, &count) == 0);
    CHECK(count == 1 && strcmp(paths[0], in_app("Sounds/beep.wav")) == 0);
    bundleidx_free_paths(paths, count);

    /* Every resource of the global folder and of the first lproj that has any. */
    CHECK(bundleidx_paths_for_resources(app, NULL, NULL, NULL, &paths, &count) == 0 && count >= 5);
    bundleidx_free_paths(paths, count);

    /* None: 0, an empty answer. */
    CHECK(bundleidx_paths_for_resources(app, "absent", NULL, NULL, &paths, &count) == 0);
    CHECK(paths == NULL && count == 0);

    CHECK(bundleidx_paths_for_resources(NULL, "png", NULL, NULL, &paths, &count) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(paths == NULL && count == 0);
    CHECK(bundleidx_paths_for_resources(app, "png", NULL, NULL, NULL, &count) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_paths_for_resources(app, "png", NULL, NULL, &paths, NULL) == BUNDLEIDX_ERR_ARGUMENT);
}

static void test_info_string(bundleidx_bundle *app) {
    char *value = NULL;
    CHECK(bundleidx_info_string(app, "CFBundleName", &value) == 0 && value && strcmp(value, "CTest") == 0);
    bundleidx_free(value);
    CHECK(bundleidx_info_string(app, "CFBundleIdentifier", &value) == 0 && value
          && strcmp(value, "com.example.ctest") == 0);
    bundleidx_free(value);
    /* Values that are not strings come as JSON text, as `bundleidx info BUNDLE KEY` prints them. */
    CHECK(bundleidx_info_string(app, "CTestCount", &value) == 0 && value && strcmp(value, "7") == 0);
    bundleidx_free(value);
    CHECK(bundleidx_info_string(app, "CTestList", &value) == 0 && value && strcmp(value, "[\"a\",\"b\"]") == 0);
    bundleidx_free(value);
    value = (char *)"unset";
    CHECK(bundleidx_info_string(app, "Absent", &value) == BUNDLEIDX_NOT_FOUND && value == NULL);
    CHECK(bundleidx_info_string(app, NULL, &value) == BUNDLEIDX_ERR_ARGUMENT && value == NULL);
    CHECK(bundleidx_info_string(NULL, "CFBundleName", &value) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_info_string(app, "CFBundleName", NULL) == BUNDLEIDX_ERR_ARGUMENT);
}

static void test_localized_string(bundleidx_bundle *app) {
    char *text = NULL;
    CHECK(bundleidx_localized_string(app, "greeting", NULL, NULL, &text) == 0 && text && strcmp(text, "Hello") == 0);
    bundleidx_free(text);
    CHECK(bundleidx_localized_string(app, "greeting", "ignored", "", &text) == 0 && text && strcmp(text, "Hello") == 0);
    bundleidx_free(text);
    /* Missing: Foundation's answer comes with BUNDLEIDX_NOT_FOUND — the value, else the key. */
    CHECK(bundleidx_localized_string(app, "absent", "Fallback", NULL, &text) == BUNDLEIDX_NOT_FOUND
          && text && strcmp(text, "Fallback") == 0);
    bundleidx_free(text);
    CHECK(bundleidx_localized_string(app, "absent", "", NULL, &text) == BUNDLEIDX_NOT_FOUND && text && strcmp(text, "absent") == 0);
    bundleidx_free(text);
    CHECK(bundleidx_localized_string(app, "greeting", NULL, "NoSuchTable", &text) == BUNDLEIDX_NOT_FOUND
          && text && strcmp(text, "greeting") == 0);
    bundleidx_free(text);
    text = (char *)"unset";
    CHECK(bundleidx_localized_string(app, NULL, NULL, NULL, &text) == BUNDLEIDX_ERR_ARGUMENT && text == NULL);
    CHECK(bundleidx_localized_string(NULL, "greeting", NULL, NULL, &text) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_localized_string(app, "greeting", NULL, NULL, NULL) == BUNDLEIDX_ERR_ARGUMENT);
    CHECK(bundleidx_localized_string(app, "\xff\xfe", NULL, NULL, &text) == BUNDLEIDX_ERR_ARGUMENT);
}

static void test_languages(const char *index_dir) {
    bundleidx_index *index = NULL;
    bundleidx_bundle *app = NULL;
    CHECK(bundleidx_open(index_dir, "apple", &index) == 0);
    CHECK(bundleidx_set_languages(index, "fr-CA, en") == 0);
    CHECK(bundleidx_bundle_open(index, "com.example.ctest", &app) == 0);
    CHECK(found_at(app, "Localizable", "strings", NULL, NULL, "fr.lproj/Localizable.strings"));
    CHECK(found_at(app, "only-fr", "txt", NULL, NULL, "fr.lproj/only-fr.txt"));
    char *text = NULL;
    CHECK(bundleidx_localized_string(app, "greeting", NULL, NULL, &text) == 0 && text && strcmp(text, "Bonjour") == 0);
    bundleidx_free(text);
    /* Languages apply to bundles opened afterwards; this one keeps French. */
    CHECK(bundleidx_set_languages(index, NULL) == 0);
    CHECK(found_at(app, "Localizable", "strings", NULL, NULL, "fr.lproj/Localizable.strings"));
    bundleidx_bundle *english = NULL;
    CHECK(bundleidx_bundle_open(index, "com.example.ctest", &english) == 0);
    CHECK(found_at(english, "Localizable", "strings", NULL, NULL, "en.lproj/Localizable.strings"));
    bundleidx_bundle_close(english);
    CHECK(bundleidx_set_languages(NULL, "fr") == BUNDLEIDX_ERR_ARGUMENT);
    /* The index may close first: the bundle keeps it open. */
    bundleidx_close(index);
    CHECK(found_at(app, "Localizable", "strings", NULL, NULL, "fr.lproj/Localizable.strings"));
    bundleidx_bundle_close(app);

    CHECK(bundleidx_open(index_dir, "foundation-linux", &index) == 0);
    CHECK(bundleidx_set_languages(index, "fr") == BUNDLEIDX_ERR_ARGUMENT);
    bundleidx_close(index);
}

/* Threads share one index handle and one bundle handle. */
struct shared {
    bundleidx_index *index;
    bundleidx_bundle *app;
    /* Made before the threads start: in_app() writes one static buffer, and four threads calling
       it at once read each other's half-written path (a failure of the test, not the library). */
    char expected[8192];
    int wrong;
};

static void *lookups(void *argument) {
    struct shared *shared = argument;
    const char *expected = shared->expected;
    int wrong = 0;
    for (int i = 0; i < 20000; i++) {
        char *path = NULL;
        if (bundleidx_path_for_resource(shared->app, "icon", "png", NULL, NULL, &path) != 0 || strcmp(path, expected) != 0)
            wrong++;
        bundleidx_free(path);
        if (i % 100 == 0) {
            bundleidx_bundle *own = NULL;
            if (bundleidx_bundle_open(shared->index, "com.example.ctest", &own) != 0) wrong++;
            char **paths = NULL;
            size_t count = 0;
            if (bundleidx_paths_for_resources(own, "png", NULL, NULL, &paths, &count) != 0 || count != 2) wrong++;
            bundleidx_free_paths(paths, count);
            bundleidx_bundle_close(own);
        }
    }
    __atomic_add_fetch(&shared->wrong, wrong, __ATOMIC_RELAXED);
    return NULL;
}

static void test_threads(bundleidx_index *index, bundleidx_bundle *app) {
    struct shared shared = {index, app, "", 0};
    snprintf(shared.expected, sizeof shared.expected, "%s", in_app("icon-linux.png"));
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, lookups, &shared) == 0);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    CHECK(shared.wrong == 0);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: test_bundleidx ROOT INDEX DAMAGED_INDEX FOREIGN_INDEX\n");
        return 2;
    }
    snprintf(root, sizeof root, "%s", argv[1]);
    test_strerror();
    test_open_errors(argv[3], argv[4]);

    /* NULL index directory: the default location ($BUNDLEIDX_INDEX here); NULL profile: apple. */
    bundleidx_index *index = NULL;
    CHECK(bundleidx_open(NULL, NULL, &index) == 0 && index != NULL);
    if (index == NULL) {
        printf("%d passed, %d failed\n", passed, failed);
        return 1;
    }
    test_warm_up(index);
    test_bundle_open(index);
    bundleidx_bundle *app = NULL;
    CHECK(bundleidx_bundle_open(index, "com.example.ctest", &app) == 0);
    if (app != NULL) {
        test_path_for_resource(app);
        test_paths_for_resources(app);
        test_info_string(app);
        test_localized_string(app);
        test_threads(index, app);
        bundleidx_bundle_close(app);
    }
    bundleidx_close(index);
    test_languages(argv[2]);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
