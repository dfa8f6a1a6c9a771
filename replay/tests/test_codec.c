/* SPDX-License-Identifier: MIT */
/* Wire encodings of the world definition and the per-frame input: round
 * trips, canonical bytes, the documented example, and decoders that refuse
 * every cut, damaged or foreign byte string with a status and a message
 * (and never crash). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "replay_testkit.h"

static eddy_vec3 v3(float x, float y, float z) { return (eddy_vec3){x, y, z}; }

/* ---------------------------------------------------------------- world def */
static eddy_world_def odd_def(void) {
    eddy_world_def d = eddy_world_def_default();
    d.dt = 0.02f;
    d.substeps = 3;
    d.viscosity = 0.0f;
    d.vorticity_dissipation = 0.5f;
    d.density_diffusivity = 2e-3f;
    d.density_relaxation = 0.25f;
    d.ambient_density = 1.25f;
    d.gravity = v3(0.5f, -0.0f, -9.5f);
    d.wind = v3(1.0f, 2.0f, 3.0f);
    d.stretch_gain = -1.5f;
    d.mollify_length_scale = 0.0f;
    d.velocity_method = EDDY_VELOCITY_DIRECT_GRID;
    d.vorton_radius = 0.3f;
    d.tracer_radius = 0.05f;
    d.vorton_max_age = 17;
    d.tracer_max_age = -1;
    d.seed = 0x0123456789abcdefull;
    d.ambient_temperature = 280.0f;
    d.fluid_specific_heat = 2.0f;
    d.boundary_thickness = 2.5f;
    d.shedding_gain = 0.75f;
    d.spin_gain = -1.0f;
    d.tracer_restitution = 0.5f;
    d.wall_poisoning = EDDY_WALL_POISON_VORTON_HITS;
    d.flush_denormals = true; /* not the default */
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE; /* version 2 */
    d.vorton_step = EDDY_VORTON_STEP_EULER; /* not the default: versions 1 and 2 */
    d.diffusion = EDDY_DIFFUSION_SEED;      /* not the default: versions 1 to 3 */
    d.body_coupling = EDDY_BODY_COUPLING_TRACERS; /* not the default: versions 1 to 3 */
    d.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES; /* not the default: versions 1 to 4 */
    return d;
}

static bool same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

Test(codec, world_def_round_trip_keeps_physics_and_the_callers_threading) {
    const eddy_world_def d = odd_def();
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 133, "version 2: version 1's 125 bytes + the treecode traversal");
    eddy_world_def out = eddy_world_def_default();
    out.worker_count = 7;
    out.hash_every_step = false;
    char message[256];
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.worker_count, 7);
    cr_assert_eq(out.hash_every_step, false);
    cr_assert(same_bits(out.gravity.y, -0.0f));
    cr_assert_eq(out.seed, d.seed);
    cr_assert_eq(out.wall_poisoning, EDDY_WALL_POISON_VORTON_HITS);
    cr_assert_eq(out.velocity_method, EDDY_VELOCITY_DIRECT_GRID);
    cr_assert_eq(out.flush_denormals, true);
    eddy_bytes again = {0};
    cr_assert_eq(eddy_world_def_encode(&out, &again), EDDY_OK);
    cr_assert(again.size == b.size && memcmp(again.data, b.data, b.size) == 0);
    eddy_bytes_free(&b);
    eddy_bytes_free(&again);
    eddy_bytes_free(&again); /* freeing twice is harmless */
}

Test(codec, world_def_decode_refuses_and_names_the_problem) {
    eddy_world_def d = eddy_world_def_default();
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE; /* version 2 */
    d.vorton_step = EDDY_VORTON_STEP_EULER;
    d.diffusion = EDDY_DIFFUSION_SEED;
    d.body_coupling = EDDY_BODY_COUPLING_TRACERS;
    d.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES;
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    char message[256];
    eddy_world_def out = eddy_world_def_default();
    for (size_t n = 0; n < b.size; ++n)
        cr_assert_eq(eddy_world_def_decode(b.data, n, &out, message, sizeof message),
                     EDDY_ERROR_TRUNCATED, "%zu bytes: %s", n, message);
    testkit_append(&b, "", 1);
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    b.size -= 1;
    b.data[4] = 9; /* version */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_VERSION);
    cr_assert(strstr(message, "version 9") != NULL, "%s", message);
    b.data[4] = 2;
    b.data[124] = 2; /* flush_denormals is a bool */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "flush_denormals") != NULL, "%s", message);
    b.data[124] = 1;
    const float negative = -1.0f; /* dt at offset 8 */
    memcpy(b.data + 8, &negative, 4);
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(message, "dt") != NULL, "%s", message);
    b.data[0] = 'X';
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert_eq(out.dt, d.dt, "a failed decode changed the def");
    eddy_bytes_free(&b);
}

/* A definition with the original traversal is written in version 1's 125
 * bytes (the bytes of builds before the traversal field, so old replays and
 * snapshots keep their digests) and reads back as the original traversal. */
Test(codec, original_traversal_keeps_version_1_bytes) {
    eddy_world_def d = odd_def();
    d.treecode_traversal = EDDY_TREECODE_ORIGINAL;
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 125);
    cr_assert_eq(b.data[4], 1, "version 1");
    eddy_world_def out = eddy_world_def_default();
    char message[256];
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.treecode_traversal, EDDY_TREECODE_ORIGINAL);
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE;
    d.treecode_opening_angle = 0.75f;
    eddy_bytes_free(&b);
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.data[4], 2, "version 2");
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.treecode_traversal, EDDY_TREECODE_MULTIPOLE);
    cr_assert_eq(out.treecode_opening_angle, 0.75f);
    b.data[125] = 7; /* traversal */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "treecode_traversal") != NULL, "%s", message);
    b.data[125] = 0;
    const float wide = 3.0f; /* opening angle at offset 129 */
    memcpy(b.data + 129, &wide, 4);
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(message, "treecode_opening_angle") != NULL, "%s", message);
    eddy_bytes_free(&b);
}

/* EDDY_VELOCITY_TREECODE_VORTONS (3) is a value of the velocity_method field
 * (u32 at offset 68), no new layout: it reads back; 4 is refused as corrupt
 * (the message names the field), and the walk at the vortons with the
 * original traversal as an invalid definition (the message names the
 * traversal it needs). */
Test(codec, treecode_vortons_method_round_trips) {
    eddy_world_def d = odd_def();
    d.velocity_method = EDDY_VELOCITY_TREECODE_VORTONS;
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE;
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    eddy_world_def out = eddy_world_def_default();
    char message[256];
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.velocity_method, EDDY_VELOCITY_TREECODE_VORTONS);
    const uint32_t unknown = 4;
    memcpy(b.data + 68, &unknown, 4);
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "velocity_method") != NULL, "%s", message);
    eddy_bytes_free(&b);
    d.treecode_traversal = EDDY_TREECODE_ORIGINAL;
    char why[256];
    cr_assert_eq(eddy_world_def_validate(&d, why, sizeof why), EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(why, "EDDY_TREECODE_MULTIPOLE") != NULL, "%s", why);
}

/* A body coupling other than the seed's (EDDY_BODY_COUPLING_FLOW, the
 * default) is written in version 4: version 3's 137 bytes and the coupling
 * (u32), whatever the traversal and step; an unknown coupling is refused by
 * the decoder. Versions 1 to 3 decode to the seed's coupling. */
Test(codec, body_coupling_is_written_in_version_4) {
    char message[256];
    eddy_world_def d = odd_def();
    d.body_coupling = EDDY_BODY_COUPLING_FLOW;
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 145, "version 4: version 3's 137 bytes + the diffusion and the body coupling");
    cr_assert_eq(b.data[4], 4, "version 4");
    eddy_world_def out = eddy_world_def_default();
    out.body_coupling = EDDY_BODY_COUPLING_TRACERS;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.body_coupling, EDDY_BODY_COUPLING_FLOW);
    cr_assert_eq(out.vorton_step, EDDY_VORTON_STEP_EULER);
    b.data[141] = 5; /* body_coupling, after the diffusion */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "body_coupling") != NULL, "%s", message);
    eddy_bytes_free(&b);
    eddy_world_def old = odd_def(); /* the seed's coupling: version 2 */
    cr_assert_eq(eddy_world_def_encode(&old, &b), EDDY_OK);
    cr_assert_eq(b.data[4], 2);
    out.body_coupling = EDDY_BODY_COUPLING_FLOW;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.body_coupling, EDDY_BODY_COUPLING_TRACERS);
    eddy_bytes_free(&b);
}

/* A step other than Euler's (EDDY_VORTON_STEP_HEUN, _STRETCH_AB2) is written
 * in version 3: version 2's 133 bytes and the step (u32), whatever the
 * traversal; Euler's step keeps versions 1 and 2 (above). An unknown step is
 * refused by the decoder and by the definition's validation. */
Test(codec, vorton_step_is_written_in_version_3) {
    const eddy_treecode_traversal traversals[] = {EDDY_TREECODE_ORIGINAL, EDDY_TREECODE_MULTIPOLE};
    const eddy_vorton_step steps[] = {EDDY_VORTON_STEP_HEUN, EDDY_VORTON_STEP_STRETCH_AB2,
                                      EDDY_VORTON_STEP_HEUN_ADAPTIVE};
    char message[256];
    for (int t = 0; t < 6; ++t) {
        eddy_world_def d = odd_def();
        d.treecode_traversal = traversals[t % 2];
        d.vorton_step = steps[t / 2];
        eddy_bytes b = {0};
        cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
        cr_assert_eq(b.size, 137, "version 3: version 2's 133 bytes + the vorton step");
        cr_assert_eq(b.data[4], 3, "version 3");
        eddy_world_def out = eddy_world_def_default();
        cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                     "%s", message);
        cr_assert_eq(out.vorton_step, steps[t / 2]);
        cr_assert_eq(out.treecode_traversal, traversals[t % 2]);
        b.data[133] = 5; /* vorton_step */
        cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                     EDDY_ERROR_CORRUPT);
        cr_assert(strstr(message, "vorton_step") != NULL, "%s", message);
        cr_assert_eq(out.vorton_step, steps[t / 2], "a failed decode changed the def");
        eddy_bytes_free(&b);
    }
    eddy_world_def d = eddy_world_def_default();
    d.diffusion = EDDY_DIFFUSION_SEED;
    cr_assert_eq(d.vorton_step, EDDY_VORTON_STEP_STRETCH_AB2, "the default step");
    d.body_coupling = EDDY_BODY_COUPLING_TRACERS; /* the default's is version 4 (below) */
    d.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES; /* the default's is version 5 (below) */
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.data[4], 3, "the default's step is written in version 3");
    eddy_bytes_free(&b);
    d.vorton_step = EDDY_VORTON_STEP_EULER;
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert(b.data[4] < 3, "Euler's step keeps the older versions");
    eddy_bytes_free(&b);
    d.vorton_step = (eddy_vorton_step)9;
    cr_assert_eq(eddy_world_def_validate(&d, message, sizeof message), EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(message, "vorton_step") != NULL, "%s", message);
}

/* ---------------------------------------------------------------- input */
typedef struct full_input {
    eddy_input input;
    eddy_emitter_command em[7];
    eddy_body_command body[8];
} full_input;

static void fill_emitter_commands(full_input *f) {
    for (int k = 0; k < 7; ++k) {
        eddy_emitter_command *c = &f->em[k];
        c->type = (eddy_emitter_command_type)(k + 1);
        c->emitter = (eddy_emitter_id){k + 1, (uint16_t)(100 + k)};
    }
    f->em[2].vorton_rate = 1.5f;
    f->em[2].tracer_rate = 2.5f;
    f->em[3].vorton_count = 3;
    f->em[3].tracer_count = -4;
    f->em[4].position = v3(1.0f, -2.0f, 3.0f);
    f->em[5].def = eddy_emitter_def_default();
    f->em[5].def.vorticity_spread = v3(0.25f, 0.5f, 0.75f);
    f->em[5].def.enabled = false;
}

static void fill_body_commands(full_input *f) {
    for (int k = 0; k < 8; ++k) {
        eddy_body_command *c = &f->body[k];
        c->type = (eddy_body_command_type)(k % 7 + 1);
        c->body = (eddy_body_id){k + 1, (uint16_t)(7 * k)};
        c->vector = v3(0.5f * (float)k, 1.0f, -1.0f);
        c->point = v3(2.0f, 0.0f, -0.0f);
        c->position = v3(3.0f, 4.0f, 5.0f);
        c->orientation = (eddy_quat){0.0f, 0.6f, 0.0f, 0.8f};
        c->linear_velocity = v3(-1.0f, 0.0f, 0.0f);
        c->angular_velocity = v3(0.0f, 0.0f, 9.0f);
    }
    f->body[0].def = eddy_body_def_default();
    f->body[0].def.shape = eddy_shape_hole(eddy_shape_box(v3(1.0f, 2.0f, 3.0f)));
    f->body[0].def.type = EDDY_BODY_KINEMATIC;
    f->body[7].type = EDDY_BODY_CREATE;
    f->body[7].def = eddy_body_def_default();
    f->body[7].def.gravity = false;
    f->body[7].def.restitution = 0.75f;
}

static const eddy_input *full(full_input *f) {
    memset(f, 0, sizeof *f);
    fill_emitter_commands(f);
    fill_body_commands(f);
    f->input.flags = EDDY_INPUT_SET_GRAVITY | EDDY_INPUT_SET_WIND;
    f->input.gravity = v3(0.0f, 0.0f, -1.0f);
    f->input.wind = v3(0.125f, 0.0f, 0.0f);
    f->input.emitter_commands = f->em;
    f->input.emitter_command_count = 7;
    f->input.body_commands = f->body;
    f->input.body_command_count = 8;
    return &f->input;
}

static void encode(const eddy_input *in, eddy_bytes *out) {
    out->size = 0;
    cr_assert_eq(eddy_input_encode(in, out), EDDY_OK);
}

Test(codec, input_round_trip_of_every_command) {
    full_input f;
    eddy_bytes b = {0}, again = {0};
    encode(full(&f), &b);
    eddy_input_storage *s = eddy_input_storage_create();
    const eddy_input *in;
    char message[256];
    cr_assert_eq(eddy_input_decode(b.data, b.size, s, &in, message, sizeof message), EDDY_OK, "%s",
                 message);
    cr_assert_eq(in->emitter_command_count, 7);
    cr_assert_eq(in->body_command_count, 8);
    cr_assert_eq(in->emitter_commands[3].tracer_count, -4);
    cr_assert_eq(in->emitter_commands[5].def.enabled, false);
    cr_assert(same_bits(in->emitter_commands[5].def.vorticity_spread.z, 0.75f));
    const eddy_body_def *bd = &in->body_commands[0].def;
    cr_assert_eq(bd->shape.type, EDDY_SHAPE_POLYTOPE);
    cr_assert_eq(bd->shape.plane_count, 6);
    cr_assert_eq(bd->shape.hole, true);
    cr_assert_eq(bd->type, EDDY_BODY_KINEMATIC);
    cr_assert_eq(in->body_commands[7].def.gravity, false);
    cr_assert(same_bits(in->body_commands[7].def.restitution, 0.75f));
    cr_assert_eq(in->body_commands[4].body.generation, 28);
    cr_assert(same_bits(in->body_commands[4].point.z, -0.0f));
    encode(in, &again);
    cr_assert(again.size == b.size && memcmp(again.data, b.data, b.size) == 0);
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&b);
    eddy_bytes_free(&again);
}

Test(codec, input_encoding_is_canonical) {
    eddy_bytes a = {0}, b = {0};
    eddy_input none = {0};
    encode(NULL, &a);
    cr_assert_eq(a.size, 14, "an empty input is version, flags and two counts");
    encode(&none, &b);
    cr_assert(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
    /* Fields a command or a flag does not use do not reach the bytes. */
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.type = EDDY_EMITTER_ENABLE;
    c.emitter = (eddy_emitter_id){1, 1};
    eddy_input in = {0};
    in.emitter_commands = &c;
    in.emitter_command_count = 1;
    encode(&in, &a);
    c.vorton_rate = 99.0f;
    c.position = v3(1.0f, 1.0f, 1.0f);
    in.gravity = v3(5.0f, 5.0f, 5.0f);
    encode(&in, &b);
    cr_assert(a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
    eddy_bytes_free(&a);
    eddy_bytes_free(&b);
}

/* The example in docs/snapshot-format.md §4. */
Test(codec, input_matches_the_documented_example) {
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.type = EDDY_EMITTER_BURST;
    c.emitter = (eddy_emitter_id){1, 1};
    c.vorton_count = 2;
    c.tracer_count = 300;
    eddy_input in = {0};
    in.flags = EDDY_INPUT_SET_WIND;
    in.wind = v3(1.5f, 0.0f, -0.0f);
    in.emitter_commands = &c;
    in.emitter_command_count = 1;
    static const uint8_t expected[] = {
        0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x02, 0x00, 0x00, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    eddy_bytes b = {0};
    encode(&in, &b);
    cr_assert_eq(b.size, sizeof expected);
    for (size_t i = 0; i < b.size; ++i)
        cr_assert_eq(b.data[i], expected[i], "byte %zu is %02x, the document says %02x", i,
                     b.data[i], expected[i]);
    eddy_bytes_free(&b);
}

Test(codec, input_encode_refuses_what_it_cannot_represent) {
    eddy_bytes b = {0};
    eddy_input in = {0};
    in.flags = 0x80;
    cr_assert_eq(eddy_input_encode(&in, &b), EDDY_ERROR_INVALID_ARGUMENT);
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.type = (eddy_emitter_command_type)42;
    in.flags = 0;
    in.emitter_commands = &c;
    in.emitter_command_count = 1;
    cr_assert_eq(eddy_input_encode(&in, &b), EDDY_ERROR_INVALID_ARGUMENT);
    in.emitter_command_count = -1;
    cr_assert_eq(eddy_input_encode(&in, &b), EDDY_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(b.size, 0, "a refused input appended bytes");
    eddy_bytes_free(&b);
}

/* Decoding is total: any byte string either fails with a message or decodes
 * to an input whose encoding is exactly that byte string. */
static void check_total(eddy_input_storage *s, const uint8_t *data, size_t size, eddy_bytes *tmp) {
    const eddy_input *in;
    char message[256] = "unset";
    eddy_status st = eddy_input_decode(data, size, s, &in, message, sizeof message);
    if (st != EDDY_OK) {
        cr_assert(st == EDDY_ERROR_TRUNCATED || st == EDDY_ERROR_CORRUPT || st == EDDY_ERROR_VERSION,
                  "%s", eddy_status_name(st));
        cr_assert(message[0] != '\0');
        cr_assert_null(in);
        return;
    }
    tmp->size = 0;
    cr_assert_eq(eddy_input_encode(in, tmp), EDDY_OK);
    cr_assert(tmp->size == size && memcmp(tmp->data, data, size) == 0,
              "decoded bytes re-encode differently");
}

Test(codec, input_decode_is_total_under_cuts_and_bit_flips) {
    full_input f;
    eddy_bytes b = {0}, tmp = {0};
    encode(full(&f), &b);
    eddy_input_storage *s = eddy_input_storage_create();
    for (size_t n = 0; n < b.size; ++n) {
        const eddy_input *in;
        char message[256];
        cr_assert_neq(eddy_input_decode(b.data, n, s, &in, message, sizeof message), EDDY_OK,
                      "a prefix of %zu bytes decoded", n);
    }
    for (size_t i = 0; i < b.size; ++i)
        for (int bit = 0; bit < 8; ++bit) {
            b.data[i] ^= (uint8_t)(1u << bit);
            check_total(s, b.data, b.size, &tmp);
            b.data[i] ^= (uint8_t)(1u << bit);
        }
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&b);
    eddy_bytes_free(&tmp);
}

Test(codec, input_decode_survives_random_bytes) {
    eddy_rng rng = eddy_rng_seed(42, 3);
    uint8_t buf[96];
    eddy_bytes tmp = {0};
    eddy_input_storage *s = eddy_input_storage_create();
    for (int round = 0; round < 20000; ++round) {
        const size_t n = eddy_rng_next_u32(&rng) % sizeof buf;
        for (size_t i = 0; i < n; ++i) buf[i] = (uint8_t)eddy_rng_next_u32(&rng);
        if (n >= 2 && round % 2 == 0) buf[0] = 1, buf[1] = 0; /* a valid version: go deeper */
        if (n >= 6 && round % 4 == 0) buf[2] = buf[3] = buf[4] = buf[5] = 0;
        check_total(s, buf, n, &tmp);
    }
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&tmp);
}

/* A body's friction and restitution reach the bytes only when they are not
 * the defaults (flags bit 1), so every other body keeps its old bytes; a
 * decoded value outside its range, or a flags byte above 3, is refused. */
static void encode_create(const eddy_body_def *d, eddy_bytes *out) {
    eddy_body_command c;
    memset(&c, 0, sizeof c);
    c.type = EDDY_BODY_CREATE;
    c.def = *d;
    eddy_input in = {0};
    in.body_commands = &c;
    in.body_command_count = 1;
    encode(&in, out);
}

Test(codec, body_material_is_written_only_when_set) {
    eddy_bytes plain = {0}, material = {0};
    eddy_body_def d = eddy_body_def_default();
    encode_create(&d, &plain);
    cr_assert_eq(plain.data[plain.size - 1], 1, "default body: the flags byte is gravity alone");
    d.friction = 0.25f;
    d.restitution = 0.625f;
    encode_create(&d, &material);
    cr_assert_eq(material.size, plain.size + 8, "friction and restitution: 8 more bytes");
    cr_assert_eq(material.data[material.size - 9], 3);
    eddy_input_storage *s = eddy_input_storage_create();
    const eddy_input *out;
    char message[256];
    cr_assert_eq(eddy_input_decode(material.data, material.size, s, &out, message, sizeof message),
                 EDDY_OK, "%s", message);
    cr_assert(same_bits(out->body_commands[0].def.friction, 0.25f));
    cr_assert(same_bits(out->body_commands[0].def.restitution, 0.625f));
    cr_assert_eq(eddy_input_decode(plain.data, plain.size, s, &out, message, sizeof message),
                 EDDY_OK, "%s", message);
    cr_assert(same_bits(out->body_commands[0].def.friction, 0.5f));
    cr_assert(same_bits(out->body_commands[0].def.restitution, 0.0f));
    /* restitution 1.5 (0x3fc00000, little-endian) is out of range */
    material.data[material.size - 2] = 0xc0;
    material.data[material.size - 1] = 0x3f;
    cr_assert_eq(eddy_input_decode(material.data, material.size, s, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "restitution") != NULL, "%s", message);
    plain.data[plain.size - 1] = 4;
    cr_assert_eq(eddy_input_decode(plain.data, plain.size, s, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "flags") != NULL, "%s", message);
    plain.data[plain.size - 1] = 3; /* material announced, not there */
    cr_assert_neq(eddy_input_decode(plain.data, plain.size, s, &out, message, sizeof message),
                  EDDY_OK);
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&plain);
    eddy_bytes_free(&material);
}

Test(codec, input_decode_refuses_version_and_bad_bools) {
    eddy_bytes b = {0};
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.type = EDDY_EMITTER_CREATE;
    c.def = eddy_emitter_def_default();
    eddy_input in = {0};
    in.emitter_commands = &c;
    in.emitter_command_count = 1;
    encode(&in, &b);
    eddy_input_storage *s = eddy_input_storage_create();
    const eddy_input *out;
    char message[256];
    b.data[b.size - 5] = 2; /* the emitter def's enabled flag, before the body count */
    cr_assert_eq(eddy_input_decode(b.data, b.size, s, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "enabled") != NULL, "%s", message);
    b.data[0] = EDDY_INPUT_ENCODING_VERSION + 1; /* 2 is the blasts' version, read */
    cr_assert_eq(eddy_input_decode(b.data, b.size, s, &out, message, sizeof message),
                 EDDY_ERROR_VERSION);
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&b);
}

/* A diffusion other than the seed's (EDDY_DIFFUSION_NORMALISED, the default)
 * is written in version 4: version 3's 137 bytes and the diffusion (u32);
 * the seed's keeps versions 1 to 3 (above), which decode as the seed's. An
 * unknown diffusion is refused by the decoder. */
Test(codec, diffusion_is_written_in_version_4) {
    char message[256];
    eddy_world_def d = eddy_world_def_default();
    cr_assert_eq(d.diffusion, EDDY_DIFFUSION_NORMALISED, "the default diffusion");
    d.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES; /* else version 5 (below) */
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 145, "version 4: version 3's 137 bytes + the diffusion and the body coupling");
    cr_assert_eq(b.data[4], 4, "version 4");
    eddy_world_def out = eddy_world_def_default();
    out.diffusion = EDDY_DIFFUSION_SEED;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.diffusion, EDDY_DIFFUSION_NORMALISED);
    b.data[137] = 7; /* diffusion */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "diffusion") != NULL, "%s", message);
    eddy_bytes_free(&b);
    eddy_world_def old = odd_def(); /* the seed's diffusion: version 2 */
    cr_assert_eq(eddy_world_def_encode(&old, &b), EDDY_OK);
    out.diffusion = EDDY_DIFFUSION_NORMALISED;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.diffusion, EDDY_DIFFUSION_SEED, "older versions decode as the seed's");
    eddy_bytes_free(&b);
    d.diffusion = (eddy_diffusion)2;
    char why[200];
    cr_assert_eq(eddy_world_def_validate(&d, why, sizeof why), EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(why, "diffusion") != NULL, "%s", why);
}

/* A grid from the vortons alone (EDDY_GRID_EXTENT_VORTONS, the default) is
 * written in version 5: version 4's 145 bytes and the extent (u32); the
 * seed's grid keeps versions 1 to 4, which decode to it. An unknown extent
 * is refused by the decoder, naming the field. */
Test(codec, grid_extent_is_written_in_version_5) {
    char message[256];
    eddy_world_def d = eddy_world_def_default();
    cr_assert_eq(d.grid_extent, EDDY_GRID_EXTENT_VORTONS, "the default grid");
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 149, "version 5: version 4's 145 bytes + the grid extent");
    cr_assert_eq(b.data[4], 5, "version 5");
    eddy_world_def out = eddy_world_def_default();
    out.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.grid_extent, EDDY_GRID_EXTENT_VORTONS);
    b.data[145] = 2; /* the cubic cells of the vortons' grid */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.grid_extent, EDDY_GRID_EXTENT_VORTONS_CUBIC);
    b.data[145] = EDDY_GRID_EXTENT_ALL_PARTICLES; /* held by version 4: not canonical */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "oldest version") != NULL, "%s", message);
    b.data[145] = 9; /* grid_extent */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "grid_extent") != NULL, "%s", message);
    /* the seed's grid with the default exchanges: version 4, decoding to the seed's grid */
    eddy_bytes_free(&b);
    d.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES;
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 145);
    cr_assert_eq(b.data[4], 4, "version 4");
    out.grid_extent = EDDY_GRID_EXTENT_VORTONS;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.grid_extent, EDDY_GRID_EXTENT_ALL_PARTICLES);
    eddy_bytes_free(&b);
}

/* A non-zero vorticity alignment is written in version 6: version 5's 149
 * bytes and the alignment (f32); a definition without it keeps version 5 and
 * its bytes, and versions 1 to 5 decode to 0. An alignment out of range is
 * refused by the decoder's validation, naming the field. */
Test(codec, vorticity_alignment_is_written_in_version_6) {
    char message[256];
    eddy_world_def d = eddy_world_def_default();
    cr_assert_eq(d.vorticity_alignment, 0.0f, "off by default");
    d.vorticity_alignment = 0.5f;
    eddy_bytes b = {0};
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 153, "version 6: version 5's 149 bytes + the alignment");
    cr_assert_eq(b.data[4], 6, "version 6");
    eddy_world_def out = eddy_world_def_default();
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.vorticity_alignment, 0.5f);
    const float bad[] = {-1.0f, 17.0f, NAN};
    for (int k = 0; k < 3; ++k) {
        uint32_t u;
        memcpy(&u, &bad[k], sizeof u);
        for (int i = 0; i < 4; ++i) b.data[149 + i] = (uint8_t)(u >> (8 * i)); /* little-endian */
        cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                     EDDY_ERROR_INVALID_DEF, "alignment %g", (double)bad[k]);
        cr_assert(strstr(message, "vorticity_alignment") != NULL, "%s", message);
    }
    /* version 6 with an alignment of 0 (or -0) is not how eddy writes it:
     * refused, not re-encoded to other bytes (found by fuzz_replay) */
    for (int i = 0; i < 4; ++i) b.data[149 + i] = 0;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "oldest version") != NULL, "%s", message);
    b.data[152] = 0x80; /* -0 */
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message),
                 EDDY_ERROR_CORRUPT);
    /* without it: version 5, decoding to 0 */
    eddy_bytes_free(&b);
    d.vorticity_alignment = 0.0f;
    cr_assert_eq(eddy_world_def_encode(&d, &b), EDDY_OK);
    cr_assert_eq(b.size, 149);
    cr_assert_eq(b.data[4], 5, "version 5");
    out.vorticity_alignment = 2.0f;
    cr_assert_eq(eddy_world_def_decode(b.data, b.size, &out, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(out.vorticity_alignment, 0.0f);
    eddy_bytes_free(&b);
}
