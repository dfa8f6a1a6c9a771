/* SPDX-License-Identifier: MIT */
/* eddy-replay render: a PNG of one frame seen along an axis.
 *
 * Tracers are splatted into a count per pixel and shaded by that density
 * (1 - exp(-count / typical count)), vortons drawn as red dots brightened by
 * |omega|, bodies outlined in yellow: spheres as circles, polytopes as the
 * convex hull of their projected vertices. The world's public API gives a
 * body's pose but not its shape, so the shapes are read from a snapshot of
 * the frame (the BODY section, docs/snapshot-format.md §3.5). The picture is
 * for people, not for comparison: floats and libm are fine here. */
#include "cli.h"

#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct canvas {
    int size;
    uint8_t *rgb;
    float *count;
    int axis[2];        /* world axes shown right and up */
    float lo[2], scale; /* world -> pixels */
} canvas;

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static float coord(eddy_vec3 p, int a) { return a == 0 ? p.x : a == 1 ? p.y : p.z; }

static void to_pixel(const canvas *c, eddy_vec3 p, float *x, float *y) {
    *x = (coord(p, c->axis[0]) - c->lo[0]) * c->scale;
    *y = (float)(c->size - 1) - (coord(p, c->axis[1]) - c->lo[1]) * c->scale;
}

static void put_pixel(canvas *c, int x, int y, rgb col) {
    if (x < 0 || y < 0 || x >= c->size || y >= c->size) return;
    uint8_t *p = c->rgb + 3 * ((size_t)y * (size_t)c->size + (size_t)x);
    p[0] = col.r;
    p[1] = col.g;
    p[2] = col.b;
}

static void line(canvas *c, float x0, float y0, float x1, float y1, rgb col) {
    const float dx = x1 - x0, dy = y1 - y0;
    const int steps = (int)(fabsf(dx) > fabsf(dy) ? fabsf(dx) : fabsf(dy)) + 1;
    for (int k = 0; k <= steps && k < 100000; ++k) {
        const float t = (float)k / (float)steps;
        put_pixel(c, (int)lroundf(x0 + t * dx), (int)lroundf(y0 + t * dy), col);
    }
}

/* ---------------------------------------------------------------- framing */
static void grow_bounds(float lo[3], float hi[3], eddy_vec3 p, float r) {
    const float v[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
        if (v[a] - r < lo[a]) lo[a] = v[a] - r;
        if (v[a] + r > hi[a]) hi[a] = v[a] + r;
    }
}

static void frame_view(canvas *c, eddy_world *w) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    eddy_vorton v;
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i) grow_bounds(lo, hi, v.position, 0.0f);
    eddy_tracer t;
    for (int i = 0; eddy_world_get_tracers(w, i, 1, &t) == 1; ++i) grow_bounds(lo, hi, t.position, 0.0f);
    float span = 0.0f;
    for (int k = 0; k < 2; ++k) {
        const int a = c->axis[k];
        if (!(lo[a] <= hi[a])) lo[a] = -1.0f, hi[a] = 1.0f;
        if (hi[a] - lo[a] > span) span = hi[a] - lo[a];
    }
    if (!(span > 1e-6f)) span = 2.0f;
    span *= 1.1f;
    for (int k = 0; k < 2; ++k) {
        const int a = c->axis[k];
        c->lo[k] = 0.5f * (lo[a] + hi[a]) - 0.5f * span;
    }
    c->scale = (float)(c->size - 1) / span;
}

/* ---------------------------------------------------------------- layers */
static void draw_tracers(canvas *c, eddy_world *w) {
    eddy_tracer t;
    for (int i = 0; eddy_world_get_tracers(w, i, 1, &t) == 1; ++i) {
        float x, y;
        to_pixel(c, t.position, &x, &y);
        const int px = (int)x, py = (int)y;
        if (px >= 0 && py >= 0 && px < c->size && py < c->size)
            c->count[(size_t)py * (size_t)c->size + (size_t)px] += 1.0f;
    }
    double sum = 0.0;
    size_t used = 0;
    const size_t n = (size_t)c->size * (size_t)c->size;
    for (size_t k = 0; k < n; ++k)
        if (c->count[k] > 0.0f) sum += (double)c->count[k], ++used;
    const float typical = used ? (float)(sum / (double)used) : 1.0f;
    for (size_t k = 0; k < n; ++k) {
        const float s = 1.0f - expf(-c->count[k] / typical);
        c->rgb[3 * k] = (uint8_t)(12.0f + 215.0f * s);
        c->rgb[3 * k + 1] = (uint8_t)(14.0f + 220.0f * s);
        c->rgb[3 * k + 2] = (uint8_t)(22.0f + 228.0f * s);
    }
}

static float length3(eddy_vec3 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }

static void draw_vortons(canvas *c, eddy_world *w) {
    float top = 0.0f;
    eddy_vorton v;
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i)
        if (length3(v.vorticity) > top) top = length3(v.vorticity);
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i) {
        const float s = top > 0.0f ? length3(v.vorticity) / top : 0.0f;
        const rgb col = {255, (uint8_t)(40.0f + 140.0f * s), (uint8_t)(30.0f + 60.0f * s)};
        float x, y;
        to_pixel(c, v.position, &x, &y);
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx) put_pixel(c, (int)x + dx, (int)y + dy, col);
    }
}

/* ---------------------------------------------------------------- bodies */
static const rgb k_body = {255, 210, 40};

static eddy_vec3 rotate(eddy_quat q, eddy_vec3 v) {
    /* v + 2 q.w (u x v) + 2 u x (u x v), u = (q.x, q.y, q.z) */
    const eddy_vec3 u = {q.x, q.y, q.z};
    const eddy_vec3 t = {2.0f * (u.y * v.z - u.z * v.y), 2.0f * (u.z * v.x - u.x * v.z),
                         2.0f * (u.x * v.y - u.y * v.x)};
    return (eddy_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                       v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                       v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
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

static void draw_polytope(canvas *c, const eddy_shape *s, const eddy_body_state *b) {
    eddy_vec3 v[256];
    int n = eddy_shape_vertices(s, v, 256);
    if (n > 256) n = 256;
    float p[256][2], h[514][2];
    for (int k = 0; k < n; ++k) {
        eddy_vec3 r = rotate(b->orientation, v[k]);
        r = (eddy_vec3){r.x + b->position.x, r.y + b->position.y, r.z + b->position.z};
        to_pixel(c, r, &p[k][0], &p[k][1]);
    }
    const int m = n >= 3 ? hull2(p, n, h) : 0;
    for (int k = 0; k < m; ++k)
        line(c, h[k][0], h[k][1], h[(k + 1) % m][0], h[(k + 1) % m][1], k_body);
}

static void draw_sphere(canvas *c, float radius, const eddy_body_state *b) {
    float x, y;
    to_pixel(c, b->position, &x, &y);
    const float r = radius * c->scale;
    const int steps = 16 + (int)(r * 6.0f) % 2048;
    for (int k = 0; k < steps; ++k) {
        const float a0 = 6.2831853f * (float)k / (float)steps;
        const float a1 = 6.2831853f * (float)(k + 1) / (float)steps;
        line(c, x + r * cosf(a0), y + r * sinf(a0), x + r * cosf(a1), y + r * sinf(a1), k_body);
    }
}

/* Shapes of the live bodies, in slot order, from a snapshot's BODY section.
 * Returns the count read (0 when the section cannot be read). */
static int snapshot_shapes(const uint8_t *s, size_t size, eddy_shape *out, int capacity);

static void draw_bodies(canvas *c, eddy_world *w) {
    const int n = eddy_world_body_count(w);
    if (n == 0) return;
    eddy_body_id *ids = malloc((size_t)n * sizeof *ids);
    eddy_shape *shapes = malloc((size_t)n * sizeof *shapes);
    eddy_bytes snap = {0};
    int known = 0;
    if (ids && shapes && eddy_world_snapshot(w, &snap) == EDDY_OK)
        known = snapshot_shapes(snap.data, snap.size, shapes, n);
    const int m = ids ? eddy_world_get_body_ids(w, ids, n) : 0;
    for (int k = 0; k < m && k < known; ++k) {
        eddy_body_state b;
        if (eddy_world_get_body(w, ids[k], &b) != EDDY_OK) continue;
        if (shapes[k].type == EDDY_SHAPE_SPHERE) draw_sphere(c, shapes[k].radius, &b);
        else draw_polytope(c, &shapes[k], &b);
    }
    eddy_bytes_free(&snap);
    free(ids);
    free(shapes);
}

/* ---------------------------------------------------------------- snapshot */
typedef struct rd {
    const uint8_t *p;
    size_t size, pos;
    bool bad;
} rd;

static const uint8_t *take(rd *r, size_t n) {
    if (r->bad || n > r->size - r->pos) {
        r->bad = true;
        return NULL;
    }
    r->pos += n;
    return r->p + r->pos - n;
}

static uint32_t u32(rd *r) {
    const uint8_t *q = take(r, 4);
    return q ? (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24 : 0;
}

static float f32(rd *r) {
    uint32_t b = u32(r);
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* A body's record after its shape: the rest of the def (69 bytes) and the
 * body state (check_embedded, 63 floats): docs/snapshot-format.md §3.5. */
enum { BODY_AFTER_SHAPE = 69 + 1 + 63 * 4 };

static bool read_shape(rd *r, eddy_shape *s) {
    memset(s, 0, sizeof *s);
    const uint8_t *type = take(r, 1);
    if (!type) return false;
    if (*type == EDDY_SHAPE_SPHERE) {
        s->type = EDDY_SHAPE_SPHERE;
        s->radius = f32(r);
    } else {
        s->type = EDDY_SHAPE_POLYTOPE;
        const uint8_t *n = take(r, 1);
        s->plane_count = n && *n <= EDDY_MAX_PLANES ? *n : 0;
        for (int k = 0; k < s->plane_count; ++k) {
            s->planes[k].normal = (eddy_vec3){f32(r), f32(r), f32(r)};
            s->planes[k].offset = f32(r);
        }
    }
    const uint8_t *hole = take(r, 1);
    s->hole = hole && *hole;
    return !r->bad;
}

static int snapshot_shapes(const uint8_t *s, size_t size, eddy_shape *out, int capacity) {
    rd r = {s, size, 32, false};
    const uint32_t body_tag = 'B' | 'O' << 8 | 'D' << 16 | (uint32_t)'Y' << 24;
    for (;;) {
        const uint32_t tag = u32(&r);
        const uint32_t lo = u32(&r), hi = u32(&r);
        if (r.bad || hi != 0) return 0;
        if (tag == body_tag) break;
        take(&r, lo);
    }
    const uint32_t slots = u32(&r);
    int n = 0;
    for (uint32_t k = 0; k < slots && !r.bad && n < capacity; ++k) {
        const uint8_t *alive = take(&r, 1);
        take(&r, 2); /* generation */
        if (!alive || !*alive) continue;
        take(&r, 1); /* body type */
        if (!read_shape(&r, &out[n])) return n;
        take(&r, BODY_AFTER_SHAPE);
        ++n;
    }
    return r.bad ? 0 : n;
}

/* ---------------------------------------------------------------- png */
static int write_png(const char *path, const canvas *c) {
    FILE *f = fopen(path, "wb");
    if (!f) return cli_fail(EXIT_IO, "cannot write %s", path);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return cli_fail(EXIT_IO, "writing %s failed", path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)c->size, (png_uint_32)c->size, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < c->size; ++y) png_write_row(png, c->rgb + 3 * (size_t)y * (size_t)c->size);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) == 0 ? EXIT_OK : cli_fail(EXIT_IO, "writing %s failed", path);
}

static bool view_axes(const char *view, int axis[2]) {
    if (!view || !strcmp(view, "z")) axis[0] = 0, axis[1] = 1;
    else if (!strcmp(view, "x")) axis[0] = 1, axis[1] = 2;
    else if (!strcmp(view, "y")) axis[0] = 0, axis[1] = 2;
    else return false;
    return true;
}

int cmd_render(const cli_options *o) {
    canvas c;
    memset(&c, 0, sizeof c);
    if (!view_axes(o->view, c.axis)) return cli_fail(EXIT_USAGE, "--view %s: expected x, y or z", o->view);
    if (!o->output) return cli_fail(EXIT_USAGE, "render needs -o OUT.png (try --help)");
    eddy_pinner *pinner;
    eddy_player *p;
    int code = cli_open_at_frame(o, "render", &pinner, &p);
    if (code == EXIT_OK) {
        c.size = o->size;
        const size_t n = (size_t)c.size * (size_t)c.size;
        c.rgb = calloc(3 * n, 1);
        c.count = calloc(n, sizeof *c.count);
        if (!c.rgb || !c.count) code = cli_fail(EXIT_IO, "out of memory for a %d pixel image", c.size);
    }
    if (code == EXIT_OK) {
        eddy_world *w = eddy_player_world(p);
        frame_view(&c, w);
        draw_tracers(&c, w);
        draw_vortons(&c, w);
        draw_bodies(&c, w);
        code = write_png(o->output, &c);
    }
    free(c.rgb);
    free(c.count);
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return code;
}
