/* SPDX-License-Identifier: MIT */
/* eddy-smoke-bench: what a smoke volume and sight queries cost next to the
 * step (docs/gameplay.md, "Cost"). Not a test, not installed.
 *
 * Steps a scene (noise_cloud by default: 262k tracers) to a frame, then,
 * for each worker count asked, times eddy_smoke_volume_update over a cube
 * around the cloud at a resolution, and eddy_smoke_transmittance of a batch
 * of segments across it (a 64-player match asks 64 x 63 = 4032), interleaved
 * repetitions, medians. The step itself is timed on the same world for
 * scale. Every run prints the volume hash and a digest of the
 * transmittances: equal for every worker count.
 *
 *   eddy-smoke-bench [--scene NAME] [--frames N] [--resolution N]
 *                    [--segments N] [--reps N] [--extinction S] [--half-extent E] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eddy/eddy.h"
#include "eddy/smoke.h"
#include "scenes.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct options {
    const char *scene;
    int frames, resolution, segments, reps;
    float extinction, half_extent;
} options;

static uint64_t digest(const float *x, int n) {
    uint64_t h = 1469598103934665603ull;
    const unsigned char *b = (const unsigned char *)x;
    for (size_t k = 0; k < (size_t)n * sizeof(float); ++k) h = (h ^ b[k]) * 1099511628211ull;
    return h;
}

static int run(const options *o, int workers) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    if (eddy_scene_create(o->scene, &base, &w) != EDDY_OK) {
        fprintf(stderr, "eddy-smoke-bench: cannot create scene %s\n", o->scene);
        return 1;
    }
    eddy_scene_input in;
    double *step = calloc((size_t)o->reps, sizeof(double));
    double *vol = calloc((size_t)o->reps, sizeof(double));
    double *sight = calloc((size_t)o->reps, sizeof(double));
    eddy_sight_segment *s = calloc((size_t)o->segments, sizeof *s);
    float *t = calloc((size_t)o->segments, sizeof(float));
    for (int f = 0; f < o->frames; ++f) eddy_world_step(w, eddy_scene_input_for(o->scene, f, &in));
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    const float e = o->half_extent;
    d.min_corner = (eddy_vec3){-e, -e, -e};
    d.max_corner = (eddy_vec3){e, e, e};
    d.resolution[0] = d.resolution[1] = d.resolution[2] = o->resolution;
    eddy_smoke_volume *v = NULL;
    eddy_smoke_volume_create(&d, &v);
    /* 64 "players" on a ring around the cloud, every pair: then cut to count */
    eddy_rng rng = eddy_rng_seed(34, 2);
    for (int k = 0; k < o->segments; ++k) {
        s[k].from = (eddy_vec3){-e, eddy_rng_spread(&rng, 2.0f * e), eddy_rng_spread(&rng, 2.0f * e)};
        s[k].to = (eddy_vec3){e, eddy_rng_spread(&rng, 2.0f * e), eddy_rng_spread(&rng, 2.0f * e)};
    }
    for (int r = 0; r < o->reps; ++r) {
        double t0 = now_ms();
        eddy_world_step(w, eddy_scene_input_for(o->scene, eddy_world_frame(w), &in));
        double t1 = now_ms();
        eddy_smoke_volume_update(v, w);
        double t2 = now_ms();
        eddy_smoke_transmittance(w, v, o->extinction, s, o->segments, t, NULL);
        double t3 = now_ms();
        step[r] = t1 - t0;
        vol[r] = t2 - t1;
        sight[r] = t3 - t2;
    }
    int clear = 0;
    for (int k = 0; k < o->segments; ++k) clear += t[k] > 0.5f;
    printf("%-12s workers %2d  frame %lld  tracers %d  step %.2f ms  volume %d^3 %.2f ms  "
           "%d segments %.2f ms (%d with T > 0.5)  volume hash %016llx  T digest %016llx\n",
           o->scene, workers, (long long)eddy_world_frame(w), eddy_world_tracer_count(w),
           median(step, o->reps), o->resolution, median(vol, o->reps), o->segments,
           median(sight, o->reps), clear, (unsigned long long)eddy_smoke_volume_hash(v),
           (unsigned long long)digest(t, o->segments));
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
    free(step); free(vol); free(sight); free(s); free(t);
    return 0;
}

int main(int argc, char **argv) {
    options o = {"noise_cloud", 30, 64, 4096, 11, 5e-5f, 1.25f};
    int workers[16], worker_runs = 0;
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k], *next = k + 1 < argc ? argv[k + 1] : NULL;
        if (!next) break;
        if (!strcmp(a, "--scene")) o.scene = next;
        else if (!strcmp(a, "--frames")) o.frames = atoi(next);
        else if (!strcmp(a, "--resolution")) o.resolution = atoi(next);
        else if (!strcmp(a, "--segments")) o.segments = atoi(next);
        else if (!strcmp(a, "--reps")) o.reps = atoi(next);
        else if (!strcmp(a, "--extinction")) o.extinction = strtof(next, NULL);
        else if (!strcmp(a, "--half-extent")) o.half_extent = strtof(next, NULL);
        else if (!strcmp(a, "--workers") && worker_runs < 16) workers[worker_runs++] = atoi(next);
        else {
            fprintf(stderr, "eddy-smoke-bench: unknown option %s\n", a);
            return 2;
        }
        ++k;
    }
    if (worker_runs == 0) {
        workers[0] = 1;
        workers[1] = 2;
        worker_runs = 2;
    }
    if (o.reps < 1 || o.segments < 1 || o.resolution < 1) return 2;
    for (int k = 0; k < worker_runs; ++k)
        if (run(&o, workers[k])) return 1;
    return 0;
}
