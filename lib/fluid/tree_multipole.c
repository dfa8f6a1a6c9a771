/* SPDX-License-Identifier: MIT */
/* The multipole traversal (lib/fluid/tree_walk.h) with four lanes (SSE2, NEON or
 * plain C), and the choice of the widest build the CPU runs: the AVX build
 * (lib/fluid/tree_multipole_avx.c, eight lanes, x86-64 only) where the CPU has AVX.
 * Every build gives the same bits (tests/test_tree.c compares them), so the
 * choice is a matter of speed only. */
#include "runtime/lanes4.h"

#define TREE_WALK_ENTRY eddy_tree_velocity_tile_lanes4
#define TREE_WALK_GRADIENT_ENTRY eddy_tree_velocity_gradient_tile_lanes4
#include "fluid/tree_walk.h"

#if defined(EDDY_HAVE_TREE_AVX)
#define EDDY_CPU_HAS_AVX() __builtin_cpu_supports("avx")
#else
#define EDDY_CPU_HAS_AVX() false
#endif

bool eddy_tree_avx_available(void) { return EDDY_CPU_HAS_AVX(); }

void eddy_tree_velocity_tile(const influence_tree *t, const particle_array *v,
                             const partition *part, const tree_tile *tile, float theta, float a,
                             float c, vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]) {
#if defined(EDDY_HAVE_TREE_AVX)
    if (EDDY_CPU_HAS_AVX()) {
        eddy_tree_velocity_tile_avx(t, v, part, tile, theta, a, c, out);
        return;
    }
#endif
    eddy_tree_velocity_tile_lanes4(t, v, part, tile, theta, a, c, out);
}

void eddy_tree_velocity_gradient_tile(EDDY_TREE_GRADIENT_WALK_ARGS) {
#if defined(EDDY_HAVE_TREE_AVX)
    if (EDDY_CPU_HAS_AVX()) {
        eddy_tree_velocity_gradient_tile_avx(t, v, part, tile, theta, a, c, ag, cg, out, gradient);
        return;
    }
#endif
    eddy_tree_velocity_gradient_tile_lanes4(t, v, part, tile, theta, a, c, ag, cg, out, gradient);
}

/* One block: a tile whose only active block is b. */
void eddy_tree_velocity_block(const influence_tree *t, const particle_array *v,
                              const partition *part, const tree_block *b, float theta, float a,
                              float c, vec3 out[TREE_BLOCK_POINTS]) {
    tree_tile tile;
    memset(&tile, 0, sizeof tile);
    tile.block[0] = *b;
    tile.active = 1u;
    memcpy(tile.lo, b->lo, sizeof tile.lo);
    memcpy(tile.hi, b->hi, sizeof tile.hi);
    vec3 u[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
    eddy_tree_velocity_tile(t, v, part, &tile, theta, a, c, u);
    memcpy(out, u[0], sizeof u[0]);
}
