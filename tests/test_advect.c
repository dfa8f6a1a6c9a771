/* SPDX-License-Identifier: MIT */
/* Tracer advection (lib/fluid/advect.c, advect_batch.h): every batch build gives
 * the bits of the one-tracer path.
 *
 * Tracers inside, on the faces of and outside a grid (clamped), at signed
 * zeros, NaN and infinity, over a random flow grid: the SSE2 batch and, where
 * the CPU has it, the AVX batch write the same rho', velocity and position
 * bits as grid_interp_n followed by the wind and the Euler step. The
 * remainder a batch leaves to its caller is checked too (counts that are not
 * multiples of 4 or 8). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fluid/advect_batch.h"
#include "core/core.h"

#if defined(EDDY_TRACER_BATCH)

static uint32_t rng_state = 0x6b43a9b5u;

static float uniform(float lo, float hi) { /* xorshift32: test data only */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return lo + (hi - lo) * (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

enum { N = 1003, ARRAYS = 7 };

typedef struct tracers {
    float v[ARRAYS][N]; /* px py pz vx vy vz rho */
} tracers;

static tracer_out out_of(tracers *t) {
    return (tracer_out){t->v[0], t->v[1], t->v[2], t->v[3], t->v[4], t->v[5], t->v[6]};
}

/* The one-tracer path of lib/fluid/advect.c's tracer_chunk. */
static void advect_reference(const grid_shape *g, const float *flow, float dt, vec3 wind,
                             tracers *t, int begin, int end) {
    for (int i = begin; i < end; ++i) {
        const float x = t->v[0][i], y = t->v[1][i], z = t->v[2][i];
        float f[4];
        grid_interp_n(g, flow, 4, x, y, z, f);
        const float ux = f[0] + wind.x, uy = f[1] + wind.y, uz = f[2] + wind.z;
        t->v[6][i] = f[3];
        t->v[3][i] = ux;
        t->v[4][i] = uy;
        t->v[5][i] = uz;
        t->v[0][i] = x + ux * dt;
        t->v[1][i] = y + uy * dt;
        t->v[2][i] = z + uz * dt;
    }
}

typedef int (*batch_fn)(const grid_shape *, const float *, float, vec3, tracer_out, int, int);

/* A batch over [begin, end), the reference for what it leaves. */
static void advect_with(batch_fn batch, const grid_shape *g, const float *flow, float dt,
                        vec3 wind, tracers *t, int begin, int end) {
    const int rest = batch(g, flow, dt, wind, out_of(t), begin, end);
    cr_assert(rest >= begin && rest <= end && end - rest < 8, "batch stopped at %d of [%d, %d)",
              rest, begin, end);
    advect_reference(g, flow, dt, wind, t, rest, end);
}

static void fill_tracers(const grid_shape *g, tracers *t) {
    for (int i = 0; i < N; ++i)
        for (int a = 0; a < 3; ++a) {
            const float lo = g->min[a], hi = g->min[a] + g->extent[a];
            const int kind = i % 23;
            float p = uniform(lo, hi);
            if (kind == 1) p = uniform(lo - 0.5f, lo); /* below the grid: clamped */
            if (kind == 2) p = uniform(hi, hi + 0.5f); /* above */
            if (kind == 3) p = lo + g->spacing[a] * (float)(i % (g->cells[a] + 1)); /* on a point */
            if (kind == 4) p = hi;
            t->v[a][i] = p;
        }
    t->v[0][5] = NAN;
    t->v[1][6] = INFINITY;
    t->v[2][7] = -INFINITY;
    t->v[0][8] = -0.0f;
    t->v[1][8] = 0.0f;
    for (int a = 3; a < ARRAYS; ++a)
        for (int i = 0; i < N; ++i) t->v[a][i] = uniform(-1.0f, 1.0f); /* overwritten */
}

static void expect_same_bits(const tracers *a, const tracers *b, const char *what) {
    for (int k = 0; k < ARRAYS; ++k)
        for (int i = 0; i < N; ++i)
            cr_assert(memcmp(&a->v[k][i], &b->v[k][i], sizeof(float)) == 0,
                      "%s: array %d tracer %d: %a vs %a", what, k, i, (double)a->v[k][i],
                      (double)b->v[k][i]);
}

Test(advect, batches_agree_bitwise_with_one_tracer_path) {
    grid_shape g;
    const float lo[3] = {-1.25f, -0.5f, 0.3f}, hi[3] = {1.0f, 0.75f, 2.1f};
    eddy_grid_define(&g, lo, hi, 3000);
    const int points = grid_point_count(&g);
    float *flow = malloc((size_t)points * 4 * sizeof *flow);
    tracers *start = malloc(sizeof *start), *ref = malloc(sizeof *ref);
    tracers *sse2 = malloc(sizeof *sse2), *avx = malloc(sizeof *avx);
    cr_assert(flow && start && ref && sse2 && avx);
    for (int k = 0; k < 4 * points; ++k) flow[k] = uniform(-2.0f, 2.0f);
    flow[4 * (points / 2)] = -0.0f;
    fill_tracers(&g, start);
    memcpy(ref, start, sizeof *ref);
    memcpy(sse2, start, sizeof *ref);
    memcpy(avx, start, sizeof *ref);
    const float dt = 1.0f / 60.0f;
    const vec3 wind = {0.25f, -0.0f, 0.125f};
    advect_reference(&g, flow, dt, wind, ref, 0, N);
    /* uneven ranges: a chunk's remainder goes to the one-tracer loop */
    const int cuts[] = {0, 3, 17, 400, 411, N};
    for (int c = 0; c + 1 < 6; ++c)
        advect_with(eddy_tracer_batches_sse2, &g, flow, dt, wind, sse2, cuts[c], cuts[c + 1]);
    expect_same_bits(ref, sse2, "SSE2");
    if (eddy_tracer_batches_avx_available()) {
        for (int c = 0; c + 1 < 6; ++c)
            advect_with(eddy_tracer_batches_avx, &g, flow, dt, wind, avx, cuts[c], cuts[c + 1]);
        expect_same_bits(ref, avx, "AVX");
    } else {
        cr_log_warn("this CPU has no AVX: the AVX batch was not compared");
    }
    /* the dispatcher, whatever it chooses */
    memcpy(sse2, start, sizeof *sse2);
    advect_with(eddy_tracer_batches, &g, flow, dt, wind, sse2, 0, N);
    expect_same_bits(ref, sse2, "dispatched");
    free(flow);
    free(start);
    free(ref);
    free(sse2);
    free(avx);
}

#endif
