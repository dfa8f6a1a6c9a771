/* SPDX-License-Identifier: MIT */
/* Tests of eddy's PCG32 (lib/runtime/prng.c): the reference sequence, an independent
 * re-implementation, the float mappings and rough uniformity. */
#include <criterion/criterion.h>

#include <stdint.h>

#include "eddy/math_functions.h"

/* ---------------------------------------------------------------- reference */

/* The reference algorithm written out the plain way (pcg_basic.c's
 * pcg32_srandom_r / pcg32_random_r), kept separate from lib/runtime/prng.c. */
typedef struct ref_pcg32 {
    uint64_t state, inc;
} ref_pcg32;

static uint32_t ref_next(ref_pcg32 *g) {
    uint64_t oldstate = g->state;
    g->state = oldstate * 6364136223846793005ULL + g->inc;
    uint32_t xorshifted = (uint32_t)(((oldstate >> 18u) ^ oldstate) >> 27u);
    uint32_t rot = (uint32_t)(oldstate >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

static ref_pcg32 ref_seed(uint64_t initstate, uint64_t initseq) {
    ref_pcg32 g = {0u, (initseq << 1u) | 1u};
    ref_next(&g);
    g.state += initstate;
    ref_next(&g);
    return g;
}

/* A state whose next output is 0xffffffff: rotation 0 (top five bits clear)
 * and bits 27..58 of state ^ (state >> 18) all set. */
static uint64_t state_giving_all_ones(void) {
    uint64_t s = 0;
    for (int i = 58; i >= 27; i--) {
        uint64_t above = i + 18 <= 63 ? (s >> (i + 18)) & 1u : 0u;
        s |= (1u ^ above) << i;
    }
    return s;
}

/* ---------------------------------------------------------------- sequence */

Test(prng, published_pcg32_demo_sequence) {
    /* pcg32-demo / pcg32-global-demo, pcg32_srandom_r(&rng, 42u, 54u). */
    static const uint32_t expected[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                         0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    eddy_rng rng = eddy_rng_seed(42u, 54u);
    for (int i = 0; i < 6; i++) {
        uint32_t got = eddy_rng_next_u32(&rng);
        cr_assert_eq(got, expected[i], "draw %d: 0x%08x, expected 0x%08x", i, got, expected[i]);
    }
}

Test(prng, reference_implementation_agrees) {
    static const uint64_t seeds[][2] = {
        {42u, 54u}, {0u, 0u}, {1u, 1u}, {0xffffffffffffffffu, 0xffffffffffffffffu},
        {0x853c49e6748fea9bu, 0xda3e39cb94b95bdbu}, {12345u, 0x8000000000000000u},
    };
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        eddy_rng rng = eddy_rng_seed(seeds[k][0], seeds[k][1]);
        ref_pcg32 ref = ref_seed(seeds[k][0], seeds[k][1]);
        cr_assert_eq(rng.state, ref.state, "seed %zu: state after seeding", k);
        cr_assert_eq(rng.inc, ref.inc, "seed %zu: increment", k);
        for (int i = 0; i < 100000; i++) {
            uint32_t a = eddy_rng_next_u32(&rng);
            uint32_t b = ref_next(&ref);
            cr_assert_eq(a, b, "seed %zu draw %d: 0x%08x vs reference 0x%08x", k, i, a, b);
        }
        cr_assert_eq(rng.state, ref.state);
    }
}

Test(prng, streams_and_seeds_differ) {
    eddy_rng a = eddy_rng_seed(7u, 1u);
    eddy_rng b = eddy_rng_seed(7u, 2u);
    eddy_rng c = eddy_rng_seed(8u, 1u);
    cr_assert_neq(a.inc, b.inc);
    int same_ab = 0, same_ac = 0;
    for (int i = 0; i < 1000; i++) {
        uint32_t x = eddy_rng_next_u32(&a), y = eddy_rng_next_u32(&b), z = eddy_rng_next_u32(&c);
        same_ab += x == y;
        same_ac += x == z;
    }
    cr_assert_leq(same_ab, 1);
    cr_assert_leq(same_ac, 1);
}

Test(prng, state_is_plain_data) {
    /* Copying the struct snapshots the generator: both copies continue alike. */
    eddy_rng a = eddy_rng_seed(99u, 3u);
    for (int i = 0; i < 17; i++) {
        (void)eddy_rng_next_u32(&a);
    }
    eddy_rng b = a;
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(eddy_rng_next_u32(&a), eddy_rng_next_u32(&b));
    }
}

/* ---------------------------------------------------------------- floats */

Test(prng, float_extremes) {
    eddy_rng zero = {0u, 1u}; /* state 0 outputs 0 */
    eddy_rng r = zero;
    cr_assert_eq(eddy_rng_next_u32(&r), 0u);
    r = zero;
    cr_assert_eq(eddy_rng_next_float(&r), 0.0f);
    r = zero;
    cr_assert_eq(eddy_rng_spread(&r, 2.0f), -1.0f);

    eddy_rng ones = {state_giving_all_ones(), 1u};
    r = ones;
    cr_assert_eq(eddy_rng_next_u32(&r), 0xffffffffu);
    r = ones;
    float f = eddy_rng_next_float(&r);
    cr_assert_eq(f, 1.0f - 0x1p-24f, "largest float draw %a", (double)f);
    cr_assert_lt(f, 1.0f);
    static const float spreads[] = {1.0f, 2.0f, 3.0f, 0.1f, 1000.0f, 3.0e38f};
    for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; k++) {
        float s = spreads[k];
        r = ones;
        float top = eddy_rng_spread(&r, s);
        cr_assert_lt(top, 0.5f * s, "spread(%g) top %a", (double)s, (double)top);
        r = zero;
        cr_assert_eq(eddy_rng_spread(&r, s), -0.5f * s);
    }
}

Test(prng, float_is_top_24_bits) {
    eddy_rng a = eddy_rng_seed(2024u, 11u);
    eddy_rng b = a;
    for (int i = 0; i < 100000; i++) {
        uint32_t u = eddy_rng_next_u32(&a);
        float f = eddy_rng_next_float(&b);
        cr_assert_eq(f, (float)(u >> 8) / 16777216.0f);
    }
}

Test(prng, float_range_and_moments) {
    enum { N = 1000000 };
    eddy_rng rng = eddy_rng_seed(0x2545f4914f6cdd1du, 0u);
    double sum = 0.0, sum2 = 0.0;
    float lo = 1.0f, hi = 0.0f;
    int bins[64] = {0};
    for (int i = 0; i < N; i++) {
        float f = eddy_rng_next_float(&rng);
        cr_assert(f >= 0.0f && f < 1.0f, "draw %d = %a", i, (double)f);
        lo = f < lo ? f : lo;
        hi = f > hi ? f : hi;
        sum += (double)f;
        sum2 += (double)f * (double)f;
        bins[(int)(f * 64.0f)]++;
    }
    double mean = sum / N;
    double var = sum2 / N - mean * mean;
    /* standard errors: mean 2.9e-4, variance 7.5e-5; bounds are ~5 sigma */
    cr_assert(mean > 0.4985 && mean < 0.5015, "mean %.6f", mean);
    cr_assert(var > 1.0 / 12.0 - 4e-4 && var < 1.0 / 12.0 + 4e-4, "variance %.6f", var);
    cr_assert_lt(lo, 1e-5f);
    cr_assert_gt(hi, 1.0f - 1e-5f);
    /* chi-square over 64 bins, 63 degrees of freedom: 99.99% quantile ~ 115 */
    double chi2 = 0.0, expect = N / 64.0;
    for (int b = 0; b < 64; b++) {
        chi2 += (bins[b] - expect) * (bins[b] - expect) / expect;
    }
    cr_assert_lt(chi2, 115.0, "chi-square %.1f", chi2);
}

Test(prng, spread_range_and_moments) {
    enum { N = 1000000 };
    const float s = 3.5f;
    eddy_rng rng = eddy_rng_seed(5u, 77u);
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < N; i++) {
        float v = eddy_rng_spread(&rng, s);
        cr_assert(v >= -0.5f * s && v < 0.5f * s, "draw %d = %a", i, (double)v);
        sum += (double)v;
        sum2 += (double)v * (double)v;
    }
    double mean = sum / N;
    double var = sum2 / N - mean * mean;
    double want_var = (double)s * (double)s / 12.0;
    cr_assert(mean > -0.0055 && mean < 0.0055, "mean %.6f", mean); /* 5 sigma: 5.1e-3 */
    cr_assert(var > want_var * 0.995 && var < want_var * 1.005, "variance %.6f vs %.6f", var,
              want_var);
}

Test(prng, successive_draws_uncorrelated) {
    enum { N = 1000000 };
    eddy_rng rng = eddy_rng_seed(31337u, 5u);
    double prev = (double)eddy_rng_next_float(&rng) - 0.5;
    double sxy = 0.0;
    for (int i = 0; i < N; i++) {
        double cur = (double)eddy_rng_next_float(&rng) - 0.5;
        sxy += prev * cur;
        prev = cur;
    }
    double corr = sxy / N * 12.0; /* lag-1 correlation; standard error 1e-3 */
    cr_assert(corr > -0.005 && corr < 0.005, "lag-1 correlation %.5f", corr);
}

/* ---------------------------------------------------------------- advance */

/* Skipping k draws leaves the generator where k draws would, for every
 * count of bits in k (and 0), on several streams. */
Test(prng, advance_equals_that_many_draws) {
    static const uint64_t counts[] = {0, 1, 2, 3, 7, 8, 64, 1000, 65535, 123457, 1u << 20};
    static const uint64_t streams[] = {0, 54, 0x9e3779b97f4a7c15ULL};
    for (size_t s = 0; s < sizeof streams / sizeof streams[0]; ++s)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
            eddy_rng skipped = eddy_rng_seed(42u + s, streams[s]), drawn = skipped;
            eddy_rng_advance(&skipped, counts[c]);
            for (uint64_t k = 0; k < counts[c]; ++k) eddy_rng_next_u32(&drawn);
            cr_expect_eq(skipped.state, drawn.state, "stream %llu, %llu draws",
                         (unsigned long long)streams[s], (unsigned long long)counts[c]);
            cr_expect_eq(skipped.inc, drawn.inc);
            cr_expect_eq(eddy_rng_next_u32(&skipped), eddy_rng_next_u32(&drawn));
        }
}

/* Two skips make one: the maps compose. */
Test(prng, advances_add_up) {
    eddy_rng a = eddy_rng_seed(7u, 11u), b = a;
    eddy_rng_advance(&a, 1000003u);
    eddy_rng_advance(&a, 99991u);
    eddy_rng_advance(&b, 1000003u + 99991u);
    cr_expect_eq(a.state, b.state);
}
