/* SPDX-License-Identifier: MIT */
/* Tests of eddy_parallel_for and eddy_reduce_tree (lib/runtime/parallel.c) on the built-in pool
 * and on test-only task systems that split work oddly: fixed chunk ranges,
 * every index exactly once, the fixed reduction tree, worker-count
 * independence of float results, the canonical FP mode inside chunks, and the
 * test-only mutations that must break all that. */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MAX_WORKERS_TESTED = 16 };

#if defined(__x86_64__) || defined(_M_X64)
#define RTZ_BITS 0x6000u
#elif defined(__aarch64__)
#define RTZ_BITS (3u << 22)
#endif

/* Round toward zero without flushing: a mode a game could leave behind. */
static uint32_t hostile_mode(void) { return eddy_fpenv_canonical(false) | RTZ_BITS; }

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* ---------------------------------------------------------------- task systems */

static void hostile_worker_start(int worker_index, void *context) {
    (void)worker_index, (void)context;
    eddy_fpenv_set(hostile_mode());
}

static eddy_pool *pool_make(int workers, bool hostile) {
    eddy_pool_def def = eddy_pool_def_default();
    def.worker_count = workers;
    def.worker_start = hostile ? hostile_worker_start : NULL;
    eddy_pool *pool = NULL;
    cr_assert_eq(eddy_pool_create(&def, &pool), EDDY_OK);
    return pool;
}

static task_system pool_tasks(eddy_pool *pool, uint32_t mutations) {
    task_system ts = {
        .worker_count = eddy_pool_worker_count(pool),
        .enqueue = eddy_pool_enqueue,
        .finish = eddy_pool_finish,
        .user_context = pool,
        .own_pool = NULL,
        .fp_canonical = eddy_fpenv_canonical(true),
        .mutations = mutations,
    };
    return ts;
}

/* Pools with 1..MAX_WORKERS_TESTED workers; pools[w] has w workers. */
typedef struct pool_set {
    eddy_pool *pools[MAX_WORKERS_TESTED + 1];
} pool_set;

static void pool_set_make(pool_set *set, bool hostile) {
    for (int w = 1; w <= MAX_WORKERS_TESTED; ++w) {
        set->pools[w] = pool_make(w, hostile);
    }
}

static void pool_set_destroy(pool_set *set) {
    for (int w = 1; w <= MAX_WORKERS_TESTED; ++w) {
        eddy_pool_destroy(set->pools[w]);
    }
}

/* Odd split of [0, n): ranges of 1, 2, 3, 5, 1, 2, 3, 5, ... items. */
enum { MAX_SPLIT = 8192 };
typedef struct split {
    int count;
    int start[MAX_SPLIT], end[MAX_SPLIT];
} split;

static void split_odd(split *s, int n) {
    static const int sizes[] = {1, 2, 3, 5};
    s->count = 0;
    for (int at = 0, k = 0; at < n; ++k) {
        int size = sizes[k % 4];
        int end = at + size < n ? at + size : n;
        s->start[s->count] = at;
        s->end[s->count] = end;
        s->count += 1;
        at = end;
    }
}

/* User task system 1: inline, one item at a time, last item first. */
static void *reverse_enqueue(eddy_task_fn *task, int count, int min_range, void *task_context,
                             void *user_context) {
    (void)min_range, (void)user_context;
    for (int i = count - 1; i >= 0; --i) {
        task(i, i + 1, i % 3, task_context);
    }
    return NULL;
}

/* User task system 2: deferred to finish, odd ranges in a scrambled order. */
typedef struct deferred_job {
    eddy_task_fn *task;
    void *task_context;
    split ranges;
} deferred_job;

static void *deferred_enqueue(eddy_task_fn *task, int count, int min_range, void *task_context,
                              void *user_context) {
    (void)min_range;
    deferred_job *job = user_context;
    job->task = task;
    job->task_context = task_context;
    split_odd(&job->ranges, count);
    return job;
}

static void deferred_finish(void *handle, void *user_context) {
    deferred_job *job = handle;
    cr_assert_eq(handle, user_context);
    int n = job->ranges.count;
    for (int k = 0; k < n; ++k) {
        int r = (int)(((int64_t)k * 7919 + 3) % n); /* a permutation: 7919 is prime, n < 7919 */
        job->task(job->ranges.start[r], job->ranges.end[r], 0, job->task_context);
    }
}

/* User task system 3: fresh threads in round-toward-zero mode, thread t runs
 * the odd ranges t, t + THREADS, ... */
enum { THREADED_THREADS = 3 };
typedef struct threaded_job threaded_job;
typedef struct threaded_arg {
    threaded_job *job;
    int index;
} threaded_arg;
struct threaded_job {
    eddy_task_fn *task;
    void *task_context;
    split ranges;
    pthread_t threads[THREADED_THREADS];
    threaded_arg args[THREADED_THREADS];
};

static void *threaded_main(void *p) {
    threaded_arg *arg = p;
    threaded_job *job = arg->job;
    eddy_fpenv_set(hostile_mode());
    for (int r = arg->index; r < job->ranges.count; r += THREADED_THREADS) {
        job->task(job->ranges.start[r], job->ranges.end[r], arg->index, job->task_context);
    }
    return NULL;
}

static void *threaded_enqueue(eddy_task_fn *task, int count, int min_range, void *task_context,
                              void *user_context) {
    (void)min_range;
    threaded_job *job = user_context;
    job->task = task;
    job->task_context = task_context;
    split_odd(&job->ranges, count);
    for (int t = 0; t < THREADED_THREADS; ++t) {
        job->args[t] = (threaded_arg){job, t};
        cr_assert_eq(pthread_create(&job->threads[t], NULL, threaded_main, &job->args[t]), 0);
    }
    return job;
}

static void threaded_finish(void *handle, void *user_context) {
    (void)user_context;
    threaded_job *job = handle;
    for (int t = 0; t < THREADED_THREADS; ++t) {
        pthread_join(job->threads[t], NULL);
    }
}

static task_system user_tasks(eddy_enqueue_task_fn *enqueue, eddy_finish_task_fn *finish,
                              void *context, int workers) {
    task_system ts = {
        .worker_count = workers,
        .enqueue = enqueue,
        .finish = finish,
        .user_context = context,
        .fp_canonical = eddy_fpenv_canonical(true),
    };
    return ts;
}

/* ---------------------------------------------------------------- coverage */

enum { MAX_COUNT = 4097 };

typedef struct visit_log {
    int chunk_size;
    atomic_int visits[MAX_COUNT];
    atomic_int chunk_calls[MAX_COUNT];
    int chunk_begin[MAX_COUNT], chunk_end[MAX_COUNT];
} visit_log;

static void visit_chunk(int chunk, int begin, int end, void *context) {
    visit_log *log = context;
    atomic_fetch_add(&log->chunk_calls[chunk], 1);
    log->chunk_begin[chunk] = begin; /* each chunk owns its slot */
    log->chunk_end[chunk] = end;
    for (int i = begin; i < end; ++i) {
        atomic_fetch_add(&log->visits[i], 1);
    }
}

static void visit_log_reset(visit_log *log) {
    for (int i = 0; i < MAX_COUNT; ++i) {
        atomic_store(&log->visits[i], 0);
        atomic_store(&log->chunk_calls[i], 0);
        log->chunk_begin[i] = -1;
        log->chunk_end[i] = -1;
    }
}

/* Empty string if the log matches the fixed chunk layout, else a reason. */
static const char *visit_log_check(const visit_log *log, int count, int chunk_size) {
    int chunks = chunk_count(count, chunk_size);
    for (int i = 0; i < count; ++i) {
        if (atomic_load(&log->visits[i]) != 1) {
            return "an index was not visited exactly once";
        }
    }
    for (int c = 0; c < MAX_COUNT; ++c) {
        int expected_calls = c < chunks ? 1 : 0;
        if (atomic_load(&log->chunk_calls[c]) != expected_calls) {
            return "a chunk was not run exactly once";
        }
        if (c >= chunks) {
            continue;
        }
        int end = (c + 1) * chunk_size < count ? (c + 1) * chunk_size : count;
        if (log->chunk_begin[c] != c * chunk_size || log->chunk_end[c] != end) {
            return "a chunk range differs from [c*size, min((c+1)*size, count))";
        }
    }
    return "";
}

static void coverage_run(task_system *ts, visit_log *log, int count, int chunk_size,
                         const char *what) {
    visit_log_reset(log);
    eddy_parallel_for(ts, count, chunk_size, visit_chunk, log);
    cr_assert_str_empty(visit_log_check(log, count, chunk_size), "%s: count %d chunk %d: %s", what,
                        count, chunk_size, visit_log_check(log, count, chunk_size));
}

static const int k_counts[] = {0, 1, 2, 7, 63, 64, 65, 1000, MAX_COUNT};
static const int k_chunk_sizes[] = {1, 3, 64, 1000, 5000};
#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

Test(parallel, every_index_once_and_fixed_chunk_ranges_for_1_to_16_workers, .timeout = 300) {
    pool_set set;
    pool_set_make(&set, false);
    visit_log *log = calloc(1, sizeof *log);
    for (int w = 1; w <= MAX_WORKERS_TESTED; ++w) {
        task_system ts = pool_tasks(set.pools[w], 0);
        for (int n = 0; n < COUNT_OF(k_counts); ++n) {
            for (int s = 0; s < COUNT_OF(k_chunk_sizes); ++s) {
                coverage_run(&ts, log, k_counts[n], k_chunk_sizes[s], "pool");
            }
        }
    }
    free(log);
    pool_set_destroy(&set);
}

Test(parallel, every_index_once_on_user_task_systems, .timeout = 120) {
    visit_log *log = calloc(1, sizeof *log);
    deferred_job *deferred = calloc(1, sizeof *deferred);
    threaded_job *threaded = calloc(1, sizeof *threaded);
    task_system systems[] = {
        user_tasks(reverse_enqueue, NULL, NULL, 4),
        user_tasks(deferred_enqueue, deferred_finish, deferred, 4),
        user_tasks(threaded_enqueue, threaded_finish, threaded, THREADED_THREADS),
        user_tasks(NULL, NULL, NULL, 8), /* no enqueue: inline */
    };
    const char *names[] = {"reverse", "deferred", "threaded", "no enqueue"};
    for (int k = 0; k < COUNT_OF(systems); ++k) {
        for (int n = 0; n < COUNT_OF(k_counts); ++n) {
            for (int s = 0; s < COUNT_OF(k_chunk_sizes); ++s) {
                coverage_run(&systems[k], log, k_counts[n], k_chunk_sizes[s], names[k]);
            }
        }
    }
    free(threaded);
    free(deferred);
    free(log);
}

/* The inline path runs the chunks in order on the calling thread. */
typedef struct order_log {
    int next;
    int order[64];
    bool on_caller;
    pthread_t caller;
} order_log;

static void order_chunk(int chunk, int begin, int end, void *context) {
    (void)begin, (void)end;
    order_log *log = context;
    log->order[log->next++] = chunk;
    log->on_caller = log->on_caller && pthread_equal(pthread_self(), log->caller);
}

Test(parallel, one_worker_runs_chunks_in_order_on_the_caller) {
    eddy_pool *pool = pool_make(1, false);
    task_system systems[] = {pool_tasks(pool, 0), user_tasks(NULL, NULL, NULL, 4),
                             user_tasks(reverse_enqueue, NULL, NULL, 1)};
    for (int k = 0; k < COUNT_OF(systems); ++k) {
        order_log log = {.on_caller = true, .caller = pthread_self()};
        eddy_parallel_for(&systems[k], 100, 2, order_chunk, &log);
        cr_assert_eq(log.next, 50);
        cr_assert(log.on_caller);
        for (int c = 0; c < 50; ++c) {
            cr_assert_eq(log.order[c], c);
        }
    }
    eddy_pool_destroy(pool);
}

/* ---------------------------------------------------------------- eddy_reduce_tree */

typedef struct expr {
    char text[512];
} expr;

/* out = "(" left "+" right ")"; fails the test rather than truncate. */
static void expr_join(char *out, size_t size, const char *left, const char *right) {
    size_t l = strlen(left), r = strlen(right);
    cr_assert_lt(l + r + 3, size, "expression too long");
    char joined[1024];
    joined[0] = '(';
    memcpy(joined + 1, left, l);
    joined[1 + l] = '+';
    memcpy(joined + 2 + l, right, r);
    joined[2 + l + r] = ')';
    joined[3 + l + r] = '\0';
    memcpy(out, joined, l + r + 4);
}

static void expr_combine(void *dst, const void *src) {
    expr *d = dst;
    const expr *s = src;
    expr_join(d->text, sizeof d->text, d->text, s->text);
}

/* Independent statement of the tree: the node covering [i, i + span) of a
 * power-of-two span joins its two halves when the right half is not empty. */
static void expr_reference(char *out, size_t size, int i, int span, int n) {
    if (span == 1) {
        snprintf(out, size, "%d", i);
        return;
    }
    int half = span / 2;
    char left[512];
    expr_reference(left, sizeof left, i, half, n);
    if (i + half >= n) {
        memcpy(out, left, strlen(left) + 1);
        return;
    }
    char right[512];
    expr_reference(right, sizeof right, i + half, half, n);
    expr_join(out, size, left, right);
}

static void expr_reduce(task_system *ts, int n, expr *out) {
    expr items[40];
    for (int i = 0; i < n; ++i) {
        snprintf(items[i].text, sizeof items[i].text, "%d", i);
    }
    eddy_reduce_tree(ts, items, n, sizeof(expr), expr_combine);
    *out = items[0];
}

Test(parallel, reduce_tree_is_the_pairwise_tree_over_chunk_index) {
    task_system serial = user_tasks(NULL, NULL, NULL, 1);
    expr e;
    expr_reduce(&serial, 5, &e);
    cr_assert_str_eq(e.text, "(((0+1)+(2+3))+4)");
    expr_reduce(&serial, 6, &e);
    cr_assert_str_eq(e.text, "(((0+1)+(2+3))+(4+5))");
    for (int n = 1; n <= 40; ++n) {
        int span = 1;
        while (span < n) {
            span *= 2;
        }
        char expected[512];
        expr_reference(expected, sizeof expected, 0, span, n);
        for (int w = 1; w <= MAX_WORKERS_TESTED; ++w) {
            task_system ts = user_tasks(NULL, NULL, NULL, w);
            expr_reduce(&ts, n, &e);
            cr_assert_str_eq(e.text, expected, "n=%d w=%d", n, w);
        }
    }
}

Test(parallel, reduce_tree_mutation_groups_by_worker_count) {
    task_system ts = user_tasks(NULL, NULL, NULL, 2);
    ts.mutations = EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION;
    expr e;
    expr_reduce(&ts, 5, &e); /* groups of 3 and 2 */
    cr_assert_str_eq(e.text, "(((0+1)+2)+(3+4))");
    ts.worker_count = 1;
    expr_reduce(&ts, 5, &e);
    cr_assert_str_eq(e.text, "((((0+1)+2)+3)+4)");
}

static void float_combine(void *dst, const void *src) {
    *(float *)dst += *(const float *)src;
}

/* Partials where the order of summation matters: big values cancel, ones are
 * absorbed or not depending on what they meet first. */
static void cancelling_partials(float *p, int n) {
    static const float pattern[] = {1e8f, 1.0f, -1e8f, 1.0f, 3.0f, 1e8f, -1e8f, 1.0f, 0.5f};
    for (int i = 0; i < n; ++i) {
        p[i] = pattern[i % COUNT_OF(pattern)] * (i % 5 == 4 ? 1.25f : 1.0f);
    }
}

static float reduce_floats(uint32_t mutations, int workers, int n) {
    float p[64];
    cancelling_partials(p, n);
    task_system ts = user_tasks(NULL, NULL, NULL, workers);
    ts.mutations = mutations;
    eddy_reduce_tree(&ts, p, n, sizeof(float), float_combine);
    return p[0];
}

Test(parallel, reduce_tree_float_sums_are_identical_for_1_to_16_workers) {
    for (int n = 1; n <= 64; ++n) {
        uint32_t reference = float_bits(reduce_floats(0, 1, n));
        for (int w = 2; w <= MAX_WORKERS_TESTED; ++w) {
            cr_assert_eq(float_bits(reduce_floats(0, w, n)), reference, "n=%d w=%d", n, w);
        }
    }
}

Test(parallel, reduce_mutation_makes_float_sums_depend_on_worker_count) {
    const int n = 37;
    uint32_t tree = float_bits(reduce_floats(0, 1, n));
    uint32_t first = float_bits(reduce_floats(EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION, 1, n));
    int differs_from_tree = 0, differs_between_workers = 0;
    for (int w = 1; w <= MAX_WORKERS_TESTED; ++w) {
        uint32_t m = float_bits(reduce_floats(EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION, w, n));
        differs_from_tree += m != tree;
        differs_between_workers += m != first;
    }
    cr_assert_gt(differs_from_tree, 0, "the mutation must change the sum for some worker count");
    cr_assert_gt(differs_between_workers, 0, "the mutated sum must vary with the worker count");
}

/* ---------------------------------------------------------------- float workload */

enum { WORK_ITEMS = 6000, WORK_CHUNK = 128 };

typedef struct workload {
    float in[WORK_ITEMS];
    float out[WORK_ITEMS];
    float partials[(WORK_ITEMS + WORK_CHUNK - 1) / WORK_CHUNK];
} workload;

static void workload_init(workload *w) {
    uint32_t state = 12345u;
    for (int i = 0; i < WORK_ITEMS; ++i) {
        state = state * 1664525u + 1013904223u;
        float mantissa = (float)(state >> 8) / 16777216.0f;
        float scale = (state & 3u) == 0 ? 1e6f : ((state & 3u) == 1 ? 1e-3f : 1.0f);
        w->in[i] = (state & 4u ? -mantissa : mantissa) * scale;
    }
}

static void workload_chunk(int chunk, int begin, int end, void *context) {
    workload *w = context;
    float sum = 0.0f;
    for (int i = begin; i < end; ++i) {
        float x = w->in[i];
        float y = x * x / (1.0f + x * x) + x / 3.0f;
        w->out[i] = y;
        sum += y;
    }
    w->partials[chunk] = sum;
}

typedef struct workload_result {
    uint32_t total;
    uint32_t out_hash;
} workload_result;

static workload_result workload_run(task_system *ts, workload *w) {
    memset(w->out, 0, sizeof w->out);
    memset(w->partials, 0, sizeof w->partials);
    eddy_parallel_for(ts, WORK_ITEMS, WORK_CHUNK, workload_chunk, w);
    int chunks = chunk_count(WORK_ITEMS, WORK_CHUNK);
    eddy_reduce_tree(ts, w->partials, chunks, sizeof(float), float_combine);
    uint32_t hash = 2166136261u; /* FNV-1a over the output bits */
    for (int i = 0; i < WORK_ITEMS; ++i) {
        hash = (hash ^ float_bits(w->out[i])) * 16777619u;
    }
    return (workload_result){float_bits(w->partials[0]), hash};
}

/* Run as a step does: the caller is in the canonical mode for the duration. */
static workload_result workload_step(task_system *ts, workload *w) {
    uint32_t saved = eddy_fpenv_get();
    eddy_fpenv_set(ts->fp_canonical);
    workload_result r = workload_run(ts, w);
    eddy_fpenv_set(saved);
    return r;
}

Test(parallel, float_results_identical_for_1_to_16_workers_and_user_systems, .timeout = 120) {
    workload *w = calloc(1, sizeof *w);
    workload_init(w);
    pool_set set;
    pool_set_make(&set, true); /* workers start in round-toward-zero */
    eddy_fpenv_set(hostile_mode());  /* and so does the game's thread */
    task_system serial = pool_tasks(set.pools[1], 0);
    workload_result expected = workload_step(&serial, w);
    for (int round = 0; round < 3; ++round) {
        for (int k = 1; k <= MAX_WORKERS_TESTED; ++k) {
            task_system ts = pool_tasks(set.pools[k], 0);
            workload_result r = workload_step(&ts, w);
            cr_assert_eq(r.total, expected.total, "workers %d round %d", k, round);
            cr_assert_eq(r.out_hash, expected.out_hash, "workers %d round %d", k, round);
        }
    }
    deferred_job *deferred = calloc(1, sizeof *deferred);
    threaded_job *threaded = calloc(1, sizeof *threaded);
    task_system systems[] = {
        user_tasks(reverse_enqueue, NULL, NULL, 4),
        user_tasks(deferred_enqueue, deferred_finish, deferred, 4),
        user_tasks(threaded_enqueue, threaded_finish, threaded, THREADED_THREADS),
    };
    for (int k = 0; k < COUNT_OF(systems); ++k) {
        workload_result r = workload_step(&systems[k], w);
        cr_assert_eq(r.total, expected.total, "user task system %d", k);
        cr_assert_eq(r.out_hash, expected.out_hash, "user task system %d", k);
    }
    cr_assert(eddy_fpenv_is(hostile_mode()), "the caller's mode is restored");
    free(threaded);
    free(deferred);
    pool_set_destroy(&set);
    free(w);
}

Test(parallel, the_float_workload_is_sensitive_to_the_fp_mode) {
    /* Otherwise the test above would prove nothing about FP modes. */
    workload *w = calloc(1, sizeof *w);
    workload_init(w);
    task_system canonical = user_tasks(NULL, NULL, NULL, 1);
    task_system hostile = canonical;
    hostile.fp_canonical = hostile_mode();
    workload_result a = workload_step(&canonical, w);
    workload_result b = workload_step(&hostile, w);
    cr_assert_neq(a.out_hash, b.out_hash);
    free(w);
}

/* ---------------------------------------------------------------- FP mode in chunks */

enum { MODE_CHUNKS = 8 };

typedef struct mode_log {
    pthread_t caller;
    uint32_t canonical, hostile;
    atomic_int worker_chunks;           /* chunks run on a thread other than the caller */
    atomic_int canonical_chunks, hostile_chunks, hostile_worker_chunks;
} mode_log;

/* Let a pool worker run at least one chunk: the caller's chunks wait (bounded)
 * until one has. */
static void caller_waits_for_a_worker(mode_log *log) {
    struct timespec pause = {0, 100000};
    for (int i = 0; i < 50000 && atomic_load(&log->worker_chunks) == 0; ++i) {
        nanosleep(&pause, NULL);
    }
}

static void mode_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk, (void)begin, (void)end;
    mode_log *log = context;
    bool on_worker = !pthread_equal(pthread_self(), log->caller);
    bool canonical = eddy_fpenv_is(log->canonical);
    bool hostile = eddy_fpenv_is(log->hostile);
    atomic_fetch_add(&log->canonical_chunks, canonical);
    atomic_fetch_add(&log->hostile_chunks, hostile);
    atomic_fetch_add(&log->hostile_worker_chunks, hostile && on_worker);
    if (on_worker) {
        atomic_fetch_add(&log->worker_chunks, 1);
    } else {
        caller_waits_for_a_worker(log);
    }
}

static void mode_log_init(mode_log *log) {
    memset(log, 0, sizeof *log);
    log->caller = pthread_self();
    log->canonical = eddy_fpenv_canonical(true);
    log->hostile = hostile_mode();
}

Test(parallel, chunks_run_in_canonical_mode_on_hostile_threads_and_modes_are_restored,
     .timeout = 60) {
    int counts[] = {2, 3, 4, 16};
    for (int k = 0; k < COUNT_OF(counts); ++k) {
        eddy_pool *pool = pool_make(counts[k], true);
        task_system ts = pool_tasks(pool, 0);
        mode_log log;
        mode_log_init(&log);
        eddy_fpenv_set(log.hostile);
        eddy_parallel_for(&ts, MODE_CHUNKS, 1, mode_chunk, &log);
        cr_assert_gt(atomic_load(&log.worker_chunks), 0, "workers %d", counts[k]);
        cr_assert_eq(atomic_load(&log.canonical_chunks), MODE_CHUNKS, "workers %d", counts[k]);
        cr_assert(eddy_fpenv_is(log.hostile), "caller's mode restored (workers %d)", counts[k]);

        /* Under the mutation the workers keep their own (restored) mode. */
        ts.mutations = EDDY_MUTATION_SKIP_WORKER_FP_MODE;
        mode_log_init(&log);
        eddy_fpenv_set(log.canonical);
        eddy_parallel_for(&ts, MODE_CHUNKS, 1, mode_chunk, &log);
        cr_assert_gt(atomic_load(&log.worker_chunks), 0);
        cr_assert_gt(atomic_load(&log.hostile_worker_chunks), 0,
                     "workers %d: a hostile worker's chunk must see its own mode", counts[k]);
        cr_assert_lt(atomic_load(&log.canonical_chunks), MODE_CHUNKS);
        eddy_pool_destroy(pool);
    }
}

Test(parallel, chunks_run_in_canonical_mode_on_user_threads) {
    threaded_job *threaded = calloc(1, sizeof *threaded);
    task_system ts = user_tasks(threaded_enqueue, threaded_finish, threaded, THREADED_THREADS);
    mode_log log;
    mode_log_init(&log);
    eddy_fpenv_set(log.canonical);
    eddy_parallel_for(&ts, 30, 1, mode_chunk, &log);
    cr_assert_eq(atomic_load(&log.canonical_chunks), 30);
    ts.mutations = EDDY_MUTATION_SKIP_WORKER_FP_MODE;
    mode_log_init(&log);
    eddy_parallel_for(&ts, 30, 1, mode_chunk, &log);
    cr_assert_eq(atomic_load(&log.hostile_chunks), 30, "user threads start in RTZ");
    free(threaded);
}

/* ---------------------------------------------------------------- overhead */

static void empty_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk, (void)begin, (void)end, (void)context;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* Median time of an empty eddy_parallel_for over `chunks` chunks. */
static double empty_parallel_for_us(task_system *ts, int chunks) {
    enum { SAMPLES = 2000 };
    static double samples[SAMPLES];
    for (int i = 0; i < SAMPLES; ++i) {
        double t0 = now_us();
        eddy_parallel_for(ts, chunks, 1, empty_chunk, NULL);
        samples[i] = now_us() - t0;
    }
    qsort(samples, SAMPLES, sizeof samples[0], compare_double);
    return samples[SAMPLES / 2];
}

Test(parallel, empty_parallel_for_overhead_is_small, .timeout = 60) {
    int counts[] = {2, 8, 16};
    for (int k = 0; k < COUNT_OF(counts); ++k) {
        eddy_pool *pool = pool_make(counts[k], false);
        task_system ts = pool_tasks(pool, 0);
        double us = empty_parallel_for_us(&ts, 64);
        cr_log_info("empty eddy_parallel_for, %d workers, 64 chunks: median %.2f us", counts[k], us);
        /* A loose bound: this catches livelock or lost wake-ups, not tuning. */
        cr_expect_lt(us, 1000.0, "%d workers: median %.1f us", counts[k], us);
        eddy_pool_destroy(pool);
    }
}
