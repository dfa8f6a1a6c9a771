/* SPDX-License-Identifier: MIT */
/* eddy — deterministic math for code that feeds the simulation.
 *
 * libm's transcendental functions differ between libm versions and
 * architectures, so nothing that affects eddy's state calls them. These
 * replacements use only + - * / and sqrtf (correctly rounded) in a fixed
 * order: the same bits on every machine and build. Games can use them to
 * compute their own inputs (emitter positions, kinematic paths) reproducibly.
 * Accuracy is measured in tests/test_emath.c and stated in docs/math.md. */
#ifndef EDDY_MATH_FUNCTIONS_H
#define EDDY_MATH_FUNCTIONS_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

EDDY_API float eddy_expf(float x);
EDDY_API float eddy_logf(float x);   /* x > 0 */
EDDY_API float eddy_cbrtf(float x);
EDDY_API float eddy_sinf(float x);
EDDY_API float eddy_cosf(float x);
EDDY_API float eddy_tanhf(float x);
EDDY_API float eddy_atan2f(float y, float x);

/* PCG32 (O'Neill): 64-bit state, odd stream increment. Plain data, so it can
 * live inside a world, be hashed and snapshotted. */
typedef struct eddy_rng {
    uint64_t state;
    uint64_t inc;
} eddy_rng;

EDDY_API eddy_rng eddy_rng_seed(uint64_t seed, uint64_t stream);
EDDY_API uint32_t eddy_rng_next_u32(eddy_rng *rng);
/* Uniform in [0, 1): the top 24 bits of a draw times 2^-24. */
EDDY_API float eddy_rng_next_float(eddy_rng *rng);
/* Uniform in [-s/2, s/2): s * (next_float - 0.5). */
EDDY_API float eddy_rng_spread(eddy_rng *rng, float s);
/* Skips `draws` draws in O(log draws) steps: afterwards the generator gives
 * what it would have given after `draws` calls of eddy_rng_next_u32. */
EDDY_API void eddy_rng_advance(eddy_rng *rng, uint64_t draws);

#ifdef __cplusplus
}
#endif
#endif
