/* SPDX-License-Identifier: MIT */
/* Rigid bodies on their own (no fluid, or no particle anywhere near a body):
 * generation-checked ids, definition validation, the D9 integrator against
 * closed forms (free fall with Archimedes, torque-free spin, constant torque,
 * impulses), kinematic bodies, the world-frame inverse inertia, input forces
 * over substeps, the bodies component of the hash and the ids of bodies
 * created through the input.
 *
 * Reference values are computed here in double with libm (a test's
 * arithmetic never feeds eddy's state). Tolerances are stated next to each
 * check; every check logs what it measured (run with --verbose). Only the
 * public API is used. The measured values are in docs/coupling.md §4. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "rigid_reference.h"

#define PI 3.14159265358979323846
#define D(x) ((double)(x))

/* ================================================================ helpers */

/* These tests check the rigid-body integrator against closed forms with no
 * fluid particles: the seed's coupling (EDDY_BODY_COUPLING_TRACERS) adds
 * nothing then, while the default flow coupling would add the ambient
 * fluid's added mass and drag (test_flow.c checks those). */
static eddy_world_def body_world_def(void) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 1;
    d.body_coupling = EDDY_BODY_COUPLING_TRACERS;
    return d;
}

static eddy_world *make_world(const eddy_world_def *def) {
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(def, &w);
    cr_assert_eq(s, EDDY_OK, "create: %s (%s)", eddy_status_name(s), eddy_last_error_message());
    cr_assert_not_null(w);
    return w;
}

static void step_ok(eddy_world *w, const eddy_input *in) {
    eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, EDDY_OK, "step %lld: %s (%s)", (long long)eddy_world_frame(w),
                 eddy_status_name(s), eddy_world_error_message(w));
}

static eddy_body_id add_body(eddy_world *w, const eddy_body_def *d) {
    eddy_body_id id;
    eddy_status s = eddy_world_create_body(w, d, &id);
    cr_assert_eq(s, EDDY_OK, "create_body: %s (%s)", eddy_status_name(s),
                 eddy_world_error_message(w));
    cr_assert_gt(id.index1, 0);
    return id;
}

static eddy_body_state body_state(const eddy_world *w, eddy_body_id id) {
    eddy_body_state st;
    eddy_status s = eddy_world_get_body(w, id, &st);
    cr_assert_eq(s, EDDY_OK, "get_body(%d,%u): %s", id.index1, (unsigned)id.generation,
                 eddy_status_name(s));
    return st;
}

static eddy_input input_of(const eddy_body_command *c, int n) {
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.body_commands = c;
    in.body_command_count = n;
    return in;
}

static eddy_body_command command(eddy_body_id id, eddy_body_command_type type) {
    eddy_body_command c;
    memset(&c, 0, sizeof c);
    c.body = id;
    c.type = type;
    c.orientation = (eddy_quat){0.0f, 0.0f, 0.0f, 1.0f};
    return c;
}

/* A body that only the input moves: no gravity. */
static eddy_body_def free_body_def(eddy_shape shape, float mass) {
    eddy_body_def d = eddy_body_def_default();
    d.shape = shape;
    d.mass = mass;
    d.gravity = false;
    return d;
}

/* Principal moments of a solid box of mass m and half extents h:
 * I_x = m (h_y^2 + h_z^2) / 3, ... */
static dvec box_inertia(eddy_vec3 h, double m) {
    const dvec e = dv(h);
    return (dvec){m * (e.y * e.y + e.z * e.z) / 3.0, m * (e.x * e.x + e.z * e.z) / 3.0,
                  m * (e.x * e.x + e.y * e.y) / 3.0};
}

/* I_w^-1 L = R I_b^-1 R^T L, from the reported orientation. */
static dvec world_inv_inertia_mul(eddy_quat q, dvec principal, dvec l) {
    double r[3][3];
    quat_matrix(q, r);
    dvec b = mat_tmul(r, l);
    b = (dvec){b.x / principal.x, b.y / principal.y, b.z / principal.z};
    return mat_mul(r, b);
}

/* I_w omega = R I_b R^T omega. */
static dvec world_inertia_mul(eddy_quat q, dvec principal, dvec w) {
    double r[3][3];
    quat_matrix(q, r);
    dvec b = mat_tmul(r, w);
    b = (dvec){b.x * principal.x, b.y * principal.y, b.z * principal.z};
    return mat_mul(r, b);
}

static eddy_quat quat_normalized(double x, double y, double z, double w) {
    const double n = sqrt(x * x + y * y + z * z + w * w);
    return (eddy_quat){(float)(x / n), (float)(y / n), (float)(z / n), (float)(w / n)};
}

static bool hash_equal_component(eddy_frame_hash a, eddy_frame_hash b, eddy_component c) {
    return a.component[c] == b.component[c];
}

/* ================================================================ ids */

/* Destroying a body through the input makes its id stale: the query and
 * every command naming it fail with NOT_FOUND (and the failing input changes
 * nothing); the slot is reused by the next body with a new generation. */
Test(body_ids, generation_checked) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    eddy_body_def d = free_body_def(eddy_shape_sphere(0.25f), 1.0f);
    d.position = (eddy_vec3){-2.0f, 0.0f, 0.0f};
    const eddy_body_id a = add_body(w, &d);
    d.position = (eddy_vec3){2.0f, 0.0f, 0.0f};
    const eddy_body_id b = add_body(w, &d);
    cr_assert_neq(a.index1, b.index1);
    cr_assert_eq(eddy_world_body_count(w), 2);

    const eddy_body_command kill = command(a, EDDY_BODY_DESTROY);
    eddy_input in = input_of(&kill, 1);
    step_ok(w, &in);
    eddy_body_state st;
    cr_assert_eq(eddy_world_get_body(w, a, &st), EDDY_ERROR_NOT_FOUND);
    cr_assert_eq(eddy_world_body_count(w), 1);
    body_state(w, b); /* the other one is untouched */

    /* Every kind of command naming the stale id is refused, and the step
     * that carried it did not happen. */
    const eddy_body_command_type kinds[] = {EDDY_BODY_DESTROY, EDDY_BODY_FORCE, EDDY_BODY_TORQUE,
                                            EDDY_BODY_IMPULSE, EDDY_BODY_ANGULAR_IMPULSE,
                                            EDDY_BODY_SET_KINEMATIC};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        const int64_t frame = eddy_world_frame(w);
        eddy_body_command c[2] = {command(b, EDDY_BODY_FORCE), command(a, kinds[k])};
        c[0].vector = (eddy_vec3){1.0f, 0.0f, 0.0f};
        in = input_of(c, 2);
        const eddy_status s = eddy_world_step(w, &in);
        cr_assert_eq(s, EDDY_ERROR_NOT_FOUND, "command type %d on a stale id: %s", (int)kinds[k],
                     eddy_status_name(s));
        cr_assert_eq(eddy_world_frame(w), frame, "a refused input must not step");
        cr_assert_eq(body_state(w, b).linear_velocity.x, 0.0f,
                     "the valid command of a refused input must not apply");
        cr_assert(strstr(eddy_world_error_message(w), "stale") != NULL ||
                      strstr(eddy_world_error_message(w), "unknown") != NULL,
                  "message: %s", eddy_world_error_message(w));
    }
    /* An id that never existed. */
    const eddy_body_id bogus = {b.index1 + 5, 1};
    cr_assert_eq(eddy_world_get_body(w, bogus, &st), EDDY_ERROR_NOT_FOUND);
    const eddy_body_id null_id = {0, 0};
    cr_assert_eq(eddy_world_get_body(w, null_id, &st), EDDY_ERROR_NOT_FOUND);

    /* Slot reuse: a new body takes a's slot with another generation. */
    eddy_body_command create = command((eddy_body_id){0, 0}, EDDY_BODY_CREATE);
    create.def = d;
    create.def.position = (eddy_vec3){0.0f, 3.0f, 0.0f};
    in = input_of(&create, 1);
    step_ok(w, &in);
    eddy_body_id c;
    cr_assert_eq(eddy_world_created_bodies(w, &c, 1), 1);
    cr_log_info("ids: a = (%d, %u), b = (%d, %u), reused slot = (%d, %u)", a.index1,
                (unsigned)a.generation, b.index1, (unsigned)b.generation, c.index1,
                (unsigned)c.generation);
    cr_assert_eq(c.index1, a.index1, "the lowest free slot is reused");
    cr_assert_neq(c.generation, a.generation, "a reused slot gets a new generation");
    cr_assert_eq(eddy_world_get_body(w, a, &st), EDDY_ERROR_NOT_FOUND,
                 "the old id stays stale after its slot is reused");
    st = body_state(w, c);
    cr_assert_float_eq(st.position.y, 3.0f, 1e-6f);
    /* Commands with the old id still fail, with the new id they work. */
    eddy_body_command f = command(a, EDDY_BODY_FORCE);
    in = input_of(&f, 1);
    cr_assert_eq(eddy_world_step(w, &in), EDDY_ERROR_NOT_FOUND);
    f.body = c;
    step_ok(w, &in);
    eddy_body_id ids[4];
    cr_assert_eq(eddy_world_get_body_ids(w, ids, 4), 2);
    cr_assert(ids[0].index1 < ids[1].index1, "ids are listed in slot order");
    eddy_world_destroy(w);
}

/* ================================================================ validation */

typedef struct bad_def_case {
    const char *what;
    eddy_status status;
    const char *word; /* the message must name the problem */
} bad_def_case;

static eddy_body_def bad_def(int k) {
    eddy_body_def d = eddy_body_def_default();
    switch (k) {
    case 0: d.mass = 0.0f; break;
    case 1: d.mass = -2.0f; break;
    case 2: d.mass = NAN; break;
    case 3: d.position.y = NAN; break;
    case 4: d.linear_velocity.z = INFINITY; break;
    case 5: d.orientation = (eddy_quat){0.0f, 0.0f, 0.0f, 0.0f}; break;
    case 6: d.orientation = (eddy_quat){3.0f, 0.0f, 0.0f, 3.0f}; break;
    case 7: d.orientation.x = NAN; break;
    case 8: d.shape = eddy_shape_sphere(-1.0f); break;
    case 9: d.shape = eddy_shape_sphere(0.0f); break;
    case 10: /* open polytope: only three planes */
        d.shape.type = EDDY_SHAPE_POLYTOPE;
        d.shape.plane_count = 3;
        d.shape.planes[0] = (eddy_plane){{1.0f, 0.0f, 0.0f}, 1.0f};
        d.shape.planes[1] = (eddy_plane){{0.0f, 1.0f, 0.0f}, 1.0f};
        d.shape.planes[2] = (eddy_plane){{0.0f, 0.0f, 1.0f}, 1.0f};
        break;
    case 11: /* a box with a NaN plane offset */
        d.shape = eddy_shape_box((eddy_vec3){0.5f, 0.5f, 0.5f});
        d.shape.planes[2].offset = NAN;
        break;
    default: break;
    }
    return d;
}

static const bad_def_case k_bad[] = {
    {"mass 0", EDDY_ERROR_INVALID_DEF, "mass"},
    {"mass -2", EDDY_ERROR_INVALID_DEF, "mass"},
    {"mass NaN", EDDY_ERROR_NAN, "NaN"},
    {"position NaN", EDDY_ERROR_NAN, "NaN"},
    {"velocity inf", EDDY_ERROR_NAN, "NaN"},
    {"zero quaternion", EDDY_ERROR_INVALID_DEF, "quaternion"},
    {"quaternion of norm 18", EDDY_ERROR_INVALID_DEF, "quaternion"},
    {"quaternion NaN", EDDY_ERROR_NAN, "NaN"},
    {"sphere radius -1", EDDY_ERROR_INVALID_DEF, "shape"},
    {"sphere radius 0", EDDY_ERROR_INVALID_DEF, "shape"},
    {"open polytope", EDDY_ERROR_INVALID_DEF, "shape"},
    {"polytope NaN offset", EDDY_ERROR_NAN, "shape"},
};

/* Each bad field, before the first step (eddy_world_create_body) and through
 * the input (EDDY_BODY_CREATE): the status, a message naming the problem,
 * no body created, no step taken. */
Test(body_def, validation_names_the_problem) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    const int n = (int)(sizeof k_bad / sizeof k_bad[0]);
    for (int k = 0; k < n; ++k) {
        const eddy_body_def d = bad_def(k);
        eddy_body_id id = {7, 7};
        const eddy_status s = eddy_world_create_body(w, &d, &id);
        const char *msg = eddy_world_error_message(w);
        cr_log_info("%-24s -> %s: %s", k_bad[k].what, eddy_status_name(s), msg);
        cr_expect_eq(s, k_bad[k].status, "%s: got %s", k_bad[k].what, eddy_status_name(s));
        cr_expect(strstr(msg, k_bad[k].word) != NULL, "%s: message '%s' should name '%s'",
                  k_bad[k].what, msg, k_bad[k].word);
        cr_expect_eq(id.index1, 0, "%s: no id on failure", k_bad[k].what);
        cr_expect_eq(eddy_world_body_count(w), 0, "%s: nothing created", k_bad[k].what);
    }
    /* An uninitialised def (not from eddy_body_def_default) is refused too. */
    eddy_body_def raw;
    memset(&raw, 0, sizeof raw);
    raw.mass = 1.0f;
    raw.orientation.w = 1.0f;
    raw.shape = eddy_shape_sphere(1.0f);
    eddy_body_id id;
    cr_expect_eq(eddy_world_create_body(w, &raw, &id), EDDY_ERROR_INVALID_DEF);
    cr_expect_eq(eddy_world_body_count(w), 0);

    /* Through the input, after the first step. */
    const eddy_body_def good = free_body_def(eddy_shape_sphere(0.2f), 1.0f);
    add_body(w, &good);
    step_ok(w, NULL);
    for (int k = 0; k < n; ++k) {
        eddy_body_command c[2] = {command((eddy_body_id){0, 0}, EDDY_BODY_CREATE),
                                  command((eddy_body_id){0, 0}, EDDY_BODY_CREATE)};
        c[0].def = good; /* a valid create before the bad one must not happen either */
        c[1].def = bad_def(k);
        const eddy_input in = input_of(c, 2);
        const int64_t frame = eddy_world_frame(w);
        const eddy_status s = eddy_world_step(w, &in);
        const char *msg = eddy_world_error_message(w);
        cr_expect_eq(s, k_bad[k].status, "input %s: got %s", k_bad[k].what, eddy_status_name(s));
        cr_expect(strstr(msg, k_bad[k].word) != NULL, "input %s: message '%s' should name '%s'",
                  k_bad[k].what, msg, k_bad[k].word);
        cr_expect(strstr(msg, "command 1") != NULL, "input %s: message '%s' should name command 1",
                  k_bad[k].what, msg);
        cr_expect_eq(eddy_world_frame(w), frame, "input %s: no step", k_bad[k].what);
        cr_expect_eq(eddy_world_body_count(w), 1, "input %s: nothing created", k_bad[k].what);
    }
    eddy_world_destroy(w);
}

/* ================================================================ free fall */

/* No particles, so no density grid: the fluid around the body is the ambient
 * rho0 and buoyancy is Archimedes' rho0 V g. Net acceleration
 * a = g (1 - rho0 V / m). The integrator (p1 = p0 + F dt, x += dt (p0+p1)/2m)
 * is exact for a constant force, so x(t) = x0 + v0 t + a t^2 / 2 up to float
 * rounding. rho0 = 0.8 (not 1) so that a wrong density would show. */
Test(body_dynamics, free_fall_with_archimedes) {
    eddy_world_def def = body_world_def();
    def.ambient_density = 0.8f;
    def.gravity = (eddy_vec3){0.0f, 0.0f, -9.0f};
    eddy_world *w = make_world(&def);
    const double R = 0.5, m = 2.0, rho0 = 0.8, g = -9.0;
    eddy_body_def d = eddy_body_def_default(); /* gravity on */
    d.shape = eddy_shape_sphere((float)R);
    d.mass = (float)m;
    d.position = (eddy_vec3){1.0f, -2.0f, 3.0f};
    d.linear_velocity = (eddy_vec3){1.5f, 0.0f, 2.0f};
    const eddy_body_id id = add_body(w, &d);
    const double V = 4.0 / 3.0 * PI * R * R * R;
    const eddy_body_state s0 = body_state(w, id);
    cr_assert_float_eq((double)s0.volume, V, 1e-6 * V, "sphere volume %.9g vs %.9g",
                       (double)s0.volume, V);
    const double a = g * (1.0 - rho0 * V / m);
    const int frames = 30;
    double worst_x = 0.0, worst_v = 0.0;
    for (int f = 1; f <= frames; ++f) {
        step_ok(w, NULL);
        const double t = f * (double)def.dt;
        const eddy_body_state st = body_state(w, id);
        const dvec x_ref = {1.0 + 1.5 * t, -2.0, 3.0 + 2.0 * t + 0.5 * a * t * t};
        const dvec v_ref = {1.5, 0.0, 2.0 + a * t};
        const double ex = ddist(dv(st.position), x_ref), ev = ddist(dv(st.linear_velocity), v_ref);
        worst_x = ex > worst_x ? ex : worst_x;
        worst_v = ev > worst_v ? ev : worst_v;
    }
    const eddy_body_state st = body_state(w, id);
    cr_log_info("free fall: a = %.6f m/s^2 (g(1 - rho0 V/m)); after %d frames z = %.7f, "
                "v_z = %.7f; max |x - x_ref| = %.2e, max |v - v_ref| = %.2e",
                a, frames, D(st.position.z), D(st.linear_velocity.z), worst_x, worst_v);
    /* float: positions of size ~5 after 30 roundings -> ~1e-5 at worst. */
    cr_expect_lt(worst_x, 2e-5, "position off the exact parabola by %.3e", worst_x);
    cr_expect_lt(worst_v, 2e-5, "velocity off v0 + a t by %.3e", worst_v);
    /* and it is not plain g (a buoyancy-free integrator would be off by ~0.3 m) */
    cr_expect_gt(fabs(D(st.position.z) - (3.0 + 2.0 + 0.5 * g)), 0.1);
    cr_assert_float_eq(D(st.linear_momentum.z), m * D(st.linear_velocity.z), 1e-5);
    eddy_world_destroy(w);
}

/* ================================================================ spin */

/* Torque-free tumbling of an asymmetric box spun mostly about its
 * intermediate axis (the unstable one: omega changes a lot). With no torque
 * the integrator's L1 = L0 + 0 dt keeps the world-frame angular momentum
 * exactly; the kinetic energy 1/2 omega . L depends on the orientation,
 * which the explicit first-order quaternion update only approximates: the
 * energy drifts (upward) by O(omega dt) relative per unit time.
 * Measured when written (box 0.5x0.3x0.1, omega 1 rad/s, 300 frames): 4.4%
 * with 1 substep, 1.0% with 4; at 3 rad/s the same tumble gains 122% (see
 * docs/coupling.md), which is why the state tolerance is stated for a slow
 * spin and the convergence with substeps is checked too. */
typedef struct spin_run {
    double worst_l, worst_e, max_dw;
} spin_run;

static spin_run torque_free_run(int substeps, int frames) {
    eddy_world_def def = body_world_def();
    def.substeps = substeps;
    eddy_world *w = make_world(&def);
    const eddy_vec3 half = {0.5f, 0.3f, 0.1f};
    const double m = 1.5;
    eddy_body_def d = free_body_def(eddy_shape_box(half), (float)m);
    d.orientation = quat_normalized(0.1, -0.2, 0.3, 0.9);
    /* body-frame spin (0.05, 1, 0.1): mostly about the intermediate axis y */
    double rot[3][3];
    quat_matrix(d.orientation, rot);
    const dvec wb = mat_mul(rot, (dvec){0.05, 1.0, 0.1});
    d.angular_velocity = (eddy_vec3){(float)wb.x, (float)wb.y, (float)wb.z};
    const eddy_body_id id = add_body(w, &d);
    const eddy_body_state s0 = body_state(w, id);
    const dvec L0 = dv(s0.angular_momentum);
    const double E0 = 0.5 * ddot(dv(s0.angular_velocity), L0);
    spin_run r = {0.0, 0.0, 0.0};
    for (int f = 1; f <= frames; ++f) {
        step_ok(w, NULL);
        const eddy_body_state st = body_state(w, id);
        const double el = ddist(dv(st.angular_momentum), L0) / dnorm(L0);
        const double e = 0.5 * ddot(dv(st.angular_velocity), dv(st.angular_momentum));
        const double ee = fabs(e - E0) / E0;
        const double dw = ddist(dv(st.angular_velocity), dv(s0.angular_velocity));
        r.worst_l = el > r.worst_l ? el : r.worst_l;
        r.worst_e = ee > r.worst_e ? ee : r.worst_e;
        r.max_dw = dw > r.max_dw ? dw : r.max_dw;
    }
    eddy_world_destroy(w);
    return r;
}

Test(body_dynamics, torque_free_spin_conserves_l_and_energy) {
    const int frames = 300;
    const spin_run a = torque_free_run(1, frames), b = torque_free_run(4, frames);
    cr_log_info("torque-free box (half 0.5x0.3x0.1, 1 rad/s about the intermediate axis), %d "
                "frames: max |dL|/|L| = %.2e, max |dE|/E = %.2e (1 substep), %.2e (4 substeps), "
                "max |omega - omega0| = %.3f rad/s",
                frames, a.worst_l, a.worst_e, b.worst_e, a.max_dw);
    cr_expect_lt(a.worst_l, 1e-6, "angular momentum must be kept (no torque): %.3e", a.worst_l);
    cr_expect_lt(b.worst_l, 1e-6, "angular momentum must be kept (no torque): %.3e", b.worst_l);
    cr_expect_lt(a.worst_e, 0.08, "kinetic energy drift %.3e (4.4%% when written)", a.worst_e);
    cr_expect_lt(b.worst_e, 0.4 * a.worst_e,
                 "the drift is an integration error: 4 substeps must cut it (first order: x4), "
                 "%.3e vs %.3e", b.worst_e, a.worst_e);
    cr_expect_gt(a.max_dw, 0.3, "the box should tumble (omega not constant), max change %.3f",
                 a.max_dw);
}

/* A constant torque about a principal axis from rest: omega = tau t / I,
 * and nothing about the other axes. */
Test(body_dynamics, constant_torque_about_principal_axis) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    const eddy_vec3 half = {0.5f, 0.3f, 0.1f};
    const double m = 2.0;
    const eddy_body_def d = free_body_def(eddy_shape_box(half), (float)m);
    const eddy_body_id b = add_body(w, &d);
    const dvec I = box_inertia(half, m);
    const double tau = 0.5;
    const int frames = 30;
    for (int f = 1; f <= frames; ++f) {
        eddy_body_command c = command(b, EDDY_BODY_TORQUE);
        c.vector = (eddy_vec3){0.0f, 0.0f, (float)tau};
        const eddy_input in = input_of(&c, 1);
        step_ok(w, &in);
    }
    const double t = frames * (double)def.dt;
    const eddy_body_state st = body_state(w, b);
    const double expect = tau * t / I.z;
    cr_log_info("constant torque %.2f N m about z for %.3f s, I_z = %.6f: omega_z = %.6f "
                "(tau t / I = %.6f), L_z = %.6f, omega_xy = (%.2e, %.2e)",
                tau, t, I.z, D(st.angular_velocity.z), expect, D(st.angular_momentum.z),
                D(st.angular_velocity.x), D(st.angular_velocity.y));
    cr_expect_float_eq(st.angular_momentum.z, tau * t, 1e-5 * tau * t);
    cr_expect_float_eq(st.angular_velocity.z, expect, 2e-5 * expect);
    cr_expect_lt(fabs(D(st.angular_velocity.x)) + fabs(D(st.angular_velocity.y)), 1e-6);
    /* no force: the centre does not move */
    cr_expect_lt(dnorm(dv(st.position)), 1e-7);
    eddy_world_destroy(w);
}

/* ================================================================ impulses */

/* An impulse j at world point P changes p by j and L by (P - x) x j (x the
 * centre before the step: commands apply before integration). */
Test(body_dynamics, impulse_at_point) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    const eddy_vec3 half = {0.4f, 0.25f, 0.15f};
    const double m = 0.7;
    eddy_body_def d = free_body_def(eddy_shape_box(half), (float)m);
    d.position = (eddy_vec3){1.0f, 2.0f, 3.0f};
    d.orientation = quat_normalized(0.3, 0.1, -0.4, 0.8);
    d.linear_velocity = (eddy_vec3){0.2f, -0.1f, 0.05f};
    d.angular_velocity = (eddy_vec3){0.3f, 0.2f, -0.1f};
    const eddy_body_id id = add_body(w, &d);
    step_ok(w, NULL);
    const eddy_body_state s0 = body_state(w, id);
    eddy_body_command c = command(id, EDDY_BODY_IMPULSE);
    c.vector = (eddy_vec3){0.3f, -0.2f, 0.5f};
    c.point = (eddy_vec3){s0.position.x + 0.1f, s0.position.y + 0.4f, s0.position.z - 0.2f};
    eddy_body_command c2 = command(id, EDDY_BODY_ANGULAR_IMPULSE);
    c2.vector = (eddy_vec3){0.0f, 0.05f, 0.0f};
    const eddy_body_command cs[2] = {c, c2};
    const eddy_input in = input_of(cs, 2);
    step_ok(w, &in);
    const eddy_body_state s1 = body_state(w, id);
    const dvec j = dv(c.vector);
    const dvec arm = dsub(dv(c.point), dv(s0.position));
    const dvec dp = dsub(dv(s1.linear_momentum), dv(s0.linear_momentum));
    const dvec dl = dsub(dv(s1.angular_momentum), dv(s0.angular_momentum));
    const dvec dl_ref = dadd(dcross(arm, j), dv(c2.vector));
    cr_log_info("impulse j = (%.2f, %.2f, %.2f) at arm (%.3f, %.3f, %.3f): dp = (%.6f, %.6f, "
                "%.6f), dL = (%.6f, %.6f, %.6f), expected dL = (%.6f, %.6f, %.6f)",
                j.x, j.y, j.z, arm.x, arm.y, arm.z, dp.x, dp.y, dp.z, dl.x, dl.y, dl.z, dl_ref.x,
                dl_ref.y, dl_ref.z);
    cr_expect_lt(ddist(dp, j), 1e-6, "dp - j = %.3e", ddist(dp, j));
    cr_expect_lt(ddist(dl, dl_ref), 1e-6, "dL - (arm x j + J) = %.3e", ddist(dl, dl_ref));
    cr_expect_lt(ddist(dv(s1.linear_velocity), dscale(dv(s1.linear_momentum), 1.0 / m)), 1e-6);
    eddy_world_destroy(w);
}

/* ================================================================ kinematic */

/* Kinematic bodies ignore gravity, forces, torques and impulses; they move
 * with the velocity they were given, and SET_KINEMATIC replaces pose and
 * velocities. */
Test(body_kinematic, ignores_forces_and_moves_by_velocity) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    eddy_body_def d = eddy_body_def_default(); /* gravity on: must not matter */
    d.type = EDDY_BODY_KINEMATIC;
    d.shape = eddy_shape_box((eddy_vec3){0.5f, 0.5f, 0.5f});
    d.position = (eddy_vec3){0.0f, 1.0f, 2.0f};
    d.linear_velocity = (eddy_vec3){1.0f, 0.0f, -0.5f};
    d.angular_velocity = (eddy_vec3){0.0f, 0.0f, 0.6f};
    const eddy_body_id id = add_body(w, &d);
    const int frames = 15;
    for (int f = 0; f < frames; ++f) {
        eddy_body_command c[4] = {command(id, EDDY_BODY_FORCE), command(id, EDDY_BODY_TORQUE),
                                  command(id, EDDY_BODY_IMPULSE),
                                  command(id, EDDY_BODY_ANGULAR_IMPULSE)};
        c[0].vector = (eddy_vec3){100.0f, 0.0f, 0.0f};
        c[1].vector = (eddy_vec3){0.0f, 50.0f, 0.0f};
        c[2].vector = (eddy_vec3){0.0f, 10.0f, 0.0f};
        c[2].point = (eddy_vec3){1.0f, 1.0f, 1.0f};
        c[3].vector = (eddy_vec3){5.0f, 0.0f, 0.0f};
        const eddy_input in = input_of(c, 4);
        step_ok(w, &in);
    }
    const double t = frames * (double)def.dt;
    eddy_body_state st = body_state(w, id);
    const dvec x_ref = {t, 1.0, 2.0 - 0.5 * t};
    /* rotation about z by 0.6 t: q = (0, 0, sin(th/2), cos(th/2)) */
    const double th = 0.6 * t;
    const double qerr = fabs(D(st.orientation.z) - sin(th / 2)) +
                        fabs(D(st.orientation.w) - cos(th / 2)) + fabs(D(st.orientation.x)) +
                        fabs(D(st.orientation.y));
    cr_log_info("kinematic after %d frames: x = (%.6f, %.6f, %.6f) (ref %.6f, %.6f, %.6f), "
                "v = (%.3f, %.3f, %.3f), omega_z = %.3f, |q - q_ref|_1 = %.2e",
                frames, D(st.position.x), D(st.position.y), D(st.position.z), x_ref.x, x_ref.y,
                x_ref.z, D(st.linear_velocity.x), D(st.linear_velocity.y),
                D(st.linear_velocity.z), D(st.angular_velocity.z), qerr);
    cr_expect_lt(ddist(dv(st.position), x_ref), 1e-5);
    cr_expect_lt(ddist(dv(st.linear_velocity), dv(d.linear_velocity)), 1e-7);
    cr_expect_lt(ddist(dv(st.angular_velocity), dv(d.angular_velocity)), 1e-7);
    cr_expect_lt(qerr, 1e-3, "orientation follows the angular velocity");

    /* SET_KINEMATIC: new pose and velocities, then moves by the new velocity. */
    eddy_body_command k = command(id, EDDY_BODY_SET_KINEMATIC);
    k.position = (eddy_vec3){5.0f, 5.0f, 5.0f};
    k.orientation = quat_normalized(0.0, 1.0, 0.0, 1.0);
    k.linear_velocity = (eddy_vec3){0.0f, -3.0f, 0.0f};
    k.angular_velocity = (eddy_vec3){0.0f, 0.0f, 0.0f};
    eddy_input in = input_of(&k, 1);
    step_ok(w, &in);
    st = body_state(w, id);
    const dvec x2 = {5.0, 5.0 - 3.0 * D(def.dt), 5.0};
    cr_log_info("after SET_KINEMATIC: x = (%.6f, %.6f, %.6f), q = (%.4f, %.4f, %.4f, %.4f)",
                D(st.position.x), D(st.position.y), D(st.position.z), D(st.orientation.x),
                D(st.orientation.y), D(st.orientation.z), D(st.orientation.w));
    cr_expect_lt(ddist(dv(st.position), x2), 1e-6);
    cr_expect_float_eq(st.orientation.y, (float)(1.0 / sqrt(2.0)), 1e-6);
    cr_expect_float_eq(st.orientation.w, (float)(1.0 / sqrt(2.0)), 1e-6);
    cr_expect_lt(ddist(dv(st.linear_velocity), (dvec){0.0, -3.0, 0.0}), 1e-7);
    eddy_world_destroy(w);
}

/* SET_KINEMATIC on a dynamic body is refused, and the refused input changes
 * nothing at all. */
Test(body_kinematic, set_kinematic_on_dynamic_refused) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    eddy_body_def d = free_body_def(eddy_shape_sphere(0.3f), 1.0f);
    d.linear_velocity = (eddy_vec3){1.0f, 0.0f, 0.0f};
    const eddy_body_id id = add_body(w, &d);
    step_ok(w, NULL);
    const eddy_body_state before = body_state(w, id);
    const eddy_frame_hash h0 = eddy_world_hash(w);
    eddy_body_command c = command(id, EDDY_BODY_SET_KINEMATIC);
    c.position = (eddy_vec3){9.0f, 9.0f, 9.0f};
    const eddy_input in = input_of(&c, 1);
    const eddy_status s = eddy_world_step(w, &in);
    cr_log_info("SET_KINEMATIC on a dynamic body: %s (%s)", eddy_status_name(s),
                eddy_world_error_message(w));
    cr_expect_eq(s, EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(eddy_world_error_message(w), "dynamic") != NULL);
    cr_expect_eq(eddy_world_frame(w), 1);
    const eddy_body_state after = body_state(w, id);
    cr_expect(memcmp(&before.position, &after.position, sizeof before.position) == 0);
    const eddy_frame_hash h1 = eddy_world_hash(w);
    cr_expect_eq(h0.frame_hash, h1.frame_hash);
    eddy_world_destroy(w);
}

/* ================================================================ inertia */

/* The world-frame inverse inertia is R I^-1 R^T of the current orientation:
 * while an asymmetric box tumbles, the reported omega equals R I_b^-1 R^T L
 * recomputed here from the reported orientation and L, and at creation
 * L = R I_b R^T omega0. A body-frame (unrotated) inertia, the P13 bug, is
 * off by tens of percent here. */
Test(body_dynamics, world_inverse_inertia_is_rotated) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    const eddy_vec3 half = {0.6f, 0.25f, 0.1f};
    const double m = 1.2;
    eddy_body_def d = free_body_def(eddy_shape_box(half), (float)m);
    d.orientation = quat_normalized(0.4, -0.3, 0.2, 0.85);
    d.angular_velocity = (eddy_vec3){1.0f, -2.0f, 0.5f};
    const eddy_body_id id = add_body(w, &d);
    const dvec I = box_inertia(half, m);
    const eddy_body_state s0 = body_state(w, id);
    const dvec l0_ref = world_inertia_mul(s0.orientation, I, dv(d.angular_velocity));
    const double e0 = ddist(dv(s0.angular_momentum), l0_ref) / dnorm(l0_ref);
    const dvec w0 = dv(d.angular_velocity);
    const dvec unrotated = (dvec){I.x * w0.x, I.y * w0.y, I.z * w0.z};
    const double e_bug = ddist(unrotated, l0_ref) / dnorm(l0_ref);
    double worst = 0.0, worst_bug = 1e30;
    for (int f = 1; f <= 60; ++f) {
        step_ok(w, NULL);
        const eddy_body_state st = body_state(w, id);
        const dvec l = dv(st.angular_momentum);
        const dvec w_ref = world_inv_inertia_mul(st.orientation, I, l);
        const double e = ddist(dv(st.angular_velocity), w_ref) / dnorm(w_ref);
        worst = e > worst ? e : worst;
        const dvec w_bug = {l.x / I.x, l.y / I.y, l.z / I.z};
        const double eb = ddist(w_bug, w_ref) / dnorm(w_ref);
        worst_bug = eb < worst_bug ? eb : worst_bug;
    }
    cr_log_info("world inertia: |L0 - R I R^T w0|/|L0| = %.2e (unrotated would be %.2f); over "
                "60 frames max |w - R I^-1 R^T L|/|w| = %.2e (unrotated at least %.2f)",
                e0, e_bug, worst, worst_bug);
    cr_expect_lt(e0, 1e-5);
    cr_expect_lt(worst, 1e-5);
    cr_expect_gt(worst_bug, 0.05, "the test orientation must make the rotation matter");
    cr_expect_gt(e_bug, 0.05);
    eddy_world_destroy(w);
}

/* ================================================================ substeps */

/* Input forces and torques act on every substep of the step: with 2
 * substeps the final velocity equals that with 1 (v = F t / m). If they acted
 * on the first substep only, 2 substeps would give half. */
Test(body_dynamics, input_forces_act_on_every_substep) {
    dvec v[2], om[2];
    const double m = 0.5;
    const eddy_vec3 half = {0.3f, 0.3f, 0.3f};
    for (int k = 0; k < 2; ++k) {
        eddy_world_def def = body_world_def();
        def.substeps = k + 1;
        eddy_world *w = make_world(&def);
        const eddy_body_def d = free_body_def(eddy_shape_box(half), (float)m);
        const eddy_body_id id = add_body(w, &d);
        for (int f = 0; f < 10; ++f) {
            eddy_body_command c[2] = {command(id, EDDY_BODY_FORCE), command(id, EDDY_BODY_TORQUE)};
            c[0].vector = (eddy_vec3){1.0f, 2.0f, -3.0f};
            c[1].vector = (eddy_vec3){0.0f, 0.0f, 0.2f};
            const eddy_input in = input_of(c, 2);
            step_ok(w, &in);
        }
        const eddy_body_state st = body_state(w, id);
        v[k] = dv(st.linear_velocity);
        om[k] = dv(st.angular_velocity);
        eddy_world_destroy(w);
    }
    const double t = 10.0 / 30.0;
    const dvec v_ref = {t / m, 2 * t / m, -3 * t / m};
    const double Iz = m * 2.0 * 0.09 / 3.0;
    cr_log_info("force over 10 frames: v(1 substep) = (%.6f, %.6f, %.6f), v(2 substeps) = "
                "(%.6f, %.6f, %.6f), F t / m = (%.6f, %.6f, %.6f); omega_z = %.6f / %.6f "
                "(tau t / I = %.6f)",
                v[0].x, v[0].y, v[0].z, v[1].x, v[1].y, v[1].z, v_ref.x, v_ref.y, v_ref.z, om[0].z,
                om[1].z, 0.2 * t / Iz);
    cr_expect_lt(ddist(v[0], v[1]), 1e-5 * dnorm(v_ref));
    cr_expect_lt(ddist(v[1], v_ref), 1e-5 * dnorm(v_ref));
    cr_expect_lt(fabs(om[0].z - om[1].z), 1e-5 * fabs(om[0].z));
    cr_expect_float_eq(om[1].z, 0.2 * t / Iz, 1e-4 * 0.2 * t / Iz);
}

/* ================================================================ hash */

static eddy_world *hash_world(float vy_second) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    /* a few tracers and vortons far from the bodies, so the particle
     * components are not empty */
    eddy_tracer t[4];
    eddy_vorton v[4];
    memset(t, 0, sizeof t);
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; ++i) {
        t[i].position = (eddy_vec3){20.0f + 0.3f * (float)i, 0.0f, 0.0f};
        v[i].position = (eddy_vec3){20.0f, 0.3f * (float)i, 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 0.1f};
    }
    cr_assert_eq(eddy_world_add_tracers(w, t, 4), EDDY_OK);
    cr_assert_eq(eddy_world_add_vortons(w, v, 4), EDDY_OK);
    eddy_body_def d = free_body_def(eddy_shape_sphere(0.3f), 1.0f);
    d.position = (eddy_vec3){-5.0f, 0.0f, 0.0f};
    add_body(w, &d);
    d.position = (eddy_vec3){-5.0f, 3.0f, 0.0f};
    d.linear_velocity.y = vy_second;
    add_body(w, &d);
    return w;
}

static void expect_only_bodies_differ(eddy_frame_hash a, eddy_frame_hash b, const char *when) {
    cr_log_info("%s: bodies %016llx vs %016llx; vortons %s, tracers %s, globals %s", when,
                (unsigned long long)a.component[EDDY_COMPONENT_BODIES],
                (unsigned long long)b.component[EDDY_COMPONENT_BODIES],
                hash_equal_component(a, b, EDDY_COMPONENT_VORTONS) ? "equal" : "DIFFER",
                hash_equal_component(a, b, EDDY_COMPONENT_TRACERS) ? "equal" : "DIFFER",
                hash_equal_component(a, b, EDDY_COMPONENT_GLOBALS) ? "equal" : "DIFFER");
    cr_expect(!hash_equal_component(a, b, EDDY_COMPONENT_BODIES), "%s: bodies must differ", when);
    cr_expect(hash_equal_component(a, b, EDDY_COMPONENT_VORTONS), "%s: vortons must agree", when);
    cr_expect(hash_equal_component(a, b, EDDY_COMPONENT_TRACERS), "%s: tracers must agree", when);
    cr_expect(hash_equal_component(a, b, EDDY_COMPONENT_GLOBALS), "%s: globals must agree", when);
    cr_expect_neq(a.frame_hash, b.frame_hash, "%s: frame hash must differ", when);
}

/* Body state is hashed, in its own component: one body's velocity differing
 * (at creation, or later through an impulse) changes the bodies component
 * and the frame hash, and nothing else. */
Test(body_hash, body_state_in_its_own_component) {
    eddy_world *a = hash_world(0.0f), *b = hash_world(0.25f), *c = hash_world(0.0f);
    cr_expect_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(c).frame_hash,
                 "identical worlds hash the same");
    expect_only_bodies_differ(eddy_world_hash(a), eddy_world_hash(b), "frame 0, def velocity");
    for (int f = 0; f < 3; ++f) {
        step_ok(a, NULL);
        step_ok(b, NULL);
        step_ok(c, NULL);
    }
    expect_only_bodies_differ(eddy_world_hash(a), eddy_world_hash(b), "frame 3, def velocity");
    cr_expect_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(c).frame_hash);
    /* through the input: an impulse on c's second body */
    eddy_body_id ids[2];
    cr_assert_eq(eddy_world_get_body_ids(c, ids, 2), 2);
    eddy_body_command k = command(ids[1], EDDY_BODY_IMPULSE);
    k.vector = (eddy_vec3){0.0f, 0.0f, 1e-3f};
    k.point = body_state(c, ids[1]).position;
    const eddy_input in = input_of(&k, 1);
    step_ok(a, NULL);
    step_ok(c, &in);
    expect_only_bodies_differ(eddy_world_hash(a), eddy_world_hash(c), "frame 4, impulse");
    eddy_world_destroy(a);
    eddy_world_destroy(b);
    eddy_world_destroy(c);
}

/* ================================================================ created ids */

/* Bodies created through the input are reported by eddy_world_created_bodies
 * in command order (interleaved with other commands), for that step only. */
Test(body_ids, created_bodies_in_command_order) {
    eddy_world_def def = body_world_def();
    eddy_world *w = make_world(&def);
    const eddy_body_def base = free_body_def(eddy_shape_sphere(0.2f), 1.0f);
    const eddy_body_id first = add_body(w, &base);
    /* leave a hole at slot 2 so the created bodies are not simply appended */
    eddy_body_def d2 = base;
    d2.position.x = 1.0f;
    const eddy_body_id hole = add_body(w, &d2);
    step_ok(w, NULL);
    cr_assert_eq(eddy_world_created_bodies(w, (eddy_body_id[1]){{0, 0}}, 1), 0);
    const float xs[4] = {10.0f, 20.0f, 30.0f, 40.0f};
    eddy_body_command c[7];
    int n = 0;
    c[n++] = command(hole, EDDY_BODY_DESTROY);
    for (int k = 0; k < 4; ++k) {
        c[n] = command((eddy_body_id){0, 0}, EDDY_BODY_CREATE);
        c[n].def = base;
        c[n].def.position = (eddy_vec3){xs[k], 0.0f, 0.0f};
        c[n].def.mass = (float)(k + 1);
        ++n;
        if (k == 1) {
            c[n] = command(first, EDDY_BODY_FORCE);
            c[n].vector = (eddy_vec3){1.0f, 0.0f, 0.0f};
            ++n;
        }
    }
    const eddy_input in = input_of(c, n);
    step_ok(w, &in);
    eddy_body_id ids[8];
    const int m = eddy_world_created_bodies(w, ids, 8);
    cr_assert_eq(m, 4, "created %d", m);
    cr_assert_eq(eddy_world_created_bodies(w, ids, 2), 2, "capacity is respected");
    eddy_world_created_bodies(w, ids, 8);
    for (int k = 0; k < 4; ++k) {
        const eddy_body_state st = body_state(w, ids[k]);
        cr_log_info("created[%d] = (%d, %u): x = %.1f, mass = %.1f", k, ids[k].index1,
                    (unsigned)ids[k].generation, D(st.position.x), D(st.mass));
        cr_expect_float_eq(st.position.x, xs[k], 1e-6, "created[%d] is command %d's body", k, k);
        cr_expect_float_eq(st.mass, (float)(k + 1), 1e-6);
    }
    cr_expect_eq(ids[0].index1, hole.index1, "first create fills the slot freed just before");
    cr_expect_eq(eddy_world_body_count(w), 5);
    step_ok(w, NULL);
    cr_expect_eq(eddy_world_created_bodies(w, ids, 8), 0, "the list is per step");
    eddy_world_destroy(w);
}
