/*
 * lookup — the C side of `bundleidx query`: prints the absolute path of one resource.
 *
 *   cc lookup.c $(pkg-config --cflags --libs bundleidx) -o lookup
 *   ./lookup [-i INDEX] [-p PROFILE] [-l LANGUAGES] BUNDLE NAME [TYPE [SUBDIRECTORY [LOCALIZATION]]]
 *
 * Exit status as the command line's: 0 found, 1 not found, 2 usage, 3 index error, 5 other.
 */
#include <bundleidx.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* An empty argument means "none" (NULL), as a missing --type does for the command line. */
static const char *optional(int argc, char **argv, int i) {
    return i < argc && argv[i][0] != '\0' ? argv[i] : NULL;
}

static int exit_status(int code) {
    if (code == BUNDLEIDX_OK) return 0;
    if (code == BUNDLEIDX_NOT_FOUND) return 1;
    if (code == BUNDLEIDX_ERR_ARGUMENT) return 2;
    if (code <= BUNDLEIDX_ERR_NO_INDEX && code >= BUNDLEIDX_ERR_STORAGE) return 3;
    return 5;
}

int main(int argc, char **argv) {
    const char *index_dir = NULL, *profile = NULL, *languages = NULL;
    int option;
    while ((option = getopt(argc, argv, "i:p:l:")) != -1) {
        switch (option) {
        case 'i': index_dir = optarg; break;
        case 'p': profile = optarg; break;
        case 'l': languages = optarg; break;
        default: return 2;
        }
    }
    if (argc - optind < 2) {
        fprintf(stderr, "usage: lookup [-i INDEX] [-p PROFILE] [-l LANGUAGES] BUNDLE NAME [TYPE [SUBDIRECTORY [LOCALIZATION]]]\n");
        return 2;
    }
    char **args = argv + optind;
    int count = argc - optind;

    bundleidx_index *index = NULL;
    int code = bundleidx_open(index_dir, profile, &index);
    if (code == 0 && languages != NULL) code = bundleidx_set_languages(index, languages);
    if (code != 0) {
        fprintf(stderr, "lookup: %s\n", bundleidx_strerror(code));
        bundleidx_close(index);
        return exit_status(code);
    }
    bundleidx_bundle *bundle = NULL;
    code = bundleidx_bundle_open(index, args[0], &bundle);
    if (code == 0) {
        char *path = NULL;
        code = bundleidx_path_for_resource(bundle, optional(count, args, 1), optional(count, args, 2),
                                           optional(count, args, 3), optional(count, args, 4), &path);
        if (code == 0) puts(path);
        bundleidx_free(path);
        bundleidx_bundle_close(bundle);
    } else if (code == BUNDLEIDX_NOT_FOUND) {
        fprintf(stderr, "lookup: bundle not in the index: %s\n", args[0]);
    }
    if (code < 0) fprintf(stderr, "lookup: %s\n", bundleidx_strerror(code));
    bundleidx_close(index);
    return exit_status(code);
}
