/* SPDX-License-Identifier: MIT */
/* eddy_parallel_for and eddy_reduce_tree: how eddy splits work and combines partial
 * results so that the answer never depends on the worker count.
 *
 * Design note — the invariants:
 *
 * 1. Fixed chunks. A loop over [0, count) is cut into chunk_count(count,
 *    chunk_size) chunks; chunk c covers [c*chunk_size, min((c+1)*chunk_size,
 *    count)). The cut depends on count and on chunk_size (a constant of each
 *    phase) only, never on the worker count or on the task system. The task
 *    system receives chunk indices, not item indices: whatever sub-ranges it
 *    hands to whatever threads, each chunk is run exactly once, whole, with
 *    the same [begin, end).
 *
 * 2. Owned outputs. A chunk writes only what it owns (its items' slots, or its
 *    own partial-result slot). Chunks therefore commute: running them in any
 *    order, on any threads, in any interleaving writes the same bytes.
 *
 * 3. Fixed reduction tree. Partials, one per chunk, are combined by a pairwise
 *    tree over chunk index (stride 1, 2, 4, ...). The tree depends on the
 *    number of chunks only, so the floating-point rounding sequence is the
 *    same for 1 or 64 workers. It runs serially on the caller: it is log-depth
 *    and cheap next to the chunks themselves.
 *
 * 4. Canonical FP mode. Work that reaches another thread runs through
 *    chunk_task, which saves that thread's FP control word, installs the
 *    task system's canonical word for the duration of the range and restores
 *    the saved word afterwards. A game's job threads (or a worker_start hook)
 *    may leave any rounding or flush mode behind; eddy's chunks never see it.
 *    The inline path (no task system, or the built-in pool with one worker
 *    or one chunk; a game's task system gets every phase) runs on the
 *    calling thread, which the step has already put in the canonical mode.
 *
 * The same chunks and the same tree run for one worker: there is no separate
 * serial algorithm to drift from the parallel one.
 *
 * Test-only mutations (include/eddy/types.h) break invariants 3 and 4 on
 * purpose so that the determinism tests can show they detect the breakage. */
#include "runtime/runtime.h"

typedef struct parallel_job {
    int count;
    int chunk_size;
    chunk_fn *fn;
    void *context;
    const char *zone; /* profiler zone of each task range */
    uint32_t fp_canonical;
    bool set_fp_mode; /* false only under EDDY_MUTATION_SKIP_WORKER_FP_MODE */
} parallel_job;

static int chunk_begin(const parallel_job *job, int chunk) {
    return (int)((int64_t)chunk * job->chunk_size);
}

static int chunk_end(const parallel_job *job, int chunk) {
    int64_t end = ((int64_t)chunk + 1) * job->chunk_size;
    return end < job->count ? (int)end : job->count;
}

/* Run chunks [first, last) in order on the calling thread. */
static void chunks_run(const parallel_job *job, int first, int last) {
    for (int c = first; c < last; ++c) {
        job->fn(c, chunk_begin(job, c), chunk_end(job, c), job->context);
    }
}

/* eddy_task_fn over chunk indices. Correct for any split of [0, chunks) into
 * ranges and any thread: it reads the job only and each chunk owns its
 * outputs. */
static void chunk_task(int start, int end, int worker_index, void *task_context) {
    const parallel_job *job = task_context;
    eddy_zone_begin(job->zone, worker_index);
    if (!job->set_fp_mode) {
        chunks_run(job, start, end);
    } else {
        uint32_t saved = eddy_fpenv_get();
        eddy_fpenv_set(job->fp_canonical);
        EDDY_DEBUG_ASSERT(eddy_fpenv_is(job->fp_canonical));
        chunks_run(job, start, end);
        eddy_fpenv_set(saved);
    }
    eddy_zone_end(job->zone, worker_index);
}

#ifndef NDEBUG
static bool fp_mode_is_canonical_word(uint32_t mode) {
    return mode == eddy_fpenv_canonical(true) || mode == eddy_fpenv_canonical(false);
}
#endif

void eddy_parallel_for(const task_system *ts, int count, int chunk_size, chunk_fn *fn, void *context) {
    EDDY_ASSERT(ts != NULL && fn != NULL && chunk_size > 0);
    int chunks = chunk_count(count, chunk_size);
    if (chunks == 0) {
        return;
    }
    parallel_job job = {
        .count = count,
        .chunk_size = chunk_size,
        .fn = fn,
        .context = context,
        .zone = ts->zone ? ts->zone : "eddy_task",
        .fp_canonical = ts->fp_canonical,
        .set_fp_mode = (ts->mutations & EDDY_MUTATION_SKIP_WORKER_FP_MODE) == 0,
    };
    /* A game's task system gets every phase, even at one worker or one chunk
     * (it was given to be used); the built-in pool only real parallel work. */
    const bool inline_run = ts->external ? false : ts->worker_count <= 1 || chunks == 1;
    if (ts->enqueue == NULL || inline_run) {
        chunks_run(&job, 0, chunks);
        return;
    }
    /* A zero-initialised task_system would install an all-traps-enabled word. */
    EDDY_DEBUG_ASSERT(!job.set_fp_mode || fp_mode_is_canonical_word(job.fp_canonical));
    void *handle = ts->enqueue(chunk_task, chunks, 1, &job, ts->user_context);
    if (handle != NULL) {
        EDDY_ASSERT(ts->finish != NULL);
        ts->finish(handle, ts->user_context);
    }
}

/* ---------------------------------------------------------------- reduction */

static void *element_at(void *partials, int i, size_t elem_size) {
    return (char *)partials + (size_t)i * elem_size;
}

/* The canonical tree: stride 1, 2, 4, ...; partial i absorbs partial i + s. */
static void reduce_pairwise(void *partials, int n, size_t elem_size, combine_fn *combine) {
    for (int s = 1; s < n; s *= 2) {
        for (int i = 0; i + s < n; i += 2 * s) {
            combine(element_at(partials, i, elem_size), element_at(partials, i + s, elem_size));
        }
    }
}

/* MUTATION (test-only): fold contiguous groups of ceil(n / workers) partials
 * left to right, then fold the group heads left to right. The grouping, and so
 * the rounding of float sums, changes with the worker count. */
static void reduce_by_worker_groups(void *partials, int n, size_t elem_size,
                                    combine_fn *combine, int workers) {
    int group = (n + workers - 1) / workers;
    for (int head = 0; head < n; head += group) {
        int end = head + group < n ? head + group : n;
        for (int i = head + 1; i < end; ++i) {
            combine(element_at(partials, head, elem_size), element_at(partials, i, elem_size));
        }
        if (head > 0) {
            combine(element_at(partials, 0, elem_size), element_at(partials, head, elem_size));
        }
    }
}

void eddy_reduce_tree(task_system *ts, void *partials, int n, size_t elem_size, combine_fn *combine) {
    EDDY_ASSERT(combine != NULL && (n <= 0 || partials != NULL));
    if (n <= 1) {
        return;
    }
    if (ts != NULL && (ts->mutations & EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION) != 0) {
        int workers = ts->worker_count > 1 ? ts->worker_count : 1;
        reduce_by_worker_groups(partials, n, elem_size, combine, workers);
        return;
    }
    reduce_pairwise(partials, n, elem_size, combine);
}
