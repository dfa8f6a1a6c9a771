/* SPDX-License-Identifier: MIT */
/* The original treecode traversal for a block (lib/fluid/tree_descend_walk.h) in
 * plain C lanes on every platform: a reference the SIMD builds must match bit
 * for bit, as must the scalar eddy_tree_velocity_at (tests/test_tree.c). The
 * step never calls it where SIMD lanes exist. */
#define EDDY_TREE_PLAIN_LANES 1
#include "runtime/lanes4.h"

#define TREE_DESCEND_ENTRY eddy_tree_velocity_descend_plain
#include "fluid/tree_descend_walk.h"
