/* SPDX-License-Identifier: MIT */
/* Internal, layer runtime (docs/architecture.md): what every file of lib/ may
 * use and that knows nothing of a world: build checks, asserts, vec3, the
 * task system and its parallel-for and reduction tree, the FP environment,
 * the elementary functions' array form and the clock. Never installed. */
#ifndef EDDY_RUNTIME_H
#define EDDY_RUNTIME_H

#include "runtime/fpcheck.h" /* first: refuses non-IEEE float builds */
#include "eddy/eddy.h"
#include "eddy/math_functions.h"
#include "eddy/view.h"

#include <math.h> /* sqrtf only: correctly rounded, deterministic */
#include <stdint.h>
#include <string.h>

#define EDDY_PI 3.14159265358979323846f
#define EDDY_FLT_EPSILON 1.1920928955078125e-07f
#define EDDY_FLT_MIN 1.17549435082228750797e-38f
#define EDDY_FLT_MAX 3.40282346638528859812e+38f

/* Byte order, the one decision every little-endian fast path of lib/ reads
 * (the wire codec, restore, the frame hash). 1 only where the host is known to
 * be little-endian: the compiler says so through __BYTE_ORDER__ (gcc, clang),
 * or the target is a little-endian one named explicitly (MSVC defines no
 * __BYTE_ORDER__; its x86, x64 and ARM targets are all little-endian). 0
 * otherwise: the callers then take their portable path, which assembles and
 * stores bytes with shifts and is correct on any byte order, never a swap
 * that assumes big-endian. ctest `byte_order_portable` builds the snapshot
 * and replay paths with __BYTE_ORDER__ undefined and round-trips both. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EDDY_HOST_LITTLE_ENDIAN 1
#elif defined(_MSC_VER) && (defined(_M_IX86) || defined(_M_X64) || defined(_M_ARM) || \
                            defined(_M_ARM64) || defined(_M_ARM64EC))
#define EDDY_HOST_LITTLE_ENDIAN 1
#else
#define EDDY_HOST_LITTLE_ENDIAN 0
#endif

/* printf-style format checking where the compiler has it; nothing elsewhere
 * (MSVC). MinGW-w64 checks against the C99 printf it links (gnu_printf, which
 * knows %zu), not the Microsoft one its plain `printf` archetype means. */
#if defined(__MINGW32__)
#include <stdio.h> /* defines __MINGW_PRINTF_FORMAT */
#define EDDY_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(__MINGW_PRINTF_FORMAT, format_index, first_arg)))
#elif defined(__GNUC__)
#define EDDY_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define EDDY_PRINTF_LIKE(format_index, first_arg)
#endif

void eddy_assert_fail(const char *condition, const char *file, int line);
#define EDDY_ASSERT(c) ((c) ? (void)0 : eddy_assert_fail(#c, __FILE__, __LINE__))
#ifndef NDEBUG
#define EDDY_DEBUG_ASSERT(c) EDDY_ASSERT(c)
#else
#define EDDY_DEBUG_ASSERT(c) ((void)0)
#endif

typedef struct vec3 {
    float x, y, z;
} vec3;

/* min/max with ties and signed zeros resolved one way on every ISA:
 * on a tie the first argument is returned (rule 8). */
static inline float fmin_det(float a, float b) { return b < a ? b : a; }
static inline float fmax_det(float a, float b) { return b > a ? b : a; }

/* Index of the lowest set bit of a nonzero mask: the compiler's builtin
 * where it has one, a loop elsewhere (MSVC). */
#if defined(__GNUC__)
#define EDDY_LOWEST_BIT64(m) __builtin_ctzll(m)
#else
#define EDDY_LOWEST_BIT64(m) eddy_lowest_bit64_loop(m)
static inline int eddy_lowest_bit64_loop(uint64_t m) {
    int k = 0;
    while (!(m >> k & 1u)) ++k;
    return k;
}
#endif

/* ---------------------------------------------------------------- threads */
typedef struct task_system {
    int worker_count;
    eddy_enqueue_task_fn *enqueue;
    eddy_finish_task_fn *finish;
    void *user_context;
    eddy_pool *own_pool;      /* created by the world, or NULL */
    bool external;            /* the game's task system: every phase goes through it */
    uint32_t fp_canonical;    /* canonical control word for workers */
    const char *zone;         /* profiler zone of the phase running (static), or NULL */
    uint32_t mutations;
} task_system;

/* Body of one chunk. Writes only outputs owned by that chunk. */
typedef void chunk_fn(int chunk, int begin, int end, void *context);

/* Run fn over [0, count) in chunks of chunk_size (a constant of the phase),
 * on the task system. Every chunk runs with the canonical FP mode. */
void eddy_parallel_for(const task_system *ts, int count, int chunk_size, chunk_fn *fn, void *context);

static inline int chunk_count(int count, int chunk_size) {
    return count <= 0 ? 0 : (count + chunk_size - 1) / chunk_size;
}

/* Combine partials[0..n) of elem_size bytes pairwise over chunk index
 * (stride 1, 2, 4, ...): combine(dst, src) folds src into dst. The tree is the
 * same for every worker count; the result lands in partials[0]. */
typedef void combine_fn(void *dst, const void *src);
void eddy_reduce_tree(task_system *ts, void *partials, int n, size_t elem_size, combine_fn *combine);

/* FP environment: one back end per ISA (fpenv_x86_64.c, fpenv_aarch64.c);
 * what the mode word holds: lib/fpenv.c.
 * WebAssembly (fpenv_wasm.c) has one mode, which keeps denormals: a world
 * asking to flush them is refused there. */
#if defined(__wasm__)
#define EDDY_FPENV_CAN_FLUSH 0
#else
#define EDDY_FPENV_CAN_FLUSH 1
#endif
uint32_t eddy_fpenv_canonical(bool flush_denormals);
uint32_t eddy_fpenv_get(void);
void eddy_fpenv_set(uint32_t mode);
bool eddy_fpenv_is(uint32_t mode);

/* eddy_expf of n arguments (lib/emath.c), four at a time where the CPU has
 * vectors: out[j] has the bits of eddy_expf(x[j]) for every j, on every
 * instruction set. */
void eddy_expf_array(const float *x, float *out, int n);

double eddy_now_ms(void); /* timing only, never in state */

/* Memory aligned to `alignment` (a power of two >= 16), size a multiple of
 * it, through the allocator hook (alloc.c); NULL on failure. Free with
 * eddy_aligned_free (accepts NULL). Plain blocks: eddy_alloc and its kin
 * (include/eddy/base.h), which every file of lib/ uses instead of malloc. */
void *eddy_aligned_alloc(size_t alignment, size_t size);

/* Capacity to allocate for `need` items when `have` are held: half as much
 * again, so that a count that creeps up step by step (emission) reallocates
 * a logarithmic number of times and a steady-state step not at all.
 * Capacities are never state: no result depends on them. */
static inline int eddy_grown_capacity(int have, int need) {
    if (need <= have) return have;
    const int64_t grown = (int64_t)have + have / 2;
    return grown > need && grown <= INT32_MAX / 2 ? (int)grown : need;
}
void eddy_aligned_free(void *memory);

/* Profiler zones (base.c): the hook set by eddy_set_profiler; begin is NULL
 * when none is set, and then a zone costs this one test. */
extern eddy_profiler eddy_profiler_hook;
static inline void eddy_zone_begin(const char *zone, int worker) {
    if (eddy_profiler_hook.begin) eddy_profiler_hook.begin(zone, worker, eddy_profiler_hook.user);
}
static inline void eddy_zone_end(const char *zone, int worker) {
    if (eddy_profiler_hook.begin) eddy_profiler_hook.end(zone, worker, eddy_profiler_hook.user);
}

/* The log hook (base.c): eddy_log formats and calls the handler only when
 * one is set for the level; eddy_log_enabled lets a caller skip building a
 * message nobody will read. */
bool eddy_log_enabled(eddy_log_level level);
void eddy_log(eddy_log_level level, const char *fmt, ...) EDDY_PRINTF_LIKE(2, 3);

/* In [lo, hi]; false for NaN. */
static inline bool eddy_within(float x, float lo, float hi) { return x >= lo && x <= hi; }
/* Every component finite. */
static inline bool eddy_finite3(eddy_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
/* Every component in [-limit, limit]; false for NaN or infinity. */
static inline bool eddy_within3(eddy_vec3 v, float limit) {
    return eddy_within(v.x, -limit, limit) && eddy_within(v.y, -limit, limit) &&
           eddy_within(v.z, -limit, limit);
}

#endif
