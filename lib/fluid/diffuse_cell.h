/* SPDX-License-Identifier: MIT */
/* The exchange of one cell's homes with their neighbourhood (design note:
 * lib/fluid/diffuse.c), written against a lane type: the includer includes a lane
 * header (lib/runtime/lanes4.h or lib/runtime/lanes8_avx.h), then
 * lib/runtime/emath_lanes.h, defines PSE_CELL_ENTRY and includes this file once. */
#include "fluid/diffuse.h"

#include <stdlib.h>

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
    float rho[PSE_BATCH + VF_LANES], g[PSE_BATCH + VF_LANES];
} pse_pack;

/* The runs of a neighbourhood and how far they have been packed. */
typedef struct pse_runs {
    int count;
    int first[PSE_MAX_RUNS], end[PSE_MAX_RUNS];
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
PSE_NO_MEMCPY_IDIOM static void pse_pack_next(pse_pack *p, pse_runs *r, const pse_sorted *s,
                                              bool with_g) {
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
        if (with_g)
            for (int j = 0; j < len; j += VF_LANES) vf_store(p->g + o + j, vf_load(s->g + a + j));
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
        if (with_g) p->g[j] = p->g[last];
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
    vf x, y, z, wx, wy, wz, rho, g;
} pse_home_lanes;

static pse_home_lanes pse_lanes_of(const pse_home *h) {
    return (pse_home_lanes){vf_splat(h->x),  vf_splat(h->y),  vf_splat(h->z),  vf_splat(h->wx),
                            vf_splat(h->wy), vf_splat(h->wz), vf_splat(h->rho), vf_splat(h->g)};
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

/* PSE_PASS_MOMENTS: the terms of M = sum k |d|^2 (in x) and S = sum k (in
 * r), k cut to 0 from |d|^2 >= cut2 on. */
static inline void pse_lane_moments_of(const pse_home_lanes *h, vf x, vf y, vf z, int j,
                                       float neg_inv_s2, float cut2, pse_terms *t) {
    const vf zero = vf_splat(0.0f);
    const vf dx = vf_sub(h->x, x);
    const vf dy = vf_sub(h->y, y);
    const vf dz = vf_sub(h->z, z);
    const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
    const vf k = vf_select(vf_gt(vf_splat(cut2), d2), vf_expf(vf_mul(d2, vf_splat(neg_inv_s2))), zero);
    vf_store(t->r + j, k);
    vf_store(t->x + j, vf_mul(k, d2));
    vf_store(t->y + j, zero);
    vf_store(t->z + j, zero);
}

static inline void pse_lane_moments(const pse_home_lanes *h, const pse_pack *p, int j,
                                    float neg_inv_s2, float cut2, pse_terms *t) {
    pse_lane_moments_of(h, vf_load(p->x + j), vf_load(p->y + j), vf_load(p->z + j), j, neg_inv_s2,
                        cut2, t);
}

/* PSE_PASS_EXCHANGE: the seed's terms with k cut to 0 from |d|^2 >= cut2 on,
 * each times the pair's factor min(g_H, g_T) (the same for both of the pair;
 * a select, not a min instruction: g_T when g_H > g_T, else g_H). */
static inline void pse_lane_exchange(const pse_home_lanes *h, const pse_pack *p, int j,
                                     float neg_inv_s2, float cut2, pse_terms *t) {
    const vf zero = vf_splat(0.0f);
    const vf dx = vf_sub(h->x, vf_load(p->x + j));
    const vf dy = vf_sub(h->y, vf_load(p->y + j));
    const vf dz = vf_sub(h->z, vf_load(p->z + j));
    const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
    const vf k = vf_select(vf_gt(vf_splat(cut2), d2), vf_expf(vf_mul(d2, vf_splat(neg_inv_s2))), zero);
    const vf gt = vf_load(p->g + j);
    const vf kc = vf_mul(k, vf_select(vf_gt(h->g, gt), gt, h->g));
    const vf axial =
        vf_select(vf_gt(d2, zero), vf_div(vf_mul(vf_splat(PSE_AXIAL_WEIGHT), kc), d2), zero);
    vf_store(t->r + j, vf_mul(vf_sub(vf_load(p->rho + j), h->rho), kc));
    const vf ex = vf_sub(vf_load(p->wx + j), h->wx);
    const vf ey = vf_sub(vf_load(p->wy + j), h->wy);
    const vf ez = vf_sub(vf_load(p->wz + j), h->wz);
    const vf dot = vf_add(vf_add(vf_mul(dx, ex), vf_mul(dy, ey)), vf_mul(dz, ez));
    const vf along = vf_mul(axial, dot);
    vf_store(t->x + j, vf_mul(dx, along));
    vf_store(t->y + j, vf_mul(dy, along));
    vf_store(t->z + j, vf_mul(dz, along));
}

/* One home's terms for the slots of the pack from j on, by pass. */
static inline void pse_terms_of(const pse_job *job, const pse_home_lanes *h, const pse_pack *p,
                                int j, pse_terms *t) {
    switch (job->pass) {
    case PSE_PASS_MOMENTS: pse_lane_moments(h, p, j, job->neg_inv_s2, job->cut2, t); break;
    case PSE_PASS_EXCHANGE: pse_lane_exchange(h, p, j, job->neg_inv_s2, job->cut2, t); break;
    case PSE_PASS_SEED: pse_lane_terms(h, p, j, job->neg_inv_s2, t); break;
    }
}

/* The group's terms for every slot of the pack. */
static void pse_group_terms(pse_group *g, const pse_pack *p, const pse_job *job) {
    const pse_home_lanes a = pse_lanes_of(g->h[0]);
    if (g->homes == 1) {
        for (int j = 0; j < p->count; j += VF_LANES) pse_terms_of(job, &a, p, j, &g->t[0]);
        return;
    }
    const pse_home_lanes b = pse_lanes_of(g->h[1]);
    for (int j = 0; j < p->count; j += VF_LANES) {
        pse_terms_of(job, &a, p, j, &g->t[0]);
        pse_terms_of(job, &b, p, j, &g->t[1]);
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

/* PSE_PASS_MOMENTS: H's two sums (S in dr, M in dwx) over the slots
 * [0, n); the other two are 0 and never read. */
static inline void pse_sum_moments(pse_home *h, const pse_terms *t, int n) {
    float s = h->dr, m = h->dwx;
    for (int j = 0; j < n; ++j) {
        s += t->r[j];
        m += t->x[j];
    }
    h->dr = s;
    h->dwx = m;
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

/* The runs around cell c, z then y (9 for a reach of 1); each covers x-cells
 * c0 - reach .. c0 + reach (clamped), which are consecutive cell indices. */
static void pse_runs_around(const pse_job *job, const int c[3], pse_runs *r) {
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    const int *m = job->reach;
    const int ci_lo = c[0] > m[0] ? c[0] - m[0] : 0;
    const int ci_hi = c[0] + m[0] < grid->cells[0] ? c[0] + m[0] : grid->cells[0] - 1;
    r->count = 0;
    for (int ck = c[2] - m[2]; ck <= c[2] + m[2]; ++ck) {
        if (ck < 0 || ck >= grid->cells[2]) continue;
        for (int cj = c[1] - m[1]; cj <= c[1] + m[1]; ++cj) {
            if (cj < 0 || cj >= grid->cells[1]) continue;
            const int row = grid->cells[0] * (cj + grid->cells[1] * ck);
            r->first[r->count] = start[row + ci_lo];
            r->end[r->count++] = start[row + ci_hi + 1];
        }
    }
    r->run = 0;
    r->at = r->first[0];
}

/* PSE_PASS_MOMENTS and _EXCHANGE: the slots of the pack within the cut-off
 * of home h (cut2 > |d|^2, |d|^2 computed with the terms' own operations),
 * the home's own slot left out, copied in order into near (the lanes past
 * the last repeat it). A pair beyond the cut-off has k = 0 and terms of +0 or
 * -0, and a sum that starts at +0 is never -0 (x + -x is +0), so adding them
 * changes no bit: leaving them out gives the sums of the whole pack. */
PSE_NO_MEMCPY_IDIOM static void pse_near_of(const pse_home_lanes *h, const pse_pack *p, int skip,
                                            float cut2, bool with_g, pse_pack *near, int *slots) {
    float d2s[PSE_BATCH + VF_LANES];
    for (int j = 0; j < p->count; j += VF_LANES) {
        const vf dx = vf_sub(h->x, vf_load(p->x + j));
        const vf dy = vf_sub(h->y, vf_load(p->y + j));
        const vf dz = vf_sub(h->z, vf_load(p->z + j));
        vf_store(d2s + j, vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz)));
    }
    /* branch-free: the slot is written either way, counted only if in */
    int n = 0;
    for (int j = 0; j < p->count; ++j) {
        slots[n] = j;
        n += (cut2 > d2s[j]) & (j != skip);
    }
    for (int e = 0; e < n; ++e) {
        const int j = slots[e];
        near->x[e] = p->x[j];
        near->y[e] = p->y[j];
        near->z[e] = p->z[j];
        near->wx[e] = p->wx[j];
        near->wy[e] = p->wy[j];
        near->wz[e] = p->wz[j];
        near->rho[e] = p->rho[j];
        near->g[e] = with_g ? p->g[j] : 0.0f;
    }
    near->count = n;
    for (int j = n; j < n + VF_LANES && n > 0; ++j) {
        near->x[j] = near->x[n - 1];
        near->y[j] = near->y[n - 1];
        near->z[j] = near->z[n - 1];
        near->wx[j] = near->wx[n - 1];
        near->wy[j] = near->wy[n - 1];
        near->wz[j] = near->wz[n - 1];
        near->rho[j] = near->rho[n - 1];
        near->g[j] = near->g[n - 1];
    }
}

/* PSE_PASS_EXCHANGE's terms with k given (the moments pass's, the same
 * operations on the same positions), the neighbours' fields f[0 .. 7] from
 * their records: pse_lane_exchange without the kernel. */
static inline void pse_lane_exchange_k(const pse_home_lanes *h, const vf f[8], vf k, int j,
                                       pse_terms *t) {
    const vf zero = vf_splat(0.0f);
    const vf dx = vf_sub(h->x, f[0]);
    const vf dy = vf_sub(h->y, f[1]);
    const vf dz = vf_sub(h->z, f[2]);
    const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
    const vf gt = f[7];
    const vf kc = vf_mul(k, vf_select(vf_gt(h->g, gt), gt, h->g));
    const vf axial =
        vf_select(vf_gt(d2, zero), vf_div(vf_mul(vf_splat(PSE_AXIAL_WEIGHT), kc), d2), zero);
    vf_store(t->r + j, vf_mul(vf_sub(f[6], h->rho), kc));
    const vf ex = vf_sub(f[3], h->wx);
    const vf ey = vf_sub(f[4], h->wy);
    const vf ez = vf_sub(f[5], h->wz);
    const vf dot = vf_add(vf_add(vf_mul(dx, ex), vf_mul(dy, ey)), vf_mul(dz, ez));
    const vf along = vf_mul(axial, dot);
    vf_store(t->x + j, vf_mul(dx, along));
    vf_store(t->y + j, vf_mul(dy, along));
    vf_store(t->z + j, vf_mul(dz, along));
}

/* Room for n more entries in the list (false: out of memory, marked). */
static bool pse_list_room(pse_list *l, int n) {
    if (l->failed) return false;
    if (l->count + n <= l->capacity) return true;
    int cap = l->capacity > 0 ? l->capacity : 4096;
    while (cap < l->count + n) cap *= 2;
    int *idx = eddy_realloc(l->idx, (size_t)cap * sizeof *idx);
    if (idx) l->idx = idx;
    float *k = idx ? eddy_realloc(l->k, (size_t)cap * sizeof *k) : NULL;
    if (k) l->k = k;
    if (!idx || !k) {
        l->failed = true;
        return false;
    }
    l->capacity = cap;
    return true;
}

/* PSE_PASS_MOMENTS: the terms of buf[0 .. n), sorted positions in visiting
 * order, added to home's sums and (while record) appended to the list. */
PSE_NO_MEMCPY_IDIOM static void pse_moments_flush(const pse_job *job, const pse_home_lanes *h,
                                                  pse_home *home, int *buf, int n,
                                                  pse_list *list, int head, bool *record) {
    pse_terms t;
    /* the lanes past the last slot repeat it (buf has the room) */
    for (int e = n; e < n + VF_LANES; ++e) buf[e] = buf[n - 1];
    for (int j = 0; j < n; j += VF_LANES) {
        vf f[8];
        vf_load_records8(job->s.rec, buf + j, f);
        pse_lane_moments_of(h, f[0], f[1], f[2], j, job->neg_inv_s2, job->cut2, &t);
    }
    pse_sum_moments(home, &t, n);
    if (*record && pse_list_room(list, n)) {
        /* the ends read once: a store to idx could otherwise alias count */
        int *idx = list->idx + list->count;
        float *k = list->k + list->count;
        for (int e = 0; e < n; ++e) {
            idx[e] = buf[e];
            k[e] = t.r[e];
        }
        list->count += n;
        list->idx[head] += n;
    } else {
        *record = false;
    }
}

/* The set bits of a 4-bit mask, in order (then their count): the positions
 * of four lanes that are kept. */
static const unsigned char pse_kept4[16][5] = {
    {0, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {1, 0, 0, 0, 1}, {0, 1, 0, 0, 2},
    {2, 0, 0, 0, 1}, {0, 2, 0, 0, 2}, {1, 2, 0, 0, 2}, {0, 1, 2, 0, 3},
    {3, 0, 0, 0, 1}, {0, 3, 0, 0, 2}, {1, 3, 0, 0, 2}, {0, 1, 3, 0, 3},
    {2, 3, 0, 0, 2}, {0, 2, 3, 0, 3}, {1, 2, 3, 0, 3}, {0, 1, 2, 3, 4},
};

/* Appends the positions a + j of the lanes j set in keep (VF_LANES bits) to
 * buf from n on, in lane order, and returns the new count; writes up to
 * VF_LANES entries from n whatever is kept. Four lanes at a time from a
 * table: no branch and no chain through the count within four lanes (a loop
 * over the set bits mispredicted its exit once per run). */
static inline int pse_append_kept(int *buf, int n, int a, unsigned keep) {
    for (int q = 0; q < VF_LANES; q += 4) {
        const unsigned char *k = pse_kept4[(keep >> q) & 15u];
        buf[n] = a + q + k[0];
        buf[n + 1] = a + q + k[1];
        buf[n + 2] = a + q + k[2];
        buf[n + 3] = a + q + k[3];
        n += k[4];
    }
    return n;
}

/* PSE_PASS_MOMENTS for one home over the runs, read in place from the
 * partition-order copy: |d|^2 in lanes (the terms' operations), the slots
 * within the cut-off (the home's own left out) gathered in visiting order,
 * up to PSE_BATCH at a time, into a compact copy for the moments' lanes; the
 * sums run in visiting order, and the list gets the home's pairs (their
 * number, then sorted positions and k). */
static void pse_moments_home(const pse_job *job, const pse_runs *r, pse_home *home,
                             pse_list *list) {
    /* read once: the stores to buf could otherwise alias them */
    const float *sx = job->s.x, *sy = job->s.y, *sz = job->s.z;
    const int own = home->self;
    const pse_home_lanes h = pse_lanes_of(home);
    int buf[PSE_BATCH + VF_LANES];
    const vf cut = vf_splat(job->cut2);
    bool record = list && pse_list_room(list, 1);
    const int head = record ? list->count++ : -1;
    if (record) list->idx[head] = 0;
    int n = 0;
    for (int run = 0; run < r->count; ++run) {
        const int end = r->end[run];
        for (int a = r->first[run]; a < end; a += VF_LANES) {
            const vf dx = vf_sub(h.x, vf_load(sx + a));
            const vf dy = vf_sub(h.y, vf_load(sy + a));
            const vf dz = vf_sub(h.z, vf_load(sz + a));
            const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
            /* the lanes within the cut-off (a NaN is not), past the run's end
             * and the home's own slot left out; kept in lane order */
            unsigned keep = vm_bits(vf_lt(d2, cut));
            if (end - a < VF_LANES) keep &= (1u << (end - a)) - 1u;
            const unsigned self = (unsigned)(own - a);
            if (self < VF_LANES) keep &= ~(1u << self);
            n = pse_append_kept(buf, n, a, keep);
            if (n > PSE_BATCH - VF_LANES) {
                pse_moments_flush(job, &h, home, buf, n, list, head, &record);
                n = 0;
            }
        }
    }
    if (n > 0) pse_moments_flush(job, &h, home, buf, n, list, head, &record);
}

/* PSE_PASS_EXCHANGE from the chunk's list: each home's pairs in the moments
 * pass's order, PSE_BATCH at a time, every neighbour gathered as its record
 * (lanes past the last repeat it; their terms are never added). */
static void pse_replay_homes(const pse_job *job, pse_home *homes, int count, pse_list *l) {
    const float *rec = job->s.rec;
    pse_terms t;
    for (int m = 0; m < count; ++m) {
        const pse_home_lanes h = pse_lanes_of(&homes[m]);
        const int total = l->idx[l->at++];
        for (int done = 0; done < total;) {
            const int n = total - done < PSE_BATCH ? total - done : PSE_BATCH;
            const int *idx = l->idx + l->at;
            const float *k = l->k + l->at;
            const int whole = n - n % VF_LANES;
            for (int j = 0; j < whole; j += VF_LANES) {
                vf f[8];
                vf_load_records8(rec, idx + j, f);
                pse_lane_exchange_k(&h, f, vf_load(k + j), j, &t);
            }
            if (whole < n) {
                /* the last lanes: the list's entries past n belong to the
                 * next home, so the tail repeats the last pair */
                int tail_idx[VF_LANES];
                float tail_k[VF_LANES];
                for (int e = 0; e < VF_LANES; ++e) {
                    const int j = whole + e < n ? whole + e : n - 1;
                    tail_idx[e] = idx[j];
                    tail_k[e] = k[j];
                }
                vf f[8];
                vf_load_records8(rec, tail_idx, f);
                pse_lane_exchange_k(&h, f, vf_load(tail_k), whole, &t);
            }
            pse_sum(&homes[m], &t, 0, n);
            l->at += n;
            done += n;
        }
    }
}

/* The exchange of homes[0 .. count), all in cell c, with its neighbourhood:
 * batch by batch; the seed's two homes at a time over the whole batch, the
 * cut passes one home at a time over the batch's slots within its cut-off
 * (the moments pass writing them to the list, the exchange reading them
 * back from it where there is one). */
void PSE_CELL_ENTRY(const pse_job *job, const int c[3], pse_home *homes, int count,
                    pse_list *list) {
    if (job->pass == PSE_PASS_EXCHANGE && list && !list->failed) {
        pse_replay_homes(job, homes, count, list);
        return;
    }
    pse_runs runs;
    pse_runs_around(job, c, &runs);
    if (job->pass == PSE_PASS_MOMENTS) {
        for (int m = 0; m < count; ++m) pse_moments_home(job, &runs, &homes[m], list);
        return;
    }
    pse_pack pack;
    pse_group g;
    if (job->pass != PSE_PASS_SEED) {
        pse_pack near;
        int slots[PSE_BATCH + VF_LANES];
        const bool with_g = true; /* PSE_PASS_EXCHANGE without a list */
        while (runs.run < runs.count) {
            pse_pack_next(&pack, &runs, &job->s, with_g);
            if (pack.count == 0) break;
            for (int m = 0; m < count; ++m) {
                const pse_home_lanes h = pse_lanes_of(&homes[m]);
                pse_near_of(&h, &pack, pse_slot_of(&pack, homes[m].self), job->cut2, with_g, &near,
                            slots);
                for (int j = 0; j < near.count; j += VF_LANES) pse_terms_of(job, &h, &near, j, &g.t[0]);
                pse_sum(&homes[m], &g.t[0], 0, near.count);
            }
        }
        return;
    }
    while (runs.run < runs.count) {
        pse_pack_next(&pack, &runs, &job->s, job->pass == PSE_PASS_EXCHANGE);
        if (pack.count == 0) break;
        g.count = pack.count;
        for (int m = 0; m < count; m += g.homes) {
            g.homes = count - m >= 2 ? 2 : 1;
            for (int e = 0; e < g.homes; ++e) {
                g.h[e] = &homes[m + e];
                g.t[e].skip = pse_slot_of(&pack, homes[m + e].self);
            }
            pse_group_terms(&g, &pack, job);
            pse_sums(&g);
        }
    }
}

