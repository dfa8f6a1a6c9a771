/* SPDX-License-Identifier: MIT */
/* eddy-replay render and render-diff: the pictures themselves, decoded with
 * libpng. Checks the dimensions, that one camera (stored in the PNG's
 * "eddy-camera" text chunk) serves every frame and holds every body over the
 * whole replay, that a body is drawn where it projects (also a free body
 * outside the particle cloud), the contact sheet, video frames, the density
 * legend, the divergence picture (the scene kept under a spread divergence,
 * distance colours, the farthest ringed, the first divergent particles
 * followed to a later frame, different worlds said and not diffed) and the
 * smoke volume. */
#include <criterion/criterion.h>

#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_testkit.h"

static char g_log[512];
static eddy_bytes g_text;

static const char *tmp(const char *name) { return testkit_tmp_path(EDDY_REPLAY_TMP, "render", name); }

/* Runs eddy-replay; stdout to `out` when given, else with stderr into the log. */
static int run_to(const char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_to(const char *out, const char *fmt, ...) {
    char args[1024], line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(g_log, sizeof g_log, "%s/render_%d_log.txt", EDDY_REPLAY_TMP, (int)getpid());
    snprintf(line, sizeof line, "%s %s", EDDY_REPLAY_CLI, args);
    const int status = testkit_shell(line, out, g_log, &g_text);
    cr_assert(status >= 0, "%s did not exit", args);
    return status;
}

static bool said(const char *text) { return strstr((const char *)g_text.data, text) != NULL; }

#define EXPECT_EXIT(code, ...)                                                                     \
    do {                                                                                           \
        int got_ = run_to(NULL, __VA_ARGS__);                                                      \
        cr_assert_eq(got_, code, "eddy-replay exited %d, expected %d; output:\n%s", got_, code,    \
                     (const char *)g_text.data);                                                   \
    } while (0)

/* ---------------------------------------------------------------- png */
typedef struct picture {
    int width, height;
    uint8_t *rgb;
    char camera[256], frames[512];
} picture;

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The value of tEXt chunk key, from the file's bytes. */
static bool png_text_chunk(const eddy_bytes *file, const char *key, char *out, size_t size) {
    size_t pos = 8;
    while (pos + 12 <= file->size) {
        const uint32_t n = be32(file->data + pos);
        const uint8_t *type = file->data + pos + 4, *data = file->data + pos + 8;
        if (pos + 12 + n > file->size) return false;
        const size_t klen = strlen(key);
        if (!memcmp(type, "tEXt", 4) && n > klen && !memcmp(data, key, klen) && data[klen] == 0) {
            snprintf(out, size, "%.*s", (int)(n - klen - 1), (const char *)data + klen + 1);
            return true;
        }
        pos += 12 + n;
    }
    return false;
}

static void load_png(const char *path, picture *p) {
    memset(p, 0, sizeof *p);
    eddy_bytes file = {0};
    cr_assert(testkit_read_file(path, &file), "cannot read %s", path);
    cr_assert(file.size > 8 && !memcmp(file.data, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", path);
    png_text_chunk(&file, "eddy-camera", p->camera, sizeof p->camera);
    png_text_chunk(&file, "eddy-frame", p->frames, sizeof p->frames);
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    cr_assert(png_image_begin_read_from_memory(&im, file.data, file.size), "%s: %s", path,
              im.message);
    im.format = PNG_FORMAT_RGB;
    p->width = (int)im.width;
    p->height = (int)im.height;
    p->rgb = malloc(PNG_IMAGE_SIZE(im));
    cr_assert(p->rgb && png_image_finish_read(&im, NULL, p->rgb, 0, NULL), "%s: %s", path,
              im.message);
    eddy_bytes_free(&file);
}

static const uint8_t *pixel(const picture *p, int x, int y) {
    cr_assert(x >= 0 && y >= 0 && x < p->width && y < p->height, "pixel %d,%d outside", x, y);
    return p->rgb + 3 * ((size_t)y * (size_t)p->width + (size_t)x);
}

typedef struct view {
    char axis;
    float lo[2], hi[2];
} view;

static view parse_camera(const char *text) {
    view v;
    cr_assert_eq(sscanf(text, "%c %f %f %f %f", &v.axis, &v.lo[0], &v.lo[1], &v.hi[0], &v.hi[1]), 5,
                 "eddy-camera '%s'", text);
    return v;
}

/* Pixel of world point (x, y) in a size x size panel (view z). */
static void project(const view *v, int size, float x, float y, int *px, int *py) {
    const float scale = (float)(size - 1) / (v->hi[0] - v->lo[0]);
    *px = (int)((x - v->lo[0]) * scale);
    *py = (int)((float)(size - 1) - (y - v->lo[1]) * scale);
}

static bool is_body_colour(const uint8_t *c) { return c[0] >= 150 && c[2] <= 110 && c[1] >= 80; }

static int count_pixels(const picture *p, bool (*match)(const uint8_t *)) {
    int n = 0;
    for (int k = 0; k < p->width * p->height; ++k) n += match(p->rgb + 3 * k);
    return n;
}

/* ---------------------------------------------------------------- tests */
/* ball_through_smoke: a free ball starts outside the smoke sheet and flies
 * into it. */
Test(replay_render, one_camera_for_every_frame_holds_every_body, .timeout = 120) {
    const char *a = tmp("ball.eddyr"), *p0 = tmp("p0.png"), *p30 = tmp("p30.png");
    EXPECT_EXIT(0, "record --scene ball_through_smoke --frames 30 -o %s -q -f", a);
    EXPECT_EXIT(0, "render %s --frame 0 --size 200 -o %s -f", a, p0);
    cr_assert(said("camera: view z") && said("fitted over every frame"), "%s", (char *)g_text.data);
    EXPECT_EXIT(0, "render %s --frame 30 --size 200 -o %s -f", a, p30);
    picture f0, f30;
    load_png(p0, &f0);
    load_png(p30, &f30);
    cr_assert_eq(f0.width, 200);
    cr_assert_eq(f0.height, 200);
    cr_assert_eq(f30.width, 200);
    cr_assert_eq(f30.height, 200);
    cr_assert(f0.camera[0] != '\0', "no eddy-camera chunk");
    cr_assert_str_eq(f0.camera, f30.camera, "the camera moved between frames");
    cr_assert_str_eq(f0.frames, "0");
    cr_assert_str_eq(f30.frames, "30");
    const view v = parse_camera(f0.camera);
    cr_assert_eq(v.axis, 'z');

    /* Every body at every frame is inside the camera; at frames 0 and 30
     * the body colour is where the ball's centre projects. At frame 0 the
     * ball is outside the particle cloud. */
    eddy_player *p;
    cr_assert_eq(eddy_player_open_file(a, NULL, &p, NULL, 0), EDDY_OK);
    eddy_world *w = eddy_player_world(p);
    cr_assert(w != NULL);
    for (int64_t f = 0; f <= 30; ++f) {
        if (f > 0) cr_assert_eq(eddy_player_step(p, NULL), EDDY_OK);
        eddy_body_id id;
        cr_assert_eq(eddy_world_get_body_ids(w, &id, 1), 1);
        eddy_body_state b;
        cr_assert_eq(eddy_world_get_body(w, id, &b), EDDY_OK);
        cr_assert(b.position.x > v.lo[0] && b.position.x < v.hi[0] && b.position.y > v.lo[1] &&
                      b.position.y < v.hi[1],
                  "the ball at frame %lld (%g, %g) is outside the camera", (long long)f,
                  (double)b.position.x, (double)b.position.y);
        if (f == 0) {
            float cloud_lo = 1e30f;
            eddy_tracer t;
            for (int i = 0; eddy_world_get_tracers(w, i, 1, &t) == 1; ++i)
                if (t.position.x < cloud_lo) cloud_lo = t.position.x;
            cr_assert(b.position.x + 0.2f < cloud_lo, "the ball starts inside the smoke");
        }
        if (f == 0 || f == 30) {
            int x, y;
            project(&v, 200, b.position.x, b.position.y, &x, &y);
            const uint8_t *c = pixel(f == 0 ? &f0 : &f30, x, y);
            cr_assert(is_body_colour(c),
                      "frame %lld: pixel %d,%d is %d,%d,%d, not the body's colour", (long long)f, x,
                      y, c[0], c[1], c[2]);
        }
    }
    eddy_player_close(p);
    free(f0.rgb), free(f30.rgb);
    unlink(p0), unlink(p30), unlink(a);
}

Test(replay_render, camera_set_by_the_user_contact_sheet_and_video_frames, .timeout = 120) {
    const char *a = tmp("ring.eddyr"), *sheet = tmp("sheet.png"), *one = tmp("one.png");
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 30 -o %s -q -f", a);
    EXPECT_EXIT(0, "render %s --frame 5 --size 64 --camera -4,-3,3,4 -o %s", a, one);
    cr_assert(said("set by --camera"));
    picture p;
    load_png(one, &p);
    cr_assert_str_eq(p.camera, "z -4 -3 3 4");
    free(p.rgb);
    EXPECT_EXIT(2, "render %s --frame 5 --camera 1,1,0,0 -o %s -f", a, one);
    EXPECT_EXIT(2, "render %s --frame 5 --camera 1,2,3 -o %s -f", a, one);

    EXPECT_EXIT(0, "render %s --sheet 4 --size 64 -o %s", a, sheet);
    load_png(sheet, &p);
    cr_assert_eq(p.width, 2 * 64 + 2);
    cr_assert_eq(p.height, 2 * 64 + 2);
    cr_assert_str_eq(p.frames, "0 10 20 30");
    free(p.rgb);

    char pattern[300], path[300];
    snprintf(pattern, sizeof pattern, "%s", tmp("video_%04d.png"));
    EXPECT_EXIT(0, "render %s --every 15 --size 48 -o %s", a, pattern);
    char first_camera[256] = "";
    for (int f = 0; f <= 30; f += 15) {
        snprintf(path, sizeof path, "%s", tmp("video_"));
        snprintf(path + strlen(path), sizeof path - strlen(path), "%04d.png", f);
        load_png(path, &p);
        cr_assert_eq(p.width, 48);
        if (f == 0) snprintf(first_camera, sizeof first_camera, "%s", p.camera);
        cr_assert_str_eq(p.camera, first_camera, "frame %d has another camera", f);
        free(p.rgb);
        unlink(path);
    }
    EXPECT_EXIT(2, "render %s --every 15 -o %s", a, tmp("no_pattern.png"));
    unlink(sheet), unlink(one), unlink(a);
}

/* Arguments are checked before any work: a bad -o pattern is a usage error
 * even when the replay does not exist (it is refused before the file is
 * opened, let alone re-simulated), and the help prints the pattern as the
 * user types it. */
Test(replay_render, pattern_checked_before_any_work, .timeout = 60) {
    EXPECT_EXIT(2, "render %s --every 15 -o %s", tmp("does_not_exist.eddyr"), tmp("no_pattern.png"));
    cr_assert(said("%d"), "%s", (char *)g_text.data);
    EXPECT_EXIT(0, "--help");
    cr_assert(said("one %d (e.g. f_%05d.png)"), "%s", (char *)g_text.data);
    cr_assert(!said("%%"), "%s", (char *)g_text.data);
}

static bool is_strong_blue(const uint8_t *c) { return c[2] >= 230 && c[0] <= 60; }
static bool is_strong_red(const uint8_t *c) { return c[0] >= 230 && c[1] <= 90 && c[2] <= 60; }

Test(replay_render, density_colouring_has_a_legend, .timeout = 120) {
    const char *a = tmp("drops.eddyr"), *plain = tmp("plain.png"), *dens = tmp("dens.png");
    EXPECT_EXIT(0, "record --scene two_drops --frames 6 -o %s -q", a);
    EXPECT_EXIT(0, "render %s --frame 6 --size 256 -o %s", a, plain);
    EXPECT_EXIT(0, "render %s --frame 6 --size 256 --color density -o %s", a, dens);
    cr_assert(said("density deviation scale"));
    picture p, d;
    load_png(plain, &p);
    load_png(dens, &d);
    cr_assert_eq(count_pixels(&p, is_strong_blue), 0);
    cr_assert(count_pixels(&d, is_strong_blue) > 50, "no blue end of the legend");
    cr_assert(count_pixels(&d, is_strong_red) > 50, "no red end of the legend");
    EXPECT_EXIT(2, "render %s --frame 6 --color rainbow -o %s -f", a, dens);
    free(p.rgb), free(d.rgb);
    unlink(plain), unlink(dens), unlink(a);
}

Test(replay_render, output_rules_standard_output_and_no_silent_overwrite, .timeout = 60) {
    const char *a = tmp("small.eddyr"), *png = tmp("x.png"), *piped = tmp("piped.png");
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 4 -o %s -q", a);
    EXPECT_EXIT(0, "render %s --frame 2 --size 32 -o %s", a, png);
    EXPECT_EXIT(2, "render %s --frame 2 --size 32 -o %s", a, png);
    cr_assert(said("exists") && said("--force"));
    EXPECT_EXIT(0, "render %s --frame 2 --size 32 -o %s --force", a, png);
    cr_assert_eq(run_to(piped, "render %s --frame 2 --size 32 -o -", a), 0);
    cr_assert(said("camera:"), "the summary belongs on stderr when the PNG is on stdout");
    picture p;
    load_png(piped, &p);
    cr_assert_eq(p.width, 32);
    free(p.rgb);
    unlink(png), unlink(piped), unlink(a);
}

/* Two recordings of the tiny world, the second with an extra burst of
 * tracers in the input of step 5 (frame 6). */
static void record_pair(const char *a, const char *b) {
    for (int k = 0; k < 2; ++k) {
        eddy_world *w;
        cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
        eddy_bytes file = {0};
        eddy_recorder *r;
        cr_assert_eq(eddy_recorder_create_memory(w, NULL, &file, &r, NULL, 0), EDDY_OK);
        for (int64_t f = 0; f < 12; ++f) {
            testkit_input t;
            testkit_tiny_input(f, &t);
            eddy_emitter_command extra = {
                .emitter = {1, 1}, .type = EDDY_EMITTER_BURST, .tracer_count = 3};
            if (k == 1 && f == 5)
                t.input.emitter_commands = &extra, t.input.emitter_command_count = 1;
            cr_assert_eq(eddy_recorder_step(r, &t.input), EDDY_OK);
        }
        cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
        cr_assert(testkit_write_file(k ? b : a, file.data, file.size));
        eddy_recorder_destroy(r);
        eddy_world_destroy(w);
        eddy_bytes_free(&file);
    }
}

static bool is_highlight(const uint8_t *c) { return c[0] >= 220 && c[1] <= 90 && c[2] >= 220; }

Test(replay_render, divergence_picture_side_by_side, .timeout = 60) {
    const char *a = tmp("da.eddyr"), *b = tmp("db.eddyr"), *png = tmp("diff.png");
    record_pair(a, b);
    EXPECT_EXIT(1, "render-diff %s %s --size 128 -o %s", a, b, png);
    cr_assert(said("first divergent frame 6"), "%s", (char *)g_text.data);
    picture p;
    load_png(png, &p);
    cr_assert_eq(p.width, 2 * 128 + 4);
    cr_assert_eq(p.height, 128);
    cr_assert_str_eq(p.frames, "6");
    cr_assert(count_pixels(&p, is_highlight) > 0, "no particle is marked as differing");
    free(p.rgb);
    unlink(png);
    EXPECT_EXIT(0, "render-diff %s %s -o %s", a, a, png);
    cr_assert(said("no divergence"));
    cr_assert_neq(access(png, F_OK), 0, "a picture was written without a divergence");
    EXPECT_EXIT(0, "render-diff %s --against-threads 3 -o %s", a, png);
    cr_assert(said("no divergence"));
    EXPECT_EXIT(2, "render-diff %s -o %s", a, png);
    unlink(a), unlink(b);
}

/* ---------------------------------------------------------------- render-diff */
static bool text_of(const char *path, const char *key, char *out, size_t size) {
    eddy_bytes file = {0};
    cr_assert(testkit_read_file(path, &file), "cannot read %s", path);
    const bool found = png_text_chunk(&file, key, out, size);
    eddy_bytes_free(&file);
    return found;
}

/* A scene recorded to path with the definition base (NULL: the scene's), and
 * at the step from frame `at` one extra blast or bullet on top of its script. */
static void record_scene(const char *scene, int frames, const eddy_world_def *base, int at,
                         const eddy_blast *blast, const eddy_bullet *bullet, const char *path) {
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, base, &w), EDDY_OK);
    eddy_recorder *r = NULL;
    char message[256];
    cr_assert_eq(eddy_recorder_create_file(w, NULL, path, &r, message, sizeof message), EDDY_OK, "%s",
                 message);
    for (int f = 0; f < frames; ++f) {
        eddy_scene_input in;
        const eddy_input *script = eddy_scene_input_for(scene, f, &in);
        eddy_input input;
        if (script) input = *script;
        else memset(&input, 0, sizeof input);
        if (f == at && blast) input.blasts = blast, input.blast_count = 1;
        if (f == at && bullet) input.bullets = bullet, input.bullet_count = 1;
        cr_assert_eq(eddy_recorder_step(r, &input), EDDY_OK, "%s", eddy_recorder_error_message(r));
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
}

/* The numbers after key in the eddy-diff text chunk. */
static double diff_value(const char *diff, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, " %s ", key);
    char padded[1024];
    snprintf(padded, sizeof padded, " %s", diff);
    const char *at = strstr(padded, pattern);
    cr_assert(at != NULL, "eddy-diff '%s' has no %s", diff, key);
    return strtod(at + strlen(pattern), NULL);
}

/* Colours of render-diff's marks. */
static bool is_ring(const uint8_t *c) { return c[0] == 90 && c[1] == 255 && c[2] == 90; }
static bool is_cross(const uint8_t *c) { return c[0] == 40 && c[1] == 210 && c[2] == 255; }
static bool is_unmatched(const uint8_t *c) { return c[0] == 90 && c[1] == 110 && c[2] == 255; }
static bool is_warning(const uint8_t *c) { return c[0] == 255 && c[1] == 90 && c[2] == 90; }
/* The distance ramp, yellow .. red .. magenta, at any brightness: red the
 * largest channel by far, and which of green and blue is larger says the end. */
static int ramp_end(const uint8_t *c) {
    if (!(c[0] >= 60 && c[0] > c[1] + 30)) return 0;
    if (c[1] > c[2] + 40) return 1;                        /* yellow: near */
    if (c[2] > c[1] + 40) return 3;                        /* magenta: far */
    return c[1] < c[0] / 2 && c[2] < c[0] / 2 ? 2 : 0;     /* red: between */
}
static bool is_scene(const uint8_t *c) { return c[0] + c[1] + c[2] > 3 * 24; }

/* A panel of the pair: k 0 (A, left) or 1 (B, right), size x size. */
static const uint8_t *panel_pixel(const picture *p, int k, int size, int x, int y) {
    return pixel(p, x + k * (size + 4), y);
}

/* The first number after text in the captured output. */
static double said_value(const char *text) {
    const char *at = strstr((const char *)g_text.data, text);
    cr_assert(at != NULL, "no '%s' in:\n%s", text, (const char *)g_text.data);
    return strtod(at + strlen(text), NULL);
}

/* smoke_grenade, B with a small blast beside the grenade's column at frame
 * 30: the blast moves every particle there is, so at the first divergent
 * frame all but the step's new tracers differ, by 1e-4 far away to 1e-3 m
 * near it. The picture still
 * shows the plume: every pixel of A's plain render that shows smoke is
 * smoke in the diff too; the colours span the scale (yellow far, magenta
 * near), the farthest apart is ringed where the tool says it is, and the
 * counts on stdout and in the PNG agree with each other. */
Test(replay_render, divergence_spread_everywhere_still_shows_the_scene, .timeout = 180) {
    const char *a = tmp("spread_a.eddyr"), *b = tmp("spread_b.eddyr");
    const char *png = tmp("spread.png"), *plain = tmp("spread_plain.png");
    const eddy_blast blast = {{0.4f, 0.0f, -0.9f}, 0.02f, 1.0f / 30.0f, 0.0f, 0.05f};
    record_scene("smoke_grenade", 36, NULL, 30, NULL, NULL, a);
    record_scene("smoke_grenade", 36, NULL, 30, &blast, NULL, b);
    const int size = 400;
    const char *camera = "--view y --camera -1,-1.6,1.2,0.6";
    EXPECT_EXIT(1, "render-diff %s %s %s --size %d -o %s -f", a, b, camera, size, png);
    cr_assert(said("first divergent frame 31: "), "%s", (char *)g_text.data);
    const double differ = said_value("first divergent frame 31: ");
    const double total = said_value(" of ");
    /* all but the tracers emitted in that step (after the blast) */
    cr_assert(differ >= 0.95 * total && differ > 10000, "%g of %g particles differ", differ, total);
    cr_assert(said("farthest apart (ringed, numbered):"));
    float x1, y1, z1;
    const char *top = strstr((const char *)g_text.data, "   1  ");
    cr_assert(top && sscanf(strstr(top, " A (") + 4, "%f, %f, %f", &x1, &y1, &z1) == 3);

    char diff[1024];
    cr_assert(text_of(png, "eddy-diff", diff, sizeof diff));
    cr_assert_eq(diff_value(diff, "differ"), differ);
    cr_assert_eq(diff_value(diff, "first_divergent_frame"), 31);
    cr_assert_eq(diff_value(diff, "top"), 10);
    cr_assert(diff_value(diff, "farthest") > 3.0 * diff_value(diff, "nearest"), "%s", diff);

    EXPECT_EXIT(0, "render %s --frame 31 %s --size %d -o %s -f", a, camera, size, plain);
    picture p, q;
    load_png(png, &p);
    load_png(plain, &q);
    cr_assert_eq(p.width, 2 * size + 4);
    const view v = parse_camera(p.camera);
    /* the scene: away from the labels and legend (top 180 rows), smoke in
     * the plain picture is smoke in both panels of the diff */
    int scene = 0, kept[2] = {0, 0}, ends[4] = {0, 0, 0, 0};
    for (int y = 180; y < size - 20; ++y)
        for (int x = 0; x < size; ++x) {
            if (!is_scene(pixel(&q, x, y))) continue;
            ++scene;
            for (int k = 0; k < 2; ++k) kept[k] += is_scene(panel_pixel(&p, k, size, x, y));
            ends[ramp_end(panel_pixel(&p, 0, size, x, y))]++;
        }
    cr_log_info("spread: %d scene pixels, kept %d and %d; ramp yellow %d red %d magenta %d", scene,
                kept[0], kept[1], ends[1], ends[2], ends[3]);
    cr_assert(scene > 1000, "the plume is not in the plain picture (%d pixels)", scene);
    for (int k = 0; k < 2; ++k)
        cr_assert(kept[k] >= scene * 97 / 100, "panel %d keeps %d of the %d scene pixels", k, kept[k], scene);
    /* not one colour: both ends of the scale and the middle, each on many pixels */
    for (int e = 1; e <= 3; ++e)
        cr_assert(ends[e] > scene / 50, "ramp end %d on %d of %d pixels", e, ends[e], scene);
    /* the farthest apart, ringed where stdout puts it (A's panel) */
    int px, py, ring = 0;
    project(&v, size, x1, z1, &px, &py);
    for (int y = py - 9; y <= py + 9; ++y)
        for (int x = px - 9; x <= px + 9; ++x)
            if (x >= 0 && y >= 0 && x < size && y < size) ring += is_ring(panel_pixel(&p, 0, size, x, y));
    cr_assert(ring >= 10, "no ring around the farthest apart at %d,%d (%d ring pixels)", px, py, ring);
    /* the colour bar of the legend, top right of each panel */
    int bar[2] = {0, 0};
    for (int k = 0; k < 2; ++k)
        for (int y = 0; y < 180; ++y)
            for (int x = size / 2; x < size; ++x) bar[k] += ramp_end(panel_pixel(&p, k, size, x, y)) != 0;
    cr_assert(bar[0] > size / 3 * 4 && bar[1] > size / 3 * 4, "no colour bar (%d, %d)", bar[0], bar[1]);
    free(p.rgb), free(q.rgb);
    unlink(png), unlink(plain), unlink(a), unlink(b);
}

/* smoke_grenade, B with a bullet through the bottom of the column at frame
 * 40: at frame 41 vortons differ, and the few tracers on its path (the bullet pushed them aside and left
 * wake vortons in B, born in a frame where A has fewer: not matched, blue);
 * by frame 50 the difference has reached every particle. --frame 50 marks
 * the first divergent particles with crosses where they are then: all of
 * them in B, which holds them all. */
Test(replay_render, first_divergent_particles_followed_to_a_later_frame, .timeout = 180) {
    const char *a = tmp("bullet_a.eddyr"), *b = tmp("bullet_b.eddyr");
    const char *first = tmp("bullet_41.png"), *later = tmp("bullet_50.png");
    const eddy_bullet bullet = {{-1.0f, 0.0f, -1.1f}, {1.0f, 0.0f, -1.1f}, 0.03f, 1.0f};
    record_scene("smoke_grenade", 50, NULL, 40, NULL, NULL, a);
    record_scene("smoke_grenade", 50, NULL, 40, NULL, &bullet, b);
    const char *camera = "--view y --camera -1.2,-1.6,1.2,0.8 --size 320";
    EXPECT_EXIT(1, "render-diff %s %s %s -o %s -f", a, b, camera, first);
    const double at41 = said_value("first divergent frame 41: ");
    const double tracers41 = said_value("vortons, ");
    const double unmatched = said_value("tracers; ");
    /* the few tracers on the bullet's path are pushed aside too (5 with the
     * grid of the vortons) */
    cr_assert(at41 > 0 && at41 < 1000 && tracers41 <= 16 && unmatched >= 64,
              "frame 41: %g differ, %g tracers, %g not matched", at41, tracers41, unmatched);
    picture p;
    load_png(first, &p);
    cr_assert(count_pixels(&p, is_unmatched) > 0, "the wake vortons are not drawn");
    cr_assert_eq(count_pixels(&p, is_cross), 0, "crosses at the first divergent frame");
    free(p.rgb);

    EXPECT_EXIT(1, "render-diff %s %s %s --frame 50 --top 5 -o %s -f", a, b, camera, later);
    char line[128];
    snprintf(line, sizeof line, "first divergent frame 41, %.0f particles differed; at frame 50: ", at41);
    const double at50 = said_value(line);
    cr_assert(at50 > 50.0 * at41, "the difference did not spread: %g, then %g", at41, at50);
    /* a birth frame's unmatched particles of both worlds count once */
    const double ids = said_value("\nthe ");
    cr_assert(ids <= at41 && ids >= at41 - unmatched / 2, "%g first divergent of %g", ids, at41);
    snprintf(line, sizeof line, "the %.0f first divergent particles (frame 41) are marked: ", ids);
    const double found_a = said_value(line);
    const double found_b = said_value(" found in A, ");
    cr_assert(found_b == ids && found_a > 0 && found_a < ids, "found %g in A, %g in B of %g",
              found_a, found_b, ids);
    char diff[1024];
    cr_assert(text_of(later, "eddy-diff", diff, sizeof diff));
    cr_assert_eq(diff_value(diff, "first_divergent_frame"), 41);
    cr_assert_eq(diff_value(diff, "frame"), 50);
    cr_assert_eq(diff_value(diff, "first_differ"), at41);
    cr_assert_eq(diff_value(diff, "first"), ids);
    cr_assert_eq(diff_value(diff, "first_found"), found_a);
    cr_assert_eq(diff_value(diff, "top"), 5);
    load_png(later, &p);
    int crosses[2] = {0, 0};
    for (int k = 0; k < 2; ++k)
        for (int y = 140; y < 320; ++y) /* below the legend */
            for (int x = 0; x < 320; ++x) crosses[k] += is_cross(panel_pixel(&p, k, 320, x, y));
    cr_assert(crosses[0] > 20 && crosses[1] > 20, "crosses %d, %d", crosses[0], crosses[1]);
    free(p.rgb);
    EXPECT_EXIT(2, "render-diff %s %s %s --frame 39 -o %s -f", a, b, camera, later);
    cr_assert(said("first differ at frame 41"), "%s", (char *)g_text.data);
    unlink(first), unlink(later), unlink(a), unlink(b);
}

/* Two scenes, and one scene with two definitions, are different worlds:
 * said on stdout with the scenes and the fields named, written on the
 * picture, and no difference drawn. */
Test(replay_render, different_worlds_are_said_not_diffed, .timeout = 120) {
    const char *ring = tmp("w_ring.eddyr"), *grenade = tmp("w_grenade.eddyr");
    const char *direct = tmp("w_direct.eddyr"), *png = tmp("worlds.png");
    EXPECT_EXIT(0, "record --scene vortex_ring --frames 3 -o %s -q -f", ring);
    record_scene("smoke_grenade", 3, NULL, -1, NULL, NULL, grenade);
    EXPECT_EXIT(1, "render-diff %s %s --size 256 -o %s -f", ring, grenade, png);
    cr_assert(said("A and B are different worlds, not a divergence: A is the scene vortex_ring; "
                   "B is the scene smoke_grenade"),
              "%s", (char *)g_text.data);
    cr_assert(said("their first common frame 0 differs"));
    cr_assert(!said("particles differ"));
    char diff[1024];
    cr_assert(text_of(png, "eddy-diff", diff, sizeof diff));
    cr_assert(strstr(diff, "different worlds; A the scene vortex_ring; B the scene smoke_grenade") == diff,
              "eddy-diff %s", diff);
    picture p;
    load_png(png, &p);
    cr_assert(count_pixels(&p, is_warning) > 100, "the picture does not say it");
    cr_assert_eq(count_pixels(&p, is_ring), 0);
    cr_assert_eq(count_pixels(&p, is_cross), 0);
    free(p.rgb);

    /* the same scene with the velocity on the grid by direct summation: the
     * same frame 0 (the definition is not hashed), then different physics */
    eddy_world_def def = eddy_world_def_default();
    def.velocity_method = EDDY_VELOCITY_DIRECT_GRID;
    record_scene("smoke_grenade", 3, &def, -1, NULL, NULL, direct);
    EXPECT_EXIT(1, "render-diff %s %s --size 256 -o %s -f", grenade, direct, png);
    cr_assert(said("A is the scene smoke_grenade; B is the scene smoke_grenade"), "%s",
              (char *)g_text.data);
    cr_assert(said("their definitions differ: velocity_method 0 vs 1 (A vs B)"), "%s",
              (char *)g_text.data);
    cr_assert(!said("first common frame"));
    cr_assert(text_of(png, "eddy-diff", diff, sizeof diff));
    cr_assert(strstr(diff, "definitions velocity_method 0 vs 1") != NULL, "eddy-diff %s", diff);
    load_png(png, &p);
    cr_assert(count_pixels(&p, is_warning) > 100);
    free(p.rgb);
    unlink(png), unlink(ring), unlink(grenade), unlink(direct);
}

/* ---------------------------------------------------------------- volume */
static float brightness(const uint8_t *c) { return ((float)c[0] + (float)c[1] + (float)c[2]) / 3.0f; }

/* smoke_grenade at frame 60: the grenade's column of smoke stands over the
 * room's floor at x = 0. --volume ray-marches it: the column is much
 * brighter than the background beside it; the PNG names the file, frame,
 * view and the frame hash, which is the scene's own at that frame. */
Test(replay_render, volume_shows_the_smoke_and_names_the_frame, .timeout = 180) {
    const char *a = tmp("grenade.eddyr"), *png = tmp("grenade_60.png");
    EXPECT_EXIT(0, "record --scene smoke_grenade --frames 60 -o %s -q -f", a);
    EXPECT_EXIT(0, "render %s --frame 60 --view y --volume --size 256 --camera -3,-2,3,4 -o %s -f",
                a, png);
    picture p;
    load_png(png, &p);
    cr_assert_eq(p.width, 256);
    cr_assert_eq(p.height, 256);
    const view v = parse_camera(p.camera);
    /* the column over the grenade (x = 0, the floor at z -1.5): the brightest
     * pixel within 0.5 m of x = 0 between z -1.4 and -0.6 (the plume leans
     * with the flow); and 2 m to the side */
    int x0, y0, x1, y1, bx, by;
    project(&v, 256, -0.5f, -0.6f, &x0, &y0);
    project(&v, 256, 0.5f, -1.4f, &x1, &y1);
    project(&v, 256, -2.0f, -1.0f, &bx, &by);
    float column = 0.0f;
    for (int y = y0 < y1 ? y0 : y1; y <= (y0 < y1 ? y1 : y0); ++y)
        for (int x = x0 < x1 ? x0 : x1; x <= (x0 < x1 ? x1 : x0); ++x)
            column = fmaxf(column, brightness(pixel(&p, x, y)));
    const float beside = brightness(pixel(&p, bx, by));
    cr_log_info("volume: column %.0f, background %.0f", (double)column, (double)beside);
    cr_assert(column > beside + 60.0f, "no smoke drawn: column %g, background %g", (double)column,
              (double)beside);
    char source[128], hash[64], frame[32], viewtext[64], sigma[32];
    cr_assert(text_of(png, "eddy-source", source, sizeof source));
    cr_assert(strstr(source, "grenade.eddyr") != NULL, "eddy-source %s", source);
    cr_assert(text_of(png, "eddy-frame", frame, sizeof frame));
    cr_assert_str_eq(frame, "60");
    cr_assert(text_of(png, "eddy-view", viewtext, sizeof viewtext));
    cr_assert(strstr(viewtext, "X RIGHT, Z UP") != NULL, "eddy-view %s", viewtext);
    cr_assert(text_of(png, "eddy-extinction", sigma, sizeof sigma));
    cr_assert(strtof(sigma, NULL) > 0.0f);
    cr_assert(text_of(png, "eddy-hash", hash, sizeof hash));
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("smoke_grenade", NULL, &w), EDDY_OK);
    eddy_scene_input in;
    for (int f = 0; f < 60; ++f) eddy_world_step(w, eddy_scene_input_for("smoke_grenade", f, &in));
    char want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)eddy_world_hash(w).frame_hash);
    cr_assert_str_eq(hash, want);
    eddy_world_destroy(w);
    free(p.rgb);
}
