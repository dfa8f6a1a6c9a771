/* SPDX-License-Identifier: MIT */
/* eddy_expf in float lanes, for loops that already work in lanes
 * (eddy_expf_array, the PSE kernels of lib/fluid/diffuse_cell.h): four lanes of
 * lib/runtime/lanes4.h (the default), or eight of lib/runtime/lanes8_avx.h when
 * that header is included first and the file is built with AVX2.
 *
 * Each lane does eddy_expf's operations in eddy_expf's order (lib/runtime/emath.c):
 * the float steps are one IEEE operation per lane, the integer steps on the
 * bit pattern are the same 32-bit wrap-around arithmetic, so every lane has
 * the bits eddy_expf gives for its argument. Lanes outside [EXP_MIN, EXP_MAX]
 * (NaN included) are redone by eddy_expf. The plain C flavour calls eddy_expf
 * per lane. tests/test_emath.c checks eddy_expf_array, which is written on
 * vf_expf, bit for bit against eddy_expf. The constants are eddy_expf's own:
 * lib/runtime/emath.c takes them from here. */
#ifndef EDDY_EMATH_LANES_H
#define EDDY_EMATH_LANES_H

#ifndef VF_LANES
#include "runtime/lanes4.h"
#endif

/* ln 2 = LN2_HI + LN2_LO; LN2_HI has 15 significant bits (0x3f317200) so
 * k * LN2_HI is exact for |k| < 512. */
static const float LN2_HI = 0.693145751953125f;
static const float LN2_LO = 1.42860677e-06f;

static const float LOG2E = 1.44269502f;
static const float ROUND_MAGIC = 12582912.0f; /* 1.5 2^23 */
/* Largest x with a finite result, and smallest with a normal result. */
static const float EXP_MAX = 88.7228317f;  /* 0x42b17217 */
static const float EXP_MIN = -87.3365402f; /* 0xc2aeac4f */

/* exp(r) - 1 - r = r^2 (E2 + E3 r + E4 r^2 + E5 r^3 + E6 r^4) on |r| <= 0.347 */
static const float E2 = 0.49999994f;
static const float E3 = 0.16666520f;
static const float E4 = 0.041668396f;
static const float E5 = 0.0083687967f;
static const float E6 = 0.0013814433f;

#if VF_LANES == 8
/* 256-bit integer steps: the including file is built with -mavx2 */
static inline vf vf_exp_scale(vf er, vf t) {
    const __m256i k =
        _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(vf_splat(ROUND_MAGIC)));
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(er), _mm256_slli_epi32(k, 23)));
}
#define EDDY_EXPF_LANES 1
#elif defined(__SSE2__) && !defined(EDDY_TREE_PLAIN_LANES)
/* 2^k er with k = bits(t) - bits(ROUND_MAGIC): k added to er's exponent. */
static inline vf vf_exp_scale(vf er, vf t) {
    const __m128i k = _mm_sub_epi32(_mm_castps_si128(t), _mm_castps_si128(vf_splat(ROUND_MAGIC)));
    return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(er), _mm_slli_epi32(k, 23)));
}
#define EDDY_EXPF_LANES 1
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(EDDY_TREE_PLAIN_LANES)
static inline vf vf_exp_scale(vf er, vf t) {
    const uint32x4_t k =
        vsubq_u32(vreinterpretq_u32_f32(t), vreinterpretq_u32_f32(vf_splat(ROUND_MAGIC)));
    return vreinterpretq_f32_u32(vaddq_u32(vreinterpretq_u32_f32(er), vshlq_n_u32(k, 23)));
}
#define EDDY_EXPF_LANES 1
#endif

#ifdef EDDY_EXPF_LANES
static inline vf vf_expf(vf x) {
    const vf h = vf_mul(x, vf_splat(LOG2E));
    const vf t = vf_add(h, vf_splat(ROUND_MAGIC));
    const vf kf = vf_sub(t, vf_splat(ROUND_MAGIC));
    const vf r_hi = vf_sub(x, vf_mul(kf, vf_splat(LN2_HI)));
    const vf r_lo = vf_mul(kf, vf_splat(LN2_LO));
    const vf r = vf_sub(r_hi, r_lo);
    const vf r2 = vf_mul(r, r);
    const vf p23 = vf_add(vf_splat(E2), vf_mul(r, vf_splat(E3)));
    const vf p45 = vf_add(vf_splat(E4), vf_mul(r, vf_splat(E5)));
    const vf p456 = vf_add(p45, vf_mul(r2, vf_splat(E6)));
    const vf p = vf_add(p23, vf_mul(r2, p456));
    const vf inner = vf_sub(vf_mul(r2, p), r_lo);
    const vf er = vf_add(vf_splat(1.0f), vf_add(r_hi, inner));
    const vf y = vf_exp_scale(er, t);
    const vm in_range = vm_and(vf_ge(x, vf_splat(EXP_MIN)), vf_ge(vf_splat(EXP_MAX), x));
    const unsigned ok = vm_bits(in_range), all = (1u << VF_LANES) - 1u;
    if (ok == all) return y;
    float xs[VF_LANES], ys[VF_LANES];
    vf_store(xs, x);
    vf_store(ys, y);
    for (int j = 0; j < VF_LANES; ++j)
        if (!(ok & (1u << j))) ys[j] = eddy_expf(xs[j]);
    return vf_load(ys);
}
#else
static inline vf vf_expf(vf x) {
    vf y;
    for (int j = 0; j < 4; ++j) y.v[j] = eddy_expf(x.v[j]);
    return y;
}
#endif

#endif
