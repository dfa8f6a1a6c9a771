/* SPDX-License-Identifier: MIT */
/* Vortex stretching and tilting: d(omega)/dt = gain * (omega . grad) u (D4).
 *
 * The velocity Jacobian is taken on the grid by finite differences (centred
 * inside, one-sided on the faces); each vorton interpolates it and updates
 * its own vorticity by explicit Euler. Grid points and vortons are each owned
 * by one chunk. */
#include "core.h"

enum { JACOBIAN_CHUNK = 256, STRETCH_CHUNK = 512 };

typedef struct jacobian_job {
    const grid_shape *g;
    const vec3 *u;
    vec3 *rows[3]; /* rows[a][p] = d u / d x_a at point p */
} jacobian_job;

static void jacobian_chunk(int chunk, int begin, int end, void *context) {
    const jacobian_job *job = context;
    const grid_shape *g = job->g;
    const int nx = g->points[0], ny = g->points[1];
    const int stride[3] = {1, nx, nx * ny};
    for (int p = begin; p < end; ++p) {
        const int idx[3] = {p % nx, (p / nx) % ny, p / (nx * ny)};
        for (int a = 0; a < 3; ++a) {
            int lo, hi;
            float s;
            eddy_grid_diff_stencil(g, a, idx[a], &lo, &hi, &s);
            const vec3 *ul = &job->u[p + (lo - idx[a]) * stride[a]];
            const vec3 *uh = &job->u[p + (hi - idx[a]) * stride[a]];
            vec3 d = {(uh->x - ul->x) * s, (uh->y - ul->y) * s, (uh->z - ul->z) * s};
            job->rows[a][p] = d;
        }
    }
}

typedef struct stretch_job {
    eddy_world *w;
    float gain_dt;
} stretch_job;

static void stretch_chunk(int chunk, int begin, int end, void *context) {
    const stretch_job *job = context;
    eddy_world *w = job->w;
    particle_array *v = &w->vortons;
    const int points = grid_point_count(&w->grid);
    const vec3 *rx = w->jacobian, *ry = w->jacobian + points, *rz = w->jacobian + 2 * points;
    for (int i = begin; i < end; ++i) {
        const float x = v->px[i], y = v->py[i], z = v->pz[i];
        const vec3 gx = grid_interp_vec3(&w->grid, rx, x, y, z);
        const vec3 gy = grid_interp_vec3(&w->grid, ry, x, y, z);
        const vec3 gz = grid_interp_vec3(&w->grid, rz, x, y, z);
        const float ox = v->wx[i], oy = v->wy[i], oz = v->wz[i];
        /* (omega . grad) u = ox du/dx + oy du/dy + oz du/dz */
        const float sx = ox * gx.x + oy * gy.x + oz * gz.x;
        const float sy = ox * gx.y + oy * gy.y + oz * gz.y;
        const float sz = ox * gx.z + oy * gy.z + oz * gz.z;
        v->wx[i] = ox + job->gain_dt * sx;
        v->wy[i] = oy + job->gain_dt * sy;
        v->wz[i] = oz + job->gain_dt * sz;
    }
}

void eddy_phase_stretch(eddy_world *w, float dt) {
    if (!w->grid_valid) return;
    const int points = grid_point_count(&w->grid);
    jacobian_job jj = {&w->grid, w->velocity, {w->jacobian, w->jacobian + points, w->jacobian + 2 * points}};
    eddy_parallel_for(&w->tasks, points, JACOBIAN_CHUNK, jacobian_chunk, &jj);
    if (w->def.stretch_gain == 0.0f) return;
    stretch_job sj = {w, w->def.stretch_gain * dt};
    eddy_parallel_for(&w->tasks, w->vortons.count, STRETCH_CHUNK, stretch_chunk, &sj);
}
