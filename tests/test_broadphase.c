/* SPDX-License-Identifier: MIT */
/* The broad phase of particle-body collision (lib/bodies/broadphase.c) skips only
 * particles the narrow phase leaves untouched.
 *
 * - Points around a rotated box, a rotated container and a ball, many of them
 *   within a few float steps of the contact distance: every point the narrow
 *   test touches is a candidate, and points far away are not (also the points
 *   of a block near a ball).
 * - Every scene with bodies steps to the same frame hashes, every frame,
 *   with the broad phase and without it (EDDY_MUTATION_NO_BROAD_PHASE).
 * - A world with more bodies than one collision pass takes (12: two passes)
 *   steps to the same hashes with and without the broad phase, at 1 and 3
 *   workers.
 * - A broad phase that forgets the contact distance
 *   (EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH) changes the hashes: the
 *   comparison above can fail. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/broadphase.h"
#include "core/core.h"
#include "eddy/eddy.h"
#include "bodies/geometry.h"
#include "scenes.h"
#include "runtime/vmath.h"
#include "test_points.h"
#include "scene_trace.h"

/* ---------------------------------------------------------------- points */
static test_rng rng = {0x9e3779b9u};

static float uniform(float lo, float hi) { return test_uniform(&rng, lo, hi); }

static mat3 some_rotation(void) { return test_rotation(); }

static vec3 random_in(vec3 h) {
    return (vec3){uniform(-h.x, h.x), uniform(-h.y, h.y), uniform(-h.z, h.z)};
}

/* Body-frame point at distance d from face f's plane (d along n_f), over a
 * random spot of the box of half extents h. */
static vec3 near_face(const eddy_shape *s, int f, float d, vec3 h) {
    const eddy_plane *p = &s->planes[f];
    const vec3 n = {p->normal.x, p->normal.y, p->normal.z};
    vec3 q = random_in(h);
    const float along = v3_dot(n, q);
    q = v3_add(q, v3_scale(n, p->offset + d - along));
    return q;
}

/* A quarter of the points anywhere in the box of half extents `spread`,
 * the others near the faces of the box h. */
static void fill_points(particle_array *a, const eddy_shape *s, const mat3 *r, vec3 c, float reach,
                        vec3 h, vec3 spread, int count) {
    cr_assert(eddy_particles_reserve(a, count));
    const vec3 zero = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < count; ++i) {
        vec3 q;
        if (i % 4 == 0) {
            q = random_in(spread);
        } else { /* within a few float steps of the contact distance of a face */
            const int f = (int)uniform(0.0f, (float)s->plane_count - 0.01f);
            float d = reach;
            const int steps = (int)uniform(-8.0f, 8.0f);
            for (int k = 0; k < abs(steps); ++k) d = nextafterf(d, steps < 0 ? 0.0f : 1.0f);
            q = near_face(s, f, d, h);
        }
        eddy_particles_push(a, v3_add(c, m3_mul_v(r, q)), zero, zero, 0.0f, 0);
    }
}

/* The narrow phase's test (lib/bodies/collide.c), done as it does it. */
static bool narrow_touches(const eddy_shape *s, const mat3 *r, vec3 c, float reach, vec3 x) {
    const vec3 q = m3_tmul_v(r, v3_sub(x, c));
    if (!s->hole) {
        int plane;
        return eddy_polytope_contact_distance(s, q, &plane) < reach;
    }
    for (int f = 0; f < s->plane_count; ++f) {
        const eddy_plane *p = &s->planes[f];
        const vec3 nb = {p->normal.x, p->normal.y, p->normal.z};
        if (p->offset - v3_dot(nb, q) < reach) return true;
    }
    return false;
}

/* Candidates of all points; returns how many of the points are skipped
 * and checks that no touched point is. */
static int check_polytope(const eddy_shape *s, float reach, float ball, vec3 h, vec3 spread) {
    const mat3 r = some_rotation();
    const vec3 c = {0.25f, -0.5f, 1.0f};
    enum { N = 64 * 200 + 37 };
    particle_array a = {0};
    fill_points(&a, s, &r, c, reach, h, spread, N);
    eddy_broad_body bb;
    eddy_broad_body_polytope(&bb, c, r.m, s, ball, reach);
    const int blocks = eddy_broad_block_count(N);
    eddy_broad_box *boxes = calloc((size_t)blocks, sizeof *boxes);
    int *out = malloc(N * sizeof *out);
    cr_assert(boxes && out);
    eddy_broad_fit(boxes, &a, 0, N);
    const int n = eddy_broad_candidates(&bb, boxes, &a, 0, N, out);
    int touched = 0, k = 0;
    for (int i = 0; i < N; ++i) {
        const bool candidate = k < n && out[k] == i;
        k += candidate;
        const vec3 x = {a.px[i], a.py[i], a.pz[i]};
        if (!narrow_touches(s, &r, c, reach, x)) continue;
        ++touched;
        cr_assert(candidate, "point %d (%a, %a, %a) is touched by the narrow phase but skipped", i,
                  (double)x.x, (double)x.y, (double)x.z);
    }
    cr_assert_eq(k, n, "candidates out of order or out of range");
    cr_assert_gt(touched, N / 10, "too few points near the walls to test anything");
    free(out);
    free(boxes);
    eddy_particles_free(&a);
    return N - n;
}

Test(broadphase, solid_box_skips_only_untouched_points) {
    const vec3 h = {0.5f, 0.25f, 0.05f}, spread = {3.0f, 3.0f, 3.0f};
    const eddy_shape s = eddy_shape_box((eddy_vec3){h.x, h.y, h.z});
    const float ball = sqrtf(v3_dot(h, h)) + 0.01f;
    const int skipped = check_polytope(&s, 0.01f, ball, h, spread);
    cr_expect_gt(skipped, 64 * 200 / 8, "the broad phase skipped only %d points", skipped);
}

Test(broadphase, container_skips_only_untouched_points) {
    const vec3 h = {1.5f, 1.0f, 0.75f}, spread = {1.0f, 0.7f, 0.5f};
    eddy_shape s = eddy_shape_box((eddy_vec3){h.x, h.y, h.z});
    s.hole = true;
    const int skipped = check_polytope(&s, 0.02f, 0.0f, h, spread);
    cr_expect_gt(skipped, 64 * 200 / 8, "the broad phase skipped only %d points", skipped);
}

Test(broadphase, ball_keeps_points_in_reach_and_skips_far_blocks) {
    enum { N = 64 * 50 };
    particle_array a = {0};
    cr_assert(eddy_particles_reserve(&a, N));
    const vec3 c = {1.0f, 2.0f, 3.0f}, zero = {0.0f, 0.0f, 0.0f};
    const float ball = 0.3f;
    for (int i = 0; i < N; ++i) { /* even blocks hug the ball, odd ones are far */
        const bool far = (i / 64) % 2 == 1;
        vec3 d = {uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f)};
        d = v3_scale(v3_normalize(d), nextafterf(ball, 0.0f));
        if (far) d = v3_add(d, (vec3){0.0f, 0.0f, 1.0f});
        eddy_particles_push(&a, v3_add(c, d), zero, zero, 0.0f, 0);
    }
    eddy_broad_body bb;
    eddy_broad_body_ball(&bb, c, ball);
    eddy_broad_box boxes[N / 64];
    int out[N];
    eddy_broad_fit(boxes, &a, 0, N);
    const int n = eddy_broad_candidates(&bb, boxes, &a, 0, N, out);
    cr_assert_eq(n, N / 2, "%d candidates, expected the %d points of the near blocks", n, N / 2);
    for (int k = 0; k < n; ++k) cr_assert_eq((out[k] / 64) % 2, 0, "a far block's point kept");
    eddy_particles_free(&a);
}

/* Inside a block near a ball: every point the narrow test touches (squared
 * distance below ball^2, computed as lib/bodies/collide.c's near_body) is kept,
 * points beyond 1.001 ball are skipped, NaN is kept. */
Test(broadphase, ball_skips_far_points_of_near_blocks) {
    enum { N = 64 * 40 + 13 };
    particle_array a = {0};
    cr_assert(eddy_particles_reserve(&a, N));
    const vec3 c = {-0.5f, 0.25f, 1.5f}, zero = {0.0f, 0.0f, 0.0f};
    const float ball = 0.21f;
    for (int i = 0; i < N; ++i) { /* radii from 0.9 to 1.1 ball, many at the edge */
        vec3 d = {uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f)};
        const float r = i % 3 == 0 ? ball * uniform(0.9f, 1.1f) : ball * uniform(0.9999f, 1.0001f);
        d = v3_scale(v3_normalize(d), r);
        eddy_particles_push(&a, v3_add(c, d), zero, zero, 0.0f, 0);
    }
    a.px[100] = NAN;
    eddy_broad_body bb;
    eddy_broad_body_ball(&bb, c, ball);
    eddy_broad_box boxes[N / 64 + 1];
    int out[N];
    eddy_broad_fit(boxes, &a, 0, N);
    boxes[1].finite = 1; /* the NaN's block is tested particle by particle */
    const int n = eddy_broad_candidates(&bb, boxes, &a, 0, N, out);
    int k = 0, touched = 0, far = 0;
    for (int i = 0; i < N; ++i) {
        const vec3 d = v3_sub((vec3){a.px[i], a.py[i], a.pz[i]}, c);
        const float d2 = v3_dot(d, d);
        const bool kept = k < n && out[k] == i;
        k += kept;
        if (d2 < ball * ball) ++touched;
        if (d2 < ball * ball || i == 100) cr_assert(kept, "point %d (d2 %a) in reach was skipped", i, (double)d2);
        if (d2 > 1.001f * 1.001f * ball * ball && kept) ++far;
    }
    cr_assert_eq(k, n, "candidates out of order");
    cr_expect_gt(touched, N / 4);
    cr_expect_eq(far, 0, "%d points beyond 1.001 ball kept", far);
    cr_expect_lt(n, N - N / 8, "%d of %d points kept", n, N);
    eddy_particles_free(&a);
}

Test(broadphase, nonfinite_block_is_never_skipped) {
    enum { N = 128 };
    particle_array a = {0};
    cr_assert(eddy_particles_reserve(&a, N));
    const vec3 zero = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < N; ++i)
        eddy_particles_push(&a, (vec3){50.0f + (float)i, 0.0f, 0.0f}, zero, zero, 0.0f, 0);
    a.py[70] = NAN;
    const eddy_shape s = eddy_shape_box((eddy_vec3){0.5f, 0.5f, 0.5f});
    const mat3 r = some_rotation();
    eddy_broad_body bb;
    eddy_broad_body_polytope(&bb, zero, r.m, &s, 1.0f, 0.01f);
    eddy_broad_box boxes[2];
    int out[N];
    eddy_broad_fit(boxes, &a, 0, N);
    cr_assert_eq(boxes[1].finite, 0);
    const int n = eddy_broad_candidates(&bb, boxes, &a, 0, N, out);
    cr_assert_eq(n, 64, "the finite far block is skipped, the one with a NaN kept whole");
    cr_assert_eq(out[0], 64);
    eddy_particles_free(&a);
}

/* ---------------------------------------------------------------- scenes */
enum { FRAMES = TRACE_FRAMES };

Test(broadphase, every_body_scene_same_hashes_without_broad_phase, .timeout = 600) {
    expect_body_scenes_unchanged_by(EDDY_MUTATION_NO_BROAD_PHASE, "the broad phase changes");
}

/* ball_through_smoke plus 12 moving bodies through its smoke: spheres, boxes
 * turned about z, one of them a slab like plume_plate's plate. */
static void trace_many_bodies(int workers, uint32_t mutations, uint64_t out[FRAMES]) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    base.test_mutations = mutations;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("ball_through_smoke", &base, &w), EDDY_OK);
    for (int k = 0; k < 12; ++k) {
        eddy_body_def d = eddy_body_def_default();
        d.type = EDDY_BODY_DYNAMIC;
        const float a = 0.5f * (float)k;
        d.shape = k % 3 == 0 ? eddy_shape_sphere(0.12f + 0.01f * (float)k)
                             : eddy_shape_box((eddy_vec3){0.2f, k == 4 ? 0.03f : 0.1f, 0.15f});
        d.position = (eddy_vec3){-1.2f + 0.22f * (float)k, 0.3f * (float)(k % 4) - 0.45f,
                                 0.2f * (float)(k % 3) - 0.2f};
        d.orientation = (eddy_quat){0.0f, 0.0f, sinf(0.5f * a), cosf(0.5f * a)};
        d.linear_velocity = (eddy_vec3){0.1f * (float)(k % 5) - 0.2f, 0.0f, 0.3f};
        d.angular_velocity = (eddy_vec3){0.0f, 0.5f, 1.0f};
        d.mass = 0.5f;
        d.gravity = false;
        eddy_body_id id;
        cr_assert_eq(eddy_world_create_body(w, &d, &id), EDDY_OK, "body %d: %s", k,
                     eddy_world_error_message(w));
    }
    cr_assert_eq(eddy_world_body_count(w), 13);
    eddy_scene_input buffer;
    for (int f = 0; f < FRAMES; ++f) {
        const eddy_input *in = eddy_scene_input_for("ball_through_smoke", eddy_world_frame(w), &buffer);
        cr_assert_eq(eddy_world_step(w, in), EDDY_OK, "frame %d: %s", f + 1, eddy_world_error_message(w));
        out[f] = eddy_world_hash(w).frame_hash;
    }
    eddy_world_destroy(w);
}

Test(broadphase, more_bodies_than_one_pass_same_hashes) {
    uint64_t ref[FRAMES], other[FRAMES];
    trace_many_bodies(1, EDDY_MUTATION_NO_BROAD_PHASE, ref);
    trace_many_bodies(1, EDDY_MUTATION_NONE, other);
    cr_expect_eq(first_difference(ref, other), 0, "broad phase, 1 worker: frame %d differs",
                 first_difference(ref, other));
    trace_many_bodies(3, EDDY_MUTATION_NONE, other);
    cr_expect_eq(first_difference(ref, other), 0, "broad phase, 3 workers: frame %d differs",
                 first_difference(ref, other));
    trace_many_bodies(3, EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH, other);
    cr_expect_neq(first_difference(ref, other), 0, "a broken broad phase went unnoticed");
}

Test(broadphase, forgetting_the_reach_is_caught) {
    const char *scenes[] = {"container_drop", "rotated_cube", "ball_through_smoke"};
    for (int k = 0; k < 3; ++k) {
        uint64_t with[FRAMES], broken[FRAMES];
        int bodies = 0;
        trace_scene(scenes[k], 2, 0, EDDY_MUTATION_NONE, with, &bodies);
        trace_scene(scenes[k], 2, 0, EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH, broken,
                    &bodies);
        cr_expect_neq(first_difference(with, broken), 0,
                      "%s: a broad phase without the contact distance went unnoticed", scenes[k]);
    }
}
