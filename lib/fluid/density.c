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
 * of a drop, a free surface, W falls to 0) the mean would jump to the last
 * vorton's rho'; below W = 1/2 the divisor stays 1/2 instead, so rho' falls
 * off to 0 linearly in W over the last grid cell and never exceeds the
 * values carried. A full lattice of vortons one diameter apart has W ~ 1.
 * Why 1/2 and not a divisor that returns to the plain sum as W -> 0, such as
 * max(W, 1 - W): the edge's rho' then changes 4x faster with W near W = 1/2
 * than the plain sum does, and a free surface made of vortons (sloshing)
 * grew a disturbance from frame ~6,000 (enstrophy 0.01 -> 55); with 1/2 it
 * changes at most 2x faster and sloshing stays quiet for 10,000 frames. The
 * cost: the fringe of an isolated blob, and vortons sparser than one per
 * (2r)^3, read up to 2x their share, so a drop's rho' integrated over the
 * grid is ~25% above sum rho' (2r)^3 at the scenes' resolution (dye_drop
 * 1.25, filled containers 1.09-1.12).
 *
 * Reach. The weights are tents of half-width one cell (trilinear), except
 * along an axis whose cells are finer than a vorton diameter 2r (the grid is
 * sized from the particles' bounds and the vorton count, and can refine by 2
 * along an axis from one step to the next): there the tent's half-width is
 * 2r and the gather visits the cells it covers. With one-cell tents finer
 * than the vortons' spacing, W inside a fluid falls to ~0.1 at points
 * between rows of vortons, those points read the plain sum, and the rippled
 * rho' spun up a sloshing layer that had been quiet for 5,600 frames within
 * a few frames of its grid refining along z. Either way each vorton's
 * weights add up to (2r)^3 / V_cell over the grid points.
 *
 * Baroclinic generation (D6):
 *     d(omega)/dt = (grad rho x g) / rho0,
 * with g the apparent gravity g - a - alpha x r - W x (W x r) for vortons
 * inside a container that accelerates (lib/bodies/carry.c).
 *
 * Order: this phase runs before the velocity, and the tree is re-aggregated
 * after the baroclinic update, so a step is omega' = omega + dt B(x),
 * x' = x + dt U(x, omega'): symplectic Euler for the buoyancy oscillation of
 * a stratified fluid. The former order (velocity from the old omega, then
 * the baroclinic update) was explicit Euler, whose amplitude grows by
 * sqrt(1 + (N dt)^2) per step: layers at rest in a closed box grew from
 * rounding noise by e every ~14 frames. eddy_phase_pack_flow then packs
 * velocity and rho' into the 4-float flow grid that particles sample. */
#include "fluid/fluid.h"
#include "bodies/bodies.h"
#include "runtime/lanes4.h"

enum { DENSITY_CHUNK = 256, BAROCLINIC_CHUNK = 128 };

typedef struct density_job {
    eddy_world *w;
    bool lanes;        /* four points of a row at a time (else one by one) */
    float scale;       /* (2r)^3 / (reach_x reach_y reach_z) */
    float reach[3];    /* the weights' half-width per axis: max(cell, 2r) */
    float cell_over_reach[3];
    int span[3];       /* cells visited on each side of a point: reach / cell, rounded up */
} density_job;

/* Below this total weight a grid point is at the fluid's edge: it divides by
 * this instead of its weight (design note). */
#define DENSITY_EDGE_WEIGHT 0.5f

/* The weight of a vorton at fraction f of cell c for grid point pt along one
 * axis: the tent 1 - |x - X| / reach. With reach = one cell (the usual case)
 * that is f or 1 - f, as written: the same bits as trilinear interpolation. */
static inline float axis_weight(const density_job *job, int a, int c, int pt, float f) {
    if (job->span[a] == 1) return pt > c ? f : 1.0f - f;
    float d = (float)(c - pt) + f;
    d = d < 0.0f ? -d : d;
    const float t = 1.0f - d * job->cell_over_reach[a];
    return t > 0.0f ? t : 0.0f;
}

static float point_density(const density_job *job, const int pt[3]) {
    const eddy_world *w = job->w;
    const grid_shape *g = &w->grid;
    const int *start = w->part.cell_start;
    /* in partition order: vortons m of cell c are start[c] <= m < start[c + 1] */
    const float *fx = w->scratch[0], *fy = w->scratch[1], *fz = w->scratch[2];
    const float *rho = w->scratch[3], *cell_x = w->sorted_scratch;
    const float scale = job->scale;
    const int *n = job->span;
    /* The x-cells of one (y, z) row are consecutive cell indices, so their
     * vortons are one run of the partition, visited in the same order (cell
     * x, then index) as cell by cell; each vorton's cell x comes with it. */
    const int ci_lo = pt[0] - n[0] > 0 ? pt[0] - n[0] : 0;
    const int ci_hi = pt[0] + n[0] < g->cells[0] ? pt[0] + n[0] : g->cells[0]; /* exclusive */
    float sum = 0.0f, weight = 0.0f;
    for (int ck = pt[2] - n[2]; ck < pt[2] + n[2]; ++ck) {
        if (ck < 0 || ck >= g->cells[2]) continue;
        for (int cj = pt[1] - n[1]; cj < pt[1] + n[1]; ++cj) {
            if (cj < 0 || cj >= g->cells[1]) continue;
            const int row = g->cells[0] * (cj + g->cells[1] * ck);
            for (int m = start[row + ci_lo]; m < start[row + ci_hi]; ++m) {
                const float wx = axis_weight(job, 0, (int)cell_x[m], pt[0], fx[m]);
                const float wy = axis_weight(job, 1, cj, pt[1], fy[m]);
                const float wz = axis_weight(job, 2, ck, pt[2], fz[m]);
                const float wi = scale * (wx * wy * wz);
                sum += rho[m] * wi;
                weight += wi;
            }
        }
    }
    /* the weighted mean; at the fluid's edge, falling to 0 with W */
    return sum / (weight > DENSITY_EDGE_WEIGHT ? weight : DENSITY_EDGE_WEIGHT);
}

/* Four lanes: points (pt[0] + l, pt[1], pt[2]), l = 0..3, of one x-row.
 *
 * Design note: why each lane gets point_density's bits. The lanes walk the
 * same rows (cj, ck) as any one of the points and, within a row, the union
 * of the four points' x-runs of vortons, in the same order. A vorton
 * outside a lane's own run (c - pt outside [-span, span - 1]) gets x-weight
 * +0 for that lane, by a select: one-cell tents (span 1) return f or 1 - f
 * without looking at the distance, and a wider tent is 0 there only up to
 * rounding (1 - |d| cell / reach can round to a few ulp above 0 when span
 * cells are exactly the reach; no scene reaches that case, the select keeps
 * it exact anyway). A +0 weight adds rho' * 0 (+0 or -0)
 * to the lane's sum and +0 to its weight, which changes neither: the sum
 * starts at +0 and is never -0 (x + -0 = x, +0 + -0 = +0, and a sum that
 * cancels to zero is +0). Every other term is axis_weight's operations on
 * the same values in the same order ((wx wy) wz, then the scale), so the
 * nonzero terms, and the division, are point_density's. The fractions and
 * rho' are finite here (the previous step ended with the finiteness check),
 * so no NaN reaches a lane that would not see it.
 * EDDY_MUTATION_SCALAR_DENSITY_GATHER runs point_density alone
 * (tests/test_scenes.c compares the two on every scene). */
static vf lanes_weight_x(const density_job *job, float c_minus_pt, float f) {
    const vf lane = vf_set4(0.0f, 1.0f, 2.0f, 3.0f), zero = vf_splat(0.0f);
    /* c - (pt + l), exact: small integers */
    const vf c_minus = vf_sub(vf_splat(c_minus_pt), lane);
    if (job->span[0] == 1) {
        /* pt > c ? f : 1 - f for c = pt - 1, pt; 0 for any other cell */
        const vm left = vm_and(vf_gt(c_minus, vf_splat(-1.5f)), vf_lt(c_minus, vf_splat(-0.5f)));
        const vm same = vm_and(vf_gt(c_minus, vf_splat(-0.5f)), vf_lt(c_minus, vf_splat(0.5f)));
        return vf_select(left, vf_splat(f), vf_select(same, vf_splat(1.0f - f), zero));
    }
    /* the cells point_density visits: c - pt in [-span, span - 1] */
    const float span = (float)job->span[0];
    const vm visited =
        vm_and(vf_gt(c_minus, vf_splat(-span - 0.5f)), vf_lt(c_minus, vf_splat(span - 0.5f)));
    vf d = vf_add(c_minus, vf_splat(f));
    d = vf_select(vf_lt(d, zero), vf_sub(zero, d), d);
    const vf t = vf_sub(vf_splat(1.0f), vf_mul(d, vf_splat(job->cell_over_reach[0])));
    return vf_select(vm_and(visited, vf_gt(t, zero)), t, zero);
}

static void point_density_lanes(const density_job *job, const int pt[3], float out[4]) {
    const eddy_world *w = job->w;
    const grid_shape *g = &w->grid;
    const int *start = w->part.cell_start;
    const float *fx = w->scratch[0], *fy = w->scratch[1], *fz = w->scratch[2];
    const float *rho = w->scratch[3], *cell_x = w->sorted_scratch;
    const vf scale = vf_splat(job->scale);
    const int *n = job->span;
    const int ci_lo = pt[0] - n[0] > 0 ? pt[0] - n[0] : 0;
    const int ci_hi = pt[0] + 3 + n[0] < g->cells[0] ? pt[0] + 3 + n[0] : g->cells[0];
    const float pt_x = (float)pt[0];
    vf sum = vf_splat(0.0f), weight = vf_splat(0.0f);
    for (int ck = pt[2] - n[2]; ck < pt[2] + n[2]; ++ck) {
        if (ck < 0 || ck >= g->cells[2]) continue;
        for (int cj = pt[1] - n[1]; cj < pt[1] + n[1]; ++cj) {
            if (cj < 0 || cj >= g->cells[1]) continue;
            const int row = g->cells[0] * (cj + g->cells[1] * ck);
            for (int m = start[row + ci_lo]; m < start[row + ci_hi]; ++m) {
                const vf wx = lanes_weight_x(job, cell_x[m] - pt_x, fx[m]);
                const float wy = axis_weight(job, 1, cj, pt[1], fy[m]);
                const float wz = axis_weight(job, 2, ck, pt[2], fz[m]);
                const vf wi = vf_mul(scale, vf_mul(vf_mul(wx, vf_splat(wy)), vf_splat(wz)));
                sum = vf_add(sum, vf_mul(vf_splat(rho[m]), wi));
                weight = vf_add(weight, wi);
            }
        }
    }
    const vf edge = vf_splat(DENSITY_EDGE_WEIGHT);
    vf_store(out, vf_div(sum, vf_select(vf_gt(weight, edge), weight, edge)));
}

/* Each vorton's fractions within its grid cell (grid_locate) and its rho',
 * in partition order (sorted position m holds vorton sorted_index[m]):
 * computed once into scratch[0..3] (its cell x index into the first array
 * of w->sorted_scratch) instead of once per grid point that
 * gathers it (8), and read by the points as contiguous runs, without the
 * indirection. The scratch arrays are free until diffusion fills them. */
static void fraction_chunk(int chunk, int begin, int end, void *context) {
    const density_job *job = context;
    const grid_shape *g = &job->w->grid;
    const particle_array *v = &job->w->vortons;
    const int *sorted = job->w->part.sorted_index;
    float *fx = job->w->scratch[0], *fy = job->w->scratch[1], *fz = job->w->scratch[2];
    float *rho = job->w->scratch[3], *cell_x = job->w->sorted_scratch;
    for (int m = begin; m < end; ++m) {
        const int i = sorted[m];
        int idx[3];
        float t[3];
        grid_locate(g, v->px[i], v->py[i], v->pz[i], idx, t);
        fx[m] = t[0];
        fy[m] = t[1];
        fz[m] = t[2];
        rho[m] = v->drho[i];
        cell_x[m] = (float)idx[0]; /* exact: at most 2^20 cells per axis */
    }
}

static void density_chunk(int chunk, int begin, int end, void *context) {
    const density_job *job = context;
    const grid_shape *g = &job->w->grid;
    float *density = job->w->density;
    grid_cursor at = grid_cursor_at(g, begin);
    for (int p = begin; p < end;) {
        if (job->lanes && end - p >= 4 && g->points[0] - at.idx[0] >= 4) {
            point_density_lanes(job, at.idx, &density[p]);
            p += 4;
            at.idx[0] += 3;
        } else {
            density[p] = point_density(job, at.idx);
            ++p;
        }
        grid_cursor_next(&at);
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
    const int stride[3] = {1, g->points[0], g->points[0] * g->points[1]};
    grid_cursor at = grid_cursor_at(g, begin);
    for (int p = begin; p < end; ++p, grid_cursor_next(&at)) {
        const int *idx = at.idx;
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

bool eddy_density_rebuilds_tree(const eddy_world *w) {
    const eddy_vec3 gv = w->gravity;
    return !(gv.x == 0.0f && gv.y == 0.0f && gv.z == 0.0f && !eddy_frames_accelerate(w));
}

/* The weights' reach per axis: one cell, or one vorton diameter where cells
 * are finer than that (design note), and the scale that makes a full lattice
 * of vortons one diameter apart weigh W ~ 1. A vorton stands for the cube of
 * fluid of edge one diameter around it. */
static void density_weights(eddy_world *w, density_job *dj) {
    const grid_shape *g = &w->grid;
    const float d = 2.0f * w->def.vorton_radius;
    float volume = 1.0f;
    dj->w = w;
    for (int a = 0; a < 3; ++a) {
        const float h = g->spacing[a];
        dj->span[a] = 1;
        dj->reach[a] = h;
        if (h > 0.0f) {
            while ((float)dj->span[a] * h < d) ++dj->span[a];
            if (dj->span[a] > 1) dj->reach[a] = d;
            volume *= dj->reach[a];
        }
        dj->cell_over_reach[a] = h > 0.0f ? h / dj->reach[a] : 0.0f;
    }
    dj->scale = d * d * d / volume;
}

/* The rho' grid: each vorton's cell fractions, then the gather per point. */
static void density_gather(eddy_world *w, density_job *dj) {
    density_weights(w, dj);
    dj->lanes = (w->tasks.mutations & EDDY_MUTATION_SCALAR_DENSITY_GATHER) == 0;
    eddy_parallel_for(&w->tasks, w->vortons.count, BAROCLINIC_CHUNK, fraction_chunk, dj);
    eddy_parallel_for(&w->tasks, grid_point_count(&w->grid), DENSITY_CHUNK, density_chunk, dj);
}

bool eddy_phase_density(eddy_world *w, float dt) {
    if (!w->grid_valid) return true;
    density_job dj;
    density_gather(w, &dj);
    eddy_parallel_for(&w->tasks, grid_point_count(&w->grid), DENSITY_CHUNK, gradient_chunk, &dj);
    eddy_phase_poison_density_gradient(w);
    if (!eddy_density_rebuilds_tree(w)) return true;
    const eddy_vec3 gv = w->gravity;
    const float k = dt / w->def.ambient_density;
    baroclinic_job bj = {w, {gv.x * k, gv.y * k, gv.z * k}, k};
    eddy_parallel_for(&w->tasks, w->vortons.count, BAROCLINIC_CHUNK, baroclinic_chunk, &bj);
    /* The velocity of this step sees the vorticity just generated
     * (symplectic order, see the note at the top): re-aggregate the tree. */
    return eddy_phase_build_tree(w);
}

void eddy_phase_pack_flow(eddy_world *w) {
    if (!w->grid_valid) return;
    eddy_parallel_for(&w->tasks, grid_point_count(&w->grid), DENSITY_CHUNK, pack_chunk, w);
}

/* The rho' grid alone, without the gradient and the baroclinic update: for
 * Heun's second solve (lib/world.c), which grids the vortons' rho' at the
 * predicted positions, so that the flow grid the step leaves (what the
 * tracers and the buoyancy sample) is whole. */
void eddy_phase_density_grid(eddy_world *w) {
    if (!w->grid_valid) return;
    density_job dj;
    density_gather(w, &dj);
}
