/* SPDX-License-Identifier: MIT */
/* Checks on a world's container scene, shared by tests/test_containers.c and
 * the eddy-containers benchmark (bench/containers.c): which body is the
 * container, whether a point is outside its inner box at the body's current
 * pose, and the fraction of particles whose position (bitwise) no other
 * particle of the same array shares. They read the library's internal
 * records (lib/core/core.h), like the white-box tests. Measurement only: nothing here
 * feeds back into a world. */
#ifndef EDDY_CONTAINER_CHECKS_H
#define EDDY_CONTAINER_CHECKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* The world's first live container (a polytope turned inside out), or NULL. */
static inline const body *container_checks_container(const eddy_world *w) {
    for (int i = 0; i < w->body_count; ++i) {
        const body *b = &w->bodies[i];
        if (b->alive && b->def.shape.type == EDDY_SHAPE_POLYTOPE && b->def.shape.hole) return b;
    }
    return NULL;
}

/* Largest signed distance of (x, y, z) outside the container's inner box at
 * the body's current pose, in double (> 0: outside). */
static inline double container_checks_beyond_walls(const body *b, float x, float y, float z) {
    const double d[3] = {(double)x - (double)b->position[0], (double)y - (double)b->position[1],
                         (double)z - (double)b->position[2]};
    double q[3];
    for (int k = 0; k < 3; ++k)
        q[k] = (double)b->rotation[0][k] * d[0] + (double)b->rotation[1][k] * d[1] +
               (double)b->rotation[2][k] * d[2];
    double m = -1e30;
    const eddy_shape *s = &b->def.shape;
    for (int k = 0; k < s->plane_count; ++k) {
        const eddy_vec3 n = s->planes[k].normal;
        const double e = (double)n.x * q[0] + (double)n.y * q[1] + (double)n.z * q[2] -
                         (double)s->planes[k].offset;
        m = e > m ? e : m;
    }
    return m;
}

typedef struct container_checks_key {
    uint32_t k[3];
} container_checks_key;

static inline int container_checks_key_cmp(const void *a, const void *b) {
    const container_checks_key *x = a, *y = b;
    for (int i = 0; i < 3; ++i)
        if (x->k[i] != y->k[i]) return x->k[i] < y->k[i] ? -1 : 1;
    return 0;
}

/* Fraction of the particles whose position no other particle of the array
 * shares (bitwise); -1 if out of memory. */
static inline double container_checks_distinct_fraction(const particle_array *a) {
    if (a->count == 0) return 1.0;
    container_checks_key *keys = malloc((size_t)a->count * sizeof *keys);
    if (!keys) return -1.0;
    for (int i = 0; i < a->count; ++i) {
        memcpy(&keys[i].k[0], &a->px[i], 4);
        memcpy(&keys[i].k[1], &a->py[i], 4);
        memcpy(&keys[i].k[2], &a->pz[i], 4);
    }
    qsort(keys, (size_t)a->count, sizeof *keys, container_checks_key_cmp);
    int alone = 0;
    for (int i = 0; i < a->count; ++i) {
        const bool prev = i > 0 && container_checks_key_cmp(&keys[i], &keys[i - 1]) == 0;
        const bool next = i + 1 < a->count && container_checks_key_cmp(&keys[i], &keys[i + 1]) == 0;
        alone += !prev && !next;
    }
    free(keys);
    return (double)alone / a->count;
}

#endif
