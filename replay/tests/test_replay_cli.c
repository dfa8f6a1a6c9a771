/* SPDX-License-Identifier: MIT */
/* The eddy-replay command line: every command, and the documented exit
 * codes (0 ok, 1 divergence, 2 usage, 3 invalid or corrupt file, 4 I/O). */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_testkit.h"

static char g_out[512];   /* captured stdout + stderr of the last run */
static eddy_bytes g_text; /* its contents, NUL-terminated */

static const char *tmp(const char *name) { return testkit_tmp_path(EDDY_REPLAY_TMP, "cli", name); }

/* Runs eddy-replay with the given arguments; returns its exit code. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...) {
    char args[1024], line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(g_out, sizeof g_out, "%s/cli_%d_output.txt", EDDY_REPLAY_TMP, (int)getpid());
    snprintf(line, sizeof line, "%s %s", EDDY_REPLAY_CLI, args);
    const int status = testkit_shell(line, NULL, g_out, &g_text);
    cr_assert(status >= 0, "%s did not exit", args);
    return status;
}

static bool said(const char *text) { return strstr((const char *)g_text.data, text) != NULL; }

#define EXPECT_EXIT(code, ...)                                                                  \
    do {                                                                                        \
        int got_ = run(__VA_ARGS__);                                                            \
        cr_assert_eq(got_, code, "eddy-replay exited %d, expected %d; output:\n%s", got_, code, \
                     (const char *)g_text.data);                                                \
    } while (0)

Test(replay_cli, help_documents_the_exit_codes) {
    EXPECT_EXIT(0, "--help");
    cr_assert(said("Exit codes") && said("divergence") && said("usage") && said("corrupt") &&
              said("I/O"));
    EXPECT_EXIT(0, "play --help");
    EXPECT_EXIT(2, "%s", "");
    EXPECT_EXIT(2, "frobnicate");
    EXPECT_EXIT(2, "play");
    EXPECT_EXIT(2, "play a b");
    EXPECT_EXIT(2, "record --scene vortex_ring");
    EXPECT_EXIT(2, "record --scene no_such_scene -o x");
    EXPECT_EXIT(2, "play x --threads 0");
    EXPECT_EXIT(2, "play x --pin sideways");
    EXPECT_EXIT(2, "play x --bogus 1");
    EXPECT_EXIT(0, "--version");
}

Test(replay_cli, scenes_lists_the_built_in_scenes) {
    EXPECT_EXIT(0, "scenes");
    cr_assert(said("vortex_ring") && said("noise_cloud") && said("frames"));
}

Test(replay_cli, record_play_info_dump_render_diff, .timeout = 120) {
    const char *a = tmp("a.eddyr"), *b = tmp("b.eddyr"), *c = tmp("c.eddyr");
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 12 --keyframe-every 5 --chunk 4 -o %s", a);
    cr_assert(said("12 frames") && said("bytes"));
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 16 --threads 4 --keyframe-every 0 -o %s -q", b);
    EXPECT_EXIT(0, "record --scene leapfrog --frames 3 -o %s -q", c);
    EXPECT_EXIT(0, "play %s --threads 3", a);
    cr_assert(said("ok"));
    EXPECT_EXIT(0, "play %s --threads 2 --pin core", b);
    EXPECT_EXIT(0, "info %s", a);
    cr_assert(said("complete") && said("keyframes       2 at 5, 10") && said("ratio") &&
              said("x86_64") == (strcmp(eddy_replay_arch_name(eddy_replay_fingerprint_current(true).arch), "x86_64") == 0));
    EXPECT_EXIT(0, "diff %s %s", a, b);
    cr_assert(said("identical"));
    EXPECT_EXIT(1, "diff %s %s", a, c);
    cr_assert(said("frame 0"));

    const char *csv = tmp("d.csv"), *json = tmp("d.json"), *png = tmp("r.png");
    EXPECT_EXIT(0, "dump %s --frame 7 -o %s", a, csv);
    eddy_bytes text = {0};
    cr_assert(testkit_read_file(csv, &text));
    testkit_append(&text, "", 1);
    cr_assert(strstr((char *)text.data, "kind,index,px,py,pz") && strstr((char *)text.data, "\nvorton,0,") &&
              strstr((char *)text.data, "\ntracer,0,"));
    EXPECT_EXIT(0, "dump %s --frame 12 --format json -o %s", a, json);
    text.size = 0;
    cr_assert(testkit_read_file(json, &text));
    cr_assert(text.size > 2 && text.data[0] == '{' && text.data[text.size - 2] == '}');
    EXPECT_EXIT(0, "dump %s --frame 2 --format json", a); /* to standard output */
    cr_assert(said("\"frame\": 2"));
    EXPECT_EXIT(2, "dump %s --frame 13", a);
    EXPECT_EXIT(2, "dump %s --frame 3 --format xml", a);
    EXPECT_EXIT(0, "render %s --frame 9 -o %s --view x --size 64", a, png);
    text.size = 0;
    cr_assert(testkit_read_file(png, &text));
    cr_assert(text.size > 8 && memcmp(text.data, "\x89PNG\r\n\x1a\n", 8) == 0);
    EXPECT_EXIT(2, "render %s --frame 9 -o %s --view w", a, png);
    EXPECT_EXIT(4, "render %s --frame 9 -o /nonexistent/dir/r.png", a);
    eddy_bytes_free(&text);
    unlink(csv), unlink(json), unlink(png), unlink(a), unlink(b), unlink(c);
}

/* info names the built-in scene a replay starts from, says when its
 * definition is not that scene's (the frame hash does not cover it), and
 * gives the first frame's particle and body counts, in text and JSON. */
Test(replay_cli, info_names_the_scene_its_definition_and_the_counts, .timeout = 60) {
    const char *ring = tmp("info_ring.eddyr"), *direct = tmp("info_direct.eddyr");
    const char *json = tmp("info.json");
    EXPECT_EXIT(0, "record --scene buoyant_ball --frames 3 -o %s -q -f", ring);
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("buoyant_ball", NULL, &w), EDDY_OK);
    char counts[128];
    snprintf(counts, sizeof counts, "at frame 0       %d vortons, %d tracers, %d bodies",
             eddy_world_vorton_count(w), eddy_world_tracer_count(w), eddy_world_body_count(w));
    cr_assert(eddy_world_vorton_count(w) > 0 && eddy_world_tracer_count(w) > 0 &&
              eddy_world_body_count(w) == 2);
    EXPECT_EXIT(0, "info %s", ring);
    cr_assert(said("scene           buoyant_ball\n") && said(counts) && !said("not the scene's"),
              "%s", (const char *)g_text.data);

    /* the scene recorded with another velocity method: the same frame 0 */
    eddy_world_def def = eddy_world_def_default();
    def.velocity_method = EDDY_VELOCITY_DIRECT_GRID;
    eddy_world *d = NULL;
    cr_assert_eq(eddy_scene_create("buoyant_ball", &def, &d), EDDY_OK);
    eddy_recorder *r = NULL;
    cr_assert_eq(eddy_recorder_create_file(d, NULL, direct, &r, NULL, 0), EDDY_OK);
    eddy_scene_input in;
    for (int f = 0; f < 2; ++f)
        cr_assert_eq(eddy_recorder_step(r, eddy_scene_input_for("buoyant_ball", f, &in)), EDDY_OK);
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    EXPECT_EXIT(0, "info %s", direct);
    cr_assert(said("scene           buoyant_ball\n") &&
                  said("definition      not the scene's: velocity_method 1 vs 0 (replay vs scene)") &&
                  said(counts),
              "%s", (const char *)g_text.data);

    char line[512];
    snprintf(line, sizeof line, "%s info --json %s > %s", EDDY_REPLAY_CLI, direct, json);
    cr_assert_eq(system(line), 0);
    eddy_bytes text = {0};
    cr_assert(testkit_read_file(json, &text));
    testkit_append(&text, "", 1);
    char want[256];
    snprintf(want, sizeof want,
             "\"scene\": \"buoyant_ball\", \"definition_differs\": \"velocity_method 1 vs 0\", "
             "\"counts_frame\": 0, \"vortons\": %d, \"tracers\": %d, \"bodies\": 2}",
             eddy_world_vorton_count(w), eddy_world_tracer_count(w));
    cr_assert(strstr((const char *)text.data, want) != NULL, "%s", (const char *)text.data);
    eddy_bytes_free(&text);
    eddy_world_destroy(w);
    eddy_world_destroy(d);
    unlink(ring), unlink(direct), unlink(json);
}

Test(replay_cli, bad_files_exit_3_and_missing_files_exit_4, .timeout = 60) {
    const char *a = tmp("good.eddyr"), *cut = tmp("cut.eddyr"), *bad = tmp("bad.eddyr");
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 10 --chunk 3 --keyframe-every 4 -o %s -q", a);
    eddy_bytes file = {0};
    cr_assert(testkit_read_file(a, &file));
    cr_assert(testkit_write_file(cut, file.data, file.size - 100));
    EXPECT_EXIT(3, "play %s", cut);
    cr_assert(said("ok: frames 0..") && said("cut short"), "%s", (char *)g_text.data);
    EXPECT_EXIT(3, "info %s", cut);
    cr_assert(said("CUT SHORT"));
    file.data[file.size / 2] ^= 0x20;
    cr_assert(testkit_write_file(bad, file.data, file.size));
    EXPECT_EXIT(3, "play %s", bad);
    cr_assert(said("EDDY_ERROR_CORRUPT"));
    EXPECT_EXIT(3, "info %s", EDDY_REPLAY_CORPUS "/future_format_version.eddyr");
    cr_assert(said("version"));
    EXPECT_EXIT(3, "play %s", EDDY_REPLAY_CORPUS "/fast_math_recording.eddyr");
    EXPECT_EXIT(4, "play %s", tmp("does_not_exist.eddyr"));
    EXPECT_EXIT(4, "record --scene vortex_ring --frames 2 -o /nonexistent/dir/x.eddyr");
    eddy_bytes_free(&file);
    unlink(a), unlink(cut), unlink(bad);
}

/* A file whose hashes from frame 11 on come from another run (see
 * test_replay.c): play must report the divergence and exit 1. */
Test(replay_cli, a_divergence_exits_1_with_frame_component_and_block) {
    eddy_world *w, *other;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    cr_assert_eq(testkit_tiny_world(1, &other), EDDY_OK);
    eddy_bytes b = {0};
    eddy_recorder *r;
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.block_hashes = true;
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, &b, &r, NULL, 0), EDDY_OK);
    for (int64_t f = 0; f < 14; ++f) {
        testkit_input t;
        cr_assert_eq(eddy_recorder_step(r, testkit_tiny_input(f, &t)), EDDY_OK);
        eddy_emitter_command extra = {.emitter = {1, 1}, .type = EDDY_EMITTER_BURST, .tracer_count = 2};
        testkit_tiny_input(f, &t);
        if (f == 5) t.input.emitter_commands = &extra, t.input.emitter_command_count = 1;
        cr_assert_eq(eddy_world_step(other, &t.input), EDDY_OK);
        if (f == 9) {
            eddy_bytes snap = {0};
            cr_assert_eq(eddy_world_snapshot(other, &snap), EDDY_OK);
            cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, NULL, 0), EDDY_OK);
            eddy_bytes_free(&snap);
        }
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    const char *path = tmp("diverges.eddyr");
    cr_assert(testkit_write_file(path, b.data, b.size));
    EXPECT_EXIT(1, "play %s --threads 2", path);
    cr_assert(said("DIVERGED at frame 11") && said("component") && said("block 0"));
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    eddy_world_destroy(other);
    eddy_bytes_free(&b);
    unlink(path);
}

Test(replay_cli, zstd_tests_a_recorded_file) {
    if (system("command -v zstd >/dev/null 2>&1") != 0) {
        cr_log_warn("zstd command not installed (Debian package zstd): skipped");
        return;
    }
    const char *a = tmp("z.eddyr");
    EXPECT_EXIT(0, "record --scene dye_drop --frames 6 --keyframe-every 2 --chunk 2 -o %s -q", a);
    char command[600];
    snprintf(command, sizeof command, "zstd -q -t '%s'", a);
    cr_assert_eq(system(command), 0);
    unlink(a);
}
