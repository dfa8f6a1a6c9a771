/* SPDX-License-Identifier: MIT */
/* eddy-view-bench: what a renderer pays per frame to read the tracers, and
 * what stable particle ids cost the step (docs/integration.md, "Reading
 * particles"). Not a test, not installed.
 *
 * A renderer fills a vertex buffer of (x, y, z, rho', age) per tracer. Two
 * ways: through the copy API (eddy_world_get_tracers into an eddy_tracer
 * array, then the vertex buffer from it) and straight from the read-only view
 * (eddy_world_view_tracers). The copy alone is timed too. Repetitions are
 * interleaved (copy, fill-from-copy, fill-from-view, ...) on one stepped
 * world so machine noise hits all three alike; medians are printed.
 * Then the same scene is stepped with particle_ids off and on, interleaved
 * step by step, and the median step times are printed.
 *
 *   eddy-view-bench [--scene NAME] [--reps N] [--steps N] [--warmup N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eddy/eddy.h"
#include "scenes.h"

typedef struct vertex {
    float x, y, z, drho, age;
} vertex;

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

static void fill_from_copy(const eddy_tracer *t, int n, int64_t frame, vertex *out) {
    for (int i = 0; i < n; ++i)
        out[i] = (vertex){t[i].position.x, t[i].position.y, t[i].position.z,
                          t[i].density_deviation, (float)(frame - t[i].birth_frame)};
}

static void fill_from_view(const eddy_particle_view *v, vertex *out) {
    for (int i = 0; i < v->count; ++i)
        out[i] = (vertex){v->position_x[i], v->position_y[i], v->position_z[i],
                          v->density_deviation[i], (float)(v->frame - v->birth_frame[i])};
}

static eddy_world *scene_world(const char *scene, bool ids) {
    eddy_world_def base = eddy_world_def_default();
    base.particle_ids = ids;
    eddy_world *w = NULL;
    eddy_status s = eddy_scene_create(scene, &base, &w);
    if (s != EDDY_OK) {
        fprintf(stderr, "eddy-view-bench: scene %s: %s (%s)\n", scene, eddy_status_name(s),
                eddy_last_error_message());
        exit(2);
    }
    return w;
}

static void step_scene(const char *scene, eddy_world *w) {
    eddy_scene_input storage;
    const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(w), &storage);
    if (eddy_world_step(w, in) != EDDY_OK) {
        fprintf(stderr, "eddy-view-bench: step failed: %s\n", eddy_world_error_message(w));
        exit(1);
    }
}

static int int_arg(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "eddy-view-bench: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return atoi(argv[++*i]);
}

int main(int argc, char **argv) {
    const char *scene = "noise_cloud";
    int reps = 51, steps = 30, warmup = 5;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) scene = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0) reps = int_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--steps") == 0) steps = int_arg(argc, argv, &i);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = int_arg(argc, argv, &i);
        else {
            fprintf(stderr, "usage: eddy-view-bench [--scene NAME] [--reps N] [--steps N] [--warmup N]\n");
            return 2;
        }
    }
    if (reps < 1 || steps < 1 || warmup < 0) {
        fprintf(stderr, "eddy-view-bench: --reps and --steps must be >= 1, --warmup >= 0\n");
        return 2;
    }

    /* ---- reading the tracers */
    eddy_world *w = scene_world(scene, false);
    for (int f = 0; f < warmup; ++f) step_scene(scene, w);
    const int n = eddy_world_tracer_count(w);
    eddy_tracer *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof *copy);
    vertex *vb = malloc((size_t)(n > 0 ? n : 1) * sizeof *vb);
    double *t_copy = malloc((size_t)reps * sizeof(double));
    double *t_copy_fill = malloc((size_t)reps * sizeof(double));
    double *t_view_fill = malloc((size_t)reps * sizeof(double));
    if (!copy || !vb || !t_copy || !t_copy_fill || !t_view_fill) {
        fprintf(stderr, "eddy-view-bench: out of memory\n");
        return 1;
    }
    double checksum = 0.0;
    for (int r = 0; r < reps; ++r) {
        double t0 = now_ms();
        eddy_world_get_tracers(w, 0, n, copy);
        double t1 = now_ms();
        t_copy[r] = t1 - t0;
        checksum += (double)copy[r % (n > 0 ? n : 1)].position.x;

        t0 = now_ms();
        eddy_world_get_tracers(w, 0, n, copy);
        fill_from_copy(copy, n, eddy_world_frame(w), vb);
        t1 = now_ms();
        t_copy_fill[r] = t1 - t0;
        checksum += (double)vb[r % (n > 0 ? n : 1)].y;

        t0 = now_ms();
        const eddy_particle_view v = eddy_world_view_tracers(w);
        fill_from_view(&v, vb);
        t1 = now_ms();
        t_view_fill[r] = t1 - t0;
        checksum += (double)vb[r % (n > 0 ? n : 1)].z;
    }
    printf("scene %s, frame %lld, %d tracers, %d repetitions (medians)\n", scene,
           (long long)eddy_world_frame(w), n, reps);
    const double mc = median(t_copy, reps), mcf = median(t_copy_fill, reps),
                 mvf = median(t_view_fill, reps);
    printf("  copy API alone (eddy_world_get_tracers)       %8.3f ms\n", mc);
    printf("  vertex buffer through the copy API            %8.3f ms\n", mcf);
    printf("  vertex buffer straight from the view          %8.3f ms\n", mvf);
    printf("  saved per frame                               %8.3f ms (%.0f%%)\n", mcf - mvf,
           mcf > 0.0 ? 100.0 * (mcf - mvf) / mcf : 0.0);
    eddy_world_destroy(w);

    /* ---- what stable ids cost the step */
    eddy_world *off = scene_world(scene, false), *on = scene_world(scene, true);
    double *s_off = malloc((size_t)steps * sizeof(double));
    double *s_on = malloc((size_t)steps * sizeof(double));
    if (!s_off || !s_on) return 1;
    for (int f = 0; f < warmup; ++f) {
        step_scene(scene, off);
        step_scene(scene, on);
    }
    for (int f = 0; f < steps; ++f) {
        double t0 = now_ms();
        step_scene(scene, off);
        double t1 = now_ms();
        step_scene(scene, on);
        double t2 = now_ms();
        s_off[f] = t1 - t0;
        s_on[f] = t2 - t1;
    }
    const uint64_t h_off = eddy_world_hash(off).frame_hash, h_on = eddy_world_hash(on).frame_hash;
    printf("step, %d steps after %d (medians, 1 worker)\n", steps, warmup);
    printf("  particle_ids off                              %8.3f ms\n", median(s_off, steps));
    printf("  particle_ids on                               %8.3f ms\n", median(s_on, steps));
    printf("  frame hash %016llx / %016llx (%s)\n", (unsigned long long)h_off,
           (unsigned long long)h_on, h_off == h_on ? "equal" : "DIFFERENT");
    eddy_world_destroy(off);
    eddy_world_destroy(on);
    if (checksum == 12345.678) printf(" \n"); /* keep the reads */
    free(copy), free(vb), free(t_copy), free(t_copy_fill), free(t_view_fill), free(s_off), free(s_on);
    return h_off == h_on ? 0 : 1;
}
