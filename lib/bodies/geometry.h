/* SPDX-License-Identifier: MIT */
/* Internal: convex-polytope queries in the body frame (shape.c).
 *
 * q is a point and v a velocity relative to the body, both already rotated
 * into the body frame; the shape must be a validated polytope (spheres are
 * handled analytically by the caller). parity is +1 for a solid and -1 for a
 * hole (container). Plane distance d_i = n_i . q - offset_i (positive on the
 * outer side of plane i). Returned distances are signed "fluid-side"
 * distances: for a solid, positive outside and negative inside (penetration);
 * for a hole, positive inside the container (distance to the nearest wall)
 * and negative in the wall. Ties go to the lowest plane index. A returned
 * plane index is always set, to a valid index, even for NaN input. These run
 * in the caller's FP mode (the step's canonical mode). */
#ifndef EDDY_GEOMETRY_H
#define EDDY_GEOMETRY_H

#include "bodies/bodies.h"

static inline float shape_parity(const eddy_shape *s) { return s->hole ? -1.0f : 1.0f; }

/* max_i d_i over the planes in order (strict >, so the first maximum wins),
 * times parity; *plane = its index. */
float eddy_polytope_contact_distance(const eddy_shape *s, vec3 q, int *plane);
/* Contact point C = q - n * d_plane with d_plane = n . q - offset recomputed
 * for plane `plane` (the orthogonal projection of q onto that plane; the same
 * bits as q - (parity n)(parity d_plane) of the original). `distance` is not
 * used (kept for call-site symmetry): C is right whichever query chose the
 * plane, even after EDDY_FLT_MAX. *normal (if not NULL) = n * parity, pointing
 * from the wall into the fluid: out of a solid, into a container. */
vec3 eddy_polytope_contact_point(const eddy_shape *s, vec3 q, int plane, float distance, vec3 *normal);
/* Moving point (Part 14 / P17 rule, docs/algorithm.md 8.6). Solid with
 * max_i d_i > 0 (outside): returns EDDY_FLT_MAX, *plane = the contact-distance
 * plane. Otherwise plane i is a candidate when d_i exceeds the best so far and
 * (parity v . n_i <= 0, i.e. moving deeper behind that face, or d_i >= 0, or
 * the shape is a hole); returns best * parity. For a hole this equals the
 * contact distance. If no plane qualifies (a solid, q inside, moving outward
 * through every face: only possible for NaN v) the contact-distance plane and
 * distance are returned. *plane is always set. */
float eddy_polytope_collision_distance(const eddy_shape *s, vec3 q, vec3 v, int *plane);
/* Sphere of radius r centred at q: signed distance of the sphere's surface
 * from the wall. Solid: the first plane with d_i - r >= 0 (the sphere wholly
 * outside that face) is returned at once; otherwise max_i d_i - r. Hole:
 * -(max_i d_i + r) (no early out), i.e. the gap between the sphere and the
 * nearest wall, negative when it pokes into the wall. *plane always set. */
float eddy_polytope_contact_distance_sphere(const eddy_shape *s, vec3 q, float r, int *plane);

#endif
