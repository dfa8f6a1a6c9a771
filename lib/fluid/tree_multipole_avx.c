/* SPDX-License-Identifier: MIT */
/* The multipole traversal (lib/fluid/tree_walk.h) with eight AVX lanes: one group
 * per block instead of two. Built with -mavx (never -mfma) on x86-64 only;
 * lib/fluid/tree_multipole.c calls it when the CPU has AVX. Same bits as the four-
 * lane builds: lib/runtime/lanes8_avx.h. */
#include "runtime/lanes8_avx.h"

#define TREE_WALK_ENTRY eddy_tree_velocity_tile_avx
#define TREE_WALK_GRADIENT_ENTRY eddy_tree_velocity_gradient_tile_avx
#include "fluid/tree_walk.h"
