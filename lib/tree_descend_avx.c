/* SPDX-License-Identifier: MIT */
/* The original treecode traversal for a block (lib/tree_descend_walk.h) with
 * eight AVX lanes: one group per block instead of two. Built with -mavx
 * (never -mfma) on x86-64 only; lib/tree_descend.c calls it when the CPU has
 * AVX. Same bits as the four-lane builds: lib/tree_lanes8_avx.h. */
#include "tree_lanes8_avx.h"

#define TREE_DESCEND_ENTRY eddy_tree_velocity_descend_avx
#include "tree_descend_walk.h"
