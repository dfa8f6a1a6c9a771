/* SPDX-License-Identifier: MIT */
/* Misuse of the public API, as a careless game would do it: degenerate or
 * extreme definitions, values outside the documented ranges (types.h,
 * shape.h), unknown command types, stale ids after many slot reuses, states
 * that blow up. Every case checks three things: the status names the right
 * cause, the message names the command and the field, and the world is not
 * lost (nothing changed, the next step succeeds, or after a blow-up the
 * world asks for a restore and steps again once restored).
 *
 * Only the public API is used, except where a test writes a NaN into a
 * state to exercise the end-of-step check. */
#include <criterion/criterion.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/snapshot.h"
#include "eddy/view.h"

#include "core/core.h" /* only to write a NaN into a state: the rest is public API */

/* ================================================================ helpers */

static eddy_world *make_world(void) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 1;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK, "%s", eddy_last_error_message());
    return w;
}

static void step_ok(eddy_world *w, const eddy_input *in) {
    const eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, EDDY_OK, "step %lld: %s (%s)", (long long)eddy_world_frame(w),
                 eddy_status_name(s), eddy_world_error_message(w));
}

/* A world with a few vortons and one body, stepped twice. */
static eddy_world *busy_world(void) {
    eddy_world *w = make_world();
    eddy_vorton v[4];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; ++i) {
        v[i].position = (eddy_vec3){0.3f * (float)i, 0.0f, 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, 4), EDDY_OK);
    eddy_body_def b = eddy_body_def_default();
    b.position = (eddy_vec3){0.0f, 2.0f, 0.0f};
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK);
    step_ok(w, NULL);
    step_ok(w, NULL);
    return w;
}

static bool contains(const char *text, const char *part) { return strstr(text, part) != NULL; }

/* The message of w contains every one of up to three parts. */
static void expect_message(const eddy_world *w, const char *a, const char *b, const char *c) {
    const char *m = eddy_world_error_message(w);
    cr_expect(contains(m, a) && (!b || contains(m, b)) && (!c || contains(m, c)),
              "message \"%s\" should name \"%s\" %s %s", m, a, b ? b : "", c ? c : "");
}

/* The step with `in` is refused with `want`, changes nothing (same hash) and
 * the next empty step succeeds. */
static void expect_step_refused(eddy_world *w, const eddy_input *in, eddy_status want) {
    const eddy_frame_hash before = eddy_world_hash(w);
    const eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, want, "step: %s, want %s (%s)", eddy_status_name(s), eddy_status_name(want),
                 eddy_world_error_message(w));
    const eddy_frame_hash after = eddy_world_hash(w);
    cr_assert(before.frame == after.frame && before.frame_hash == after.frame_hash,
              "a refused input changed the world");
    step_ok(w, NULL);
}

static eddy_input body_input(const eddy_body_command *c) {
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.body_commands = c;
    in.body_command_count = 1;
    return in;
}

static eddy_input emitter_input(const eddy_emitter_command *c) {
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.emitter_commands = c;
    in.emitter_command_count = 1;
    return in;
}

/* ================================================================ degenerate bodies */

typedef struct bad_body {
    const char *what;
    const char *field;   /* the message must name it */
    float radius, mass, temperature, heat_capacity;
    float speed, spin, coordinate;
} bad_body;

static const bad_body k_bad_bodies[] = {
    {"tiny sphere", "radius", 1e-30f, 1.0f, 300.0f, 1e5f, 0.0f, 0.0f, 0.0f},
    {"huge sphere", "radius", 1e30f, 1.0f, 300.0f, 1e5f, 0.0f, 0.0f, 0.0f},
    {"tiny mass", "mass", 0.5f, 1e-40f, 300.0f, 1e5f, 0.0f, 0.0f, 0.0f},
    {"huge mass", "mass", 0.5f, 3e38f, 300.0f, 1e5f, 0.0f, 0.0f, 0.0f},
    {"hot body", "temperature", 0.5f, 1.0f, 3e38f, 1e5f, 0.0f, 0.0f, 0.0f},
    {"tiny heat capacity", "heat_capacity", 0.5f, 1.0f, 300.0f, 1e-38f, 0.0f, 0.0f, 0.0f},
    {"fast body", "linear_velocity", 0.5f, 1.0f, 300.0f, 1e5f, 3e38f, 0.0f, 0.0f},
    {"spinning body", "angular_velocity", 0.5f, 1.0f, 300.0f, 1e5f, 0.0f, 3e38f, 0.0f},
    {"far body", "position", 0.5f, 1.0f, 300.0f, 1e5f, 0.0f, 0.0f, 3e38f},
};

static eddy_body_def bad_body_def(const bad_body *b) {
    eddy_body_def d = eddy_body_def_default();
    d.shape = eddy_shape_sphere(b->radius);
    d.mass = b->mass;
    d.temperature = b->temperature;
    d.heat_capacity = b->heat_capacity;
    d.linear_velocity.x = b->speed;
    d.angular_velocity.y = b->spin;
    d.position.z = b->coordinate;
    return d;
}

Test(misuse, extreme_body_defs_are_invalid_definitions) {
    for (size_t k = 0; k < sizeof k_bad_bodies / sizeof k_bad_bodies[0]; ++k) {
        eddy_world *w = make_world();
        const eddy_body_def d = bad_body_def(&k_bad_bodies[k]);
        eddy_body_id id = {7, 7};
        const eddy_status s = eddy_world_create_body(w, &d, &id);
        cr_expect_eq(s, EDDY_ERROR_INVALID_DEF, "%s: %s (%s)", k_bad_bodies[k].what,
                     eddy_status_name(s), eddy_world_error_message(w));
        cr_expect(id.index1 == 0 && eddy_world_body_count(w) == 0, "%s: a body was made",
                  k_bad_bodies[k].what);
        expect_message(w, k_bad_bodies[k].field, NULL, NULL);
        step_ok(w, NULL);
        eddy_world_destroy(w);
    }
}

Test(misuse, extreme_body_create_commands_leave_the_world_stepping) {
    eddy_world *w = busy_world();
    for (size_t k = 0; k < sizeof k_bad_bodies / sizeof k_bad_bodies[0]; ++k) {
        eddy_body_command c;
        memset(&c, 0, sizeof c);
        c.type = EDDY_BODY_CREATE;
        c.def = bad_body_def(&k_bad_bodies[k]);
        const eddy_input in = body_input(&c);
        expect_step_refused(w, &in, EDDY_ERROR_INVALID_DEF);
        expect_message(w, "body command 0", "create", k_bad_bodies[k].field);
        cr_expect_eq(eddy_world_body_count(w), 1, "%s", k_bad_bodies[k].what);
    }
    eddy_world_destroy(w);
}

Test(misuse, needle_box_is_refused_by_its_aspect_ratio) {
    const eddy_shape needle = eddy_shape_box((eddy_vec3){0.5e5f, 0.5e-5f, 0.5e-5f});
    char msg[256];
    cr_expect_eq(eddy_shape_validate(&needle, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "aspect ratio") && !contains(msg, "closed volume"), "%s", msg);
    /* the largest aspect ratio the header promises is accepted */
    const eddy_shape thin = eddy_shape_box((eddy_vec3){1.0f, 1.0e-4f, 1.0e-4f});
    cr_expect_eq(eddy_shape_validate(&thin, msg, sizeof msg), EDDY_OK, "%s", msg);
    eddy_world *w = make_world();
    eddy_body_def d = eddy_body_def_default();
    d.shape = needle;
    eddy_body_id id;
    cr_expect_eq(eddy_world_create_body(w, &d, &id), EDDY_ERROR_INVALID_DEF);
    expect_message(w, "aspect ratio", NULL, NULL);
    d.shape = thin;
    cr_expect_eq(eddy_world_create_body(w, &d, &id), EDDY_OK, "%s", eddy_world_error_message(w));
    step_ok(w, NULL);
    eddy_world_destroy(w);
}

/* ================================================================ ranges */

Test(misuse, particles_outside_the_documented_ranges_are_refused) {
    const float big = 3e38f;
    for (int field = 0; field < 4; ++field) {
        eddy_world *w = make_world();
        eddy_vorton v;
        memset(&v, 0, sizeof v);
        if (field == 0) v.position.x = big;
        if (field == 1) v.velocity.y = -big;
        if (field == 2) v.vorticity.z = big;
        if (field == 3) v.density_deviation = big;
        static const char *const names[] = {"position", "velocity", "vorticity",
                                            "density_deviation"};
        cr_expect_eq(eddy_world_add_vortons(w, &v, 1), EDDY_ERROR_INVALID_ARGUMENT, "%s",
                     names[field]);
        expect_message(w, "vorton 0", names[field], NULL);
        cr_expect_eq(eddy_world_vorton_count(w), 0);
        if (field != 2) {
            eddy_tracer t;
            memset(&t, 0, sizeof t);
            t.position = v.position;
            t.velocity = v.velocity;
            t.density_deviation = v.density_deviation;
            cr_expect_eq(eddy_world_add_tracers(w, &t, 1), EDDY_ERROR_INVALID_ARGUMENT);
            expect_message(w, "tracer 0", names[field], NULL);
        }
        step_ok(w, NULL);
        eddy_world_destroy(w);
    }
}

Test(misuse, world_def_outside_the_documented_ranges_is_invalid) {
    char msg[256];
    eddy_world_def d = eddy_world_def_default();
    d.viscosity = 3e38f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "viscosity"), "%s", msg);
    d = eddy_world_def_default();
    d.density_diffusivity = 3e38f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "density_diffusivity"), "%s", msg);
    d = eddy_world_def_default();
    d.wind.x = 3e38f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "wind"), "%s", msg);
    d = eddy_world_def_default();
    d.gravity.z = -3e38f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "gravity"), "%s", msg);
    d = eddy_world_def_default();
    d.vorton_radius = 1e-30f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "vorton_radius"), "%s", msg);
    d = eddy_world_def_default();
    d.stretch_gain = 3e38f;
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect(contains(msg, "stretch_gain"), "%s", msg);
    const float alignments[] = {-0.5f, 16.5f, 3e38f, NAN};
    for (int k = 0; k < 4; ++k) {
        d = eddy_world_def_default();
        d.vorticity_alignment = alignments[k];
        cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF, "%g",
                     (double)alignments[k]);
        cr_expect(contains(msg, "vorticity_alignment"), "%s", msg);
    }
}

Test(misuse, emitter_defs_and_inputs_outside_the_ranges_are_refused) {
    eddy_world *w = make_world();
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.velocity.x = 3e38f;
    eddy_emitter_id id;
    cr_expect_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_ERROR_INVALID_DEF);
    expect_message(w, "velocity", NULL, NULL);
    ed = eddy_emitter_def_default();
    ed.density_deviation = 3e38f;
    cr_expect_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_ERROR_INVALID_DEF);
    expect_message(w, "density_deviation", NULL, NULL);
    ed = eddy_emitter_def_default();
    ed.position.x = NAN;
    cr_expect_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_ERROR_NAN, "a NaN is a NaN");
    ed = eddy_emitter_def_default();
    ed.vorton_rate = 1.0f;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    step_ok(w, NULL);

    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.emitter = id;
    c.type = EDDY_EMITTER_MOVE;
    c.position = (eddy_vec3){NAN, 0.0f, 0.0f};
    eddy_input in = emitter_input(&c);
    expect_step_refused(w, &in, EDDY_ERROR_NAN);
    expect_message(w, "emitter command 0", "move", "position");
    c.position = (eddy_vec3){3e38f, 0.0f, 0.0f};
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "emitter command 0", "move", "position");
    c.type = EDDY_EMITTER_CREATE;
    c.def = eddy_emitter_def_default();
    c.def.vorticity.x = 3e38f;
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_DEF);
    expect_message(w, "emitter command 0", "create", "vorticity");

    memset(&in, 0, sizeof in);
    in.flags = EDDY_INPUT_SET_WIND;
    in.wind = (eddy_vec3){0.0f, 3e38f, 0.0f};
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "wind", NULL, NULL);
    in.flags = EDDY_INPUT_SET_GRAVITY;
    in.gravity = (eddy_vec3){0.0f, 0.0f, -3e38f};
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "gravity", NULL, NULL);
    eddy_world_destroy(w);
}

/* Each burst within its limit, together beyond it: refused as a whole (the
 * pending count of an emitter could otherwise overflow). */
Test(misuse, bursts_that_add_up_beyond_the_limit_are_refused, .timeout = 30) {
    eddy_world *w = make_world();
    eddy_emitter_def ed = eddy_emitter_def_default();
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    step_ok(w, NULL);
    eddy_emitter_command c[2];
    memset(c, 0, sizeof c);
    for (int k = 0; k < 2; ++k) {
        c[k].emitter = id;
        c[k].type = EDDY_EMITTER_BURST;
        c[k].vorton_count = 600000;
    }
    eddy_input in = emitter_input(c);
    in.emitter_command_count = 2;
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "emitter command 1", "burst", "add up");
    eddy_world_destroy(w);
}

/* A pending count no input can make (a restored or corrupted state): the
 * step fails as out of memory, without overflowing or trying to emit it,
 * before it changes anything (its prelude finds the count beyond what the
 * arrays hold, lib/world.c): the world is unchanged and steps again once the
 * count is gone. */
Test(misuse, an_impossible_pending_burst_fails_cleanly, .timeout = 30) {
    eddy_world *w = make_world();
    eddy_emitter_def ed = eddy_emitter_def_default();
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    step_ok(w, NULL);
    w->emitters[0].pending_vortons = INT32_MAX;
    cr_expect_eq(eddy_world_step(w, NULL), EDDY_ERROR_OUT_OF_MEMORY, "%s",
                 eddy_world_error_message(w));
    cr_expect_eq(eddy_world_vorton_count(w), 0);
    cr_expect_eq(eddy_world_frame(w), 1);
    cr_expect_eq(eddy_world_step(w, NULL), EDDY_ERROR_OUT_OF_MEMORY);
    w->emitters[0].pending_vortons = 0;
    step_ok(w, NULL);
    eddy_world_destroy(w);
}

Test(misuse, body_commands_outside_the_ranges_are_refused) {
    eddy_world *w = busy_world();
    eddy_body_id id;
    cr_assert_eq(eddy_world_get_body_ids(w, &id, 1), 1);
    eddy_body_command c;
    memset(&c, 0, sizeof c);
    c.body = id;
    c.type = EDDY_BODY_FORCE;
    c.vector = (eddy_vec3){3e38f, 0.0f, 0.0f};
    eddy_input in = body_input(&c);
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "body command 0", "force", "vector");
    c.type = EDDY_BODY_IMPULSE;
    c.vector = (eddy_vec3){1.0f, 0.0f, 0.0f};
    c.point = (eddy_vec3){0.0f, 3e38f, 0.0f};
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "body command 0", "impulse", "point");
    c.type = EDDY_BODY_TORQUE;
    c.vector = (eddy_vec3){0.0f, NAN, 0.0f};
    expect_step_refused(w, &in, EDDY_ERROR_NAN);
    expect_message(w, "body command 0", "torque", "vector");
    eddy_world_destroy(w);
}

/* ================================================================ wrong causes */

Test(misuse, unknown_command_types_are_invalid_commands_not_unknown_ids) {
    eddy_world *w = busy_world();
    eddy_emitter_command ec;
    memset(&ec, 0, sizeof ec);
    ec.type = (eddy_emitter_command_type)99;  /* and no emitter at all */
    eddy_input in = emitter_input(&ec);
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "emitter command 0", "unknown type 99", NULL);
    eddy_body_command bc;
    memset(&bc, 0, sizeof bc);
    bc.type = (eddy_body_command_type)99;
    bc.body = (eddy_body_id){42, 3};
    in = body_input(&bc);
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "body command 0", "unknown type 99", NULL);
    /* a bad value in a command naming an unknown emitter: the value is the cause */
    ec.type = EDDY_EMITTER_SET_RATES;
    ec.emitter = (eddy_emitter_id){9, 9};
    ec.vorton_rate = -5.0f;
    in = emitter_input(&ec);
    expect_step_refused(w, &in, EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "emitter command 0", "vorton_rate", NULL);
    /* a good command naming an unknown emitter: the id is the cause, named */
    ec.vorton_rate = 5.0f;
    expect_step_refused(w, &in, EDDY_ERROR_NOT_FOUND);
    expect_message(w, "emitter command 0", "set rates", "stale or unknown");
    eddy_world_destroy(w);
}

Test(misuse, null_and_negative_arguments_say_why) {
    eddy_world *w = make_world();
    cr_expect_eq(eddy_world_add_vortons(w, NULL, 3), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect(eddy_world_error_message(w)[0] != '\0', "no message for NULL vortons");
    cr_expect_eq(eddy_world_add_tracers(w, NULL, -1), EDDY_ERROR_INVALID_ARGUMENT);
    expect_message(w, "negative", NULL, NULL);
    cr_expect_eq(eddy_world_step(NULL, NULL), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_frame(NULL), 0);
    cr_expect_eq(eddy_world_vorton_count(NULL), 0);
    cr_expect_eq(eddy_world_tracer_count(NULL), 0);
    cr_expect_eq(eddy_world_body_count(NULL), 0);
    cr_expect_eq(eddy_world_get_vortons(w, 0, 5, NULL), 0);
    cr_expect_eq(eddy_world_get_body_ids(NULL, NULL, 4), 0);
    cr_expect_eq(eddy_world_created_bodies(NULL, NULL, 4), 0);
    cr_expect_eq(eddy_world_created_emitters(w, NULL, 4), 0);
    eddy_body_state st;
    cr_expect_eq(eddy_world_get_body(w, (eddy_body_id){0, 0}, &st), EDDY_ERROR_NOT_FOUND);
    cr_expect_eq(eddy_world_get_body(w, (eddy_body_id){1, 1}, NULL), EDDY_ERROR_INVALID_ARGUMENT);
    eddy_world_destroy(w);
}

/* The hash queries refuse misuse with their documented value in every build
 * (release included), never by the assert handler: each call runs in this
 * test's process, so an abort fails the test. */
Test(misuse, hash_queries_refuse_misuse_without_aborting) {
    eddy_world *w = busy_world();
    uint64_t blocks[4];
    cr_expect_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_VORTONS, blocks, -1), -1);
    expect_message(w, "capacity -1", NULL, NULL);
    cr_expect_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_VORTONS, NULL, 4), -1);
    expect_message(w, "NULL", NULL, NULL);
    cr_expect_eq(eddy_world_block_hashes(w, (eddy_component)4, blocks, 4), -1);
    expect_message(w, "component 4", NULL, NULL);
    cr_expect_eq(eddy_world_block_hashes(w, (eddy_component)-1, blocks, 4), -1);
    cr_expect_eq(eddy_world_block_hashes(NULL, EDDY_COMPONENT_VORTONS, blocks, 4), -1);
    /* the world is untouched: sizing and filling still work, and it steps */
    cr_expect_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_VORTONS, NULL, 0), 1);
    cr_expect_eq(eddy_world_block_hashes(w, EDDY_COMPONENT_GLOBALS, blocks, 4), 1);
    const eddy_frame_hash none = eddy_world_hash(NULL);
    cr_expect_eq(none.frame, -1);
    cr_expect_eq(none.frame_hash, 0);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) cr_expect_eq(none.component[c], 0);
    step_ok(w, NULL);
    cr_expect_eq(eddy_world_hash(w).frame, 3);
    eddy_world_destroy(w);
}

/* ================================================================ overlapping calls */

/* A game's enqueue_task that calls back into the world it is running work
 * for: every such call must be refused and the outer step left intact. */
typedef struct reentry {
    eddy_world *world;
    int calls;
    int accepted;           /* calls that did not return EDDY_ERROR_WRONG_STATE */
    int64_t frame_seen;
} reentry;

static void *reentrant_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                               void *user_context) {
    (void)min_range;
    reentry *r = user_context;
    if (r->world && r->calls < 8) {
        ++r->calls;
        r->frame_seen = eddy_world_frame(r->world);
        eddy_bytes snap = {0};
        if (eddy_world_step(r->world, NULL) != EDDY_ERROR_WRONG_STATE) ++r->accepted;
        if (eddy_world_snapshot(r->world, &snap) != EDDY_ERROR_WRONG_STATE) ++r->accepted;
        if (eddy_world_restore(r->world, snap.data, snap.size, NULL, 0) != EDDY_ERROR_WRONG_STATE)
            ++r->accepted;
        eddy_vorton v;
        memset(&v, 0, sizeof v);
        if (eddy_world_add_vortons(r->world, &v, 1) != EDDY_ERROR_WRONG_STATE) ++r->accepted;
        if (eddy_world_block_hashes(r->world, EDDY_COMPONENT_VORTONS, NULL, 0) != -1) ++r->accepted;
        if (eddy_world_hash(r->world).frame != -1) ++r->accepted;
        eddy_bytes_free(&snap);
    }
    task(0, item_count, 0, task_context);
    return NULL;
}

static void never_finish(void *user_task, void *user_context) {
    (void)user_task, (void)user_context;
}

Test(misuse, calls_from_enqueue_task_during_a_step_are_refused, .timeout = 60) {
    reentry r = {0};
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 2;
    d.enqueue_task = reentrant_enqueue;
    d.finish_task = never_finish;
    d.user_task_context = &r;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK, "%s", eddy_last_error_message());
    eddy_vorton v[8];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 8; ++i) {
        v[i].position = (eddy_vec3){0.25f * (float)i, 0.1f * (float)i, 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, 8), EDDY_OK);
    /* the same world without the callback, as the reference */
    eddy_world_def plain = eddy_world_def_default();
    plain.worker_count = 1;
    eddy_world *ref = NULL;
    cr_assert_eq(eddy_world_create(&plain, &ref), EDDY_OK);
    cr_assert_eq(eddy_world_add_vortons(ref, v, 8), EDDY_OK);

    r.world = w;
    step_ok(w, NULL);
    r.world = NULL;
    cr_assert_gt(r.calls, 0, "the step never called enqueue_task");
    cr_expect_eq(r.accepted, 0, "%d overlapping calls were accepted", r.accepted);
    cr_expect_eq(r.frame_seen, 0);
    cr_expect(contains(eddy_last_error_message(), "must not overlap"), "%s",
              eddy_last_error_message());
    /* one frame, not two, and the same bits as a step nobody interrupted */
    cr_expect_eq(eddy_world_frame(w), 1);
    step_ok(ref, NULL);
    cr_expect_eq(eddy_world_hash(w).frame_hash, eddy_world_hash(ref).frame_hash);
    /* afterwards every call works again */
    eddy_bytes snap = {0};
    cr_expect_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    cr_expect_eq(eddy_world_restore(w, snap.data, snap.size, NULL, 0), EDDY_OK);
    step_ok(w, NULL);
    eddy_bytes_free(&snap);
    eddy_world_destroy(ref);
    eddy_world_destroy(w);
}

/* The same from another thread: while a step runs (held inside its first
 * enqueue_task, so the overlap is certain, not a race), a second thread's
 * step, snapshot and hash are refused, and the step completes intact. */
typedef struct other_thread {
    eddy_world *world;
    eddy_status step, snapshot;
    int64_t hash_frame;
    char message[256];
} other_thread;

static void *other_thread_calls(void *context) {
    other_thread *o = context;
    eddy_bytes snap = {0};
    o->step = eddy_world_step(o->world, NULL);
    snprintf(o->message, sizeof o->message, "%s", eddy_last_error_message());
    o->snapshot = eddy_world_snapshot(o->world, &snap);
    o->hash_frame = eddy_world_hash(o->world).frame;
    eddy_bytes_free(&snap);
    return NULL;
}

typedef struct gate {
    other_thread other;
    bool ran;
} gate;

static void *gate_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                          void *user_context) {
    (void)min_range;
    gate *g = user_context;
    if (g->other.world && !g->ran) {
        g->ran = true;
        pthread_t t;
        cr_assert_eq(pthread_create(&t, NULL, other_thread_calls, &g->other), 0);
        pthread_join(t, NULL); /* the other thread's calls all happen during this step */
    }
    task(0, item_count, 0, task_context);
    return NULL;
}

Test(misuse, calls_from_another_thread_during_a_step_are_refused, .timeout = 60) {
    gate g;
    memset(&g, 0, sizeof g);
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 1;
    d.enqueue_task = gate_enqueue;
    d.finish_task = never_finish;
    d.user_task_context = &g;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK, "%s", eddy_last_error_message());
    eddy_vorton v[4];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; ++i) {
        v[i].position = (eddy_vec3){0.3f * (float)i, 0.0f, 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, 4), EDDY_OK);
    g.other.world = w;
    step_ok(w, NULL);
    cr_assert(g.ran);
    cr_expect_eq(g.other.step, EDDY_ERROR_WRONG_STATE);
    cr_expect_eq(g.other.snapshot, EDDY_ERROR_WRONG_STATE);
    cr_expect_eq(g.other.hash_frame, -1);
    cr_expect(contains(g.other.message, "eddy_world_step") && contains(g.other.message, "overlap"),
              "%s", g.other.message);
    cr_expect_eq(eddy_world_frame(w), 1);
    eddy_world_destroy(w);
}

/* ================================================================ state counter */

/* Frame numbers repeat after a rollback; the state counter never does, so a
 * view (or anything cached) taken before can tell it is stale. */
Test(misuse, views_know_they_are_stale_after_a_rollback) {
    eddy_world *w = busy_world();
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    const uint64_t at_snapshot = eddy_world_state_counter(w);
    cr_assert_neq(at_snapshot, 0);
    cr_expect_eq(eddy_world_view_vortons(w).state_counter, at_snapshot);
    cr_expect_eq(eddy_world_view_tracers(w).state_counter, at_snapshot);
    step_ok(w, NULL);
    const eddy_particle_view stepped = eddy_world_view_vortons(w);
    cr_expect_neq(stepped.state_counter, at_snapshot, "a step must change the counter");
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, NULL, 0), EDDY_OK);
    const eddy_particle_view rolled = eddy_world_view_vortons(w);
    cr_expect_eq(rolled.frame, stepped.frame - 1);
    cr_expect_neq(rolled.state_counter, at_snapshot, "a restore must not bring an old counter back");
    cr_expect_neq(rolled.state_counter, stepped.state_counter);
    step_ok(w, NULL);
    const eddy_particle_view again = eddy_world_view_vortons(w);
    cr_expect_eq(again.frame, stepped.frame, "same frame number as the stale view...");
    cr_expect_neq(again.state_counter, stepped.state_counter, "...but another counter");
    /* a refused input changes nothing, the counter included */
    eddy_input bad = {0};
    bad.flags = 0x80000000u; /* an unknown flag bit */
    const uint64_t before = eddy_world_state_counter(w);
    cr_expect_neq(eddy_world_step(w, &bad), EDDY_OK);
    cr_expect_eq(eddy_world_state_counter(w), before);
    cr_expect_eq(eddy_world_state_counter(NULL), 0);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

/* ================================================================ ids */

/* Destroy and re-create a body in the same slot more often than a 16-bit
 * generation can count: the first id must stay stale, and no id repeats. */
Test(misuse, stale_body_ids_never_alias_after_many_slot_reuses, .timeout = 120) {
    eddy_world_def d = eddy_world_def_default();
    d.hash_every_step = false;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    eddy_body_def bd = eddy_body_def_default();
    bd.gravity = false;
    eddy_body_id first, live;
    cr_assert_eq(eddy_world_create_body(w, &bd, &first), EDDY_OK);
    live = first;
    eddy_body_command c[2];
    memset(c, 0, sizeof c);
    c[0].type = EDDY_BODY_DESTROY;
    c[1].type = EDDY_BODY_CREATE;
    c[1].def = bd;
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.body_commands = c;
    in.body_command_count = 2;
    eddy_body_state st;
    for (int cycle = 0; cycle < 65536 + 4; ++cycle) {
        c[0].body = live;
        step_ok(w, &in);
        cr_assert_eq(eddy_world_created_bodies(w, &live, 1), 1);
        cr_assert(!(live.index1 == first.index1 && live.generation == first.generation),
                  "cycle %d: the first id is live again", cycle);
        if (eddy_world_get_body(w, first, &st) != EDDY_ERROR_NOT_FOUND)
            cr_assert_fail("cycle %d: the stale first id names a body", cycle);
    }
    cr_expect_eq(eddy_world_body_count(w), 1);
    cr_expect_gt(live.index1, first.index1, "the worn-out slot was retired");
    eddy_world_destroy(w);
}

Test(misuse, stale_emitter_ids_never_alias_after_many_slot_reuses, .timeout = 120) {
    eddy_world_def d = eddy_world_def_default();
    d.hash_every_step = false;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.enabled = false;
    eddy_emitter_id first, live;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &first), EDDY_OK);
    live = first;
    eddy_emitter_command c[3];
    memset(c, 0, sizeof c);
    c[0].type = EDDY_EMITTER_DESTROY;
    c[1].type = EDDY_EMITTER_CREATE;
    c[1].def = ed;
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.emitter_commands = c;
    in.emitter_command_count = 2;
    for (int cycle = 0; cycle < 65536 + 4; ++cycle) {
        c[0].emitter = live;
        step_ok(w, &in);
        cr_assert_eq(eddy_world_created_emitters(w, &live, 1), 1);
        cr_assert(!(live.index1 == first.index1 && live.generation == first.generation),
                  "cycle %d: the first id is live again", cycle);
    }
    /* the stale first id is refused as unknown */
    c[2].type = EDDY_EMITTER_ENABLE;
    c[2].emitter = first;
    eddy_input stale = emitter_input(&c[2]);
    expect_step_refused(w, &stale, EDDY_ERROR_NOT_FOUND);
    cr_expect_gt(live.index1, first.index1, "the worn-out slot was retired");
    eddy_world_destroy(w);
}

/* ================================================================ blow-ups */

/* A state that holds a NaN or infinity at the end of a step (made here by
 * writing one into the state, as a bug or a cosmic ray would): the step says
 * so and names the component; the world then refuses to step until a
 * snapshot is restored, and steps on after. */
static eddy_world *world_with_vortons(void) {
    eddy_world *w = make_world();
    eddy_vorton v[8];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 8; ++i) {
        v[i].position = (eddy_vec3){0.1f * (float)(i & 1), 0.1f * (float)((i >> 1) & 1),
                                    0.1f * (float)(i >> 2)};
        v[i].vorticity = (eddy_vec3){(i & 1) ? 1.0f : -1.0f, 0.0f, 0.5f};
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, 8), EDDY_OK);
    step_ok(w, NULL);
    return w;
}

Test(misuse, a_state_that_goes_non_finite_is_reported_and_needs_a_restore) {
    eddy_world *w = world_with_vortons();
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    const eddy_frame_hash good = eddy_world_hash(w);
    w->vortons.drho[5] = NAN;
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_ERROR_NAN, "%s", eddy_world_error_message(w));
    expect_message(w, "non-finite", "vorton", "restore");
    cr_expect_eq(eddy_world_step(w, NULL), EDDY_ERROR_WRONG_STATE, "a broken world steps on");
    expect_message(w, "restore", "non-finite", NULL);
    char msg[256];
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, msg, sizeof msg), EDDY_OK, "%s", msg);
    const eddy_frame_hash back = eddy_world_hash(w);
    cr_expect(back.frame == good.frame && back.frame_hash == good.frame_hash);
    step_ok(w, NULL);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

Test(misuse, a_non_finite_tracer_or_body_is_named) {
    eddy_tracer t;
    memset(&t, 0, sizeof t);
    eddy_world *w = make_world();
    cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
    eddy_body_def b = eddy_body_def_default();
    b.position = (eddy_vec3){5.0f, 0.0f, 0.0f};
    b.gravity = false;
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK);
    step_ok(w, NULL);
    w->bodies[0].temperature = INFINITY;
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_ERROR_NAN);
    expect_message(w, "non-finite", "body 1", "temperature");
    eddy_world_destroy(w);
    w = make_world();
    cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
    step_ok(w, NULL);
    w->tracers.pz[0] = -INFINITY;
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_ERROR_NAN);
    expect_message(w, "non-finite", "tracer 0", "position");
    eddy_world_destroy(w);
}
