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
 * ascending index within a cell. The kernels exp(...) are evaluated in
 * batches (eddy_expf_array, bit-identical to eddy_expf); the sums still run
 * neighbour by neighbour in that order. */
#include "core.h"

enum { PSE_CHUNK = 128 };

typedef struct pse_job {
    eddy_world *w;
    float inv_s2;
    float nu2dt, kappa2dt;
    float keep_w, keep_rho; /* 1 - rate dt */
} pse_job;

/* The exchange sums of one vorton H: its position and values, and the
 * running sums over its neighbours. */
typedef struct pse_home {
    int index;
    float x, y, z;
    float wx, wy, wz, rho;
    float dwx, dwy, dwz, dr;
} pse_home;

static inline void pse_add(pse_home *h, const particle_array *v, int t, float k) {
    h->dwx += (v->wx[t] - h->wx) * k;
    h->dwy += (v->wy[t] - h->wy) * k;
    h->dwz += (v->wz[t] - h->wz) * k;
    h->dr += (v->drho[t] - h->rho) * k;
}

static inline float pse_arg(const particle_array *v, int t, const pse_home *h, float inv_s2) {
    const float dx = v->px[t] - h->x, dy = v->py[t] - h->y, dz = v->pz[t] - h->z;
    return -(dx * dx + dy * dy + dz * dz) * inv_s2;
}

/* H's neighbours in visiting order, waiting for their kernels. Cells hold a
 * vorton or two, so the kernels are batched over all 27 cells: evaluated
 * together (eddy_expf_array, lanes = neighbours, nothing summed across
 * them), then added one by one in the visiting order. */
enum { PSE_BATCH = 64 };

typedef struct pse_batch {
    int count;
    int t[PSE_BATCH];
    float arg[PSE_BATCH];
} pse_batch;

static void pse_flush(pse_home *h, const particle_array *v, pse_batch *b) {
    float k[PSE_BATCH];
    eddy_expf_array(b->arg, k, b->count);
    for (int j = 0; j < b->count; ++j) pse_add(h, v, b->t[j], k[j]);
    b->count = 0;
}

/* Queues H's exchange with the vortons sorted[n .. end) of one cell. */
static void pse_cell(pse_home *h, const particle_array *v, pse_batch *b, const int *sorted, int n,
                     int end, float inv_s2) {
    for (; n < end; ++n) {
        const int t = sorted[n];
        if (t == h->index) continue;
        b->t[b->count] = t;
        b->arg[b->count] = pse_arg(v, t, h, inv_s2);
        if (++b->count == PSE_BATCH) pse_flush(h, v, b);
    }
}

static void pse_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const eddy_world *w = job->w;
    const particle_array *v = &w->vortons;
    const grid_shape *g = &w->grid;
    const int *start = w->part.cell_start, *sorted = w->part.sorted_index;
    float *out_wx = w->scratch[0], *out_wy = w->scratch[1], *out_wz = w->scratch[2];
    float *out_rho = w->scratch[3];
    for (int i = begin; i < end; ++i) {
        pse_home h = {i, v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i], v->wz[i], v->drho[i],
                      0.0f, 0.0f, 0.0f, 0.0f};
        pse_batch batch;
        batch.count = 0;
        int c[3];
        grid_cell_of(g, h.x, h.y, h.z, c);
        for (int ck = c[2] - 1; ck <= c[2] + 1; ++ck) {
            if (ck < 0 || ck >= g->cells[2]) continue;
            for (int cj = c[1] - 1; cj <= c[1] + 1; ++cj) {
                if (cj < 0 || cj >= g->cells[1]) continue;
                for (int ci = c[0] - 1; ci <= c[0] + 1; ++ci) {
                    if (ci < 0 || ci >= g->cells[0]) continue;
                    const int cell = ci + g->cells[0] * (cj + g->cells[1] * ck);
                    pse_cell(&h, v, &batch, sorted, start[cell], start[cell + 1], job->inv_s2);
                }
            }
        }
        pse_flush(&h, v, &batch);
        out_wx[i] = (h.wx + job->nu2dt * h.dwx) * job->keep_w;
        out_wy[i] = (h.wy + job->nu2dt * h.dwy) * job->keep_w;
        out_wz[i] = (h.wz + job->nu2dt * h.dwz) * job->keep_w;
        out_rho[i] = (h.rho + job->kappa2dt * h.dr) * job->keep_rho;
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
