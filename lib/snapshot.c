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
 * - Restore is all or nothing: everything is parsed into temporary storage
 *   and validated (sizes, enums, bools, finite values, grid consistency),
 *   the world's grid arrays are grown, and only then is the state swapped
 *   in by steps that cannot fail. On any error the world is unchanged.
 * - Integrity: a trailing XXH3-64 of every preceding byte; a digest of the
 *   physical definition's encoding ties the snapshot to its world. */
#include "codec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const uint8_t snap_magic[8] = {'E', 'D', 'D', 'Y', 'S', 'N', 'A', 'P'};

enum {
    SNAP_HEADER_BYTES = 32,     /* magic, version, hash spec, def digest, body length */
    SNAP_MAX_PARTICLES = INT32_MAX / 2,
    SNAP_MAX_SLOTS = 1 << 20,   /* emitter and body slots */
    SNAP_MAX_CELLS = 1 << 20,   /* per axis, as eddy_grid_define */
    SNAP_MAX_POINTS = 1 << 26,  /* grid points in total */
};

/* Section tags, in the order they appear. */
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
static const uint32_t k_sections[] = {TAG('G', 'L', 'O', 'B'), TAG('V', 'O', 'R', 'T'),
                                      TAG('T', 'R', 'A', 'C'), TAG('E', 'M', 'I', 'T'),
                                      TAG('B', 'O', 'D', 'Y'), TAG('G', 'R', 'I', 'D')};
enum { SEC_GLOBALS, SEC_VORTONS, SEC_TRACERS, SEC_EMITTERS, SEC_BODIES, SEC_GRID, SEC_COUNT };

/* ================================================================ writing */
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
static void put_particles(wire_writer *w, const particle_array *a, int section) {
    size_t at = section_begin(w, section);
    const size_t n = (size_t)a->count;
    eddy_wire_put_u32(w, (uint32_t)a->count);
    const float *pv[6] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz};
    for (int f = 0; f < 6; ++f) eddy_wire_put_words32(w, pv[f], n);
    if (a->has_vorticity) {
        eddy_wire_put_words32(w, a->wx, n);
        eddy_wire_put_words32(w, a->wy, n);
        eddy_wire_put_words32(w, a->wz, n);
    }
    eddy_wire_put_words32(w, a->drho, n);
    eddy_wire_put_words32(w, a->birth, n);
    if (a->has_vorticity) {
        eddy_wire_put_words32(w, a->hx, n);
        eddy_wire_put_words32(w, a->hy, n);
        eddy_wire_put_words32(w, a->hz, n);
    }
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

static void put_grid(wire_writer *w, const eddy_world *world) {
    size_t at = section_begin(w, SEC_GRID);
    eddy_wire_put_bool(w, world->grid_valid);
    if (world->grid_valid) {
        const grid_shape *g = &world->grid;
        put_floats(w, g->min, 3);
        put_floats(w, g->extent, 3);
        put_floats(w, g->spacing, 3);
        put_floats(w, g->inv_spacing, 3);
        for (int a = 0; a < 3; ++a) eddy_wire_put_i32(w, g->cells[a]);
        for (int a = 0; a < 3; ++a) eddy_wire_put_i32(w, g->points[a]);
        eddy_wire_put_f32(w, world->mollify);
        eddy_wire_put_words32(w, world->flow, 4 * (size_t)grid_point_count(g));
    }
    section_end(w, at);
}

static size_t snapshot_estimate(const eddy_world *world) {
    size_t n = 4096 + 60 * (size_t)world->vortons.count + 36 * (size_t)world->tracers.count;
    n += 100 * (size_t)world->emitter_count + 1000 * (size_t)world->body_count;
    if (world->grid_valid) n += 16 * (size_t)grid_point_count(&world->grid);
    return n;
}

eddy_status eddy_world_snapshot(const eddy_world *world, eddy_bytes *out) {
    if (!world || !out) return EDDY_ERROR_INVALID_ARGUMENT;
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
    put_globals(&w, world);
    put_particles(&w, &world->vortons, SEC_VORTONS);
    put_particles(&w, &world->tracers, SEC_TRACERS);
    put_emitters(&w, world);
    put_bodies(&w, world);
    put_grid(&w, world);
    if (!w.failed) {
        eddy_wire_patch_u64(&w, length_at, (uint64_t)(out->size - start - SNAP_HEADER_BYTES));
        eddy_wire_put_u64(&w, eddy_wire_xxh3(out->data + start, out->size - start));
    }
    if (w.failed) out->size = start;
    return eddy_wire_writer_status(&w);
}

/* ================================================================ reading */
/* Everything a snapshot holds, parsed but not yet in a world. */
typedef struct snap_state {
    int64_t frame;
    bool stepped;
    eddy_rng rng;
    eddy_vec3 gravity, wind;
    eddy_diagnostics diagnostics;
    particle_array vortons, tracers;
    emitter *emitters;
    int emitter_count;
    body *bodies;
    int body_count;
    bool grid_valid;
    grid_shape grid;
    float mollify;
    float *flow;
} snap_state;

static void snap_state_free(snap_state *s) {
    eddy_particles_free(&s->vortons);
    eddy_particles_free(&s->tracers);
    free(s->emitters);
    for (int i = 0; i < s->body_count; ++i) free(s->bodies[i].vertices);
    free(s->bodies);
    free(s->flow);
}

static void oom(wire_reader *r, const char *what) {
    eddy_wire_fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory for %s", what);
}

/* Reads a section's tag and length; *end is where its payload stops. */
static bool section_open(wire_reader *r, int section, size_t *end) {
    size_t at = r->pos;
    uint32_t tag = eddy_wire_get_u32(r, "section tag");
    uint64_t length = eddy_wire_get_u64(r, "section length");
    if (!wire_ok(r)) return false;
    const uint32_t want = k_sections[section];
    if (tag != want) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "expected section '%c%c%c%c' at byte %zu",
                  (char)(want & 0xff), (char)(want >> 8 & 0xff), (char)(want >> 16 & 0xff),
                  (char)(want >> 24), at);
        return false;
    }
    if (length > wire_remaining(r)) {
        eddy_wire_fail(r, EDDY_ERROR_TRUNCATED, "section at byte %zu claims %llu bytes, %zu remain", at,
                  (unsigned long long)length, wire_remaining(r));
        return false;
    }
    *end = r->pos + (size_t)length;
    return true;
}

static void section_close(wire_reader *r, size_t end, const char *name) {
    if (wire_ok(r) && r->pos != end)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "section %s has %zu bytes its fields do not use", name,
                  end > r->pos ? end - r->pos : 0);
}

static void get_diagnostics(wire_reader *r, eddy_diagnostics *d) {
    for (int i = 0; i < 3; ++i) d->total_vorticity[i] = eddy_wire_get_f64(r, "diagnostics");
    for (int i = 0; i < 3; ++i) d->linear_impulse[i] = eddy_wire_get_f64(r, "diagnostics");
    for (int i = 0; i < 3; ++i) d->angular_impulse[i] = eddy_wire_get_f64(r, "diagnostics");
    d->enstrophy = eddy_wire_get_f64(r, "diagnostics");
    d->mass_deviation = eddy_wire_get_f64(r, "diagnostics");
}

static void get_globals(wire_reader *r, snap_state *s) {
    size_t end;
    if (!section_open(r, SEC_GLOBALS, &end)) return;
    s->frame = eddy_wire_get_i64(r, "frame");
    s->stepped = eddy_wire_get_bool(r, "stepped");
    s->rng.state = eddy_wire_get_u64(r, "rng state");
    s->rng.inc = eddy_wire_get_u64(r, "rng inc");
    s->gravity = eddy_wire_get_vec3(r, "gravity");
    s->wind = eddy_wire_get_vec3(r, "wind");
    get_diagnostics(r, &s->diagnostics);
    section_close(r, end, "GLOB");
    if (wire_ok(r) && (s->frame < 0 || s->frame >= INT32_MAX))
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "frame %lld is out of range", (long long)s->frame);
}

static void get_particles(wire_reader *r, particle_array *a, int section, const char *name) {
    size_t end;
    if (!section_open(r, section, &end)) return;
    const size_t fields = a->has_vorticity ? 14 : 8;
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_PARTICLES, 4 * fields, "particle count");
    if (!wire_ok(r)) return;
    if (!eddy_particles_reserve(a, (int)n)) {
        oom(r, name);
        return;
    }
    float *pv[6] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz};
    for (int f = 0; f < 6; ++f) eddy_wire_get_words32(r, pv[f], n, name);
    if (a->has_vorticity) {
        eddy_wire_get_words32(r, a->wx, n, name);
        eddy_wire_get_words32(r, a->wy, n, name);
        eddy_wire_get_words32(r, a->wz, n, name);
    }
    eddy_wire_get_words32(r, a->drho, n, name);
    eddy_wire_get_words32(r, a->birth, n, name);
    if (a->has_vorticity) {
        eddy_wire_get_words32(r, a->hx, n, name);
        eddy_wire_get_words32(r, a->hy, n, name);
        eddy_wire_get_words32(r, a->hz, n, name);
    }
    if (wire_ok(r)) a->count = (int)n;
    section_close(r, end, name);
}

static void get_emitters(wire_reader *r, snap_state *s) {
    size_t end;
    if (!section_open(r, SEC_EMITTERS, &end)) return;
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_SLOTS, 3, "emitter slot count");
    if (!wire_ok(r)) return;
    if (n > 0 && !(s->emitters = calloc(n, sizeof(emitter)))) {
        oom(r, "emitters");
        return;
    }
    s->emitter_count = (int)n;
    for (uint32_t i = 0; i < n && wire_ok(r); ++i) {
        emitter *e = &s->emitters[i];
        e->alive = eddy_wire_get_bool(r, "emitter alive");
        e->generation = eddy_wire_get_u16(r, "emitter generation");
        if (!e->alive) continue;
        eddy_codec_get_emitter_def(r, &e->def);
        e->vorton_remainder = eddy_wire_get_f32(r, "emitter vorton_remainder");
        e->tracer_remainder = eddy_wire_get_f32(r, "emitter tracer_remainder");
        e->pending_vortons = eddy_wire_get_i32(r, "emitter pending_vortons");
        e->pending_tracers = eddy_wire_get_i32(r, "emitter pending_tracers");
    }
    section_close(r, end, "EMIT");
}

static void get_floats(wire_reader *r, float *v, int n, const char *field) {
    for (int i = 0; i < n; ++i) v[i] = eddy_wire_get_f32(r, field);
}

static void get_body(wire_reader *r, body *b) {
    eddy_codec_get_body_def(r, &b->def);
    b->check_embedded = eddy_wire_get_bool(r, "body check_embedded");
    get_floats(r, b->position, 3, "body position");
    get_floats(r, b->orientation, 4, "body orientation");
    get_floats(r, &b->rotation[0][0], 9, "body rotation");
    get_floats(r, b->linear_momentum, 3, "body linear_momentum");
    get_floats(r, b->angular_momentum, 3, "body angular_momentum");
    get_floats(r, b->linear_velocity, 3, "body linear_velocity");
    get_floats(r, b->angular_velocity, 3, "body angular_velocity");
    get_floats(r, b->force, 3, "body force");
    get_floats(r, b->torque, 3, "body torque");
    get_floats(r, b->input_force, 3, "body input_force");
    get_floats(r, b->input_torque, 3, "body input_torque");
    b->inv_mass = eddy_wire_get_f32(r, "body inv_mass");
    get_floats(r, &b->inv_inertia_body[0][0], 9, "body inv_inertia_body");
    get_floats(r, &b->inv_inertia_world[0][0], 9, "body inv_inertia_world");
    b->temperature = eddy_wire_get_f32(r, "body temperature");
    b->volume = eddy_wire_get_f32(r, "body volume");
    b->circumradius = eddy_wire_get_f32(r, "body circumradius");
    b->inradius = eddy_wire_get_f32(r, "body inradius");
}

/* Rebuilds what the shape derives (the polytope's vertices). The rebuild
 * also recomputes the frame from a renormalised orientation, which need not
 * give the stored bits back, so the stored frame is put back after it. */
static void body_derive(wire_reader *r, body *b) {
    float orientation[4], rotation[3][3], inv_inertia_world[3][3];
    memcpy(orientation, b->orientation, sizeof orientation);
    memcpy(rotation, b->rotation, sizeof rotation);
    memcpy(inv_inertia_world, b->inv_inertia_world, sizeof inv_inertia_world);
    if (!eddy_body_rebuild_derived(b)) oom(r, "a body's vertices");
    memcpy(b->orientation, orientation, sizeof orientation);
    memcpy(b->rotation, rotation, sizeof rotation);
    memcpy(b->inv_inertia_world, inv_inertia_world, sizeof inv_inertia_world);
}

static void get_bodies(wire_reader *r, snap_state *s) {
    size_t end;
    if (!section_open(r, SEC_BODIES, &end)) return;
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_SLOTS, 3, "body slot count");
    if (!wire_ok(r)) return;
    if (n > 0 && !(s->bodies = calloc(n, sizeof(body)))) {
        oom(r, "bodies");
        return;
    }
    s->body_count = (int)n;
    for (uint32_t i = 0; i < n && wire_ok(r); ++i) {
        body *b = &s->bodies[i];
        b->alive = eddy_wire_get_bool(r, "body alive");
        b->generation = eddy_wire_get_u16(r, "body generation");
        if (b->alive) get_body(r, b);
    }

    section_close(r, end, "BODY");
}

static bool grid_shape_consistent(const grid_shape *g) {
    int64_t points = 1;
    for (int a = 0; a < 3; ++a) {
        if (g->cells[a] < 1 || g->cells[a] > SNAP_MAX_CELLS || g->points[a] != g->cells[a] + 1)
            return false;
        points *= g->points[a];
        if (points > SNAP_MAX_POINTS) return false;
    }
    return true;
}

static void get_grid_shape(wire_reader *r, grid_shape *g) {
    get_floats(r, g->min, 3, "grid min");
    get_floats(r, g->extent, 3, "grid extent");
    get_floats(r, g->spacing, 3, "grid spacing");
    get_floats(r, g->inv_spacing, 3, "grid inv_spacing");
    for (int a = 0; a < 3; ++a) g->cells[a] = eddy_wire_get_i32(r, "grid cells");
    for (int a = 0; a < 3; ++a) g->points[a] = eddy_wire_get_i32(r, "grid points");
    if (wire_ok(r) && !grid_shape_consistent(g))
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "grid of %d x %d x %d cells, %d x %d x %d points is not valid",
                  g->cells[0], g->cells[1], g->cells[2], g->points[0], g->points[1], g->points[2]);
}

static void get_grid(wire_reader *r, snap_state *s) {
    size_t end;
    if (!section_open(r, SEC_GRID, &end)) return;
    s->grid_valid = eddy_wire_get_bool(r, "grid_valid");
    if (s->grid_valid) {
        get_grid_shape(r, &s->grid);
        s->mollify = eddy_wire_get_f32(r, "mollify");
        if (!wire_ok(r)) return;
        const size_t values = 4 * (size_t)grid_point_count(&s->grid);
        if (!eddy_wire_need(r, 4 * values, "flow grid")) return;
        if (!(s->flow = malloc(4 * values))) {
            oom(r, "the flow grid");
            return;
        }
        eddy_wire_get_words32(r, s->flow, values, "flow grid");
    }
    section_close(r, end, "GRID");
}

/* ---------------------------------------------------------------- validation */
static bool all_finite(const float *v, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) return false;
    return true;
}

static void check_particles(wire_reader *r, const particle_array *a, const char *name) {
    const size_t n = (size_t)a->count;
    const float *fields[13] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz, a->drho};
    int count = 7;
    if (a->has_vorticity) {
        const float *extra[6] = {a->wx, a->wy, a->wz, a->hx, a->hy, a->hz};
        for (int k = 0; k < 6; ++k) fields[count++] = extra[k];
    }
    for (int f = 0; f < count; ++f)
        if (!all_finite(fields[f], n)) {
            eddy_wire_fail(r, EDDY_ERROR_NAN, "%s hold a NaN or infinite value", name);
            return;
        }
}

static bool emitter_finite(const emitter *e) {
    const eddy_emitter_def *d = &e->def;
    const float v[] = {d->position.x, d->position.y, d->position.z, d->position_spread.x,
                       d->position_spread.y, d->position_spread.z, d->velocity.x, d->velocity.y,
                       d->velocity.z, d->vorticity.x, d->vorticity.y, d->vorticity.z,
                       d->vorticity_spread.x, d->vorticity_spread.y, d->vorticity_spread.z,
                       d->density_deviation, d->vorton_rate, d->tracer_rate,
                       e->vorton_remainder, e->tracer_remainder};
    return all_finite(v, sizeof v / sizeof v[0]);
}

/* Everything after def in the body struct is float state but the flags. */
static bool body_finite(const body *b) {
    const float *groups[] = {b->position, b->orientation, &b->rotation[0][0], b->linear_momentum,
                             b->angular_momentum, b->linear_velocity, b->angular_velocity,
                             b->force, b->torque, b->input_force, b->input_torque,
                             &b->inv_inertia_body[0][0], &b->inv_inertia_world[0][0]};
    const int sizes[] = {3, 4, 9, 3, 3, 3, 3, 3, 3, 3, 3, 9, 9};
    for (size_t g = 0; g < sizeof sizes / sizeof sizes[0]; ++g)
        if (!all_finite(groups[g], (size_t)sizes[g])) return false;
    const float rest[] = {b->inv_mass, b->temperature, b->volume, b->circumradius, b->inradius};
    return all_finite(rest, sizeof rest / sizeof rest[0]);
}

static void check_state(wire_reader *r, const snap_state *s) {
    check_particles(r, &s->vortons, "vortons");
    check_particles(r, &s->tracers, "tracers");
    for (int i = 0; i < s->emitter_count && wire_ok(r); ++i)
        if (s->emitters[i].alive && !emitter_finite(&s->emitters[i]))
            eddy_wire_fail(r, EDDY_ERROR_NAN, "emitter slot %d holds a NaN or infinite value", i);
    for (int i = 0; i < s->body_count && wire_ok(r); ++i)
        if (s->bodies[i].alive && !body_finite(&s->bodies[i]))
            eddy_wire_fail(r, EDDY_ERROR_NAN, "body slot %d holds a NaN or infinite value", i);
    if (!wire_ok(r) || !s->grid_valid) return;
    const grid_shape *g = &s->grid;
    const float geometry[] = {g->min[0], g->min[1], g->min[2], g->extent[0], g->extent[1],
                              g->extent[2], g->spacing[0], g->spacing[1], g->spacing[2],
                              g->inv_spacing[0], g->inv_spacing[1], g->inv_spacing[2], s->mollify};
    if (!all_finite(geometry, sizeof geometry / sizeof geometry[0]) ||
        !all_finite(s->flow, 4 * (size_t)grid_point_count(g)))
        eddy_wire_fail(r, EDDY_ERROR_NAN, "the grid holds a NaN or infinite value");
}

/* ---------------------------------------------------------------- header */
static void get_header(wire_reader *r, const eddy_world *world, size_t *body_end) {
    const uint8_t *magic = eddy_wire_get_bytes(r, sizeof snap_magic, "magic");
    if (magic && memcmp(magic, snap_magic, sizeof snap_magic) != 0) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "bad magic (not an eddy snapshot)");
        return;
    }
    uint32_t version = eddy_wire_get_u32(r, "version");
    if (wire_ok(r) && version != EDDY_SNAPSHOT_VERSION) {
        eddy_wire_fail(r, EDDY_ERROR_VERSION, "format version %u, this build reads version %d",
                  (unsigned)version, EDDY_SNAPSHOT_VERSION);
        return;
    }
    uint32_t spec = eddy_wire_get_u32(r, "hash spec version");
    if (wire_ok(r) && spec != EDDY_HASH_SPEC_VERSION) {
        eddy_wire_fail(r, EDDY_ERROR_VERSION, "hash spec version %u, this build has version %d",
                  (unsigned)spec, EDDY_HASH_SPEC_VERSION);
        return;
    }
    uint64_t digest = eddy_wire_get_u64(r, "definition digest");
    uint64_t length = eddy_wire_get_u64(r, "length");
    if (!wire_ok(r)) return;
    if (length > wire_remaining(r) || wire_remaining(r) - length < 8) {
        eddy_wire_fail(r, length + 8 > wire_remaining(r) ? EDDY_ERROR_TRUNCATED : EDDY_ERROR_CORRUPT,
                  "%llu bytes of sections and 8 of checksum announced, %zu present",
                  (unsigned long long)length, wire_remaining(r));
        return;
    }
    if (wire_remaining(r) - length != 8) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%zu bytes after the checksum",
                  wire_remaining(r) - (size_t)length - 8);
        return;
    }
    *body_end = r->pos + (size_t)length;
    uint64_t stored = 0;
    for (int i = 0; i < 8; ++i) stored |= (uint64_t)r->data[*body_end + (size_t)i] << (8 * i);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    stored = eddy_wire_xxh3(r->data, *body_end);
#endif
    if (stored != eddy_wire_xxh3(r->data, *body_end)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "checksum mismatch (the bytes were damaged)");
        return;
    }
    uint64_t mine;
    if (!eddy_codec_def_digest(&world->def, &mine)) {
        oom(r, "the definition digest");
        return;
    }
    if (digest != mine)
        eddy_wire_fail(r, EDDY_ERROR_INVALID_DEF,
                  "taken from a world with another physical definition (digest %016llx, this "
                  "world %016llx)", (unsigned long long)digest, (unsigned long long)mine);
}

static void parse_snapshot(wire_reader *r, const eddy_world *world, snap_state *s) {
    size_t body_end = 0;
    get_header(r, world, &body_end);
    if (!wire_ok(r)) return;
    get_globals(r, s);
    get_particles(r, &s->vortons, SEC_VORTONS, "vortons");
    get_particles(r, &s->tracers, SEC_TRACERS, "tracers");
    get_emitters(r, s);
    get_bodies(r, s);
    get_grid(r, s);
    if (wire_ok(r) && r->pos != body_end)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%zu bytes after the last section", body_end - r->pos);
    if (wire_ok(r)) check_state(r, s);
    for (int i = 0; i < s->body_count && wire_ok(r); ++i) {
        body *b = &s->bodies[i];
        if (!b->alive) continue;
        char why[160];
        if (eddy_shape_validate(&b->def.shape, why, sizeof why) != EDDY_OK)
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body slot %d: %s", i, why);
        else body_derive(r, b);
    }
}

/* ---------------------------------------------------------------- commit */
static void swap_particles(particle_array *a, particle_array *b) {
    particle_array t = *a;
    *a = *b;
    *b = t;
}

/* Cannot fail: every allocation was made before. The old arrays end up in
 * s and are freed with it. */
static void commit(eddy_world *w, snap_state *s) {
    w->frame = s->frame;
    w->stepped = s->stepped;
    w->rng = s->rng;
    w->gravity = s->gravity;
    w->wind = s->wind;
    w->diagnostics = s->diagnostics;
    swap_particles(&w->vortons, &s->vortons);
    swap_particles(&w->tracers, &s->tracers);
    emitter *e = w->emitters;
    w->emitters = s->emitters;
    w->emitter_count = w->emitter_capacity = s->emitter_count;
    s->emitters = e;
    body *b = w->bodies;
    const int old_bodies = w->body_count;
    w->bodies = s->bodies;
    w->body_count = w->body_capacity = s->body_count;
    s->bodies = b; /* the old slots' vertices are freed with s */
    s->body_count = old_bodies;
    w->created_body_count = 0;
    w->created_emitter_count = 0;
    w->grid_valid = s->grid_valid;
    if (s->grid_valid) {
        w->grid = s->grid;
        w->mollify = s->mollify;
        memcpy(w->flow, s->flow, 4 * sizeof(float) * (size_t)grid_point_count(&s->grid));
    }
    w->hash_valid = false;
    w->error[0] = '\0'; /* a restored state is whole again, even after a failed step */
    w->needs_restore = false;
}

eddy_status eddy_world_restore(eddy_world *world, const void *data, size_t size, char *message,
                               size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "snapshot", message, message_size);
    if (!world || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "world or data is NULL");
        return r.status;
    }
    snap_state s;
    memset(&s, 0, sizeof s);
    s.vortons.has_vorticity = true;
    parse_snapshot(&r, world, &s);
    if (wire_ok(&r) && s.grid_valid && !eddy_grid_arrays_reserve(world, grid_point_count(&s.grid)))
        oom(&r, "the world's grid arrays");
    /* Stable particle ids are not state and not in snapshots: renumbered. */
    s.vortons.track_ids = world->vortons.track_ids;
    s.tracers.track_ids = world->tracers.track_ids;
    if (wire_ok(&r) && (!eddy_particles_renumber_ids(&s.vortons) ||
                        !eddy_particles_renumber_ids(&s.tracers)))
        oom(&r, "particle ids");
    if (wire_ok(&r)) commit(world, &s);
    snap_state_free(&s);
    return r.status;
}
