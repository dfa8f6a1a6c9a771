/* SPDX-License-Identifier: MIT */
/* Internal: small vector, quaternion and 3x3 matrix helpers (inline, float,
 * fixed operation order; no libm beyond sqrtf). */
#ifndef EDDY_VMATH_H
#define EDDY_VMATH_H

#include "runtime/runtime.h"

#include <string.h>

typedef struct mat3 {
    float m[3][3]; /* row-major: m[row][col] */
} mat3;

typedef struct quat {
    float x, y, z, w;
} quat;

static inline vec3 v3_add(vec3 a, vec3 b) { return (vec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline vec3 v3_sub(vec3 a, vec3 b) { return (vec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline vec3 v3_scale(vec3 a, float s) { return (vec3){a.x * s, a.y * s, a.z * s}; }
static inline float v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 v3_cross(vec3 a, vec3 b) {
    return (vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline float v3_length(vec3 a) { return sqrtf(v3_dot(a, a)); }
/* a / |a|, or zero for a zero vector. */
static inline vec3 v3_normalize(vec3 a) {
    float l = v3_length(a);
    return l > 0.0f ? v3_scale(a, 1.0f / l) : (vec3){0.0f, 0.0f, 0.0f};
}
static inline vec3 v3_from(eddy_vec3 a) { return (vec3){a.x, a.y, a.z}; }
static inline eddy_vec3 v3_to(vec3 a) { return (eddy_vec3){a.x, a.y, a.z}; }
/* A body's float[3] and float[3][3] fields as a vec3 and a mat3. */
static inline vec3 v3_load(const float d[3]) { return (vec3){d[0], d[1], d[2]}; }
static inline mat3 m3_load(const float a[3][3]) {
    mat3 r;
    memcpy(r.m, a, sizeof r.m);
    return r;
}

static inline vec3 m3_mul_v(const mat3 *a, vec3 v) {
    return (vec3){a->m[0][0] * v.x + a->m[0][1] * v.y + a->m[0][2] * v.z,
                  a->m[1][0] * v.x + a->m[1][1] * v.y + a->m[1][2] * v.z,
                  a->m[2][0] * v.x + a->m[2][1] * v.y + a->m[2][2] * v.z};
}
/* transpose(a) * v */
static inline vec3 m3_tmul_v(const mat3 *a, vec3 v) {
    return (vec3){a->m[0][0] * v.x + a->m[1][0] * v.y + a->m[2][0] * v.z,
                  a->m[0][1] * v.x + a->m[1][1] * v.y + a->m[2][1] * v.z,
                  a->m[0][2] * v.x + a->m[1][2] * v.y + a->m[2][2] * v.z};
}
static inline mat3 m3_mul(const mat3 *a, const mat3 *b) {
    mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j];
    return r;
}
static inline mat3 m3_transpose(const mat3 *a) {
    mat3 r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.m[i][j] = a->m[j][i];
    return r;
}

static inline quat q_normalize(quat q) {
    float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(l > 0.0f)) return (quat){0.0f, 0.0f, 0.0f, 1.0f};
    float s = 1.0f / l;
    return (quat){q.x * s, q.y * s, q.z * s, q.w * s};
}
/* Rotation matrix (body to world) of a unit quaternion. */
static inline mat3 q_to_m3(quat q) {
    const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    mat3 r = {{{1.0f - 2.0f * (yy + zz), 2.0f * (xy - wz), 2.0f * (xz + wy)},
               {2.0f * (xy + wz), 1.0f - 2.0f * (xx + zz), 2.0f * (yz - wx)},
               {2.0f * (xz - wy), 2.0f * (yz + wx), 1.0f - 2.0f * (xx + yy)}}};
    return r;
}
/* q + dt/2 * (0, w) * q, renormalised: dR/dt = [w]x R for world-frame w (D9). */
static inline quat q_integrate(quat q, vec3 w, float dt) {
    const float h = 0.5f * dt;
    quat d = {h * (w.x * q.w + w.y * q.z - w.z * q.y), h * (w.y * q.w + w.z * q.x - w.x * q.z),
              h * (w.z * q.w + w.x * q.y - w.y * q.x), h * (-w.x * q.x - w.y * q.y - w.z * q.z)};
    return q_normalize((quat){q.x + d.x, q.y + d.y, q.z + d.z, q.w + d.w});
}

#endif
