/* SPDX-License-Identifier: MIT */
/* The world: definition, creation, population, input and the step script.
 *
 * eddy_world_step is the only way the state changes after the first step.
 * It reads as the list of phases it runs; each phase lives in its own file
 * and owns one timing slot of the profile. The caller's floating-point mode
 * is saved, the canonical mode set for the whole step (workers set it for
 * every task in parallel.c), and the caller's mode restored at the end. */
#include "core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { EDDY_DEF_COOKIE = 0x0EDD1DEF };

static _Thread_local char g_create_error[256];

const char *eddy_last_error_message(void) { return g_create_error; }

const char *eddy_world_error_message(const eddy_world *w) { return w ? w->error : ""; }

void eddy_world_set_error(eddy_world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    va_end(ap);
}

eddy_world_def eddy_world_def_default(void) {
    eddy_world_def d;
    memset(&d, 0, sizeof d);
    /* 1/30 rounded to nearest, as a literal: a division here could run at run
     * time in the caller's rounding mode (clang does not fold it under
     * -fno-unsafe-math-optimizations) and change the definition's bits. */
    d.dt = 0x1.111112p-5f;
    d.substeps = 1;
    d.viscosity = 0.01f;
    d.vorticity_dissipation = 0.01f;
    d.density_diffusivity = 1.0e-4f;
    d.density_relaxation = 1.0e-4f;
    d.ambient_density = 1.0f;
    d.gravity = (eddy_vec3){0.0f, 0.0f, -10.0f};
    d.stretch_gain = 0.5f;
    d.mollify_length_scale = 1.0f;
    d.velocity_method = EDDY_VELOCITY_TREECODE;
    d.treecode_traversal = EDDY_TREECODE_MULTIPOLE; /* docs/accuracy.md */
    d.treecode_opening_angle = EDDY_TREECODE_DEFAULT_OPENING_ANGLE;
    d.vorton_step = EDDY_VORTON_STEP_STRETCH_AB2; /* docs/physics.md §2 */
    d.vorton_radius = 0.125f;
    d.tracer_radius = 0.01f;
    d.vorton_max_age = -1;
    d.tracer_max_age = -1;
    d.seed = 1;
    d.ambient_temperature = 300.0f;
    d.fluid_specific_heat = 1.0f;
    d.boundary_thickness = 1.5f;
    d.shedding_gain = 0.1f;
    d.spin_gain = 1.0f;
    d.tracer_restitution = 0.01f;
    d.wall_poisoning = EDDY_WALL_POISON_GRID;
    d.flush_denormals = false; /* IEEE gradual underflow: the same on every ISA, wasm included */
    d.hash_every_step = true;
    d.worker_count = 1;
    d.internal_value = EDDY_DEF_COOKIE;
    return d;
}

static bool finite3(eddy_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* In [lo, hi]; false for NaN. */
static bool within(float x, float lo, float hi) { return x >= lo && x <= hi; }

/* Every component in [-limit, limit]; false for NaN or infinity. */
static bool within3(eddy_vec3 v, float limit) {
    return within(v.x, -limit, limit) && within(v.y, -limit, limit) && within(v.z, -limit, limit);
}

#define DEF_CHECK(cond, ...)                                                                 \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            if (message && message_size) snprintf(message, message_size, __VA_ARGS__);       \
            return EDDY_ERROR_INVALID_DEF;                                                   \
        }                                                                                    \
    } while (0)

eddy_status eddy_world_def_validate(const eddy_world_def *d, char *message, size_t message_size) {
    if (message && message_size) message[0] = '\0';
    if (!d) {
        if (message && message_size) snprintf(message, message_size, "def is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    DEF_CHECK(d->internal_value == EDDY_DEF_COOKIE,
              "def was not initialised with eddy_world_def_default()");
    DEF_CHECK(isfinite(d->dt) && d->dt > 0.0f && d->dt <= 1.0f, "dt must be in (0, 1] s, got %g",
              (double)d->dt);
    DEF_CHECK(d->substeps >= 1 && d->substeps <= 64, "substeps must be in [1, 64], got %d",
              d->substeps);
    DEF_CHECK(isfinite(d->viscosity) && d->viscosity >= 0.0f && d->viscosity <= EDDY_MAX_DIFFUSIVITY,
              "viscosity %g must be in [0, %g] m^2/s", (double)d->viscosity,
              (double)EDDY_MAX_DIFFUSIVITY);
    DEF_CHECK(isfinite(d->vorticity_dissipation) && d->vorticity_dissipation >= 0.0f &&
                  d->vorticity_dissipation * d->dt < 1.0f,
              "vorticity_dissipation must be >= 0 and below 1/dt");
    DEF_CHECK(isfinite(d->density_diffusivity) && d->density_diffusivity >= 0.0f &&
                  d->density_diffusivity <= EDDY_MAX_DIFFUSIVITY,
              "density_diffusivity %g must be in [0, %g] m^2/s", (double)d->density_diffusivity,
              (double)EDDY_MAX_DIFFUSIVITY);
    DEF_CHECK(isfinite(d->density_relaxation) && d->density_relaxation >= 0.0f &&
                  d->density_relaxation * d->dt < 1.0f,
              "density_relaxation must be >= 0 and below 1/dt");
    DEF_CHECK(isfinite(d->ambient_density) && d->ambient_density >= 1.0e-3f &&
                  d->ambient_density <= 1.0e4f,
              "ambient_density %g must be in [1e-3, 1e4] kg/m^3", (double)d->ambient_density);
    DEF_CHECK(within3(d->gravity, EDDY_MAX_ACCELERATION), "gravity must be finite, components in "
              "[-%g, %g]", (double)EDDY_MAX_ACCELERATION, (double)EDDY_MAX_ACCELERATION);
    DEF_CHECK(within3(d->wind, EDDY_MAX_SPEED), "wind must be finite, components in [-%g, %g]",
              (double)EDDY_MAX_SPEED, (double)EDDY_MAX_SPEED);
    DEF_CHECK(within(d->stretch_gain, -EDDY_MAX_GAIN, EDDY_MAX_GAIN),
              "stretch_gain %g must be in [-%g, %g]", (double)d->stretch_gain,
              (double)EDDY_MAX_GAIN, (double)EDDY_MAX_GAIN);
    DEF_CHECK(within(d->mollify_length_scale, 0.0f, EDDY_MAX_COORDINATE),
              "mollify_length_scale %g must be in [0, %g]", (double)d->mollify_length_scale,
              (double)EDDY_MAX_COORDINATE);
    DEF_CHECK(d->velocity_method >= EDDY_VELOCITY_TREECODE &&
                  d->velocity_method <= EDDY_VELOCITY_TREECODE_VORTONS,
              "velocity_method %d is not an eddy_velocity_method", (int)d->velocity_method);
    DEF_CHECK(d->treecode_traversal >= EDDY_TREECODE_MULTIPOLE &&
                  d->treecode_traversal <= EDDY_TREECODE_ORIGINAL,
              "treecode_traversal %d is not an eddy_treecode_traversal",
              (int)d->treecode_traversal);
    DEF_CHECK(d->velocity_method != EDDY_VELOCITY_TREECODE_VORTONS ||
                  d->treecode_traversal == EDDY_TREECODE_MULTIPOLE,
              "velocity_method EDDY_VELOCITY_TREECODE_VORTONS needs treecode_traversal "
              "EDDY_TREECODE_MULTIPOLE (the original traversal has no walk at the vortons)");
    DEF_CHECK(d->vorton_step >= EDDY_VORTON_STEP_EULER && d->vorton_step <= EDDY_VORTON_STEP_STRETCH_AB2,
              "vorton_step %d is not an eddy_vorton_step", (int)d->vorton_step);
    DEF_CHECK(isfinite(d->treecode_opening_angle) && d->treecode_opening_angle > 0.0f &&
                  d->treecode_opening_angle <= 2.0f,
              "treecode_opening_angle %g must be in (0, 2] (the multipole treecode opens a cell "
              "of edge s unless s < angle * distance)",
              (double)d->treecode_opening_angle);
    DEF_CHECK(within(d->vorton_radius, 1.0e-4f, 1.0e4f), "vorton_radius %g must be in [1e-4, 1e4] m",
              (double)d->vorton_radius);
    DEF_CHECK(within(d->tracer_radius, 1.0e-6f, 1.0e4f), "tracer_radius %g must be in [1e-6, 1e4] m",
              (double)d->tracer_radius);
    DEF_CHECK(d->vorton_max_age >= -1, "vorton_max_age must be >= -1 (-1: never)");
    DEF_CHECK(d->tracer_max_age >= -1, "tracer_max_age must be >= -1 (-1: never)");
    DEF_CHECK(isfinite(d->ambient_temperature) && d->ambient_temperature > 0.0f &&
                  d->ambient_temperature <= EDDY_MAX_TEMPERATURE,
              "ambient_temperature %g must be in (0, %g] K", (double)d->ambient_temperature,
              (double)EDDY_MAX_TEMPERATURE);
    DEF_CHECK(within(d->fluid_specific_heat, 1.0e-3f, 1.0e9f),
              "fluid_specific_heat %g must be in [1e-3, 1e9]", (double)d->fluid_specific_heat);
    DEF_CHECK(isfinite(d->boundary_thickness) && d->boundary_thickness >= 1.0f &&
                  d->boundary_thickness <= 8.0f,
              "boundary_thickness must be in [1, 8] vorton radii");
    DEF_CHECK(isfinite(d->shedding_gain) && d->shedding_gain >= 0.0f && d->shedding_gain <= 1.0f,
              "shedding_gain must be in [0, 1]");
    DEF_CHECK(within(d->spin_gain, -EDDY_MAX_GAIN, EDDY_MAX_GAIN), "spin_gain %g must be in [-%g, %g]",
              (double)d->spin_gain, (double)EDDY_MAX_GAIN, (double)EDDY_MAX_GAIN);
    DEF_CHECK(isfinite(d->tracer_restitution) && d->tracer_restitution >= 0.0f &&
                  d->tracer_restitution <= 1.0f,
              "tracer_restitution must be in [0, 1]");
    DEF_CHECK(d->wall_poisoning >= EDDY_WALL_POISON_NONE &&
                  d->wall_poisoning <= EDDY_WALL_POISON_VORTON_HITS,
              "wall_poisoning %d is not an eddy_wall_poisoning", (int)d->wall_poisoning);
    DEF_CHECK(EDDY_FPENV_CAN_FLUSH || !d->flush_denormals,
              "flush_denormals: this platform (WebAssembly) cannot flush denormals");
    DEF_CHECK(d->worker_count >= 1 && d->worker_count <= EDDY_MAX_WORKERS,
              "worker_count must be in [1, %d], got %d", EDDY_MAX_WORKERS, d->worker_count);
    DEF_CHECK((d->enqueue_task == NULL) == (d->finish_task == NULL),
              "enqueue_task and finish_task must both be set or both be NULL");
    DEF_CHECK(d->enqueue_task == NULL || d->worker_start == NULL,
              "worker_start is called on the built-in pool's threads only and would never be "
              "called with enqueue_task set: prepare your job system's threads yourself");
    DEF_CHECK((d->test_mutations & ~(uint32_t)(EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION |
                                               EDDY_MUTATION_SKIP_WORKER_FP_MODE |
                                               EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID |
                                               EDDY_MUTATION_NO_BROAD_PHASE |
                                               EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH |
                                               EDDY_MUTATION_NO_CONTACT_LANES |
                                               EDDY_MUTATION_NO_POISON_CULL |
                                               EDDY_MUTATION_SERIAL_EMISSION |
                                               EDDY_MUTATION_SCALAR_DENSITY_GATHER |
                                               EDDY_MUTATION_UNFUSED_TRACER_HASH |
                                               EDDY_MUTATION_EARLY_TRACER_HASH_ALWAYS)) == 0,
              "test_mutations has unknown bits");
    return EDDY_OK;
}

static void world_free(eddy_world *w) {
    eddy_bodies_free(w);
    eddy_particles_free(&w->vortons);
    eddy_particles_free(&w->tracers);
    free(w->emitters);
    eddy_tree_free(&w->tree);
    eddy_partition_free(&w->part);
    free(w->velocity);
    free(w->flow);
    free(w->jacobian);
    free(w->density);
    free(w->density_gradient);
    for (int k = 0; k < 4; ++k) free(w->scratch[k]);
    for (int k = 0; k < HEUN_ARRAYS; ++k) free(w->heun[k]);
    free(w->sorted_scratch);
    free(w->partials);
    free(w->block_cache);
    free(w->block_nonfinite);
    free(w->early_hash);
    free(w->early_flags);
    eddy_pool_destroy(w->tasks.own_pool);
    free(w);
}

static eddy_status tasks_init(eddy_world *w) {
    const eddy_world_def *d = &w->def;
    task_system *ts = &w->tasks;
    ts->worker_count = d->worker_count;
    ts->fp_canonical = eddy_fpenv_canonical(d->flush_denormals);
    ts->mutations = d->test_mutations;
    if (d->enqueue_task) {
        ts->external = true;
        ts->enqueue = d->enqueue_task;
        ts->finish = d->finish_task;
        ts->user_context = d->user_task_context;
        return EDDY_OK;
    }
    if (d->worker_count == 1) return EDDY_OK;
    eddy_pool_def pd = eddy_pool_def_default();
    pd.worker_count = d->worker_count;
    pd.worker_start = d->worker_start;
    pd.worker_start_context = d->worker_start_context;
    eddy_status s = eddy_pool_create(&pd, &ts->own_pool);
    if (s != EDDY_OK) return s;
    ts->enqueue = eddy_pool_enqueue;
    ts->finish = eddy_pool_finish;
    ts->user_context = ts->own_pool;
    return EDDY_OK;
}

eddy_status eddy_world_create(const eddy_world_def *def, eddy_world **out) {
    g_create_error[0] = '\0';
    if (!out) {
        snprintf(g_create_error, sizeof g_create_error, "out is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *out = NULL;
    eddy_status s = eddy_world_def_validate(def, g_create_error, sizeof g_create_error);
    if (s != EDDY_OK) return s;
    eddy_world *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(g_create_error, sizeof g_create_error, "out of memory allocating the world");
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    w->def = *def;
    w->vortons.has_vorticity = true;
    w->vortons.keeps_rate = def->vorton_step == EDDY_VORTON_STEP_STRETCH_AB2;
    w->vortons.track_ids = def->particle_ids;
    w->tracers.track_ids = def->particle_ids;
    w->rng = eddy_rng_seed(def->seed, 0);
    w->gravity = def->gravity;
    w->wind = def->wind;
    s = tasks_init(w);
    if (s != EDDY_OK) {
        snprintf(g_create_error, sizeof g_create_error, "could not start %d worker threads",
                 def->worker_count);
        world_free(w);
        return s;
    }
    *out = w;
    return EDDY_OK;
}

void eddy_world_destroy(eddy_world *w) {
    if (w) world_free(w);
}

/* ---------------------------------------------------------------- scratch */
static bool grow(void **p, size_t bytes) {
    void *q = realloc(*p, bytes);
    if (!q) return false;
    *p = q;
    return true;
}

bool eddy_grid_arrays_reserve(eddy_world *w, int points) {
    if (points <= w->grid_point_capacity) return true;
    const size_t n = (size_t)points;
    if (!grow((void **)&w->velocity, n * sizeof(vec3)) ||
        !grow((void **)&w->flow, 4 * n * sizeof(float)) ||
        !grow((void **)&w->jacobian, 3 * n * sizeof(vec3)) ||
        !grow((void **)&w->density, n * sizeof(float)) ||
        !grow((void **)&w->density_gradient, n * sizeof(vec3)))
        return false;
    w->grid_point_capacity = points;
    return true;
}

static bool scratch_reserve(eddy_world *w, int n) {
    if (n <= w->scratch_capacity) return true;
    for (int k = 0; k < 4; ++k)
        if (!grow((void **)&w->scratch[k], (size_t)n * sizeof(float))) return false;
    if (!eddy_pse_reserve(w, n)) return false;
    if (!eddy_partials_reserve(w, eddy_stretch_partials_bytes(n))) return false;
    w->scratch_capacity = n;
    return true;
}

void *eddy_partials_reserve(eddy_world *w, size_t bytes) {
    if (bytes > w->partials_bytes) {
        if (!grow(&w->partials, bytes)) return NULL;
        w->partials_bytes = bytes;
    }
    return w->partials;
}

/* ---------------------------------------------------------------- population */
/* First field of a particle that is not finite (*nan) or outside the
 * documented ranges of types.h, or NULL. */
static const char *particle_bad_field(eddy_vec3 position, eddy_vec3 velocity,
                                      const eddy_vec3 *vorticity, float drho, bool *nan) {
    *nan = true;
    if (!finite3(position)) return "position";
    if (!finite3(velocity)) return "velocity";
    if (vorticity && !finite3(*vorticity)) return "vorticity";
    if (!isfinite(drho)) return "density_deviation";
    *nan = false;
    if (!within3(position, EDDY_MAX_COORDINATE)) return "position (beyond EDDY_MAX_COORDINATE)";
    if (!within3(velocity, EDDY_MAX_SPEED)) return "velocity (beyond EDDY_MAX_SPEED)";
    if (vorticity && !within3(*vorticity, EDDY_MAX_VORTICITY))
        return "vorticity (beyond EDDY_MAX_VORTICITY)";
    if (!within(drho, -EDDY_MAX_DENSITY_DEVIATION, EDDY_MAX_DENSITY_DEVIATION))
        return "density_deviation (beyond EDDY_MAX_DENSITY_DEVIATION)";
    return NULL;
}

/* Check particles[0..count); on error the message names the particle and field. */
static eddy_status particles_check(eddy_world *w, const char *kind, const eddy_vorton *v,
                                   const eddy_tracer *t, int count) {
    for (int i = 0; i < count; ++i) {
        bool nan;
        const char *field =
            v ? particle_bad_field(v[i].position, v[i].velocity, &v[i].vorticity,
                                   v[i].density_deviation, &nan)
              : particle_bad_field(t[i].position, t[i].velocity, NULL, t[i].density_deviation, &nan);
        if (!field) continue;
        eddy_world_set_error(w, "%s %d: %s %s", kind, i, field,
                             nan ? "is NaN or infinite" : "is out of range");
        return nan ? EDDY_ERROR_NAN : EDDY_ERROR_INVALID_ARGUMENT;
    }
    return EDDY_OK;
}

static eddy_status population_check(eddy_world *w, const void *items, int count) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if ((count > 0 && !items) || count < 0) {
        eddy_world_set_error(w, "particles are NULL or count %d is negative", count);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (w->stepped) {
        eddy_world_set_error(w, "particles can only be added before the first step");
        return EDDY_ERROR_WRONG_STATE;
    }
    return EDDY_OK;
}

static vec3 v3(eddy_vec3 v) { return (vec3){v.x, v.y, v.z}; }

eddy_status eddy_world_add_vortons(eddy_world *w, const eddy_vorton *v, int count) {
    eddy_status s = population_check(w, v, count);
    if (s != EDDY_OK) return s;
    s = particles_check(w, "vorton", v, NULL, count);
    if (s != EDDY_OK) return s;
    if (count > INT32_MAX / 2 - w->vortons.count || !eddy_particles_reserve(&w->vortons, w->vortons.count + count) ||
        !scratch_reserve(w, w->vortons.count + count)) {
        eddy_world_set_error(w, "out of memory adding %d vortons", count);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < count; ++i)
        eddy_particles_push(&w->vortons, v3(v[i].position), v3(v[i].velocity), v3(v[i].vorticity),
                       v[i].density_deviation, v[i].birth_frame);
    w->hash_valid = false;
    return EDDY_OK;
}

eddy_status eddy_world_add_tracers(eddy_world *w, const eddy_tracer *t, int count) {
    eddy_status s = population_check(w, t, count);
    if (s != EDDY_OK) return s;
    s = particles_check(w, "tracer", NULL, t, count);
    if (s != EDDY_OK) return s;
    if (count > INT32_MAX / 2 - w->tracers.count || !eddy_particles_reserve(&w->tracers, w->tracers.count + count)) {
        eddy_world_set_error(w, "out of memory adding %d tracers", count);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    const vec3 zero = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < count; ++i)
        eddy_particles_push(&w->tracers, v3(t[i].position), v3(t[i].velocity), zero,
                       t[i].density_deviation, t[i].birth_frame);
    w->hash_valid = false;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- emitters */
eddy_emitter_def eddy_emitter_def_default(void) {
    eddy_emitter_def d;
    memset(&d, 0, sizeof d);
    d.enabled = true;
    return d;
}

/* Check an emitter definition against the ranges of types.h; the message
 * names the field. EDDY_ERROR_NAN for a non-finite field, else INVALID_DEF. */
static eddy_status emitter_def_check(eddy_world *w, const eddy_emitter_def *d) {
    if (!finite3(d->position) || !finite3(d->position_spread) || !finite3(d->velocity) ||
        !finite3(d->vorticity) || !finite3(d->vorticity_spread) || !isfinite(d->density_deviation) ||
        !isfinite(d->vorton_rate) || !isfinite(d->tracer_rate)) {
        eddy_world_set_error(w, "emitter def has a NaN or infinite field");
        return EDDY_ERROR_NAN;
    }
    const char *field = NULL;
    if (!within3(d->position, EDDY_MAX_COORDINATE)) field = "position (beyond EDDY_MAX_COORDINATE)";
    else if (!within3(d->position_spread, EDDY_MAX_COORDINATE) || d->position_spread.x < 0.0f ||
             d->position_spread.y < 0.0f || d->position_spread.z < 0.0f)
        field = "position_spread (must be >= 0 and within EDDY_MAX_COORDINATE)";
    else if (!within3(d->velocity, EDDY_MAX_SPEED)) field = "velocity (beyond EDDY_MAX_SPEED)";
    else if (!within3(d->vorticity, EDDY_MAX_VORTICITY) ||
             !within3(d->vorticity_spread, EDDY_MAX_VORTICITY))
        field = "vorticity or vorticity_spread (beyond EDDY_MAX_VORTICITY)";
    else if (!within(d->density_deviation, -EDDY_MAX_DENSITY_DEVIATION, EDDY_MAX_DENSITY_DEVIATION))
        field = "density_deviation (beyond EDDY_MAX_DENSITY_DEVIATION)";
    else if (!(within(d->vorton_rate, 0.0f, 1.0e6f) && within(d->tracer_rate, 0.0f, 1.0e7f)))
        field = "rates (must be in [0, 1e6] vortons/s and [0, 1e7] tracers/s)";
    if (field) {
        eddy_world_set_error(w, "emitter %s", field);
        return EDDY_ERROR_INVALID_DEF;
    }
    return EDDY_OK;
}

static bool emitter_add(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out);

eddy_status eddy_world_create_emitter(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out) {
    if (!w || !d || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    *out = (eddy_emitter_id){0, 0};
    if (w->stepped) {
        eddy_world_set_error(w, "emitters can only be created before the first step");
        return EDDY_ERROR_WRONG_STATE;
    }
    eddy_status s = emitter_def_check(w, d);
    if (s != EDDY_OK) return s;
    if (!emitter_add(w, d, out)) {
        eddy_world_set_error(w, "out of memory creating an emitter");
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    w->hash_valid = false;
    return EDDY_OK;
}

static emitter *emitter_get(eddy_world *w, eddy_emitter_id id) {
    if (id.index1 < 1 || id.index1 > w->emitter_count) return NULL;
    emitter *e = &w->emitters[id.index1 - 1];
    return e->alive && e->generation == id.generation ? e : NULL;
}

/* ---------------------------------------------------------------- input */
static const char *emitter_command_name(eddy_emitter_command_type t) {
    switch (t) {
    case EDDY_EMITTER_ENABLE: return "enable";
    case EDDY_EMITTER_DISABLE: return "disable";
    case EDDY_EMITTER_SET_RATES: return "set rates";
    case EDDY_EMITTER_BURST: return "burst";
    case EDDY_EMITTER_MOVE: return "move";
    case EDDY_EMITTER_CREATE: return "create";
    case EDDY_EMITTER_DESTROY: return "destroy";
    }
    return NULL;
}

/* The command's own values, before its emitter is looked up; NULL when fine. */
static const char *emitter_command_bad_field(const eddy_emitter_command *c, eddy_status *status) {
    *status = EDDY_ERROR_INVALID_ARGUMENT;
    switch (c->type) {
    case EDDY_EMITTER_SET_RATES:
        if (!isfinite(c->vorton_rate) || !isfinite(c->tracer_rate)) {
            *status = EDDY_ERROR_NAN;
            return "vorton_rate or tracer_rate (NaN or infinite)";
        }
        if (!(within(c->vorton_rate, 0.0f, 1.0e6f) && within(c->tracer_rate, 0.0f, 1.0e7f)))
            return "vorton_rate or tracer_rate (must be in [0, 1e6] and [0, 1e7] per second)";
        return NULL;
    case EDDY_EMITTER_BURST:
        if (!(c->vorton_count >= 0 && c->tracer_count >= 0 && c->vorton_count <= 1000000 &&
              c->tracer_count <= 10000000))
            return "vorton_count or tracer_count (must be in [0, 1e6] and [0, 1e7])";
        return NULL;
    case EDDY_EMITTER_MOVE:
        if (!finite3(c->position)) {
            *status = EDDY_ERROR_NAN;
            return "position (NaN or infinite)";
        }
        if (!within3(c->position, EDDY_MAX_COORDINATE)) return "position (beyond EDDY_MAX_COORDINATE)";
        return NULL;
    case EDDY_EMITTER_ENABLE: case EDDY_EMITTER_DISABLE: case EDDY_EMITTER_CREATE:
    case EDDY_EMITTER_DESTROY: return NULL;
    }
    return NULL;
}

static eddy_status emitter_command_check(eddy_world *w, const eddy_emitter_command *c, int k) {
    const char *name = emitter_command_name(c->type);
    if (!name) {
        eddy_world_set_error(w, "emitter command %d has unknown type %d", k, (int)c->type);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (c->type == EDDY_EMITTER_CREATE) {
        eddy_status s = emitter_def_check(w, &c->def);
        if (s != EDDY_OK) {
            char msg[sizeof w->error];
            snprintf(msg, sizeof msg, "%s", w->error);
            eddy_world_set_error(w, "emitter command %d (create): %s", k, msg);
        }
        return s;
    }
    eddy_status s;
    const char *field = emitter_command_bad_field(c, &s);
    if (field) {
        eddy_world_set_error(w, "emitter command %d (%s): %s", k, name, field);
        return s;
    }
    if (!emitter_get(w, c->emitter)) {
        eddy_world_set_error(w, "emitter command %d (%s) names a stale or unknown emitter (%d, %u)",
                             k, name, (int)c->emitter.index1, (unsigned)c->emitter.generation);
        return EDDY_ERROR_NOT_FOUND;
    }
    return EDDY_OK;
}

static eddy_status input_validate(eddy_world *w, const eddy_input *in) {
    if (in->flags & ~(uint32_t)(EDDY_INPUT_SET_GRAVITY | EDDY_INPUT_SET_WIND)) {
        eddy_world_set_error(w, "input flags have unknown bits 0x%x", (unsigned)in->flags);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if ((in->flags & EDDY_INPUT_SET_GRAVITY) && !finite3(in->gravity)) {
        eddy_world_set_error(w, "input gravity is not finite");
        return EDDY_ERROR_NAN;
    }
    if ((in->flags & EDDY_INPUT_SET_WIND) && !finite3(in->wind)) {
        eddy_world_set_error(w, "input wind is not finite");
        return EDDY_ERROR_NAN;
    }
    if ((in->flags & EDDY_INPUT_SET_GRAVITY) && !within3(in->gravity, EDDY_MAX_ACCELERATION)) {
        eddy_world_set_error(w, "input gravity is beyond EDDY_MAX_ACCELERATION");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if ((in->flags & EDDY_INPUT_SET_WIND) && !within3(in->wind, EDDY_MAX_SPEED)) {
        eddy_world_set_error(w, "input wind is beyond EDDY_MAX_SPEED");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (in->emitter_command_count < 0 || (in->emitter_command_count > 0 && !in->emitter_commands)) {
        eddy_world_set_error(w, "input emitter_commands is NULL or its count is negative");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    int64_t burst_vortons = 0, burst_tracers = 0;
    for (int k = 0; k < in->emitter_command_count; ++k) {
        const eddy_emitter_command *c = &in->emitter_commands[k];
        eddy_status s = emitter_command_check(w, c, k);
        if (s != EDDY_OK) return s;
        if (c->type != EDDY_EMITTER_BURST) continue;
        burst_vortons += c->vorton_count;
        burst_tracers += c->tracer_count;
        if (burst_vortons > 1000000 || burst_tracers > 10000000) {
            eddy_world_set_error(w, "emitter command %d (burst): the bursts of this input add up to "
                                 "more than 1e6 vortons or 1e7 tracers", k);
            return EDDY_ERROR_INVALID_ARGUMENT;
        }
    }
    return eddy_bodies_validate_commands(w, in);
}

/* Lowest free emitter slot (or a new one); false: out of memory. */
static bool emitter_slot(eddy_world *w, int *slot) {
    for (int e = 0; e < w->emitter_count; ++e)
        if (!w->emitters[e].alive && w->emitters[e].generation != UINT16_MAX) { /* else retired */
            *slot = e;
            return true;
        }
    if (w->emitter_count == w->emitter_capacity) {
        int cap = w->emitter_capacity ? 2 * w->emitter_capacity : 4;
        if (!grow((void **)&w->emitters, (size_t)cap * sizeof(emitter))) return false;
        w->emitter_capacity = cap;
    }
    *slot = w->emitter_count++;
    memset(&w->emitters[*slot], 0, sizeof(emitter));
    return true;
}

static bool emitter_add(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out) {
    int slot;
    if (!emitter_slot(w, &slot)) return false;
    emitter *e = &w->emitters[slot];
    const uint16_t generation = (uint16_t)(e->generation + 1u); /* never wraps: retired first */
    memset(e, 0, sizeof *e);
    e->def = *d;
    e->alive = true;
    e->generation = generation;
    *out = (eddy_emitter_id){slot + 1, generation};
    return true;
}

static bool push_created_emitter(eddy_world *w, eddy_emitter_id id) {
    if (w->created_emitter_count == w->created_emitter_capacity) {
        int cap = w->created_emitter_capacity ? 2 * w->created_emitter_capacity : 4;
        if (!grow((void **)&w->created_emitters, (size_t)cap * sizeof(eddy_emitter_id)))
            return false;
        w->created_emitter_capacity = cap;
    }
    w->created_emitters[w->created_emitter_count++] = id;
    return true;
}

static bool input_apply(eddy_world *w, const eddy_input *in) {
    if (in->flags & EDDY_INPUT_SET_GRAVITY) w->gravity = in->gravity;
    if (in->flags & EDDY_INPUT_SET_WIND) w->wind = in->wind;
    w->created_emitter_count = 0;
    for (int k = 0; k < in->emitter_command_count; ++k) {
        const eddy_emitter_command *c = &in->emitter_commands[k];
        if (c->type == EDDY_EMITTER_CREATE) {
            eddy_emitter_id id;
            if (!emitter_add(w, &c->def, &id) || !push_created_emitter(w, id)) return false;
            continue;
        }
        emitter *e = emitter_get(w, c->emitter);
        if (!e) continue; /* destroyed by an earlier command of this input */
        switch (c->type) {
        case EDDY_EMITTER_ENABLE: e->def.enabled = true; break;
        case EDDY_EMITTER_DISABLE: e->def.enabled = false; break;
        case EDDY_EMITTER_SET_RATES:
            e->def.vorton_rate = c->vorton_rate;
            e->def.tracer_rate = c->tracer_rate;
            break;
        case EDDY_EMITTER_BURST:
            e->pending_vortons += c->vorton_count;
            e->pending_tracers += c->tracer_count;
            break;
        case EDDY_EMITTER_MOVE: e->def.position = c->position; break;
        case EDDY_EMITTER_DESTROY: e->alive = false; break;
        case EDDY_EMITTER_CREATE: break;
        }
    }
    return eddy_bodies_apply_commands(w, in);
}

/* ---------------------------------------------------------------- step */
#define PHASE(w, slot, call)                                                     \
    do {                                                                         \
        double t_ = eddy_now_ms();                                               \
        call;                                                                    \
        (w)->profile.phase_ms[slot] += eddy_now_ms() - t_;                       \
    } while (0)

/* ---------------------------------------------------------------- Heun's step
 * EDDY_VORTON_STEP_HEUN (design note). Euler's step moves each vorton with
 * the step's velocity u(x_n, w_n) and stretches it with that field's
 * gradient; its error is first order in dt, and for a vortex ring it shows
 * as a growing impulse (docs/physics.md §2). Heun's step:
 *   1. predictor: stretch and advect as Euler does, to (x*, w*);
 *   2. a second grid, tree, velocity solve and rho' grid at (x*, w*);
 *   3. corrector: stretch and advect (x*, w*) with it, to (x**, w**), and
 *      take x' = (x_n + x**) / 2, w' = (w_n + w**) / 2 and the mean of the two
 *      velocities: the trapezoidal rule, second order.
 * The PSE runs once, before the predictor, on the step's own partition; the
 * baroclinic update, collisions and bodies run once, as in Euler's step. The
 * step ends with the second grid: the flow the tracers take at the start of
 * the next step (and the buoyancy samples) is the predicted end of this one.
 * Determinism: every stage is a fixed phase of the step; the mean is taken
 * per vorton in fixed chunks. */
static bool heun_reserve(eddy_world *w, int vortons) {
    if (vortons <= w->heun_capacity) return true;
    for (int k = 0; k < HEUN_ARRAYS; ++k)
        if (!grow((void **)&w->heun[k], (size_t)vortons * sizeof(float))) return false;
    w->heun_capacity = vortons;
    return true;
}

enum { HEUN_CHUNK = 1024 };

static void heun_mean_chunk(int chunk, int begin, int end, void *context) {
    eddy_world *w = context;
    particle_array *a = &w->vortons;
    float *const now[HEUN_ARRAYS] = {a->px, a->py, a->pz, a->wx, a->wy, a->wz, a->vx, a->vy, a->vz};
    (void)chunk;
    for (int k = 0; k < HEUN_ARRAYS; ++k) {
        const float *start = w->heun[k];
        float *x = now[k];
        for (int i = begin; i < end; ++i) x[i] = 0.5f * (start[i] + x[i]);
    }
}

static bool heun_vortons(eddy_world *w, float dt) {
    particle_array *a = &w->vortons;
    const int n = a->count;
    if (n == 0) return true; /* nothing to move; the step's grid stays as built */
    if (!heun_reserve(w, n)) return false;
    const size_t bytes = (size_t)n * sizeof(float);
    const float *const start[6] = {a->px, a->py, a->pz, a->wx, a->wy, a->wz};
    for (int k = 0; k < 6; ++k) memcpy(w->heun[k], start[k], bytes);
    bool ok = true;
    PHASE(w, EDDY_PHASE_STRETCH, eddy_phase_stretch(w, dt));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS, eddy_phase_advect_vortons(w, dt));
    memcpy(w->heun[6], a->vx, bytes);
    memcpy(w->heun[7], a->vy, bytes);
    memcpy(w->heun[8], a->vz, bytes);
    PHASE(w, EDDY_PHASE_TREE_BUILD, ok = eddy_phase_build_grid_and_tree(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_VELOCITY_GRID, eddy_phase_velocity_grid(w));
    PHASE(w, EDDY_PHASE_DENSITY, eddy_phase_density_grid(w));
    PHASE(w, EDDY_PHASE_DENSITY, eddy_phase_pack_flow(w));
    PHASE(w, EDDY_PHASE_STRETCH, eddy_phase_stretch(w, dt));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS, eddy_phase_advect_vortons(w, dt));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS,
          eddy_parallel_for(&w->tasks, n, HEUN_CHUNK, heun_mean_chunk, w));
    return true;
}

static bool substep(eddy_world *w, float dt, bool first) {
    bool ok = true;
    if (first) {
        PHASE(w, EDDY_PHASE_KILL_EMIT, eddy_phase_kill_by_age(w, &w->tracers, w->def.tracer_max_age));
        PHASE(w, EDDY_PHASE_KILL_EMIT, eddy_phase_kill_by_age(w, &w->vortons, w->def.vorton_max_age));
    }
    PHASE(w, EDDY_PHASE_ADVECT_TRACERS, eddy_phase_advect_tracers(w, dt));
    PHASE(w, EDDY_PHASE_COLLIDE_TRACERS, ok = eddy_phase_collide_tracers(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_KILL_EMIT, ok = eddy_phase_emit(w) && scratch_reserve(w, w->vortons.count));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_TREE_BUILD, ok = eddy_phase_build_grid(w));
    if (!ok) return false;
    /* Baroclinic generation before the velocity: symplectic order (density.c) */
    PHASE(w, EDDY_PHASE_DENSITY, ok = eddy_phase_density(w, dt));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_VELOCITY_GRID, eddy_phase_velocity_grid(w));
    PHASE(w, EDDY_PHASE_DENSITY, eddy_phase_pack_flow(w));
    if (w->def.vorton_step == EDDY_VORTON_STEP_HEUN) {
        PHASE(w, EDDY_PHASE_DIFFUSION, eddy_phase_diffuse(w, dt));
        if (!heun_vortons(w, dt)) return false;
    } else {
        PHASE(w, EDDY_PHASE_STRETCH, eddy_phase_stretch(w, dt));
        PHASE(w, EDDY_PHASE_DIFFUSION, eddy_phase_diffuse(w, dt));
        PHASE(w, EDDY_PHASE_ADVECT_VORTONS, eddy_phase_advect_vortons(w, dt));
    }
    PHASE(w, EDDY_PHASE_COLLIDE_VORTONS, ok = eddy_phase_collide_vortons(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_BODIES, eddy_phase_body_forces(w); eddy_phase_find_held_bodies(w);
                                eddy_phase_integrate_bodies(w, dt); eddy_phase_contain_bodies(w));
    return true;
}

/* The step failed or left a non-finite value: from now on the world refuses
 * to step until a snapshot is restored (the state is not rolled back: that
 * would cost a copy of the whole state every step). */
static eddy_status world_break(eddy_world *w, eddy_status status, int64_t step,
                               const char *reason) {
    w->needs_restore = true;
    snprintf(w->broken_reason, sizeof w->broken_reason, "step %lld: %.120s", (long long)step, reason);
    eddy_world_set_error(w, "%.160s; the world needs eddy_world_restore before it steps again",
                         w->broken_reason);
    return status;
}

eddy_status eddy_world_step(eddy_world *w, const eddy_input *input) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (w->needs_restore) {
        eddy_world_set_error(w, "the world needs eddy_world_restore before it steps again (%.160s)",
                             w->broken_reason);
        return EDDY_ERROR_WRONG_STATE;
    }
    const eddy_input none = {0};
    const eddy_input *in = input ? input : &none;

    /* Everything, input validation and timing included, runs in the
     * canonical mode, so the caller's mode and exception flags come back
     * untouched and no caller trap can fire (validating a body's quaternion
     * computes its norm: in the caller's mode it raised inexact, and could
     * overflow into an unmasked trap or round differently). */
    const uint32_t caller_mode = eddy_fpenv_get();
    eddy_fpenv_set(w->tasks.fp_canonical);
    eddy_status s = input_validate(w, in);
    if (s != EDDY_OK) {
        eddy_fpenv_set(caller_mode);
        return s;
    }
    const double t0 = eddy_now_ms();
    memset(&w->profile, 0, sizeof w->profile);

    bool ok = true;
    char bad[128] = "";
    PHASE(w, EDDY_PHASE_INPUT, ok = input_apply(w, in));
    PHASE(w, EDDY_PHASE_INPUT, eddy_phase_remove_embedded(w));
    const float dt = w->def.dt / (float)w->def.substeps;
    for (int k = 0; k < w->def.substeps && ok; ++k) ok = substep(w, dt, k == 0);
    eddy_bodies_end_step(w); /* input forces act for the whole step, every substep */
    bool nonfinite = false;
    if (ok) {
        PHASE(w, EDDY_PHASE_DIAGNOSTICS, eddy_phase_diagnostics(w));
        w->frame += 1;
        w->stepped = true;
        w->hash_valid = false;
        w->block_nonfinite_valid = false;
        if (w->def.hash_every_step) PHASE(w, EDDY_PHASE_HASH, eddy_world_hash_compute(w));
        /* uses the hash's per-block flags when it has them, else its own pass */
        PHASE(w, EDDY_PHASE_HASH, nonfinite = eddy_state_find_nonfinite(w, bad, sizeof bad));
        EDDY_DEBUG_ASSERT(eddy_fpenv_is(w->tasks.fp_canonical));
    }
    w->early_armed = false; /* early tracer hashes never outlive their step */
    w->profile.step_ms = eddy_now_ms() - t0;
    eddy_fpenv_set(caller_mode);
    if (!ok) return world_break(w, EDDY_ERROR_OUT_OF_MEMORY, w->frame + 1, "out of memory");
    if (nonfinite) {
        char reason[sizeof w->broken_reason];
        snprintf(reason, sizeof reason, "the state became non-finite: %.90s", bad);
        return world_break(w, EDDY_ERROR_NAN, w->frame, reason);
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- queries */
int64_t eddy_world_frame(const eddy_world *w) { return w ? w->frame : 0; }
int eddy_world_vorton_count(const eddy_world *w) { return w ? w->vortons.count : 0; }
int eddy_world_tracer_count(const eddy_world *w) { return w ? w->tracers.count : 0; }
const eddy_world_def *eddy_world_get_def(const eddy_world *w) { return &w->def; }
eddy_profile eddy_world_get_profile(const eddy_world *w) { return w->profile; }
eddy_diagnostics eddy_world_get_diagnostics(const eddy_world *w) { return w->diagnostics; }
int eddy_world_worker_count(const eddy_world *w) { return w->tasks.worker_count; }

static int clamp_range(int n, int start, int count) {
    if (start < 0 || count <= 0 || start >= n) return 0;
    return count < n - start ? count : n - start;
}

int eddy_world_get_vortons(const eddy_world *w, int start, int count, eddy_vorton *out) {
    if (!w || !out) return 0;
    const particle_array *a = &w->vortons;
    int n = clamp_range(a->count, start, count);
    for (int k = 0; k < n; ++k) {
        int i = start + k;
        out[k] = (eddy_vorton){{a->px[i], a->py[i], a->pz[i]}, {a->vx[i], a->vy[i], a->vz[i]},
                               {a->wx[i], a->wy[i], a->wz[i]}, a->drho[i], a->birth[i]};
    }
    return n;
}

int eddy_world_get_tracers(const eddy_world *w, int start, int count, eddy_tracer *out) {
    if (!w || !out) return 0;
    const particle_array *a = &w->tracers;
    int n = clamp_range(a->count, start, count);
    for (int k = 0; k < n; ++k) {
        int i = start + k;
        out[k] = (eddy_tracer){{a->px[i], a->py[i], a->pz[i]}, {a->vx[i], a->vy[i], a->vz[i]},
                               a->drho[i], a->birth[i]};
    }
    return n;
}

eddy_vec3 eddy_world_sample_velocity(const eddy_world *w, eddy_vec3 p) {
    eddy_vec3 u = w->wind;
    if (!w->grid_valid) return u;
    float g[4];
    grid_interp_n(&w->grid, w->flow, 4, p.x, p.y, p.z, g);
    return (eddy_vec3){u.x + g[0], u.y + g[1], u.z + g[2]};
}

eddy_grid_info eddy_world_get_grid_info(const eddy_world *w) {
    eddy_grid_info info;
    memset(&info, 0, sizeof info);
    if (!w->grid_valid) return info;
    for (int a = 0; a < 3; ++a) info.cells[a] = w->grid.cells[a];
    info.min_corner = (eddy_vec3){w->grid.min[0], w->grid.min[1], w->grid.min[2]};
    info.cell_size = (eddy_vec3){w->grid.spacing[0], w->grid.spacing[1], w->grid.spacing[2]};
    info.tree_levels = w->tree.levels;
    info.mollification = w->mollify;
    return info;
}
