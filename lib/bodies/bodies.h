/* SPDX-License-Identifier: MIT */
/* Internal, layer bodies (docs/architecture.md): rigid bodies, their shapes,
 * collisions with the particles, buoyancy and the containers that carry and
 * hold. Never installed. */
#ifndef EDDY_BODIES_H
#define EDDY_BODIES_H

#include "core/core.h"

/* Containers carry their interior (carry.c). */
typedef struct eddy_body_pose {
    float position[3];
    float rotation[3][3];
} eddy_body_pose;
bool eddy_body_carries_fluid(const body *b);
eddy_body_pose eddy_body_pose_of(const body *b);
void eddy_carry_interior(eddy_world *w, const body *b, const eddy_body_pose *old);
bool eddy_frames_accelerate(const eddy_world *w);
vec3 eddy_frame_apparent_gravity(const eddy_world *w, vec3 x, vec3 g_scaled, float scale);
bool eddy_frames_rotate(const eddy_world *w);
vec3 eddy_frame_rotation_at(const eddy_world *w, vec3 x); /* W of the carrying container, or 0 */
/* Bodies (bodies.c, collide.c, buoyancy.c). */
void eddy_phase_remove_embedded(eddy_world *w);
bool eddy_phase_collide_tracers(eddy_world *w);   /* false: out of memory */
bool eddy_phase_collide_vortons(eddy_world *w);
void eddy_phase_poison_density_gradient(eddy_world *w);
void eddy_phase_body_forces(eddy_world *w);
bool eddy_phase_integrate_bodies(eddy_world *w, float dt); /* false: out of memory */
/* Containers hold their bodies (contain.c): find the holders before the
 * integration, resolve the walls after it. */
void eddy_phase_find_held_bodies(eddy_world *w);
void eddy_phase_contain_bodies(eddy_world *w);
eddy_status eddy_bodies_validate_commands(eddy_world *w, const eddy_input *in);
bool eddy_bodies_apply_commands(eddy_world *w, const eddy_input *in);  /* false: out of memory */
/* Room for the slots, created ids and polytope vertices of the input's
 * EDDY_BODY_CREATE commands, before the step changes anything; false: out
 * of memory. */
bool eddy_bodies_reserve(eddy_world *w, const eddy_input *in);
/* The room the body phases take in the chunk partials for these counts and
 * grid points (collisions, the flow's reaction, wall poisoning). */
size_t eddy_bodies_partials_bytes(int vortons, int tracers, int points);
size_t eddy_flow_reaction_partials_bytes(int vortons);
size_t eddy_poison_partials_bytes(int points);
bool eddy_body_create(eddy_world *w, const eddy_body_def *def, eddy_body_id *out); /* def validated */
eddy_status eddy_body_def_check(eddy_world *w, const eddy_body_def *def);
void eddy_bodies_free(eddy_world *w);
void eddy_bodies_end_step(eddy_world *w); /* clears input forces */
void eddy_body_receive(body *b, vec3 linear, vec3 angular, float heat);
/* The flow's push on bodies (flow_forces.c, EDDY_BODY_COUPLING_FLOW). */
typedef struct eddy_flow_update {
    vec3 velocity;        /* the body's velocity at the end of the substep */
    vec3 impulse;         /* the fluid's linear impulse: m (v1 - v0) - dt other_force */
    vec3 angular_impulse; /* the faces' pressure torque over the substep, bounded */
} eddy_flow_update;
void eddy_body_faces(body *b);
float eddy_body_flow_radius(const eddy_world *w, const body *b);
vec3 eddy_body_flow_velocity(const eddy_world *w, const body *b);
float eddy_body_added_mass(const body *b, float fluid_density);
void eddy_body_flow_update(const eddy_world *w, const body *b, float dt, vec3 other_force,
                           eddy_flow_update *out);
/* hands -impulse, -angular to the vortons around b; false: out of memory */
bool eddy_body_flow_reaction(eddy_world *w, const body *b, vec3 impulse, vec3 angular);
void eddy_bodies_begin_step(eddy_world *w); /* zeroes what the fluid gave the bodies */
/* Recompute what is derived from the def and the orientation (rotation,
 * world inverse inertia, vertex cache); false: out of memory. */
bool eddy_body_rebuild_derived(body *b);

#endif
