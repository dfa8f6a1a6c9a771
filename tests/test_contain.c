/* SPDX-License-Identifier: MIT */
/* Containers hold the dynamic bodies inside them (lib/bodies/contain.c): a dropped
 * ball comes to rest on the floor without sinking into it, a ball sliding on
 * the floor starts rolling at 5/7 of its speed (Coulomb friction, the
 * closed form for a solid sphere), a dynamic container and the ball it holds
 * exchange momentum without creating any, boxes and balls stay inside a
 * container that is carried and turned, the buoyant_ball scene's ball stays
 * off the walls for 900 frames with either single-solve step, and a body
 * outside a container is not touched by it.
 *
 * Worlds without fluid unless stated (no vorton, no emitter): what moves the
 * bodies is gravity, Archimedes' ambient buoyancy and the walls. Reference
 * values are computed here in double; every check logs what it measured
 * (run with --verbose). The figures are in docs/coupling.md §7. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eddy/eddy.h"
#include "rigid_reference.h"
#include "scenes.h"

/* The contact checks compare with rigid-body closed forms (5/7 v0, e^2,
 * shared momentum), so the fluid's forces stay out: the seed's coupling
 * (EDDY_BODY_COUPLING_TRACERS) adds none without particles, while the
 * default flow coupling would add the ambient fluid's drag and added mass
 * (docs/coupling.md §8). The buoyant_ball check below runs the default. */
static eddy_world *make_world(int workers) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = workers;
    d.body_coupling = EDDY_BODY_COUPLING_TRACERS;
    eddy_world *w = NULL;
    const eddy_status s = eddy_world_create(&d, &w);
    cr_assert_eq(s, EDDY_OK, "create: %s (%s)", eddy_status_name(s), eddy_last_error_message());
    return w;
}

static void step_ok(eddy_world *w, const eddy_input *in) {
    const eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, EDDY_OK, "step %lld: %s (%s)", (long long)eddy_world_frame(w),
                 eddy_status_name(s), eddy_world_error_message(w));
}

static eddy_body_id add_body(eddy_world *w, const eddy_body_def *d) {
    eddy_body_id id;
    const eddy_status s = eddy_world_create_body(w, d, &id);
    cr_assert_eq(s, EDDY_OK, "create_body: %s (%s)", eddy_status_name(s),
                 eddy_world_error_message(w));
    return id;
}

static eddy_body_state state_of(const eddy_world *w, eddy_body_id id) {
    eddy_body_state st;
    cr_assert_eq(eddy_world_get_body(w, id, &st), EDDY_OK);
    return st;
}

static eddy_body_def container_def(eddy_vec3 half, eddy_body_type type, float mass) {
    eddy_body_def d = eddy_body_def_default();
    d.type = type;
    d.shape = eddy_shape_hole(eddy_shape_box(half));
    d.mass = mass;
    d.gravity = false;
    return d;
}

/* A solid body of density 4 (the ambient fluid's is 1 unless a test says). */
static eddy_body_def solid_def(eddy_shape shape, eddy_vec3 position, bool gravity) {
    eddy_body_def d = eddy_body_def_default();
    d.shape = shape;
    eddy_mass_properties mp;
    cr_assert_eq(eddy_shape_mass_properties(&shape, &mp, NULL, 0), EDDY_OK);
    d.mass = 4.0f * mp.volume;
    d.position = position;
    d.gravity = gravity;
    return d;
}

/* The smallest clearance, over the container's walls, of a body's points:
 * the distance from each wall (positive inside), in double from the reported
 * poses. A sphere's points are its centre less the radius; a polytope's are
 * its vertices (the shape's, re-centred on the centroid as eddy does). */
static double clearance(const eddy_body_state *c, const eddy_shape *cs, const eddy_body_state *b,
                        const eddy_shape *bs) {
    double rc[3][3], rb[3][3];
    quat_matrix(c->orientation, rc);
    quat_matrix(b->orientation, rb);
    eddy_vec3 verts[64];
    int n = 1;
    double radius = 0.0;
    dvec local[64] = {{0.0, 0.0, 0.0}};
    if (bs->type == EDDY_SHAPE_SPHERE) {
        radius = (double)bs->radius;
    } else {
        eddy_mass_properties mp;
        cr_assert_eq(eddy_shape_mass_properties(bs, &mp, NULL, 0), EDDY_OK);
        n = eddy_shape_vertices(bs, verts, 64);
        cr_assert(n > 0 && n <= 64);
        for (int k = 0; k < n; ++k) local[k] = dsub(dv(verts[k]), dv(mp.centroid));
    }
    double worst = INFINITY;
    for (int k = 0; k < n; ++k) {
        const dvec p = dadd(dv(b->position), mat_mul(rb, local[k]));
        const dvec q = mat_tmul(rc, dsub(p, dv(c->position)));
        for (int i = 0; i < cs->plane_count; ++i) {
            const double gap =
                (double)cs->planes[i].offset - ddot(dv(cs->planes[i].normal), q) - radius;
            if (gap < worst) worst = gap;
        }
    }
    return worst;
}

/* ================================================================ tests */

/* A ball dropped in a closed box falls 0.5 m onto the floor and stays on
 * it: at no frame's end is it behind the floor by more than rounding
 * (1e-5 m), and 60 frames after the impact it rests (|v| < 1e-4 m/s) with
 * its lowest point on the floor. Without the containment it falls through
 * the floor by 0.5 m in 30 frames. */
Test(contain, dropped_ball_rests_on_the_floor) {
    eddy_world *w = make_world(2);
    const eddy_vec3 half = {1.0f, 1.0f, 1.0f};
    const eddy_body_def cd = container_def(half, EDDY_BODY_KINEMATIC, 1.0f);
    const eddy_body_id c = add_body(w, &cd);
    const eddy_body_def bd = solid_def(eddy_shape_sphere(0.2f), (eddy_vec3){0.1f, -0.2f, -0.3f}, true);
    const eddy_body_id b = add_body(w, &bd);
    double worst = INFINITY;
    for (int f = 0; f < 120; ++f) {
        step_ok(w, NULL);
        const eddy_body_state cs = state_of(w, c), bs = state_of(w, b);
        const double gap = clearance(&cs, &cd.shape, &bs, &bd.shape);
        if (gap < worst) worst = gap;
    }
    const eddy_body_state bs = state_of(w, b);
    const double speed = sqrt(ddot(dv(bs.linear_velocity), dv(bs.linear_velocity)));
    cr_log_info("dropped ball: worst clearance %.3g m, rest z %.7f (floor + r = -0.8), |v| %.3g",
                worst, (double)bs.position.z, speed);
    cr_expect_geq(worst, -1e-5, "the ball went %.3g m into a wall", -worst);
    cr_expect_lt(fabs((double)bs.position.z + 0.8), 1e-5, "rest z %.7f", (double)bs.position.z);
    cr_expect_lt(speed, 1e-4, "still moving at %.3g m/s", speed);
    cr_expect_lt(fabs((double)bs.position.x - 0.1) + fabs((double)bs.position.y + 0.2), 1e-6,
                 "a vertical drop moved sideways");
    eddy_world_destroy(w);
}

/* A solid sphere set sliding on a floor at v0 with no spin: friction slows
 * it and spins it up until it rolls, at v = 5/7 v0 with w r = v (the
 * closed form for I = 2/5 m r^2, whatever the friction coefficient). */
Test(contain, sliding_ball_rolls_at_five_sevenths) {
    eddy_world *w = make_world(1);
    const eddy_vec3 half = {6.0f, 6.0f, 1.0f};
    const eddy_body_def cd = container_def(half, EDDY_BODY_KINEMATIC, 1.0f);
    add_body(w, &cd);
    const float r = 0.25f;
    eddy_body_def bd = solid_def(eddy_shape_sphere(r), (eddy_vec3){-4.0f, 0.0f, -1.0f + r}, true);
    bd.linear_velocity = (eddy_vec3){2.0f, 0.0f, 0.0f};
    const eddy_body_id b = add_body(w, &bd);
    for (int f = 0; f < 90; ++f) step_ok(w, NULL);
    const eddy_body_state bs = state_of(w, b);
    const double v = (double)bs.linear_velocity.x, wr = (double)bs.angular_velocity.y * (double)r;
    cr_log_info("sliding ball after 3 s: v %.5f (5/7 v0 = %.5f), w r %.5f, v_y %.3g, v_z %.3g, z %.6f",
                v, 2.0 * 5.0 / 7.0, wr, (double)bs.linear_velocity.y,
                (double)bs.linear_velocity.z, (double)bs.position.z);
    cr_expect_lt(fabs(v / (2.0 * 5.0 / 7.0) - 1.0), 0.01, "rolling speed %.5f", v);
    cr_expect_lt(fabs(wr / v - 1.0), 0.01, "w r %.5f against v %.5f: still slipping", wr, v);
    cr_expect_lt(fabs((double)bs.linear_velocity.y) + fabs((double)bs.position.y), 1e-6,
                 "the ball left its line");
    cr_expect_lt(fabs((double)bs.position.z - (-1.0 + (double)r)), 1e-5, "z %.7f", (double)bs.position.z);
    eddy_world_destroy(w);
}

/* A free dynamic container (mass 9, no gravity) and a ball (mass m) thrown
 * at its wall: the impact is inelastic, so both end at the common velocity
 * m v0 / (m + 9) along the normal, and the total momentum is what it was. */
Test(contain, dynamic_container_and_ball_share_momentum) {
    eddy_world *w = make_world(1);
    const eddy_vec3 half = {1.0f, 1.0f, 1.0f};
    const eddy_body_def cd = container_def(half, EDDY_BODY_DYNAMIC, 9.0f);
    const eddy_body_id c = add_body(w, &cd);
    eddy_body_def bd = solid_def(eddy_shape_sphere(0.2f), (eddy_vec3){0.0f, 0.0f, 0.0f}, false);
    bd.linear_velocity = (eddy_vec3){3.0f, 0.0f, 0.0f};
    const eddy_body_id b = add_body(w, &bd);
    const double m = (double)bd.mass, p0 = m * 3.0;
    for (int f = 0; f < 30; ++f) step_ok(w, NULL);
    const eddy_body_state cs = state_of(w, c), bs = state_of(w, b);
    const double px = (double)cs.linear_momentum.x + (double)bs.linear_momentum.x;
    const double common = p0 / (m + 9.0);
    cr_log_info("container and ball: P %.7f (before %.7f), v %.6f and %.6f (common %.6f), "
                "clearance %.3g",
                px, p0, (double)cs.linear_velocity.x, (double)bs.linear_velocity.x, common,
                clearance(&cs, &cd.shape, &bs, &bd.shape));
    cr_expect_lt(fabs(px / p0 - 1.0), 1e-5, "momentum %.7f against %.7f", px, p0);
    cr_expect_lt(fabs((double)bs.linear_velocity.x / common - 1.0), 1e-4, "ball %.6f",
                 (double)bs.linear_velocity.x);
    cr_expect_lt(fabs((double)cs.linear_velocity.x / common - 1.0), 1e-4, "container %.6f",
                 (double)cs.linear_velocity.x);
    cr_expect_geq(clearance(&cs, &cd.shape, &bs, &bd.shape), -1e-5);
    eddy_world_destroy(w);
}

/* A kinematic container carried along a circle and turned about two axes
 * (60 degrees), with a box, a tilted plate and a ball inside under gravity:
 * at every frame's end every vertex and the ball are inside every wall
 * (clearance >= -1e-4 m), for 600 frames; the same run at 3 workers gives
 * the same bits. */
static void run_carried(int workers, double *worst, uint64_t *hash) {
    eddy_world *w = make_world(workers);
    const eddy_vec3 half = {1.0f, 0.8f, 0.6f};
    eddy_body_def cd = container_def(half, EDDY_BODY_KINEMATIC, 1.0f);
    cd.position = (eddy_vec3){1.0f, 0.0f, 0.0f}; /* where its path starts */
    const eddy_body_id c = add_body(w, &cd);
    eddy_body_def solids[3] = {
        solid_def(eddy_shape_box((eddy_vec3){0.2f, 0.15f, 0.1f}), (eddy_vec3){0.5f, 0.0f, 0.0f}, true),
        solid_def(eddy_shape_box((eddy_vec3){0.3f, 0.2f, 0.02f}), (eddy_vec3){1.0f, 0.3f, 0.2f}, true),
        solid_def(eddy_shape_sphere(0.15f), (eddy_vec3){1.5f, -0.3f, 0.1f}, true),
    };
    solids[1].orientation = (eddy_quat){0.0f, 0.2588190f, 0.0f, 0.9659258f}; /* 30 deg about y */
    eddy_body_id ids[3];
    for (int k = 0; k < 3; ++k) ids[k] = add_body(w, &solids[k]);
    *worst = INFINITY;
    const float dt = eddy_world_get_def(w)->dt;
    for (int f = 0; f < 600; ++f) {
        /* centre on a circle of radius 1 m, period 4 s; the angle about x
         * and z swings 60 degrees with period 6 s */
        const float t = (float)(f + 1) * dt, om = 2.0f * 3.14159265f / 4.0f;
        const float ang = 0.5236f * eddy_sinf(2.0f * 3.14159265f * t / 6.0f);
        const float rate = 0.5236f * (2.0f * 3.14159265f / 6.0f) *
                           eddy_cosf(2.0f * 3.14159265f * t / 6.0f);
        const float s = eddy_sinf(0.5f * ang) * 0.7071068f, cq = eddy_cosf(0.5f * ang);
        eddy_body_command cmd;
        memset(&cmd, 0, sizeof cmd);
        cmd.body = c;
        cmd.type = EDDY_BODY_SET_KINEMATIC;
        cmd.position = (eddy_vec3){eddy_cosf(om * t), eddy_sinf(om * t), 0.0f};
        cmd.orientation = (eddy_quat){s, 0.0f, s, cq};
        cmd.linear_velocity = (eddy_vec3){-om * eddy_sinf(om * t), om * eddy_cosf(om * t), 0.0f};
        cmd.angular_velocity = (eddy_vec3){rate * 0.7071068f, 0.0f, rate * 0.7071068f};
        eddy_input in;
        memset(&in, 0, sizeof in);
        in.body_commands = &cmd;
        in.body_command_count = 1;
        step_ok(w, &in);
        const eddy_body_state cs = state_of(w, c);
        for (int k = 0; k < 3; ++k) {
            const eddy_body_state bs = state_of(w, ids[k]);
            const double gap = clearance(&cs, &cd.shape, &bs, &solids[k].shape);
            if (gap < *worst) *worst = gap;
        }
    }
    *hash = eddy_world_hash(w).frame_hash;
    eddy_world_destroy(w);
}

Test(contain, carried_and_turned_container_keeps_its_bodies, .timeout = 120) {
    double worst1, worst3;
    uint64_t h1, h3;
    run_carried(1, &worst1, &h1);
    run_carried(3, &worst3, &h3);
    cr_log_info("carried container: worst clearance %.3g m over 600 frames, hash %016llx",
                worst1, (unsigned long long)h1);
    cr_expect_geq(worst1, -1e-4, "a body went %.3g m into a wall", -worst1);
    cr_expect_eq(h1, h3, "1 and 3 workers differ: %016llx against %016llx",
                 (unsigned long long)h1, (unsigned long long)h3);
}

/* A ball outside a container, falling past its outer wall, is not held by
 * it: its path is the one it has in a world without the container, bit for
 * bit (eddy does not collide bodies with each other otherwise). */
Test(contain, a_body_outside_is_not_held) {
    eddy_vec3 end[2];
    for (int with = 0; with < 2; ++with) {
        eddy_world *w = make_world(1);
        if (with) {
            const eddy_body_def cd =
                container_def((eddy_vec3){1.0f, 1.0f, 1.0f}, EDDY_BODY_KINEMATIC, 1.0f);
            add_body(w, &cd);
        }
        const eddy_body_def bd =
            solid_def(eddy_shape_sphere(0.2f), (eddy_vec3){1.1f, 0.0f, 0.5f}, true);
        const eddy_body_id b = add_body(w, &bd);
        for (int f = 0; f < 30; ++f) step_ok(w, NULL);
        end[with] = state_of(w, b).position;
        eddy_world_destroy(w);
    }
    cr_log_info("outside ball: z %.6f without the container, %.6f with it", (double)end[0].z,
                (double)end[1].z);
    cr_expect(memcmp(&end[0], &end[1], sizeof end[0]) == 0);
    cr_expect_lt((double)end[0].z, 0.0, "the ball did not fall");
}

/* The buoyant_ball scene, 900 frames (3.75 times its own): the fluid pushes
 * the ball sideways into a wall from about frame 240. It stays inside
 * (clearance >= -1e-4 m at every frame's end) with Euler's step and with the
 * Adams-Bashforth stretching rate, with which it once left the container. */
static double buoyant_ball_worst(eddy_vorton_step step) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = 2;
    base.vorton_step = step;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("buoyant_ball", &base, &w), EDDY_OK, "%s",
                 eddy_last_error_message());
    eddy_body_id ids[2];
    cr_assert_eq(eddy_world_get_body_ids(w, ids, 2), 2);
    eddy_body_state c = state_of(w, ids[0]);
    cr_assert_eq(c.type, EDDY_BODY_KINEMATIC);
    /* the scene's container: a (1, 1, 2) box with 0.025 m clearance on every
     * side (scenes/scenes_bodies.c, container_half_extents) */
    const eddy_shape container =
        eddy_shape_hole(eddy_shape_box((eddy_vec3){0.525f, 0.525f, 1.025f}));
    double worst = INFINITY;
    const eddy_shape ball = eddy_shape_sphere(0.2f);
    for (int f = 0; f < 900; ++f) {
        eddy_scene_input si;
        step_ok(w, eddy_scene_input_for("buoyant_ball", f, &si));
        const eddy_body_state cs = state_of(w, ids[0]), bs = state_of(w, ids[1]);
        const double gap = clearance(&cs, &container, &bs, &ball);
        if (gap < worst) worst = gap;
    }
    eddy_world_destroy(w);
    return worst;
}

Test(contain, buoyant_ball_stays_inside, .timeout = 300) {
    const double euler = buoyant_ball_worst(EDDY_VORTON_STEP_EULER);
    const double ab2 = buoyant_ball_worst(EDDY_VORTON_STEP_STRETCH_AB2);
    cr_log_info("buoyant_ball, 900 frames: worst clearance %.3g m (Euler), %.3g m (AB2 stretching)",
                euler, ab2);
    cr_expect_geq(euler, -1e-4);
    cr_expect_geq(ab2, -1e-4);
}

/* Restitution e: a ball dropped 1 m above its resting height bounces back
 * to e^2 of it (e = 0.8: 0.64 m; measured 0.6825, +6.6 %: the impulse
 * reverses the speed at the end of the substep in which the ball reached
 * the floor, which includes that substep's g dt, 0.25 m/s against 3.8 m/s
 * at impact; bound 8 %); with the default e = 0 it
 * does not leave the floor. The pair uses the larger restitution, so the
 * container's own e = 0.8 bounces a default ball as well. */
static double bounce_height(float ball_e, float container_e) {
    eddy_world *w = make_world(1);
    eddy_body_def cd = container_def((eddy_vec3){1.0f, 1.0f, 2.0f}, EDDY_BODY_KINEMATIC, 1.0f);
    cd.restitution = container_e;
    add_body(w, &cd);
    eddy_body_def bd = solid_def(eddy_shape_sphere(0.2f), (eddy_vec3){0.0f, 0.0f, -0.8f}, true);
    bd.restitution = ball_e;
    const eddy_body_id b = add_body(w, &bd);
    double apex = -INFINITY;
    bool fell = false;
    for (int f = 0; f < 150; ++f) {
        step_ok(w, NULL);
        const eddy_body_state s = state_of(w, b);
        if (!fell && s.linear_velocity.z > 0.0f) fell = true; /* the first bounce */
        if (fell && (double)s.position.z > apex) apex = (double)s.position.z;
        if (fell && s.linear_velocity.z < 0.0f) break; /* past the first apex */
    }
    eddy_world_destroy(w);
    return fell ? apex - (-1.8) : 0.0; /* above the resting height z = -2 + 0.2 */
}

Test(contain, restitution_bounces_to_e_squared) {
    const double h8 = bounce_height(0.8f, 0.0f), h8c = bounce_height(0.0f, 0.8f);
    const double h0 = bounce_height(0.0f, 0.0f);
    cr_log_info("bounce from 1 m: e 0.8 %.4f m (e^2 = 0.64), container's e 0.8 %.4f m, e 0 %.4g m",
                h8, h8c, h0);
    cr_expect_lt(fabs(h8 / 0.64 - 1.0), 0.08, "e 0.8 bounced to %.4f m", h8);
    cr_expect_eq(h8, h8c, "the pair's restitution is the larger one");
    cr_expect_lt(h0, 1e-3, "e 0 bounced to %.4g m", h0);
}

/* Friction 0 on either side: a ball set sliding keeps its velocity bit for
 * bit and never spins. */
Test(contain, frictionless_ball_slides_without_spinning) {
    eddy_world *w = make_world(1);
    const eddy_body_def cd = container_def((eddy_vec3){6.0f, 6.0f, 1.0f}, EDDY_BODY_KINEMATIC, 1.0f);
    add_body(w, &cd);
    eddy_body_def bd = solid_def(eddy_shape_sphere(0.25f), (eddy_vec3){-4.0f, 0.0f, -0.75f}, true);
    bd.linear_velocity = (eddy_vec3){2.0f, 0.0f, 0.0f};
    bd.friction = 0.0f;
    const eddy_body_id b = add_body(w, &bd);
    for (int f = 0; f < 90; ++f) step_ok(w, NULL);
    const eddy_body_state s = state_of(w, b);
    cr_log_info("frictionless ball after 3 s: v_x %.7f, w_y %.3g", (double)s.linear_velocity.x,
                (double)s.angular_velocity.y);
    cr_expect(s.linear_velocity.x == 2.0f && s.angular_velocity.y == 0.0f);
    eddy_world_destroy(w);
}

/* Friction and restitution outside their ranges, or not finite, are
 * refused with a message naming the field, and the world keeps its bodies. */
Test(contain, materials_are_validated) {
    eddy_world *w = make_world(1);
    static const struct {
        float friction, restitution;
        eddy_status status;
        const char *field;
    } bad[] = {
        {-0.5f, 0.0f, EDDY_ERROR_INVALID_DEF, "friction"},
        {EDDY_MAX_FRICTION * 2.0f, 0.0f, EDDY_ERROR_INVALID_DEF, "friction"},
        {0.5f, 1.5f, EDDY_ERROR_INVALID_DEF, "restitution"},
        {0.5f, -0.25f, EDDY_ERROR_INVALID_DEF, "restitution"},
        {NAN, 0.0f, EDDY_ERROR_NAN, "NaN"},
        {0.5f, INFINITY, EDDY_ERROR_NAN, "NaN"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        eddy_body_def d = eddy_body_def_default();
        d.friction = bad[k].friction;
        d.restitution = bad[k].restitution;
        eddy_body_id id = {0, 0};
        cr_expect_eq(eddy_world_create_body(w, &d, &id), bad[k].status, "case %zu", k);
        cr_expect(strstr(eddy_world_error_message(w), bad[k].field) != NULL, "case %zu: %s", k,
                  eddy_world_error_message(w));
        cr_expect_eq(eddy_world_body_count(w), 0);
    }
    eddy_body_def edge = eddy_body_def_default();
    edge.friction = EDDY_MAX_FRICTION;
    edge.restitution = 1.0f;
    eddy_body_id id;
    cr_expect_eq(eddy_world_create_body(w, &edge, &id), EDDY_OK, "%s", eddy_world_error_message(w));
    eddy_world_destroy(w);
}
