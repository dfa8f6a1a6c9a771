/* SPDX-License-Identifier: MIT */
/* replay_bench: what recording costs (docs/replay.md, "Cost").
 *
 *   replay_bench [--scene NAME] [--frames N] [--threads T] [--repeat R]
 *
 * For each of R rounds, runs the scene N frames three times from scratch,
 * interleaved so drift in the machine's speed hits all alike: plain
 * stepping; stepping through a recorder without block hashes; through a
 * recorder with block hashes (the default). Recorders write to a sink that
 * counts and discards the bytes (the cost measured is the CPU's, not the
 * disk's). Prints the median per-frame step time of each, the overhead, and
 * the bytes per frame after the start (header, definition and initial
 * snapshot) without keyframes (with and without block hashes) and with
 * keyframes every 100 and 30 frames, with the compression ratio. On a busy
 * machine the step times drift by more than recording costs; the recorder's
 * own time (encoding, hashing, compressing, writing) is the steadier figure. */
#include "eddy/replay.h"
#include "scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_options {
    const char *scene;
    int frames, threads, repeat;
} bench_options;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static eddy_status count_bytes(const void *data, size_t size, void *context) {
    (void)data;
    *(uint64_t *)context += size;
    return EDDY_OK;
}

static eddy_world *scene(const bench_options *o) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = o->threads;
    eddy_world *w = NULL;
    if (eddy_scene_create(o->scene, &base, &w) != EDDY_OK) {
        fprintf(stderr, "replay_bench: cannot create scene %s\n", o->scene);
        exit(1);
    }
    return w;
}

/* Milliseconds per frame of one run; rec_def NULL: no recorder. *start_bytes:
 * what the recorder wrote at creation (header and world record). */
static double run(const bench_options *o, const eddy_recorder_def *rec_def,
                  eddy_recorder_stats *stats, uint64_t *start_bytes) {
    eddy_world *w = scene(o);
    uint64_t bytes = 0;
    eddy_recorder *r = NULL;
    if (rec_def && eddy_recorder_create(w, rec_def, count_bytes, NULL, &bytes, &r, NULL, 0) != EDDY_OK)
        exit(1);
    if (start_bytes) *start_bytes = bytes;
    double total = 0.0;
    for (int f = 0; f < o->frames; ++f) {
        eddy_scene_input in;
        const eddy_input *input = eddy_scene_input_for(o->scene, eddy_world_frame(w), &in);
        const double t0 = now_ms();
        eddy_status s = r ? eddy_recorder_step(r, input) : eddy_world_step(w, input);
        total += now_ms() - t0;
        if (s != EDDY_OK) exit(1);
    }
    if (r) {
        eddy_recorder_finish(r);
        if (stats) *stats = eddy_recorder_get_stats(r);
    }
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    return total / o->frames;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void sizes(const bench_options *o, int keyframe_interval, bool block_hashes) {
    eddy_recorder_def d = eddy_recorder_def_default();
    d.keyframe_interval = keyframe_interval;
    d.block_hashes = block_hashes;
    eddy_recorder_stats st;
    uint64_t start;
    run(o, &d, &st, &start);
    char label[48];
    if (keyframe_interval) snprintf(label, sizeof label, "keyframes every %d", keyframe_interval);
    else snprintf(label, sizeof label, "no keyframes");
    printf("  %-20s %-9s %9.0f bytes/frame after a start of %.2f MB; file %6.2f MB, payload "
           "%6.2f MB, ratio %.2f\n", label, block_hashes ? "blocks" : "no blocks",
           (double)(st.bytes_written - start) / (double)st.frames, (double)start * 1e-6,
           (double)st.bytes_written * 1e-6, (double)st.raw_bytes * 1e-6,
           (double)st.raw_bytes / (double)st.bytes_written);
}

static void parse(int argc, char **argv, bench_options *o) {
    *o = (bench_options){"noise_cloud", 300, 1, 3};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--scene")) o->scene = argv[i + 1];
        else if (!strcmp(argv[i], "--frames")) o->frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) o->threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat")) o->repeat = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: replay_bench [--scene NAME] [--frames N] [--threads T] [--repeat R]\n");
            exit(2);
        }
    }
    if (o->frames < 1 || o->threads < 1 || o->repeat < 1 || o->repeat > 64) exit(2);
}

int main(int argc, char **argv) {
    bench_options o;
    parse(argc, argv, &o);
    double plain[64], lean[64], full[64], rec_lean[64], rec_full[64];
    for (int k = 0; k < o.repeat; ++k) {
        eddy_recorder_def no_blocks = eddy_recorder_def_default(), blocks = no_blocks;
        no_blocks.block_hashes = false;
        blocks.block_hashes = true;
        eddy_recorder_stats a, b;
        plain[k] = run(&o, NULL, NULL, NULL);
        lean[k] = run(&o, &no_blocks, &a, NULL);
        full[k] = run(&o, &blocks, &b, NULL);
        rec_lean[k] = a.record_ms / (double)a.frames;
        rec_full[k] = b.record_ms / (double)b.frames;
    }
    const double p = median(plain, o.repeat), l = median(lean, o.repeat), f = median(full, o.repeat);
    const double rl = median(rec_lean, o.repeat), rf = median(rec_full, o.repeat);
    printf("%s, %d frames, %d worker(s), median of %d rounds\n", o.scene, o.frames, o.threads, o.repeat);
    printf("  plain step            %8.3f ms/frame\n", p);
    printf("  recorded, no blocks   %8.3f ms/frame (%+.2f%%; recorder's own time %.3f ms = %.2f%%)\n", l,
           100.0 * (l - p) / p, rl, 100.0 * rl / p);
    printf("  recorded, blocks      %8.3f ms/frame (%+.2f%%; recorder's own time %.3f ms = %.2f%%)\n", f,
           100.0 * (f - p) / p, rf, 100.0 * rf / p);
    printf("sizes (zstd level 3, %d frames per chunk):\n", eddy_recorder_def_default().frames_per_chunk);
    sizes(&o, 0, false);
    sizes(&o, 0, true);
    sizes(&o, 100, true);
    sizes(&o, 30, true);
    return 0;
}
