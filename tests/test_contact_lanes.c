/* SPDX-License-Identifier: MIT */
/* The tracer narrow phase in lanes (lib/bodies/contact_lanes.h) gives the bits of
 * the one-tracer code.
 *
 * - SIMD lanes and plain C lanes classify the same candidates the same way
 *   and give the same bits for every hit, around a rotated box (points near
 *   every face, inside, far, NaN and infinite ones) and a sphere; every class
 *   occurs, so the comparison is not empty.
 * - Every scene with bodies steps to the same frame hashes, every frame, with
 *   the lanes and with the one-tracer code for every candidate
 *   (EDDY_MUTATION_NO_CONTACT_LANES), at 1 and 3 workers for plume_plate, the
 *   scene whose tracers pool against a plate. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bodies/contact_lanes.h"
#include "core/core.h"
#include "eddy/eddy.h"
#include "scenes.h"
#include "runtime/vmath.h"
#include "test_points.h"
#include "scene_trace.h"

/* ---------------------------------------------------------------- points */
static test_rng rng = {0x2545f491u};

static float uniform(float lo, float hi) { return test_uniform(&rng, lo, hi); }

static mat3 some_rotation(void) { return test_rotation(); }

static const eddy_contact_rules rules = {0.01f, 1.0f, 4.18879e-6f, 1.5f, 0.01f * (1.0f + 1.0e-4f)};

/* A moving, spinning rotated box as lib/bodies/collide.c describes it to the lanes. */
static eddy_contact_body box_body(const eddy_shape *s, vec3 h) {
    eddy_contact_body b;
    memset(&b, 0, sizeof b);
    const mat3 r = some_rotation();
    const float x[3] = {0.3f, -0.2f, 1.0f}, v[3] = {0.1f, -0.3f, 0.2f}, w[3] = {0.5f, 1.5f, -2.0f};
    memcpy(b.x, x, sizeof x);
    memcpy(b.v, v, sizeof v);
    memcpy(b.w, w, sizeof w);
    memcpy(b.r, r.m, sizeof b.r);
    const float ball = sqrtf(v3_dot(h, h));
    b.near2 = (ball + rules.r) * (ball + rules.r);
    b.plane_count = s->plane_count;
    for (int i = 0; i < s->plane_count; ++i) {
        const vec3 n = {s->planes[i].normal.x, s->planes[i].normal.y, s->planes[i].normal.z};
        const vec3 nw = m3_mul_v(&r, n);
        memcpy(b.n[i], &n, sizeof b.n[i]);
        memcpy(b.nw[i], &nw, sizeof b.nw[i]);
        b.offset[i] = s->planes[i].offset;
    }
    return b;
}

/* World point at distance d (random in [-2r, 3r]) from a random face of the
 * box h, or (one in five) anywhere within 1.5 h of the centre. */
static vec3 point_near(const eddy_contact_body *b, vec3 h) {
    vec3 q = {uniform(-h.x, h.x), uniform(-h.y, h.y), uniform(-h.z, h.z)};
    if (uniform(0.0f, 1.0f) < 0.2f) {
        q = v3_scale(q, 1.5f);
    } else {
        const int f = (int)uniform(0.0f, 5.999f);
        const vec3 n = {b->n[f][0], b->n[f][1], b->n[f][2]};
        const float d = uniform(-2.0f * rules.r, 3.0f * rules.r);
        q = v3_add(q, v3_scale(n, b->offset[f] + d - v3_dot(n, q)));
    }
    mat3 r;
    memcpy(r.m, b->r, sizeof r.m);
    const vec3 c = {b->x[0], b->x[1], b->x[2]};
    return v3_add(c, m3_mul_v(&r, q));
}

static void fill(particle_array *a, const eddy_contact_body *b, vec3 h, int count) {
    cr_assert(eddy_particles_reserve(a, count));
    const vec3 zero = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < count; ++i) {
        const vec3 v = {uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f), uniform(-1.0f, 1.0f)};
        eddy_particles_push(a, point_near(b, h), v, zero, uniform(-0.9f, 0.5f), 0);
    }
    a->px[7] = NAN;
    a->vy[9] = NAN;
    a->pz[11] = INFINITY;
    a->vx[13] = -INFINITY;
    a->drho[15] = NAN;
}

static bool same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

/* Both builds over the candidates in batches; returns the class counts. */
static void compare_builds(const eddy_contact_body *b, const particle_array *a, const int *index,
                           int count, int seen[3]) {
    eddy_contact_out simd, plain;
    for (int from = 0; from < count; from += EDDY_CONTACT_BATCH) {
        const int n = count - from < EDDY_CONTACT_BATCH ? count - from : EDDY_CONTACT_BATCH;
        eddy_contact_tracers(b, &rules, a, index + from, n, &simd);
        eddy_contact_tracers_plain(b, &rules, a, index + from, n, &plain);
        for (int k = 0; k < n; ++k) {
            cr_assert_eq(simd.what[k], plain.what[k], "candidate %d: class %d vs %d",
                         index[from + k], simd.what[k], plain.what[k]);
            ++seen[simd.what[k]];
            if (simd.what[k] != EDDY_CONTACT_HIT) continue;
            for (int c = 0; c < 3; ++c) {
                cr_assert(same_bits(simd.x[c][k], plain.x[c][k]), "candidate %d x", index[from + k]);
                cr_assert(same_bits(simd.v[c][k], plain.v[c][k]), "candidate %d v", index[from + k]);
                cr_assert(same_bits(simd.j[c][k], plain.j[c][k]), "candidate %d j", index[from + k]);
                cr_assert(same_bits(simd.t[c][k], plain.t[c][k]), "candidate %d t", index[from + k]);
            }
        }
    }
}

Test(contact_lanes, simd_and_plain_lanes_agree_bitwise) {
    enum { N = 4001 }; /* not a multiple of 4: the last batch is short */
    const vec3 h = {0.5f, 0.25f, 0.05f};
    const eddy_shape s = eddy_shape_box((eddy_vec3){h.x, h.y, h.z});
    eddy_contact_body b = box_body(&s, h);
    particle_array a = {0};
    fill(&a, &b, h, N);
    int *index = malloc(N * sizeof *index), count = 0;
    cr_assert_not_null(index);
    for (int i = 0; i < N; ++i)
        if (i % 7 != 3) index[count++] = i; /* ascending, with gaps, as the broad phase */
    int seen[3] = {0, 0, 0};
    compare_builds(&b, &a, index, count, seen);
    cr_expect_gt(seen[EDDY_CONTACT_HIT], count / 10, "%d hits", seen[EDDY_CONTACT_HIT]);
    cr_expect_gt(seen[EDDY_CONTACT_SCALAR], count / 20, "%d left to the one-tracer code",
                 seen[EDDY_CONTACT_SCALAR]);
    cr_expect_gt(seen[EDDY_CONTACT_SKIP], count / 10, "%d skipped", seen[EDDY_CONTACT_SKIP]);
    b.sphere = true; /* a sphere: near ones are left to the one-tracer code */
    int sphere[3] = {0, 0, 0};
    compare_builds(&b, &a, index, count, sphere);
    cr_expect_eq(sphere[EDDY_CONTACT_HIT], 0);
    cr_expect_gt(sphere[EDDY_CONTACT_SCALAR], 0);
    free(index);
    eddy_particles_free(&a);
}

/* ---------------------------------------------------------------- scenes */
enum { FRAMES = TRACE_FRAMES };

Test(contact_lanes, every_body_scene_same_hashes_as_one_tracer_code, .timeout = 600) {
    expect_body_scenes_unchanged_by(EDDY_MUTATION_NO_CONTACT_LANES, "the contact lanes change");
}

/* plume_plate from frame 200, when thousands of tracers lie on the plate. */
Test(contact_lanes, plume_plate_on_the_plate_same_hashes, .timeout = 600) {
    uint64_t ref[FRAMES], other[FRAMES];
    int bodies = 0;
    trace_scene("plume_plate", 1, 200, EDDY_MUTATION_NO_CONTACT_LANES, ref, &bodies);
    cr_assert_eq(bodies, 3);
    trace_scene("plume_plate", 1, 200, EDDY_MUTATION_NONE, other, &bodies);
    cr_expect_eq(first_difference(ref, other), 0, "1 worker: frame %d differs",
                 first_difference(ref, other));
    trace_scene("plume_plate", 3, 200, EDDY_MUTATION_NONE, other, &bodies);
    cr_expect_eq(first_difference(ref, other), 0, "3 workers: frame %d differs",
                 first_difference(ref, other));
}
