/* SPDX-License-Identifier: MIT */
/* Stored fuzzer inputs, replayed through the fuzz targets' own checks in a
 * normal (non-fuzzing) build: replay/fuzz/regressions/<target>/ holds the
 * seeds of each target and every input a fuzzer ever crashed on (README.md
 * there). A target's check traps on a broken property, so a regression shows
 * as a crashed test naming the target. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int eddy_fuzz_snapshot_one(const unsigned char *data, size_t size);
int eddy_fuzz_input_one(const unsigned char *data, size_t size);
int eddy_fuzz_golden_one(const unsigned char *data, size_t size);
int eddy_fuzz_desync_one(const unsigned char *data, size_t size);

typedef int fuzz_one_fn(const unsigned char *data, size_t size);

static unsigned char *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    unsigned char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            data = realloc(data, cap);
            cr_assert_not_null(data);
        }
        const size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *size = n;
    return data;
}

/* Every file of regressions/<target>; returns how many were replayed. */
static int replay_all(const char *target, fuzz_one_fn *one) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", EDDY_FUZZ_REGRESSIONS, target);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no directory %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        unsigned char *data = read_all(path, &size);
        cr_log_info("%s: %s (%zu bytes)", target, e->d_name, size);
        one(data, size);
        free(data);
        ++count;
    }
    closedir(d);
    return count;
}

Test(fuzz_regressions, snapshot_decoder) {
    cr_expect_gt(replay_all("snapshot", eddy_fuzz_snapshot_one), 0);
}

Test(fuzz_regressions, input_decoder) {
    cr_expect_gt(replay_all("input", eddy_fuzz_input_one), 0);
}

/* Under a 1 GB address-space limit a reader that sizes its trace by the
 * header alone runs out of memory on a short file, which the target refuses. */
Test(fuzz_regressions, golden_reader) {
    const struct rlimit limit = {1ul << 30, 1ul << 30};
    cr_assert_eq(setrlimit(RLIMIT_AS, &limit), 0);
    cr_expect_gt(replay_all("golden", eddy_fuzz_golden_one), 0);
}

/* A hostile peer's desync messages (a claim of 2^24 blocks among them): each
 * message costs at most the local tree plus its height, or the target traps. */
Test(fuzz_regressions, desync_messages) {
    cr_expect_gt(replay_all("desync", eddy_fuzz_desync_one), 0);
}
