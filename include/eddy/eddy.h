/* SPDX-License-Identifier: MIT */
/* eddy — deterministic vortex-particle fluids for games. Main header.
 *
 * A world is an opaque object. It is created from a definition, populated
 * before its first step, and from then on changed only through the per-frame
 * input passed to eddy_world_step. The same definition, initial state and
 * inputs give bit-identical states (see eddy_world_frame_hash) for any worker
 * count, pinning, caller FP mode, compiler and supported architecture.
 *
 * Threads (docs/integration.md, "Threads and overlapping calls"):
 * - Different worlds share nothing: any calls on different worlds may run at
 *   the same time on different threads (each world has its own workers, or
 *   hands its work to the game's enqueue_task).
 * - One world takes one call at a time. The calls that read or write its
 *   state (eddy_world_step, eddy_world_snapshot, eddy_world_restore,
 *   eddy_world_add_vortons / _tracers, eddy_world_create_emitter /
 *   _create_body, eddy_world_hash, eddy_world_block_hashes, and the replay
 *   and desync calls built on them) hold the world while they run; a call
 *   that would overlap one of them, from the game's enqueue_task or
 *   finish_task callback or from another thread, is refused and changes
 *   nothing: EDDY_ERROR_WRONG_STATE (eddy_world_hash: frame -1;
 *   eddy_world_block_hashes: -1), the reason in eddy_last_error_message() of
 *   the refused thread (the world's own message belongs to the running call).
 *   The running call is not disturbed.
 * - The plain getters (frame, counts, get_vortons, views, bodies, user data,
 *   error message) do not take the world: call them between steps, never
 *   while a step runs on another thread. Reading a view from several threads
 *   between steps is fine.
 * - eddy_world_destroy must not overlap any call on the world.
 * - A world may move between threads between calls (no thread affinity). */
#ifndef EDDY_EDDY_H
#define EDDY_EDDY_H

#include "base.h"
#include "task.h"
#include "types.h"
#include "hash.h"
#include "math_functions.h"
#include "shape.h"
#include "fpenv.h"
#include "view.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_world eddy_world;

EDDY_API eddy_world_def eddy_world_def_default(void);

/* Check a definition. On error, if message != NULL, writes a NUL-terminated
 * message naming the field into message[0..message_size). */
EDDY_API eddy_status eddy_world_def_validate(const eddy_world_def *def, char *message,
                                             size_t message_size);

/* Create a world. On failure *out is NULL and eddy_last_error_message() says why.
 *
 * Called from C, eddy_world_create is the macro below: it passes the version
 * of this header, and a library of another major.minor refuses it with
 * EDDY_ERROR_VERSION and a message naming both versions (eddy_version_check).
 * The function itself stays exported for callers that cannot see the header
 * (bindings name eddy_world_create_checked with the version they were
 * written for), and `(eddy_world_create)(def, out)` skips the check. */
EDDY_API eddy_status eddy_world_create(const eddy_world_def *def, eddy_world **out);
EDDY_API eddy_status eddy_world_create_checked(const eddy_world_def *def, eddy_world **out,
                                               int header_version);
#define eddy_world_create(def, out) eddy_world_create_checked((def), (out), EDDY_VERSION)
EDDY_API void eddy_world_destroy(eddy_world *world); /* accepts NULL */

/* Message for the last failed eddy_world_create on this thread, or for the
 * last call this thread made that was refused for overlapping another call on
 * its world (or ""). */
EDDY_API const char *eddy_last_error_message(void);

/* Message for the last failed call on this world (or ""). */
EDDY_API const char *eddy_world_error_message(const eddy_world *world);

/* Population, allowed only before the first step (EDDY_ERROR_WRONG_STATE after).
 * Rejects NaN/infinite fields with EDDY_ERROR_NAN and values outside the
 * ranges of types.h with EDDY_ERROR_INVALID_ARGUMENT (the message names the
 * particle index and the field); nothing is added then. */
EDDY_API eddy_status eddy_world_add_vortons(eddy_world *world, const eddy_vorton *vortons, int count);
EDDY_API eddy_status eddy_world_add_tracers(eddy_world *world, const eddy_tracer *tracers, int count);

/* Emitters may be created before the first step; *out receives the id. */
EDDY_API eddy_status eddy_world_create_emitter(eddy_world *world, const eddy_emitter_def *def,
                                               eddy_emitter_id *out);
EDDY_API eddy_emitter_def eddy_emitter_def_default(void);

/* Bodies may be created before the first step; later through the input.
 * A definition outside the ranges of types.h and shape.h, or whose mass and
 * shape give no invertible inertia, is refused with EDDY_ERROR_INVALID_DEF
 * (EDDY_ERROR_NAN for a non-finite field) and a message naming the field. */
EDDY_API eddy_body_def eddy_body_def_default(void);
EDDY_API eddy_status eddy_world_create_body(eddy_world *world, const eddy_body_def *def,
                                            eddy_body_id *out);
EDDY_API int eddy_world_body_count(const eddy_world *world);   /* live bodies */
/* Live bodies in id order; returns the number written (<= capacity). */
EDDY_API int eddy_world_get_body_ids(const eddy_world *world, eddy_body_id *out, int capacity);
EDDY_API eddy_status eddy_world_get_body(const eddy_world *world, eddy_body_id id,
                                         eddy_body_state *out);
/* What the fluid gave every live body during the last step (eddy_body_impulse,
 * types.h), in id order; returns the number written (<= capacity). Zero
 * before the first step and after a restore, until the next step. */
EDDY_API int eddy_world_get_body_impulses(const eddy_world *world, eddy_body_impulse *out,
                                          int capacity);
/* Ids created by EDDY_BODY_CREATE / EDDY_EMITTER_CREATE commands of the last
 * step, in command order; return the number written (<= capacity). */
EDDY_API int eddy_world_created_bodies(const eddy_world *world, eddy_body_id *out, int capacity);
EDDY_API int eddy_world_created_emitters(const eddy_world *world, eddy_emitter_id *out, int capacity);

/* Room ahead of time, as Box2D's capacities and Jolt's max bodies give it:
 * every array a step uses (particles, the grid's arrays, partition, tree,
 * PSE scratch and pair lists, chunk partials, hash blocks, far-tracer flags)
 * grows now to hold `vortons` vortons and `tracers` tracers, so steps whose
 * counts stay within them allocate nothing (tests/test_alloc.c). Reserve the
 * peak counts of a run plus one step's emission (a step makes room for its
 * counts plus what its emitters may add before it changes anything). Not
 * state: never hashed, snapshotted or recorded; a restore into a new world
 * needs its own call. The grid's arrays have a bound up to 65,536 vortons
 * only. EDDY_ERROR_INVALID_ARGUMENT for a negative count or one over
 * INT32_MAX / 2; EDDY_ERROR_OUT_OF_MEMORY leaves the state unchanged. */
EDDY_API eddy_status eddy_world_reserve(eddy_world *world, int vortons, int tracers);

/* Advance one fixed step. input may be NULL (no change). On an invalid input
 * nothing is changed and the status says why: the message names the command
 * index and type and the field (ranges in types.h).
 *
 * Out of memory (EDDY_ERROR_OUT_OF_MEMORY): the step first makes room for
 * the counts it can reach (its particles plus what this input's emitters,
 * bursts and bullets can add, and the slots and vertices of the bodies and
 * emitters it creates), and a failure there changes nothing: the world
 * steps again as if the call had not been made. Two allocations come later,
 * once the state has changed: the grid's arrays beyond 65,536 vortons (no
 * bound is reserved there), and a grid island's arrays the first time the
 * vortons split into islands or an island outgrows them (see
 * eddy_world_get_island_grid_info); a failure there, or a step that leaves a NaN or infinity in the
 * state (EDDY_ERROR_NAN; the message names the first vorton, tracer or body
 * and its field), is not rolled back, since keeping a copy would cost a
 * whole state per step. Instead the world needs a restore: every later step
 * returns EDDY_ERROR_WRONG_STATE until eddy_world_restore (snapshot.h)
 * succeeds. The check costs well under 1% of a step (docs/bench.md). */
EDDY_API eddy_status eddy_world_step(eddy_world *world, const eddy_input *input);

/* Number of completed steps. */
EDDY_API int64_t eddy_world_frame(const eddy_world *world);

EDDY_API int eddy_world_vorton_count(const eddy_world *world);
EDDY_API int eddy_world_tracer_count(const eddy_world *world);
/* Copy particles [start, start + count) out; returns the number copied. */
EDDY_API int eddy_world_get_vortons(const eddy_world *world, int start, int count, eddy_vorton *out);
EDDY_API int eddy_world_get_tracers(const eddy_world *world, int start, int count, eddy_tracer *out);

/* Velocity of the fluid at a point, from the current velocity grid (+ wind). */
EDDY_API eddy_vec3 eddy_world_sample_velocity(const eddy_world *world, eddy_vec3 point);

EDDY_API const eddy_world_def *eddy_world_get_def(const eddy_world *world);
EDDY_API eddy_profile eddy_world_get_profile(const eddy_world *world);
/* Static name of a phase, e.g. "eddy.velocity_grid": the profiler zone of
 * the phase (base.h) and its key in eddy-bench's JSON; "eddy.unknown" for a
 * value outside the enum. */
EDDY_API const char *eddy_phase_name(eddy_phase phase);
EDDY_API eddy_diagnostics eddy_world_get_diagnostics(const eddy_world *world);
EDDY_API int eddy_world_worker_count(const eddy_world *world);

/* Grid in use for the last step: cells per axis, min corner and cell size. */
typedef struct eddy_grid_info {
    int cells[3];
    eddy_vec3 min_corner;
    eddy_vec3 cell_size;
    int tree_levels;
    float mollification;  /* auto-mollification factor f >= 1 */
} eddy_grid_info;
EDDY_API eddy_grid_info eddy_world_get_grid_info(const eddy_world *world);
/* Vorton clusters far apart (a gap of at least twice the larger one's size)
 * each get a grid of their own, so that neither's resolution depends on the
 * other (docs/algorithm.md, "Grid islands"). Returns the number of grids the
 * last step used (1 for one cluster, 0 without vortons) and, for island in
 * [0, that number), its grid in *info. eddy_world_get_grid_info is island 0. */
EDDY_API int eddy_world_get_island_grid_info(const eddy_world *world, int island,
                                             eddy_grid_info *info);

#ifdef __cplusplus
}
#endif
#endif
