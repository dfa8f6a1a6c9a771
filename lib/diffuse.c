/* SPDX-License-Identifier: MIT */
/* Viscous diffusion by particle strength exchange, as a gather (D5).
 *
 * Every vorton H computes its own change from the start-of-phase values of
 * its neighbours T, all vortons in the 27 cells around H's cell:
 *     d(omega_H) = 2 nu dt sum_T (omega_T - omega_H) exp(-|x_H - x_T|^2 / s^2)
 * with s = 4 vorton diameters, and likewise rho' with the diffusivity kappa.
 * Then it applies dissipation, omega *= (1 - rate dt). New values go to
 * scratch arrays and are copied back after all vortons are done (Jacobi), so
 * the result is independent of the order vortons are visited in. The
 * neighbourhood relation is symmetric (cell distance <= 1 on every axis) and
 * the kernel depends on |x_H - x_T| only, so the exchange conserves
 * sum(omega) up to rounding. Neighbours are visited in cell order z, y, x and
 * ascending index within a cell. */
#include "core.h"

enum { PSE_CHUNK = 128 };

typedef struct pse_job {
    eddy_world *w;
    float inv_s2;
    float nu2dt, kappa2dt;
    float keep_w, keep_rho; /* 1 - rate dt */
} pse_job;

static void pse_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const eddy_world *w = job->w;
    const particle_array *v = &w->vortons;
    const grid_shape *g = &w->grid;
    const int *start = w->part.cell_start, *sorted = w->part.sorted_index;
    float *out_wx = w->scratch[0], *out_wy = w->scratch[1], *out_wz = w->scratch[2];
    float *out_rho = w->scratch[3];
    for (int h = begin; h < end; ++h) {
        const float hx = v->px[h], hy = v->py[h], hz = v->pz[h];
        const float hwx = v->wx[h], hwy = v->wy[h], hwz = v->wz[h], hr = v->drho[h];
        int c[3];
        grid_cell_of(g, hx, hy, hz, c);
        float dwx = 0.0f, dwy = 0.0f, dwz = 0.0f, dr = 0.0f;
        for (int ck = c[2] - 1; ck <= c[2] + 1; ++ck) {
            if (ck < 0 || ck >= g->cells[2]) continue;
            for (int cj = c[1] - 1; cj <= c[1] + 1; ++cj) {
                if (cj < 0 || cj >= g->cells[1]) continue;
                for (int ci = c[0] - 1; ci <= c[0] + 1; ++ci) {
                    if (ci < 0 || ci >= g->cells[0]) continue;
                    const int cell = ci + g->cells[0] * (cj + g->cells[1] * ck);
                    for (int n = start[cell]; n < start[cell + 1]; ++n) {
                        const int t = sorted[n];
                        if (t == h) continue;
                        const float dx = v->px[t] - hx, dy = v->py[t] - hy, dz = v->pz[t] - hz;
                        const float k = eddy_expf(-(dx * dx + dy * dy + dz * dz) * job->inv_s2);
                        dwx += (v->wx[t] - hwx) * k;
                        dwy += (v->wy[t] - hwy) * k;
                        dwz += (v->wz[t] - hwz) * k;
                        dr += (v->drho[t] - hr) * k;
                    }
                }
            }
        }
        out_wx[h] = (hwx + job->nu2dt * dwx) * job->keep_w;
        out_wy[h] = (hwy + job->nu2dt * dwy) * job->keep_w;
        out_wz[h] = (hwz + job->nu2dt * dwz) * job->keep_w;
        out_rho[h] = (hr + job->kappa2dt * dr) * job->keep_rho;
    }
}

void eddy_phase_diffuse(eddy_world *w, float dt) {
    if (!w->grid_valid || w->vortons.count == 0) return;
    const eddy_world_def *d = &w->def;
    const float s = 8.0f * d->vorton_radius;
    pse_job job = {w, 1.0f / (s * s), 2.0f * d->viscosity * dt, 2.0f * d->density_diffusivity * dt,
                   1.0f - d->vorticity_dissipation * dt, 1.0f - d->density_relaxation * dt};
    particle_array *v = &w->vortons;
    eddy_parallel_for(&w->tasks, v->count, PSE_CHUNK, pse_chunk, &job);
    const size_t bytes = (size_t)v->count * sizeof(float);
    memcpy(v->wx, w->scratch[0], bytes);
    memcpy(v->wy, w->scratch[1], bytes);
    memcpy(v->wz, w->scratch[2], bytes);
    memcpy(v->drho, w->scratch[3], bytes);
}
