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
 * are visited in cell order z, y, x and ascending index within a cell.
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
 * at the same point (d = 0) exchanges no vorticity.
 *
 * How it is computed. The bits are those of one scalar loop over each
 * home's neighbours in visiting order (tests/test_diffuse.c keeps that loop
 * and compares every build with it); only the data movement differs.
 * - A copy in partition order. The phase first copies every vorton's
 *   position, vorticity and rho' into arrays ordered like part.sorted_index
 *   (w->sorted_scratch, PSE_ARRAYS arrays, PSE_PAD zeroed floats after
 *   each). Cells along x are consecutive cell indices, so the 3 x-cells of
 *   each of the 9 (y, z) rows around a cell are one contiguous run of the
 *   copy: nothing is gathered through sorted_index per pair.
 * - Homes by cell. Chunks run over sorted positions (a fixed size, rule 1),
 *   so the homes of one cell come together; they have the same 27 cells,
 *   whose 9 runs are packed once into one contiguous batch (at most
 *   PSE_BATCH vortons, for up to PSE_HOMES homes; a larger neighbourhood
 *   takes several batches, in order). Each home writes only its own slot of
 *   the scratch arrays, so the order homes are handled in changes nothing.
 * - Terms in lanes. The per-neighbour terms, (rho'_T - rho'_H) k and
 *   d along with along = 5 k / |d|^2 (d . (omega_T - omega_H)) (0 at d = 0,
 *   by a select), are computed four neighbours at a time (lib/runtime/lanes4.h:
 *   SSE2, NEON or plain C) or eight (lib/fluid/diffuse_avx2.c, AVX2, chosen at run
 *   time): every lane does the scalar code's operations in its order, the
 *   kernel is vf_expf (lib/runtime/emath_lanes.h, eddy_expf's bits), nothing is
 *   summed across lanes. Lanes past the batch repeat its last neighbour and
 *   are never added. Two homes are computed in one loop over the batch.
 * - Sums in order. The terms are then added to each home's four sums one
 *   neighbour at a time in visiting order, two homes' sums in one loop
 *   (independent chains). A home's own slot is skipped, never added as 0:
 *   -0 + +0 is not -0.
 * - The normalised exchange's pairs, once a phase. Its kernel is cut at
 *   |d|^2 >= cut2, where every term is +0 or -0; a sum that starts at +0 is
 *   never -0, so leaving such terms out changes no bit. The moments pass
 *   takes, per home and batch, only the slots within the cut-off (|d|^2 from
 *   the terms' own operations, read in place from the copy's runs: no batch
 *   is packed) into a compact copy for the lanes, and writes
 *   their sorted positions and k, in visiting order, to a list per chunk
 *   (pse_list); every exchange substep reads the list back, gathers the
 *   neighbours by sorted position and computes no kernel and searches no
 *   cell. Without memory for a list a chunk searches its cells as before:
 *   the same bits either way.
 * - Records for the gathers. The copy also holds each vorton as one
 *   32-byte-aligned record of 8 floats (x, y, z, wx, wy, wz, rho', g; g
 *   from the moments pass). The kept pairs of the moments pass and every
 *   pair of the exchange substeps are gathered as records, a lane's record
 *   one load and the lanes' fields a transpose in registers
 *   (vf_load_records8), where the arrays cost a load per field: the
 *   diffusion phase of noise_cloud takes 0.67 of its time with arrays
 *   (bench/RESULTS.md). Only data moves: the same bits.
 * The code of the last three steps is lib/fluid/diffuse_cell.h, built once per
 * lane width. */
#include "runtime/lanes4.h"
#include "runtime/emath_lanes.h"

#define PSE_CELL_ENTRY eddy_pse_cell_lanes4
#include "fluid/diffuse_cell.h"

#include <stdlib.h>

#if defined(EDDY_HAVE_PSE_AVX2)
#define EDDY_CPU_HAS_AVX2() __builtin_cpu_supports("avx2")
#else
#define EDDY_CPU_HAS_AVX2() false
#endif

enum { PSE_CHUNK = 128, COPY_CHUNK = 1024 };

/* The eight-lane build where the CPU has AVX2, else the four-lane one: the
 * same bits either way, so the choice is a matter of speed only. */
static pse_cell_fn *pse_cell_for_cpu(void) {
#if defined(EDDY_HAVE_PSE_AVX2)
    if (EDDY_CPU_HAS_AVX2()) return eddy_pse_cell_avx2;
#endif
    return eddy_pse_cell_lanes4;
}

static size_t pse_stride(int capacity) { return (size_t)capacity + PSE_PAD; }

/* The scratch holds PSE_ARRAYS arrays of stride floats, then the records
 * (8 floats per sorted position) from the first 32-byte boundary on. */
static size_t pse_scratch_floats(int capacity) {
    return PSE_ARRAYS * pse_stride(capacity) + 8 * (size_t)capacity + PSE_RECORD_ALIGN_FLOATS;
}

static float *pse_records(const eddy_world *w) {
    float *p = w->sorted_scratch + PSE_ARRAYS * pse_stride(w->sorted_scratch_capacity);
    const uintptr_t misaligned = (uintptr_t)p % (PSE_RECORD_ALIGN_FLOATS * sizeof(float));
    return misaligned ? p + (PSE_RECORD_ALIGN_FLOATS * sizeof(float) - misaligned) / sizeof(float)
                      : p;
}

bool eddy_pse_reserve(eddy_world *w, int n) {
    if (n <= w->sorted_scratch_capacity) return true;
    float *p = eddy_realloc(w->sorted_scratch, pse_scratch_floats(n) * sizeof *p);
    if (!p) return false;
    w->sorted_scratch = p;
    w->sorted_scratch_capacity = n;
    return true;
}

static pse_sorted pse_sorted_view(const eddy_world *w) {
    const float *p = w->sorted_scratch;
    const size_t stride = pse_stride(w->sorted_scratch_capacity);
    return (pse_sorted){p,              p + stride,     p + 2 * stride, p + 3 * stride,
                        p + 4 * stride, p + 5 * stride, p + 6 * stride, p + 7 * stride,
                        pse_records(w)};
}

/* The moments pass's outputs: g and a in partition order. */
static float *pse_g_out(eddy_world *w) {
    return w->sorted_scratch + 7 * pse_stride(w->sorted_scratch_capacity);
}

static float *pse_a_out(eddy_world *w) {
    return w->sorted_scratch + 8 * pse_stride(w->sorted_scratch_capacity);
}

/* Start-of-phase values into partition order, sorted positions [begin, end). */
static void copy_chunk(int chunk, int begin, int end, void *context) {
    const pse_job *job = context;
    const particle_array *v = &job->w->vortons;
    const int *sorted = job->w->part.sorted_index;
    float *out = job->w->sorted_scratch;
    const size_t stride = pse_stride(job->w->sorted_scratch_capacity);
    float *x = out, *y = x + stride, *z = y + stride, *wx = z + stride, *wy = wx + stride;
    float *wz = wy + stride, *rho = wz + stride, *rec = job->s.rec;
    const bool records = job->pass != PSE_PASS_SEED; /* the seed's exchange reads none */
    for (int n = begin; n < end; ++n) {
        const int i = sorted[n];
        const float f[7] = {v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i], v->wz[i], v->drho[i]};
        x[n] = f[0];
        y[n] = f[1];
        z[n] = f[2];
        wx[n] = f[3];
        wy[n] = f[4];
        wz[n] = f[5];
        rho[n] = f[6];
        /* r[7], g, is the moments pass's: written once a phase */
        if (records) memcpy(rec + 8 * (size_t)n, f, sizeof f);
    }
}

/* The padding after the copied values: defined floats for the last lanes. */
static void pad_clear(eddy_world *w, int count) {
    const size_t stride = pse_stride(w->sorted_scratch_capacity);
    for (int a = 0; a < PSE_ARRAYS; ++a)
        memset(w->sorted_scratch + a * stride + count, 0, PSE_PAD * sizeof(float));
}

/* The terms H adds, in visiting order, for up to PSE_BATCH neighbours taken
 * from consecutive runs; a run's last vector writes up to VF_LANES - 1 lanes
 * past its end, which the next run overwrites or the sums never read. */
static pse_home pse_home_at(const pse_job *job, int n) {
    const pse_sorted *s = &job->s;
    return (pse_home){n,        s->x[n], s->y[n], s->z[n], s->wx[n],
                      s->wy[n], s->wz[n], s->rho[n], 0.0f,  0.0f,
                      0.0f,     0.0f,    job->pass == PSE_PASS_EXCHANGE ? s->g[n] : 0.0f};
}

static void pse_store(const pse_job *job, const pse_home *h) {
    const eddy_world *w = job->w;
    if (job->pass == PSE_PASS_MOMENTS) {
        /* dwx holds M = sum k |d|^2, dr holds S = sum k; a vorton with no
         * neighbour exchanges nothing */
        const float floor = job->spread_floor * h->dr;
        const float m = h->dwx > floor ? h->dwx : floor;
        job->g_out[h->self] = m > 0.0f ? 6.0f / m : 0.0f;
        job->s.rec[8 * (size_t)h->self + 7] = job->g_out[h->self];
        job->a_out[h->self] = m > 0.0f ? 6.0f * h->dr / m : 0.0f;
        return;
    }
    const int i = w->part.sorted_index[h->self];
    w->scratch[0][i] = (h->wx + job->nu_dt * h->dwx) * job->keep_w;
    w->scratch[1][i] = (h->wy + job->nu_dt * h->dwy) * job->keep_w;
    w->scratch[2][i] = (h->wz + job->nu_dt * h->dwz) * job->keep_w;
    w->scratch[3][i] = (h->rho + job->kappa_dt * h->dr) * job->keep_rho;
}

/* Homes at sorted positions [begin, end), up to PSE_HOMES of one cell at a
 * time. */
static void pse_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk;
    const pse_job *job = context;
    const grid_shape *grid = &job->w->grid;
    const int *start = job->w->part.cell_start;
    pse_home homes[PSE_HOMES];
    pse_list *list = job->lists ? &job->lists[chunk] : NULL;
    if (list) {
        if (job->pass == PSE_PASS_MOMENTS) {
            list->count = 0;
            list->failed = false;
        }
        list->at = 0;
    }
    for (int n = begin; n < end;) {
        homes[0] = pse_home_at(job, n);
        int c[3];
        grid_cell_of(grid, homes[0].x, homes[0].y, homes[0].z, c);
        const int cell = c[0] + grid->cells[0] * (c[1] + grid->cells[1] * c[2]);
        const int cell_end = start[cell + 1] < end ? start[cell + 1] : end;
        const int count = cell_end - n < PSE_HOMES ? cell_end - n : PSE_HOMES;
        for (int m = 1; m < count; ++m) homes[m] = pse_home_at(job, n + m);
        job->cell(job, c, homes, count, list);
        for (int m = 0; m < count; ++m) pse_store(job, &homes[m]);
        n += count;
    }
}

/* The copy's vorticity and rho' after an exchange (positions do not move). */
static void copy_back(eddy_world *w) {
    particle_array *v = &w->vortons;
    const size_t bytes = (size_t)v->count * sizeof(float);
    memcpy(v->wx, w->scratch[0], bytes);
    memcpy(v->wy, w->scratch[1], bytes);
    memcpy(v->wz, w->scratch[2], bytes);
    memcpy(v->drho, w->scratch[3], bytes);
}

/* The seed's exchange (EDDY_DIFFUSION_SEED): kernel exp(-|d|^2 / s^2), s = 8
 * vorton radii, over the 27 cells, rates 2 nu dt and 2 kappa dt. */
static void diffuse_seed(eddy_world *w, float dt, pse_cell_fn *cell) {
    const eddy_world_def *d = &w->def;
    const float s = 8.0f * d->vorton_radius;
    particle_array *v = &w->vortons;
    pse_job job = {w,
                   pse_sorted_view(w),
                   cell,
                   -(1.0f / (s * s)),
                   2.0f * d->viscosity * dt,
                   2.0f * d->density_diffusivity * dt,
                   1.0f - d->vorticity_dissipation * dt,
                   1.0f - d->density_relaxation * dt,
                   PSE_PASS_SEED,
                   {1, 1, 1},
                   0.0f,
                   NULL,
                   NULL,
                   0.0f,
                   NULL};
    eddy_parallel_for(&w->tasks, v->count, COPY_CHUNK, copy_chunk, &job);
    pad_clear(w, v->count);
    eddy_parallel_for(&w->tasks, v->count, PSE_CHUNK, pse_chunk, &job);
    copy_back(w);
}

/* The chunks' pair lists, kept by the world across steps so that a step
 * whose pairs fit what earlier steps held allocates nothing (each list is
 * emptied by its moments pass). NULL when there is no memory for the list
 * headers: every pass then searches the cells, with the same bits. */
static pse_list *pse_lists_reserve(eddy_world *w, int chunks) {
    if (chunks > w->pse_list_count) {
        pse_list *p = eddy_realloc(w->pse_lists, (size_t)chunks * sizeof *p);
        if (!p) return NULL;
        memset(p + w->pse_list_count, 0, (size_t)(chunks - w->pse_list_count) * sizeof *p);
        w->pse_lists = p;
        w->pse_list_count = chunks;
    }
    return w->pse_lists;
}

bool eddy_pse_lists_reserve(eddy_world *w, int vortons, int pairs_per_vorton) {
    const int chunks = chunk_count(vortons, PSE_CHUNK);
    if (chunks > 0 && !pse_lists_reserve(w, chunks)) return false;
    const int64_t want = (int64_t)PSE_CHUNK * pairs_per_vorton;
    const int room = want < INT32_MAX / 2 ? (int)want : INT32_MAX / 2;
    for (int c = 0; c < chunks; ++c) {
        pse_list *l = &w->pse_lists[c];
        if (room <= l->capacity) continue;
        int *idx = eddy_realloc(l->idx, (size_t)room * sizeof *idx);
        if (!idx) return false;
        l->idx = idx;
        float *k = eddy_realloc(l->k, (size_t)room * sizeof *k);
        if (!k) return false; /* idx has the room, k not yet: the capacity stays */
        l->k = k;
        l->capacity = room;
    }
    return true;
}

void eddy_pse_lists_free(eddy_world *w) {
    for (int c = 0; c < w->pse_list_count; ++c) {
        eddy_free(w->pse_lists[c].idx);
        eddy_free(w->pse_lists[c].k);
    }
    eddy_free(w->pse_lists);
    w->pse_lists = NULL;
    w->pse_list_count = 0;
}

/* The normalised exchange (EDDY_DIFFUSION_NORMALISED, the default; design
 * note: docs/physics.md section 9). Kernel k = exp(-|d|^2 / eps^2), eps = 3
 * vorton radii, cut to 0 from |d| = 2 eps on; the neighbourhood reaches
 * far enough in cells to hold the cut-off ball (at most PSE_MAX_REACH cells).
 * 1. moments: every vorton's M = sum k |d|^2 and S = sum k over its pairs;
 * 2. n exchanges of dt / n each, n the substeps stability asks for:
 *    d(omega_H) = nu dt sum_T min(g_H, g_T) 5 k (dhat . (omega_T - omega_H)) dhat,
 *    d(rho'_H)  = kappa dt sum_T min(g_H, g_T) k (rho'_T - rho'_H),  g = 6 / M.
 * Returns false (with the world's error message) where the substeps needed
 * exceed EDDY_DIFFUSION_MAX_SUBSTEPS. */

static bool diffuse_normalised(eddy_world *w, float dt, pse_cell_fn *cell) {
    const eddy_world_def *d = &w->def;
    const float eps = PSE_EPS_RADII * d->vorton_radius;
    const float cut = PSE_CUT_EPS * eps;
    particle_array *v = &w->vortons;
    pse_job job = {w,
                   pse_sorted_view(w),
                   cell,
                   -(1.0f / (eps * eps)),
                   0.0f,
                   0.0f,
                   1.0f,
                   1.0f,
                   PSE_PASS_MOMENTS,
                   {1, 1, 1},
                   cut * cut,
                   pse_g_out(w),
                   pse_a_out(w),
                   PSE_MIN_SPREAD_EPS2 * eps * eps,
                   NULL};
    for (int a = 0; a < 3; ++a) {
        const float spacing = w->grid.spacing[a];
        int m = 1;
        while (m < PSE_MAX_REACH && (float)m * spacing < cut) ++m;
        job.reach[a] = m;
    }
    eddy_parallel_for(&w->tasks, v->count, COPY_CHUNK, copy_chunk, &job);
    pad_clear(w, v->count);
    memset(job.g_out + v->count, 0, PSE_PAD * sizeof(float));
    /* The pairs within the cut-off, per chunk, for the exchange substeps
     * (without memory for them every pass searches the cells: the same
     * bits) */
    const int chunks = chunk_count(v->count, PSE_CHUNK);
    job.lists = pse_lists_reserve(w, chunks);
    eddy_parallel_for(&w->tasks, v->count, PSE_CHUNK, pse_chunk, &job);
    /* Stability: the exchange's own weight on a vorton is at most
     * kappa dt sum_T min(g_H, g_T) k <= kappa dt g_H S = kappa dt a for rho'
     * (a = 6 S / M), and for the vorticity the largest eigenvalue of
     * nu dt sum_T min(g_H, g_T) 5 k dhat dhat^T, at most its trace 5 nu dt a
     * (a third of that where the neighbours are spread evenly over
     * directions, all of it where they lie on a line). The explicit exchange
     * is stable while every such weight is at most 1 (Gershgorin: the
     * eigenvalues of the whole exchange are then within [0, 2]). The
     * largest a over the vortons (a maximum: the same whatever the order)
     * sets the substeps. */
    float a_max = 0.0f;
    for (int n = 0; n < v->count; ++n) a_max = job.a_out[n] > a_max ? job.a_out[n] : a_max;
    const float nu = d->viscosity, kappa = d->density_diffusivity;
    const float diff = 5.0f * nu > kappa ? 5.0f * nu : kappa;
    const float weight = diff * dt * a_max;
    int substeps = 1;
    while (substeps <= EDDY_DIFFUSION_MAX_SUBSTEPS && weight / (float)substeps > PSE_MAX_WEIGHT)
        ++substeps;
    if (substeps > EDDY_DIFFUSION_MAX_SUBSTEPS) {
        eddy_world_set_error(w,
                             "diffusion beyond its stability bound: max(5 nu, kappa) dt 6S/M = "
                             "%.3g > %d substeps x %.2g",
                             (double)weight, EDDY_DIFFUSION_MAX_SUBSTEPS, (double)PSE_MAX_WEIGHT);
        return false;
    }
    const float h = dt / (float)substeps;
    job.pass = PSE_PASS_EXCHANGE;
    job.nu_dt = nu * h;
    job.kappa_dt = kappa * h;
    job.keep_w = 1.0f - d->vorticity_dissipation * h;
    job.keep_rho = 1.0f - d->density_relaxation * h;
    for (int k = 0; k < substeps; ++k) {
        if (k > 0) eddy_parallel_for(&w->tasks, v->count, COPY_CHUNK, copy_chunk, &job);
        eddy_parallel_for(&w->tasks, v->count, PSE_CHUNK, pse_chunk, &job);
        copy_back(w);
    }
    return true;
}

bool eddy_phase_diffuse_using(eddy_world *w, float dt, pse_cell_fn *cell) {
    if (!w->grid_valid || w->vortons.count == 0) return true;
    if (w->def.diffusion == EDDY_DIFFUSION_SEED) {
        diffuse_seed(w, dt, cell);
        return true;
    }
    return diffuse_normalised(w, dt, cell);
}

pse_cell_fn *eddy_pse_cell_avx2_if_available(void) {
#if defined(EDDY_HAVE_PSE_AVX2)
    if (EDDY_CPU_HAS_AVX2()) return eddy_pse_cell_avx2;
#endif
    return NULL;
}

bool eddy_phase_diffuse(eddy_world *w, float dt) {
    return eddy_phase_diffuse_using(w, dt, pse_cell_for_cpu());
}
