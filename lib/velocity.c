/* SPDX-License-Identifier: MIT */
/* Grid sizing for the step and velocity from vorticity.
 *
 * eddy_phase_build_grid sizes the grid template over all particles (plus a margin
 * of one vorton radius), sorts vortons into its cells and builds the
 * influence tree. eddy_phase_velocity_grid fills the velocity at every grid point
 * by the treecode (default) or by direct summation, each point owned by one
 * chunk. Auto-mollification (Part 12): the vorton core is widened to
 * f r with f = max(length_scale * cbrt(V_cell) / r, 1) for the treecode. */
#include "core.h"

enum { VELOCITY_CHUNK = 64, DIRECT_CHUNK = 16 };

bool eddy_phase_build_grid(eddy_world *w) {
    w->grid_valid = false;
    if (w->vortons.count == 0) return true;
    float lo[3], hi[3];
    eddy_particles_bounds(w, lo, hi);
    const float margin = w->def.vorton_radius;
    for (int a = 0; a < 3; ++a) {
        lo[a] -= margin;
        hi[a] += margin;
    }
    eddy_grid_define(&w->grid, lo, hi, w->vortons.count);
    if (!eddy_grid_arrays_reserve(w, grid_point_count(&w->grid))) return false;
    if (!eddy_partition_build(&w->part, &w->grid, &w->vortons)) return false;
    if (!eddy_tree_build(&w->tree, &w->tasks, &w->grid, &w->vortons, &w->part)) return false;
    const grid_shape *g = &w->grid;
    float cell_volume = 1.0f;
    for (int a = 0; a < 3; ++a) cell_volume *= g->spacing[a];
    float f = w->def.mollify_length_scale * eddy_cbrtf(cell_volume) / w->def.vorton_radius;
    w->mollify = f > 1.0f ? f : 1.0f;
    w->grid_valid = true;
    return true;
}

typedef struct velocity_job {
    eddy_world *w;
    vec3 *out;
    float a, c;
} velocity_job;

static inline void point_position(const grid_shape *g, int p, float q[3]) {
    int i = p % g->points[0], j = (p / g->points[0]) % g->points[1];
    int k = p / (g->points[0] * g->points[1]);
    q[0] = g->min[0] + (float)i * g->spacing[0];
    q[1] = g->min[1] + (float)j * g->spacing[1];
    q[2] = g->min[2] + (float)k * g->spacing[2];
}

static void tree_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    for (int p = begin; p < end; ++p) {
        float q[3];
        point_position(&job->w->grid, p, q);
        job->out[p] = eddy_tree_velocity_at(&job->w->tree, q[0], q[1], q[2], job->a, job->c);
    }
}

static void direct_grid_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    for (int p = begin; p < end; ++p) {
        float q[3];
        point_position(&job->w->grid, p, q);
        job->out[p] = eddy_direct_velocity_at(&job->w->vortons, q[0], q[1], q[2], job->a);
    }
}

static void direct_vorton_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    particle_array *v = &job->w->vortons;
    for (int i = begin; i < end; ++i) {
        vec3 u = eddy_direct_velocity_at(v, v->px[i], v->py[i], v->pz[i], job->a);
        v->vx[i] = u.x;
        v->vy[i] = u.y;
        v->vz[i] = u.z;
    }
}

void eddy_phase_velocity_grid(eddy_world *w) {
    if (!w->grid_valid) return;
    const int points = grid_point_count(&w->grid);
    const float r = w->def.vorton_radius;
    if (w->def.velocity_method == EDDY_VELOCITY_TREECODE) {
        const float f = w->mollify;
        velocity_job job = {w, w->velocity, r * f, 1.0f / (f * f * f)};
        eddy_parallel_for(&w->tasks, points, VELOCITY_CHUNK, tree_chunk, &job);
        return;
    }
    velocity_job job = {w, w->velocity, r, 1.0f};
    eddy_parallel_for(&w->tasks, points, DIRECT_CHUNK, direct_grid_chunk, &job);
    if (w->def.velocity_method == EDDY_VELOCITY_DIRECT_VORTONS)
        eddy_parallel_for(&w->tasks, w->vortons.count, DIRECT_CHUNK, direct_vorton_chunk, &job);
}
