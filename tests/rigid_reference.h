/* SPDX-License-Identifier: MIT */
/* Reference arithmetic in double for the rigid-body tests (test_bodies,
 * test_contain, test_coupling): vectors, the rotation matrix of a
 * quaternion, products with it and its transpose. Computed with libm in the
 * test only: nothing here reaches the library's results. */
#ifndef EDDY_RIGID_REFERENCE_H
#define EDDY_RIGID_REFERENCE_H

#include <math.h>

#include "eddy/eddy.h"

typedef struct dvec {
    double x, y, z;
} dvec;

static inline dvec dv(eddy_vec3 v) { return (dvec){(double)v.x, (double)v.y, (double)v.z}; }
static inline dvec dadd(dvec a, dvec b) { return (dvec){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline dvec dsub(dvec a, dvec b) { return (dvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline dvec dscale(dvec a, double s) { return (dvec){a.x * s, a.y * s, a.z * s}; }
static inline double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline dvec dcross(dvec a, dvec b) {
    return (dvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double dnorm(dvec a) { return sqrt(ddot(a, a)); }
static inline double ddist(dvec a, dvec b) { return dnorm(dsub(a, b)); }
static inline dvec dunit(dvec a) { return dscale(a, 1.0 / dnorm(a)); }

/* Rotation matrix (body to world) of a quaternion (x, y, z, w), normalised. */
static inline void quat_matrix(eddy_quat q, double r[3][3]) {
    const double qx = (double)q.x, qy = (double)q.y, qz = (double)q.z, qw = (double)q.w;
    const double n = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    const double x = qx / n, y = qy / n, z = qz / n, w = qw / n;
    r[0][0] = 1 - 2 * (y * y + z * z); r[0][1] = 2 * (x * y - w * z); r[0][2] = 2 * (x * z + w * y);
    r[1][0] = 2 * (x * y + w * z); r[1][1] = 1 - 2 * (x * x + z * z); r[1][2] = 2 * (y * z - w * x);
    r[2][0] = 2 * (x * z - w * y); r[2][1] = 2 * (y * z + w * x); r[2][2] = 1 - 2 * (x * x + y * y);
}

static inline dvec mat_mul(const double m[3][3], dvec v) {
    return (dvec){m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
                  m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
                  m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
}

/* transpose(m) v */
static inline dvec mat_tmul(const double m[3][3], dvec v) {
    return (dvec){m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z,
                  m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
                  m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z};
}

#endif
