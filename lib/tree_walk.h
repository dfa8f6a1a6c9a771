/* SPDX-License-Identifier: MIT */
/* The multipole traversal of one block of grid points, written once against
 * a lane type (lib/tree_lanes4.h or lib/tree_lanes8_avx.h) and compiled once
 * per lane width: include a lanes header, define TREE_WALK_ENTRY (the
 * function's name), then include this file.
 *
 * One walk per block from the root: a cell of edge s whose centroid lies at
 * distance D from the block's box is used as a multipole (the kernel
 * expanded to second order about the centroid) when s < theta D, else
 * opened. A base cell that is opened, or accepted but holding at most
 * TREE_DIRECT_VORTONS vortons, is summed vorton by vorton: for so few vortons
 * the exact sum costs less than the expansion.
 *
 * Determinism: the walk depends only on the tree and the block's box; each
 * of the block's TREE_BLOCK_POINTS points is one lane and adds the walk's
 * terms in the walk's order. A lane never reads another lane, so the lane
 * width (4 or 8) and the instruction set change nothing in the bits. */
#ifndef TREE_WALK_ENTRY
#error "define TREE_WALK_ENTRY and include a lanes header before lib/tree_walk.h"
#endif

enum {
    BLOCK_GROUPS = TREE_BLOCK_POINTS / VF_LANES, /* lane groups per block */
    TILE_GROUPS = TREE_TILE_BLOCKS * BLOCK_GROUPS,
    TREE_DIRECT_VORTONS = 4
};

typedef struct tile_eval {
    const influence_tree *t;
    const particle_array *v;
    const partition *part;
    const tree_tile *tile;
    float reach2[TREE_MAX_LEVELS]; /* (s / theta)^2 of each level */
    vf qx[TILE_GROUPS], qy[TILE_GROUPS], qz[TILE_GROUPS];
    vf ux[TILE_GROUPS], uy[TILE_GROUPS], uz[TILE_GROUPS];
    vf a2, a3, c3; /* c3 = c / 3 */
    vf zero, one, half, three, minus_six, fifteen;
} tile_eval;

/* The lane groups of the blocks in `mask`, in block order. */
#define FOR_GROUPS_IN(mask, g)                                                               \
    for (int blk_ = 0; blk_ < TREE_TILE_BLOCKS; ++blk_)                                      \
        if ((mask) >> blk_ & 1u)                                                             \
            for (int g = blk_ * BLOCK_GROUPS; g < (blk_ + 1) * BLOCK_GROUPS; ++g)

static inline vf cross_component(vf a1, vf b2, vf a2, vf b1) {
    return vf_sub(vf_mul(a1, b2), vf_mul(a2, b1));
}

/* One vorton at p with vorticity w, at every lane of the blocks in mask:
 * kernel.c's kernel written with selects instead of branches (d == 0 adds a
 * zero). */
static void lanes_point(tile_eval *e, unsigned mask, float px, float py, float pz, float wx,
                        float wy, float wz) {
    const vf Px = vf_splat(px), Py = vf_splat(py), Pz = vf_splat(pz);
    const vf Wx = vf_splat(wx), Wy = vf_splat(wy), Wz = vf_splat(wz);
    FOR_GROUPS_IN(mask, g) {
        const vf dx = vf_sub(e->qx[g], Px), dy = vf_sub(e->qy[g], Py), dz = vf_sub(e->qz[g], Pz);
        const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
        const vf den = vf_mul(d2, vf_sqrt(d2));
        const vf far = vf_select(vf_gt(den, e->zero), vf_mul(e->c3, vf_div(e->a3, den)), e->zero);
        const vf s = vf_select(vf_lt(d2, e->a2), e->c3, far);
        e->ux[g] = vf_add(e->ux[g], vf_mul(s, cross_component(Wy, dz, Wz, dy)));
        e->uy[g] = vf_add(e->uy[g], vf_mul(s, cross_component(Wz, dx, Wx, dz)));
        e->uz[g] = vf_add(e->uz[g], vf_mul(s, cross_component(Wx, dy, Wy, dx)));
    }
}

/* A cell as a multipole about its centroid c, at every lane of the blocks in
 * mask. With d = q - c, the summed vorticity W, first moments M_bk = sum r_b
 * w_k, A = sum w x r, second moments Q_k (Q_k,bc = sum r_b r_c w_k), P_k =
 * Q_k d, s_k = d.P_k and tau_k = 15 s_k / |d|^2 - 3 tr Q_k, the kernel
 * expanded to second order in the vortons' offsets r from c is, outside the
 * core (k = c a^3 / 3),
 *   u = k/|d|^3 [W x d - A + 3 (M^T d) x d / |d|^2
 *                + (-6 e_amn P_m,n + (tau x d)_a) / (2 |d|^2)],
 * and inside it (linear kernel, exact to first order) u = c/3 [W x d - A]. */
static void lanes_cell(tile_eval *e, unsigned mask, const supervorton *s, const float *m) {
    const vf Cx = vf_splat(s->px), Cy = vf_splat(s->py), Cz = vf_splat(s->pz);
    const vf Wx = vf_splat(s->wx), Wy = vf_splat(s->wy), Wz = vf_splat(s->wz);
    const vf Ax = vf_splat(m[3 * 2 + 1] - m[3 * 1 + 2]);
    const vf Ay = vf_splat(m[3 * 0 + 2] - m[3 * 2 + 0]);
    const vf Az = vf_splat(m[3 * 1 + 0] - m[3 * 0 + 1]);
    vf M[9], Q[18], T3[3];
    for (int k = 0; k < 9; ++k) M[k] = vf_splat(m[k]);
    for (int k = 0; k < 18; ++k) Q[k] = vf_splat(m[9 + k]);
    for (int k = 0; k < 3; ++k) {
        const float *q = &m[9 + 6 * k];
        T3[k] = vf_splat(3.0f * ((q[0] + q[3]) + q[5]));
    }
    FOR_GROUPS_IN(mask, g) {
        const vf dx = vf_sub(e->qx[g], Cx), dy = vf_sub(e->qy[g], Cy), dz = vf_sub(e->qz[g], Cz);
        const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
        const vf r = vf_sqrt(d2);
        const vf den = vf_mul(d2, r);
        const vm outside = vm_andnot(vf_lt(d2, e->a2), vf_gt(den, e->zero));
        const vf inv = vf_div(e->one, den);
        const vf id2 = vf_select(outside, vf_mul(r, inv), e->zero); /* 1/|d|^2 outside */
        const vf sc = vf_select(outside, vf_mul(e->c3, vf_mul(e->a3, inv)), e->c3);
        const vf t = vf_mul(e->three, id2);
        const vf Bx = vf_add(vf_add(vf_mul(dx, M[0]), vf_mul(dy, M[3])), vf_mul(dz, M[6]));
        const vf By = vf_add(vf_add(vf_mul(dx, M[1]), vf_mul(dy, M[4])), vf_mul(dz, M[7]));
        const vf Bz = vf_add(vf_add(vf_mul(dx, M[2]), vf_mul(dy, M[5])), vf_mul(dz, M[8]));
        vf P[3][3], tau[3];
        for (int k = 0; k < 3; ++k) {
            const vf *q = &Q[6 * k];
            P[k][0] = vf_add(vf_add(vf_mul(q[0], dx), vf_mul(q[1], dy)), vf_mul(q[2], dz));
            P[k][1] = vf_add(vf_add(vf_mul(q[1], dx), vf_mul(q[3], dy)), vf_mul(q[4], dz));
            P[k][2] = vf_add(vf_add(vf_mul(q[2], dx), vf_mul(q[4], dy)), vf_mul(q[5], dz));
            const vf sk =
                vf_add(vf_add(vf_mul(dx, P[k][0]), vf_mul(dy, P[k][1])), vf_mul(dz, P[k][2]));
            tau[k] = vf_sub(vf_mul(e->fifteen, vf_mul(sk, id2)), T3[k]);
        }
        const vf h = vf_mul(e->half, id2);
        const vf qx = vf_add(vf_mul(e->minus_six, vf_sub(P[1][2], P[2][1])),
                             cross_component(tau[1], dz, tau[2], dy));
        const vf qy = vf_add(vf_mul(e->minus_six, vf_sub(P[2][0], P[0][2])),
                             cross_component(tau[2], dx, tau[0], dz));
        const vf qz = vf_add(vf_mul(e->minus_six, vf_sub(P[0][1], P[1][0])),
                             cross_component(tau[0], dy, tau[1], dx));
        const vf vx = vf_add(vf_add(vf_sub(cross_component(Wy, dz, Wz, dy), Ax),
                                    vf_mul(t, cross_component(By, dz, Bz, dy))),
                             vf_mul(h, qx));
        const vf vy = vf_add(vf_add(vf_sub(cross_component(Wz, dx, Wx, dz), Ay),
                                    vf_mul(t, cross_component(Bz, dx, Bx, dz))),
                             vf_mul(h, qy));
        const vf vz = vf_add(vf_add(vf_sub(cross_component(Wx, dy, Wy, dx), Az),
                                    vf_mul(t, cross_component(Bx, dy, By, dx))),
                             vf_mul(h, qz));
        e->ux[g] = vf_add(e->ux[g], vf_mul(sc, vx));
        e->uy[g] = vf_add(e->uy[g], vf_mul(sc, vy));
        e->uz[g] = vf_add(e->uz[g], vf_mul(sc, vz));
    }
}

/* Squared distance from p to the box [lo, hi]. */
static inline float box_distance2(const float lo[3], const float hi[3], float px, float py,
                                  float pz) {
    const float p[3] = {px, py, pz};
    float d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        float d = p[a] < lo[a] ? lo[a] - p[a] : p[a] > hi[a] ? p[a] - hi[a] : 0.0f;
        d2 += d * d;
    }
    return d2;
}

/* The blocks of mask for which the cell (centroid s, level's reach) is far
 * enough to be used as a multipole: s < theta D, D from the centroid to the
 * block's box. A cell far enough from the tile's box (which holds every
 * block's box) is far enough from each block's: rounding is monotone, so the
 * test for the tile never accepts what a block's test would refuse. */
static unsigned accepted_blocks(const tile_eval *e, unsigned mask, const supervorton *s,
                                float reach2) {
    const tree_tile *tl = e->tile;
    if (box_distance2(tl->lo, tl->hi, s->px, s->py, s->pz) >= reach2) return mask;
    unsigned accepted = 0;
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
        if ((mask >> k & 1u) &&
            box_distance2(tl->block[k].lo, tl->block[k].hi, s->px, s->py, s->pz) >= reach2)
            accepted |= 1u << k;
    return accepted;
}

/* The vortons of base cell c, in partition order, at the blocks of mask. */
static void base_cell_vortons(tile_eval *e, unsigned mask, int c) {
    const particle_array *v = e->v;
    for (int n = e->part->cell_start[c]; n < e->part->cell_start[c + 1]; ++n) {
        const int i = e->part->sorted_index[n];
        lanes_point(e, mask, v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i], v->wz[i]);
    }
}

static void tile_cell(tile_eval *e, unsigned mask, int level, const int idx[3]);

/* The children of cell idx at `level`, z outer, y, x inner. */
static void tile_children(tile_eval *e, unsigned mask, int level, const int idx[3]) {
    const grid_shape *g = &e->t->layer[level - 1], *pg = &e->t->layer[level];
    const int dec[3] = {g->cells[0] / pg->cells[0], g->cells[1] / pg->cells[1],
                        g->cells[2] / pg->cells[2]};
    for (int dz = 0; dz < dec[2]; ++dz)
        for (int dy = 0; dy < dec[1]; ++dy)
            for (int dx = 0; dx < dec[0]; ++dx) {
                const int child[3] = {idx[0] * dec[0] + dx, idx[1] * dec[1] + dy,
                                      idx[2] * dec[2] + dz};
                tile_cell(e, mask, level - 1, child);
            }
}

/* One cell for the blocks of mask that reach it: the blocks that accept it
 * take its multipole, the others open it. Each block meets the cells in the
 * order its own walk would, so a block's sums do not depend on the tile. */
static void tile_cell(tile_eval *e, unsigned mask, int level, const int idx[3]) {
    const grid_shape *g = &e->t->layer[level];
    const int c = idx[0] + g->cells[0] * (idx[1] + g->cells[1] * idx[2]);
    const supervorton *s = &e->t->cells[level][c];
    if (!(s->weight > 0.0f)) return;
    unsigned accepted = accepted_blocks(e, mask, s, e->reach2[level]);
    if (level == 0 &&
        e->part->cell_start[c + 1] - e->part->cell_start[c] <= TREE_DIRECT_VORTONS)
        accepted = 0;
    if (accepted) lanes_cell(e, accepted, s, &e->t->moments[level][TREE_MOMENTS * (size_t)c]);
    const unsigned opened = mask & ~accepted;
    if (!opened) return;
    if (level > 0) tile_children(e, opened, level, idx);
    else base_cell_vortons(e, opened, c);
}

static void tile_eval_init(tile_eval *e, const influence_tree *t, float theta, float a,
                           float c) {
    for (int l = 0; l < t->levels; ++l) {
        const grid_shape *g = &t->layer[l];
        const float size = fmax_det(g->spacing[0], fmax_det(g->spacing[1], g->spacing[2]));
        const float reach = size / theta;
        e->reach2[l] = reach * reach;
    }
    e->a2 = vf_splat(a * a);
    e->a3 = vf_splat(a * a * a);
    e->c3 = vf_splat(c * (1.0f / 3.0f));
    e->zero = vf_splat(0.0f);
    e->one = vf_splat(1.0f);
    e->half = vf_splat(0.5f);
    e->three = vf_splat(3.0f);
    e->minus_six = vf_splat(-6.0f);
    e->fifteen = vf_splat(15.0f);
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
        for (int j = 0; j < BLOCK_GROUPS; ++j) {
            const int g = k * BLOCK_GROUPS + j;
            e->qx[g] = vf_load(&e->tile->block[k].qx[VF_LANES * j]);
            e->qy[g] = vf_load(&e->tile->block[k].qy[VF_LANES * j]);
            e->qz[g] = vf_load(&e->tile->block[k].qz[VF_LANES * j]);
            e->ux[g] = e->uy[g] = e->uz[g] = e->zero;
        }
}

void TREE_WALK_ENTRY(const influence_tree *t, const particle_array *v, const partition *part,
                     const tree_tile *tile, float theta, float a, float c,
                     vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]) {
    tile_eval e;
    e.t = t;
    e.v = v;
    e.part = part;
    e.tile = tile;
    tile_eval_init(&e, t, theta, a, c);
    const int root[3] = {0, 0, 0};
    const unsigned mask = tile->active & ((1u << TREE_TILE_BLOCKS) - 1u);
    if (mask) tile_cell(&e, mask, t->levels - 1, root);
    FOR_GROUPS_IN(mask, g) {
        float ux[VF_LANES], uy[VF_LANES], uz[VF_LANES];
        vf_store(ux, e.ux[g]);
        vf_store(uy, e.uy[g]);
        vf_store(uz, e.uz[g]);
        const int first = VF_LANES * (g - blk_ * BLOCK_GROUPS);
        for (int k = 0; k < VF_LANES; ++k) out[blk_][first + k] = (vec3){ux[k], uy[k], uz[k]};
    }
}

#undef FOR_GROUPS_IN
