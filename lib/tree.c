/* SPDX-License-Identifier: MIT */
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
    for (int l = 0; l < TREE_MAX_LEVELS; ++l) free(t->cells[l]);
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
