/* Advection by forward Euler (D7): particle velocity = grid velocity + wind.
 *
 * Tracers move first in a step, with the velocity grid of the previous step
 * (which was sized to contain them) and take rho' from the previous density
 * grid. Vortons move last, with this step's grid. Each particle is owned by
 * one chunk. */
#include "core.h"

enum { ADVECT_CHUNK = 4096 };

typedef struct advect_job {
    eddy_world *w;
    particle_array *a;
    float dt;
    vec3 wind;
    bool use_grid, take_density, keep_velocity;
} advect_job;

static void advect_chunk(int chunk, int begin, int end, void *context) {
    const advect_job *job = context;
    const eddy_world *w = job->w;
    particle_array *a = job->a;
    const float dt = job->dt;
    for (int i = begin; i < end; ++i) {
        const float x = a->px[i], y = a->py[i], z = a->pz[i];
        vec3 u = {0.0f, 0.0f, 0.0f};
        if (job->keep_velocity)
            u = (vec3){a->vx[i], a->vy[i], a->vz[i]};
        else if (job->use_grid)
            u = grid_interp_vec3(&w->grid, w->velocity, x, y, z);
        u.x += job->wind.x;
        u.y += job->wind.y;
        u.z += job->wind.z;
        if (job->take_density) a->drho[i] = grid_interp_float(&w->grid, w->density, x, y, z);
        a->vx[i] = u.x;
        a->vy[i] = u.y;
        a->vz[i] = u.z;
        a->px[i] = x + u.x * dt;
        a->py[i] = y + u.y * dt;
        a->pz[i] = z + u.z * dt;
    }
}

void phase_advect_tracers(eddy_world *w, float dt) {
    advect_job job = {w, &w->tracers, dt, {w->wind.x, w->wind.y, w->wind.z},
                      w->grid_valid, w->grid_valid, false};
    parallel_for(&w->tasks, w->tracers.count, ADVECT_CHUNK, advect_chunk, &job);
}

void phase_advect_vortons(eddy_world *w, float dt) {
    const bool direct = w->def.velocity_method == EDDY_VELOCITY_DIRECT_VORTONS && w->grid_valid;
    advect_job job = {w, &w->vortons, dt, {w->wind.x, w->wind.y, w->wind.z},
                      w->grid_valid, false, direct};
    parallel_for(&w->tasks, w->vortons.count, ADVECT_CHUNK, advect_chunk, &job);
}
