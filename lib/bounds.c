/* SPDX-License-Identifier: MIT */
/* Bounding box of all particles: per-chunk min/max, combined by the fixed
 * reduction tree. min/max are exact, and fmin_det/fmax_det resolve ties and
 * signed zeros one way, so the box is the same for any worker count. */
#include "core.h"

enum { BOUNDS_CHUNK = 8192 };

typedef struct box {
    float lo[3], hi[3];
} box;

typedef struct bounds_job {
    const particle_array *a;
    box *out;
} bounds_job;

static void bounds_chunk(int chunk, int begin, int end, void *context) {
    const bounds_job *job = context;
    const particle_array *a = job->a;
    box b = {{EDDY_FLT_MAX, EDDY_FLT_MAX, EDDY_FLT_MAX}, {-EDDY_FLT_MAX, -EDDY_FLT_MAX, -EDDY_FLT_MAX}};
    for (int i = begin; i < end; ++i) {
        b.lo[0] = fmin_det(b.lo[0], a->px[i]);
        b.lo[1] = fmin_det(b.lo[1], a->py[i]);
        b.lo[2] = fmin_det(b.lo[2], a->pz[i]);
        b.hi[0] = fmax_det(b.hi[0], a->px[i]);
        b.hi[1] = fmax_det(b.hi[1], a->py[i]);
        b.hi[2] = fmax_det(b.hi[2], a->pz[i]);
    }
    job->out[chunk] = b;
}

static void combine_box(void *dst, const void *src) {
    box *d = dst;
    const box *s = src;
    for (int k = 0; k < 3; ++k) {
        d->lo[k] = fmin_det(d->lo[k], s->lo[k]);
        d->hi[k] = fmax_det(d->hi[k], s->hi[k]);
    }
}

static bool array_bounds(eddy_world *w, const particle_array *a, box *out) {
    int n = chunk_count(a->count, BOUNDS_CHUNK);
    if (n == 0) return false;
    box *partials = eddy_partials_reserve(w, (size_t)n * sizeof(box));
    if (!partials) {  /* out of scratch memory: one chunk, same result */
        bounds_job job = {a, out};
        bounds_chunk(0, 0, a->count, &job);
        return true;
    }
    bounds_job job = {a, partials};
    eddy_parallel_for(&w->tasks, a->count, BOUNDS_CHUNK, bounds_chunk, &job);
    eddy_reduce_tree(&w->tasks, partials, n, sizeof(box), combine_box);
    *out = partials[0];
    return true;
}

bool eddy_particles_bounds(eddy_world *w, float lo[3], float hi[3]) {
    box bv, bt;
    bool hv = array_bounds(w, &w->vortons, &bv);
    bool ht = array_bounds(w, &w->tracers, &bt);
    if (!hv && !ht) return false;
    if (hv && ht) combine_box(&bv, &bt);
    const box *b = hv ? &bv : &bt;
    for (int k = 0; k < 3; ++k) {
        lo[k] = b->lo[k];
        hi[k] = b->hi[k];
    }
    return true;
}
