/* SPDX-License-Identifier: MIT */
/* Viscous diffusion by particle strength exchange, as a gather (D5).
 *
 * Every vorton H computes its own change from the start-of-phase values of
 * its neighbours T, all vortons in the 27 cells around H's cell, with the
 * kernel k = exp(-|x_H - x_T|^2 / s^2), s = 4 vorton diameters:
 *     d(omega_H) = 2 nu dt sum_T 5 k (d . (omega_T - omega_H)) d / |d|^2,
 *                  d = x_H - x_T (the exchange along the pair's axis, below)
 *     d(rho'_H)  = 2 kappa dt sum_T k (rho'_T - rho'_H)
 * Then it applies dissipation, omega *= (1 - rate dt). New values go to
 * scratch arrays and are copied back after all vortons are done (Jacobi), so
 * the result is independent of the order vortons are visited in. The
 * neighbourhood relation is symmetric (cell distance <= 1 on every axis) and
 * each pair's term is antisymmetric (T gets exactly minus what H gets), so
 * the exchange conserves sum(omega) and sum(rho') up to rounding. Neighbours
 * are visited in cell order z, y, x and ascending index within a cell. The
 * kernels exp(...) are evaluated in batches (eddy_expf_array, bit-identical
 * to eddy_expf); the sums still run neighbour by neighbour in that order.
 *
 * Why vorticity is exchanged along the pair's axis only. The original
 * exchanged the whole difference, k (omega_T - omega_H). A pair then changes
 * the linear impulse P = 1/2 sum x x omega V by nu dt V k d x (omega_T -
 * omega_H), which is not zero, and nothing makes the sum over pairs vanish:
 * the particles carry no zero-vorticity fluid around the flow to diffuse
 * into, so the exchange only redistributes vorticity inside its support. The
 * vortex_ring scene lost 14 % of its impulse in 300 frames with exact
 * velocities, and its two sides, whose vorticities are opposite, cancelled
 * across the axis (docs/physics.md §2). Exchanging only the component of the
 * difference along d makes every pair's change parallel to d, so
 * d x (change) = 0: P is conserved pair by pair, exactly in real arithmetic,
 * and the total vorticity too. It is still a Laplacian: for neighbours spread
 * evenly over directions, sum k dhat dhat^T (omega_T - omega_H) tends to
 * (1/30) <k |d|^2> (lap omega + 2 grad div omega), and the whole difference
 * to (1/6) <k |d|^2> lap omega; with div omega = 0 the factor 5 gives the
 * original's diffusion rate. A divergent part (which a vorton field should not
 * have) is damped three times faster; the operator stays dissipative. A pair
 * at the same point (d = 0) exchanges no vorticity. */
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

/* Weight of the exchange along the pair's axis (see the note above). */
static const float PSE_AXIAL_WEIGHT = 5.0f;

/* H's neighbours in visiting order, waiting for their kernels. Cells hold a
 * vorton or two, so the kernels are batched over all 27 cells: evaluated
 * together (eddy_expf_array, lanes = neighbours, nothing summed across
 * them), with each pair's axial factor 5 k / |d|^2 (one division per lane,
 * exactly rounded in any width), then added one by one in the visiting
 * order. */
enum { PSE_BATCH = 64 };

typedef struct pse_batch {
    int count;
    int t[PSE_BATCH];
    float arg[PSE_BATCH]; /* -|d|^2 / s^2 */
    float dx[PSE_BATCH], dy[PSE_BATCH], dz[PSE_BATCH], d2[PSE_BATCH]; /* d = x_H - x_T */
} pse_batch;

static inline void pse_add(pse_home *h, const particle_array *v, const pse_batch *b, int j,
                           float k, float axial) {
    const int t = b->t[j];
    h->dr += (v->drho[t] - h->rho) * k;
    const float ex = v->wx[t] - h->wx, ey = v->wy[t] - h->wy, ez = v->wz[t] - h->wz;
    const float along = axial * (b->dx[j] * ex + b->dy[j] * ey + b->dz[j] * ez);
    h->dwx += b->dx[j] * along;
    h->dwy += b->dy[j] * along;
    h->dwz += b->dz[j] * along;
}

static void pse_flush(pse_home *h, const particle_array *v, pse_batch *b) {
    float k[PSE_BATCH], axial[PSE_BATCH];
    eddy_expf_array(b->arg, k, b->count);
    for (int j = 0; j < b->count; ++j) /* a pair at one point exchanges no vorticity */
        axial[j] = b->d2[j] > 0.0f ? PSE_AXIAL_WEIGHT * k[j] / b->d2[j] : 0.0f;
    for (int j = 0; j < b->count; ++j) pse_add(h, v, b, j, k[j], axial[j]);
    b->count = 0;
}

/* Queues H's exchange with the vortons sorted[n .. end) of one cell. */
static void pse_cell(pse_home *h, const particle_array *v, pse_batch *b, const int *sorted, int n,
                     int end, float inv_s2) {
    for (; n < end; ++n) {
        const int t = sorted[n];
        if (t == h->index) continue;
        const float dx = h->x - v->px[t], dy = h->y - v->py[t], dz = h->z - v->pz[t];
        const float d2 = dx * dx + dy * dy + dz * dz;
        const int j = b->count;
        b->t[j] = t;
        b->dx[j] = dx;
        b->dy[j] = dy;
        b->dz[j] = dz;
        b->d2[j] = d2;
        b->arg[j] = -d2 * inv_s2;
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
