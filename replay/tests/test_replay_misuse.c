/* SPDX-License-Identifier: MIT */
/* Misuse of the replay API whose error should name the real cause (the rest
 * of the public API's misuse cases are in tests/test_misuse.c). */
#include <criterion/criterion.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

/* ---------------------------------------------------------------- files */
static const char *scratch(const char *name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/misuse_%d_%s", EDDY_REPLAY_TMP, (int)getpid(), name);
    return path;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static bool file_is(const char *path, const char *text) {
    char buf[256] = "";
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

/* No file of this process's scratch names other than the target is left. */
static int partial_files(const char *path) {
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "ls %s.partial-* 2>/dev/null | wc -l", path);
    FILE *p = popen(pattern, "r");
    cr_assert_not_null(p);
    int n = -1;
    cr_assert_eq(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* A full disk (here: a file-size limit, EFBIG) is named in the message, not
 * only as EDDY_ERROR_IO; and a recorder that cannot write its world record
 * leaves the file it would have replaced untouched, with no temporary left. */
Test(replay_misuse, a_failed_write_keeps_its_cause_and_the_old_file) {
    signal(SIGXFSZ, SIG_IGN); /* writes past the limit then fail with EFBIG */
    const char *path = scratch("kept.eddyr");
    write_text(path, "precious");
    const struct rlimit limit = {200, 200};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
    eddy_world *w = small_world();
    eddy_recorder *r = NULL;
    char message[512] = "";
    const eddy_status s = eddy_recorder_create_file(w, NULL, path, &r, message, sizeof message);
    cr_assert_eq(s, EDDY_ERROR_IO, "%s: %s", eddy_status_name(s), message);
    cr_assert_null(r);
    cr_assert(strstr(message, strerror(EFBIG)) != NULL, "the cause is lost: %s", message);
    cr_assert(file_is(path, "precious"), "the existing file was changed");
    cr_assert_eq(partial_files(path), 0, "a temporary file was left");
    eddy_world_destroy(w);
    remove(path);
}

/* Past the world record, a write that fails mid-recording names its cause. */
Test(replay_misuse, a_write_failing_mid_recording_names_its_cause) {
    signal(SIGXFSZ, SIG_IGN);
    const char *path = scratch("mid.eddyr");
    eddy_world *w = small_world();
    eddy_recorder *r = NULL;
    char message[512] = "";
    eddy_recorder_def def = eddy_recorder_def_default();
    def.frames_per_chunk = 1;
    def.keyframe_interval = 1;
    cr_assert_eq(eddy_recorder_create_file(w, &def, path, &r, message, sizeof message), EDDY_OK,
                 "%s", message);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fclose(f);
    const struct rlimit limit = {(rlim_t)size + 16, (rlim_t)size + 16};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
    eddy_status s = EDDY_OK;
    for (int i = 0; i < 50 && s == EDDY_OK; ++i) s = eddy_recorder_step(r, NULL);
    cr_assert_eq(s, EDDY_ERROR_IO, "%s", eddy_status_name(s));
    const char *m = eddy_recorder_error_message(r);
    cr_assert(strstr(m, "write failed") != NULL && strstr(m, strerror(EFBIG)) != NULL, "%s", m);
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    remove(path);
}

/* Recording over an existing file replaces it once the world record is in. */
Test(replay_misuse, a_recording_replaces_an_existing_file) {
    const char *path = scratch("replaced.eddyr");
    write_text(path, "old");
    eddy_world *w = small_world();
    eddy_recorder *r = NULL;
    char message[512] = "";
    cr_assert_eq(eddy_recorder_create_file(w, NULL, path, &r, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert(!file_is(path, "old"));
    cr_assert_eq(partial_files(path), 0);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_OK);
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_player *p = NULL;
    eddy_player_def pd = eddy_player_def_default();
    cr_assert_eq(eddy_player_open_file(path, &pd, &p, message, sizeof message), EDDY_OK, "%s", message);
    eddy_player_close(p);
    eddy_world_destroy(w);
    remove(path);
}
