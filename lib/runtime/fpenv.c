/* SPDX-License-Identifier: MIT */
/* Floating-point environment: the portable part (determinism rule 4,
 * docs/determinism.md).
 *
 * The internal interface (lib/runtime/runtime.h) is a 32-bit mode word per platform: the FP
 * control bits plus the sticky exception flags.
 *   eddy_fpenv_canonical(flush)  eddy's mode: round to nearest, every
 *                                exception masked, denormals flushed (FTZ+DAZ,
 *                                or FZ) when the world asks; no flags.
 *   eddy_fpenv_get / _set        read / write this thread's word, flags included,
 *                                so a restore gives the caller its flags back.
 *   eddy_fpenv_is                compares the control bits only.
 * One back end per platform, chosen by the build (CMakeLists.txt):
 * fpenv_x86_64.c (MXCSR: Linux, Windows), fpenv_aarch64.c (FPCR + FPSR), and
 * one per further platform. This file holds what does not depend on it: the
 * public save/restore API (include/eddy/fpenv.h). */
#include "runtime/runtime.h"

eddy_fp_saved eddy_fp_save(void) {
    eddy_fp_saved saved = {eddy_fpenv_get()};
    return saved;
}

void eddy_fp_restore(eddy_fp_saved saved) { eddy_fpenv_set(saved.word); }

void eddy_fp_set_ieee_default(void) { eddy_fpenv_set(eddy_fpenv_canonical(false)); }
