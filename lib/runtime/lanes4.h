/* SPDX-License-Identifier: MIT */
/* Four float lanes for the multipole traversal (lib/fluid/tree_walk.h): SSE2 on
 * x86-64, NEON on aarch64, plain C elsewhere or when EDDY_TREE_PLAIN_LANES is
 * defined. Every operation is one IEEE single-precision operation per lane
 * (no FMA: the build forbids contraction), so all three give the same bits. */
#ifndef EDDY_LANES4_H
#define EDDY_LANES4_H

#include "runtime/runtime.h"

#define VF_LANES 4

#if defined(__SSE2__) && !defined(EDDY_TREE_PLAIN_LANES)
#include <emmintrin.h>
typedef __m128 vf;
typedef __m128 vm;
static inline vf vf_load(const float *p) { return _mm_loadu_ps(p); }
static inline void vf_store(float *p, vf a) { _mm_storeu_ps(p, a); }
static inline vf vf_splat(float s) { return _mm_set1_ps(s); }
static inline vf vf_set4(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
static inline vf vf_add(vf a, vf b) { return _mm_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return _mm_sqrt_ps(a); }
static inline vm vf_lt(vf a, vf b) { return _mm_cmplt_ps(a, b); }
static inline vm vf_gt(vf a, vf b) { return _mm_cmpgt_ps(a, b); }
static inline vm vm_andnot(vm not_a, vm b) { return _mm_andnot_ps(not_a, b); }
static inline vm vm_and(vm a, vm b) { return _mm_and_ps(a, b); }
static inline vm vm_or(vm a, vm b) { return _mm_or_ps(a, b); }
static inline vf vf_select(vm m, vf a, vf b) {
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}
static inline vf vf_max(vf a, vf b) { return _mm_max_ps(a, b); }
static inline vm vf_ge(vf a, vf b) { return _mm_cmpge_ps(a, b); }
static inline unsigned vm_bits(vm m) { return (unsigned)_mm_movemask_ps(m); }
/* Four 8-float records, rec + 8 idx[l] for lane l (32-byte aligned), as
 * eight vectors: out[f] holds field f of every lane's record. Only moves
 * bits. */
#define VF_HAVE_LOAD_RECORDS8 1
static inline void vf_load_records8(const float *rec, const int *idx, vf out[8]) {
    __m128 a0 = _mm_load_ps(rec + 8 * idx[0]), a1 = _mm_load_ps(rec + 8 * idx[1]);
    __m128 a2 = _mm_load_ps(rec + 8 * idx[2]), a3 = _mm_load_ps(rec + 8 * idx[3]);
    __m128 b0 = _mm_load_ps(rec + 8 * idx[0] + 4), b1 = _mm_load_ps(rec + 8 * idx[1] + 4);
    __m128 b2 = _mm_load_ps(rec + 8 * idx[2] + 4), b3 = _mm_load_ps(rec + 8 * idx[3] + 4);
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
    out[0] = a0;
    out[1] = a1;
    out[2] = a2;
    out[3] = a3;
    out[4] = b0;
    out[5] = b1;
    out[6] = b2;
    out[7] = b3;
}
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(EDDY_TREE_PLAIN_LANES)
#include <arm_neon.h>
typedef float32x4_t vf;
typedef uint32x4_t vm;
static inline vf vf_load(const float *p) { return vld1q_f32(p); }
static inline void vf_store(float *p, vf a) { vst1q_f32(p, a); }
static inline vf vf_splat(float s) { return vdupq_n_f32(s); }
static inline vf vf_set4(float a, float b, float c, float d) {
    const float l[4] = {a, b, c, d};
    return vld1q_f32(l);
}
static inline vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
static inline vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
static inline vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
static inline vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
static inline vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
static inline vm vf_lt(vf a, vf b) { return vcltq_f32(a, b); }
static inline vm vf_gt(vf a, vf b) { return vcgtq_f32(a, b); }
static inline vm vm_andnot(vm not_a, vm b) { return vbicq_u32(b, not_a); }
static inline vm vm_and(vm a, vm b) { return vandq_u32(a, b); }
static inline vm vm_or(vm a, vm b) { return vorrq_u32(a, b); }
static inline vf vf_select(vm m, vf a, vf b) { return vbslq_f32(m, a, b); }
static inline vf vf_max(vf a, vf b) { return vmaxq_f32(a, b); }
static inline vm vf_ge(vf a, vf b) { return vcgeq_f32(a, b); }
static inline unsigned vm_bits(vm m) {
    const uint32_t weights[4] = {1, 2, 4, 8};
    return (unsigned)vaddvq_u32(vandq_u32(m, vld1q_u32(weights)));
}
#else
typedef struct vf { float v[4]; } vf;
typedef struct vm { bool v[4]; } vm;
#define VF_MAP(expr)                                                                         \
    vf r;                                                                                    \
    for (int k = 0; k < 4; ++k) r.v[k] = (expr);                                             \
    return r
static inline vf vf_load(const float *p) { VF_MAP(p[k]); }
static inline void vf_store(float *p, vf a) { memcpy(p, a.v, sizeof a.v); }
static inline vf vf_splat(float s) { VF_MAP(s); }
static inline vf vf_set4(float a, float b, float c, float d) { return (vf){{a, b, c, d}}; }
static inline vf vf_add(vf a, vf b) { VF_MAP(a.v[k] + b.v[k]); }
static inline vf vf_sub(vf a, vf b) { VF_MAP(a.v[k] - b.v[k]); }
static inline vf vf_mul(vf a, vf b) { VF_MAP(a.v[k] * b.v[k]); }
static inline vf vf_div(vf a, vf b) { VF_MAP(a.v[k] / b.v[k]); }
static inline vf vf_sqrt(vf a) { VF_MAP(sqrtf(a.v[k])); }
static inline vf vf_select(vm m, vf a, vf b) { VF_MAP(m.v[k] ? a.v[k] : b.v[k]); }
static inline vf vf_max(vf a, vf b) { VF_MAP(a.v[k] > b.v[k] ? a.v[k] : b.v[k]); }
#undef VF_MAP
static inline vm vf_lt(vf a, vf b) {
    vm r;
    for (int k = 0; k < 4; ++k) r.v[k] = a.v[k] < b.v[k];
    return r;
}
static inline vm vf_gt(vf a, vf b) { return vf_lt(b, a); }
static inline vm vf_ge(vf a, vf b) {
    vm r;
    for (int k = 0; k < 4; ++k) r.v[k] = a.v[k] >= b.v[k];
    return r;
}
static inline unsigned vm_bits(vm m) {
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) r |= (unsigned)m.v[k] << k;
    return r;
}
static inline vm vm_andnot(vm not_a, vm b) {
    vm r;
    for (int k = 0; k < 4; ++k) r.v[k] = !not_a.v[k] && b.v[k];
    return r;
}
static inline vm vm_and(vm a, vm b) {
    vm r;
    for (int k = 0; k < 4; ++k) r.v[k] = a.v[k] && b.v[k];
    return r;
}
static inline vm vm_or(vm a, vm b) {
    vm r;
    for (int k = 0; k < 4; ++k) r.v[k] = a.v[k] || b.v[k];
    return r;
}
#endif

#if !defined(VF_HAVE_LOAD_RECORDS8)
/* Four 8-float records, rec + 8 idx[l] for lane l, as eight vectors: out[f]
 * holds field f of every lane's record. Only moves bits. */
static inline void vf_load_records8(const float *rec, const int *idx, vf out[8]) {
    float t[8][4];
    for (int l = 0; l < 4; ++l)
        for (int f = 0; f < 8; ++f) t[f][l] = rec[8 * idx[l] + f];
    for (int f = 0; f < 8; ++f) out[f] = vf_load(t[f]);
}
#endif

#endif
