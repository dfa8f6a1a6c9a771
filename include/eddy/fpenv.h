/* SPDX-License-Identifier: MIT */
/* eddy — the calling thread's floating-point environment, portably.
 *
 * A game never needs these for deterministic results: every step sets eddy's
 * canonical mode on each thread it runs on and gives the caller its mode and
 * exception flags back (docs/determinism.md, rule 4). They exist for code
 * around eddy that must run in a known mode itself (scene builders, tools) on
 * every platform: C libraries disagree on <fenv.h> (MinGW-w64's
 * fesetenv(FE_DFL_ENV) resets the x87 unit but not SSE, where float math runs).
 *
 * The saved word is opaque: the platform's FP control bits plus its sticky
 * exception flags (MXCSR on x86-64; FPCR and FPSR on aarch64; nothing on
 * WebAssembly, whose FP mode is fixed). */
#ifndef EDDY_FPENV_H
#define EDDY_FPENV_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_fp_saved {
    uint32_t word;
} eddy_fp_saved;

/* This thread's FP mode and exception flags. */
EDDY_API eddy_fp_saved eddy_fp_save(void);
/* Put back a saved mode and its flags, exactly. */
EDDY_API void eddy_fp_restore(eddy_fp_saved saved);
/* IEEE 754's default mode: round to nearest, every exception masked,
 * denormals kept (no flush-to-zero); exception flags cleared. */
EDDY_API void eddy_fp_set_ieee_default(void);

#ifdef __cplusplus
}
#endif
#endif
