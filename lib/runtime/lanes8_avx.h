/* SPDX-License-Identifier: MIT */
/* Eight float lanes with AVX for the multipole traversal (lib/fluid/tree_walk.h),
 * only in lib/fluid/tree_multipole_avx.c (built with -mavx, never -mfma). Each
 * operation is the per-lane IEEE operation of lib/runtime/lanes4.h: add, sub,
 * mul, div and sqrt are correctly rounded on every path, the compares are the
 * same ordered compares, so the bits equal the SSE2 and plain C paths'. */
#ifndef EDDY_LANES8_AVX_H
#define EDDY_LANES8_AVX_H

#include "runtime/runtime.h"

#include <immintrin.h>

#define VF_LANES 8

typedef __m256 vf;
typedef __m256 vm;
static inline vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, vf a) { _mm256_storeu_ps(p, a); }
static inline vf vf_splat(float s) { return _mm256_set1_ps(s); }
static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
static inline vm vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OS); }
static inline vm vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OS); }
static inline vm vm_andnot(vm not_a, vm b) { return _mm256_andnot_ps(not_a, b); }
static inline vm vm_and(vm a, vm b) { return _mm256_and_ps(a, b); }
/* Bitwise, not _mm256_blendv_ps: the masks are whole lanes (compares and
 * their and/andnot), so the bits are the same, and gcc 12 lowers an AVX
 * blendv it cannot prove to be a vector select into a branch per lane. */
static inline vf vf_select(vm m, vf a, vf b) {
    return _mm256_or_ps(_mm256_and_ps(m, a), _mm256_andnot_ps(m, b));
}
static inline vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }
static inline vm vf_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OS); }
static inline unsigned vm_bits(vm m) { return (unsigned)_mm256_movemask_ps(m); }

/* Eight 8-float records, rec + 8 idx[l] for lane l (32-byte aligned), as
 * eight vectors: out[f] holds field f of every lane's record. Only moves
 * bits. */
static inline void vf_load_records8(const float *rec, const int *idx, vf out[8]) {
    const __m256 r0 = _mm256_load_ps(rec + 8 * idx[0]), r1 = _mm256_load_ps(rec + 8 * idx[1]);
    const __m256 r2 = _mm256_load_ps(rec + 8 * idx[2]), r3 = _mm256_load_ps(rec + 8 * idx[3]);
    const __m256 r4 = _mm256_load_ps(rec + 8 * idx[4]), r5 = _mm256_load_ps(rec + 8 * idx[5]);
    const __m256 r6 = _mm256_load_ps(rec + 8 * idx[6]), r7 = _mm256_load_ps(rec + 8 * idx[7]);
    /* pairs of records interleaved: fields (0, 1) and (4, 5) of two lanes,
     * then fields (2, 3) and (6, 7) */
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    /* one field of four lanes per 128-bit half: field f | field f + 4 */
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    /* lanes 0-3 from the low halves, 4-7 from the high ones */
    out[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
    out[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
    out[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
    out[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
    out[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
    out[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
    out[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
    out[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

#endif
