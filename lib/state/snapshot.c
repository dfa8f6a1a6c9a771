/* SPDX-License-Identifier: MIT */
/* Snapshots: the whole state of a world, field by field (normative layout:
 * docs/snapshot-format.md, version EDDY_SNAPSHOT_VERSION).
 *
 * Design notes.
 * - What is state. Everything the next step reads before it writes it, plus
 *   everything the canonical hash covers: frame, stepped flag, PRNG, current
 *   gravity and wind, diagnostics, every particle field (including the
 *   vortons' last wall normal hx/hy/hz, which vorton-hit wall poisoning reads
 *   in the next step although the hash does not cover it), every emitter and
 *   body slot, and the grid of the last step with its flow array: tracers
 *   are advected with the previous step's flow grid, so that grid is state
 *   for the next step. Not state: the influence tree, the partition, the
 *   velocity/jacobian/density grids and the PSE scratch (each step rebuilds
 *   them before reading them; the step reserves the scratch itself), chunk
 *   partials, the profile, the cached hash and the ids created by the last
 *   step's commands.
 * - Dead emitter and body slots keep only their generation (it decides the
 *   next id the slot hands out); their other fields are leftovers that slot
 *   creation overwrites. So the snapshot of a state is canonical: equal
 *   states give equal bytes whatever the worker count that produced them.
 * - Restoring is restore.c's business (in place, all or nothing).
 * - Integrity: a trailing XXH3-64 of every preceding byte; a digest of the
 *   physical definition's encoding ties the snapshot to its world.
 * - Speed. A rollback game takes a snapshot every frame, so its cost counts
 *   like a step's. The small fields are written in order; the particle fields
 *   and the flow grid (nearly all the bytes) only get their room then, and
 *   are copied into it afterwards in pieces of SNAP_COPY_PIECE bytes on the
 *   world's workers (the task system of a step, so a game's job system gets
 *   this work too). A piece is a byte range of the rooms' concatenation: it
 *   writes its own bytes only, the same bytes whoever copies it, so the
 *   snapshot does not depend on the worker count. The trailing XXH3 is one
 *   serial pass, after the copy. */
#include "state/snapshot_layout.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* ================================================================ writing */

enum {
    /* particle fields, the flow grid, the islands' flow grids */
    SNAP_MAX_ROOMS = 2 * PARTICLE_FIELD_COUNT + 1 + ISLANDS_MAX,
    SNAP_COPY_PIECE = 1 << 16                      /* bytes per copy piece (a multiple of 4) */
};

/* The big arrays: their room in the output and where their words come from. */
typedef struct snap_room {
    size_t offset; /* in out->data */
    const void *words;
    size_t bytes;
} snap_room;

typedef struct snap_rooms {
    int count;
    size_t total; /* bytes of all rooms */
    uint8_t *data; /* out->data, once nothing more is appended before the copy */
    snap_room room[SNAP_MAX_ROOMS];
} snap_rooms;

/* Room for n words, filled from `words` by copy_pieces. */
static void put_words32_later(wire_writer *w, snap_rooms *r, const void *words, size_t n) {
    if (n == 0) return;
    const size_t at = eddy_wire_put_room32(w, n);
    if (at == SIZE_MAX) return;
    EDDY_ASSERT(r->count < SNAP_MAX_ROOMS);
    r->room[r->count++] = (snap_room){at, words, 4 * n};
    r->total += 4 * n;
}

/* Pieces [begin, end): bytes [piece * SNAP_COPY_PIECE, + SNAP_COPY_PIECE) of
 * the rooms taken one after another. */
static void copy_pieces(int chunk, int begin, int end, void *context) {
    const snap_rooms *r = context;
    for (int piece = begin; piece < end; ++piece) {
        const size_t lo = (size_t)piece * SNAP_COPY_PIECE;
        const size_t hi = r->total - lo < SNAP_COPY_PIECE ? r->total : lo + SNAP_COPY_PIECE;
        size_t start = 0; /* of room k in the concatenation */
        for (int k = 0; k < r->count && start < hi; start += r->room[k].bytes, ++k) {
            const snap_room *room = &r->room[k];
            const size_t a = lo > start ? lo : start;
            const size_t b = hi < start + room->bytes ? hi : start + room->bytes;
            if (a >= b) continue;
            eddy_wire_store_words32(r->data + room->offset + (a - start),
                                    (const uint8_t *)room->words + (a - start), (b - a) / 4);
        }
    }
    (void)chunk;
}
static size_t section_begin(wire_writer *w, int section) {
    eddy_wire_put_u32(w, k_sections[section]);
    size_t at = w->out->size;
    eddy_wire_put_u64(w, 0); /* length, patched by section_end */
    return at;
}

static void section_end(wire_writer *w, size_t at) {
    if (!w->failed) eddy_wire_patch_u64(w, at, (uint64_t)(w->out->size - at - 8));
}

static void put_diagnostics(wire_writer *w, const eddy_diagnostics *d) {
    for (int i = 0; i < 3; ++i) eddy_wire_put_f64(w, d->total_vorticity[i]);
    for (int i = 0; i < 3; ++i) eddy_wire_put_f64(w, d->linear_impulse[i]);
    for (int i = 0; i < 3; ++i) eddy_wire_put_f64(w, d->angular_impulse[i]);
    eddy_wire_put_f64(w, d->enstrophy);
    eddy_wire_put_f64(w, d->mass_deviation);
}

static void put_globals(wire_writer *w, const eddy_world *world) {
    size_t at = section_begin(w, SEC_GLOBALS);
    eddy_wire_put_i64(w, world->frame);
    eddy_wire_put_bool(w, world->stepped);
    eddy_wire_put_u64(w, world->rng.state);
    eddy_wire_put_u64(w, world->rng.inc);
    eddy_wire_put_vec3(w, world->gravity);
    eddy_wire_put_vec3(w, world->wind);
    put_diagnostics(w, &world->diagnostics);
    section_end(w, at);
}

/* Field-major: all px, then all py, ... (compresses well, hashes alike). */
static void put_particles(wire_writer *w, snap_rooms *r, const particle_array *a, int section) {
    size_t at = section_begin(w, section);
    const size_t n = (size_t)a->count;
    eddy_wire_put_u32(w, (uint32_t)a->count);
    for (int f = 0; f < PARTICLE_FIELD_COUNT; ++f)
        if (particle_field_present(&k_particle_fields[f], a))
            put_words32_later(w, r, particle_field_array(&k_particle_fields[f], a), n);
    section_end(w, at);
}

static void put_emitters(wire_writer *w, const eddy_world *world) {
    size_t at = section_begin(w, SEC_EMITTERS);
    eddy_wire_put_u32(w, (uint32_t)world->emitter_count);
    for (int i = 0; i < world->emitter_count; ++i) {
        const emitter *e = &world->emitters[i];
        eddy_wire_put_bool(w, e->alive);
        eddy_wire_put_u16(w, e->generation);
        if (!e->alive) continue;
        eddy_codec_put_emitter_def(w, &e->def);
        eddy_wire_put_f32(w, e->vorton_remainder);
        eddy_wire_put_f32(w, e->tracer_remainder);
        eddy_wire_put_i32(w, e->pending_vortons);
        eddy_wire_put_i32(w, e->pending_tracers);
    }
    section_end(w, at);
}

static void put_floats(wire_writer *w, const float *v, int n) {
    for (int i = 0; i < n; ++i) eddy_wire_put_f32(w, v[i]);
}

static void put_body(wire_writer *w, const body *b) {
    eddy_codec_put_body_def(w, &b->def);
    eddy_wire_put_bool(w, b->check_embedded);
    put_floats(w, b->position, 3);
    put_floats(w, b->orientation, 4);
    put_floats(w, &b->rotation[0][0], 9);
    put_floats(w, b->linear_momentum, 3);
    put_floats(w, b->angular_momentum, 3);
    put_floats(w, b->linear_velocity, 3);
    put_floats(w, b->angular_velocity, 3);
    put_floats(w, b->force, 3);
    put_floats(w, b->torque, 3);
    put_floats(w, b->input_force, 3);
    put_floats(w, b->input_torque, 3);
    eddy_wire_put_f32(w, b->inv_mass);
    put_floats(w, &b->inv_inertia_body[0][0], 9);
    put_floats(w, &b->inv_inertia_world[0][0], 9);
    eddy_wire_put_f32(w, b->temperature);
    eddy_wire_put_f32(w, b->volume);
    eddy_wire_put_f32(w, b->circumradius);
    eddy_wire_put_f32(w, b->inradius);
}

static void put_bodies(wire_writer *w, const eddy_world *world) {
    size_t at = section_begin(w, SEC_BODIES);
    eddy_wire_put_u32(w, (uint32_t)world->body_count);
    for (int i = 0; i < world->body_count; ++i) {
        const body *b = &world->bodies[i];
        eddy_wire_put_bool(w, b->alive);
        eddy_wire_put_u16(w, b->generation);
        if (b->alive) put_body(w, b);
    }
    section_end(w, at);
}

/* A grid's shape, its mollification and (later) its flow array. */
static void put_one_grid(wire_writer *w, snap_rooms *r, const grid_shape *g, float mollify,
                         const float *flow) {
    put_floats(w, g->min, 3);
    put_floats(w, g->extent, 3);
    put_floats(w, g->spacing, 3);
    put_floats(w, g->inv_spacing, 3);
    for (int a = 0; a < 3; ++a) eddy_wire_put_i32(w, g->cells[a]);
    for (int a = 0; a < 3; ++a) eddy_wire_put_i32(w, g->points[a]);
    eddy_wire_put_f32(w, mollify);
    put_words32_later(w, r, flow, 4 * (size_t)grid_point_count(g));
}

static void put_grid(wire_writer *w, snap_rooms *r, const eddy_world *world) {
    size_t at = section_begin(w, SEC_GRID);
    eddy_wire_put_bool(w, world->grid_valid);
    if (world->grid_valid) put_one_grid(w, r, &world->grid, world->mollify, world->flow);
    section_end(w, at);
}

/* The grid islands of the last step (lib/fluid/islands.c): only while the
 * world has two or more; each island's grid as GRID's. */
static void put_islands(wire_writer *w, snap_rooms *r, const eddy_world *world) {
    if (world->island_count < 2) return;
    size_t at = section_begin(w, SEC_ISLANDS);
    eddy_wire_put_u32(w, (uint32_t)world->island_count);
    for (int k = 0; k < world->island_count; ++k) {
        const grid_island *s = &world->islands[k];
        eddy_wire_put_bool(w, s->grid_valid);
        if (s->grid_valid) put_one_grid(w, r, &s->grid, s->mollify, s->flow);
    }
    section_end(w, at);
}

/* Active blasts (lib/fluid/blast.c): only while any is active. */
static void put_blasts(wire_writer *w, const eddy_world *world) {
    if (world->blast_count == 0) return;
    size_t at = section_begin(w, SEC_BLASTS);
    eddy_wire_put_u32(w, (uint32_t)world->blast_count);
    for (int b = 0; b < world->blast_count; ++b) {
        const active_blast *a = &world->blasts[b];
        eddy_wire_put_vec3(w, a->def.position);
        eddy_wire_put_f32(w, a->def.strength);
        eddy_wire_put_f32(w, a->def.duration);
        eddy_wire_put_f32(w, a->def.refill_duration);
        eddy_wire_put_f32(w, a->def.radius);
        eddy_wire_put_f32(w, a->elapsed);
    }
    section_end(w, at);
}

static size_t snapshot_estimate(const eddy_world *world) {
    size_t n = 4096 + 4 * (size_t)particle_field_count(&world->vortons) * (size_t)world->vortons.count;
    n += 4 * (size_t)particle_field_count(&world->tracers) * (size_t)world->tracers.count;
    n += 100 * (size_t)world->emitter_count + 1000 * (size_t)world->body_count;
    n += 40 * (size_t)world->blast_count;
    if (world->grid_valid) n += 16 * (size_t)grid_point_count(&world->grid);
    for (int k = 0; k < world->island_count; ++k)
        if (world->islands[k].grid_valid) n += 100 + 16 * (size_t)grid_point_count(&world->islands[k].grid);
    return n;
}

static eddy_status snapshot_held(const eddy_world *world, eddy_bytes *out) {
    uint64_t digest;
    if (!eddy_codec_def_digest(&world->def, &digest)) return EDDY_ERROR_OUT_OF_MEMORY;
    const size_t start = out->size;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    eddy_wire_reserve(&w, snapshot_estimate(world));
    eddy_wire_put_bytes(&w, snap_magic, sizeof snap_magic);
    eddy_wire_put_u32(&w, EDDY_SNAPSHOT_VERSION);
    eddy_wire_put_u32(&w, EDDY_HASH_SPEC_VERSION);
    eddy_wire_put_u64(&w, digest);
    const size_t length_at = out->size;
    eddy_wire_put_u64(&w, 0);
    snap_rooms rooms = {0};
    put_globals(&w, world);
    put_particles(&w, &rooms, &world->vortons, SEC_VORTONS);
    put_particles(&w, &rooms, &world->tracers, SEC_TRACERS);
    put_emitters(&w, world);
    put_bodies(&w, world);
    put_grid(&w, &rooms, world);
    put_blasts(&w, world);
    put_islands(&w, &rooms, world);
    if (!w.failed) {
        rooms.data = out->data;
        const size_t pieces = (rooms.total + SNAP_COPY_PIECE - 1) / SNAP_COPY_PIECE;
        EDDY_ASSERT(pieces <= INT_MAX);
        eddy_parallel_for(&world->tasks, (int)pieces, 1, copy_pieces, &rooms);
        eddy_wire_patch_u64(&w, length_at, (uint64_t)(out->size - start - SNAP_HEADER_BYTES));
        eddy_wire_put_u64(&w, eddy_wire_xxh3(out->data + start, out->size - start));
    }
    if (w.failed) out->size = start;
    return eddy_wire_writer_status(&w);
}


/* Held against overlapping calls (core/core.h, eddy_world_enter). */
eddy_status eddy_world_snapshot(const eddy_world *world, eddy_bytes *out) {
    if (!world || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(world, "eddy_world_snapshot")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = snapshot_held(world, out);
    eddy_world_leave(world);
    return s;
}
