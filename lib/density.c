/* SPDX-License-Identifier: MIT */
/* Variable density: rho' to the grid, its gradient, baroclinic generation.
 *
 * rho' is carried by vortons. The density field on the grid is a gather:
 * each grid point sums, over the (up to) 8 cells it is a corner of (z, y, x
 * order) and the vortons of each cell (ascending index), rho' (2r)^3 / V_cell
 * times the vorton's trilinear weight for that point: each vorton stands for
 * the cube of fluid one diameter wide around it. This equals the
 * original's scatter (particle-to-grid accumulation) up to summation order,
 * which is now fixed by the state.
 *
 * Normalised by the vortons' weight. The plain sum reads rho' times the
 * local number density of vortons (times (2r)^3 / V_cell): a uniform layer
 * whose vortons bunch up reads heavier where they bunch and lighter where
 * they thin out, and the grid's own spacing beats against the vortons'
 * (the grid is sized from the particles' bounds, not their lattice). Those
 * ripples are density gradients that are not there, and they are not
 * parallel to g: their baroclinic torque moves vortons, which changes their
 * number density again. In a closed box of layers at rest this fed back
 * into a slow overturn (enstrophy up by e every ~115 frames from frame
 * ~600, docs/physics.md §8.2). So each grid point divides by the sum of the
 * same weights, W = sum (2r)^3 / V_cell * trilinear weight, and reads the
 * weighted mean rho' of the vortons around it: the number density cancels
 * and a uniform layer reads its rho' exactly, however its vortons are
 * arranged. Where the fluid's vortons thin out into ambient fluid (the edge
 * of a drop, a sparse plume, W falls to 0) the mean would jump to the last
 * vorton's rho'; there the divisor is 1 - W instead, max(W, 1 - W) in all:
 * continuous at W = 1/2, and the plain sum as W -> 0, so rho' still falls
 * off to 0 continuously over the last grid cell and never exceeds the values
 * carried. A full lattice of vortons one diameter apart has W ~ 1. The cost:
 * the fringe of an isolated blob reads up to 2x its share, so a blob's rho'
 * integrated over the grid is up to ~15% above sum rho' (2r)^3 at the
 * scenes' resolution (dye_drop: 1.15; filled containers: 1.03-1.05).
 *
 * Baroclinic generation (D6):
 *     d(omega)/dt = (grad rho x g) / rho0,
 * with g the apparent gravity g - a - alpha x r - W x (W x r) for vortons
 * inside a container that accelerates (lib/carry.c).
 *
 * Order: this phase runs before the velocity, and the tree is re-aggregated
 * after the baroclinic update, so a step is omega' = omega + dt B(x),
 * x' = x + dt U(x, omega'): symplectic Euler for the buoyancy oscillation of
 * a stratified fluid. The former order (velocity from the old omega, then
 * the baroclinic update) was explicit Euler, whose amplitude grows by
 * sqrt(1 + (N dt)^2) per step: layers at rest in a closed box grew from
 * rounding noise by e every ~14 frames. eddy_phase_pack_flow then packs
 * velocity and rho' into the 4-float flow grid that particles sample. */
#include "core.h"

enum { DENSITY_CHUNK = 256, BAROCLINIC_CHUNK = 512 };

typedef struct density_job {
    eddy_world *w;
    float scale; /* V_vorton / V_cell */
} density_job;

static float point_density(const eddy_world *w, const int pt[3], float scale) {
    const grid_shape *g = &w->grid;
    const particle_array *v = &w->vortons;
    const int *start = w->part.cell_start, *sorted = w->part.sorted_index;
    const float *fx = w->scratch[0], *fy = w->scratch[1], *fz = w->scratch[2];
    float sum = 0.0f, weight = 0.0f;
    for (int ck = pt[2] - 1; ck <= pt[2]; ++ck) {
        if (ck < 0 || ck >= g->cells[2]) continue;
        for (int cj = pt[1] - 1; cj <= pt[1]; ++cj) {
            if (cj < 0 || cj >= g->cells[1]) continue;
            for (int ci = pt[0] - 1; ci <= pt[0]; ++ci) {
                if (ci < 0 || ci >= g->cells[0]) continue;
                const int c = ci + g->cells[0] * (cj + g->cells[1] * ck);
                const bool ox = pt[0] > ci, oy = pt[1] > cj, oz = pt[2] > ck;
                for (int n = start[c]; n < start[c + 1]; ++n) {
                    const int i = sorted[n];
                    const float wx = ox ? fx[i] : 1.0f - fx[i];
                    const float wy = oy ? fy[i] : 1.0f - fy[i];
                    const float wz = oz ? fz[i] : 1.0f - fz[i];
                    const float wi = scale * (wx * wy * wz);
                    sum += v->drho[i] * wi;
                    weight += wi;
                }
            }
        }
    }
    /* the weighted mean, and toward the plain sum at the fluid's edge */
    const float edge = 1.0f - weight;
    return sum / (weight > edge ? weight : edge);
}

/* Each vorton's fractions within its grid cell (grid_locate), computed once
 * into scratch[0..2] instead of once per grid point that gathers it (8). The
 * scratch arrays are free until diffusion fills them. */
static void fraction_chunk(int chunk, int begin, int end, void *context) {
    const density_job *job = context;
    const grid_shape *g = &job->w->grid;
    const particle_array *v = &job->w->vortons;
    float *fx = job->w->scratch[0], *fy = job->w->scratch[1], *fz = job->w->scratch[2];
    for (int i = begin; i < end; ++i) {
        int idx[3];
        float t[3];
        grid_locate(g, v->px[i], v->py[i], v->pz[i], idx, t);
        fx[i] = t[0];
        fy[i] = t[1];
        fz[i] = t[2];
    }
}

static void density_chunk(int chunk, int begin, int end, void *context) {
    const density_job *job = context;
    const grid_shape *g = &job->w->grid;
    const int nx = g->points[0], ny = g->points[1];
    for (int p = begin; p < end; ++p) {
        const int pt[3] = {p % nx, (p / nx) % ny, p / (nx * ny)};
        const float rho = point_density(job->w, pt, job->scale);
        job->w->density[p] = rho;
    }
}

/* The 4-float flow grid (velocity, rho') that particles sample. */
static void pack_chunk(int chunk, int begin, int end, void *context) {
    eddy_world *w = context;
    for (int p = begin; p < end; ++p) {
        const vec3 u = w->velocity[p];
        float *flow = w->flow + 4 * (size_t)p;
        flow[0] = u.x;
        flow[1] = u.y;
        flow[2] = u.z;
        flow[3] = w->density[p];
    }
}

static void gradient_chunk(int chunk, int begin, int end, void *context) {
    eddy_world *w = ((density_job *)context)->w;
    const grid_shape *g = &w->grid;
    const int nx = g->points[0], ny = g->points[1];
    const int stride[3] = {1, nx, nx * ny};
    for (int p = begin; p < end; ++p) {
        const int idx[3] = {p % nx, (p / nx) % ny, p / (nx * ny)};
        float d[3];
        for (int a = 0; a < 3; ++a) {
            int lo, hi;
            float s;
            eddy_grid_diff_stencil(g, a, idx[a], &lo, &hi, &s);
            d[a] = (w->density[p + (hi - idx[a]) * stride[a]] -
                    w->density[p + (lo - idx[a]) * stride[a]]) * s;
        }
        w->density_gradient[p] = (vec3){d[0], d[1], d[2]};
    }
}

typedef struct baroclinic_job {
    eddy_world *w;
    vec3 g_dt;    /* gravity * dt / rho0 */
    float dt_rho; /* dt / rho0 */
} baroclinic_job;

static void baroclinic_chunk(int chunk, int begin, int end, void *context) {
    const baroclinic_job *job = context;
    eddy_world *w = job->w;
    particle_array *v = &w->vortons;
    for (int i = begin; i < end; ++i) {
        const vec3 x = {v->px[i], v->py[i], v->pz[i]};
        /* In a container that accelerates, the apparent gravity of its frame */
        const vec3 g = eddy_frame_apparent_gravity(w, x, job->g_dt, job->dt_rho);
        const vec3 d = grid_interp_vec3(&w->grid, w->density_gradient, x.x, x.y, x.z);
        v->wx[i] += d.y * g.z - d.z * g.y;
        v->wy[i] += d.z * g.x - d.x * g.z;
        v->wz[i] += d.x * g.y - d.y * g.x;
    }
}

bool eddy_phase_density(eddy_world *w, float dt) {
    if (!w->grid_valid) return true;
    const grid_shape *g = &w->grid;
    float cell_volume = 1.0f;
    for (int a = 0; a < 3; ++a)
        if (g->spacing[a] > 0.0f) cell_volume *= g->spacing[a];
    /* A vorton stands for the cube of fluid of edge one diameter around it
     * (vortons are seeded one diameter apart), so a region whose vortons all
     * carry rho' reads rho' on the grid. */
    const float d = 2.0f * w->def.vorton_radius;
    density_job dj = {w, d * d * d / cell_volume};
    const int points = grid_point_count(g);
    eddy_parallel_for(&w->tasks, w->vortons.count, BAROCLINIC_CHUNK, fraction_chunk, &dj);
    eddy_parallel_for(&w->tasks, points, DENSITY_CHUNK, density_chunk, &dj);
    eddy_parallel_for(&w->tasks, points, DENSITY_CHUNK, gradient_chunk, &dj);
    eddy_phase_poison_density_gradient(w);
    const eddy_vec3 gv = w->gravity;
    if (gv.x == 0.0f && gv.y == 0.0f && gv.z == 0.0f && !eddy_frames_accelerate(w)) return true;
    const float k = dt / w->def.ambient_density;
    baroclinic_job bj = {w, {gv.x * k, gv.y * k, gv.z * k}, k};
    eddy_parallel_for(&w->tasks, w->vortons.count, BAROCLINIC_CHUNK, baroclinic_chunk, &bj);
    /* The velocity of this step sees the vorticity just generated
     * (symplectic order, see the note at the top): re-aggregate the tree. */
    return eddy_tree_build(&w->tree, &w->tasks, &w->grid, &w->vortons, &w->part);
}

void eddy_phase_pack_flow(eddy_world *w) {
    if (!w->grid_valid) return;
    eddy_parallel_for(&w->tasks, grid_point_count(&w->grid), DENSITY_CHUNK, pack_chunk, w);
}
