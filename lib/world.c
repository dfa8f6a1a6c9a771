/* SPDX-License-Identifier: MIT */
/* The world: definition, creation, population, input and the step script.
 *
 * eddy_world_step is the only way the state changes after the first step.
 * It reads as the list of phases it runs; each phase lives in its own file
 * and owns one timing slot of the profile. The caller's floating-point mode
 * is saved, the canonical mode set for the whole step (workers set it for
 * every task in parallel.c), and the caller's mode restored at the end. */
#include "core/core.h"
#include "bodies/bodies.h"
#include "fluid/fluid.h"
#include "hash/hash.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* thread-local, in core/step.c: overlapping calls leave their refusal there too */
#define g_create_error eddy_thread_error

const char *eddy_last_error_message(void) { return g_create_error; }

const char *eddy_world_error_message(const eddy_world *w) { return w ? w->error : ""; }

static void world_free(eddy_world *w) {
    eddy_bodies_free(w);
    eddy_particles_free(&w->vortons);
    eddy_particles_free(&w->tracers);
    eddy_free(w->emitters);
    eddy_free(w->blasts);
    eddy_tree_free(&w->tree);
    eddy_partition_free(&w->part);
    eddy_free(w->velocity);
    eddy_free(w->flow);
    eddy_free(w->jacobian);
    eddy_free(w->density);
    eddy_free(w->density_gradient);
    for (int k = 0; k < 4; ++k) eddy_free(w->scratch[k]);
    for (int k = 0; k < HEUN_ARRAYS; ++k) eddy_free(w->heun[k]);
    eddy_free(w->vorton_gradient);
    eddy_free(w->sorted_scratch);
    eddy_pse_lists_free(w);
    eddy_free(w->partials);
    eddy_free(w->block_cache);
    eddy_free(w->block_nonfinite);
    eddy_free(w->early_hash);
    eddy_free(w->early_flags);
    eddy_free(w->far_flag);
    eddy_islands_free(w);
    eddy_pool_destroy(w->tasks.own_pool);
    eddy_free(w);
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

static eddy_status world_create(const eddy_world_def *def, eddy_world **out) {
    g_create_error[0] = '\0';
    if (!out) {
        snprintf(g_create_error, sizeof g_create_error, "out is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *out = NULL;
    eddy_status s = eddy_world_def_validate(def, g_create_error, sizeof g_create_error);
    if (s != EDDY_OK) return s;
    eddy_world *w = eddy_calloc(1, sizeof *w);
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
    w->state_counter = 1;
    w->gravity = def->gravity;
    w->wind = def->wind;
    s = tasks_init(w);
    if (s != EDDY_OK) {
        snprintf(g_create_error, sizeof g_create_error, "could not start %d worker threads%s",
                 def->worker_count, s == EDDY_ERROR_OUT_OF_MEMORY ? ": out of memory" : "");
        world_free(w);
        return s;
    }
    *out = w;
    return EDDY_OK;
}

eddy_status eddy_world_create_checked(const eddy_world_def *def, eddy_world **out,
                                      int header_version) {
    eddy_status s = eddy_version_check(header_version, g_create_error, sizeof g_create_error);
    if (s != EDDY_OK) {
        if (out) *out = NULL;
        eddy_log(EDDY_LOG_ERROR, "eddy_world_create: %s", g_create_error);
        return s;
    }
    return (eddy_world_create)(def, out);
}

/* In parentheses: the function, not eddy.h's checking macro. */
eddy_status (eddy_world_create)(const eddy_world_def *def, eddy_world **out) {
    eddy_status s = world_create(def, out);
    if (s != EDDY_OK)
        eddy_log(s == EDDY_ERROR_OUT_OF_MEMORY ? EDDY_LOG_ERROR : EDDY_LOG_WARNING,
                 "eddy_world_create: %s: %s", eddy_status_name(s), g_create_error);
    return s;
}

void eddy_world_destroy(eddy_world *w) {
    if (w) world_free(w);
}

/* ---------------------------------------------------------------- scratch */

static bool scratch_reserve(eddy_world *w, int need) {
    if (need <= w->scratch_capacity) return true;
    const int n = eddy_grown_capacity(w->scratch_capacity, need);
    for (int k = 0; k < 4; ++k)
        if (!eddy_grow((void **)&w->scratch[k], (size_t)n * sizeof(float))) return false;
    if (!eddy_pse_reserve(w, n)) return false;
    if (!eddy_partials_reserve(w, eddy_stretch_partials_bytes(n))) return false;
    w->scratch_capacity = n;
    return true;
}

/* ---------------------------------------------------------------- population */
/* First field of a particle that is not finite (*nan) or outside the
 * documented ranges of types.h, or NULL. */
static const char *particle_bad_field(eddy_vec3 position, eddy_vec3 velocity,
                                      const eddy_vec3 *vorticity, float drho, bool *nan) {
    *nan = true;
    if (!eddy_finite3(position)) return "position";
    if (!eddy_finite3(velocity)) return "velocity";
    if (vorticity && !eddy_finite3(*vorticity)) return "vorticity";
    if (!isfinite(drho)) return "density_deviation";
    *nan = false;
    if (!eddy_within3(position, EDDY_MAX_COORDINATE)) return "position (beyond EDDY_MAX_COORDINATE)";
    if (!eddy_within3(velocity, EDDY_MAX_SPEED)) return "velocity (beyond EDDY_MAX_SPEED)";
    if (vorticity && !eddy_within3(*vorticity, EDDY_MAX_VORTICITY))
        return "vorticity (beyond EDDY_MAX_VORTICITY)";
    if (!eddy_within(drho, -EDDY_MAX_DENSITY_DEVIATION, EDDY_MAX_DENSITY_DEVIATION))
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

static eddy_status world_add_vortons_held(eddy_world *w, const eddy_vorton *v, int count) {
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

static eddy_status world_add_tracers_held(eddy_world *w, const eddy_tracer *t, int count) {
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
    if (!eddy_finite3(d->position) || !eddy_finite3(d->position_spread) || !eddy_finite3(d->velocity) ||
        !eddy_finite3(d->vorticity) || !eddy_finite3(d->vorticity_spread) || !isfinite(d->density_deviation) ||
        !isfinite(d->vorton_rate) || !isfinite(d->tracer_rate)) {
        eddy_world_set_error(w, "emitter def has a NaN or infinite field");
        return EDDY_ERROR_NAN;
    }
    const char *field = NULL;
    if (!eddy_within3(d->position, EDDY_MAX_COORDINATE)) field = "position (beyond EDDY_MAX_COORDINATE)";
    else if (!eddy_within3(d->position_spread, EDDY_MAX_COORDINATE) || d->position_spread.x < 0.0f ||
             d->position_spread.y < 0.0f || d->position_spread.z < 0.0f)
        field = "position_spread (must be >= 0 and within EDDY_MAX_COORDINATE)";
    else if (!eddy_within3(d->velocity, EDDY_MAX_SPEED)) field = "velocity (beyond EDDY_MAX_SPEED)";
    else if (!eddy_within3(d->vorticity, EDDY_MAX_VORTICITY) ||
             !eddy_within3(d->vorticity_spread, EDDY_MAX_VORTICITY))
        field = "vorticity or vorticity_spread (beyond EDDY_MAX_VORTICITY)";
    else if (!eddy_within(d->density_deviation, -EDDY_MAX_DENSITY_DEVIATION, EDDY_MAX_DENSITY_DEVIATION))
        field = "density_deviation (beyond EDDY_MAX_DENSITY_DEVIATION)";
    else if (!(eddy_within(d->vorton_rate, 0.0f, 1.0e6f) && eddy_within(d->tracer_rate, 0.0f, 1.0e7f)))
        field = "rates (must be in [0, 1e6] vortons/s and [0, 1e7] tracers/s)";
    if (field) {
        eddy_world_set_error(w, "emitter %s", field);
        return EDDY_ERROR_INVALID_DEF;
    }
    return EDDY_OK;
}

static bool emitter_add(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out);

static eddy_status world_create_emitter_held(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out) {
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
        if (!(eddy_within(c->vorton_rate, 0.0f, 1.0e6f) && eddy_within(c->tracer_rate, 0.0f, 1.0e7f)))
            return "vorton_rate or tracer_rate (must be in [0, 1e6] and [0, 1e7] per second)";
        return NULL;
    case EDDY_EMITTER_BURST:
        if (!(c->vorton_count >= 0 && c->tracer_count >= 0 && c->vorton_count <= 1000000 &&
              c->tracer_count <= 10000000))
            return "vorton_count or tracer_count (must be in [0, 1e6] and [0, 1e7])";
        return NULL;
    case EDDY_EMITTER_MOVE:
        if (!eddy_finite3(c->position)) {
            *status = EDDY_ERROR_NAN;
            return "position (NaN or infinite)";
        }
        if (!eddy_within3(c->position, EDDY_MAX_COORDINATE)) return "position (beyond EDDY_MAX_COORDINATE)";
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
    eddy_status s;
    if (in->flags & ~(uint32_t)(EDDY_INPUT_SET_GRAVITY | EDDY_INPUT_SET_WIND)) {
        eddy_world_set_error(w, "input flags have unknown bits 0x%x", (unsigned)in->flags);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if ((in->flags & EDDY_INPUT_SET_GRAVITY) && !eddy_finite3(in->gravity)) {
        eddy_world_set_error(w, "input gravity is not finite");
        return EDDY_ERROR_NAN;
    }
    if ((in->flags & EDDY_INPUT_SET_WIND) && !eddy_finite3(in->wind)) {
        eddy_world_set_error(w, "input wind is not finite");
        return EDDY_ERROR_NAN;
    }
    if ((in->flags & EDDY_INPUT_SET_GRAVITY) && !eddy_within3(in->gravity, EDDY_MAX_ACCELERATION)) {
        eddy_world_set_error(w, "input gravity is beyond EDDY_MAX_ACCELERATION");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if ((in->flags & EDDY_INPUT_SET_WIND) && !eddy_within3(in->wind, EDDY_MAX_SPEED)) {
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
        s = emitter_command_check(w, c, k);
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
    s = eddy_impulses_validate(w, in);
    if (s != EDDY_OK) return s;
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
        if (!eddy_grow((void **)&w->emitters, (size_t)cap * sizeof(emitter))) return false;
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
        if (!eddy_grow((void **)&w->created_emitters, (size_t)cap * sizeof(eddy_emitter_id)))
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
        case EDDY_EMITTER_DESTROY:
            e->alive = false;
            if (e->generation == UINT16_MAX)
                eddy_log(EDDY_LOG_INFO, "emitter slot %d retired: its 16-bit generation is used up",
                         c->emitter.index1 - 1);
            break;
        case EDDY_EMITTER_CREATE: break;
        }
    }
    if (!eddy_blasts_add(w, in->blasts, in->blast_count)) return false;
    if (!eddy_bullets_add_wakes(w, in->bullets, in->bullet_count)) return false;
    w->step_bullets = in->bullets;
    w->step_bullet_count = in->bullet_count;
    return eddy_bodies_apply_commands(w, in);
}

/* ---------------------------------------------------------------- room ahead of a step
 * Design note. A step that runs out of memory half done would leave a state
 * that is neither the old frame nor the new one. So the step first makes room
 * for the most it can hold (step_reserve): the counts it can reach (the
 * particles it has, plus what this input's emitters, bursts and bullet wakes
 * can add over every substep) size every per-step array, the same way
 * eddy_world_reserve does for the counts a game gives. Only then does
 * anything of the state change; after it the phases find their room already
 * there. A failure in the prelude leaves the state as it was (the arrays
 * grown so far keep their room, which is not state), and the step returns
 * EDDY_ERROR_OUT_OF_MEMORY with the world still usable.
 *
 * What the prelude cannot size ahead: the grid's arrays over 65,536 vortons
 * (eddy_grid_point_bound has no bound there). A failure there still needs a
 * restore (world_break). The bodies the input creates take their slots and
 * polytope vertices from room made here (eddy_bodies_reserve). The pair
 * lists of the normalised PSE and the early tracer hashes do without memory
 * (the same bits), so they grow inside the step, and the prelude gives the
 * lists their headers only. */
enum { RESERVE_PSE_PAIRS = 64 }; /* eddy_world_reserve: pairs per vorton the PSE lists hold */

static size_t partials_bound(int vortons, int tracers, int grid_target) {
    const size_t f = eddy_fluid_partials_bytes(vortons, tracers);
    const size_t b = eddy_bodies_partials_bytes(vortons, tracers, eddy_grid_point_bound(grid_target));
    const size_t h = eddy_finite_partials_bytes(vortons, tracers);
    const size_t m = f > b ? f : b;
    return m > h ? m : h;
}

static bool heun_reserve(eddy_world *w, int vortons);

static bool vorton_gradient_reserve(eddy_world *w, int vortons) {
    if (vortons <= w->vorton_gradient_capacity) return true;
    if (!eddy_grow((void **)&w->vorton_gradient,
                   (size_t)vortons * VORTON_GRADIENT_FLOATS * sizeof(float)))
        return false;
    w->vorton_gradient_capacity = vortons;
    return true;
}

static bool uses_heun(const eddy_world *w) {
    return w->def.vorton_step == EDDY_VORTON_STEP_HEUN ||
           w->def.vorton_step == EDDY_VORTON_STEP_HEUN_ADAPTIVE;
}

/* Every per-step array holds `vortons` and `tracers` (pse_pairs pairs per
 * vorton in the PSE lists); false: out of memory, no state changed. */
static bool workload_reserve(eddy_world *w, int vortons, int tracers, int pse_pairs) {
    const bool far = eddy_grid_of_vortons(w);
    const int grid_target = eddy_grid_reserve_target(w, vortons);
    return eddy_particles_reserve(&w->vortons, vortons) &&
           eddy_particles_reserve(&w->tracers, tracers) && scratch_reserve(w, vortons) &&
           (!uses_heun(w) || heun_reserve(w, vortons)) &&
           (!eddy_velocity_at_vortons(w) || vorton_gradient_reserve(w, vortons)) &&
           eddy_grid_arrays_reserve(w, eddy_grid_point_bound(grid_target)) &&
           eddy_partition_reserve(&w->part, grid_target) &&
           eddy_tree_reserve(&w->tree, grid_target, eddy_fluid_uses_moments(w)) &&
           eddy_pse_lists_reserve(w, vortons, pse_pairs) &&
           (!far || eddy_far_flags_reserve(w, tracers)) &&
           (!eddy_islands_allowed(w) || eddy_islands_reserve_order(w, vortons)) &&
           (!w->def.hash_every_step || eddy_hash_reserve(w, vortons, tracers)) &&
           eddy_partials_reserve(w, partials_bound(vortons, tracers, grid_target)) != NULL;
}

/* The most particles one emitter at `rate` can give over a step of
 * `substeps` substeps (emit.c, emit_count: the remainders carry, so the
 * substeps give rate dt + remainder in all, plus one per substep for the
 * rounding of each substep's sum). */
static int64_t emitter_bound(float rate, float remainder, float dt, int substeps) {
    const double want = (double)rate * (double)dt + (remainder > 0.0f ? (double)remainder : 0.0);
    if (!(want > 0.0)) return 0;
    const double most = 1.0e6 * (double)substeps; /* emit_count's cap per substep */
    return (int64_t)(want < most ? want : most) + 1 + substeps;
}

/* The most particles of one kind this step's emission can add. */
static int64_t emission_bound(const eddy_world *w, const eddy_input *in, bool vortons) {
    const int substeps = w->def.substeps * (w->def.vorton_step == EDDY_VORTON_STEP_HEUN_ADAPTIVE
                                                ? EDDY_ADAPTIVE_MAX_SUBSTEPS : 1);
    const float dt = w->def.dt;
    int64_t n = 0;
    for (int e = 0; e < w->emitter_count; ++e) {
        const emitter *em = &w->emitters[e];
        if (!em->alive) continue;
        const int32_t pending = vortons ? em->pending_vortons : em->pending_tracers;
        n += pending > 0 ? pending : 0;
        n += vortons ? emitter_bound(em->def.vorton_rate, em->vorton_remainder, dt, substeps)
                     : emitter_bound(em->def.tracer_rate, em->tracer_remainder, dt, substeps);
    }
    for (int k = 0; k < in->emitter_command_count; ++k) {
        const eddy_emitter_command *c = &in->emitter_commands[k];
        if (c->type == EDDY_EMITTER_BURST) n += vortons ? c->vorton_count : c->tracer_count;
        if (c->type == EDDY_EMITTER_CREATE)
            n += emitter_bound(vortons ? c->def.vorton_rate : c->def.tracer_rate, 0.0f, dt, substeps);
        if (c->type == EDDY_EMITTER_SET_RATES) /* on top of the old rate: a bound */
            n += emitter_bound(vortons ? c->vorton_rate : c->tracer_rate, 1.0f, dt, substeps);
    }
    return n;
}

/* The slots the input's commands take (emitters, blasts, bodies). */
static bool input_reserve(eddy_world *w, const eddy_input *in) {
    int creates = 0;
    for (int k = 0; k < in->emitter_command_count; ++k)
        creates += in->emitter_commands[k].type == EDDY_EMITTER_CREATE;
    if (creates > 0) {
        const int slots = w->emitter_count + creates;
        if (slots > w->emitter_capacity) {
            if (!eddy_grow((void **)&w->emitters, (size_t)slots * sizeof(emitter))) return false;
            w->emitter_capacity = slots;
        }
        if (creates > w->created_emitter_capacity) {
            if (!eddy_grow((void **)&w->created_emitters, (size_t)creates * sizeof(eddy_emitter_id)))
                return false;
            w->created_emitter_capacity = creates;
        }
    }
    const int blasts = w->blast_count + in->blast_count;
    if (in->blast_count > 0 && blasts > w->blast_capacity) {
        if (!eddy_grow((void **)&w->blasts, (size_t)blasts * sizeof(active_blast))) return false;
        w->blast_capacity = blasts;
    }
    return eddy_bodies_reserve(w, in);
}

/* The step's prelude (design note above); false: out of memory, or counts
 * beyond what the arrays can hold (INT32_MAX / 2, as emission refuses them:
 * a pending burst no input can make, from a corrupted state). */
static bool step_reserve(eddy_world *w, const eddy_input *in) {
    const int64_t vortons = (int64_t)w->vortons.count + emission_bound(w, in, true) +
                            eddy_bullet_wakes_bound(in);
    const int64_t tracers = (int64_t)w->tracers.count + emission_bound(w, in, false);
    if (vortons > INT32_MAX / 2 || tracers > INT32_MAX / 2) return false;
    return input_reserve(w, in) && workload_reserve(w, (int)vortons, (int)tracers, 0);
}

eddy_status eddy_world_reserve(eddy_world *w, int vortons, int tracers) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_reserve")) return EDDY_ERROR_WRONG_STATE;
    eddy_status s = EDDY_OK;
    if (vortons < 0 || tracers < 0 || vortons > INT32_MAX / 2 || tracers > INT32_MAX / 2) {
        eddy_world_set_error(w, "eddy_world_reserve: vortons %d and tracers %d must be in [0, %d]",
                             vortons, tracers, INT32_MAX / 2);
        s = EDDY_ERROR_INVALID_ARGUMENT;
    } else {
        const int v = vortons > w->vortons.count ? vortons : w->vortons.count;
        const int t = tracers > w->tracers.count ? tracers : w->tracers.count;
        if (!workload_reserve(w, v, t, RESERVE_PSE_PAIRS)) {
            eddy_world_set_error(w, "eddy_world_reserve: out of memory reserving %d vortons and %d "
                                 "tracers (what was reserved stays; the state is unchanged)", v, t);
            s = EDDY_ERROR_OUT_OF_MEMORY;
        }
    }
    eddy_world_leave(w);
    return s;
}

/* ---------------------------------------------------------------- step */
const char *eddy_phase_name(eddy_phase phase) {
    static const char *const names[EDDY_PHASE_COUNT] = {
        [EDDY_PHASE_INPUT] = "eddy.input",
        [EDDY_PHASE_KILL_EMIT] = "eddy.kill_emit",
        [EDDY_PHASE_ADVECT_TRACERS] = "eddy.advect_tracers",
        [EDDY_PHASE_TREE_BUILD] = "eddy.tree_build",
        [EDDY_PHASE_VELOCITY_GRID] = "eddy.velocity_grid",
        [EDDY_PHASE_STRETCH] = "eddy.stretch",
        [EDDY_PHASE_DENSITY] = "eddy.density",
        [EDDY_PHASE_DIFFUSION] = "eddy.diffusion",
        [EDDY_PHASE_ADVECT_VORTONS] = "eddy.advect_vortons",
        [EDDY_PHASE_COLLIDE_TRACERS] = "eddy.collide_tracers",
        [EDDY_PHASE_COLLIDE_VORTONS] = "eddy.collide_vortons",
        [EDDY_PHASE_BODIES] = "eddy.bodies",
        [EDDY_PHASE_DIAGNOSTICS] = "eddy.diagnostics",
        [EDDY_PHASE_HASH] = "eddy.hash",
    };
    return phase >= 0 && phase < EDDY_PHASE_COUNT ? names[phase] : "eddy.unknown";
}

/* One phase of the step: its timing slot and its profiler zone (on the
 * calling thread, worker 0; the task ranges it hands out carry the same zone
 * on the workers that run them, parallel.c). */
#define PHASE(w, slot, call)                                                     \
    do {                                                                         \
        const char *zone_ = eddy_phase_name(slot);                               \
        (w)->tasks.zone = zone_;                                                 \
        eddy_zone_begin(zone_, 0);                                               \
        double t_ = eddy_now_ms();                                               \
        call;                                                                    \
        (w)->profile.phase_ms[slot] += eddy_now_ms() - t_;                       \
        eddy_zone_end(zone_, 0);                                                 \
        (w)->tasks.zone = NULL;                                                  \
    } while (0)

/* A grid phase, once per island with the island swapped in when the world
 * has two or more (lib/fluid/islands.c), else once; stops at the first
 * island whose call cleared ok. */
#define EACH_ISLAND(w, ok, call)                                                 \
    do {                                                                         \
        if ((w)->island_count > 1) {                                             \
            for (int k_ = 0; k_ < (w)->island_count && (ok); ++k_) {             \
                eddy_island_swap(w, k_);                                         \
                call;                                                            \
                eddy_island_swap(w, k_);                                         \
            }                                                                    \
        } else {                                                                 \
            call;                                                                \
        }                                                                        \
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
        if (!eddy_grow((void **)&w->heun[k], (size_t)vortons * sizeof(float))) return false;
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
    /* With grid islands the stages run per island (EACH_ISLAND); the start,
     * the predicted velocities and the mean are taken on the world's own
     * vortons, scattered back first (lib/fluid/islands.c), and the second
     * solve splits the predicted vortons into islands afresh. */
    if (w->island_count > 1) eddy_islands_scatter(w);
    const size_t bytes = (size_t)n * sizeof(float);
    const float *const start[6] = {a->px, a->py, a->pz, a->wx, a->wy, a->wz};
    for (int k = 0; k < 6; ++k) memcpy(w->heun[k], start[k], bytes);
    bool ok = true;
    PHASE(w, EDDY_PHASE_STRETCH, EACH_ISLAND(w, ok, eddy_phase_stretch(w, dt)));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS, EACH_ISLAND(w, ok, eddy_phase_advect_vortons(w, dt)));
    if (w->island_count > 1) eddy_islands_scatter(w);
    memcpy(w->heun[6], a->vx, bytes);
    memcpy(w->heun[7], a->vy, bytes);
    memcpy(w->heun[8], a->vz, bytes);
    PHASE(w, EDDY_PHASE_TREE_BUILD, ok = eddy_islands_find(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_TREE_BUILD, EACH_ISLAND(w, ok, ok = eddy_phase_build_grid_and_tree(w)));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_VELOCITY_GRID, EACH_ISLAND(w, ok, eddy_phase_velocity_grid(w));
          eddy_phase_velocity_islands(w));
    PHASE(w, EDDY_PHASE_DENSITY, EACH_ISLAND(w, ok, eddy_phase_density_grid(w)));
    PHASE(w, EDDY_PHASE_DENSITY, EACH_ISLAND(w, ok, eddy_phase_pack_flow(w)));
    PHASE(w, EDDY_PHASE_STRETCH, EACH_ISLAND(w, ok, eddy_phase_stretch(w, dt)));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS, EACH_ISLAND(w, ok, eddy_phase_advect_vortons(w, dt)));
    if (w->island_count > 1) eddy_islands_scatter(w);
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS,
          eddy_parallel_for(&w->tasks, n, HEUN_CHUNK, heun_mean_chunk, w));
    return true;
}

/* The diffusion asked for more substeps than it may take (its message is
 * the world's error): the step fails with EDDY_ERROR_CAPACITY. */
static bool diffusion_refused(eddy_world *w) {
    w->step_failure = EDDY_ERROR_CAPACITY;
    return false;
}

static bool substep(eddy_world *w, float dt, bool first) {
    bool ok = true;
    if (first) {
        PHASE(w, EDDY_PHASE_KILL_EMIT, eddy_phase_kill_by_age(w, &w->tracers, w->def.tracer_max_age));
        PHASE(w, EDDY_PHASE_KILL_EMIT, eddy_phase_kill_by_age(w, &w->vortons, w->def.vorton_max_age));
    }
    /* With a grid of the vortons alone, the tracers outside it move after the
     * velocity solve (eddy_phase_advect_far_tracers): the tracers collide
     * with the bodies after that, so that every tracer's move of the step
     * is checked against the walls (the seed's grid keeps its order). */
    const bool collide_late = eddy_grid_of_vortons(w);
    PHASE(w, EDDY_PHASE_ADVECT_TRACERS, eddy_phase_advect_tracers(w, dt));
    /* blasts and bullets push the smoke before the walls see it (blast.c) */
    if (first) PHASE(w, EDDY_PHASE_ADVECT_TRACERS, eddy_phase_bullet_tracers(w));
    PHASE(w, EDDY_PHASE_ADVECT_TRACERS, eddy_phase_blast_tracers(w, dt));
    if (!collide_late) PHASE(w, EDDY_PHASE_COLLIDE_TRACERS, ok = eddy_phase_collide_tracers(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_KILL_EMIT, ok = eddy_phase_emit(w) && scratch_reserve(w, w->vortons.count));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_TREE_BUILD, ok = eddy_islands_find(w));
    if (!ok) return false;
    /* With two or more islands every grid phase runs once per island, the
     * island swapped into the grid fields (lib/fluid/islands.c). */
    PHASE(w, EDDY_PHASE_TREE_BUILD, EACH_ISLAND(w, ok, ok = eddy_phase_build_grid(w)));
    if (!ok) return false;
    /* Baroclinic generation before the velocity: symplectic order (density.c) */
    PHASE(w, EDDY_PHASE_DENSITY, EACH_ISLAND(w, ok, ok = eddy_phase_density(w, dt)));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_VELOCITY_GRID, EACH_ISLAND(w, ok, eddy_phase_velocity_grid(w));
          eddy_phase_velocity_islands(w));
    PHASE(w, EDDY_PHASE_ADVECT_TRACERS, eddy_phase_advect_far_tracers(w, dt));
    if (collide_late) PHASE(w, EDDY_PHASE_COLLIDE_TRACERS, ok = eddy_phase_collide_tracers(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_DENSITY, EACH_ISLAND(w, ok, eddy_phase_pack_flow(w)));
    if (w->def.vorton_step == EDDY_VORTON_STEP_HEUN ||
        w->def.vorton_step == EDDY_VORTON_STEP_HEUN_ADAPTIVE) {
        PHASE(w, EDDY_PHASE_DIFFUSION, EACH_ISLAND(w, ok, ok = eddy_phase_diffuse(w, dt)));
        if (!ok) return diffusion_refused(w);
        if (!heun_vortons(w, dt)) return false;
    } else {
        PHASE(w, EDDY_PHASE_STRETCH, EACH_ISLAND(w, ok, eddy_phase_stretch(w, dt)));
        PHASE(w, EDDY_PHASE_DIFFUSION, EACH_ISLAND(w, ok, ok = eddy_phase_diffuse(w, dt)));
        if (!ok) return diffusion_refused(w);
        PHASE(w, EDDY_PHASE_ADVECT_VORTONS, EACH_ISLAND(w, ok, eddy_phase_advect_vortons(w, dt)));
        if (w->island_count > 1) eddy_islands_scatter(w);
    }
    if (first) PHASE(w, EDDY_PHASE_ADVECT_VORTONS, eddy_phase_bullet_vortons(w));
    PHASE(w, EDDY_PHASE_ADVECT_VORTONS, eddy_phase_blast_vortons(w, dt));
    eddy_blasts_advance(w, dt);
    PHASE(w, EDDY_PHASE_COLLIDE_VORTONS, ok = eddy_phase_collide_vortons(w));
    if (!ok) return false;
    PHASE(w, EDDY_PHASE_BODIES, eddy_phase_body_forces(w); eddy_phase_find_held_bodies(w);
                                ok = eddy_phase_integrate_bodies(w, dt); eddy_phase_contain_bodies(w));
    return ok;
}

/* EDDY_VORTON_STEP_HEUN_ADAPTIVE: the substeps the vorticity asks for (1
 * for every other step). The largest |omega|^2 over the vortons is a
 * maximum, the same whatever order it is taken in; one pass on the calling
 * thread, in index order. n is the least count with
 * max |omega|^2 (dt / def.substeps)^2 <= (EDDY_ADAPTIVE_OMEGA_DT n)^2, at most
 * EDDY_ADAPTIVE_MAX_SUBSTEPS. Why |omega| dt: a vortex core turns at omega / 2
 * and each step's velocity is held over the step, so the error of a step
 * grows with the angle the core turns in it (docs/physics.md section 9.3). */
static int vorticity_substeps(const eddy_world *w) {
    if (w->def.vorton_step != EDDY_VORTON_STEP_HEUN_ADAPTIVE) return 1;
    const particle_array *v = &w->vortons;
    float m2 = 0.0f;
    for (int i = 0; i < v->count; ++i) {
        const float o2 = v->wx[i] * v->wx[i] + v->wy[i] * v->wy[i] + v->wz[i] * v->wz[i];
        m2 = o2 > m2 ? o2 : m2;
    }
    const float h = w->def.dt / (float)w->def.substeps;
    const float turn2 = m2 * h * h;
    int n = 1;
    while (n < EDDY_ADAPTIVE_MAX_SUBSTEPS &&
           turn2 > (EDDY_ADAPTIVE_OMEGA_DT * (float)n) * (EDDY_ADAPTIVE_OMEGA_DT * (float)n))
        ++n;
    return n;
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
    eddy_log(EDDY_LOG_ERROR, "%s: %s", eddy_status_name(status), w->error);
    return status;
}

static eddy_status world_step_held(eddy_world *w, const eddy_input *input) {
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
    if (!step_reserve(w, in)) { /* nothing of the state has changed yet */
        eddy_fpenv_set(caller_mode);
        eddy_world_set_error(w, "step %lld: out of memory making room for the step; the world is "
                             "unchanged and may step again", (long long)w->frame + 1);
        eddy_log(EDDY_LOG_ERROR, "%s: %s", eddy_status_name(EDDY_ERROR_OUT_OF_MEMORY), w->error);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    eddy_zone_begin("eddy_world_step", 0);
    const double t0 = eddy_now_ms();
    memset(&w->profile, 0, sizeof w->profile);
    w->state_counter += 1; /* the state changes from here on (views are stale) */

    bool ok = true;
    char bad[128] = "";
    eddy_bodies_begin_step(w); /* what the fluid gives the bodies, from zero */
    PHASE(w, EDDY_PHASE_INPUT, ok = input_apply(w, in));
    PHASE(w, EDDY_PHASE_INPUT, eddy_phase_remove_embedded(w));
    w->step_failure = EDDY_OK;
    const int substeps = w->def.substeps * vorticity_substeps(w);
    w->step_substeps = substeps;
    const float dt = w->def.dt / (float)substeps;
    for (int k = 0; k < substeps && ok; ++k) ok = substep(w, dt, k == 0);
    eddy_bodies_end_step(w); /* input forces act for the whole step, every substep */
    w->step_bullets = NULL;  /* the input's array: never kept past the step */
    w->step_bullet_count = 0;
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
    eddy_zone_end("eddy_world_step", 0);
    eddy_fpenv_set(caller_mode);
    if (!ok && w->step_failure != EDDY_OK)
        return world_break(w, w->step_failure, w->frame + 1, w->error);
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
    const int got = start < 0 || count <= 0 || start >= n ? 0 : count < n - start ? count : n - start;
    if (got != count)
        eddy_log(EDDY_LOG_INFO, "particle range [%d, %d + %d) clamped to %d of %d particles", start,
                 start, count, got, n);
    return got;
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
    int k;
    const grid_shape *grid = eddy_sample_grid(w, p.x, p.y, p.z, &k);
    if (!grid) return u;
    const float *flow = k < 0 ? w->flow : w->islands[k].flow;
    /* Beyond a grid of the vortons alone the flow is the far field, which
     * the last step evaluated only at the tracers: the wind is returned
     * there (the seed's grid, which holds every particle, clamps). */
    if (eddy_grid_of_vortons(w) && !grid_contains(grid, p.x, p.y, p.z))
        return u;
    float g[4];
    grid_interp_n(grid, flow, 4, p.x, p.y, p.z, g);
    return (eddy_vec3){u.x + g[0], u.y + g[1], u.z + g[2]};
}

static eddy_grid_info grid_info(const grid_shape *g, const influence_tree *t, float mollify) {
    eddy_grid_info info;
    memset(&info, 0, sizeof info);
    for (int a = 0; a < 3; ++a) info.cells[a] = g->cells[a];
    info.min_corner = (eddy_vec3){g->min[0], g->min[1], g->min[2]};
    info.cell_size = (eddy_vec3){g->spacing[0], g->spacing[1], g->spacing[2]};
    info.tree_levels = t->levels;
    info.mollification = mollify;
    return info;
}

int eddy_world_get_island_grid_info(const eddy_world *w, int island, eddy_grid_info *info) {
    if (!w) return 0;
    const int count = w->island_count > 1 ? w->island_count : w->grid_valid ? 1 : 0;
    if (info && island >= 0 && island < count) {
        if (w->island_count > 1) {
            const grid_island *s = &w->islands[island];
            *info = grid_info(&s->grid, &s->tree, s->mollify);
        } else {
            *info = grid_info(&w->grid, &w->tree, w->mollify);
        }
    }
    return count;
}

eddy_grid_info eddy_world_get_grid_info(const eddy_world *w) {
    eddy_grid_info info;
    memset(&info, 0, sizeof info);
    (void)eddy_world_get_island_grid_info(w, 0, &info);
    return info;
}

eddy_status eddy_world_step(eddy_world *w, const eddy_input *input) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_step")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = world_step_held(w, input);
    eddy_world_leave(w);
    return s;
}

eddy_status eddy_world_add_vortons(eddy_world *w, const eddy_vorton *v, int count) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_add_vortons")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = world_add_vortons_held(w, v, count);
    if (s == EDDY_OK) w->state_counter += 1;
    eddy_world_leave(w);
    return s;
}

eddy_status eddy_world_add_tracers(eddy_world *w, const eddy_tracer *t, int count) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_add_tracers")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = world_add_tracers_held(w, t, count);
    if (s == EDDY_OK) w->state_counter += 1;
    eddy_world_leave(w);
    return s;
}

eddy_status eddy_world_create_emitter(eddy_world *w, const eddy_emitter_def *d, eddy_emitter_id *out) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_create_emitter")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = world_create_emitter_held(w, d, out);
    if (s == EDDY_OK) w->state_counter += 1;
    eddy_world_leave(w);
    return s;
}
