/* SPDX-License-Identifier: MIT */
/* Conserved quantities of the vorton field, summed per fixed chunk in double
 * and combined by the fixed reduction tree (rule 2), so they are identical
 * for every worker count. Tests use them to check conservation; they are
 * part of the hashed state (globals), which is how a worker-count-dependent
 * reduction (EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION) shows up in the hash. */
#include "fluid/fluid.h"

enum { DIAGNOSTICS_CHUNK = 256 };

typedef struct diag_job {
    const particle_array *v;
    eddy_diagnostics *out;
    double volume;
} diag_job;

static void diag_chunk(int chunk, int begin, int end, void *context) {
    const diag_job *job = context;
    const particle_array *v = job->v;
    eddy_diagnostics d;
    memset(&d, 0, sizeof d);
    const double V = job->volume;
    for (int i = begin; i < end; ++i) {
        const double x = (double)v->px[i], y = (double)v->py[i], z = (double)v->pz[i];
        const double wx = (double)v->wx[i] * V, wy = (double)v->wy[i] * V, wz = (double)v->wz[i] * V;
        d.total_vorticity[0] += wx;
        d.total_vorticity[1] += wy;
        d.total_vorticity[2] += wz;
        const double cx = y * wz - z * wy, cy = z * wx - x * wz, cz = x * wy - y * wx;
        d.linear_impulse[0] += 0.5 * cx;
        d.linear_impulse[1] += 0.5 * cy;
        d.linear_impulse[2] += 0.5 * cz;
        d.angular_impulse[0] += (y * cz - z * cy) / 3.0;
        d.angular_impulse[1] += (z * cx - x * cz) / 3.0;
        d.angular_impulse[2] += (x * cy - y * cx) / 3.0;
        const double ox = (double)v->wx[i], oy = (double)v->wy[i], oz = (double)v->wz[i];
        d.enstrophy += (ox * ox + oy * oy + oz * oz) * V;
        d.mass_deviation += (double)v->drho[i] * V;
    }
    job->out[chunk] = d;
}

static void combine_diag(void *dst, const void *src) {
    eddy_diagnostics *a = dst;
    const eddy_diagnostics *b = src;
    for (int k = 0; k < 3; ++k) {
        a->total_vorticity[k] += b->total_vorticity[k];
        a->linear_impulse[k] += b->linear_impulse[k];
        a->angular_impulse[k] += b->angular_impulse[k];
    }
    a->enstrophy += b->enstrophy;
    a->mass_deviation += b->mass_deviation;
}

size_t eddy_diagnostics_partials_bytes(int vortons) {
    return (size_t)chunk_count(vortons, DIAGNOSTICS_CHUNK) * sizeof(eddy_diagnostics);
}

void eddy_phase_diagnostics(eddy_world *w) {
    const int n = chunk_count(w->vortons.count, DIAGNOSTICS_CHUNK);
    memset(&w->diagnostics, 0, sizeof w->diagnostics);
    if (n == 0) return;
    eddy_diagnostics *partials = eddy_partials_reserve(w, (size_t)n * sizeof *partials);
    const double r = (double)w->def.vorton_radius;
    diag_job job = {&w->vortons, partials, 4.0 / 3.0 * 3.14159265358979323846 * r * r * r};
    if (!partials) {
        job.out = &w->diagnostics;
        diag_chunk(0, 0, w->vortons.count, &job);
        return;
    }
    eddy_parallel_for(&w->tasks, w->vortons.count, DIAGNOSTICS_CHUNK, diag_chunk, &job);
    eddy_reduce_tree(&w->tasks, partials, n, sizeof *partials, combine_diag);
    w->diagnostics = partials[0];
}
