/* SPDX-License-Identifier: MIT */
/* Bounding box of the vortons, or of all particles: per-chunk min/max, combined by the fixed
 * reduction tree. min/max are exact, and fmin_det/fmax_det resolve ties and
 * signed zeros one way, so the box is the same for any worker count. */
#include "fluid/fluid.h"

enum { BOUNDS_CHUNK = 8192 };

typedef struct box {
    float lo[3], hi[3];
} box;

typedef struct bounds_job {
    const particle_array *a;
    box *out;
} bounds_job;

static box box_of_range(const particle_array *a, int begin, int end) {
    box b = {{EDDY_FLT_MAX, EDDY_FLT_MAX, EDDY_FLT_MAX}, {-EDDY_FLT_MAX, -EDDY_FLT_MAX, -EDDY_FLT_MAX}};
    for (int i = begin; i < end; ++i) {
        b.lo[0] = fmin_det(b.lo[0], a->px[i]);
        b.lo[1] = fmin_det(b.lo[1], a->py[i]);
        b.lo[2] = fmin_det(b.lo[2], a->pz[i]);
        b.hi[0] = fmax_det(b.hi[0], a->px[i]);
        b.hi[1] = fmax_det(b.hi[1], a->py[i]);
        b.hi[2] = fmax_det(b.hi[2], a->pz[i]);
    }
    return b;
}

#if defined(__SSE2__)
/* Four lanes, lane j taking particles begin + j, begin + j + 4, ...
 * minps(x, m) is x < m ? x : m, fmin_det(m, x) exactly (NaN never enters), so
 * each lane holds the first of its smallest values. Values that compare equal
 * are equal bits except +0 and -0: only then can the first of the lanes'
 * minima differ from the first of the range, and only then (a zero in the
 * result) is the range redone one particle at a time. */
#include <emmintrin.h>

static void lanes_fold(__m128 lo, __m128 hi, float *out_lo, float *out_hi) {
    float l[4], h[4];
    _mm_storeu_ps(l, lo);
    _mm_storeu_ps(h, hi);
    *out_lo = fmin_det(fmin_det(fmin_det(l[0], l[1]), l[2]), l[3]);
    *out_hi = fmax_det(fmax_det(fmax_det(h[0], h[1]), h[2]), h[3]);
}

static box box_of_range_fast(const particle_array *a, int begin, int end) {
    const int vec_end = begin + (end - begin) / 4 * 4;
    __m128 lx = _mm_set1_ps(EDDY_FLT_MAX), ly = lx, lz = lx;
    __m128 hx = _mm_set1_ps(-EDDY_FLT_MAX), hy = hx, hz = hx;
    for (int i = begin; i < vec_end; i += 4) {
        const __m128 x = _mm_loadu_ps(a->px + i), y = _mm_loadu_ps(a->py + i),
                     z = _mm_loadu_ps(a->pz + i);
        lx = _mm_min_ps(x, lx);
        ly = _mm_min_ps(y, ly);
        lz = _mm_min_ps(z, lz);
        hx = _mm_max_ps(x, hx);
        hy = _mm_max_ps(y, hy);
        hz = _mm_max_ps(z, hz);
    }
    box b;
    lanes_fold(lx, hx, &b.lo[0], &b.hi[0]);
    lanes_fold(ly, hy, &b.lo[1], &b.hi[1]);
    lanes_fold(lz, hz, &b.lo[2], &b.hi[2]);
    const box tail = box_of_range(a, vec_end, end);
    for (int k = 0; k < 3; ++k) {
        b.lo[k] = fmin_det(b.lo[k], tail.lo[k]);
        b.hi[k] = fmax_det(b.hi[k], tail.hi[k]);
        if (b.lo[k] == 0.0f || b.hi[k] == 0.0f) return box_of_range(a, begin, end);
    }
    return b;
}
#else
static box box_of_range_fast(const particle_array *a, int begin, int end) {
    return box_of_range(a, begin, end);
}
#endif

static void bounds_chunk(int chunk, int begin, int end, void *context) {
    const bounds_job *job = context;
    job->out[chunk] = box_of_range_fast(job->a, begin, end);
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
        *out = box_of_range(a, 0, a->count);
        return true;
    }
    bounds_job job = {a, partials};
    eddy_parallel_for(&w->tasks, a->count, BOUNDS_CHUNK, bounds_chunk, &job);
    eddy_reduce_tree(&w->tasks, partials, n, sizeof(box), combine_box);
    *out = partials[0];
    return true;
}

bool eddy_particles_bounds(eddy_world *w, float lo[3], float hi[3], bool with_tracers) {
    box bv, bt;
    bool hv = array_bounds(w, &w->vortons, &bv);
    bool ht = with_tracers && array_bounds(w, &w->tracers, &bt);
    if (!hv && !ht) return false;
    if (hv && ht) combine_box(&bv, &bt);
    const box *b = hv ? &bv : &bt;
    for (int k = 0; k < 3; ++k) {
        lo[k] = b->lo[k];
        hi[k] = b->hi[k];
    }
    return true;
}

/* Second moments of the vortons about a point c: per chunk, sums in double
 * in index order, combined by the fixed tree (the same bits for any worker
 * count). */
typedef struct spread {
    double n, s[3], ss[6]; /* count, sum of d, sum of d d^T (xx yy zz xy xz yz) */
} spread;

typedef struct spread_job {
    const particle_array *a;
    const float *c;
    spread *out;
} spread_job;

static void spread_chunk(int chunk, int begin, int end, void *context) {
    const spread_job *job = context;
    const particle_array *a = job->a;
    spread p = {0};
    for (int i = begin; i < end; ++i) {
        const double x = (double)(a->px[i] - job->c[0]), y = (double)(a->py[i] - job->c[1]),
                     z = (double)(a->pz[i] - job->c[2]);
        p.s[0] += x;
        p.s[1] += y;
        p.s[2] += z;
        p.ss[0] += x * x;
        p.ss[1] += y * y;
        p.ss[2] += z * z;
        p.ss[3] += x * y;
        p.ss[4] += x * z;
        p.ss[5] += y * z;
    }
    p.n = (double)(end - begin);
    job->out[chunk] = p;
}

static void combine_spread(void *dst, const void *src) {
    spread *d = dst;
    const spread *s = src;
    d->n += s->n;
    for (int k = 0; k < 3; ++k) d->s[k] += s->s[k];
    for (int k = 0; k < 6; ++k) d->ss[k] += s->ss[k];
}

float eddy_vortons_spread_volume(eddy_world *w, const float centre[3], float blob) {
    const particle_array *a = &w->vortons;
    const int n = chunk_count(a->count, BOUNDS_CHUNK);
    if (n == 0) return 0.0f;
    spread *partials = eddy_partials_reserve(w, (size_t)n * sizeof(spread));
    if (!partials) return -1.0f; /* reserved with the vortons (eddy_fluid_partials_bytes) */
    spread_job job = {a, centre, partials};
    eddy_parallel_for(&w->tasks, a->count, BOUNDS_CHUNK, spread_chunk, &job);
    eddy_reduce_tree(&w->tasks, partials, n, sizeof(spread), combine_spread);
    const spread total = partials[0];
    const double inv = 1.0 / total.n;
    const double m[3] = {total.s[0] * inv, total.s[1] * inv, total.s[2] * inv};
    const double b = (double)blob * (double)blob / 12.0;
    const double xx = total.ss[0] * inv - m[0] * m[0] + b, yy = total.ss[1] * inv - m[1] * m[1] + b,
                 zz = total.ss[2] * inv - m[2] * m[2] + b, xy = total.ss[3] * inv - m[0] * m[1],
                 xz = total.ss[4] * inv - m[0] * m[2], yz = total.ss[5] * inv - m[1] * m[2];
    double det = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz);
    const double floor = b * b * b;
    if (!(det > floor)) det = floor;
    return (float)(41.569219381653056 * sqrt(det)); /* 12^(3/2) sqrt(det): a box's volume */
}

size_t eddy_fluid_partials_bytes(int vortons, int tracers) {
    const int most = vortons > tracers ? vortons : tracers;
    const size_t bounds = (size_t)chunk_count(most, BOUNDS_CHUNK) * sizeof(spread);
    const size_t stretch = eddy_stretch_partials_bytes(vortons);
    const size_t diagnostics = eddy_diagnostics_partials_bytes(vortons);
    size_t m = bounds > stretch ? bounds : stretch;
    return m > diagnostics ? m : diagnostics;
}
