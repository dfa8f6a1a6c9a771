/* SPDX-License-Identifier: MIT */
/* eddy-replay render: the bodies of a world with their shapes.
 *
 * The world's public API gives a body's pose but not its shape, so the
 * shapes are read from a snapshot of the frame (the BODY section,
 * docs/snapshot-format.md §3.5), in slot order, which is the order of
 * eddy_world_get_body_ids. */
#include "cli_shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    return q ? (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24
             : 0;
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

static eddy_vec3 rotate(eddy_quat q, eddy_vec3 v) {
    /* v + 2 q.w (u x v) + 2 u x (u x v), u = (q.x, q.y, q.z) */
    const eddy_vec3 u = {q.x, q.y, q.z};
    const eddy_vec3 t = {2.0f * (u.y * v.z - u.z * v.y), 2.0f * (u.z * v.x - u.x * v.z),
                         2.0f * (u.x * v.y - u.y * v.x)};
    return (eddy_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                       v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                       v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

int cli_world_bodies(eddy_world *w, cli_body **out) {
    *out = NULL;
    const int n = eddy_world_body_count(w);
    if (n <= 0) return 0;
    eddy_body_id *ids = malloc((size_t)n * sizeof *ids);
    eddy_shape *shapes = malloc((size_t)n * sizeof *shapes);
    cli_body *bodies = calloc((size_t)n, sizeof *bodies);
    eddy_bytes snap = {0};
    int known = 0, m = 0, count = 0;
    if (ids && shapes && bodies && eddy_world_snapshot(w, &snap) == EDDY_OK) {
        known = snapshot_shapes(snap.data, snap.size, shapes, n);
        m = eddy_world_get_body_ids(w, ids, n);
    }
    for (int k = 0; k < m && k < known; ++k) {
        if (eddy_world_get_body(w, ids[k], &bodies[count].state) != EDDY_OK) continue;
        bodies[count].id = ids[k];
        bodies[count++].shape = shapes[k];
    }
    eddy_bytes_free(&snap);
    free(ids);
    free(shapes);
    if (count == 0) {
        free(bodies);
        return 0;
    }
    *out = bodies;
    return count;
}

int cli_body_vertices(const cli_body *b, eddy_vec3 *out, int capacity) {
    if (b->shape.type == EDDY_SHAPE_SPHERE) return 0;
    eddy_vec3 v[CLI_MAX_BODY_VERTICES];
    int n = eddy_shape_vertices(&b->shape, v, CLI_MAX_BODY_VERTICES);
    if (n > CLI_MAX_BODY_VERTICES) n = CLI_MAX_BODY_VERTICES;
    if (n > capacity) n = capacity;
    for (int k = 0; k < n; ++k) {
        const eddy_vec3 r = rotate(b->state.orientation, v[k]);
        out[k] = (eddy_vec3){r.x + b->state.position.x, r.y + b->state.position.y,
                             r.z + b->state.position.z};
    }
    return n;
}

float cli_body_bound(const cli_body *b) {
    if (b->shape.type == EDDY_SHAPE_SPHERE) return b->shape.radius;
    eddy_vec3 v[CLI_MAX_BODY_VERTICES];
    const int n = cli_body_vertices(b, v, CLI_MAX_BODY_VERTICES);
    float r = 0.0f;
    for (int k = 0; k < n; ++k) {
        const float dx = v[k].x - b->state.position.x, dy = v[k].y - b->state.position.y,
                    dz = v[k].z - b->state.position.z;
        const float d = sqrtf(dx * dx + dy * dy + dz * dz);
        if (d > r) r = d;
    }
    return r;
}
