/* SPDX-License-Identifier: MIT */
/* The few C helpers the JavaScript binding (eddy.mjs) needs on top of eddy's
 * exported C API: a wasm export cannot return a struct by value, and the
 * binding reads struct layouts from here rather than hard-coding them. */
#include "eddy/eddy.h"
#include "eddy/smoke.h"
#include "eddy/snapshot.h"
#include "scenes.h"

#include <emscripten/emscripten.h>
#include <stddef.h>
#include <string.h>

/* The exports (called from eddy.mjs only; no header). */
int eddy_js_layout(int what);
void eddy_js_world_def_default(eddy_world_def *out);
void eddy_js_world_hash(eddy_world *w, uint32_t out[4]);
void eddy_js_view(const eddy_world *w, int vortons, uint32_t out[12]);
int eddy_js_bodies(const eddy_world *w, uint32_t *out, int capacity);
double eddy_js_world_frame(const eddy_world *w);
const eddy_input *eddy_js_scene_input_for(const char *name, double frame, eddy_scene_input *out);
const char *eddy_js_scene_text(int index, int description);
int eddy_js_body_outlines(const eddy_world *w, float *out, int capacity);
int eddy_js_smoke_volume_create(const float region[6], const int resolution[3], float tracer_amount,
                                eddy_smoke_volume **out);
void eddy_js_smoke_volume_def(const eddy_smoke_volume *v, float out[10]);
void eddy_js_smoke_volume_hash(const eddy_smoke_volume *v, uint32_t out[2]);
double eddy_js_smoke_volume_frame(const eddy_smoke_volume *v);
int eddy_js_scene_smoke(const char *name, float out[17]);

/* Layout of the structs the binding writes (bindings/js/eddy.mjs). */
EMSCRIPTEN_KEEPALIVE int eddy_js_layout(int what) {
    switch (what) {
    case 0: return (int)sizeof(eddy_world_def);
    case 1: return (int)offsetof(eddy_world_def, worker_count);
    case 2: return (int)sizeof(eddy_input);
    case 3: return (int)offsetof(eddy_input, wind);
    case 4: return (int)offsetof(eddy_input, gravity);
    case 5: return (int)sizeof(eddy_bytes);
    case 6: return (int)sizeof(eddy_scene_input);
    case 7: return EDDY_VERSION;
    default: return -1;
    }
}

EMSCRIPTEN_KEEPALIVE void eddy_js_world_def_default(eddy_world_def *out) { *out = eddy_world_def_default(); }

/* The frame hash as two 32-bit halves (lo, hi) and the frame. */
EMSCRIPTEN_KEEPALIVE void eddy_js_world_hash(eddy_world *w, uint32_t out[4]) {
    const eddy_frame_hash h = eddy_world_hash(w);
    out[0] = (uint32_t)h.frame_hash;
    out[1] = (uint32_t)(h.frame_hash >> 32);
    out[2] = (uint32_t)h.frame;
    out[3] = (uint32_t)((uint64_t)h.frame >> 32);
}

/* A particle view as 12 words: count, then the addresses of position x, y,
 * z, velocity x, y, z, vorticity x, y, z (0 for tracers), density deviation
 * and birth frame: the binding makes typed arrays over wasm memory of them. */
EMSCRIPTEN_KEEPALIVE void eddy_js_view(const eddy_world *w, int vortons, uint32_t out[12]) {
    const eddy_particle_view v = vortons ? eddy_world_view_vortons(w) : eddy_world_view_tracers(w);
    const void *p[11] = {v.position_x, v.position_y, v.position_z, v.velocity_x, v.velocity_y,
                         v.velocity_z, v.vorticity_x, v.vorticity_y, v.vorticity_z,
                         v.density_deviation, v.birth_frame};
    out[0] = (uint32_t)v.count;
    for (int k = 0; k < 11; ++k) out[k + 1] = (uint32_t)(uintptr_t)p[k];
}

/* Live bodies: up to capacity of (id index1, generation, x, y, z, qx, qy, qz, qw)
 * as floats and ints in out (9 words each); returns the number written. */
EMSCRIPTEN_KEEPALIVE int eddy_js_bodies(const eddy_world *w, uint32_t *out, int capacity) {
    eddy_body_id ids[256];
    int n = eddy_world_get_body_ids(w, ids, capacity < 256 ? capacity : 256);
    for (int i = 0; i < n; ++i) {
        eddy_body_state s;
        if (eddy_world_get_body(w, ids[i], &s) != EDDY_OK) return i;
        uint32_t *o = out + 9 * i;
        const float f[7] = {s.position.x, s.position.y, s.position.z, s.orientation.x,
                            s.orientation.y, s.orientation.z, s.orientation.w};
        o[0] = (uint32_t)ids[i].index1;
        o[1] = ids[i].generation;
        memcpy(o + 2, f, sizeof f);
    }
    return n;
}

/* 64-bit integers do not cross a wasm export without BigInt support
 * (emscripten 3.1.6, Debian 12's, legalizes them): the frame as a double, which
 * holds every frame a game reaches exactly. */
EMSCRIPTEN_KEEPALIVE double eddy_js_world_frame(const eddy_world *w) { return (double)eddy_world_frame(w); }
EMSCRIPTEN_KEEPALIVE const eddy_input *eddy_js_scene_input_for(const char *name, double frame,
                                                               eddy_scene_input *out) {
    return eddy_scene_input_for(name, (int64_t)frame, out);
}

/* The built-in scenes: name (description 0) or one-line description; "" out of range. */
EMSCRIPTEN_KEEPALIVE const char *eddy_js_scene_text(int index, int description) {
    const eddy_scene_info *s = eddy_scene_at(index);
    return s == NULL ? "" : description ? s->description : s->name;
}

/* Bodies for drawing (the web page): one record per body,
 *     [kind, x, z, radius, n, x0, z0, ..., x(n-1), z(n-1)]
 * kind 0 sphere (radius), 1 solid polytope, 2 container; a polytope's
 * vertices in world space, projected on the x-z plane. Writes at most
 * capacity floats; returns the number written. Drawing only: none of this
 * arithmetic touches the world's state. */
enum { JS_BODY_VERTICES = 64, JS_BODY_RECORD = 5 + 2 * JS_BODY_VERTICES };

static eddy_vec3 rotate(eddy_quat q, eddy_vec3 v) {
    /* v + 2 w (u x v) + 2 u x (u x v), u the vector part of q */
    const eddy_vec3 t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z),
                         2.0f * (q.x * v.y - q.y * v.x)};
    return (eddy_vec3){v.x + q.w * t.x + (q.y * t.z - q.z * t.y),
                       v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
                       v.z + q.w * t.z + (q.x * t.y - q.y * t.x)};
}

EMSCRIPTEN_KEEPALIVE int eddy_js_body_outlines(const eddy_world *w, float *out, int capacity) {
    eddy_body_id ids[64];
    int n = eddy_world_get_body_ids(w, ids, 64);
    int k = 0;
    for (int i = 0; i < n && k + JS_BODY_RECORD <= capacity; ++i) {
        eddy_body_state s;
        eddy_shape shape;
        if (eddy_world_get_body(w, ids[i], &s) != EDDY_OK ||
            eddy_world_get_body_shape(w, ids[i], &shape) != EDDY_OK)
            continue;
        const bool sphere = shape.type == EDDY_SHAPE_SPHERE;
        eddy_vec3 v[JS_BODY_VERTICES];
        int count = sphere ? 0 : eddy_shape_vertices(&shape, v, JS_BODY_VERTICES);
        if (count < 0 || count > JS_BODY_VERTICES) count = 0;
        out[k++] = sphere ? 0.0f : shape.hole ? 2.0f : 1.0f;
        out[k++] = s.position.x;
        out[k++] = s.position.z;
        out[k++] = sphere ? shape.radius : 0.0f;
        out[k++] = (float)count;
        for (int j = 0; j < count; ++j) {
            const eddy_vec3 r = rotate(s.orientation, v[j]);
            out[k++] = s.position.x + r.x;
            out[k++] = s.position.z + r.z;
        }
    }
    return k;
}

/* ---------------------------------------------------------------- smoke */
/* The smoke volume (include/eddy/smoke.h) without struct arguments: region
 * as xlo, ylo, zlo, xhi, yhi, zhi. Returns the status; *out on success. */
EMSCRIPTEN_KEEPALIVE int eddy_js_smoke_volume_create(const float region[6], const int resolution[3],
                                                     float tracer_amount, eddy_smoke_volume **out) {
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    d.min_corner = (eddy_vec3){region[0], region[1], region[2]};
    d.max_corner = (eddy_vec3){region[3], region[4], region[5]};
    for (int a = 0; a < 3; ++a) d.resolution[a] = resolution[a];
    d.tracer_amount = tracer_amount;
    return (int)eddy_smoke_volume_create(&d, out);
}

/* A volume's definition as 10 floats: region (6), resolution (3), tracer amount. */
EMSCRIPTEN_KEEPALIVE void eddy_js_smoke_volume_def(const eddy_smoke_volume *v, float out[10]) {
    const eddy_smoke_volume_def d = eddy_smoke_volume_get_def(v);
    const float f[10] = {d.min_corner.x, d.min_corner.y, d.min_corner.z, d.max_corner.x,
                         d.max_corner.y, d.max_corner.z, (float)d.resolution[0],
                         (float)d.resolution[1], (float)d.resolution[2], d.tracer_amount};
    memcpy(out, f, sizeof f);
}

/* The volume hash as two 32-bit halves (lo, hi). */
EMSCRIPTEN_KEEPALIVE void eddy_js_smoke_volume_hash(const eddy_smoke_volume *v, uint32_t out[2]) {
    const uint64_t h = eddy_smoke_volume_hash(v);
    out[0] = (uint32_t)h;
    out[1] = (uint32_t)(h >> 32);
}

EMSCRIPTEN_KEEPALIVE double eddy_js_smoke_volume_frame(const eddy_smoke_volume *v) {
    return (double)eddy_smoke_volume_frame(v);
}

/* A scene's smoke: its volume (region 6 floats, resolution 3, tracer amount)
 * then, for a gameplay scene, its sight line (a 3, b 3, extinction). Returns
 * 1 when the scene has a sight line (17 floats written), 0 otherwise (10). */
EMSCRIPTEN_KEEPALIVE int eddy_js_scene_smoke(const char *name, float out[17]) {
    const eddy_smoke_volume_def d = eddy_scene_smoke_volume(name);
    const float f[10] = {d.min_corner.x, d.min_corner.y, d.min_corner.z, d.max_corner.x,
                         d.max_corner.y, d.max_corner.z, (float)d.resolution[0],
                         (float)d.resolution[1], (float)d.resolution[2], d.tracer_amount};
    memcpy(out, f, sizeof f);
    eddy_vec3 a, b;
    float extinction;
    if (!eddy_scene_sight_line(name, &a, &b, &extinction)) return 0;
    const float g[7] = {a.x, a.y, a.z, b.x, b.y, b.z, extinction};
    memcpy(out + 10, g, sizeof g);
    return 1;
}
