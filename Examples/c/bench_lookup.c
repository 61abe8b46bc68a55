/*
 * bench_lookup — warm cost of bundleidx_path_for_resource from C: the bundles opened once,
 * the queries answered round after round, the time of the rounds after the first divided by
 * their lookups: wall time, and the thread's CPU time (which time slices lost to other
 * processes on a shared machine do not inflate).
 *
 *   bench_lookup INDEX QUERIES.tsv [ROUNDS]
 *
 * QUERIES.tsv: one lookup per line, "bundle<TAB>name<TAB>type<TAB>subdirectory", an empty
 * field meaning NULL (Examples/c/check writes it from a gen-tree query file).
 */
#include <bundleidx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct query {
    bundleidx_bundle *bundle;
    char *name, *type, *dir;
};

static char *field(char **cursor) {
    char *start = *cursor, *end = strpbrk(start, "\t\n");
    if (end != NULL) {
        *cursor = end + (*end == '\t');
        *end = '\0';
    } else {
        *cursor = start + strlen(start);
    }
    return start[0] != '\0' ? strdup(start) : NULL;
}

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_lookup INDEX QUERIES.tsv [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 20;
    bundleidx_index *index = NULL;
    int code = bundleidx_open(argv[1], "foundation-linux", &index);
    if (code != 0) {
        fprintf(stderr, "bench_lookup: %s\n", bundleidx_strerror(code));
        return 1;
    }
    FILE *input = fopen(argv[2], "r");
    if (input == NULL) {
        perror(argv[2]);
        return 1;
    }
    struct query *queries = NULL;
    size_t count = 0, capacity = 0;
    char line[16384], last_bundle[16384] = "";
    bundleidx_bundle *bundle = NULL;
    while (fgets(line, sizeof line, input) != NULL) {
        char *cursor = line;
        char *reference = field(&cursor);
        if (reference == NULL) continue;
        /* The query file lists a bundle's queries together: one handle per run of them. */
        if (strcmp(reference, last_bundle) != 0) {
            bundle = NULL;
            if (bundleidx_bundle_open(index, reference, &bundle) != 0) {
                fprintf(stderr, "bench_lookup: bundle not found: %s\n", reference);
                return 1;
            }
            snprintf(last_bundle, sizeof last_bundle, "%s", reference);
        }
        free(reference);
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            queries = realloc(queries, capacity * sizeof *queries);
        }
        queries[count].bundle = bundle;
        queries[count].name = field(&cursor);
        queries[count].type = field(&cursor);
        queries[count].dir = field(&cursor);
        count++;
    }
    fclose(input);

    size_t hits = 0;
    double started = 0, started_cpu = 0;
    for (int round = 0; round <= rounds; round++) {
        if (round == 1) {   /* round 0 warms the caches */
            started = now(CLOCK_MONOTONIC);
            started_cpu = now(CLOCK_THREAD_CPUTIME_ID);
        }
        for (size_t i = 0; i < count; i++) {
            char *path = NULL;
            if (bundleidx_path_for_resource(queries[i].bundle, queries[i].name, queries[i].type, queries[i].dir, NULL,
                                            &path) == 0)
                hits += round == 0;
            bundleidx_free(path);
        }
    }
    double seconds = now(CLOCK_MONOTONIC) - started, cpu = now(CLOCK_THREAD_CPUTIME_ID) - started_cpu;
    double lookups = (double)count * rounds;
    printf("%zu lookups (%zu hits) x %d rounds: %.3f us per lookup (%.3f us of CPU time)\n", count, hits, rounds,
           seconds / lookups * 1e6, cpu / lookups * 1e6);
    return 0;
}
