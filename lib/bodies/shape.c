/* SPDX-License-Identifier: MIT */
/* Collision shapes: builders, vertex enumeration, validation, mass properties
 * and the body-frame polytope queries of geometry.h.
 *
 * Design note.
 *
 * A polytope is stored only as planes (n . x = offset, n a unit outward
 * normal, origin strictly inside). Everything else is derived from the planes
 * on demand, in a fixed order, with + - * / and sqrtf only:
 *
 * - Vertices: every triple of planes i < j < k (in that loop order) is solved
 *   by Cramer's rule when |det| > DET_MIN; the point is kept if it lies inside
 *   every plane within tol = REL_TOL * max|offset| and is not within tol of a
 *   vertex found earlier (the first one found wins). The order of the list is
 *   therefore a pure function of the plane list.
 * - Faces: the vertices within tol of plane f, ordered counter-clockwise about
 *   n_f by an insertion sort whose key is a half-plane index plus a 2-D cross
 *   product (no atan2, no qsort: ties keep their enumeration order).
 * - Mass properties: each face is fanned into triangles, each triangle with
 *   the vertex average p0 forms a tetrahedron, and the covariance method sums
 *   volume, first moment and second moment (covariance) about p0. The sums are
 *   kept in double (plain IEEE + - * /, so still deterministic) because the
 *   shift to the centroid subtracts two nearly equal second moments.
 *
 * Validation proves what the queries and mass code rely on: finite unit
 * normals, positive offsets, sizes and an aspect ratio (largest over
 * smallest offset) that the merge tolerance can represent, no duplicated
 * plane, a bounded intersection (no
 * recession direction: tested on the candidate extreme rays +-(n_i x n_j),
 * which is exact for a polyhedral cone in 3-D), at most
 * EDDY_SHAPE_MAX_VERTICES vertices, every plane carrying a face (>= 3
 * vertices) and a positive volume.
 *
 * FP mode: the public entry points that do arithmetic (prism, airfoil,
 * validate, mass properties, vertices) run in round-to-nearest with denormals
 * kept, whatever mode the caller's thread is in, and restore the caller's mode
 * afterwards. So a shape's planes, vertices and inertia are the same bits in a
 * game thread, inside a step or in a tool. The per-particle queries at the end
 * of the file run in the caller's mode (the step's canonical mode).
 *
 * Shapes are never built with libm transcendentals: the airfoil outline takes
 * its stations from eddy_cosf. */
#include "bodies/bodies.h"
#include "bodies/geometry.h"

#include <stdarg.h>
#include <stdio.h>

#define DET_MIN 1e-6f      /* |n_i . (n_j x n_k)| below this: no vertex */
#define REL_TOL 1e-5f      /* geometric tolerance relative to the shape size */
#define UNIT_TOL 1e-4f     /* | |n| - 1 | allowed for a plane normal */
#define PARALLEL_MIN 1e-6f /* |n_i x n_j| below this: parallel planes */
#define OPEN_TOL 1e-6f     /* n . u <= this for all planes: u is unbounded */

/* ---------------------------------------------------------------- vectors */
static inline vec3 v3(float x, float y, float z) { return (vec3){x, y, z}; }
static inline vec3 v3_of(eddy_vec3 v) { return (vec3){v.x, v.y, v.z}; }
static inline vec3 v3_sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 v3_add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 v3_scale(vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline float v3_dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 v3_cross(vec3 a, vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float abs_f(float x) { return x < 0.0f ? -x : x; }

/* Signed distance n . q - offset, positive outside; one fixed evaluation order. */
static inline float plane_distance(const eddy_plane *p, vec3 q) {
    return p->normal.x * q.x + p->normal.y * q.y + p->normal.z * q.z - p->offset;
}

/* ---------------------------------------------------------------- messages */
EDDY_PRINTF_LIKE(4, 5) static eddy_status report(char *message, size_t size,
                                                                eddy_status status,
                                                                const char *format, ...) {
    if (message != NULL && size > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, size, format, args);
        va_end(args);
    }
    return status;
}

static void clear_message(char *message, size_t size) {
    if (message != NULL && size > 0) message[0] = '\0';
}

/* ---------------------------------------------------------------- FP mode */
static uint32_t fp_enter(void) {
    const uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(eddy_fpenv_canonical(false));
    return saved;
}

static void fp_leave(uint32_t saved) { eddy_fpenv_set(saved); }

/* ---------------------------------------------------------------- builders */
static void shape_clear(eddy_shape *s, eddy_shape_type type) {
    memset(s, 0, sizeof *s); /* unused planes and the other type's fields are zero */
    s->type = type;
}

static void set_plane(eddy_shape *s, int i, float nx, float ny, float nz, float offset) {
    s->planes[i].normal = (eddy_vec3){nx, ny, nz};
    s->planes[i].offset = offset;
}

eddy_shape eddy_shape_sphere(float radius) {
    eddy_shape s;
    shape_clear(&s, EDDY_SHAPE_SPHERE);
    s.radius = radius;
    return s;
}

eddy_shape eddy_shape_box(eddy_vec3 h) {
    eddy_shape s;
    shape_clear(&s, EDDY_SHAPE_POLYTOPE);
    s.plane_count = 6;
    set_plane(&s, 0, 1.0f, 0.0f, 0.0f, h.x);
    set_plane(&s, 1, -1.0f, 0.0f, 0.0f, h.x);
    set_plane(&s, 2, 0.0f, 1.0f, 0.0f, h.y);
    set_plane(&s, 3, 0.0f, -1.0f, 0.0f, h.y);
    set_plane(&s, 4, 0.0f, 0.0f, 1.0f, h.z);
    set_plane(&s, 5, 0.0f, 0.0f, -1.0f, h.z);
    return s;
}

eddy_shape eddy_shape_plate(float length, float width, float thickness) {
    return eddy_shape_box((eddy_vec3){0.5f * length, 0.5f * width, 0.5f * thickness});
}

eddy_shape eddy_shape_hole(eddy_shape shape) {
    if (shape.type == EDDY_SHAPE_POLYTOPE) shape.hole = true;
    return shape;
}

/* ---------------------------------------------------------------- prism */
typedef struct vec2 {
    float x, y;
} vec2;

static inline float cross2(vec2 a, vec2 b) { return a.x * b.y - a.y * b.x; }
static inline vec2 sub2(vec2 a, vec2 b) { return (vec2){a.x - b.x, a.y - b.y}; }

static eddy_status prism_read(const float *xy, int n, float depth, vec2 *p, char *msg,
                              size_t size) {
    for (int k = 0; k < n; ++k) {
        if (!isfinite(xy[2 * k]) || !isfinite(xy[2 * k + 1]))
            return report(msg, size, EDDY_ERROR_NAN, "prism: vertex %d is not finite", k);
        p[k] = (vec2){xy[2 * k], xy[2 * k + 1]};
    }
    if (!isfinite(depth)) return report(msg, size, EDDY_ERROR_NAN, "prism: depth is not finite");
    if (!(depth > 0.0f))
        return report(msg, size, EDDY_ERROR_INVALID_DEF, "prism: depth %g must be > 0",
                      (double)depth);
    return EDDY_OK;
}

/* Diagonal of the polygon's bounding rectangle: the length scale of tolerances. */
static float polygon_scale(const vec2 *p, int n) {
    vec2 lo = p[0], hi = p[0];
    for (int k = 1; k < n; ++k) {
        lo = (vec2){fmin_det(lo.x, p[k].x), fmin_det(lo.y, p[k].y)};
        hi = (vec2){fmax_det(hi.x, p[k].x), fmax_det(hi.y, p[k].y)};
    }
    const vec2 d = sub2(hi, lo);
    return sqrtf(d.x * d.x + d.y * d.y);
}

static eddy_status prism_check_points(const vec2 *p, int n, float tol, char *msg, size_t size) {
    for (int j = 0; j < n; ++j) {
        for (int k = j + 1; k < n; ++k) {
            const vec2 d = sub2(p[k], p[j]);
            if (d.x * d.x + d.y * d.y <= tol * tol)
                return report(msg, size, EDDY_ERROR_INVALID_DEF,
                              "prism: vertices %d and %d coincide", j, k);
        }
    }
    return EDDY_OK;
}

/* Twice the signed area, relative to p[0] for precision. */
static float polygon_area2(const vec2 *p, int n) {
    float a2 = 0.0f;
    for (int k = 1; k + 1 < n; ++k) a2 += cross2(sub2(p[k], p[0]), sub2(p[k + 1], p[0]));
    return a2;
}

/* Strict convexity: every vertex lies at least tol left of every edge it is
 * not on. Rejects reflex vertices, collinear runs and self-intersecting stars. */
static eddy_status prism_check_convex(const vec2 *p, int n, float tol, char *msg, size_t size) {
    for (int i = 0; i < n; ++i) {
        const int i1 = (i + 1) % n;
        const vec2 e = sub2(p[i1], p[i]);
        const float len = sqrtf(e.x * e.x + e.y * e.y);
        for (int k = 0; k < n; ++k) {
            if (k == i || k == i1) continue;
            const float left = cross2(e, sub2(p[k], p[i])) / len;
            if (abs_f(left) <= tol)
                return report(msg, size, EDDY_ERROR_INVALID_DEF,
                              "prism: vertex %d is collinear with edge %d-%d (degenerate)", k, i,
                              i1);
            if (left < 0.0f)
                return report(msg, size, EDDY_ERROR_INVALID_DEF,
                              "prism: not convex: vertex %d lies outside edge %d-%d", k, i, i1);
        }
    }
    return EDDY_OK;
}

/* Polygon centroid by the shoelace formula, relative to p[0]. */
static vec2 polygon_centroid(const vec2 *p, int n) {
    float a2 = 0.0f, cx = 0.0f, cy = 0.0f;
    for (int k = 1; k + 1 < n; ++k) {
        const vec2 a = sub2(p[k], p[0]), b = sub2(p[k + 1], p[0]);
        const float c = cross2(a, b);
        a2 += c;
        cx += (a.x + b.x) * c;
        cy += (a.y + b.y) * c;
    }
    return (vec2){p[0].x + cx / (3.0f * a2), p[0].y + cy / (3.0f * a2)};
}

static void prism_planes(const vec2 *p, int n, float depth, eddy_shape *out) {
    shape_clear(out, EDDY_SHAPE_POLYTOPE);
    out->plane_count = n + 2;
    for (int i = 0; i < n; ++i) {
        const vec2 a = p[i], b = p[(i + 1) % n], e = sub2(b, a);
        const float len = sqrtf(e.x * e.x + e.y * e.y);
        const float nx = e.y / len, ny = -e.x / len; /* outward for counter-clockwise */
        const float offset = 0.5f * ((nx * a.x + ny * a.y) + (nx * b.x + ny * b.y));
        set_plane(out, i, nx, ny, 0.0f, offset);
    }
    set_plane(out, n, 0.0f, 0.0f, 1.0f, 0.5f * depth);
    set_plane(out, n + 1, 0.0f, 0.0f, -1.0f, 0.5f * depth);
}

static eddy_status prism_build(const float *xy, int n, float depth, eddy_shape *out, char *msg,
                               size_t size) {
    vec2 p[EDDY_MAX_PLANES] = {{0.0f, 0.0f}};
    eddy_status st = prism_read(xy, n, depth, p, msg, size);
    if (st != EDDY_OK) return st;
    const float scale = polygon_scale(p, n);
    if (!(scale > 0.0f))
        return report(msg, size, EDDY_ERROR_INVALID_DEF, "prism: all vertices coincide");
    const float tol = REL_TOL * scale;
    st = prism_check_points(p, n, tol, msg, size);
    if (st != EDDY_OK) return st;
    if (!(polygon_area2(p, n) > 0.0f))
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "prism: vertices are clockwise or enclose no area (give them "
                      "counter-clockwise)");
    st = prism_check_convex(p, n, tol, msg, size);
    if (st != EDDY_OK) return st;
    const vec2 c = polygon_centroid(p, n);
    for (int k = 0; k < n; ++k) p[k] = sub2(p[k], c);
    prism_planes(p, n, depth, out);
    return EDDY_OK;
}

eddy_status eddy_shape_prism(const float *xy, int vertex_count, float depth, eddy_shape *out,
                             char *message, size_t message_size) {
    clear_message(message, message_size);
    if (xy == NULL || out == NULL)
        return report(message, message_size, EDDY_ERROR_INVALID_ARGUMENT,
                      "prism: xy and out must not be NULL");
    if (vertex_count < 3 || vertex_count > EDDY_MAX_PLANES - 2)
        return report(message, message_size, EDDY_ERROR_INVALID_DEF,
                      "prism: %d vertices (need 3 to %d)", vertex_count, EDDY_MAX_PLANES - 2);
    const uint32_t saved = fp_enter();
    const eddy_status st = prism_build(xy, vertex_count, depth, out, message, message_size);
    fp_leave(saved);
    return st;
}

/* ---------------------------------------------------------------- airfoil */
/* NACA 4-digit symmetric half thickness at s = x/c in [0, 1], for thickness
 * ratio t: closed trailing edge (x^4 coefficient -0.1036) or the classic open
 * one (-0.1015). Both are concave-down on (0, 1], so the outline is convex. */
static float naca_half_thickness(float s, float t, bool closed) {
    const float a4 = closed ? -0.1036f : -0.1015f;
    const float poly = s * (-0.1260f + s * (-0.3516f + s * (0.2843f + s * a4)));
    return 5.0f * t * (0.2969f * sqrtf(s) + poly);
}

/* Counter-clockwise outline: leading edge at x = -c/2, lower surface forward,
 * trailing edge (a point for even counts, a short vertical edge for odd
 * ones), upper surface back. Stations cluster at the leading edge. */
static void airfoil_outline(float chord, float t, int n, float *xy) {
    const bool blunt = (n & 1) != 0;
    const int m = blunt ? (n - 3) / 2 : (n - 2) / 2;
    int v = 0;
    xy[2 * v] = -0.5f * chord;
    xy[2 * v + 1] = 0.0f;
    ++v;
    for (int k = 0; k < m; ++k, ++v) {
        const float s = 1.0f - eddy_cosf(0.5f * EDDY_PI * (float)(k + 1) / (float)(m + 1));
        xy[2 * v] = chord * (s - 0.5f);
        xy[2 * v + 1] = -chord * naca_half_thickness(s, t, !blunt);
    }
    const float te = blunt ? chord * naca_half_thickness(1.0f, t, false) : 0.0f;
    xy[2 * v] = 0.5f * chord;
    xy[2 * v + 1] = -te;
    ++v;
    if (blunt) {
        xy[2 * v] = 0.5f * chord;
        xy[2 * v + 1] = te;
        ++v;
    }
    for (int k = 0; k < m; ++k, ++v) { /* mirror of the lower surface, reversed */
        const int lower = m - k;       /* index of the mirrored lower vertex */
        xy[2 * v] = xy[2 * lower];
        xy[2 * v + 1] = -xy[2 * lower + 1];
    }
}

eddy_status eddy_shape_airfoil(float chord, float thickness_ratio, float span, int vertex_count,
                               eddy_shape *out) {
    if (out == NULL) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!isfinite(chord) || !isfinite(thickness_ratio) || !isfinite(span)) return EDDY_ERROR_NAN;
    if (!(chord > 0.0f) || !(span > 0.0f) || !(thickness_ratio >= 0.01f) ||
        !(thickness_ratio <= 1.0f) || vertex_count < 4 || vertex_count > EDDY_MAX_PLANES - 2)
        return EDDY_ERROR_INVALID_DEF;
    float xy[2 * EDDY_MAX_PLANES];
    const uint32_t saved = fp_enter();
    airfoil_outline(chord, thickness_ratio, vertex_count, xy);
    fp_leave(saved);
    return eddy_shape_prism(xy, vertex_count, span, out, NULL, 0);
}

/* ---------------------------------------------------------------- vertices */
typedef struct vertex_set {
    int count;
    bool overflow;                          /* more than EDDY_SHAPE_MAX_VERTICES */
    float tol;                              /* absolute geometric tolerance */
    vec3 p[EDDY_SHAPE_MAX_VERTICES];
    uint32_t on[EDDY_SHAPE_MAX_VERTICES];   /* bit i: the vertex lies on plane i */
} vertex_set;

static float shape_tolerance(const eddy_shape *s) {
    float size = 0.0f;
    for (int i = 0; i < s->plane_count; ++i) size = fmax_det(size, abs_f(s->planes[i].offset));
    return REL_TOL * size;
}

/* The point on planes a, b, c (Cramer's rule); false when nearly dependent. */
static bool intersect3(const eddy_plane *a, const eddy_plane *b, const eddy_plane *c, vec3 *out) {
    const vec3 na = v3_of(a->normal), nb = v3_of(b->normal), nc = v3_of(c->normal);
    const vec3 bc = v3_cross(nb, nc);
    const float det = v3_dot(na, bc);
    if (!(abs_f(det) > DET_MIN)) return false; /* also NaN */
    const vec3 ca = v3_cross(nc, na), ab = v3_cross(na, nb);
    const vec3 sum = v3_add(v3_add(v3_scale(bc, a->offset), v3_scale(ca, b->offset)),
                            v3_scale(ab, c->offset));
    *out = v3_scale(sum, 1.0f / det);
    return true;
}

static bool inside_all(const eddy_shape *s, vec3 p, float tol) {
    for (int i = 0; i < s->plane_count; ++i)
        if (!(plane_distance(&s->planes[i], p) <= tol)) return false;
    return true;
}

static bool already_found(const vertex_set *vs, vec3 p) {
    for (int k = 0; k < vs->count; ++k) {
        const vec3 d = v3_sub(p, vs->p[k]);
        if (v3_dot(d, d) <= vs->tol * vs->tol) return true;
    }
    return false;
}

static void vertex_add(vertex_set *vs, vec3 p) {
    if (vs->count == EDDY_SHAPE_MAX_VERTICES) {
        vs->overflow = true;
        return;
    }
    vs->p[vs->count++] = p;
}

static void vertices_mark_planes(const eddy_shape *s, vertex_set *vs) {
    for (int k = 0; k < vs->count; ++k) {
        uint32_t on = 0;
        for (int i = 0; i < s->plane_count; ++i)
            if (abs_f(plane_distance(&s->planes[i], vs->p[k])) <= vs->tol) on |= 1u << i;
        vs->on[k] = on;
    }
}

/* All vertices, in the deterministic order of the triples i < j < k.
 * plane_count must be in [0, EDDY_MAX_PLANES]. */
static void vertices_enumerate(const eddy_shape *s, vertex_set *vs) {
    const eddy_plane *pl = s->planes;
    const int n = s->plane_count;
    vs->count = 0;
    vs->overflow = false;
    vs->tol = shape_tolerance(s);
    for (int i = 0; i < n && !vs->overflow; ++i)
        for (int j = i + 1; j < n && !vs->overflow; ++j)
            for (int k = j + 1; k < n && !vs->overflow; ++k) {
                vec3 p;
                if (!intersect3(&pl[i], &pl[j], &pl[k], &p)) continue;
                if (!inside_all(s, p, vs->tol) || already_found(vs, p)) continue;
                vertex_add(vs, p);
            }
    vertices_mark_planes(s, vs);
}

int eddy_shape_vertices(const eddy_shape *shape, eddy_vec3 *out, int capacity) {
    if (shape == NULL) return -1;
    if (shape->type != EDDY_SHAPE_POLYTOPE) return 0;
    if (shape->plane_count < 0 || shape->plane_count > EDDY_MAX_PLANES) return -1;
    vertex_set vs;
    const uint32_t saved = fp_enter();
    vertices_enumerate(shape, &vs);
    fp_leave(saved);
    if (vs.overflow) return -1;
    for (int k = 0; k < vs.count && k < capacity; ++k)
        out[k] = (eddy_vec3){vs.p[k].x, vs.p[k].y, vs.p[k].z};
    return vs.count;
}

/* ---------------------------------------------------------------- faces */
typedef struct face_key {
    int vertex;
    float x, y; /* position in the face's 2-D frame (not normalised) */
} face_key;

/* Counter-clockwise angle order about the face normal, starting at the
 * reference direction: half-plane first, then the sign of the 2-D cross. */
static bool angle_before(const face_key *u, const face_key *v) {
    const int hu = (u->y < 0.0f || (u->y == 0.0f && u->x < 0.0f)) ? 1 : 0;
    const int hv = (v->y < 0.0f || (v->y == 0.0f && v->x < 0.0f)) ? 1 : 0;
    if (hu != hv) return hu < hv;
    return u->x * v->y - u->y * v->x > 0.0f;
}

static void keys_insertion_sort(face_key *key, int n) {
    for (int a = 1; a < n; ++a) {
        const face_key k = key[a];
        int b = a;
        while (b > 0 && angle_before(&k, &key[b - 1])) {
            key[b] = key[b - 1];
            --b;
        }
        key[b] = k;
    }
}

/* The vertices on plane f, ordered counter-clockwise about its normal. */
static int face_vertices(const eddy_shape *s, const vertex_set *vs, int f, int *out) {
    face_key key[EDDY_SHAPE_MAX_VERTICES];
    int n = 0;
    vec3 centre = v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < vs->count; ++k) {
        if (!(vs->on[k] & (1u << f))) continue;
        key[n++].vertex = k;
        centre = v3_add(centre, vs->p[k]);
    }
    if (n < 3) return n;
    centre = v3_scale(centre, 1.0f / (float)n);
    const vec3 a = v3_sub(vs->p[key[0].vertex], centre);
    const vec3 b = v3_cross(v3_of(s->planes[f].normal), a);
    for (int k = 0; k < n; ++k) {
        const vec3 u = v3_sub(vs->p[key[k].vertex], centre);
        key[k].x = v3_dot(u, a);
        key[k].y = v3_dot(u, b);
    }
    keys_insertion_sort(key, n);
    for (int k = 0; k < n; ++k) out[k] = key[k].vertex;
    return n;
}

/* ---------------------------------------------------------------- mass */
typedef struct dvec3 {
    double x, y, z;
} dvec3;

static dvec3 d3_rel(vec3 p, dvec3 origin) {
    return (dvec3){(double)p.x - origin.x, (double)p.y - origin.y, (double)p.z - origin.z};
}

typedef struct mass_sum {
    double volume;
    double first[3];   /* integral of x dV, relative to p0 */
    double cov[3][3];  /* integral of x x^T dV, relative to p0 */
} mass_sum;

/* Tetrahedron (0, a, b, c): V = a.(b x c)/6, integral of x = V s/4 and
 * integral of x x^T = V/20 (a a^T + b b^T + c c^T + s s^T), s = a + b + c. */
static void tetra_accumulate(mass_sum *m, dvec3 a, dvec3 b, dvec3 c) {
    const double det = a.x * (b.y * c.z - b.z * c.y) + a.y * (b.z * c.x - b.x * c.z) +
                       a.z * (b.x * c.y - b.y * c.x);
    const double vol = det / 6.0;
    const double s[3] = {a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z};
    const double pa[3] = {a.x, a.y, a.z}, pb[3] = {b.x, b.y, b.z}, pc[3] = {c.x, c.y, c.z};
    m->volume += vol;
    for (int r = 0; r < 3; ++r) {
        m->first[r] += vol * s[r] / 4.0;
        for (int q = 0; q < 3; ++q)
            m->cov[r][q] += vol / 20.0 * (pa[r] * pa[q] + pb[r] * pb[q] + pc[r] * pc[q] +
                                          s[r] * s[q]);
    }
}

static dvec3 vertex_average(const vertex_set *vs) {
    dvec3 c = {0.0, 0.0, 0.0};
    for (int k = 0; k < vs->count; ++k) {
        c.x += (double)vs->p[k].x;
        c.y += (double)vs->p[k].y;
        c.z += (double)vs->p[k].z;
    }
    const double inv = 1.0 / (double)vs->count;
    return (dvec3){c.x * inv, c.y * inv, c.z * inv};
}

static void polytope_sum(const eddy_shape *s, const vertex_set *vs, dvec3 p0, mass_sum *m) {
    memset(m, 0, sizeof *m);
    int face[EDDY_SHAPE_MAX_VERTICES];
    for (int f = 0; f < s->plane_count; ++f) {
        const int n = face_vertices(s, vs, f, face);
        if (n < 3) continue;
        const dvec3 a = d3_rel(vs->p[face[0]], p0);
        for (int k = 1; k + 1 < n; ++k)
            tetra_accumulate(m, a, d3_rel(vs->p[face[k]], p0), d3_rel(vs->p[face[k + 1]], p0));
    }
}

/* Volume, centroid and inertia about the centroid from the sums about p0. */
static void mass_finish(const mass_sum *m, dvec3 p0, eddy_mass_properties *out) {
    const double v = m->volume;
    const double c[3] = {m->first[0] / v, m->first[1] / v, m->first[2] / v};
    double cov[3][3];
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) cov[r][q] = m->cov[r][q] - v * c[r] * c[q];
    const double trace = cov[0][0] + cov[1][1] + cov[2][2];
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q)
            out->inertia[r][q] = (float)((r == q ? trace : 0.0) - cov[r][q]);
    out->volume = (float)v;
    out->centroid = (eddy_vec3){(float)(p0.x + c[0]), (float)(p0.y + c[1]), (float)(p0.z + c[2])};
}

static void polytope_radii(const eddy_shape *s, const vertex_set *vs, eddy_mass_properties *out) {
    float r2 = 0.0f, inner = EDDY_FLT_MAX;
    for (int k = 0; k < vs->count; ++k) r2 = fmax_det(r2, v3_dot(vs->p[k], vs->p[k]));
    for (int i = 0; i < s->plane_count; ++i) inner = fmin_det(inner, s->planes[i].offset);
    out->circumradius = sqrtf(r2);
    out->inradius = inner;
    out->vertex_count = vs->count;
}

static void sphere_mass(float r, eddy_mass_properties *out) {
    const float v = (4.0f / 3.0f) * EDDY_PI * r * r * r;
    const float i = 0.4f * v * r * r;
    memset(out, 0, sizeof *out);
    out->volume = v;
    out->inertia[0][0] = out->inertia[1][1] = out->inertia[2][2] = i;
    out->circumradius = out->inradius = r;
}

/* ---------------------------------------------------------------- validation */
static eddy_status check_sphere(const eddy_shape *s, char *msg, size_t size) {
    if (!isfinite(s->radius))
        return report(msg, size, EDDY_ERROR_NAN, "sphere: radius is not finite");
    if (!(s->radius >= EDDY_SHAPE_MIN_SIZE && s->radius <= EDDY_SHAPE_MAX_SIZE))
        return report(msg, size, EDDY_ERROR_INVALID_DEF, "sphere: radius %g must be in [%g, %g] m",
                      (double)s->radius, (double)EDDY_SHAPE_MIN_SIZE, (double)EDDY_SHAPE_MAX_SIZE);
    if (s->hole)
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "sphere: a sphere cannot be a hole (use a polytope container)");
    return EDDY_OK;
}

static eddy_status check_finite(const eddy_shape *s, char *msg, size_t size) {
    for (int i = 0; i < s->plane_count; ++i) {
        const eddy_plane *p = &s->planes[i];
        if (!isfinite(p->normal.x) || !isfinite(p->normal.y) || !isfinite(p->normal.z) ||
            !isfinite(p->offset))
            return report(msg, size, EDDY_ERROR_NAN, "plane %d: normal or offset is not finite",
                          i);
    }
    return EDDY_OK;
}

static eddy_status check_planes(const eddy_shape *s, char *msg, size_t size) {
    for (int i = 0; i < s->plane_count; ++i) {
        const eddy_plane *p = &s->planes[i];
        const vec3 n = v3_of(p->normal);
        const float len = sqrtf(v3_dot(n, n));
        if (!(abs_f(len - 1.0f) < UNIT_TOL))
            return report(msg, size, EDDY_ERROR_INVALID_DEF,
                          "plane %d: normal has length %g (must be a unit vector)", i,
                          (double)len);
        if (!(p->offset > 0.0f))
            return report(msg, size, EDDY_ERROR_INVALID_DEF,
                          "plane %d: offset %g must be > 0 (the body origin must be strictly "
                          "inside; put it at the centroid)",
                          i, (double)p->offset);
    }
    return EDDY_OK;
}

/* Thin shapes (and origins nearly on a face) lose their vertices to the
 * merge tolerance REL_TOL * max offset: refuse them by the offset ratio, which
 * says why, before vertex enumeration reports a vague open volume. */
static eddy_status check_sizes(const eddy_shape *s, char *msg, size_t size) {
    int lo = 0, hi = 0;
    for (int i = 1; i < s->plane_count; ++i) {
        if (s->planes[i].offset < s->planes[lo].offset) lo = i;
        if (s->planes[i].offset > s->planes[hi].offset) hi = i;
    }
    const float small = s->planes[lo].offset, large = s->planes[hi].offset;
    if (!(large <= EDDY_SHAPE_MAX_ASPECT * small))
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "aspect ratio %g too large: plane %d offset %g is more than %g times plane "
                      "%d offset %g (the shape is too thin, or its origin too close to a face, "
                      "for vertices merged within 1e-5 of its size)",
                      (double)(large / small), hi, (double)large, (double)EDDY_SHAPE_MAX_ASPECT, lo,
                      (double)small);
    if (!(small >= EDDY_SHAPE_MIN_SIZE && large <= EDDY_SHAPE_MAX_SIZE))
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "plane offsets %g to %g m must be in [%g, %g] m", (double)small,
                      (double)large, (double)EDDY_SHAPE_MIN_SIZE, (double)EDDY_SHAPE_MAX_SIZE);
    return EDDY_OK;
}

static eddy_status check_duplicates(const eddy_shape *s, char *msg, size_t size) {
    const float tol = shape_tolerance(s);
    for (int j = 0; j < s->plane_count; ++j)
        for (int k = j + 1; k < s->plane_count; ++k) {
            const eddy_plane *a = &s->planes[j], *b = &s->planes[k];
            const vec3 c = v3_cross(v3_of(a->normal), v3_of(b->normal));
            if (v3_dot(c, c) > PARALLEL_MIN * PARALLEL_MIN) continue;
            if (v3_dot(v3_of(a->normal), v3_of(b->normal)) < 0.0f) continue;
            if (abs_f(a->offset - b->offset) <= tol)
                return report(msg, size, EDDY_ERROR_INVALID_DEF, "plane %d duplicates plane %d",
                              k, j);
        }
    return EDDY_OK;
}

/* True when no plane bounds direction u (n . u <= OPEN_TOL for all planes). */
static bool unbounded_along(const eddy_shape *s, vec3 u) {
    for (int i = 0; i < s->plane_count; ++i)
        if (v3_dot(v3_of(s->planes[i].normal), u) > OPEN_TOL) return false;
    return true;
}

/* The planes bound a closed volume iff their recession cone is {0}. In 3-D a
 * non-trivial cone contains a direction +-(n_i x n_j) for some independent
 * pair (an extreme ray or the lineality direction); if every pair is
 * parallel, the set is a slab and open. */
static eddy_status check_closed(const eddy_shape *s, char *msg, size_t size) {
    bool independent = false;
    for (int i = 0; i < s->plane_count; ++i)
        for (int j = i + 1; j < s->plane_count; ++j) {
            const vec3 c = v3_cross(v3_of(s->planes[i].normal), v3_of(s->planes[j].normal));
            const float len = sqrtf(v3_dot(c, c));
            if (!(len > PARALLEL_MIN)) continue;
            independent = true;
            const vec3 u = v3_scale(c, 1.0f / len);
            for (int sign = 0; sign < 2; ++sign) {
                const vec3 d = sign ? v3_scale(u, -1.0f) : u;
                if (unbounded_along(s, d))
                    return report(msg, size, EDDY_ERROR_INVALID_DEF,
                                  "the planes do not bound a closed volume (open along %g %g %g)",
                                  (double)d.x, (double)d.y, (double)d.z);
            }
        }
    if (!independent)
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "the planes do not bound a closed volume (all normals are parallel)");
    return EDDY_OK;
}

static eddy_status check_faces(const eddy_shape *s, const vertex_set *vs, char *msg,
                               size_t size) {
    if (vs->overflow)
        return report(msg, size, EDDY_ERROR_INVALID_DEF, "more than %d vertices",
                      EDDY_SHAPE_MAX_VERTICES);
    if (vs->count < 4)
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "the planes do not bound a closed volume (%d vertices)", vs->count);
    for (int i = 0; i < s->plane_count; ++i) {
        int touching = 0;
        for (int k = 0; k < vs->count; ++k) touching += (vs->on[k] >> i) & 1u;
        if (touching < 3)
            return report(msg, size, EDDY_ERROR_INVALID_DEF,
                          "plane %d is redundant (it touches the shape at %d vertices, a face "
                          "needs 3)",
                          i, touching);
    }
    return EDDY_OK;
}

static eddy_status check_polytope(const eddy_shape *s, char *msg, size_t size) {
    if (s->plane_count < 4 || s->plane_count > EDDY_MAX_PLANES)
        return report(msg, size, EDDY_ERROR_INVALID_DEF,
                      "polytope: %d planes (need 4 to %d)", s->plane_count, EDDY_MAX_PLANES);
    eddy_status st = check_finite(s, msg, size);
    if (st == EDDY_OK) st = check_planes(s, msg, size);
    if (st == EDDY_OK) st = check_sizes(s, msg, size);
    if (st == EDDY_OK) st = check_duplicates(s, msg, size);
    if (st == EDDY_OK) st = check_closed(s, msg, size);
    return st;
}

/* Validate a polytope completely and measure it (out may not be NULL). */
static eddy_status polytope_measure(const eddy_shape *s, eddy_mass_properties *out, char *msg,
                                    size_t size) {
    eddy_status st = check_polytope(s, msg, size);
    if (st != EDDY_OK) return st;
    vertex_set vs;
    vertices_enumerate(s, &vs);
    st = check_faces(s, &vs, msg, size);
    if (st != EDDY_OK) return st;
    mass_sum m;
    const dvec3 p0 = vertex_average(&vs);
    polytope_sum(s, &vs, p0, &m);
    if (!(m.volume > 0.0))
        return report(msg, size, EDDY_ERROR_INVALID_DEF, "the planes enclose no volume");
    mass_finish(&m, p0, out);
    polytope_radii(s, &vs, out);
    return EDDY_OK;
}

static eddy_status shape_measure(const eddy_shape *s, eddy_mass_properties *out, char *msg,
                                 size_t size) {
    switch (s->type) {
        case EDDY_SHAPE_SPHERE: {
            const eddy_status st = check_sphere(s, msg, size);
            if (st == EDDY_OK) sphere_mass(s->radius, out);
            return st;
        }
        case EDDY_SHAPE_POLYTOPE:
            return polytope_measure(s, out, msg, size);
        default:
            return report(msg, size, EDDY_ERROR_INVALID_DEF, "unknown shape type %d",
                          (int)s->type);
    }
}

static eddy_status shape_measure_public(const eddy_shape *shape, eddy_mass_properties *out,
                                        char *message, size_t message_size) {
    memset(out, 0, sizeof *out);
    clear_message(message, message_size);
    if (shape == NULL)
        return report(message, message_size, EDDY_ERROR_INVALID_ARGUMENT, "shape is NULL");
    const uint32_t saved = fp_enter();
    const eddy_status st = shape_measure(shape, out, message, message_size);
    fp_leave(saved);
    if (st != EDDY_OK) memset(out, 0, sizeof *out);
    return st;
}

eddy_status eddy_shape_validate(const eddy_shape *shape, char *message, size_t message_size) {
    eddy_mass_properties unused;
    return shape_measure_public(shape, &unused, message, message_size);
}

eddy_status eddy_shape_mass_properties(const eddy_shape *shape, eddy_mass_properties *out,
                                       char *message, size_t message_size) {
    if (out == NULL)
        return report(message, message_size, EDDY_ERROR_INVALID_ARGUMENT, "out is NULL");
    return shape_measure_public(shape, out, message, message_size);
}

/* ---------------------------------------------------------------- queries */
/* Largest raw plane distance (no parity), first maximum wins; plane 0 when
 * every comparison fails (NaN). */
static float max_plane_distance(const eddy_shape *s, vec3 q, int *plane) {
    float best = -EDDY_FLT_MAX;
    int best_plane = 0;
    for (int i = 0; i < s->plane_count; ++i) {
        const float d = plane_distance(&s->planes[i], q);
        if (d > best) {
            best = d;
            best_plane = i;
        }
    }
    *plane = best_plane;
    return best;
}

float eddy_polytope_contact_distance(const eddy_shape *s, vec3 q, int *plane) {
    EDDY_DEBUG_ASSERT(s->plane_count > 0 && s->plane_count <= EDDY_MAX_PLANES);
    return max_plane_distance(s, q, plane) * shape_parity(s);
}

vec3 eddy_polytope_contact_point(const eddy_shape *s, vec3 q, int plane, float distance,
                            vec3 *normal) {
    (void)distance; /* the projection is recomputed: exact for every distance query */
    EDDY_DEBUG_ASSERT(plane >= 0 && plane < s->plane_count);
    const eddy_plane *p = &s->planes[plane];
    const vec3 n = v3_of(p->normal);
    const float d = plane_distance(p, q);
    if (normal != NULL) *normal = s->hole ? v3_scale(n, -1.0f) : n;
    return v3_sub(q, v3_scale(n, d));
}

float eddy_polytope_collision_distance(const eddy_shape *s, vec3 q, vec3 v, int *plane) {
    EDDY_DEBUG_ASSERT(s->plane_count > 0 && s->plane_count <= EDDY_MAX_PLANES);
    const float parity = shape_parity(s);
    int contact_plane;
    const float contact = max_plane_distance(s, q, &contact_plane);
    *plane = contact_plane;
    if (!s->hole && contact > 0.0f) return EDDY_FLT_MAX; /* outside the solid */
    float best = -EDDY_FLT_MAX;
    int best_plane = -1;
    for (int i = 0; i < s->plane_count; ++i) {
        const eddy_plane *p = &s->planes[i];
        const float d = plane_distance(p, q);
        if (!(d > best)) continue;
        const float speed = v3_dot(v, v3_of(p->normal)) * parity;
        if (speed <= 0.0f || d >= 0.0f || s->hole) {
            best = d;
            best_plane = i;
        }
    }
    if (best_plane < 0) return contact * parity; /* moving out through every face */
    *plane = best_plane;
    return best * parity;
}

static float sphere_distance_solid(const eddy_shape *s, vec3 q, float r, int *plane) {
    float best = -EDDY_FLT_MAX;
    int best_plane = 0;
    for (int i = 0; i < s->plane_count; ++i) {
        const float d = plane_distance(&s->planes[i], q) - r;
        if (d >= 0.0f) {
            *plane = i; /* the sphere lies wholly outside this face: separated */
            return d;
        }
        if (d > best) {
            best = d;
            best_plane = i;
        }
    }
    *plane = best_plane;
    return best;
}

float eddy_polytope_contact_distance_sphere(const eddy_shape *s, vec3 q, float r, int *plane) {
    EDDY_DEBUG_ASSERT(s->plane_count > 0 && s->plane_count <= EDDY_MAX_PLANES);
    if (!s->hole) return sphere_distance_solid(s, q, r, plane);
    return -(max_plane_distance(s, q, plane) + r);
}

/* ---------------------------------------------------------------- faces */
/* Monotone in the angle of (x, y) over [0, 4), without libm ("diamond angle"). */
static float pseudo_angle(float x, float y) {
    const float r = abs_f(x) + abs_f(y);
    if (!(r > 0.0f)) return 0.0f;
    const float t = y / r;
    if (x >= 0.0f) return y >= 0.0f ? t : 4.0f + t;
    return 2.0f - t;
}

/* Sort the face's vertex indices by angle about the face centroid, in the
 * plane basis (u, n x u): counter-clockwise seen from the normal's side. */
static void face_order(const vertex_set *vs, vec3 n, int *face, int count) {
    vec3 c = v3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < count; ++k) c = v3_add(c, vs->p[face[k]]);
    c = v3_scale(c, 1.0f / (float)count);
    const vec3 u = v3_sub(vs->p[face[0]], c), v = v3_cross(n, u);
    float angle[EDDY_SHAPE_MAX_VERTICES];
    for (int k = 0; k < count; ++k) {
        const vec3 d = v3_sub(vs->p[face[k]], c);
        angle[k] = pseudo_angle(v3_dot(d, u), v3_dot(d, v));
    }
    for (int k = 1; k < count; ++k) { /* insertion sort: faces are small */
        const float a = angle[k];
        const int f = face[k];
        int j = k - 1;
        for (; j >= 0 && angle[j] > a; --j) {
            angle[j + 1] = angle[j];
            face[j + 1] = face[j];
        }
        angle[j + 1] = a;
        face[j + 1] = f;
    }
}

int eddy_shape_face(const eddy_shape *shape, int plane, int *vertex_indices, int capacity) {
    if (shape == NULL || shape->type != EDDY_SHAPE_POLYTOPE) return -1;
    if (shape->plane_count < 4 || shape->plane_count > EDDY_MAX_PLANES) return -1;
    if (plane < 0 || plane >= shape->plane_count) return -1;
    vertex_set vs;
    int face[EDDY_SHAPE_MAX_VERTICES];
    int count = 0;
    const uint32_t saved = fp_enter();
    vertices_enumerate(shape, &vs);
    if (!vs.overflow) {
        for (int k = 0; k < vs.count; ++k)
            if (vs.on[k] & (1u << plane)) face[count++] = k;
        if (count >= 3) face_order(&vs, v3_of(shape->planes[plane].normal), face, count);
    }
    fp_leave(saved);
    if (vs.overflow || count < 3) return -1;
    for (int k = 0; k < count && k < capacity; ++k) vertex_indices[k] = face[k];
    return count;
}
