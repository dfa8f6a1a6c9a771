/* SPDX-License-Identifier: MIT */
/* Floating-point environment: the canonical mode every step and every worker
 * runs in (determinism rule 4, docs/determinism.md).
 *
 * The "mode" is the architecture's FP control word as a uint32_t:
 * - x86-64: MXCSR. Canonical = round to nearest, all six exceptions masked
 *   (0x1F80), plus FTZ (bit 15) and DAZ (bit 6) when denormals are flushed.
 *   Bits 0-5 are sticky exception flags: eddy_fpenv_is ignores them, eddy_fpenv_get and
 *   eddy_fpenv_set carry them (so a restore also restores the caller's flags).
 * - aarch64: FPCR. Canonical = RMode 0 (round to nearest), no trap enables, no
 *   alternative half precision / default-NaN / FEAT_AFP bits, plus FZ (bit 24)
 *   when denormals are flushed. FZ flushes denormal inputs and outputs to zero,
 *   which matches x86's FTZ+DAZ pair. FPCR holds no status flags (they live in
 *   FPSR), so every bit counts as a control bit.
 * Any other architecture is refused at compile time rather than guessed at. */
#include "core.h"

#include <float.h>

#if defined(__x86_64__) || defined(_M_X64)

#include <xmmintrin.h>

/* float arithmetic must be SSE, never x87 with its 80-bit intermediates. */
_Static_assert(FLT_EVAL_METHOD == 0, "eddy needs FLT_EVAL_METHOD == 0 (SSE float arithmetic)");

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

#elif defined(__aarch64__)

enum {
    FPCR_FZ = 1u << 24, /* flush denormal inputs and outputs to zero */
};

static inline uint64_t fpcr_read(void) {
    uint64_t value;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(value));
    return value;
}

static inline void fpcr_write(uint64_t value) {
    __asm__ __volatile__("msr fpcr, %0" : : "r"(value) : "memory");
}

uint32_t eddy_fpenv_canonical(bool flush_denormals) {
    /* RMode 0 (nearest), traps IOE/DZE/OFE/UFE/IXE/IDE off, DN/AHP/FZ16 off. */
    return flush_denormals ? FPCR_FZ : 0u;
}

uint32_t eddy_fpenv_get(void) { return (uint32_t)fpcr_read(); }

void eddy_fpenv_set(uint32_t mode) { fpcr_write(mode); }

bool eddy_fpenv_is(uint32_t mode) { return eddy_fpenv_get() == mode; }

#elif defined(__wasm__)
/* WebAssembly: lib/fpenv_wasm.c (the build compiles it instead of this file). */
#else
#error "eddy: fpenv.c supports x86-64 (MXCSR) and aarch64 (FPCR) only; wasm: fpenv_wasm.c"
#endif
