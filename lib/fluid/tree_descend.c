/* SPDX-License-Identifier: MIT */
/* The original treecode traversal for a block of grid points in lanes
 * (lib/fluid/tree_descend_walk.h) with four lanes (SSE2, NEON or plain C): a block
 * of 2x2x2 points is two groups of four (its z = 0 and z = 1 layers), and a
 * group none of whose lanes takes a cell skips the kernel. Every build gives
 * the bits of eddy_tree_velocity_at at each point (tests/test_tree.c compares
 * them). An eight-lane AVX build of the same walk was measured slower than
 * this one on x86-64 (bench/RESULTS.md), so there is none. A one-cell tree has
 * nothing to walk: its points go through the scalar eddy_tree_velocity_at. */
#include "runtime/lanes4.h"

#define TREE_DESCEND_ENTRY eddy_tree_velocity_descend_lanes4
#include "fluid/tree_descend_walk.h"

void eddy_tree_velocity_descend_block(const influence_tree *t, const tree_block *b, float a,
                                      float c, vec3 out[TREE_BLOCK_POINTS]) {
    if (t->levels < 2) {
        for (int k = 0; k < TREE_BLOCK_POINTS; ++k)
            out[k] = eddy_tree_velocity_at(t, b->qx[k], b->qy[k], b->qz[k], a, c);
        return;
    }
    eddy_tree_velocity_descend_lanes4(t, b, a, c, out);
}
