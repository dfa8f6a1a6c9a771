/* SPDX-License-Identifier: MIT */
/* The built-in worker pool: persistent threads behind eddy's task interface.
 *
 * Portable: threads, locks, clocks and aligned memory come from lib/runtime/thread.h
 * (thread_posix.c or thread_win32.c, chosen by the build).
 *
 * Design note.
 *
 * Results never depend on this file. eddy hands the pool a range of chunk
 * indices whose cut was fixed before the pool saw it (parallel.c); each chunk
 * writes only its own outputs. The pool decides only who runs which chunk and
 * when, so it is free to be dynamic: ranges are claimed greedily from the two
 * ends of one atomic word (below), the calling thread helps, and any worker
 * may take any range.
 *
 * Shape. worker_count - 1 threads (worker indices 1..N-1) live as long as the
 * pool; the thread that calls eddy_pool_finish is worker 0 and works too. A
 * pool runs one job at a time: enqueue takes job_lock and finish releases it,
 * so jobs from several threads on one pool are serialised, and an enqueue from
 * inside a running task of the same pool runs inline on that thread.
 *
 * The claim word. One 64-bit atomic holds (generation << 40) | (front << 20)
 * | back: the units [front, back) are still open. enqueue writes the job
 * fields (task, context, item_count, unit size), then publishes a new
 * generation with [0, unit_count). The thread that enqueued (worker 0) claims
 * from the front, every other worker from the back, by a compare-exchange that
 * moves that end by `take` units. Two ends give two workers the same side of
 * every loop: worker 0 runs the low chunks of each phase and worker 1 the high
 * ones, so the particles a worker advected are the ones it collides and
 * hashes next, from its own cache. Where the ends meet follows the load, as a
 * single counter would. Claims are guided: each takes 1/(2 * workers) of the
 * units still open (at least min_range, and never leaving less than that), so
 * the first are large and the last small, and the workers finish close
 * together. A unit is one item unless a job has 2^20 items or more. Because
 * generation and ends change together, a thread that was descheduled across
 * the end of one job and the start of the next cannot take units of the new
 * job while believing it works on the old one: its compare-exchange fails and
 * it reloads (the generation has 24 bits; a thread would have to sleep
 * through 16 million jobs and find the same ends). A
 * successful claim also proves the job is unfinished, so the job fields it
 * then reads cannot be rewritten under it (the next enqueue waits for finish,
 * and finish waits for every claimed item).
 *
 * Completion. Each finished range adds its size to `done`; finish returns when
 * done == item_count, after which nobody touches the job's context.
 *
 * Idling. Waiting threads spin on the claim word, first with a CPU pause and
 * then with a thread yield (so that 16 workers on 2 cores still let the busy ones
 * run), for a bounded time; then they sleep on a condition variable, so an idle
 * pool uses no CPU. Progress never depends on a wake-up: the finishing thread
 * can run every item alone. Wake-ups only add helpers, and fan out: enqueue
 * wakes up to two sleepers, each of which wakes up to two more while claims
 * remain open, so a small job does not wake the whole pool. The finishing
 * thread's own sleep (waiting for the last ranges) must not be missed: it and
 * the last worker use the store-then-check pattern on sequentially consistent
 * atomics (`finisher_waiting` against `done`) and signal under the mutex.
 *
 * Nothing here is floating point: counters are C11 integer atomics. */
#include "runtime/runtime.h"
#include "runtime/thread.h"

#include <stdatomic.h>

enum {
    CACHE_LINE = 64,
    GUIDED_SHARE = 2,                 /* a claim takes 1/(GUIDED_SHARE * workers) of what is open */
    SPIN_CLOCK_EVERY = 8,             /* read the clock once per this many spins */
    WAKE_FAN_OUT = 2,                 /* sleepers one thread wakes for a job */
};
/* Spin budgets. A waiting thread pauses for SPIN_PAUSE_NS, then yields; an
 * idle worker sleeps after WORKER_SPIN_NS, the finishing thread after
 * FINISH_SPIN_NS. A world step issues its parallel loops tens of microseconds
 * apart: workers stay awake through a step and fall asleep between frames.
 * Yielding early matters when the machine is busy: a yield can hand the core
 * to another process for a whole time slice (milliseconds), so a pool that
 * fits the machine pauses first. A pool with more threads than online CPUs
 * pauses only briefly, so that spinning threads do not hold cores that busy
 * ones need. */
static const int64_t SPIN_PAUSE_NS = 100000;
static const int64_t SPIN_PAUSE_OVERSUBSCRIBED_NS = 2000;
static const int64_t WORKER_SPIN_NS = 200000;
static const int64_t FINISH_SPIN_NS = 1000000;

typedef struct worker_arg {
    struct eddy_pool *pool;
    int worker_index;
} worker_arg;

struct eddy_pool {
    /* Hot, written by every claim: (generation << 32) | remaining items. */
    _Alignas(CACHE_LINE) _Atomic uint64_t claim;
    /* Hot, written at the end of every range. */
    _Alignas(CACHE_LINE) atomic_int done;
    atomic_int finisher_waiting;
    /* The current job: written by enqueue before it publishes a generation. */
    _Alignas(CACHE_LINE) eddy_task_fn *task;
    void *task_context;
    int item_count;
    int unit_items;        /* items per claim unit (1 below CLAIM_UNITS_MAX) */
    atomic_int claim_floor; /* fewest units per claim (min_range), read before a claim */
    atomic_int sleepers;
    atomic_bool stop;
    /* Cold. */
    _Alignas(CACHE_LINE) eddy_mutex *lock;     /* guards the sleeps below */
    eddy_cond *wake;                           /* new generation or stop */
    eddy_cond *caller_wake;                    /* job done, or a worker started */
    int started;                               /* workers past worker_start (lock) */
    eddy_mutex *job_lock;                      /* held from enqueue to finish */
    int worker_count;
    int thread_count;                          /* threads created */
    eddy_worker_start_fn *worker_start;
    void *worker_start_context;
    int64_t pause_ns;                          /* spinner pause phase */
    eddy_thread *threads[EDDY_MAX_WORKERS];
    worker_arg args[EDDY_MAX_WORKERS];
};

/* The pool task running on this thread, if any: lets a nested enqueue on the
 * same pool run inline instead of deadlocking on job_lock. */
typedef struct pool_frame {
    const eddy_pool *pool;
    int worker_index;
} pool_frame;
static _Thread_local pool_frame current_frame;

/* ---------------------------------------------------------------- helpers */

/* A bounded spin: CPU pauses for the first pause_ns (the gap between a step's
 * loops is usually shorter), then a yield so that other threads, ours when
 * oversubscribed, can run, until budget_ns is spent. */
typedef struct spinner {
    int iteration;
    bool yielding;
    int64_t start_ns; /* 0 until the first clock read */
    int64_t pause_ns;
    int64_t budget_ns;
} spinner;

/* One step of the spin. Returns false once the budget is spent. */
static bool spinner_step(spinner *s) {
    if (s->yielding) {
        eddy_thread_yield();
    } else {
        eddy_cpu_relax();
    }
    if (s->iteration++ % SPIN_CLOCK_EVERY != 0) {
        return true;
    }
    int64_t t = eddy_monotonic_ns();
    if (s->start_ns == 0) {
        s->start_ns = t;
    }
    s->yielding = t - s->start_ns >= s->pause_ns;
    return t - s->start_ns < s->budget_ns;
}

enum { CLAIM_END_BITS = 20, CLAIM_UNITS_MAX = (1 << CLAIM_END_BITS) - 1 };
static const uint64_t CLAIM_END_MASK = CLAIM_UNITS_MAX;

static uint32_t claim_generation(uint64_t word) { return (uint32_t)(word >> (2 * CLAIM_END_BITS)); }
static uint32_t claim_front(uint64_t word) { return (uint32_t)((word >> CLAIM_END_BITS) & CLAIM_END_MASK); }
static uint32_t claim_back(uint64_t word) { return (uint32_t)(word & CLAIM_END_MASK); }
static uint32_t claim_remaining(uint64_t word) { return claim_back(word) - claim_front(word); }
static uint64_t claim_word(uint32_t generation, uint32_t front, uint32_t back) {
    return ((uint64_t)generation << (2 * CLAIM_END_BITS)) | ((uint64_t)front << CLAIM_END_BITS) | back;
}

/* Run task items [start, end) on this thread, marking it as inside the pool. */
static void range_run(eddy_pool *pool, eddy_task_fn *task, void *context, int start, int end,
                      int worker_index) {
    pool_frame saved = current_frame;
    current_frame = (pool_frame){pool, worker_index};
    task(start, end, worker_index, context);
    current_frame = saved;
}

/* ---------------------------------------------------------------- claiming */

/* A successful claim of units [first, first + take): run their items and
 * count them done; wake the finishing thread if it sleeps on the last one. */
static void claimed_range_run(eddy_pool *pool, uint32_t first, uint32_t take, int worker_index) {
    int count = pool->item_count;
    int64_t start = (int64_t)first * pool->unit_items;
    int64_t end = (int64_t)(first + take) * pool->unit_items;
    if (end > count) end = count;
    range_run(pool, pool->task, pool->task_context, (int)start, (int)end, worker_index);
    int done = atomic_fetch_add(&pool->done, (int)(end - start)) + (int)(end - start);
    if (done == count && atomic_load(&pool->finisher_waiting) != 0) {
        eddy_mutex_lock(pool->lock);
        eddy_cond_broadcast(pool->caller_wake);
        eddy_mutex_unlock(pool->lock);
    }
}

/* Claim and run ranges until the published job has none left: worker 0 from
 * the front, the others from the back. Returns the generation found
 * exhausted. */
static uint32_t job_drain(eddy_pool *pool, int worker_index) {
    const bool from_front = worker_index == 0;
    uint64_t word = atomic_load_explicit(&pool->claim, memory_order_acquire);
    for (;;) {
        const uint32_t front = claim_front(word), back = claim_back(word);
        if (front >= back) {
            return claim_generation(word);
        }
        const uint32_t open = back - front;
        const uint32_t least = (uint32_t)atomic_load_explicit(&pool->claim_floor, memory_order_relaxed);
        const uint32_t share = (uint32_t)(GUIDED_SHARE * pool->worker_count);
        uint32_t take = (open + share - 1u) / share;
        take = take > least ? take : least;
        if (take >= open || open - take < least) take = open; /* no range shorter than min_range */
        const uint32_t first = from_front ? front : back - take;
        const uint64_t claimed = from_front ? claim_word(claim_generation(word), front + take, back)
                                            : claim_word(claim_generation(word), front, back - take);
        if (atomic_compare_exchange_weak_explicit(&pool->claim, &word, claimed,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire)) {
            claimed_range_run(pool, first, take, worker_index);
            word = atomic_load_explicit(&pool->claim, memory_order_acquire);
        }
    }
}

/* Wake up to `count` sleeping workers. Callers publish a generation first;
 * that store and a sleeper's increment before its re-check are both seq_cst,
 * so either the sleeper sees the job or we see the sleeper. */
static void workers_wake(eddy_pool *pool, int count) {
    int sleepers = atomic_load(&pool->sleepers);
    if (sleepers == 0 || count <= 0) {
        return;
    }
    eddy_mutex_lock(pool->lock);
    if (count >= sleepers) {
        eddy_cond_broadcast(pool->wake);
    } else {
        for (int i = 0; i < count; ++i) {
            eddy_cond_signal(pool->wake);
        }
    }
    eddy_mutex_unlock(pool->lock);
}

/* Claims still open in the published job (a snapshot; it may already be stale). */
static int claims_open(eddy_pool *pool) {
    uint32_t remaining = claim_remaining(atomic_load(&pool->claim));
    uint32_t per_claim = (uint32_t)atomic_load_explicit(&pool->claim_floor, memory_order_relaxed);
    return (int)((remaining + per_claim - 1) / per_claim);
}

/* Wake helpers for the open claims beyond the one this thread is about to
 * take, at most WAKE_FAN_OUT. Every worker woken from sleep does the same, so
 * wake-ups fan out as a tree and stop when the work runs out: a tiny job that
 * the caller finishes alone wakes one or two threads, not the whole pool. */
static void helpers_wake(eddy_pool *pool) {
    int wanted = claims_open(pool) - 1;
    workers_wake(pool, wanted < WAKE_FAN_OUT ? wanted : WAKE_FAN_OUT);
}

/* ---------------------------------------------------------------- workers */

static bool job_published(eddy_pool *pool, uint32_t seen) {
    return claim_generation(atomic_load(&pool->claim)) != seen;
}

typedef enum wait_result { WAIT_STOP, WAIT_SPUN, WAIT_SLEPT } wait_result;

/* Wait for a generation other than `seen`, spinning, then sleeping. */
static wait_result job_wait(eddy_pool *pool, uint32_t seen) {
    spinner spin = {.pause_ns = pool->pause_ns, .budget_ns = WORKER_SPIN_NS};
    do {
        if (atomic_load_explicit(&pool->stop, memory_order_relaxed)) {
            return WAIT_STOP;
        }
        if (job_published(pool, seen)) {
            return WAIT_SPUN;
        }
    } while (spinner_step(&spin));

    eddy_mutex_lock(pool->lock);
    atomic_fetch_add(&pool->sleepers, 1);
    while (!atomic_load(&pool->stop) && !job_published(pool, seen)) {
        eddy_cond_wait(pool->wake, pool->lock);
    }
    atomic_fetch_sub(&pool->sleepers, 1);
    bool stopping = atomic_load(&pool->stop);
    eddy_mutex_unlock(pool->lock);
    return stopping ? WAIT_STOP : WAIT_SLEPT;
}

static void worker_main(void *arg) {
    const worker_arg *self = arg;
    eddy_pool *pool = self->pool;
    if (pool->worker_start != NULL) {
        pool->worker_start(self->worker_index, pool->worker_start_context);
    }
    eddy_mutex_lock(pool->lock);
    pool->started += 1;
    eddy_cond_broadcast(pool->caller_wake);
    eddy_mutex_unlock(pool->lock);

    uint32_t seen = 0;
    for (;;) {
        wait_result waited = job_wait(pool, seen);
        if (waited == WAIT_STOP) {
            return;
        }
        if (waited == WAIT_SLEPT) {
            helpers_wake(pool);
        }
        seen = job_drain(pool, self->worker_index);
    }
}

/* ---------------------------------------------------------------- lifetime */

eddy_pool_def eddy_pool_def_default(void) {
    /* One worker: the library never spawns threads unless asked to. */
    eddy_pool_def def = {.worker_count = 1, .worker_start = NULL, .worker_start_context = NULL};
    return def;
}

static eddy_pool *pool_alloc(const eddy_pool_def *def) {
    size_t size = (sizeof(eddy_pool) + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    eddy_pool *pool = eddy_aligned_alloc(CACHE_LINE, size);
    if (pool == NULL) {
        return NULL;
    }
    memset(pool, 0, size);
    atomic_init(&pool->claim, 0);
    atomic_init(&pool->done, 0);
    atomic_init(&pool->finisher_waiting, 0);
    atomic_init(&pool->claim_floor, 1);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->stop, false);
    pool->worker_count = def->worker_count;
    int cpus = eddy_cpu_count_online(); /* a spin hint only, never a thread count */
    bool fits = cpus < 1 || def->worker_count <= cpus;
    pool->pause_ns = fits ? SPIN_PAUSE_NS : SPIN_PAUSE_OVERSUBSCRIBED_NS;
    pool->worker_start = def->worker_start;
    pool->worker_start_context = def->worker_start_context;
    return pool;
}

static bool pool_sync_init(eddy_pool *pool) {
    pool->lock = eddy_mutex_create();
    pool->job_lock = eddy_mutex_create();
    pool->wake = eddy_cond_create();
    pool->caller_wake = eddy_cond_create();
    return pool->lock != NULL && pool->job_lock != NULL && pool->wake != NULL &&
           pool->caller_wake != NULL;
}

static void pool_sync_destroy(eddy_pool *pool) {
    eddy_cond_destroy(pool->caller_wake);
    eddy_cond_destroy(pool->wake);
    eddy_mutex_destroy(pool->job_lock);
    eddy_mutex_destroy(pool->lock);
}

/* Ask every created thread to leave, join them, free everything. */
static void pool_teardown(eddy_pool *pool) {
    atomic_store(&pool->stop, true);
    eddy_mutex_lock(pool->lock);
    eddy_cond_broadcast(pool->wake);
    eddy_mutex_unlock(pool->lock);
    for (int i = 0; i < pool->thread_count; ++i) {
        eddy_thread_join(pool->threads[i]);
    }
    pool_sync_destroy(pool);
    eddy_aligned_free(pool);
}

static bool threads_start(eddy_pool *pool, bool *out_of_memory) {
    for (int index = 1; index < pool->worker_count; ++index) {
        worker_arg *arg = &pool->args[pool->thread_count];
        *arg = (worker_arg){pool, index};
        pool->threads[pool->thread_count] = eddy_thread_start(worker_main, arg, out_of_memory);
        if (pool->threads[pool->thread_count] == NULL) {
            return false;
        }
        pool->thread_count += 1;
    }
    return true;
}

/* Return once every worker has run its worker_start hook. */
static void threads_wait_started(eddy_pool *pool) {
    eddy_mutex_lock(pool->lock);
    while (pool->started < pool->thread_count) {
        eddy_cond_wait(pool->caller_wake, pool->lock);
    }
    eddy_mutex_unlock(pool->lock);
}

eddy_status eddy_pool_create(const eddy_pool_def *def, eddy_pool **out) {
    if (out == NULL) {
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (def == NULL || def->worker_count < 1 || def->worker_count > EDDY_MAX_WORKERS) {
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_pool *pool = pool_alloc(def);
    if (pool == NULL) {
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    if (!pool_sync_init(pool)) { /* their memory is all they can lack */
        pool_sync_destroy(pool);
        eddy_aligned_free(pool);
        return EDDY_ERROR_OUT_OF_MEMORY;
    }
    bool out_of_memory = false;
    if (!threads_start(pool, &out_of_memory)) {
        pool_teardown(pool);
        return out_of_memory ? EDDY_ERROR_OUT_OF_MEMORY : EDDY_ERROR_THREAD;
    }
    threads_wait_started(pool);
    *out = pool;
    return EDDY_OK;
}

void eddy_pool_destroy(eddy_pool *pool) {
    if (pool != NULL) {
        pool_teardown(pool);
    }
}

int eddy_pool_worker_count(const eddy_pool *pool) {
    return pool != NULL ? pool->worker_count : 1; /* NULL: the calling thread alone */
}

/* ---------------------------------------------------------------- jobs */


static void job_publish(eddy_pool *pool, eddy_task_fn *task, int item_count, int unit_items,
                        int claim_floor, void *task_context) {
    pool->task = task;
    pool->task_context = task_context;
    pool->item_count = item_count;
    pool->unit_items = unit_items;
    atomic_store_explicit(&pool->claim_floor, claim_floor, memory_order_relaxed);
    atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
    uint64_t old = atomic_load_explicit(&pool->claim, memory_order_relaxed);
    EDDY_DEBUG_ASSERT(claim_remaining(old) == 0);
    const uint32_t generation = (claim_generation(old) + 1u) & 0xffffffu;
    const uint32_t units = (uint32_t)(((int64_t)item_count + unit_items - 1) / unit_items);
    atomic_store(&pool->claim, claim_word(generation, 0, units));
}

void *eddy_pool_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                        void *user_pool) {
    eddy_pool *pool = user_pool;
    EDDY_ASSERT(pool != NULL && task != NULL);
    if (item_count <= 0) {
        return NULL;
    }
    if (current_frame.pool == pool) {
        /* Nested in a task of this pool: its workers are busy with us. */
        task(0, item_count, current_frame.worker_index, task_context);
        return NULL;
    }
    eddy_mutex_lock(pool->job_lock);
    const int unit_items = (int)(((int64_t)item_count + CLAIM_UNITS_MAX - 1) / CLAIM_UNITS_MAX);
    const int units = (int)(((int64_t)item_count + unit_items - 1) / unit_items);
    const int min_units = (int)(((int64_t)min_range + unit_items - 1) / unit_items);
    const int claim_floor = min_units > 1 ? min_units : 1;
    if (pool->worker_count == 1 || units <= claim_floor) {
        range_run(pool, task, task_context, 0, item_count, 0);
        eddy_mutex_unlock(pool->job_lock);
        return NULL;
    }
    job_publish(pool, task, item_count, unit_items, claim_floor, task_context);
    helpers_wake(pool);
    return pool;
}

/* Wait until every item of the current job is done. */
static void job_wait_done(eddy_pool *pool) {
    int count = pool->item_count;
    spinner spin = {.pause_ns = pool->pause_ns, .budget_ns = FINISH_SPIN_NS};
    do {
        if (atomic_load_explicit(&pool->done, memory_order_acquire) == count) {
            return;
        }
    } while (spinner_step(&spin));

    eddy_mutex_lock(pool->lock);
    atomic_store(&pool->finisher_waiting, 1);
    while (atomic_load(&pool->done) != count) {
        eddy_cond_wait(pool->caller_wake, pool->lock);
    }
    atomic_store(&pool->finisher_waiting, 0);
    eddy_mutex_unlock(pool->lock);
}

void eddy_pool_finish(void *user_task, void *user_pool) {
    eddy_pool *pool = user_pool;
    EDDY_ASSERT(pool != NULL && user_task == pool);
    job_drain(pool, 0);
    job_wait_done(pool);
    eddy_mutex_unlock(pool->job_lock);
}
