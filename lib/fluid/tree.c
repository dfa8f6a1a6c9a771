/* SPDX-License-Identifier: MIT */
/* The influence tree: nested grids of supervortons, and treecode evaluation.
 *
 * Level 0 is the grid template (about one vorton per cell); each level above
 * halves the cell count per axis until one cell remains. A supervorton holds
 * the summed vorticity of its cell, its weight and the weighted centroid.
 * Weights: at the base a cell's is the sum of its vortons' |w| and its
 * centroid their |w|-weighted mean. Above, the multipole traversal's tree
 * gives each cell the sum of its children's weights, so its centroid is its
 * vortons' |w|-weighted mean at every level. The original traversal's tree
 * keeps the seed's: a child counts by |its summed w|. That is 0, or
 * rounding, for a child holding a whole vortex ring, whose vorticity
 * cancels: its parent then had no weight (the multipole walk, which skips a
 * cell without weight as empty, stopped the ring) or a centroid anywhere (so
 * a wrong opening test). Seen with two rings 50 m apart (docs/physics.md
 * section 10.1): harmless to the original's walk, which opens the cells
 * around a point whatever their weight and takes only the summed w of the
 * others. For the
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
 * at the lowest level the children contribute as supervortons. The step runs
 * this walk for a block of grid points at once, one point per lane, with each
 * point's bits unchanged (lib/fluid/tree_descend_walk.h).
 *
 * Evaluation of a block of grid points, the multipole traversal (the default):
 * one walk per block from the root; a cell of edge s whose centroid lies at
 * distance D from the block's box is used as a multipole (the kernel
 * expanded to second order about the centroid) when s < theta D, otherwise
 * opened; a base cell that is opened is summed vorton by vorton. Each point
 * sums the walk's terms in the walk's order, 4 lanes at a time (SSE2, NEON or
 * plain C: the same IEEE operations per lane, so the same bits). Accuracy and
 * cost: docs/accuracy.md. */
#include "fluid/fluid.h"

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
    /* the multipole traversal's tree: a child counts by its weight (the sum
     * of its vortons' |w|); the original's, by |its summed w| (the seed's) */
    bool weight_by_sum;
} upper_job;

static void upper_chunk(int chunk, int begin, int end, void *context) {
    const upper_job *job = context;
    const grid_shape *cg = job->child_grid, *pg = job->parent_grid;
    const int dec[3] = {grid_child_stride(cg, pg, 0), grid_child_stride(cg, pg, 1),
                        grid_child_stride(cg, pg, 2)};
    for (int c = begin; c < end; ++c) {
        int pi = c % pg->cells[0], pj = (c / pg->cells[0]) % pg->cells[1];
        int pk = c / (pg->cells[0] * pg->cells[1]);
        const int n[3] = {grid_child_count(cg, pg, 0, pi), grid_child_count(cg, pg, 1, pj),
                          grid_child_count(cg, pg, 2, pk)};
        supervorton s = {0};
        float wsum = 0.0f;
        for (int dz = 0; dz < n[2]; ++dz)
            for (int dy = 0; dy < n[1]; ++dy)
                for (int dx = 0; dx < n[0]; ++dx) {
                    int ci = pi * dec[0] + dx, cj = pj * dec[1] + dy, ck = pk * dec[2] + dz;
                    const supervorton *ch =
                        &job->child[ci + cg->cells[0] * (cj + cg->cells[1] * ck)];
                    if (!(ch->weight > 0.0f)) continue;
                    const float mag =
                        job->weight_by_sum
                            ? ch->weight
                            : sqrtf(ch->wx * ch->wx + ch->wy * ch->wy + ch->wz * ch->wz);
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

/* Room at `level` for any grid of the vorton count: a level has at most
 * half the cells of the one below (an axis is halved), so at most
 * bound >> level (core/core.h, eddy_grid_cell_bound). */
static int level_room(int cells, int bound, int level) {
    const int room = level < 30 ? bound >> level : 0;
    return cells > room ? cells : room;
}

/* When a level of this build has too little room, every level (those a grid
 * of this vorton count could add too) grows to its room at once, so a later
 * grid of another shape, or with one level more, finds it already there:
 * room[l] is then the capacity wanted, else 0 everywhere. */
static void levels_room(const int *capacity, const influence_tree *t, int bound,
                        int room[TREE_MAX_LEVELS]) {
    bool short_of_room = false;
    for (int l = 0; l < t->levels; ++l)
        if (grid_cell_count(&t->layer[l]) > capacity[l]) short_of_room = true;
    for (int l = 0; l < TREE_MAX_LEVELS; ++l) {
        const int r = level_room(l < t->levels ? grid_cell_count(&t->layer[l]) : 0, bound, l);
        room[l] = short_of_room && r > capacity[l] ? r : 0;
    }
}

/* Grows the level arrays of one kind (T, `per_cell` values a cell). */
#define LEVELS_RESERVE(T, arrays, capacity, per_cell, t, bound)                         \
    do {                                                                                \
        int room_[TREE_MAX_LEVELS];                                                     \
        levels_room((capacity), (t), (bound), room_);                                   \
        for (int l_ = 0; l_ < TREE_MAX_LEVELS; ++l_) {                                  \
            if (room_[l_] == 0) continue;                                               \
            T *p_ = eddy_realloc((arrays)[l_], (size_t)room_[l_] * (per_cell) * sizeof *p_); \
            if (!p_) return false;                                                      \
            (arrays)[l_] = p_;                                                          \
            (capacity)[l_] = room_[l_];                                                 \
        }                                                                               \
    } while (0)

bool eddy_tree_build(influence_tree *t, task_system *ts, const grid_shape *template_grid,
                     const particle_array *v, const partition *part, bool cubic_levels) {
    t->layer[0] = *template_grid;
    t->levels = 1;
    while (t->levels < TREE_MAX_LEVELS && grid_cell_count(&t->layer[t->levels - 1]) > 1) {
        if (cubic_levels)
            eddy_grid_coarsen_cubic(&t->layer[t->levels], &t->layer[t->levels - 1]);
        else
            eddy_grid_decimate(&t->layer[t->levels], &t->layer[t->levels - 1]);
        ++t->levels;
    }
    LEVELS_RESERVE(supervorton, t->cells, t->capacity, 1, t, eddy_grid_cell_bound(v->count));
    base_job bj = {v, part, t->cells[0]};
    eddy_parallel_for(ts, grid_cell_count(&t->layer[0]), TREE_BASE_CHUNK, base_chunk, &bj);
    for (int l = 1; l < t->levels; ++l) {
        upper_job uj = {&t->layer[l - 1], &t->layer[l], t->cells[l - 1], t->cells[l], cubic_levels};
        eddy_parallel_for(ts, grid_cell_count(&t->layer[l]), TREE_UPPER_CHUNK, upper_chunk, &uj);
    }
    return true;
}

/* Grows one kind of level array to `bound >> l` cells at level l
 * (`per_cell` values a cell); false: out of memory, the levels grown so far
 * keep their room. */
#define LEVELS_GROW(arrays, capacity, per_cell, bound)                                    \
    do {                                                                                  \
        for (int l_ = 0; l_ < TREE_MAX_LEVELS; ++l_) {                                    \
            const int room_ = (bound) >> l_;                                              \
            if (room_ <= (capacity)[l_]) continue;                                        \
            void *p_ = eddy_realloc((arrays)[l_],                                         \
                                    (size_t)room_ * (per_cell) * sizeof *(arrays)[l_]);   \
            if (!p_) return false;                                                        \
            (arrays)[l_] = p_;                                                            \
            (capacity)[l_] = room_;                                                       \
        }                                                                                 \
    } while (0)

/* Room for any tree over a grid of this vorton count (the build's own
 * growth then finds it there): level l holds at most bound >> l cells. */
bool eddy_tree_reserve(influence_tree *t, int vortons, bool moments) {
    const int bound = eddy_grid_cell_bound(vortons);
    LEVELS_GROW(t->cells, t->capacity, 1, bound);
    if (!moments) return true;
    LEVELS_GROW(t->moments, t->moment_capacity, TREE_MOMENTS, bound);
    LEVELS_GROW(t->expansion, t->expansion_capacity, TREE_EXPANSION, bound);
    return true;
}

void eddy_tree_free(influence_tree *t) {
    for (int l = 0; l < TREE_MAX_LEVELS; ++l) {
        eddy_free(t->cells[l]);
        eddy_free(t->moments[l]);
        eddy_free(t->expansion[l]);
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
    const int dec[3] = {grid_child_stride(g, pg, 0), grid_child_stride(g, pg, 1),
                        grid_child_stride(g, pg, 2)};
    const int n[3] = {grid_child_count(g, pg, 0, p[0]), grid_child_count(g, pg, 1, p[1]),
                      grid_child_count(g, pg, 2, p[2])};
    const supervorton *cells = t->cells[level];
    for (int dz = 0; dz < n[2]; ++dz) {
        int ck = p[2] * dec[2] + dz;
        bool in_z = near_cell(g, 2, ck, qz);
        for (int dy = 0; dy < n[1]; ++dy) {
            int cj = p[1] * dec[1] + dy;
            bool in_yz = in_z && near_cell(g, 1, cj, qy);
            for (int dx = 0; dx < n[0]; ++dx) {
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

/* The expansion coefficients of a cell (centroid and sum s, moments m) in
 * the layout lanes_cell reads (lib/fluid/tree_walk.h):
 *   [0..2] centroid C, [3..5] summed vorticity W, [6..8] A = sum w x r,
 *   [9..17] 3 M_bk at 3 b + k, [18..20] 1.5 tr Q_k,
 *   [21..29] 3 R_ab at 3 a + b with R_ab = e_amn Q_m,nb,
 *   [30..47] for each k the quadratic form 7.5 d.Q_k d as coefficients of
 *   dx^2, dx dy, dx dz, dy^2, dy dz, dz^2 (off-diagonal pairs doubled). */
static void expansion_pack(const supervorton *s, const float *m, float *x) {
    const float *Q = &m[9];
    /* pair index of (b, c) in a Q_k block: xx xy xz yy yz zz */
    static const int pair[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
    static const float form_scale[6] = {7.5f, 15.0f, 15.0f, 7.5f, 15.0f, 7.5f};
    x[0] = s->px;
    x[1] = s->py;
    x[2] = s->pz;
    x[3] = s->wx;
    x[4] = s->wy;
    x[5] = s->wz;
    x[6] = m[3 * 2 + 1] - m[3 * 1 + 2];
    x[7] = m[3 * 0 + 2] - m[3 * 2 + 0];
    x[8] = m[3 * 1 + 0] - m[3 * 0 + 1];
    for (int k = 0; k < 9; ++k) x[9 + k] = 3.0f * m[k];
    for (int k = 0; k < 3; ++k) x[18 + k] = 1.5f * ((Q[6 * k] + Q[6 * k + 3]) + Q[6 * k + 5]);
    for (int a = 0; a < 3; ++a) {
        const int mm = (a + 1) % 3, n = (a + 2) % 3; /* e_a,mm,n = +1, e_a,n,mm = -1 */
        for (int b = 0; b < 3; ++b)
            x[21 + 3 * a + b] = 3.0f * (Q[6 * mm + pair[n][b]] - Q[6 * n + pair[mm][b]]);
    }
    for (int k = 0; k < 3; ++k)
        for (int p = 0; p < 6; ++p) x[30 + 6 * k + p] = form_scale[p] * Q[6 * k + p];
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
        if (job->part->cell_start[c + 1] - job->part->cell_start[c] > TREE_DIRECT_VORTONS)
            expansion_pack(s, m, &job->t->expansion[0][TREE_EXPANSION * (size_t)c]);
    }
}

/* Parent moment = sum over children (z, y, x order) of the child's moment
 * plus its summed vorticity shifted from the child's centroid to the
 * parent's. */
static void upper_moment_chunk(int chunk, int begin, int end, void *context) {
    const moment_job *job = context;
    const influence_tree *t = job->t;
    const grid_shape *cg = &t->layer[job->level - 1], *pg = &t->layer[job->level];
    const int dec[3] = {grid_child_stride(cg, pg, 0), grid_child_stride(cg, pg, 1),
                        grid_child_stride(cg, pg, 2)};
    for (int c = begin; c < end; ++c) {
        int pi = c % pg->cells[0], pj = (c / pg->cells[0]) % pg->cells[1];
        int pk = c / (pg->cells[0] * pg->cells[1]);
        const int n[3] = {grid_child_count(cg, pg, 0, pi), grid_child_count(cg, pg, 1, pj),
                          grid_child_count(cg, pg, 2, pk)};
        const supervorton *s = &t->cells[job->level][c];
        float m[TREE_MOMENTS] = {0};
        for (int dz = 0; dz < n[2] && s->weight > 0.0f; ++dz)
            for (int dy = 0; dy < n[1]; ++dy)
                for (int dx = 0; dx < n[0]; ++dx) {
                    int ci = pi * dec[0] + dx, cj = pj * dec[1] + dy, ck = pk * dec[2] + dz;
                    int child = ci + cg->cells[0] * (cj + cg->cells[1] * ck);
                    const supervorton *ch = &t->cells[job->level - 1][child];
                    if (!(ch->weight > 0.0f)) continue;
                    const float *cm = &t->moments[job->level - 1][TREE_MOMENTS * (size_t)child];
                    moment_add(m, ch->px - s->px, ch->py - s->py, ch->pz - s->pz, ch->wx, ch->wy,
                               ch->wz, cm);
                }
        memcpy(&t->moments[job->level][TREE_MOMENTS * (size_t)c], m, sizeof m);
        expansion_pack(s, m, &t->expansion[job->level][TREE_EXPANSION * (size_t)c]);
    }
}

bool eddy_tree_build_moments(influence_tree *t, task_system *ts, const particle_array *v,
                             const partition *part) {
    const int bound = eddy_grid_cell_bound(v->count);
    LEVELS_RESERVE(float, t->moments, t->moment_capacity, TREE_MOMENTS, t, bound);
    LEVELS_RESERVE(float, t->expansion, t->expansion_capacity, TREE_EXPANSION, t, bound);
    moment_job job = {t, v, part, 0};
    eddy_parallel_for(ts, grid_cell_count(&t->layer[0]), MOMENT_CHUNK, base_moment_chunk, &job);
    for (int l = 1; l < t->levels; ++l) {
        job.level = l;
        eddy_parallel_for(ts, grid_cell_count(&t->layer[l]), MOMENT_CHUNK, upper_moment_chunk,
                          &job);
    }
    return true;
}
