/* SPDX-License-Identifier: MIT */
/* Physics: conserved quantities, the speed of a thin vortex ring against
 * Saffman's formula, buoyancy, a quiescent fluid and Galilean invariance of
 * the wind.
 *
 * The derivations and the measured numbers behind every tolerance are in
 * docs/physics.md; each test logs what it measured (run with --verbose).
 * Only the public API and the shared scene builders are used. libm is fine
 * here: nothing computed in a test feeds eddy's state except the thin-ring
 * initial positions, which only need to be the same within one run.
 *
 * Runtime: about 25 s of CPU in total (the direct-summation rings dominate).
 * EDDY_PHYSICS_LONG=1 adds a finer thin-ring lattice (h = a/3, ~1 min). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "scenes.h"

#define PI 3.14159265358979323846

/* ================================================================ helpers */

/* Results do not depend on the worker count; two matches the CI budget. */
enum { TEST_WORKERS = 2 };

static eddy_world_def test_def(void) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = TEST_WORKERS;
    return d;
}

static eddy_world *make_world(const eddy_world_def *def) {
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(def, &w);
    cr_assert_eq(s, EDDY_OK, "eddy_world_create: %s", eddy_last_error_message());
    return w;
}

static void step_n(eddy_world *w, int frames, const eddy_input *input) {
    for (int f = 0; f < frames; ++f) {
        eddy_status s = eddy_world_step(w, input);
        cr_assert_eq(s, EDDY_OK, "step %lld: %s", (long long)eddy_world_frame(w),
                     eddy_world_error_message(w));
    }
}

static eddy_vorton *get_vortons(const eddy_world *w, int *count) {
    int n = eddy_world_vorton_count(w);
    eddy_vorton *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    cr_assert_not_null(v);
    cr_assert_eq(eddy_world_get_vortons(w, 0, n, v), n);
    *count = n;
    return v;
}

static eddy_tracer *get_tracers(const eddy_world *w, int *count) {
    int n = eddy_world_tracer_count(w);
    eddy_tracer *t = calloc((size_t)(n > 0 ? n : 1), sizeof *t);
    cr_assert_not_null(t);
    cr_assert_eq(eddy_world_get_tracers(w, 0, n, t), n);
    *count = n;
    return t;
}

/* The named scene exactly as the registry builds it (physics and all). */
static eddy_world *scene_world(const char *name) {
    eddy_world_def base = test_def();
    eddy_world *w = NULL;
    eddy_status s = eddy_scene_create(name, &base, &w);
    cr_assert_eq(s, EDDY_OK, "eddy_scene_create(%s): %s", name, eddy_status_name(s));
    return w;
}

/* Changes the physics of a copied scene. */
typedef void def_tweak_fn(eddy_world_def *def, const void *context);

/* The named scene's initial particles in a world whose definition is the
 * scene's own changed by tweak: scenes fix their physics (dissipation on),
 * conservation tests need some of it off. The scenes copied here have no
 * emitters. */
static eddy_world *scene_copy(const char *name, def_tweak_fn *tweak, const void *context) {
    eddy_world *src = scene_world(name);
    eddy_world_def def = *eddy_world_get_def(src);
    def.worker_count = TEST_WORKERS;
    if (tweak) tweak(&def, context);
    int nv, nt;
    eddy_vorton *v = get_vortons(src, &nv);
    eddy_tracer *t = get_tracers(src, &nt);
    eddy_world_destroy(src);
    eddy_world *w = make_world(&def);
    cr_assert_eq(eddy_world_add_vortons(w, v, nv), EDDY_OK);
    cr_assert_eq(eddy_world_add_tracers(w, t, nt), EDDY_OK);
    free(v);
    free(t);
    return w;
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double dist3(const double a[3], const double b[3]) {
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

/* The conserved sums of eddy_diagnostics recomputed from the particles (for
 * frame 0, before any step has filled the library's copy), plus
 * sum |omega| V, the scale against which sum omega V counts as zero. */
typedef struct moments {
    double total_vorticity[3];
    double linear_impulse[3];
    double abs_vorticity;
} moments;

static moments moments_of(const eddy_world *w) {
    const double r = (double)eddy_world_get_def(w)->vorton_radius;
    const double V = 4.0 / 3.0 * PI * r * r * r;
    int n;
    eddy_vorton *v = get_vortons(w, &n);
    moments m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < n; ++i) {
        const double x = (double)v[i].position.x, y = (double)v[i].position.y,
                     z = (double)v[i].position.z;
        const double wx = (double)v[i].vorticity.x * V, wy = (double)v[i].vorticity.y * V,
                     wz = (double)v[i].vorticity.z * V;
        m.total_vorticity[0] += wx;
        m.total_vorticity[1] += wy;
        m.total_vorticity[2] += wz;
        m.linear_impulse[0] += 0.5 * (y * wz - z * wy);
        m.linear_impulse[1] += 0.5 * (z * wx - x * wz);
        m.linear_impulse[2] += 0.5 * (x * wy - y * wx);
        m.abs_vorticity += sqrt(wx * wx + wy * wy + wz * wz);
    }
    free(v);
    return m;
}

/* Mean vorton position (every vorton weighs the same). */
static void vorton_centroid(const eddy_world *w, double out[3]) {
    int n;
    eddy_vorton *v = get_vortons(w, &n);
    double s[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; ++i) {
        s[0] += (double)v[i].position.x;
        s[1] += (double)v[i].position.y;
        s[2] += (double)v[i].position.z;
    }
    for (int a = 0; a < 3; ++a) out[a] = n > 0 ? s[a] / n : 0.0;
    free(v);
}

/* Runs `frames` steps and returns the largest relative drift of either the
 * total vorticity (relative to sum |omega| V at frame 0) or the linear
 * impulse (relative to |P| at frame 0), checking on the way that the
 * library's diagnostics agree with a recomputation from the particles. */
typedef enum drift_quantity { DRIFT_VORTICITY, DRIFT_IMPULSE } drift_quantity;

static double run_drift(eddy_world *w, int frames, drift_quantity q, double *final_drift) {
    const moments m0 = moments_of(w);
    const double *ref = q == DRIFT_VORTICITY ? m0.total_vorticity : m0.linear_impulse;
    const double scale = q == DRIFT_VORTICITY ? m0.abs_vorticity : norm3(m0.linear_impulse);
    double worst = 0.0, e = 0.0;
    for (int f = 1; f <= frames; ++f) {
        step_n(w, 1, NULL);
        const eddy_diagnostics d = eddy_world_get_diagnostics(w);
        const double *now = q == DRIFT_VORTICITY ? d.total_vorticity : d.linear_impulse;
        e = dist3(now, ref) / scale;
        if (e > worst) worst = e;
        if (f == frames) { /* the library's sums are the particles' sums */
            const moments m = moments_of(w);
            const double *mine = q == DRIFT_VORTICITY ? m.total_vorticity : m.linear_impulse;
            cr_expect_lt(dist3(now, mine) / scale, 1e-12, "diagnostics disagree with the particles");
        }
    }
    *final_drift = e;
    return worst;
}

/* ================================================================ 1. total vorticity */

typedef struct physics_knobs {
    float stretch_gain, viscosity;
    eddy_velocity_method method;
    eddy_treecode_traversal traversal; /* used when set_traversal */
    bool set_traversal;
} physics_knobs;

/* Dissipation off (it removes vorticity on purpose), the rest as given. */
static void tweak_knobs(eddy_world_def *d, const void *context) {
    const physics_knobs *k = context;
    d->vorticity_dissipation = 0.0f;
    d->stretch_gain = k->stretch_gain;
    d->viscosity = k->viscosity;
    d->velocity_method = k->method;
    if (k->set_traversal) d->treecode_traversal = k->traversal;
}

/* tweak_knobs, and Euler's step (the default is the AB2 stretching rate) */
static void tweak_knobs_euler(eddy_world_def *d, const void *context) {
    tweak_knobs(d, context);
    d->vorton_step = EDDY_VORTON_STEP_EULER;
}

/* tweak_knobs, and Heun's step for the vortons */
static void tweak_knobs_heun(eddy_world_def *d, const void *context) {
    tweak_knobs(d, context);
    d->vorton_step = EDDY_VORTON_STEP_HEUN;
}

/* tweak_knobs, and the Adams-Bashforth stretching rate */
static void tweak_knobs_stretch_ab2(eddy_world_def *d, const void *context) {
    tweak_knobs(d, context);
    d->vorton_step = EDDY_VORTON_STEP_STRETCH_AB2;
}

/* Without stretching only PSE changes vorticity, and its exchange is
 * pairwise antisymmetric (the same kernel value enters H's and T's gather
 * with opposite signs), so sum omega V is conserved up to float rounding. */
Test(physics, total_vorticity_pse_is_exact) {
    const physics_knobs k = {0.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, false};
    eddy_world *w = scene_copy("vortex_ring", tweak_knobs, &k);
    double last;
    const double worst = run_drift(w, 100, DRIFT_VORTICITY, &last);
    cr_log_info("total vorticity, vortex_ring, stretch 0, nu 0.01, 100 frames: "
                "max |dSum(wV)| / Sum|w|V = %.2e", worst);
    cr_expect_lt(worst, 1e-6, "PSE must conserve sum omega V to rounding, drift %.3e", worst);
    eddy_world_destroy(w);
}

/* With stretching, the continuum conserves it too (int (w.grad)u dV =
 * int div(u w) dV = 0); the Jacobian on a grid does not (1.4e-3 over these
 * 100 frames before the correction), so the phase hands the change back to
 * the vortons it stretched (lib/fluid/stretch.c): the sum holds to rounding, as
 * with PSE alone. Both stretching rates. */
Test(physics, total_vorticity_with_stretching) {
    const physics_knobs k = {0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, false};
    for (int step = 0; step < 2; ++step) {
        eddy_world *w = scene_copy("vortex_ring", step == 0 ? tweak_knobs : tweak_knobs_euler, &k);
        double last;
        const double worst = run_drift(w, 100, DRIFT_VORTICITY, &last);
        cr_log_info("total vorticity, vortex_ring, stretch 0.5 (%s), nu 0.01, treecode, 100 "
                    "frames: max |dSum(wV)| / Sum|w|V = %.2e (final %.2e)",
                    step == 0 ? "AB2 rate" : "Euler", worst, last);
        cr_expect_lt(worst, 1e-6, "the stretching must keep sum omega V to rounding, drift %.3e",
                     worst);
        eddy_world_destroy(w);
    }
}

/* ================================================================ 3. thin ring (set-up) */

/* A thin ring about the z axis: radius R, nominal core radius a, cross-section
 * lattice spacing h = a / n_h (the points with |(i, j)| h <= a), n_arc =
 * round(2 pi R / h) copies of the cross-section at angles 2 pi k / n_arc,
 * vorton radius r = h / 2. The vorton of lattice point (xi, zeta) at angle
 * phi sits at ((R + xi) cos phi, (R + xi) sin phi, zeta) with omega =
 * omega_p phi_hat and omega_p V = (Gamma / n_cs) (R + xi) dphi: each lattice
 * line carries circulation Gamma / n_cs and the core carries Gamma
 * (docs/physics.md §3). phi_hat = z_hat x rho_hat, so the ring moves to +z. */
typedef struct thin_ring {
    double R, a, gamma, h, r;
    int n_h, n_cs, n_arc;
    double *xi, *zeta; /* lattice points, n_cs of them */
} thin_ring;

enum { THIN_RING_NH = 2, THIN_RING_FRAMES = 60 };
static const double k_thin_R = 1.0, k_thin_a = 0.125, k_thin_gamma = 0.05;

static void thin_ring_init_core(thin_ring *ring, int n_h, double a) {
    memset(ring, 0, sizeof *ring);
    ring->R = k_thin_R;
    ring->a = a;
    ring->gamma = k_thin_gamma;
    ring->n_h = n_h;
    ring->h = ring->a / n_h;
    ring->r = 0.5 * ring->h;
    ring->n_arc = (int)lround(2.0 * PI * ring->R / ring->h);
    const size_t cap = (size_t)((2 * n_h + 1) * (2 * n_h + 1));
    ring->xi = calloc(cap, sizeof(double));
    ring->zeta = calloc(cap, sizeof(double));
    cr_assert(ring->xi && ring->zeta);
    for (int j = -n_h; j <= n_h; ++j)
        for (int i = -n_h; i <= n_h; ++i)
            if (i * i + j * j <= n_h * n_h) {
                ring->xi[ring->n_cs] = i * ring->h;
                ring->zeta[ring->n_cs] = j * ring->h;
                ring->n_cs++;
            }
}

static void thin_ring_init(thin_ring *ring, int n_h) { thin_ring_init_core(ring, n_h, k_thin_a); }

static void thin_ring_free(thin_ring *ring) {
    free(ring->xi);
    free(ring->zeta);
}

/* Inviscid, no dissipation, no density: the ring on its own, in a world
 * made from d (its physics fields are overwritten). */
static eddy_world *thin_ring_world_from(eddy_world_def d, const thin_ring *ring,
                                        eddy_velocity_method method, float stretch_gain) {
    d.vorton_radius = (float)ring->r;
    d.viscosity = 0.0f;
    d.vorticity_dissipation = 0.0f;
    d.stretch_gain = stretch_gain;
    d.velocity_method = method;
    eddy_world *w = make_world(&d);
    const int n = ring->n_cs * ring->n_arc;
    eddy_vorton *v = calloc((size_t)n, sizeof *v);
    cr_assert_not_null(v);
    const double V = 4.0 / 3.0 * PI * ring->r * ring->r * ring->r;
    const double dphi = 2.0 * PI / ring->n_arc;
    int m = 0;
    for (int k = 0; k < ring->n_arc; ++k) {
        const double phi = k * dphi, c = cos(phi), s = sin(phi);
        for (int p = 0; p < ring->n_cs; ++p) {
            const double rho = ring->R + ring->xi[p];
            const double omega = ring->gamma / ring->n_cs * rho * dphi / V;
            v[m].position = (eddy_vec3){(float)(rho * c), (float)(rho * s), (float)ring->zeta[p]};
            v[m].vorticity = (eddy_vec3){(float)(-omega * s), (float)(omega * c), 0.0f};
            ++m;
        }
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, n), EDDY_OK);
    free(v);
    return w;
}

static eddy_world *thin_ring_world(const thin_ring *ring, eddy_velocity_method method,
                                   float stretch_gain) {
    return thin_ring_world_from(test_def(), ring, method, stretch_gain);
}

/* ---------------------------------------------------------------- Saffman's c */

/* A uniform-vorticity ball of radius r averaged along a line through it (the
 * arc direction) leaves the 2-D profile (3 / (2 pi r^3)) sqrt(r^2 - rho^2)
 * of unit circulation. */
static double ball_profile(double rho2, double r) {
    return rho2 < r * r ? 3.0 / (2.0 * PI * r * r * r) * sqrt(r * r - rho2) : 0.0;
}

/* c = 1/2 - (4 pi^2 / Gamma^2) int_0^a_out rho v(rho)^2 drho for the
 * azimuthal average of a 2-D core of n equal blobs (ball_profile, radius r)
 * at (x[i], y[i]), all inside a_out; v = Gamma(rho) / (2 pi rho). Midpoint
 * rule in rho and theta. disk > 0 replaces the core by a uniform disk of that
 * radius (a check of the quadrature: c = 1/4). */
static double saffman_c(const double *x, const double *y, int n, double r, double a_out,
                        double disk) {
    enum { NR = 3000, NT = 720 };
    const double drho = a_out / NR, dth = 2.0 * PI / NT;
    double inside = 0.0;   /* circulation within the current radius (unit total) */
    double integral = 0.0; /* int Gamma(rho)^2 / rho drho = 4 pi^2 int rho v^2 drho */
    for (int k = 0; k < NR; ++k) {
        const double rho = (k + 0.5) * drho;
        double around = 0.0; /* int omega dtheta at rho */
        for (int t = 0; t < NT; ++t) {
            const double th = (t + 0.5) * dth, px = rho * cos(th), py = rho * sin(th);
            double om = 0.0;
            if (disk > 0.0) {
                om = rho < disk ? 1.0 / (PI * disk * disk) : 0.0;
            } else {
                for (int i = 0; i < n; ++i) {
                    const double dx = px - x[i], dy = py - y[i];
                    om += ball_profile(dx * dx + dy * dy, r) / n;
                }
            }
            around += om * dth;
        }
        const double d_gamma = around * rho * drho, mid = inside + 0.5 * d_gamma;
        integral += mid * mid / rho * drho;
        inside += d_gamma;
    }
    cr_assert_float_eq(inside, 1.0, 2e-3, "quadrature lost circulation: %g", inside);
    return 0.5 - integral / (inside * inside);
}

/* J = int_0^1 (1 - (1 - s^2)^{3/2})^2 / s ds: the ball profile's
 * 4 pi^2 int rho v^2 / Gamma^2 in units of its radius. c_ball = 1/2 - J. */
static double ball_J(void) {
    enum { NS = 200000 };
    double J = 0.0;
    for (int k = 0; k < NS; ++k) {
        const double s = (k + 0.5) / NS, g = 1.0 - pow(1.0 - s * s, 1.5);
        J += g * g / s / NS;
    }
    return J;
}

/* The same c from the 2-D self-energy without azimuthal averaging:
 * ln L = (1/n^2) [sum_{i != j} ln|x_i - x_j| + n (ln r - J)], exact for
 * blobs that do not overlap (Newton's theorem in 2-D), c = 1/2 + ln(L / a_out). */
static double energy_c(const double *x, const double *y, int n, double r, double a_out) {
    double lnL = n * (log(r) - ball_J());
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i != j)
                lnL += 0.5 * log((x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j]));
    lnL /= (double)n * n;
    return 0.5 + lnL - log(a_out);
}

/* 4 pi R u / gamma for a closed chain of n equal vortons (line circulation
 * gamma) on a circle of radius R, u the axial velocity the others induce at
 * one of them (all outside each other's cores: plain Biot-Savart). For a
 * smooth tube this bracket would be ln(8R/r) - c_ball. */
static double chain_bracket(double R, int n) {
    const double ds = 2.0 * PI * R / n;
    double u = 0.0;
    for (int k = 1; k < n; ++k) {
        const double p = 2.0 * PI * k / n, dx = R - R * cos(p), dy = -R * sin(p);
        const double wx = -sin(p), wy = cos(p);
        u += (wx * dy - wy * dx) / pow(dx * dx + dy * dy, 1.5);
    }
    return 4.0 * PI * R * u * ds / (4.0 * PI);
}

typedef struct ring_prediction {
    double a_eff;           /* outer radius of the core's vorticity: a + r */
    double c_saffman;       /* azimuthally averaged profile (Saffman) */
    double c_energy;        /* full 2-D self-energy of the lattice core */
    double chain;           /* correction for arcs of discrete vortons */
    double U_saffman, U_energy, U_chain;
} ring_prediction;

static ring_prediction thin_ring_predict(const thin_ring *ring) {
    ring_prediction p;
    const int n = ring->n_cs;
    p.a_eff = ring->a + ring->r;
    p.c_saffman = saffman_c(ring->xi, ring->zeta, n, ring->r, p.a_eff, 0.0);
    p.c_energy = energy_c(ring->xi, ring->zeta, n, ring->r, p.a_eff);
    /* Each lattice line's own share (weight 1/n^2) of the bracket is the
     * chain's, not the smooth tube's. */
    const double c_ball = 0.5 - ball_J();
    p.chain = 0.0;
    for (int i = 0; i < n; ++i) {
        const double Rl = ring->R + ring->xi[i];
        p.chain += chain_bracket(Rl, ring->n_arc) - (log(8.0 * Rl / ring->r) - c_ball);
    }
    p.chain /= (double)n * n;
    const double k = ring->gamma / (4.0 * PI * ring->R), L = log(8.0 * ring->R / p.a_eff);
    p.U_saffman = k * (L - p.c_saffman);
    p.U_energy = k * (L - p.c_energy);
    p.U_chain = k * (L - p.c_energy + p.chain);
    return p;
}

/* Axial speed of the mean vorton position (= the circulation-weighted
 * centroid of the core: every lattice line has n_arc vortons) over `frames`,
 * and over the second half alone. */
static double ring_axial_speed(eddy_world *w, int frames, double *second_half) {
    const double dt = (double)eddy_world_get_def(w)->dt;
    double p0[3], pm[3], p1[3];
    vorton_centroid(w, p0);
    step_n(w, frames / 2, NULL);
    vorton_centroid(w, pm);
    step_n(w, frames - frames / 2, NULL);
    vorton_centroid(w, p1);
    *second_half = (p1[2] - pm[2]) / ((frames - frames / 2) * dt);
    return (p1[2] - p0[2]) / (frames * dt);
}

/* ================================================================ 2. linear impulse */

/* A well-resolved ring with exact (direct) velocities and the physical
 * stretching gain: P = 1/2 sum x x omega V is conserved to discretisation
 * error (Jacobian on the grid, forward Euler). */
Test(physics, linear_impulse_thin_ring) {
    thin_ring ring;
    thin_ring_init(&ring, THIN_RING_NH);
    eddy_world *w = thin_ring_world(&ring, EDDY_VELOCITY_DIRECT_VORTONS, 1.0f);
    /* Line p (circulation Gamma / n_cs at radius R + xi_p) has impulse
     * pi (R + xi_p)^2 Gamma / n_cs, exactly, as a sum over its vortons. */
    double P_exact = 0.0;
    for (int p = 0; p < ring.n_cs; ++p)
        P_exact += PI * (ring.R + ring.xi[p]) * (ring.R + ring.xi[p]) * ring.gamma / ring.n_cs;
    const double P = norm3(moments_of(w).linear_impulse);
    double last;
    const double worst = run_drift(w, 100, DRIFT_IMPULSE, &last);
    cr_log_info("linear impulse, thin ring (pi R^2 Gamma = %.6f, lattice %.6f, sum = %.6f), direct, "
                "stretch 1, nu 0, 100 frames: max |dP|/|P| = %.2e (final %.2e)",
                PI * ring.R * ring.R * ring.gamma, P_exact, P, worst, last);
    cr_expect_float_eq(P, P_exact, 1e-5 * P_exact, "P = %.7f, expected %.7f", P, P_exact);
    cr_expect_lt(worst, 5e-3, "impulse drift %.3e (measured 1.5e-3 when written)", worst);
    eddy_world_destroy(w);
    thin_ring_free(&ring);
}

/* One vortex_ring world over `frames` frames: its max |dP|/|P|, logged and
 * checked against the case's bound. */
typedef struct impulse_case {
    physics_knobs k;
    double bound, measured;
    const char *what;
} impulse_case;

static double impulse_case_drift(const impulse_case *c, def_tweak_fn *tweak, int frames) {
    eddy_world *w = scene_copy("vortex_ring", tweak, &c->k);
    double last;
    const double drift = run_drift(w, frames, DRIFT_IMPULSE, &last);
    cr_log_info("linear impulse, vortex_ring, %s, %d frames: max |dP|/|P| = %.2e (final %.2e)",
                c->what, frames, drift, last);
    cr_expect_lt(drift, c->bound, "%s: drift %.3e (measured %.4f when written)", c->what, drift,
                 c->measured);
    eddy_world_destroy(w);
    return drift;
}

/* The same drift with EDDY_VELOCITY_TREECODE_VORTONS: the vortons move with
 * their own walk (core r), the grid serves the stretching; the default step
 * (AB2 stretching rate) and opening angle. Without stretching the drift is
 * the walk's alone (its accepted cells act on a vorton without the vorton
 * acting back on them): 0.86 %, against 0.22 % on the grid; with stretch 0.5,
 * each vorton stretched by its own gradient from the walk, 0.79 % (the
 * grid's Jacobian: 1.21 %). */
Test(physics, linear_impulse_vortex_ring_treecode_vortons) {
    static const impulse_case cases[] = {
        {{0.0f, 0.0f, EDDY_VELOCITY_TREECODE_VORTONS, EDDY_TREECODE_MULTIPOLE, true}, 0.015, 0.0101,
         "vortons' walk, stretch 0,   nu 0"},
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE_VORTONS, EDDY_TREECODE_MULTIPOLE, true}, 0.02, 0.0163,
         "vortons' walk, stretch 0.5, nu 0.01"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        impulse_case_drift(&cases[c], tweak_knobs, 300);
}

/* The vortex_ring scene (a fat ring, core radius = R, one vorton per cell)
 * with the game defaults (treecode, stretch 0.5, nu 0.01) and dissipation
 * off, the original traversal. The continuum conserves P for any stretching
 * gain and viscosity; the discrete scheme does not: see docs/physics.md §2
 * for the breakdown. Since the PSE conserves P (below) the stretching case
 * is no longer offset by the PSE's loss. */
Test(physics, linear_impulse_vortex_ring_scene) {
    static const impulse_case cases[] = {
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_ORIGINAL, true}, 0.18, 0.142,
         "original treecode, stretch 0.5, nu 0.01"},
        {{0.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_ORIGINAL, true}, 0.04, 0.016,
         "original treecode, stretch 0,   nu 0.01"},
        {{0.0f, 0.0f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_ORIGINAL, true}, 0.04, 0.020,
         "original treecode, stretch 0,   nu 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        impulse_case_drift(&cases[c], tweak_knobs, 100);
}

/* The same scene over 300 frames with the defaults: the multipole treecode
 * and the Adams-Bashforth stretching rate. The PSE exchanges vorticity along
 * each pair's axis, so it cannot change P (lib/fluid/diffuse.c): with stretch 0 the
 * drift with nu = 0.01 is that of nu = 0 (the treecode's advection) within a
 * fraction of a percent, where the original exchange lost 14 %. With
 * stretching (gain 0.5) the drift stays under the 2 % asked for (measured
 * 1.35 %; Euler's step 2.42 %, the tests below). Without stretching the AB2
 * step is Euler's, bit for bit. */
Test(physics, linear_impulse_vortex_ring_300_frames) {
    static const impulse_case cases[] = {
        {{0.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.015, 0.0063,
         "defaults, stretch 0,   nu 0.01"},
        {{0.0f, 0.0f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.015, 0.0028,
         "defaults, stretch 0,   nu 0"},
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.02, 0.0159,
         "defaults, stretch 0.5, nu 0.01"},
    };
    const eddy_world_def defaults = eddy_world_def_default();
    cr_assert_eq(defaults.treecode_traversal, EDDY_TREECODE_MULTIPOLE);
    cr_assert_eq(defaults.vorton_step, EDDY_VORTON_STEP_STRETCH_AB2);
    double drift[3];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        drift[c] = impulse_case_drift(&cases[c], tweak_knobs, 300);
    /* what viscosity adds to the inviscid drift: the PSE's share */
    cr_expect_lt(fabs(drift[0] - drift[1]), 5e-3, "the PSE changed P: %.3e with nu 0.01, %.3e "
                 "without", drift[0], drift[1]);
}

/* The same worlds with Heun's step (EDDY_VORTON_STEP_HEUN, lib/world.c): a
 * second velocity solve per step. Measured 1.11 % against Euler's 2.42 % at
 * the default opening angle (1.05) with the stretching that keeps sum omega V
 * (2.99 % against 2.43 % before it; on the old halving tree at theta 1.2:
 * 1.74 against 2.83 %): within the 2 % asked for. With the normalised PSE
 * (issue 35: nu 0.01 now acts in full, where the seed's exchange gave about
 * 1 % of it at this spacing) 2.16 % at stretch 0.5 (AB2 1.59 %, Euler 2.80 %)
 * and 0.46 % at stretch 0: the bound is now 3 % (docs/physics.md section 9.2). */
Test(physics, linear_impulse_vortex_ring_300_frames_heun) {
    static const impulse_case heun[] = {
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.03, 0.0216,
         "Heun, multipole treecode, stretch 0.5, nu 0.01"},
        {{0.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.015, 0.0046,
         "Heun, multipole treecode, stretch 0,   nu 0.01"},
    };
    impulse_case_drift(&heun[0], tweak_knobs_heun, 300);
    impulse_case_drift(&heun[1], tweak_knobs_heun, 300);
}

/* The same worlds with the Adams-Bashforth stretching rate
 * (EDDY_VORTON_STEP_STRETCH_AB2, lib/fluid/stretch.c): one velocity solve per step,
 * as Euler's, and the rate extrapolated to the middle of the step (the
 * default). Measured at theta 1.05: 1.35 % against Euler's 2.42 % at stretch
 * 0.5 (the 2 % asked for), 3.87 % against 7.10 % at stretch 1 (where the
 * field's error is a larger share). With the normalised PSE (issue 35: the
 * viscosity 0.01 acts in full) 1.59 % against 2.80 % at stretch 0.5 and
 * 7.26 % against 7.13 % at stretch 1: AB2 no longer beats Euler at stretch
 * 1, and the check there only bounds it (docs/physics.md section 9.2).
 * Without stretching it is Euler's step, bit for bit (the rate is never
 * used). */
Test(physics, linear_impulse_vortex_ring_300_frames_stretch_ab2) {
    static const impulse_case ab2[] = {
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.02, 0.0159,
         "AB2 stretching, multipole treecode, stretch 0.5, nu 0.01"},
        {{1.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.1, 0.0726,
         "AB2 stretching, multipole treecode, stretch 1,   nu 0.01"},
    };
    static const impulse_case euler[] = {
        {{0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.045, 0.0280,
         "Euler, multipole treecode, stretch 0.5, nu 0.01"},
        {{1.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true}, 0.3, 0.0713,
         "Euler, multipole treecode, stretch 1,   nu 0.01"},
    };
    static const double margin[2] = {0.75, 1.1}; /* measured 0.57, 1.02 (0.56, 0.55 with the seed's PSE) */
    for (int c = 0; c < 2; ++c) {
        const double drift = impulse_case_drift(&ab2[c], tweak_knobs_stretch_ab2, 300);
        const double euler_drift = impulse_case_drift(&euler[c], tweak_knobs_euler, 300);
        cr_expect_lt(drift, margin[c] * euler_drift, "stretch %.1f: AB2 drifts %.3e, Euler %.3e",
                     (double)ab2[c].k.stretch_gain, drift, euler_drift);
    }
    const physics_knobs off = {0.0f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, true};
    eddy_world *w[2] = {scene_copy("vortex_ring", tweak_knobs_euler, &off),
                        scene_copy("vortex_ring", tweak_knobs_stretch_ab2, &off)};
    for (int f = 1; f <= 30; ++f) {
        for (int k = 0; k < 2; ++k)
            cr_assert_eq(eddy_world_step(w[k], NULL), EDDY_OK, "%s", eddy_world_error_message(w[k]));
        cr_assert_eq(eddy_world_hash(w[0]).frame_hash, eddy_world_hash(w[1]).frame_hash,
                     "stretch 0: the AB2 step differs from Euler's at frame %d", f);
    }
    for (int k = 0; k < 2; ++k) eddy_world_destroy(w[k]);
}

/* ================================================================ 3. thin-ring speed */

/* The quadrature behind Saffman's c, on cores with known answers. */
Test(physics, saffman_c_quadrature) {
    const double c_disk = saffman_c(NULL, NULL, 0, 0.0, 1.0, 1.0);
    const double zero = 0.0;
    const double c_ball = saffman_c(&zero, &zero, 1, 1.0, 1.0, 0.0);
    const double c_ball_energy = energy_c(&zero, &zero, 1, 1.0, 1.0);
    cr_log_info("Saffman c: uniform disk %.5f (exact 1/4), ball cross-section %.5f "
                "(energy form %.5f, 1/2 - J = %.5f)", c_disk, c_ball, c_ball_energy, 0.5 - ball_J());
    cr_expect_float_eq(c_disk, 0.25, 1e-3, "uniform core c = %.5f", c_disk);
    cr_expect_float_eq(c_ball, c_ball_energy, 1e-3, "%.5f vs %.5f", c_ball, c_ball_energy);
    /* A hollow core (all circulation at radius a): c = 1/2. 64 small blobs
     * on the unit circle approximate it (their spacing, 0.098, is about
     * their diameter, so the ring of blobs is nearly a continuous sheet). */
    double x[64], y[64];
    for (int i = 0; i < 64; ++i) {
        x[i] = cos(2.0 * PI * i / 64);
        y[i] = sin(2.0 * PI * i / 64);
    }
    const double c_hollow = energy_c(x, y, 64, 0.04, 1.0);
    cr_log_info("Saffman c: 64 blobs (r = 0.04) on the unit circle %.4f (hollow core: 1/2)", c_hollow);
    cr_expect_float_eq(c_hollow, 0.5, 0.02, "hollow core c = %.4f", c_hollow);
}

static void thin_ring_log(const char *what, const thin_ring *ring, const ring_prediction *p,
                          double U, double U_late) {
    cr_log_info("thin ring R=%.3g a=%.4g h=a/%d r=%.5f Gamma=%.3g (%d vortons), %s: U = %.6f "
                "(2nd half %.6f) | a_eff %.5f c_saffman %.5f c_energy %.5f chain %.5f | "
                "U_saffman %.6f (ratio %.4f) U_energy %.6f U_chain %.6f (ratio %.4f)",
                ring->R, ring->a, ring->n_h, ring->r, ring->gamma, ring->n_cs * ring->n_arc, what,
                U, U_late, p->a_eff, p->c_saffman, p->c_energy, p->chain, p->U_saffman,
                U / p->U_saffman, p->U_energy, p->U_chain, U / p->U_chain);
}

/* Direct summation: vortons move with their exact velocity. With the
 * physical stretching gain the lattice lines keep their circulation as they
 * orbit the core (omega / rho is what the Euler equations conserve); with a
 * smaller gain circulation drifts towards the inner side and the ring slows
 * slowly (docs/physics.md §3.4), hence 10% for those. */
static void thin_ring_direct_case(int n_h, float gain, double tight) {
    thin_ring ring;
    thin_ring_init(&ring, n_h);
    const ring_prediction p = thin_ring_predict(&ring);
    eddy_world *w = thin_ring_world(&ring, EDDY_VELOCITY_DIRECT_VORTONS, gain);
    double late;
    const double U = ring_axial_speed(w, THIN_RING_FRAMES, &late);
    char what[64];
    snprintf(what, sizeof what, "direct, stretch %.1f, %d frames", (double)gain, THIN_RING_FRAMES);
    thin_ring_log(what, &ring, &p, U, late);
    cr_expect_gt(U, 0.0, "the ring must move along +z (its impulse), U = %g", U);
    cr_expect_lt(fabs(U / p.U_saffman - 1.0), 0.10, "%s: U = %.6f vs Saffman %.6f", what, U,
                 p.U_saffman);
    if (tight > 0.0)
        cr_expect_lt(fabs(U / p.U_chain - 1.0), tight, "%s: U = %.6f vs %.6f (discrete arcs)",
                     what, U, p.U_chain);
    eddy_world_destroy(w);
    thin_ring_free(&ring);
}

Test(physics, thin_ring_speed_direct) {
    thin_ring_direct_case(THIN_RING_NH, 1.0f, 0.02);
    thin_ring_direct_case(THIN_RING_NH, 0.0f, 0.0);
    thin_ring_direct_case(THIN_RING_NH, 0.5f, 0.0);
}

/* A finer lattice (h = a/3, 4379 vortons): about a minute, so opt-in. */
Test(physics, thin_ring_speed_direct_fine) {
    if (!getenv("EDDY_PHYSICS_LONG")) {
        cr_log_info("thin ring h = a/3 skipped (set EDDY_PHYSICS_LONG=1)");
        return;
    }
    thin_ring_direct_case(3, 1.0f, 0.02);
}

/* The ring's speed over THIN_RING_FRAMES with the default velocity (the
 * grid's trilinear sample) and the given traversal, gain 1; logged. */
static double thin_ring_speed_default(const thin_ring *ring, const ring_prediction *p,
                                      double ratio, eddy_treecode_traversal traversal) {
    eddy_world_def d = test_def();
    d.treecode_traversal = traversal;
    eddy_world *w = thin_ring_world_from(d, ring, EDDY_VELOCITY_TREECODE, 1.0f);
    double late;
    const double U = ring_axial_speed(w, THIN_RING_FRAMES, &late);
    const eddy_grid_info gi = eddy_world_get_grid_info(w);
    char what[128];
    snprintf(what, sizeof what, "R/a %.0f, %s treecode, stretch 1 (grid %dx%dx%d, "
             "mollification %.2f)", ratio,
             traversal == EDDY_TREECODE_MULTIPOLE ? "multipole" : "original", gi.cells[0],
             gi.cells[1], gi.cells[2], (double)gi.mollification);
    thin_ring_log(what, ring, p, U, late);
    eddy_world_destroy(w);
    return U;
}

/* The default treecode (multipole, default opening angle) with the physical
 * stretching gain, at R/a = 6, 8 and 12, against Saffman's speed with the
 * lattice core's c. Vortons move with the velocity grid (trilinear, cells of
 * about a/2) and the vorton core is auto-mollified to ~2.2 r; both slow the
 * ring whatever the treecode does (docs/accuracy.md, "Ring speed", has the
 * breakdown: on this lattice the 3 % target is not met; with the core
 * resolved it is, thin_ring_speed_resolved_core). The original traversal is
 * logged next to it. Measured U / U_saffman, multipole (original): R/a 6
 * 0.960 (0.966), R/a 8 0.948 (0.926), R/a 12 0.910 (0.851). The bound is a
 * sanity bound with the usual margin over the worst case. */
Test(physics, thin_ring_speed_treecode) {
    const double ratios[3] = {6.0, 8.0, 12.0};
    for (int k = 0; k < 3; ++k) {
        thin_ring ring;
        thin_ring_init_core(&ring, THIN_RING_NH, k_thin_R / ratios[k]);
        const ring_prediction p = thin_ring_predict(&ring);
        double U[2];
        U[0] = thin_ring_speed_default(&ring, &p, ratios[k], EDDY_TREECODE_MULTIPOLE);
        U[1] = thin_ring_speed_default(&ring, &p, ratios[k], EDDY_TREECODE_ORIGINAL);
        cr_expect_lt(fabs(U[0] / p.U_saffman - 1.0), 0.13, "R/a %.0f: U = %.6f vs Saffman %.6f",
                     ratios[k], U[0], p.U_saffman);
        cr_expect_gt(U[0], 0.0, "R/a %.0f: the ring must move along +z", ratios[k]);
        thin_ring_free(&ring);
    }
}

/* The default velocity (multipole treecode at the default opening angle, the
 * grid's trilinear sample) on thin rings whose core is resolved: lattice
 * h = a/5 instead of a/2. The grid's cell count follows the vorton count
 * (lib/core/grid.c), so the lattice also sets how many grid cells cover the core:
 * 1.2-2.4 per core radius at h = a/2 (the ring above, 4-9 % slow), 3.3-4.8
 * at h = a/5. There the ring travels within 3 % of Saffman's speed with
 * eddy's core constant at R/a 6, 8 and 12 (docs/accuracy.md, "Ring speed").
 * The coarser lattices and the original traversal are logged for the
 * convergence table. */
Test(physics, thin_ring_speed_resolved_core) {
    const double ratios[3] = {6.0, 8.0, 12.0};
    enum { RESOLVED_NH = 5 };
    for (int k = 0; k < 3; ++k) {
        for (int n_h = 3; n_h <= RESOLVED_NH; ++n_h) {
            thin_ring ring;
            thin_ring_init_core(&ring, n_h, k_thin_R / ratios[k]);
            const ring_prediction p = thin_ring_predict(&ring);
            const double U =
                thin_ring_speed_default(&ring, &p, ratios[k], EDDY_TREECODE_MULTIPOLE);
            if (n_h == RESOLVED_NH) {
                cr_expect_lt(fabs(U / p.U_saffman - 1.0), 0.03,
                             "R/a %.0f, h = a/%d: U = %.6f vs Saffman %.6f", ratios[k], n_h, U,
                             p.U_saffman);
                thin_ring_speed_default(&ring, &p, ratios[k], EDDY_TREECODE_ORIGINAL);
            }
            thin_ring_free(&ring);
        }
    }
}

/* EDDY_VELOCITY_TREECODE_VORTONS: the vortons move with their own multipole
 * walk (core r, not mollified) instead of the grid's trilinear sample; the
 * grid, mollified half as wide (mollify_length_scale 0.5), serves the
 * stretching. With the opening angle 0.6 a thin ring travels within 3 % of
 * Saffman's speed at R/a 6, 8 and 12 (docs/accuracy.md, "Ring speed"). */
Test(physics, thin_ring_speed_treecode_vortons) {
    const double ratios[3] = {6.0, 8.0, 12.0};
    for (int k = 0; k < 3; ++k) {
        thin_ring ring;
        thin_ring_init_core(&ring, THIN_RING_NH, k_thin_R / ratios[k]);
        const ring_prediction p = thin_ring_predict(&ring);
        eddy_world_def d = test_def();
        d.treecode_opening_angle = 0.6f;
        d.mollify_length_scale = 0.5f;
        eddy_world *w = thin_ring_world_from(d, &ring, EDDY_VELOCITY_TREECODE_VORTONS, 1.0f);
        double late;
        const double U = ring_axial_speed(w, THIN_RING_FRAMES, &late);
        const eddy_grid_info gi = eddy_world_get_grid_info(w);
        char what[128];
        snprintf(what, sizeof what, "R/a %.0f, treecode at the vortons, theta 0.6, stretch 1 "
                 "(grid %dx%dx%d, mollification %.2f)", ratios[k], gi.cells[0], gi.cells[1],
                 gi.cells[2], (double)gi.mollification);
        thin_ring_log(what, &ring, &p, U, late);
        eddy_world_destroy(w);
        cr_expect_lt(fabs(U / p.U_saffman - 1.0), 0.03, "R/a %.0f: U = %.6f vs Saffman %.6f",
                     ratios[k], U, p.U_saffman);
        thin_ring_free(&ring);
    }
}

/* ================================================================ 4-5. buoyancy */

/* |rho'|-weighted mean z of the vortons with sign(rho') == want (0: all). */
static double density_centroid_z(const eddy_vorton *v, int n, const signed char *sign, int want) {
    double s = 0.0, ws = 0.0;
    for (int i = 0; i < n; ++i) {
        if (want != 0 && sign[i] != want) continue;
        const double w = fabs((double)v[i].density_deviation);
        s += w * (double)v[i].position.z;
        ws += w;
    }
    cr_assert_gt(ws, 0.0, "no vorton carries rho'");
    return s / ws;
}

static double tracer_mean_z(const eddy_world *w) {
    int n;
    eddy_tracer *t = get_tracers(w, &n);
    cr_assert_gt(n, 0);
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += (double)t[i].position.z;
    free(t);
    return s / n;
}

/* The heavy ball (rho' = 10, radius 1, at z = 5): the baroclinic term
 * (grad rho x g) / rho0 rolls it into a ring that sinks. */
Test(physics, dye_drop_falls) {
    eddy_world *w = scene_world("dye_drop");
    int n;
    eddy_vorton *v = get_vortons(w, &n);
    const double z0 = density_centroid_z(v, n, NULL, 0), t0 = tracer_mean_z(w);
    free(v);
    step_n(w, 60, NULL);
    v = get_vortons(w, &n);
    const double dz = density_centroid_z(v, n, NULL, 0) - z0, dt = tracer_mean_z(w) - t0;
    free(v);
    cr_log_info("dye_drop, 60 frames: rho'-weighted vorton centroid dz = %.4f (from z = %.3f), "
                "tracer mean dz = %.4f", dz, z0, dt);
    cr_expect_lt(dz, -1.0, "the heavy blob must fall: dz = %.4f (measured -4.55 when written)", dz);
    cr_expect_lt(dt, -1.0, "the dye must fall: dz = %.4f (measured -4.49 when written)", dt);
    eddy_world_destroy(w);
}

/* Heavy (rho' = +0.9) at z = +2 above light (rho' = -0.9) at z = -2. The
 * scene neither kills nor emits, so vorton i is the same particle in every
 * frame and the initial sign of rho' labels the blobs. */
Test(physics, two_drops_turn_over) {
    eddy_world *w = scene_world("two_drops");
    int n;
    eddy_vorton *v = get_vortons(w, &n);
    signed char *sign = calloc((size_t)n, 1);
    cr_assert_not_null(sign);
    for (int i = 0; i < n; ++i)
        sign[i] = v[i].density_deviation > 0.0f ? 1 : v[i].density_deviation < 0.0f ? -1 : 0;
    const double h0 = density_centroid_z(v, n, sign, 1), l0 = density_centroid_z(v, n, sign, -1);
    free(v);
    double h150 = 0.0, l150 = 0.0, h = 0.0, l = 0.0;
    for (int f = 30; f <= 240; f += 30) {
        step_n(w, 30, NULL);
        int m;
        v = get_vortons(w, &m);
        cr_assert_eq(m, n, "two_drops must keep its vortons");
        h = density_centroid_z(v, n, sign, 1);
        l = density_centroid_z(v, n, sign, -1);
        free(v);
        if (f == 150) h150 = h, l150 = l;
        cr_log_info("two_drops frame %3d: heavy z = %+.4f (dz %+.4f), light z = %+.4f (dz %+.4f)",
                    f, h, h - h0, l, l - l0);
    }
    cr_expect_lt(h150 - h0, -1.0, "heavy blob must sink: dz = %.4f by frame 150", h150 - h0);
    cr_expect_gt(l150 - l0, 1.0, "light blob must rise: dz = %.4f by frame 150", l150 - l0);
    cr_log_info("two_drops frame 240: the blobs' centroids %s (heavy %+.4f, light %+.4f)",
                h < l ? "have passed each other" : "have NOT passed each other", h, l);
    free(sign);
    eddy_world_destroy(w);
}

/* ================================================================ 6. quiescent fluid */

static bool same_bits(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static bool same_vec(eddy_vec3 a, eddy_vec3 b) {
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z);
}

/* No vorticity, no density deviation, no wind: every velocity is exactly
 * zero, so after 10 steps (gravity on) every position has the same bits. */
Test(physics, quiescent_fluid_stays_still) {
    enum { NV = 6, NT = 10 };
    static eddy_vorton vortons[NV * NV * NV];
    static eddy_tracer tracers[NT * NT * NT];
    int m = 0;
    for (int k = 0; k < NV; ++k)
        for (int j = 0; j < NV; ++j)
            for (int i = 0; i < NV; ++i)
                vortons[m++].position = (eddy_vec3){-0.6f + 0.25f * i, -0.55f + 0.25f * j, 0.3f * k};
    m = 0;
    for (int k = 0; k < NT; ++k)
        for (int j = 0; j < NT; ++j)
            for (int i = 0; i < NT; ++i)
                tracers[m++].position = (eddy_vec3){-0.7f + 0.15f * i, -0.65f + 0.16f * j, 0.17f * k};
    const eddy_velocity_method methods[3] = {EDDY_VELOCITY_TREECODE, EDDY_VELOCITY_DIRECT_GRID,
                                             EDDY_VELOCITY_DIRECT_VORTONS};
    for (int k = 0; k < 3; ++k) {
        eddy_world_def d = test_def();
        d.velocity_method = methods[k];
        eddy_world *w = make_world(&d);
        cr_assert_eq(eddy_world_add_vortons(w, vortons, NV * NV * NV), EDDY_OK);
        cr_assert_eq(eddy_world_add_tracers(w, tracers, NT * NT * NT), EDDY_OK);
        step_n(w, 10, NULL);
        int nv, nt, moved = 0;
        eddy_vorton *v = get_vortons(w, &nv);
        eddy_tracer *t = get_tracers(w, &nt);
        cr_assert_eq(nv, NV * NV * NV);
        cr_assert_eq(nt, NT * NT * NT);
        const eddy_vec3 zero = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < nv; ++i) {
            moved += !same_vec(v[i].position, vortons[i].position);
            cr_expect(v[i].vorticity.x == 0.0f && v[i].vorticity.y == 0.0f &&
                          v[i].vorticity.z == 0.0f, "method %d: vorton %d gained vorticity",
                      (int)methods[k], i);
        }
        for (int i = 0; i < nt; ++i) moved += !same_vec(t[i].position, tracers[i].position);
        const eddy_vec3 u = eddy_world_sample_velocity(w, (eddy_vec3){0.1f, 0.2f, 0.5f});
        cr_expect(u.x == zero.x && u.y == zero.y && u.z == zero.z, "method %d: sampled velocity "
                  "(%g %g %g)", (int)methods[k], (double)u.x, (double)u.y, (double)u.z);
        cr_expect_eq(moved, 0, "method %d: %d particles moved in a quiescent fluid",
                     (int)methods[k], moved);
        free(v);
        free(t);
        eddy_world_destroy(w);
    }
}

/* ================================================================ 7. wind */

/* Centroid displacement with wind W (set by input at the first step) minus
 * the displacement without wind minus W t, after `frames` frames. */
static double wind_defect(eddy_world *calm, eddy_world *windy, eddy_vec3 W, int frames,
                          double disp_out[3]) {
    double a0[3], b0[3], a1[3], b1[3];
    vorton_centroid(calm, a0);
    vorton_centroid(windy, b0);
    eddy_input in;
    memset(&in, 0, sizeof in);
    in.flags = EDDY_INPUT_SET_WIND;
    in.wind = W;
    step_n(windy, 1, &in);
    step_n(windy, frames - 1, NULL);
    step_n(calm, frames, NULL);
    vorton_centroid(calm, a1);
    vorton_centroid(windy, b1);
    const double t = frames * (double)eddy_world_get_def(calm)->dt;
    const double Wd[3] = {(double)W.x, (double)W.y, (double)W.z};
    double e[3];
    for (int k = 0; k < 3; ++k) {
        disp_out[k] = a1[k] - a0[k];
        e[k] = (b1[k] - b0[k]) - disp_out[k] - Wd[k] * t;
    }
    return norm3(e);
}

static const eddy_vec3 k_wind = {0.5f, -0.3f, 0.2f};

/* Exact velocities and no grid-dependent physics (stretch 0, nu 0): the
 * dynamics depends on differences of positions only, so the ring in wind is
 * the calm ring translated by W t up to float rounding. */
Test(physics, wind_is_galilean_direct) {
    thin_ring ring;
    thin_ring_init(&ring, THIN_RING_NH);
    eddy_world *calm = thin_ring_world(&ring, EDDY_VELOCITY_DIRECT_VORTONS, 0.0f);
    eddy_world *windy = thin_ring_world(&ring, EDDY_VELOCITY_DIRECT_VORTONS, 0.0f);
    double disp[3];
    const double e = wind_defect(calm, windy, k_wind, 30, disp);
    cr_log_info("wind, thin ring, direct, 30 frames: calm displacement (%.5f %.5f %.5f), "
                "|windy - calm - W t| = %.2e", disp[0], disp[1], disp[2], e);
    cr_expect_lt(e, 1e-5, "wind is not a pure translation: defect %.3e", e);
    cr_expect_gt(disp[2], 0.0, "the calm ring must move along +z");
    eddy_world_destroy(calm);
    eddy_world_destroy(windy);
    thin_ring_free(&ring);
}

/* The default treecode: a translated particle set lands on a translated grid
 * up to rounding, but a rounding-level shift can move a vorton to the next
 * cell, which changes the treecode's aggregation; the defect is the size of
 * that discretisation noise, not a drift. */
Test(physics, wind_is_galilean_treecode) {
    const physics_knobs k = {0.5f, 0.01f, EDDY_VELOCITY_TREECODE, EDDY_TREECODE_MULTIPOLE, false};
    eddy_world *calm = scene_copy("vortex_ring", tweak_knobs, &k);
    eddy_world *windy = scene_copy("vortex_ring", tweak_knobs, &k);
    double disp[3];
    const double e = wind_defect(calm, windy, k_wind, 60, disp);
    cr_log_info("wind, vortex_ring, treecode, 60 frames: calm displacement (%.4f %.4f %.4f), "
                "|windy - calm - W t| = %.2e", disp[0], disp[1], disp[2], e);
    cr_expect_gt(disp[0], 1.0, "the ring must move along +x: %.4f", disp[0]);
    cr_expect_lt(e, 0.02, "wind defect %.3e (measured ~3e-3 when written)", e);
    eddy_world_destroy(calm);
    eddy_world_destroy(windy);
}

