/* SPDX-License-Identifier: MIT */
/* eddy — what a renderer or a game reads from a world without copying:
 * read-only views of the particle arrays, a body's shape (planes, vertices,
 * faces) for drawing and debugging, and user data on bodies and emitters.
 *
 * Nothing here changes the simulation: views and user data never enter the
 * state hash, snapshots or replays. */
#ifndef EDDY_VIEW_H
#define EDDY_VIEW_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_world eddy_world;

/* ---------------------------------------------------------------- particles */
/* The particle arrays of a world as they are stored: one array per field
 * (structure of arrays), count entries each, in the world's order (the order
 * eddy_world_get_tracers copies and the state hash reads).
 *
 * Lifetime: the pointers and count are valid until the next call that changes
 * the world: eddy_world_step (or eddy_recorder_step / a player stepping it),
 * eddy_world_add_vortons / eddy_world_add_tracers, a snapshot restore, or
 * eddy_world_destroy. Take a new view after each step. Reading a view from
 * several threads at once is fine; reading it while the world steps is not.
 *
 * Age: a particle born at birth_frame[i] is frame - birth_frame[i] steps old.
 * The next step first removes the particles older than tracer_max_age /
 * vorton_max_age, then advances the frame: so a view shows ages up to
 * max_age + 1 (the particles that step will remove). */
typedef struct eddy_particle_view {
    int count;
    int64_t frame;                    /* eddy_world_frame() when the view was taken */
    const float *position_x, *position_y, *position_z;
    const float *velocity_x, *velocity_y, *velocity_z; /* velocity of the last step */
    const float *vorticity_x, *vorticity_y, *vorticity_z; /* vortons; NULL for tracers */
    const float *density_deviation;   /* rho' = rho - rho0 */
    const int32_t *birth_frame;
    /* Stable ids (eddy_world_def.particle_ids): a particle keeps its id for
     * its whole life, ids are handed out in increasing order and never reused
     * (so the arrays are sorted by id), and the same inputs give the same ids.
     * Ids are not state: snapshots do not carry them, and a restore numbers
     * the restored particles 0, 1, ... in array order. NULL when the world
     * does not track them. */
    const uint64_t *id;
    /* eddy_world_state_counter() when the view was taken: the view is
     * current while it still equals the world's (frame numbers repeat after
     * a rollback; this never does). */
    uint64_t state_counter;
} eddy_particle_view;

EDDY_API eddy_particle_view eddy_world_view_tracers(const eddy_world *world);
EDDY_API eddy_particle_view eddy_world_view_vortons(const eddy_world *world);

/* A counter that changes whenever the world's state may have changed: every
 * step (a refused input excepted), every successful restore and every
 * population call (eddy_world_add_vortons / _tracers, emitter and body
 * creation). It never repeats within a world's life, so anything a game
 * caches from a world (a view, a copy of the particles, a mesh) is stale as
 * soon as the counter differs from the one it was taken at, even when a
 * rollback brought the frame number back. Not state: it is not hashed,
 * encoded or snapshotted. 1 for a new world, 0 for NULL. */
EDDY_API uint64_t eddy_world_state_counter(const eddy_world *world);

/* ---------------------------------------------------------------- bodies */
/* The collision shape of a body as the world holds it: in the body frame,
 * whose origin is the centre of mass (a polytope given off-centre at creation
 * is stored re-centred, so these planes may differ from the def's by the
 * shift). World position of a body-frame point p: position + R(orientation) p,
 * from eddy_world_get_body. EDDY_ERROR_NOT_FOUND for a stale id. */
EDDY_API eddy_status eddy_world_get_body_shape(const eddy_world *world, eddy_body_id id,
                                               eddy_shape *out);

/* Faces of a polytope for drawing: face k lies on plane k of the shape. Writes
 * the indices (into the vertex order of eddy_shape_vertices) of the face's
 * vertices, counter-clockwise seen from outside (right-handed about the
 * outward normal), up to capacity of them, and returns their number (may
 * exceed capacity). -1 for a sphere, an invalid shape or a plane index out of
 * range. */
EDDY_API int eddy_shape_face(const eddy_shape *shape, int plane, int *vertex_indices, int capacity);

/* ---------------------------------------------------------------- user data */
/* A value the game attaches to a body or an emitter (an entity id, or a
 * pointer through uintptr_t). Set at creation by eddy_body_def.user_data /
 * eddy_emitter_def.user_data, or later with the setters. Never read by the
 * simulation and never part of the state hash, a snapshot or a replay: a world
 * restored from a snapshot, or re-simulated by a player, has 0 everywhere.
 * The setters return EDDY_ERROR_NOT_FOUND for a stale id; the getters 0. */
EDDY_API eddy_status eddy_world_set_body_user_data(eddy_world *world, eddy_body_id id,
                                                   uint64_t user_data);
EDDY_API uint64_t eddy_world_get_body_user_data(const eddy_world *world, eddy_body_id id);
EDDY_API eddy_status eddy_world_set_emitter_user_data(eddy_world *world, eddy_emitter_id id,
                                                      uint64_t user_data);
EDDY_API uint64_t eddy_world_get_emitter_user_data(const eddy_world *world, eddy_emitter_id id);

#ifdef __cplusplus
}
#endif
#endif
