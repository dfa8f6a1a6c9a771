/* SPDX-License-Identifier: MIT */
/* The multipole traversal (lib/fluid/tree_walk.h) in plain C lanes on every
 * platform: the reference the SIMD builds must match bit for bit
 * (tests/test_tree.c). The step never calls it where SIMD lanes exist. */
#define EDDY_TREE_PLAIN_LANES 1
#include "runtime/lanes4.h"

#define TREE_WALK_ENTRY eddy_tree_velocity_tile_plain
#define TREE_WALK_GRADIENT_ENTRY eddy_tree_velocity_gradient_tile_plain
#include "fluid/tree_walk.h"
