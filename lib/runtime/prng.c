/* SPDX-License-Identifier: MIT */
/* PCG32 (O'Neill, "PCG: A Family of Simple Fast Space-Efficient Statistically
 * Good Algorithms for Random Number Generation"): the PCG-XSH-RR variant with
 * 64-bit state and 32-bit output, the generator of the reference pcg32_random_r.
 *
 * The state advances by the 64-bit LCG state = state * 6364136223846793005 +
 * inc (inc odd, chosen by the stream); the output is a permutation of the old
 * state: xorshift high bits down, then rotate right by the top five bits. All
 * of it is unsigned 64-bit integer arithmetic (wrapping is defined), so the
 * sequence is the same on every platform. Seeding follows pcg32_srandom_r, so
 * (seed, stream) gives the sequence the reference implementation gives.
 *
 * Skipping ahead: k steps of the LCG are one affine map state -> A state + C
 * with A = a^k and C = c (a^(k-1) + ... + a + 1), both mod 2^64. The map of
 * 2^j steps is the square of the map of 2^(j-1) steps, so the map of k steps
 * is the product of the squares picked by the bits of k (Brown, "Random
 * Number Generation with Arbitrary Strides", 1994).
 *
 * Floats use the top 24 bits of a draw: k * 2^-24 for k in [0, 2^24) is exact
 * in binary32, uniform on [0, 1), and 1 itself is never returned. */
#include "runtime/runtime.h"

static const uint64_t PCG32_MULTIPLIER = UINT64_C(6364136223846793005);

static inline void rng_step(eddy_rng *rng) {
    rng->state = rng->state * PCG32_MULTIPLIER + rng->inc;
}

static inline uint32_t rotate_right(uint32_t value, unsigned rot) {
    return (value >> rot) | (value << ((32u - rot) & 31u));
}

eddy_rng eddy_rng_seed(uint64_t seed, uint64_t stream) {
    eddy_rng rng;
    rng.state = 0;
    rng.inc = (stream << 1) | 1u;
    rng_step(&rng);
    rng.state += seed;
    rng_step(&rng);
    return rng;
}

uint32_t eddy_rng_next_u32(eddy_rng *rng) {
    uint64_t old = rng->state;
    rng_step(rng);
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    unsigned rot = (unsigned)(old >> 59);
    return rotate_right(xorshifted, rot);
}

float eddy_rng_next_float(eddy_rng *rng) {
    return (float)(eddy_rng_next_u32(rng) >> 8) * 0x1p-24f;
}

float eddy_rng_spread(eddy_rng *rng, float s) {
    /* next_float - 0.5 is exact (a multiple of 2^-24 in [-0.5, 0.5)). */
    return s * (eddy_rng_next_float(rng) - 0.5f);
}

void eddy_rng_advance(eddy_rng *rng, uint64_t draws) {
    uint64_t mult = 1u, plus = 0u;                      /* the map of the steps taken so far */
    uint64_t step_mult = PCG32_MULTIPLIER, step_plus = rng->inc; /* the map of 2^j steps */
    for (; draws > 0; draws >>= 1) {
        if (draws & 1u) {
            mult *= step_mult;
            plus = plus * step_mult + step_plus;
        }
        step_plus = (step_mult + 1u) * step_plus;
        step_mult *= step_mult;
    }
    rng->state = mult * rng->state + plus;
}
