/* SPDX-License-Identifier: MIT */
/* Tests of the canonical state hash (docs/hash-spec.md).
 *
 * The expected values are computed by a second, independent implementation of
 * the spec in this file: each record is assembled field by field into a byte
 * buffer with explicit little-endian writes and hashed one-shot with
 * XXH3_64bits (lib/hash/hash.c streams from memory instead). Worlds are built
 * through the public API; internal fields that the API cannot set before the
 * first step (frame, rng, grid, diagnostics, emitter state) are set through
 * lib/ internal headers, which tests may include. */
#include <criterion/criterion.h>

#include "core/core.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdio.h>
#include <stdlib.h>

/* The no-scratch path of lib/hash/hash.c (not in lib/hash/hash.h). */
void eddy_hash_compute_without_scratch(eddy_world *w);

/* ---------------------------------------------------------------- byte buffer */
typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void b_byte(bytes *b, unsigned char v) {
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    b->p[b->n++] = v;
}
static void b_u32(bytes *b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b_byte(b, (unsigned char)(v >> (8 * i)));
}
static void b_u64(bytes *b, uint64_t v) {
    for (int i = 0; i < 8; ++i) b_byte(b, (unsigned char)(v >> (8 * i)));
}
static void b_f32(bytes *b, float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    b_u32(b, u);
}
static void b_f64(bytes *b, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    b_u64(b, u);
}
/* Hash the buffer one-shot and empty it. */
static uint64_t b_hash(bytes *b) {
    uint64_t h = XXH3_64bits(b->p, b->n);
    b->n = 0;
    return h;
}
static void b_free(bytes *b) { free(b->p); }

/* ---------------------------------------------------------------- spec, again */
enum { VORTON_FIELDS = 11, TRACER_FIELDS = 8 };

/* Field f of particle i, in spec order, as its 32-bit pattern. */
static uint32_t particle_field_bits(const particle_array *a, bool vorton, int f, int i) {
    const float *vf[] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz, a->wx, a->wy, a->wz, a->drho};
    const float *tf[] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz, a->drho};
    int last = vorton ? VORTON_FIELDS - 1 : TRACER_FIELDS - 1;
    uint32_t u;
    if (f == last) return (uint32_t)a->birth[i];
    memcpy(&u, (vorton ? vf : tf)[f] + i, 4);
    return u;
}

static uint64_t spec_particle_block(const particle_array *a, bool vorton, int block) {
    bytes b = {0};
    int begin = block * 1024, end = begin + 1024 < a->count ? begin + 1024 : a->count;
    for (int f = 0; f < (vorton ? VORTON_FIELDS : TRACER_FIELDS); ++f)
        for (int i = begin; i < end; ++i) b_u32(&b, particle_field_bits(a, vorton, f, i));
    uint64_t h = b_hash(&b);
    b_free(&b);
    return h;
}

static uint64_t spec_component(uint32_t id, uint64_t elements, const uint64_t *blocks, int n) {
    bytes b = {0};
    b_u32(&b, id);
    b_u32(&b, 1); /* spec version */
    b_u64(&b, elements);
    b_u64(&b, (uint64_t)n);
    for (int i = 0; i < n; ++i) b_u64(&b, blocks[i]);
    uint64_t h = b_hash(&b);
    b_free(&b);
    return h;
}

static uint64_t spec_particles(const particle_array *a, bool vorton) {
    int n = (a->count + 1023) / 1024;
    uint64_t *blocks = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    for (int i = 0; i < n; ++i) blocks[i] = spec_particle_block(a, vorton, i);
    uint64_t h = spec_component(vorton ? 0 : 1, (uint64_t)a->count, blocks, n);
    free(blocks);
    return h;
}

static void b_vec3(bytes *b, eddy_vec3 v) {
    b_f32(b, v.x);
    b_f32(b, v.y);
    b_f32(b, v.z);
}

static void spec_globals_bytes(bytes *b, const eddy_world *w) {
    b_u64(b, (uint64_t)w->frame);
    b_u64(b, w->rng.state);
    b_u64(b, w->rng.inc);
    b_vec3(b, w->gravity);
    b_vec3(b, w->wind);
    b_u32(b, (uint32_t)w->emitter_count);
    for (int i = 0; i < w->emitter_count; ++i) {
        const emitter *e = &w->emitters[i];
        b_u32(b, e->alive ? 1 : 0);
        b_u32(b, e->generation);
        if (!e->alive) continue;
        b_vec3(b, e->def.position);
        b_vec3(b, e->def.position_spread);
        b_vec3(b, e->def.velocity);
        b_vec3(b, e->def.vorticity);
        b_vec3(b, e->def.vorticity_spread);
        b_f32(b, e->def.density_deviation);
        b_f32(b, e->def.vorton_rate);
        b_f32(b, e->def.tracer_rate);
        b_u32(b, e->def.enabled ? 1 : 0);
        b_f32(b, e->vorton_remainder);
        b_f32(b, e->tracer_remainder);
        b_u32(b, (uint32_t)e->pending_vortons);
        b_u32(b, (uint32_t)e->pending_tracers);
    }
    const eddy_diagnostics *d = &w->diagnostics;
    for (int i = 0; i < 3; ++i) b_f64(b, d->total_vorticity[i]);
    for (int i = 0; i < 3; ++i) b_f64(b, d->linear_impulse[i]);
    for (int i = 0; i < 3; ++i) b_f64(b, d->angular_impulse[i]);
    b_f64(b, d->enstrophy);
    b_f64(b, d->mass_deviation);
    b_u32(b, w->grid_valid ? 1 : 0);
    if (!w->grid_valid) return;
    for (int i = 0; i < 3; ++i) b_f32(b, w->grid.min[i]);
    for (int i = 0; i < 3; ++i) b_f32(b, w->grid.spacing[i]);
    for (int i = 0; i < 3; ++i) b_u32(b, (uint32_t)w->grid.cells[i]);
    b_f32(b, w->mollify);
}

static uint64_t spec_globals_block(const eddy_world *w) {
    bytes b = {0};
    spec_globals_bytes(&b, w);
    uint64_t h = b_hash(&b);
    b_free(&b);
    return h;
}

static eddy_frame_hash spec_frame(const eddy_world *w) {
    eddy_frame_hash f = {.frame = w->frame};
    f.component[0] = spec_particles(&w->vortons, true);
    f.component[1] = spec_particles(&w->tracers, false);
    f.component[2] = spec_component(2, 0, NULL, 0);
    uint64_t g = spec_globals_block(w);
    f.component[3] = spec_component(3, 1, &g, 1);
    bytes b = {0};
    const char *magic = "EDDYHSH1";
    for (int i = 0; i < 8; ++i) b_byte(&b, (unsigned char)magic[i]);
    b_u32(&b, 1);
    b_u32(&b, 4);
    b_u64(&b, (uint64_t)w->frame);
    for (int c = 0; c < 4; ++c) b_u64(&b, f.component[c]);
    f.frame_hash = b_hash(&b);
    b_free(&b);
    return f;
}

/* ---------------------------------------------------------------- worlds */
static float test_value(uint32_t i, uint32_t f) {
    /* Varied, exactly representable, includes negatives and fractions. */
    int32_t v = (int32_t)((i * 2654435761u + f * 40503u) % 4001u) - 2000;
    return (float)v * 0.0625f;
}

static eddy_world *make_world_def(eddy_world_def def, int vortons, int tracers) {
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(&def, &w);
    cr_assert_eq(s, EDDY_OK, "eddy_world_create: %s (%s)", eddy_status_name(s),
                 eddy_last_error_message());
    eddy_vorton *v = calloc((size_t)vortons + 1, sizeof *v);
    eddy_tracer *t = calloc((size_t)tracers + 1, sizeof *t);
    for (int i = 0; i < vortons; ++i) {
        uint32_t u = (uint32_t)i;
        v[i].position = (eddy_vec3){test_value(u, 0), test_value(u, 1), test_value(u, 2)};
        v[i].velocity = (eddy_vec3){test_value(u, 3), test_value(u, 4), test_value(u, 5)};
        v[i].vorticity = (eddy_vec3){test_value(u, 6), test_value(u, 7), test_value(u, 8)};
        v[i].density_deviation = test_value(u, 9);
        v[i].birth_frame = (int32_t)(i % 7) - 3;
    }
    for (int i = 0; i < tracers; ++i) {
        uint32_t u = (uint32_t)i + 100000u;
        t[i].position = (eddy_vec3){test_value(u, 0), test_value(u, 1), test_value(u, 2)};
        t[i].velocity = (eddy_vec3){test_value(u, 3), test_value(u, 4), test_value(u, 5)};
        t[i].density_deviation = test_value(u, 6);
        t[i].birth_frame = i % 5;
    }
    if (vortons > 0) cr_assert_eq(eddy_world_add_vortons(w, v, vortons), EDDY_OK);
    if (tracers > 0) cr_assert_eq(eddy_world_add_tracers(w, t, tracers), EDDY_OK);
    free(v);
    free(t);
    return w;
}

static eddy_world *make_world(int vortons, int tracers) {
    return make_world_def(eddy_world_def_default(), vortons, tracers);
}

static eddy_frame_hash fresh_hash(eddy_world *w) {
    w->hash_valid = false;
    return eddy_world_hash(w);
}

static void assert_hash_eq(eddy_frame_hash a, eddy_frame_hash b, const char *what) {
    cr_assert_eq(a.frame, b.frame, "%s: frame", what);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        cr_assert_eq(a.component[c], b.component[c], "%s: component %s: %016llx vs %016llx",
                     what, eddy_component_name((eddy_component)c),
                     (unsigned long long)a.component[c], (unsigned long long)b.component[c]);
    cr_assert_eq(a.frame_hash, b.frame_hash, "%s: frame hash", what);
}

/* All globals fields set to values the API cannot produce before a step. */
static void set_globals(eddy_world *w) {
    w->frame = 1234567;
    w->rng.state = 0x853c49e6748fea9bull;
    w->rng.inc = 0xda3e39cb94b95bdbull;
    w->gravity = (eddy_vec3){0.0f, -0.0f, -9.81f};
    w->wind = (eddy_vec3){1.5f, 2.5f, -3.5f};
    eddy_diagnostics d = {{1.0, -2.0, 3.5}, {1e-300, 0.25, -0.0}, {7.0, 8.0, 9.0}, 10.5, -11.25};
    w->diagnostics = d;
    w->grid_valid = true;
    for (int i = 0; i < 3; ++i) {
        w->grid.min[i] = -4.0f + (float)i;
        w->grid.spacing[i] = 0.125f * (float)(i + 1);
        w->grid.cells[i] = 16 << i;
    }
    w->mollify = 1.25f;
}

static void add_emitters(eddy_world *w, int n) {
    for (int i = 0; i < n; ++i) {
        eddy_emitter_def d = eddy_emitter_def_default();
        d.position = (eddy_vec3){(float)i, 2.0f, 3.0f};
        d.position_spread = (eddy_vec3){0.5f, 0.5f, 0.25f};
        d.velocity = (eddy_vec3){0.0f, 0.0f, 1.0f};
        d.vorticity = (eddy_vec3){0.0f, 1.0f, 0.0f};
        d.vorticity_spread = (eddy_vec3){0.125f, 0.125f, 0.125f};
        d.density_deviation = -0.5f;
        d.vorton_rate = 30.0f;
        d.tracer_rate = 300.0f;
        d.enabled = true;
        eddy_emitter_id id;
        cr_assert_eq(eddy_world_create_emitter(w, &d, &id), EDDY_OK);
    }
    for (int i = 0; i < w->emitter_count; ++i) {
        w->emitters[i].vorton_remainder = 0.25f * (float)i;
        w->emitters[i].tracer_remainder = 0.75f;
        w->emitters[i].pending_vortons = i;
        w->emitters[i].pending_tracers = -i;
    }
}

/* ---------------------------------------------------------------- tests */
Test(hash, component_names) {
    cr_assert_str_eq(eddy_component_name(EDDY_COMPONENT_VORTONS), "vortons");
    cr_assert_str_eq(eddy_component_name(EDDY_COMPONENT_TRACERS), "tracers");
    cr_assert_str_eq(eddy_component_name(EDDY_COMPONENT_BODIES), "bodies");
    cr_assert_str_eq(eddy_component_name(EDDY_COMPONENT_GLOBALS), "globals");
    cr_assert_str_eq(eddy_component_name(EDDY_COMPONENT_COUNT), "unknown");
}

Test(hash, matches_independent_spec_tiny) {
    eddy_world *w = make_world(3, 2);
    w->vortons.wz[1] = -0.0f;
    w->tracers.vy[0] = 1e-40f; /* a denormal is hashed by its bits like anything else */
    eddy_frame_hash expected = spec_frame(w);
    assert_hash_eq(fresh_hash(w), expected, "tiny API world");
    eddy_world_destroy(w);
}

Test(hash, matches_independent_spec_all_fields) {
    eddy_world *w = make_world(2100, 1500);
    add_emitters(w, 3);
    set_globals(w);
    w->emitters[1].alive = false; /* a free slot: only alive and generation count */
    w->emitters[1].generation = 7;
    assert_hash_eq(fresh_hash(w), spec_frame(w), "full world");
    cr_assert_eq(w->last_hash.frame, 1234567);

    /* Block hashes, component by component, against the spec. */
    uint64_t blocks[4];
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_VORTONS, blocks, 4), 3);
    for (int b = 0; b < 3; ++b) cr_assert_eq(blocks[b], spec_particle_block(&w->vortons, true, b));
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, blocks, 4), 2);
    for (int b = 0; b < 2; ++b) cr_assert_eq(blocks[b], spec_particle_block(&w->tracers, false, b));
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_BODIES, blocks, 4), 0);
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_GLOBALS, blocks, 4), 1);
    cr_assert_eq(blocks[0], spec_globals_block(w));
    eddy_world_destroy(w);
}

Test(hash, component_hash_is_fold_of_block_hashes) {
    eddy_world *w = make_world(1025, 5000);
    eddy_frame_hash h = fresh_hash(w);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        int n = eddy_world_block_hashes(w, (eddy_component)c, NULL, 0);
        uint64_t *blocks = calloc((size_t)n + 1, sizeof *blocks);
        cr_assert_eq(eddy_world_block_hashes(w, (eddy_component)c, blocks, n), n);
        uint64_t elements = c == 0 ? 1025 : c == 1 ? 5000 : c == 2 ? 0 : 1;
        cr_assert_eq(h.component[c], spec_component((uint32_t)c, elements, blocks, n), "%s",
                     eddy_component_name((eddy_component)c));
        free(blocks);
    }
    eddy_world_destroy(w);
}

Test(hash, empty_world) {
    eddy_world *w = make_world(0, 0);
    for (int c = 0; c < 3; ++c) cr_assert_eq(eddy_world_block_hashes(w, (eddy_component)c, NULL, 0), 0);
    assert_hash_eq(fresh_hash(w), spec_frame(w), "empty world");
    /* Empty components are the bare header: 24 bytes, no blocks. */
    bytes b = {0};
    b_u32(&b, 0);
    b_u32(&b, 1);
    b_u64(&b, 0);
    b_u64(&b, 0);
    cr_assert_eq(w->last_hash.component[0], b_hash(&b));
    b_free(&b);
    eddy_world_destroy(w);
}

/* Flip the lowest mantissa bit of a float in place. */
static void flip_low_bit(float *f) {
    uint32_t u;
    memcpy(&u, f, 4);
    u ^= 1u;
    memcpy(f, &u, 4);
}

static void flip_field(particle_array *a, bool vorton, int f, int i) {
    float *vf[] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz, a->wx, a->wy, a->wz, a->drho};
    float *tf[] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz, a->drho};
    int last = vorton ? VORTON_FIELDS - 1 : TRACER_FIELDS - 1;
    if (f == last) a->birth[i] ^= 1;
    else flip_low_bit((vorton ? vf : tf)[f] + i);
}

enum { MAX_BLOCKS = 8 };
typedef struct snapshot {
    eddy_frame_hash h;
    int blocks[EDDY_COMPONENT_COUNT];
    uint64_t block[EDDY_COMPONENT_COUNT][MAX_BLOCKS];
} snapshot;

static snapshot take(eddy_world *w) {
    snapshot s;
    memset(&s, 0, sizeof s);
    s.h = fresh_hash(w);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        s.blocks[c] = eddy_world_block_hashes(w, (eddy_component)c, s.block[c], MAX_BLOCKS);
        cr_assert_leq(s.blocks[c], MAX_BLOCKS);
    }
    return s;
}

/* Exactly block `block` of component `comp`, that component and the frame
 * hash differ between a and b; everything else is equal. */
static void assert_only(const snapshot *a, const snapshot *b, int comp, int block, const char *what) {
    cr_assert_neq(a->h.frame_hash, b->h.frame_hash, "%s: frame hash unchanged", what);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        cr_assert_eq(a->blocks[c], b->blocks[c], "%s: block count", what);
        if (c == comp) cr_assert_neq(a->h.component[c], b->h.component[c], "%s: component", what);
        else cr_assert_eq(a->h.component[c], b->h.component[c], "%s: other component %d", what, c);
        for (int k = 0; k < a->blocks[c]; ++k) {
            if (c == comp && k == block)
                cr_assert_neq(a->block[c][k], b->block[c][k], "%s: block %d unchanged", what, k);
            else
                cr_assert_eq(a->block[c][k], b->block[c][k], "%s: block %d of %d changed", what, k, c);
        }
    }
}

Test(hash, single_particle_field_change_is_localised) {
    eddy_world *w = make_world(2500, 2049);
    snapshot base = take(w);
    const int where[] = {0, 1, 1023, 1024, 2047, 2048};
    for (int comp = 0; comp < 2; ++comp) {
        bool vorton = comp == 0;
        particle_array *a = vorton ? &w->vortons : &w->tracers;
        int fields = vorton ? VORTON_FIELDS : TRACER_FIELDS;
        for (int f = 0; f < fields; ++f) {
            for (int k = 0; k < 7; ++k) {
                int i = k < 6 ? where[k] : a->count - 1;
                char what[96];
                snprintf(what, sizeof what, "%s field %d particle %d",
                         eddy_component_name((eddy_component)comp), f, i);
                flip_field(a, vorton, f, i);
                snapshot changed = take(w);
                assert_only(&base, &changed, comp, i / 1024, what);
                flip_field(a, vorton, f, i); /* restore */
                assert_hash_eq(fresh_hash(w), base.h, what);
            }
        }
    }
    eddy_world_destroy(w);
}

Test(hash, signed_zero_is_not_canonicalised) {
    eddy_world *w = make_world(1500, 10);
    w->vortons.wz[1200] = -0.0f;
    snapshot minus = take(w);
    w->vortons.wz[1200] = 0.0f;
    snapshot plus = take(w);
    assert_only(&minus, &plus, EDDY_COMPONENT_VORTONS, 1, "-0 -> +0 in vorton wz");
    w->tracers.px[3] = -0.0f;
    snapshot t_minus = take(w);
    w->tracers.px[3] = 0.0f;
    snapshot t_plus = take(w);
    assert_only(&t_minus, &t_plus, EDDY_COMPONENT_TRACERS, 0, "-0 -> +0 in tracer px");
    eddy_world_destroy(w);
}

/* Each globals mutation changes only the globals component (its one block)
 * and the frame hash. */
static void mutate_global(eddy_world *w, int m) {
    emitter *e = &w->emitters[1];
    switch (m) {
    case 0: w->frame += 1; break;
    case 1: w->rng.state ^= 1; break;
    case 2: w->rng.inc ^= 2; break;
    case 3: flip_low_bit(&w->gravity.z); break;
    case 4: w->gravity.y = 0.0f; break; /* was -0 */
    case 5: flip_low_bit(&w->wind.x); break;
    case 6: e->alive = false; break;
    case 7: e->generation += 1; break;
    case 8: flip_low_bit(&e->def.position.y); break;
    case 9: flip_low_bit(&e->def.position_spread.z); break;
    case 10: flip_low_bit(&e->def.velocity.z); break;
    case 11: flip_low_bit(&e->def.vorticity.y); break;
    case 12: flip_low_bit(&e->def.vorticity_spread.x); break;
    case 13: flip_low_bit(&e->def.density_deviation); break;
    case 14: flip_low_bit(&e->def.vorton_rate); break;
    case 15: flip_low_bit(&e->def.tracer_rate); break;
    case 16: e->def.enabled = !e->def.enabled; break;
    case 17: flip_low_bit(&e->vorton_remainder); break;
    case 18: flip_low_bit(&e->tracer_remainder); break;
    case 19: e->pending_vortons += 1; break;
    case 20: e->pending_tracers += 1; break;
    case 21: w->diagnostics.total_vorticity[2] = 3.5000000000000004; break;
    case 22: w->diagnostics.linear_impulse[2] = 0.0; break; /* was -0 */
    case 23: w->diagnostics.angular_impulse[0] = -7.0; break;
    case 24: w->diagnostics.enstrophy *= 2.0; break;
    case 25: w->diagnostics.mass_deviation = 0.0; break;
    case 26: w->grid_valid = false; break;
    case 27: flip_low_bit(&w->grid.min[1]); break;
    case 28: flip_low_bit(&w->grid.spacing[2]); break;
    case 29: w->grid.cells[0] += 1; break;
    case 30: flip_low_bit(&w->mollify); break;
    case 31: w->emitter_count -= 1; break; /* drop the last slot */
    default: cr_assert_fail("no mutation %d", m);
    }
}

Test(hash, single_global_field_change_is_localised) {
    for (int m = 0; m < 32; ++m) {
        eddy_world *w = make_world(1100, 30);
        add_emitters(w, 3);
        set_globals(w);
        snapshot base = take(w);
        mutate_global(w, m);
        snapshot changed = take(w);
        char what[48];
        snprintf(what, sizeof what, "globals mutation %d", m);
        assert_only(&base, &changed, EDDY_COMPONENT_GLOBALS, 0, what);
        assert_hash_eq(changed.h, spec_frame(w), what);
        w->emitter_count = 3; /* so destroy sees every slot */
        eddy_world_destroy(w);
    }
}

Test(hash, free_emitter_slot_contents_are_ignored) {
    eddy_world *w = make_world(10, 10);
    add_emitters(w, 2);
    w->emitters[0].alive = false;
    eddy_frame_hash before = fresh_hash(w);
    w->emitters[0].def.position.x = 99.0f;
    w->emitters[0].vorton_remainder = 0.5f;
    w->emitters[0].pending_tracers = 42;
    assert_hash_eq(fresh_hash(w), before, "free slot contents");
    eddy_world_destroy(w);
}

Test(hash, invalid_grid_contents_are_ignored) {
    eddy_world *w = make_world(10, 10);
    set_globals(w);
    w->grid_valid = false;
    eddy_frame_hash before = fresh_hash(w);
    w->grid.min[0] = 123.0f;
    w->grid.cells[2] = 7;
    w->mollify = 3.0f;
    assert_hash_eq(fresh_hash(w), before, "invalid grid contents");
    eddy_world_destroy(w);
}

/* Through real steps: the hash the step caches is the spec's hash of the
 * state it leaves, and the same for 1 and 2 workers. */
Test(hash, step_caches_the_spec_hash) {
    eddy_world *w[2];
    for (int k = 0; k < 2; ++k) {
        eddy_world_def def = eddy_world_def_default();
        def.worker_count = k + 1;
        w[k] = make_world_def(def, 300, 2100);
        eddy_emitter_def d = eddy_emitter_def_default();
        d.position_spread = (eddy_vec3){1.0f, 1.0f, 1.0f};
        d.vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
        d.vorton_rate = 60.0f;
        d.tracer_rate = 600.0f;
        eddy_emitter_id id;
        cr_assert_eq(eddy_world_create_emitter(w[k], &d, &id), EDDY_OK);
    }
    for (int frame = 1; frame <= 3; ++frame) {
        for (int k = 0; k < 2; ++k) {
            cr_assert_eq(eddy_world_step(w[k], NULL), EDDY_OK, "%s", eddy_world_error_message(w[k]));
            cr_assert(w[k]->hash_valid, "the step did not hash");
            eddy_frame_hash cached = eddy_world_hash(w[k]);
            cr_assert_eq(cached.frame, frame);
            assert_hash_eq(cached, spec_frame(w[k]), "cached step hash vs spec");
        }
        assert_hash_eq(w[0]->last_hash, w[1]->last_hash, "1 vs 2 workers after a step");
    }
    for (int k = 0; k < 2; ++k) eddy_world_destroy(w[k]);
}

Test(hash, block_boundaries) {
    const int counts[] = {0, 1, 1023, 1024, 1025, 2047, 2048, 2049};
    for (int k = 0; k < 8; ++k) {
        int n = counts[k];
        int expected_blocks = (n + 1023) / 1024;
        for (int comp = 0; comp < 2; ++comp) {
            eddy_world *w = comp == 0 ? make_world(n, 0) : make_world(0, n);
            particle_array *a = comp == 0 ? &w->vortons : &w->tracers;
            char what[64];
            snprintf(what, sizeof what, "%d %s", n, eddy_component_name((eddy_component)comp));
            cr_assert_eq(eddy_world_block_hashes(w, (eddy_component)comp, NULL, 0), expected_blocks,
                         "%s", what);
            snapshot base = take(w);
            assert_hash_eq(base.h, spec_frame(w), what);
            for (int b = 0; b < expected_blocks; ++b)
                cr_assert_eq(base.block[comp][b], spec_particle_block(a, comp == 0, b), "%s", what);
            if (n == 0) {
                eddy_world_destroy(w);
                continue;
            }
            /* The last particle belongs to the last block, which may be short. */
            flip_field(a, comp == 0, 2, n - 1);
            snapshot changed = take(w);
            assert_only(&base, &changed, comp, expected_blocks - 1, what);
            eddy_world_destroy(w);
        }
    }
}

Test(hash, capacity_limits_writes) {
    eddy_world *w = make_world(10, 4100); /* 5 tracer blocks */
    uint64_t all[5], some[5] = {0};
    const uint64_t sentinel = 0x5a5a5a5a5a5a5a5aull;
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, all, 5), 5);
    for (int i = 0; i < 5; ++i) some[i] = sentinel;
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, some, 2), 5);
    cr_assert_eq(some[0], all[0]);
    cr_assert_eq(some[1], all[1]);
    for (int i = 2; i < 5; ++i) cr_assert_eq(some[i], sentinel, "slot %d written beyond capacity", i);
    some[0] = sentinel;
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_GLOBALS, some, 0), 1);
    cr_assert_eq(some[0], sentinel);
    eddy_world_destroy(w);
}

Test(hash, repeatable_and_cached) {
    eddy_world *w = make_world(3000, 9000);
    add_emitters(w, 2);
    eddy_frame_hash a = fresh_hash(w);
    cr_assert(w->hash_valid);
    eddy_frame_hash cached = eddy_world_hash(w);
    eddy_frame_hash b = fresh_hash(w);
    assert_hash_eq(a, cached, "cached");
    assert_hash_eq(a, b, "recomputed");
    /* The cache is returned as is while valid: eddy_world_hash does not rehash. */
    w->last_hash.frame_hash ^= 1;
    cr_assert_eq(eddy_world_hash(w).frame_hash, a.frame_hash ^ 1);

    eddy_world *w2 = make_world(3000, 9000);
    add_emitters(w2, 2);
    assert_hash_eq(fresh_hash(w2), a, "second identical world");
    eddy_world_destroy(w);
    eddy_world_destroy(w2);
}

Test(hash, no_scratch_path_agrees) {
    eddy_world *w = make_world(4097, 3333);
    add_emitters(w, 2);
    set_globals(w);
    eddy_frame_hash with_scratch = fresh_hash(w);
    w->hash_valid = false;
    eddy_hash_compute_without_scratch(w);
    cr_assert(w->hash_valid);
    assert_hash_eq(w->last_hash, with_scratch, "without scratch");
    eddy_world_destroy(w);
}

/* A user task system that runs ranges in reverse order, on varying worker
 * indices: the hash must not depend on scheduling. */
static void *reverse_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                             void *user_context) {
    int range = min_range > 0 ? min_range : 1;
    int ranges = (item_count + range - 1) / range;
    for (int r = ranges - 1; r >= 0; --r) {
        int end = (r + 1) * range < item_count ? (r + 1) * range : item_count;
        task(r * range, end, r % 4, task_context);
    }
    (void)user_context;
    return NULL;
}
static void reverse_finish(void *user_task, void *user_context) {
    (void)user_task;
    (void)user_context;
}

Test(hash, independent_of_worker_count_and_order) {
    const int vortons = 5000, tracers = 40000;
    eddy_world_def def = eddy_world_def_default();
    def.worker_count = 1;
    eddy_world *w1 = make_world_def(def, vortons, tracers);
    eddy_frame_hash ref = fresh_hash(w1);
    uint64_t ref_blocks[40];
    cr_assert_eq(eddy_world_block_hashes(w1, EDDY_COMPONENT_TRACERS, ref_blocks, 40), 40);
    assert_hash_eq(ref, spec_frame(w1), "1 worker vs spec");
    eddy_world_destroy(w1);

    const int workers[] = {2, 3, 4, 8, 16};
    for (int k = 0; k < 5; ++k) {
        def.worker_count = workers[k];
        eddy_world *w = make_world_def(def, vortons, tracers);
        for (int round = 0; round < 3; ++round) {
            char what[48];
            snprintf(what, sizeof what, "%d workers round %d", workers[k], round);
            assert_hash_eq(fresh_hash(w), ref, what);
            uint64_t blocks[40];
            cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, blocks, 40), 40);
            cr_assert_arr_eq(blocks, ref_blocks, sizeof blocks, "%s: block hashes", what);
        }
        eddy_world_destroy(w);
    }

    def.worker_count = 4;
    def.enqueue_task = reverse_enqueue;
    def.finish_task = reverse_finish;
    eddy_world *wr = make_world_def(def, vortons, tracers);
    assert_hash_eq(fresh_hash(wr), ref, "reverse-order task system");
    eddy_world_destroy(wr);
}

/* Worked example values (docs/hash-spec.md), cross-checked when written by a
 * third implementation: Python assembling the bytes, hashed by libxxhash. */
#define WORKED_VORTON_BLOCK 0x1e5e6cddd941f40bull
#define WORKED_TRACER_BLOCK 0x63f0162ab690d5c6ull
#define WORKED_GLOBALS_BLOCK 0x15c9a9517afe00d9ull
#define WORKED_FRAME 0xf7196835ccee9ef4ull
static const uint64_t worked_component[4] = {0x5e6f04641065ef75ull, 0xe9f9c5700dcc402cull,
                                             0xc8299b353ad3218cull, 0x3b7fb377d3f658a7ull};

/* The worked example of docs/hash-spec.md. If this fails, the code and the
 * spec disagree: fix the code, or bump the spec version and the document. */
static eddy_world *worked_example_world(void) {
    eddy_world *w = NULL;
    eddy_world_def def = eddy_world_def_default();
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK);
    eddy_vorton v = {{1.0f, -2.0f, 0.5f}, {0.25f, -0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}, 0.125f, 0};
    eddy_tracer t[2] = {{{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 0.5f}, 0.0f, 0},
                        {{-1.0f, 3.0f, 2.0f}, {1.0f, 0.0f, 0.0f}, -0.25f, 2}};
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_OK);
    cr_assert_eq(eddy_world_add_tracers(w, t, 2), EDDY_OK);
    eddy_emitter_def d = eddy_emitter_def_default();
    d.position = (eddy_vec3){0.0f, 0.0f, -1.0f};
    d.position_spread = (eddy_vec3){0.5f, 0.5f, 0.0f};
    d.velocity = (eddy_vec3){0.0f, 0.0f, 2.0f};
    d.vorticity = (eddy_vec3){0.0f, 0.0f, 0.0f};
    d.vorticity_spread = (eddy_vec3){1.0f, 1.0f, 1.0f};
    d.density_deviation = -0.5f;
    d.vorton_rate = 10.0f;
    d.tracer_rate = 100.0f;
    d.enabled = true;
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &d, &id), EDDY_OK);
    emitter *e = &w->emitters[0];
    e->alive = true;
    e->generation = 1;
    e->vorton_remainder = 0.5f;
    e->tracer_remainder = 0.0f;
    e->pending_vortons = 0;
    e->pending_tracers = 3;
    w->frame = 3;
    w->rng.state = 0x853c49e6748fea9bull;
    w->rng.inc = 0xda3e39cb94b95bdbull;
    w->gravity = (eddy_vec3){0.0f, 0.0f, -10.0f};
    w->wind = (eddy_vec3){1.5f, 0.0f, 0.0f};
    eddy_diagnostics diag = {{0.0, 0.0, 0.5}, {0.25, 0.0, 0.0}, {0.0, 0.0, 1.0}, 2.0, -0.75};
    w->diagnostics = diag;
    w->grid_valid = true;
    for (int i = 0; i < 3; ++i) {
        w->grid.min[i] = -1.0f;
        w->grid.spacing[i] = 0.5f;
        w->grid.cells[i] = 4;
    }
    w->mollify = 1.0f;
    return w;
}

Test(hash, worked_example_of_the_spec) {
    eddy_world *w = worked_example_world();
    eddy_frame_hash h = fresh_hash(w);
    assert_hash_eq(h, spec_frame(w), "worked example vs independent implementation");
    uint64_t vb, tb, gb;
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_VORTONS, &vb, 1), 1);
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, &tb, 1), 1);
    cr_assert_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_GLOBALS, &gb, 1), 1);
    /* Values stated in docs/hash-spec.md, section "Worked example". */
    cr_expect_eq(vb, WORKED_VORTON_BLOCK, "vorton block %016llx", (unsigned long long)vb);
    cr_expect_eq(tb, WORKED_TRACER_BLOCK, "tracer block %016llx", (unsigned long long)tb);
    cr_expect_eq(gb, WORKED_GLOBALS_BLOCK, "globals block %016llx", (unsigned long long)gb);
    for (int c = 0; c < 4; ++c)
        cr_expect_eq(h.component[c], worked_component[c], "component %s %016llx",
                     eddy_component_name((eddy_component)c), (unsigned long long)h.component[c]);
    cr_expect_eq(h.frame_hash, WORKED_FRAME, "frame hash %016llx", (unsigned long long)h.frame_hash);
    eddy_world_destroy(w);
}
