/* The influence tree: nested grids of supervortons, and treecode evaluation.
 *
 * Level 0 is the grid template (about one vorton per cell); each level above
 * halves the cell count per axis until one cell remains. A supervorton holds
 * the summed vorticity of its cell and its |w|-weighted centroid.
 *
 * Determinism: the base level is a gather over the partition (each cell sums
 * its own vortons in ascending index order); each upper cell sums its 2x2x2
 * children in z, y, x order. Every cell is written by exactly one chunk, so
 * the result does not depend on the worker count.
 *
 * Evaluation at q (the original's treecode): descend from the root; at each
 * level the child cells that contain q (with a margin of 1e-4 cell) are
 * opened, the others contribute their supervorton; at the lowest level the
 * children contribute as supervortons. */
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

/* m[3 b + k] += (p - c)_b w_k */
static inline void moment_add(float m[9], float rx, float ry, float rz, float wx, float wy,
                              float wz) {
    const float r[3] = {rx, ry, rz};
    for (int b = 0; b < 3; ++b) {
        m[3 * b + 0] += r[b] * wx;
        m[3 * b + 1] += r[b] * wy;
        m[3 * b + 2] += r[b] * wz;
    }
}

static void base_moment_chunk(int chunk, int begin, int end, void *context) {
    const moment_job *job = context;
    const particle_array *v = job->v;
    for (int c = begin; c < end; ++c) {
        const supervorton *s = &job->t->cells[0][c];
        float m[9] = {0};
        if (s->weight > 0.0f)
            for (int n = job->part->cell_start[c]; n < job->part->cell_start[c + 1]; ++n) {
                int i = job->part->sorted_index[n];
                moment_add(m, v->px[i] - s->px, v->py[i] - s->py, v->pz[i] - s->pz, v->wx[i],
                           v->wy[i], v->wz[i]);
            }
        memcpy(&job->t->moments[0][9 * (size_t)c], m, sizeof m);
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
        float m[9] = {0};
        for (int dz = 0; dz < dec[2] && s->weight > 0.0f; ++dz)
            for (int dy = 0; dy < dec[1]; ++dy)
                for (int dx = 0; dx < dec[0]; ++dx) {
                    int ci = pi * dec[0] + dx, cj = pj * dec[1] + dy, ck = pk * dec[2] + dz;
                    int child = ci + cg->cells[0] * (cj + cg->cells[1] * ck);
                    const supervorton *ch = &t->cells[job->level - 1][child];
                    if (!(ch->weight > 0.0f)) continue;
                    const float *cm = &t->moments[job->level - 1][9 * (size_t)child];
                    for (int k = 0; k < 9; ++k) m[k] += cm[k];
                    moment_add(m, ch->px - s->px, ch->py - s->py, ch->pz - s->pz, ch->wx, ch->wy,
                               ch->wz);
                }
        memcpy(&t->moments[job->level][9 * (size_t)c], m, sizeof m);
    }
}

bool eddy_tree_build_moments(influence_tree *t, task_system *ts, const particle_array *v,
                             const partition *part) {
    for (int l = 0; l < t->levels; ++l) {
        const int cells = grid_cell_count(&t->layer[l]);
        if (cells <= t->moment_capacity[l]) continue;
        float *p = realloc(t->moments[l], (size_t)cells * 9 * sizeof *p);
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

typedef struct block_eval {
    const influence_tree *t;
    const particle_array *v;
    const partition *part;
    const tree_block *b;
    float theta, a2, a3, c3; /* c3 = c / 3 */
    float ux[TREE_BLOCK_POINTS], uy[TREE_BLOCK_POINTS], uz[TREE_BLOCK_POINTS];
} block_eval;

/* One vorton (or a cell's sum) at p with vorticity w, at every lane: the
 * kernel of kernel.c written without branches, so that lanes may be computed
 * side by side; the same operations in the same order for every lane. */
static void lanes_point(block_eval *e, float px, float py, float pz, float wx, float wy,
                        float wz) {
    const tree_block *b = e->b;
    for (int k = 0; k < TREE_BLOCK_POINTS; ++k) {
        const float dx = b->qx[k] - px, dy = b->qy[k] - py, dz = b->qz[k] - pz;
        const float d2 = dx * dx + dy * dy + dz * dz;
        const float den = d2 * sqrtf(d2);
        const float far = den > 0.0f ? e->c3 * (e->a3 / den) : 0.0f;
        const float s = d2 < e->a2 ? e->c3 : far;
        e->ux[k] += s * (wy * dz - wz * dy);
        e->uy[k] += s * (wz * dx - wx * dz);
        e->uz[k] += s * (wx * dy - wy * dx);
    }
}

/* A cell as a multipole about its centroid c: with d = q - c, the summed
 * vorticity W, the first moments M (m[3 b + k]) and A = sum w x r,
 *   u = k/|d|^3 [W x d - A + 3 (M^T d) x d / |d|^2]   outside the core,
 *   u = c/3 [W x d - A]                              inside it,
 * the kernel expanded to first order in the vortons' offsets r from c. */
static void lanes_cell(block_eval *e, const supervorton *s, const float *m) {
    const tree_block *b = e->b;
    const float Ax = m[3 * 2 + 1] - m[3 * 1 + 2];
    const float Ay = m[3 * 0 + 2] - m[3 * 2 + 0];
    const float Az = m[3 * 1 + 0] - m[3 * 0 + 1];
    for (int k = 0; k < TREE_BLOCK_POINTS; ++k) {
        const float dx = b->qx[k] - s->px, dy = b->qy[k] - s->py, dz = b->qz[k] - s->pz;
        const float d2 = dx * dx + dy * dy + dz * dz;
        const float den = d2 * sqrtf(d2);
        const bool outside = !(d2 < e->a2) && den > 0.0f;
        const float inv = outside ? 1.0f / den : 0.0f;
        const float sc = outside ? e->c3 * (e->a3 * inv) : e->c3;
        const float t = outside ? 3.0f / d2 : 0.0f;
        const float Bx = dx * m[0] + dy * m[3] + dz * m[6];
        const float By = dx * m[1] + dy * m[4] + dz * m[7];
        const float Bz = dx * m[2] + dy * m[5] + dz * m[8];
        const float vx = (s->wy * dz - s->wz * dy) - Ax + t * (By * dz - Bz * dy);
        const float vy = (s->wz * dx - s->wx * dz) - Ay + t * (Bz * dx - Bx * dz);
        const float vz = (s->wx * dy - s->wy * dx) - Az + t * (Bx * dy - By * dx);
        e->ux[k] += sc * vx;
        e->uy[k] += sc * vy;
        e->uz[k] += sc * vz;
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
        lanes_cell(e, s, &e->t->moments[level][9 * (size_t)c]);
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
    block_eval e = {t, v, part, b, theta, a * a, a * a * a, c * (1.0f / 3.0f), {0}, {0}, {0}};
    const int root[3] = {0, 0, 0};
    block_cell(&e, t->levels - 1, root);
    for (int k = 0; k < TREE_BLOCK_POINTS; ++k) out[k] = (vec3){e.ux[k], e.uy[k], e.uz[k]};
}
