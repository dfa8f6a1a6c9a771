/* SPDX-License-Identifier: MIT */
/* The original treecode traversal for a block of grid points in lanes
 * (lib/tree_descend_walk.h) with four lanes (SSE2, NEON or plain C), and the
 * choice of the widest build the CPU runs: the AVX build
 * (lib/tree_descend_avx.c, eight lanes, x86-64 only) where the CPU has AVX.
 * Every build gives the bits of eddy_tree_velocity_at at each point
 * (tests/test_tree.c compares them), so the choice is a matter of speed only.
 * A one-cell tree has nothing to walk: its points go through the scalar
 * eddy_tree_velocity_at. */
#include "tree_lanes4.h"

#define TREE_DESCEND_ENTRY eddy_tree_velocity_descend_lanes4
#include "tree_descend_walk.h"

#if defined(EDDY_HAVE_TREE_AVX)
#define EDDY_CPU_HAS_AVX() __builtin_cpu_supports("avx")
#else
#define EDDY_CPU_HAS_AVX() false
#endif

void eddy_tree_velocity_descend_block(const influence_tree *t, const tree_block *b, float a,
                                      float c, vec3 out[TREE_BLOCK_POINTS]) {
    if (t->levels < 2) {
        for (int k = 0; k < TREE_BLOCK_POINTS; ++k)
            out[k] = eddy_tree_velocity_at(t, b->qx[k], b->qy[k], b->qz[k], a, c);
        return;
    }
#if defined(EDDY_HAVE_TREE_AVX)
    if (EDDY_CPU_HAS_AVX()) {
        eddy_tree_velocity_descend_avx(t, b, a, c, out);
        return;
    }
#endif
    eddy_tree_velocity_descend_lanes4(t, b, a, c, out);
}
