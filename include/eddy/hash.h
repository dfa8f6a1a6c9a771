/* SPDX-License-Identifier: MIT */
/* eddy — canonical state hash (spec: docs/hash-spec.md, version
 * EDDY_HASH_SPEC_VERSION). The frame hash is built from one hash per component,
 * each built from one hash per fixed block of elements, so a mismatch between
 * two runs can be traced to a component and a block. */
#ifndef EDDY_HASH_H
#define EDDY_HASH_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_world eddy_world;

typedef enum eddy_component {
    EDDY_COMPONENT_VORTONS = 0,
    EDDY_COMPONENT_TRACERS = 1,
    EDDY_COMPONENT_BODIES = 2,
    EDDY_COMPONENT_GLOBALS = 3,
    EDDY_COMPONENT_COUNT = 4
} eddy_component;

/* Elements per hash block: particles for vortons and tracers, bodies for bodies. */
enum { EDDY_HASH_BLOCK_PARTICLES = 1024, EDDY_HASH_BLOCK_BODIES = 64 };

typedef struct eddy_frame_hash {
    int64_t frame;
    uint64_t frame_hash;
    uint64_t component[EDDY_COMPONENT_COUNT];
} eddy_frame_hash;

/* Short lower-case name: "vortons", "tracers", "bodies", "globals". */
EDDY_API const char *eddy_component_name(eddy_component component);

/* Hash of the current state (computed now if the step did not, else cached).
 * A NULL world, or a call that overlaps another call on the world (a step
 * running on another thread or calling the game's enqueue_task: eddy.h,
 * "Threads"), gives frame -1 and every hash 0. */
EDDY_API eddy_frame_hash eddy_world_hash(eddy_world *world);

/* Block hashes of one component of the current state. Writes up to capacity
 * values, returns the number of blocks (call with capacity 0 to size; out may
 * then be NULL). Returns -1, writing nothing, for a NULL world, a component
 * outside 0..3, a negative capacity or a NULL out with capacity > 0 (the
 * world's error message says which), or when the call overlaps another call
 * on the world (eddy_last_error_message() says so). */
EDDY_API int eddy_world_block_hashes(eddy_world *world, eddy_component component,
                                     uint64_t *out, int capacity);

#ifdef __cplusplus
}
#endif
#endif
