/* SPDX-License-Identifier: MIT */
/* eddy-soak-bench: does memory stay bounded in a long rollback loop?
 *
 * A game with rollback snapshots every frame into a ring and, now and then,
 * restores an older one and re-simulates the frames since. This runs that
 * loop for a long time on one scene and prints the process's resident set
 * (RSS, /proc/self/statm) every --report-every frames, so a creep shows as a
 * rising column (bench/RESULTS.md, "Soak"). Not a test: it asserts nothing but
 * determinism (every re-simulated frame must hash as it did the first time;
 * a difference exits 1).
 *
 *   eddy-soak-bench [--scene NAME] [--frames N] [--rollback-every K]
 *                   [--depth D] [--report-every R] [--threads T]
 *
 * Defaults: vortex_ring, 100000 frames, a rollback every 100 frames to the
 * snapshot taken 8 frames earlier, RSS every 10000 frames, 2 workers. The
 * frame count counts forward frames; re-simulated ones come on top. Exit
 * codes: 0 success, 1 a world could not be created, stepped or restored, or
 * a rollback diverged, 2 bad command line. */
#include "eddy/eddy.h"
#include "eddy/snapshot.h"
#include "scenes.h"

#include <inttypes.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SOAK_MAX_DEPTH = 64 };
/* The ring holds depth + 1 snapshots (slot = frame mod ring): the oldest one
 * a rollback may need and every frame since. */

static double rss_mb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1.0;
    long pages = 0, resident = 0;
    const int n = fscanf(f, "%ld %ld", &pages, &resident);
    fclose(f);
    return n == 2 ? (double)resident * 4096.0 / (1024.0 * 1024.0) : -1.0;
}

/* Bytes the allocator has handed out and not had back (glibc: mallinfo2's
 * in-use heap plus mmapped blocks), so a rising RSS can be told apart:
 * memory in use (something keeps growing) or free memory the allocator
 * keeps (fragmentation). -1 where unknown. */
static double heap_in_use_mb(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    return (double)(m.uordblks + m.hblkhd) / (1024.0 * 1024.0);
#else
    return -1.0;
#endif
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static bool parse_int(const char *text, long lo, long hi, long *out) {
    char *end = NULL;
    const long v = strtol(text, &end, 10);
    if (!text[0] || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int usage(void) {
    fputs("usage: eddy-soak-bench [--scene NAME] [--frames N] [--rollback-every K] [--depth D]\n"
          "                       [--report-every R] [--threads T]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    const char *scene = "vortex_ring";
    long frames = 100000, every = 100, depth = 8, report = 10000, threads = 2;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--scene") && v) scene = v;
        else if (!strcmp(a, "--frames") && v) ok = parse_int(v, 1, 100000000, &frames);
        else if (!strcmp(a, "--rollback-every") && v) ok = parse_int(v, 1, 100000000, &every);
        else if (!strcmp(a, "--depth") && v) ok = parse_int(v, 1, SOAK_MAX_DEPTH - 1, &depth);
        else if (!strcmp(a, "--report-every") && v) ok = parse_int(v, 1, 100000000, &report);
        else if (!strcmp(a, "--threads") && v) ok = parse_int(v, 1, EDDY_MAX_WORKERS, &threads);
        else return usage();
        if (!ok) return usage();
        ++i;
    }
    if (!eddy_scene_find(scene)) {
        char m[256];
        fprintf(stderr, "eddy-soak-bench: %s\n",
                eddy_scene_unknown_message(scene, "eddy-replay scenes", m, sizeof m));
        return 2;
    }
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = (int)threads;
    eddy_world *w = NULL;
    if (eddy_scene_create(scene, &base, &w) != EDDY_OK) {
        fprintf(stderr, "eddy-soak-bench: %s: %s\n", scene, eddy_last_error_message());
        return 1;
    }
    /* ring of snapshots and of the frame hashes of the first pass */
    eddy_bytes ring[SOAK_MAX_DEPTH];
    uint64_t hashes[SOAK_MAX_DEPTH];
    const int64_t slots = depth + 1;
    memset(ring, 0, sizeof ring);
    eddy_scene_input in;
    printf("scene %s, %ld frames, rollback every %ld frames by %ld, %ld workers\n", scene, frames,
           every, depth, threads);
    printf("%10s %10s %10s %12s %10s %9s %9s\n", "frame", "rss_mb", "heap_mb", "rollbacks", "tracers",
           "vortons", "elapsed_s");
    const double t0 = now_s();
    long rollbacks = 0;
    printf("%10lld %10.1f %10.1f %12ld %10d %9d %9.0f\n", (long long)eddy_world_frame(w), rss_mb(),
           heap_in_use_mb(), rollbacks, eddy_world_tracer_count(w), eddy_world_vorton_count(w), 0.0);
    for (long f = 1; f <= frames; ++f) {
        const int64_t frame = eddy_world_frame(w);
        const int slot = (int)(frame % slots);
        ring[slot].size = 0;
        if (eddy_world_snapshot(w, &ring[slot]) != EDDY_OK ||
            eddy_world_step(w, eddy_scene_input_for(scene, frame, &in)) != EDDY_OK) {
            fprintf(stderr, "eddy-soak-bench: frame %lld: %s\n", (long long)frame,
                    eddy_world_error_message(w));
            return 1;
        }
        hashes[(frame + 1) % slots] = eddy_world_hash(w).frame_hash;
        if (f % every == 0 && eddy_world_frame(w) >= depth) {
            const int64_t back = eddy_world_frame(w) - depth, end = eddy_world_frame(w);
            const eddy_bytes *s = &ring[back % slots];
            char message[256];
            if (eddy_world_restore(w, s->data, s->size, message, sizeof message) != EDDY_OK) {
                fprintf(stderr, "eddy-soak-bench: restore to %lld: %s\n", (long long)back, message);
                return 1;
            }
            for (int64_t g = back; g < end; ++g) {
                const int k = (int)(g % slots);
                ring[k].size = 0; /* re-simulated frames are saved again */
                if (eddy_world_snapshot(w, &ring[k]) != EDDY_OK ||
                    eddy_world_step(w, eddy_scene_input_for(scene, g, &in)) != EDDY_OK) {
                    fprintf(stderr, "eddy-soak-bench: re-simulating %lld: %s\n", (long long)g,
                            eddy_world_error_message(w));
                    return 1;
                }
                if (eddy_world_hash(w).frame_hash != hashes[(g + 1) % slots]) {
                    fprintf(stderr, "eddy-soak-bench: frame %lld diverged after a rollback\n",
                            (long long)(g + 1));
                    return 1;
                }
            }
            ++rollbacks;
        }
        if (f % report == 0) {
            printf("%10lld %10.1f %10.1f %12ld %10d %9d %9.0f\n", (long long)eddy_world_frame(w),
                   rss_mb(), heap_in_use_mb(), rollbacks, eddy_world_tracer_count(w),
                   eddy_world_vorton_count(w), now_s() - t0);
            fflush(stdout);
        }
    }
    for (int k = 0; k < SOAK_MAX_DEPTH; ++k) eddy_bytes_free(&ring[k]);
    eddy_world_destroy(w);
    return 0;
}
