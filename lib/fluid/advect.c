/* SPDX-License-Identifier: MIT */
/* Advection by forward Euler (D7): particle velocity = grid velocity + wind.
 *
 * Tracers move first in a step, with the flow grid (velocity and rho') of the
 * previous step, which was sized to contain them: one trilinear sample of 4
 * floats per tracer. Vortons move last, with this step's grid. Each particle
 * is owned by one chunk.
 *
 * The sample is the hot loop of a frame (hundreds of thousands of tracers),
 * so it is written once more with 4-wide vectors: lane c computes component c
 * with exactly the operations and order of grid_interp_n (scalar), so both
 * paths give the same bits; lanes never mix, nothing is summed across lanes. */
#include "fluid/advect_batch.h"
#include "hash/hash.h"
#include "runtime/lanes4.h"

#if defined(__SSE2__)
#include <emmintrin.h>
typedef __m128 f4;
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline f4 f4_splat(float s) { return _mm_set1_ps(s); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline void f4_store(float *p, f4 a) { _mm_storeu_ps(p, a); }
#elif defined(__ARM_NEON)
#include <arm_neon.h>
typedef float32x4_t f4;
static inline f4 f4_load(const float *p) { return vld1q_f32(p); }
static inline f4 f4_splat(float s) { return vdupq_n_f32(s); }
static inline f4 f4_add(f4 a, f4 b) { return vaddq_f32(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return vmulq_f32(a, b); }
static inline void f4_store(float *p, f4 a) { vst1q_f32(p, a); }
#else
#define EDDY_SCALAR_FLOW 1
#endif

/* Particles are independent here, so the cut changes no bit: tracers in
 * large chunks, vortons (a few thousand, each sampling the flow grid) in
 * small ones so that every worker gets some. */
enum { ADVECT_CHUNK = 4096, ADVECT_VORTON_CHUNK = 256 };
_Static_assert(ADVECT_CHUNK % EDDY_HASH_BLOCK_PARTICLES == 0, "a chunk holds whole hash blocks");

typedef struct advect_job {
    eddy_world *w;
    particle_array *a;
    float dt;
    vec3 wind;
    bool use_grid, take_density, keep_velocity;
    uint8_t *far; /* EDDY_GRID_EXTENT_VORTONS: flags of the tracers left outside the grid */
} advect_job;

/* Trilinear sample of the 4-float flow grid. */
static inline void flow_sample(const grid_shape *g, const float *flow, float x, float y, float z,
                               float out[4]) {
#ifdef EDDY_SCALAR_FLOW
    grid_interp_n(g, flow, 4, x, y, z, out);
#else
    int idx[3];
    float t[3];
    grid_locate(g, x, y, z, idx, t);
    const size_t nx = (size_t)g->points[0], nxy = nx * (size_t)g->points[1];
    const float *a000 = flow + 4 * ((size_t)idx[0] + nx * (size_t)idx[1] + nxy * (size_t)idx[2]);
    const float *a010 = a000 + 4 * nx, *a001 = a000 + 4 * nxy, *a011 = a001 + 4 * nx;
    const f4 sx = f4_splat(1.0f - t[0]), tx = f4_splat(t[0]);
    const f4 sy = f4_splat(1.0f - t[1]), ty = f4_splat(t[1]);
    const f4 sz = f4_splat(1.0f - t[2]), tz = f4_splat(t[2]);
    const f4 e00 = f4_add(f4_mul(sx, f4_load(a000)), f4_mul(tx, f4_load(a000 + 4)));
    const f4 e10 = f4_add(f4_mul(sx, f4_load(a010)), f4_mul(tx, f4_load(a010 + 4)));
    const f4 e01 = f4_add(f4_mul(sx, f4_load(a001)), f4_mul(tx, f4_load(a001 + 4)));
    const f4 e11 = f4_add(f4_mul(sx, f4_load(a011)), f4_mul(tx, f4_load(a011 + 4)));
    const f4 lo = f4_add(f4_mul(e00, sy), f4_mul(e10, ty));
    const f4 hi = f4_add(f4_mul(e01, sy), f4_mul(e11, ty));
    f4_store(out, f4_add(f4_mul(lo, sz), f4_mul(hi, tz)));
#endif
}

/* The tracers [begin, end) with the flow grid (grid, flow). */
static void tracer_range(const advect_job *job, const grid_shape *grid, const float *flow,
                         int begin, int end) {
    const grid_shape g = *grid; /* local copy: no aliasing with outputs */
    particle_array *a = job->a;
    float *restrict px = a->px, *restrict py = a->py, *restrict pz = a->pz;
    float *restrict vx = a->vx, *restrict vy = a->vy, *restrict vz = a->vz;
    float *restrict rho = a->drho;
    const float dt = job->dt, wx = job->wind.x, wy = job->wind.y, wz = job->wind.z;
#ifdef EDDY_TRACER_BATCH
    const tracer_out out = {px, py, pz, vx, vy, vz, rho};
    begin = eddy_tracer_batches(&g, flow, job->dt, job->wind, out, begin, end);
#endif
    for (int i = begin; i < end; ++i) {
        const float x = px[i], y = py[i], z = pz[i];
        float f[4];
        flow_sample(&g, flow, x, y, z, f);
        const float ux = f[0] + wx, uy = f[1] + wy, uz = f[2] + wz;
        rho[i] = f[3];
        vx[i] = ux;
        vy[i] = uy;
        vz[i] = uz;
        px[i] = x + ux * dt;
        py[i] = y + uy * dt;
        pz[i] = z + uz * dt;
    }
}

/* A grid of the vortons alone (EDDY_GRID_EXTENT_VORTONS): a tracer outside
 * it is left where it is and flagged; the velocity phase moves it with the
 * far field (lib/fluid/velocity.c). The others take the one-tracer loop's
 * operations, so their bits are those of tracer_range. Returns true when
 * the range had a tracer outside. */
static bool tracer_range_far(const advect_job *job, int begin, int end) {
    const grid_shape g = job->w->grid; /* local copy: far[] cannot alias it */
    particle_array *a = job->a;
    uint8_t *far = job->far;
    unsigned any = 0;
    /* grid_contains in lanes: the same operations per tracer, so the same
     * flags (a NaN coordinate is outside either way) */
    const vf zero = vf_splat(0.0f);
    const vf mx = vf_splat(g.min[0]), my = vf_splat(g.min[1]), mz = vf_splat(g.min[2]);
    const vf ix = vf_splat(g.inv_spacing[0]), iy = vf_splat(g.inv_spacing[1]),
             iz = vf_splat(g.inv_spacing[2]);
    const vf cx = vf_splat((float)g.cells[0]), cy = vf_splat((float)g.cells[1]),
             cz = vf_splat((float)g.cells[2]);
    int i = begin;
    for (; i + VF_LANES <= end; i += VF_LANES) {
        const vf ux = vf_mul(vf_sub(vf_load(a->px + i), mx), ix);
        const vf uy = vf_mul(vf_sub(vf_load(a->py + i), my), iy);
        const vf uz = vf_mul(vf_sub(vf_load(a->pz + i), mz), iz);
        const vm in = vm_and(vm_and(vm_and(vf_ge(ux, zero), vf_ge(cx, ux)),
                                    vm_and(vf_ge(uy, zero), vf_ge(cy, uy))),
                             vm_and(vf_ge(uz, zero), vf_ge(cz, uz)));
        const unsigned out = ~vm_bits(in) & ((1u << VF_LANES) - 1u);
        for (int l = 0; l < VF_LANES; ++l) far[i + l] = (uint8_t)(out >> l & 1u);
        any |= out;
    }
    for (; i < end; ++i) {
        const unsigned inside = grid_contains(&g, a->px[i], a->py[i], a->pz[i]);
        far[i] = (uint8_t)(inside ^ 1u);
        any |= inside ^ 1u;
    }
    if (!any) {
        tracer_range(job, &job->w->grid, job->w->flow, begin, end);
        return false;
    }
    /* the runs of tracers inside the grid, each through the batched loop
     * (a tracer's bits do not depend on the run it is in) */
    for (i = begin; i < end;) {
        if (far[i]) {
            ++i;
            continue;
        }
        int j = i + 1;
        while (j < end && !far[j]) ++j;
        tracer_range(job, &job->w->grid, job->w->flow, i, j);
        i = j;
    }
    return true;
}

/* Two or more grid islands (lib/fluid/islands.c), at most one hash block:
 * each tracer takes the flow of the island whose grid holds it, the runs of
 * one island's tracers through the batched loop (a tracer's bits do not
 * depend on its run); a tracer outside every grid is flagged far, or
 * without flags (out of memory) takes the nearest island's clamped grid. */
static void tracer_range_islands(const advect_job *job, int begin, int end) {
    const eddy_world *w = job->w;
    const particle_array *a = job->a;
    int8_t which[EDDY_HASH_BLOCK_PARTICLES];
    for (int i = begin; i < end; ++i) {
        int k = eddy_island_holding(w, a->px[i], a->py[i], a->pz[i]);
        if (job->far) job->far[i] = (uint8_t)(k < 0);
        else if (k < 0) k = eddy_island_nearest(w, a->px[i], a->py[i], a->pz[i]);
        which[i - begin] = (int8_t)k;
    }
    for (int k = 0; k < w->island_count; ++k) {
        const grid_island *s = &w->islands[k];
        for (int i = begin; i < end;) {
            if (which[i - begin] != k) {
                ++i;
                continue;
            }
            int j = i + 1;
            while (j < end && which[j - begin] == k) ++j;
            tracer_range(job, &s->grid, s->flow, i, j);
            i = j;
        }
    }
}

/* Hash block by hash block: each block is hashed right after it is written,
 * while it is in cache (lib/hash/hash.c, "Early tracer hashes"). */
static void tracer_chunk(int chunk, int begin, int end, void *context) {
    const advect_job *job = context;
    for (int b = begin; b < end; b += EDDY_HASH_BLOCK_PARTICLES) {
        const int e = end - b < EDDY_HASH_BLOCK_PARTICLES ? end : b + EDDY_HASH_BLOCK_PARTICLES;
        if (job->w->island_count > 1) tracer_range_islands(job, b, e);
        else if (job->far) tracer_range_far(job, b, e);
        else tracer_range(job, &job->w->grid, job->w->flow, b, e);
        eddy_early_hash_block(job->w, b / EDDY_HASH_BLOCK_PARTICLES);
    }
    (void)chunk;
}

static void particle_chunk(int chunk, int begin, int end, void *context) {
    const advect_job *job = context;
    const eddy_world *w = job->w;
    particle_array *a = job->a;
    const float dt = job->dt;
    for (int i = begin; i < end; ++i) {
        const float x = a->px[i], y = a->py[i], z = a->pz[i];
        float f[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (job->keep_velocity) {
            f[0] = a->vx[i];
            f[1] = a->vy[i];
            f[2] = a->vz[i];
        } else if (job->use_grid) {
            flow_sample(&w->grid, w->flow, x, y, z, f);
        }
        const float ux = f[0] + job->wind.x, uy = f[1] + job->wind.y, uz = f[2] + job->wind.z;
        if (job->take_density) a->drho[i] = f[3];
        a->vx[i] = ux;
        a->vy[i] = uy;
        a->vz[i] = uz;
        a->px[i] = x + ux * dt;
        a->py[i] = y + uy * dt;
        a->pz[i] = z + uz * dt;
    }
}

/* Grown by half again each time (to exactly the count, a world whose tracers
 * grow every step reallocated them every step). */
bool eddy_far_flags_reserve(eddy_world *w, int tracers) {
    if (tracers <= w->far_flag_capacity) return true;
    const int n = eddy_grown_capacity(w->far_flag_capacity, tracers);
    if (!eddy_grow((void **)&w->far_flag, (size_t)n)) return false;
    w->far_flag_capacity = n;
    return true;
}

void eddy_phase_advect_tracers(eddy_world *w, float dt) {
    eddy_early_hash_prepare(w);
    const int n = w->tracers.count;
    w->far_count = 0;
    w->far_any = false;
    uint8_t *far = NULL;
    const bool grid = w->grid_valid || w->island_count > 1;
    if (grid && eddy_grid_of_vortons(w) && n > 0) {
        /* out of memory: every tracer takes the clamped grid, as the seed's */
        if (n > w->far_flag_capacity) (void)eddy_far_flags_reserve(w, n);
        if (n <= w->far_flag_capacity) far = w->far_flag;
    }
    advect_job job = {w, &w->tracers, dt, {w->wind.x, w->wind.y, w->wind.z}, grid, grid, false, far};
    eddy_parallel_for(&w->tasks, n, ADVECT_CHUNK, grid ? tracer_chunk : particle_chunk, &job);
    if (far) {
        w->far_count = n;
        w->far_any = memchr(far, 1, (size_t)n) != NULL;
    }
}

void eddy_phase_advect_vortons(eddy_world *w, float dt) {
    /* the velocity phase wrote each vorton's own velocity */
    const bool direct = (w->def.velocity_method == EDDY_VELOCITY_DIRECT_VORTONS ||
                         w->def.velocity_method == EDDY_VELOCITY_TREECODE_VORTONS) &&
                        w->grid_valid;
    advect_job job = {w, &w->vortons, dt, {w->wind.x, w->wind.y, w->wind.z},
                      w->grid_valid, false, direct, NULL};
    eddy_parallel_for(&w->tasks, w->vortons.count, ADVECT_VORTON_CHUNK, particle_chunk, &job);
}
