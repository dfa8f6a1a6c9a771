/* SPDX-License-Identifier: MIT */
/* The mollified vorton kernel (kernel_accumulate, inline in lib/fluid/fluid.h; design
 * note in lib/fluid/kernel.c) and direct summation (lib/fluid/kernel.c).
 *
 * Reference: a ball of radius a with uniform vorticity w induces
 *     u = (a^3 / 3) w x d / |d|^3   for |d| >= a   (Biot-Savart of a point vortex)
 *     u = (1 / 3) w x d             for |d| <  a   (rigid rotation)
 * times the circulation factor c; evaluated here in double. */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/core.h"
#include "fluid/fluid.h"

#define EPS_F ((double)FLT_EPSILON)

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec reference(dvec d, dvec w, double a, double c) {
    double r2 = d.x * d.x + d.y * d.y + d.z * d.z;
    double r = sqrt(r2);
    double s = r < a ? c / 3.0 : c * a * a * a / (3.0 * r2 * r);
    return (dvec){s * (w.y * d.z - w.z * d.y), s * (w.z * d.x - w.x * d.z),
                  s * (w.x * d.y - w.y * d.x)};
}

static vec3 kernel_at(const float q[3], const float p[3], const float w[3], float a, float c) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    kernel_accumulate(&u, q[0], q[1], q[2], p[0], p[1], p[2], w[0], w[1], w[2], a, c);
    return u;
}

static double dnorm(dvec v) { return sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

/* |u - ref| over the natural scale |s| |w| |d| of the cross product (its
 * components can cancel, so a per-component relative error means nothing). */
static double rel_error(vec3 u, dvec ref, double scale) {
    dvec e = {(double)u.x - ref.x, (double)u.y - ref.y, (double)u.z - ref.z};
    return dnorm(e) / scale;
}

static void random_unit(eddy_rng *rng, float n[3]) {
    for (;;) {
        float x = eddy_rng_spread(rng, 2.0f), y = eddy_rng_spread(rng, 2.0f),
              z = eddy_rng_spread(rng, 2.0f);
        float r2 = x * x + y * y + z * z;
        if (r2 > 0.01f && r2 <= 1.0f) {
            float inv = 1.0f / sqrtf(r2);
            n[0] = x * inv;
            n[1] = y * inv;
            n[2] = z * inv;
            return;
        }
    }
}

/* Vorton at p, query at p + (dist) n, random w, a, c. Returns the error in
 * units of FLT_EPSILON relative to the scale of the field there. */
static double check_point(eddy_rng *rng, double dist_over_a, float c) {
    float p[3], n[3], w[3];
    for (int k = 0; k < 3; ++k) {
        p[k] = eddy_rng_spread(rng, 8.0f);
        w[k] = eddy_rng_spread(rng, 20.0f);
    }
    random_unit(rng, n);
    float a = 0.05f + eddy_rng_next_float(rng);
    float q[3];
    for (int k = 0; k < 3; ++k) q[k] = p[k] + (float)(dist_over_a * (double)a) * n[k];
    /* The reference uses the offset the kernel actually sees (q - p in
     * float) and the same a: the test checks the kernel, not the rounding of
     * the set-up. */
    dvec d = {(double)(q[0] - p[0]), (double)(q[1] - p[1]), (double)(q[2] - p[2])};
    dvec wd = {(double)w[0], (double)w[1], (double)w[2]};
    dvec ref = reference(d, wd, (double)a, (double)c);
    vec3 u = kernel_at(q, p, w, a, c);
    double r = dnorm(d);
    double s = r < (double)a ? (double)c / 3.0 : (double)c * pow((double)a, 3) / (3.0 * r * r * r);
    return rel_error(u, ref, s * dnorm(wd) * r) / EPS_F;
}

/* ---------------------------------------------------------------- far, near */

Test(kernel, far_field_is_biot_savart) {
    eddy_rng rng = eddy_rng_seed(1, 1);
    const double dists[] = {3.0, 10.0, 1.5, 100.0};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k)
        for (int n = 0; n < 5000; ++n) {
            double e = check_point(&rng, dists[k], 1.0f);
            if (e > worst) worst = e;
            cr_assert(e <= 16.0, "|d| = %g a: error %.2f eps", dists[k], e);
        }
    cr_log_info("far field: worst %.2f FLT_EPSILON (relative to |u| scale)", worst);
}

Test(kernel, far_field_hand_value) {
    /* w = (0,0,6), d = (3a,0,0) with a = 0.5: u = (a^3/3) w x d / |d|^3
     * = (0.125/3) * (0, 6*1.5, 0) / 3.375 = (0, 1/9, 0). */
    const float p[3] = {1.0f, 2.0f, 3.0f}, q[3] = {2.5f, 2.0f, 3.0f}, w[3] = {0, 0, 6.0f};
    vec3 u = kernel_at(q, p, w, 0.5f, 1.0f);
    cr_expect_eq(u.x, 0.0f);
    cr_expect_eq(u.z, 0.0f);
    cr_expect(fabs((double)u.y - 1.0 / 9.0) <= 2.0 * EPS_F / 9.0, "u.y = %.9g", (double)u.y);
    /* At 10a along y: w x d = (6,0,0) x? w = (0,0,6), d = (0,5,0): w x d = (-30,0,0);
     * u = (0.125/3) * (-30) / 125 = -0.01. */
    const float q2[3] = {1.0f, 7.0f, 3.0f};
    u = kernel_at(q2, p, w, 0.5f, 1.0f);
    cr_expect(fabs((double)u.x + 0.01) <= 2.0 * EPS_F * 0.01, "u.x = %.9g", (double)u.x);
    cr_expect(u.y == 0.0f && u.z == 0.0f);
}

Test(kernel, core_is_rigid_rotation) {
    eddy_rng rng = eddy_rng_seed(2, 1);
    const double dists[] = {0.01, 0.1, 0.5, 0.9, 0.999};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof dists / sizeof dists[0]; ++k)
        for (int n = 0; n < 5000; ++n) {
            double e = check_point(&rng, dists[k], 1.0f);
            if (e > worst) worst = e;
            cr_assert(e <= 8.0, "|d| = %g a: error %.2f eps", dists[k], e);
        }
    cr_log_info("core: worst %.2f FLT_EPSILON", worst);
    /* Hand value: w = (0,0,3), d = (0.1,0,0), a = 1: u = (1/3) w x d = (0, 0.1, 0). */
    const float p[3] = {0, 0, 0}, q[3] = {0.1f, 0, 0}, w[3] = {0, 0, 3.0f};
    vec3 u = kernel_at(q, p, w, 1.0f, 1.0f);
    cr_expect(u.x == 0.0f && u.z == 0.0f);
    cr_expect(fabs((double)u.y - 0.1) <= 2.0 * EPS_F * 0.1, "u.y = %.9g", (double)u.y);
}

Test(kernel, circulation_factor_scales) {
    eddy_rng rng = eddy_rng_seed(3, 1);
    for (int n = 0; n < 2000; ++n) {
        float c = 0.01f + eddy_rng_next_float(&rng);
        cr_assert(check_point(&rng, 0.5, c) <= 8.0);
        cr_assert(check_point(&rng, 4.0, c) <= 16.0);
    }
}

/* The field is continuous across |d| = a: the last point inside and the
 * first outside agree to ~1e-6 relative. */
Test(kernel, continuous_at_core_radius) {
    eddy_rng rng = eddy_rng_seed(4, 1);
    double worst = 0.0;
    for (int n = 0; n < 5000; ++n) {
        float nrm[3], w[3];
        random_unit(&rng, nrm);
        for (int k = 0; k < 3; ++k) w[k] = eddy_rng_spread(&rng, 20.0f);
        const float a = 0.05f + eddy_rng_next_float(&rng);
        const float p[3] = {0.0f, 0.0f, 0.0f};
        float qin[3], qout[3];
        for (int k = 0; k < 3; ++k) {
            qin[k] = a * (1.0f - 2.0e-7f) * nrm[k];
            qout[k] = a * (1.0f + 2.0e-7f) * nrm[k];
        }
        /* Make sure each point is on the intended side as the kernel sees it. */
        float din = qin[0] * qin[0] + qin[1] * qin[1] + qin[2] * qin[2];
        float dout = qout[0] * qout[0] + qout[1] * qout[1] + qout[2] * qout[2];
        if (!(din < a * a) || din == 0.0f || dout < a * a) continue;
        vec3 ui = kernel_at(qin, p, w, a, 1.0f), uo = kernel_at(qout, p, w, a, 1.0f);
        double diff = sqrt(pow((double)(ui.x - uo.x), 2) + pow((double)(ui.y - uo.y), 2) +
                           pow((double)(ui.z - uo.z), 2));
        double mag = sqrt(pow((double)uo.x, 2) + pow((double)uo.y, 2) + pow((double)uo.z, 2));
        /* |w x n| can be small; measure against |w| a / 3, the scale at the rim */
        double w_mag = sqrt(pow((double)w[0], 2) + pow((double)w[1], 2) + pow((double)w[2], 2));
        double scale = fmax(mag, w_mag * (double)a / 3.0);
        double rel = diff / scale;
        if (rel > worst) worst = rel;
        cr_assert(rel <= 2.0e-6, "jump %.3g at the core radius (a = %g)", rel, (double)a);
    }
    cr_log_info("core radius: worst jump %.3g relative", worst);
    /* Exactly at |d| = a (axis-aligned, exact squares): the outer branch with
     * factor a^3 / (a^2 a) = 1 equals the rigid rotation of the inner one. */
    const float p[3] = {0, 0, 0}, q[3] = {0.5f, 0, 0}, w[3] = {0, 0, 3.0f};
    vec3 edge = kernel_at(q, p, w, 0.5f, 1.0f);
    const float qi[3] = {nextafterf(0.5f, 0.0f), 0, 0};
    vec3 inside = kernel_at(qi, p, w, 0.5f, 1.0f);
    cr_expect(fabs((double)(edge.y - inside.y)) <= 4.0 * EPS_F * fabs((double)edge.y),
              "%.9g vs %.9g", (double)edge.y, (double)inside.y);
}

/* ---------------------------------------------------------------- degenerate */

/* d == 0 adds exactly nothing (not even -0 or NaN), whatever a is. */
Test(kernel, zero_offset_contributes_exactly_zero) {
    const float radii[] = {0.0f, 1.0e-30f, 0.125f, 3.0f};
    const float w[3] = {1.0f, -2.0f, 3.0f};
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
        vec3 u = {0.25f, -0.0f, 7.0f};
        const vec3 before = u;
        kernel_accumulate(&u, 1.5f, -2.0f, 3.0f, 1.5f, -2.0f, 3.0f, w[0], w[1], w[2], radii[k],
                          1.0f);
        cr_assert(memcmp(&u, &before, sizeof u) == 0, "a = %g changed u", (double)radii[k]);
        vec3 z = {0.0f, 0.0f, 0.0f};
        kernel_accumulate(&z, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, w[0], w[1], w[2], radii[k],
                          1.0f);
        cr_assert(z.x == 0.0f && z.y == 0.0f && z.z == 0.0f && !signbit(z.x) &&
                  !signbit(z.y) && !signbit(z.z));
    }
    /* An empty supervorton (a = 0, w = 0) at the query point. */
    vec3 u = {0.0f, 0.0f, 0.0f};
    kernel_accumulate(&u, 0.3f, 0.3f, 0.3f, 0.3f, 0.3f, 0.3f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f);
    cr_assert(u.x == 0.0f && u.y == 0.0f && u.z == 0.0f);
}

/* A zero-size core (a = 0) is a point vortex of zero volume: it induces
 * nothing anywhere. Normal offsets give exactly 0.
 * Offsets so small that |d|^3 underflows (below ~9e-16, or ~2.3e-13 with
 * FTZ) must also give 0, not 0/0 = NaN: the kernel returns when its
 * denominator is not positive. */
Test(kernel, zero_core_tiny_offset_is_finite) {
    const float w[3] = {1.0f, 2.0f, 3.0f};
    const float offsets[] = {1.0f, 1.0e-10f, 1.0e-17f, 1.0e-20f, 1.0e-30f};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; ++k) {
        vec3 u = {0.0f, 0.0f, 0.0f};
        kernel_accumulate(&u, offsets[k], 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, w[0], w[1], w[2], 0.0f,
                          1.0f);
        cr_expect(u.x == 0.0f && u.y == 0.0f && u.z == 0.0f,
                  "a = 0, d = (%g, 0, 0): u = (%g %g %g)", (double)offsets[k], (double)u.x,
                  (double)u.y, (double)u.z);
    }
}

Test(kernel, zero_vorticity_contributes_zero) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    kernel_accumulate(&u, 1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.0f);
    kernel_accumulate(&u, 0.1f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.0f);
    cr_assert(u.x == 0.0f && u.y == 0.0f && u.z == 0.0f);
}

/* ---------------------------------------------------------------- mollification */

/* With a' = f a and c = 1/f^3 the far field (|d| > f a) is the same as the
 * unmollified one, up to rounding; inside the widened core it is weaker. */
Test(kernel, mollification_keeps_far_field) {
    eddy_rng rng = eddy_rng_seed(5, 1);
    const float factors[] = {1.0f, 1.5f, 2.0f, 3.7f, 8.0f};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof factors / sizeof factors[0]; ++k) {
        const float f = factors[k];
        const float c = 1.0f / (f * f * f);
        for (int n = 0; n < 3000; ++n) {
            float nrm[3], w[3];
            random_unit(&rng, nrm);
            for (int m = 0; m < 3; ++m) w[m] = eddy_rng_spread(&rng, 20.0f);
            const float a = 0.05f + 0.5f * eddy_rng_next_float(&rng);
            const float dist = f * a * (1.01f + 9.0f * eddy_rng_next_float(&rng));
            const float p[3] = {0.5f, -0.25f, 2.0f};
            float q[3];
            for (int m = 0; m < 3; ++m) q[m] = p[m] + dist * nrm[m];
            vec3 u0 = kernel_at(q, p, w, a, 1.0f);
            vec3 u1 = kernel_at(q, p, w, f * a, c);
            double diff = sqrt(pow((double)(u1.x - u0.x), 2) + pow((double)(u1.y - u0.y), 2) +
                               pow((double)(u1.z - u0.z), 2));
            double w_mag = sqrt(pow((double)w[0], 2) + pow((double)w[1], 2) + pow((double)w[2], 2));
            double scale = w_mag * pow((double)a, 3) / (3.0 * (double)dist * (double)dist);
            double e = diff / scale / EPS_F;
            if (e > worst) worst = e;
            cr_assert(e <= 16.0, "f = %g: far fields differ by %.2f eps", (double)f, e);

            /* Between a and f a: the mollified field is weaker (f > 1). */
            if (f > 1.0f) {
                float qm[3];
                float dm = a * (1.0f + (f - 1.0f) * 0.5f);
                for (int m = 0; m < 3; ++m) qm[m] = p[m] + dm * nrm[m];
                vec3 v0 = kernel_at(qm, p, w, a, 1.0f), v1 = kernel_at(qm, p, w, f * a, c);
                double m0 = (double)(v0.x * v0.x + v0.y * v0.y + v0.z * v0.z);
                double m1 = (double)(v1.x * v1.x + v1.y * v1.y + v1.z * v1.z);
                cr_assert(m1 <= m0 * (1.0 + 1e-5), "mollified core is stronger");
            }
        }
    }
    cr_log_info("mollification: far field worst %.2f FLT_EPSILON", worst);
}

/* ---------------------------------------------------------------- symmetry */

/* Swapping q and p negates d exactly, so the velocity is negated bitwise. */
Test(kernel, antisymmetric_bitwise) {
    eddy_rng rng = eddy_rng_seed(6, 1);
    for (int n = 0; n < 20000; ++n) {
        float q[3], p[3], w[3];
        for (int k = 0; k < 3; ++k) {
            q[k] = eddy_rng_spread(&rng, 4.0f);
            p[k] = eddy_rng_spread(&rng, 4.0f);
            w[k] = eddy_rng_spread(&rng, 10.0f);
        }
        const float a = 0.1f + eddy_rng_next_float(&rng), c = 0.2f + eddy_rng_next_float(&rng);
        vec3 u = kernel_at(q, p, w, a, c), v = kernel_at(p, q, w, a, c);
        cr_assert(u.x == -v.x && u.y == -v.y && u.z == -v.z, "n %d: (%a %a %a) vs (%a %a %a)", n,
                  (double)u.x, (double)u.y, (double)u.z, (double)v.x, (double)v.y, (double)v.z);
    }
}

/* Doubling w doubles u bitwise (scaling by 2 is exact); u is orthogonal to
 * w and to d up to rounding. */
Test(kernel, linear_in_w_and_orthogonal) {
    eddy_rng rng = eddy_rng_seed(7, 1);
    for (int n = 0; n < 5000; ++n) {
        float q[3], p[3], w[3], w2[3];
        for (int k = 0; k < 3; ++k) {
            q[k] = eddy_rng_spread(&rng, 4.0f);
            p[k] = eddy_rng_spread(&rng, 4.0f);
            w[k] = eddy_rng_spread(&rng, 10.0f);
            w2[k] = 2.0f * w[k];
        }
        const float a = 0.1f + eddy_rng_next_float(&rng);
        vec3 u = kernel_at(q, p, w, a, 1.0f), u2 = kernel_at(q, p, w2, a, 1.0f);
        cr_assert(u2.x == 2.0f * u.x && u2.y == 2.0f * u.y && u2.z == 2.0f * u.z);
        double d[3] = {(double)(q[0] - p[0]), (double)(q[1] - p[1]), (double)(q[2] - p[2])};
        double un = sqrt((double)(u.x * u.x + u.y * u.y + u.z * u.z));
        double dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double wn = sqrt((double)(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]));
        double ud = (double)u.x * d[0] + (double)u.y * d[1] + (double)u.z * d[2];
        double uw = (double)u.x * (double)w[0] + (double)u.y * (double)w[1] +
                    (double)u.z * (double)w[2];
        /* |u| = |s| |w x d|; the rounding of w x d is ~eps |w| |d| per
         * component, so the dot products are zero to ~eps |s| |w| |d| |.| */
        double cx = (double)w[1] * d[2] - (double)w[2] * d[1];
        double cy = (double)w[2] * d[0] - (double)w[0] * d[2];
        double cz = (double)w[0] * d[1] - (double)w[1] * d[0];
        double cn = sqrt(cx * cx + cy * cy + cz * cz);
        if (!(cn > 1e-6 * wn * dn)) continue;
        double s_abs = un / cn;
        cr_assert(fabs(ud) <= 8.0 * EPS_F * s_abs * wn * dn * dn, "u.d = %g", ud);
        cr_assert(fabs(uw) <= 8.0 * EPS_F * s_abs * wn * dn * wn, "u.w = %g", uw);
    }
}

/* ---------------------------------------------------------------- direct sum */

static void fill_vortons(particle_array *v, int n, eddy_rng *rng) {
    memset(v, 0, sizeof *v);
    v->has_vorticity = true;
    cr_assert(eddy_particles_reserve(v, n));
    for (int i = 0; i < n; ++i) {
        vec3 p = {eddy_rng_spread(rng, 2.0f), eddy_rng_spread(rng, 2.0f),
                  eddy_rng_spread(rng, 2.0f)};
        vec3 w = {eddy_rng_spread(rng, 4.0f), eddy_rng_spread(rng, 4.0f),
                  eddy_rng_spread(rng, 4.0f)};
        eddy_particles_push(v, p, (vec3){0, 0, 0}, w, 0.0f, 0);
    }
}

/* eddy_direct_velocity_at is the sum of kernel contributions in vorton index
 * order with c = 1, bitwise. */
Test(kernel, direct_is_ordered_sum) {
    eddy_rng rng = eddy_rng_seed(8, 1);
    particle_array v;
    fill_vortons(&v, 300, &rng);
    const float a = 0.125f;
    bool order_matters = false;
    for (int n = 0; n < 200; ++n) {
        float q[3];
        if (n < 50) { /* at vortons: the self term is exactly zero */
            q[0] = v.px[n]; q[1] = v.py[n]; q[2] = v.pz[n];
        } else {
            for (int k = 0; k < 3; ++k) q[k] = eddy_rng_spread(&rng, 3.0f);
        }
        vec3 sum = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < v.count; ++i)
            kernel_accumulate(&sum, q[0], q[1], q[2], v.px[i], v.py[i], v.pz[i], v.wx[i], v.wy[i],
                              v.wz[i], a, 1.0f);
        vec3 d = eddy_direct_velocity_at(&v, q[0], q[1], q[2], a);
        cr_assert(memcmp(&sum, &d, sizeof d) == 0, "query %d: direct sum is not the ordered sum",
                  n);
        cr_assert(isfinite(d.x) && isfinite(d.y) && isfinite(d.z));
        /* Summing backwards generally rounds differently: the order is part
         * of the result, which is why it is fixed. */
        vec3 back = {0.0f, 0.0f, 0.0f};
        for (int i = v.count - 1; i >= 0; --i)
            kernel_accumulate(&back, q[0], q[1], q[2], v.px[i], v.py[i], v.pz[i], v.wx[i],
                              v.wy[i], v.wz[i], a, 1.0f);
        if (memcmp(&back, &d, sizeof d) != 0) order_matters = true;
    }
    cr_expect(order_matters, "expected at least one query where summation order changes bits");
    /* No vortons: zero. */
    particle_array empty;
    memset(&empty, 0, sizeof empty);
    empty.has_vorticity = true;
    vec3 z = eddy_direct_velocity_at(&empty, 0.0f, 0.0f, 0.0f, a);
    cr_expect(z.x == 0.0f && z.y == 0.0f && z.z == 0.0f);
    eddy_particles_free(&v);
}
