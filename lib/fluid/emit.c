/* SPDX-License-Identifier: MIT */
/* Emission: new particles appended in emitter-slot order, tracers before
 * vortons; random jitter drawn from the world's PCG32 in x, y, z order (D8).
 * The fractional part of rate * dt is carried in the emitter (state).
 *
 * A particle takes a fixed number of draws (3 for a tracer's position, 6 for
 * a vorton's position and vorticity), so particle k of a group starts at
 * draw k * draws of the group's stream. A large group (a burst) is therefore
 * written in parallel fixed chunks: each chunk skips its generator ahead to
 * its first particle (eddy_rng_advance) and writes its own particles' slots;
 * the world's generator then skips past the whole group. The draws, and so
 * the bits, are those of emitting one particle after another, which is what
 * a small group does (EDDY_MUTATION_SERIAL_EMISSION makes every group do it;
 * tests/test_world.c compares the two). */
#include "fluid/fluid.h"
#include "hash/hash.h"

enum {
    EMIT_CHUNK = 2048,        /* particles per chunk of a parallel group */
    EMIT_PARALLEL_MIN = 8192, /* smaller groups: one particle after another */
};

static int emit_count(float rate, float dt, float *remainder) {
    float want = rate * dt + *remainder;
    if (!(want > 0.0f)) {
        *remainder = 0.0f;
        return 0;
    }
    if (want > 1.0e6f) want = 1.0e6f;
    int n = (int)want;
    *remainder = want - (float)n;
    return n;
}

static vec3 jitter(eddy_rng *rng, eddy_vec3 base, eddy_vec3 spread) {
    vec3 p;
    p.x = base.x + eddy_rng_spread(rng, spread.x);
    p.y = base.y + eddy_rng_spread(rng, spread.y);
    p.z = base.z + eddy_rng_spread(rng, spread.z);
    return p;
}

typedef struct emit_job {
    particle_array *a;
    const eddy_emitter_def *d;
    eddy_rng rng;   /* before the group's first draw */
    uint64_t draws; /* per particle */
    int first;      /* index of the group's first particle */
    uint64_t first_id;
    int32_t birth;
} emit_job;

/* Particles [begin, end) of the group, written as eddy_particles_push would. */
static void emit_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk;
    const emit_job *job = context;
    particle_array *a = job->a;
    const eddy_emitter_def *d = job->d;
    eddy_rng rng = job->rng;
    eddy_rng_advance(&rng, (uint64_t)begin * job->draws);
    for (int k = begin; k < end; ++k) {
        const int i = job->first + k;
        const vec3 p = jitter(&rng, d->position, d->position_spread);
        a->px[i] = p.x; a->py[i] = p.y; a->pz[i] = p.z;
        a->vx[i] = d->velocity.x; a->vy[i] = d->velocity.y; a->vz[i] = d->velocity.z;
        if (a->has_vorticity) {
            const vec3 om = jitter(&rng, d->vorticity, d->vorticity_spread);
            a->wx[i] = om.x; a->wy[i] = om.y; a->wz[i] = om.z;
            a->hx[i] = 0.0f; a->hy[i] = 0.0f; a->hz[i] = 0.0f;
        }
        if (a->keeps_rate) {
            a->sx[i] = 0.0f; a->sy[i] = 0.0f; a->sz[i] = 0.0f;
        }
        a->drho[i] = d->density_deviation;
        a->birth[i] = job->birth;
        if (a->id) a->id[i] = job->first_id + (uint64_t)k;
    }
}

/* n particles of emitter d, capacity reserved. */
static void emit_particles(eddy_world *w, particle_array *a, const eddy_emitter_def *d, int n,
                           int32_t birth) {
    const bool serial = n < EMIT_PARALLEL_MIN ||
                        (w->tasks.mutations & EDDY_MUTATION_SERIAL_EMISSION) != 0;
    if (serial) {
        const vec3 v = {d->velocity.x, d->velocity.y, d->velocity.z};
        for (int k = 0; k < n; ++k) {
            vec3 p = jitter(&w->rng, d->position, d->position_spread);
            vec3 om = {0.0f, 0.0f, 0.0f};
            if (a->has_vorticity) om = jitter(&w->rng, d->vorticity, d->vorticity_spread);
            eddy_particles_push(a, p, v, om, d->density_deviation, birth);
        }
        return;
    }
    emit_job job = {a, d, w->rng, a->has_vorticity ? 6u : 3u, 0, 0, birth};
    job.first = eddy_particles_extend(a, n, birth, &job.first_id);
    eddy_parallel_for(&w->tasks, n, EMIT_CHUNK, emit_chunk, &job);
    eddy_rng_advance(&w->rng, (uint64_t)n * job.draws);
}

static bool emit_group(eddy_world *w, bool vortons, float dt) {
    particle_array *a = vortons ? &w->vortons : &w->tracers;
    const int32_t birth = (int32_t)w->frame;
    for (int e = 0; e < w->emitter_count; ++e) {
        emitter *em = &w->emitters[e];
        if (!em->alive) continue;
        /* In 64 bits: a restored state may carry any pending count, and the
         * sum must not overflow; more than the arrays can hold fails like an
         * allocation would (out of memory), never wraps. */
        int64_t want = vortons ? em->pending_vortons : em->pending_tracers;
        if (want < 0) want = 0;
        if (em->def.enabled) {
            want += vortons ? emit_count(em->def.vorton_rate, dt, &em->vorton_remainder)
                            : emit_count(em->def.tracer_rate, dt, &em->tracer_remainder);
        }
        if (vortons) em->pending_vortons = 0; else em->pending_tracers = 0;
        if (want == 0) continue;
        if (want > (int64_t)(INT32_MAX / 2 - a->count)) return false;
        const int n = (int)want;
        if (!eddy_particles_reserve(a, a->count + n)) return false;
        if (!vortons) eddy_early_hash_stale_from(w, a->count);
        emit_particles(w, a, &em->def, n, birth);
    }
    return true;
}

bool eddy_phase_emit(eddy_world *w) {
    const float dt = w->def.dt / (float)w->step_substeps;
    return emit_group(w, false, dt) && emit_group(w, true, dt);
}
