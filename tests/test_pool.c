/* SPDX-License-Identifier: MIT */
/* Tests of the built-in worker pool (lib/runtime/pool.c) through its public task
 * interface: argument validation, the worker_start hook, coverage of every
 * item exactly once, range sizes, worker indices, lifetime, several pools and
 * callers, nesting, oversubscription and an idle pool's CPU use. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static eddy_pool *pool_make(int workers) {
    eddy_pool_def def = eddy_pool_def_default();
    def.worker_count = workers;
    eddy_pool *pool = NULL;
    eddy_status status = eddy_pool_create(&def, &pool);
    cr_assert_eq(status, EDDY_OK, "create(%d): %s", workers, eddy_status_name(status));
    cr_assert_not_null(pool);
    return pool;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Run a task on the pool the way eddy_parallel_for does. */
static void pool_run(eddy_pool *pool, eddy_task_fn *task, int count, int min_range, void *ctx) {
    void *handle = eddy_pool_enqueue(task, count, min_range, ctx, pool);
    if (handle != NULL) {
        eddy_pool_finish(handle, pool);
    }
}

/* ---------------------------------------------------------------- validation */

Test(pool, create_rejects_bad_worker_counts) {
    int bad[] = {0, -1, EDDY_MAX_WORKERS + 1, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        eddy_pool_def def = eddy_pool_def_default();
        def.worker_count = bad[i];
        eddy_pool *pool = (eddy_pool *)&def; /* must be overwritten with NULL */
        cr_assert_eq(eddy_pool_create(&def, &pool), EDDY_ERROR_INVALID_ARGUMENT, "%d", bad[i]);
        cr_assert_null(pool);
    }
    eddy_pool *pool = (eddy_pool *)&bad;
    cr_assert_eq(eddy_pool_create(NULL, &pool), EDDY_ERROR_INVALID_ARGUMENT);
    cr_assert_null(pool);
    eddy_pool_def def = eddy_pool_def_default();
    cr_assert_eq(eddy_pool_create(&def, NULL), EDDY_ERROR_INVALID_ARGUMENT);
}

Test(pool, default_def_and_limits) {
    eddy_pool_def def = eddy_pool_def_default();
    cr_assert_eq(def.worker_count, 1);
    cr_assert_null(def.worker_start);
    eddy_pool_destroy(NULL); /* accepted */
    int counts[] = {1, 2, EDDY_MAX_WORKERS};
    for (size_t i = 0; i < 3; ++i) {
        eddy_pool *pool = pool_make(counts[i]);
        cr_assert_eq(eddy_pool_worker_count(pool), counts[i]);
        eddy_pool_destroy(pool);
    }
}

/* ---------------------------------------------------------------- worker_start */

typedef struct hook_log {
    atomic_int calls[EDDY_MAX_WORKERS + 1];
    atomic_int bad_index;
    pthread_t threads[EDDY_MAX_WORKERS];
} hook_log;

static void hook_record(int worker_index, void *context) {
    hook_log *log = context;
    if (worker_index < 1 || worker_index >= EDDY_MAX_WORKERS) {
        atomic_fetch_add(&log->bad_index, 1);
        return;
    }
    log->threads[worker_index] = pthread_self();
    atomic_fetch_add(&log->calls[worker_index], 1);
}

Test(pool, worker_start_runs_once_per_thread_with_indices_1_to_n_minus_1) {
    int counts[] = {1, 2, 3, 8, 16, EDDY_MAX_WORKERS};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
        int n = counts[k];
        hook_log *log = calloc(1, sizeof *log);
        eddy_pool_def def = eddy_pool_def_default();
        def.worker_count = n;
        def.worker_start = hook_record;
        def.worker_start_context = log;
        eddy_pool *pool = NULL;
        cr_assert_eq(eddy_pool_create(&def, &pool), EDDY_OK);
        /* create returns after every hook returned */
        cr_assert_eq(atomic_load(&log->calls[0]), 0);
        for (int i = 1; i < n; ++i) {
            cr_assert_eq(atomic_load(&log->calls[i]), 1, "n=%d index %d", n, i);
            cr_assert_not(pthread_equal(log->threads[i], pthread_self()));
            for (int j = 1; j < i; ++j) {
                cr_assert_not(pthread_equal(log->threads[i], log->threads[j]));
            }
        }
        for (int i = n; i <= EDDY_MAX_WORKERS; ++i) {
            cr_assert_eq(atomic_load(&log->calls[i]), 0);
        }
        cr_assert_eq(atomic_load(&log->bad_index), 0);
        eddy_pool_destroy(pool);
        for (int i = 1; i < n; ++i) {
            cr_assert_eq(atomic_load(&log->calls[i]), 1, "hook ran again after destroy");
        }
        free(log);
    }
}

/* ---------------------------------------------------------------- coverage */

enum { MAX_ITEMS = 5000 };

typedef struct coverage {
    int count, min_range, workers;
    atomic_int visits[MAX_ITEMS];
    atomic_int bad_range, bad_worker, ranges;
    pthread_t worker_thread[EDDY_MAX_WORKERS];
    atomic_int worker_seen[EDDY_MAX_WORKERS];
    atomic_int thread_mismatch;
} coverage;

static void coverage_task(int start, int end, int worker_index, void *context) {
    coverage *c = context;
    atomic_fetch_add(&c->ranges, 1);
    bool short_ok = end - start >= c->min_range || end == c->count;
    if (start < 0 || end > c->count || start >= end || !short_ok) {
        atomic_fetch_add(&c->bad_range, 1);
        return;
    }
    if (worker_index < 0 || worker_index >= c->workers) {
        atomic_fetch_add(&c->bad_worker, 1);
        return;
    }
    /* one worker index = one thread, for the life of the pool */
    if (atomic_exchange(&c->worker_seen[worker_index], 1) == 0) {
        c->worker_thread[worker_index] = pthread_self();
    } else if (!pthread_equal(c->worker_thread[worker_index], pthread_self())) {
        atomic_fetch_add(&c->thread_mismatch, 1);
    }
    for (int i = start; i < end; ++i) {
        atomic_fetch_add(&c->visits[i], 1);
    }
}

/* Index of the first item not visited exactly once, or -1. */
static int first_bad_visit(atomic_int *visits, int count) {
    for (int i = 0; i < count; ++i) {
        if (atomic_load(&visits[i]) != 1) {
            return i;
        }
    }
    return -1;
}

static void coverage_check(eddy_pool *pool, coverage *c, int count, int min_range) {
    c->count = count;
    c->min_range = min_range;
    c->workers = eddy_pool_worker_count(pool);
    for (int i = 0; i < count; ++i) {
        atomic_store(&c->visits[i], 0);
    }
    for (int i = 0; i < c->workers; ++i) {
        atomic_store(&c->worker_seen[i], 0);
    }
    void *handle = eddy_pool_enqueue(coverage_task, count, min_range, c, pool);
    if (c->workers == 1) {
        cr_assert_null(handle, "a one-worker pool runs inline");
    }
    if (handle == NULL) {
        cr_assert_eq(first_bad_visit(c->visits, count), -1, "inline run must be complete");
    } else {
        eddy_pool_finish(handle, pool);
    }
    int bad = first_bad_visit(c->visits, count);
    cr_assert_eq(bad, -1, "w=%d n=%d min=%d item %d visited %d times", c->workers, count,
                 min_range, bad, bad < 0 ? 1 : atomic_load(&c->visits[bad]));
    cr_assert_eq(atomic_load(&c->bad_range), 0, "w=%d n=%d min=%d", c->workers, count, min_range);
    cr_assert_eq(atomic_load(&c->bad_worker), 0);
    cr_assert_eq(atomic_load(&c->thread_mismatch), 0);
}

Test(pool, every_item_runs_exactly_once_in_valid_ranges, .timeout = 120) {
    int workers[] = {1, 2, 3, 4, 8, 16};
    int counts[] = {1, 2, 3, 7, 64, 100, 1000, MAX_ITEMS};
    int min_ranges[] = {0, 1, 2, 5, 64, 10000};
    coverage *c = calloc(1, sizeof *c);
    for (size_t w = 0; w < sizeof workers / sizeof workers[0]; ++w) {
        eddy_pool *pool = pool_make(workers[w]);
        for (int round = 0; round < 3; ++round) {
            for (size_t n = 0; n < sizeof counts / sizeof counts[0]; ++n) {
                for (size_t m = 0; m < sizeof min_ranges / sizeof min_ranges[0]; ++m) {
                    coverage_check(pool, c, counts[n], min_ranges[m]);
                }
            }
        }
        eddy_pool_destroy(pool);
    }
    free(c);
}

/* A job of more items than one claim word's ends can count (2^20) is claimed
 * in units of several items: still every item once, in ranges of at least
 * min_range items but the one that ends the job. */
typedef struct big_job {
    uint8_t *visits;
    int count, min_range;
    atomic_int bad_range;
} big_job;

static void big_task(int start, int end, int worker_index, void *context) {
    (void)worker_index;
    big_job *job = context;
    if (start < 0 || end > job->count || start >= end ||
        (end - start < job->min_range && end != job->count)) {
        atomic_fetch_add(&job->bad_range, 1);
        return;
    }
    for (int i = start; i < end; ++i) job->visits[i] += 1; /* ranges never overlap */
}

Test(pool, jobs_beyond_a_million_items_run_every_item_once, .timeout = 60) {
    const int counts[] = {(1 << 20) - 1, 1 << 20, 3000001};
    const int min_ranges[] = {1, 1000};
    for (int workers = 2; workers <= 3; ++workers) {
        eddy_pool *pool = pool_make(workers);
        for (size_t n = 0; n < sizeof counts / sizeof counts[0]; ++n) {
            for (size_t m = 0; m < sizeof min_ranges / sizeof min_ranges[0]; ++m) {
                big_job job = {calloc((size_t)counts[n], 1), counts[n], min_ranges[m], 0};
                cr_assert_not_null(job.visits);
                pool_run(pool, big_task, job.count, job.min_range, &job);
                cr_assert_eq(atomic_load(&job.bad_range), 0, "w=%d n=%d", workers, job.count);
                for (int i = 0; i < job.count; ++i)
                    cr_assert_eq(job.visits[i], 1, "w=%d n=%d item %d", workers, job.count, i);
                free(job.visits);
            }
        }
        eddy_pool_destroy(pool);
    }
}

static void never_called(int start, int end, int worker_index, void *context) {
    (void)start, (void)end, (void)worker_index;
    atomic_fetch_add((atomic_int *)context, 1);
}

Test(pool, empty_job_runs_nothing) {
    eddy_pool *pool = pool_make(4);
    atomic_int calls = 0;
    cr_assert_null(eddy_pool_enqueue(never_called, 0, 1, &calls, pool));
    cr_assert_null(eddy_pool_enqueue(never_called, -5, 1, &calls, pool));
    cr_assert_eq(atomic_load(&calls), 0);
    eddy_pool_destroy(pool);
}

/* ---------------------------------------------------------------- lifetime */

typedef struct sum_job {
    atomic_long sum;
} sum_job;

static void sum_task(int start, int end, int worker_index, void *context) {
    (void)worker_index;
    sum_job *job = context;
    long local = 0;
    for (int i = start; i < end; ++i) {
        local += i;
    }
    atomic_fetch_add(&job->sum, local);
}

static void sum_check(eddy_pool *pool, int count) {
    sum_job job = {0};
    pool_run(pool, sum_task, count, 1, &job);
    cr_assert_eq(atomic_load(&job.sum), (long)count * (count - 1) / 2, "count %d", count);
}

Test(pool, create_destroy_100_pools, .timeout = 60) {
    for (int i = 0; i < 100; ++i) {
        eddy_pool *pool = pool_make(1 + i % 16);
        if (i % 2 == 0) {
            sum_check(pool, 1 + i * 7);
        }
        eddy_pool_destroy(pool);
    }
}

Test(pool, destroy_right_after_create_with_sleeping_and_spinning_workers) {
    for (int i = 0; i < 20; ++i) {
        eddy_pool *pool = pool_make(8);
        if (i % 4 == 1) {
            sleep_ms(2); /* workers have gone to sleep */
        }
        eddy_pool_destroy(pool);
    }
}

/* ---------------------------------------------------------------- several pools */

typedef struct caller_arg {
    eddy_pool *pool;
    int jobs;
    atomic_int failures;
} caller_arg;

static void *caller_main(void *p) {
    caller_arg *arg = p;
    for (int j = 0; j < arg->jobs; ++j) {
        int count = 1 + (j * 37) % 300;
        sum_job job = {0};
        pool_run(arg->pool, sum_task, count, 1 + j % 3, &job);
        if (atomic_load(&job.sum) != (long)count * (count - 1) / 2) {
            atomic_fetch_add(&arg->failures, 1);
        }
    }
    return NULL;
}

Test(pool, several_pools_used_from_several_threads, .timeout = 60) {
    enum { CALLERS = 4 };
    pthread_t threads[CALLERS];
    caller_arg args[CALLERS];
    for (int i = 0; i < CALLERS; ++i) {
        args[i] = (caller_arg){.pool = pool_make(2 + i), .jobs = 300};
        atomic_init(&args[i].failures, 0);
        cr_assert_eq(pthread_create(&threads[i], NULL, caller_main, &args[i]), 0);
    }
    for (int i = 0; i < CALLERS; ++i) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(atomic_load(&args[i].failures), 0);
        eddy_pool_destroy(args[i].pool);
    }
}

Test(pool, one_pool_shared_by_several_calling_threads_serialises_jobs, .timeout = 60) {
    enum { CALLERS = 3 };
    eddy_pool *pool = pool_make(4);
    pthread_t threads[CALLERS];
    caller_arg args[CALLERS];
    for (int i = 0; i < CALLERS; ++i) {
        args[i] = (caller_arg){.pool = pool, .jobs = 300};
        atomic_init(&args[i].failures, 0);
        cr_assert_eq(pthread_create(&threads[i], NULL, caller_main, &args[i]), 0);
    }
    for (int i = 0; i < CALLERS; ++i) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(atomic_load(&args[i].failures), 0);
    }
    eddy_pool_destroy(pool);
}

/* ---------------------------------------------------------------- nesting */

typedef struct nested_job {
    eddy_pool *pool;
    atomic_int inner_visits[64 * 16];
} nested_job;

typedef struct inner_ctx {
    nested_job *outer;
    int base;
} inner_ctx;

static void inner_task(int start, int end, int worker_index, void *context) {
    (void)worker_index;
    inner_ctx *inner = context;
    for (int i = start; i < end; ++i) {
        atomic_fetch_add(&inner->outer->inner_visits[inner->base + i], 1);
    }
}

static void outer_task(int start, int end, int worker_index, void *context) {
    (void)worker_index;
    nested_job *job = context;
    for (int i = start; i < end; ++i) {
        inner_ctx inner = {job, i * 16};
        pool_run(job->pool, inner_task, 16, 1, &inner);
    }
}

Test(pool, enqueue_from_inside_a_task_of_the_same_pool_runs_inline, .timeout = 30) {
    nested_job *job = calloc(1, sizeof *job);
    job->pool = pool_make(4);
    pool_run(job->pool, outer_task, 64, 1, job);
    cr_assert_eq(first_bad_visit(job->inner_visits, 64 * 16), -1);
    eddy_pool_destroy(job->pool);
    free(job);
}

/* ---------------------------------------------------------------- timing paths */

static void slow_first_task(int start, int end, int worker_index, void *context) {
    if (start == 0) {
        sleep_ms(5); /* the finishing thread must wait, and may sleep */
    }
    sum_task(start, end, worker_index, context);
}

Test(pool, finish_waits_for_slow_ranges_and_sleeping_workers_wake, .timeout = 30) {
    eddy_pool *pool = pool_make(3);
    for (int round = 0; round < 10; ++round) {
        sum_job job = {0};
        pool_run(pool, slow_first_task, 12, 1, &job);
        cr_assert_eq(atomic_load(&job.sum), 66);
        sleep_ms(round % 2 == 0 ? 3 : 0); /* let the workers fall asleep */
        sum_check(pool, 500);
    }
    eddy_pool_destroy(pool);
}

Test(pool, oversubscribed_pool_makes_progress, .timeout = 60) {
    eddy_pool *pool = pool_make(16); /* on a 2-core machine */
    for (int j = 0; j < 3000; ++j) {
        sum_check(pool, 1 + (j * 13) % 200);
    }
    eddy_pool_destroy(pool);
}

static double process_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

Test(pool, idle_pool_uses_no_cpu, .timeout = 30) {
    eddy_pool *pool = pool_make(8);
    sum_check(pool, 1000);
    sleep_ms(20); /* past every spin budget */
    double before = process_cpu_ms();
    sleep_ms(300);
    double used = process_cpu_ms() - before;
    cr_assert_lt(used, 15.0, "idle pool used %.2f ms of CPU in 300 ms", used);
    sum_check(pool, 1000); /* and still works */
    eddy_pool_destroy(pool);
}
