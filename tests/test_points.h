/* SPDX-License-Identifier: MIT */
/* Test data shared by the contact and broad-phase tests: a small xorshift
 * generator of uniform floats and one fixed rotation. Test data only: nothing
 * here reaches the library's results. */
#ifndef EDDY_TEST_POINTS_H
#define EDDY_TEST_POINTS_H

#include <math.h>
#include <stdint.h>

#include "runtime/vmath.h"

typedef struct test_rng {
    uint32_t state;
} test_rng;

/* A float in [lo, hi) (xorshift32, 24 bits). */
static inline float test_uniform(test_rng *g, float lo, float hi) {
    g->state ^= g->state << 13;
    g->state ^= g->state >> 17;
    g->state ^= g->state << 5;
    return lo + (hi - lo) * (float)(g->state >> 8) * (1.0f / 16777216.0f);
}

/* A rotation about the axis (1, 2, 3) by 0.7 rad, as a row-major matrix. */
static inline mat3 test_rotation(void) {
    const float n = sqrtf(14.0f), s = sinf(0.35f), c = cosf(0.35f);
    const quat q = {s / n, 2.0f * s / n, 3.0f * s / n, c};
    mat3 r;
    r.m[0][0] = 1 - 2 * (q.y * q.y + q.z * q.z);
    r.m[0][1] = 2 * (q.x * q.y - q.z * q.w);
    r.m[0][2] = 2 * (q.x * q.z + q.y * q.w);
    r.m[1][0] = 2 * (q.x * q.y + q.z * q.w);
    r.m[1][1] = 1 - 2 * (q.x * q.x + q.z * q.z);
    r.m[1][2] = 2 * (q.y * q.z - q.x * q.w);
    r.m[2][0] = 2 * (q.x * q.z - q.y * q.w);
    r.m[2][1] = 2 * (q.y * q.z + q.x * q.w);
    r.m[2][2] = 1 - 2 * (q.x * q.x + q.y * q.y);
    return r;
}

#endif
