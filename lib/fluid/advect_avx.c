/* SPDX-License-Identifier: MIT */
/* Tracer advection, eight tracers per iteration with AVX (see advect_batch.h).
 * Built with -mavx (never -mfma) on x86-64 only; lib/fluid/advect_sse2.c calls it
 * when the CPU has AVX.
 *
 * Design note: the same operations as the one-tracer path, tracer by tracer.
 *
 * locate8 is advect_sse2.c's locate4 for eight coordinates: maxps(u, 0) and
 * minps(u, top) read as the scalar ternaries (signed zeros and NaN
 * included), cvttps2dq is the C cast; the clamp of the cell index to
 * cells - 1 is done on the index converted back to float (exact: grids have
 * far fewer than 2^24 cells per axis), minps(i, last) being i < last ? i :
 * last, and the fraction is u minus that index, as before.
 * The trilinear sample keeps grid_interp_n's order: along x, e = s a + t b
 * for each of the four x-edges, then (e00 sy + e10 ty) sz + (e01 sy + e11 ty)
 * tz. A 256-bit load takes both ends of an x-edge (a grid point's 4 floats
 * and its +x neighbour's, adjacent in the point-major flow grid); multiplied
 * by (s,s,s,s, t,t,t,t) it holds s a and t b, and adding its two halves is
 * the x lerp. Two tracers then share each register (one per 128-bit half)
 * for the y and z lerps. Lanes never mix: a lane is one component of one
 * tracer until the transpose, after which a lane is one tracer for the wind
 * and the Euler step. */
#include "fluid/advect_batch.h"

#include <immintrin.h>

/* Cell indices (to idx) and in-cell fractions of eight coordinates. */
static inline __m256 locate8(__m256 p, float min, float inv, int cells, int idx[8]) {
    __m256 u = _mm256_mul_ps(_mm256_sub_ps(p, _mm256_set1_ps(min)), _mm256_set1_ps(inv));
    u = _mm256_max_ps(u, _mm256_setzero_ps());
    u = _mm256_min_ps(u, _mm256_set1_ps((float)cells));
    const __m256 cell = _mm256_min_ps(_mm256_cvtepi32_ps(_mm256_cvttps_epi32(u)),
                                      _mm256_set1_ps((float)(cells - 1)));
    _mm256_storeu_si256((void *)idx, _mm256_cvttps_epi32(cell));
    return _mm256_sub_ps(u, cell);
}

/* Weights of eight tracers along one axis: s = 1 - t and t, one float each. */
typedef struct axis_weights {
    float s[8], t[8];
} axis_weights;

static inline void weights_of(__m256 t, axis_weights *w) {
    _mm256_storeu_ps(w->s, _mm256_sub_ps(_mm256_set1_ps(1.0f), t));
    _mm256_storeu_ps(w->t, t);
}

/* (a, a, a, a, b, b, b, b) */
static inline __m256 halves(const float *a, const float *b) {
    return _mm256_blend_ps(_mm256_broadcast_ss(a), _mm256_broadcast_ss(b), 0xf0);
}

/* The x lerps of one x-edge for tracers k (low half) and k + 1 (high half):
 * s a + t b for each, from the edges starting at p and q. */
static inline __m256 edge_pair(const float *p, const float *q, __m256 wk, __m256 wk1) {
    const __m256 pk = _mm256_mul_ps(_mm256_loadu_ps(p), wk);
    const __m256 qk = _mm256_mul_ps(_mm256_loadu_ps(q), wk1);
    return _mm256_add_ps(_mm256_permute2f128_ps(pk, qk, 0x20), _mm256_permute2f128_ps(pk, qk, 0x31));
}

typedef struct grid_steps {
    size_t nx4, nxy4; /* floats from a point to its +y and +z neighbours */
} grid_steps;

/* The samples of tracers k and k + 1 (4 floats each, one per half). */
static inline __m256 sample_pair(const float *a, const float *b, grid_steps g,
                                 const axis_weights w[3], int k) {
    const __m256 wk = halves(&w[0].s[k], &w[0].t[k]), wk1 = halves(&w[0].s[k + 1], &w[0].t[k + 1]);
    const __m256 e00 = edge_pair(a, b, wk, wk1);
    const __m256 e10 = edge_pair(a + g.nx4, b + g.nx4, wk, wk1);
    const __m256 e01 = edge_pair(a + g.nxy4, b + g.nxy4, wk, wk1);
    const __m256 e11 = edge_pair(a + g.nxy4 + g.nx4, b + g.nxy4 + g.nx4, wk, wk1);
    const __m256 sy = halves(&w[1].s[k], &w[1].s[k + 1]), ty = halves(&w[1].t[k], &w[1].t[k + 1]);
    const __m256 sz = halves(&w[2].s[k], &w[2].s[k + 1]), tz = halves(&w[2].t[k], &w[2].t[k + 1]);
    const __m256 lo = _mm256_add_ps(_mm256_mul_ps(e00, sy), _mm256_mul_ps(e10, ty));
    const __m256 hi = _mm256_add_ps(_mm256_mul_ps(e01, sy), _mm256_mul_ps(e11, ty));
    return _mm256_add_ps(_mm256_mul_ps(lo, sz), _mm256_mul_ps(hi, tz));
}

/* Samples of tracers (0|1), (2|3), (4|5), (6|7) to components in lanes =
 * tracers: c[0..3] = u, v, w, rho' of tracers 0..7. */
static inline void transpose_pairs(__m256 p01, __m256 p23, __m256 p45, __m256 p67, __m256 c[4]) {
    const __m256 q0 = _mm256_permute2f128_ps(p01, p45, 0x20); /* tracers 0 | 4 */
    const __m256 q1 = _mm256_permute2f128_ps(p01, p45, 0x31); /* 1 | 5 */
    const __m256 q2 = _mm256_permute2f128_ps(p23, p67, 0x20); /* 2 | 6 */
    const __m256 q3 = _mm256_permute2f128_ps(p23, p67, 0x31); /* 3 | 7 */
    const __m256 t0 = _mm256_unpacklo_ps(q0, q1), t1 = _mm256_unpackhi_ps(q0, q1);
    const __m256 t2 = _mm256_unpacklo_ps(q2, q3), t3 = _mm256_unpackhi_ps(q2, q3);
    c[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    c[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    c[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    c[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

int eddy_tracer_batches_avx(const grid_shape *g, const float *flow, float dt, vec3 wind,
                            tracer_out o, int begin, int end) {
    const size_t nx = (size_t)g->points[0], nxy = nx * (size_t)g->points[1];
    const grid_steps steps = {4 * nx, 4 * nxy};
    const __m256 wx = _mm256_set1_ps(wind.x), wy = _mm256_set1_ps(wind.y), wz = _mm256_set1_ps(wind.z);
    const __m256 vdt = _mm256_set1_ps(dt);
    int i = begin;
    for (; i + 8 <= end; i += 8) {
        const __m256 x = _mm256_loadu_ps(o.px + i), y = _mm256_loadu_ps(o.py + i),
                     z = _mm256_loadu_ps(o.pz + i);
        int ix[8], iy[8], iz[8];
        axis_weights w[3];
        weights_of(locate8(x, g->min[0], g->inv_spacing[0], g->cells[0], ix), &w[0]);
        weights_of(locate8(y, g->min[1], g->inv_spacing[1], g->cells[1], iy), &w[1]);
        weights_of(locate8(z, g->min[2], g->inv_spacing[2], g->cells[2], iz), &w[2]);
        const float *a[8];
        for (int k = 0; k < 8; ++k)
            a[k] = flow + 4 * ((size_t)ix[k] + nx * (size_t)iy[k] + nxy * (size_t)iz[k]);
        __m256 c[4];
        transpose_pairs(sample_pair(a[0], a[1], steps, w, 0), sample_pair(a[2], a[3], steps, w, 2),
                        sample_pair(a[4], a[5], steps, w, 4), sample_pair(a[6], a[7], steps, w, 6), c);
        const __m256 ux = _mm256_add_ps(c[0], wx), uy = _mm256_add_ps(c[1], wy),
                     uz = _mm256_add_ps(c[2], wz);
        _mm256_storeu_ps(o.rho + i, c[3]);
        _mm256_storeu_ps(o.vx + i, ux);
        _mm256_storeu_ps(o.vy + i, uy);
        _mm256_storeu_ps(o.vz + i, uz);
        _mm256_storeu_ps(o.px + i, _mm256_add_ps(x, _mm256_mul_ps(ux, vdt)));
        _mm256_storeu_ps(o.py + i, _mm256_add_ps(y, _mm256_mul_ps(uy, vdt)));
        _mm256_storeu_ps(o.pz + i, _mm256_add_ps(z, _mm256_mul_ps(uz, vdt)));
    }
    return i;
}
