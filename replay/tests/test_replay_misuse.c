/* SPDX-License-Identifier: MIT */
/* Misuse of the replay API whose error should name the real cause (the rest
 * of the public API's misuse cases are in tests/test_misuse.c). */
#include <criterion/criterion.h>

#include <string.h>

#include "eddy/replay.h"

static eddy_world *small_world(void) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    eddy_vorton v;
    memset(&v, 0, sizeof v);
    v.vorticity.z = 1.0f;
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_OK);
    return w;
}

/* An unknown command type reaches the recorder's encoder before the world:
 * the message names the command and its type, not only "cannot be encoded",
 * and the recording goes on. */
Test(replay_misuse, recorder_names_an_unknown_command_type) {
    eddy_world *w = small_world();
    eddy_recorder_def rd = eddy_recorder_def_default();
    eddy_bytes out = {0};
    eddy_recorder *r = NULL;
    char m[256];
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, &out, &r, m, sizeof m), EDDY_OK, "%s", m);
    eddy_emitter_command ec;
    memset(&ec, 0, sizeof ec);
    ec.type = (eddy_emitter_command_type)99;
    eddy_input in = {0};
    in.emitter_commands = &ec;
    in.emitter_command_count = 1;
    cr_expect_eq(eddy_recorder_step(r, &in), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(eddy_recorder_error_message(r), "emitter command 0 has unknown type 99"),
              "%s", eddy_recorder_error_message(r));
    eddy_body_command bc;
    memset(&bc, 0, sizeof bc);
    bc.type = (eddy_body_command_type)42;
    memset(&in, 0, sizeof in);
    in.body_commands = &bc;
    in.body_command_count = 1;
    cr_expect_eq(eddy_recorder_step(r, &in), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(eddy_recorder_error_message(r), "body command 0 has unknown type 42"), "%s",
              eddy_recorder_error_message(r));
    cr_expect_eq(eddy_recorder_step(r, NULL), EDDY_OK, "%s", eddy_recorder_error_message(r));
    cr_expect_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_bytes_free(&out);
    eddy_world_destroy(w);
}

/* An input outside the documented ranges is refused by the world through the
 * recorder, with the world's reason; nothing is recorded and recording goes on. */
Test(replay_misuse, recorder_passes_on_an_out_of_range_refusal) {
    eddy_world *w = small_world();
    eddy_recorder_def rd = eddy_recorder_def_default();
    eddy_bytes out = {0};
    eddy_recorder *r = NULL;
    char m[256];
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, &out, &r, m, sizeof m), EDDY_OK, "%s", m);
    eddy_input in = {0};
    in.flags = EDDY_INPUT_SET_WIND;
    in.wind = (eddy_vec3){3e38f, 0.0f, 0.0f};
    cr_expect_eq(eddy_recorder_step(r, &in), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(eddy_recorder_error_message(r), "wind"), "%s", eddy_recorder_error_message(r));
    cr_expect_eq(eddy_recorder_step(r, NULL), EDDY_OK, "%s", eddy_recorder_error_message(r));
    eddy_recorder_destroy(r);
    eddy_bytes_free(&out);
    eddy_world_destroy(w);
}
