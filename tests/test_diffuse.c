/* SPDX-License-Identifier: MIT */
/* PSE diffusion (lib/fluid/diffuse.c): every build of the cell exchange (four
 * lanes: SSE2, NEON or plain C; eight AVX2 lanes where the CPU has them)
 * gives, bit for bit, what the plain scalar loop over each vorton's
 * neighbourhood gives (the 27 cells of EDDY_DIFFUSION_SEED; the cut-off
 * ball's cells, the moments pass and the substeps of
 * EDDY_DIFFUSION_NORMALISED): the same terms, added in the same order, the
 * vorton itself skipped.
 * The state is made to reach the edge cases: vortons at the same point
 * (d = 0), signed zeros, a cell with more homes than are handled together and
 * a neighbourhood longer than one packed batch. */
#include <criterion/criterion.h>

#include <stdlib.h>

#include "core/core.h"
#include "fluid/fluid.h"
#include "fluid/diffuse.h"

static uint32_t bits_of(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float unit_random(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)(uint32_t)(*s >> 40) / 16777216.0f; /* [0, 1) */
}

/* 2,400 vortons in a box, 600 of them in a cluster a tenth of a cell wide,
 * every 7th on top of the previous one, every 5th with zero vorticity. */
static eddy_world *dense_world(eddy_diffusion diffusion, float viscosity) {
    eddy_world_def def = eddy_world_def_default();
    def.diffusion = diffusion;
    def.viscosity = viscosity;
    def.density_diffusivity = 0.02f;
    def.vorton_radius = 0.05f;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK);
    enum { N = 2400, CLUSTER = 600 };
    static eddy_vorton v[N];
    uint64_t seed = 7;
    for (int i = 0; i < N; ++i) {
        const float spread = i < CLUSTER ? 0.02f : 2.0f;
        v[i] = (eddy_vorton){0};
        v[i].position = (eddy_vec3){spread * unit_random(&seed), spread * unit_random(&seed),
                                    spread * unit_random(&seed)};
        if (i % 7 == 6) v[i].position = v[i - 1].position;
        if (i % 5 != 0)
            v[i].vorticity = (eddy_vec3){unit_random(&seed) - 0.5f, unit_random(&seed) - 0.5f,
                                         -0.5f * unit_random(&seed)};
        v[i].density_deviation = i % 3 == 0 ? -0.0f : unit_random(&seed) - 0.25f;
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, N), EDDY_OK);
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK); /* sizes the scratch */
    cr_assert(eddy_phase_build_grid(w));             /* grid of the current positions */
    return w;
}

/* The definition of EDDY_DIFFUSION_SEED: for each vorton, its 27 cells in
 * order z, y, x, each cell's vortons in ascending index, one scalar term at a
 * time. */
static void reference_seed(const eddy_world *w, float dt, float *out[4]) {
    const particle_array *v = &w->vortons;
    const grid_shape *g = &w->grid;
    const eddy_world_def *d = &w->def;
    const float s = 8.0f * d->vorton_radius, inv_s2 = 1.0f / (s * s);
    for (int i = 0; i < v->count; ++i) {
        float dr = 0.0f, dwx = 0.0f, dwy = 0.0f, dwz = 0.0f;
        int c[3];
        grid_cell_of(g, v->px[i], v->py[i], v->pz[i], c);
        for (int ck = c[2] - 1; ck <= c[2] + 1; ++ck)
            for (int cj = c[1] - 1; cj <= c[1] + 1; ++cj)
                for (int ci = c[0] - 1; ci <= c[0] + 1; ++ci) {
                    if (ci < 0 || cj < 0 || ck < 0 || ci >= g->cells[0] || cj >= g->cells[1] ||
                        ck >= g->cells[2])
                        continue;
                    const int cell = ci + g->cells[0] * (cj + g->cells[1] * ck);
                    for (int n = w->part.cell_start[cell]; n < w->part.cell_start[cell + 1]; ++n) {
                        const int t = w->part.sorted_index[n];
                        if (t == i) continue;
                        const float dx = v->px[i] - v->px[t], dy = v->py[i] - v->py[t];
                        const float dz = v->pz[i] - v->pz[t];
                        const float d2 = dx * dx + dy * dy + dz * dz;
                        const float k = eddy_expf(-d2 * inv_s2);
                        const float axial = d2 > 0.0f ? 5.0f * k / d2 : 0.0f;
                        dr += (v->drho[t] - v->drho[i]) * k;
                        const float ex = v->wx[t] - v->wx[i], ey = v->wy[t] - v->wy[i];
                        const float ez = v->wz[t] - v->wz[i];
                        const float along = axial * (dx * ex + dy * ey + dz * ez);
                        dwx += dx * along;
                        dwy += dy * along;
                        dwz += dz * along;
                    }
                }
        const float keep_w = 1.0f - d->vorticity_dissipation * dt;
        const float nu2dt = 2.0f * d->viscosity * dt, kappa2dt = 2.0f * d->density_diffusivity * dt;
        out[0][i] = (v->wx[i] + nu2dt * dwx) * keep_w;
        out[1][i] = (v->wy[i] + nu2dt * dwy) * keep_w;
        out[2][i] = (v->wz[i] + nu2dt * dwz) * keep_w;
        out[3][i] = (v->drho[i] + kappa2dt * dr) * (1.0f - d->density_relaxation * dt);
    }
}

/* Calls visit(i, t, context) for every neighbour t of vorton i within reach
 * cells, in visiting order (cells z, y, x; ascending index in a cell). */
typedef void visit_fn(int i, int t, void *context);

static void for_neighbours(const eddy_world *w, int i, const int reach[3], visit_fn *visit,
                           void *context) {
    const particle_array *v = &w->vortons;
    const grid_shape *g = &w->grid;
    int c[3];
    grid_cell_of(g, v->px[i], v->py[i], v->pz[i], c);
    for (int ck = c[2] - reach[2]; ck <= c[2] + reach[2]; ++ck)
        for (int cj = c[1] - reach[1]; cj <= c[1] + reach[1]; ++cj)
            for (int ci = c[0] - reach[0]; ci <= c[0] + reach[0]; ++ci) {
                if (ci < 0 || cj < 0 || ck < 0 || ci >= g->cells[0] || cj >= g->cells[1] ||
                    ck >= g->cells[2])
                    continue;
                const int cell = ci + g->cells[0] * (cj + g->cells[1] * ck);
                for (int n = w->part.cell_start[cell]; n < w->part.cell_start[cell + 1]; ++n) {
                    const int t = w->part.sorted_index[n];
                    if (t != i) visit(i, t, context);
                }
            }
}

typedef struct normalised_ref {
    const particle_array *v;
    const float *wx, *wy, *wz, *rho; /* start of the substep */
    const float *g;
    float neg_inv_s2, cut2;
    float s, m, dr, dwx, dwy, dwz; /* the running sums of one vorton */
} normalised_ref;

static float ref_kernel(const normalised_ref *r, int i, int t, float *dx, float *dy, float *dz,
                        float *d2) {
    const particle_array *v = r->v;
    *dx = v->px[i] - v->px[t];
    *dy = v->py[i] - v->py[t];
    *dz = v->pz[i] - v->pz[t];
    *d2 = *dx * *dx + *dy * *dy + *dz * *dz;
    return r->cut2 > *d2 ? eddy_expf(*d2 * r->neg_inv_s2) : 0.0f;
}

static void visit_moments(int i, int t, void *context) {
    normalised_ref *r = context;
    float dx, dy, dz, d2;
    const float k = ref_kernel(r, i, t, &dx, &dy, &dz, &d2);
    r->s += k;
    r->m += k * d2;
}

static void visit_exchange(int i, int t, void *context) {
    normalised_ref *r = context;
    float dx, dy, dz, d2;
    const float k = ref_kernel(r, i, t, &dx, &dy, &dz, &d2);
    const float kc = k * (r->g[i] > r->g[t] ? r->g[t] : r->g[i]);
    const float axial = d2 > 0.0f ? 5.0f * kc / d2 : 0.0f;
    r->dr += (r->rho[t] - r->rho[i]) * kc;
    const float ex = r->wx[t] - r->wx[i], ey = r->wy[t] - r->wy[i], ez = r->wz[t] - r->wz[i];
    const float along = axial * (dx * ex + dy * ey + dz * ez);
    r->dwx += dx * along;
    r->dwy += dy * along;
    r->dwz += dz * along;
}

/* The definition of EDDY_DIFFUSION_NORMALISED, one vorton and one term at a
 * time; returns the substeps it took. */
static int reference_normalised(const eddy_world *w, float dt, float *out[4]) {
    const particle_array *v = &w->vortons;
    const eddy_world_def *d = &w->def;
    const int n = v->count;
    const float eps = PSE_EPS_RADII * d->vorton_radius, cut = PSE_CUT_EPS * eps;
    int reach[3];
    for (int a = 0; a < 3; ++a) {
        reach[a] = 1;
        while (reach[a] < PSE_MAX_REACH && (float)reach[a] * w->grid.spacing[a] < cut) ++reach[a];
    }
    float *g = malloc((size_t)n * sizeof *g);
    cr_assert_not_null(g);
    normalised_ref r = {v, NULL, NULL, NULL, NULL, g, -(1.0f / (eps * eps)), cut * cut,
                        0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    float a_max = 0.0f;
    for (int i = 0; i < n; ++i) {
        r.s = r.m = 0.0f;
        for_neighbours(w, i, reach, visit_moments, &r);
        const float floor = PSE_MIN_SPREAD_EPS2 * eps * eps * r.s;
        const float m = r.m > floor ? r.m : floor;
        g[i] = m > 0.0f ? 6.0f / m : 0.0f;
        const float a = m > 0.0f ? 6.0f * r.s / m : 0.0f;
        a_max = a > a_max ? a : a_max;
    }
    const float nu = d->viscosity, kappa = d->density_diffusivity;
    const float diff = 5.0f * nu > kappa ? 5.0f * nu : kappa;
    const float weight = diff * dt * a_max;
    int substeps = 1;
    while (weight / (float)substeps > PSE_MAX_WEIGHT) ++substeps;
    cr_assert_leq(substeps, EDDY_DIFFUSION_MAX_SUBSTEPS);
    const float h = dt / (float)substeps;
    const float keep_w = 1.0f - d->vorticity_dissipation * h;
    const float keep_rho = 1.0f - d->density_relaxation * h;
    float *now[4];
    const float *start[4] = {v->wx, v->wy, v->wz, v->drho};
    for (int k = 0; k < 4; ++k) {
        now[k] = malloc((size_t)n * sizeof(float));
        cr_assert_not_null(now[k]);
        memcpy(now[k], start[k], (size_t)n * sizeof(float));
    }
    for (int step = 0; step < substeps; ++step) {
        r.wx = now[0];
        r.wy = now[1];
        r.wz = now[2];
        r.rho = now[3];
        for (int i = 0; i < n; ++i) {
            r.dr = r.dwx = r.dwy = r.dwz = 0.0f;
            for_neighbours(w, i, reach, visit_exchange, &r);
            out[0][i] = (now[0][i] + nu * h * r.dwx) * keep_w;
            out[1][i] = (now[1][i] + nu * h * r.dwy) * keep_w;
            out[2][i] = (now[2][i] + nu * h * r.dwz) * keep_w;
            out[3][i] = (now[3][i] + kappa * h * r.dr) * keep_rho;
        }
        for (int k = 0; k < 4; ++k) memcpy(now[k], out[k], (size_t)n * sizeof(float));
    }
    for (int k = 0; k < 4; ++k) free(now[k]);
    free(g);
    return substeps;
}

/* The build's result from the same start, compared bit for bit. */
static void expect_build_matches(eddy_world *w, pse_cell_fn *cell, const char *name) {
    particle_array *v = &w->vortons;
    const int n = v->count;
    float *start[4], *want[4];
    float *fields[4] = {v->wx, v->wy, v->wz, v->drho};
    for (int k = 0; k < 4; ++k) {
        start[k] = malloc((size_t)n * sizeof(float));
        want[k] = malloc((size_t)n * sizeof(float));
        memcpy(start[k], fields[k], (size_t)n * sizeof(float));
    }
    const float dt = 1.0f / 60.0f;
    if (w->def.diffusion == EDDY_DIFFUSION_SEED) {
        reference_seed(w, dt, want);
    } else {
        const int substeps = reference_normalised(w, dt, want);
        cr_log_info("%s: nu %g, %d diffusion substeps", name, (double)w->def.viscosity, substeps);
    }
    const uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(w->tasks.fp_canonical);
    eddy_phase_diffuse_using(w, dt, cell);
    eddy_fpenv_set(saved);
    int mismatches = 0, first = -1;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k)
            if (bits_of(fields[k][i]) != bits_of(want[k][i])) {
                if (first < 0) first = i;
                ++mismatches;
            }
    cr_expect_eq(mismatches, 0, "%s: %d values differ from the scalar loop, first at vorton %d",
                 name, mismatches, first);
    for (int k = 0; k < 4; ++k) {
        memcpy(fields[k], start[k], (size_t)n * sizeof(float));
        free(start[k]);
        free(want[k]);
    }
}

static void lanes_match(eddy_diffusion diffusion, float viscosity) {
    eddy_world *w = dense_world(diffusion, viscosity);
    /* the cluster's cell holds more homes than PSE_HOMES, its neighbourhood
     * more vortons than PSE_BATCH */
    int most = 0;
    for (int c = 0; c < grid_cell_count(&w->grid); ++c) {
        const int in_cell = w->part.cell_start[c + 1] - w->part.cell_start[c];
        most = in_cell > most ? in_cell : most;
    }
    cr_assert_gt(most, PSE_BATCH, "the test needs a crowded cell (largest: %d)", most);
    expect_build_matches(w, eddy_pse_cell_lanes4, "four lanes");
    pse_cell_fn *avx2 = eddy_pse_cell_avx2_if_available();
    if (avx2) expect_build_matches(w, avx2, "eight AVX2 lanes");
    eddy_world_destroy(w);
}

Test(diffuse, lanes_give_the_scalar_loops_bits) { lanes_match(EDDY_DIFFUSION_NORMALISED, 0.05f); }

/* A viscosity that needs several substeps (the weight on a vorton's own
 * value is above PSE_MAX_WEIGHT at dt = 1/60). */
Test(diffuse, lanes_give_the_scalar_loops_bits_with_substeps) {
    lanes_match(EDDY_DIFFUSION_NORMALISED, 0.4f);
}

Test(diffuse, lanes_give_the_scalar_loops_bits_seed) { lanes_match(EDDY_DIFFUSION_SEED, 0.05f); }
