/* SPDX-License-Identifier: MIT */
/* Viscous diffusion by particle strength exchange, as a gather (D5).
 *
 * Every vorton H computes its own change from the start-of-phase values of
 * its neighbours T, all vortons in the 27 cells around H's cell, with the
 * kernel k = exp(-|x_H - x_T|^2 / s^2), s = 4 vorton diameters:
 *     d(omega_H) = 2 nu dt sum_T 5 k (d . (omega_T - omega_H)) d / |d|^2,
 *                  d = x_H - x_T (the exchange along the pair's axis, below)
 *     d(rho'_H)  = 2 kappa dt sum_T k (rho'_T - rho'_H)
 * Then it applies dissipation, omega *= (1 - rate dt). New values go to
 * scratch arrays and are copied back after all vortons are done (Jacobi), so
 * the result is independent of the order vortons are visited in. The
 * neighbourhood relation is symmetric (cell distance <= 1 on every axis) and
 * each pair's term is antisymmetric (T gets exactly minus what H gets), so
 * the exchange conserves sum(omega) and sum(rho') up to rounding. Neighbours
 * are visited in cell order z, y, x and ascending index within a cell.
 *
 * Why vorticity is exchanged along the pair's axis only. The original
 * exchanged the whole difference, k (omega_T - omega_H). A pair then changes
 * the linear impulse P = 1/2 sum x x omega V by nu dt V k d x (omega_T -
 * omega_H), which is not zero, and nothing makes the sum over pairs vanish:
 * the particles carry no zero-vorticity fluid around the flow to diffuse
 * into, so the exchange only redistributes vorticity inside its support. The
 * vortex_ring scene lost 14 % of its impulse in 300 frames with exact
 * velocities, and its two sides, whose vorticities are opposite, cancelled
 * across the axis (docs/physics.md §2). Exchanging only the component of the
 * difference along d makes every pair's change parallel to d, so
 * d x (change) = 0: P is conserved pair by pair, exactly in real arithmetic,
 * and the total vorticity too. It is still a Laplacian: for neighbours spread
 * evenly over directions, sum k dhat dhat^T (omega_T - omega_H) tends to
 * (1/30) <k |d|^2> (lap omega + 2 grad div omega), and the whole difference
 * to (1/6) <k |d|^2> lap omega; with div omega = 0 the factor 5 gives the
 * original's diffusion rate. A divergent part (which a vorton field should not
 * have) is damped three times faster; the operator stays dissipative. A pair
 * at the same point (d = 0) exchanges no vorticity.
 *
 * How it is computed (the bits are those of one scalar loop over the
 * neighbours in visiting order; only the data movement differs).
 * - A copy in partition order. The phase first copies every vorton's
 *   position, vorticity and rho' into arrays ordered like
 *   part.sorted_index (w->pse_sorted, PSE_ARRAYS arrays). Cells along x are
 *   consecutive cell indices, so the 3 x-cells of each of the 9 (y, z) rows
 *   around a home are one contiguous run of that copy: a home reads 9 runs,
 *   never gathering through sorted_index.
 * - Homes in partition order. Chunks run over sorted positions (fixed size,
 *   rule 1); each home writes its own slot of the scratch arrays, so the
 *   order homes are visited in changes nothing. Neighbouring homes read the
 *   same runs, which stay in cache.
 * - Terms in lanes, sums in order. Each run is cut into batches of at most
 *   PSE_BATCH neighbours. The per-neighbour terms, (rho'_T - rho'_H) k and
 *   d along (along = 5 k / |d|^2 (d . (omega_T - omega_H)), 0 at d = 0 by a
 *   select), are computed four neighbours at a time in SSE2, NEON or plain
 *   C lanes (lib/tree_lanes4.h): every lane does the scalar operations in
 *   the scalar order, nothing is summed across lanes, and the kernels go
 *   through eddy_expf_array (bit-identical to eddy_expf). The terms are then
 *   added to H's four sums one neighbour at a time in visiting order, the
 *   home itself skipped (its position in the run), never added as 0: -0 + +0
 *   is not -0. Lanes past a run's end read the next vortons of the copy
 *   (PSE_PAD zeroed floats follow the last), and their terms are never
 *   added. */
#include "emath_lanes.h"

#include <stdlib.h>

enum { PSE_CHUNK = 128, COPY_CHUNK = 1024 };

/* H's neighbours handled per batch (terms in lanes, then the in-order sums),
 * a multiple of the lane count. */
enum { PSE_BATCH = 64 };

/* Arrays of the partition-order copy: x, y, z, wx, wy, wz, rho'; each is
 * followed by PSE_PAD zeroed floats that the last lanes may read. */
enum { PSE_ARRAYS = 7, PSE_PAD = VF_LANES };

typedef struct pse_sorted {
    const float *x, *y, *z, *wx, *wy, *wz, *rho;
} pse_sorted;

typedef struct pse_job {
    eddy_world *w;
    pse_sorted s;
    float neg_inv_s2; /* -1 / s^2: d2 (-1/s^2) has the bits of (-d2) (1/s^2) */
    float nu2dt, kappa2dt;
    float keep_w, keep_rho; /* 1 - rate dt */
} pse_job;

/* The exchange sums of one vorton H: its position and values, and the
 * running sums over its neighbours. */
typedef struct pse_home {
    int self; /* H's sorted position */
    float x, y, z;
    float wx, wy, wz, rho;
    float dwx, dwy, dwz, dr;
} pse_home;

/* Weight of the exchange along the pair's axis (see the note above). */
static const float PSE_AXIAL_WEIGHT = 5.0f;

static size_t pse_stride(int capacity) { return (size_t)capacity + PSE_PAD; }

bool eddy_pse_reserve(eddy_world *w, int n) {
    if (n <= w->pse_sorted_capacity) return true;
    const size_t stride = pse_stride(n);
    float *p = realloc(w->pse_sorted, PSE_ARRAYS * stride * sizeof *p);
    if (!p) return false;
    w->pse_sorted = p;
    w->pse_sorted_capacity = n;
    return true;
}

static pse_sorted pse_sorted_view(const eddy_world *w) {
    const float *p = w->pse_sorted;
    const size_t stride = pse_stride(w->pse_sorted_capacity);
    return (pse_sorted){p, p + stride, p + 2 * stride, p + 3 * stride, p + 4 * stride,
                        p + 5 * stride, p + 6 * stride};
}

/* Start-of-phase values into partition order, sorted positions [begin, end). */
static void copy_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const particle_array *v = &job->w->vortons;
    const int *sorted = job->w->part.sorted_index;
    float *out = job->w->pse_sorted;
    const size_t stride = pse_stride(job->w->pse_sorted_capacity);
    float *x = out, *y = x + stride, *z = y + stride, *wx = z + stride, *wy = wx + stride;
    float *wz = wy + stride, *rho = wz + stride;
    for (int n = begin; n < end; ++n) {
        const int i = sorted[n];
        x[n] = v->px[i];
        y[n] = v->py[i];
        z[n] = v->pz[i];
        wx[n] = v->wx[i];
        wy[n] = v->wy[i];
        wz[n] = v->wz[i];
        rho[n] = v->drho[i];
    }
}

/* The padding after the copied values: defined floats for the last lanes. */
static void pad_clear(eddy_world *w, int count) {
    const size_t stride = pse_stride(w->pse_sorted_capacity);
    for (int a = 0; a < PSE_ARRAYS; ++a)
        memset(w->pse_sorted + a * stride + count, 0, PSE_PAD * sizeof(float));
}

/* The terms H adds, in visiting order, for up to PSE_BATCH neighbours taken
 * from consecutive runs; a run's last vector writes up to VF_LANES - 1 lanes
 * past its end, which the next run overwrites or the sums never read. */
typedef struct pse_terms {
    int count;
    int skip; /* H's own slot, or -1 */
    float r[PSE_BATCH + VF_LANES], x[PSE_BATCH + VF_LANES];
    float y[PSE_BATCH + VF_LANES], z[PSE_BATCH + VF_LANES];
} pse_terms;

/* The terms of the neighbours at sorted positions [a, a + len), in lanes,
 * into slots count .. count + len: every lane does the scalar operations. */
static inline void pse_lane_terms(const pse_home *h, const pse_sorted *s, float neg_inv_s2, int a,
                                  int len, pse_terms *t) {
    const vf hx = vf_splat(h->x), hy = vf_splat(h->y), hz = vf_splat(h->z);
    const vf hwx = vf_splat(h->wx), hwy = vf_splat(h->wy), hwz = vf_splat(h->wz);
    const vf hrho = vf_splat(h->rho), scale = vf_splat(neg_inv_s2);
    const vf weight = vf_splat(PSE_AXIAL_WEIGHT), zero = vf_splat(0.0f);
    for (int j = 0; j < len; j += VF_LANES) {
        const int n = a + j, slot = t->count + j;
        const vf dx = vf_sub(hx, vf_load(s->x + n));
        const vf dy = vf_sub(hy, vf_load(s->y + n));
        const vf dz = vf_sub(hz, vf_load(s->z + n));
        const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
        const vf k = vf_expf(vf_mul(d2, scale));
        /* a pair at one point exchanges no vorticity */
        const vf axial = vf_select(vf_gt(d2, zero), vf_div(vf_mul(weight, k), d2), zero);
        vf_store(t->r + slot, vf_mul(vf_sub(vf_load(s->rho + n), hrho), k));
        const vf ex = vf_sub(vf_load(s->wx + n), hwx);
        const vf ey = vf_sub(vf_load(s->wy + n), hwy);
        const vf ez = vf_sub(vf_load(s->wz + n), hwz);
        const vf dot = vf_add(vf_add(vf_mul(dx, ex), vf_mul(dy, ey)), vf_mul(dz, ez));
        const vf along = vf_mul(axial, dot);
        vf_store(t->x + slot, vf_mul(dx, along));
        vf_store(t->y + slot, vf_mul(dy, along));
        vf_store(t->z + slot, vf_mul(dz, along));
    }
}

/* H's sums over the slots [from, to), one neighbour at a time. */
static inline void pse_sum(pse_home *h, const pse_terms *t, int from, int to) {
    float dr = h->dr, dwx = h->dwx, dwy = h->dwy, dwz = h->dwz;
    for (int j = from; j < to; ++j) {
        dr += t->r[j];
        dwx += t->x[j];
        dwy += t->y[j];
        dwz += t->z[j];
    }
    h->dr = dr;
    h->dwx = dwx;
    h->dwy = dwy;
    h->dwz = dwz;
}

/* Up to two homes of one cell. They have the same neighbours, so their
 * terms fill the same slots and are summed in one loop: two independent sets
 * of sums, each in its own home's order, that hide each other's latency. */
typedef struct pse_group {
    int count; /* homes: 1 or 2 */
    pse_home h[2];
    pse_terms t[2];
} pse_group;

/* Both homes' sums over the slots [from, to). */
static inline void pse_sum_two(pse_group *g, int from, int to) {
    const pse_terms *ta = &g->t[0], *tb = &g->t[1];
    float ar = g->h[0].dr, ax = g->h[0].dwx, ay = g->h[0].dwy, az = g->h[0].dwz;
    float br = g->h[1].dr, bx = g->h[1].dwx, by = g->h[1].dwy, bz = g->h[1].dwz;
    for (int j = from; j < to; ++j) {
        ar += ta->r[j];
        ax += ta->x[j];
        ay += ta->y[j];
        az += ta->z[j];
        br += tb->r[j];
        bx += tb->x[j];
        by += tb->y[j];
        bz += tb->z[j];
    }
    g->h[0].dr = ar;
    g->h[0].dwx = ax;
    g->h[0].dwy = ay;
    g->h[0].dwz = az;
    g->h[1].dr = br;
    g->h[1].dwx = bx;
    g->h[1].dwy = by;
    g->h[1].dwz = bz;
}

/* Adds the queued terms to the homes' sums in order, each home's own slot
 * skipped (there only the other home adds). */
static void pse_flush(pse_group *g) {
    const int count = g->t[0].count;
    int slot[2], home[2], skips = 0;
    for (int m = 0; m < g->count; ++m)
        if (g->t[m].skip >= 0) {
            slot[skips] = g->t[m].skip;
            home[skips++] = m;
        }
    if (skips == 2 && slot[1] < slot[0]) {
        const int s0 = slot[0], h0 = home[0];
        slot[0] = slot[1];
        home[0] = home[1];
        slot[1] = s0;
        home[1] = h0;
    }
    int next = 0;
    for (int e = 0; e < skips; ++e) {
        if (g->count == 2) {
            pse_sum_two(g, next, slot[e]);
            const int other = 1 - home[e];
            pse_sum(&g->h[other], &g->t[other], slot[e], slot[e] + 1);
        } else {
            pse_sum(&g->h[0], &g->t[0], next, slot[e]);
        }
        next = slot[e] + 1;
    }
    if (g->count == 2) pse_sum_two(g, next, count);
    else pse_sum(&g->h[0], &g->t[0], next, count);
    for (int m = 0; m < g->count; ++m) {
        g->t[m].count = 0;
        g->t[m].skip = -1;
    }
}

/* Queues the homes' exchange with the vortons at sorted positions [a, b),
 * one run of consecutive cells. */
static void pse_run(pse_group *g, const pse_sorted *s, float neg_inv_s2, int a, int b) {
    while (a < b) {
        const int room = PSE_BATCH - g->t[0].count;
        const int len = b - a < room ? b - a : room;
        for (int m = 0; m < g->count; ++m) {
            pse_terms *t = &g->t[m];
            const int self = g->h[m].self;
            if (self >= a && self < a + len) t->skip = t->count + (self - a);
            pse_lane_terms(&g->h[m], s, neg_inv_s2, a, len, t);
            t->count += len;
        }
        a += len;
        if (g->t[0].count == PSE_BATCH) pse_flush(g);
    }
}

/* The exchange of the homes of cell c with the 27 cells around it: 9 runs,
 * z then y. */
static void pse_neighbours(pse_group *g, const pse_job *job, const int c[3]) {
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    for (int m = 0; m < g->count; ++m) {
        g->t[m].count = 0;
        g->t[m].skip = -1;
    }
    const int ci_lo = c[0] > 0 ? c[0] - 1 : 0;
    const int ci_hi = c[0] + 1 < grid->cells[0] ? c[0] + 1 : grid->cells[0] - 1;
    for (int ck = c[2] - 1; ck <= c[2] + 1; ++ck) {
        if (ck < 0 || ck >= grid->cells[2]) continue;
        for (int cj = c[1] - 1; cj <= c[1] + 1; ++cj) {
            if (cj < 0 || cj >= grid->cells[1]) continue;
            const int row = grid->cells[0] * (cj + grid->cells[1] * ck);
            pse_run(g, &job->s, job->neg_inv_s2, start[row + ci_lo], start[row + ci_hi + 1]);
        }
    }
    pse_flush(g);
}

static pse_home pse_home_at(const pse_sorted *s, int n) {
    return (pse_home){n, s->x[n], s->y[n], s->z[n], s->wx[n], s->wy[n], s->wz[n], s->rho[n],
                      0.0f, 0.0f, 0.0f, 0.0f};
}

static void pse_store(const pse_job *job, const pse_home *h) {
    const eddy_world *w = job->w;
    const int i = w->part.sorted_index[h->self];
    w->scratch[0][i] = (h->wx + job->nu2dt * h->dwx) * job->keep_w;
    w->scratch[1][i] = (h->wy + job->nu2dt * h->dwy) * job->keep_w;
    w->scratch[2][i] = (h->wz + job->nu2dt * h->dwz) * job->keep_w;
    w->scratch[3][i] = (h->rho + job->kappa2dt * h->dr) * job->keep_rho;
}

/* Homes at sorted positions [begin, end), two at a time where two
 * consecutive ones share a cell. */
static void pse_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    pse_group g;
    for (int n = begin; n < end; n += g.count) {
        g.h[0] = pse_home_at(&job->s, n);
        int c[3];
        grid_cell_of(grid, g.h[0].x, g.h[0].y, g.h[0].z, c);
        const int cell = c[0] + grid->cells[0] * (c[1] + grid->cells[1] * c[2]);
        g.count = n + 1 < end && n + 1 < start[cell + 1] ? 2 : 1;
        if (g.count == 2) g.h[1] = pse_home_at(&job->s, n + 1);
        pse_neighbours(&g, job, c);
        for (int m = 0; m < g.count; ++m) pse_store(job, &g.h[m]);
    }
}

void eddy_phase_diffuse(eddy_world *w, float dt) {
    if (!w->grid_valid || w->vortons.count == 0) return;
    const eddy_world_def *d = &w->def;
    const float s = 8.0f * d->vorton_radius;
    particle_array *v = &w->vortons;
    pse_job job = {w, pse_sorted_view(w), -(1.0f / (s * s)), 2.0f * d->viscosity * dt,
                   2.0f * d->density_diffusivity * dt, 1.0f - d->vorticity_dissipation * dt,
                   1.0f - d->density_relaxation * dt};
    eddy_parallel_for(&w->tasks, v->count, COPY_CHUNK, copy_chunk, &job);
    pad_clear(w, v->count);
    eddy_parallel_for(&w->tasks, v->count, PSE_CHUNK, pse_chunk, &job);
    const size_t bytes = (size_t)v->count * sizeof(float);
    memcpy(v->wx, w->scratch[0], bytes);
    memcpy(v->wy, w->scratch[1], bytes);
    memcpy(v->wz, w->scratch[2], bytes);
    memcpy(v->drho, w->scratch[3], bytes);
}
