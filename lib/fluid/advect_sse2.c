/* SPDX-License-Identifier: MIT */
/* Tracer advection, four tracers per iteration with SSE2 (see advect_batch.h).
 *
 * locate4 is grid_locate_axis for four tracers: maxps(u, 0) is u > 0 ? u : 0
 * and minps(u, top) is u < top ? u : top, exactly as the scalar code reads,
 * signed zeros and NaN included; cvttps2dq is the C cast. The sample of each
 * tracer is the 4-float trilinear of advect.c (lanes = its 4 components);
 * the four results are then transposed so that wind and the Euler step run
 * with lanes = tracers. */
#include "fluid/advect_batch.h"

#if defined(EDDY_TRACER_BATCH)
#include <emmintrin.h>

/* Cell indices (to idx) and in-cell fractions t of four coordinates. */
static inline __m128 locate4(__m128 p, float min, float inv, int cells, int idx[4]) {
    __m128 u = _mm_mul_ps(_mm_sub_ps(p, _mm_set1_ps(min)), _mm_set1_ps(inv));
    u = _mm_max_ps(u, _mm_setzero_ps());
    u = _mm_min_ps(u, _mm_set1_ps((float)cells));
    __m128i i = _mm_cvttps_epi32(u);
    const __m128i last = _mm_set1_epi32(cells - 1);
    const __m128i below = _mm_cmplt_epi32(i, last);
    i = _mm_or_si128(_mm_and_si128(below, i), _mm_andnot_si128(below, last));
    _mm_storeu_si128((void *)idx, i); /* unaligned store: no alignment needed */
    return _mm_sub_ps(u, _mm_cvtepi32_ps(i));
}

static inline __m128 lerp(__m128 s, __m128 t, __m128 a, __m128 b) {
    return _mm_add_ps(_mm_mul_ps(s, a), _mm_mul_ps(t, b));
}

/* Lane `lane` of v in all four lanes. */
#define SPLAT(v, lane) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(lane, lane, lane, lane))

/* The fractions of four tracers (t) and their complements (s = 1 - t, per
 * lane the scalar code's 1.0f - t). */
typedef struct weights4 {
    __m128 sx, tx, sy, ty, sz, tz;
} weights4;

/* The trilinear sample of tracer `lane`: advect.c's flow_sample, lanes =
 * its 4 components. */
#define SAMPLE(w, a000, nx4, nxy4, lane)                                                       \
    sample((a000), (nx4), (nxy4), SPLAT((w).sx, lane), SPLAT((w).tx, lane),                    \
           SPLAT((w).sy, lane), SPLAT((w).ty, lane), SPLAT((w).sz, lane), SPLAT((w).tz, lane))

static inline __m128 sample(const float *a000, size_t nx4, size_t nxy4, __m128 sx, __m128 tx,
                            __m128 sy, __m128 ty, __m128 sz, __m128 tz) {
    const float *a010 = a000 + nx4, *a001 = a000 + nxy4, *a011 = a001 + nx4;
    const __m128 e00 = lerp(sx, tx, _mm_loadu_ps(a000), _mm_loadu_ps(a000 + 4));
    const __m128 e10 = lerp(sx, tx, _mm_loadu_ps(a010), _mm_loadu_ps(a010 + 4));
    const __m128 e01 = lerp(sx, tx, _mm_loadu_ps(a001), _mm_loadu_ps(a001 + 4));
    const __m128 e11 = lerp(sx, tx, _mm_loadu_ps(a011), _mm_loadu_ps(a011 + 4));
    const __m128 lo = _mm_add_ps(_mm_mul_ps(e00, sy), _mm_mul_ps(e10, ty));
    const __m128 hi = _mm_add_ps(_mm_mul_ps(e01, sy), _mm_mul_ps(e11, ty));
    return _mm_add_ps(_mm_mul_ps(lo, sz), _mm_mul_ps(hi, tz));
}

int eddy_tracer_batches_sse2(const grid_shape *g, const float *flow, float dt, vec3 wind,
                             tracer_out o, int begin, int end) {
    const size_t nx = (size_t)g->points[0], nxy = nx * (size_t)g->points[1];
    const size_t nx4 = 4 * nx, nxy4 = 4 * nxy;
    const __m128 wx = _mm_set1_ps(wind.x), wy = _mm_set1_ps(wind.y), wz = _mm_set1_ps(wind.z);
    const __m128 vdt = _mm_set1_ps(dt), one = _mm_set1_ps(1.0f);
    int i = begin;
    for (; i + 4 <= end; i += 4) {
        const __m128 x = _mm_loadu_ps(o.px + i), y = _mm_loadu_ps(o.py + i),
                     z = _mm_loadu_ps(o.pz + i);
        int ix[4], iy[4], iz[4];
        weights4 w;
        w.tx = locate4(x, g->min[0], g->inv_spacing[0], g->cells[0], ix);
        w.ty = locate4(y, g->min[1], g->inv_spacing[1], g->cells[1], iy);
        w.tz = locate4(z, g->min[2], g->inv_spacing[2], g->cells[2], iz);
        w.sx = _mm_sub_ps(one, w.tx);
        w.sy = _mm_sub_ps(one, w.ty);
        w.sz = _mm_sub_ps(one, w.tz);
        const float *a[4];
        for (int k = 0; k < 4; ++k)
            a[k] = flow + 4 * ((size_t)ix[k] + nx * (size_t)iy[k] + nxy * (size_t)iz[k]);
        __m128 f0 = SAMPLE(w, a[0], nx4, nxy4, 0), f1 = SAMPLE(w, a[1], nx4, nxy4, 1);
        __m128 f2 = SAMPLE(w, a[2], nx4, nxy4, 2), f3 = SAMPLE(w, a[3], nx4, nxy4, 3);
        _MM_TRANSPOSE4_PS(f0, f1, f2, f3);
        const __m128 ux = _mm_add_ps(f0, wx), uy = _mm_add_ps(f1, wy), uz = _mm_add_ps(f2, wz);
        _mm_storeu_ps(o.rho + i, f3);
        _mm_storeu_ps(o.vx + i, ux);
        _mm_storeu_ps(o.vy + i, uy);
        _mm_storeu_ps(o.vz + i, uz);
        _mm_storeu_ps(o.px + i, _mm_add_ps(x, _mm_mul_ps(ux, vdt)));
        _mm_storeu_ps(o.py + i, _mm_add_ps(y, _mm_mul_ps(uy, vdt)));
        _mm_storeu_ps(o.pz + i, _mm_add_ps(z, _mm_mul_ps(uz, vdt)));
    }
    return i;
}
#endif

#if defined(EDDY_HAVE_ADVECT_AVX)
#define EDDY_CPU_HAS_AVX() __builtin_cpu_supports("avx")
#else
#define EDDY_CPU_HAS_AVX() false
#endif

#if defined(EDDY_TRACER_BATCH)
bool eddy_tracer_batches_avx_available(void) { return EDDY_CPU_HAS_AVX(); }

/* The widest build the CPU runs (AVX: eight at a time, then SSE2 for a last
 * four); every build gives the same bits (tests/test_advect.c). */
int eddy_tracer_batches(const grid_shape *g, const float *flow, float dt, vec3 wind,
                        tracer_out out, int begin, int end) {
#if defined(EDDY_HAVE_ADVECT_AVX)
    if (EDDY_CPU_HAS_AVX()) begin = eddy_tracer_batches_avx(g, flow, dt, wind, out, begin, end);
#endif
    return eddy_tracer_batches_sse2(g, flow, dt, wind, out, begin, end);
}
#endif
