/* SPDX-License-Identifier: MIT */
/* Internal: the tracer narrow phase against a solid, four candidates at a
 * time (contact_lanes_body.h; used by lib/bodies/collide.c).
 *
 * lib/bodies/collide.c hands over a batch of candidate tracers (ascending indices,
 * from the broad phase) and gets back, for each, what the one-tracer code
 * would do with it:
 * - EDDY_CONTACT_SKIP: nothing (out of the bounding ball, or outside the
 *   polytope beyond the contact distance);
 * - EDDY_CONTACT_HIT: outside a polytope within the contact distance (the
 *   common case: tracers the flow holds against a face): its new position and
 *   velocity and the impulse j and angular impulse t it gives the body,
 *   computed with the one-tracer path's operations in its order, lanes being
 *   different tracers;
 * - EDDY_CONTACT_SCALAR: anything else near the body (any tracer near a
 *   sphere, a tracer inside a polytope, NaN, infinity): lib/bodies/collide.c runs
 *   its one-tracer code on it.
 * Nothing is read across lanes and nothing is summed here: lib/bodies/collide.c
 * books j and t, in double, in ascending tracer index, as before. */
#ifndef EDDY_CONTACT_LANES_H
#define EDDY_CONTACT_LANES_H

#include "bodies/bodies.h"

enum { EDDY_CONTACT_BATCH = 64 }; /* candidates per call, a multiple of 4 */

enum { EDDY_CONTACT_SKIP = 0, EDDY_CONTACT_HIT = 1, EDDY_CONTACT_SCALAR = 2 };

/* A solid body as the lanes see it: world frame, one pass's pose. */
typedef struct eddy_contact_body {
    float x[3], v[3], w[3];     /* centre, linear and angular velocity */
    float r[3][3];              /* rotation body -> world, row-major */
    float near2;                /* bounding ball: (radius + reach)^2 */
    bool sphere;                /* a sphere: only the bounding-ball test here */
    int plane_count;
    float n[EDDY_MAX_PLANES][3];  /* body-frame unit normals */
    float offset[EDDY_MAX_PLANES];
    float nw[EDDY_MAX_PLANES][3]; /* world-frame normals, the bits of R n */
} eddy_contact_body;

/* The tracer rules of lib/bodies/collide.c's tracer_chunk. */
typedef struct eddy_contact_rules {
    float r;      /* tracer radius: the contact distance */
    float rho0;   /* ambient density */
    float volume; /* tracer volume: mass = (rho0 + rho') volume */
    float bounce; /* 1 + restitution */
    float push;   /* r (1 + 1e-4): a solid puts a hit tracer at C + push n */
} eddy_contact_rules;

/* Per candidate k of a batch: what[k], and for a HIT the new state and the
 * body's impulse (j) and angular impulse about its centre (t). */
typedef struct eddy_contact_out {
    unsigned char what[EDDY_CONTACT_BATCH];
    float x[3][EDDY_CONTACT_BATCH], v[3][EDDY_CONTACT_BATCH];
    float j[3][EDDY_CONTACT_BATCH], t[3][EDDY_CONTACT_BATCH];
} eddy_contact_out;

/* Classifies candidates index[0 .. count), count <= EDDY_CONTACT_BATCH, of
 * the tracers `a` against body `b`. SIMD lanes (SSE2, NEON) where the build
 * has them, plain C lanes elsewhere. */
void eddy_contact_tracers(const eddy_contact_body *b, const eddy_contact_rules *k,
                          const particle_array *a, const int *index, int count,
                          eddy_contact_out *out);
/* The same in plain C lanes on every platform: the reference the SIMD build
 * must match bit for bit (tests/test_contact_lanes.c). */
void eddy_contact_tracers_plain(const eddy_contact_body *b, const eddy_contact_rules *k,
                                const particle_array *a, const int *index, int count,
                                eddy_contact_out *out);

#endif
