/* SPDX-License-Identifier: MIT */
/* Wire encodings: byte buffers, the physical world definition and the
 * per-frame input (normative description: docs/snapshot-format.md).
 *
 * Design notes.
 * - Field by field, little-endian, whatever the host; never a struct image.
 *   Floats are their IEEE-754 bit patterns, so an encoded value decodes to
 *   the same bits (-0.0, denormals and NaN payloads included).
 * - Canonical: one value has one encoding. Fields that a command type does
 *   not use are not written (and decode as zero), gravity and wind only when
 *   their flag is set, bools are one byte 0 or 1. Two inputs that the world
 *   treats the same encode to the same bytes, which keeps replays small and
 *   lets tests compare encodings.
 * - Decoding never trusts a count: counts are bounded and must fit in the
 *   remaining bytes before anything is allocated; unknown enum values, bad
 *   bools and trailing bytes are errors with a message naming the field.
 *   Decoding checks structure only; whether a decoded input is acceptable to
 *   a given world is eddy_world_step's business, as for any input.
 * - The definition encoding carries the physical fields only (threading,
 *   hashing and test switches are not physics: a replay plays at any worker
 *   count). Its XXH3-64 digest is how a snapshot recognises its world. */
#include "state/codec.h"
#include "hash/xxh3.h"

#include <stdio.h>
#include <stdlib.h>

/* runtime/runtime.h: 1 on known little-endian hosts, else the portable path */
#define WIRE_HOST_LITTLE_ENDIAN EDDY_HOST_LITTLE_ENDIAN

/* ---------------------------------------------------------------- bytes */
void eddy_bytes_free(eddy_bytes *bytes) {
    if (!bytes) return;
    eddy_free(bytes->data);
    bytes->data = NULL;
    bytes->size = 0;
    bytes->capacity = 0;
}

uint64_t eddy_wire_xxh3(const void *data, size_t size) { return eddy_xxh3(data, size); }

/* ---------------------------------------------------------------- writer */
void eddy_wire_writer_init(wire_writer *w, eddy_bytes *out) {
    w->out = out;
    w->failed = false;
}

eddy_status eddy_wire_writer_status(const wire_writer *w) {
    return w->failed ? EDDY_ERROR_OUT_OF_MEMORY : EDDY_OK;
}

bool eddy_wire_reserve(wire_writer *w, size_t extra) {
    if (w->failed) return false;
    eddy_bytes *b = w->out;
    if (extra <= b->capacity - b->size) return true;
    if (extra > SIZE_MAX / 2 - b->size) {
        w->failed = true;
        return false;
    }
    size_t cap = b->capacity < 256 ? 256 : b->capacity;
    while (cap - b->size < extra) cap *= 2;
    uint8_t *p = eddy_realloc(b->data, cap);
    if (!p) {
        w->failed = true;
        return false;
    }
    b->data = p;
    b->capacity = cap;
    return true;
}

void eddy_wire_put_bytes(wire_writer *w, const void *bytes, size_t n) {
    if (n == 0 || !eddy_wire_reserve(w, n)) return;
    memcpy(w->out->data + w->out->size, bytes, n);
    w->out->size += n;
}

static void put_le(wire_writer *w, uint64_t v, int n) {
    uint8_t b[8];
    for (int i = 0; i < n; ++i) b[i] = (uint8_t)(v >> (8 * i));
    eddy_wire_put_bytes(w, b, (size_t)n);
}

void eddy_wire_put_u8(wire_writer *w, uint8_t v) { eddy_wire_put_bytes(w, &v, 1); }
void eddy_wire_put_u16(wire_writer *w, uint16_t v) { put_le(w, v, 2); }
void eddy_wire_put_u32(wire_writer *w, uint32_t v) { put_le(w, v, 4); }
void eddy_wire_put_u64(wire_writer *w, uint64_t v) { put_le(w, v, 8); }
void eddy_wire_put_i32(wire_writer *w, int32_t v) { put_le(w, (uint32_t)v, 4); }
void eddy_wire_put_i64(wire_writer *w, int64_t v) { put_le(w, (uint64_t)v, 8); }
void eddy_wire_put_bool(wire_writer *w, bool v) { eddy_wire_put_u8(w, v ? 1u : 0u); }

void eddy_wire_put_f32(wire_writer *w, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    eddy_wire_put_u32(w, bits);
}

void eddy_wire_put_f64(wire_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    eddy_wire_put_u64(w, bits);
}

void eddy_wire_put_vec3(wire_writer *w, eddy_vec3 v) {
    eddy_wire_put_f32(w, v.x);
    eddy_wire_put_f32(w, v.y);
    eddy_wire_put_f32(w, v.z);
}

void eddy_wire_store_words32(uint8_t *dst, const void *words, size_t n) {
#if WIRE_HOST_LITTLE_ENDIAN
    if (n > 0) memcpy(dst, words, 4 * n);
#else
    const uint8_t *src = words;
    for (size_t i = 0; i < n; ++i) {
        uint32_t v;
        memcpy(&v, src + 4 * i, 4);
        for (int b = 0; b < 4; ++b) dst[4 * i + (size_t)b] = (uint8_t)(v >> (8 * b));
    }
#endif
}

size_t eddy_wire_put_room32(wire_writer *w, size_t n) {
    if (n > SIZE_MAX / 4) w->failed = true;
    if (w->failed || !eddy_wire_reserve(w, 4 * n)) return SIZE_MAX;
    const size_t at = w->out->size;
    w->out->size += 4 * n;
    return at;
}

void eddy_wire_put_words32(wire_writer *w, const void *words, size_t n) {
    if (n == 0) return;
    const size_t at = eddy_wire_put_room32(w, n);
    if (at != SIZE_MAX) eddy_wire_store_words32(w->out->data + at, words, n);
}

void eddy_wire_patch_u64(wire_writer *w, size_t offset, uint64_t v) {
    if (w->failed || offset > w->out->size || w->out->size - offset < 8) return;
    for (int i = 0; i < 8; ++i) w->out->data[offset + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* ---------------------------------------------------------------- reader */
void eddy_wire_reader_init(wire_reader *r, const void *data, size_t size, const char *what,
                      char *message, size_t message_size) {
    r->data = data;
    r->size = data ? size : 0;
    r->pos = 0;
    r->status = EDDY_OK;
    r->what = what;
    r->message = message;
    r->message_size = message_size;
    if (message && message_size) message[0] = '\0';
}

void eddy_wire_fail(wire_reader *r, eddy_status status, const char *fmt, ...) {
    if (r->status != EDDY_OK) return;
    r->status = status;
    if (!r->message || r->message_size == 0) return;
    int n = snprintf(r->message, r->message_size, "%s: ", r->what);
    if (n < 0 || (size_t)n >= r->message_size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + n, r->message_size - (size_t)n, fmt, ap);
    va_end(ap);
}

bool eddy_wire_need(wire_reader *r, size_t n, const char *field) {
    if (r->status != EDDY_OK) return false;
    if (n <= r->size - r->pos) return true;
    eddy_wire_fail(r, EDDY_ERROR_TRUNCATED, "ends early at byte %zu of %zu while reading %s (%zu bytes)",
              r->pos, r->size, field, n);
    return false;
}

const uint8_t *eddy_wire_get_bytes(wire_reader *r, size_t n, const char *field) {
    if (!eddy_wire_need(r, n, field)) return NULL;
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

static uint64_t get_le(wire_reader *r, int n, const char *field) {
    const uint8_t *p = eddy_wire_get_bytes(r, (size_t)n, field);
    if (!p) return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t eddy_wire_get_u8(wire_reader *r, const char *field) { return (uint8_t)get_le(r, 1, field); }
uint16_t eddy_wire_get_u16(wire_reader *r, const char *field) { return (uint16_t)get_le(r, 2, field); }
uint32_t eddy_wire_get_u32(wire_reader *r, const char *field) { return (uint32_t)get_le(r, 4, field); }
uint64_t eddy_wire_get_u64(wire_reader *r, const char *field) { return get_le(r, 8, field); }
int32_t eddy_wire_get_i32(wire_reader *r, const char *field) {
    return (int32_t)(uint32_t)get_le(r, 4, field);
}
int64_t eddy_wire_get_i64(wire_reader *r, const char *field) { return (int64_t)get_le(r, 8, field); }

float eddy_wire_get_f32(wire_reader *r, const char *field) {
    uint32_t bits = eddy_wire_get_u32(r, field);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double eddy_wire_get_f64(wire_reader *r, const char *field) {
    uint64_t bits = eddy_wire_get_u64(r, field);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

bool eddy_wire_get_bool(wire_reader *r, const char *field) {
    size_t at = r->pos;
    uint8_t v = eddy_wire_get_u8(r, field);
    if (v > 1) eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%s at byte %zu is %u, a bool must be 0 or 1",
                         field, at, (unsigned)v);
    return v == 1;
}

eddy_vec3 eddy_wire_get_vec3(wire_reader *r, const char *field) {
    eddy_vec3 v;
    v.x = eddy_wire_get_f32(r, field);
    v.y = eddy_wire_get_f32(r, field);
    v.z = eddy_wire_get_f32(r, field);
    return v;
}

void eddy_wire_get_words32(wire_reader *r, void *words, size_t n, const char *field) {
    if (n == 0) return;
    if (n > SIZE_MAX / 4 || !eddy_wire_need(r, 4 * n, field)) return;
#if WIRE_HOST_LITTLE_ENDIAN
    memcpy(words, r->data + r->pos, 4 * n);
    r->pos += 4 * n;
#else
    uint8_t *dst = words;
    for (size_t i = 0; i < n; ++i) {
        uint32_t v = eddy_wire_get_u32(r, field);
        memcpy(dst + 4 * i, &v, 4);
    }
#endif
}

uint32_t eddy_wire_get_count(wire_reader *r, uint32_t max, size_t min_bytes, const char *field) {
    size_t at = r->pos;
    uint32_t n = eddy_wire_get_u32(r, field);
    if (!wire_ok(r)) return 0;
    if (n > max) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "%s at byte %zu is %u, the limit is %u", field, at,
                  (unsigned)n, (unsigned)max);
        return 0;
    }
    if (min_bytes > 0 && (size_t)n > wire_remaining(r) / min_bytes) {
        eddy_wire_fail(r, EDDY_ERROR_TRUNCATED,
                  "%s at byte %zu is %u, but only %zu bytes follow (%zu per element)", field, at,
                  (unsigned)n, wire_remaining(r), min_bytes);
        return 0;
    }
    return n;
}

/* ---------------------------------------------------------------- world def */
static const uint8_t def_magic[4] = {'E', 'D', 'E', 'F'};
/* Version 1 (125 bytes) is the layout from before the treecode had a choice
 * of traversal: it means EDDY_TREECODE_ORIGINAL, and a definition with that
 * traversal is still written as version 1, so its bytes and digest are those
 * of older builds. Version 2 (133 bytes): version 1's fields, then
 * treecode_traversal (u32) and treecode_opening_angle (f32). Version 3 (137
 * bytes): version 2's, then vorton_step (u32). Version 4 (145 bytes):
 * version 3's, then diffusion (u32) and body_coupling (u32). Each
 * definition is written in the oldest version that holds it: 4 for a
 * diffusion other than the seed's or a body coupling other than the seed's,
 * 3 only for a step other than Euler's, so every definition older builds
 * could write keeps its bytes and digest; versions 1 to 3 decode as
 * EDDY_DIFFUSION_SEED and EDDY_BODY_COUPLING_TRACERS, what the builds that
 * wrote them ran. Version 5 (149 bytes): version 4's, then grid_extent
 * (u32), written for a grid from the vortons (the default); versions 1 to 4
 * predate the choice and decode to EDDY_GRID_EXTENT_ALL_PARTICLES, the grid
 * they were stepped with. Version 6 (153 bytes): version 5's, then
 * vorticity_alignment (f32), written only for a non-zero alignment; versions
 * 1 to 5 decode to 0, the step they were stepped with. */
enum {
    DEF_ENCODED_SIZE_V1 = 125,
    DEF_ENCODED_SIZE_V2 = 133,
    DEF_ENCODED_SIZE_V3 = 137,
    DEF_ENCODED_SIZE_V4 = 145,
    DEF_ENCODED_SIZE_V5 = 149,
    DEF_ENCODED_SIZE_V6 = 153,
    DEF_VERSION_LEGACY = 1,
    DEF_VERSION_TRAVERSAL = 2,
    DEF_VERSION_STEP = 3,
    DEF_VERSION_FLOW = 4,
    DEF_VERSION_GRID = 5
};

static uint32_t def_version_of(const eddy_world_def *d) {
    if (d->vorticity_alignment != 0.0f) return EDDY_DEF_ENCODING_VERSION;
    if (d->grid_extent != EDDY_GRID_EXTENT_ALL_PARTICLES) return DEF_VERSION_GRID;
    if (d->diffusion != EDDY_DIFFUSION_SEED || d->body_coupling != EDDY_BODY_COUPLING_TRACERS)
        return DEF_VERSION_FLOW;
    if (d->vorton_step != EDDY_VORTON_STEP_EULER) return DEF_VERSION_STEP;
    return d->treecode_traversal == EDDY_TREECODE_ORIGINAL ? DEF_VERSION_LEGACY
                                                           : DEF_VERSION_TRAVERSAL;
}


static void put_def_fields(wire_writer *w, const eddy_world_def *d) {
    eddy_wire_put_f32(w, d->dt);
    eddy_wire_put_i32(w, d->substeps);
    eddy_wire_put_f32(w, d->viscosity);
    eddy_wire_put_f32(w, d->vorticity_dissipation);
    eddy_wire_put_f32(w, d->density_diffusivity);
    eddy_wire_put_f32(w, d->density_relaxation);
    eddy_wire_put_f32(w, d->ambient_density);
    eddy_wire_put_vec3(w, d->gravity);
    eddy_wire_put_vec3(w, d->wind);
    eddy_wire_put_f32(w, d->stretch_gain);
    eddy_wire_put_f32(w, d->mollify_length_scale);
    eddy_wire_put_u32(w, (uint32_t)d->velocity_method);
    eddy_wire_put_f32(w, d->vorton_radius);
    eddy_wire_put_f32(w, d->tracer_radius);
    eddy_wire_put_i32(w, d->vorton_max_age);
    eddy_wire_put_i32(w, d->tracer_max_age);
    eddy_wire_put_u64(w, d->seed);
    eddy_wire_put_f32(w, d->ambient_temperature);
    eddy_wire_put_f32(w, d->fluid_specific_heat);
    eddy_wire_put_f32(w, d->boundary_thickness);
    eddy_wire_put_f32(w, d->shedding_gain);
    eddy_wire_put_f32(w, d->spin_gain);
    eddy_wire_put_f32(w, d->tracer_restitution);
    eddy_wire_put_u32(w, (uint32_t)d->wall_poisoning);
    eddy_wire_put_bool(w, d->flush_denormals);
    if (def_version_of(d) == DEF_VERSION_LEGACY) return;
    eddy_wire_put_u32(w, (uint32_t)d->treecode_traversal);
    eddy_wire_put_f32(w, d->treecode_opening_angle);
    if (def_version_of(d) == DEF_VERSION_TRAVERSAL) return;
    eddy_wire_put_u32(w, (uint32_t)d->vorton_step);
    if (def_version_of(d) == DEF_VERSION_STEP) return;
    eddy_wire_put_u32(w, (uint32_t)d->diffusion);
    eddy_wire_put_u32(w, (uint32_t)d->body_coupling);
    if (def_version_of(d) == DEF_VERSION_FLOW) return;
    eddy_wire_put_u32(w, (uint32_t)d->grid_extent);
    if (def_version_of(d) == DEF_VERSION_GRID) return;
    eddy_wire_put_f32(w, d->vorticity_alignment);
}

eddy_status eddy_world_def_encode(const eddy_world_def *def, eddy_bytes *out) {
    if (!def || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    size_t start = out->size;
    eddy_wire_put_bytes(&w, def_magic, sizeof def_magic);
    const uint32_t version = def_version_of(def);
    eddy_wire_put_u32(&w, version);
    put_def_fields(&w, def);
    EDDY_DEBUG_ASSERT(w.failed ||
                      out->size - start == (version == DEF_VERSION_LEGACY      ? DEF_ENCODED_SIZE_V1
                                            : version == DEF_VERSION_TRAVERSAL ? DEF_ENCODED_SIZE_V2
                                            : version == DEF_VERSION_STEP      ? DEF_ENCODED_SIZE_V3
                                            : version == DEF_VERSION_FLOW      ? DEF_ENCODED_SIZE_V4
                                            : version == DEF_VERSION_GRID      ? DEF_ENCODED_SIZE_V5
                                                                               : DEF_ENCODED_SIZE_V6));
    (void)start;
    return eddy_wire_writer_status(&w);
}

/* Enums are read as u32 and range-checked before the cast: a value outside
 * the enum never lands in an enum-typed field. */
static void get_def_fields(wire_reader *r, eddy_world_def *d, uint32_t version) {
    d->dt = eddy_wire_get_f32(r, "dt");
    d->substeps = eddy_wire_get_i32(r, "substeps");
    d->viscosity = eddy_wire_get_f32(r, "viscosity");
    d->vorticity_dissipation = eddy_wire_get_f32(r, "vorticity_dissipation");
    d->density_diffusivity = eddy_wire_get_f32(r, "density_diffusivity");
    d->density_relaxation = eddy_wire_get_f32(r, "density_relaxation");
    d->ambient_density = eddy_wire_get_f32(r, "ambient_density");
    d->gravity = eddy_wire_get_vec3(r, "gravity");
    d->wind = eddy_wire_get_vec3(r, "wind");
    d->stretch_gain = eddy_wire_get_f32(r, "stretch_gain");
    d->mollify_length_scale = eddy_wire_get_f32(r, "mollify_length_scale");
    uint32_t method = eddy_wire_get_u32(r, "velocity_method");
    if (method > EDDY_VELOCITY_TREECODE_VORTONS)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "velocity_method %u is not an eddy_velocity_method",
                  (unsigned)method);
    else d->velocity_method = (eddy_velocity_method)method;
    d->vorton_radius = eddy_wire_get_f32(r, "vorton_radius");
    d->tracer_radius = eddy_wire_get_f32(r, "tracer_radius");
    d->vorton_max_age = eddy_wire_get_i32(r, "vorton_max_age");
    d->tracer_max_age = eddy_wire_get_i32(r, "tracer_max_age");
    d->seed = eddy_wire_get_u64(r, "seed");
    d->ambient_temperature = eddy_wire_get_f32(r, "ambient_temperature");
    d->fluid_specific_heat = eddy_wire_get_f32(r, "fluid_specific_heat");
    d->boundary_thickness = eddy_wire_get_f32(r, "boundary_thickness");
    d->shedding_gain = eddy_wire_get_f32(r, "shedding_gain");
    d->spin_gain = eddy_wire_get_f32(r, "spin_gain");
    d->tracer_restitution = eddy_wire_get_f32(r, "tracer_restitution");
    uint32_t poison = eddy_wire_get_u32(r, "wall_poisoning");
    if (poison > EDDY_WALL_POISON_VORTON_HITS)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "wall_poisoning %u is not an eddy_wall_poisoning",
                  (unsigned)poison);
    else d->wall_poisoning = (eddy_wall_poisoning)poison;
    d->flush_denormals = eddy_wire_get_bool(r, "flush_denormals");
    d->vorton_step = EDDY_VORTON_STEP_EULER;
    /* definitions before version 4 ran the seed's exchanges */
    d->diffusion = EDDY_DIFFUSION_SEED;
    d->body_coupling = EDDY_BODY_COUPLING_TRACERS;
    d->grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES;
    d->vorticity_alignment = 0.0f; /* before version 6: no alignment */
    if (version == DEF_VERSION_LEGACY) {
        d->treecode_traversal = EDDY_TREECODE_ORIGINAL;
        d->treecode_opening_angle = EDDY_TREECODE_DEFAULT_OPENING_ANGLE;
        return;
    }
    uint32_t traversal = eddy_wire_get_u32(r, "treecode_traversal");
    if (traversal > EDDY_TREECODE_ORIGINAL)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                  "treecode_traversal %u is not an eddy_treecode_traversal", (unsigned)traversal);
    else d->treecode_traversal = (eddy_treecode_traversal)traversal;
    d->treecode_opening_angle = eddy_wire_get_f32(r, "treecode_opening_angle");
    if (version == DEF_VERSION_TRAVERSAL) return;
    uint32_t step = eddy_wire_get_u32(r, "vorton_step");
    if (step > EDDY_VORTON_STEP_HEUN_ADAPTIVE)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "vorton_step %u is not an eddy_vorton_step",
                  (unsigned)step);
    else d->vorton_step = (eddy_vorton_step)step;
    if (version == DEF_VERSION_STEP) return;
    uint32_t diffusion = eddy_wire_get_u32(r, "diffusion");
    if (diffusion > EDDY_DIFFUSION_SEED)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "diffusion %u is not an eddy_diffusion",
                  (unsigned)diffusion);
    else d->diffusion = (eddy_diffusion)diffusion;
    uint32_t coupling = eddy_wire_get_u32(r, "body_coupling");
    if (coupling > EDDY_BODY_COUPLING_TRACERS)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body_coupling %u is not an eddy_body_coupling",
                  (unsigned)coupling);
    else d->body_coupling = (eddy_body_coupling)coupling;
    if (version == DEF_VERSION_FLOW) return;
    uint32_t extent = eddy_wire_get_u32(r, "grid_extent");
    if (extent > EDDY_GRID_EXTENT_VORTONS_CUBIC)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "grid_extent %u is not an eddy_grid_extent",
                  (unsigned)extent);
    else d->grid_extent = (eddy_grid_extent)extent;
    if (version == DEF_VERSION_GRID) return;
    d->vorticity_alignment = eddy_wire_get_f32(r, "vorticity_alignment");
}

static uint32_t get_def_header(wire_reader *r) {
    const uint8_t *magic = eddy_wire_get_bytes(r, sizeof def_magic, "magic");
    if (magic && memcmp(magic, def_magic, sizeof def_magic) != 0) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "bad magic (not an eddy world definition)");
        return 0;
    }
    uint32_t version = eddy_wire_get_u32(r, "version");
    if (wire_ok(r) && (version < DEF_VERSION_LEGACY || version > EDDY_DEF_ENCODING_VERSION))
        eddy_wire_fail(r, EDDY_ERROR_VERSION,
                  "encoding version %u, this build reads versions %d to %d", (unsigned)version,
                  DEF_VERSION_LEGACY, EDDY_DEF_ENCODING_VERSION);
    return version;
}

eddy_status eddy_world_def_decode(const void *data, size_t size, eddy_world_def *def,
                                  char *message, size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "world definition", message, message_size);
    if (!def || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "def or data is NULL");
        return r.status;
    }
    eddy_world_def d = *def; /* keeps the caller's threading fields */
    const uint32_t version = get_def_header(&r);
    if (wire_ok(&r)) get_def_fields(&r, &d, version);
    if (wire_ok(&r) && wire_remaining(&r) != 0)
        eddy_wire_fail(&r, EDDY_ERROR_CORRUPT, "%zu unexpected bytes after the last field",
                  wire_remaining(&r));
    /* canonical: every build writes a definition in the oldest version that
     * holds it, so one written in a newer version was not written by eddy
     * (and would re-encode to other bytes) */
    if (wire_ok(&r) && def_version_of(&d) != version)
        eddy_wire_fail(&r, EDDY_ERROR_CORRUPT,
                  "a version %u definition whose fields version %u holds (eddy writes each "
                  "definition in the oldest version that holds it)",
                  (unsigned)version, (unsigned)def_version_of(&d));
    if (!wire_ok(&r)) return r.status;
    char why[200];
    eddy_status s = eddy_world_def_validate(&d, why, sizeof why);
    if (s != EDDY_OK) {
        eddy_wire_fail(&r, s, "decoded definition is invalid: %s", why);
        return r.status;
    }
    *def = d;
    return EDDY_OK;
}

/* Encoded on the stack: snapshots and restores take this digest every time,
 * and a restore into a world with the capacity allocates nothing. */
bool eddy_codec_def_digest(const eddy_world_def *def, uint64_t *digest) {
    uint8_t stack[2 * DEF_ENCODED_SIZE_V3];
    eddy_bytes b = {stack, 0, sizeof stack};
    bool ok = eddy_world_def_encode(def, &b) == EDDY_OK;
    if (ok) *digest = eddy_wire_xxh3(b.data, b.size);
    if (b.data != stack) eddy_bytes_free(&b); /* never: the encoding is at most 133 bytes */
    return ok;
}

/* ---------------------------------------------------------------- shared pieces */
void eddy_codec_put_emitter_def(wire_writer *w, const eddy_emitter_def *d) {
    eddy_wire_put_vec3(w, d->position);
    eddy_wire_put_vec3(w, d->position_spread);
    eddy_wire_put_vec3(w, d->velocity);
    eddy_wire_put_vec3(w, d->vorticity);
    eddy_wire_put_vec3(w, d->vorticity_spread);
    eddy_wire_put_f32(w, d->density_deviation);
    eddy_wire_put_f32(w, d->vorton_rate);
    eddy_wire_put_f32(w, d->tracer_rate);
    eddy_wire_put_bool(w, d->enabled);
}

void eddy_codec_get_emitter_def(wire_reader *r, eddy_emitter_def *d) {
    memset(d, 0, sizeof *d);
    d->position = eddy_wire_get_vec3(r, "emitter position");
    d->position_spread = eddy_wire_get_vec3(r, "emitter position_spread");
    d->velocity = eddy_wire_get_vec3(r, "emitter velocity");
    d->vorticity = eddy_wire_get_vec3(r, "emitter vorticity");
    d->vorticity_spread = eddy_wire_get_vec3(r, "emitter vorticity_spread");
    d->density_deviation = eddy_wire_get_f32(r, "emitter density_deviation");
    d->vorton_rate = eddy_wire_get_f32(r, "emitter vorton_rate");
    d->tracer_rate = eddy_wire_get_f32(r, "emitter tracer_rate");
    d->enabled = eddy_wire_get_bool(r, "emitter enabled");
}

static void put_quat(wire_writer *w, eddy_quat q) {
    eddy_wire_put_f32(w, q.x);
    eddy_wire_put_f32(w, q.y);
    eddy_wire_put_f32(w, q.z);
    eddy_wire_put_f32(w, q.w);
}

static eddy_quat get_quat(wire_reader *r, const char *field) {
    eddy_quat q;
    q.x = eddy_wire_get_f32(r, field);
    q.y = eddy_wire_get_f32(r, field);
    q.z = eddy_wire_get_f32(r, field);
    q.w = eddy_wire_get_f32(r, field);
    return q;
}

/* Shape: type, then radius (sphere) or plane count and planes (polytope),
 * then the hole flag. */
static bool put_shape(wire_writer *w, const eddy_shape *s) {
    eddy_wire_put_u8(w, (uint8_t)s->type);
    switch (s->type) {
    case EDDY_SHAPE_SPHERE:
        eddy_wire_put_f32(w, s->radius);
        break;
    case EDDY_SHAPE_POLYTOPE:
        if (s->plane_count < 0 || s->plane_count > EDDY_MAX_PLANES) return false;
        eddy_wire_put_u8(w, (uint8_t)s->plane_count);
        for (int k = 0; k < s->plane_count; ++k) {
            eddy_wire_put_vec3(w, s->planes[k].normal);
            eddy_wire_put_f32(w, s->planes[k].offset);
        }
        break;
    default:
        return false;
    }
    eddy_wire_put_bool(w, s->hole);
    return true;
}

static void get_shape(wire_reader *r, eddy_shape *s) {
    memset(s, 0, sizeof *s);
    uint8_t type = eddy_wire_get_u8(r, "shape type");
    if (type == EDDY_SHAPE_SPHERE) {
        s->type = EDDY_SHAPE_SPHERE;
        s->radius = eddy_wire_get_f32(r, "shape radius");
    } else if (type == EDDY_SHAPE_POLYTOPE) {
        s->type = EDDY_SHAPE_POLYTOPE;
        uint8_t n = eddy_wire_get_u8(r, "shape plane_count");
        if (n > EDDY_MAX_PLANES) {
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "shape plane_count %u exceeds %d", (unsigned)n,
                      EDDY_MAX_PLANES);
            return;
        }
        s->plane_count = n;
        for (int k = 0; k < n; ++k) {
            s->planes[k].normal = eddy_wire_get_vec3(r, "plane normal");
            s->planes[k].offset = eddy_wire_get_f32(r, "plane offset");
        }
    } else if (wire_ok(r)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "shape type %u is not an eddy_shape_type", (unsigned)type);
        return;
    }
    s->hole = eddy_wire_get_bool(r, "shape hole");
}

enum { BODY_GRAVITY = 1u, BODY_MATERIAL = 2u }; /* a body definition's flags byte */

bool eddy_codec_put_body_def(wire_writer *w, const eddy_body_def *d) {
    if (d->type != EDDY_BODY_DYNAMIC && d->type != EDDY_BODY_KINEMATIC &&
        d->type != EDDY_BODY_EXTERNAL)
        return false;
    eddy_wire_put_u8(w, (uint8_t)d->type);
    if (!put_shape(w, &d->shape)) return false;
    eddy_wire_put_vec3(w, d->position);
    put_quat(w, d->orientation);
    eddy_wire_put_vec3(w, d->linear_velocity);
    eddy_wire_put_vec3(w, d->angular_velocity);
    eddy_wire_put_f32(w, d->mass);
    eddy_wire_put_f32(w, d->temperature);
    eddy_wire_put_f32(w, d->heat_capacity);
    eddy_wire_put_f32(w, d->thermal_conductivity);
    /* Bit 0: gravity. Bit 1: friction and restitution follow, written only
     * when they are not the defaults, so every other body keeps the bytes
     * (and digests) of builds without them; those builds refuse bit 1 as a
     * bool that is not 0 or 1. */
    const eddy_body_def base = eddy_body_def_default();
    const bool material = memcmp(&d->friction, &base.friction, sizeof d->friction) != 0 ||
                          memcmp(&d->restitution, &base.restitution, sizeof d->restitution) != 0;
    eddy_wire_put_u8(w, (uint8_t)((d->gravity ? BODY_GRAVITY : 0u) | (material ? BODY_MATERIAL : 0u)));
    if (material) {
        eddy_wire_put_f32(w, d->friction);
        eddy_wire_put_f32(w, d->restitution);
    }
    return true;
}

/* Starts from eddy_body_def_default() so the decoded def carries the
 * initialisation cookie the world checks. */
void eddy_codec_get_body_def(wire_reader *r, eddy_body_def *d) {
    *d = eddy_body_def_default();
    uint8_t type = eddy_wire_get_u8(r, "body type");
    if (type > EDDY_BODY_EXTERNAL && wire_ok(r))
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body type %u is not an eddy_body_type", (unsigned)type);
    d->type = type == EDDY_BODY_KINEMATIC  ? EDDY_BODY_KINEMATIC
              : type == EDDY_BODY_EXTERNAL ? EDDY_BODY_EXTERNAL
                                           : EDDY_BODY_DYNAMIC;
    get_shape(r, &d->shape);
    d->position = eddy_wire_get_vec3(r, "body position");
    d->orientation = get_quat(r, "body orientation");
    d->linear_velocity = eddy_wire_get_vec3(r, "body linear_velocity");
    d->angular_velocity = eddy_wire_get_vec3(r, "body angular_velocity");
    d->mass = eddy_wire_get_f32(r, "body mass");
    d->temperature = eddy_wire_get_f32(r, "body temperature");
    d->heat_capacity = eddy_wire_get_f32(r, "body heat_capacity");
    d->thermal_conductivity = eddy_wire_get_f32(r, "body thermal_conductivity");
    const size_t at = r->pos;
    const uint8_t flags = eddy_wire_get_u8(r, "body gravity");
    if (flags > (BODY_GRAVITY | BODY_MATERIAL) && wire_ok(r))
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body gravity at byte %zu is %u, flags must be 0 to 3",
                       at, (unsigned)flags);
    d->gravity = (flags & BODY_GRAVITY) != 0;
    if (flags & BODY_MATERIAL) {
        d->friction = eddy_wire_get_f32(r, "body friction");
        d->restitution = eddy_wire_get_f32(r, "body restitution");
        if (wire_ok(r) && !(d->friction >= 0.0f && d->friction <= EDDY_MAX_FRICTION &&
                            d->restitution >= 0.0f && d->restitution <= 1.0f))
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                           "body friction %g or restitution %g is outside [0, %g] or [0, 1]",
                           (double)d->friction, (double)d->restitution, (double)EDDY_MAX_FRICTION);
    }
}

/* ---------------------------------------------------------------- input */
enum {
    INPUT_MAX_COMMANDS = 1 << 16,
    COMMAND_MIN_BYTES = 7, /* type u8, index1 i32, generation u16 */
    INPUT_KNOWN_FLAGS = EDDY_INPUT_SET_GRAVITY | EDDY_INPUT_SET_WIND,
};

static bool put_emitter_command(wire_writer *w, const eddy_emitter_command *c) {
    eddy_wire_put_u8(w, (uint8_t)c->type);
    eddy_wire_put_i32(w, c->emitter.index1);
    eddy_wire_put_u16(w, c->emitter.generation);
    switch (c->type) {
    case EDDY_EMITTER_ENABLE: case EDDY_EMITTER_DISABLE: case EDDY_EMITTER_DESTROY: return true;
    case EDDY_EMITTER_SET_RATES:
        eddy_wire_put_f32(w, c->vorton_rate);
        eddy_wire_put_f32(w, c->tracer_rate);
        return true;
    case EDDY_EMITTER_BURST:
        eddy_wire_put_i32(w, c->vorton_count);
        eddy_wire_put_i32(w, c->tracer_count);
        return true;
    case EDDY_EMITTER_MOVE: eddy_wire_put_vec3(w, c->position); return true;
    case EDDY_EMITTER_CREATE: eddy_codec_put_emitter_def(w, &c->def); return true;
    }
    return false;
}

static bool put_body_command(wire_writer *w, const eddy_body_command *c) {
    eddy_wire_put_u8(w, (uint8_t)c->type);
    eddy_wire_put_i32(w, c->body.index1);
    eddy_wire_put_u16(w, c->body.generation);
    switch (c->type) {
    case EDDY_BODY_CREATE: return eddy_codec_put_body_def(w, &c->def);
    case EDDY_BODY_DESTROY: return true;
    case EDDY_BODY_FORCE: case EDDY_BODY_TORQUE: case EDDY_BODY_ANGULAR_IMPULSE:
        eddy_wire_put_vec3(w, c->vector);
        return true;
    case EDDY_BODY_IMPULSE:
        eddy_wire_put_vec3(w, c->vector);
        eddy_wire_put_vec3(w, c->point);
        return true;
    case EDDY_BODY_SET_KINEMATIC:
        eddy_wire_put_vec3(w, c->position);
        put_quat(w, c->orientation);
        eddy_wire_put_vec3(w, c->linear_velocity);
        eddy_wire_put_vec3(w, c->angular_velocity);
        return true;
    }
    return false;
}

static bool input_shape_ok(const eddy_input *in) {
    return (in->flags & ~(uint32_t)INPUT_KNOWN_FLAGS) == 0 && in->emitter_command_count >= 0 &&
           in->blast_count >= 0 && in->blast_count <= EDDY_MAX_BLASTS_PER_INPUT &&
           in->bullet_count >= 0 && in->bullet_count <= EDDY_MAX_BULLETS_PER_INPUT &&
           (in->blast_count == 0 || in->blasts) && (in->bullet_count == 0 || in->bullets) &&
           in->emitter_command_count <= INPUT_MAX_COMMANDS && in->body_command_count >= 0 &&
           in->body_command_count <= INPUT_MAX_COMMANDS &&
           (in->emitter_command_count == 0 || in->emitter_commands) &&
           (in->body_command_count == 0 || in->body_commands);
}

/* Version 2 adds the blasts and bullets after the body commands; an input
 * without any is written in version 1, byte for byte as before. */
static void put_impulses(wire_writer *w, const eddy_input *in) {
    eddy_wire_put_u32(w, (uint32_t)in->blast_count);
    for (int k = 0; k < in->blast_count; ++k) {
        const eddy_blast *b = &in->blasts[k];
        eddy_wire_put_vec3(w, b->position);
        eddy_wire_put_f32(w, b->strength);
        eddy_wire_put_f32(w, b->duration);
        eddy_wire_put_f32(w, b->refill_duration);
        eddy_wire_put_f32(w, b->radius);
    }
    eddy_wire_put_u32(w, (uint32_t)in->bullet_count);
    for (int k = 0; k < in->bullet_count; ++k) {
        const eddy_bullet *b = &in->bullets[k];
        eddy_wire_put_vec3(w, b->from);
        eddy_wire_put_vec3(w, b->to);
        eddy_wire_put_f32(w, b->radius);
        eddy_wire_put_f32(w, b->wake_vorticity);
    }
}

static bool put_input(wire_writer *w, const eddy_input *in) {
    const bool impulses = in->blast_count > 0 || in->bullet_count > 0;
    eddy_wire_put_u16(w, impulses ? 2 : 1);
    eddy_wire_put_u32(w, in->flags);
    if (in->flags & EDDY_INPUT_SET_GRAVITY) eddy_wire_put_vec3(w, in->gravity);
    if (in->flags & EDDY_INPUT_SET_WIND) eddy_wire_put_vec3(w, in->wind);
    eddy_wire_put_u32(w, (uint32_t)in->emitter_command_count);
    for (int k = 0; k < in->emitter_command_count; ++k)
        if (!put_emitter_command(w, &in->emitter_commands[k])) return false;
    eddy_wire_put_u32(w, (uint32_t)in->body_command_count);
    for (int k = 0; k < in->body_command_count; ++k)
        if (!put_body_command(w, &in->body_commands[k])) return false;
    if (impulses) put_impulses(w, in);
    return true;
}

eddy_status eddy_input_encode(const eddy_input *input, eddy_bytes *out) {
    if (!out) return EDDY_ERROR_INVALID_ARGUMENT;
    const eddy_input none = {0};
    const eddy_input *in = input ? input : &none;
    if (!input_shape_ok(in)) return EDDY_ERROR_INVALID_ARGUMENT;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    const size_t start = out->size;
    if (!put_input(&w, in)) {
        out->size = start; /* nothing appended */
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (w.failed) out->size = start;
    return eddy_wire_writer_status(&w);
}

struct eddy_input_storage {
    eddy_input input;
    eddy_emitter_command *emitter_commands;
    eddy_body_command *body_commands;
    int emitter_capacity, body_capacity;
    int version; /* of the input being decoded */
    eddy_blast blasts[EDDY_MAX_BLASTS_PER_INPUT];
    eddy_bullet bullets[EDDY_MAX_BULLETS_PER_INPUT];
};

eddy_input_storage *eddy_input_storage_create(void) {
    return eddy_calloc(1, sizeof(eddy_input_storage));
}

void eddy_input_storage_destroy(eddy_input_storage *s) {
    if (!s) return;
    eddy_free(s->emitter_commands);
    eddy_free(s->body_commands);
    eddy_free(s);
}

static bool storage_reserve(void **items, int *capacity, uint32_t n, size_t item) {
    if ((int)n <= *capacity) return true;
    void *p = eddy_realloc(*items, (size_t)n * item);
    if (!p) return false;
    *items = p;
    *capacity = (int)n;
    return true;
}

static void get_emitter_command(wire_reader *r, eddy_emitter_command *c, uint32_t k) {
    memset(c, 0, sizeof *c);
    uint8_t type = eddy_wire_get_u8(r, "emitter command type");
    c->emitter.index1 = eddy_wire_get_i32(r, "emitter id");
    c->emitter.generation = eddy_wire_get_u16(r, "emitter generation");
    switch (type) {
    case EDDY_EMITTER_ENABLE: case EDDY_EMITTER_DISABLE: case EDDY_EMITTER_DESTROY: break;
    case EDDY_EMITTER_SET_RATES:
        c->vorton_rate = eddy_wire_get_f32(r, "vorton_rate");
        c->tracer_rate = eddy_wire_get_f32(r, "tracer_rate");
        break;
    case EDDY_EMITTER_BURST:
        c->vorton_count = eddy_wire_get_i32(r, "vorton_count");
        c->tracer_count = eddy_wire_get_i32(r, "tracer_count");
        break;
    case EDDY_EMITTER_MOVE: c->position = eddy_wire_get_vec3(r, "position"); break;
    case EDDY_EMITTER_CREATE: eddy_codec_get_emitter_def(r, &c->def); break;
    default:
        if (wire_ok(r))
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "emitter command %u has unknown type %u",
                      (unsigned)k, (unsigned)type);
        return;
    }
    c->type = (eddy_emitter_command_type)type;
}

static void get_body_command(wire_reader *r, eddy_body_command *c, uint32_t k) {
    memset(c, 0, sizeof *c);
    uint8_t type = eddy_wire_get_u8(r, "body command type");
    c->body.index1 = eddy_wire_get_i32(r, "body id");
    c->body.generation = eddy_wire_get_u16(r, "body generation");
    switch (type) {
    case EDDY_BODY_CREATE: eddy_codec_get_body_def(r, &c->def); break;
    case EDDY_BODY_DESTROY: break;
    case EDDY_BODY_FORCE: case EDDY_BODY_TORQUE: case EDDY_BODY_ANGULAR_IMPULSE:
        c->vector = eddy_wire_get_vec3(r, "vector");
        break;
    case EDDY_BODY_IMPULSE:
        c->vector = eddy_wire_get_vec3(r, "vector");
        c->point = eddy_wire_get_vec3(r, "point");
        break;
    case EDDY_BODY_SET_KINEMATIC:
        c->position = eddy_wire_get_vec3(r, "position");
        c->orientation = get_quat(r, "orientation");
        c->linear_velocity = eddy_wire_get_vec3(r, "linear_velocity");
        c->angular_velocity = eddy_wire_get_vec3(r, "angular_velocity");
        break;
    default:
        if (wire_ok(r))
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "body command %u has unknown type %u", (unsigned)k,
                      (unsigned)type);
        return;
    }
    c->type = (eddy_body_command_type)type;
}

static void get_input_header(wire_reader *r, eddy_input *in, int *version_out) {
    uint16_t version = eddy_wire_get_u16(r, "version");
    if (wire_ok(r) && (version < 1 || version > EDDY_INPUT_ENCODING_VERSION)) {
        eddy_wire_fail(r, EDDY_ERROR_VERSION, "encoding version %u, this build reads versions 1 to %d",
                  (unsigned)version, EDDY_INPUT_ENCODING_VERSION);
        return;
    }
    *version_out = version;
    in->flags = eddy_wire_get_u32(r, "flags");
    if (in->flags & ~(uint32_t)INPUT_KNOWN_FLAGS) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "flags 0x%x have unknown bits", (unsigned)in->flags);
        return;
    }
    if (in->flags & EDDY_INPUT_SET_GRAVITY) in->gravity = eddy_wire_get_vec3(r, "gravity");
    if (in->flags & EDDY_INPUT_SET_WIND) in->wind = eddy_wire_get_vec3(r, "wind");
}

static void get_impulses(wire_reader *r, eddy_input_storage *s) {
    const uint32_t n = eddy_wire_get_count(r, EDDY_MAX_BLASTS_PER_INPUT, 28, "blast count");
    for (uint32_t k = 0; k < n && wire_ok(r); ++k) {
        eddy_blast *b = &s->blasts[k];
        b->position = eddy_wire_get_vec3(r, "blast position");
        b->strength = eddy_wire_get_f32(r, "blast strength");
        b->duration = eddy_wire_get_f32(r, "blast duration");
        b->refill_duration = eddy_wire_get_f32(r, "blast refill_duration");
        b->radius = eddy_wire_get_f32(r, "blast radius");
    }
    s->input.blast_count = wire_ok(r) ? (int)n : 0;
    const uint32_t m = eddy_wire_get_count(r, EDDY_MAX_BULLETS_PER_INPUT, 32, "bullet count");
    for (uint32_t k = 0; k < m && wire_ok(r); ++k) {
        eddy_bullet *b = &s->bullets[k];
        b->from = eddy_wire_get_vec3(r, "bullet from");
        b->to = eddy_wire_get_vec3(r, "bullet to");
        b->radius = eddy_wire_get_f32(r, "bullet radius");
        b->wake_vorticity = eddy_wire_get_f32(r, "bullet wake_vorticity");
    }
    s->input.bullet_count = wire_ok(r) ? (int)m : 0;
    /* canonical: version 2 only for an input that has an impulse */
    if (wire_ok(r) && n == 0 && m == 0)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "version 2 input without blasts or bullets "
                                              "(written as version 1)");
}

static eddy_status get_commands(wire_reader *r, eddy_input_storage *s) {
    uint32_t n = eddy_wire_get_count(r, INPUT_MAX_COMMANDS, COMMAND_MIN_BYTES, "emitter command count");
    if (!storage_reserve((void **)&s->emitter_commands, &s->emitter_capacity, n,
                         sizeof(eddy_emitter_command)))
        return EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < n && wire_ok(r); ++k)
        get_emitter_command(r, &s->emitter_commands[k], k);
    s->input.emitter_command_count = (int)n;
    uint32_t m = eddy_wire_get_count(r, INPUT_MAX_COMMANDS, COMMAND_MIN_BYTES, "body command count");
    if (!storage_reserve((void **)&s->body_commands, &s->body_capacity, m,
                         sizeof(eddy_body_command)))
        return EDDY_ERROR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < m && wire_ok(r); ++k) get_body_command(r, &s->body_commands[k], k);
    s->input.body_command_count = (int)m;
    if (s->version >= 2 && wire_ok(r)) get_impulses(r, s);
    return EDDY_OK;
}

eddy_status eddy_input_decode(const void *data, size_t size, eddy_input_storage *storage,
                              const eddy_input **input, char *message, size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "input", message, message_size);
    if (input) *input = NULL;
    if (!storage || !input || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "storage, input or data is NULL");
        return r.status;
    }
    memset(&storage->input, 0, sizeof storage->input);
    storage->version = 1;
    get_input_header(&r, &storage->input, &storage->version);
    eddy_status s = wire_ok(&r) ? get_commands(&r, storage) : EDDY_OK;
    if (s != EDDY_OK) {
        eddy_wire_fail(&r, s, "out of memory for the commands");
        return r.status;
    }
    if (wire_ok(&r) && wire_remaining(&r) != 0)
        eddy_wire_fail(&r, EDDY_ERROR_CORRUPT, "%zu unexpected bytes after the last command",
                  wire_remaining(&r));
    if (!wire_ok(&r)) {
        memset(&storage->input, 0, sizeof storage->input);
        return r.status;
    }
    storage->input.emitter_commands = storage->input.emitter_command_count ? storage->emitter_commands : NULL;
    storage->input.body_commands = storage->input.body_command_count ? storage->body_commands : NULL;
    storage->input.blasts = storage->input.blast_count ? storage->blasts : NULL;
    storage->input.bullets = storage->input.bullet_count ? storage->bullets : NULL;
    *input = &storage->input;
    return EDDY_OK;
}
