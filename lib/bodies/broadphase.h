/* SPDX-License-Identifier: MIT */
/* Internal: the broad phase of particle-body collision (broadphase.c).
 *
 * Particles are grouped in blocks of EDDY_BROAD_BLOCK consecutive indices,
 * each with an axis-aligned box fitted to its particles. A body's reach
 * region is described once per pass (eddy_broad_body); a block whose box is
 * certainly out of reach is skipped whole, and inside the other blocks a
 * particle certainly out of reach is skipped. "Certainly" means with a
 * margin far above the rounding of the narrow phase: every skipped particle
 * is one the narrow phase (lib/bodies/collide.c) leaves untouched, so the result is
 * the same bits with and without the broad phase. */
#ifndef EDDY_BROADPHASE_H
#define EDDY_BROADPHASE_H

#include "bodies/bodies.h"

enum { EDDY_BROAD_BLOCK = 64 };

typedef enum eddy_broad_kind {
    EDDY_BROAD_BALL,  /* touched only within `ball` of the centre (a sphere) */
    EDDY_BROAD_SOLID, /* a convex solid: ball bound, and untouched beyond reach of any face */
    EDDY_BROAD_HOLE   /* a container: untouched farther than reach inside every wall */
} eddy_broad_kind;

/* One body's reach region in the world frame, for one pass. */
typedef struct eddy_broad_body {
    eddy_broad_kind kind;
    double centre[3];
    double ball;               /* BALL, SOLID: radius of the bounding ball, reach included */
    float reach;               /* SOLID, HOLE: the narrow phase's contact distance */
    int plane_count;           /* SOLID, HOLE */
    double normal[EDDY_MAX_PLANES][3]; /* world-frame face normals R n_i */
    double offset[EDDY_MAX_PLANES];
} eddy_broad_body;

/* Box of one block (it contains the block's particles); `finite` is 0 when
 * a coordinate is NaN or infinite (such a block is never skipped). */
typedef struct eddy_broad_box {
    float lo[3], hi[3];
    int finite;
} eddy_broad_box;

static inline int eddy_broad_block_count(int particles) {
    return particles <= 0 ? 0 : (particles + EDDY_BROAD_BLOCK - 1) / EDDY_BROAD_BLOCK;
}

/* A ball of radius `ball` around `centre`. */
void eddy_broad_body_ball(eddy_broad_body *bb, vec3 centre, float ball);
/* A polytope (shape planes in the body frame, rotation row-major `rotation`
 * taking body to world) with contact distance `reach`; `ball` bounds a
 * solid's touched region (ignored for a hole). */
void eddy_broad_body_polytope(eddy_broad_body *bb, vec3 centre, const float rotation[3][3],
                              const eddy_shape *shape, float ball, float reach);

/* Fits the boxes of the blocks in [begin, end) (begin a multiple of
 * EDDY_BROAD_BLOCK) to the particles' positions. */
void eddy_broad_fit(eddy_broad_box *boxes, const particle_array *a, int begin, int end);
/* Grows the box of the particle's block to contain x (its new position);
 * inline: the narrow phase calls it for every particle it moves. */
static inline void eddy_broad_include(eddy_broad_box *boxes, int particle, vec3 x) {
    eddy_broad_box *box = &boxes[particle / EDDY_BROAD_BLOCK];
    const float p[3] = {x.x, x.y, x.z};
    for (int k = 0; k < 3; ++k) {
        uint32_t u;
        memcpy(&u, &p[k], sizeof u);
        box->lo[k] = p[k] < box->lo[k] ? p[k] : box->lo[k];
        box->hi[k] = p[k] > box->hi[k] ? p[k] : box->hi[k];
        if ((u & 0x7f800000u) == 0x7f800000u) box->finite = 0;
    }
}
/* Writes to out[] the indices in [begin, end), ascending, of the particles
 * that may be within reach of the body; returns how many. */
int eddy_broad_candidates(const eddy_broad_body *bb, const eddy_broad_box *boxes,
                          const particle_array *a, int begin, int end, int *out);

#endif
