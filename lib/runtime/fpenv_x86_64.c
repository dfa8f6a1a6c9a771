/* SPDX-License-Identifier: MIT */
/* The FP environment on x86-64 (Linux, Windows, macOS): MXCSR.
 *
 * One back end of the internal interface declared in lib/runtime/runtime.h (the others:
 * fpenv_aarch64.c, and one per further platform), chosen by the build. The
 * canonical mode and what the mode word means: lib/runtime/fpenv.c.
 *
 * The mode word is MXCSR itself. Canonical = round to nearest, all six
 * exceptions masked (0x1F80), plus FTZ (bit 15) and DAZ (bit 6) when denormals
 * are flushed. Bits 0-5 are the sticky exception flags: eddy_fpenv_is ignores
 * them, eddy_fpenv_get and eddy_fpenv_set carry them (so a restore also
 * restores the caller's flags).
 *
 * _mm_getcsr/_mm_setcsr are the SSE intrinsics every x86-64 compiler has (gcc,
 * clang, MSVC): no inline assembly, and no <fenv.h>, whose fesetenv differs
 * between C libraries (MinGW-w64's fesetenv(FE_DFL_ENV) resets only x87). The
 * x87 unit is never used for float arithmetic (FLT_EVAL_METHOD == 0, checked
 * in fpenv.c), so its control word does not matter to eddy. */
#include "runtime/runtime.h"

#include <xmmintrin.h>

#if !(defined(__x86_64__) || defined(_M_X64))
#error "eddy: lib/runtime/fpenv_x86_64.c is the x86-64 FP environment; the build picked the wrong file"
#endif

enum {
    MXCSR_FLAGS = 0x003Fu,       /* sticky exception flags, not control */
    MXCSR_DAZ = 0x0040u,         /* denormal inputs are zero */
    MXCSR_MASK_ALL = 0x1F80u,    /* all exceptions masked, round to nearest */
    MXCSR_FTZ = 0x8000u,         /* denormal results flush to zero */
    MXCSR_CONTROL = 0xFFC0u,     /* DAZ, masks, rounding, FTZ */
};

uint32_t eddy_fpenv_canonical(bool flush_denormals) {
    uint32_t mode = MXCSR_MASK_ALL;
    if (flush_denormals) {
        mode |= MXCSR_FTZ | MXCSR_DAZ;
    }
    return mode;
}

uint32_t eddy_fpenv_get(void) { return (uint32_t)_mm_getcsr(); }

void eddy_fpenv_set(uint32_t mode) { _mm_setcsr((unsigned int)mode); }

bool eddy_fpenv_is(uint32_t mode) {
    return ((eddy_fpenv_get() ^ mode) & MXCSR_CONTROL) == 0;
}
