/* SPDX-License-Identifier: MIT */
/* Internal, layer hash (docs/architecture.md): the frame hash, the early
 * tracer hashes the advection fills, and the finiteness checks. Never
 * installed. */
#ifndef EDDY_LIB_HASH_H
#define EDDY_LIB_HASH_H

#include "core/core.h"

/* Early tracer hashes (lib/hash/hash.c). eddy_early_hash_prepare, before the
 * tracers' advection: arms the step's early hashes (when the step hashes and
 * the scratch is there) with every block stale. eddy_early_hash_block, by
 * the advection chunk that wrote block b: hashes it. The writers of tracer
 * state after the advection mark what they change stale:
 * eddy_early_hash_stale (one tracer's block; one chunk owns a block),
 * eddy_early_hash_stale_from (blocks from tracer `first` on, serial). */
enum { EARLY_FRESH = 1, EARLY_NONFINITE = 2 };
void eddy_early_hash_prepare(eddy_world *w);
/* Room ahead of a step for the block hashes of these counts (the cache of
 * eddy_world_hash_compute and the early tracer hashes); false: out of
 * memory, nothing of the state changed. */
bool eddy_hash_reserve(eddy_world *w, int vortons, int tracers);
/* The room the finiteness check takes in the chunk partials. */
size_t eddy_finite_partials_bytes(int vortons, int tracers);
void eddy_early_hash_block(eddy_world *w, int block);
static inline void eddy_early_hash_stale(eddy_world *w, int tracer) {
    const int b = tracer / EDDY_HASH_BLOCK_PARTICLES;
    if (w->early_armed && b < w->early_blocks) w->early_flags[b] = 0;
}
void eddy_early_hash_stale_from(eddy_world *w, int first);

/* End-of-step check (finite.c): true when a particle or body holds a NaN or
 * infinity; what names the first one ("vorton 12 velocity.x = nan"). */
bool eddy_state_find_nonfinite(eddy_world *w, char *what, size_t size);
/* Nonzero iff one of x[0..n) is a NaN or an infinity (integer test, no FP). */
uint32_t eddy_nonfinite_bits(const float *x, int n);


/* Hash (hash.c). */
void eddy_world_hash_compute(eddy_world *w);

#endif
