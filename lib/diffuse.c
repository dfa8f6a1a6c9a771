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
 *   part.sorted_index (w->sorted_scratch, PSE_ARRAYS arrays). Cells along x are
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

/* Neighbours packed per batch (a multiple of the lane count), the segments
 * (runs, or parts of runs) a batch may hold, and the homes of one cell
 * handled together. */
enum { PSE_BATCH = 128, PSE_SEGMENTS = 9, PSE_HOMES = 16 };

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
    if (n <= w->sorted_scratch_capacity) return true;
    const size_t stride = pse_stride(n);
    float *p = realloc(w->sorted_scratch, PSE_ARRAYS * stride * sizeof *p);
    if (!p) return false;
    w->sorted_scratch = p;
    w->sorted_scratch_capacity = n;
    return true;
}

static pse_sorted pse_sorted_view(const eddy_world *w) {
    const float *p = w->sorted_scratch;
    const size_t stride = pse_stride(w->sorted_scratch_capacity);
    return (pse_sorted){p, p + stride, p + 2 * stride, p + 3 * stride, p + 4 * stride,
                        p + 5 * stride, p + 6 * stride};
}

/* Start-of-phase values into partition order, sorted positions [begin, end). */
static void copy_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const particle_array *v = &job->w->vortons;
    const int *sorted = job->w->part.sorted_index;
    float *out = job->w->sorted_scratch;
    const size_t stride = pse_stride(job->w->sorted_scratch_capacity);
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
    const size_t stride = pse_stride(w->sorted_scratch_capacity);
    for (int a = 0; a < PSE_ARRAYS; ++a)
        memset(w->sorted_scratch + a * stride + count, 0, PSE_PAD * sizeof(float));
}

/* The terms H adds, in visiting order, for up to PSE_BATCH neighbours taken
 * from consecutive runs; a run's last vector writes up to VF_LANES - 1 lanes
 * past its end, which the next run overwrites or the sums never read. */
/* A cell's neighbourhood, its 9 runs copied one after the other (up to
 * PSE_BATCH vortons at a time): the homes of the cell read it as one
 * contiguous array. The lanes past the last slot repeat the last neighbour,
 * so they compute what a real lane computes and never reach eddy_expf's
 * slow path; their terms are never added. */
typedef struct pse_pack {
    int count;
    int segments;
    int seg_first[PSE_SEGMENTS], seg_slot[PSE_SEGMENTS], seg_len[PSE_SEGMENTS];
    float x[PSE_BATCH + VF_LANES], y[PSE_BATCH + VF_LANES], z[PSE_BATCH + VF_LANES];
    float wx[PSE_BATCH + VF_LANES], wy[PSE_BATCH + VF_LANES], wz[PSE_BATCH + VF_LANES];
    float rho[PSE_BATCH + VF_LANES];
} pse_pack;

/* The runs of a neighbourhood and how far they have been packed. */
typedef struct pse_runs {
    int count;
    int first[9], end[9];
    int run, at; /* next vorton to pack: sorted position at of run run */
} pse_runs;

/* One home's terms per slot of the pack, in visiting order. */
typedef struct pse_terms {
    int skip; /* the home's own slot, or -1 */
    float r[PSE_BATCH + VF_LANES], x[PSE_BATCH + VF_LANES];
    float y[PSE_BATCH + VF_LANES], z[PSE_BATCH + VF_LANES];
} pse_terms;

/* Up to two homes of one cell, whose terms are computed in one loop (the
 * neighbours loaded once) and summed in one loop: two independent sets of
 * sums, each in its own home's order, that hide each other's latency. */
typedef struct pse_group {
    int homes; /* 1 or 2 */
    int count; /* slots */
    pse_home *h[2];
    pse_terms t[2];
} pse_group;

/* gcc turns the packing loop into seven memcpy calls of a few floats each,
 * which cost more than the copy; keep it a loop. */
#if defined(__GNUC__) && !defined(__clang__)
#define PSE_NO_MEMCPY_IDIOM __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define PSE_NO_MEMCPY_IDIOM
#endif

/* Copies the next vortons of the runs into the pack, up to PSE_BATCH. */
PSE_NO_MEMCPY_IDIOM static void pse_pack_next(pse_pack *p, pse_runs *r, const pse_sorted *s) {
    p->count = 0;
    p->segments = 0;
    while (r->run < r->count && p->count < PSE_BATCH) {
        const int left = r->end[r->run] - r->at, room = PSE_BATCH - p->count;
        const int len = left < room ? left : room;
        const int a = r->at, o = p->count;
        /* whole lanes: the copy's padding and the pack's slack take the
         * overshoot, which the next segment or the repeated last neighbour
         * overwrites */
        for (int j = 0; j < len; j += VF_LANES) {
            vf_store(p->x + o + j, vf_load(s->x + a + j));
            vf_store(p->y + o + j, vf_load(s->y + a + j));
            vf_store(p->z + o + j, vf_load(s->z + a + j));
            vf_store(p->wx + o + j, vf_load(s->wx + a + j));
            vf_store(p->wy + o + j, vf_load(s->wy + a + j));
            vf_store(p->wz + o + j, vf_load(s->wz + a + j));
            vf_store(p->rho + o + j, vf_load(s->rho + a + j));
        }
        if (len > 0) {
            p->seg_first[p->segments] = a;
            p->seg_slot[p->segments] = o;
            p->seg_len[p->segments++] = len;
        }
        p->count += len;
        r->at += len;
        if (r->at == r->end[r->run] && ++r->run < r->count) r->at = r->first[r->run];
    }
    const int last = p->count - 1;
    for (int j = p->count; j < p->count + VF_LANES && last >= 0; ++j) {
        p->x[j] = p->x[last];
        p->y[j] = p->y[last];
        p->z[j] = p->z[last];
        p->wx[j] = p->wx[last];
        p->wy[j] = p->wy[last];
        p->wz[j] = p->wz[last];
        p->rho[j] = p->rho[last];
    }
}

/* The slot of sorted position n in the pack, or -1. */
static int pse_slot_of(const pse_pack *p, int n) {
    for (int e = 0; e < p->segments; ++e)
        if (n >= p->seg_first[e] && n < p->seg_first[e] + p->seg_len[e])
            return p->seg_slot[e] + (n - p->seg_first[e]);
    return -1;
}

/* One home's values in every lane. */
typedef struct pse_home_lanes {
    vf x, y, z, wx, wy, wz, rho;
} pse_home_lanes;

static pse_home_lanes pse_lanes_of(const pse_home *h) {
    return (pse_home_lanes){vf_splat(h->x),  vf_splat(h->y),  vf_splat(h->z),  vf_splat(h->wx),
                            vf_splat(h->wy), vf_splat(h->wz), vf_splat(h->rho)};
}

/* The four terms of neighbours j .. j + VF_LANES - 1 of the pack for one
 * home: every lane does the scalar code's operations in its order. */
static inline void pse_lane_terms(const pse_home_lanes *h, const pse_pack *p, int j,
                                  float neg_inv_s2, pse_terms *t) {
    const vf zero = vf_splat(0.0f);
    const vf dx = vf_sub(h->x, vf_load(p->x + j));
    const vf dy = vf_sub(h->y, vf_load(p->y + j));
    const vf dz = vf_sub(h->z, vf_load(p->z + j));
    const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
    const vf k = vf_expf(vf_mul(d2, vf_splat(neg_inv_s2)));
    /* a pair at one point exchanges no vorticity */
    const vf axial =
        vf_select(vf_gt(d2, zero), vf_div(vf_mul(vf_splat(PSE_AXIAL_WEIGHT), k), d2), zero);
    vf_store(t->r + j, vf_mul(vf_sub(vf_load(p->rho + j), h->rho), k));
    const vf ex = vf_sub(vf_load(p->wx + j), h->wx);
    const vf ey = vf_sub(vf_load(p->wy + j), h->wy);
    const vf ez = vf_sub(vf_load(p->wz + j), h->wz);
    const vf dot = vf_add(vf_add(vf_mul(dx, ex), vf_mul(dy, ey)), vf_mul(dz, ez));
    const vf along = vf_mul(axial, dot);
    vf_store(t->x + j, vf_mul(dx, along));
    vf_store(t->y + j, vf_mul(dy, along));
    vf_store(t->z + j, vf_mul(dz, along));
}

/* The group's terms for every slot of the pack. */
static void pse_group_terms(pse_group *g, const pse_pack *p, float neg_inv_s2) {
    const pse_home_lanes a = pse_lanes_of(g->h[0]);
    if (g->homes == 1) {
        for (int j = 0; j < p->count; j += VF_LANES) pse_lane_terms(&a, p, j, neg_inv_s2, &g->t[0]);
        return;
    }
    const pse_home_lanes b = pse_lanes_of(g->h[1]);
    for (int j = 0; j < p->count; j += VF_LANES) {
        pse_lane_terms(&a, p, j, neg_inv_s2, &g->t[0]);
        pse_lane_terms(&b, p, j, neg_inv_s2, &g->t[1]);
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

/* Both homes' sums over the slots [from, to). */
static inline void pse_sum_two(pse_group *g, int from, int to) {
    const pse_terms *ta = &g->t[0], *tb = &g->t[1];
    pse_home *a = g->h[0], *b = g->h[1];
    float ar = a->dr, ax = a->dwx, ay = a->dwy, az = a->dwz;
    float br = b->dr, bx = b->dwx, by = b->dwy, bz = b->dwz;
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
    a->dr = ar;
    a->dwx = ax;
    a->dwy = ay;
    a->dwz = az;
    b->dr = br;
    b->dwx = bx;
    b->dwy = by;
    b->dwz = bz;
}

/* Adds the group's terms to its homes' sums in order, each home's own slot
 * skipped (there only the other home adds). */
static void pse_sums(pse_group *g) {
    int slot[2], home[2], skips = 0;
    for (int m = 0; m < g->homes; ++m)
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
        if (g->homes == 2) {
            pse_sum_two(g, next, slot[e]);
            const int other = 1 - home[e];
            pse_sum(g->h[other], &g->t[other], slot[e], slot[e] + 1);
        } else {
            pse_sum(g->h[0], &g->t[0], next, slot[e]);
        }
        next = slot[e] + 1;
    }
    if (g->homes == 2) pse_sum_two(g, next, g->count);
    else pse_sum(g->h[0], &g->t[0], next, g->count);
}

/* The 9 runs around cell c, z then y; each covers x-cells c0 - 1 .. c0 + 1
 * (clamped), which are consecutive cell indices. */
static void pse_runs_around(const pse_job *job, const int c[3], pse_runs *r) {
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    const int ci_lo = c[0] > 0 ? c[0] - 1 : 0;
    const int ci_hi = c[0] + 1 < grid->cells[0] ? c[0] + 1 : grid->cells[0] - 1;
    r->count = 0;
    for (int ck = c[2] - 1; ck <= c[2] + 1; ++ck) {
        if (ck < 0 || ck >= grid->cells[2]) continue;
        for (int cj = c[1] - 1; cj <= c[1] + 1; ++cj) {
            if (cj < 0 || cj >= grid->cells[1]) continue;
            const int row = grid->cells[0] * (cj + grid->cells[1] * ck);
            r->first[r->count] = start[row + ci_lo];
            r->end[r->count++] = start[row + ci_hi + 1];
        }
    }
    r->run = 0;
    r->at = r->first[0];
}

/* The exchange of homes[0 .. count), all in cell c, with its neighbourhood:
 * batch by batch, two homes at a time. */
static void pse_cell(const pse_job *job, const int c[3], pse_home *homes, int count) {
    pse_runs runs;
    pse_runs_around(job, c, &runs);
    pse_pack pack;
    pse_group g;
    while (runs.run < runs.count) {
        pse_pack_next(&pack, &runs, &job->s);
        if (pack.count == 0) break;
        g.count = pack.count;
        for (int m = 0; m < count; m += g.homes) {
            g.homes = count - m >= 2 ? 2 : 1;
            for (int e = 0; e < g.homes; ++e) {
                g.h[e] = &homes[m + e];
                g.t[e].skip = pse_slot_of(&pack, homes[m + e].self);
            }
            pse_group_terms(&g, &pack, job->neg_inv_s2);
            pse_sums(&g);
        }
    }
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

/* Homes at sorted positions [begin, end), up to PSE_HOMES of one cell at a
 * time. */
static void pse_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    pse_home homes[PSE_HOMES];
    for (int n = begin; n < end;) {
        homes[0] = pse_home_at(&job->s, n);
        int c[3];
        grid_cell_of(grid, homes[0].x, homes[0].y, homes[0].z, c);
        const int cell = c[0] + grid->cells[0] * (c[1] + grid->cells[1] * c[2]);
        const int cell_end = start[cell + 1] < end ? start[cell + 1] : end;
        const int count = cell_end - n < PSE_HOMES ? cell_end - n : PSE_HOMES;
        for (int m = 1; m < count; ++m) homes[m] = pse_home_at(&job->s, n + m);
        pse_cell(job, c, homes, count);
        for (int m = 0; m < count; ++m) pse_store(job, &homes[m]);
        n += count;
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
