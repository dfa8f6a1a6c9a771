/* Tracer advection, four tracers per iteration with SSE2 (see advect_batch.h).
 *
 * locate4 is grid_locate_axis for four tracers: maxps(u, 0) is u > 0 ? u : 0
 * and minps(u, top) is u < top ? u : top, exactly as the scalar code reads,
 * signed zeros and NaN included; cvttps2dq is the C cast. The sample of each
 * tracer is the 4-float trilinear of advect.c (lanes = its 4 components);
 * the four results are then transposed so that wind and the Euler step run
 * with lanes = tracers. */
#include "advect_batch.h"

#if defined(EDDY_TRACER_BATCH)
#include <emmintrin.h>

static inline void locate4(__m128 p, float min, float inv, int cells, int idx[4], float t[4]) {
    __m128 u = _mm_mul_ps(_mm_sub_ps(p, _mm_set1_ps(min)), _mm_set1_ps(inv));
    u = _mm_max_ps(u, _mm_setzero_ps());
    u = _mm_min_ps(u, _mm_set1_ps((float)cells));
    __m128i i = _mm_cvttps_epi32(u);
    const __m128i last = _mm_set1_epi32(cells - 1);
    const __m128i below = _mm_cmplt_epi32(i, last);
    i = _mm_or_si128(_mm_and_si128(below, i), _mm_andnot_si128(below, last));
    _mm_storeu_si128((void *)idx, i); /* unaligned store: no alignment needed */
    _mm_storeu_ps(t, _mm_sub_ps(u, _mm_cvtepi32_ps(i)));
}

static inline __m128 lerp(__m128 s, __m128 t, __m128 a, __m128 b) {
    return _mm_add_ps(_mm_mul_ps(s, a), _mm_mul_ps(t, b));
}

/* The trilinear sample of one tracer: advect.c's flow_sample, lane = component. */
static inline __m128 sample(const float *a000, size_t nx4, size_t nxy4, float tx, float ty,
                            float tz) {
    const float *a010 = a000 + nx4, *a001 = a000 + nxy4, *a011 = a001 + nx4;
    const __m128 sx = _mm_set1_ps(1.0f - tx), vx = _mm_set1_ps(tx);
    const __m128 sy = _mm_set1_ps(1.0f - ty), vy = _mm_set1_ps(ty);
    const __m128 sz = _mm_set1_ps(1.0f - tz), vz = _mm_set1_ps(tz);
    const __m128 e00 = lerp(sx, vx, _mm_loadu_ps(a000), _mm_loadu_ps(a000 + 4));
    const __m128 e10 = lerp(sx, vx, _mm_loadu_ps(a010), _mm_loadu_ps(a010 + 4));
    const __m128 e01 = lerp(sx, vx, _mm_loadu_ps(a001), _mm_loadu_ps(a001 + 4));
    const __m128 e11 = lerp(sx, vx, _mm_loadu_ps(a011), _mm_loadu_ps(a011 + 4));
    const __m128 lo = _mm_add_ps(_mm_mul_ps(e00, sy), _mm_mul_ps(e10, vy));
    const __m128 hi = _mm_add_ps(_mm_mul_ps(e01, sy), _mm_mul_ps(e11, vy));
    return _mm_add_ps(_mm_mul_ps(lo, sz), _mm_mul_ps(hi, vz));
}

int eddy_tracer_batches_sse2(const grid_shape *g, const float *flow, float dt, vec3 wind,
                             tracer_out o, int begin, int end) {
    const size_t nx = (size_t)g->points[0], nxy = nx * (size_t)g->points[1];
    const __m128 wx = _mm_set1_ps(wind.x), wy = _mm_set1_ps(wind.y), wz = _mm_set1_ps(wind.z);
    const __m128 vdt = _mm_set1_ps(dt);
    int i = begin;
    for (; i + 4 <= end; i += 4) {
        const __m128 x = _mm_loadu_ps(o.px + i), y = _mm_loadu_ps(o.py + i),
                     z = _mm_loadu_ps(o.pz + i);
        int ix[4], iy[4], iz[4];
        float tx[4], ty[4], tz[4];
        locate4(x, g->min[0], g->inv_spacing[0], g->cells[0], ix, tx);
        locate4(y, g->min[1], g->inv_spacing[1], g->cells[1], iy, ty);
        locate4(z, g->min[2], g->inv_spacing[2], g->cells[2], iz, tz);
        __m128 f[4];
        for (int k = 0; k < 4; ++k) {
            const float *a000 = flow + 4 * ((size_t)ix[k] + nx * (size_t)iy[k] + nxy * (size_t)iz[k]);
            f[k] = sample(a000, 4 * nx, 4 * nxy, tx[k], ty[k], tz[k]);
        }
        _MM_TRANSPOSE4_PS(f[0], f[1], f[2], f[3]);
        const __m128 ux = _mm_add_ps(f[0], wx), uy = _mm_add_ps(f[1], wy),
                     uz = _mm_add_ps(f[2], wz);
        _mm_storeu_ps(o.rho + i, f[3]);
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

#if defined(EDDY_TRACER_BATCH)
int eddy_tracer_batches(const grid_shape *g, const float *flow, float dt, vec3 wind,
                        tracer_out out, int begin, int end) {
    return eddy_tracer_batches_sse2(g, flow, dt, wind, out, begin, end);
}
#endif
