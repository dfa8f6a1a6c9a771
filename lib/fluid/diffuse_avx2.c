/* SPDX-License-Identifier: MIT */
/* The PSE exchange of one cell's homes (lib/fluid/diffuse_cell.h) with eight AVX
 * lanes. Built with -mavx2 (never -mfma) on x86-64 only; lib/fluid/diffuse.c calls
 * it when the CPU has AVX2. Same bits as the four-lane builds: every lane
 * does the scalar operations (lib/runtime/lanes8_avx.h), eddy_expf's integer
 * steps are 32-bit lane arithmetic (lib/runtime/emath_lanes.h). */
#include "runtime/lanes8_avx.h"
#include "runtime/emath_lanes.h"

#define PSE_CELL_ENTRY eddy_pse_cell_avx2
#include "fluid/diffuse_cell.h"
