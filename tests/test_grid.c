/* SPDX-License-Identifier: MIT */
/* Uniform grids (lib/core/grid.c): sizing, decimation, cell lookup with clamping,
 * trilinear interpolation and the finite-difference stencil.
 *
 * Reference values are computed in double. Where a property is exact in
 * float arithmetic (point values on a grid with power-of-two spacing,
 * derivatives of an integer-valued field) the test is bitwise. */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/core.h"

#define EPS_F ((double)FLT_EPSILON)

static bool is_pow2(int n) { return n >= 1 && (n & (n - 1)) == 0; }

static bool shape_finite(const grid_shape *g) {
    for (int a = 0; a < 3; ++a)
        if (!isfinite(g->min[a]) || !isfinite(g->extent[a]) || !isfinite(g->spacing[a]) ||
            !isfinite(g->inv_spacing[a]))
            return false;
    return true;
}

static void define(grid_shape *g, float x0, float y0, float z0, float x1, float y1, float z1,
                   int target) {
    const float lo[3] = {x0, y0, z0}, hi[3] = {x1, y1, z1};
    memset(g, 0, sizeof *g);
    eddy_grid_define(g, lo, hi, target);
}

static void expect_cells(const grid_shape *g, int cx, int cy, int cz) {
    cr_expect(g->cells[0] == cx && g->cells[1] == cy && g->cells[2] == cz,
              "cells %d x %d x %d, expected %d x %d x %d", g->cells[0], g->cells[1], g->cells[2],
              cx, cy, cz);
    for (int a = 0; a < 3; ++a) cr_expect_eq(g->points[a], g->cells[a] + 1);
}

/* ---------------------------------------------------------------- sizing */

/* EDDY_GRID_EXTENT_VORTONS_CUBIC's grid: every cell a cube of the edge asked
 * for; its nodes at c + (k + 1/4) edge, c the middle of the box, the fewest
 * of them that leave a quarter cell or more beyond the box at both ends; the
 * edge doubles while there are more than max_cells. */
static void expect_cubic_lattice(const grid_shape *g, const float lo[3], const float hi[3],
                                 float edge) {
    for (int a = 0; a < 3; ++a) {
        const double e = edge, c = 0.5 * (double)lo[a] + 0.5 * (double)hi[a];
        const double l = lo[a], h = hi[a];
        const double min = g->min[a], max = (double)g->min[a] + (double)g->extent[a];
        cr_expect_eq(g->spacing[a], edge, "axis %d: edge %.9g", a, (double)g->spacing[a]);
        cr_expect_eq(g->extent[a], (float)g->cells[a] * edge);
        /* a quarter cell or more to spare at each end, and no node more */
        cr_expect_leq(min, l - 0.25 * e + 1e-5 * e, "axis %d: min %.7g", a, min);
        cr_expect_geq(max, h + 0.25 * e - 1e-5 * e, "axis %d: max %.7g", a, max);
        cr_expect_gt(min + e, l - 0.25 * e, "axis %d: a node too many below", a);
        cr_expect_lt(max - e, h + 0.25 * e, "axis %d: a node too many above", a);
        /* the nodes a quarter cell off the box's middle: (min - c)/e - 1/4 whole */
        const double k = (min - c) / e - 0.25;
        cr_expect_lt(fabs(k - floor(k + 0.5)), 1e-4, "axis %d: nodes at c + (%.6f + 1/4) e", a, k);
    }
}

Test(grid, define_cubic_covers_the_box_with_cubes) {
    grid_shape g;
    const float lo[3] = {-0.76f, 10.0f, 3.25f}, hi[3] = {0.76f, 11.52f, 3.57f};
    eddy_grid_define_cubic(&g, lo, hi, 0.0625f, 1 << 20);
    /* x: (lo - c)/e = -12.16, nodes k = -13 .. 13: 26; z: -2.56, k = -4 .. 3: 7 */
    expect_cells(&g, 26, 26, 7);
    expect_cubic_lattice(&g, lo, hi, 0.0625f);
    /* 26 * 26 * 7 = 4732 > 2048: the edge doubles once, 14 x 14 x 4 (x: -6.08,
     * k = -7 .. 7; z: -1.28, k = -2 .. 2) */
    eddy_grid_define_cubic(&g, lo, hi, 0.0625f, 2048);
    expect_cells(&g, 14, 14, 4);
    expect_cubic_lattice(&g, lo, hi, 0.125f);
    /* a NaN or zero edge gives one cell, never a loop */
    eddy_grid_define_cubic(&g, lo, hi, NAN, 4096);
    expect_cells(&g, 1, 1, 1);
    eddy_grid_define_cubic(&g, lo, hi, 0.0f, 4096);
    expect_cells(&g, 1, 1, 1);
    cr_expect(shape_finite(&g));
}

/* Why the nodes are fixed to the box's middle: a box that grows a little at a
 * time gains its cells one at a time at its ends, and the nodes keep their
 * place relative to the middle. A grid centred on the box with the fewest
 * cells moved its nodes by half a cell whenever the count changed parity (a
 * jump in every vorton's place in its cell, and so in the differenced
 * Jacobian, every few frames as a ring spread: docs/algorithm.md, "Where the
 * grid lies"). */
Test(grid, define_cubic_grows_without_moving_its_nodes) {
    const float lo[3] = {-1.0f, -1.0f, -0.2f}, e = 0.1f;
    int changes = 0, last = 0;
    for (int step = 0; step <= 64; ++step) {
        const float grow = 0.01f * (float)step;
        const float hi[3] = {1.0f + grow, 1.0f + 0.5f * grow, 0.2f};
        grid_shape g;
        eddy_grid_define_cubic(&g, lo, hi, e, 1 << 20);
        expect_cubic_lattice(&g, lo, hi, e);
        changes += step > 0 && g.cells[0] != last;
        last = g.cells[0];
    }
    cr_expect_geq(changes, 5, "the box grew by 6.4 cells along x: %d count changes", changes);
}

/* Worked by hand from the rule in grid.c (edge = cbrt(V / target); cells =
 * floor(E / edge + 0.5), min 1; round up to a power of two; halve every axis
 * while the product is >= 8 * target). Every case sits well away from a
 * rounding boundary, so a 1-ulp difference in cbrt cannot change it. */
Test(grid, define_hand_computed_counts) {
    grid_shape g;
    /* V = 8, 8/4096 = 2^-9, edge = 1/8: 2/(1/8) = 16 -> 16.5 -> 16 per axis. */
    define(&g, -1, -1, -1, 1, 1, 1, 4096);
    expect_cells(&g, 16, 16, 16);
    /* V = 4 * 0.125 * 0.5 = 0.25, 0.25/1024 = 2^-12, edge = 1/16:
     * 64.5 -> 64, 2.5 -> 2, 8.5 -> 8; product 1024 < 8192. */
    define(&g, 0, 0, 0, 4, 0.125f, 0.5f, 1024);
    expect_cells(&g, 64, 2, 8);
    /* V = 3, 3/100 = 0.03, edge = 0.3107: 9.65+0.5 -> 10 -> 16, 3.22+0.5 -> 3 -> 4
     * (twice); product 256 < 800. */
    define(&g, 10, 20, 30, 13, 21, 31, 100);
    expect_cells(&g, 16, 4, 4);
    /* V = 100, target 1, edge = cbrt(100) = 4.64: 21.5+0.5 -> 22 -> 32; 0.215+0.5
     * -> 0 -> 1 (twice). 32 >= 8 -> 16 -> 8 -> 4: the halving loop runs 3 times. */
    define(&g, 0, 0, 0, 100, 1, 1, 1);
    expect_cells(&g, 4, 1, 1);
    /* 2-D (z degenerate): V = 4 * 1 = 4, 4/64 = 1/16, edge = sqrt = 1/4:
     * 16.5 -> 16, 4.5 -> 4, z -> 1. */
    define(&g, 0, 0, 5, 4, 1, 5, 64);
    expect_cells(&g, 16, 4, 1);
    cr_expect_eq(g.inv_spacing[2], 0.0f);
    cr_expect_eq(g.extent[2], 0.0f);
    /* 1-D (y, z degenerate): edge = V / target = 10 / 5 = 2: 5.5 -> 5 -> 8; 8 < 40. */
    define(&g, 0, 3, 3, 10, 3, 3, 5);
    expect_cells(&g, 8, 1, 1);
    /* Point box: every axis degenerate -> one cell. */
    define(&g, 1, 2, 3, 1, 2, 3, 1000);
    expect_cells(&g, 1, 1, 1);
    for (int a = 0; a < 3; ++a) {
        cr_expect_eq(g.inv_spacing[a], 0.0f);
        cr_expect_eq(g.spacing[a], 0.0f);
    }
    cr_expect(shape_finite(&g));
}

/* The invariants of eddy_grid_define over many random boxes, some flat or
 * degenerate on one or more axes, targets from 1 to 200000. */
Test(grid, define_invariants_random_boxes) {
    eddy_rng rng = eddy_rng_seed(12345, 7);
    for (int trial = 0; trial < 20000; ++trial) {
        float lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = 200.0f * (eddy_rng_next_float(&rng) - 0.5f);
            /* extent 10^[-3, 3), or 0 one time in eight */
            float e = 0.001f;
            int decades = (int)(eddy_rng_next_u32(&rng) % 6u);
            for (int d = 0; d < decades; ++d) e *= 10.0f;
            e *= 1.0f + 9.0f * eddy_rng_next_float(&rng);
            if (eddy_rng_next_u32(&rng) % 8u == 0) e = 0.0f;
            hi[a] = lo[a] + e;
        }
        int target = 1 + (int)(eddy_rng_next_u32(&rng) % 200000u);
        grid_shape g;
        eddy_grid_define(&g, lo, hi, target);
        int64_t product = 1;
        for (int a = 0; a < 3; ++a) {
            cr_assert(is_pow2(g.cells[a]), "trial %d axis %d: %d cells", trial, a, g.cells[a]);
            cr_assert_eq(g.points[a], g.cells[a] + 1);
            cr_assert_eq(g.min[a], lo[a]);
            product *= g.cells[a];
            if (hi[a] == lo[a]) {
                cr_assert_eq(g.cells[a], 1, "degenerate axis must have one cell");
                cr_assert_eq(g.inv_spacing[a], 0.0f);
                cr_assert_eq(g.extent[a], 0.0f);
            } else {
                cr_assert(g.extent[a] >= hi[a] - lo[a]);
                cr_assert(g.spacing[a] > 0.0f && g.inv_spacing[a] > 0.0f);
            }
            /* The grid covers [lo, hi]. */
            float top = g.min[a] + (float)g.cells[a] * g.spacing[a];
            cr_assert(top >= hi[a], "trial %d axis %d: top %.9g < hi %.9g", trial, a,
                      (double)top, (double)hi[a]);
        }
        cr_assert(product < 8 * (int64_t)target, "trial %d: %lld cells for target %d", trial,
                  (long long)product, target);
        cr_assert(shape_finite(&g), "trial %d: non-finite shape", trial);
    }
}

Test(grid, define_target_below_one_is_one) {
    grid_shape g;
    define(&g, 0, 0, 0, 1, 1, 1, 0);
    cr_expect_eq(grid_cell_count(&g), 1);
    define(&g, 0, 0, 0, 1, 1, 1, -5);
    cr_expect_eq(grid_cell_count(&g), 1);
}

Test(grid, decimate_halves_to_one_cell) {
    grid_shape g;
    define(&g, -2, 0, 1, 6, 0.5f, 3, 5000);
    grid_shape layer = g;
    int steps = 0;
    while (grid_cell_count(&layer) > 1) {
        grid_shape parent;
        eddy_grid_decimate(&parent, &layer);
        for (int a = 0; a < 3; ++a) {
            int expect = layer.cells[a] > 1 ? layer.cells[a] / 2 : 1;
            cr_assert_eq(parent.cells[a], expect);
            cr_assert_eq(parent.points[a], expect + 1);
            cr_assert_eq(parent.min[a], g.min[a]);
            cr_assert_eq(parent.extent[a], g.extent[a]);
            cr_assert_eq(parent.spacing[a], parent.extent[a] / (float)parent.cells[a]);
            /* Power-of-two counts: halving doubles the spacing exactly. */
            if (layer.cells[a] > 1) cr_assert_eq(parent.spacing[a], 2.0f * layer.spacing[a]);
        }
        layer = parent;
        cr_assert(++steps < 40);
    }
    int max_cells = g.cells[0];
    if (g.cells[1] > max_cells) max_cells = g.cells[1];
    if (g.cells[2] > max_cells) max_cells = g.cells[2];
    int log2 = 0;
    while ((1 << log2) < max_cells) ++log2;
    cr_expect_eq(steps, log2);
    /* Degenerate axis stays at one cell with inv_spacing 0. */
    define(&g, 0, 0, 0, 4, 4, 0, 64);
    grid_shape p;
    eddy_grid_decimate(&p, &g);
    cr_expect_eq(p.cells[2], 1);
    cr_expect_eq(p.inv_spacing[2], 0.0f);
    cr_expect_eq(p.cells[0], g.cells[0] / 2);
}

/* The multipole's levels (eddy_grid_coarsen_cubic): a grid of 2:1 cells gets
 * cubic cells at its first parent, a cubic grid is halved on every axis (as
 * eddy_grid_decimate), and every level's cells stay within 2:1 on the axes
 * still split, down to one cell. */
Test(grid, coarsen_cubic_evens_out_cells) {
    grid_shape g;
    define(&g, 0, 0, 0, 1, 1, 1.08f, 4096); /* a cube of 4096 vortons stretched 8 % */
    expect_cells(&g, 16, 16, 32);
    grid_shape p;
    eddy_grid_coarsen_cubic(&p, &g);
    expect_cells(&p, 16, 16, 16);
    cr_expect_eq(p.spacing[2], 2.0f * g.spacing[2]);
    cr_expect_eq(p.spacing[0], g.spacing[0]);
    cr_expect_eq(p.min[2], g.min[2]);
    cr_expect_eq(p.extent[2], g.extent[2]);
    grid_shape cube, half;
    define(&cube, 0, 0, 0, 1, 1, 1, 4096);
    eddy_grid_coarsen_cubic(&p, &cube);
    eddy_grid_decimate(&half, &cube);
    cr_expect_eq(memcmp(&p, &half, sizeof p), 0);
    const float boxes[][6] = {{0, 0, 0, 1, 1, 1.08f}, {-2, 0, 1, 6, 0.5f, 3},
                              {0, 0, 0, 8, 1, 0.25f}, {0, 0, 0, 4, 4, 0}};
    for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; ++k) {
        const float *b = boxes[k];
        define(&g, b[0], b[1], b[2], b[3], b[4], b[5], 5000);
        int levels = 1;
        while (grid_cell_count(&g) > 1) {
            eddy_grid_coarsen_cubic(&p, &g);
            float lo = 0.0f, hi = 0.0f;
            for (int a = 0; a < 3; ++a) {
                cr_assert(p.cells[a] == g.cells[a] || 2 * p.cells[a] == g.cells[a]);
                cr_assert_eq(p.points[a], p.cells[a] + 1);
                if (p.cells[a] < 2) continue;
                lo = lo == 0.0f || p.spacing[a] < lo ? p.spacing[a] : lo;
                hi = p.spacing[a] > hi ? p.spacing[a] : hi;
            }
            cr_assert(grid_cell_count(&p) < grid_cell_count(&g), "box %zu: no axis halved", k);
            cr_expect(hi <= 2.0f * lo * (1.0f + 1e-6f), "box %zu level %d: cells %g to %g", k,
                      levels, (double)lo, (double)hi);
            g = p;
            cr_assert(++levels <= TREE_MAX_LEVELS, "box %zu: too many levels", k);
        }
    }
}

/* ---------------------------------------------------------------- lookup */

Test(grid, locate_inside) {
    grid_shape g;
    define(&g, -3, 1, 0.5f, 2, 4, 2.5f, 3000);
    eddy_rng rng = eddy_rng_seed(3, 1);
    for (int n = 0; n < 10000; ++n) {
        float p[3];
        for (int a = 0; a < 3; ++a) p[a] = g.min[a] + eddy_rng_next_float(&rng) * g.extent[a];
        int idx[3], idx2[3];
        float frac[3];
        grid_locate(&g, p[0], p[1], p[2], idx, frac);
        grid_cell_of(&g, p[0], p[1], p[2], idx2);
        for (int a = 0; a < 3; ++a) {
            cr_assert_eq(idx[a], idx2[a], "grid_cell_of and grid_locate disagree");
            cr_assert(idx[a] >= 0 && idx[a] < g.cells[a]);
            cr_assert(frac[a] >= 0.0f && frac[a] <= 1.0f);
            /* p lies in cell idx, up to float rounding of the cell coordinate */
            double u = ((double)p[a] - (double)g.min[a]) / (double)g.spacing[a];
            cr_assert(fabs(u - (idx[a] + (double)frac[a])) < 1e-5 * g.cells[a],
                      "axis %d: u %.9g, idx %d frac %.9g", a, u, idx[a], (double)frac[a]);
        }
    }
}

Test(grid, locate_clamps_out_of_range_and_nan) {
    grid_shape g;
    define(&g, -1, -2, -3, 1, 2, 3, 512);
    const float bad[] = {-1.0e30f, -100.0f, -INFINITY, NAN, -NAN, 100.0f, 1.0e30f, INFINITY};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        for (int a = 0; a < 3; ++a) {
            float p[3] = {0.0f, 0.0f, 0.0f};
            p[a] = bad[b];
            int idx[3], idx2[3];
            float frac[3];
            grid_locate(&g, p[0], p[1], p[2], idx, frac);
            grid_cell_of(&g, p[0], p[1], p[2], idx2);
            cr_assert(idx[a] >= 0 && idx[a] < g.cells[a], "value %g axis %d: index %d",
                      (double)bad[b], a, idx[a]);
            cr_assert_eq(idx[a], idx2[a]);
            cr_assert(frac[a] >= 0.0f && frac[a] <= 1.0f, "value %g: frac %g", (double)bad[b],
                      (double)frac[a]);
            bool high = bad[b] > 0.0f;
            if (high) {
                cr_assert_eq(idx[a], g.cells[a] - 1);
                cr_assert_eq(frac[a], 1.0f);
            } else { /* below, -inf and NaN go to the min corner */
                cr_assert_eq(idx[a], 0);
                cr_assert_eq(frac[a], 0.0f);
            }
        }
    }
    /* Degenerate axis: every input is cell 0, fraction 0. */
    define(&g, 0, 0, 7, 1, 1, 7, 64);
    const float any[] = {7.0f, 6.0f, 8.0f, NAN, INFINITY};
    for (size_t b = 0; b < sizeof any / sizeof any[0]; ++b) {
        int idx[3];
        float frac[3];
        grid_locate(&g, 0.5f, 0.5f, any[b], idx, frac);
        cr_assert_eq(idx[2], 0);
        cr_assert_eq(frac[2], 0.0f);
    }
}

/* ---------------------------------------------------------------- interpolation */

typedef struct linear_field {
    double c0[3], c[3][3]; /* component m: c0[m] + sum_a c[m][a] * x_a */
} linear_field;

static double linear_eval(const linear_field *f, int m, const double x[3]) {
    return f->c0[m] + f->c[m][0] * x[0] + f->c[m][1] * x[1] + f->c[m][2] * x[2];
}

/* Largest |c0| + sum |c_a| |x_a| over the box: the size of the terms that
 * float rounding acts on. */
static double linear_scale(const linear_field *f, const grid_shape *g) {
    double s = 0.0;
    for (int m = 0; m < 3; ++m) {
        double t = fabs(f->c0[m]);
        for (int a = 0; a < 3; ++a) {
            double x = fmax(fabs((double)g->min[a]), fabs((double)g->min[a] + (double)g->extent[a]));
            t += fabs(f->c[m][a]) * x;
        }
        if (t > s) s = t;
    }
    return s;
}

static void point_pos(const grid_shape *g, int i, int j, int k, double x[3]) {
    const int ijk[3] = {i, j, k};
    for (int a = 0; a < 3; ++a) x[a] = (double)(g->min[a] + (float)ijk[a] * g->spacing[a]);
}

static vec3 *fill_linear(const grid_shape *g, const linear_field *f) {
    vec3 *field = malloc((size_t)grid_point_count(g) * sizeof *field);
    for (int k = 0; k < g->points[2]; ++k)
        for (int j = 0; j < g->points[1]; ++j)
            for (int i = 0; i < g->points[0]; ++i) {
                double x[3];
                point_pos(g, i, j, k, x);
                vec3 *v = &field[i + g->points[0] * (j + g->points[1] * k)];
                v->x = (float)linear_eval(f, 0, x);
                v->y = (float)linear_eval(f, 1, x);
                v->z = (float)linear_eval(f, 2, x);
            }
    return field;
}

static linear_field random_linear(eddy_rng *rng) {
    linear_field f;
    for (int m = 0; m < 3; ++m) {
        f.c0[m] = 10.0 * ((double)eddy_rng_next_float(rng) - 0.5);
        for (int a = 0; a < 3; ++a) f.c[m][a] = 4.0 * ((double)eddy_rng_next_float(rng) - 0.5);
    }
    return f;
}

/* Trilinear interpolation reproduces a linear field at arbitrary points, up
 * to float rounding: within 8 FLT_EPSILON of the field's scale (measured
 * worst case ~2 FLT_EPSILON). */
Test(grid, interp_reproduces_linear_fields) {
    eddy_rng rng = eddy_rng_seed(99, 2);
    double worst = 0.0;
    for (int trial = 0; trial < 20; ++trial) {
        float lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            lo[a] = 20.0f * (eddy_rng_next_float(&rng) - 0.5f);
            hi[a] = lo[a] + 0.5f + 4.0f * eddy_rng_next_float(&rng);
        }
        if (trial % 5 == 4) hi[trial % 3] = lo[trial % 3]; /* some flat grids */
        grid_shape g;
        eddy_grid_define(&g, lo, hi, 200 + 300 * trial);
        linear_field f = random_linear(&rng);
        vec3 *field = fill_linear(&g, &f);
        const double scale = linear_scale(&f, &g);
        for (int n = 0; n < 2000; ++n) {
            float p[3];
            double x[3];
            for (int a = 0; a < 3; ++a) {
                p[a] = lo[a] + eddy_rng_next_float(&rng) * (hi[a] - lo[a]);
                x[a] = (double)p[a];
            }
            vec3 u = grid_interp_vec3(&g, field, p[0], p[1], p[2]);
            const float got[3] = {u.x, u.y, u.z};
            for (int m = 0; m < 3; ++m) {
                cr_assert(isfinite(got[m]));
                double err = fabs((double)got[m] - linear_eval(&f, m, x)) / (scale * EPS_F);
                if (err > worst) worst = err;
                cr_assert(err <= 8.0, "trial %d point %d comp %d: error %.2f eps x scale", trial,
                          n, m, err);
            }
        }
        free(field);
    }
    cr_log_info("trilinear: worst error %.2f FLT_EPSILON x scale", worst);
}

/* grid_interp_float is the same interpolation, component by component. */
Test(grid, interp_float_matches_vec3) {
    grid_shape g;
    define(&g, -1, 0, 2, 3, 1, 5, 700);
    eddy_rng rng = eddy_rng_seed(5, 5);
    const int n = grid_point_count(&g);
    vec3 *field = malloc((size_t)n * sizeof *field);
    float *fy = malloc((size_t)n * sizeof *fy);
    for (int p = 0; p < n; ++p) {
        field[p] = (vec3){eddy_rng_next_float(&rng), eddy_rng_next_float(&rng) - 0.5f,
                          eddy_rng_next_float(&rng)};
        fy[p] = field[p].y;
    }
    for (int s = 0; s < 5000; ++s) {
        float x = -1.5f + 5.0f * eddy_rng_next_float(&rng);
        float y = -0.5f + 2.0f * eddy_rng_next_float(&rng);
        float z = 1.5f + 4.0f * eddy_rng_next_float(&rng);
        vec3 u = grid_interp_vec3(&g, field, x, y, z);
        float v = grid_interp_float(&g, fy, x, y, z);
        cr_assert(memcmp(&u.y, &v, sizeof v) == 0, "at (%g %g %g): %.9g vs %.9g", (double)x,
                  (double)y, (double)z, (double)u.y, (double)v);
    }
    free(field);
    free(fy);
}

/* A hand-made grid with power-of-two spacing: every grid point position is
 * exact, so interpolation at a grid point returns the point value bitwise,
 * for any (non-linear, random) field, including the top faces. */
Test(grid, interp_equals_point_values_at_points) {
    grid_shape g;
    memset(&g, 0, sizeof g);
    const int cells[3] = {8, 4, 2};
    const float min[3] = {-2.0f, 1.0f, 0.5f};
    const float h[3] = {0.25f, 0.5f, 0.125f};
    for (int a = 0; a < 3; ++a) {
        g.cells[a] = cells[a];
        g.points[a] = cells[a] + 1;
        g.min[a] = min[a];
        g.spacing[a] = h[a];
        g.extent[a] = h[a] * (float)cells[a];
        g.inv_spacing[a] = 1.0f / h[a];
    }
    const int n = grid_point_count(&g);
    vec3 *field = malloc((size_t)n * sizeof *field);
    float *fs = malloc((size_t)n * sizeof *fs);
    eddy_rng rng = eddy_rng_seed(17, 3);
    for (int p = 0; p < n; ++p) {
        field[p] = (vec3){eddy_rng_spread(&rng, 10.0f), eddy_rng_spread(&rng, 10.0f),
                          eddy_rng_spread(&rng, 10.0f)};
        fs[p] = field[p].z;
    }
    for (int k = 0; k < g.points[2]; ++k)
        for (int j = 0; j < g.points[1]; ++j)
            for (int i = 0; i < g.points[0]; ++i) {
                const int p = i + g.points[0] * (j + g.points[1] * k);
                float x = min[0] + (float)i * h[0], y = min[1] + (float)j * h[1];
                float z = min[2] + (float)k * h[2];
                vec3 u = grid_interp_vec3(&g, field, x, y, z);
                cr_assert(u.x == field[p].x && u.y == field[p].y && u.z == field[p].z,
                          "point (%d %d %d): (%.9g %.9g %.9g) vs (%.9g %.9g %.9g)", i, j, k,
                          (double)u.x, (double)u.y, (double)u.z, (double)field[p].x,
                          (double)field[p].y, (double)field[p].z);
                cr_assert(grid_interp_float(&g, fs, x, y, z) == fs[p]);
            }
    /* Outside the grid the value is that of the nearest face point. */
    vec3 far = grid_interp_vec3(&g, field, -100.0f, 100.0f, NAN);
    const int corner = (g.points[0] * (g.points[1] - 1)); /* i = 0, j = top, k = 0 */
    cr_expect(far.x == field[corner].x && far.y == field[corner].y && far.z == field[corner].z);
    free(field);
    free(fs);
}

/* Same on a grid from eddy_grid_define (spacing not a power of two): within a few
 * ulps of the point value. */
Test(grid, interp_near_point_values_on_defined_grid) {
    grid_shape g;
    define(&g, -1.3f, 0.2f, 2.7f, 0.9f, 1.7f, 3.1f, 600);
    eddy_rng rng = eddy_rng_seed(21, 9);
    linear_field f = random_linear(&rng);
    vec3 *field = fill_linear(&g, &f);
    const double scale = linear_scale(&f, &g);
    for (int k = 0; k < g.points[2]; ++k)
        for (int j = 0; j < g.points[1]; ++j)
            for (int i = 0; i < g.points[0]; ++i) {
                const int p = i + g.points[0] * (j + g.points[1] * k);
                double x[3];
                point_pos(&g, i, j, k, x);
                vec3 u = grid_interp_vec3(&g, field, (float)x[0], (float)x[1], (float)x[2]);
                cr_assert(fabs((double)(u.x - field[p].x)) <= 4.0 * EPS_F * scale);
                cr_assert(fabs((double)(u.y - field[p].y)) <= 4.0 * EPS_F * scale);
                cr_assert(fabs((double)(u.z - field[p].z)) <= 4.0 * EPS_F * scale);
            }
    free(field);
}

/* ---------------------------------------------------------------- stencil */

Test(grid, diff_stencil_shape) {
    grid_shape g;
    define(&g, 0, 0, 0, 3, 2, 1, 300);
    for (int a = 0; a < 3; ++a) {
        const int n = g.points[a];
        for (int i = 0; i < n; ++i) {
            int lo, hi;
            float scale;
            eddy_grid_diff_stencil(&g, a, i, &lo, &hi, &scale);
            if (i == 0) {
                cr_assert(lo == 0 && hi == 1 && scale == g.inv_spacing[a], "forward at 0");
            } else if (i == n - 1) {
                cr_assert(lo == n - 2 && hi == n - 1 && scale == g.inv_spacing[a],
                          "backward at the top");
            } else {
                cr_assert(lo == i - 1 && hi == i + 1 && scale == 0.5f * g.inv_spacing[a],
                          "centred inside");
            }
        }
    }
}

/* An integer-valued linear field (exact in float): the stencil gives the
 * derivative 3 * inv_spacing bitwise, at every point, centred or one-sided. */
Test(grid, diff_stencil_exact_on_integer_linear_field) {
    grid_shape g;
    define(&g, -1, 2, 0, 2, 3, 0.6f, 500);
    const float coef[3] = {3.0f, -5.0f, 7.0f};
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < g.points[a]; ++i) {
            int lo, hi;
            float scale;
            eddy_grid_diff_stencil(&g, a, i, &lo, &hi, &scale);
            float d = (coef[a] * (float)hi - coef[a] * (float)lo) * scale;
            cr_assert_eq(d, coef[a] * g.inv_spacing[a], "axis %d point %d: %.9g vs %.9g", a, i,
                         (double)d, (double)(coef[a] * g.inv_spacing[a]));
        }
    }
}

/* A linear field in world coordinates sampled on a defined grid: the stencil
 * derivative equals the coefficient up to the cancellation in f[hi] - f[lo]. */
Test(grid, diff_stencil_linear_field_world_coordinates) {
    grid_shape g;
    define(&g, -1.3f, 0.2f, 2.7f, 0.9f, 1.7f, 3.1f, 600);
    eddy_rng rng = eddy_rng_seed(8, 8);
    linear_field f = random_linear(&rng);
    vec3 *field = fill_linear(&g, &f);
    const double scale = linear_scale(&f, &g);
    for (int k = 0; k < g.points[2]; ++k)
        for (int j = 0; j < g.points[1]; ++j)
            for (int i = 0; i < g.points[0]; ++i) {
                const int ijk[3] = {i, j, k};
                for (int a = 0; a < 3; ++a) {
                    int lo, hi;
                    float s;
                    eddy_grid_diff_stencil(&g, a, ijk[a], &lo, &hi, &s);
                    int plo[3] = {i, j, k}, phi[3] = {i, j, k};
                    plo[a] = lo;
                    phi[a] = hi;
                    const vec3 *vl = &field[plo[0] + g.points[0] * (plo[1] + g.points[1] * plo[2])];
                    const vec3 *vh = &field[phi[0] + g.points[0] * (phi[1] + g.points[1] * phi[2])];
                    const float d[3] = {(vh->x - vl->x) * s, (vh->y - vl->y) * s,
                                        (vh->z - vl->z) * s};
                    /* value rounding (2 x eps/2 x scale) over the stencil width,
                     * plus position rounding; 8 eps covers both with margin */
                    double tol = 8.0 * EPS_F * scale * (double)g.inv_spacing[a];
                    for (int m = 0; m < 3; ++m)
                        cr_assert(fabs((double)d[m] - f.c[m][a]) <= tol,
                                  "point (%d %d %d) axis %d comp %d: %.9g vs %.9g", i, j, k, a, m,
                                  (double)d[m], f.c[m][a]);
                }
            }
    free(field);
}

/* Degenerate axis: the derivative along it is zero (scale 0). */
Test(grid, diff_stencil_degenerate_axis_is_zero) {
    grid_shape g;
    define(&g, 0, 0, 1, 2, 2, 1, 64);
    int lo, hi;
    float scale;
    eddy_grid_diff_stencil(&g, 2, 0, &lo, &hi, &scale);
    cr_expect_eq(scale, 0.0f);
    cr_expect(lo == 0 && hi == 1);
    eddy_grid_diff_stencil(&g, 2, 1, &lo, &hi, &scale);
    cr_expect_eq(scale, 0.0f);
}
