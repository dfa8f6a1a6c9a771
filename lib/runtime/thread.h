/* SPDX-License-Identifier: MIT */
/* Internal: the operating-system layer under the built-in pool (pool.c).
 *
 * One interface, one file per platform, chosen by the build (CMakeLists.txt):
 * - thread_posix.c: pthreads, clock_gettime, sched_yield, sysconf (Linux,
 *   macOS, emscripten with -pthread);
 * - thread_win32.c: CreateThread, SRW locks, condition variables,
 *   QueryPerformanceCounter (Windows, no winpthreads needed).
 * pool.c holds everything else and never names a platform.
 *
 * Locks and condition variables are opaque objects on the heap so that this
 * header needs no platform type. A mutex is always unlocked by the thread
 * that locked it (both back ends require it). Nothing here is floating point
 * and nothing here can change a result: it only decides who runs what, when
 * (docs/determinism.md, rule 1). */
#ifndef EDDY_THREAD_H
#define EDDY_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct eddy_mutex eddy_mutex;
typedef struct eddy_cond eddy_cond;
typedef struct eddy_thread eddy_thread;
typedef void eddy_thread_main_fn(void *arg);

/* The C library's memory aligned to `alignment` (a power of two), size a
 * multiple of it; NULL on failure. Free with eddy_system_aligned_free
 * (accepts NULL). Only lib/runtime/alloc.c calls these: everything else
 * allocates through eddy_aligned_alloc (runtime.h), which honours the hook. */
void *eddy_system_aligned_alloc(size_t alignment, size_t size);
void eddy_system_aligned_free(void *memory);

/* Online logical CPUs, or 0 when unknown. A hint only, never a thread count. */
int eddy_cpu_count_online(void);
/* A monotonic clock in nanoseconds (origin unspecified). */
int64_t eddy_monotonic_ns(void);
/* Offer the rest of this thread's time slice to other threads. */
void eddy_thread_yield(void);
/* A spin-wait hint to the CPU (x86 pause, arm yield); may do nothing. */
void eddy_cpu_relax(void);

/* NULL on failure. destroy accepts NULL. */
eddy_mutex *eddy_mutex_create(void);
void eddy_mutex_destroy(eddy_mutex *mutex);
void eddy_mutex_lock(eddy_mutex *mutex);
void eddy_mutex_unlock(eddy_mutex *mutex);

eddy_cond *eddy_cond_create(void);
void eddy_cond_destroy(eddy_cond *cond);
/* Atomically unlock `mutex` and sleep; relock before returning. Spurious
 * wake-ups happen: callers re-check their predicate in a loop. */
void eddy_cond_wait(eddy_cond *cond, eddy_mutex *mutex);
void eddy_cond_signal(eddy_cond *cond);
void eddy_cond_broadcast(eddy_cond *cond);

/* Start a thread running main(arg); NULL on failure. join waits for it to
 * return and frees the handle. On failure *out_of_memory says whether memory
 * was what failed. */
eddy_thread *eddy_thread_start(eddy_thread_main_fn *main, void *arg, bool *out_of_memory);
void eddy_thread_join(eddy_thread *thread);

#endif
