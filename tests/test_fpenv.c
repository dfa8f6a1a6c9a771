/* SPDX-License-Identifier: MIT */
/* Tests of the FP environment (lib/runtime/fpenv.c): canonical words, get/set, the
 * comparison that ignores sticky flags, and that the words really change the
 * arithmetic (rounding, flush-to-zero, denormals-are-zero). */
#include <criterion/criterion.h>

#include "core/core.h"

#include <float.h>

#if defined(__x86_64__) || defined(_M_X64)
#define RTZ_BITS 0x6000u /* MXCSR RC = 11 */
#define STICKY_FLAGS 0x003Fu
#elif defined(__aarch64__)
#define RTZ_BITS (3u << 22) /* FPCR RMode = 11 */
#define STICKY_FLAGS 0u     /* FPCR has none: flags live in FPSR */
#endif

/* volatile operands and results keep the compiler from folding or moving the
 * arithmetic away from the mode that is set around it. */
static volatile float g_one = 1.0f;
static volatile float g_three = 3.0f;
static volatile float g_tiny_normal = 1.5e-38f; /* just above FLT_MIN */
static volatile float g_half = 0.5f;
static volatile float g_denormal = 1.0e-40f;

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float third_in(uint32_t mode) {
    uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(mode);
    volatile float r = g_one / g_three;
    eddy_fpenv_set(saved);
    return r;
}

static float halve_tiny_in(uint32_t mode) {
    uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(mode);
    volatile float r = g_tiny_normal * g_half; /* result is denormal */
    eddy_fpenv_set(saved);
    return r;
}

static float add_denormal_in(uint32_t mode) {
    uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(mode);
    volatile float r = g_tiny_normal + g_denormal; /* normal result, denormal input */
    eddy_fpenv_set(saved);
    return r;
}

Test(fpenv, canonical_words_are_the_documented_constants) {
#if defined(__x86_64__) || defined(_M_X64)
    cr_assert_eq(eddy_fpenv_canonical(false), 0x1F80u);
    cr_assert_eq(eddy_fpenv_canonical(true), 0x1F80u | 0x8000u | 0x0040u);
#elif defined(__aarch64__)
    cr_assert_eq(eddy_fpenv_canonical(false), 0u);
    cr_assert_eq(eddy_fpenv_canonical(true), 1u << 24);
#endif
    cr_assert_neq(eddy_fpenv_canonical(true), eddy_fpenv_canonical(false));
}

Test(fpenv, set_then_get_round_trips_and_is_matches) {
    uint32_t saved = eddy_fpenv_get();
    uint32_t modes[] = {eddy_fpenv_canonical(true), eddy_fpenv_canonical(false),
                        eddy_fpenv_canonical(false) | RTZ_BITS, eddy_fpenv_canonical(true) | RTZ_BITS};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        eddy_fpenv_set(modes[i]);
        cr_assert_eq(eddy_fpenv_get() & ~STICKY_FLAGS, modes[i], "mode %zu: got 0x%x", i, eddy_fpenv_get());
        for (size_t j = 0; j < sizeof modes / sizeof modes[0]; ++j) {
            cr_assert_eq(eddy_fpenv_is(modes[j]), i == j, "eddy_fpenv_is(mode %zu) in mode %zu", j, i);
        }
    }
    eddy_fpenv_set(saved);
}

Test(fpenv, is_ignores_sticky_exception_flags) {
    uint32_t saved = eddy_fpenv_get();
    uint32_t canonical = eddy_fpenv_canonical(true);
    eddy_fpenv_set(canonical);
    volatile float inexact = g_one / g_three; /* raises the inexact flag */
    (void)inexact;
#if defined(__x86_64__) || defined(_M_X64)
    cr_assert_neq(eddy_fpenv_get() & STICKY_FLAGS, 0u, "inexact flag should be set");
    cr_assert(eddy_fpenv_is(canonical | STICKY_FLAGS));
#endif
    cr_assert(eddy_fpenv_is(canonical));
    cr_assert_not(eddy_fpenv_is(canonical | RTZ_BITS));
    eddy_fpenv_set(saved);
}

Test(fpenv, set_restores_the_full_word_including_flags) {
    uint32_t saved = eddy_fpenv_get();
    uint32_t word = eddy_fpenv_canonical(false) | RTZ_BITS | (STICKY_FLAGS & 0x21u);
    eddy_fpenv_set(word);
    cr_assert_eq(eddy_fpenv_get(), word);
    eddy_fpenv_set(saved);
    cr_assert_eq(eddy_fpenv_get(), saved);
}

Test(fpenv, rounding_mode_changes_arithmetic) {
    float nearest = third_in(eddy_fpenv_canonical(false));
    float toward_zero = third_in(eddy_fpenv_canonical(false) | RTZ_BITS);
    cr_assert_eq(float_bits(nearest), 0x3EAAAAABu);
    cr_assert_eq(float_bits(toward_zero), 0x3EAAAAAAu);
}

Test(fpenv, flush_to_zero_flushes_denormal_results) {
    cr_assert_eq(float_bits(halve_tiny_in(eddy_fpenv_canonical(true))), 0u);
    float kept = halve_tiny_in(eddy_fpenv_canonical(false));
    cr_assert(kept > 0.0f && kept < FLT_MIN, "denormal result expected without flush");
}

Test(fpenv, flush_mode_treats_denormal_inputs_as_zero) {
    float flushed = add_denormal_in(eddy_fpenv_canonical(true));
    float kept = add_denormal_in(eddy_fpenv_canonical(false));
    cr_assert_eq(float_bits(flushed), float_bits(g_tiny_normal));
    cr_assert_neq(float_bits(kept), float_bits(g_tiny_normal));
}

Test(fpenv, canonical_mode_is_per_thread_state_left_unchanged_by_queries) {
    uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(eddy_fpenv_canonical(false) | RTZ_BITS);
    (void)eddy_fpenv_canonical(true);
    (void)eddy_fpenv_is(eddy_fpenv_canonical(true));
    cr_assert(eddy_fpenv_is(eddy_fpenv_canonical(false) | RTZ_BITS));
    eddy_fpenv_set(saved);
}
