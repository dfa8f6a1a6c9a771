/* SPDX-License-Identifier: MIT */
/* Grid islands: vorton clusters far apart get grids of their own.
 *
 * Why. The velocity grid spans the vortons' box with a cell count that
 * follows the vortons, so two smoke rings 50 m apart shared one grid of
 * 512 x 16 x 2 cells of 0.1 m where either alone had cells of 0.046 m: each
 * ring moved at 0.94 of its speed alone (the stretching's Jacobian and the
 * core both follow the cells), and two effects at the two ends of a level
 * changed each other (docs/physics.md section 10.1, issue 35 item 1).
 *
 * What. Before the grid is built, the vortons are split into islands along
 * empty slabs: a run of empty bins (ISLAND_BINS over the box along an axis)
 * cuts the vortons in two when the gap between the two sides is at least
 * ISLAND_SEPARATION times the larger side's largest extent and
 * ISLAND_MIN_GAP_RADII vorton radii. The sides are split again the same way
 * (breadth first, at most ISLANDS_MAX islands). An island's grid, partition
 * and tree are those a world holding its vortons alone would build
 * (lib/fluid/velocity.c, eddy_phase_build_grid): its resolution depends on
 * its own vortons, never on the others'. Every grid phase (density,
 * velocity, flow, stretching, diffusion, the vortons' advection) runs once
 * per island, with the island swapped into the world's grid fields and its
 * vortons, gathered in index order, into w->vortons; after the last of
 * them the vortons are scattered back (Heun's steps scatter before the
 * predictor and split the predicted vortons afresh for the second solve,
 * lib/world.c). The velocity at an island's grid
 * points then adds every other island's, by a walk of that island's tree
 * with its own core (the multipole opening test takes a far island's root
 * expansion, one cell). A tracer samples the flow of the island whose grid
 * holds it; outside every grid it takes the far field, the sum of the
 * islands' walks at the tracer. A body samples the island whose grid holds
 * the sample or, outside all, the nearest (one grid's clamping).
 *
 * Why these numbers. With a gap of twice the larger extent, no kernel of
 * any phase reaches across (the normalised PSE reaches 5.7 r, the density
 * tents 2 r, the margins r and two cells), and an island's root is within
 * the default opening angle seen from the other's nearest grid point, so
 * the cross terms cost a few cells per tile. A single cluster (every scene
 * the goldens cover) finds no gap: one island, the world's own grid, the
 * same bits as before islands existed.
 *
 * Determinism. The bins, the gaps, the boxes and the order of the islands
 * are functions of the vortons' positions in index order alone; an island's
 * vortons keep their index order, so each island is stepped exactly as a
 * world holding them alone (plus the other islands' velocity, added in
 * island order). Nothing depends on the worker count. */
#include "fluid/fluid.h"

/* Bins per axis (bits of a word), and the shortest run of empty bins a
 * qualifying gap leaves (best_cut). */
enum { ISLAND_BINS = 32, ISLAND_MIN_RUN = ISLAND_BINS / 2 - 3, ISLAND_STRIDE = 17 };
static const float ISLAND_SEPARATION = 2.0f;
static const float ISLAND_MIN_GAP_RADII = 16.0f;


typedef struct island_box {
    float lo[3], hi[3];
} island_box;

static const float *axis_of(const particle_array *v, int a) {
    return a == 0 ? v->px : a == 1 ? v->py : v->pz;
}

static island_box box_of(const particle_array *v, const int *idx, int n) {
    island_box b;
    for (int a = 0; a < 3; ++a) {
        const float *x = axis_of(v, a);
        float lo = x[idx[0]], hi = lo;
        for (int m = 1; m < n; ++m) {
            lo = fmin_det(lo, x[idx[m]]);
            hi = fmax_det(hi, x[idx[m]]);
        }
        b.lo[a] = lo;
        b.hi[a] = hi;
    }
    return b;
}

static float largest_extent(const island_box *b) {
    return fmax_det(b->hi[0] - b->lo[0], fmax_det(b->hi[1] - b->lo[1], b->hi[2] - b->lo[2]));
}

/* The sides of a cut at c along axis a of vortons idx[0 .. n): their boxes;
 * false when one side is empty. */
static bool sides_of(const particle_array *v, const int *idx, int n, int a, float c,
                     island_box *below, island_box *above) {
    bool has_below = false, has_above = false;
    for (int m = 0; m < n; ++m) {
        const int i = idx[m];
        const float q[3] = {v->px[i], v->py[i], v->pz[i]};
        island_box *s = q[a] < c ? below : above;
        bool *has = q[a] < c ? &has_below : &has_above;
        for (int d = 0; d < 3; ++d) {
            s->lo[d] = *has ? fmin_det(s->lo[d], q[d]) : q[d];
            s->hi[d] = *has ? fmax_det(s->hi[d], q[d]) : q[d];
        }
        *has = true;
    }
    return has_below && has_above;
}

/* The bins of each axis (a bit each) that vortons idx[0], idx[stride], ...
 * occupy: bin floor((x - lo) inv), clamped to the bins (NaN: bin 0). */
static void occupied_bins(const particle_array *v, const int *idx, int n, int stride,
                          const float lo[3], const float inv[3], uint32_t occupied[3]) {
    const float top = (float)ISLAND_BINS - 0.5f;
    uint32_t o[3] = {0u, 0u, 0u};
    for (int m = 0; m < n; m += stride) {
        const int i = idx[m];
        const float u[3] = {(v->px[i] - lo[0]) * inv[0], (v->py[i] - lo[1]) * inv[1],
                            (v->pz[i] - lo[2]) * inv[2]};
        for (int a = 0; a < 3; ++a) {
            const float c = u[a] > 0.0f ? (u[a] < top ? u[a] : top) : 0.0f;
            o[a] |= 1u << (int)c;
        }
    }
    for (int a = 0; a < 3; ++a) occupied[a] = o[a];
}

static int longest_empty_run(uint32_t occupied) {
    int longest = 0, run = 0;
    for (int b = 0; b < ISLAND_BINS; ++b) {
        run = occupied >> b & 1u ? 0 : run + 1;
        longest = run > longest ? run : longest;
    }
    return longest;
}

/* The best cut of vortons idx[0 .. n), whose box is `box`: the axis and a
 * value inside a run of empty bins whose gap qualifies, the largest gap to
 * extent ratio (the first axis, then the first run, on a tie). False: no
 * cut. A qualifying gap g holds the box's extent E along its axis as
 * E <= g + 2 (larger side) <= 2 g, so it covers at least ISLAND_BINS / 2 - 1
 * whole bins of E / ISLAND_BINS, less one at each end for the rounding of a
 * vorton's bin: only runs of ISLAND_MIN_RUN empty bins or more are measured
 * (their sides' boxes, one more pass each), and a world of one cluster pays
 * a seventeenth of a pass that sets a bit per vorton and axis. */
static bool best_cut(const particle_array *v, const int *idx, int n, const island_box *box,
                     float radius, int *axis, float *cut) {
    if (n < 2) return false;
    float lo[3], inv[3];
    for (int a = 0; a < 3; ++a) {
        const float extent = box->hi[a] - box->lo[a];
        lo[a] = box->lo[a];
        inv[a] = extent > 0.0f ? (float)ISLAND_BINS / extent : 0.0f; /* NaN: 0 */
    }
    /* Every stride-th vorton first: the bins they occupy are a subset of
     * the bins all occupy, so where they leave no run of ISLAND_MIN_RUN
     * empty bins, all of them leave none (a cloud, a ring, a plume: one
     * cluster, for about 1/ISLAND_STRIDE of a pass). The stride is prime:
     * with 16, every sample of a 16-wide lattice lay in one plane, and a
     * sample that misses a cluster's bins only costs the full pass. */
    uint32_t occupied[3];
    for (int stride = n >= 16 * ISLAND_STRIDE ? ISLAND_STRIDE : 1;; stride = 1) {
        occupied_bins(v, idx, n, stride, lo, inv, occupied);
        bool long_run = false;
        for (int a = 0; a < 3; ++a)
            long_run = long_run ||
                       (inv[a] > 0.0f && longest_empty_run(occupied[a]) >= ISLAND_MIN_RUN);
        if (!long_run) return false;
        if (stride == 1) break;
    }
    float best = -1.0f;
    for (int a = 0; a < 3; ++a) {
        if (!(inv[a] > 0.0f)) continue;
        const float width = (box->hi[a] - box->lo[a]) / (float)ISLAND_BINS;
        for (int b = 0; b < ISLAND_BINS;) {
            if (occupied[a] >> b & 1u) {
                ++b;
                continue;
            }
            int e = b + 1;
            while (e < ISLAND_BINS && !(occupied[a] >> e & 1u)) ++e;
            const int start = b, run = e - b;
            b = e;
            if (run < ISLAND_MIN_RUN) continue;
            const float c = lo[a] + ((float)start + 0.5f * (float)run) * width;
            island_box below = {{0}, {0}}, above = {{0}, {0}};
            if (!sides_of(v, idx, n, a, c, &below, &above)) continue;
            const float gap = above.lo[a] - below.hi[a];
            const float size = fmax_det(largest_extent(&below), largest_extent(&above));
            if (!(gap >= ISLAND_SEPARATION * size && gap >= ISLAND_MIN_GAP_RADII * radius))
                continue;
            const float ratio = size > 0.0f ? gap / size : EDDY_FLT_MAX;
            if (ratio > best) {
                best = ratio;
                *axis = a;
                *cut = c;
            }
        }
    }
    return best >= 0.0f;
}

bool eddy_islands_reserve_order(eddy_world *w, int n) {
    if (n <= w->island_order_capacity) return true;
    const int cap = eddy_grown_capacity(w->island_order_capacity, n);
    if (!eddy_grow((void **)&w->island_order, 2 * (size_t)cap * sizeof(int))) return false;
    w->island_order_capacity = cap;
    return true;
}

/* Gathers island k's vortons (its members, in index order) into its own
 * array; false: out of memory. */
static bool gather(eddy_world *w, int k, const int *member, int n) {
    grid_island *s = &w->islands[k];
    const particle_array *v = &w->vortons;
    particle_array *d = &s->vortons;
    d->has_vorticity = true;
    d->keeps_rate = v->keeps_rate;
    if (!eddy_particles_reserve(d, n)) return false;
    if (n > s->member_capacity) {
        if (!eddy_grow((void **)&s->member, (size_t)n * sizeof(int))) return false;
        s->member_capacity = n;
    }
    memcpy(s->member, member, (size_t)n * sizeof(int));
    d->count = n;
    d->births_order = BIRTHS_ORDER_UNKNOWN;
    const float *src[16] = {v->px, v->py, v->pz, v->vx, v->vy, v->vz, v->wx, v->wy,
                            v->wz, v->drho, v->hx, v->hy, v->hz, v->sx, v->sy, v->sz};
    float *dst[16] = {d->px, d->py, d->pz, d->vx, d->vy, d->vz, d->wx, d->wy,
                      d->wz, d->drho, d->hx, d->hy, d->hz, d->sx, d->sy, d->sz};
    const int fields = v->keeps_rate ? 16 : 13;
    for (int f = 0; f < fields; ++f)
        for (int m = 0; m < n; ++m) dst[f][m] = src[f][member[m]];
    for (int m = 0; m < n; ++m) d->birth[m] = v->birth[member[m]];
    return true;
}

bool eddy_islands_find(eddy_world *w) {
    w->island_count = 0;
    const particle_array *v = &w->vortons;
    const int n = v->count;
    if (!eddy_islands_allowed(w) || n < 2) return true;
    if (!eddy_islands_reserve_order(w, n)) return false;
    int *order = w->island_order, *spare = w->island_order + w->island_order_capacity;
    for (int i = 0; i < n; ++i) order[i] = i;
    int begin[ISLANDS_MAX], end[ISLANDS_MAX], count = 1;
    begin[0] = 0;
    end[0] = n;
    /* the whole box from the parallel bounds (the same min and max, so the
     * same box as box_of's); the sides' boxes are taken as they are split */
    island_box box;
    if (!eddy_particles_bounds(w, box.lo, box.hi, false)) return true;
    const float radius = w->def.vorton_radius;
    for (int k = 0; k < count;) {
        int axis = 0;
        float cut = 0.0f;
        if (k > 0 || count > 1) box = box_of(v, order + begin[k], end[k] - begin[k]);
        if (count == ISLANDS_MAX ||
            !best_cut(v, order + begin[k], end[k] - begin[k], &box, radius, &axis, &cut)) {
            ++k;
            continue;
        }
        /* stable: each side keeps the index order */
        const float *x = axis_of(v, axis);
        int lo = 0, hi = 0;
        for (int m = begin[k]; m < end[k]; ++m)
            if (x[order[m]] < cut) order[begin[k] + lo++] = order[m];
            else spare[hi++] = order[m];
        memcpy(order + begin[k] + lo, spare, (size_t)hi * sizeof(int));
        begin[count] = begin[k] + lo;
        end[count] = end[k];
        end[k] = begin[k] + lo;
        ++count;
    }
    if (count == 1) return true;
    for (int k = 0; k < count; ++k)
        if (!gather(w, k, order + begin[k], end[k] - begin[k])) return false;
    w->island_count = count;
    w->grid_valid = false; /* the world's own grid is not used while there are islands */
    return true;
}

void eddy_islands_scatter(eddy_world *w) {
    particle_array *v = &w->vortons;
    for (int k = 0; k < w->island_count; ++k) {
        const grid_island *s = &w->islands[k];
        const particle_array *d = &s->vortons;
        const float *src[13] = {d->px, d->py, d->pz, d->vx, d->vy, d->vz, d->wx,
                                d->wy, d->wz, d->drho, d->sx, d->sy, d->sz};
        float *dst[13] = {v->px, v->py, v->pz, v->vx, v->vy, v->vz, v->wx,
                          v->wy, v->wz, v->drho, v->sx, v->sy, v->sz};
        const int fields = v->keeps_rate ? 13 : 10;
        for (int f = 0; f < fields; ++f)
            for (int m = 0; m < d->count; ++m) dst[f][s->member[m]] = src[f][m];
    }
}

void eddy_islands_free(eddy_world *w) {
    for (int k = 0; k < ISLANDS_MAX; ++k) {
        grid_island *s = &w->islands[k];
        eddy_particles_free(&s->vortons);
        eddy_free(s->member);
        eddy_tree_free(&s->tree);
        eddy_partition_free(&s->part);
        eddy_free(s->velocity);
        eddy_free(s->flow);
        eddy_free(s->jacobian);
        eddy_free(s->density);
        eddy_free(s->density_gradient);
        memset(s, 0, sizeof *s);
    }
    eddy_free(w->island_order);
    w->island_order = NULL;
    w->island_order_capacity = 0;
}
