/* SPDX-License-Identifier: MIT */
/* The world through the public API: definitions and their validation,
 * creation, population, emitters, kill by age, per-frame input, wind,
 * sampling, substeps and independence from the caller's FP mode.
 *
 * lib/fluid/fluid.h is included only for eddy_direct_velocity_at (a reference) and, on
 * x86-64 and aarch64, to read the raw FP control word. */
#include <criterion/criterion.h>

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fluid/fluid.h"
#include "eddy/eddy.h"

/* ---------------------------------------------------------------- helpers */

static eddy_world *make_world(const eddy_world_def *def) {
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(def, &w);
    cr_assert_eq(s, EDDY_OK, "create: %s (%s)", eddy_status_name(s), eddy_last_error_message());
    cr_assert_not_null(w);
    return w;
}

static void step_ok(eddy_world *w, const eddy_input *in) {
    eddy_status s = eddy_world_step(w, in);
    cr_assert_eq(s, EDDY_OK, "step: %s (%s)", eddy_status_name(s), eddy_world_error_message(w));
}

static eddy_vorton vorton_at(float x, float y, float z, float wx, float wy, float wz) {
    eddy_vorton v;
    memset(&v, 0, sizeof v);
    v.position = (eddy_vec3){x, y, z};
    v.vorticity = (eddy_vec3){wx, wy, wz};
    return v;
}

static eddy_tracer tracer_at(float x, float y, float z, int32_t birth) {
    eddy_tracer t;
    memset(&t, 0, sizeof t);
    t.position = (eddy_vec3){x, y, z};
    t.birth_frame = birth;
    return t;
}

/* A vortex ring around the x axis: lattice of spacing h, vortons where the
 * distance to the core circle (radius R) is below T, vorticity
 * (1 - s^2)^2 phi_hat (phi_hat = x_hat cross rho_hat): the ring moves along
 * +x. Returns the count; *radius = h / 2. */
static int ring_vortons(float R, float T, float h, eddy_vorton **out, float *radius) {
    const int m = (int)((R + T) / h) + 1;
    eddy_vorton *v = malloc((size_t)(8 * m * m * m) * sizeof *v);
    int n = 0;
    for (int k = -m; k < m; ++k)
        for (int j = -m; j < m; ++j)
            for (int i = -m; i < m; ++i) {
                float x = ((float)i + 0.5f) * h, y = ((float)j + 0.5f) * h,
                      z = ((float)k + 0.5f) * h;
                float rho = sqrtf(y * y + z * z);
                float dr = rho - R, core = sqrtf(dr * dr + x * x);
                if (!(rho > 0.0f) || !(core < T)) continue;
                float s = core / T, amp = 4.0f * (1.0f - s * s) * (1.0f - s * s);
                v[n++] = vorton_at(x, y, z, 0.0f, -z / rho * amp, y / rho * amp);
            }
    *out = v;
    *radius = 0.5f * h;
    return n;
}

static eddy_world *ring_world(eddy_world_def def, float h, int *count) {
    eddy_vorton *v;
    float r;
    int n = ring_vortons(1.0f, 0.5f, h, &v, &r);
    def.vorton_radius = r;
    eddy_world *w = make_world(&def);
    cr_assert_eq(eddy_world_add_vortons(w, v, n), EDDY_OK);
    free(v);
    if (count) *count = n;
    return w;
}

static eddy_vorton *get_vortons(const eddy_world *w, int *count) {
    int n = eddy_world_vorton_count(w);
    eddy_vorton *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert_eq(eddy_world_get_vortons(w, 0, n, v), n);
    *count = n;
    return v;
}

static eddy_tracer *get_tracers(const eddy_world *w, int *count) {
    int n = eddy_world_tracer_count(w);
    eddy_tracer *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    cr_assert_eq(eddy_world_get_tracers(w, 0, n, t), n);
    *count = n;
    return t;
}

static bool hashes_equal(eddy_frame_hash a, eddy_frame_hash b) {
    if (a.frame != b.frame || a.frame_hash != b.frame_hash) return false;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        if (a.component[c] != b.component[c]) return false;
    return true;
}

static bool vortons_equal(const eddy_world *a, const eddy_world *b) {
    int na, nb;
    eddy_vorton *va = get_vortons(a, &na), *vb = get_vortons(b, &nb);
    bool same = na == nb && memcmp(va, vb, (size_t)na * sizeof *va) == 0;
    free(va);
    free(vb);
    return same;
}

static bool tracers_equal(const eddy_world *a, const eddy_world *b) {
    int na, nb;
    eddy_tracer *ta = get_tracers(a, &na), *tb = get_tracers(b, &nb);
    bool same = na == nb && memcmp(ta, tb, (size_t)na * sizeof *ta) == 0;
    free(ta);
    free(tb);
    return same;
}

/* ---------------------------------------------------------------- definition */

Test(world_def, default_values) {
    eddy_world_def d = eddy_world_def_default();
    cr_expect_eq(d.dt, 1.0f / 30.0f);
    cr_expect_eq(d.substeps, 1);
    cr_expect_eq(d.viscosity, 0.01f);
    cr_expect(d.gravity.x == 0.0f && d.gravity.y == 0.0f && d.gravity.z == -10.0f);
    cr_expect(d.wind.x == 0.0f && d.wind.y == 0.0f && d.wind.z == 0.0f);
    cr_expect(!d.flush_denormals); /* denormals kept: the mode wasm shares */
    cr_expect_eq(d.worker_count, 1);
    /* the rest of the documented defaults (include/eddy/types.h) */
    cr_expect_eq(d.vorticity_dissipation, 0.01f);
    cr_expect_eq(d.density_diffusivity, 1.0e-4f);
    cr_expect_eq(d.density_relaxation, 1.0e-4f);
    cr_expect_eq(d.ambient_density, 1.0f);
    cr_expect_eq(d.stretch_gain, 0.5f);
    cr_expect_eq(d.mollify_length_scale, 1.0f);
    cr_expect_eq(d.velocity_method, EDDY_VELOCITY_TREECODE);
    cr_expect_eq(d.vorton_radius, 0.125f);
    cr_expect_eq(d.tracer_radius, 0.01f);
    cr_expect_eq(d.vorton_max_age, -1);
    cr_expect_eq(d.tracer_max_age, -1);
    cr_expect_eq(d.seed, 1u);
    cr_expect(d.hash_every_step);
    cr_expect(d.enqueue_task == NULL && d.finish_task == NULL && d.worker_start == NULL);
    cr_expect_eq(d.test_mutations, 0u);
    char msg[256] = "junk";
    cr_expect_eq(eddy_world_def_validate(&d, msg, sizeof msg), EDDY_OK);
    cr_expect_str_empty(msg);
}

static void *fake_enqueue(eddy_task_fn *task, int count, int min_range, void *ctx, void *user) {
    task(0, count, 0, ctx);
    return NULL;
}
static void fake_finish(void *task, void *user) {}

typedef struct bad_case {
    const char *what;
    const char *names; /* substring the message must contain */
    void (*apply)(eddy_world_def *);
} bad_case;

static void bad_dt_zero(eddy_world_def *d) { d->dt = 0.0f; }
static void bad_dt_nan(eddy_world_def *d) { d->dt = NAN; }
static void bad_dt_negative(eddy_world_def *d) { d->dt = -0.01f; }
static void bad_substeps_zero(eddy_world_def *d) { d->substeps = 0; }
static void bad_viscosity(eddy_world_def *d) { d->viscosity = -0.001f; }
static void bad_viscosity_inf(eddy_world_def *d) { d->viscosity = INFINITY; }
static void bad_ambient(eddy_world_def *d) { d->ambient_density = 0.0f; }
static void bad_gravity(eddy_world_def *d) { d->gravity.y = NAN; }
static void bad_wind(eddy_world_def *d) { d->wind.z = -INFINITY; }
static void bad_vorton_radius(eddy_world_def *d) { d->vorton_radius = 0.0f; }
static void bad_tracer_radius(eddy_world_def *d) { d->tracer_radius = -1.0f; }
static void bad_workers_zero(eddy_world_def *d) { d->worker_count = 0; }
static void bad_workers_65(eddy_world_def *d) { d->worker_count = 65; }
static void bad_enqueue_only(eddy_world_def *d) { d->enqueue_task = fake_enqueue; }
static void bad_finish_only(eddy_world_def *d) { d->finish_task = fake_finish; }
static void bad_method(eddy_world_def *d) { d->velocity_method = (eddy_velocity_method)4; }
static void bad_vorton_walk(eddy_world_def *d) {
    d->velocity_method = EDDY_VELOCITY_TREECODE_VORTONS;
    d->treecode_traversal = EDDY_TREECODE_ORIGINAL;
}
static void bad_method_negative(eddy_world_def *d) { d->velocity_method = (eddy_velocity_method)-1; }
static void bad_mutation(eddy_world_def *d) { d->test_mutations = 1u << 31; }
static void bad_cookie(eddy_world_def *d) { d->internal_value = 0; }
static void bad_max_age(eddy_world_def *d) { d->tracer_max_age = -2; }
static void bad_stretch(eddy_world_def *d) { d->stretch_gain = NAN; }
static void bad_mollify(eddy_world_def *d) { d->mollify_length_scale = -1.0f; }
static void bad_dissipation(eddy_world_def *d) { d->vorticity_dissipation = 40.0f; }

static const bad_case k_bad[] = {
    {"dt 0", "dt must", bad_dt_zero},
    {"dt NaN", "dt must", bad_dt_nan},
    {"dt < 0", "dt must", bad_dt_negative},
    {"substeps 0", "substeps", bad_substeps_zero},
    {"viscosity < 0", "viscosity", bad_viscosity},
    {"viscosity inf", "viscosity", bad_viscosity_inf},
    {"ambient_density 0", "ambient_density", bad_ambient},
    {"gravity NaN", "gravity", bad_gravity},
    {"wind -inf", "wind", bad_wind},
    {"vorton_radius 0", "vorton_radius", bad_vorton_radius},
    {"tracer_radius -1", "tracer_radius", bad_tracer_radius},
    {"worker_count 0", "worker_count", bad_workers_zero},
    {"worker_count 65", "worker_count", bad_workers_65},
    {"enqueue without finish", "finish_task", bad_enqueue_only},
    {"finish without enqueue", "enqueue_task", bad_finish_only},
    {"velocity_method 4", "velocity_method", bad_method},
    {"walk at the vortons, original traversal", "EDDY_TREECODE_MULTIPOLE", bad_vorton_walk},
    {"velocity_method -1", "velocity_method", bad_method_negative},
    {"unknown test_mutations bit", "test_mutations", bad_mutation},
    /* The message names the fix rather than the private field. */
    {"def not from eddy_world_def_default", "eddy_world_def_default", bad_cookie},
    {"tracer_max_age -2", "tracer_max_age", bad_max_age},
    {"stretch_gain NaN", "stretch_gain", bad_stretch},
    {"mollify_length_scale -1", "mollify_length_scale", bad_mollify},
    {"vorticity_dissipation * dt >= 1", "vorticity_dissipation", bad_dissipation},
};
enum { BAD_COUNT = sizeof k_bad / sizeof k_bad[0] };

Test(world_def, validate_rejects_each_bad_field) {
    for (int k = 0; k < BAD_COUNT; ++k) {
        eddy_world_def d = eddy_world_def_default();
        k_bad[k].apply(&d);
        char msg[256];
        memset(msg, 'x', sizeof msg);
        eddy_status s = eddy_world_def_validate(&d, msg, sizeof msg);
        cr_expect_eq(s, EDDY_ERROR_INVALID_DEF, "%s: status %s", k_bad[k].what,
                     eddy_status_name(s));
        cr_expect(memchr(msg, '\0', sizeof msg) != NULL, "%s: message not terminated",
                  k_bad[k].what);
        cr_expect(strstr(msg, k_bad[k].names) != NULL, "%s: message \"%s\" does not name %s",
                  k_bad[k].what, msg, k_bad[k].names);
        /* No message buffer, or a tiny one: same status, no overflow. */
        cr_expect_eq(eddy_world_def_validate(&d, NULL, 0), EDDY_ERROR_INVALID_DEF);
        char tiny[4] = {'a', 'b', 'c', 'd'};
        cr_expect_eq(eddy_world_def_validate(&d, tiny, 3), EDDY_ERROR_INVALID_DEF);
        cr_expect(tiny[2] == '\0' && tiny[3] == 'd', "%s: tiny buffer overrun", k_bad[k].what);
    }
    cr_expect_eq(eddy_world_def_validate(NULL, NULL, 0), EDDY_ERROR_INVALID_ARGUMENT);
    /* Edges that are valid. */
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 64;
    d.viscosity = 0.0f;
    d.dt = 1.0f;
    d.vorticity_dissipation = 0.0f;
    d.substeps = 64;
    d.enqueue_task = fake_enqueue;
    d.finish_task = fake_finish;
    d.test_mutations = EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION | EDDY_MUTATION_SKIP_WORKER_FP_MODE;
    d.velocity_method = EDDY_VELOCITY_DIRECT_VORTONS;
    cr_expect_eq(eddy_world_def_validate(&d, NULL, 0), EDDY_OK);
}

Test(world_def, create_reports_bad_def) {
    for (int k = 0; k < BAD_COUNT; ++k) {
        eddy_world_def d = eddy_world_def_default();
        k_bad[k].apply(&d);
        eddy_world *w = (eddy_world *)&d; /* garbage that must be overwritten */
        eddy_status s = eddy_world_create(&d, &w);
        cr_expect_eq(s, EDDY_ERROR_INVALID_DEF, "%s: status %s", k_bad[k].what,
                     eddy_status_name(s));
        cr_expect_null(w, "%s: *out not NULL", k_bad[k].what);
        cr_expect(strstr(eddy_last_error_message(), k_bad[k].names) != NULL,
                  "%s: last error \"%s\"", k_bad[k].what, eddy_last_error_message());
    }
    eddy_world *w = (eddy_world *)&w;
    cr_expect_eq(eddy_world_create(NULL, &w), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_null(w);
    eddy_world_def d = eddy_world_def_default();
    cr_expect_eq(eddy_world_create(&d, NULL), EDDY_ERROR_INVALID_ARGUMENT);
    /* A success clears the thread's last error. */
    w = make_world(&d);
    cr_expect_str_empty(eddy_last_error_message());
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- lifetime */

Test(world, create_and_destroy) {
    eddy_world_destroy(NULL);
    eddy_world_def d = eddy_world_def_default();
    d.dt = 0.02f;
    eddy_world *w = make_world(&d);
    cr_expect_eq(eddy_world_frame(w), 0);
    cr_expect_eq(eddy_world_vorton_count(w), 0);
    cr_expect_eq(eddy_world_tracer_count(w), 0);
    cr_expect_eq(eddy_world_worker_count(w), 1);
    cr_expect_eq(eddy_world_get_def(w)->dt, 0.02f);
    cr_expect_str_empty(eddy_world_error_message(w));
    eddy_grid_info gi = eddy_world_get_grid_info(w);
    cr_expect(gi.cells[0] == 0 && gi.tree_levels == 0, "no grid before the first step");
    /* An empty world steps. */
    step_ok(w, NULL);
    cr_expect_eq(eddy_world_frame(w), 1);
    eddy_world_destroy(w);
    /* Several worlds side by side, one with its own pool. */
    eddy_world *ws[4];
    for (int k = 0; k < 4; ++k) {
        d.worker_count = 1 + (k == 3);
        ws[k] = make_world(&d);
    }
    cr_expect_eq(eddy_world_worker_count(ws[3]), 2);
    for (int k = 0; k < 4; ++k) step_ok(ws[k], NULL);
    for (int k = 3; k >= 0; --k) eddy_world_destroy(ws[k]);
}

Test(world, frame_counter_increments) {
    eddy_world_def d = eddy_world_def_default();
    int n;
    eddy_world *w = ring_world(d, 0.25f, &n);
    for (int64_t f = 0; f < 6; ++f) {
        cr_assert_eq(eddy_world_frame(w), f);
        step_ok(w, NULL);
        cr_assert_eq(eddy_world_frame(w), f + 1);
        cr_assert_eq(eddy_world_hash(w).frame, f + 1);
    }
    cr_expect_eq(eddy_world_step(NULL, NULL), EDDY_ERROR_INVALID_ARGUMENT);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- population */

Test(world, add_and_read_back) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = make_world(&d);
    eddy_vorton v[3] = {vorton_at(1, 2, 3, 0.5f, 0, 0), vorton_at(-1, 0, 0.25f, 0, 1, 0),
                        vorton_at(0, 0, 0, 0, 0, -2)};
    v[1].velocity = (eddy_vec3){0.125f, 0, 0};
    v[1].density_deviation = 0.5f;
    v[2].birth_frame = -4;
    cr_assert_eq(eddy_world_add_vortons(w, v, 3), EDDY_OK);
    cr_assert_eq(eddy_world_add_vortons(w, v, 0), EDDY_OK);
    cr_assert_eq(eddy_world_vorton_count(w), 3);
    eddy_vorton out[4];
    cr_assert_eq(eddy_world_get_vortons(w, 0, 4, out), 3);
    cr_assert(memcmp(out, v, sizeof v) == 0);
    cr_assert_eq(eddy_world_get_vortons(w, 1, 1, out), 1);
    cr_assert(memcmp(&out[0], &v[1], sizeof v[1]) == 0);
    cr_assert_eq(eddy_world_get_vortons(w, 3, 1, out), 0);
    cr_assert_eq(eddy_world_get_vortons(w, -1, 2, out), 0);
    eddy_tracer t[2] = {tracer_at(1, 1, 1, 0), tracer_at(2, 2, 2, 7)};
    cr_assert_eq(eddy_world_add_tracers(w, t, 2), EDDY_OK);
    eddy_tracer tout[2];
    cr_assert_eq(eddy_world_get_tracers(w, 0, 2, tout), 2);
    cr_assert(memcmp(tout, t, sizeof t) == 0);
    /* bad arguments */
    cr_expect_eq(eddy_world_add_vortons(w, NULL, 2), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_add_vortons(w, v, -1), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_add_tracers(NULL, t, 1), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_vorton_count(w), 3);
    cr_expect_eq(eddy_world_tracer_count(w), 2);
    eddy_world_destroy(w);
}

Test(world, add_rejects_nan_and_adds_nothing) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = make_world(&d);
    eddy_vorton good[2] = {vorton_at(0, 0, 0, 1, 0, 0), vorton_at(1, 0, 0, 0, 1, 0)};
    cr_assert_eq(eddy_world_add_vortons(w, good, 2), EDDY_OK);
    for (int field = 0; field < 5; ++field) {
        eddy_vorton batch[3] = {vorton_at(3, 3, 3, 1, 1, 1), vorton_at(4, 4, 4, 1, 1, 1),
                                vorton_at(5, 5, 5, 1, 1, 1)};
        switch (field) {
        case 0: batch[1].position.y = NAN; break;
        case 1: batch[2].vorticity.x = INFINITY; break;
        case 2: batch[1].velocity.z = NAN; break;
        case 3: batch[2].density_deviation = NAN; break;
        default: batch[1].position.x = -INFINITY; break;
        }
        cr_expect_eq(eddy_world_add_vortons(w, batch, 3), EDDY_ERROR_NAN, "field %d", field);
        cr_expect_eq(eddy_world_vorton_count(w), 2, "field %d: count changed", field);
        cr_expect(strstr(eddy_world_error_message(w), "NaN") != NULL);
    }
    eddy_tracer tb[2] = {tracer_at(0, 0, 0, 0), tracer_at(NAN, 0, 0, 0)};
    cr_expect_eq(eddy_world_add_tracers(w, tb, 2), EDDY_ERROR_NAN);
    tb[1] = tracer_at(0, 0, 0, 0);
    tb[0].density_deviation = INFINITY;
    cr_expect_eq(eddy_world_add_tracers(w, tb, 2), EDDY_ERROR_NAN);
    cr_expect_eq(eddy_world_tracer_count(w), 0);
    eddy_vorton out[2];
    cr_assert_eq(eddy_world_get_vortons(w, 0, 2, out), 2);
    cr_expect(memcmp(out, good, sizeof good) == 0);
    eddy_world_destroy(w);
}

Test(world, population_only_before_first_step) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = make_world(&d);
    eddy_vorton v = vorton_at(0, 0, 0, 0, 0, 1);
    eddy_tracer t = tracer_at(0.5f, 0, 0, 0);
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_OK);
    cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
    eddy_emitter_def ed = eddy_emitter_def_default();
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    step_ok(w, NULL);
    eddy_frame_hash h = eddy_world_hash(w);
    cr_expect_eq(eddy_world_add_vortons(w, &v, 1), EDDY_ERROR_WRONG_STATE);
    cr_expect_eq(eddy_world_add_tracers(w, &t, 1), EDDY_ERROR_WRONG_STATE);
    cr_expect_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_ERROR_WRONG_STATE);
    cr_expect(id.index1 == 0, "failed create_emitter must return the null id");
    cr_expect_eq(eddy_world_vorton_count(w), 1);
    cr_expect_eq(eddy_world_tracer_count(w), 1);
    cr_expect(strlen(eddy_world_error_message(w)) > 0);
    cr_expect(hashes_equal(h, eddy_world_hash(w)), "a refused call changed the state");
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- emitters */

/* Over N frames an emitter makes floor(rate * dt * N) particles within one:
 * the fractional part of rate * dt is carried from frame to frame (a rate
 * below one particle per frame still emits). */
Test(emitter, count_follows_rate_with_remainder) {
    const float rates[][2] = {{9.0f, 0.0f}, {7.3f, 2.9f}, {100.0f, 13.7f}, {0.5f, 0.0f}};
    for (int substeps = 1; substeps <= 2; ++substeps)
        for (size_t k = 0; k < sizeof rates / sizeof rates[0]; ++k) {
            eddy_world_def d = eddy_world_def_default();
            d.substeps = substeps;
            eddy_world *w = make_world(&d);
            eddy_emitter_def ed = eddy_emitter_def_default();
            ed.tracer_rate = rates[k][0];
            ed.vorton_rate = rates[k][1];
            ed.position_spread = (eddy_vec3){0.5f, 0.5f, 0.5f};
            ed.vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
            eddy_emitter_id id;
            cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
            cr_assert(id.index1 != 0);
            for (int f = 1; f <= 75; ++f) {
                step_ok(w, NULL);
                double want_t = floor((double)rates[k][0] * (double)d.dt * f);
                double want_v = floor((double)rates[k][1] * (double)d.dt * f);
                cr_assert(fabs(eddy_world_tracer_count(w) - want_t) <= 1.0,
                          "rate %g, %d substeps, frame %d: %d tracers, expected %g",
                          (double)rates[k][0], substeps, f, eddy_world_tracer_count(w), want_t);
                cr_assert(fabs(eddy_world_vorton_count(w) - want_v) <= 1.0,
                          "rate %g, frame %d: %d vortons, expected %g", (double)rates[k][1], f,
                          eddy_world_vorton_count(w), want_v);
            }
            eddy_world_destroy(w);
        }
}

/* Emitted particles: birth = frame of emission, position within the jitter
 * box, velocity and vorticity from the template (vorticity within its
 * spread). */
Test(emitter, emitted_particles_follow_the_template) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = make_world(&d);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 60.0f;
    ed.position = (eddy_vec3){1.0f, -2.0f, 3.0f};
    ed.position_spread = (eddy_vec3){0.5f, 0.25f, 0.0f};
    ed.density_deviation = 0.125f;
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    for (int f = 0; f < 5; ++f) step_ok(w, NULL);
    int n;
    eddy_tracer *t = get_tracers(w, &n);
    cr_assert_eq(n, 10);
    for (int i = 0; i < n; ++i) {
        cr_expect_eq(t[i].birth_frame, i / 2, "tracer %d born in frame %d", i, t[i].birth_frame);
        cr_expect(fabsf(t[i].position.x - 1.0f) <= 0.25f && fabsf(t[i].position.y + 2.0f) <= 0.125f &&
                  t[i].position.z == 3.0f);
        cr_expect_eq(t[i].density_deviation, 0.125f);
    }
    /* the jitter is random, not constant */
    cr_expect(t[0].position.x != t[1].position.x);
    free(t);
    eddy_world_destroy(w);
}

/* Commands: BURST emits exactly the count in the next step, DISABLE stops
 * the rate, MOVE moves where new particles appear, SET_RATES changes rates. */
Test(emitter, commands) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = make_world(&d);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 30.0f; /* one per frame */
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    step_ok(w, NULL);
    cr_assert_eq(eddy_world_tracer_count(w), 1);
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.emitter = id;
    c.type = EDDY_EMITTER_DISABLE;
    eddy_input in = {0};
    in.emitter_commands = &c;
    in.emitter_command_count = 1;
    step_ok(w, &in);
    step_ok(w, NULL);
    cr_assert_eq(eddy_world_tracer_count(w), 1, "disabled emitter emitted");
    c.type = EDDY_EMITTER_BURST;
    c.tracer_count = 5;
    step_ok(w, &in);
    cr_assert_eq(eddy_world_tracer_count(w), 6, "burst of 5 while disabled");
    c.type = EDDY_EMITTER_MOVE;
    c.position = (eddy_vec3){10.0f, 0.0f, 0.0f};
    step_ok(w, &in);
    c.type = EDDY_EMITTER_ENABLE;
    step_ok(w, &in);
    cr_assert_eq(eddy_world_tracer_count(w), 7);
    eddy_tracer last;
    cr_assert_eq(eddy_world_get_tracers(w, 6, 1, &last), 1);
    cr_expect_eq(last.position.x, 10.0f, "moved emitter");
    c.type = EDDY_EMITTER_SET_RATES;
    c.tracer_rate = 90.0f; /* three per frame */
    step_ok(w, &in);
    cr_assert_eq(eddy_world_tracer_count(w), 10);
    eddy_world_destroy(w);
}

/* A burst large enough to be written in parallel chunks (lib/fluid/emit.c) gives
 * the bits, and the ids, of drawing its particles one after another
 * (EDDY_MUTATION_SERIAL_EMISSION), at 1 and 3 workers; the bursts are
 * followed by a small rate (the serial path) so that the generator's state
 * after a burst is checked too. */
static void burst_trace(int workers, uint32_t mutations, uint64_t hashes[6], uint64_t ids[4]) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = workers;
    d.test_mutations = mutations;
    d.particle_ids = true;
    eddy_world *w = make_world(&d);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 90.0f;
    ed.vorton_rate = 30.0f;
    ed.position_spread = (eddy_vec3){2.0f, 1.0f, 0.5f};
    ed.vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    ed.vorticity_spread = (eddy_vec3){0.5f, 0.5f, 0.5f};
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    for (int f = 0; f < 6; ++f) {
        eddy_emitter_command c;
        memset(&c, 0, sizeof c);
        c.emitter = id;
        c.type = EDDY_EMITTER_BURST;
        c.tracer_count = f == 0 ? 20000 : f == 3 ? 9000 : 0;
        c.vorton_count = f == 0 ? 10000 : 0;
        eddy_input in = {0};
        in.emitter_commands = &c;
        in.emitter_command_count = 1;
        step_ok(w, &in);
        hashes[f] = eddy_world_hash(w).frame_hash;
    }
    const eddy_particle_view t = eddy_world_view_tracers(w), v = eddy_world_view_vortons(w);
    cr_assert(t.id && v.id && t.count > 29000 && v.count > 10000);
    ids[0] = t.id[0], ids[1] = t.id[t.count - 1], ids[2] = v.id[5000], ids[3] = v.id[v.count - 1];
    for (int i = 1; i < t.count; ++i) cr_assert_eq(t.id[i], t.id[i - 1] + 1, "tracer ids at %d", i);
    eddy_world_destroy(w);
}

Test(emitter, burst_in_chunks_is_the_serial_draw, .timeout = 120) {
    uint64_t serial[6], ids_serial[4];
    burst_trace(1, EDDY_MUTATION_SERIAL_EMISSION, serial, ids_serial);
    for (int workers = 1; workers <= 3; workers += 2) {
        uint64_t chunked[6], ids[4];
        burst_trace(workers, EDDY_MUTATION_NONE, chunked, ids);
        for (int f = 0; f < 6; ++f)
            cr_expect_eq(chunked[f], serial[f], "%d workers: frame %d differs", workers, f + 1);
        for (int k = 0; k < 4; ++k) cr_expect_eq(ids[k], ids_serial[k], "%d workers: id %d", workers, k);
    }
}

/* ---------------------------------------------------------------- kill by age */

/* Tracers (no vortons, no wind: they never move) carry their id in
 * position.x. After the step that runs at frame F the array must be exactly
 * the previous array without the tracers with F - birth > max_age, in the
 * same order, followed by the tracers emitted in frame F. */
static void check_stable_compaction_by_age(int N0, int workers) {
    eddy_world_def d = eddy_world_def_default();
    d.tracer_max_age = 3;
    d.worker_count = workers;
    eddy_world *w = make_world(&d);
    eddy_tracer *t0 = malloc((size_t)N0 * sizeof *t0);
    cr_assert_not_null(t0);
    for (int i = 0; i < N0; ++i) t0[i] = tracer_at((float)i, 0.5f, 0.25f, -((i * 5) % 9));
    cr_assert_eq(eddy_world_add_tracers(w, t0, N0), EDDY_OK);
    free(t0);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 45.0f; /* 1.5 per frame */
    ed.position = (eddy_vec3){1000.0f, 0.0f, 0.0f};
    ed.position_spread = (eddy_vec3){100.0f, 0.0f, 0.0f};
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    int killed_total = 0, kept_at_limit = 0;
    for (int f = 0; f < 14; ++f) {
        int np;
        eddy_tracer *prev = get_tracers(w, &np);
        step_ok(w, NULL);
        int n;
        eddy_tracer *cur = get_tracers(w, &n);
        int m = 0;
        for (int i = 0; i < np; ++i) {
            int age = f - prev[i].birth_frame;
            if (age > d.tracer_max_age) {
                ++killed_total;
                continue;
            }
            if (age == d.tracer_max_age) ++kept_at_limit;
            cr_assert(m < n, "frame %d: too few survivors", f);
            cr_assert(memcmp(&cur[m].position, &prev[i].position, sizeof(eddy_vec3)) == 0 &&
                          cur[m].birth_frame == prev[i].birth_frame,
                      "frame %d: survivor %d is id %g, expected %g", f, m,
                      (double)cur[m].position.x, (double)prev[i].position.x);
            ++m;
        }
        for (int i = m; i < n; ++i)
            cr_assert_eq(cur[i].birth_frame, f, "frame %d: tail %d is not newly emitted", f, i);
        cr_assert(n - m >= 1 && n - m <= 2, "frame %d: %d emitted", f, n - m);
        free(prev);
        free(cur);
    }
    cr_expect(killed_total > N0, "the test killed %d", killed_total);
    cr_expect(kept_at_limit > 0, "age == max_age must survive");
    eddy_world_destroy(w);
}

Test(kill, stable_compaction_by_age) { check_stable_compaction_by_age(200, 1); }

/* Enough tracers that the field arrays are moved one per chunk in parallel. */
Test(kill, stable_compaction_by_age_parallel) { check_stable_compaction_by_age(40000, 2); }

/* Tracers born in order die as a prefix: the step drops it by moving the
 * field pointers (the array's head), and slides the tracers back to the
 * start of their allocations when the room after the last one runs low.
 * Through all of it the array is exactly the survivors, in order, then the
 * tracers emitted in the frame, and the allocations never grow. */
Test(kill, dead_prefix_is_dropped_in_place_then_slid_back) {
    enum { N0 = 40000, MAX_AGE = 20, FRAMES = 60 };
    eddy_world_def d = eddy_world_def_default();
    d.tracer_max_age = MAX_AGE;
    d.worker_count = 2;
    eddy_world *w = make_world(&d);
    eddy_tracer *t0 = malloc((size_t)N0 * sizeof *t0);
    cr_assert_not_null(t0);
    for (int i = 0; i < N0; ++i) t0[i] = tracer_at((float)i, 0.5f, 0.25f, -MAX_AGE + i / (N0 / MAX_AGE));
    cr_assert_eq(eddy_world_add_tracers(w, t0, N0), EDDY_OK);
    free(t0);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 30.0f * (N0 / MAX_AGE); /* as many born as die */
    ed.position = (eddy_vec3){-1000.0f, 0.0f, 0.0f};
    ed.position_spread = (eddy_vec3){100.0f, 0.0f, 0.0f};
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    const int allocated = w->tracers.capacity + w->tracers.head;
    int max_head = 0, slides = 0;
    for (int f = 0; f < FRAMES; ++f) {
        int np;
        eddy_tracer *prev = get_tracers(w, &np);
        const int head_before = w->tracers.head;
        step_ok(w, NULL);
        if (w->tracers.head < head_before) ++slides;
        if (w->tracers.head > max_head) max_head = w->tracers.head;
        cr_assert_eq(w->tracers.capacity + w->tracers.head, allocated, "frame %d: reallocated", f);
        int n;
        eddy_tracer *cur = get_tracers(w, &n);
        int m = 0;
        for (int i = 0; i < np; ++i) {
            if (f - prev[i].birth_frame > MAX_AGE) continue;
            cr_assert(m < n, "frame %d: too few survivors", f);
            cr_assert(memcmp(&cur[m].position, &prev[i].position, sizeof(eddy_vec3)) == 0 &&
                          cur[m].birth_frame == prev[i].birth_frame,
                      "frame %d: survivor %d differs", f, m);
            ++m;
        }
        cr_assert(abs(n - m - N0 / MAX_AGE) <= 1, "frame %d: %d emitted", f, n - m);
        for (int i = m; i < n; ++i) cr_assert_eq(cur[i].birth_frame, f, "frame %d: tail %d", f, i);
        free(prev);
        free(cur);
    }
    cr_expect(max_head >= N0 / 2, "the dead prefixes were dropped in place (head reached %d)", max_head);
    cr_expect(slides >= 1, "the tracers slid back to the start of their allocations");
    eddy_world_destroy(w);
}

/* Vortons: the survivors keep their relative order (read through their
 * birth frames, which nothing else changes). */
Test(kill, vortons_by_age_keep_order) {
    eddy_world_def d = eddy_world_def_default();
    d.vorton_max_age = 2;
    eddy_vorton *v;
    float r;
    int n = ring_vortons(1.0f, 0.5f, 0.25f, &v, &r);
    d.vorton_radius = r;
    for (int i = 0; i < n; ++i) v[i].birth_frame = -((i * 7) % 11);
    eddy_world *w = make_world(&d);
    cr_assert_eq(eddy_world_add_vortons(w, v, n), EDDY_OK);
    int32_t *births = malloc((size_t)n * sizeof *births);
    int count = n;
    for (int i = 0; i < n; ++i) births[i] = v[i].birth_frame;
    for (int f = 0; f < 12; ++f) {
        step_ok(w, NULL);
        int m = 0;
        for (int i = 0; i < count; ++i)
            if (f - births[i] <= d.vorton_max_age) births[m++] = births[i];
        count = m;
        int got;
        eddy_vorton *cur = get_vortons(w, &got);
        cr_assert_eq(got, count, "frame %d", f);
        for (int i = 0; i < count; ++i) cr_assert_eq(cur[i].birth_frame, births[i]);
        free(cur);
    }
    cr_expect_eq(count, 0, "everything is older than 2 frames by frame 12");
    free(births);
    free(v);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- input */

/* A world with vortons, tracers and an emitter, stepped a few frames; its
 * twin gets identical calls except for the refused ones. */
static eddy_world *busy_world(void) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = ring_world(d, 0.25f, NULL);
    eddy_tracer t[3] = {tracer_at(0, 1, 0, 0), tracer_at(0.2f, -1, 0, 0), tracer_at(0, 0, 0.5f, 0)};
    cr_assert_eq(eddy_world_add_tracers(w, t, 3), EDDY_OK);
    eddy_emitter_def ed = eddy_emitter_def_default();
    ed.tracer_rate = 20.0f;
    ed.vorton_rate = 5.0f;
    ed.position_spread = (eddy_vec3){0.3f, 0.3f, 0.3f};
    ed.vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &ed, &id), EDDY_OK);
    cr_assert(id.index1 == 1);
    for (int f = 0; f < 3; ++f) step_ok(w, NULL);
    return w;
}

static void expect_refused(eddy_world *w, eddy_world *twin, const eddy_input *bad,
                           eddy_status want, const char *what) {
    const eddy_frame_hash h = eddy_world_hash(w);
    const int64_t frame = eddy_world_frame(w);
    eddy_status s = eddy_world_step(w, bad);
    cr_assert_eq(s, want, "%s: %s", what, eddy_status_name(s));
    cr_assert(strlen(eddy_world_error_message(w)) > 0, "%s: no message", what);
    cr_assert_eq(eddy_world_frame(w), frame, "%s: frame advanced", what);
    cr_assert(hashes_equal(h, eddy_world_hash(w)), "%s: hash changed", what);
    cr_assert(vortons_equal(w, twin) && tracers_equal(w, twin), "%s: particles changed", what);
    /* Nothing was half-applied: the next good step matches the twin's. */
    eddy_input none = {0};
    step_ok(w, &none);
    step_ok(twin, &none);
    cr_assert(hashes_equal(eddy_world_hash(w), eddy_world_hash(twin)), "%s: diverged", what);
    cr_assert(vortons_equal(w, twin) && tracers_equal(w, twin), "%s: diverged", what);
}

Test(input, stale_emitter_id_changes_nothing) {
    eddy_world *w = busy_world(), *twin = busy_world();
    cr_assert(hashes_equal(eddy_world_hash(w), eddy_world_hash(twin)));
    const eddy_emitter_id stale[] = {{2, 1}, {1, 2}, {0, 0}, {-3, 1}, {1, 0}};
    for (size_t k = 0; k < sizeof stale / sizeof stale[0]; ++k) {
        /* a valid command first, then the stale one: neither is applied */
        eddy_emitter_command c[2];
        memset(c, 0, sizeof c);
        c[0].emitter = (eddy_emitter_id){1, 1};
        c[0].type = EDDY_EMITTER_BURST;
        c[0].vorton_count = 10;
        c[0].tracer_count = 10;
        c[1].emitter = stale[k];
        c[1].type = EDDY_EMITTER_DISABLE;
        eddy_input in = {0};
        in.flags = EDDY_INPUT_SET_WIND;
        in.wind = (eddy_vec3){1.0f, 0.0f, 0.0f};
        in.emitter_commands = c;
        in.emitter_command_count = 2;
        char what[64];
        snprintf(what, sizeof what, "stale id {%d, %u}", stale[k].index1,
                 (unsigned)stale[k].generation);
        expect_refused(w, twin, &in, EDDY_ERROR_NOT_FOUND, what);
    }
    eddy_world_destroy(w);
    eddy_world_destroy(twin);
}

Test(input, nan_or_bad_input_changes_nothing) {
    eddy_world *w = busy_world(), *twin = busy_world();
    eddy_input in = {0};
    in.flags = EDDY_INPUT_SET_WIND;
    in.wind = (eddy_vec3){0.0f, NAN, 0.0f};
    expect_refused(w, twin, &in, EDDY_ERROR_NAN, "NaN wind");
    in.wind = (eddy_vec3){INFINITY, 0.0f, 0.0f};
    expect_refused(w, twin, &in, EDDY_ERROR_NAN, "infinite wind");
    in.flags = EDDY_INPUT_SET_GRAVITY;
    in.gravity = (eddy_vec3){0.0f, 0.0f, NAN};
    expect_refused(w, twin, &in, EDDY_ERROR_NAN, "NaN gravity");
    memset(&in, 0, sizeof in);
    in.flags = 1u << 9;
    expect_refused(w, twin, &in, EDDY_ERROR_INVALID_ARGUMENT, "unknown flag");
    memset(&in, 0, sizeof in);
    in.emitter_command_count = 1; /* NULL commands */
    expect_refused(w, twin, &in, EDDY_ERROR_INVALID_ARGUMENT, "NULL commands");
    eddy_emitter_command c;
    memset(&c, 0, sizeof c);
    c.emitter = (eddy_emitter_id){1, 1};
    c.type = EDDY_EMITTER_MOVE;
    c.position = (eddy_vec3){NAN, 0.0f, 0.0f};
    in.emitter_commands = &c;
    expect_refused(w, twin, &in, EDDY_ERROR_NAN, "NaN move");
    c.type = EDDY_EMITTER_SET_RATES;
    c.vorton_rate = -1.0f;
    expect_refused(w, twin, &in, EDDY_ERROR_INVALID_ARGUMENT, "negative rate");
    c.type = (eddy_emitter_command_type)42;
    expect_refused(w, twin, &in, EDDY_ERROR_INVALID_ARGUMENT, "unknown command");
    eddy_world_destroy(w);
    eddy_world_destroy(twin);
}

/* A lone tracer (no vortons: no velocity grid) moves by wind * dt per step,
 * bitwise: x += w * dt in float, dt = def.dt / substeps per substep. The wind
 * set by input persists. */
Test(input, wind_moves_lone_tracer_exactly) {
    for (int substeps = 1; substeps <= 3; ++substeps) {
        eddy_world_def d = eddy_world_def_default();
        d.substeps = substeps;
        eddy_world *w = make_world(&d);
        eddy_tracer t = tracer_at(1.0f, 2.0f, 3.0f, 0);
        cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
        const eddy_vec3 wind = {0.7f, -0.3f, 1.9f};
        const float dt = d.dt / (float)substeps;
        float x = 1.0f, y = 2.0f, z = 3.0f;
        eddy_vec3 s0 = eddy_world_sample_velocity(w, (eddy_vec3){0.0f, 0.0f, 0.0f});
        cr_expect(s0.x == 0.0f && s0.y == 0.0f && s0.z == 0.0f);
        for (int f = 0; f < 20; ++f) {
            eddy_input in = {0};
            if (f == 0) {
                in.flags = EDDY_INPUT_SET_WIND;
                in.wind = wind;
            }
            step_ok(w, &in);
            for (int k = 0; k < substeps; ++k) {
                x = x + wind.x * dt;
                y = y + wind.y * dt;
                z = z + wind.z * dt;
            }
            eddy_tracer got;
            cr_assert_eq(eddy_world_get_tracers(w, 0, 1, &got), 1);
            cr_assert(got.position.x == x && got.position.y == y && got.position.z == z,
                      "%d substeps, frame %d: (%a %a %a) vs (%a %a %a)", substeps, f,
                      (double)got.position.x, (double)got.position.y, (double)got.position.z,
                      (double)x, (double)y, (double)z);
            cr_assert(got.velocity.x == wind.x && got.velocity.y == wind.y &&
                      got.velocity.z == wind.z);
            eddy_vec3 s = eddy_world_sample_velocity(w, (eddy_vec3){5.0f, 5.0f, 5.0f});
            cr_assert(s.x == wind.x && s.y == wind.y && s.z == wind.z);
        }
        eddy_world_destroy(w);
    }
}

/* ---------------------------------------------------------------- sampling */

/* Vortons are advected with this step's grid (+ wind) from where they were
 * when the grid was built, so each vorton's velocity after the first step is
 * the sampled velocity at its initial position, bitwise. */
Test(sample, vorton_velocity_is_sampled_velocity) {
    eddy_world_def d = eddy_world_def_default();
    d.wind = (eddy_vec3){0.25f, 0.0f, -0.125f};
    int n;
    eddy_world *w = ring_world(d, 0.2f, &n);
    int n0;
    eddy_vorton *before = get_vortons(w, &n0);
    eddy_vec3 s = eddy_world_sample_velocity(w, before[0].position);
    cr_expect(s.x == d.wind.x && s.y == d.wind.y && s.z == d.wind.z, "no grid yet: wind only");
    step_ok(w, NULL);
    eddy_vorton *after = get_vortons(w, &n);
    cr_assert_eq(n, n0);
    double speed = 0.0;
    for (int i = 0; i < n; ++i) {
        eddy_vec3 u = eddy_world_sample_velocity(w, before[i].position);
        cr_assert(u.x == after[i].velocity.x && u.y == after[i].velocity.y &&
                      u.z == after[i].velocity.z,
                  "vorton %d: sampled (%a %a %a), vorton (%a %a %a)", i, (double)u.x, (double)u.y,
                  (double)u.z, (double)after[i].velocity.x, (double)after[i].velocity.y,
                  (double)after[i].velocity.z);
        speed += (double)(u.x - d.wind.x);
    }
    cr_log_info("ring: mean self-induced x velocity %.4f", speed / n);
    /* The ring moves along +x (its impulse direction). */
    cr_expect(speed / n > 0.02, "mean self-induced x velocity %g", speed / n);
    eddy_grid_info gi = eddy_world_get_grid_info(w);
    for (int a = 0; a < 3; ++a) cr_expect(gi.cells[a] >= 1 && (gi.cells[a] & (gi.cells[a] - 1)) == 0);
    cr_expect(gi.tree_levels >= 2);
    cr_expect(gi.mollification >= 1.0f);
    free(before);
    free(after);
    eddy_world_destroy(w);
}

/* With direct summation on the grid, the sampled velocity at a grid point is
 * the direct sum over the initial vortons there (+ wind). */
Test(sample, direct_grid_at_grid_points) {
    eddy_world_def d = eddy_world_def_default();
    d.velocity_method = EDDY_VELOCITY_DIRECT_GRID;
    d.wind = (eddy_vec3){0.0f, 0.5f, 0.0f};
    int n;
    eddy_world *w = ring_world(d, 0.25f, &n);
    eddy_vorton *v = get_vortons(w, &n);
    particle_array pa;
    memset(&pa, 0, sizeof pa);
    pa.has_vorticity = true;
    cr_assert(eddy_particles_reserve(&pa, n));
    for (int i = 0; i < n; ++i)
        eddy_particles_push(&pa, (vec3){v[i].position.x, v[i].position.y, v[i].position.z},
                       (vec3){0, 0, 0}, (vec3){v[i].vorticity.x, v[i].vorticity.y, v[i].vorticity.z},
                       0.0f, 0);
    const float r = eddy_world_get_def(w)->vorton_radius;
    step_ok(w, NULL);
    eddy_grid_info gi = eddy_world_get_grid_info(w);
    cr_assert(gi.cells[0] > 0);
    double worst = 0.0, umax = 0.0;
    for (int k = 0; k <= gi.cells[2]; k += 2)
        for (int j = 0; j <= gi.cells[1]; j += 2)
            for (int i = 0; i <= gi.cells[0]; ++i) {
                eddy_vec3 q = {gi.min_corner.x + (float)i * gi.cell_size.x,
                               gi.min_corner.y + (float)j * gi.cell_size.y,
                               gi.min_corner.z + (float)k * gi.cell_size.z};
                eddy_vec3 s = eddy_world_sample_velocity(w, q);
                vec3 u = eddy_direct_velocity_at(&pa, q.x, q.y, q.z, r);
                double e = sqrt(pow((double)(s.x - d.wind.x - u.x), 2) +
                                pow((double)(s.y - d.wind.y - u.y), 2) +
                                pow((double)(s.z - d.wind.z - u.z), 2));
                worst = fmax(worst, e);
                umax = fmax(umax, sqrt((double)(u.x * u.x + u.y * u.y + u.z * u.z)));
            }
    /* Sampling at a grid point reads that point's value up to the rounding of
     * the point's cell coordinate (the weight of the neighbours is ~1e-7). */
    cr_expect(worst <= 1e-5 * umax, "worst %.3g of max %.3g", worst, umax);
    eddy_particles_free(&pa);
    free(v);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- substeps */

Test(world, substeps_two_runs) {
    double advance[2];
    for (int s = 1; s <= 2; ++s) {
        eddy_world_def d = eddy_world_def_default();
        d.substeps = s;
        int n;
        eddy_world *w = ring_world(d, 0.2f, &n);
        for (int f = 0; f < 10; ++f) step_ok(w, NULL);
        cr_assert_eq(eddy_world_frame(w), 10);
        int m;
        eddy_vorton *v = get_vortons(w, &m);
        cr_assert_eq(m, n);
        double cx = 0.0;
        for (int i = 0; i < m; ++i) {
            cr_assert(isfinite(v[i].position.x) && isfinite(v[i].position.y) &&
                      isfinite(v[i].position.z) && isfinite(v[i].vorticity.x) &&
                      isfinite(v[i].vorticity.y) && isfinite(v[i].vorticity.z));
            cx += (double)v[i].position.x;
        }
        advance[s - 1] = cx / m; /* the ring started centred on x = 0 */
        free(v);
        eddy_world_destroy(w);
    }
    cr_log_info("ring advance over 10 frames: %.5f (1 substep), %.5f (2 substeps)", advance[0],
                advance[1]);
    cr_expect(advance[0] > 0.0 && advance[1] > 0.0, "ring advance %g, %g", advance[0],
              advance[1]);
    /* Same physics, finer time step: the ring travels about as far. */
    cr_expect(fabs(advance[1] - advance[0]) <= 0.05 * advance[0], "advance %g vs %g",
              advance[0], advance[1]);
}

/* ---------------------------------------------------------------- FP mode */

enum { FP_FRAMES = 8 };

typedef struct fp_run {
    eddy_frame_hash hash[FP_FRAMES];
    eddy_vorton *vortons;
    eddy_tracer *tracers;
    int nv, nt;
} fp_run;

/* Run a busy world FP_FRAMES frames with the caller's FP mode set to
 * `rounding` (and, if flush, FTZ+DAZ on x86 / FZ on aarch64). After every step
 * the caller's mode must be exactly what it was. */
static void fp_run_with(fp_run *out, int rounding, bool flush) {
    eddy_world *w = busy_world(); /* built in round-to-nearest */
    eddy_vec3 winds[FP_FRAMES]; /* inputs computed in round-to-nearest too */
    for (int f = 0; f < FP_FRAMES; ++f) winds[f] = (eddy_vec3){0.1f * (float)f, 0.0f, -0.05f};
    cr_assert_eq(fesetround(rounding), 0);
    if (flush) eddy_fpenv_set(eddy_fpenv_get() | eddy_fpenv_canonical(true));
    for (int f = 0; f < FP_FRAMES; ++f) {
        eddy_input in = {0};
        in.flags = EDDY_INPUT_SET_WIND;
        in.wind = winds[f];
        const uint32_t mode = eddy_fpenv_get();
        eddy_status s = eddy_world_step(w, &in);
        const bool control_restored = eddy_fpenv_is(mode); /* all control bits; not the flags */
        const uint32_t after = eddy_fpenv_get();
        const int round_after = fegetround();
        eddy_fpenv_set(eddy_fpenv_canonical(false)); /* round to nearest for the asserts */
        cr_assert_eq(s, EDDY_OK);
        cr_assert_eq(round_after, rounding, "frame %d: rounding mode not restored", f);
        cr_assert(control_restored, "frame %d: control word %#x, caller had %#x", f, after, mode);
        out->hash[f] = eddy_world_hash(w);
        fesetround(rounding);
        if (flush) eddy_fpenv_set(eddy_fpenv_get() | eddy_fpenv_canonical(true));
    }
    eddy_fpenv_set(eddy_fpenv_canonical(false));
    fesetround(FE_TONEAREST);
    out->vortons = get_vortons(w, &out->nv);
    out->tracers = get_tracers(w, &out->nt);
    eddy_world_destroy(w);
}

static void fp_run_free(fp_run *r) {
    free(r->vortons);
    free(r->tracers);
}

Test(fpmode, caller_mode_restored_and_results_unchanged) {
    const uint32_t original = eddy_fpenv_get();
    fp_run ref, tz, up;
    fp_run_with(&ref, FE_TONEAREST, false);
    fp_run_with(&tz, FE_TOWARDZERO, false);
    fp_run_with(&up, FE_UPWARD, true);
    cr_assert_eq(fegetround(), FE_TONEAREST);
    const fp_run *runs[2] = {&tz, &up};
    const char *names[2] = {"toward zero", "upward + flush"};
    for (int k = 0; k < 2; ++k) {
        for (int f = 0; f < FP_FRAMES; ++f)
            cr_expect(hashes_equal(ref.hash[f], runs[k]->hash[f]),
                      "%s: frame %d hash %016llx vs %016llx", names[k], f,
                      (unsigned long long)runs[k]->hash[f].frame_hash,
                      (unsigned long long)ref.hash[f].frame_hash);
        cr_expect_eq(runs[k]->nv, ref.nv);
        cr_expect_eq(runs[k]->nt, ref.nt);
        if (runs[k]->nv == ref.nv)
            cr_expect(memcmp(runs[k]->vortons, ref.vortons, (size_t)ref.nv * sizeof(eddy_vorton)) == 0,
                      "%s: vortons differ", names[k]);
        if (runs[k]->nt == ref.nt)
            cr_expect(memcmp(runs[k]->tracers, ref.tracers, (size_t)ref.nt * sizeof(eddy_tracer)) == 0,
                      "%s: tracers differ", names[k]);
    }
    /* The hash does depend on the state (not a constant stub). */
    cr_expect(ref.hash[0].frame_hash != ref.hash[1].frame_hash);
    fp_run_free(&ref);
    fp_run_free(&tz);
    fp_run_free(&up);
    eddy_fpenv_set(original);
}

#if defined(__x86_64__) || defined(_M_X64)
/* On x86-64 the caller's MXCSR is restored whole, sticky exception flags
 * included (lib/runtime/fpenv.c: "a restore also restores the caller's flags"): a
 * step neither raises nor clears the caller's flags.
 * That holds only if everything the step does, its own timing included, runs
 * after the caller's mode is saved and before it is restored. */
Test(fpmode, caller_exception_flags_untouched) {
    eddy_world *w = busy_world();
    for (int f = 0; f < 3; ++f) {
        feclearexcept(FE_ALL_EXCEPT);
        eddy_status s = eddy_world_step(w, NULL);
        const int raised = fetestexcept(FE_ALL_EXCEPT);
        cr_assert_eq(s, EDDY_OK);
        cr_expect_eq(raised, 0, "frame %d: the step raised flags %#x in the caller (inexact %d)",
                     f, (unsigned)raised, (raised & FE_INEXACT) != 0);
        /* Flags the caller had stay raised. */
        feclearexcept(FE_ALL_EXCEPT);
        feraiseexcept(FE_DIVBYZERO | FE_OVERFLOW);
        s = eddy_world_step(w, NULL);
        const int kept = fetestexcept(FE_DIVBYZERO | FE_OVERFLOW);
        feclearexcept(FE_ALL_EXCEPT);
        cr_assert_eq(s, EDDY_OK);
        cr_expect_eq(kept, FE_DIVBYZERO | FE_OVERFLOW, "frame %d: the step cleared caller flags", f);
    }
    eddy_world_destroy(w);
}
#endif
