/* SPDX-License-Identifier: MIT */
/* Collision shapes (lib/bodies/shape.c): builders, vertices, mass properties against
 * closed forms, validation with its messages, and the body-frame polytope
 * queries of lib/bodies/geometry.h.
 *
 * Reference values are computed in double from closed forms (or, for prisms,
 * from the 2-D polygon moments extruded: a second, independent method).
 * Where a result is exact in float (box corners, axis-aligned distances) the
 * test compares bits. */
#include <criterion/criterion.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "bodies/geometry.h"

#define MSG_SIZE 256

/* ------------------------------------------------------------ helpers */
static vec3 q3(float x, float y, float z) { return (vec3){x, y, z}; }

static eddy_shape unit_box(void) { return eddy_shape_box((eddy_vec3){1.0f, 1.0f, 1.0f}); }

static void expect_rel(double actual, double expected, double scale, double tol, const char *what) {
    const double err = fabs(actual - expected) / scale;
    cr_expect(err <= tol, "%s: %.9g, expected %.9g (relative error %.3g > %.1g)", what, actual,
              expected, err, tol);
}

static void expect_inertia(const eddy_mass_properties *m, const double want[3][3], double tol) {
    double scale = 0.0;
    for (int r = 0; r < 3; ++r) scale = fmax(scale, fabs(want[r][r]));
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            char what[32];
            snprintf(what, sizeof what, "inertia[%d][%d]", r, c);
            expect_rel((double)m->inertia[r][c], want[r][c], scale, tol, what);
        }
}

static eddy_mass_properties measure(const eddy_shape *s) {
    eddy_mass_properties m;
    char msg[MSG_SIZE];
    const eddy_status st = eddy_shape_mass_properties(s, &m, msg, sizeof msg);
    cr_assert_eq(st, EDDY_OK, "mass properties failed: %s", msg);
    cr_assert_str_empty(msg);
    return m;
}

static void expect_invalid(const eddy_shape *s, eddy_status want, const char *needle) {
    char msg[MSG_SIZE];
    const eddy_status st = eddy_shape_validate(s, msg, sizeof msg);
    cr_expect_eq(st, want, "status %s, expected %s (message: %s)", eddy_status_name(st),
                 eddy_status_name(want), msg);
    cr_expect(strstr(msg, needle) != NULL, "message \"%s\" does not mention \"%s\"", msg, needle);
    eddy_mass_properties m;
    memset(&m, 0xff, sizeof m);
    cr_expect_eq(eddy_shape_mass_properties(s, &m, NULL, 0), want);
    cr_expect(m.volume == 0.0f && m.vertex_count == 0, "out is zeroed on error");
}

static void expect_prism_error(const float *xy, int n, float depth, eddy_status want,
                               const char *needle) {
    eddy_shape s;
    char msg[MSG_SIZE];
    const eddy_status st = eddy_shape_prism(xy, n, depth, &s, msg, sizeof msg);
    cr_expect_eq(st, want, "status %s, expected %s (message: %s)", eddy_status_name(st),
                 eddy_status_name(want), msg);
    cr_expect(strstr(msg, needle) != NULL, "message \"%s\" does not mention \"%s\"", msg, needle);
}

static eddy_shape set_planes(const float (*planes)[4], int n) {
    eddy_shape s = eddy_shape_box((eddy_vec3){1.0f, 1.0f, 1.0f});
    memset(s.planes, 0, sizeof s.planes);
    s.plane_count = n;
    for (int i = 0; i < n; ++i) {
        s.planes[i].normal = (eddy_vec3){planes[i][0], planes[i][1], planes[i][2]};
        s.planes[i].offset = planes[i][3];
    }
    return s;
}

/* Regular octahedron |x| + |y| + |z| <= a: 8 planes, 4 meeting at each vertex. */
static eddy_shape octahedron(float a) {
    float planes[8][4];
    const float k = 1.0f / sqrtf(3.0f);
    for (int i = 0; i < 8; ++i) {
        planes[i][0] = (i & 1) ? -k : k;
        planes[i][1] = (i & 2) ? -k : k;
        planes[i][2] = (i & 4) ? -k : k;
        planes[i][3] = a * k;
    }
    return set_planes((const float(*)[4])planes, 8);
}

/* ------------------------------------------------------------ builders and vertices */
Test(shape, box_planes_in_documented_order) {
    const eddy_shape s = eddy_shape_box((eddy_vec3){0.5f, 2.0f, 3.0f});
    const float want[6][4] = {{1, 0, 0, 0.5f}, {-1, 0, 0, 0.5f}, {0, 1, 0, 2}, {0, -1, 0, 2},
                              {0, 0, 1, 3},    {0, 0, -1, 3}};
    cr_assert_eq(s.type, EDDY_SHAPE_POLYTOPE);
    cr_assert_eq(s.plane_count, 6);
    cr_assert(!s.hole);
    for (int i = 0; i < 6; ++i) {
        const eddy_plane *p = &s.planes[i];
        cr_expect(p->normal.x == want[i][0] && p->normal.y == want[i][1] &&
                      p->normal.z == want[i][2] && p->offset == want[i][3],
                  "plane %d", i);
    }
    for (int i = 6; i < EDDY_MAX_PLANES; ++i)
        cr_expect(s.planes[i].offset == 0.0f && s.planes[i].normal.x == 0.0f, "unused plane %d", i);
    cr_expect_eq(eddy_shape_validate(&s, NULL, 0), EDDY_OK);
}

Test(shape, box_vertices_are_exactly_the_corners_in_triple_order) {
    const float a = 0.3f, b = 1.7f, c = 2.5f;
    const eddy_shape s = eddy_shape_box((eddy_vec3){a, b, c});
    eddy_vec3 v[16];
    cr_assert_eq(eddy_shape_vertices(&s, v, 16), 8);
    /* planes +x,-x,+y,-y,+z,-z; triples i<j<k: x sign slowest, z fastest */
    for (int k = 0; k < 8; ++k) {
        const float x = (k & 4) ? -a : a, y = (k & 2) ? -b : b, z = (k & 1) ? -c : c;
        cr_expect(v[k].x == x && v[k].y == y && v[k].z == z,
                  "vertex %d = (%g %g %g), expected (%g %g %g)", k, (double)v[k].x,
                  (double)v[k].y, (double)v[k].z, (double)x, (double)y, (double)z);
    }
}

Test(shape, vertices_capacity_sphere_and_null) {
    const eddy_shape box = unit_box();
    eddy_vec3 v[3] = {{9, 9, 9}, {9, 9, 9}, {9, 9, 9}};
    cr_expect_eq(eddy_shape_vertices(&box, v, 2), 8, "the count may exceed the capacity");
    cr_expect(v[2].x == 9.0f, "nothing written past the capacity");
    cr_expect_eq(eddy_shape_vertices(&box, NULL, 0), 8);
    const eddy_shape ball = eddy_shape_sphere(1.0f);
    cr_expect_eq(eddy_shape_vertices(&ball, v, 3), 0);
    cr_expect_eq(eddy_shape_vertices(NULL, v, 3), -1);
    eddy_shape bad = box;
    bad.plane_count = EDDY_MAX_PLANES + 1;
    cr_expect_eq(eddy_shape_vertices(&bad, v, 3), -1);
}

Test(shape, octahedron_vertices_are_deduplicated) {
    const eddy_shape s = octahedron(2.0f);
    eddy_vec3 v[EDDY_SHAPE_MAX_VERTICES];
    const int n = eddy_shape_vertices(&s, v, EDDY_SHAPE_MAX_VERTICES);
    cr_assert_eq(n, 6, "4 planes meet at each vertex: 24 triples, 6 vertices");
    for (int k = 0; k < n; ++k) {
        const double r = fabs((double)v[k].x) + fabs((double)v[k].y) + fabs((double)v[k].z);
        cr_expect(fabs(r - 2.0) < 1e-5, "vertex %d on the octahedron", k);
        const int axes = (fabs((double)v[k].x) > 1.0) + (fabs((double)v[k].y) > 1.0) +
                         (fabs((double)v[k].z) > 1.0);
        cr_expect_eq(axes, 1, "vertex %d lies on an axis", k);
    }
}

Test(shape, sphere_plate_and_hole_builders) {
    const eddy_shape ball = eddy_shape_sphere(0.25f);
    cr_expect(ball.type == EDDY_SHAPE_SPHERE && ball.radius == 0.25f && ball.plane_count == 0);
    const eddy_shape still = eddy_shape_hole(ball);
    cr_expect(!still.hole, "a sphere stays solid");
    cr_expect_eq(eddy_shape_validate(&still, NULL, 0), EDDY_OK);

    const eddy_shape plate = eddy_shape_plate(2.0f, 1.0f, 0.1f);
    const eddy_shape box = eddy_shape_box((eddy_vec3){1.0f, 0.5f, 0.05f});
    cr_expect_eq(plate.plane_count, 6);
    cr_expect(memcmp(plate.planes, box.planes, sizeof plate.planes) == 0, "plate = box");

    const eddy_shape hole = eddy_shape_hole(box);
    cr_expect(hole.hole);
    cr_expect(memcmp(hole.planes, box.planes, sizeof box.planes) == 0, "same planes");
    cr_expect_eq(eddy_shape_validate(&hole, NULL, 0), EDDY_OK);
}

/* ------------------------------------------------------------ contact distance */
Test(shape, contact_distance_inside_outside_faces_edges_corners) {
    const eddy_shape s = unit_box();
    struct {
        vec3 q;
        float d;
        int plane;
    } cases[] = {
        {{0, 0, 0}, -1.0f, 0},        /* centre: all tie, first plane wins */
        {{0.5f, 0, 0}, -0.5f, 0},     /* inside, nearest +x */
        {{-0.75f, 0, 0}, -0.25f, 1},  /* inside, nearest -x */
        {{0, 0, -0.5f}, -0.5f, 5},    /* inside, nearest -z */
        {{0, 0, 3}, 2.0f, 4},         /* outside +z */
        {{1, 0.25f, 0}, 0.0f, 0},     /* on the +x face */
        {{0.25f, -1, 0}, 0.0f, 3},    /* on the -y face */
        {{1, 1, 0}, 0.0f, 0},         /* on an edge: first plane */
        {{-1, -1, -1}, 0.0f, 1},      /* on a corner: first plane */
        {{2, 3, 0}, 2.0f, 2},         /* outside near an edge: larger of the two */
        {{2, 2, 2}, 1.0f, 0},         /* outside a corner: all tie */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        int plane = -1;
        const float d = eddy_polytope_contact_distance(&s, cases[k].q, &plane);
        cr_expect(d == cases[k].d && plane == cases[k].plane,
                  "case %zu: distance %g plane %d, expected %g plane %d", k, (double)d, plane,
                  (double)cases[k].d, cases[k].plane);
    }
}

Test(shape, contact_point_projects_onto_the_plane) {
    const eddy_shape s = eddy_shape_box((eddy_vec3){1.0f, 2.0f, 0.5f});
    const vec3 points[] = {q3(0.3f, 0.2f, 1.5f), q3(0.3f, 0.2f, 0.4f), q3(0.1f, -1.9f, 0.0f)};
    const int planes[] = {4, 4, 3};
    const vec3 want[] = {q3(0.3f, 0.2f, 0.5f), q3(0.3f, 0.2f, 0.5f), q3(0.1f, -2.0f, 0.0f)};
    const vec3 want_n[] = {q3(0, 0, 1), q3(0, 0, 1), q3(0, -1, 0)};
    for (int k = 0; k < 3; ++k) {
        int plane = -1;
        const float d = eddy_polytope_contact_distance(&s, points[k], &plane);
        cr_assert_eq(plane, planes[k], "case %d plane", k);
        vec3 n;
        const vec3 c = eddy_polytope_contact_point(&s, points[k], plane, d, &n);
        cr_expect(fabsf(c.x - want[k].x) < 1e-6f && fabsf(c.y - want[k].y) < 1e-6f &&
                      fabsf(c.z - want[k].z) < 1e-6f,
                  "case %d: contact (%g %g %g)", k, (double)c.x, (double)c.y, (double)c.z);
        cr_expect(n.x == want_n[k].x && n.y == want_n[k].y && n.z == want_n[k].z,
                  "case %d: normal out of the solid", k);
        /* the contact point lies on the plane */
        cr_expect(fabsf(c.x * s.planes[plane].normal.x + c.y * s.planes[plane].normal.y +
                        c.z * s.planes[plane].normal.z - s.planes[plane].offset) < 1e-6f);
    }
    /* normal may be NULL; the distance argument does not move the point */
    const vec3 c = eddy_polytope_contact_point(&s, q3(0.3f, 0.2f, 1.5f), 4, EDDY_FLT_MAX, NULL);
    cr_expect(c.z == 0.5f && c.x == 0.3f && c.y == 0.2f);
}

Test(shape, hole_parity_flips_distance_and_normal) {
    const eddy_shape s = eddy_shape_hole(eddy_shape_box((eddy_vec3){1.0f, 2.0f, 3.0f}));
    int plane = -1;
    float d = eddy_polytope_contact_distance(&s, q3(0, 0, 0), &plane);
    cr_expect(d == 1.0f && plane == 0, "centre of a hole: +min half extent, got %g plane %d",
              (double)d, plane);
    d = eddy_polytope_contact_distance(&s, q3(0, 0, 2.5f), &plane);
    cr_expect(d == 0.5f && plane == 4, "inside near the top wall: %g plane %d", (double)d, plane);
    d = eddy_polytope_contact_distance(&s, q3(0, 2.25f, 0), &plane);
    cr_expect(d == -0.25f && plane == 2, "in the +y wall: %g plane %d", (double)d, plane);
    vec3 n;
    const vec3 c = eddy_polytope_contact_point(&s, q3(0, 2.25f, 0), plane, d, &n);
    cr_expect(c.y == 2.0f && c.x == 0.0f && c.z == 0.0f, "projected onto the wall");
    cr_expect(n.x == 0.0f && n.y == -1.0f && n.z == 0.0f, "normal into the container (fluid)");
    /* a solid of the same shape gives the opposite sign */
    const eddy_shape solid = eddy_shape_box((eddy_vec3){1.0f, 2.0f, 3.0f});
    cr_expect(eddy_polytope_contact_distance(&solid, q3(0, 2.25f, 0), &plane) == 0.25f);
}

/* ------------------------------------------------------------ collision distance */
Test(shape, collision_distance_uses_the_face_the_point_moves_deeper_through) {
    /* Bullet through paper: a fast point moving down (-z) crossed the top of a
     * thin plate and is now just inside its bottom face. The nearest face is
     * the bottom, but the point is moving out through it; the face it moves
     * deeper behind is the top, where it came in, so that is the answer. */
    const eddy_shape plate = eddy_shape_plate(2.0f, 2.0f, 0.1f);
    const vec3 q = q3(0.1f, 0.2f, -0.04f), down = q3(0, 0, -5.0f);
    int contact_plane = -1, plane = -1;
    const float contact = eddy_polytope_contact_distance(&plate, q, &contact_plane);
    cr_expect_eq(contact_plane, 5, "nearest face: bottom");
    cr_expect(fabsf(contact + 0.01f) < 1e-6f);
    const float d = eddy_polytope_collision_distance(&plate, q, down, &plane);
    cr_expect_eq(plane, 4, "moving down: resolved through the top face, got plane %d", plane);
    cr_expect(fabsf(d + 0.09f) < 1e-6f, "depth behind the top face: %g", (double)d);

    /* moving up from below: the bottom face */
    plane = -1;
    eddy_polytope_collision_distance(&plate, q3(0.1f, 0.2f, 0.04f), q3(0, 0, 5.0f), &plane);
    cr_expect_eq(plane, 5, "moving up near the top: resolved through the bottom");
    /* at rest every face qualifies: same as the contact distance */
    plane = -1;
    const float rest = eddy_polytope_collision_distance(&plate, q, q3(0, 0, 0), &plane);
    cr_expect(rest == contact && plane == contact_plane);
    /* sliding along the bottom face (v . n = 0) still counts as not leaving it */
    plane = -1;
    eddy_polytope_collision_distance(&plate, q, q3(3.0f, 0, 0), &plane);
    cr_expect_eq(plane, 5);
}

Test(shape, collision_distance_outside_a_solid_is_flt_max_with_plane_set) {
    const eddy_shape s = unit_box();
    int plane = -1;
    const float d = eddy_polytope_collision_distance(&s, q3(0.2f, 3.0f, 0.1f), q3(0, -1, 0), &plane);
    cr_expect(d == EDDY_FLT_MAX, "outside: %g", (double)d);
    cr_expect_eq(plane, 2, "the contact-distance plane");
    plane = -1;
    const float on = eddy_polytope_collision_distance(&s, q3(1.0f, 0.0f, 0.0f), q3(1, 0, 0), &plane);
    cr_expect(on == 0.0f && plane == 0, "on the face counts as touching: %g %d", (double)on,
              plane);
}

Test(shape, collision_distance_never_leaves_the_plane_unset) {
    const eddy_shape box = unit_box();
    const float nan = nanf("");
    int plane = -1;
    float d = eddy_polytope_collision_distance(&box, q3(0.1f, 0.5f, 0.2f), q3(nan, 0, 0), &plane);
    cr_expect(plane >= 0 && plane < 6, "NaN velocity: plane %d", plane);
    cr_expect_eq(plane, 2, "falls back to the contact plane");
    cr_expect(d == -0.5f);
    plane = -1;
    eddy_polytope_collision_distance(&box, q3(nan, 0, 0), q3(0, 0, 1), &plane);
    cr_expect(plane >= 0 && plane < 6, "NaN point: plane %d", plane);
    plane = -1;
    eddy_polytope_contact_distance(&box, q3(nan, nan, nan), &plane);
    cr_expect(plane >= 0 && plane < 6);
    plane = -1;
    eddy_polytope_contact_distance_sphere(&box, q3(nan, nan, nan), 0.1f, &plane);
    cr_expect(plane >= 0 && plane < 6);

    /* An open (unvalidated) corner x, y, z <= 1: moving out through every face
     * is possible, no plane qualifies, and the contact plane is the fallback. */
    const float corner[3][4] = {{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}};
    const eddy_shape open = set_planes(corner, 3);
    plane = -1;
    d = eddy_polytope_collision_distance(&open, q3(0.5f, 0.0f, 0.25f), q3(1, 1, 1), &plane);
    cr_expect_eq(plane, 0, "fallback to the contact plane, got %d", plane);
    cr_expect(d == -0.5f, "fallback to the contact distance, got %g", (double)d);
}

Test(shape, collision_distance_of_a_hole_equals_contact_distance) {
    const eddy_shape s = eddy_shape_hole(eddy_shape_box((eddy_vec3){1.0f, 1.0f, 2.0f}));
    const vec3 points[] = {q3(0, 0, 0), q3(0.9f, 0, 0), q3(0, 0, 2.3f), q3(1.5f, 1.2f, 0)};
    const vec3 velocities[] = {q3(1, 0, 0), q3(-1, 0, 0), q3(0, 0, 1), q3(0, 0, 0)};
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 4; ++j) {
            int p1 = -1, p2 = -1;
            const float c = eddy_polytope_contact_distance(&s, points[k], &p1);
            const float d = eddy_polytope_collision_distance(&s, points[k], velocities[j], &p2);
            cr_expect(c == d && p1 == p2, "point %d velocity %d", k, j);
        }
    int plane = -1;
    const float wall = eddy_polytope_collision_distance(&s, q3(0, 0, 2.3f), q3(0, 0, -1), &plane);
    cr_expect(plane == 4 && fabsf(wall + 0.3f) < 1e-6f, "in the top wall: %g", (double)wall);
}

Test(shape, contact_distance_of_a_sphere) {
    const eddy_shape s = unit_box();
    int plane = -1;
    /* wholly outside +x: early out at the first such face */
    float d = eddy_polytope_contact_distance_sphere(&s, q3(2.0f, 5.0f, 0), 0.5f, &plane);
    cr_expect(d == 0.5f && plane == 0, "first separating face: %g plane %d", (double)d, plane);
    d = eddy_polytope_contact_distance_sphere(&s, q3(0, 0, 1.25f), 0.5f, &plane);
    cr_expect(d == -0.25f && plane == 4, "overlapping the top: %g plane %d", (double)d, plane);
    d = eddy_polytope_contact_distance_sphere(&s, q3(0, -0.5f, 0), 0.25f, &plane);
    cr_expect(d == -0.75f && plane == 3, "inside: %g plane %d", (double)d, plane);

    const eddy_shape hole = eddy_shape_hole(eddy_shape_box((eddy_vec3){1.0f, 2.0f, 2.0f}));
    d = eddy_polytope_contact_distance_sphere(&hole, q3(0, 0, 0), 0.25f, &plane);
    cr_expect(d == 0.75f && plane == 0, "gap to the nearest wall: %g plane %d", (double)d, plane);
    d = eddy_polytope_contact_distance_sphere(&hole, q3(0.875f, 0, 0), 0.25f, &plane);
    cr_expect(d == -0.125f && plane == 0, "poking into the wall: %g", (double)d);
}

/* ------------------------------------------------------------ mass properties */
Test(shape, box_mass_properties_match_closed_forms) {
    const double a = 0.3, b = 0.7, c = 1.1;
    const eddy_shape s = eddy_shape_box((eddy_vec3){(float)a, (float)b, (float)c});
    const eddy_mass_properties m = measure(&s);
    const double v = 8.0 * a * b * c;
    expect_rel((double)m.volume, v, v, 1e-6, "volume");
    const double want[3][3] = {{v * (b * b + c * c) / 3.0, 0, 0},
                               {0, v * (a * a + c * c) / 3.0, 0},
                               {0, 0, v * (a * a + b * b) / 3.0}};
    expect_inertia(&m, want, 1e-6);
    cr_expect(fabsf(m.centroid.x) < 1e-7f && fabsf(m.centroid.y) < 1e-7f &&
              fabsf(m.centroid.z) < 1e-7f);
    expect_rel((double)m.circumradius, sqrt(a * a + b * b + c * c), 1.0, 1e-6, "circumradius");
    cr_expect(m.inradius == 0.3f);
    cr_expect_eq(m.vertex_count, 8);
}

Test(shape, sphere_mass_properties_are_analytic) {
    const float r = 0.4f;
    const eddy_shape s = eddy_shape_sphere(r);
    const eddy_mass_properties m = measure(&s);
    const double v = 4.0 / 3.0 * 3.14159265358979323846 * (double)r * (double)r * (double)r;
    expect_rel((double)m.volume, v, v, 1e-6, "volume");
    const double i = 0.4 * v * (double)r * (double)r;
    const double want[3][3] = {{i, 0, 0}, {0, i, 0}, {0, 0, i}};
    expect_inertia(&m, want, 1e-6);
    cr_expect(m.circumradius == r && m.inradius == r && m.vertex_count == 0);
}

Test(shape, plate_mass_properties_match_closed_forms) {
    const double l = 1.0, w = 0.5, t = 0.1;
    const eddy_shape s = eddy_shape_plate((float)l, (float)w, (float)t);
    const eddy_mass_properties m = measure(&s);
    const double v = l * w * t;
    expect_rel((double)m.volume, v, v, 1e-6, "volume");
    const double want[3][3] = {{v * (w * w + t * t) / 12.0, 0, 0},
                               {0, v * (l * l + t * t) / 12.0, 0},
                               {0, 0, v * (l * l + w * w) / 12.0}};
    expect_inertia(&m, want, 1e-6);
    expect_rel((double)m.inradius, t / 2.0, 1.0, 1e-7, "inradius");
}

Test(shape, rotated_box_inertia_is_the_rotated_tensor) {
    /* R = Rz(3-4-5) Rx(5-12-13); the box planes are R applied to +-x, +-y, +-z. */
    const double cz = 0.8, sz = 0.6, cx = 12.0 / 13.0, sx = 5.0 / 13.0;
    const double rot[3][3] = {{cz, -sz * cx, sz * sx}, {sz, cz * cx, -cz * sx}, {0, sx, cx}};
    const double h[3] = {0.4, 0.9, 0.2};
    float planes[6][4];
    for (int i = 0; i < 6; ++i) {
        const int axis = i / 2;
        const double sign = (i & 1) ? -1.0 : 1.0;
        for (int r = 0; r < 3; ++r) planes[i][r] = (float)(sign * rot[r][axis]);
        planes[i][3] = (float)h[axis];
    }
    const eddy_shape s = set_planes((const float(*)[4])planes, 6);
    const eddy_mass_properties m = measure(&s);
    const double v = 8.0 * h[0] * h[1] * h[2];
    expect_rel((double)m.volume, v, v, 1e-5, "volume");
    const double d[3] = {v * (h[1] * h[1] + h[2] * h[2]) / 3.0,
                         v * (h[0] * h[0] + h[2] * h[2]) / 3.0,
                         v * (h[0] * h[0] + h[1] * h[1]) / 3.0};
    double want[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            want[r][c] = 0.0;
            for (int k = 0; k < 3; ++k) want[r][c] += rot[r][k] * d[k] * rot[c][k];
        }
    expect_inertia(&m, want, 1e-5);
    cr_expect_eq(m.vertex_count, 8);
}

Test(shape, octahedron_mass_properties_match_closed_forms) {
    const double a = 1.5;
    const eddy_shape s = octahedron((float)a);
    const eddy_mass_properties m = measure(&s);
    const double v = 4.0 / 3.0 * a * a * a;
    expect_rel((double)m.volume, v, v, 1e-5, "volume");
    const double i = v * a * a / 5.0; /* integral of y^2 + z^2 = 4 a^5 / 15 */
    const double want[3][3] = {{i, 0, 0}, {0, i, 0}, {0, 0, i}};
    expect_inertia(&m, want, 1e-5);
    cr_expect_eq(m.vertex_count, 6);
    expect_rel((double)m.circumradius, a, a, 1e-6, "circumradius");
}

Test(shape, off_centre_box_reports_its_centroid_and_central_inertia) {
    /* x in [-1, 0.2]: the origin is inside but not at the centroid. */
    eddy_shape s = eddy_shape_box((eddy_vec3){1.0f, 0.5f, 0.25f});
    s.planes[0].offset = 0.2f;
    const eddy_mass_properties m = measure(&s);
    const double lx = 1.2, ly = 1.0, lz = 0.5, v = lx * ly * lz;
    expect_rel((double)m.volume, v, v, 1e-6, "volume");
    expect_rel((double)m.centroid.x, -0.4, 1.0, 1e-6, "centroid x");
    cr_expect(fabsf(m.centroid.y) < 1e-7f && fabsf(m.centroid.z) < 1e-7f);
    const double want[3][3] = {{v * (ly * ly + lz * lz) / 12.0, 0, 0},
                               {0, v * (lx * lx + lz * lz) / 12.0, 0},
                               {0, 0, v * (lx * lx + ly * ly) / 12.0}};
    expect_inertia(&m, want, 1e-5);
    expect_rel((double)m.inradius, 0.2, 1.0, 1e-7, "inradius: min offset");
}

Test(shape, hole_mass_properties_are_those_of_the_cavity) {
    const eddy_shape solid = eddy_shape_box((eddy_vec3){1.0f, 2.0f, 3.0f});
    const eddy_shape hole = eddy_shape_hole(solid);
    const eddy_mass_properties a = measure(&solid), b = measure(&hole);
    cr_expect(memcmp(&a, &b, sizeof a) == 0, "same numbers for the container");
    cr_expect(b.inradius == 1.0f, "inscribed sphere for the broad phase");
}

/* 2-D polygon moments (about the origin) by Green's theorem, in double. */
typedef struct polygon_moments {
    double area, cx, cy, sxx, syy, sxy; /* sxx = integral x^2 dA, ... (about the centroid) */
} polygon_moments;

static polygon_moments polygon_moments_of(const float *xy, int n) {
    double a = 0, mx = 0, my = 0, ixx = 0, iyy = 0, ixy = 0;
    for (int k = 0; k < n; ++k) {
        const int k1 = (k + 1) % n;
        const double x0 = (double)xy[2 * k], y0 = (double)xy[2 * k + 1];
        const double x1 = (double)xy[2 * k1], y1 = (double)xy[2 * k1 + 1];
        const double c = x0 * y1 - x1 * y0;
        a += c / 2.0;
        mx += (x0 + x1) * c / 6.0;
        my += (y0 + y1) * c / 6.0;
        ixx += (x0 * x0 + x0 * x1 + x1 * x1) * c / 12.0;
        iyy += (y0 * y0 + y0 * y1 + y1 * y1) * c / 12.0;
        ixy += (x0 * y1 + 2.0 * x0 * y0 + 2.0 * x1 * y1 + x1 * y0) * c / 24.0;
    }
    polygon_moments p = {a, mx / a, my / a, 0, 0, 0};
    p.sxx = ixx - a * p.cx * p.cx;
    p.syy = iyy - a * p.cy * p.cy;
    p.sxy = ixy - a * p.cx * p.cy;
    return p;
}

Test(shape, prism_mass_properties_agree_two_ways) {
    const float xy[] = {0.0f, 0.0f, 2.0f, 0.0f, 2.6f, 1.1f, 1.4f, 2.2f, -0.3f, 1.3f};
    const int n = 5;
    const double h = 0.7;
    eddy_shape s;
    char msg[MSG_SIZE];
    cr_assert_eq(eddy_shape_prism(xy, n, (float)h, &s, msg, sizeof msg), EDDY_OK, "%s", msg);
    cr_assert_eq(s.plane_count, n + 2);
    const eddy_mass_properties m = measure(&s);

    /* second method: polygon area x depth, 2-D second moments extruded */
    const polygon_moments p = polygon_moments_of(xy, n);
    const double v = p.area * h, z2 = p.area * h * h * h / 12.0;
    expect_rel((double)m.volume, v, v, 1e-5, "volume");
    const double want[3][3] = {{h * p.syy + z2, -h * p.sxy, 0},
                               {-h * p.sxy, h * p.sxx + z2, 0},
                               {0, 0, h * (p.sxx + p.syy)}};
    expect_inertia(&m, want, 1e-5);
    const double size = 3.0;
    cr_expect(fabs((double)m.centroid.x) < 1e-5 * size && fabs((double)m.centroid.y) < 1e-5 * size &&
                  fabs((double)m.centroid.z) < 1e-5 * size,
              "re-centred: centroid (%g %g %g)", (double)m.centroid.x, (double)m.centroid.y,
              (double)m.centroid.z);
    cr_expect_eq(m.vertex_count, 2 * n);
}

Test(shape, prism_is_the_polygon_shifted_by_its_centroid) {
    const float xy[] = {-1.0f, -0.5f, 3.0f, -0.5f, 0.0f, 2.5f}; /* triangle */
    eddy_shape s;
    cr_assert_eq(eddy_shape_prism(xy, 3, 2.0f, &s, NULL, 0), EDDY_OK);
    const polygon_moments p = polygon_moments_of(xy, 3);
    cr_expect(fabs(p.cx - 2.0 / 3.0) < 1e-6 && fabs(p.cy - 0.5) < 1e-6, "reference centroid");
    eddy_vec3 v[EDDY_SHAPE_MAX_VERTICES];
    const int count = eddy_shape_vertices(&s, v, EDDY_SHAPE_MAX_VERTICES);
    cr_assert_eq(count, 6);
    for (int k = 0; k < 3; ++k)
        for (int side = 0; side < 2; ++side) {
            const double x = (double)xy[2 * k] - p.cx, y = (double)xy[2 * k + 1] - p.cy;
            const double z = side ? -1.0 : 1.0;
            int found = 0;
            for (int j = 0; j < count; ++j)
                found += fabs((double)v[j].x - x) < 1e-5 && fabs((double)v[j].y - y) < 1e-5 &&
                         fabs((double)v[j].z - z) < 1e-6;
            cr_expect_eq(found, 1, "polygon vertex %d, side %d", k, side);
        }
    /* plane k is edge k, outward: edge 0 runs along +x at the bottom */
    cr_expect(fabsf(s.planes[0].normal.x) < 1e-7f && s.planes[0].normal.y == -1.0f);
    cr_expect(s.planes[3].normal.z == 1.0f && s.planes[4].normal.z == -1.0f);
    cr_expect(s.planes[3].offset == 1.0f && s.planes[4].offset == 1.0f);
}

Test(shape, results_do_not_depend_on_the_callers_fp_mode) {
    eddy_shape a1, a2, p1, p2;
    const float xy[] = {0.0f, 0.0f, 2.0f, 0.1f, 2.6f, 1.1f, 1.4f, 2.2f, -0.3f, 1.3f};
    cr_assert_eq(eddy_shape_airfoil(1.3f, 0.12f, 2.0f, 24, &a1), EDDY_OK);
    cr_assert_eq(eddy_shape_prism(xy, 5, 0.7f, &p1, NULL, 0), EDDY_OK);
    const eddy_mass_properties ma1 = measure(&a1), mp1 = measure(&p1);

    const uint32_t saved = eddy_fpenv_get();
    cr_assert_eq(fesetround(FE_TOWARDZERO), 0);
    eddy_fpenv_set(eddy_fpenv_get() | eddy_fpenv_canonical(true)); /* and flush denormals */
    const eddy_status sa = eddy_shape_airfoil(1.3f, 0.12f, 2.0f, 24, &a2);
    const eddy_status sp = eddy_shape_prism(xy, 5, 0.7f, &p2, NULL, 0);
    eddy_mass_properties ma2, mp2;
    const eddy_status sma = eddy_shape_mass_properties(&a2, &ma2, NULL, 0);
    const eddy_status smp = eddy_shape_mass_properties(&p2, &mp2, NULL, 0);
    const uint32_t during = eddy_fpenv_get();
    eddy_fpenv_set(saved);
    cr_assert(sa == EDDY_OK && sp == EDDY_OK && sma == EDDY_OK && smp == EDDY_OK);
    cr_expect(during != eddy_fpenv_canonical(false), "the caller's mode was restored");
    cr_expect(memcmp(a1.planes, a2.planes, sizeof a1.planes) == 0, "airfoil planes");
    cr_expect(memcmp(p1.planes, p2.planes, sizeof p1.planes) == 0, "prism planes");
    cr_expect(memcmp(&ma1, &ma2, sizeof ma1) == 0, "airfoil mass properties");
    cr_expect(memcmp(&mp1, &mp2, sizeof mp1) == 0, "prism mass properties");
}

/* ------------------------------------------------------------ airfoil */
static void expect_airfoil_shape(float chord_f, float t_f, float span_f, int n) {
    const double chord = (double)chord_f, t = (double)t_f, span = (double)span_f;
    eddy_shape s;
    cr_assert_eq(eddy_shape_airfoil(chord_f, t_f, span_f, n, &s), EDDY_OK, "chord %g t %g n %d",
                 chord, t, n);
    cr_assert_eq(s.plane_count, n + 2);
    char msg[MSG_SIZE];
    cr_assert_eq(eddy_shape_validate(&s, msg, sizeof msg), EDDY_OK, "n %d t %g: %s", n, t, msg);
    eddy_vec3 v[EDDY_SHAPE_MAX_VERTICES];
    const int count = eddy_shape_vertices(&s, v, EDDY_SHAPE_MAX_VERTICES);
    cr_assert_eq(count, 2 * n, "n %d t %g: every outline point is a vertex", n, t);
    double lo = 1e9, hi = -1e9, ylo = 1e9, yhi = -1e9, zlo = 1e9, zhi = -1e9;
    for (int k = 0; k < count; ++k) {
        lo = fmin(lo, (double)v[k].x), hi = fmax(hi, (double)v[k].x);
        ylo = fmin(ylo, (double)v[k].y), yhi = fmax(yhi, (double)v[k].y);
        zlo = fmin(zlo, (double)v[k].z), zhi = fmax(zhi, (double)v[k].z);
        /* symmetric: the mirror image in y is a vertex too */
        int mirror = 0;
        for (int j = 0; j < count; ++j)
            mirror += fabs((double)(v[j].x - v[k].x)) < 1e-5 * chord &&
                      fabs((double)(v[j].y + v[k].y)) < 1e-5 * chord &&
                      fabs((double)(v[j].z - v[k].z)) < 1e-6 * span;
        cr_expect_eq(mirror, 1, "n %d: vertex %d has one mirror image", n, k);
    }
    expect_rel(hi - lo, chord, chord, 1e-5, "chord");
    expect_rel(zhi - zlo, span, span, 1e-6, "span");
    /* the open-trailing-edge formula (odd counts) peaks at 1.00011 t */
    cr_expect(yhi - ylo <= 1.0002 * t * chord && yhi - ylo >= 0.8 * t * chord,
              "n %d: thickness %g of %g", n, yhi - ylo, t * chord);
    cr_expect(fabs(yhi + ylo) < 1e-5 * chord, "symmetric about y = 0");
    /* convex and closed: each side face touches exactly 4 vertices */
    const eddy_mass_properties m = measure(&s);
    cr_expect_eq(m.vertex_count, 2 * n);
    cr_expect(fabs((double)m.centroid.x) < 1e-5 * chord && fabs((double)m.centroid.y) < 1e-5 * chord);
    cr_expect(fabs((double)m.inertia[0][1]) < 1e-5 * (double)m.inertia[2][2],
              "symmetric: no xy product of inertia (%g)", (double)m.inertia[0][1]);
}

Test(shape, airfoil_is_convex_symmetric_and_sized) {
    expect_airfoil_shape(1.0f, 0.12f, 2.0f, 30);
    expect_airfoil_shape(2.5f, 0.12f, 0.5f, 17);
    expect_airfoil_shape(0.3f, 0.06f, 1.0f, 4);
}

Test(shape, airfoil_builds_for_every_count_and_thickness) {
    const float ts[] = {0.01f, 0.06f, 0.12f, 0.3f, 1.0f};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; ++i)
        for (int n = 4; n <= EDDY_MAX_PLANES - 2; ++n) expect_airfoil_shape(1.0f, ts[i], 1.0f, n);
}

Test(shape, airfoil_area_approaches_the_naca_section) {
    /* Area of a NACA 00xx section (closed trailing edge): 0.68088 t c^2
     * (integral of twice the half thickness); the inscribed polygon is less. */
    const double c = 1.5, t = 0.12, span = 2.0;
    eddy_shape s;
    cr_assert_eq(eddy_shape_airfoil((float)c, (float)t, (float)span, 30, &s), EDDY_OK);
    const eddy_mass_properties m = measure(&s);
    const double a4 = -0.1036;
    const double integral = 5.0 * t * 2.0 *
                            (0.2969 * 2.0 / 3.0 - 0.1260 / 2.0 - 0.3516 / 3.0 + 0.2843 / 4.0 + a4 / 5.0);
    const double exact = integral * c * c * span;
    const double ratio = (double)m.volume / exact;
    cr_expect(ratio < 1.0 && ratio > 0.98, "polygon / section area = %.5f", ratio);
    /* the leading edge points to -x: it is farther from the centroid (0.42 c) */
    eddy_vec3 v[EDDY_SHAPE_MAX_VERTICES];
    const int count = eddy_shape_vertices(&s, v, EDDY_SHAPE_MAX_VERTICES);
    double lo = 0, hi = 0;
    for (int k = 0; k < count; ++k) lo = fmin(lo, (double)v[k].x), hi = fmax(hi, (double)v[k].x);
    cr_expect(fabs(-lo / c - 0.42) < 0.01, "leading edge at %.4f chord before the centroid", -lo / c);
    cr_expect(hi > -lo);
}

Test(shape, airfoil_rejects_bad_arguments) {
    eddy_shape s;
    cr_expect_eq(eddy_shape_airfoil(1, 0.12f, 1, 12, NULL), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_shape_airfoil(nanf(""), 0.12f, 1, 12, &s), EDDY_ERROR_NAN);
    cr_expect_eq(eddy_shape_airfoil(1, 0.12f, INFINITY, 12, &s), EDDY_ERROR_NAN);
    cr_expect_eq(eddy_shape_airfoil(0, 0.12f, 1, 12, &s), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_shape_airfoil(1, 0.12f, -1, 12, &s), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_shape_airfoil(1, 0.001f, 1, 12, &s), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_shape_airfoil(1, 1.5f, 1, 12, &s), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_shape_airfoil(1, 0.12f, 1, 3, &s), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_shape_airfoil(1, 0.12f, 1, EDDY_MAX_PLANES - 1, &s), EDDY_ERROR_INVALID_DEF);
}

/* ------------------------------------------------------------ validation */
Test(shape, validation_accepts_good_shapes_with_an_empty_message) {
    const eddy_shape shapes[] = {eddy_shape_sphere(1.0f), unit_box(), eddy_shape_hole(unit_box()),
                                 octahedron(1.0f), eddy_shape_plate(1, 1, 0.001f)};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        char msg[MSG_SIZE] = "junk";
        cr_expect_eq(eddy_shape_validate(&shapes[k], msg, sizeof msg), EDDY_OK, "shape %zu: %s", k,
                     msg);
        cr_expect_str_empty(msg);
    }
    cr_expect_eq(eddy_shape_validate(NULL, NULL, 0), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_shape_mass_properties(&shapes[0], NULL, NULL, 0),
                 EDDY_ERROR_INVALID_ARGUMENT);
}

Test(shape, validation_rejects_non_finite_values) {
    eddy_shape s = unit_box();
    s.planes[3].offset = nanf("");
    expect_invalid(&s, EDDY_ERROR_NAN, "plane 3");
    s = unit_box();
    s.planes[5].normal.y = INFINITY;
    expect_invalid(&s, EDDY_ERROR_NAN, "plane 5");
    s = eddy_shape_sphere(nanf(""));
    expect_invalid(&s, EDDY_ERROR_NAN, "radius");
    s = eddy_shape_sphere(INFINITY);
    expect_invalid(&s, EDDY_ERROR_NAN, "radius");
}

Test(shape, validation_rejects_bad_spheres_and_types) {
    eddy_shape s = eddy_shape_sphere(0.0f);
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "radius");
    s = eddy_shape_sphere(-1.0f);
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "radius");
    s = eddy_shape_sphere(1.0f);
    s.hole = true;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "hole");
    s = unit_box();
    s.type = (eddy_shape_type)7;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "type");
}

Test(shape, validation_rejects_bad_normals) {
    eddy_shape s = unit_box();
    s.planes[2].normal = (eddy_vec3){0, 0, 0};
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 2");
    s = unit_box();
    s.planes[4].normal = (eddy_vec3){0, 0, 1.01f};
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 4");
    s = unit_box();
    s.planes[4].normal = (eddy_vec3){0, 0, 1.00001f}; /* within 1e-4 of unit */
    cr_expect_eq(eddy_shape_validate(&s, NULL, 0), EDDY_OK);
}

Test(shape, validation_rejects_wrong_plane_counts) {
    eddy_shape s = unit_box();
    s.plane_count = 3;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "3 planes");
    s.plane_count = 0;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "0 planes");
    s.plane_count = EDDY_MAX_PLANES + 1;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "planes");
    /* a tetrahedron is the smallest closed polytope */
    const float k = 1.0f / sqrtf(3.0f);
    const float tetra[4][4] = {{k, k, k, 1}, {k, -k, -k, 1}, {-k, k, -k, 1}, {-k, -k, k, 1}};
    s = set_planes(tetra, 4);
    const eddy_mass_properties m = measure(&s);
    cr_expect_eq(m.vertex_count, 4);
    /* vertices at (-sqrt3)(1,1,1)-like points: regular tetrahedron of inradius 1 */
    expect_rel((double)m.volume, 8.0 * sqrt(3.0), 8.0 * sqrt(3.0), 1e-5, "tetrahedron volume");
}

Test(shape, validation_rejects_open_sets) {
    eddy_shape s = unit_box();
    s.plane_count = 5; /* box minus -z */
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "closed");
    char msg[MSG_SIZE];
    eddy_shape_validate(&s, msg, sizeof msg);
    cr_expect(strstr(msg, "-1") != NULL, "names the open direction -z: %s", msg);

    s = unit_box(); /* a slab between 4 parallel planes: all normals along x */
    s.planes[2] = s.planes[0];
    s.planes[2].offset = 2.0f;
    s.planes[3] = s.planes[1];
    s.planes[3].offset = 2.0f;
    s.plane_count = 4;
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "closed");

    /* normals in one plane (a infinite triangular prism with a cap) */
    const float k = 0.8660254f;
    const float prism[4][4] = {{1, 0, 0, 1}, {-0.5f, k, 0, 1}, {-0.5f, -k, 0, 1}, {0, 0, 1, 1}};
    s = set_planes(prism, 4);
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "closed");
}

Test(shape, validation_rejects_redundant_and_duplicate_planes) {
    eddy_shape s = unit_box();
    s.plane_count = 7;
    s.planes[6] = (eddy_plane){{1, 0, 0}, 5.0f}; /* far outside */
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 6 is redundant");

    const float r = 1.0f / sqrtf(2.0f);
    s.planes[6] = (eddy_plane){{r, r, 0}, 2.0f * r}; /* touches only the +x+y edge */
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 6 is redundant");

    s.planes[6] = (eddy_plane){{r, r, 0}, 1.5f * r}; /* cuts the edge: a real face */
    cr_expect_eq(eddy_shape_validate(&s, NULL, 0), EDDY_OK);
    const eddy_mass_properties m = measure(&s);
    expect_rel((double)m.volume, 8.0 - 0.25, 8.0, 1e-6, "box with a chamfered edge");
    cr_expect_eq(m.vertex_count, 10);

    s.planes[6] = s.planes[2];
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 6 duplicates plane 2");
}

Test(shape, validation_requires_the_origin_inside) {
    eddy_shape s = unit_box();
    s.planes[1].offset = -0.5f; /* x in [0.5, 1]: origin outside */
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 1");
    char msg[MSG_SIZE];
    eddy_shape_validate(&s, msg, sizeof msg);
    cr_expect(strstr(msg, "origin") != NULL, "%s", msg);
    s.planes[1].offset = 0.0f; /* origin on the surface */
    expect_invalid(&s, EDDY_ERROR_INVALID_DEF, "plane 1");
}

/* ------------------------------------------------------------ prism validation */
Test(shape, prism_rejects_bad_polygons) {
    const float square[] = {0, 0, 1, 0, 1, 1, 0, 1};
    eddy_shape s;
    cr_expect_eq(eddy_shape_prism(square, 4, 1.0f, &s, NULL, 0), EDDY_OK);

    const float clockwise[] = {0, 0, 0, 1, 1, 1, 1, 0};
    expect_prism_error(clockwise, 4, 1.0f, EDDY_ERROR_INVALID_DEF, "clockwise");
    const float dart[] = {0, 0, 2, 0, 1, 0.5f, 1, 2}; /* reflex vertex 2 */
    expect_prism_error(dart, 4, 1.0f, EDDY_ERROR_INVALID_DEF, "not convex");
    const float collinear[] = {0, 0, 1, 0, 2, 0, 1, 1};
    expect_prism_error(collinear, 4, 1.0f, EDDY_ERROR_INVALID_DEF, "collinear");
    const float repeated[] = {0, 0, 1, 0, 1, 0, 1, 1};
    expect_prism_error(repeated, 4, 1.0f, EDDY_ERROR_INVALID_DEF, "coincide");
    /* a pentagram turns left at every vertex but winds twice */
    float star[10];
    const int order[5] = {0, 2, 4, 1, 3};
    for (int k = 0; k < 5; ++k) {
        const float angle = 2.0f * EDDY_PI * (float)order[k] / 5.0f;
        star[2 * k] = eddy_cosf(angle);
        star[2 * k + 1] = eddy_sinf(angle);
    }
    expect_prism_error(star, 5, 1.0f, EDDY_ERROR_INVALID_DEF, "not convex");
    const float line[] = {0, 0, 1, 1, 2, 2};
    expect_prism_error(line, 3, 1.0f, EDDY_ERROR_INVALID_DEF, "");
    cr_expect_neq(eddy_shape_prism(line, 3, 1.0f, &s, NULL, 0), EDDY_OK);
}

Test(shape, prism_rejects_bad_counts_depths_and_values) {
    const float square[] = {0, 0, 1, 0, 1, 1, 0, 1};
    expect_prism_error(square, 2, 1.0f, EDDY_ERROR_INVALID_DEF, "2 vertices");
    float many[2 * EDDY_MAX_PLANES];
    for (int k = 0; k < EDDY_MAX_PLANES; ++k) {
        const float angle = 2.0f * EDDY_PI * (float)k / (float)(EDDY_MAX_PLANES - 1);
        many[2 * k] = eddy_cosf(angle);
        many[2 * k + 1] = eddy_sinf(angle);
    }
    expect_prism_error(many, EDDY_MAX_PLANES - 1, 1.0f, EDDY_ERROR_INVALID_DEF, "vertices");
    eddy_shape s;
    cr_expect_eq(eddy_shape_prism(many, EDDY_MAX_PLANES - 2, 1.0f, &s, NULL, 0), EDDY_OK,
                 "the largest prism: %d sides", EDDY_MAX_PLANES - 2);
    expect_prism_error(square, 4, 0.0f, EDDY_ERROR_INVALID_DEF, "depth");
    expect_prism_error(square, 4, -1.0f, EDDY_ERROR_INVALID_DEF, "depth");
    expect_prism_error(square, 4, nanf(""), EDDY_ERROR_NAN, "depth");
    const float bad[] = {0, 0, 1, 0, 1, NAN, 0, 1};
    expect_prism_error(bad, 4, 1.0f, EDDY_ERROR_NAN, "vertex 2");
    expect_prism_error(NULL, 4, 1.0f, EDDY_ERROR_INVALID_ARGUMENT, "NULL");
    expect_prism_error(square, 4, 1.0f, EDDY_OK, "");
}
