/* SPDX-License-Identifier: MIT */
/* eddy — task interface and the built-in worker pool.
 *
 * eddy never decides how work is scheduled: every parallel phase is split into
 * a fixed number of chunks (a constant of the algorithm, independent of the
 * worker count) and handed to a task system. A game plugs in its own job
 * system through eddy_enqueue_task_fn / eddy_finish_task_fn, or uses the
 * built-in pool below (pthreads or Win32 threads), which exposes exactly the
 * same two functions.
 * Results are bit-identical for any worker count and any scheduling order. */
#ifndef EDDY_TASK_H
#define EDDY_TASK_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Work function: run items [start, end). worker_index is in [0, worker_count). */
typedef void eddy_task_fn(int start, int end, int worker_index, void *task_context);

/* Run task over [0, item_count) split into ranges of at least min_range items,
 * possibly in parallel. Return an opaque handle passed to finish, or NULL if
 * the work was already executed inline. */
typedef void *eddy_enqueue_task_fn(eddy_task_fn *task, int item_count, int min_range,
                                   void *task_context, void *user_context);

/* Wait for a task returned by enqueue to complete. */
typedef void eddy_finish_task_fn(void *user_task, void *user_context);

/* Called once on each pool thread before it runs any work (for example to pin
 * the thread to a core). worker_index is in [1, worker_count): index 0 is the
 * thread that calls eddy_world_step. */
typedef void eddy_worker_start_fn(int worker_index, void *context);

enum { EDDY_MAX_WORKERS = 64 };

typedef struct eddy_pool_def {
    int worker_count;                  /* 1..EDDY_MAX_WORKERS, including the calling thread */
    eddy_worker_start_fn *worker_start;/* optional */
    void *worker_start_context;
} eddy_pool_def;

typedef struct eddy_pool eddy_pool;

EDDY_API eddy_pool_def eddy_pool_def_default(void);

/* Start worker_count - 1 persistent threads. *out is NULL on failure. */
EDDY_API eddy_status eddy_pool_create(const eddy_pool_def *def, eddy_pool **out);
EDDY_API void eddy_pool_destroy(eddy_pool *pool); /* accepts NULL */
EDDY_API int eddy_pool_worker_count(const eddy_pool *pool);

/* The pool as a task system: pass these with the pool as user_context. */
EDDY_API void *eddy_pool_enqueue(eddy_task_fn *task, int item_count, int min_range,
                                 void *task_context, void *pool);
EDDY_API void eddy_pool_finish(void *user_task, void *pool);

#ifdef __cplusplus
}
#endif
#endif
