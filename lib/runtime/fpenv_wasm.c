/* SPDX-License-Identifier: MIT */
/* Floating-point environment on WebAssembly: fixed by the platform.
 *
 * Design note. WebAssembly's float arithmetic has one mode only: IEEE 754
 * binary32/binary64, round to nearest even, denormals kept (gradual
 * underflow, never flushed), no exception traps and no status flags a
 * program can read (the specification has no FP control or status register).
 * So there is nothing to save, set or restore: every thread is always in the
 * one mode eddy's canonical mode (docs/determinism.md, rule 4) stands for
 * with `flush_denormals = false`, which is the default.
 *
 * A world that asks for `flush_denormals = true` cannot be given it here;
 * eddy_world_create refuses it on this platform (EDDY_FPENV_CAN_FLUSH in
 * lib/runtime/runtime.h).
 * Mode words are therefore always 0: "the fixed mode". */
#include "runtime/runtime.h"

#include <float.h>

#if !defined(__wasm__)
#error "eddy: lib/runtime/fpenv_wasm.c is the WebAssembly FP environment; other platforms use lib/runtime/fpenv.c"
#endif

_Static_assert(FLT_EVAL_METHOD == 0, "eddy needs FLT_EVAL_METHOD == 0 (binary32 float arithmetic)");

uint32_t eddy_fpenv_canonical(bool flush_denormals) {
    (void)flush_denormals; /* refused at world creation: wasm keeps denormals */
    return 0u;
}

uint32_t eddy_fpenv_get(void) { return 0u; }

void eddy_fpenv_set(uint32_t mode) { (void)mode; }

bool eddy_fpenv_is(uint32_t mode) { return mode == 0u; }
