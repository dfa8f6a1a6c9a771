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
 *                   [--fresh-buffers] [--trace-after F]
 *
 * Columns (MB): rss; heap (in use plus mmapped); glibc's mallinfo2 arena,
 * uordblks, fordblks, hblkhd; on Linux the library's own live and peak heap
 * bytes, its allocation calls so far and those from other threads (counted
 * by -Wl,--wrap, CMakeLists.txt). --fresh-buffers frees each snapshot buffer
 * before its slot is reused (a new allocation per snapshot); --trace-after F
 * prints every counted call from forward frame F on, with its caller, to
 * standard error.
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

/* The library's own heap (Linux builds link this bench with
 * -Wl,--wrap=malloc,calloc,realloc,free, CMakeLists.txt, and define
 * EDDY_SOAK_WRAP): bytes live (malloc_usable_size of every block handed out
 * and not freed), their peak, and the calls made from threads other than the
 * one that created the world (a worker that allocates gets its own glibc
 * arena). Calls made by glibc itself (threads, stdio) are not counted. */
#if defined(EDDY_SOAK_WRAP)
#include <malloc.h> /* malloc_usable_size */
#include <stdatomic.h>
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
static _Atomic long long g_live, g_peak, g_calls, g_other_thread_calls;
static _Thread_local bool g_main_thread;
static bool g_trace; /* --trace-after: every counted call to stderr */
static void count_in(void *p) {
    if (!p) return;
    const long long now = atomic_fetch_add(&g_live, (long long)malloc_usable_size(p)) +
                          (long long)malloc_usable_size(p);
    long long peak = atomic_load(&g_peak);
    while (now > peak && !atomic_compare_exchange_weak(&g_peak, &peak, now)) {}
    atomic_fetch_add(&g_calls, 1);
    if (!g_main_thread) atomic_fetch_add(&g_other_thread_calls, 1);
}
static void count_out(void *p) {
    if (p) atomic_fetch_sub(&g_live, (long long)malloc_usable_size(p));
}
void *__wrap_malloc(size_t size) {
    void *p = __real_malloc(size);
    count_in(p);
    if (g_trace) fprintf(stderr, "malloc %zu -> %p from %p\n", size, p, __builtin_return_address(0));
    return p;
}
void *__wrap_calloc(size_t count, size_t size) {
    void *p = __real_calloc(count, size);
    count_in(p);
    if (g_trace) fprintf(stderr, "calloc %zu -> %p from %p\n", count * size, p, __builtin_return_address(0));
    return p;
}
void *__wrap_realloc(void *p, size_t size) {
    count_out(p);
    const size_t was = p ? malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, size);
    if (g_trace) fprintf(stderr, "realloc %zu -> %zu from %p\n", was, size, __builtin_return_address(0));
    if (q) count_in(q);
    else if (p && size) count_in(p); /* failed: p is still live */
    return q;
}
void __wrap_free(void *p) {
    count_out(p);
    __real_free(p);
}
static double lib_live_mb(void) { return (double)atomic_load(&g_live) / (1024.0 * 1024.0); }
static double lib_peak_mb(void) { return (double)atomic_load(&g_peak) / (1024.0 * 1024.0); }
#else
static bool g_main_thread, g_trace;
static long long g_calls = -1, g_other_thread_calls = -1;
static double lib_live_mb(void) { return -1.0; }
static double lib_peak_mb(void) { return -1.0; }
#endif

/* glibc's figures in MB (mallinfo2, summed over every arena): arena (heap
 * obtained with brk/sbrk and by the threads' arenas), uordblks (in use in
 * it), fordblks (free in it), hblkhd (in mmapped blocks). -1 elsewhere. */
static void heap_figures(double out[4]) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    const double mb = 1024.0 * 1024.0;
    out[0] = (double)m.arena / mb;
    out[1] = (double)m.uordblks / mb;
    out[2] = (double)m.fordblks / mb;
    out[3] = (double)m.hblkhd / mb;
#else
    for (int k = 0; k < 4; ++k) out[k] = -1.0;
#endif
}

static void report_line(int64_t frame, long rollbacks, const eddy_world *w, double elapsed) {
    double h[4];
    heap_figures(h);
    printf("%8lld %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %8.3f %8.3f %9lld %6lld %6ld %7d %6d %7.0f\n",
           (long long)frame, rss_mb(), heap_in_use_mb(), h[0], h[1], h[2], h[3], lib_live_mb(),
           lib_peak_mb(), (long long)g_calls, (long long)g_other_thread_calls, rollbacks,
           eddy_world_tracer_count(w), eddy_world_vorton_count(w), elapsed);
    fflush(stdout);
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
          "                       [--report-every R] [--threads T] [--fresh-buffers]\n"
          "                       [--trace-after F]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    const char *scene = "vortex_ring";
    long frames = 100000, every = 100, depth = 8, report = 10000, threads = 2;
    bool fresh = false;
    long trace_after = -1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (!strcmp(a, "--fresh-buffers")) {
            fresh = true;
            continue;
        }
        if (!strcmp(a, "--scene") && v) scene = v;
        else if (!strcmp(a, "--frames") && v) ok = parse_int(v, 1, 100000000, &frames);
        else if (!strcmp(a, "--rollback-every") && v) ok = parse_int(v, 1, 100000000, &every);
        else if (!strcmp(a, "--depth") && v) ok = parse_int(v, 1, SOAK_MAX_DEPTH - 1, &depth);
        else if (!strcmp(a, "--report-every") && v) ok = parse_int(v, 1, 100000000, &report);
        else if (!strcmp(a, "--trace-after") && v) ok = parse_int(v, 0, 100000000, &trace_after);
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
    g_main_thread = true;
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
    printf("%8s %7s %7s %7s %7s %7s %7s %8s %8s %9s %6s %6s %7s %6s %7s\n", "frame", "rss", "heap",
           "arena", "uord", "ford", "hblkhd", "lib_live", "lib_peak", "lib_calls", "other",
           "rolls", "tracers", "vortons", "secs");
    const double t0 = now_s();
    long rollbacks = 0;
    report_line(eddy_world_frame(w), rollbacks, w, 0.0);
    for (long f = 1; f <= frames; ++f) {
        if (f == trace_after) g_trace = true;
        const int64_t frame = eddy_world_frame(w);
        const int slot = (int)(frame % slots);
        if (fresh) eddy_bytes_free(&ring[slot]);
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
                if (fresh) eddy_bytes_free(&ring[k]);
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
        if (f % report == 0) report_line(eddy_world_frame(w), rollbacks, w, now_s() - t0);
    }
    for (int k = 0; k < SOAK_MAX_DEPTH; ++k) eddy_bytes_free(&ring[k]);
    eddy_world_destroy(w);
    return 0;
}
