/* SPDX-License-Identifier: MIT */
/* Emission: new particles appended in emitter-slot order, tracers before
 * vortons; random jitter drawn from the world's PCG32 in x, y, z order (D8).
 * The fractional part of rate * dt is carried in the emitter (state). */
#include "core.h"

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

static vec3 jitter(eddy_world *w, eddy_vec3 base, eddy_vec3 spread) {
    vec3 p;
    p.x = base.x + eddy_rng_spread(&w->rng, spread.x);
    p.y = base.y + eddy_rng_spread(&w->rng, spread.y);
    p.z = base.z + eddy_rng_spread(&w->rng, spread.z);
    return p;
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
        const eddy_emitter_def *d = &em->def;
        const vec3 v = {d->velocity.x, d->velocity.y, d->velocity.z};
        for (int k = 0; k < n; ++k) {
            vec3 p = jitter(w, d->position, d->position_spread);
            vec3 om = {0.0f, 0.0f, 0.0f};
            if (vortons) om = jitter(w, d->vorticity, d->vorticity_spread);
            eddy_particles_push(a, p, v, om, d->density_deviation, birth);
        }
    }
    return true;
}

bool eddy_phase_emit(eddy_world *w) {
    const float dt = w->def.dt / (float)w->def.substeps;
    return emit_group(w, false, dt) && emit_group(w, true, dt);
}
