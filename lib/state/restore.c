/* SPDX-License-Identifier: MIT */
/* Restoring a snapshot in place (layout: docs/snapshot-format.md; writer:
 * snapshot.c).
 *
 * Design notes.
 * - In place. The state is copied straight from the snapshot's bytes into
 *   the world's own buffers: particle arrays, emitter and body slots, the
 *   flow grid. A world that already has the capacity (the steady state of a
 *   rollback loop: it restores states it produced itself) allocates nothing;
 *   otherwise the buffers grow, as a step would grow them.
 * - All or nothing, in three stages:
 *     1. check: header, versions, checksum, every section's structure, every
 *        float of the state finite, body shapes valid, read from the bytes
 *        without touching the world. The globals are decoded into a local;
 *        emitter and body slots are decoded one at a time into a local,
 *        checked and dropped (the commit decodes them again, straight into
 *        the world's slots: they are small); the big arrays are only located
 *        (a pointer into the bytes and a count) and checked where they lie.
 *     2. reserve: grow what is too small. Growing keeps the contents, so a
 *        failure here leaves the world's state as it was.
 *     3. commit: copies that cannot fail.
 * - Parallel where it pays. The finiteness check and the copies of the big
 *   arrays are cut into fixed pieces of RESTORE_PIECE_WORDS words run by
 *   eddy_parallel_for; each piece reads its own bytes and writes its own
 *   destination (or its own flag), so the result cannot depend on the worker
 *   count. There is no floating-point arithmetic here: only bit copies and
 *   bit tests (a float is finite unless its exponent bits are all ones).
 * - Bodies. A body's polytope vertices are derived from its shape. When the
 *   snapshot's slot has the same shape as the world's slot, the world's
 *   vertices (and the shape's validation) are kept; otherwise the shape is
 *   validated and the vertices built in stage 1 and held until the commit
 *   (the only allocations a restore into a big enough world can make). The
 *   body's frame (orientation, rotation, world inverse inertia) is restored as
 *   stored, never recomputed. */
#include "state/snapshot_layout.h"
#include "bodies/bodies.h"

#include <stdio.h>
#include <stdlib.h>

enum {
    RESTORE_PIECE_WORDS = 16384, /* 64 KiB: one parallel piece of a check or copy */
    RESTORE_MAX_SPANS = 2 * PARTICLE_FIELD_COUNT + 1 + ISLANDS_MAX,
    RESTORE_FLAG_BATCH = 1024,   /* pieces checked per parallel batch (flags on the stack) */
};

/* A run of 32-bit little-endian words in the snapshot and where it goes. */
typedef struct word_span {
    const uint8_t *src;
    void *dst;          /* set at commit */
    size_t words;
    bool check_finite;
} word_span;

/* Everything a snapshot holds, checked but not yet in the world. */
typedef struct snap_view {
    uint64_t digest;             /* of the definition, from the header */
    size_t body_end;             /* where the checksum starts */
    uint64_t stored_checksum;
    int64_t frame;
    bool stepped;
    eddy_rng rng;
    eddy_vec3 gravity, wind;
    eddy_diagnostics diagnostics;
    const uint8_t *particles[2]; /* VORT, TRAC payload after the count */
    int particle_count[2];
    size_t emitters_at, bodies_at; /* EMIT and BODY payloads, decoded again at commit */
    int emitter_count;
    int body_count;
    eddy_vec3 **vertices;        /* per body slot: built for a new shape, or NULL */
    int *vertex_counts;
    bool grid_valid;
    grid_shape grid;
    float mollify;
    const uint8_t *flow;
    int island_count;            /* ISLE section, when present (else 0) */
    bool island_valid[ISLANDS_MAX];
    grid_shape island_grid[ISLANDS_MAX];
    float island_mollify[ISLANDS_MAX];
    const uint8_t *island_flow[ISLANDS_MAX];
    int blast_count;             /* BLST section, when present */
    active_blast blasts[EDDY_MAX_ACTIVE_BLASTS];
    word_span spans[RESTORE_MAX_SPANS];
    int span_count;
} snap_view;

static void oom(wire_reader *r, const char *what) {
    eddy_wire_fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory for %s", what);
}

/* Grow *p (elem bytes each, new slots zeroed) to hold n; false on failure. */
static bool grow_zeroed(void **p, int *capacity, int n, size_t elem) {
    if (n <= *capacity) return true;
    int cap = *capacity < 4 ? 4 : *capacity;
    while (cap < n) cap = cap > INT32_MAX / 2 ? n : 2 * cap;
    void *q = eddy_realloc(*p, (size_t)cap * elem);
    if (!q) return false;
    memset((char *)q + (size_t)*capacity * elem, 0, (size_t)(cap - *capacity) * elem);
    *p = q;
    *capacity = cap;
    return true;
}

/* ================================================================ words */
/* The word at p, stored little-endian. Known little-endian hosts
 * (EDDY_HOST_LITTLE_ENDIAN, runtime/runtime.h) load it as it lies; any other
 * host assembles it from its bytes, which is right whatever its order (an
 * unknown order is not a big one: MSVC names none). */
static inline uint32_t load_le32(const uint8_t *p) {
#if EDDY_HOST_LITTLE_ENDIAN
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* True if none of the n little-endian float bit patterns is an infinity or a
 * NaN. (bits & exponent) + lowest exponent bit carries into bit 31 exactly
 * when the exponent bits are all ones; or-ing those sums over a block of 8
 * lanes is branch-free and vectorises at -O2. */
static bool words_finite(const uint8_t *src, size_t n) {
    enum { LANES = 8 };
    uint32_t acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (int k = 0; k < LANES; ++k)
            acc[k] |= (load_le32(src + 4 * (i + (size_t)k)) & 0x7f800000u) + 0x00800000u;
    for (; i < n; ++i) acc[0] |= (load_le32(src + 4 * i) & 0x7f800000u) + 0x00800000u;
    uint32_t all = 0;
    for (int k = 0; k < LANES; ++k) all |= acc[k];
    return (all & 0x80000000u) == 0;
}

static void words_copy(void *dst, const uint8_t *src, size_t n) {
#if EDDY_HOST_LITTLE_ENDIAN
    memcpy(dst, src, 4 * n);
#else
    uint32_t *d = dst;
    for (size_t i = 0; i < n; ++i) d[i] = load_le32(src + 4 * i);
#endif
}

/* Pieces of RESTORE_PIECE_WORDS words over a list of spans, run in parallel:
 * either every piece checks its words (flag 1 = a non-finite value) or every
 * piece copies them. */
typedef struct span_job {
    const word_span *spans;
    int span_count;
    int first_piece[RESTORE_MAX_SPANS + 1];
    int batch_first;  /* piece of flags[0] */
    uint8_t *flags;   /* NULL: copy */
    /* Checking only: the snapshot's checksum runs as chunk 0 of the first
     * batch, beside the pieces (so the serial hash overlaps the checks). */
    const uint8_t *checksum_data;
    size_t checksum_size;
    uint64_t checksum;
} span_job;

static void span_piece(int chunk, int begin, int end, void *context) {
    span_job *job = context;
    if (job->checksum_data && begin == 0) {
        job->checksum = eddy_wire_xxh3(job->checksum_data, job->checksum_size);
        begin = 1;
    }
    const int shift = job->checksum_data ? 1 : 0;
    for (int p = job->batch_first + begin - shift; p < job->batch_first + end - shift; ++p) {
        int s = 0;
        while (job->first_piece[s + 1] <= p) ++s;
        const word_span *span = &job->spans[s];
        const size_t at = (size_t)(p - job->first_piece[s]) * RESTORE_PIECE_WORDS;
        const size_t left = span->words - at;
        const size_t n = left < RESTORE_PIECE_WORDS ? left : RESTORE_PIECE_WORDS;
        if (job->flags)
            job->flags[p - job->batch_first] =
                span->check_finite && !words_finite(span->src + 4 * at, n);
        else
            words_copy((uint32_t *)span->dst + at, span->src + 4 * at, n);
    }
    (void)chunk;
}

static int span_job_init(span_job *job, const snap_view *v) {
    job->spans = v->spans;
    job->span_count = v->span_count;
    job->flags = NULL;
    job->batch_first = 0;
    job->checksum_data = NULL;
    job->checksum_size = 0;
    job->checksum = 0;
    int pieces = 0;
    for (int s = 0; s < v->span_count; ++s) {
        job->first_piece[s] = pieces;
        pieces += chunk_count((int)v->spans[s].words, RESTORE_PIECE_WORDS);
    }
    job->first_piece[v->span_count] = pieces;
    return pieces;
}

/* ================================================================ stage 1: check */
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
        eddy_wire_fail(r, EDDY_ERROR_TRUNCATED, "section at byte %zu claims %llu bytes, %zu remain",
                       at, (unsigned long long)length, wire_remaining(r));
        return false;
    }
    *end = r->pos + (size_t)length;
    return true;
}

static void section_close(wire_reader *r, size_t end, const char *name) {
    if (!wire_ok(r) || r->pos == end) return;
    if (r->pos < end)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "section %s has %zu bytes its fields do not use", name,
                       end - r->pos);
    else /* its fields ran on into whatever follows the section */
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                       "section %s is too short: its fields need %zu bytes more than its length "
                       "gives (it ends at byte %zu)",
                       name, r->pos - end, end);
}

static void get_diagnostics(wire_reader *r, eddy_diagnostics *d) {
    for (int i = 0; i < 3; ++i) d->total_vorticity[i] = eddy_wire_get_f64(r, "diagnostics");
    for (int i = 0; i < 3; ++i) d->linear_impulse[i] = eddy_wire_get_f64(r, "diagnostics");
    for (int i = 0; i < 3; ++i) d->angular_impulse[i] = eddy_wire_get_f64(r, "diagnostics");
    d->enstrophy = eddy_wire_get_f64(r, "diagnostics");
    d->mass_deviation = eddy_wire_get_f64(r, "diagnostics");
}

static void get_globals(wire_reader *r, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_GLOBALS, &end)) return;
    v->frame = eddy_wire_get_i64(r, "frame");
    v->stepped = eddy_wire_get_bool(r, "stepped");
    v->rng.state = eddy_wire_get_u64(r, "rng state");
    v->rng.inc = eddy_wire_get_u64(r, "rng inc");
    v->gravity = eddy_wire_get_vec3(r, "gravity");
    v->wind = eddy_wire_get_vec3(r, "wind");
    get_diagnostics(r, &v->diagnostics);
    section_close(r, end, "GLOB");
    if (wire_ok(r) && (v->frame < 0 || v->frame >= INT32_MAX))
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "frame %lld is out of range", (long long)v->frame);
}

static void add_span(snap_view *v, const uint8_t *src, size_t words, bool check_finite) {
    if (words == 0) return;
    v->spans[v->span_count++] = (word_span){src, NULL, words, check_finite};
}

/* Locates the section's field arrays in the bytes (they are checked and
 * copied later, piece by piece). */
static void get_particles(wire_reader *r, snap_view *v, const particle_array *shape, int which,
                          const char *name) {
    size_t end;
    if (!section_open(r, which == 0 ? SEC_VORTONS : SEC_TRACERS, &end)) return;
    const size_t fields = (size_t)particle_field_count(shape);
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_PARTICLES, 4 * fields, "particle count");
    if (!wire_ok(r)) return;
    v->particles[which] = r->data + r->pos;
    v->particle_count[which] = (int)n;
    for (int f = 0; f < PARTICLE_FIELD_COUNT; ++f) {
        const particle_field *pf = &k_particle_fields[f];
        if (!particle_field_present(pf, shape)) continue;
        const uint8_t *src = eddy_wire_get_bytes(r, 4 * (size_t)n, name);
        if (src) add_span(v, src, n, pf->is_float);
    }
    section_close(r, end, name);
}

static void get_emitter(wire_reader *r, emitter *e) {
    memset(e, 0, sizeof *e);
    e->alive = eddy_wire_get_bool(r, "emitter alive");
    e->generation = eddy_wire_get_u16(r, "emitter generation");
    if (!e->alive) return;
    eddy_codec_get_emitter_def(r, &e->def);
    e->vorton_remainder = eddy_wire_get_f32(r, "emitter vorton_remainder");
    e->tracer_remainder = eddy_wire_get_f32(r, "emitter tracer_remainder");
    e->pending_vortons = eddy_wire_get_i32(r, "emitter pending_vortons");
    e->pending_tracers = eddy_wire_get_i32(r, "emitter pending_tracers");
}

static bool emitter_finite(const emitter *e);

/* Checks every slot through a local; the commit decodes them again. */
static void get_emitters(wire_reader *r, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_EMITTERS, &end)) return;
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_SLOTS, 3, "emitter slot count");
    if (!wire_ok(r)) return;
    v->emitters_at = r->pos;
    v->emitter_count = (int)n;
    for (uint32_t i = 0; i < n && wire_ok(r); ++i) {
        emitter e;
        get_emitter(r, &e);
        if (wire_ok(r) && e.alive && !emitter_finite(&e))
            eddy_wire_fail(r, EDDY_ERROR_NAN, "emitter slot %u holds a NaN or infinite value",
                           (unsigned)i);
        /* lib/fluid/emit.c keeps each remainder in [0, 1): a larger one would
         * emit up to a million particles in the next step */
        if (wire_ok(r) && e.alive &&
            !(e.vorton_remainder >= 0.0f && e.vorton_remainder < 1.0f &&
              e.tracer_remainder >= 0.0f && e.tracer_remainder < 1.0f))
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                           "emitter slot %u has emission remainders %g and %g outside [0, 1)",
                           (unsigned)i, (double)e.vorton_remainder, (double)e.tracer_remainder);
    }
    section_close(r, end, "EMIT");
}

static void get_floats(wire_reader *r, float *out, int n, const char *field) {
    for (int i = 0; i < n; ++i) out[i] = eddy_wire_get_f32(r, field);
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

static void get_body_slot(wire_reader *r, body *b) {
    memset(b, 0, sizeof *b);
    b->alive = eddy_wire_get_bool(r, "body alive");
    b->generation = eddy_wire_get_u16(r, "body generation");
    if (b->alive) get_body(r, b);
}

static void check_body(wire_reader *r, const eddy_world *w, snap_view *v, int slot, body *b);

/* Checks every slot through a local; the commit decodes them again. */
static void get_bodies(wire_reader *r, const eddy_world *w, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_BODIES, &end)) return;
    uint32_t n = eddy_wire_get_count(r, SNAP_MAX_SLOTS, 3, "body slot count");
    if (!wire_ok(r)) return;
    v->bodies_at = r->pos;
    v->body_count = (int)n;
    for (uint32_t i = 0; i < n && wire_ok(r); ++i) {
        body b;
        get_body_slot(r, &b);
        if (wire_ok(r)) check_body(r, w, v, (int)i, &b);
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
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                       "grid of %d x %d x %d cells, %d x %d x %d points is not valid", g->cells[0],
                       g->cells[1], g->cells[2], g->points[0], g->points[1], g->points[2]);
}

/* A grid's shape, mollification and flow array (located, copied later). */
static void get_one_grid(wire_reader *r, snap_view *v, grid_shape *g, float *mollify,
                         const uint8_t **flow) {
    get_grid_shape(r, g);
    *mollify = eddy_wire_get_f32(r, "mollify");
    if (!wire_ok(r)) return;
    const size_t values = 4 * (size_t)grid_point_count(g);
    *flow = eddy_wire_get_bytes(r, 4 * values, "flow grid");
    if (*flow) add_span(v, *flow, values, true);
}

static void get_grid(wire_reader *r, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_GRID, &end)) return;
    v->grid_valid = eddy_wire_get_bool(r, "grid_valid");
    if (v->grid_valid) get_one_grid(r, v, &v->grid, &v->mollify, &v->flow);
    section_close(r, end, "GRID");
}

/* Optional: present only while the world has two or more grid islands
 * (snapshot_layout.h), whose definition allows them, and then the world's
 * own grid is not in use. */
static void get_islands(wire_reader *r, const eddy_world *w, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_ISLANDS, &end)) return;
    const uint32_t n = eddy_wire_get_u32(r, "island count");
    if (wire_ok(r) && (n < 2 || n > ISLANDS_MAX)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%u grid islands (2 to %d allowed)", (unsigned)n,
                       ISLANDS_MAX);
        return;
    }
    if (wire_ok(r) && (!eddy_islands_allowed(w) || v->grid_valid)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                       "grid islands in a snapshot whose %s",
                       v->grid_valid ? "own grid is in use" : "world's definition has none");
        return;
    }
    for (uint32_t k = 0; k < n && wire_ok(r); ++k) {
        v->island_valid[k] = eddy_wire_get_bool(r, "island grid_valid");
        if (v->island_valid[k])
            get_one_grid(r, v, &v->island_grid[k], &v->island_mollify[k], &v->island_flow[k]);
    }
    v->island_count = (int)n;
    section_close(r, end, "ISLE");
}

/* True when the next section's tag is `section`'s. */
static bool next_section_is(const wire_reader *r, const snap_view *v, int section) {
    return r->pos + 4 <= v->body_end && load_le32(r->data + r->pos) == k_sections[section];
}

/* Optional: present only while a blast is active (snapshot_layout.h). */
static void get_blasts(wire_reader *r, snap_view *v) {
    size_t end;
    if (!section_open(r, SEC_BLASTS, &end)) return;
    const uint32_t n = eddy_wire_get_u32(r, "blast count");
    if (wire_ok(r) && (n == 0 || n > EDDY_MAX_ACTIVE_BLASTS)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%u active blasts (1 to %d allowed)", (unsigned)n,
                       EDDY_MAX_ACTIVE_BLASTS);
        return;
    }
    for (uint32_t b = 0; b < n && wire_ok(r); ++b) {
        active_blast *a = &v->blasts[b];
        a->def.position = eddy_wire_get_vec3(r, "blast position");
        a->def.strength = eddy_wire_get_f32(r, "blast strength");
        a->def.duration = eddy_wire_get_f32(r, "blast duration");
        a->def.refill_duration = eddy_wire_get_f32(r, "blast refill_duration");
        a->def.radius = eddy_wire_get_f32(r, "blast radius");
        a->elapsed = eddy_wire_get_f32(r, "blast elapsed");
        if (wire_ok(r) && (!eddy_finite3(a->def.position) || !isfinite(a->def.strength) ||
                           !(a->def.duration > 0.0f) || !(a->def.refill_duration >= 0.0f) ||
                           !(a->def.radius > 0.0f) || !isfinite(a->elapsed) ||
                           !isfinite(a->def.duration) || !isfinite(a->def.refill_duration) ||
                           !isfinite(a->def.radius)))
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "blast %u has a field out of range", (unsigned)b);
    }
    v->blast_count = (int)n;
    section_close(r, end, "BLST");
}

/* ---------------------------------------------------------------- finiteness */
static bool all_finite(const float *f, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(f[i])) return false;
    return true;
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

static void report_non_finite(wire_reader *r, const snap_view *v, int piece,
                              const span_job *job) {
    int sp = 0;
    while (job->first_piece[sp + 1] <= piece) ++sp;
    const uint8_t *src = v->spans[sp].src;
    if (v->flow && src == v->flow)
        eddy_wire_fail(r, EDDY_ERROR_NAN, "the grid holds a NaN or infinite value");
    else
        eddy_wire_fail(r, EDDY_ERROR_NAN, "%s hold a NaN or infinite value",
                       v->particles[1] && src >= v->particles[1] ? "tracers" : "vortons");
}

static bool checksum_matches(const snap_view *v, uint64_t computed);
static void check_digest(wire_reader *r, const eddy_world *world, const snap_view *v);

/* The particle and flow arrays, piece by piece, in parallel (in batches, so
 * the pieces' flags live on the stack), with the checksum beside the first
 * batch. A checksum mismatch outranks a non-finite value. */
static void check_arrays(wire_reader *r, eddy_world *w, const snap_view *v) {
    span_job job;
    uint8_t flags[RESTORE_FLAG_BATCH];
    const int pieces = span_job_init(&job, v);
    job.flags = flags;
    int bad = -1;
    for (int first = 0; first == 0 || first < pieces; first += RESTORE_FLAG_BATCH) {
        const int n = pieces - first < RESTORE_FLAG_BATCH ? pieces - first : RESTORE_FLAG_BATCH;
        job.batch_first = first;
        job.checksum_data = first == 0 ? r->data : NULL;
        job.checksum_size = v->body_end;
        eddy_parallel_for(&w->tasks, n + (first == 0), 1, span_piece, &job);
        if (first == 0 && !checksum_matches(v, job.checksum)) {
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "checksum mismatch (the bytes were damaged)");
            return;
        }
        for (int p = 0; p < n && bad < 0; ++p)
            if (flags[p]) bad = first + p;
        if (bad >= 0) break;
    }
    check_digest(r, w, v);
    if (wire_ok(r) && bad >= 0) report_non_finite(r, v, bad, &job);
}

static bool grid_geometry_finite(const grid_shape *g, float mollify) {
    const float geometry[] = {g->min[0], g->min[1], g->min[2], g->extent[0], g->extent[1],
                              g->extent[2], g->spacing[0], g->spacing[1], g->spacing[2],
                              g->inv_spacing[0], g->inv_spacing[1], g->inv_spacing[2], mollify};
    return all_finite(geometry, sizeof geometry / sizeof geometry[0]);
}

static void check_grid_shape(wire_reader *r, const snap_view *v) {
    if (v->grid_valid && !grid_geometry_finite(&v->grid, v->mollify))
        eddy_wire_fail(r, EDDY_ERROR_NAN, "the grid holds a NaN or infinite value");
    for (int k = 0; k < v->island_count && wire_ok(r); ++k)
        if (v->island_valid[k] && !grid_geometry_finite(&v->island_grid[k], v->island_mollify[k]))
            eddy_wire_fail(r, EDDY_ERROR_NAN, "grid island %d holds a NaN or infinite value", k);
}

/* ---------------------------------------------------------------- bodies */
static bool float_bits_equal(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static bool shapes_equal(const eddy_shape *a, const eddy_shape *b) {
    if (a->type != b->type || a->hole != b->hole || !float_bits_equal(a->radius, b->radius) ||
        a->plane_count != b->plane_count)
        return false;
    for (int k = 0; k < a->plane_count; ++k) {
        const eddy_plane *p = &a->planes[k], *q = &b->planes[k];
        if (!float_bits_equal(p->normal.x, q->normal.x) ||
            !float_bits_equal(p->normal.y, q->normal.y) ||
            !float_bits_equal(p->normal.z, q->normal.z) || !float_bits_equal(p->offset, q->offset))
            return false;
    }
    return true;
}

/* The world's slot i holds a live body with the same shape as staged: its
 * vertices (derived from the shape alone) can be kept. */
static bool keeps_world_vertices(const eddy_world *w, int i, const body *staged) {
    return staged->alive && i < w->body_count && w->bodies[i].alive &&
           shapes_equal(&w->bodies[i].def.shape, &staged->def.shape);
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

/* Vertices built for slot's new shape, kept in v until the commit. */
static void hold_vertices(wire_reader *r, snap_view *v, int slot, body *b) {
    if (!v->vertices) {
        v->vertices = eddy_calloc((size_t)v->body_count, sizeof *v->vertices);
        v->vertex_counts = eddy_calloc((size_t)v->body_count, sizeof *v->vertex_counts);
    }
    if (!v->vertices || !v->vertex_counts) {
        eddy_free(b->vertices);
        oom(r, "the body vertices");
        return;
    }
    v->vertices[slot] = b->vertices;
    v->vertex_counts[slot] = b->vertex_count;
}

static void check_body(wire_reader *r, const eddy_world *w, snap_view *v, int slot, body *b) {
    if (!b->alive) return;
    if (!body_finite(b)) {
        eddy_wire_fail(r, EDDY_ERROR_NAN, "body slot %d holds a NaN or infinite value", slot);
        return;
    }
    if (keeps_world_vertices(w, slot, b)) return;
    char why[160];
    if (eddy_shape_validate(&b->def.shape, why, sizeof why) != EDDY_OK) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body slot %d: %s", slot, why);
        return;
    }
    body_derive(r, b);
    if (!wire_ok(r)) {
        eddy_free(b->vertices);
        return;
    }
    hold_vertices(r, v, slot, b);
}

/* ---------------------------------------------------------------- header */
static void get_header(wire_reader *r, snap_view *v) {
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
    v->digest = eddy_wire_get_u64(r, "definition digest");
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
    v->body_end = r->pos + (size_t)length;
    v->stored_checksum = 0;
    for (int i = 0; i < 8; ++i)
        v->stored_checksum |= (uint64_t)r->data[v->body_end + (size_t)i] << (8 * i);
}

static bool checksum_matches(const snap_view *v, uint64_t computed) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* let the fuzzer past the checksum */
    (void)v;
    (void)computed;
    return true;
#else
    return v->stored_checksum == computed;
#endif
}

static void check_digest(wire_reader *r, const eddy_world *world, const snap_view *v) {
    uint64_t mine;
    if (!eddy_codec_def_digest(&world->def, &mine)) {
        oom(r, "the definition digest");
        return;
    }
    if (v->digest != mine)
        eddy_wire_fail(r, EDDY_ERROR_INVALID_DEF,
                       "taken from a world with another physical definition (digest %016llx, this "
                       "world %016llx)", (unsigned long long)v->digest, (unsigned long long)mine);
}

/* Structure first, then checksum and array checks together. When the
 * structure is refused, damaged bytes are the likelier story: a checksum
 * mismatch is then reported instead. */
static void check_snapshot(wire_reader *r, eddy_world *w, snap_view *v) {
    get_header(r, v);
    if (!wire_ok(r)) return;
    get_globals(r, v);
    get_particles(r, v, &w->vortons, 0, "vortons");
    get_particles(r, v, &w->tracers, 1, "tracers");
    get_emitters(r, v);
    get_bodies(r, w, v);
    get_grid(r, v);
    if (wire_ok(r) && next_section_is(r, v, SEC_BLASTS)) get_blasts(r, v);
    if (wire_ok(r) && r->pos < v->body_end) get_islands(r, w, v);
    if (wire_ok(r) && r->pos != v->body_end)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%zu bytes after the last section",
                       v->body_end - r->pos);
    if (wire_ok(r)) check_grid_shape(r, v);
    if (!wire_ok(r)) {
        if (!checksum_matches(v, eddy_wire_xxh3(r->data, v->body_end))) {
            r->status = EDDY_OK;
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "checksum mismatch (the bytes were damaged)");
        }
        return;
    }
    check_arrays(r, w, v);
}

/* ================================================================ stage 2: reserve */
/* Each island's grid arrays, the island swapped in to grow them. */
static bool islands_reserve(eddy_world *w, const snap_view *v) {
    bool ok = true;
    for (int k = 0; k < v->island_count && ok; ++k) {
        if (!v->island_valid[k]) continue;
        eddy_island_swap(w, k);
        ok = eddy_grid_arrays_reserve(w, grid_point_count(&v->island_grid[k]));
        eddy_island_swap(w, k);
    }
    return ok;
}

static void reserve(wire_reader *r, eddy_world *w, const snap_view *v) {
    if (!eddy_particles_reserve_rewound(&w->vortons, v->particle_count[0]) ||
        !eddy_particles_reserve_rewound(&w->tracers, v->particle_count[1]))
        oom(r, "the world's particles");
    else if (v->grid_valid && !eddy_grid_arrays_reserve(w, grid_point_count(&v->grid)))
        oom(r, "the world's grid arrays");
    else if (!islands_reserve(w, v))
        oom(r, "the world's grid islands");
    else if (!grow_zeroed((void **)&w->emitters, &w->emitter_capacity, v->emitter_count,
                          sizeof(emitter)) ||
             !grow_zeroed((void **)&w->bodies, &w->body_capacity, v->body_count, sizeof(body)) ||
             !grow_zeroed((void **)&w->blasts, &w->blast_capacity, v->blast_count,
                          sizeof(active_blast)))
        oom(r, "the world's slots");
}

/* ================================================================ stage 3: commit */
/* Destinations of the spans, in the order check_snapshot located them. */
static void span_destinations(eddy_world *w, snap_view *v) {
    int s = 0;
    const particle_array *arrays[2] = {&w->vortons, &w->tracers};
    for (int which = 0; which < 2; ++which) {
        if (v->particle_count[which] == 0) continue;
        for (int f = 0; f < PARTICLE_FIELD_COUNT; ++f)
            if (particle_field_present(&k_particle_fields[f], arrays[which]))
                v->spans[s++].dst = particle_field_array(&k_particle_fields[f], arrays[which]);
    }
    if (v->flow) v->spans[s++].dst = w->flow;
    for (int k = 0; k < v->island_count; ++k)
        if (v->island_flow[k]) v->spans[s++].dst = w->islands[k].flow;
    EDDY_ASSERT(s == v->span_count);
    /* Test only: the bug synctest must catch, a restore that leaves a cache
     * of the newer state in place (the flow grid the next step reads). */
    if (v->flow && (w->tasks.mutations & EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID) != 0)
        v->spans[--s].words = 0;
}

/* Decodes the (checked) slots again, straight into the world. */
static void commit_emitters(eddy_world *w, const snap_view *v, wire_reader *r) {
    r->pos = v->emitters_at;
    for (int i = 0; i < v->emitter_count; ++i) get_emitter(r, &w->emitters[i]);
    w->emitter_count = v->emitter_count;
}

static void commit_bodies(eddy_world *w, snap_view *v, wire_reader *r) {
    r->pos = v->bodies_at;
    for (int i = 0; i < v->body_count; ++i) {
        body b;
        get_body_slot(r, &b);
        if (keeps_world_vertices(w, i, &b)) {
            b.vertices = w->bodies[i].vertices;
            b.vertex_count = w->bodies[i].vertex_count;
        } else {
            if (i < w->body_count) eddy_free(w->bodies[i].vertices);
            if (v->vertices) {
                b.vertices = v->vertices[i];
                b.vertex_count = v->vertex_counts[i];
                v->vertices[i] = NULL; /* now the world's */
            }
        }
        eddy_body_faces(&b); /* the faces' areas and centroids, from the vertices */
        w->bodies[i] = b;
    }
    for (int i = v->body_count; i < w->body_count; ++i) {
        eddy_free(w->bodies[i].vertices);
        w->bodies[i].vertices = NULL;
    }
    w->body_count = v->body_count;
}

static void commit(eddy_world *w, snap_view *v, wire_reader *r) {
    eddy_particles_rewind(&w->vortons); /* every particle slot is written below */
    eddy_particles_rewind(&w->tracers);
    span_destinations(w, v);
    span_job job;
    const int pieces = span_job_init(&job, v);
    if (pieces > 0) eddy_parallel_for(&w->tasks, pieces, 1, span_piece, &job);
    w->vortons.count = v->particle_count[0];
    w->tracers.count = v->particle_count[1];
    eddy_particles_births_rewritten(&w->vortons);
    eddy_particles_births_rewritten(&w->tracers);
    w->frame = v->frame;
    w->stepped = v->stepped;
    w->rng = v->rng;
    w->gravity = v->gravity;
    w->wind = v->wind;
    w->diagnostics = v->diagnostics;
    commit_emitters(w, v, r);
    commit_bodies(w, v, r);
    for (int b = 0; b < v->blast_count; ++b) w->blasts[b] = v->blasts[b];
    w->blast_count = v->blast_count;
    w->created_body_count = 0;
    w->created_emitter_count = 0;
    w->grid_valid = v->grid_valid;
    if (v->grid_valid) {
        w->grid = v->grid;
        w->mollify = v->mollify;
    }
    /* The islands' shapes and flows (their trees and the rest are rebuilt
     * by the next step before anything reads them). */
    w->island_count = v->island_count;
    for (int k = 0; k < v->island_count; ++k) {
        grid_island *s = &w->islands[k];
        s->grid_valid = v->island_valid[k];
        if (!s->grid_valid) continue;
        s->grid = v->island_grid[k];
        s->mollify = v->island_mollify[k];
    }
    /* Stable particle ids are not state and not in snapshots: renumbered
     * (include/eddy/view.h); reserve() sized their arrays with the others. */
    if (!eddy_particles_renumber_ids(&w->vortons) || !eddy_particles_renumber_ids(&w->tracers))
        oom(r, "particle ids");
    w->hash_valid = false;
    w->error[0] = '\0'; /* a restored state is whole again, even after a failed step */
    w->needs_restore = false;
}

/* Vertices built for new shapes and not handed to the world. */
static void drop_held_vertices(snap_view *v) {
    if (v->vertices)
        for (int i = 0; i < v->body_count; ++i) eddy_free(v->vertices[i]);
    eddy_free(v->vertices);
    eddy_free(v->vertex_counts);
}

static eddy_status restore_held(eddy_world *world, const void *data, size_t size, char *message,
                                size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "snapshot", message, message_size);
    if (!world || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "world or data is NULL");
        return r.status;
    }
    snap_view v;
    memset(&v, 0, sizeof v);
    check_snapshot(&r, world, &v);
    if (wire_ok(&r)) reserve(&r, world, &v);
    if (wire_ok(&r)) commit(world, &v, &r);
    drop_held_vertices(&v);
    return r.status;
}

/* Held against overlapping calls (core/core.h, eddy_world_enter). */
eddy_status eddy_world_restore(eddy_world *world, const void *data, size_t size, char *message,
                               size_t message_size) {
    if (world && !eddy_world_enter(world, "eddy_world_restore")) {
        if (message && message_size > 0) snprintf(message, message_size, "%s", eddy_thread_error);
        return EDDY_ERROR_WRONG_STATE;
    }
    const eddy_status s = restore_held(world, data, size, message, message_size);
    if (world && s == EDDY_OK) world->state_counter += 1; /* views and caches are stale */
    if (world) eddy_world_leave(world);
    return s;
}
