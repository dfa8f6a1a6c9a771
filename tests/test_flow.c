/* SPDX-License-Identifier: MIT */
/* Bodies pushed by the flow (EDDY_BODY_COUPLING_FLOW, docs/coupling.md §8):
 * added mass, light bodies at one substep and 30 Hz, the drag curve, the
 * terminal velocity, independence from the tracers, Magnus across tick
 * rates, the impulse readback and external (game-owned) bodies.
 *
 * The fluid is set up as a new user would (issue 31): still fluid of
 * zero-vorticity vortons 0.1 m apart in a block, smoke tracers between them,
 * a sphere of radius 0.2 m, g 10, dt 1/30, one substep. Every test logs what
 * it measured (--verbose); the figures are in docs/coupling.md §8. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/snapshot.h"
#include "rigid_reference.h"
#include "scenes.h"

#define PI 3.14159265358979323846
#define D(x) ((double)(x))

enum { TEST_WORKERS = 2 };

static const double k_radius = 0.2, k_g = 10.0, k_cm = 0.5;

typedef struct fluid_setup {
    float half_x, z_lo, z_hi;  /* block of vortons [-half_x, half_x]^2 x [z_lo, z_hi] */
    int tracers;               /* 0 none, 1 at the cell centres */
    float tracer_radius;       /* 0: the default */
    float dt;
    float viscosity;           /* < 0: the default */
    bool gravity;
} fluid_setup;

static fluid_setup still_fluid(void) {
    return (fluid_setup){0.8f, -1.0f, 2.0f, 1, 0.0f, 1.0f / 30.0f, -1.0f, true};
}

static eddy_world *make_fluid(const fluid_setup *f, int workers) {
    eddy_world_def def = eddy_world_def_default();
    def.worker_count = workers;
    def.dt = f->dt;
    def.gravity = (eddy_vec3){0.0f, 0.0f, f->gravity ? (float)-k_g : 0.0f};
    def.vorton_radius = 0.1f;
    if (f->tracer_radius > 0.0f) def.tracer_radius = f->tracer_radius;
    if (f->viscosity >= 0.0f) def.viscosity = f->viscosity;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK, "%s", eddy_last_error_message());
    const float h = 0.1f;
    const int nx = (int)(2.0f * f->half_x / h + 0.5f), nz = (int)((f->z_hi - f->z_lo) / h + 0.5f);
    const int n = nx * nx * nz;
    eddy_vorton *v = calloc((size_t)n, sizeof *v);
    eddy_tracer *t = calloc((size_t)n, sizeof *t);
    cr_assert(v && t);
    int k = 0;
    for (int iz = 0; iz < nz; ++iz)
        for (int iy = 0; iy < nx; ++iy)
            for (int ix = 0; ix < nx; ++ix, ++k) {
                v[k].position = (eddy_vec3){-f->half_x + h * (float)ix, -f->half_x + h * (float)iy,
                                            f->z_lo + h * (float)iz};
                t[k].position = (eddy_vec3){v[k].position.x + 0.5f * h, v[k].position.y + 0.5f * h,
                                            v[k].position.z + 0.5f * h};
            }
    cr_assert_eq(eddy_world_add_vortons(w, v, n), EDDY_OK);
    if (f->tracers) cr_assert_eq(eddy_world_add_tracers(w, t, n), EDDY_OK);
    free(v);
    free(t);
    return w;
}

static double sphere_volume(void) { return 4.0 / 3.0 * PI * k_radius * k_radius * k_radius; }

static eddy_body_id add_sphere(eddy_world *w, double density, eddy_vec3 x, eddy_vec3 v,
                               eddy_vec3 spin, eddy_body_type type) {
    eddy_body_def b = eddy_body_def_default();
    b.type = type;
    b.shape = eddy_shape_sphere((float)k_radius);
    b.mass = (float)(density * sphere_volume());
    b.position = x;
    b.linear_velocity = v;
    b.angular_velocity = spin;
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK, "%s", eddy_world_error_message(w));
    return id;
}

static void step_ok(eddy_world *w, const eddy_input *in) {
    const eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, EDDY_OK, "step %lld: %s", (long long)eddy_world_frame(w),
                 eddy_world_error_message(w));
}

static eddy_body_state state_of(const eddy_world *w, eddy_body_id id) {
    eddy_body_state s;
    cr_assert_eq(eddy_world_get_body(w, id, &s), EDDY_OK);
    return s;
}

/* ================================================================ added mass */

/* From rest, the first step's acceleration is g (rho_f - rho_b) / (rho_b +
 * C_m rho_f) (C_m 1/2), within 10 %, for density ratios 0.01 to 0.5. */
Test(flow_added_mass, first_acceleration_from_rest, .timeout = 120) {
    const double ratios[] = {0.01, 0.05, 0.1, 0.5, 2.0};
    for (size_t k = 0; k < sizeof ratios / sizeof ratios[0]; ++k) {
        fluid_setup f = still_fluid();
        eddy_world *w = make_fluid(&f, TEST_WORKERS);
        const eddy_body_id id = add_sphere(w, ratios[k], (eddy_vec3){0, 0, 0}, (eddy_vec3){0, 0, 0},
                                           (eddy_vec3){0, 0, 0}, EDDY_BODY_DYNAMIC);
        step_ok(w, NULL);
        const double a = D(state_of(w, id).linear_velocity.z) / D(f.dt);
        const double expect = k_g * (1.0 - ratios[k]) / (ratios[k] + k_cm);
        cr_log_info("ratio %.2f: first acceleration %.3f m/s^2, g (1 - r) / (r + 1/2) = %.3f "
                    "(without added mass %.1f)", ratios[k], a, expect, k_g * (1.0 - ratios[k]) / ratios[k]);
        cr_expect(fabs(a - expect) <= 0.1 * fabs(expect), "ratio %.2f: %.3f vs %.3f", ratios[k], a,
                  expect);
        eddy_world_destroy(w);
    }
}

/* ================================================================ light bodies */

typedef struct rise_result {
    double first_a, z_end, v_end, v_min, growth;
    bool finite;
} rise_result;

/* Rises from rest for `frames` frames at one substep, 30 Hz. growth: the
 * largest frame-to-frame |dv_z| over the last third of the run over the
 * largest over the first third (a growing oscillation makes it > 1). */
static rise_result rise(double ratio, int frames, fluid_setup f) {
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const eddy_body_id id = add_sphere(w, ratio, (eddy_vec3){0, 0, 0}, (eddy_vec3){0, 0, 0},
                                       (eddy_vec3){0, 0, 0}, EDDY_BODY_DYNAMIC);
    rise_result r = {0, 0, 0, 1e30, 0, true};
    double prev = 0.0, early = 0.0, late = 0.0;
    for (int n = 1; n <= frames; ++n) {
        step_ok(w, NULL);
        const eddy_body_state s = state_of(w, id);
        const double vz = D(s.linear_velocity.z);
        if (n == 1) r.first_a = vz / D(f.dt);
        const double dv = fabs(vz - prev);
        if (n > 1 && n <= frames / 3) early = dv > early ? dv : early;
        if (n > 2 * frames / 3) late = dv > late ? dv : late;
        if (n > 1) r.v_min = vz < r.v_min ? vz : r.v_min;
        prev = vz;
        r.z_end = D(s.position.z);
        r.v_end = vz;
        r.finite = r.finite && isfinite(vz);
    }
    r.growth = early > 0.0 ? late / early : 0.0;
    eddy_world_destroy(w);
    return r;
}

Test(flow_light, light_spheres_rise_steadily_at_30hz, .timeout = 300) {
    const double ratios[] = {0.01, 0.05, 0.1, 0.3, 0.6, 0.9};
    for (size_t k = 0; k < sizeof ratios / sizeof ratios[0]; ++k) {
        const rise_result r = rise(ratios[k], 45, still_fluid());
        cr_log_info("ratio %.2f: first a %.2f, after 1.5 s z %.3f m, v_z %.3f m/s, min v_z %.3f, "
                    "late/early frame-to-frame change %.3f", ratios[k], r.first_a, r.z_end, r.v_end,
                    r.v_min, r.growth);
        cr_expect(r.finite);
        cr_expect_gt(r.v_min, 0.0, "ratio %.2f: the sphere must rise every frame", ratios[k]);
        cr_expect_gt(r.z_end, 0.0, "ratio %.2f: it must end higher", ratios[k]);
        cr_expect_lt(r.growth, 1.0, "ratio %.2f: the frame-to-frame change must not grow (%.3f)",
                     ratios[k], r.growth);
    }
}

/* A light ball (ratio 0.05) starting near the top of the vortons leaves
 * them; its speed stays bounded by the drag of the ambient fluid: within 30 %
 * of the standard curve's terminal rise speed after 3 s. */
static double schiller_naumann(double re) {
    if (re > 1000.0) return 0.44;
    return 24.0 / re * (1.0 + 0.15 * pow(re, 0.687));
}

/* Speed at which |rho_b - rho_f| V g balances 1/2 rho_f Cd(Re) pi R^2 v^2. */
static double terminal_speed(double ratio, double nu) {
    const double net = fabs(1.0 - ratio) * sphere_volume() * k_g, a = PI * k_radius * k_radius;
    double v = 1.0;
    for (int i = 0; i < 200; ++i) {
        const double cd = schiller_naumann(2.0 * k_radius * v / nu);
        v = 0.5 * v + 0.5 * sqrt(net / (0.5 * cd * a));
    }
    return v;
}

Test(flow_light, light_ball_leaving_the_fluid_is_bounded_by_drag, .timeout = 120) {
    fluid_setup f = still_fluid();
    f.z_lo = -1.0f;
    f.z_hi = 0.6f;
    const rise_result r = rise(0.05, 90, f);
    const double vt = terminal_speed(0.05, 0.01);
    cr_log_info("ratio 0.05 out of the fluid: z %.2f m, v_z %.3f m/s after 3 s; standard curve's "
                "terminal speed %.3f m/s", r.z_end, r.v_end, vt);
    cr_expect_gt(r.z_end, 0.8, "it must have left the vortons");
    cr_expect(fabs(r.v_end - vt) < 0.3 * vt, "bounded by drag: %.3f vs %.3f", r.v_end, vt);
}

/* A stone in air (ratio 1,000) falls as without fluid to 1 % over 1 s. */
Test(flow_light, heavy_body_unchanged, .timeout = 120) {
    const rise_result r = rise(1000.0, 30, still_fluid());
    const double a = k_g * (1.0 - 1.0 / 1000.0), t = 1.0;
    /* x += dt (v0 + v1) / 2 is exact for constant acceleration */
    cr_log_info("stone: z %.4f m, v_z %.4f m/s after 1 s; free fall %.4f, %.4f; first a %.4f",
                r.z_end, r.v_end, -0.5 * a * t * t, -a * t, r.first_a);
    cr_expect(fabs(r.v_end + a * t) < 0.01 * a * t, "%.4f vs %.4f", r.v_end, -a * t);
    cr_expect(fabs(r.first_a + a) < 1e-3 * a * 1000.0 / (1000.0 + k_cm) + 1e-3 * a);
}

/* ================================================================ drag */

/* Effective Cd of a dense sphere (ratio 8, gravity off) thrown through still
 * fluid at speeds for Re 20 to 2,000 (nu 0.01, D 0.4): from the speed lost
 * over its first 6 frames, Cd = (m + m_a) |dv/dt| / (1/2 rho A v^2), against
 * Schiller & Naumann's curve at the mean speed: within a factor 1.5. */
Test(flow_drag, sphere_cd_on_the_standard_curve, .timeout = 300) {
    const double re_list[] = {20.0, 50.0, 200.0, 1000.0, 2000.0};
    const double ratio = 8.0, nu = 0.01;
    for (size_t k = 0; k < sizeof re_list / sizeof re_list[0]; ++k) {
        fluid_setup f = still_fluid();
        f.gravity = false;
        f.half_x = 0.8f;
        f.z_lo = -0.8f;
        f.z_hi = 0.8f;
        eddy_world *w = make_fluid(&f, TEST_WORKERS);
        const double v0 = re_list[k] * nu / (2.0 * k_radius);
        const eddy_body_id id = add_sphere(w, ratio, (eddy_vec3){-0.3f, 0, 0},
                                           (eddy_vec3){(float)v0, 0, 0}, (eddy_vec3){0, 0, 0},
                                           EDDY_BODY_DYNAMIC);
        enum { FRAMES = 6 };
        for (int n = 0; n < FRAMES; ++n) step_ok(w, NULL);
        const double v1 = D(state_of(w, id).linear_velocity.x);
        const double t = FRAMES * D(f.dt), vm = 0.5 * (v0 + v1);
        const double big_m = (ratio + k_cm) * sphere_volume();
        const double cd = big_m * (v0 - v1) / t / (0.5 * PI * k_radius * k_radius * vm * vm);
        const double ref = schiller_naumann(2.0 * k_radius * vm / nu);
        cr_log_info("Re %.0f: v %.4f -> %.4f m/s in %d frames, Cd %.3f, standard curve %.3f "
                    "(ratio %.2f)", re_list[k], v0, v1, FRAMES, cd, ref, cd / ref);
        cr_expect(cd < 1.5 * ref && cd > ref / 1.5, "Re %.0f: Cd %.3f vs %.3f", re_list[k], cd, ref);
        eddy_world_destroy(w);
    }
}

/* A cube (edge 0.4, ratio 8, gravity off) thrown face-on through still
 * fluid at 5 m/s: its effective Cd over the first 6 frames, with the
 * polytope's added mass (C_m 0.67), is the face law's 1.05 plus the Stokes
 * term (small at Re 200) within 20 %; turned 45 degrees about z the face
 * law gives the same drag on the face area (two faces at 45 degrees, 0.8 +
 * 0.25 again: a real cube's is about 0.8 on its larger frontal area, some
 * 8 % more) within 5 %, and no sideways force (symmetry). */
Test(flow_drag, cube_face_law, .timeout = 120) {
    const double ratio = 8.0, a = 0.4, v0 = 5.0;
    double cd[2] = {0, 0}, side[2] = {0, 0};
    for (int turned = 0; turned < 2; ++turned) {
        fluid_setup f = still_fluid();
        f.gravity = false;
        f.tracers = 0;
        f.z_lo = -0.8f;
        f.z_hi = 0.8f;
        eddy_world *w = make_fluid(&f, TEST_WORKERS);
        eddy_body_def b = eddy_body_def_default();
        b.shape = eddy_shape_box((eddy_vec3){0.2f, 0.2f, 0.2f});
        b.mass = (float)(ratio * a * a * a);
        b.position = (eddy_vec3){-0.3f, 0, 0};
        b.linear_velocity = (eddy_vec3){(float)v0, 0, 0};
        if (turned) b.orientation = (eddy_quat){0, 0, 0.38268343f, 0.92387953f};
        eddy_body_id id;
        cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK, "%s", eddy_world_error_message(w));
        for (int n = 0; n < 6; ++n) step_ok(w, NULL);
        const eddy_body_state s = state_of(w, id);
        const double v1 = D(s.linear_velocity.x), t = 6 * D(f.dt), vm = 0.5 * (v0 + v1);
        const double big_m = (ratio + 0.67) * a * a * a;
        cd[turned] = big_m * (v0 - v1) / t / (0.5 * a * a * vm * vm);
        side[turned] = fabs(D(s.linear_velocity.y)) + fabs(D(s.linear_velocity.z));
        eddy_world_destroy(w);
    }
    cr_log_info("cube face-on: Cd %.3f (face law 1.05 + Stokes); turned 45 degrees: Cd %.3f on the "
                "face area, sideways speed %.2g / %.2g m/s", cd[0], cd[1], side[0], side[1]);
    cr_expect(fabs(cd[0] - 1.05) < 0.2 * 1.05, "face-on Cd %.3f", cd[0]);
    cr_expect(fabs(cd[1] - cd[0]) < 0.05 * cd[0], "turned: %.3f vs %.3f", cd[1], cd[0]);
    cr_expect_lt(side[1], 1e-3 * v0);
}

/* A dense sphere (ratio 3) falling from rest through still fluid reaches
 * the terminal speed of the standard curve within 20 %. */
Test(flow_drag, dense_sphere_terminal_velocity, .timeout = 300) {
    fluid_setup f = still_fluid();
    f.z_lo = -3.0f;
    f.z_hi = 0.5f;
    f.tracers = 0;
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const double ratio = 3.0;
    const eddy_body_id id = add_sphere(w, ratio, (eddy_vec3){0, 0, 0}, (eddy_vec3){0, 0, 0},
                                       (eddy_vec3){0, 0, 0}, EDDY_BODY_DYNAMIC);
    double v = 0.0;
    for (int n = 0; n < 60; ++n) {
        step_ok(w, NULL);
        v = -D(state_of(w, id).linear_velocity.z);
    }
    const double vt = terminal_speed(ratio, 0.01);
    cr_log_info("ratio 3: v_z after 2 s %.3f m/s (z %.2f), standard curve's terminal speed %.3f",
                v, D(state_of(w, id).position.z), vt);
    cr_expect(fabs(v - vt) < 0.2 * vt, "%.3f vs %.3f", v, vt);
    eddy_world_destroy(w);
}

/* ================================================================ tracers */

typedef struct path {
    double x[90][3];
} path;

static void thrown_path(int tracers, float tracer_radius, path *p) {
    fluid_setup f = still_fluid();
    f.tracers = tracers;
    f.tracer_radius = tracer_radius;
    f.gravity = false;
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const eddy_body_id id = add_sphere(w, 0.6, (eddy_vec3){-0.5f, 0, 0.5f}, (eddy_vec3){2, 0, 0},
                                       (eddy_vec3){0, 0, 0}, EDDY_BODY_DYNAMIC);
    for (int n = 0; n < 30; ++n) {
        step_ok(w, NULL);
        const eddy_body_state s = state_of(w, id);
        p->x[n][0] = D(s.position.x);
        p->x[n][1] = D(s.position.y);
        p->x[n][2] = D(s.position.z);
    }
    eddy_world_destroy(w);
}

/* A sphere (ratio 0.6) thrown at 2 m/s: the same motion with tracers of the
 * default radius, none, half and double the radius (bound 2 %; the flow
 * coupling gives the same bits). */
Test(flow_tracers, body_motion_does_not_depend_on_tracers, .timeout = 300) {
    path *ref = calloc(4, sizeof *ref);
    cr_assert_not_null(ref);
    thrown_path(1, 0.01f, &ref[0]);
    thrown_path(0, 0.01f, &ref[1]);
    thrown_path(1, 0.005f, &ref[2]);
    thrown_path(1, 0.02f, &ref[3]);
    const double travel = ref[0].x[29][0] - -0.5;
    const char *names[] = {"default", "none", "half radius", "double radius"};
    for (int c = 1; c < 4; ++c) {
        double worst = 0.0;
        for (int n = 0; n < 30; ++n)
            for (int a = 0; a < 3; ++a) {
                const double d = fabs(ref[c].x[n][a] - ref[0].x[n][a]);
                worst = d > worst ? d : worst;
            }
        cr_log_info("tracers %s: largest position difference %.3g m over 1 s (travel %.3f m)",
                    names[c], worst, travel);
        cr_expect(worst <= 0.02 * travel, "tracers %s: %.3g m", names[c], worst);
    }
    cr_expect_gt(travel, 0.3);
    free(ref);
}

/* ================================================================ Magnus */

/* A sphere (ratio 0.6) thrown at 2 m/s along +x spinning at 10 or 30 rad/s
 * about +y (spin ratio omega R / v = 1 and 3), gravity off, at 30, 60 and
 * 120 Hz: deflection along omega x v (-z) after 0.5 s, magnitudes within
 * 30 % of one another. At nu 0.01 the spin's drag takes 97 % of the spin
 * within those 0.5 s, so the Magnus force has done its work; after 1 s
 * (logged) the ball has nearly stopped and its own wake, which differs with
 * the tick rate, moves it more than the spin did (docs/coupling.md §8.3). */
static void magnus_deflection(int hz, double spin, double out[2]) {
    fluid_setup f = still_fluid();
    f.dt = 1.0f / (float)hz;
    f.gravity = false;
    f.tracers = 0;
    f.z_lo = -1.4f;
    f.z_hi = 1.4f;
    f.half_x = 1.4f;
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const eddy_body_id id = add_sphere(w, 0.6, (eddy_vec3){-1.0f, 0, 0}, (eddy_vec3){2, 0, 0},
                                       (eddy_vec3){0, (float)spin, 0}, EDDY_BODY_DYNAMIC);
    for (int n = 1; n <= hz; ++n) {
        step_ok(w, NULL);
        if (n == hz / 2) out[0] = -D(state_of(w, id).position.z);
    }
    out[1] = -D(state_of(w, id).position.z);
    eddy_world_destroy(w);
}

Test(flow_magnus, deflection_agrees_across_tick_rates, .timeout = 600) {
    const double spins[] = {10.0, 30.0};
    for (int s = 0; s < 2; ++s) {
        double d30[2], d60[2], d120[2];
        magnus_deflection(30, spins[s], d30);
        magnus_deflection(60, spins[s], d60);
        magnus_deflection(120, spins[s], d120);
        const double lo = fmin(d30[0], fmin(d60[0], d120[0])), hi = fmax(d30[0], fmax(d60[0], d120[0]));
        cr_log_info("spin ratio %.0f: deflection along omega x v after 0.5 s %.4f / %.4f / %.4f m at "
                    "30 / 60 / 120 Hz (spread %.1f %%); after 1 s %.4f / %.4f / %.4f m",
                    spins[s] * k_radius / 2.0, d30[0], d60[0], d120[0], 100.0 * (hi - lo) / hi,
                    d30[1], d60[1], d120[1]);
        cr_expect_gt(lo, 0.0, "along omega x v at every rate");
        cr_expect(hi - lo <= 0.3 * hi, "within 30 %% of one another: %.4f .. %.4f", lo, hi);
    }
}

/* ================================================================ readback */

/* Per step, for a dynamic sphere with gravity in the fluid:
 * m (v1 - v0) = m g dt + buoyancy + linear (to float rounding), and the
 * buoyancy is -rho_f V g dt. */
Test(flow_readback, impulses_sum_to_the_momentum_change, .timeout = 120) {
    fluid_setup f = still_fluid();
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const double ratio = 0.3;
    const eddy_body_id id = add_sphere(w, ratio, (eddy_vec3){0, 0, 0}, (eddy_vec3){1, 0, 0},
                                       (eddy_vec3){0, 3, 0}, EDDY_BODY_DYNAMIC);
    const double m = ratio * sphere_volume();
    double worst = 0.0, worst_l = 0.0, scale = 0.0;
    for (int n = 0; n < 30; ++n) {
        const eddy_body_state s0 = state_of(w, id);
        step_ok(w, NULL);
        const eddy_body_state s1 = state_of(w, id);
        eddy_body_impulse imp[2];
        cr_assert_eq(eddy_world_get_body_impulses(w, imp, 2), 1);
        cr_assert_eq(imp[0].id.index1, id.index1);
        const dvec dp = dscale(dsub(dv(s1.linear_velocity), dv(s0.linear_velocity)), m);
        const dvec sum = dadd(dadd((dvec){0, 0, -k_g * m * D(f.dt)}, dv(imp[0].buoyancy)),
                              dv(imp[0].linear));
        worst = fmax(worst, dnorm(dsub(dp, sum)));
        scale = fmax(scale, dnorm(dp));
        const dvec dl = dsub(dv(s1.angular_momentum), dv(s0.angular_momentum));
        worst_l = fmax(worst_l, dnorm(dsub(dl, dv(imp[0].angular))) /
                                    fmax(dnorm(dv(s0.angular_momentum)), 1e-12));
        if (n == 0)
            cr_expect(fabs(D(imp[0].buoyancy.z) - sphere_volume() * k_g * D(f.dt)) <
                          1e-3 * sphere_volume() * k_g * D(f.dt),
                      "buoyancy %.6f vs rho V g dt %.6f", D(imp[0].buoyancy.z),
                      sphere_volume() * k_g * D(f.dt));
    }
    cr_log_info("readback: |m dv - (m g dt + buoyancy + linear)| <= %.3g (largest |m dv| %.3g); "
                "|dL - angular| / |L| <= %.3g", worst, scale, worst_l);
    cr_expect_lt(worst, 1e-5 * scale + 1e-7);
    cr_expect_lt(worst_l, 1e-5);
    eddy_world_destroy(w);
}

/* ================================================================ external */

/* The game integrates an external sphere with what eddy reports (its own
 * gravity plus buoyancy and linear): it follows eddy's dynamic sphere of
 * the same mass, rising from rest (ratio 0.2), within 2 % of the rise. */
Test(flow_external, game_body_follows_the_reported_impulses, .timeout = 120) {
    const double ratio = 0.2, m = ratio * sphere_volume();
    fluid_setup f = still_fluid();
    eddy_world *wd = make_fluid(&f, TEST_WORKERS), *we = make_fluid(&f, TEST_WORKERS);
    const eddy_body_id dyn = add_sphere(wd, ratio, (eddy_vec3){0, 0, 0}, (eddy_vec3){0, 0, 0},
                                        (eddy_vec3){0, 0, 0}, EDDY_BODY_DYNAMIC);
    const eddy_body_id ext = add_sphere(we, ratio, (eddy_vec3){0, 0, 0}, (eddy_vec3){0, 0, 0},
                                        (eddy_vec3){0, 0, 0}, EDDY_BODY_EXTERNAL);
    dvec x = {0, 0, 0}, v = {0, 0, 0};
    for (int n = 0; n < 30; ++n) {
        eddy_body_command c;
        memset(&c, 0, sizeof c);
        c.body = ext;
        c.type = EDDY_BODY_SET_KINEMATIC;
        c.position = (eddy_vec3){(float)x.x, (float)x.y, (float)x.z};
        c.orientation = (eddy_quat){0, 0, 0, 1};
        c.linear_velocity = (eddy_vec3){(float)v.x, (float)v.y, (float)v.z};
        eddy_input in;
        memset(&in, 0, sizeof in);
        in.body_commands = &c;
        in.body_command_count = 1;
        step_ok(we, &in);
        step_ok(wd, NULL);
        eddy_body_impulse imp;
        cr_assert_eq(eddy_world_get_body_impulses(we, &imp, 1), 1);
        /* the game's step: its gravity, then eddy's impulses */
        const dvec v1 = dadd(v, dscale(dadd(dadd((dvec){0, 0, -k_g * m * D(f.dt)}, dv(imp.buoyancy)),
                                            dv(imp.linear)), 1.0 / m));
        x = dadd(x, dscale(dadd(v, v1), 0.5 * D(f.dt)));
        v = v1;
        const eddy_body_state se = state_of(we, ext);
        cr_assert_eq(se.type, EDDY_BODY_EXTERNAL);
    }
    const eddy_body_state sd = state_of(wd, dyn);
    cr_log_info("external sphere (game-integrated) z %.4f v_z %.4f; eddy's dynamic one z %.4f v_z "
                "%.4f", x.z, v.z, D(sd.position.z), D(sd.linear_velocity.z));
    cr_expect_gt(x.z, 0.1);
    cr_expect(fabs(x.z - D(sd.position.z)) < 0.02 * fabs(D(sd.position.z)), "%.4f vs %.4f", x.z,
              D(sd.position.z));
    eddy_world_destroy(wd);
    eddy_world_destroy(we);
}

/* An external body's pose is the game's: a step leaves it where it was set. */
Test(flow_external, eddy_integrates_nothing, .timeout = 60) {
    fluid_setup f = still_fluid();
    eddy_world *w = make_fluid(&f, TEST_WORKERS);
    const eddy_body_id id = add_sphere(w, 0.5, (eddy_vec3){0.1f, 0.2f, 0.3f}, (eddy_vec3){1, 2, 3},
                                       (eddy_vec3){0, 5, 0}, EDDY_BODY_EXTERNAL);
    for (int n = 0; n < 3; ++n) step_ok(w, NULL);
    const eddy_body_state s = state_of(w, id);
    cr_expect(s.position.x == 0.1f && s.position.y == 0.2f && s.position.z == 0.3f);
    cr_expect(s.linear_velocity.x == 1.0f && s.angular_velocity.y == 5.0f);
    eddy_body_impulse imp;
    cr_assert_eq(eddy_world_get_body_impulses(w, &imp, 1), 1);
    cr_expect_lt(D(imp.linear.x), 0.0, "the fluid resists its motion: %.4g", D(imp.linear.x));
    cr_expect_gt(D(imp.buoyancy.z), 0.0);
    eddy_world_destroy(w);
}

/* ================================================================ API */

/* A definition with an unknown coupling is refused naming the field; the
 * default (flow) and the seed's option survive the codec. */
Test(flow_api, coupling_validated_and_encoded, .timeout = 30) {
    eddy_world_def d = eddy_world_def_default();
    cr_expect_eq(d.body_coupling, EDDY_BODY_COUPLING_FLOW);
    d.body_coupling = (eddy_body_coupling)7;
    char msg[256];
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_ERROR_INVALID_DEF);
    cr_expect_not_null(strstr(msg, "body_coupling"), "%s", msg);
    for (int c = 0; c < 2; ++c) {
        eddy_world_def e = eddy_world_def_default();
        e.body_coupling = c == 0 ? EDDY_BODY_COUPLING_FLOW : EDDY_BODY_COUPLING_TRACERS;
        eddy_bytes bytes = {0};
        cr_assert_eq(eddy_world_def_encode(&e, &bytes), EDDY_OK);
        eddy_world_def back = eddy_world_def_default();
        back.body_coupling = (eddy_body_coupling)(1 - c);
        cr_assert_eq(eddy_world_def_decode(bytes.data, bytes.size, &back, msg, sizeof msg), EDDY_OK,
                     "%s", msg);
        cr_expect_eq(back.body_coupling, e.body_coupling);
        eddy_bytes_free(&bytes);
    }
}

/* An external body may take SET_KINEMATIC; a dynamic one may not. */
Test(flow_api, external_body_takes_the_game_pose, .timeout = 30) {
    eddy_world_def def = eddy_world_def_default();
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK);
    eddy_body_def b = eddy_body_def_default();
    b.type = EDDY_BODY_EXTERNAL;
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK);
    b.type = (eddy_body_type)9;
    eddy_body_id bad;
    cr_expect_eq(eddy_world_create_body(w, &b, &bad), EDDY_ERROR_INVALID_DEF);
    cr_expect_not_null(strstr(eddy_world_error_message(w), "type"));
    eddy_body_command c;
    memset(&c, 0, sizeof c);
    c.body = id;
    c.type = EDDY_BODY_SET_KINEMATIC;
    c.position = (eddy_vec3){1, 2, 3};
    c.orientation = (eddy_quat){0, 0, 0, 1};
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.body_commands = &c;
    in.body_command_count = 1;
    step_ok(w, &in);
    const eddy_body_state s = state_of(w, id);
    cr_expect(s.position.x == 1.0f && s.position.y == 2.0f && s.position.z == 3.0f);
    eddy_world_destroy(w);
}

/* The seed's exchange is kept bit for bit: rotated_cube (a box falling
 * through smoke) with EDDY_BODY_COUPLING_TRACERS ends on the frame hash of
 * its golden from before the flow coupling (golden/rotated_cube.golden at
 * commit 9bc6394, frame 150: the normalised PSE of issue 35 already in; the
 * seed's PSE and the seed's coupling together give 2d37fc1's e057a45ec33c826e).
 * Re-pinned when the influence tree began weighting its cells by their
 * vortons' summed |w| (every multipole scene's bits changed; 47ef0e5e1caf4934
 * before). */
Test(flow_api, seed_coupling_keeps_the_old_bits, .timeout = 120) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = TEST_WORKERS;
    base.body_coupling = EDDY_BODY_COUPLING_TRACERS;
    base.grid_extent = EDDY_GRID_EXTENT_ALL_PARTICLES; /* the grid of those goldens */
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("rotated_cube", &base, &w), EDDY_OK);
    cr_assert_eq(eddy_world_get_def(w)->body_coupling, EDDY_BODY_COUPLING_TRACERS);
    for (int f = 0; f < 150; ++f) {
        eddy_scene_input si;
        step_ok(w, eddy_scene_input_for("rotated_cube", eddy_world_frame(w), &si));
    }
    const uint64_t h = eddy_world_hash(w).frame_hash;
    cr_log_info("rotated_cube, seed's coupling, frame 150: %016llx", (unsigned long long)h);
    cr_expect_eq(h, 0x44ded2fa1281bf8bull, "frame 150 hash %016llx", (unsigned long long)h);
    eddy_world_destroy(w);
}
