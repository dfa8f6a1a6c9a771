/* eddy — collision shapes: builders, validation and mass properties.
 *
 * Polytopes are convex and given by planes in the body frame (outward unit
 * normals). Everything here is computed with + - * / and sqrtf only, so a
 * shape's vertices, volume and inertia are the same bits on every machine. */
#ifndef EDDY_SHAPE_H
#define EDDY_SHAPE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

EDDY_API eddy_shape eddy_shape_sphere(float radius);
/* Box centred on the origin with the given half extents. */
EDDY_API eddy_shape eddy_shape_box(eddy_vec3 half_extents);
/* Flat plate: a box of length (x) by width (y) and thickness (z). */
EDDY_API eddy_shape eddy_shape_plate(float length, float width, float thickness);
/* Prism: a convex polygon in the x-y plane (counter-clockwise vertices xy[2k],
 * xy[2k+1]) extruded over z in [-depth/2, depth/2], re-centred so its centroid
 * is the origin. Fails with a message for a non-convex, clockwise, degenerate
 * polygon or more than EDDY_MAX_PLANES - 2 vertices. */
EDDY_API eddy_status eddy_shape_prism(const float *xy, int vertex_count, float depth,
                                      eddy_shape *out, char *message, size_t message_size);
/* Symmetric airfoil-like convex prism: chord along x, thickness ratio t/c,
 * span along z; vertex_count points on the convex outline. */
EDDY_API eddy_status eddy_shape_airfoil(float chord, float thickness_ratio, float span,
                                        int vertex_count, eddy_shape *out);
/* The same shape turned inside out (a container). Spheres cannot be holes. */
EDDY_API eddy_shape eddy_shape_hole(eddy_shape shape);

typedef struct eddy_mass_properties {
    float volume;
    eddy_vec3 centroid;        /* body frame */
    float inertia[3][3];       /* for unit density, about the centroid, body axes */
    float circumradius;        /* from the body origin, over all vertices */
    float inradius;            /* from the body origin: min plane offset */
    int vertex_count;
} eddy_mass_properties;

/* Check a shape: finite values, unit normals, a closed bounded polytope with
 * positive volume. On error the message names
 * the problem; EDDY_ERROR_INVALID_DEF or EDDY_ERROR_NAN. */
EDDY_API eddy_status eddy_shape_validate(const eddy_shape *shape, char *message, size_t message_size);
EDDY_API eddy_status eddy_shape_mass_properties(const eddy_shape *shape, eddy_mass_properties *out,
                                                char *message, size_t message_size);
/* Vertices of a polytope (body frame); returns the count (may exceed capacity). */
EDDY_API int eddy_shape_vertices(const eddy_shape *shape, eddy_vec3 *out, int capacity);

#ifdef __cplusplus
}
#endif
#endif
