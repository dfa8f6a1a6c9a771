/* SPDX-License-Identifier: MIT */
/* Deterministic elementary functions (determinism rules 5 and 6, ALGORITHM D2).
 *
 * Design note
 * -----------
 * Every function here is a fixed sequence of IEEE-754 operations: + - * /,
 * conversions, and integer operations on the bit pattern (read and written
 * through memcpy). No libm call, no FMA (the build passes -ffp-contract=off and
 * the code never asks for fma), no table that depends on the platform. Each
 * basic operation is correctly rounded, so the same sequence gives the same
 * bits on every IEEE machine, compiler and optimisation level. Results are
 * specified for round-to-nearest, the mode eddy's steps run in.
 *
 * Floating-point mode independence. The library may run with flush-to-zero
 * (FTZ+DAZ on x86, FZ on aarch64). x86 and aarch64 decide "tiny" differently
 * (after versus before rounding), so an operation whose exact result lies
 * just below FLT_MIN could flush on one and not on the other. The functions
 * are written so that, for normal arguments, no float operation produces a
 * subnormal that can reach the result: tiny arguments take an early exit that
 * returns the argument itself (sin, tanh, atan's kernel), exp builds its
 * result by adding to the exponent field and flushes results below FLT_MIN to
 * 0, atan2 returns +-0 / +-pi when |y/x| < 2^-120 and scales tiny operands
 * before subtracting them. Subnormal arguments are honoured when the mode
 * keeps them and read as zero when it flushes them, the same on both ISAs.
 *
 * Method per function (coefficients: my own minimax fits, computed with a
 * Remez exchange in double precision against the exact function, then rounded
 * to the working precision; the fit errors quoted are before rounding):
 *
 * expf   x = k ln2 + r, k = round(x / ln2) (by adding 1.5 2^23), |r| <= 0.347.
 *        ln2 is split Cody-Waite style into a 15-bit head (k * head is exact
 *        for |k| <= 128 and x - k * head is exact by Sterbenz) and a float
 *        tail. exp(r) = 1 + (r + r^2 P(r)), P of degree 4 (relative fit error
 *        2^-28.3) in a fixed Estrin-like grouping; the unrounded head and tail
 *        of r enter the final sums. 2^k is applied by adding k to the exponent
 *        field, which is exact and mode independent. x > 88.7228317 -> +inf,
 *        x < -87.3365402 (result below FLT_MIN) -> +0, NaN -> NaN. One
 *        well-predicted branch on the hot path (the PSE loop).
 * logf   x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
 *        s = f / (2 + f), log(1 + f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)),
 *        R(s^2) = 2s^2/3 + 2s^4/5 + ... fitted with 3 terms (abs error
 *        2^-29.2 on s^2 <= 0.0295). e ln2 uses the same split as expf.
 *        x < 0 -> NaN, +-0 -> -inf, +inf -> +inf, subnormals are scaled first.
 * cbrtf  x = 2^(3q + i) m, i in {0,1,2}; x' = 2^i m in [1, 8). A quadratic in m
 *        times 2^(i/3) gives y0 (2^-10.6); y0 is rounded to 8 significant
 *        bits, so t = y0^3 is exact in float and so is x' - t (Sterbenz). With
 *        e = (x' - t) / t, cbrt(x') = y0 (1 + e)^(1/3) and the binomial series
 *        to e^3 (|e| < 0.014, truncation 2^-29) corrects y0. The result is
 *        rounded once at the end: exact cubes come out exact. 2^q is added to
 *        the exponent field; the sign is copied; +-0, +-inf, NaN pass through.
 * sinf,  argument reduction by Payne-Hanek in integers: x = m 2^E, and
 * cosf   x (2/pi) mod 4 is formed exactly enough (62 fraction bits) from the
 *        24-bit m times a 96-bit window of the bits of 2/pi. This is exact for
 *        every finite float, not only small ones. The reduced r in [-pi/4,
 *        pi/4] and the kernels sin r = r + r^3 S(r^2), cos r = 1 + r^2 C(r^2)
 *        (4 terms each, relative fit error 2^-37.5 and 2^-33.9) are evaluated
 *        in double, then rounded once to float. Why double here: the reduced
 *        argument near a multiple of pi/2 needs far more than 24 bits; binary64
 *        + - * and int64 -> double conversion are as deterministic as binary32
 *        on x86-64 (SSE2) and aarch64, none of the values comes near the
 *        double subnormal range, and the float result is one correctly rounded
 *        conversion. |x| < 2^-12 returns x (sin) and 1 (cos); +-inf -> NaN.
 * tanhf  |x| < 2^-12: x. |x| <= 0.55: x + x^3 P(x^2), 5 terms (relative fit
 *        error 2^-29.8). |x| < 9.1: 1 - 2 / (expf(2|x|) + 1). Beyond: +-1.
 *        Odd by construction (computed on |x|, sign copied).
 * atan2f t = min(|x|,|y|) / max(|x|,|y|) in [0, 1]. atan t = b + atan v with
 *        b = 0, v = t (t <= 7/16); b = atan(1/2), v = (2t - 1) / (2 + t)
 *        (t <= 11/16); b = pi/4, v = (t - 1) / (t + 1) (above), v formed from
 *        |x| and |y| where the subtraction is exact. The kernel
 *        atan v = v + v^3 P(v^2) (5 terms, relative fit error 2^-29.6) sees
 *        |v| <= 7/16. The octant and the signs of x and y turn the result into
 *        c + s atan v, the 12 possible c each a float head plus tail. All
 *        quadrants, +-0 and +-inf per C99 Annex F; NaN in -> that NaN out.
 *
 * A NaN argument is returned unchanged (no arithmetic on it). A NaN that is
 * created here (log of a negative number, sin of infinity) is the constant
 * quiet NaN 0x7fc00000: x86 and aarch64 would otherwise create NaNs of
 * different signs.
 *
 * Measured accuracy, max error in ulps of the exact result over every float
 * of the range (docs/math.md; asserted by tests/test_emath.c): expf 0.920,
 * logf 0.840, cbrtf 0.516, sinf/cosf 0.501, tanhf 1.42, atan2f 1.50 (sampled). */
#include "runtime/runtime.h"

#include "runtime/emath_lanes.h"

/* ---------------------------------------------------------------- bits */

static inline uint32_t f2u(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float u2f(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Outside the enum: ISO C enumerators are ints (MSVC makes it wrap to INT_MIN). */
#define SIGN_MASK UINT32_C(0x80000000)
enum {
    ABS_MASK = 0x7fffffffu,
    EXP_FIELD = 0x7f800000u, /* +inf */
    MANT_MASK = 0x007fffffu,
    MIN_NORMAL = 0x00800000u,
    QUIET_NAN = 0x7fc00000u,
};

static inline float make_nan(void) { return u2f(QUIET_NAN); }
static inline float make_inf(void) { return u2f(EXP_FIELD); }

/* y * 2^k by adding k to the exponent field. Exact; the caller guarantees the
 * result is a normal number. */
static inline float scale_exponent(float y, int k) {
    return u2f(f2u(y) + ((uint32_t)k << 23));
}

/* ---------------------------------------------------------------- exp */
/* The constants are in lib/runtime/emath_lanes.h, shared with vf_expf. */

static float expf_special(float x) {
    if (x != x) {
        return x;
    }
    return x > 0.0f ? make_inf() : 0.0f;
}

float eddy_expf(float x) {
    if (!(x >= EXP_MIN && x <= EXP_MAX)) {
        return expf_special(x);
    }
    /* k = round(x / ln2): adding 1.5 2^23 leaves no fraction bits, so the
     * sum is rounded to an integer, read back exactly as float and as bits. */
    float h = x * LOG2E;
    float t = h + ROUND_MAGIC;
    float kf = t - ROUND_MAGIC;
    uint32_t k = f2u(t) - f2u(ROUND_MAGIC); /* k mod 2^32 */
    float r_hi = x - kf * LN2_HI; /* exact */
    float r_lo = kf * LN2_LO;
    float r = r_hi - r_lo;
    /* Estrin-like grouping: shorter dependency chain, fixed order. */
    float r2 = r * r;
    float p = (E2 + r * E3) + r2 * ((E4 + r * E5) + r2 * E6);
    /* r_hi and r_lo enter the sum unrounded; r only feeds the r^2 term. */
    float er = 1.0f + (r_hi + (r2 * p - r_lo));
    /* k = 128 only with r < 0 (er < 1) and k = -126 only with r > 0 (er > 1),
     * so adding k to the exponent field always gives a normal float. */
    return u2f(f2u(er) + (k << 23));
}

void eddy_expf_array(const float *x, float *out, int n) {
    int j = 0;
    for (; j + VF_LANES <= n; j += VF_LANES) vf_store(out + j, vf_expf(vf_load(x + j)));
    for (; j < n; ++j) out[j] = eddy_expf(x[j]);
}

/* ---------------------------------------------------------------- log */

/* R(z) = z (L1 + L2 z + L3 z^2) ~ (log((1+s)/(1-s)) - 2s) / s, z = s^2 */
static const float L1 = 0.66666776f;
static const float L2 = 0.39977533f;
static const float L3 = 0.29871973f;

/* log(2^e * m) for normal positive x given as bits, e adjusted by e_bias. */
static float logf_normal(uint32_t ux, int e_bias) {
    uint32_t mant = ux & MANT_MASK;
    /* m in [sqrt(1/2), sqrt(2)): mantissas at or above that of sqrt(2) are
     * halved and e incremented. hi = 1 exactly when mant >= 0x3504f4. */
    uint32_t hi = (mant + (0x00800000u - 0x003504f4u)) >> 23;
    int e = (int)(ux >> 23) - 127 + (int)hi + e_bias;
    float m = u2f(mant | (0x3f800000u - (hi << 23)));
    float f = m - 1.0f; /* exact */
    float s = f / (2.0f + f);
    float z = s * s;
    float R = z * (L1 + z * (L2 + z * L3));
    float hfsq = 0.5f * f * f;
    float ef = (float)e;
    return ef * LN2_HI - ((hfsq - (s * (hfsq + R) + ef * LN2_LO)) - f);
}

float eddy_logf(float x) {
    uint32_t ux = f2u(x);
    if (ux - MIN_NORMAL < EXP_FIELD - MIN_NORMAL) { /* positive normal */
        return logf_normal(ux, 0);
    }
    if (x != x) {
        return x;
    }
    if (x == 0.0f) { /* also a subnormal when denormals are flushed */
        return -make_inf();
    }
    if (ux & SIGN_MASK) {
        return make_nan();
    }
    if (ux == EXP_FIELD) {
        return x;
    }
    return logf_normal(f2u(x * 33554432.0f), -25); /* subnormal: x 2^25 */
}

/* ---------------------------------------------------------------- cbrt */

/* cbrt(m) ~ C0 + C1 m + C2 m^2 on [1, 2), relative error 2^-10.6 */
static const float C0 = 0.62151361f;
static const float C1 = 0.43944186f;
static const float C2 = -0.060319401f;
static const float CBRT_2_POW[3] = {1.0f, 1.25992107f, 1.58740103f}; /* 2^(i/3) */

/* cbrt of x' = 2^i * m, m = 1.mant in [1, 2), i in {0,1,2}: a float in [1, 2]. */
static float cbrt_reduced(uint32_t mant, int i) {
    float m = u2f(mant | 0x3f800000u);
    float xr = u2f(mant | ((uint32_t)(127 + i) << 23));
    float y0 = (C0 + m * (C1 + m * C2)) * CBRT_2_POW[i];
    /* Round y0 to 8 significant bits (integer add-and-mask: ties away). */
    y0 = u2f((f2u(y0) + 0x8000u) & 0xffff0000u);
    float t = y0 * y0 * y0; /* exact: 8 + 8 + 8 bits */
    float e = (xr - t) / t; /* xr - t exact (Sterbenz) */
    float corr = e * (0.333333343f + e * (-0.111111112f + e * 0.0617283955f));
    return y0 + y0 * corr;
}

float eddy_cbrtf(float x) {
    uint32_t ux = f2u(x);
    uint32_t sign = ux & SIGN_MASK;
    uint32_t ax = ux & ABS_MASK;
    if (ax - 1u >= EXP_FIELD - 1u) { /* +-0, +-inf, NaN */
        return x;
    }
    int e_bias = 0;
    if (ax < MIN_NORMAL) { /* subnormal: scale by 2^24, cbrt scales by 2^8 */
        float a = u2f(ax) * 16777216.0f;
        if (a == 0.0f) { /* flushed (DAZ): the input counts as zero */
            return u2f(sign);
        }
        ax = f2u(a);
        e_bias = -24;
    }
    int e = (int)(ax >> 23) - 127 + e_bias;
    int q = (e + 300) / 3 - 100; /* floor(e / 3) */
    int i = e - 3 * q;
    float y = cbrt_reduced(ax & MANT_MASK, i);
    return u2f(f2u(scale_exponent(y, q)) | sign);
}

/* ---------------------------------------------------------------- sin, cos */

/* Bits of 2/pi, most significant first, after one leading zero word: bit
 * number b of this stream (b = 0 is the top bit of word 0) has weight
 * 2^-(b - 31). Computed from pi by Machin's formula in integer arithmetic. */
static const uint32_t TWO_OVER_PI[8] = {
    0x00000000u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u,
    0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
};

/* 32 bits of the stream starting at bit b. */
static inline uint32_t two_over_pi_bits(int b) {
    int w = b >> 5;
    int s = b & 31;
    uint64_t v = ((uint64_t)TWO_OVER_PI[w] << 32) | TWO_OVER_PI[w + 1];
    return (uint32_t)(v >> (32 - s));
}

/* Payne-Hanek: for finite ax = |x| >= pi/4 (as bits), return r in radians,
 * |r| <= pi/4, and the quadrant n (0..3) with x = r + n pi/2 (mod 2 pi). */
static double reduce_pio2(uint32_t ax, int *quadrant) {
    uint64_t m = (ax & MANT_MASK) | MIN_NORMAL; /* x = m 2^E */
    int E = (int)(ax >> 23) - 150;
    /* x (2/pi) 2^62 mod 2^64 only needs the bits of 2/pi of weight
     * 2^-(E-1) .. 2^-(E+94); weight j sits at stream bit j + 31. Later bits
     * change the sum by less than 2^-8 units. E >= -24, so b >= 6. */
    int b = E - 1 + 31;
    uint64_t p0 = m * two_over_pi_bits(b);
    uint64_t p1 = m * two_over_pi_bits(b + 32);
    uint64_t p2 = m * two_over_pi_bits(b + 64);
    uint64_t v = (p0 << 32) + p1 + (p2 >> 32); /* x (2/pi) mod 4, 2.62 fixed */
    uint64_t n = (v + (UINT64_C(1) << 61)) >> 62;
    uint64_t d = v - (n << 62); /* two's complement of r, |r| <= 2^61 */
    int64_t rf = d >> 63 ? -(int64_t)(UINT64_C(0) - d) : (int64_t)d;
    *quadrant = (int)(n & 3u);
    return (double)rf * 0x1.921fb54442d18p-62; /* units of 2^-62 quarter turns */
}

static const double S1 = -0.16666666640796593;
static const double S2 = 0.0083333293047889358;
static const double S3 = -0.00019839312251962424;
static const double S4 = 2.7181214588286574e-06;

static const double K1 = -0.49999999694470099;
static const double K2 = 0.041666620356466934;
static const double K3 = -0.0013886681627005748;
static const double K4 = 2.4383565337689131e-05;

static double sin_kernel(double r) {
    double z = r * r;
    return r + (r * z) * (S1 + z * (S2 + z * (S3 + z * S4)));
}

static double cos_kernel(double r) {
    double z = r * r;
    return 1.0 + z * (K1 + z * (K2 + z * (K3 + z * K4)));
}

static const float PIO4 = 0.785398163f;

/* sin (want_cos = 0) or cos (want_cos = 1) of x with |x| >= 2^-12. */
static float sincos_eval(float x, int want_cos) {
    uint32_t ax = f2u(x) & ABS_MASK;
    if (ax >= EXP_FIELD) {
        return x != x ? x : make_nan();
    }
    double r;
    int n = 0;
    if (u2f(ax) <= PIO4) {
        r = (double)u2f(ax);
    } else {
        r = reduce_pio2(ax, &n);
    }
    n += want_cos; /* cos x = sin(x + pi/2) */
    double v = (n & 1) ? cos_kernel(r) : sin_kernel(r);
    float result = (float)v;
    /* sin is odd: the quadrant's sign, flipped for negative x (sin only). */
    int negative = (n >> 1) & 1;
    if (!want_cos && (f2u(x) & SIGN_MASK)) {
        negative ^= 1;
    }
    return negative ? -result : result;
}

static const float TINY = 2.44140625e-04f; /* 2^-12 */

float eddy_sinf(float x) {
    if ((f2u(x) & ABS_MASK) < f2u(TINY)) {
        return x; /* sin x = x to within 2^-25 relative */
    }
    return sincos_eval(x, 0);
}

float eddy_cosf(float x) {
    if ((f2u(x) & ABS_MASK) < f2u(TINY)) {
        return 1.0f; /* 1 - x^2/2 rounds to 1 */
    }
    return sincos_eval(x, 1);
}

/* ---------------------------------------------------------------- tanh */

/* tanh x = x + x^3 (T0 + T1 z + T2 z^2 + T3 z^3 + T4 z^4), z = x^2, |x| <= 0.55 */
static const float T0 = -0.333333164f;
static const float T1 = 0.133325860f;
static const float T2 = -0.0538523085f;
static const float T3 = 0.0210716799f;
static const float T4 = -0.00627423963f;

float eddy_tanhf(float x) {
    uint32_t ux = f2u(x);
    float a = u2f(ux & ABS_MASK);
    float t;
    if (!(a >= TINY)) {
        return x; /* tiny or NaN */
    }
    if (a <= 0.55f) {
        float z = a * a;
        float p = T0 + z * (T1 + z * (T2 + z * (T3 + z * T4)));
        t = a + (a * z) * p;
    } else if (a < 9.1f) {
        t = 1.0f - 2.0f / (eddy_expf(a + a) + 1.0f);
    } else {
        t = 1.0f; /* 1 - tanh(9.1) < 2^-25: rounds to 1 */
    }
    return u2f(f2u(t) | (ux & SIGN_MASK));
}

/* ---------------------------------------------------------------- atan2 */

/* atan v = v + v^3 (A0 + A1 z + A2 z^2 + A3 z^3 + A4 z^4), z = v^2, |v| <= 7/16 */
static const float A0 = -0.333333045f;
static const float A1 = 0.199977368f;
static const float A2 = -0.142295524f;
static const float A3 = 0.104906037f;
static const float A4 = -0.0581861697f;

static float atan_kernel(float v) {
    if ((f2u(v) & ABS_MASK) < f2u(TINY)) {
        return v;
    }
    float z = v * v;
    float p = A0 + z * (A1 + z * (A2 + z * (A3 + z * A4)));
    return v + (v * z) * p;
}

/* Angle constants c = HEAD + TAIL (float head, float tail), indexed by
 * base + 3 swap + 6 x_negative with base 0, atan(1/2), pi/4:
 * c = base, pi/2 - base (swap), then pi - c (x negative). */
static const float ATAN2_HEAD[12] = {
    0.000000000e+00f, 4.636476040e-01f, 7.853981853e-01f,
    1.570796371e+00f, 1.107148767e+00f, 7.853981853e-01f,
    3.141592741e+00f, 2.677945137e+00f, 2.356194496e+00f,
    1.570796371e+00f, 2.034443855e+00f, 2.356194496e+00f,
};
static const float ATAN2_TAIL[12] = {
    0.000000000e+00f,  5.012158688e-09f,  -2.185569414e-08f,
    -4.371138829e-08f, -4.872354964e-08f, -2.185569414e-08f,
    -8.742277657e-08f, -9.243493793e-08f, -5.962440319e-09f,
    -4.371138829e-08f, 8.051005551e-08f,  -5.962440319e-09f,
};

/* floor(log2 a) for finite a > 0, subnormals included (integer work only). */
static int exponent_of(float a) {
    uint32_t u = f2u(a);
    if (u >= MIN_NORMAL) {
        return (int)(u >> 23) - 127;
    }
    return (int)(f2u((float)u) >> 23) - 127 - 149; /* a = u 2^-149, exact */
}

/* t = mn / mx for 0 <= mn <= mx, neither NaN; 0 when both are zero or when
 * mn / mx < 2^-120 (so the quotient is never subnormal), 1 when mn == mx
 * (both infinite included). */
static float atan2_ratio(float mn, float mx) {
    if (mx == 0.0f) { /* also subnormals when denormals are flushed */
        return 0.0f;
    }
    if (mn == mx) {
        return 1.0f;
    }
    if (mn == 0.0f || exponent_of(mn) - exponent_of(mx) < -120) {
        return 0.0f;
    }
    return mn / mx;
}

/* atan t = base + atan v with |v| <= 7/16: base 0 (v = t), atan(1/2)
 * (v = (2t - 1) / (2 + t)) or pi/4 (v = (t - 1) / (t + 1)). v is formed from
 * mn and mx, where the differences are exact (Sterbenz), not from t. */
static float atan2_reduce(float mn, float mx, float t, int *base) {
    if (t <= 0.4375f) {
        *base = 0;
        return t;
    }
    if (mn == mx) { /* both infinite included */
        *base = 2;
        return 0.0f;
    }
    /* Scale by powers of two (exact: mn >= 7/16 mx): keep the sums finite, and
     * keep mn - mx out of the subnormal range. */
    if (mx > 0x1p125f) {
        mn *= 0.25f;
        mx *= 0.25f;
    } else if (mx < 0x1p-100f) {
        mn *= 0x1p64f;
        mx *= 0x1p64f;
    }
    if (t <= 0.6875f) {
        *base = 1;
        return (2.0f * mn - mx) / (2.0f * mx + mn);
    }
    *base = 2;
    return (mn - mx) / (mn + mx);
}

float eddy_atan2f(float y, float x) {
    if (y != y) {
        return y;
    }
    if (x != x) {
        return x;
    }
    uint32_t uy = f2u(y);
    uint32_t ux = f2u(x);
    float ay = u2f(uy & ABS_MASK);
    float ax = u2f(ux & ABS_MASK);
    int swap = ay > ax; /* above the diagonal: pi/2 - atan(ax / ay) */
    int x_negative = (ux & SIGN_MASK) != 0; /* -0 counts: atan2(0, -0) = pi */
    float mn = swap ? ax : ay;
    float mx = swap ? ay : ax;
    int base;
    float v = atan2_reduce(mn, mx, atan2_ratio(mn, mx), &base);
    int idx = base + 3 * swap + 6 * x_negative;
    float at = atan_kernel(v);
    if (swap != x_negative) {
        at = -at;
    }
    float angle = ATAN2_HEAD[idx] + (ATAN2_TAIL[idx] + at);
    return u2f(f2u(angle) | (uy & SIGN_MASK));
}
