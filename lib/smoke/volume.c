/* SPDX-License-Identifier: MIT */
/* The smoke volume: tracers accumulated into a density grid by the
 * cloud-in-cell tent (kernel and units: include/eddy/smoke.h).
 *
 * Design note — why the bits never depend on the worker count. The transfer
 * is a gather (docs/DETERMINISM.md rule 3). Tracer t has voxel coordinates
 * (u, v, w) and falls in bin b = floor(.) + 1 per axis, in [0, n] ("extended"
 * bins: bin b touches voxels b - 1 and b); a tracer whose 8 voxels all lie
 * outside is dropped. Voxel (i, j, k) is the sum, in one fixed order, of
 * (1 - |u - i|) (1 - |v - j|) (1 - |w - k|) (computed as (x * y) * z) over
 * the tracers of its 8 bins: bins ascending z, y, x, each bin's tracers by
 * index, starting from 0, then times tracer_amount / cell volume. The
 * passes below only decide who computes that sum where; none of them can
 * change an addition's order, so no worker count, slab or chunk size can
 * change a bit.
 *   1. group (parallel, fixed chunks of SMOKE_BIN_CHUNK tracers): each chunk
 *      bins its tracers (SMOKE_BLOCK at a time, 4 lanes wide: integers, the
 *      same as one at a time) and groups them by bin plane inside its own
 *      region of `grouped`, each group in tracer order (a chunk-local
 *      counting sort).
 *   2. sort (integers only): serial, each plane's start (the chunks' counts
 *      summed); then per bin plane, in parallel, a stable counting sort by
 *      bin of the plane's tracers read chunk by chunk (so in tracer order).
 *      The result is exactly one serial counting sort by bin, ties by
 *      tracer index, stored as records (coordinates, bin x and y) in `sorted`.
 *   3. accumulate (parallel, one chunk per slab of SMOKE_SLAB voxel planes):
 *      a slab reads the contiguous run of `sorted` of bin planes begin ..
 *      end front to back and adds each tracer's 8 weights to its own padded
 *      copy of the slab (voxels -1 .. n on x and y, begin - 1 .. end on z:
 *      no test per tracer; with SSE2 the 4 x-y weights are one vector, lane
 *      by lane the same products and sums), then copies its owned voxels
 *      out, times the weight. A voxel's sum is held in one place and receives its tracers
 *      in sorted order: the order above.
 * Where the time went before (issue 34 item 1, perf on eddy-smoke-bench): a
 * voxel-plane-by-plane accumulation that read every tracer twice and paid
 * bounds tests and branchy tents per voxel (about 60% of the update), a
 * bin pass that scattered tracer indices and a sort that gathered each
 * tracer's position back from three arrays (random reads). Now each tracer
 * is read once from the world, its record moves through two cache-friendly
 * counting-sort scatters and is read once by its slab.
 * All scratch lives in the volume and grows to a high-water mark: a steady
 * update allocates nothing (the padded slabs, about (1 + 2 / SMOKE_SLAB)
 * times the density, are allocated at the first update).
 * The update runs in the world's canonical FP mode, set here on the calling
 * thread and on every worker by eddy_parallel_for. */
#include "smoke/smoke.h"
#include "hash/xxh3.h"

#include <stdarg.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char g_smoke_error[256];

const char *eddy_smoke_error_message(void) { return g_smoke_error; }

void eddy_smoke_set_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(g_smoke_error, sizeof g_smoke_error, format, args);
    va_end(args);
}

eddy_smoke_volume_def eddy_smoke_volume_def_default(void) {
    eddy_smoke_volume_def d;
    memset(&d, 0, sizeof d);
    d.min_corner = (eddy_vec3){-1.0f, -1.0f, -1.0f};
    d.max_corner = (eddy_vec3){1.0f, 1.0f, 1.0f};
    d.resolution[0] = d.resolution[1] = d.resolution[2] = 64;
    d.tracer_amount = 1.0f;
    return d;
}

static eddy_status def_check(const eddy_smoke_volume_def *d) {
    if (!eddy_finite3(d->min_corner) || !eddy_finite3(d->max_corner) || !isfinite(d->tracer_amount)) {
        eddy_smoke_set_error("smoke volume def: min_corner, max_corner or tracer_amount is not finite");
        return EDDY_ERROR_NAN;
    }
    const float lo[3] = {d->min_corner.x, d->min_corner.y, d->min_corner.z};
    const float hi[3] = {d->max_corner.x, d->max_corner.y, d->max_corner.z};
    int64_t voxels = 1;
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] > lo[a]) || !eddy_within(lo[a], -EDDY_MAX_COORDINATE, EDDY_MAX_COORDINATE) ||
            !eddy_within(hi[a], -EDDY_MAX_COORDINATE, EDDY_MAX_COORDINATE)) {
            eddy_smoke_set_error("smoke volume def: max_corner must exceed min_corner on axis %d, "
                                 "both within EDDY_MAX_COORDINATE", a);
            return EDDY_ERROR_INVALID_DEF;
        }
        if (d->resolution[a] < 1 || d->resolution[a] > EDDY_SMOKE_MAX_RESOLUTION) {
            eddy_smoke_set_error("smoke volume def: resolution[%d] = %d is outside [1, %d]", a,
                                 d->resolution[a], EDDY_SMOKE_MAX_RESOLUTION);
            return EDDY_ERROR_INVALID_DEF;
        }
        voxels *= d->resolution[a];
    }
    if (voxels > EDDY_SMOKE_MAX_VOXELS) {
        eddy_smoke_set_error("smoke volume def: %lld voxels exceed EDDY_SMOKE_MAX_VOXELS",
                             (long long)voxels);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!(d->tracer_amount > 0.0f)) {
        eddy_smoke_set_error("smoke volume def: tracer_amount must be > 0");
        return EDDY_ERROR_INVALID_DEF;
    }
    return EDDY_OK;
}

static int bin_count(const eddy_smoke_volume *v) {
    return (v->n[0] + 1) * (v->n[1] + 1) * (v->n[2] + 1);
}

eddy_status eddy_smoke_volume_create(const eddy_smoke_volume_def *d, eddy_smoke_volume **out) {
    if (!out) return EDDY_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!d) {
        eddy_smoke_set_error("smoke volume def is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_status s = def_check(d);
    if (s != EDDY_OK) return s;
    eddy_smoke_volume *v = eddy_calloc(1, sizeof *v);
    if (!v) return EDDY_ERROR_OUT_OF_MEMORY;
    v->def = *d;
    const float lo[3] = {d->min_corner.x, d->min_corner.y, d->min_corner.z};
    const float hi[3] = {d->max_corner.x, d->max_corner.y, d->max_corner.z};
    for (int a = 0; a < 3; ++a) {
        v->n[a] = d->resolution[a];
        v->min[a] = lo[a];
        v->h[a] = (hi[a] - lo[a]) / (float)v->n[a];
        v->inv_h[a] = (float)v->n[a] / (hi[a] - lo[a]);
    }
    v->inv_cell_volume = 1.0f / (v->h[0] * v->h[1] * v->h[2]);
    v->frame = -1;
    const size_t voxels = (size_t)v->n[0] * (size_t)v->n[1] * (size_t)v->n[2];
    v->density = eddy_calloc(voxels, sizeof(float));
    v->bin_start = eddy_calloc((size_t)bin_count(v) + 1, sizeof(int));
    if (!v->density || !v->bin_start) {
        eddy_smoke_volume_destroy(v);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    *out = v;
    return EDDY_OK;
}

void eddy_smoke_volume_destroy(eddy_smoke_volume *v) {
    if (!v) return;
    eddy_free(v->density);
    eddy_free(v->grouped);
    eddy_free(v->bin_start);
    eddy_free(v->sorted);
    eddy_free(v->slab_pad);
    eddy_free(v->sort_scratch);
    eddy_free(v);
}

eddy_smoke_volume_def eddy_smoke_volume_get_def(const eddy_smoke_volume *v) { return v->def; }
const float *eddy_smoke_volume_density(const eddy_smoke_volume *v) { return v ? v->density : NULL; }
int64_t eddy_smoke_volume_frame(const eddy_smoke_volume *v) { return v ? v->frame : -1; }
int eddy_smoke_volume_tracer_count(const eddy_smoke_volume *v) { return v ? v->tracer_count : 0; }

/* ---------------------------------------------------------------- pass 1: group */
typedef struct sort_job {
    eddy_smoke_volume *v;
    const particle_array *tracers;
    int chunks;        /* tracer chunks of SMOKE_BIN_CHUNK */
    int planes;        /* bin planes along z: n[2] + 1 */
    int plane_bins;    /* bins per plane: (n[0] + 1) (n[1] + 1) */
    int *chunk_plane;  /* chunks x (planes + 1): each chunk's plane starts in its region */
    int *plane_start;  /* planes + 1: first slot of each plane in the sort */
} sort_job;

enum { SMOKE_BIN_CHUNK = 4096 };

/* Tracers are binned SMOKE_BLOCK at a time through fixed-length loops of
 * independent lanes (the compiler may run them 4 or 8 wide: each lane is one
 * IEEE operation per tracer, the same bits as one at a time). */
enum { SMOKE_BLOCK = 64 };

/* Voxel coordinates of one axis for a block, the tail padded with 0. */
static inline void block_coord(const eddy_smoke_volume *v, int a, const float *p, int count,
                               float *restrict c) {
    float x[SMOKE_BLOCK] = {0};
    memcpy(x, p, (size_t)count * sizeof(float));
    const float lo = v->min[a], inv = v->inv_h[a];
    for (int k = 0; k < SMOKE_BLOCK; ++k) c[k] = (x[k] - lo) * inv - 0.5f;
}

/* axis_bin for a block: the bin of each coordinate, or -1. An out-of-range
 * coordinate is replaced by -1 before the conversion, so no lane converts a
 * float outside int's range (or a NaN). */
static inline void block_axis_bin(const float *restrict c, float n, int *restrict b) {
#if defined(__SSE2__) && !defined(EDDY_SMOKE_PLAIN_BINS)
    /* the loop below, 4 lanes at a time (the integers are the same) */
    const __m128 lo = _mm_set1_ps(-1.0f), hi = _mm_set1_ps(n);
    for (int k = 0; k < SMOKE_BLOCK; k += 4) {
        const __m128 u = _mm_loadu_ps(c + k);
        const __m128 ok = _mm_and_ps(_mm_cmpge_ps(u, lo), _mm_cmplt_ps(u, hi));
        const __m128 safe = _mm_or_ps(_mm_and_ps(ok, u), _mm_andnot_ps(ok, lo));
        const __m128i i = _mm_cvttps_epi32(safe);
        const __m128i above = _mm_castps_si128(_mm_cmpgt_ps(_mm_cvtepi32_ps(i), safe));
        const __m128i bin = _mm_sub_epi32(_mm_add_epi32(i, above), _mm_set1_epi32(-1));
        const __m128i okm = _mm_castps_si128(ok);
        _mm_storeu_si128((__m128i *)(void *)(b + k),
                         _mm_or_si128(_mm_and_si128(okm, bin), _mm_andnot_si128(okm, _mm_set1_epi32(-1))));
    }
#else
    for (int k = 0; k < SMOKE_BLOCK; ++k) {
        const float u = c[k];
        const bool ok = u >= -1.0f && u < n; /* false for NaN */
        const float safe = ok ? u : -1.0f;
        const int i = (int)safe;
        const int floor_u = (float)i > safe ? i - 1 : i;
        b[k] = ok ? floor_u + 1 : -1;
    }
#endif
}

/* A chunk's tracers grouped by bin plane inside the chunk's own region of
 * `grouped` (slots begin .. end), each plane's group in tracer order: a
 * chunk-local counting sort, integers only. The tracers' coordinates and
 * bins go first to the chunk's region of `sorted` (tracer order, still in
 * cache when the second loop reads them back). */
static void group_chunk(int chunk, int begin, int end, void *context) {
    const sort_job *job = context;
    const eddy_smoke_volume *v = job->v;
    const particle_array *t = job->tracers;
    eddy_smoke_grouped *restrict out = v->grouped + begin;
    /* staging in tracer order: the chunk's region of `sorted`, free until pass 2 */
    eddy_smoke_grouped *restrict staged = v->sorted + begin;
    const int planes = job->planes;
    int *at = job->chunk_plane + (size_t)chunk * (size_t)(planes + 1);
    int16_t plane_of[SMOKE_BIN_CHUNK]; /* planes <= EDDY_SMOKE_MAX_RESOLUTION + 1 */
    memset(at, 0, (size_t)(planes + 1) * sizeof(int));
    for (int i0 = begin; i0 < end; i0 += SMOKE_BLOCK) {
        const int count = end - i0 < SMOKE_BLOCK ? end - i0 : SMOKE_BLOCK;
        float cx[SMOKE_BLOCK], cy[SMOKE_BLOCK], cz[SMOKE_BLOCK];
        int bx[SMOKE_BLOCK], by[SMOKE_BLOCK], bz[SMOKE_BLOCK];
        block_coord(v, 0, t->px + i0, count, cx);
        block_coord(v, 1, t->py + i0, count, cy);
        block_coord(v, 2, t->pz + i0, count, cz);
        block_axis_bin(cx, (float)v->n[0], bx);
        block_axis_bin(cy, (float)v->n[1], by);
        block_axis_bin(cz, (float)v->n[2], bz);
        for (int k = 0; k < count; ++k) {
            const bool in = bx[k] >= 0 && by[k] >= 0 && bz[k] >= 0;
            const int p = in ? bz[k] : -1;
            plane_of[i0 - begin + k] = (int16_t)p;
            at[p + 1] += 1; /* counts, shifted by one plane (p = -1: at[0], dropped) */
            eddy_smoke_grouped *g = staged + (i0 - begin + k);
            g->u = cx[k];
            g->v = cy[k];
            g->w = cz[k];
            g->xy = in ? bx[k] | by[k] << 16 : 0; /* each in [0, 1024] when in */
        }
    }
    at[0] = 0;
    for (int p = 1; p <= planes; ++p) at[p] += at[p - 1]; /* now plane p starts at at[p] */
    for (int i = 0; i < end - begin; ++i) {
        const int p = plane_of[i];
        if (p >= 0) out[at[p]++] = staged[i];
    }
    /* each at[p] ran to plane p's end, the start of plane p + 1: shift back */
    for (int p = planes; p > 0; --p) at[p] = at[p - 1];
    at[0] = 0;
}

/* ---------------------------------------------------------------- pass 2: sort
 * (a) serial, integers: each plane's first slot in the sort, planes in
 * order, summing the chunks' counts; (b) per plane: a counting sort by bin
 * of the plane's tracers, read chunk by chunk (so in tracer order), stable,
 * so ties stay in tracer order. The result is the order of one serial
 * counting sort by bin with ties by tracer index, for any worker count. */
static int plane_offsets(sort_job *job) {
    int total = 0;
    const int stride = job->planes + 1;
    for (int p = 0; p < job->planes; ++p) {
        job->plane_start[p] = total;
        for (int c = 0; c < job->chunks; ++c) {
            const int *row = job->chunk_plane + (size_t)c * (size_t)stride;
            total += row[p + 1] - row[p];
        }
    }
    job->plane_start[job->planes] = total;
    return total;
}

/* A tracer's bin in its plane, bx + (n[0] + 1) by, from its packed bx, by. */
static inline int plane_bin(int xy, int sx) { return (xy & 0xffff) + sx * (xy >> 16); }

static void plane_sort_chunk(int chunk, int begin, int end, void *context) {
    const sort_job *job = context;
    eddy_smoke_volume *v = job->v;
    eddy_smoke_grouped *restrict out = v->sorted;
    const int stride = job->planes + 1, sx = v->n[0] + 1;
    (void)chunk;
    for (int p = begin; p < end; ++p) {
        const int m = job->plane_bins;
        int *start = v->bin_start + (size_t)p * (size_t)m; /* this plane's bins: owned here */
        memset(start, 0, (size_t)m * sizeof(int));
        for (int c = 0; c < job->chunks; ++c) {
            const int *row = job->chunk_plane + (size_t)c * (size_t)stride;
            const eddy_smoke_grouped *in = v->grouped + (size_t)c * SMOKE_BIN_CHUNK;
            const int from = row[p], to = row[p + 1]; /* locals: start[] may alias row */
            for (int s = from; s < to; ++s) ++start[plane_bin(in[s].xy, sx)];
        }
        const int first = job->plane_start[p];
        int at = first;
        for (int b = 0; b < m; ++b) {
            const int n = start[b];
            start[b] = at;
            at += n;
        }
        for (int c = 0; c < job->chunks; ++c) {
            const int *row = job->chunk_plane + (size_t)c * (size_t)stride;
            const eddy_smoke_grouped *in = v->grouped + (size_t)c * SMOKE_BIN_CHUNK;
            const int from = row[p], to = row[p + 1];
            for (int s = from; s < to; ++s) {
                out[start[plane_bin(in[s].xy, sx)]++] = in[s];
            }
        }
        /* each start[b] ran to its bin's end: shift back to the starts */
        for (int b = m - 1; b > 0; --b) start[b] = start[b - 1];
        start[0] = first;
    }
}

/* ---------------------------------------------------------------- pass 3: gather */
typedef struct gather_job {
    eddy_smoke_volume *v;
    float weight; /* tracer_amount / cell volume */
} gather_job;

/* 1 - |u - i|. fabsf (a sign-bit clear, no branch) equals d < 0 ? -d : d
 * except for d = -0, where it gives +0: 1 - (+0) and 1 - (-0) are both 1. */
static inline float tent(float u, float i) {
    return 1.0f - fabsf(u - i);
}

/* A chunk is a slab of SMOKE_SLAB voxel planes [begin, end). It reads the
 * sorted tracers of bin planes begin .. end (extended), one contiguous run
 * of the sort, front to back, and adds each tracer's 8 weights
 * (tent x * tent y) * tent z to its own padded copy of the slab: voxels
 * i in [-1, n[0]], j in [-1, n[1]], k in [begin - 1, end], so no tracer
 * needs a test. Every voxel thus receives its 8 bins' tracers in sorted
 * order (bins ascending z, y, x; each bin's tracers by index): the order of
 * one serial sweep, whatever the slab size or the worker count. The owned
 * voxels are then copied out, times the weight. */
enum { SMOKE_SLAB = 8 };

static size_t slab_pad_size(const eddy_smoke_volume *v) {
    return (size_t)(SMOKE_SLAB + 2) * (size_t)(v->n[0] + 2) * (size_t)(v->n[1] + 2);
}

/* Adds one sorted tracer's 8 weights (tent x * tent y) * tent z to the
 * padded slab; plane holds voxel plane bz - 1, plane + WH voxel plane bz.
 * With SSE2 the four x-y weights are one vector (lanes a00, a10, a01, a11:
 * the same products) added to the two pairs of voxels it reaches in each
 * plane: one IEEE operation per lane, the same bits as the plain code. */
static inline void add_tracer(const eddy_smoke_grouped *restrict r, float fk0, float fk1,
                              float *restrict plane, size_t W, size_t WH) {
    const int bx = r->xy & 0xffff, by = r->xy >> 16;
    const float tz0 = tent(r->w, fk0), tz1 = tent(r->w, fk1);
    float *q = plane + (size_t)bx + W * (size_t)by; /* voxel (bx - 1, by - 1, bz - 1) */
#if defined(__SSE2__) && !defined(EDDY_SMOKE_PLAIN_BINS)
    const __m128 uv = _mm_setr_ps(r->u, r->u, r->v, r->v);
    const __m128 ij = _mm_cvtepi32_ps(_mm_setr_epi32(bx - 1, bx, by - 1, by));
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const __m128 t = _mm_sub_ps(_mm_set1_ps(1.0f), _mm_and_ps(_mm_sub_ps(uv, ij), abs_mask));
    const __m128 tx = _mm_shuffle_ps(t, t, _MM_SHUFFLE(1, 0, 1, 0)); /* tx0 tx1 tx0 tx1 */
    const __m128 ty = _mm_shuffle_ps(t, t, _MM_SHUFFLE(3, 3, 2, 2)); /* ty0 ty0 ty1 ty1 */
    const __m128 a = _mm_mul_ps(tx, ty);
    float *q1 = q + WH;
    __m128 lo = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)q),
                             (const __m64 *)(const void *)(q + W));
    __m128 hi = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(const void *)q1),
                             (const __m64 *)(const void *)(q1 + W));
    lo = _mm_add_ps(lo, _mm_mul_ps(a, _mm_set1_ps(tz0)));
    hi = _mm_add_ps(hi, _mm_mul_ps(a, _mm_set1_ps(tz1)));
    _mm_storel_pi((__m64 *)(void *)q, lo);
    _mm_storeh_pi((__m64 *)(void *)(q + W), lo);
    _mm_storel_pi((__m64 *)(void *)q1, hi);
    _mm_storeh_pi((__m64 *)(void *)(q1 + W), hi);
#else
    const float tx0 = tent(r->u, (float)(bx - 1)), tx1 = tent(r->u, (float)bx);
    const float ty0 = tent(r->v, (float)(by - 1)), ty1 = tent(r->v, (float)by);
    const float a00 = tx0 * ty0, a10 = tx1 * ty0, a01 = tx0 * ty1, a11 = tx1 * ty1;
    q[0] += a00 * tz0;
    q[1] += a10 * tz0;
    q[W] += a01 * tz0;
    q[W + 1] += a11 * tz0;
    q[WH] += a00 * tz1;
    q[WH + 1] += a10 * tz1;
    q[WH + W] += a01 * tz1;
    q[WH + W + 1] += a11 * tz1;
#endif
}

static void gather_chunk(int chunk, int begin, int end, void *context) {
    const gather_job *job = context;
    eddy_smoke_volume *v = job->v;
    const int nx = v->n[0], ny = v->n[1], m = (nx + 1) * (ny + 1);
    const size_t W = (size_t)nx + 2, WH = W * ((size_t)ny + 2);
    float *restrict pad = v->slab_pad + (size_t)chunk * slab_pad_size(v);
    const eddy_smoke_grouped *restrict r = v->sorted;
    memset(pad, 0, (size_t)(end - begin + 2) * WH * sizeof(float));
    for (int bz = begin; bz <= end; ++bz) {
        /* padded plane bz - begin holds voxel plane bz - 1 */
        float *plane = pad + (size_t)(bz - begin) * WH;
        const int first = v->bin_start[(size_t)bz * (size_t)m];
        const int last = v->bin_start[(size_t)(bz + 1) * (size_t)m];
        const float fk0 = (float)(bz - 1), fk1 = (float)bz;
        for (int s = first; s < last; ++s) add_tracer(&r[s], fk0, fk1, plane, W, WH);
    }
    const size_t nxy = (size_t)nx * (size_t)ny;
    for (int k = begin; k < end; ++k)
        for (int j = 0; j < ny; ++j) {
            const float *from = pad + (size_t)(k - begin + 1) * WH + W * (size_t)(j + 1) + 1;
            float *to = v->density + (size_t)k * nxy + (size_t)j * (size_t)nx;
            for (int i = 0; i < nx; ++i) to[i] = from[i] * job->weight;
        }
}

static bool scratch_reserve(eddy_smoke_volume *v, int n) {
    if (n <= v->grouped_capacity) return true;
    eddy_smoke_grouped *g = eddy_realloc(v->grouped, (size_t)n * sizeof *g);
    if (!g) return false;
    v->grouped = g;
    eddy_smoke_grouped *c = eddy_realloc(v->sorted, (size_t)n * sizeof *c);
    if (!c) return false;
    v->sorted = c;
    v->grouped_capacity = n;
    return true;
}

/* The gather's padded slabs: sized by the resolution, allocated once. */
static bool pad_reserve(eddy_smoke_volume *v) {
    if (v->slab_pad) return true;
    const size_t slabs = (size_t)chunk_count(v->n[2], SMOKE_SLAB);
    v->slab_pad = eddy_alloc(slabs * slab_pad_size(v) * sizeof(float));
    return v->slab_pad != NULL;
}

static bool sort_reserve(eddy_smoke_volume *v, int chunks, int planes) {
    const size_t cells = (size_t)chunks * (size_t)(planes + 1) + (size_t)planes + 1;
    if (cells <= (size_t)v->sort_capacity) return true;
    int *q = eddy_realloc(v->sort_scratch, cells * sizeof(int));
    if (!q) return false;
    v->sort_scratch = q;
    v->sort_capacity = (int)cells;
    return true;
}

eddy_status eddy_smoke_volume_update(eddy_smoke_volume *v, const eddy_world *world) {
    if (!v || !world) {
        eddy_smoke_set_error("smoke volume update: volume or world is NULL");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    const particle_array *t = &world->tracers;
    const int chunks = chunk_count(t->count, SMOKE_BIN_CHUNK);
    const int planes = v->n[2] + 1;
    if (!scratch_reserve(v, t->count > 0 ? t->count : 1) || !sort_reserve(v, chunks, planes) ||
        !pad_reserve(v))
        return EDDY_ERROR_OUT_OF_MEMORY;
    sort_job job = {v, t, chunks, planes, (v->n[0] + 1) * (v->n[1] + 1), v->sort_scratch,
                    v->sort_scratch + (size_t)chunks * (size_t)(planes + 1)};
    const uint32_t caller_mode = eddy_fpenv_get();
    eddy_fpenv_set(world->tasks.fp_canonical);
    eddy_parallel_for(&world->tasks, t->count, SMOKE_BIN_CHUNK, group_chunk, &job);
    v->tracer_count = plane_offsets(&job);
    eddy_parallel_for(&world->tasks, planes, 1, plane_sort_chunk, &job);
    v->bin_start[bin_count(v)] = v->tracer_count;
    gather_job gather = {v, v->def.tracer_amount * v->inv_cell_volume};
    eddy_parallel_for(&world->tasks, v->n[2], SMOKE_SLAB, gather_chunk, &gather);
    eddy_fpenv_set(caller_mode);
    v->frame = world->frame;
    return EDDY_OK;
}

uint64_t eddy_smoke_volume_hash(const eddy_smoke_volume *v) {
    if (!v) return 0;
    const size_t voxels = (size_t)v->n[0] * (size_t)v->n[1] * (size_t)v->n[2];
    const float region[6] = {v->def.min_corner.x, v->def.min_corner.y, v->def.min_corner.z,
                             v->def.max_corner.x, v->def.max_corner.y, v->def.max_corner.z};
    const int32_t n[3] = {v->n[0], v->n[1], v->n[2]};
    const eddy_xxh3_piece pieces[3] = {
        {n, sizeof n}, {region, sizeof region}, {v->density, voxels * sizeof(float)}};
    return eddy_xxh3_pieces(pieces, 3);
}
