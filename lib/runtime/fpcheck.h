/* SPDX-License-Identifier: MIT */
/* Internal: refuse, at compile time, a build of lib/ whose float arithmetic
 * would not be IEEE 754 binary32 rounded once per operation (determinism
 * rule 5, docs/determinism.md). Included by lib/runtime/runtime.h, so every translation
 * unit of lib/ checks the flags it was compiled with.
 *
 * Refused, with the reason in the message:
 * - excess precision: FLT_EVAL_METHOD != 0 (x87 arithmetic: 32-bit x86
 *   without SSE, -mfpmath=387; anything evaluating float in a wider type);
 * - fast-math: __FAST_MATH__ (gcc, clang: -ffast-math, -Ofast),
 *   __FINITE_MATH_ONLY__ (-ffinite-math-only), MSVC's /fp:fast (_M_FP_FAST);
 * - contraction into FMA: MSVC's /fp:contract (_M_FP_CONTRACT); gcc in a GNU
 *   C mode (no __STRICT_ANSI__), whose default is -ffp-contract=fast, unless
 *   the build defines EDDY_FP_CONTRACT_OFF to say it passes -ffp-contract=off
 *   (CMakeLists.txt does both in one place).
 * Neutralised rather than refused: clang's -ffp-contract=on (its default):
 * the pragma below turns contraction off for the whole translation unit.
 * Not visible to the preprocessor, so covered elsewhere: gcc's and clang's
 * -ffp-contract=fast in ISO C mode, and single fast-math parts
 * (-fassociative-math, -freciprocal-math, -fno-signed-zeros) that define no
 * macro. CMakeLists.txt probes its effective flags at configure time (a*b+c
 * compiled with them, FMA instructions available, must not fuse), eddy's
 * own flags come last on every command line, and CI scans the built library
 * for FMA instructions (scripts/ci_matrix.sh). scripts/check_fp_refusal.sh
 * tries each refused build and expects its message. */
#ifndef EDDY_FPCHECK_H
#define EDDY_FPCHECK_H

#include <float.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "eddy: float arithmetic here is not plain binary32 (FLT_EVAL_METHOD != 0: x87 or excess precision); build with SSE2 float math (-msse2 -mfpmath=sse) on x86"
#endif

#if defined(__FAST_MATH__)
#error "eddy: built with -ffast-math (or -Ofast): it reorders and approximates float math, so results would differ between builds; remove it"
#endif

#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "eddy: built with -ffinite-math-only: eddy's NaN and infinity checks would be compiled away; remove it"
#endif

#if defined(_M_FP_FAST)
#error "eddy: built with /fp:fast: it reorders and approximates float math; use /fp:precise or /fp:strict"
#endif

#if defined(_M_FP_CONTRACT)
#error "eddy: built with /fp:contract: a*b+c would be fused into an FMA (one rounding instead of two); remove it"
#endif

#if defined(__GNUC__) && !defined(__clang__) && !defined(__STRICT_ANSI__) && \
    !defined(EDDY_FP_CONTRACT_OFF)
#error "eddy: gcc in a GNU C mode contracts a*b+c into FMA by default (-ffp-contract=fast); build with -std=c17, or pass -ffp-contract=off and define EDDY_FP_CONTRACT_OFF"
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#endif
