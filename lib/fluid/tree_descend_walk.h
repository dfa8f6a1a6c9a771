/* SPDX-License-Identifier: MIT */
/* The original treecode traversal (lib/fluid/tree.c, tree_descend) for a block of
 * grid points in lanes, written against the lane type of lib/runtime/lanes4.h
 * and compiled once per lane build (SSE2 / NEON, plain C): include the lanes
 * header, define TREE_DESCEND_ENTRY (the function's name), then include this
 * file.
 *
 * One walk per block of TREE_BLOCK_POINTS points, one point per lane. At each
 * child cell every lane decides for its own point exactly as tree_descend
 * does (near_cell with its margin, the same float bounds compared the same
 * way): it opens the cell or takes its supervorton. The walk recurses into a
 * cell when any lane opens it; inside, the lanes that did not open it are
 * masked off. A lane that takes a supervorton adds kernel_accumulate's term
 * through a select (never by adding a zero: -0 + +0 would change a bit), and
 * adds nothing where kernel_accumulate returns early (d == 0, |d|^3
 * underflowing to 0).
 *
 * Determinism: the walk visits children in tree_descend's order (z, y, x;
 * an opened child's subtree before the next child), so each lane adds exactly
 * its scalar point's terms in the scalar point's order, with the same IEEE
 * operations (no FMA: the build forbids contraction). A lane never reads
 * another lane: the bits equal eddy_tree_velocity_at's for any lane width
 * and instruction set (tests/test_tree.c compares them). */
#ifndef TREE_DESCEND_ENTRY
#error "define TREE_DESCEND_ENTRY and include a lanes header before lib/fluid/tree_descend_walk.h"
#endif

#include "fluid/fluid.h"

enum { DESCEND_GROUPS = TREE_BLOCK_POINTS / VF_LANES };

typedef struct descend_eval {
    const influence_tree *t;
    vf qx[DESCEND_GROUPS], qy[DESCEND_GROUPS], qz[DESCEND_GROUPS];
    vf ux[DESCEND_GROUPS], uy[DESCEND_GROUPS], uz[DESCEND_GROUPS];
    vf a2, a3, c3; /* a^2, (a a) a, c (1/3): kernel_accumulate's constants */
    vf zero;
} descend_eval;

/* Lanes whose coordinate lies in [lo - margin, hi + margin) of cell `index`
 * along axis a: near_cell's bounds, computed with near_cell's operations. */
static inline vm near_lanes(const grid_shape *g, int a, int index, vf q) {
    const float lo = g->min[a] + (float)index * g->spacing[a];
    const float hi = lo + g->spacing[a];
    const float margin = 0.0001f * g->spacing[a] + EDDY_FLT_MIN;
    return vm_and(vf_ge(q, vf_splat(lo - margin)), vf_lt(q, vf_splat(hi + margin)));
}

static inline vf descend_cross(vf a1, vf b2, vf a2, vf b1) {
    return vf_sub(vf_mul(a1, b2), vf_mul(a2, b1));
}

/* kernel_accumulate of supervorton s at the lanes of group g in `take`. */
static void take_supervorton(descend_eval *e, int g, vm take, const supervorton *s) {
    const vf dx = vf_sub(e->qx[g], vf_splat(s->px)), dy = vf_sub(e->qy[g], vf_splat(s->py));
    const vf dz = vf_sub(e->qz[g], vf_splat(s->pz));
    const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
    const vf den = vf_mul(d2, vf_sqrt(d2));
    const vm inside = vf_lt(d2, e->a2);
    const vf scale = vf_select(inside, e->c3, vf_mul(e->c3, vf_div(e->a3, den)));
    /* d2 is a sum of squares: d2 > 0 is kernel_accumulate's d2 != 0 */
    const vm adds = vm_and(take, vm_and(vf_gt(d2, e->zero), vm_or(inside, vf_gt(den, e->zero))));
    const vf Wx = vf_splat(s->wx), Wy = vf_splat(s->wy), Wz = vf_splat(s->wz);
    const vf tx = vf_add(e->ux[g], vf_mul(scale, descend_cross(Wy, dz, Wz, dy)));
    const vf ty = vf_add(e->uy[g], vf_mul(scale, descend_cross(Wz, dx, Wx, dz)));
    const vf tz = vf_add(e->uz[g], vf_mul(scale, descend_cross(Wx, dy, Wy, dx)));
    e->ux[g] = vf_select(adds, tx, e->ux[g]);
    e->uy[g] = vf_select(adds, ty, e->uy[g]);
    e->uz[g] = vf_select(adds, tz, e->uz[g]);
}

/* tree_descend for the lanes in `active`: the children (at `level`) of
 * parent cell p, each opened by the lanes near it (level > 0), taken as a
 * supervorton by the others. */
static void descend_lanes(descend_eval *e, int level, const int p[3],
                          const vm active[DESCEND_GROUPS]) {
    const influence_tree *t = e->t;
    const grid_shape *g = &t->layer[level], *pg = &t->layer[level + 1];
    const int dec[3] = {grid_child_stride(g, pg, 0), grid_child_stride(g, pg, 1),
                        grid_child_stride(g, pg, 2)};
    const int n[3] = {grid_child_count(g, pg, 0, p[0]), grid_child_count(g, pg, 1, p[1]),
                      grid_child_count(g, pg, 2, p[2])};
    const supervorton *cells = t->cells[level];
    for (int dz = 0; dz < n[2]; ++dz) {
        const int ck = p[2] * dec[2] + dz;
        vm in_z[DESCEND_GROUPS];
        for (int k = 0; k < DESCEND_GROUPS; ++k) in_z[k] = near_lanes(g, 2, ck, e->qz[k]);
        for (int dy = 0; dy < n[1]; ++dy) {
            const int cj = p[1] * dec[1] + dy;
            vm in_yz[DESCEND_GROUPS];
            for (int k = 0; k < DESCEND_GROUPS; ++k)
                in_yz[k] = vm_and(in_z[k], near_lanes(g, 1, cj, e->qy[k]));
            for (int dx = 0; dx < n[0]; ++dx) {
                const int ci = p[0] * dec[0] + dx;
                vm open[DESCEND_GROUPS], take[DESCEND_GROUPS];
                unsigned any_open = 0, any_take = 0;
                for (int k = 0; k < DESCEND_GROUPS; ++k) {
                    open[k] = level > 0 ? vm_and(active[k],
                                                 vm_and(in_yz[k], near_lanes(g, 0, ci, e->qx[k])))
                                        : vm_and(active[k], vf_lt(e->zero, e->zero));
                    take[k] = vm_andnot(open[k], active[k]);
                    any_open |= vm_bits(open[k]);
                    any_take |= vm_bits(take[k]) << (VF_LANES * k);
                }
                if (any_open) {
                    const int child[3] = {ci, cj, ck};
                    descend_lanes(e, level - 1, child, open);
                }
                const supervorton *s = &cells[ci + g->cells[0] * (cj + g->cells[1] * ck)];
                if (!any_take || !(s->weight > 0.0f)) continue;
                for (int k = 0; k < DESCEND_GROUPS; ++k)
                    if (vm_bits(take[k])) take_supervorton(e, k, take[k], s);
            }
        }
    }
}

/* The velocity at the block's points (qx, qy, qz of b; lo/hi unused). The
 * tree must have at least two levels (eddy_tree_velocity_descend_block
 * handles the one-cell tree). */
void TREE_DESCEND_ENTRY(const influence_tree *t, const tree_block *b, float a, float c,
                        vec3 out[TREE_BLOCK_POINTS]) {
    descend_eval e;
    e.t = t;
    e.a2 = vf_splat(a * a);
    e.a3 = vf_splat(a * a * a);
    e.c3 = vf_splat(c * (1.0f / 3.0f));
    e.zero = vf_splat(0.0f);
    vm all[DESCEND_GROUPS];
    for (int k = 0; k < DESCEND_GROUPS; ++k) {
        e.qx[k] = vf_load(&b->qx[VF_LANES * k]);
        e.qy[k] = vf_load(&b->qy[VF_LANES * k]);
        e.qz[k] = vf_load(&b->qz[VF_LANES * k]);
        e.ux[k] = e.uy[k] = e.uz[k] = e.zero;
        all[k] = vf_ge(e.zero, e.zero);
    }
    const int root[3] = {0, 0, 0};
    descend_lanes(&e, t->levels - 2, root, all);
    for (int k = 0; k < DESCEND_GROUPS; ++k) {
        float ux[VF_LANES], uy[VF_LANES], uz[VF_LANES];
        vf_store(ux, e.ux[k]);
        vf_store(uy, e.uy[k]);
        vf_store(uz, e.uz[k]);
        for (int l = 0; l < VF_LANES; ++l) out[VF_LANES * k + l] = (vec3){ux[l], uy[l], uz[l]};
    }
}
