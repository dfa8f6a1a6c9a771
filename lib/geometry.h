/* Internal: convex-polytope and sphere queries in the body frame (shape.c).
 *
 * parity is +1 for a solid and -1 for a hole (container). Distances are
 * signed: for a solid, negative inside (penetration); for a hole, positive
 * inside the container (distance to the nearest wall) and negative in the
 * wall. A returned plane index is always set (never left uninitialised). */
#ifndef EDDY_GEOMETRY_H
#define EDDY_GEOMETRY_H

#include "core.h"

static inline float shape_parity(const eddy_shape *s) { return s->hole ? -1.0f : 1.0f; }

/* Largest plane distance n.q - offset (first max wins), times parity. */
float polytope_contact_distance(const eddy_shape *s, vec3 q, int *plane);
/* Projection of q onto plane `plane` (body frame) and the contact normal
 * (plane normal times parity, pointing from the wall into the fluid). */
vec3 polytope_contact_point(const eddy_shape *s, vec3 q, int plane, float distance, vec3 *normal);
/* Moving point q with velocity v: the face it goes deeper through (Part 14
 * rule); FLT_MAX if outside a solid; plane always set. */
float polytope_collision_distance(const eddy_shape *s, vec3 q, vec3 v, int *plane);
/* Sphere of radius r at q: distance of the sphere surface, early-out on the
 * first face the sphere is fully outside of; times parity. */
float polytope_contact_distance_sphere(const eddy_shape *s, vec3 q, float r, int *plane);

#endif
