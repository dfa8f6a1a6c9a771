/* SPDX-License-Identifier: MIT */
/* The smoke volume: tracers accumulated into a density grid by the
 * cloud-in-cell tent (kernel and units: include/eddy/smoke.h).
 *
 * Design note — why the bits never depend on the worker count. The transfer
 * is a gather (docs/DETERMINISM.md rule 3), in three passes:
 *   1. bins (parallel, fixed chunks of tracers): tracer t falls in bin
 *      b = floor(u) per axis, u its voxel coordinate; it touches voxels b and
 *      b + 1, so bins run from -1 to n - 1 on each axis ((n + 1)^3 bins).
 *      Each chunk writes its tracers' bin slots only. Tracers whose 8 voxels
 *      all lie outside get bin -1.
 *   2. counting sort (integers only): tracers by bin, ties by tracer index,
 *      in parallel by bin plane (pass 2's note). Integer counts are exact,
 *      so nothing here can round, and the order is one serial sort's.
 *   3. accumulate (parallel, one chunk per voxel plane k): the plane's
 *      owner walks the two bin planes that reach it (k-1 and k) in sorted
 *      order (bins ascending z, y, x; each bin's tracers by index) and adds
 *      each tracer's weight (1 - |u - i|) (1 - |v - j|) (1 - |w - k|) to
 *      the up to 4 voxels of its plane the tracer touches. So voxel
 *      (i, j, k) receives its 8 bins' tracers in one fixed order: the same
 *      sum as a gather over them, but read front to back (pass 2 stored the
 *      voxel coordinates in sort order). A chunk writes only its own plane;
 *      the order of every sum is fixed by the sort, never by the threads.
 * The update runs in the world's canonical FP mode, set here on the calling
 * thread and on every worker by eddy_parallel_for. */
#include "smoke/smoke.h"
#include "hash/xxh3.h"

#include <stdarg.h>
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
    eddy_free(v->bin_of);
    eddy_free(v->bin_start);
    eddy_free(v->sorted);
    eddy_free(v->sorted_coord);
    eddy_free(v->by_plane);
    eddy_free(v->sort_scratch);
    eddy_free(v);
}

eddy_smoke_volume_def eddy_smoke_volume_get_def(const eddy_smoke_volume *v) { return v->def; }
const float *eddy_smoke_volume_density(const eddy_smoke_volume *v) { return v ? v->density : NULL; }
int64_t eddy_smoke_volume_frame(const eddy_smoke_volume *v) { return v ? v->frame : -1; }
int eddy_smoke_volume_tracer_count(const eddy_smoke_volume *v) { return v ? v->tracer_count : 0; }

/* ---------------------------------------------------------------- pass 1: bins */
typedef struct sort_job {
    eddy_smoke_volume *v;
    const particle_array *tracers;
    int planes;        /* bin planes along z: n[2] + 1 */
    int plane_bins;    /* bins per plane: (n[0] + 1) (n[1] + 1) */
    int *plane_count;  /* chunks x planes: tracers of each chunk in each plane */
    int *plane_start;  /* planes + 1: first slot of each plane in the sort */
    int *by_plane;     /* tracers grouped by plane, each group in tracer order */
} sort_job;

enum { SMOKE_BIN_CHUNK = 4096 };

/* floor of u for u in a range where (int) truncation needs one fix-up. */
static int floor_int(float u) {
    int i = (int)u;
    return (float)i > u ? i - 1 : i;
}

/* Bin of one axis coordinate in [0, n], or -1 when the tracer reaches no voxel. */
static int axis_bin(const eddy_smoke_volume *v, int a, float p) {
    const float u = eddy_smoke_voxel_coord(v, a, p);
    if (!(u >= -1.0f) || !(u < (float)v->n[a])) return -1; /* also NaN */
    return floor_int(u) + 1;
}

/* Each tracer's bin, and the chunk's count per bin plane (its own row). */
static void bin_chunk(int chunk, int begin, int end, void *context) {
    const sort_job *job = context;
    const eddy_smoke_volume *v = job->v;
    const particle_array *t = job->tracers;
    const int sx = v->n[0] + 1, sy = v->n[1] + 1;
    int *count = job->plane_count + (size_t)chunk * (size_t)job->planes;
    memset(count, 0, (size_t)job->planes * sizeof(int));
    for (int i = begin; i < end; ++i) {
        const int bx = axis_bin(v, 0, t->px[i]), by = axis_bin(v, 1, t->py[i]),
                  bz = axis_bin(v, 2, t->pz[i]);
        const bool in = bx >= 0 && by >= 0 && bz >= 0;
        v->bin_of[i] = in ? bx + sx * (by + sy * bz) : -1;
        if (in) ++count[bz];
    }
}

/* ---------------------------------------------------------------- pass 2: sort
 * In three steps, integers only: (a) serial: each chunk's first slot in each
 * plane, planes in order, chunks in order within a plane; (b) per chunk:
 * its tracers into their plane's group, in tracer order; (c) per plane: a
 * counting sort of its group by bin (stable, so ties stay in tracer order).
 * The result is the order of one serial counting sort by bin with ties by
 * tracer index, for any worker count. */
static int plane_offsets(sort_job *job, int chunks) {
    int total = 0;
    for (int p = 0; p < job->planes; ++p) {
        job->plane_start[p] = total;
        for (int c = 0; c < chunks; ++c) {
            int *cell = job->plane_count + (size_t)c * (size_t)job->planes + p;
            const int n = *cell;
            *cell = total; /* now the chunk's first slot in plane p */
            total += n;
        }
    }
    job->plane_start[job->planes] = total;
    return total;
}

static void group_chunk(int chunk, int begin, int end, void *context) {
    const sort_job *job = context;
    const eddy_smoke_volume *v = job->v;
    int *cursor = job->plane_count + (size_t)chunk * (size_t)job->planes;
    for (int i = begin; i < end; ++i) {
        const int b = v->bin_of[i];
        if (b >= 0) job->by_plane[cursor[b / job->plane_bins]++] = i;
    }
}

static void plane_sort_chunk(int chunk, int begin, int end, void *context) {
    const sort_job *job = context;
    eddy_smoke_volume *v = job->v;
    const particle_array *t = job->tracers;
    (void)chunk;
    for (int p = begin; p < end; ++p) {
        const int first = job->plane_start[p], last = job->plane_start[p + 1];
        const int b0 = p * job->plane_bins, m = job->plane_bins;
        int *start = v->bin_start + b0; /* this plane's bins: owned here */
        memset(start, 0, (size_t)m * sizeof(int));
        for (int s = first; s < last; ++s) ++start[v->bin_of[job->by_plane[s]] - b0];
        int at = first;
        for (int b = 0; b < m; ++b) {
            const int n = start[b];
            start[b] = at;
            at += n;
        }
        for (int s = first; s < last; ++s) {
            const int i = job->by_plane[s];
            const int slot = start[v->bin_of[i] - b0]++;
            v->sorted[slot] = i;
            v->sorted_coord[3 * slot + 0] = eddy_smoke_voxel_coord(v, 0, t->px[i]);
            v->sorted_coord[3 * slot + 1] = eddy_smoke_voxel_coord(v, 1, t->py[i]);
            v->sorted_coord[3 * slot + 2] = eddy_smoke_voxel_coord(v, 2, t->pz[i]);
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

static float tent(float u, int i) {
    const float d = u - (float)i;
    return 1.0f - (d < 0.0f ? -d : d);
}

/* Adds the tracers of bin plane bz (extended index) to voxel plane k, in
 * sorted order: bins ascending (y, then x), each bin's tracers by index. */
static void add_bin_plane(const gather_job *job, float *restrict plane, int k, int bz) {
    const eddy_smoke_volume *v = job->v;
    const int nx = v->n[0], ny = v->n[1], sx = nx + 1, sy = v->n[1] + 1;
    const float *restrict c = v->sorted_coord;
    const int *restrict start = v->bin_start;
    for (int by = 0; by < sy; ++by) {
        const int b0 = sx * (by + sy * bz);
        for (int bx = 0; bx < sx; ++bx) {
            const int first = start[b0 + bx], last = start[b0 + bx + 1];
            for (int s = first; s < last; ++s) {
                const float wz = tent(c[3 * s + 2], k);
                for (int j = by - 1; j <= by; ++j) {
                    if (j < 0 || j >= ny) continue;
                    const float wy = tent(c[3 * s + 1], j);
                    float *row = plane + (size_t)j * (size_t)nx;
                    for (int i = bx - 1; i <= bx; ++i) {
                        if (i < 0 || i >= nx) continue;
                        row[i] += tent(c[3 * s], i) * wy * wz;
                    }
                }
            }
        }
    }
}

/* A chunk is one voxel plane k: it owns those voxels and reads bin planes k
 * and k + 1 (extended), the only ones whose tracers reach it. */
static void gather_chunk(int chunk, int begin, int end, void *context) {
    const gather_job *job = context;
    eddy_smoke_volume *v = job->v;
    const size_t plane_size = (size_t)v->n[0] * (size_t)v->n[1];
    (void)chunk;
    for (int k = begin; k < end; ++k) {
        float *plane = v->density + (size_t)k * plane_size;
        memset(plane, 0, plane_size * sizeof(float));
        add_bin_plane(job, plane, k, k);
        add_bin_plane(job, plane, k, k + 1);
        for (size_t q = 0; q < plane_size; ++q) plane[q] *= job->weight;
    }
}

static bool scratch_reserve(eddy_smoke_volume *v, int n) {
    if (n <= v->bin_of_capacity) return true;
    int *a = eddy_realloc(v->bin_of, (size_t)n * sizeof(int));
    if (!a) return false;
    v->bin_of = a;
    int *b = eddy_realloc(v->sorted, (size_t)n * sizeof(int));
    if (!b) return false;
    v->sorted = b;
    float *c = eddy_realloc(v->sorted_coord, 3 * (size_t)n * sizeof(float));
    if (!c) return false;
    v->sorted_coord = c;
    int *g = eddy_realloc(v->by_plane, (size_t)n * sizeof(int));
    if (!g) return false;
    v->by_plane = g;
    v->bin_of_capacity = v->sorted_capacity = v->sorted_coord_capacity = n;
    return true;
}

static bool sort_reserve(eddy_smoke_volume *v, int chunks, int planes) {
    const size_t cells = (size_t)chunks * (size_t)planes + (size_t)planes + 1;
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
    if (!scratch_reserve(v, t->count > 0 ? t->count : 1) || !sort_reserve(v, chunks, planes))
        return EDDY_ERROR_OUT_OF_MEMORY;
    sort_job job = {v, t, planes, (v->n[0] + 1) * (v->n[1] + 1), v->sort_scratch,
                    v->sort_scratch + (size_t)chunks * (size_t)planes, v->by_plane};
    const uint32_t caller_mode = eddy_fpenv_get();
    eddy_fpenv_set(world->tasks.fp_canonical);
    eddy_parallel_for(&world->tasks, t->count, SMOKE_BIN_CHUNK, bin_chunk, &job);
    v->tracer_count = plane_offsets(&job, chunks);
    eddy_parallel_for(&world->tasks, t->count, SMOKE_BIN_CHUNK, group_chunk, &job);
    eddy_parallel_for(&world->tasks, planes, 1, plane_sort_chunk, &job);
    v->bin_start[bin_count(v)] = v->tracer_count;
    gather_job gather = {v, v->def.tracer_amount * v->inv_cell_volume};
    eddy_parallel_for(&world->tasks, v->n[2], 1, gather_chunk, &gather);
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
