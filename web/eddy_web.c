/* SPDX-License-Identifier: MIT */
/* The browser page's view of eddy: one world of a built-in scene, stepped on
 * request, with its frame hash and flat arrays of what the page draws.
 *
 * Design note. The page (web/worker.js) runs this module in a Web Worker and
 * calls these functions through emscripten's ccall; JavaScript never sees
 * eddy's structs. One world at a time lives in this module's single slot:
 * a Web Worker is one page's one simulation, like a process for eddy-verify.
 * Positions are copied into module-owned float arrays (x, y, z per point)
 * that JavaScript reads from the heap after each call that fills them; the
 * pointers stay valid until the next fill. Frame hashes are returned as 16
 * lower-case hex digits, the golden files' spelling. */
#include "eddy_web.h"

#include "eddy/eddy.h"
#include "scenes.h"

#include <emscripten/emscripten.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

enum { WEB_FILL_CHUNK = 4096 };

typedef struct web_state {
    eddy_world *world;
    const eddy_scene_info *scene;
    char hash_hex[17];
    char message[256];
    float *points;         /* x, y, z of the last fill */
    int point_capacity;
} web_state;

static web_state g_web;

static bool reserve_points(int count) {
    if (count <= g_web.point_capacity) return true;
    float *grown = realloc(g_web.points, (size_t)count * 3u * sizeof *grown);
    if (grown == NULL) return false;
    g_web.points = grown;
    g_web.point_capacity = count;
    return true;
}

EMSCRIPTEN_KEEPALIVE int eddy_web_scene_count(void) { return eddy_scene_count(); }

EMSCRIPTEN_KEEPALIVE const char *eddy_web_scene_name(int index) {
    const eddy_scene_info *s = eddy_scene_at(index);
    return s != NULL ? s->name : "";
}

EMSCRIPTEN_KEEPALIVE const char *eddy_web_scene_description(int index) {
    const eddy_scene_info *s = eddy_scene_at(index);
    return s != NULL ? s->description : "";
}

EMSCRIPTEN_KEEPALIVE const char *eddy_web_message(void) { return g_web.message; }

/* Create the named scene's world at 1 worker (replacing the previous one).
 * Returns 0, or -1 with eddy_web_message saying why. */
EMSCRIPTEN_KEEPALIVE int eddy_web_start(const char *name) {
    eddy_world_destroy(g_web.world);
    g_web.world = NULL;
    g_web.scene = eddy_scene_find(name);
    if (g_web.scene == NULL) {
        snprintf(g_web.message, sizeof g_web.message, "unknown scene '%s'", name);
        return -1;
    }
    eddy_status status = eddy_scene_create(name, NULL, &g_web.world);
    if (status != EDDY_OK) {
        snprintf(g_web.message, sizeof g_web.message, "%s: %s (%s)", name,
                 eddy_status_name(status), eddy_last_error_message());
        g_web.world = NULL;
        return -1;
    }
    return 0;
}

/* One step with the scene's scripted input. Returns 0, or -1 and a message. */
EMSCRIPTEN_KEEPALIVE int eddy_web_step(void) {
    if (g_web.world == NULL) {
        snprintf(g_web.message, sizeof g_web.message, "no world: start a scene first");
        return -1;
    }
    eddy_scene_input buffer;
    const eddy_input *input =
        eddy_scene_input_for(g_web.scene->name, eddy_world_frame(g_web.world), &buffer);
    eddy_status status = eddy_world_step(g_web.world, input);
    if (status != EDDY_OK) {
        snprintf(g_web.message, sizeof g_web.message, "step failed: %s (%s)",
                 eddy_status_name(status), eddy_world_error_message(g_web.world));
        return -1;
    }
    return 0;
}

EMSCRIPTEN_KEEPALIVE int eddy_web_frame(void) {
    return g_web.world != NULL ? (int)eddy_world_frame(g_web.world) : -1;
}

/* The current frame's hash as 16 hex digits ("" without a world). */
EMSCRIPTEN_KEEPALIVE const char *eddy_web_hash(void) {
    g_web.hash_hex[0] = '\0';
    if (g_web.world != NULL) {
        eddy_frame_hash h = eddy_world_hash(g_web.world);
        snprintf(g_web.hash_hex, sizeof g_web.hash_hex, "%016" PRIx64, h.frame_hash);
    }
    return g_web.hash_hex;
}

EMSCRIPTEN_KEEPALIVE float *eddy_web_points(void) { return g_web.points; }

/* Positions of every tracer into eddy_web_points(); returns the count (-1: no memory). */
EMSCRIPTEN_KEEPALIVE int eddy_web_fill_tracers(void) {
    int n = g_web.world != NULL ? eddy_world_tracer_count(g_web.world) : 0;
    if (!reserve_points(n)) return -1;
    eddy_tracer chunk[WEB_FILL_CHUNK];
    for (int start = 0; start < n; start += WEB_FILL_CHUNK) {
        int got = eddy_world_get_tracers(g_web.world, start, WEB_FILL_CHUNK, chunk);
        for (int i = 0; i < got; ++i) {
            float *p = g_web.points + 3 * (start + i);
            p[0] = chunk[i].position.x, p[1] = chunk[i].position.y, p[2] = chunk[i].position.z;
        }
    }
    return n;
}

/* Positions of every vorton into eddy_web_points(); returns the count. */
EMSCRIPTEN_KEEPALIVE int eddy_web_fill_vortons(void) {
    int n = g_web.world != NULL ? eddy_world_vorton_count(g_web.world) : 0;
    if (!reserve_points(n)) return -1;
    eddy_vorton chunk[WEB_FILL_CHUNK / 4];
    for (int start = 0; start < n; start += WEB_FILL_CHUNK / 4) {
        int got = eddy_world_get_vortons(g_web.world, start, WEB_FILL_CHUNK / 4, chunk);
        for (int i = 0; i < got; ++i) {
            float *p = g_web.points + 3 * (start + i);
            p[0] = chunk[i].position.x, p[1] = chunk[i].position.y, p[2] = chunk[i].position.z;
        }
    }
    return n;
}

/* Bodies for drawing, into eddy_web_points(): one record per body,
 *     [kind, x, z, radius, n, x0, z0, ..., x(n-1), z(n-1)]
 * kind 0 sphere (radius), 1 solid polytope, 2 container; a polytope's
 * vertices in world space, projected on the x-z plane the page draws (the
 * page draws their convex hull). Returns the number of floats written.
 * Drawing only: none of this arithmetic touches the world's state. */
enum { WEB_BODY_VERTICES = 64, WEB_BODY_RECORD = 5 + 2 * WEB_BODY_VERTICES };

static eddy_vec3 rotate(eddy_quat q, eddy_vec3 v) {
    /* v + 2 w (u x v) + 2 u x (u x v), u the vector part of q */
    const eddy_vec3 t = {2.0f * (q.y * v.z - q.z * v.y), 2.0f * (q.z * v.x - q.x * v.z),
                         2.0f * (q.x * v.y - q.y * v.x)};
    return (eddy_vec3){v.x + q.w * t.x + (q.y * t.z - q.z * t.y),
                       v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
                       v.z + q.w * t.z + (q.x * t.y - q.y * t.x)};
}

EMSCRIPTEN_KEEPALIVE int eddy_web_fill_bodies(void) {
    eddy_body_id ids[64];
    int n = g_web.world != NULL ? eddy_world_get_body_ids(g_web.world, ids, 64) : 0;
    if (n > 64) n = 64;
    if (!reserve_points((n * WEB_BODY_RECORD + 2) / 3)) return -1;
    float *p = g_web.points;
    int k = 0;
    for (int i = 0; i < n; ++i) {
        eddy_body_state s;
        eddy_shape shape;
        if (eddy_world_get_body(g_web.world, ids[i], &s) != EDDY_OK ||
            eddy_world_get_body_shape(g_web.world, ids[i], &shape) != EDDY_OK)
            continue;
        const bool sphere = shape.type == EDDY_SHAPE_SPHERE;
        eddy_vec3 v[WEB_BODY_VERTICES];
        int count = sphere ? 0 : eddy_shape_vertices(&shape, v, WEB_BODY_VERTICES);
        if (count < 0 || count > WEB_BODY_VERTICES) count = 0;
        p[k++] = sphere ? 0.0f : shape.hole ? 2.0f : 1.0f;
        p[k++] = s.position.x;
        p[k++] = s.position.z;
        p[k++] = sphere ? shape.radius : 0.0f;
        p[k++] = (float)count;
        for (int j = 0; j < count; ++j) {
            const eddy_vec3 w = rotate(s.orientation, v[j]);
            p[k++] = s.position.x + w.x;
            p[k++] = s.position.z + w.z;
        }
    }
    return k;
}
