/* SPDX-License-Identifier: MIT */
/* End-of-step check that the state holds no NaN or infinity.
 *
 * Design note. Every step of a release build ends with this check (debug
 * builds used to assert the same, release builds used to carry a NaN on
 * silently while returning EDDY_OK). It has to cost a small fraction of a
 * step, so it uses integer operations only: a float is non-finite iff its
 * exponent bits are all ones, and
 *     ((bits & 0x7f800000) + 0x00800000) & 0x80000000
 * is set exactly then; the words are OR-ed together (order-free).
 *
 * With hash_every_step (the default) the parallel hash runs this test on
 * each block right after hashing it, while the block is in cache, and leaves
 * one flag per block (hash.c); here only the flags are read. Without it, a
 * pass of its own runs per fixed chunk, each chunk's flag in its own partial
 * slot. Either way the flags are not state and no float is combined, so the
 * worker count cannot show. Only when a flag is set does a serial scan find
 * the first offending particle (lowest index) to name it in the message.
 * Bodies are few and checked serially. */
#include "hash/hash.h"

#include <stdio.h>

enum { FINITE_CHUNK = 16384 };

typedef struct finite_job {
    const particle_array *a;
    uint32_t *flags;
} finite_job;

/* Two 4-lane accumulators in registers (SSE2 integer ops where the target has
 * them, else 8 plain lanes the compiler may vectorise; no FP either way), then
 * the tail one float at a time. */
#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>

static uint32_t nonfinite_bits_8(const float *x, int n, int *done) {
    const __m128i exponent = _mm_set1_epi32(0x7f800000);
    const __m128i carry = _mm_set1_epi32(0x00800000);
    __m128i acc0 = _mm_setzero_si128(), acc1 = _mm_setzero_si128();
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i u0 = _mm_loadu_si128((const __m128i *)(const void *)(x + i));
        const __m128i u1 = _mm_loadu_si128((const __m128i *)(const void *)(x + i + 4));
        acc0 = _mm_or_si128(acc0, _mm_add_epi32(_mm_and_si128(u0, exponent), carry));
        acc1 = _mm_or_si128(acc1, _mm_add_epi32(_mm_and_si128(u1, exponent), carry));
    }
    uint32_t lanes[4];
    _mm_storeu_si128((__m128i *)(void *)lanes, _mm_or_si128(acc0, acc1));
    *done = i;
    return lanes[0] | lanes[1] | lanes[2] | lanes[3];
}
#else
static uint32_t nonfinite_bits_8(const float *x, int n, int *done) {
    uint32_t acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        uint32_t u[8];
        memcpy(u, x + i, sizeof u);
        for (int k = 0; k < 8; ++k) acc[k] |= (u[k] & 0x7f800000u) + 0x00800000u;
    }
    *done = i;
    return acc[0] | acc[1] | acc[2] | acc[3] | acc[4] | acc[5] | acc[6] | acc[7];
}
#endif

uint32_t eddy_nonfinite_bits(const float *x, int n) {
    int i;
    uint32_t all = nonfinite_bits_8(x, n, &i);
    for (; i < n; ++i) {
        uint32_t u;
        memcpy(&u, x + i, sizeof u);
        all |= (u & 0x7f800000u) + 0x00800000u;
    }
    return all & 0x80000000u;
}

static uint32_t nonfinite_bits(const float *x, int begin, int end) {
    return eddy_nonfinite_bits(x + begin, end - begin);
}

/* The float arrays of a particle array and their field names. */
static int particle_fields(const particle_array *a, const float *f[10], const char *name[10]) {
    int n = 0;
    f[n] = a->px; name[n++] = "position.x";
    f[n] = a->py; name[n++] = "position.y";
    f[n] = a->pz; name[n++] = "position.z";
    f[n] = a->vx; name[n++] = "velocity.x";
    f[n] = a->vy; name[n++] = "velocity.y";
    f[n] = a->vz; name[n++] = "velocity.z";
    if (a->has_vorticity) {
        f[n] = a->wx; name[n++] = "vorticity.x";
        f[n] = a->wy; name[n++] = "vorticity.y";
        f[n] = a->wz; name[n++] = "vorticity.z";
    }
    f[n] = a->drho; name[n++] = "density_deviation";
    return n;
}

static void finite_chunk(int chunk, int begin, int end, void *context) {
    const finite_job *job = context;
    const float *f[10];
    const char *name[10];
    const int n = particle_fields(job->a, f, name);
    uint32_t acc = 0;
    for (int k = 0; k < n; ++k) acc |= nonfinite_bits(f[k], begin, end);
    job->flags[chunk] = acc;
}

/* Lowest particle in [begin, end) with a non-finite field, named into what. */
static void name_first_bad(const particle_array *a, const char *kind, int begin, int end,
                           char *what, size_t size) {
    const float *f[10];
    const char *name[10];
    const int n = particle_fields(a, f, name);
    for (int i = begin; i < end; ++i)
        for (int k = 0; k < n; ++k)
            if (nonfinite_bits(f[k], i, i + 1)) {
                snprintf(what, size, "%s %d %s = %g", kind, i, name[k], (double)f[k][i]);
                return;
            }
}

size_t eddy_finite_partials_bytes(int vortons, int tracers) {
    const int most = vortons > tracers ? vortons : tracers;
    return (size_t)chunk_count(most, FINITE_CHUNK) * sizeof(uint32_t);
}

static bool particles_nonfinite(eddy_world *w, const particle_array *a, const char *kind,
                                char *what, size_t size) {
    const int chunks = chunk_count(a->count, FINITE_CHUNK);
    if (chunks == 0) return false;
    uint32_t *flags = eddy_partials_reserve(w, (size_t)chunks * sizeof *flags);
    uint32_t one;
    finite_job job = {a, flags ? flags : &one};
    if (flags)
        eddy_parallel_for(&w->tasks, a->count, FINITE_CHUNK, finite_chunk, &job);
    else  /* no scratch: one serial pass, same answer */
        for (int c = 0; c < chunks; ++c) {
            finite_chunk(0, c * FINITE_CHUNK,
                         c == chunks - 1 ? a->count : (c + 1) * FINITE_CHUNK, &job);
            if (one) {
                name_first_bad(a, kind, c * FINITE_CHUNK, a->count, what, size);
                return true;
            }
        }
    for (int c = 0; flags && c < chunks; ++c)
        if (flags[c]) {
            name_first_bad(a, kind, c * FINITE_CHUNK, a->count, what, size);
            return true;
        }
    return false;
}

static bool body_nonfinite(const body *b, const char **field) {
    const struct { const float *f; int n; const char *name; } parts[] = {
        {b->position, 3, "position"},
        {b->orientation, 4, "orientation"},
        {b->linear_momentum, 3, "linear_momentum"},
        {b->angular_momentum, 3, "angular_momentum"},
        {b->linear_velocity, 3, "linear_velocity"},
        {b->angular_velocity, 3, "angular_velocity"},
        {&b->temperature, 1, "temperature"},
    };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k)
        if (nonfinite_bits(parts[k].f, 0, parts[k].n)) {
            *field = parts[k].name;
            return true;
        }
    return false;
}

/* From the flags the parallel hash left per block (vortons' blocks, then
 * tracers'): the first flagged block is scanned to name the particle. */
static bool flagged_blocks_nonfinite(const eddy_world *w, char *what, size_t size) {
    const int vb = chunk_count(w->vortons.count, EDDY_HASH_BLOCK_PARTICLES);
    const int tb = chunk_count(w->tracers.count, EDDY_HASH_BLOCK_PARTICLES);
    for (int b = 0; b < vb + tb; ++b) {
        if (!w->block_nonfinite[b]) continue;
        const bool vorton = b < vb;
        const particle_array *a = vorton ? &w->vortons : &w->tracers;
        const int begin = (vorton ? b : b - vb) * EDDY_HASH_BLOCK_PARTICLES;
        name_first_bad(a, vorton ? "vorton" : "tracer", begin, a->count, what, size);
        return true;
    }
    return false;
}

bool eddy_state_find_nonfinite(eddy_world *w, char *what, size_t size) {
    if (w->block_nonfinite_valid) {
        if (flagged_blocks_nonfinite(w, what, size)) return true;
    } else {
        if (particles_nonfinite(w, &w->vortons, "vorton", what, size)) return true;
        if (particles_nonfinite(w, &w->tracers, "tracer", what, size)) return true;
    }
    for (int i = 0; i < w->body_count; ++i) {
        const char *field;
        if (w->bodies[i].alive && body_nonfinite(&w->bodies[i], &field)) {
            snprintf(what, size, "body %d (slot %d) %s", i + 1, i, field);
            return true;
        }
    }
    return false;
}
