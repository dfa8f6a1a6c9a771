/* SPDX-License-Identifier: MIT */
/* The influence tree: nested grids of supervortons, and treecode evaluation.
 *
 * Level 0 is the grid template (about one vorton per cell); each level above
 * halves the cell count per axis until one cell remains. A supervorton holds
 * the summed vorticity of its cell and its |w|-weighted centroid. For the
 * multipole traversal each cell also gets the first and second moments of
 * its vorticity about that centroid (eddy_tree_build_moments).
 *
 * Determinism: the base level is a gather over the partition (each cell sums
 * its own vortons in ascending index order); each upper cell sums its 2x2x2
 * children in z, y, x order. Every cell is written by exactly one chunk, so
 * the result does not depend on the worker count. Moments follow the same
 * pattern.
 *
 * Evaluation at q, the original's traversal (EDDY_TREECODE_ORIGINAL):
 * descend from the root; at each level the child cells that contain q (with
 * a margin of 1e-4 cell) are opened, the others contribute their supervorton;
 * at the lowest level the children contribute as supervortons.
 *
 * Evaluation of a block of grid points, the multipole traversal (opt-in):
 * one walk per block from the root; a cell of edge s whose centroid lies at
 * distance D from the block's box is used as a multipole (the kernel
 * expanded to second order about the centroid) when s < theta D, otherwise
 * opened; a base cell that is opened is summed vorton by vorton. Each point
 * sums the walk's terms in the walk's order, 4 lanes at a time (SSE2, NEON or
 * plain C: the same IEEE operations per lane, so the same bits). Accuracy and
 * cost: docs/accuracy.md. */
#include "core.h"

#include <stdlib.h>

enum { TREE_BASE_CHUNK = 64, TREE_UPPER_CHUNK = 64 };

typedef struct base_job {
    const particle_array *v;
    const partition *part;
    supervorton *cells;
} base_job;

static void base_chunk(int chunk, int begin, int end, void *context) {
    const base_job *job = context;
    const particle_array *v = job->v;
    for (int c = begin; c < end; ++c) {
        supervorton s = {0};
        for (int n = job->part->cell_start[c]; n < job->part->cell_start[c + 1]; ++n) {
            int i = job->part->sorted_index[n];
            float wx = v->wx[i], wy = v->wy[i], wz = v->wz[i];
            float mag = sqrtf(wx * wx + wy * wy + wz * wz);
            s.px += v->px[i] * mag;
            s.py += v->py[i] * mag;
            s.pz += v->pz[i] * mag;
            s.wx += wx;
            s.wy += wy;
            s.wz += wz;
            s.weight += mag;
        }
        if (s.weight > 0.0f) {
            s.px /= s.weight;
            s.py /= s.weight;
            s.pz /= s.weight;
        }
        job->cells[c] = s;
    }
}

typedef struct upper_job {
    const grid_shape *child_grid, *parent_grid;
    const supervorton *child;
    supervorton *parent;
} upper_job;

static void upper_chunk(int chunk, int begin, int end, void *context) {
    const upper_job *job = context;
    const grid_shape *cg = job->child_grid, *pg = job->parent_grid;
    const int dec[3] = {cg->cells[0] / pg->cells[0], cg->cells[1] / pg->cells[1],
                        cg->cells[2] / pg->cells[2]};
    for (int c = begin; c < end; ++c) {
        int pi = c % pg->cells[0], pj = (c / pg->cells[0]) % pg->cells[1];
        int pk = c / (pg->cells[0] * pg->cells[1]);
        supervorton s = {0};
        float wsum = 0.0f;
        for (int dz = 0; dz < dec[2]; ++dz)
            for (int dy = 0; dy < dec[1]; ++dy)
                for (int dx = 0; dx < dec[0]; ++dx) {
                    int ci = pi * dec[0] + dx, cj = pj * dec[1] + dy, ck = pk * dec[2] + dz;
                    const supervorton *ch =
                        &job->child[ci + cg->cells[0] * (cj + cg->cells[1] * ck)];
                    if (!(ch->weight > 0.0f)) continue;
                    float mag = sqrtf(ch->wx * ch->wx + ch->wy * ch->wy + ch->wz * ch->wz);
                    s.px += ch->px * mag;
                    s.py += ch->py * mag;
                    s.pz += ch->pz * mag;
                    s.wx += ch->wx;
                    s.wy += ch->wy;
                    s.wz += ch->wz;
                    wsum += mag;
                }
        if (wsum > 0.0f) {
            s.px /= wsum;
            s.py /= wsum;
            s.pz /= wsum;
            s.weight = wsum;
        } else {
            s = (supervorton){0};
        }
        job->parent[c] = s;
    }
}

static bool tree_reserve(influence_tree *t, int level, int cells) {
    if (cells <= t->capacity[level]) return true;
    supervorton *p = realloc(t->cells[level], (size_t)cells * sizeof *p);
    if (!p) return false;
    t->cells[level] = p;
    t->capacity[level] = cells;
    return true;
}

bool eddy_tree_build(influence_tree *t, task_system *ts, const grid_shape *template_grid,
                const particle_array *v, const partition *part) {
    t->layer[0] = *template_grid;
    t->levels = 1;
    while (t->levels < TREE_MAX_LEVELS && grid_cell_count(&t->layer[t->levels - 1]) > 1) {
        eddy_grid_decimate(&t->layer[t->levels], &t->layer[t->levels - 1]);
        ++t->levels;
    }
    for (int l = 0; l < t->levels; ++l)
        if (!tree_reserve(t, l, grid_cell_count(&t->layer[l]))) return false;
    base_job bj = {v, part, t->cells[0]};
    eddy_parallel_for(ts, grid_cell_count(&t->layer[0]), TREE_BASE_CHUNK, base_chunk, &bj);
    for (int l = 1; l < t->levels; ++l) {
        upper_job uj = {&t->layer[l - 1], &t->layer[l], t->cells[l - 1], t->cells[l]};
        eddy_parallel_for(ts, grid_cell_count(&t->layer[l]), TREE_UPPER_CHUNK, upper_chunk, &uj);
    }
    return true;
}

void eddy_tree_free(influence_tree *t) {
    for (int l = 0; l < TREE_MAX_LEVELS; ++l) {
        free(t->cells[l]);
        free(t->moments[l]);
    }
    memset(t, 0, sizeof *t);
}

static inline bool near_cell(const grid_shape *g, int a, int index, float q) {
    float lo = g->min[a] + (float)index * g->spacing[a];
    float hi = lo + g->spacing[a];
    float margin = 0.0001f * g->spacing[a] + EDDY_FLT_MIN;
    return q >= lo - margin && q < hi + margin;
}

/* Add the contributions of the children (at `level`) of parent cell p. */
static void tree_descend(const influence_tree *t, int level, const int p[3], float qx, float qy,
                         float qz, float a, float c, vec3 *u) {
    const grid_shape *g = &t->layer[level], *pg = &t->layer[level + 1];
    const int dec[3] = {g->cells[0] / pg->cells[0], g->cells[1] / pg->cells[1],
                        g->cells[2] / pg->cells[2]};
    const supervorton *cells = t->cells[level];
    for (int dz = 0; dz < dec[2]; ++dz) {
        int ck = p[2] * dec[2] + dz;
        bool in_z = near_cell(g, 2, ck, qz);
        for (int dy = 0; dy < dec[1]; ++dy) {
            int cj = p[1] * dec[1] + dy;
            bool in_yz = in_z && near_cell(g, 1, cj, qy);
            for (int dx = 0; dx < dec[0]; ++dx) {
                int ci = p[0] * dec[0] + dx;
                if (level > 0 && in_yz && near_cell(g, 0, ci, qx)) {
                    const int child[3] = {ci, cj, ck};
                    tree_descend(t, level - 1, child, qx, qy, qz, a, c, u);
                    continue;
                }
                const supervorton *s = &cells[ci + g->cells[0] * (cj + g->cells[1] * ck)];
                if (s->weight > 0.0f)
                    kernel_accumulate(u, qx, qy, qz, s->px, s->py, s->pz, s->wx, s->wy, s->wz,
                                      a, c);
            }
        }
    }
}

vec3 eddy_tree_velocity_at(const influence_tree *t, float qx, float qy, float qz, float a, float c) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    if (t->levels == 1) {
        const supervorton *s = &t->cells[0][0];
        if (s->weight > 0.0f)
            kernel_accumulate(&u, qx, qy, qz, s->px, s->py, s->pz, s->wx, s->wy, s->wz, a, c);
        return u;
    }
    const int root[3] = {0, 0, 0};
    tree_descend(t, t->levels - 2, root, qx, qy, qz, a, c, &u);
    return u;
}

/* ---------------------------------------------------------------- moments */

enum { MOMENT_CHUNK = 64 };

typedef struct moment_job {
    const influence_tree *t;
    const particle_array *v;
    const partition *part;
    int level;
} moment_job;

/* The pairs (b, c), b <= c, of the second moments, in storage order. */
static const int pair_b[6] = {0, 0, 0, 1, 1, 2}, pair_c[6] = {0, 1, 2, 1, 2, 2};

/* A vorton (or a child's sum, with its own moments) at offset r from the
 * centroid: m[3 b + k] += r_b w_k; m[9 + 6 k + pair(b, c)] += r_b r_c w_k,
 * plus, for a child, the shift of its moments: M_bk' = M_bk + ..., Q_bck' =
 * Q_bck + r_b M_ck + r_c M_bk. */
static inline void moment_add(float m[TREE_MOMENTS], float rx, float ry, float rz, float wx,
                              float wy, float wz, const float *child) {
    const float r[3] = {rx, ry, rz}, w[3] = {wx, wy, wz};
    for (int b = 0; b < 3; ++b)
        for (int k = 0; k < 3; ++k) m[3 * b + k] += r[b] * w[k];
    for (int k = 0; k < 3; ++k)
        for (int p = 0; p < 6; ++p) {
            const int b = pair_b[p], c = pair_c[p];
            float q = (r[b] * r[c]) * w[k];
            if (child) q = q + (r[b] * child[3 * c + k] + r[c] * child[3 * b + k]);
            m[9 + 6 * k + p] += q;
        }
    if (child)
        for (int k = 0; k < TREE_MOMENTS; ++k) m[k] += child[k];
}

static void base_moment_chunk(int chunk, int begin, int end, void *context) {
    const moment_job *job = context;
    const particle_array *v = job->v;
    for (int c = begin; c < end; ++c) {
        const supervorton *s = &job->t->cells[0][c];
        float m[TREE_MOMENTS] = {0};
        if (s->weight > 0.0f)
            for (int n = job->part->cell_start[c]; n < job->part->cell_start[c + 1]; ++n) {
                int i = job->part->sorted_index[n];
                moment_add(m, v->px[i] - s->px, v->py[i] - s->py, v->pz[i] - s->pz, v->wx[i],
                           v->wy[i], v->wz[i], NULL);
            }
        memcpy(&job->t->moments[0][TREE_MOMENTS * (size_t)c], m, sizeof m);
    }
}

/* Parent moment = sum over children (z, y, x order) of the child's moment
 * plus its summed vorticity shifted from the child's centroid to the
 * parent's. */
static void upper_moment_chunk(int chunk, int begin, int end, void *context) {
    const moment_job *job = context;
    const influence_tree *t = job->t;
    const grid_shape *cg = &t->layer[job->level - 1], *pg = &t->layer[job->level];
    const int dec[3] = {cg->cells[0] / pg->cells[0], cg->cells[1] / pg->cells[1],
                        cg->cells[2] / pg->cells[2]};
    for (int c = begin; c < end; ++c) {
        int pi = c % pg->cells[0], pj = (c / pg->cells[0]) % pg->cells[1];
        int pk = c / (pg->cells[0] * pg->cells[1]);
        const supervorton *s = &t->cells[job->level][c];
        float m[TREE_MOMENTS] = {0};
        for (int dz = 0; dz < dec[2] && s->weight > 0.0f; ++dz)
            for (int dy = 0; dy < dec[1]; ++dy)
                for (int dx = 0; dx < dec[0]; ++dx) {
                    int ci = pi * dec[0] + dx, cj = pj * dec[1] + dy, ck = pk * dec[2] + dz;
                    int child = ci + cg->cells[0] * (cj + cg->cells[1] * ck);
                    const supervorton *ch = &t->cells[job->level - 1][child];
                    if (!(ch->weight > 0.0f)) continue;
                    const float *cm = &t->moments[job->level - 1][TREE_MOMENTS * (size_t)child];
                    moment_add(m, ch->px - s->px, ch->py - s->py, ch->pz - s->pz, ch->wx, ch->wy,
                               ch->wz, cm);
                }
        memcpy(&t->moments[job->level][TREE_MOMENTS * (size_t)c], m, sizeof m);
    }
}

bool eddy_tree_build_moments(influence_tree *t, task_system *ts, const particle_array *v,
                             const partition *part) {
    for (int l = 0; l < t->levels; ++l) {
        const int cells = grid_cell_count(&t->layer[l]);
        if (cells <= t->moment_capacity[l]) continue;
        float *p = realloc(t->moments[l], (size_t)cells * TREE_MOMENTS * sizeof *p);
        if (!p) return false;
        t->moments[l] = p;
        t->moment_capacity[l] = cells;
    }
    moment_job job = {t, v, part, 0};
    eddy_parallel_for(ts, grid_cell_count(&t->layer[0]), MOMENT_CHUNK, base_moment_chunk, &job);
    for (int l = 1; l < t->levels; ++l) {
        job.level = l;
        eddy_parallel_for(ts, grid_cell_count(&t->layer[l]), MOMENT_CHUNK, upper_moment_chunk,
                          &job);
    }
    return true;
}

/* ---------------------------------------------------------------- multipole traversal */

/* Four lanes of floats. Every operation is one IEEE single-precision
 * operation per lane (no FMA: the build forbids contraction), so the SSE2,
 * NEON and plain C versions give the same bits, and the 8 lanes of a block
 * give the bits the scalar kernel would give point by point in this order. */
#if defined(__SSE2__) && !defined(EDDY_TREE_PLAIN_LANES)
#include <emmintrin.h>
typedef __m128 f4;
typedef __m128 m4;
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f4_store(float *p, f4 a) { _mm_storeu_ps(p, a); }
static inline f4 f4_splat(float s) { return _mm_set1_ps(s); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return _mm_div_ps(a, b); }
static inline f4 f4_sqrt(f4 a) { return _mm_sqrt_ps(a); }
static inline m4 f4_lt(f4 a, f4 b) { return _mm_cmplt_ps(a, b); }
static inline m4 f4_gt(f4 a, f4 b) { return _mm_cmpgt_ps(a, b); }
static inline m4 m4_andnot(m4 not_a, m4 b) { return _mm_andnot_ps(not_a, b); }
static inline f4 f4_select(m4 m, f4 a, f4 b) {
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(EDDY_TREE_PLAIN_LANES)
#include <arm_neon.h>
typedef float32x4_t f4;
typedef uint32x4_t m4;
static inline f4 f4_load(const float *p) { return vld1q_f32(p); }
static inline void f4_store(float *p, f4 a) { vst1q_f32(p, a); }
static inline f4 f4_splat(float s) { return vdupq_n_f32(s); }
static inline f4 f4_add(f4 a, f4 b) { return vaddq_f32(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return vsubq_f32(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return vmulq_f32(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return vdivq_f32(a, b); }
static inline f4 f4_sqrt(f4 a) { return vsqrtq_f32(a); }
static inline m4 f4_lt(f4 a, f4 b) { return vcltq_f32(a, b); }
static inline m4 f4_gt(f4 a, f4 b) { return vcgtq_f32(a, b); }
static inline m4 m4_andnot(m4 not_a, m4 b) { return vbicq_u32(b, not_a); }
static inline f4 f4_select(m4 m, f4 a, f4 b) { return vbslq_f32(m, a, b); }
#else
typedef struct f4 { float v[4]; } f4;
typedef struct m4 { bool v[4]; } m4;
#define F4_MAP(expr)                                                                         \
    f4 r;                                                                                    \
    for (int k = 0; k < 4; ++k) r.v[k] = (expr);                                             \
    return r
static inline f4 f4_load(const float *p) { F4_MAP(p[k]); }
static inline void f4_store(float *p, f4 a) { memcpy(p, a.v, sizeof a.v); }
static inline f4 f4_splat(float s) { F4_MAP(s); }
static inline f4 f4_add(f4 a, f4 b) { F4_MAP(a.v[k] + b.v[k]); }
static inline f4 f4_sub(f4 a, f4 b) { F4_MAP(a.v[k] - b.v[k]); }
static inline f4 f4_mul(f4 a, f4 b) { F4_MAP(a.v[k] * b.v[k]); }
static inline f4 f4_div(f4 a, f4 b) { F4_MAP(a.v[k] / b.v[k]); }
static inline f4 f4_sqrt(f4 a) { F4_MAP(sqrtf(a.v[k])); }
static inline f4 f4_select(m4 m, f4 a, f4 b) { F4_MAP(m.v[k] ? a.v[k] : b.v[k]); }
#undef F4_MAP
static inline m4 f4_lt(f4 a, f4 b) {
    m4 r;
    for (int k = 0; k < 4; ++k) r.v[k] = a.v[k] < b.v[k];
    return r;
}
static inline m4 f4_gt(f4 a, f4 b) { return f4_lt(b, a); }
static inline m4 m4_andnot(m4 not_a, m4 b) {
    m4 r;
    for (int k = 0; k < 4; ++k) r.v[k] = !not_a.v[k] && b.v[k];
    return r;
}
#endif

enum { BLOCK_GROUPS = TREE_BLOCK_POINTS / 4 };

typedef struct block_eval {
    const influence_tree *t;
    const particle_array *v;
    const partition *part;
    float theta;
    f4 qx[BLOCK_GROUPS], qy[BLOCK_GROUPS], qz[BLOCK_GROUPS];
    f4 ux[BLOCK_GROUPS], uy[BLOCK_GROUPS], uz[BLOCK_GROUPS];
    f4 a2, a3, c3; /* c3 = c / 3 */
    f4 zero, one, half, three, minus_six, fifteen;
    const tree_block *b;
} block_eval;

static inline f4 cross_component(f4 a1, f4 b2, f4 a2, f4 b1) {
    return f4_sub(f4_mul(a1, b2), f4_mul(a2, b1));
}

/* One vorton at p with vorticity w, at every lane: kernel.c's kernel
 * written with selects instead of branches (d == 0 adds a zero). */
static void lanes_point(block_eval *e, float px, float py, float pz, float wx, float wy,
                        float wz) {
    const f4 Px = f4_splat(px), Py = f4_splat(py), Pz = f4_splat(pz);
    const f4 Wx = f4_splat(wx), Wy = f4_splat(wy), Wz = f4_splat(wz);
    for (int g = 0; g < BLOCK_GROUPS; ++g) {
        const f4 dx = f4_sub(e->qx[g], Px), dy = f4_sub(e->qy[g], Py), dz = f4_sub(e->qz[g], Pz);
        const f4 d2 = f4_add(f4_add(f4_mul(dx, dx), f4_mul(dy, dy)), f4_mul(dz, dz));
        const f4 den = f4_mul(d2, f4_sqrt(d2));
        const f4 far = f4_select(f4_gt(den, e->zero), f4_mul(e->c3, f4_div(e->a3, den)), e->zero);
        const f4 s = f4_select(f4_lt(d2, e->a2), e->c3, far);
        e->ux[g] = f4_add(e->ux[g], f4_mul(s, cross_component(Wy, dz, Wz, dy)));
        e->uy[g] = f4_add(e->uy[g], f4_mul(s, cross_component(Wz, dx, Wx, dz)));
        e->uz[g] = f4_add(e->uz[g], f4_mul(s, cross_component(Wx, dy, Wy, dx)));
    }
}

/* A cell as a multipole about its centroid c. With d = q - c, the summed
 * vorticity W, first moments M_bk = sum r_b w_k, A = sum w x r, second
 * moments Q_k (Q_k,bc = sum r_b r_c w_k), P_k = Q_k d, s_k = d.P_k and
 * tau_k = 15 s_k / |d|^2 - 3 tr Q_k, the kernel expanded to second order in
 * the vortons' offsets r from c is, outside the core (k = c a^3 / 3),
 *   u = k/|d|^3 [W x d - A + 3 (M^T d) x d / |d|^2
 *                + (-6 e_amn P_m,n + (tau x d)_a) / (2 |d|^2)],
 * and inside it (linear kernel, exact to first order) u = c/3 [W x d - A]. */
static void lanes_cell(block_eval *e, const supervorton *s, const float *m) {
    const f4 Cx = f4_splat(s->px), Cy = f4_splat(s->py), Cz = f4_splat(s->pz);
    const f4 Wx = f4_splat(s->wx), Wy = f4_splat(s->wy), Wz = f4_splat(s->wz);
    const f4 Ax = f4_splat(m[3 * 2 + 1] - m[3 * 1 + 2]);
    const f4 Ay = f4_splat(m[3 * 0 + 2] - m[3 * 2 + 0]);
    const f4 Az = f4_splat(m[3 * 1 + 0] - m[3 * 0 + 1]);
    f4 M[9], Q[18], T3[3];
    for (int k = 0; k < 9; ++k) M[k] = f4_splat(m[k]);
    for (int k = 0; k < 18; ++k) Q[k] = f4_splat(m[9 + k]);
    for (int k = 0; k < 3; ++k) {
        const float *q = &m[9 + 6 * k];
        T3[k] = f4_splat(3.0f * ((q[0] + q[3]) + q[5]));
    }
    for (int g = 0; g < BLOCK_GROUPS; ++g) {
        const f4 dx = f4_sub(e->qx[g], Cx), dy = f4_sub(e->qy[g], Cy), dz = f4_sub(e->qz[g], Cz);
        const f4 d2 = f4_add(f4_add(f4_mul(dx, dx), f4_mul(dy, dy)), f4_mul(dz, dz));
        const f4 r = f4_sqrt(d2);
        const f4 den = f4_mul(d2, r);
        const m4 outside = m4_andnot(f4_lt(d2, e->a2), f4_gt(den, e->zero));
        const f4 inv = f4_div(e->one, den);
        const f4 id2 = f4_select(outside, f4_mul(r, inv), e->zero); /* 1/|d|^2 outside */
        const f4 sc = f4_select(outside, f4_mul(e->c3, f4_mul(e->a3, inv)), e->c3);
        const f4 t = f4_mul(e->three, id2);
        const f4 Bx = f4_add(f4_add(f4_mul(dx, M[0]), f4_mul(dy, M[3])), f4_mul(dz, M[6]));
        const f4 By = f4_add(f4_add(f4_mul(dx, M[1]), f4_mul(dy, M[4])), f4_mul(dz, M[7]));
        const f4 Bz = f4_add(f4_add(f4_mul(dx, M[2]), f4_mul(dy, M[5])), f4_mul(dz, M[8]));
        f4 P[3][3], tau[3];
        for (int k = 0; k < 3; ++k) {
            const f4 *q = &Q[6 * k];
            P[k][0] = f4_add(f4_add(f4_mul(q[0], dx), f4_mul(q[1], dy)), f4_mul(q[2], dz));
            P[k][1] = f4_add(f4_add(f4_mul(q[1], dx), f4_mul(q[3], dy)), f4_mul(q[4], dz));
            P[k][2] = f4_add(f4_add(f4_mul(q[2], dx), f4_mul(q[4], dy)), f4_mul(q[5], dz));
            const f4 sk =
                f4_add(f4_add(f4_mul(dx, P[k][0]), f4_mul(dy, P[k][1])), f4_mul(dz, P[k][2]));
            tau[k] = f4_sub(f4_mul(e->fifteen, f4_mul(sk, id2)), T3[k]);
        }
        const f4 h = f4_mul(e->half, id2);
        const f4 qx = f4_add(f4_mul(e->minus_six, f4_sub(P[1][2], P[2][1])),
                             cross_component(tau[1], dz, tau[2], dy));
        const f4 qy = f4_add(f4_mul(e->minus_six, f4_sub(P[2][0], P[0][2])),
                             cross_component(tau[2], dx, tau[0], dz));
        const f4 qz = f4_add(f4_mul(e->minus_six, f4_sub(P[0][1], P[1][0])),
                             cross_component(tau[0], dy, tau[1], dx));
        const f4 vx = f4_add(f4_add(f4_sub(cross_component(Wy, dz, Wz, dy), Ax),
                                    f4_mul(t, cross_component(By, dz, Bz, dy))),
                             f4_mul(h, qx));
        const f4 vy = f4_add(f4_add(f4_sub(cross_component(Wz, dx, Wx, dz), Ay),
                                    f4_mul(t, cross_component(Bz, dx, Bx, dz))),
                             f4_mul(h, qy));
        const f4 vz = f4_add(f4_add(f4_sub(cross_component(Wx, dy, Wy, dx), Az),
                                    f4_mul(t, cross_component(Bx, dy, By, dx))),
                             f4_mul(h, qz));
        e->ux[g] = f4_add(e->ux[g], f4_mul(sc, vx));
        e->uy[g] = f4_add(e->uy[g], f4_mul(sc, vy));
        e->uz[g] = f4_add(e->uz[g], f4_mul(sc, vz));
    }
}

/* Squared distance from p to the block's box. */
static inline float box_distance2(const tree_block *b, float px, float py, float pz) {
    const float p[3] = {px, py, pz};
    float d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        float d = p[a] < b->lo[a] ? b->lo[a] - p[a] : p[a] > b->hi[a] ? p[a] - b->hi[a] : 0.0f;
        d2 += d * d;
    }
    return d2;
}

static inline float level_size(const grid_shape *g) {
    return fmax_det(g->spacing[0], fmax_det(g->spacing[1], g->spacing[2]));
}

static void block_cell(block_eval *e, int level, const int idx[3]);

/* The children of cell idx at `level`, z outer, y, x inner. */
static void block_children(block_eval *e, int level, const int idx[3]) {
    const grid_shape *g = &e->t->layer[level - 1], *pg = &e->t->layer[level];
    const int dec[3] = {g->cells[0] / pg->cells[0], g->cells[1] / pg->cells[1],
                        g->cells[2] / pg->cells[2]};
    for (int dz = 0; dz < dec[2]; ++dz)
        for (int dy = 0; dy < dec[1]; ++dy)
            for (int dx = 0; dx < dec[0]; ++dx) {
                const int child[3] = {idx[0] * dec[0] + dx, idx[1] * dec[1] + dy,
                                      idx[2] * dec[2] + dz};
                block_cell(e, level - 1, child);
            }
}

static void block_cell(block_eval *e, int level, const int idx[3]) {
    const grid_shape *g = &e->t->layer[level];
    const int c = idx[0] + g->cells[0] * (idx[1] + g->cells[1] * idx[2]);
    const supervorton *s = &e->t->cells[level][c];
    if (!(s->weight > 0.0f)) return;
    const float size = level_size(g), reach = size / e->theta;
    if (box_distance2(e->b, s->px, s->py, s->pz) >= reach * reach) {
        lanes_cell(e, s, &e->t->moments[level][TREE_MOMENTS * (size_t)c]);
        return;
    }
    if (level > 0) {
        block_children(e, level, idx);
        return;
    }
    const particle_array *v = e->v;
    for (int n = e->part->cell_start[c]; n < e->part->cell_start[c + 1]; ++n) {
        const int i = e->part->sorted_index[n];
        lanes_point(e, v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i], v->wz[i]);
    }
}

void eddy_tree_velocity_block(const influence_tree *t, const particle_array *v,
                              const partition *part, const tree_block *b, float theta, float a,
                              float c, vec3 out[TREE_BLOCK_POINTS]) {
    block_eval e;
    e.t = t;
    e.v = v;
    e.part = part;
    e.b = b;
    e.theta = theta;
    e.a2 = f4_splat(a * a);
    e.a3 = f4_splat(a * a * a);
    e.c3 = f4_splat(c * (1.0f / 3.0f));
    e.zero = f4_splat(0.0f);
    e.one = f4_splat(1.0f);
    e.half = f4_splat(0.5f);
    e.three = f4_splat(3.0f);
    e.minus_six = f4_splat(-6.0f);
    e.fifteen = f4_splat(15.0f);
    for (int g = 0; g < BLOCK_GROUPS; ++g) {
        e.qx[g] = f4_load(&b->qx[4 * g]);
        e.qy[g] = f4_load(&b->qy[4 * g]);
        e.qz[g] = f4_load(&b->qz[4 * g]);
        e.ux[g] = e.uy[g] = e.uz[g] = e.zero;
    }
    const int root[3] = {0, 0, 0};
    block_cell(&e, t->levels - 1, root);
    for (int g = 0; g < BLOCK_GROUPS; ++g) {
        float ux[4], uy[4], uz[4];
        f4_store(ux, e.ux[g]);
        f4_store(uy, e.uy[g]);
        f4_store(uz, e.uz[g]);
        for (int k = 0; k < 4; ++k) out[4 * g + k] = (vec3){ux[k], uy[k], uz[k]};
    }
}
