/* SPDX-License-Identifier: MIT */
/* eddy-replay render and render-diff: pictures of a replay for people.
 *
 * Design notes.
 * - One camera for the whole replay: unless --camera sets it, a first pass
 *   re-simulates every recorded frame and fits a square view to every
 *   vorton, tracer and body (its position plus the radius that holds its
 *   shape) over all frames, with a 5% margin. Every frame rendered from a
 *   file then has the same world-to-pixel mapping, so frames compare and
 *   make a video, and a free body that leaves the particle cloud stays in
 *   the picture. The bounds are printed and stored in the PNG as the tEXt
 *   chunk "eddy-camera" ("VIEW xlo ylo xhi yhi", world units) with
 *   "eddy-frame" and "eddy-time".
 * - Layers: tracers splatted into a count per pixel and shaded by it (or,
 *   with --color density, coloured by their mean density deviation on a
 *   blue-white-red scale whose range is fixed over the replay, with a
 *   legend); vortons as red dots; bodies filled in amber with a yellow
 *   outline (spheres as discs, polytopes as the convex hull of their
 *   projected vertices; hollow containers outlined only); then the frame
 *   number and time, and a scale bar.
 * - render-diff: two re-simulations stepped side by side (two files, or one
 *   file at two worker counts) until their world hashes differ; that frame
 *   is drawn in two panels with the particles whose state differs (any
 *   bit of position, velocity, vorticity or density deviation) circled in
 *   magenta.
 * - The picture is for people, not for comparison: floats and libm are
 *   fine here. */
#include "cli_render.h"
#include "cli_volume.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Extinction of the last panel drawn with --volume (its legend and the PNG
 * text say it); the tool draws one panel at a time. */
static float g_sigma_used;

static const rgb k_body_fill = {200, 140, 20}, k_body_edge = {255, 215, 40};
static const rgb k_text = {235, 235, 235};

static float coord(eddy_vec3 p, int a) { return a == 0 ? p.x : a == 1 ? p.y : p.z; }

void cli_to_pixel(const cli_camera *c, eddy_vec3 p, float *x, float *y) {
    *x = (coord(p, c->axis[0]) - c->lo[0]) * c->scale;
    *y = (float)(c->size - 1) - (coord(p, c->axis[1]) - c->lo[1]) * c->scale;
}

static bool view_axes(const char *view, cli_camera *c) {
    c->view = view ? view[0] : 'z';
    if (!view || !strcmp(view, "z")) c->axis[0] = 0, c->axis[1] = 1;
    else if (!strcmp(view, "x")) c->axis[0] = 1, c->axis[1] = 2;
    else if (!strcmp(view, "y")) c->axis[0] = 0, c->axis[1] = 2;
    else return false;
    return true;
}

/* ---------------------------------------------------------------- fitting */
typedef struct extent {
    float lo[3], hi[3];
    float density; /* largest |rho'| seen */
} extent;

static void grow(extent *e, eddy_vec3 p, float r) {
    const float v[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
        if (!isfinite(v[a])) return;
    }
    for (int a = 0; a < 3; ++a) {
        if (v[a] - r < e->lo[a]) e->lo[a] = v[a] - r;
        if (v[a] + r > e->hi[a]) e->hi[a] = v[a] + r;
    }
}

static void grow_density(extent *e, float d) {
    if (isfinite(d) && fabsf(d) > e->density) e->density = fabsf(d);
}

enum { BATCH = 4096 };

static void extent_add_world(extent *e, eddy_world *w) {
    static eddy_vorton v[BATCH];
    static eddy_tracer t[BATCH];
    int n;
    for (int i = 0; (n = eddy_world_get_vortons(w, i, BATCH, v)) > 0; i += n)
        for (int k = 0; k < n; ++k)
            grow(e, v[k].position, 0.0f), grow_density(e, v[k].density_deviation);
    for (int i = 0; (n = eddy_world_get_tracers(w, i, BATCH, t)) > 0; i += n)
        for (int k = 0; k < n; ++k)
            grow(e, t[k].position, 0.0f), grow_density(e, t[k].density_deviation);
    cli_body *b;
    const int m = cli_world_bodies(w, &b);
    for (int k = 0; k < m; ++k) grow(e, b[k].state.position, cli_body_bound(&b[k]));
    free(b);
}

/* Step p through every recorded frame from the start, growing e. A
 * re-simulation that leaves the recording still steps on. */
static int fit_pass(eddy_player *p, extent *e) {
    eddy_divergence d;
    const eddy_replay_info info = eddy_player_info(p);
    eddy_status s = eddy_player_seek(p, info.first_frame, &d);
    if (s != EDDY_OK && s != EDDY_ERROR_DIVERGED)
        return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
    extent_add_world(e, eddy_player_world(p));
    for (;;) {
        s = eddy_player_step(p, &d);
        if (s == EDDY_ERROR_NOT_FOUND) break;
        if (s != EDDY_OK && s != EDDY_ERROR_DIVERGED) {
            progress_done();
            return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
        }
        extent_add_world(e, eddy_player_world(p));
        progress_show("fitting the camera:", eddy_player_frame(p), info.last_frame);
    }
    progress_done();
    return EXIT_OK;
}

static void camera_from_extent(cli_camera *c, const extent *e) {
    float span = 0.0f, mid[2];
    for (int k = 0; k < 2; ++k) {
        const int a = c->axis[k];
        const bool any = e->lo[a] <= e->hi[a];
        const float lo = any ? e->lo[a] : -1.0f, hi = any ? e->hi[a] : 1.0f;
        mid[k] = 0.5f * (lo + hi);
        if (hi - lo > span) span = hi - lo;
    }
    if (!(span > 1e-6f)) span = 2.0f;
    span *= 1.1f;
    c->span = span;
    for (int k = 0; k < 2; ++k) c->lo[k] = mid[k] - 0.5f * span;
    c->density_range = e->density > 0.0f ? e->density : 1.0f;
}

static bool parse_camera(const char *text, cli_camera *c) {
    float v[4];
    char tail;
    if (sscanf(text, "%f,%f,%f,%f%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4) return false;
    for (int k = 0; k < 4; ++k)
        if (!isfinite(v[k])) return false;
    if (!(v[2] > v[0] && v[3] > v[1])) return false;
    c->lo[0] = v[0], c->lo[1] = v[1];
    c->span = fmaxf(v[2] - v[0], v[3] - v[1]);
    return true;
}

/* Set the camera from --camera or by fitting over the players' frames. */
int cli_setup_camera(const cli_options *o, cli_camera *c, eddy_player **players, int n) {
    if (!view_axes(o->view, c))
        return cli_fail(EXIT_USAGE, "--view %s: expected x, y or z", o->view);
    c->size = o->size;
    c->volume = o->volume;
    c->extinction = o->extinction;
    const char *path = o->file_count > 0 ? o->files[0] : "-";
    const char *slash = strrchr(path, '/');
    snprintf(c->source, sizeof c->source, "%s", !strcmp(path, "-") ? "STDIN" : slash ? slash + 1 : path);
    char label[sizeof c->source]; /* the image's font draws upper case */
    for (size_t k = 0; k < sizeof label; ++k)
        label[k] = (char)(c->source[k] >= 'a' && c->source[k] <= 'z' ? c->source[k] - 32 : c->source[k]);
    memcpy(c->label, label, sizeof label);
    c->density = o->color && !strcmp(o->color, "density");
    if (c->volume && c->density)
        return cli_fail(EXIT_USAGE, "--volume draws the smoke's density; --color does not apply");
    if (o->color && !c->density && strcmp(o->color, "plain"))
        return cli_fail(EXIT_USAGE, "--color %s: expected plain or density", o->color);
    extent e = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0.0f};
    const bool fixed = o->camera != NULL;
    if (fixed && !parse_camera(o->camera, c))
        return cli_fail(EXIT_USAGE,
                        "--camera %s: expected XLO,YLO,XHI,YHI with XLO < XHI, YLO < YHI",
                        o->camera);
    if (!fixed || (c->density && o->density_range <= 0.0f))
        for (int k = 0; k < n; ++k) {
            const int code = fit_pass(players[k], &e);
            if (code != EXIT_OK) return code;
        }
    if (!fixed) camera_from_extent(c, &e);
    else c->density_range = e.density > 0.0f ? e.density : 1.0f;
    if (o->density_range > 0.0f) c->density_range = o->density_range;
    c->scale = (float)(c->size - 1) / c->span;
    return EXIT_OK;
}

static void camera_text(const cli_camera *c, char *out, size_t size) {
    snprintf(out, size, "%c %.9g %.9g %.9g %.9g", c->view, (double)c->lo[0], (double)c->lo[1],
             (double)(c->lo[0] + c->span), (double)(c->lo[1] + c->span));
}

FILE *cli_info_stream(const cli_options *o) {
    return o->output && !strcmp(o->output, "-") ? stderr : stdout;
}

void cli_print_camera(const cli_options *o, const cli_camera *c) {
    if (o->quiet) return;
    static const char names[3] = {'x', 'y', 'z'};
    fprintf(cli_info_stream(o), "camera: view %c, %c %.6g..%.6g, %c %.6g..%.6g (%s)%s", c->view,
            names[c->axis[0]], (double)c->lo[0], (double)(c->lo[0] + c->span), names[c->axis[1]],
            (double)c->lo[1], (double)(c->lo[1] + c->span),
            o->camera ? "set by --camera" : "fitted over every frame", "");
    if (c->density)
        fprintf(cli_info_stream(o), ", density deviation scale +-%.4g", (double)c->density_range);
    fputc('\n', cli_info_stream(o));
}

/* ---------------------------------------------------------------- layers */
static rgb diverging(float t) { /* t in [-1, 1]: blue, white, red */
    t = fmaxf(-1.0f, fminf(1.0f, t));
    if (t < 0.0f)
        return (rgb){(uint8_t)(255.0f * (1.0f + t)), (uint8_t)(255.0f * (1.0f + 0.6f * t)), 255};
    return (rgb){255, (uint8_t)(255.0f * (1.0f - 0.8f * t)), (uint8_t)(255.0f * (1.0f - t))};
}

static void draw_tracers(image *im, const cli_camera *c, eddy_world *w) {
    const size_t n = (size_t)c->size * (size_t)c->size;
    float *count = calloc(n, sizeof *count), *dev = calloc(n, sizeof *dev);
    static eddy_tracer t[BATCH];
    int got;
    for (int i = 0; count && dev && (got = eddy_world_get_tracers(w, i, BATCH, t)) > 0; i += got)
        for (int k = 0; k < got; ++k) {
            float x, y;
            cli_to_pixel(c, t[k].position, &x, &y);
            if (!(x >= 0.0f && y >= 0.0f && x < (float)c->size && y < (float)c->size)) continue;
            const size_t at = (size_t)y * (size_t)c->size + (size_t)x;
            count[at] += 1.0f;
            dev[at] += t[k].density_deviation;
        }
    double sum = 0.0;
    size_t used = 0;
    for (size_t k = 0; count && k < n; ++k)
        if (count[k] > 0.0f) sum += (double)count[k], ++used;
    const float typical = used ? (float)(sum / (double)used) : 1.0f;
    for (size_t k = 0; count && dev && k < n; ++k) {
        if (count[k] == 0.0f) continue;
        const float s = 1.0f - expf(-count[k] / typical);
        const int x = (int)(k % (size_t)c->size), y = (int)(k / (size_t)c->size);
        if (c->density)
            image_blend(im, x, y, diverging(dev[k] / count[k] / c->density_range),
                        0.35f + 0.65f * s);
        else
            image_put(im, x, y,
                      (rgb){(uint8_t)(12.0f + 215.0f * s), (uint8_t)(14.0f + 220.0f * s),
                            (uint8_t)(22.0f + 228.0f * s)});
    }
    free(count);
    free(dev);
}

static float length3(eddy_vec3 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }

static void draw_vortons(image *im, const cli_camera *c, eddy_world *w) {
    float top = 0.0f;
    eddy_vorton v;
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i)
        if (length3(v.vorticity) > top) top = length3(v.vorticity);
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i) {
        const float s = top > 0.0f ? length3(v.vorticity) / top : 0.0f;
        rgb col = {255, (uint8_t)(40.0f + 140.0f * s), (uint8_t)(30.0f + 60.0f * s)};
        if (c->density) col = diverging(v.density_deviation / c->density_range);
        float x, y;
        cli_to_pixel(c, v.position, &x, &y);
        if (!isfinite(x) || !isfinite(y) || fabsf(x) > 1e6f || fabsf(y) > 1e6f) continue;
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) image_put(im, (int)x + dx, (int)y + dy, col);
    }
}

static float cross2(const float *o, const float *a, const float *b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int by_x(const void *pa, const void *pb) {
    const float *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Andrew's monotone chain over n points (x, y); hull written to h. */
static int hull2(float (*p)[2], int n, float (*h)[2]) {
    qsort(p, (size_t)n, sizeof p[0], by_x);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0.0f) --k;
        memcpy(h[k++], p[i], sizeof p[i]);
    }
    for (int i = n - 2, t = k + 1; i >= 0; --i) {
        while (k >= t && cross2(h[k - 2], h[k - 1], p[i]) <= 0.0f) --k;
        memcpy(h[k++], p[i], sizeof p[i]);
    }
    return k > 1 ? k - 1 : k;
}

void cli_draw_body(image *im, const cli_camera *c, const cli_body *b, rgb edge) {
    float x, y;
    cli_to_pixel(c, b->state.position, &x, &y);
    if (b->shape.type == EDDY_SHAPE_SPHERE) {
        const float r = b->shape.radius * c->scale;
        if (!b->shape.hole) image_fill_disc(im, x, y, r, k_body_fill, 0.85f);
        const int steps = 16 + (int)fminf(r * 6.0f, 2048.0f);
        for (int k = 0; k < steps; ++k) {
            const float a0 = 6.2831853f * (float)k / (float)steps;
            const float a1 = 6.2831853f * (float)(k + 1) / (float)steps;
            image_line(im, x + r * cosf(a0), y + r * sinf(a0), x + r * cosf(a1), y + r * sinf(a1),
                       edge);
        }
        return;
    }
    eddy_vec3 v[CLI_MAX_BODY_VERTICES];
    const int n = cli_body_vertices(b, v, CLI_MAX_BODY_VERTICES);
    float p[CLI_MAX_BODY_VERTICES][2], h[2 * CLI_MAX_BODY_VERTICES + 2][2];
    for (int k = 0; k < n; ++k) cli_to_pixel(c, v[k], &p[k][0], &p[k][1]);
    const int m = n >= 3 ? hull2(p, n, h) : 0;
    if (!b->shape.hole) image_fill_convex(im, (const float(*)[2])h, m, k_body_fill, 0.85f);
    for (int k = 0; k < m; ++k)
        image_line(im, h[k][0], h[k][1], h[(k + 1) % m][0], h[(k + 1) % m][1], edge);
    if (!b->shape.hole)
        image_fill_disc(im, x, y, 1.5f, edge, 1.0f); /* even when smaller than a pixel */
}

static void draw_bodies(image *im, const cli_camera *c, eddy_world *w) {
    cli_body *b;
    const int n = cli_world_bodies(w, &b);
    for (int k = 0; k < n; ++k) cli_draw_body(im, c, &b[k], k_body_edge);
    free(b);
}

/* ---------------------------------------------------------------- overlays */
int cli_text_scale(const cli_camera *c) { return c->size >= 384 ? 2 : 1; }

static void draw_frame_label(image *im, const cli_camera *c, eddy_world *w, const char *extra) {
    const int64_t frame = eddy_world_frame(w);
    const double t = (double)frame * (double)eddy_world_get_def(w)->dt;
    char text[160], hash[64];
    snprintf(text, sizeof text, "%s  FRAME %lld  T=%.3f S%s%s", c->label, (long long)frame, t,
             extra ? "  " : "", extra ? extra : "");
    snprintf(hash, sizeof hash, "HASH %016llx", (unsigned long long)eddy_world_hash(w).frame_hash);
    const int s = cli_text_scale(c);
    image_label(im, 2 * s + 1, 2 * s + 1, text, s, k_text);
    image_label(im, 2 * s + 1, 9 * s + 2, hash, s, k_text);
}

/* "VIEW -Z: X RIGHT, Y UP" at the bottom right: which way the picture looks. */
static void view_text(const cli_camera *c, char *out, size_t size) {
    static const char names[3] = {'X', 'Y', 'Z'};
    const char sign = c->view == 'y' ? '+' : '-';
    snprintf(out, size, "VIEW ALONG %c%c: %c RIGHT, %c UP", sign, names[3 - c->axis[0] - c->axis[1]],
             names[c->axis[0]], names[c->axis[1]]);
}

/* Legend lines right-aligned at the top right, under the frame label's two
 * rows; the view axis at the bottom right, the scale bar
 * at the bottom left: corners, where the fitted camera's margin keeps them
 * off the particles as far as it can. */
static void draw_legend_line(image *im, const cli_camera *c, int row, const char *text) {
    const int s = cli_text_scale(c);
    const int w = text_width(text, s);
    const int y = 16 * s + 3 + row * (7 * s + 1); /* below the frame label's two rows */
    image_label(im, c->size - w - 3 * s, y, text, s, k_text);
}

static void draw_view_legend(image *im, const cli_camera *c) {
    const int s = cli_text_scale(c);
    char text[64];
    view_text(c, text, sizeof text);
    image_label(im, c->size - text_width(text, s) - 3 * s, c->size - 7 * s - 2, text, s, k_text);
    if (c->volume) {
        char sigma[96];
        snprintf(sigma, sizeof sigma, "SMOKE: SIGMA %.3g PER TRACER", (double)g_sigma_used);
        draw_legend_line(im, c, 0, sigma);
        draw_legend_line(im, c, 1, cli_light_text());
    } else if (!c->density && !c->diff) {
        draw_legend_line(im, c, 0, "BRIGHT: MORE TRACERS");
        draw_legend_line(im, c, 1, "RED: VORTONS  AMBER: BODIES");
    }
}

/* 1, 2 or 5 times a power of ten, about a fifth of the view. */
static double nice_length(double span) {
    const double target = span / 5.0, p = pow(10.0, floor(log10(target)));
    return 5.0 * p <= target ? 5.0 * p : 2.0 * p <= target ? 2.0 * p : p;
}

static void draw_scale_bar(image *im, const cli_camera *c) {
    const double length = nice_length((double)c->span);
    const int s = cli_text_scale(c);
    const int px = (int)lround(length * (double)c->scale);
    const int x0 = 4 * s + 2, y = c->size - 5 * s - 3;
    char text[32];
    snprintf(text, sizeof text, "%g m", length);
    image_label(im, x0, y - 8 * s, text, s, k_text);
    image_rect(im, x0 - 1, y - 1, x0 + px + 1, y + s + 2, (rgb){0, 0, 0});
    image_rect(im, x0, y, x0 + px, y + s + 1, k_text);
    image_rect(im, x0, y - 2 * s, x0 + s, y + s + 1, k_text);
    image_rect(im, x0 + px - s, y - 2 * s, x0 + px, y + s + 1, k_text);
}

static void draw_legend(image *im, const cli_camera *c) {
    const int s = cli_text_scale(c);
    char top[32], bottom[32];
    snprintf(top, sizeof top, "+%.3g", (double)c->density_range);
    snprintf(bottom, sizeof bottom, "-%.3g", (double)c->density_range);
    const int label =
        text_width(top, s) > text_width(bottom, s) ? text_width(top, s) : text_width(bottom, s);
    const int bar_w = 6 * s, h = c->size * 2 / 5;
    const int x = c->size - bar_w - label - 6 * s, y0 = 12 * s + 4;
    image_label(im, c->size - text_width("RHO'", s) - 3 * s, y0 - 8 * s, "RHO'", s, k_text);
    for (int j = 0; j < h; ++j) {
        const rgb col = diverging(1.0f - 2.0f * (float)j / (float)(h - 1));
        image_rect(im, x, y0 + j, x + bar_w, y0 + j, col);
    }
    image_label(im, x + bar_w + 2 * s, y0, top, s, k_text);
    image_label(im, x + bar_w + 2 * s, y0 + h / 2 - 2 * s, "0", s, k_text);
    image_label(im, x + bar_w + 2 * s, y0 + h - 5 * s, bottom, s, k_text);
}

/* The frame w is at, into im (c->size square). */
static void draw_background(image *im, const cli_camera *c) {
    for (int y = 0; y < c->size; ++y) { /* a dark gradient: smoke reads against it */
        const float f = (float)y / (float)(c->size > 1 ? c->size - 1 : 1);
        image_rect(im, 0, y, c->size - 1, y,
                   (rgb){(uint8_t)(18.0f + 14.0f * f), (uint8_t)(22.0f + 16.0f * f),
                         (uint8_t)(34.0f + 20.0f * f)});
    }
}

bool cli_draw_panel(image *im, const cli_camera *c, eddy_world *w, const char *extra) {
    if (!image_init(im, c->size, c->size, (rgb){12, 14, 22})) return false;
    if (c->volume) {
        draw_background(im, c);
        const cli_volume_view view = {{c->axis[0], c->axis[1]}, c->view, {c->lo[0], c->lo[1]},
                                      c->span, c->size};
        if (!cli_draw_volume(im, &view, w, c->extinction, &g_sigma_used)) return false;
    } else {
        draw_tracers(im, c, w);
        draw_vortons(im, c, w);
    }
    draw_bodies(im, c, w);
    draw_frame_label(im, c, w, extra);
    draw_scale_bar(im, c);
    draw_view_legend(im, c);
    if (c->density) draw_legend(im, c);
    return true;
}

int cli_write_picture(const cli_options *o, const char *path, const image *im, const cli_camera *c,
                      const char *frames, const char *times, const char *hashes, const char *diff) {
    (void)o;
    char cam[160], view[64], sigma[32];
    camera_text(c, cam, sizeof cam);
    view_text(c, view, sizeof view);
    snprintf(sigma, sizeof sigma, "%.6g", (double)g_sigma_used);
    const char *keys[8] = {"eddy-camera", "eddy-frame", "eddy-time", "eddy-source", "eddy-view",
                           "eddy-hash"};
    const char *values[8] = {cam, frames, times, c->source, view, hashes};
    int n = 6;
    if (c->volume) keys[n] = "eddy-extinction", values[n++] = sigma;
    if (diff) keys[n] = "eddy-diff", values[n++] = diff;
    return image_write_png(path, im, keys, values, n);
}

void cli_hash_text(eddy_world *w, char *out, size_t size) {
    snprintf(out, size, "%016llx", (unsigned long long)eddy_world_hash(w).frame_hash);
}

bool cli_frame_text(eddy_world *w, char *frame, char *time, size_t size) {
    const int64_t f = eddy_world_frame(w);
    snprintf(frame, size, "%lld", (long long)f);
    snprintf(time, size, "%.6g", (double)f * (double)eddy_world_get_def(w)->dt);
    return true;
}

/* ---------------------------------------------------------------- render */
static int seek_to(eddy_player *p, int64_t frame) {
    eddy_divergence d;
    eddy_status s = eddy_player_seek(p, frame, &d);
    if (s != EDDY_OK) return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
    return EXIT_OK;
}

static int render_one(const cli_options *o, const cli_camera *c, eddy_player *p, int64_t frame,
                      const char *path) {
    int code = seek_to(p, frame);
    if (code != EXIT_OK) return code;
    image im = {0};
    if (!cli_draw_panel(&im, c, eddy_player_world(p), NULL))
        return cli_fail(EXIT_IO, "out of memory for the image");
    char ftext[32], ttext[32], htext[32];
    cli_frame_text(eddy_player_world(p), ftext, ttext, sizeof ftext);
    cli_hash_text(eddy_player_world(p), htext, sizeof htext);
    code = cli_write_picture(o, path, &im, c, ftext, ttext, htext, NULL);
    image_free(&im);
    if (code == EXIT_OK && !o->quiet)
        fprintf(cli_info_stream(o), "wrote %s: frame %lld, %dx%d\n", path, (long long)frame, c->size,
                c->size);
    return code;
}

/* -o with exactly one %d-style conversion (e.g. frame_%05d.png). */
static bool is_pattern(const char *s) {
    const char *p = strchr(s, '%');
    if (!p || strchr(p + 1, '%')) return false;
    ++p;
    while (*p >= '0' && *p <= '9') ++p;
    return *p == 'd';
}

/* The pattern with its %[0][width]d replaced by frame. */
static void expand_pattern(const char *pattern, int64_t frame, char *out, size_t size) {
    const char *p = strchr(pattern, '%');
    const char *q = p + 1;
    const bool zero = *q == '0';
    int width = 0;
    while (*q >= '0' && *q <= '9') width = width * 10 + (*q++ - '0');
    if (width > 32) width = 32;
    snprintf(out, size, zero ? "%.*s%0*lld%s" : "%.*s%*lld%s", (int)(p - pattern), pattern, width,
             (long long)frame, q + 1);
}

static int render_every(const cli_options *o, const cli_camera *c, eddy_player *p) {
    if (!is_pattern(o->output))
        return cli_fail(EXIT_USAGE,
                        "--every needs -o with one %%d conversion, e.g. frame_%%05d.png");
    const eddy_replay_info i = eddy_player_info(p);
    int written = 0;
    for (int64_t f = i.first_frame; f <= i.last_frame; f += o->every) {
        char path[4096];
        expand_pattern(o->output, f, path, sizeof path);
        int code = cli_check_output(path, o);
        if (code == EXIT_OK) code = render_one(o, c, p, f, path);
        if (code != EXIT_OK) return code;
        ++written;
    }
    return EXIT_OK;
}

/* Frames of a contact sheet: n evenly spaced over the recording. */
static int64_t sheet_frame(const eddy_replay_info *i, int k, int n) {
    if (n <= 1) return i->first_frame;
    return i->first_frame + (i->frame_count * k) / (n - 1);
}

static int render_sheet(const cli_options *o, const cli_camera *c, eddy_player *p) {
    const eddy_replay_info info = eddy_player_info(p);
    const int n = o->sheet, cols = (int)ceil(sqrt((double)n)), rows = (n + cols - 1) / cols;
    image sheet = {0};
    if (!image_init(&sheet, cols * c->size + (cols - 1) * 2, rows * c->size + (rows - 1) * 2,
                    (rgb){60, 60, 60}))
        return cli_fail(EXIT_IO, "out of memory for a %dx%d sheet", cols * c->size, rows * c->size);
    char frames[512] = "", times[512] = "", hashes[1200] = "";
    int code = EXIT_OK;
    for (int k = 0; k < n && code == EXIT_OK; ++k) {
        const int64_t f = sheet_frame(&info, k, n);
        code = seek_to(p, f);
        image panel = {0};
        if (code == EXIT_OK && !cli_draw_panel(&panel, c, eddy_player_world(p), NULL))
            code = cli_fail(EXIT_IO, "out of memory for the image");
        if (code != EXIT_OK) break;
        image_blit(&sheet, &panel, (k % cols) * (c->size + 2), (k / cols) * (c->size + 2));
        image_free(&panel);
        char ft[32], tt[32];
        cli_frame_text(eddy_player_world(p), ft, tt, sizeof ft);
        snprintf(frames + strlen(frames), sizeof frames - strlen(frames), "%s%s", k ? " " : "", ft);
        snprintf(times + strlen(times), sizeof times - strlen(times), "%s%s", k ? " " : "", tt);
        char ht[32];
        cli_hash_text(eddy_player_world(p), ht, sizeof ht);
        snprintf(hashes + strlen(hashes), sizeof hashes - strlen(hashes), "%s%s", k ? " " : "", ht);
    }
    if (code == EXIT_OK) code = cli_write_picture(o, o->output, &sheet, c, frames, times, hashes, NULL);
    if (code == EXIT_OK && !o->quiet)
        fprintf(cli_info_stream(o), "wrote %s: contact sheet of %d frames (%s), %dx%d\n", o->output, n,
                frames, sheet.width, sheet.height);
    image_free(&sheet);
    return code;
}

int cmd_render(const cli_options *o) {
    const int modes = (o->frame >= 0) + (o->every > 0) + (o->sheet > 0);
    if (o->file_count != 1 || modes != 1)
        return cli_fail(
            EXIT_USAGE,
            "render needs FILE and one of --frame N, --every K, --sheet N (try --help)");
    if (!o->output) return cli_fail(EXIT_USAGE, "render needs -o OUT.png (try --help)");
    /* every argument is checked before the replay is opened or simulated */
    if (o->every > 0 && !is_pattern(o->output))
        return cli_fail(EXIT_USAGE,
                        "--every needs -o with one %%d conversion, e.g. frame_%%05d.png");
    int code = o->every > 0 ? EXIT_OK : cli_check_output(o->output, o);
    if (code != EXIT_OK) return code;
    cli_camera c;
    memset(&c, 0, sizeof c);
    eddy_pinner *pinner = NULL;
    eddy_player *p = NULL;
    bool truncated;
    code = cli_open(o->files[0], o, &pinner, &p, &truncated);
    if (code != EXIT_OK) return code;
    if (truncated && !o->quiet)
        fprintf(stderr, "eddy-replay: note: %s\n", eddy_player_error_message(p));
    const eddy_replay_info i = eddy_player_info(p);
    if (o->frame >= 0 && (o->frame < i.first_frame || o->frame > i.last_frame))
        code = cli_fail(EXIT_USAGE, "frame %lld is outside the recording (%lld..%lld)",
                        (long long)o->frame, (long long)i.first_frame, (long long)i.last_frame);
    if (code == EXIT_OK && !eddy_player_world(p))
        code = cli_fail(EXIT_INVALID_FILE, "%s", eddy_player_error_message(p));
    if (code == EXIT_OK) code = cli_setup_camera(o, &c, &p, 1);
    if (code == EXIT_OK) cli_print_camera(o, &c);
    if (code == EXIT_OK) {
        if (o->frame >= 0) code = render_one(o, &c, p, o->frame, o->output);
        else if (o->every > 0) code = render_every(o, &c, p);
        else code = render_sheet(o, &c, p);
    }
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return code;
}
