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
extern int eddy_fuzz_desync_taken;

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

/* ---------------------------------------------------------------- seeds */
/* Every stored seed still reaches its decoder and is accepted by it: a
 * format change that outdates a seed fails here, so the seeds are
 * regenerated with it (replay_make_corpus, README.md), and the fuzzers start
 * from inputs that get past the magic, version and checksum checks. */
#include "eddy/replay.h"
#include "eddy/snapshot.h"
#include "verify.h"

static eddy_world *tiny_def_world(void) {
    eddy_world_def d = eddy_world_def_default(); /* the fuzz targets' small world */
    d.vorton_radius = 0.2f;
    d.tracer_max_age = 15;
    d.seed = 7;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    return w;
}

static const char *check_snapshot(const unsigned char *data, size_t size) {
    static char message[256];
    eddy_world *w = tiny_def_world();
    const eddy_status s = eddy_world_restore(w, data, size, message, sizeof message);
    eddy_world_destroy(w);
    return s == EDDY_OK ? NULL : message;
}

static const char *check_input(const unsigned char *data, size_t size) {
    static char message[256];
    eddy_input_storage *st = eddy_input_storage_create();
    const eddy_input *in = NULL;
    const eddy_status s = eddy_input_decode(data, size, st, &in, message, sizeof message);
    eddy_input_storage_destroy(st);
    return s == EDDY_OK ? NULL : message;
}

static const char *check_replay_seed(const char *name, const unsigned char *data, size_t size) {
    static char message[512];
    if (size < 1) return "empty";
    switch (data[0]) {
    case 0: {
        eddy_player *p = NULL;
        const eddy_status s = eddy_player_open_memory(data + 1, size - 1, NULL, &p, message,
                                                      sizeof message);
        const bool cut = strstr(name, "cut") != NULL;
        const bool ok = p && (s == EDDY_OK || (cut && s == EDDY_ERROR_TRUNCATED)) &&
                        eddy_player_world(p) != NULL;
        eddy_player_close(p);
        return ok ? NULL : message;
    }
    case 1: return check_input(data + 1, size - 1);
    case 2: return check_snapshot(data + 1, size - 1);
    case 3: {
        eddy_world_def d = eddy_world_def_default();
        return eddy_world_def_decode(data + 1, size - 1, &d, message, sizeof message) == EDDY_OK
                   ? NULL
                   : message;
    }
    default: return "unknown mode byte";
    }
}

static const char *check_golden(const char *path) {
    static char message[512];
    verify_golden g;
    if (verify_golden_read(path, "vortex_ring", &g, message, sizeof message) != VERIFY_EXIT_OK)
        return message;
    verify_golden_free(&g);
    return NULL;
}

static const char *check_desync(const unsigned char *data, size_t size) {
    eddy_fuzz_desync_one(data, size);
    return eddy_fuzz_desync_taken > 0 ? NULL : "no message or record was taken";
}

/* Checks every seed of dir (files starting with prefix); returns how many. */
static int check_seeds(const char *dir, const char *prefix, const char *target) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no directory %s", dir);
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || strcmp(e->d_name, "README.md") == 0)
            continue;
        if (e->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        unsigned char *data = read_all(path, &size);
        const char *why = NULL;
        if (!strcmp(target, "replay")) why = check_replay_seed(e->d_name, data, size);
        else if (!strcmp(target, "snapshot")) why = check_snapshot(data, size);
        else if (!strcmp(target, "input")) why = check_input(data, size);
        else if (!strcmp(target, "golden")) why = check_golden(path);
        else if (!strcmp(target, "desync")) why = check_desync(data, size);
        cr_expect(why == NULL, "%s seed %s no longer decodes: %s (regenerate the seeds: "
                  "replay/fuzz/regressions/README.md)", target, e->d_name, why ? why : "");
        free(data);
        ++count;
    }
    closedir(d);
    return count;
}

Test(fuzz_regressions, every_stored_seed_still_decodes, .timeout = 60) {
    cr_expect_gt(check_seeds(EDDY_FUZZ_REGRESSIONS "/../seeds", "", "replay"), 0);
    const char *targets[] = {"snapshot", "input", "golden", "desync"};
    for (int t = 0; t < 4; ++t) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", EDDY_FUZZ_REGRESSIONS, targets[t]);
        cr_expect_gt(check_seeds(dir, "seed_", targets[t]), 0, "%s has no seed", targets[t]);
    }
}
