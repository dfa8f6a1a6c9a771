/* SPDX-License-Identifier: MIT */
/* eddy-cloud-scaling: the cost of a random vorton cloud against its size
 * (issue 35, item 5). A cloud at noise_cloud's density (4,096 vortons in a
 * 2 m cube, the cube's edge growing as the cube root of N), vorticity
 * uniform in [-32, 32] per component (noise_cloud's magnitude), 16 tracers
 * per vorton spread over the same cube, the default world definition, one
 * worker unless told. Prints, for N = 4,096, 16,384 and 65,536 (or the sizes
 * given), the median ms per phase over the measured frames, and the ratio of
 * the last size's step to the first's. Timings only: nothing here is a test.
 *
 *   eddy-cloud-scaling [--workers W] [--frames F] [--warmup K] [N ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"

static uint32_t rng_next(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static float uniform(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)(rng_next(s) >> 7) * (1.0f / 16777216.0f);
}

static float cube_edge(int n) {
    float e = 2.0f; /* 2 m at 4,096, times cbrt(n / 4096) by bisection (no libm) */
    float lo = 0.0f, hi = 64.0f;
    const float k = (float)n / 4096.0f;
    for (int i = 0; i < 60; ++i) {
        const float m = 0.5f * (lo + hi);
        if (m * m * m < k) lo = m;
        else hi = m;
    }
    return e * lo;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char *const k_names[EDDY_PHASE_COUNT] = {
    [EDDY_PHASE_INPUT] = "input",
    [EDDY_PHASE_KILL_EMIT] = "kill_emit",
    [EDDY_PHASE_ADVECT_TRACERS] = "advect_tracers",
    [EDDY_PHASE_TREE_BUILD] = "tree_build",
    [EDDY_PHASE_VELOCITY_GRID] = "velocity_grid",
    [EDDY_PHASE_STRETCH] = "stretch",
    [EDDY_PHASE_DENSITY] = "density",
    [EDDY_PHASE_DIFFUSION] = "diffusion",
    [EDDY_PHASE_ADVECT_VORTONS] = "advect_vortons",
    [EDDY_PHASE_COLLIDE_TRACERS] = "collide_tracers",
    [EDDY_PHASE_COLLIDE_VORTONS] = "collide_vortons",
    [EDDY_PHASE_BODIES] = "bodies",
    [EDDY_PHASE_DIAGNOSTICS] = "diagnostics",
    [EDDY_PHASE_HASH] = "hash",
};

enum { MAX_SIZES = 8, MAX_FRAMES = 1000 };

int main(int argc, char **argv) {
    int workers = 1, frames = 10, warmup = 3, sizes[MAX_SIZES], nsizes = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) workers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (nsizes < MAX_SIZES && atoi(argv[i]) > 0) sizes[nsizes++] = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: eddy-cloud-scaling [--workers W] [--frames F] [--warmup K] [N ...]\n");
            return 2;
        }
    }
    if (frames < 1 || frames > MAX_FRAMES || workers < 1 || warmup < 0) return 2;
    if (nsizes == 0) {
        sizes[0] = 4096;
        sizes[1] = 16384;
        sizes[2] = 65536;
        nsizes = 3;
    }
    static double med[MAX_SIZES][EDDY_PHASE_COUNT + 1];
    static double samples[EDDY_PHASE_COUNT + 1][MAX_FRAMES];
    for (int s = 0; s < nsizes; ++s) {
        const int n = sizes[s];
        eddy_world_def d = eddy_world_def_default();
        d.worker_count = workers;
        eddy_world *w = NULL;
        if (eddy_world_create(&d, &w) != EDDY_OK) {
            fprintf(stderr, "create: %s\n", eddy_last_error_message());
            return 1;
        }
        const float h = 0.5f * cube_edge(n);
        uint64_t seed = 0x5eed0035u + (uint64_t)n;
        eddy_vorton *v = calloc((size_t)n, sizeof *v);
        eddy_tracer *t = calloc((size_t)n * 16, sizeof *t);
        if (!v || !t) return 1;
        for (int i = 0; i < n; ++i) {
            v[i].position = (eddy_vec3){uniform(&seed, -h, h), uniform(&seed, -h, h), uniform(&seed, -h, h)};
            v[i].vorticity = (eddy_vec3){uniform(&seed, -32.0f, 32.0f), uniform(&seed, -32.0f, 32.0f),
                                         uniform(&seed, -32.0f, 32.0f)};
        }
        for (int i = 0; i < 16 * n; ++i)
            t[i].position = (eddy_vec3){uniform(&seed, -h, h), uniform(&seed, -h, h), uniform(&seed, -h, h)};
        if (eddy_world_add_vortons(w, v, n) != EDDY_OK || eddy_world_add_tracers(w, t, 16 * n) != EDDY_OK) {
            fprintf(stderr, "add: %s\n", eddy_world_error_message(w));
            return 1;
        }
        free(v);
        free(t);
        for (int f = 0; f < warmup + frames; ++f) {
            if (eddy_world_step(w, NULL) != EDDY_OK) {
                fprintf(stderr, "step: %s\n", eddy_world_error_message(w));
                return 1;
            }
            if (f < warmup) continue;
            const eddy_profile p = eddy_world_get_profile(w);
            for (int k = 0; k < EDDY_PHASE_COUNT; ++k) samples[k][f - warmup] = p.phase_ms[k];
            samples[EDDY_PHASE_COUNT][f - warmup] = p.step_ms;
        }
        for (int k = 0; k <= EDDY_PHASE_COUNT; ++k) {
            qsort(samples[k], (size_t)frames, sizeof(double), cmp_double);
            med[s][k] = frames % 2 ? samples[k][frames / 2]
                                   : 0.5 * (samples[k][frames / 2 - 1] + samples[k][frames / 2]);
        }
        const eddy_grid_info g = eddy_world_get_grid_info(w);
        fprintf(stderr, "N %d: cube %.3f m, grid %d x %d x %d\n", n, (double)(2.0f * h), g.cells[0],
                g.cells[1], g.cells[2]);
        eddy_world_destroy(w);
    }
    printf("| phase (ms, median of %d frames, %d worker%s) |", frames, workers, workers > 1 ? "s" : "");
    for (int s = 0; s < nsizes; ++s) printf(" N %d |", sizes[s]);
    printf(" ratio |\n|---|");
    for (int s = 0; s <= nsizes; ++s) printf("---|");
    printf("\n");
    for (int k = 0; k <= EDDY_PHASE_COUNT; ++k) {
        printf("| %s |", k < EDDY_PHASE_COUNT ? (k_names[k] ? k_names[k] : "?") : "step");
        for (int s = 0; s < nsizes; ++s) printf(" %.2f |", med[s][k]);
        printf(" %.1f |\n", med[0][k] > 0.0 ? med[nsizes - 1][k] / med[0][k] : 0.0);
    }
    return 0;
}
