/* SPDX-License-Identifier: MIT */
/* Scene registry and scene initial states (scenes/). The counts pinned here
 * are the ones documented in docs/scenes.md: a change to a distribution, the
 * skeleton or the tracer seeding must show up here first. */
#include "scenes.h"
#include "scenes_internal.h"
#include "scene_trace.h"
#include "eddy/snapshot.h"

#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_names[] = {"vortex_ring", "jet_ring",  "vortex_sheet", "crossed_tubes",
                                      "leapfrog",    "dye_drop",  "two_drops",    "noise_cloud"};
enum { k_name_count = (int)(sizeof k_names / sizeof k_names[0]) };

typedef struct expected_scene {
    const char *name;
    int vortons, tracers;
    float vorton_radius, tracer_radius;
    int emitters; /* informative only: no API counts emitters */
} expected_scene;

/* docs/scenes.md, "Counts" table. */
static const expected_scene k_expected[] = {
    {"vortex_ring", 1312, 55296, 0.125f, 0.125f / 3.0f, 0},
    {"jet_ring", 1248, 55296, 0.125f, 0.125f / 3.0f, 1},
    {"vortex_sheet", 512, 32768, 0.4375f, 0.4375f / 4.0f, 0},
    {"crossed_tubes", 384, 55296, 0.125f, 0.125f / 3.0f, 0},
    {"leapfrog", 1040, 55296, 0.084375f, 0.0313797f, 0},
    {"dye_drop", 280, 32170, 0.125f, 0.125f / 5.0f, 0},
    {"two_drops", 560, 36081, 0.125f, 0.0283925f, 0},
    {"noise_cloud", 4096, 262144, 0.0625f, 0.0625f / 4.0f, 1},
};
enum { k_expected_count = (int)(sizeof k_expected / sizeof k_expected[0]) };

/* ---------------------------------------------------------------- helpers */

static eddy_world *create_scene(const char *name, const eddy_world_def *base) {
    eddy_world *w = NULL;
    eddy_status s = eddy_scene_create(name, base, &w);
    cr_assert_eq(s, EDDY_OK, "%s: eddy_scene_create -> %s (%s)", name, eddy_status_name(s),
                 eddy_last_error_message());
    cr_assert_not_null(w, "%s", name);
    return w;
}

static eddy_vorton *copy_vortons(const eddy_world *w, int *count) {
    *count = eddy_world_vorton_count(w);
    eddy_vorton *v = calloc((size_t)(*count > 0 ? *count : 1), sizeof *v);
    cr_assert_not_null(v);
    cr_assert_eq(eddy_world_get_vortons(w, 0, *count, v), *count);
    return v;
}

static eddy_tracer *copy_tracers(const eddy_world *w, int *count) {
    *count = eddy_world_tracer_count(w);
    eddy_tracer *t = calloc((size_t)(*count > 0 ? *count : 1), sizeof *t);
    cr_assert_not_null(t);
    cr_assert_eq(eddy_world_get_tracers(w, 0, *count, t), *count);
    return t;
}

static bool close_rel(float a, float b, float rel) { return fabsf(a - b) <= rel * fabsf(b); }

/* Two worlds hold bit-identical initial states. */
static void assert_same_state(eddy_world *a, eddy_world *b, const char *name) {
    cr_assert_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(b).frame_hash, "%s: frame hash", name);
    int na, nb;
    eddy_vorton *va = copy_vortons(a, &na), *vb = copy_vortons(b, &nb);
    cr_assert_eq(na, nb, "%s: vorton count", name);
    cr_assert_eq(memcmp(va, vb, (size_t)na * sizeof *va), 0, "%s: vortons differ", name);
    free(va);
    free(vb);
    eddy_tracer *ta = copy_tracers(a, &na), *tb = copy_tracers(b, &nb);
    cr_assert_eq(na, nb, "%s: tracer count", name);
    cr_assert_eq(memcmp(ta, tb, (size_t)na * sizeof *ta), 0, "%s: tracers differ", name);
    free(ta);
    free(tb);
}

/* ---------------------------------------------------------------- registry */

Test(scenes, every_listed_scene_is_registered) {
    cr_assert_geq(eddy_scene_count(), k_name_count);
    for (int i = 0; i < k_name_count; ++i) {
        const eddy_scene_info *info = eddy_scene_find(k_names[i]);
        cr_assert_not_null(info, "missing scene %s", k_names[i]);
        cr_assert_str_eq(info->name, k_names[i]);
    }
}

Test(scenes, names_unique_and_described) {
    const int n = eddy_scene_count();
    for (int i = 0; i < n; ++i) {
        const eddy_scene_info *a = eddy_scene_at(i);
        cr_assert_not_null(a);
        cr_assert_not_null(a->name);
        cr_assert_gt(strlen(a->name), 0);
        cr_assert_not_null(a->description, "%s", a->name);
        cr_assert_gt(strlen(a->description), 0, "%s: empty description", a->name);
        cr_assert_null(strchr(a->description, '\n'), "%s: description is one line", a->name);
        cr_assert(a->default_frames >= 100 && a->default_frames <= 1000, "%s: default_frames %d",
                  a->name, a->default_frames);
        cr_assert_eq(eddy_scene_find(a->name), a);
        for (int j = i + 1; j < n; ++j)
            cr_assert_str_neq(a->name, eddy_scene_at(j)->name, "duplicate scene name");
    }
    cr_assert_null(eddy_scene_at(-1));
    cr_assert_null(eddy_scene_at(n));
    cr_assert_null(eddy_scene_find("no_such_scene"));
    cr_assert_null(eddy_scene_find(NULL));
}

Test(scenes, unknown_name_is_not_found) {
    eddy_world *w = (eddy_world *)(uintptr_t)0x1;
    cr_assert_eq(eddy_scene_create("no_such_scene", NULL, &w), EDDY_ERROR_NOT_FOUND);
    cr_assert_null(w);
    w = (eddy_world *)(uintptr_t)0x1;
    cr_assert_eq(eddy_scene_create("Vortex_Ring", NULL, &w), EDDY_ERROR_NOT_FOUND);
    cr_assert_null(w);
    cr_assert_eq(eddy_scene_create("vortex_ring", NULL, NULL), EDDY_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- helpers */

Test(scenes, grid_sizing_follows_define_shape) {
    int cells[3];
    scene_grid_cells((const float[3]){4.0f, 4.0f, 4.0f}, 4096, cells);
    cr_assert(cells[0] == 16 && cells[1] == 16 && cells[2] == 16);
    /* vortex ring's tracer box: 2 x 4 x 4 for 1312 vortons -> 8 x 16 x 16 */
    scene_grid_cells((const float[3]){2.0f, 4.0f, 4.0f}, 1312, cells);
    cr_assert(cells[0] == 8 && cells[1] == 16 && cells[2] == 16, "%d %d %d", cells[0], cells[1], cells[2]);
    /* a flat box drops the zero axis */
    scene_grid_cells((const float[3]){4.0f, 4.0f, 0.0f}, 64, cells);
    cr_assert(cells[0] == 8 && cells[1] == 8 && cells[2] == 1, "%d %d %d", cells[0], cells[1], cells[2]);

    scene_grid g;
    scene_skeleton_define(&g, scene_vec3(14.0f, 7.0f, 14.0f), 4096); /* vortex sheet */
    cr_assert(g.cells[0] == 16 && g.cells[1] == 8 && g.cells[2] == 16, "%d %d %d", g.cells[0],
              g.cells[1], g.cells[2]);
    cr_assert_eq(scene_grid_cell_radius(&g), 0.4375f);
    cr_assert_eq(g.min[0], -7.0f);
}

/* ---------------------------------------------------------------- initial states */

Test(scenes, creating_twice_gives_identical_states) {
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const char *name = eddy_scene_at(i)->name;
        eddy_world *a = create_scene(name, NULL);
        eddy_world *b = create_scene(name, NULL);
        assert_same_state(a, b, name);
        eddy_world_destroy(a);
        eddy_world_destroy(b);
    }
}

Test(scenes, setup_ignores_caller_rounding_mode) {
    const char *names[] = {"vortex_ring", "two_drops", "leapfrog"};
    for (int i = 0; i < 3; ++i) {
        eddy_world *a = create_scene(names[i], NULL);
        int saved = fegetround();
        fesetround(FE_UPWARD);
        eddy_world *b = NULL;
        eddy_status s = eddy_scene_create(names[i], NULL, &b);
        int during = fegetround();
        fesetround(saved);
        cr_assert_eq(s, EDDY_OK);
        cr_assert_eq(during, FE_UPWARD, "the caller's rounding mode is restored");
        assert_same_state(a, b, names[i]);
        eddy_world_destroy(a);
        eddy_world_destroy(b);
    }
}

Test(scenes, counts_and_radii_match_docs) {
    for (int i = 0; i < k_expected_count; ++i) {
        const expected_scene *e = &k_expected[i];
        eddy_world *w = create_scene(e->name, NULL);
        const eddy_world_def *def = eddy_world_get_def(w);
        cr_assert_eq(eddy_world_vorton_count(w), e->vortons, "%s: %d vortons", e->name,
                     eddy_world_vorton_count(w));
        cr_assert_eq(eddy_world_tracer_count(w), e->tracers, "%s: %d tracers", e->name,
                     eddy_world_tracer_count(w));
        cr_assert(close_rel(def->vorton_radius, e->vorton_radius, 1e-6f), "%s: vorton radius %.9g",
                  e->name, (double)def->vorton_radius);
        cr_assert(close_rel(def->tracer_radius, e->tracer_radius, 1e-5f), "%s: tracer radius %.9g",
                  e->name, (double)def->tracer_radius);
        if (strcmp(e->name, "noise_cloud") != 0) {
            cr_assert_leq(e->vortons, 2600, "%s: test budget", e->name);
            cr_assert_leq(e->tracers, 60000, "%s: test budget", e->name);
        }
        eddy_world_destroy(w);
    }
}

Test(scenes, scenes_use_reference_physics) {
    for (int i = 0; i < k_name_count; ++i) {
        eddy_world *w = create_scene(k_names[i], NULL);
        const eddy_world_def *d = eddy_world_get_def(w);
        cr_assert_eq(d->dt, 1.0f / 30.0f, "%s", k_names[i]);
        cr_assert_eq(d->viscosity, 0.01f, "%s", k_names[i]);
        cr_assert_eq(d->ambient_density, 1.0f, "%s", k_names[i]);
        cr_assert(d->gravity.x == 0.0f && d->gravity.y == 0.0f && d->gravity.z == -10.0f, "%s",
                  k_names[i]);
        cr_assert(d->wind.x == 0.0f && d->wind.y == 0.0f && d->wind.z == 0.0f, "%s", k_names[i]);
        eddy_world_destroy(w);
    }
}

Test(scenes, noise_cloud_is_a_stress_scene) {
    eddy_world *w = create_scene("noise_cloud", NULL);
    cr_assert_geq(eddy_world_vorton_count(w), 4096);
    cr_assert_geq(eddy_world_tracer_count(w), 200000);
    const eddy_world_def *d = eddy_world_get_def(w);
    cr_assert_eq(d->vorton_max_age, 600);
    cr_assert_eq(d->tracer_max_age, 600);
    int n;
    eddy_vorton *v = copy_vortons(w, &n);
    for (int i = 0; i < n; ++i) {
        cr_assert(fabsf(v[i].position.x) < 1.0f && fabsf(v[i].position.y) < 1.0f &&
                  fabsf(v[i].position.z) < 1.0f);
        cr_assert(fabsf(v[i].vorticity.x) <= 16.0f && fabsf(v[i].vorticity.y) <= 16.0f &&
                  fabsf(v[i].vorticity.z) <= 16.0f);
        cr_assert_eq(v[i].density_deviation, 0.0f);
    }
    free(v);
    eddy_world_destroy(w);
}

Test(scenes, vortex_ring_has_zero_net_vorticity_and_impulse_along_x) {
    eddy_world *w = create_scene("vortex_ring", NULL);
    int n;
    eddy_vorton *v = copy_vortons(w, &n);
    double sum[3] = {0, 0, 0}, abs_sum = 0, impulse[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        double p[3] = {(double)v[i].position.x, (double)v[i].position.y, (double)v[i].position.z};
        double o[3] = {(double)v[i].vorticity.x, (double)v[i].vorticity.y, (double)v[i].vorticity.z};
        for (int a = 0; a < 3; ++a) sum[a] += o[a];
        abs_sum += sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        impulse[0] += 0.5 * (p[1] * o[2] - p[2] * o[1]);
        impulse[1] += 0.5 * (p[2] * o[0] - p[0] * o[2]);
        impulse[2] += 0.5 * (p[0] * o[1] - p[1] * o[0]);
    }
    double net = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    cr_assert_gt(abs_sum, 1000.0);
    cr_assert_lt(net, 1e-4 * abs_sum, "net vorticity %g of %g", net, abs_sum);
    cr_assert_gt(impulse[0], 0.0, "impulse along +x");
    cr_assert_lt(fabs(impulse[1]) + fabs(impulse[2]), 1e-4 * impulse[0]);
    /* vorticity is azimuthal: omega . x_hat = 0 and omega . r_hat = 0 */
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(v[i].vorticity.x, 0.0f);
        float radial = v[i].position.y * v[i].vorticity.y + v[i].position.z * v[i].vorticity.z;
        cr_assert_lt(fabsf(radial), 1e-4f);
    }
    free(v);
    eddy_world_destroy(w);
}

Test(scenes, tracers_fill_the_grown_vorton_box) {
    eddy_world *w = create_scene("vortex_ring", NULL);
    int n;
    eddy_tracer *t = copy_tracers(w, &n);
    /* vortons span |x| <= 0.875, |y|,|z| <= 1.875; grown by r = 0.125 */
    double mean[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        cr_assert(fabsf(t[i].position.x) < 1.0f && fabsf(t[i].position.y) < 2.0f &&
                  fabsf(t[i].position.z) < 2.0f, "tracer %d outside the box", i);
        mean[0] += (double)t[i].position.x;
        mean[1] += (double)t[i].position.y;
        mean[2] += (double)t[i].position.z;
    }
    for (int a = 0; a < 3; ++a) cr_assert_lt(fabs(mean[a] / n), 0.01);
    free(t);
    eddy_world_destroy(w);
}

Test(scenes, dye_drop_is_a_heavy_ball_at_height_five) {
    eddy_world *w = create_scene("dye_drop", NULL);
    int n;
    eddy_vorton *v = copy_vortons(w, &n);
    double c[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(v[i].density_deviation, 10.0f);
        float dx = v[i].position.x, dy = v[i].position.y, dz = v[i].position.z - 5.0f;
        cr_assert_lt(dx * dx + dy * dy + dz * dz, 1.0f, "vorton %d outside the ball", i);
        cr_assert_lt(fabsf(v[i].vorticity.x) + fabsf(v[i].vorticity.y) + fabsf(v[i].vorticity.z),
                     0.0016f);
        c[0] += (double)v[i].position.x;
        c[1] += (double)v[i].position.y;
        c[2] += (double)v[i].position.z;
    }
    cr_assert_lt(fabs(c[0] / n), 1e-3);
    cr_assert_lt(fabs(c[1] / n), 1e-3);
    cr_assert_lt(fabs(c[2] / n - 5.0), 1e-3);
    free(v);
    eddy_tracer *t = copy_tracers(w, &n);
    for (int i = 0; i < n; ++i) {
        cr_assert_gt(t[i].density_deviation, 0.0f);
        float dz = t[i].position.z - 5.0f;
        cr_assert_lt(t[i].position.x * t[i].position.x + t[i].position.y * t[i].position.y + dz * dz,
                     1.5f * 1.5f, "tracer %d far from the drop", i);
    }
    free(t);
    eddy_world_destroy(w);
}

Test(scenes, two_drops_heavy_above_light) {
    eddy_world *w = create_scene("two_drops", NULL);
    int n;
    eddy_vorton *v = copy_vortons(w, &n);
    int heavy = 0, light = 0;
    float heavy_min_z = 1e30f, light_max_z = -1e30f;
    for (int i = 0; i < n; ++i) {
        if (v[i].density_deviation > 0.0f) {
            cr_assert_eq(v[i].density_deviation, 0.9f);
            ++heavy;
            heavy_min_z = fminf(heavy_min_z, v[i].position.z);
        } else {
            cr_assert_eq(v[i].density_deviation, -0.9f);
            ++light;
            light_max_z = fmaxf(light_max_z, v[i].position.z);
        }
    }
    cr_assert_eq(heavy, light);
    cr_assert_gt(heavy, 0);
    cr_assert_gt(heavy_min_z, light_max_z + 2.0f);
    free(v);
    eddy_tracer *t = copy_tracers(w, &n);
    for (int i = 0; i < n; ++i) {
        /* tracers carry the drop they sit in */
        if (t[i].position.z > 0.0f) cr_assert_gt(t[i].density_deviation, 0.0f);
        else cr_assert_lt(t[i].density_deviation, 0.0f);
    }
    free(t);
    eddy_world_destroy(w);
}

Test(scenes, leapfrog_rings_are_coaxial_and_same_sense) {
    eddy_world *w = create_scene("leapfrog", NULL);
    int n;
    eddy_vorton *v = copy_vortons(w, &n);
    double impulse_rear = 0, impulse_front = 0;
    int rear = 0, front = 0;
    for (int i = 0; i < n; ++i) {
        const eddy_vec3 p = v[i].position, o = v[i].vorticity;
        double px = 0.5 * ((double)p.y * (double)o.z - (double)p.z * (double)o.y);
        cr_assert(fabsf(p.x) > 0.2f, "the rings do not overlap");
        if (p.x < 0.0f) ++rear, impulse_rear += px;
        else ++front, impulse_front += px;
    }
    cr_assert_eq(rear, front);
    cr_assert_gt(impulse_rear, 0.0);
    cr_assert(fabs(impulse_rear - impulse_front) < 1e-4 * impulse_rear);
    free(v);
    eddy_world_destroy(w);
}

Test(scenes, base_threading_fields_are_honoured_physics_is_not) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = 2;
    base.hash_every_step = false;
    base.flush_denormals = true; /* not the default */
    base.velocity_method = EDDY_VELOCITY_DIRECT_GRID;
    base.dt = 0.5f;
    base.viscosity = 3.0f;
    base.gravity = scene_vec3(1.0f, 2.0f, 3.0f);
    base.vorton_radius = 9.0f;
    base.seed = 12345;
    eddy_world *w = create_scene("vortex_ring", &base);
    const eddy_world_def *d = eddy_world_get_def(w);
    cr_assert_eq(d->worker_count, 2);
    cr_assert_eq(eddy_world_worker_count(w), 2);
    cr_assert_eq(d->hash_every_step, false);
    cr_assert_eq(d->flush_denormals, true);
    cr_assert_eq(d->velocity_method, EDDY_VELOCITY_DIRECT_GRID);
    cr_assert_eq(d->dt, 1.0f / 30.0f);
    cr_assert_eq(d->viscosity, 0.01f);
    cr_assert_eq(d->gravity.z, -10.0f);
    cr_assert_eq(d->vorton_radius, 0.125f);
    cr_assert_neq(d->seed, 12345u);
    /* the initial state does not depend on the threading fields */
    eddy_world *ref = create_scene("vortex_ring", NULL);
    assert_same_state(w, ref, "vortex_ring");
    eddy_world_destroy(ref);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- input */

Test(scenes, noise_cloud_toggles_its_emitter) {
    eddy_scene_input in;
    for (int64_t f = 0; f < 400; ++f) {
        const eddy_input *i = eddy_scene_input_for("noise_cloud", f, &in);
        if (f != 150 && f != 200) {
            cr_assert_null(i, "frame %lld", (long long)f);
            continue;
        }
        cr_assert_eq(i, &in.input);
        cr_assert_eq(i->emitter_command_count, 1);
        cr_assert_eq(i->emitter_commands, in.emitter_commands);
        cr_assert_eq(i->flags, 0u);
        const eddy_emitter_command *c = &i->emitter_commands[0];
        cr_assert_eq(c->emitter.index1, 1);
        cr_assert_eq(c->emitter.generation, 1);
        cr_assert_eq(c->type, f == 150 ? EDDY_EMITTER_DISABLE : EDDY_EMITTER_ENABLE);
    }
    for (int k = 0; k < k_name_count; ++k) {
        if (strcmp(k_names[k], "noise_cloud") == 0) continue;
        for (int64_t f = 0; f < 400; ++f)
            cr_assert_null(eddy_scene_input_for(k_names[k], f, &in), "%s frame %lld", k_names[k],
                           (long long)f);
    }
    cr_assert_null(eddy_scene_input_for("no_such_scene", 150, &in));
    cr_assert_null(eddy_scene_input_for("noise_cloud", 150, NULL));
}

/* The reconstructed emitter id {1, 1} names the emitter the scene created:
 * the world accepts both scripted commands. */
Test(scenes, noise_cloud_script_is_accepted_by_its_world) {
    eddy_world *w = create_scene("noise_cloud", NULL);
    eddy_scene_input in;
    const eddy_input *off = eddy_scene_input_for("noise_cloud", 150, &in);
    eddy_status s = eddy_world_step(w, off);
    cr_assert_eq(s, EDDY_OK, "disable: %s (%s)", eddy_status_name(s), eddy_world_error_message(w));
    const eddy_input *on = eddy_scene_input_for("noise_cloud", 200, &in);
    s = eddy_world_step(w, on);
    cr_assert_eq(s, EDDY_OK, "enable: %s (%s)", eddy_status_name(s), eddy_world_error_message(w));
    eddy_world_destroy(w);
}

/* Every scene steps (smoke test: valid definition, nothing non-finite). */
Test(scenes, every_scene_steps) {
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const char *name = eddy_scene_at(i)->name;
        eddy_world *w = create_scene(name, NULL);
        eddy_scene_input in;
        for (int f = 0; f < 2; ++f) {
            eddy_status s = eddy_world_step(w, eddy_scene_input_for(name, eddy_world_frame(w), &in));
            cr_assert_eq(s, EDDY_OK, "%s: step %d: %s (%s)", name, f, eddy_status_name(s),
                         eddy_world_error_message(w));
        }
        int n;
        eddy_vorton *v = copy_vortons(w, &n);
        for (int k = 0; k < n; ++k)
            cr_assert(isfinite(v[k].position.x) && isfinite(v[k].position.y) &&
                      isfinite(v[k].position.z) && isfinite(v[k].vorticity.x) &&
                      isfinite(v[k].vorticity.y) && isfinite(v[k].vorticity.z),
                      "%s: vorton %d not finite", name, k);
        free(v);
        eddy_world_destroy(w);
    }
}

/* The density gather takes four grid points of a row in lanes
 * (lib/fluid/density.c); one point at a time is the reference. Every scene, every
 * frame, the same hash. */
Test(scenes, density_lanes_change_no_bit, .timeout = 600) {
    expect_every_scene_unchanged_by(EDDY_MUTATION_SCALAR_DENSITY_GATHER,
                                    "the density lanes change");
}

/* The tracers' hash blocks are hashed by the advection that writes them and
 * reused at the end of the step unless a later writer (collision, emission,
 * a container's carry) marked them stale (lib/hash/hash.c, "Early tracer
 * hashes"); hashing every block at the end of the step is the reference.
 * Every scene, every frame, the same hash: as the library runs (early hashes
 * paused where most went stale) and with early hashes in every step (so
 * every collision, emission and carry of the 40 frames is checked). */
Test(scenes, early_tracer_hashes_change_no_bit, .timeout = 600) {
    expect_every_scene_unchanged_by(EDDY_MUTATION_UNFUSED_TRACER_HASH,
                                    "the early tracer hashes change");
    expect_every_scene_unchanged_by(EDDY_MUTATION_EARLY_TRACER_HASH_ALWAYS,
                                    "early tracer hashes in every step change");
}

/* The frame hashes of a scene stepped with the given vorton step. */
static void trace_step(const char *scene, int workers, eddy_vorton_step step,
                       uint64_t out[TRACE_FRAMES]) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    base.vorton_step = step;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK, "%s", scene);
    cr_assert_eq(eddy_world_get_def(w)->vorton_step, step, "%s: the scene keeps the step", scene);
    eddy_scene_input buffer;
    for (int f = 0; f < TRACE_FRAMES; ++f) {
        const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(w), &buffer);
        cr_assert_eq(eddy_world_step(w, in), EDDY_OK, "%s frame %d: %s", scene, f + 1,
                     eddy_world_error_message(w));
        out[f] = eddy_world_hash(w).frame_hash;
    }
    eddy_world_destroy(w);
}

/* Stepped at 1, 2, 3 and 16 workers, each scene gives the same hash every
 * frame with `step`, and not Euler's (the option acts). */
static void expect_step_deterministic(const char *const *scenes, size_t count,
                                      eddy_vorton_step step, const char *what) {
    static const int workers[] = {2, 3, 16};
    for (size_t s = 0; s < count; ++s) {
        uint64_t one[TRACE_FRAMES], other[TRACE_FRAMES], euler[TRACE_FRAMES];
        trace_step(scenes[s], 1, step, one);
        for (size_t k = 0; k < sizeof workers / sizeof workers[0]; ++k) {
            trace_step(scenes[s], workers[k], step, other);
            const int f = first_difference(one, other);
            cr_expect_eq(f, 0, "%s: %s at %d workers differs from 1 worker at frame %d",
                         scenes[s], what, workers[k], f);
        }
        trace_step(scenes[s], 1, EDDY_VORTON_STEP_EULER, euler);
        cr_expect_neq(first_difference(one, euler), 0, "%s: %s changed nothing", scenes[s], what);
    }
}

/* Heun's step for the vortons (EDDY_VORTON_STEP_HEUN, lib/world.c): its
 * second grid, tree and velocity solve, rho' grid and the per-vorton mean are
 * as deterministic as the rest. Scenes with free fluid, a container with
 * layers, a body in layers and emission. */
Test(scenes, heun_step_is_deterministic_across_workers, .timeout = 600) {
    static const char *const scenes[] = {"vortex_ring", "container_layers", "buoyant_ball",
                                         "plume_plate", "sloshing"};
    expect_step_deterministic(scenes, sizeof scenes / sizeof scenes[0], EDDY_VORTON_STEP_HEUN,
                              "Heun's step");
}

/* Heun's step in substeps chosen from the vorticity
 * (EDDY_VORTON_STEP_HEUN_ADAPTIVE, lib/world.c): the substep count is a
 * maximum over the vortons, emission and the early tracer hashes follow it.
 * Free fluid, emission with tracers, a body. */
Test(scenes, heun_adaptive_step_is_deterministic_across_workers, .timeout = 600) {
    static const char *const scenes[] = {"vortex_ring", "plume_plate", "buoyant_ball"};
    expect_step_deterministic(scenes, sizeof scenes / sizeof scenes[0],
                              EDDY_VORTON_STEP_HEUN_ADAPTIVE, "Heun's adaptive step");
}

/* The Adams-Bashforth stretching rate (EDDY_VORTON_STEP_STRETCH_AB2,
 * lib/fluid/stretch.c): each vorton's kept rate is read and written by the one
 * chunk that owns the vorton. Free fluid, a turning container (the kept rates
 * turn with the interior: lib/bodies/carry.c), emission, and a body whose walls
 * reassign vorticity (which drops the rate: lib/bodies/collide.c). */
Test(scenes, stretch_ab2_step_is_deterministic_across_workers, .timeout = 600) {
    static const char *const scenes[] = {"vortex_ring", "rotating_container", "plume_plate",
                                         "buoyant_ball"};
    expect_step_deterministic(scenes, sizeof scenes / sizeof scenes[0],
                              EDDY_VORTON_STEP_STRETCH_AB2, "the Adams-Bashforth stretching");
}

/* A snapshot of a world on a second-order step, taken at 2 workers, restores
 * into a fresh world of the same scene and step at 3 workers, and both
 * continue with the same hashes. Heun's step: the second grid the step ends
 * with is in the snapshot, and the step's own buffers are scratch. The
 * Adams-Bashforth stretching: every vorton's kept rate is in the snapshot. */
static void expect_step_continues(const char *scene, eddy_vorton_step step) {
    enum { BEFORE = 20, AFTER = 20 };
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = 2;
    base.vorton_step = step;
    eddy_world *w = NULL, *copy = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK);
    eddy_scene_input buffer;
    for (int f = 0; f < BEFORE; ++f)
        cr_assert_eq(eddy_world_step(w, eddy_scene_input_for(scene, eddy_world_frame(w),
                                                            &buffer)),
                     EDDY_OK);
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    eddy_world_def other = base;
    other.worker_count = 3;
    cr_assert_eq(eddy_scene_create(scene, &other, &copy), EDDY_OK);
    char message[256];
    cr_assert_eq(eddy_world_restore(copy, snap.data, snap.size, message, sizeof message),
                 EDDY_OK, "%s", message);
    cr_assert_eq(eddy_world_get_def(copy)->vorton_step, step);
    for (int f = 0; f < AFTER; ++f) {
        cr_assert_eq(eddy_world_step(w, eddy_scene_input_for(scene, eddy_world_frame(w),
                                                            &buffer)),
                     EDDY_OK);
        cr_assert_eq(eddy_world_step(copy, eddy_scene_input_for(scene,
                                                               eddy_world_frame(copy),
                                                               &buffer)),
                     EDDY_OK);
        cr_expect_eq(eddy_world_hash(w).frame_hash, eddy_world_hash(copy).frame_hash,
                     "%s: frame %lld differs after the restore", scene,
                     (long long)eddy_world_frame(w));
    }
    eddy_bytes_free(&snap);
    eddy_world_destroy(copy);
    eddy_world_destroy(w);
}

Test(scenes, heun_step_continues_from_a_snapshot, .timeout = 300) {
    expect_step_continues("buoyant_ball", EDDY_VORTON_STEP_HEUN);
    expect_step_continues("plume_plate", EDDY_VORTON_STEP_HEUN);
}

Test(scenes, stretch_ab2_step_continues_from_a_snapshot, .timeout = 300) {
    expect_step_continues("buoyant_ball", EDDY_VORTON_STEP_STRETCH_AB2);
    expect_step_continues("plume_plate", EDDY_VORTON_STEP_STRETCH_AB2);
    expect_step_continues("rotating_container", EDDY_VORTON_STEP_STRETCH_AB2);
}

/* Heun's step with no vortons (tracers only) moves nothing Euler's would not:
 * the same hashes, frame by frame. */
Test(scenes, heun_step_without_vortons_is_eulers) {
    uint64_t hashes[2][5];
    for (int k = 0; k < 2; ++k) {
        eddy_world_def d = eddy_world_def_default();
        d.vorton_step = k ? EDDY_VORTON_STEP_HEUN : EDDY_VORTON_STEP_EULER;
        eddy_world *w = NULL;
        cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
        eddy_tracer t = {{0.1f, 0.2f, 0.3f}, {0.5f, 0.0f, 0.0f}, 0.0f, 0};
        cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
        for (int f = 0; f < 5; ++f) {
            cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK, "%s", eddy_world_error_message(w));
            hashes[k][f] = eddy_world_hash(w).frame_hash;
        }
        eddy_world_destroy(w);
    }
    for (int f = 0; f < 5; ++f)
        cr_expect_eq(hashes[0][f], hashes[1][f], "frame %d differs", f + 1);
}
