/* SPDX-License-Identifier: MIT */
/* The multipole traversal of one block of grid points, written once against
 * a lane type (lib/runtime/lanes4.h or lib/runtime/lanes8_avx.h) and compiled once
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
 * width (4 or 8) and the instruction set change nothing in the bits.
 *
 * TREE_WALK_GRADIENT_ENTRY walks the same way and sums, beside each lane's
 * velocity, its velocity gradient with a second core (the vortons' own
 * walk, lib/fluid/velocity.c): every term of the velocity adds its own
 * derivative, so the velocity keeps its bits and the gradient is that of
 * the same approximation of the field (no differencing, no second walk). */
#if !defined(TREE_WALK_ENTRY) || !defined(TREE_WALK_GRADIENT_ENTRY)
#error "define TREE_WALK_ENTRY, TREE_WALK_GRADIENT_ENTRY and a lanes header before tree_walk.h"
#endif

#include "fluid/fluid.h"

enum {
    BLOCK_GROUPS = TREE_BLOCK_POINTS / VF_LANES, /* lane groups per block */
    TILE_GROUPS = TREE_TILE_BLOCKS * BLOCK_GROUPS,
    BOX_GROUPS = TREE_TILE_BLOCKS / VF_LANES /* lane groups of one lane per block */
};

typedef struct tile_eval {
    const influence_tree *t;
    const particle_array *v;
    const partition *part;
    const tree_tile *tile;
    float reach2[TREE_MAX_LEVELS]; /* (s / theta)^2 of each level */
    vf qx[TILE_GROUPS], qy[TILE_GROUPS], qz[TILE_GROUPS];
    vf ux[TILE_GROUPS], uy[TILE_GROUPS], uz[TILE_GROUPS];
    vf box_lo[3][BOX_GROUPS], box_hi[3][BOX_GROUPS]; /* lane k: block k's box */
    vf a2, a3, c3; /* c3 = c / 3 */
    vf zero, one;
    /* The gradient walk (TREE_WALK_GRADIENT_ENTRY) only: its core's a^2,
     * a^3 and c / 3, and each lane's du_b/dq_a in gj[3 a + b]. */
    bool gradient;
    vf ga2, gc3, gk; /* gk = c a^3 / 3 */
    vf gj[9][TILE_GROUPS];
} tile_eval;

/* The lane groups of the blocks in `mask`, in block order. */
#define FOR_GROUPS_IN(mask, g)                                                               \
    for (unsigned rest_ = (mask), blk_; rest_ && (blk_ = (unsigned)lowest_bit(rest_), 1);     \
         rest_ &= rest_ - 1u)                                                                \
        for (int g = (int)blk_ * BLOCK_GROUPS; g < ((int)blk_ + 1) * BLOCK_GROUPS; ++g)

static inline int lowest_bit(unsigned m) { return EDDY_LOWEST_BIT64((uint64_t)m); }

/* The expansion is evaluated group by group, its coefficients read from
 * memory inside (a broadcast load each): kept out of line so that the
 * compiler does not hoist 48 broadcasts out of the block loop and spill
 * them. */
#if defined(__GNUC__)
#define CELL_GROUP_ATTR __attribute__((noinline))
#else
#define CELL_GROUP_ATTR
#endif

static inline vf cross_component(vf a1, vf b2, vf a2, vf b1) {
    return vf_sub(vf_mul(a1, b2), vf_mul(a2, b1));
}

/* A cell as a multipole about its centroid c, at every lane of the blocks in
 * mask. With d = q - c, the summed vorticity W, A = sum w x r, first moments
 * M_bk = sum r_b w_k, B = M^T d, second moments Q_k (Q_k,bc = sum r_b r_c
 * w_k), T_k = tr Q_k, s_k = d.Q_k d and R_ab = e_amn Q_m,nb, the kernel
 * expanded to second order in the vortons' offsets r from c is, outside the
 * core (k = c a^3 / 3),
 *   u = k/|d|^3 [W x d - A + (G x d - 3 R d + 7.5 (s x d) / |d|^2) / |d|^2]
 * with G = 3 B - 1.5 T, and inside it (linear kernel, exact to first order)
 * u = c/3 [W x d - A]. x: the cell's coefficients (lib/fluid/tree.c,
 * expansion_pack: 3 M, 1.5 T, 3 R and 7.5 Q_k as quadratic forms in d). */
static inline vf X_(const float *x, int k) { return vf_splat(x[k]); }

/* The gradient's small fixed loops (3 axes, 9 entries), unrolled so that
 * their vectors stay in registers: half the instructions of the rolled
 * loops. GCC and Clang; elsewhere a plain loop, with the same bits. */
#if defined(__clang__)
#define EDDY_UNROLL_SMALL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define EDDY_UNROLL_SMALL _Pragma("GCC unroll 9")
#else
#define EDDY_UNROLL_SMALL
#endif

/* G_k = (3 M^T d)_k - 1.5 T_k and s_k = d.Q_k d (7.5 folded in) of a cell's
 * expansion x at offset d: the terms cell_group and cell_group_and_gradient
 * share. */
static inline vf expansion_g(const float *x, int k, vf dx, vf dy, vf dz) {
    return vf_sub(vf_add(vf_add(vf_mul(dx, X_(x, 9 + k)), vf_mul(dy, X_(x, 12 + k))),
                         vf_mul(dz, X_(x, 15 + k))),
                  X_(x, 18 + k));
}

static inline vf expansion_s(const float *x, int k, vf dx, vf dy, vf dz, vf xx, vf yy, vf zz) {
    const float *q = &x[30 + 6 * k];
    return vf_add(
        vf_add(vf_add(vf_add(vf_add(vf_mul(X_(q, 0), xx), vf_mul(X_(q, 1), vf_mul(dx, dy))),
                             vf_mul(X_(q, 2), vf_mul(dx, dz))),
                      vf_mul(X_(q, 3), yy)),
               vf_mul(X_(q, 4), vf_mul(dy, dz))),
        vf_mul(X_(q, 5), zz));
}

/* The expansion at the lanes of group g. */
static CELL_GROUP_ATTR void cell_group(tile_eval *e, int g, const float *x) {
    const vf dx = vf_sub(e->qx[g], X_(x, 0)), dy = vf_sub(e->qy[g], X_(x, 1));
    const vf dz = vf_sub(e->qz[g], X_(x, 2));
    const vf xx = vf_mul(dx, dx), yy = vf_mul(dy, dy), zz = vf_mul(dz, dz);
    const vf d2 = vf_add(vf_add(xx, yy), zz);
    const vf r = vf_sqrt(d2);
    const vf den = vf_mul(d2, r);
    const vm outside = vm_andnot(vf_lt(d2, e->a2), vf_gt(den, e->zero));
    const vf inv = vf_div(e->one, den);
    const vf id2 = vf_select(outside, vf_mul(r, inv), e->zero); /* 1/|d|^2 outside */
    const vf sc = vf_select(outside, vf_mul(e->c3, vf_mul(e->a3, inv)), e->c3);
    vf G[3], Rd[3], Sd[3];
    for (int k = 0; k < 3; ++k) {
        G[k] = expansion_g(x, k, dx, dy, dz);
        Rd[k] = vf_add(vf_add(vf_mul(X_(x, 21 + 3 * k), dx), vf_mul(X_(x, 22 + 3 * k), dy)),
                       vf_mul(X_(x, 23 + 3 * k), dz));
        Sd[k] = expansion_s(x, k, dx, dy, dz, xx, yy, zz);
    }
    const vf ix = vf_add(vf_sub(cross_component(G[1], dz, G[2], dy), Rd[0]),
                         vf_mul(id2, cross_component(Sd[1], dz, Sd[2], dy)));
    const vf iy = vf_add(vf_sub(cross_component(G[2], dx, G[0], dz), Rd[1]),
                         vf_mul(id2, cross_component(Sd[2], dx, Sd[0], dz)));
    const vf iz = vf_add(vf_sub(cross_component(G[0], dy, G[1], dx), Rd[2]),
                         vf_mul(id2, cross_component(Sd[0], dy, Sd[1], dx)));
    const vf Wx = X_(x, 3), Wy = X_(x, 4), Wz = X_(x, 5);
    const vf vx = vf_add(vf_sub(cross_component(Wy, dz, Wz, dy), X_(x, 6)), vf_mul(id2, ix));
    const vf vy = vf_add(vf_sub(cross_component(Wz, dx, Wx, dz), X_(x, 7)), vf_mul(id2, iy));
    const vf vz = vf_add(vf_sub(cross_component(Wx, dy, Wy, dx), X_(x, 8)), vf_mul(id2, iz));
    e->ux[g] = vf_add(e->ux[g], vf_mul(sc, vx));
    e->uy[g] = vf_add(e->uy[g], vf_mul(sc, vy));
    e->uz[g] = vf_add(e->uz[g], vf_mul(sc, vz));
}

/* cell_group's velocity (its bits), and the gradient of the same expansion
 * with the gradient's core: each term
 * of cell_group differentiated by d (its header's notation; e_a the axes,
 * id2 = 1/|d|^2, so d(id2)/dd_a = -2 d_a id2^2 and d(sc)/dd_a = -3 sc d_a
 * id2 outside the core, where sc = k/|d|^3; inside it id2 = 0 and sc is the
 * constant c/3). With I = G x d - R d + id2 (S x d) and V = W x d - A +
 * id2 I:
 *   dI/dd_a = dG_a x d + G x e_a - dR_a + id2 (dS_a x d + S x e_a)
 *             - 2 d_a id2^2 (S x d),
 *   du/dd_a = sc (W x e_a + id2 dI/dd_a - 2 d_a id2^2 I - 3 id2 d_a V),
 * dG_a, dR_a and dS_a the derivatives of G, R d and S along d_a (3 M's row
 * a, 3 R's column a, and the quadratic forms' partials). */
static CELL_GROUP_ATTR void cell_group_and_gradient(tile_eval *e, int g, const float *x) {
    const vf dx = vf_sub(e->qx[g], X_(x, 0)), dy = vf_sub(e->qy[g], X_(x, 1));
    const vf dz = vf_sub(e->qz[g], X_(x, 2));
    const vf d[3] = {dx, dy, dz};
    const vf xx = vf_mul(dx, dx), yy = vf_mul(dy, dy), zz = vf_mul(dz, dz);
    const vf d2 = vf_add(vf_add(xx, yy), zz);
    const vf r = vf_sqrt(d2);
    const vf den = vf_mul(d2, r);
    const vm outside = vm_andnot(vf_lt(d2, e->ga2), vf_gt(den, e->zero));
    const vf inv = vf_div(e->one, den);
    const vf id2 = vf_select(outside, vf_mul(r, inv), e->zero);
    const vf sc = vf_select(outside, vf_mul(e->gk, inv), e->gc3);
    const vf two = vf_add(e->one, e->one), three = vf_add(two, e->one);
    vf G[3], S[3], V[3], I[3];
    EDDY_UNROLL_SMALL for (int k = 0; k < 3; ++k) {
        G[k] = expansion_g(x, k, dx, dy, dz);
        S[k] = expansion_s(x, k, dx, dy, dz, xx, yy, zz);
    }
    const vf W[3] = {X_(x, 3), X_(x, 4), X_(x, 5)};
    /* The velocity with its own core, cell_group's terms in its order (its
     * bits), sharing the core-free terms with the gradient. */
    const vm outside_v = vm_andnot(vf_lt(d2, e->a2), vf_gt(den, e->zero));
    const vf id2_v = vf_select(outside_v, vf_mul(r, inv), e->zero);
    const vf sc_v = vf_select(outside_v, vf_mul(e->c3, vf_mul(e->a3, inv)), e->c3);
    vf SxD[3], u[3];
    EDDY_UNROLL_SMALL for (int b = 0; b < 3; ++b) {
        const int b1 = (b + 1) % 3, b2 = (b + 2) % 3;
        const vf Rd = vf_add(vf_add(vf_mul(X_(x, 21 + 3 * b), dx), vf_mul(X_(x, 22 + 3 * b), dy)),
                             vf_mul(X_(x, 23 + 3 * b), dz));
        const vf GxD = vf_sub(cross_component(G[b1], d[b2], G[b2], d[b1]), Rd);
        SxD[b] = cross_component(S[b1], d[b2], S[b2], d[b1]);
        const vf WxD = vf_sub(cross_component(W[b1], d[b2], W[b2], d[b1]), X_(x, 6 + b));
        u[b] = vf_mul(sc_v, vf_add(WxD, vf_mul(id2_v, vf_add(GxD, vf_mul(id2_v, SxD[b])))));
        I[b] = vf_add(GxD, vf_mul(id2, SxD[b]));
        V[b] = vf_add(WxD, vf_mul(id2, I[b]));
    }
    e->ux[g] = vf_add(e->ux[g], u[0]);
    e->uy[g] = vf_add(e->uy[g], u[1]);
    e->uz[g] = vf_add(e->uz[g], u[2]);
    const vf id4 = vf_mul(id2, id2);
    EDDY_UNROLL_SMALL for (int a = 0; a < 3; ++a) {
        /* the quadratic forms' partials along d_a: q0 xx + q1 xy + q2 xz +
         * q3 yy + q4 yz + q5 zz, the square's coefficient doubled */
        static const int term[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
        vf dS[3], dG[3];
        EDDY_UNROLL_SMALL for (int k = 0; k < 3; ++k) {
            const float *q = &x[30 + 6 * k];
            vf t[3];
            EDDY_UNROLL_SMALL for (int m = 0; m < 3; ++m) {
                t[m] = vf_mul(X_(q, term[a][m]), d[m]);
                if (m == a) t[m] = vf_mul(two, t[m]);
            }
            dS[k] = vf_add(vf_add(t[0], t[1]), t[2]);
            dG[k] = X_(x, 9 + 3 * a + k);
        }
        const vf m2 = vf_mul(vf_mul(two, d[a]), id4); /* 2 d_a id2^2 */
        const vf m3 = vf_mul(vf_mul(three, d[a]), id2); /* 3 d_a id2 */
        EDDY_UNROLL_SMALL for (int b = 0; b < 3; ++b) {
            const int b1 = (b + 1) % 3, b2 = (b + 2) % 3;
            /* (P x e_a)_b = P_b1 [a == b2] - P_b2 [a == b1] */
            const vf Gxe = a == b2 ? G[b1] : a == b1 ? vf_sub(e->zero, G[b2]) : e->zero;
            const vf Sxe = a == b2 ? S[b1] : a == b1 ? vf_sub(e->zero, S[b2]) : e->zero;
            const vf Wxe = a == b2 ? W[b1] : a == b1 ? vf_sub(e->zero, W[b2]) : e->zero;
            const vf dR = X_(x, 21 + 3 * b + a);
            const vf dI = vf_sub(
                vf_add(vf_sub(vf_add(cross_component(dG[b1], d[b2], dG[b2], d[b1]), Gxe), dR),
                       vf_mul(id2, vf_add(cross_component(dS[b1], d[b2], dS[b2], d[b1]), Sxe))),
                vf_mul(m2, SxD[b]));
            const vf dV = vf_sub(vf_sub(vf_add(Wxe, vf_mul(id2, dI)), vf_mul(m2, I[b])),
                                 vf_mul(m3, V[b]));
            e->gj[3 * a + b][g] = vf_add(e->gj[3 * a + b][g], vf_mul(sc, dV));
        }
    }
}

static void lanes_cell(tile_eval *e, unsigned mask, const float *x) {
    if (e->gradient) {
        FOR_GROUPS_IN(mask, g) cell_group_and_gradient(e, g, x);
        return;
    }
    FOR_GROUPS_IN(mask, g) cell_group(e, g, x);
}

/* Squared distance from p to the box [lo, hi]. */
static inline float box_distance2(const float lo[3], const float hi[3], float px, float py,
                                  float pz) {
    /* max(lo - p, p - hi, 0) per axis, without branches: the same value as
     * the lanes' test in accepted_blocks (a signed zero is squared away) */
    const float p[3] = {px, py, pz};
    float d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        const float d = fmax_det(fmax_det(lo[a] - p[a], p[a] - hi[a]), 0.0f);
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
    const vf p[3] = {vf_splat(s->px), vf_splat(s->py), vf_splat(s->pz)};
    const vf zero = e->zero, reach = vf_splat(reach2);
    unsigned accepted = 0;
    for (int j = 0; j < BOX_GROUPS; ++j) {
        /* box_distance2 per lane: max(lo - p, p - hi, 0) is the same value
         * (a signed zero, where max differs between instruction sets, is
         * squared away) */
        vf d[3];
        for (int a = 0; a < 3; ++a)
            d[a] = vf_max(vf_max(vf_sub(e->box_lo[a][j], p[a]), vf_sub(p[a], e->box_hi[a][j])),
                          zero);
        const vf d2 = vf_add(vf_add(vf_mul(d[0], d[0]), vf_mul(d[1], d[1])), vf_mul(d[2], d[2]));
        accepted |= vm_bits(vf_ge(d2, reach)) << (VF_LANES * j);
    }
    return accepted & mask;
}

/* The vortons of base cell c, in partition order, at every lane of the
 * blocks in mask: kernel.c's kernel written with selects instead of branches
 * (d == 0 adds a zero). Blocks outer, vortons inner: each lane still adds the
 * vortons one by one in partition order. */
static void base_cell_vortons(tile_eval *e, unsigned mask, int c) {
    const particle_array *v = e->v;
    const int begin = e->part->cell_start[c], end = e->part->cell_start[c + 1];
    const int *index = e->part->sorted_index;
    FOR_GROUPS_IN(mask, g) {
        const vf qx = e->qx[g], qy = e->qy[g], qz = e->qz[g];
        vf ux = e->ux[g], uy = e->uy[g], uz = e->uz[g];
        for (int n = begin; n < end; ++n) {
            const int i = index[n];
            const vf Wx = vf_splat(v->wx[i]), Wy = vf_splat(v->wy[i]), Wz = vf_splat(v->wz[i]);
            const vf dx = vf_sub(qx, vf_splat(v->px[i])), dy = vf_sub(qy, vf_splat(v->py[i]));
            const vf dz = vf_sub(qz, vf_splat(v->pz[i]));
            const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
            const vf den = vf_mul(d2, vf_sqrt(d2));
            const vf far =
                vf_select(vf_gt(den, e->zero), vf_mul(e->c3, vf_div(e->a3, den)), e->zero);
            const vf s = vf_select(vf_lt(d2, e->a2), e->c3, far);
            ux = vf_add(ux, vf_mul(s, cross_component(Wy, dz, Wz, dy)));
            uy = vf_add(uy, vf_mul(s, cross_component(Wz, dx, Wx, dz)));
            uz = vf_add(uz, vf_mul(s, cross_component(Wx, dy, Wy, dx)));
        }
        e->ux[g] = ux;
        e->uy[g] = uy;
        e->uz[g] = uz;
    }
}

/* base_cell_vortons with each lane's gradient too, of the kernel with the
 * gradient's core: u = s w x d, s = c/3 inside the core and c a^3 / (3
 * |d|^3) outside, so du_b/dq_a = s (w x e_a)_b - 3 s (d_a / |d|^2) (w x d)_b
 * (the second term outside only; kernel.c's direct gradient). The velocity
 * is base_cell_vortons' to the bit. */
static void base_cell_vortons_gradient(tile_eval *e, unsigned mask, int c) {
    const particle_array *v = e->v;
    const int begin = e->part->cell_start[c], end = e->part->cell_start[c + 1];
    const int *index = e->part->sorted_index;
    const vf three = vf_add(e->one, vf_add(e->one, e->one));
    FOR_GROUPS_IN(mask, g) {
        const vf qx = e->qx[g], qy = e->qy[g], qz = e->qz[g];
        vf ux = e->ux[g], uy = e->uy[g], uz = e->uz[g];
        vf j[9];
        EDDY_UNROLL_SMALL for (int k = 0; k < 9; ++k) j[k] = e->gj[k][g];
        for (int n = begin; n < end; ++n) {
            const int i = index[n];
            const vf Wx = vf_splat(v->wx[i]), Wy = vf_splat(v->wy[i]), Wz = vf_splat(v->wz[i]);
            const vf dx = vf_sub(qx, vf_splat(v->px[i])), dy = vf_sub(qy, vf_splat(v->py[i]));
            const vf dz = vf_sub(qz, vf_splat(v->pz[i]));
            const vf d2 = vf_add(vf_add(vf_mul(dx, dx), vf_mul(dy, dy)), vf_mul(dz, dz));
            const vf len = vf_sqrt(d2);
            const vf den = vf_mul(d2, len);
            const vm positive = vf_gt(den, e->zero);
            const vf far = vf_select(positive, vf_mul(e->c3, vf_div(e->a3, den)), e->zero);
            const vf s = vf_select(vf_lt(d2, e->a2), e->c3, far);
            const vf cx = cross_component(Wy, dz, Wz, dy), cy = cross_component(Wz, dx, Wx, dz);
            const vf cz = cross_component(Wx, dy, Wy, dx);
            ux = vf_add(ux, vf_mul(s, cx));
            uy = vf_add(uy, vf_mul(s, cy));
            uz = vf_add(uz, vf_mul(s, cz));
            /* outside the gradient's core: sg = k / |d|^3 and tg = 3 sg / |d|^2
             * = 3 sg |d| / |d|^3, one division for both */
            const vm outside = vm_andnot(vf_lt(d2, e->ga2), positive);
            const vf inv = vf_div(e->one, den);
            const vf sg = vf_select(outside, vf_mul(e->gk, inv), e->gc3);
            const vf tg = vf_select(outside, vf_mul(vf_mul(three, sg), vf_mul(len, inv)), e->zero);
            const vf f[3] = {vf_mul(tg, dx), vf_mul(tg, dy), vf_mul(tg, dz)};
            /* w x e_x = (0, wz, -wy), w x e_y = (-wz, 0, wx), w x e_z = (wy, -wx, 0) */
            j[0] = vf_sub(j[0], vf_mul(f[0], cx));
            j[1] = vf_sub(vf_add(j[1], vf_mul(sg, Wz)), vf_mul(f[0], cy));
            j[2] = vf_sub(vf_sub(j[2], vf_mul(sg, Wy)), vf_mul(f[0], cz));
            j[3] = vf_sub(vf_sub(j[3], vf_mul(sg, Wz)), vf_mul(f[1], cx));
            j[4] = vf_sub(j[4], vf_mul(f[1], cy));
            j[5] = vf_sub(vf_add(j[5], vf_mul(sg, Wx)), vf_mul(f[1], cz));
            j[6] = vf_sub(vf_add(j[6], vf_mul(sg, Wy)), vf_mul(f[2], cx));
            j[7] = vf_sub(vf_sub(j[7], vf_mul(sg, Wx)), vf_mul(f[2], cy));
            j[8] = vf_sub(j[8], vf_mul(f[2], cz));
        }
        e->ux[g] = ux;
        e->uy[g] = uy;
        e->uz[g] = uz;
        EDDY_UNROLL_SMALL for (int k = 0; k < 9; ++k) e->gj[k][g] = j[k];
    }
}

static void base_cell(tile_eval *e, unsigned mask, int c) {
    if (e->gradient)
        base_cell_vortons_gradient(e, mask, c);
    else
        base_cell_vortons(e, mask, c);
}

static void tile_cell(tile_eval *e, unsigned mask, int level, const int idx[3]);

/* The children of cell idx at `level`, z outer, y, x inner. */
static void tile_children(tile_eval *e, unsigned mask, int level, const int idx[3]) {
    const grid_shape *g = &e->t->layer[level - 1], *pg = &e->t->layer[level];
    const int dec[3] = {grid_child_stride(g, pg, 0), grid_child_stride(g, pg, 1),
                        grid_child_stride(g, pg, 2)};
    const int n[3] = {grid_child_count(g, pg, 0, idx[0]), grid_child_count(g, pg, 1, idx[1]),
                      grid_child_count(g, pg, 2, idx[2])};
    for (int dz = 0; dz < n[2]; ++dz)
        for (int dy = 0; dy < n[1]; ++dy)
            for (int dx = 0; dx < n[0]; ++dx) {
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
    if (level == 0 &&
        e->part->cell_start[c + 1] - e->part->cell_start[c] <= TREE_DIRECT_VORTONS) {
        base_cell(e, mask, c); /* summed vorton by vorton, accepted or not */
        return;
    }
    const unsigned accepted = accepted_blocks(e, mask, s, e->reach2[level]);
    if (accepted) lanes_cell(e, accepted, &e->t->expansion[level][TREE_EXPANSION * (size_t)c]);
    const unsigned opened = mask & ~accepted;
    if (!opened) return;
    if (level > 0) tile_children(e, opened, level, idx);
    else base_cell(e, opened, c);
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
    float lo[3][TREE_TILE_BLOCKS], hi[3][TREE_TILE_BLOCKS];
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
        for (int axis = 0; axis < 3; ++axis) {
            lo[axis][k] = e->tile->block[k].lo[axis];
            hi[axis][k] = e->tile->block[k].hi[axis];
        }
    for (int axis = 0; axis < 3; ++axis)
        for (int j = 0; j < BOX_GROUPS; ++j) {
            e->box_lo[axis][j] = vf_load(&lo[axis][VF_LANES * j]);
            e->box_hi[axis][j] = vf_load(&hi[axis][VF_LANES * j]);
        }
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
        for (int j = 0; j < BLOCK_GROUPS; ++j) {
            const int g = k * BLOCK_GROUPS + j;
            e->qx[g] = vf_load(&e->tile->block[k].qx[VF_LANES * j]);
            e->qy[g] = vf_load(&e->tile->block[k].qy[VF_LANES * j]);
            e->qz[g] = vf_load(&e->tile->block[k].qz[VF_LANES * j]);
            e->ux[g] = e->uy[g] = e->uz[g] = e->zero;
            for (int m = 0; m < 9; ++m) e->gj[m][g] = e->zero;
        }
    e->gradient = false;
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
    const unsigned mask = tile->active & ((1u << TREE_TILE_BLOCKS) - 1u);
    const int root[3] = {0, 0, 0}; /* the top layer is one cell */
    if (mask) tile_cell(&e, mask, t->levels - 1, root);
    FOR_GROUPS_IN(mask, g) {
        float ux[VF_LANES], uy[VF_LANES], uz[VF_LANES];
        vf_store(ux, e.ux[g]);
        vf_store(uy, e.uy[g]);
        vf_store(uz, e.uz[g]);
        const int first = VF_LANES * (g - (int)blk_ * BLOCK_GROUPS);
        for (int k = 0; k < VF_LANES; ++k) out[blk_][first + k] = (vec3){ux[k], uy[k], uz[k]};
    }
}

/* TREE_WALK_ENTRY's walk with each lane's velocity gradient too, of the
 * field with core ag and circulation factor cg (out_gradient[k][p][3 a + b]
 * = du_b/dq_a): the velocity is TREE_WALK_ENTRY's to the bit, the cells
 * accepted and opened the same, and the gradient sums the derivative of each
 * term the velocity sums (a cell's expansion, a base cell's vortons). */
void TREE_WALK_GRADIENT_ENTRY(const influence_tree *t, const particle_array *v,
                              const partition *part, const tree_tile *tile, float theta, float a,
                              float c, float ag, float cg,
                              vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS],
                              float out_gradient[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS][9]) {
    tile_eval e;
    e.t = t;
    e.v = v;
    e.part = part;
    e.tile = tile;
    tile_eval_init(&e, t, theta, a, c);
    e.gradient = true;
    e.ga2 = vf_splat(ag * ag);
    e.gc3 = vf_splat(cg * (1.0f / 3.0f));
    e.gk = vf_splat(cg * (1.0f / 3.0f) * (ag * ag * ag));
    const unsigned mask = tile->active & ((1u << TREE_TILE_BLOCKS) - 1u);
    const int root[3] = {0, 0, 0};
    if (mask) tile_cell(&e, mask, t->levels - 1, root);
    FOR_GROUPS_IN(mask, g) {
        float ux[VF_LANES], uy[VF_LANES], uz[VF_LANES], gm[9][VF_LANES];
        vf_store(ux, e.ux[g]);
        vf_store(uy, e.uy[g]);
        vf_store(uz, e.uz[g]);
        for (int m = 0; m < 9; ++m) vf_store(gm[m], e.gj[m][g]);
        const int first = VF_LANES * (g - (int)blk_ * BLOCK_GROUPS);
        for (int k = 0; k < VF_LANES; ++k) {
            out[blk_][first + k] = (vec3){ux[k], uy[k], uz[k]};
            for (int m = 0; m < 9; ++m) out_gradient[blk_][first + k][m] = gm[m][k];
        }
    }
}

#undef FOR_GROUPS_IN
