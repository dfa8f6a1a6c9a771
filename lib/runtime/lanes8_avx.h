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

#endif
