/* SPDX-License-Identifier: MIT */
/* eddy — collision shapes: builders, validation and mass properties.
 *
 * Polytopes are convex and given by planes in the body frame (outward unit
 * normals, origin strictly inside). Everything here is computed with
 * + - * / and sqrtf only, in round-to-nearest with denormals kept whatever the
 * calling thread's FP mode (the caller's mode is restored), so a shape's
 * planes, vertices, volume and inertia are the same bits on every machine.
 * docs/shapes.md describes the conventions, tolerances and limits. */
#ifndef EDDY_SHAPE_H
#define EDDY_SHAPE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most vertices a polytope may have (a valid one with EDDY_MAX_PLANES planes
 * has at most 2 * EDDY_MAX_PLANES - 4 = 60). */
enum { EDDY_SHAPE_MAX_VERTICES = 256 };

/* Sizes a shape may have: a sphere radius, and every polytope plane offset,
 * in [EDDY_SHAPE_MIN_SIZE, EDDY_SHAPE_MAX_SIZE] metres. A polytope's largest
 * offset may be at most EDDY_SHAPE_MAX_ASPECT times its smallest: vertices
 * closer than 1e-5 of the shape's size are merged, so a thinner shape (a
 * needle, a sliver) or one whose origin lies nearly on a face cannot be
 * represented (the message gives the ratio). */
#define EDDY_SHAPE_MIN_SIZE 1.0e-4f
#define EDDY_SHAPE_MAX_SIZE 1.0e4f
#define EDDY_SHAPE_MAX_ASPECT 1.0e4f

/* The builders returning a shape by value do not check their arguments: pass
 * the result to eddy_shape_validate (body creation does). Unused planes and
 * the fields of the other shape type are zero. */
EDDY_API eddy_shape eddy_shape_sphere(float radius);
/* Box centred on the origin with the given half extents; planes in the order
 * +x, -x, +y, -y, +z, -z with offset = half extent. */
EDDY_API eddy_shape eddy_shape_box(eddy_vec3 half_extents);
/* Flat plate: a box of length (x) by width (y) and thickness (z). */
EDDY_API eddy_shape eddy_shape_plate(float length, float width, float thickness);
/* Prism: a convex polygon in the x-y plane (counter-clockwise vertices xy[2k],
 * xy[2k+1]) extruded over z in [-depth/2, depth/2], re-centred so its centroid
 * is the origin (the polygon is shifted by minus its shoelace centroid).
 * Planes: edge k (vertex k to k+1) is plane k, then +z, -z. Fails with a
 * message for a non-convex, clockwise, self-intersecting or degenerate polygon
 * (coincident vertices, a vertex within 1e-5 of the polygon's size of another
 * edge's line), fewer than 3 or more than EDDY_MAX_PLANES - 2 vertices, or
 * depth <= 0: EDDY_ERROR_NAN for a non-finite input, EDDY_ERROR_INVALID_DEF
 * otherwise, EDDY_ERROR_INVALID_ARGUMENT for NULL xy or out. message may be
 * NULL. */
EDDY_API eddy_status eddy_shape_prism(const float *xy, int vertex_count, float depth,
                                      eddy_shape *out, char *message, size_t message_size);
/* Symmetric airfoil-like convex prism: a NACA 00xx section (thickness ratio
 * t/c in [0.01, 1]) with its chord along x, leading edge towards -x, span
 * along z, vertex_count (4 to EDDY_MAX_PLANES - 2) points on the outline:
 * even counts end in a sharp trailing edge, odd ones in a short vertical one.
 * Built by eddy_shape_prism, so the origin is the section's centroid (about
 * 0.42 chord behind the leading edge) and the planes follow the outline
 * counter-clockwise from the leading edge along the lower (-y) surface.
 * EDDY_ERROR_NAN / EDDY_ERROR_INVALID_DEF for bad arguments (no message). */
EDDY_API eddy_status eddy_shape_airfoil(float chord, float thickness_ratio, float span,
                                        int vertex_count, eddy_shape *out);
/* The same shape turned inside out (a container, parity -1): a polytope gets
 * hole = true. Spheres cannot be holes: a sphere is returned unchanged (still
 * solid), and eddy_shape_validate rejects a sphere with hole = true. */
EDDY_API eddy_shape eddy_shape_hole(eddy_shape shape);

/* Geometric mass properties for unit density. For a hole they describe the
 * enclosed (fluid) region, the same numbers as the solid; the body layer
 * scales them by its own mass. Spheres use closed forms. */
typedef struct eddy_mass_properties {
    float volume;
    eddy_vec3 centroid;        /* body frame */
    float inertia[3][3];       /* for unit density, about the centroid, body axes */
    float circumradius;        /* from the body origin, over all vertices (sphere: r) */
    float inradius;            /* from the body origin: min plane offset (sphere: r);
                                  for a hole the inscribed (broad-phase) sphere */
    int vertex_count;          /* 0 for a sphere */
} eddy_mass_properties;

/* Check a shape. Sphere: finite radius in [EDDY_SHAPE_MIN_SIZE,
 * EDDY_SHAPE_MAX_SIZE], not a hole. Polytope: 4 to EDDY_MAX_PLANES planes,
 * finite values, unit normals (| |n| - 1 | < 1e-4), offsets > 0 (origin
 * strictly inside; the body layer puts it at the centroid), largest over
 * smallest offset at most EDDY_SHAPE_MAX_ASPECT, offsets in
 * [EDDY_SHAPE_MIN_SIZE, EDDY_SHAPE_MAX_SIZE], no duplicated plane, a closed bounded volume, every plane
 * carrying a face (>= 3 vertices, else "plane k is redundant"), at most
 * EDDY_SHAPE_MAX_VERTICES vertices and a positive volume. On error the message
 * names the problem and the plane index: EDDY_ERROR_NAN for a non-finite value,
 * EDDY_ERROR_INVALID_DEF otherwise, EDDY_ERROR_INVALID_ARGUMENT for NULL.
 * message may be NULL; it is "" on success. */
EDDY_API eddy_status eddy_shape_validate(const eddy_shape *shape, char *message, size_t message_size);
/* Validate (same statuses and messages), then measure. out is zeroed on error. */
EDDY_API eddy_status eddy_shape_mass_properties(const eddy_shape *shape, eddy_mass_properties *out,
                                                char *message, size_t message_size);
/* Vertices of a polytope (body frame), in the deterministic order of plane
 * triples i < j < k; copies min(count, capacity) of them and returns the count
 * (may exceed capacity). 0 for a sphere; -1 for NULL, a plane count outside
 * [0, EDDY_MAX_PLANES] or more than EDDY_SHAPE_MAX_VERTICES vertices. Works on
 * unvalidated shapes too. */
EDDY_API int eddy_shape_vertices(const eddy_shape *shape, eddy_vec3 *out, int capacity);

#ifdef __cplusplus
}
#endif
#endif
