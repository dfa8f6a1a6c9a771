/* SPDX-License-Identifier: MIT */
/* The allocator hook (include/eddy/base.h, lib/runtime/alloc.c).
 *
 * This test links libeddy and libeddy_replay statically with the C
 * allocator wrapped at link time (-Wl,--wrap=malloc,calloc,realloc,free,
 * aligned_alloc, CMakeLists.txt): while `g_armed` is set, any call that
 * reaches the C library from eddy's code (or from zstd's contexts, which eddy
 * gives its allocator) instead of the hook fails the test. It is armed only
 * around calls into eddy: the scene builders are test code and use malloc.
 *
 * Three properties:
 * 1. a counting allocator sees every allocation (and every block is freed);
 * 2. a steady-state step allocates nothing: frames 100-200 of plume_plate and
 *    noise_cloud, at 1 and 4 workers, in a world that reserved
 *    (eddy_world_reserve) the peak counts a first run of the scene reached;
 * 3. an allocator that fails at the N-th call, for every N that create, add,
 *    step, snapshot, restore and recording reach, gives
 *    EDDY_ERROR_OUT_OF_MEMORY; the world is then unchanged (same snapshot
 *    bytes) and usable (it steps on to the reference hashes). A step makes
 *    room for what it can reach before it changes anything (lib/world.c,
 *    "room ahead of a step"), so a failed step leaves the world as it was and
 *    its next step gives the hashes of a world that never failed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "eddy/eddy.h"
#include "eddy/replay.h"
#include "eddy/snapshot.h"
#include "scenes.h"

#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the wrap */
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__real_aligned_alloc(size_t alignment, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t alignment, size_t size);

static atomic_bool g_armed;
static atomic_int g_bypasses;

/* Counts a bypass; EDDY_ALLOC_TRACE=1 prints the caller's address (addr2line -e test_alloc). */
static void bypass(const void *caller) {
    if (!atomic_load(&g_armed)) return;
    atomic_fetch_add(&g_bypasses, 1);
    if (getenv("EDDY_ALLOC_TRACE")) fprintf(stderr, "bypass from %p (bypass at %p)\n", caller, (const void *)&bypass);
}
#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))
void *__wrap_malloc(size_t size) { bypass(CALLER); return __real_malloc(size); }
void *__wrap_calloc(size_t count, size_t size) { bypass(CALLER); return __real_calloc(count, size); }
void *__wrap_realloc(void *p, size_t size) { bypass(CALLER); return __real_realloc(p, size); }
void __wrap_free(void *p) { if (p) bypass(CALLER); __real_free(p); }
void *__wrap_aligned_alloc(size_t alignment, size_t size) {
    bypass(CALLER);
    return __real_aligned_alloc(alignment, size);
}

/* ---------------------------------------------------------------- the hook */
typedef struct counter {
    atomic_llong calls;     /* alloc + aligned_alloc */
    atomic_llong live;      /* blocks not yet freed */
    atomic_llong fail_at;   /* the call that fails (1-based), 0: none */
} counter;
static counter g_count;

static atomic_bool g_trace; /* EDDY_ALLOC_TRACE: print where steady-state allocations come from */
static void trace_here(void) {
    if (!atomic_load(&g_trace)) return;
    void *frames[8];
    int n = backtrace(frames, 8);
    backtrace_symbols_fd(frames, n, 2);
}

static void *count_alloc(size_t size, void *user) {
    trace_here();
    counter *c = user;
    long long n = atomic_fetch_add(&c->calls, 1) + 1;
    if (n == atomic_load(&c->fail_at)) return NULL;
    void *p = __real_malloc(size);
    if (p) atomic_fetch_add(&c->live, 1);
    return p;
}

static void *count_aligned_alloc(size_t size, size_t alignment, void *user) {
    counter *c = user;
    long long n = atomic_fetch_add(&c->calls, 1) + 1;
    if (n == atomic_load(&c->fail_at)) return NULL;
    size = (size + alignment - 1) / alignment * alignment;
    void *p = __real_aligned_alloc(alignment, size);
    if (p) atomic_fetch_add(&c->live, 1);
    return p;
}

static void count_free(void *memory, void *user) {
    counter *c = user;
    cr_assert(memory != NULL, "eddy passed NULL to the free hook");
    atomic_fetch_sub(&c->live, 1);
    __real_free(memory);
}

static void hook_setup(void) {
    memset(&g_count, 0, sizeof g_count);
    atomic_store(&g_bypasses, 0);
    const eddy_allocator a = {count_alloc, count_aligned_alloc, count_free, &g_count};
    cr_assert_eq(eddy_set_allocator(&a), EDDY_OK);
}

static void arm(void) { atomic_store(&g_armed, true); }
static void disarm(void) { atomic_store(&g_armed, false); }
static long long calls(void) { return atomic_load(&g_count.calls); }
static void fail_at(long long n) { atomic_store(&g_count.fail_at, n); }

/* ---------------------------------------------------------------- helpers */
/* The grid the scene worlds take (a test runs in a process of its own). */
static eddy_grid_extent g_grid_extent = EDDY_GRID_EXTENT_VORTONS;

static eddy_world *scene_world(const char *scene, int workers) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    base.grid_extent = g_grid_extent;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK, "%s: %s", scene,
                 eddy_last_error_message());
    return w;
}

static eddy_status step_scene(eddy_world *w, const char *scene) {
    eddy_scene_input in;
    const eddy_input *input = eddy_scene_input_for(scene, eddy_world_frame(w), &in);
    arm();
    eddy_status s = eddy_world_step(w, input);
    disarm();
    return s;
}

static uint64_t hash_of(eddy_world *w) { return eddy_world_hash(w).frame_hash; }

/* eddy's snapshot of w (through the hook, armed). */
static eddy_bytes snap_of(eddy_world *w) {
    eddy_bytes b = {0};
    arm();
    eddy_status s = eddy_world_snapshot(w, &b);
    disarm();
    cr_assert_eq(s, EDDY_OK);
    return b;
}

static void expect_same_bytes(const eddy_bytes *a, const eddy_bytes *b, const char *what) {
    cr_assert_eq(a->size, b->size, "%s: snapshot size %zu, was %zu", what, b->size, a->size);
    cr_assert(memcmp(a->data, b->data, a->size) == 0, "%s: the world changed", what);
}

/* ---------------------------------------------------------------- 1. every allocation */
Test(alloc, the_hook_sees_every_allocation_and_every_block_comes_back) {
    hook_setup();
    eddy_world *w = scene_world("plume_plate", 4);
    cr_assert_gt(calls(), 0, "creating a world allocated nothing through the hook");
    for (int f = 0; f < 20; ++f) cr_assert_eq(step_scene(w, "plume_plate"), EDDY_OK);
    eddy_bytes snap = snap_of(w);
    char message[256];
    arm();
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_OK);
    /* a replay recorded to memory and read back by a player */
    eddy_bytes file = {0};
    eddy_recorder *r = NULL;
    eddy_recorder_def rd = eddy_recorder_def_default();
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, &file, &r, message, sizeof message), EDDY_OK);
    for (int f = 0; f < 5; ++f) cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_OK);
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_player *p = NULL;
    cr_assert_eq(eddy_player_open_memory(file.data, file.size, NULL, &p, message, sizeof message),
                 EDDY_OK, "%s", message);
    eddy_player_close(p);
    eddy_world_destroy(w);
    eddy_bytes_free(&snap);
    eddy_bytes_free(&file);
    disarm();
    cr_expect_eq(atomic_load(&g_bypasses), 0, "%d allocations bypassed the hook",
                 atomic_load(&g_bypasses));
    cr_expect_eq(atomic_load(&g_count.live), 0, "%lld blocks never came back",
                 (long long)atomic_load(&g_count.live));
    cr_expect_eq(eddy_set_allocator(NULL), EDDY_OK);
}

Test(alloc, the_hook_cannot_change_under_live_blocks) {
    hook_setup();
    eddy_world *w = scene_world("vortex_ring", 1);
    cr_expect_eq(eddy_set_allocator(NULL), EDDY_ERROR_WRONG_STATE);
    eddy_world_destroy(w);
    cr_expect_eq(eddy_set_allocator(NULL), EDDY_OK);
    const eddy_allocator half = {count_alloc, NULL, count_free, &g_count};
    cr_expect_eq(eddy_set_allocator(&half), EDDY_ERROR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- 2. steady state */
typedef struct steady_case {
    char scene[24];
    int workers;
    eddy_grid_extent grid; /* the cubic cells reserve their own bound (core.h) */
} steady_case;

ParameterizedTestParameters(alloc, a_steady_state_step_allocates_nothing) {
    static steady_case cases[] = {
        {"plume_plate", 1, EDDY_GRID_EXTENT_VORTONS},
        {"plume_plate", 4, EDDY_GRID_EXTENT_VORTONS},
        {"noise_cloud", 1, EDDY_GRID_EXTENT_VORTONS},
        {"noise_cloud", 4, EDDY_GRID_EXTENT_VORTONS},
        {"plume_plate", 2, EDDY_GRID_EXTENT_VORTONS_CUBIC}};
    return cr_make_param_array(steady_case, cases, sizeof cases / sizeof cases[0]);
}

enum { STEADY_FRAMES = 200 };

/* The most vortons and tracers a run of the scene holds after any of its
 * first STEADY_FRAMES steps, and the most one step added; with the hashes
 * of frames 101-200. */
typedef struct peak {
    int vortons, tracers, vorton_step, tracer_step;
    uint64_t hash[STEADY_FRAMES];
} peak;

static void peak_run(const char *scene, int workers, peak *p) {
    eddy_world *w = scene_world(scene, workers);
    memset(p, 0, sizeof *p);
    for (int f = 0; f < STEADY_FRAMES; ++f) {
        const int v = eddy_world_vorton_count(w), t = eddy_world_tracer_count(w);
        cr_assert_eq(step_scene(w, scene), EDDY_OK);
        const int v1 = eddy_world_vorton_count(w), t1 = eddy_world_tracer_count(w);
        p->vortons = v1 > p->vortons ? v1 : p->vortons;
        p->tracers = t1 > p->tracers ? t1 : p->tracers;
        p->vorton_step = v1 - v > p->vorton_step ? v1 - v : p->vorton_step;
        p->tracer_step = t1 - t > p->tracer_step ? t1 - t : p->tracer_step;
        p->hash[f] = hash_of(w);
    }
    eddy_world_destroy(w);
}

ParameterizedTest(steady_case *c, alloc, a_steady_state_step_allocates_nothing, .timeout = 600) {
    hook_setup();
    g_grid_extent = c->grid;
    /* A first run gives the peak counts (a game would take them from a
     * playtest); the world then reserves them plus one step's growth and
     * a margin for the emitters' rounding (eddy.h, eddy_world_reserve:
     * "the peak counts of a run plus one step's emission"). */
    static peak p;
    peak_run(c->scene, c->workers, &p);
    eddy_world *w = scene_world(c->scene, c->workers);
    const int vortons = p.vortons + p.vorton_step + 64, tracers = p.tracers + p.tracer_step + 64;
    arm();
    cr_assert_eq(eddy_world_reserve(w, vortons, tracers), EDDY_OK, "%s", eddy_world_error_message(w));
    disarm();
    for (int f = 0; f < 100; ++f) cr_assert_eq(step_scene(w, c->scene), EDDY_OK);
    const long long before = calls();
    const int v100 = eddy_world_vorton_count(w), t100 = eddy_world_tracer_count(w);
    if (getenv("EDDY_ALLOC_TRACE")) {
        void *warm[1];
        backtrace(warm, 1); /* loads libgcc before anything is traced */
        atomic_store(&g_trace, true);
    }
    for (int f = 100; f < STEADY_FRAMES; ++f) {
        cr_assert_eq(step_scene(w, c->scene), EDDY_OK);
        cr_assert_eq(hash_of(w), p.hash[f], "%s at %d workers: frame %d differs with the "
                     "reservation", c->scene, c->workers, f + 1);
    }
    atomic_store(&g_trace, false);
    cr_log_info("%s at %d workers: reserved %d vortons + %d tracers; frames 100-200 go from %d + %d "
                "to %d + %d with %lld allocations", c->scene, c->workers, vortons, tracers, v100,
                t100, eddy_world_vorton_count(w), eddy_world_tracer_count(w), calls() - before);
    cr_expect_eq(calls() - before, 0,
                 "%s at %d workers: %lld allocations over frames 100-200 (vortons %d -> %d, "
                 "tracers %d -> %d) with %d + %d reserved",
                 c->scene, c->workers, calls() - before, v100, eddy_world_vorton_count(w), t100,
                 eddy_world_tracer_count(w), vortons, tracers);
    cr_expect_eq(atomic_load(&g_bypasses), 0, "%s: allocations bypassed the hook", c->scene);
    eddy_world_destroy(w);
}

Test(alloc, reserve_refuses_bad_counts_and_changes_no_state) {
    hook_setup();
    eddy_world *w = scene_world("vortex_ring", 1);
    eddy_bytes before = snap_of(w);
    cr_expect_eq(eddy_world_reserve(w, -1, 0), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_reserve(w, 0, INT32_MAX), EDDY_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(eddy_world_reserve(NULL, 1, 1), EDDY_ERROR_INVALID_ARGUMENT);
    arm();
    cr_expect_eq(eddy_world_reserve(w, 5000, 20000), EDDY_OK);
    disarm();
    const long long start = calls();
    for (long long n = 1;; ++n) { /* a failure at every allocation of a larger reservation */
        fail_at(calls() + n);
        arm();
        const eddy_status s = eddy_world_reserve(w, 9000, 40000);
        disarm();
        fail_at(0);
        if (s == EDDY_OK) break;
        cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "reserve failing at %lld", n);
    }
    cr_expect_gt(calls(), start);
    eddy_bytes after = snap_of(w);
    expect_same_bytes(&before, &after, "a reservation");
    eddy_bytes_free(&before);
    eddy_bytes_free(&after);
    eddy_world_destroy(w);
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

/* ---------------------------------------------------------------- 3. failure at every N */
enum { FAIL_SCENE_WORKERS = 2, AFTER = 3 };
static const char *const FAIL_SCENE = "ball_through_smoke";

/* Hashes of frames [from + 1, from + AFTER] stepped from w's state. */
static void hashes_after(eddy_world *w, uint64_t out[AFTER]) {
    for (int k = 0; k < AFTER; ++k) {
        cr_assert_eq(step_scene(w, FAIL_SCENE), EDDY_OK, "%s", eddy_world_error_message(w));
        out[k] = hash_of(w);
    }
}

static void expect_usable(eddy_world *w, const eddy_bytes *ref_snap, const uint64_t ref[AFTER],
                          const char *what, long long n) {
    eddy_bytes now = snap_of(w);
    expect_same_bytes(ref_snap, &now, what);
    eddy_bytes_free(&now);
    uint64_t got[AFTER];
    hashes_after(w, got);
    for (int k = 0; k < AFTER; ++k)
        cr_assert_eq(got[k], ref[k], "%s failing at allocation %lld: frame +%d differs", what, n,
                     k + 1);
}

/* A world of FAIL_SCENE stepped `frames` frames, with its snapshot and the
 * hashes of the AFTER frames that follow. */
static eddy_world *reference(int frames, eddy_bytes *snap, uint64_t ref[AFTER]) {
    eddy_world *w = scene_world(FAIL_SCENE, FAIL_SCENE_WORKERS);
    for (int f = 0; f < frames; ++f) cr_assert_eq(step_scene(w, FAIL_SCENE), EDDY_OK);
    *snap = snap_of(w);
    eddy_world *probe = scene_world(FAIL_SCENE, FAIL_SCENE_WORKERS);
    char message[256];
    cr_assert_eq(eddy_world_restore(probe, snap->data, snap->size, message, sizeof message), EDDY_OK);
    hashes_after(probe, ref);
    eddy_world_destroy(probe);
    return w;
}

Test(alloc, create_fails_cleanly_at_every_allocation) {
    hook_setup();
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = 4;
    eddy_world *w = NULL;
    const long long before = calls();
    arm();
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    eddy_world_destroy(w);
    const long long total = calls() - before;
    cr_assert_gt(total, 1);
    for (long long n = 1; n <= total; ++n) {
        fail_at(calls() + n);
        w = (eddy_world *)1;
        cr_expect_eq(eddy_world_create(&d, &w), EDDY_ERROR_OUT_OF_MEMORY, "failing at %lld", n);
        cr_expect(w == NULL);
        fail_at(0);
    }
    disarm();
    cr_expect_eq(atomic_load(&g_count.live), 0, "a failed create leaked %lld blocks",
                 (long long)atomic_load(&g_count.live));
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

Test(alloc, add_fails_cleanly_at_every_allocation) {
    hook_setup();
    eddy_world_def d = eddy_world_def_default();
    eddy_vorton v[64];
    eddy_tracer t[300];
    for (int i = 0; i < 64; ++i)
        v[i] = (eddy_vorton){{0.01f * (float)i, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, 0};
    for (int i = 0; i < 300; ++i)
        t[i] = (eddy_tracer){{0.0f, 0.01f * (float)i, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f, 0};
    for (int kind = 0; kind < 2; ++kind) {
        long long total = 0;
        for (long long n = 0;; ++n) {
            eddy_world *w = NULL;
            cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
            cr_assert_eq(eddy_world_add_vortons(w, v, 8), EDDY_OK); /* some already held */
            eddy_bytes before = snap_of(w);
            const long long start = calls();
            fail_at(n ? start + n : 0);
            arm();
            eddy_status s = kind ? eddy_world_add_tracers(w, t, 300) : eddy_world_add_vortons(w, v, 64);
            disarm();
            fail_at(0);
            if (n == 0) {
                cr_assert_eq(s, EDDY_OK);
                total = calls() - start;
            } else {
                cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "add failing at %lld", n);
                eddy_bytes after = snap_of(w);
                expect_same_bytes(&before, &after, "a failed add");
                eddy_bytes_free(&after);
                cr_expect_eq(eddy_world_add_vortons(w, v, 64), EDDY_OK, "%s",
                             eddy_world_error_message(w));
                cr_expect_eq(eddy_world_step(w, NULL), EDDY_OK);
            }
            eddy_bytes_free(&before);
            eddy_world_destroy(w);
            if (n >= total) break;
        }
        cr_assert_gt(total, 0);
    }
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

Test(alloc, snapshot_and_restore_fail_cleanly_at_every_allocation, .timeout = 300) {
    hook_setup();
    eddy_bytes ref_snap;
    uint64_t ref[AFTER];
    eddy_world *w = reference(10, &ref_snap, ref);
    char message[256];
    /* snapshot into an empty buffer: its one growth path */
    long long start = calls();
    eddy_bytes b = snap_of(w);
    const long long snap_total = calls() - start;
    eddy_bytes_free(&b);
    cr_assert_gt(snap_total, 0);
    for (long long n = 1; n <= snap_total; ++n) {
        eddy_bytes out = {0};
        fail_at(calls() + n);
        arm();
        cr_expect_eq(eddy_world_snapshot(w, &out), EDDY_ERROR_OUT_OF_MEMORY, "snapshot at %lld", n);
        disarm();
        fail_at(0);
        eddy_bytes_free(&out);
    }
    /* restore into a fresh world (a restore in place allocates nothing) */
    long long restore_total = 0;
    for (long long n = 0;; ++n) {
        eddy_world *fresh = scene_world(FAIL_SCENE, FAIL_SCENE_WORKERS);
        eddy_bytes before = snap_of(fresh);
        start = calls();
        fail_at(n ? start + n : 0);
        arm();
        eddy_status s = eddy_world_restore(fresh, ref_snap.data, ref_snap.size, message, sizeof message);
        disarm();
        fail_at(0);
        if (n == 0) {
            cr_assert_eq(s, EDDY_OK, "%s", message);
            restore_total = calls() - start;
        } else {
            cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "restore at %lld: %s", n, message);
            eddy_bytes after = snap_of(fresh);
            expect_same_bytes(&before, &after, "a failed restore");
            eddy_bytes_free(&after);
            arm();
            cr_assert_eq(eddy_world_restore(fresh, ref_snap.data, ref_snap.size, message, sizeof message),
                         EDDY_OK, "%s", message);
            disarm();
            expect_usable(fresh, &ref_snap, ref, "restore", n);
        }
        eddy_bytes_free(&before);
        eddy_world_destroy(fresh);
        if (n >= restore_total) break;
    }
    cr_assert_gt(restore_total, 0);
    expect_usable(w, &ref_snap, ref, "snapshot", 0);
    eddy_world_destroy(w);
    eddy_bytes_free(&ref_snap);
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

/* A world of FAIL_SCENE at `frames` (a fresh one at 0, else the reference
 * snapshot restored into a fresh world: its arrays then hold the counts of
 * that frame only, and the step grows them). */
static eddy_world *fail_world(int frames, const eddy_bytes *snap) {
    eddy_world *w = scene_world(FAIL_SCENE, FAIL_SCENE_WORKERS);
    char message[256];
    if (frames > 0)
        cr_assert_eq(eddy_world_restore(w, snap->data, snap->size, message, sizeof message),
                     EDDY_OK, "%s", message);
    return w;
}

/* For every allocation n the step from `frames` makes: failing there gives
 * EDDY_ERROR_OUT_OF_MEMORY with the world unchanged (the same snapshot
 * bytes, the same frame) and usable: its next steps give the hashes of a
 * world that never failed. */
static void step_fails_cleanly(int frames) {
    hook_setup();
    eddy_bytes ref_snap;
    uint64_t ref[AFTER];
    eddy_world *probe = reference(frames, &ref_snap, ref);
    eddy_world_destroy(probe);
    probe = fail_world(frames, &ref_snap);
    long long start = calls();
    cr_assert_eq(step_scene(probe, FAIL_SCENE), EDDY_OK);
    const long long total = calls() - start;
    eddy_world_destroy(probe);
    cr_assert_gt(total, 0);
    int refused = 0;
    for (long long n = 1; n <= total; ++n) {
        eddy_world *w = fail_world(frames, &ref_snap);
        eddy_bytes before = snap_of(w);
        fail_at(calls() + n);
        const eddy_status s = step_scene(w, FAIL_SCENE);
        fail_at(0);
        if (s == EDDY_OK) {
            /* an allocation the step can do without (the PSE's pair lists
             * and the early tracer hashes: the same bits without them) */
            cr_expect_eq(hash_of(w), ref[0], "step at %lld: went on, to another state", n);
        } else {
            ++refused;
            cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "step at %lld: %s", n, eddy_status_name(s));
            cr_expect_eq(eddy_world_frame(w), frames, "a failed step counted a frame");
            expect_usable(w, &before, ref, "step", n);
        }
        eddy_bytes_free(&before);
        eddy_world_destroy(w);
    }
    cr_log_info("step from frame %d: %lld allocations, %d of them refused the step cleanly", frames,
                total, refused);
    cr_expect_gt(refused, 0);
    eddy_bytes_free(&ref_snap);
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

Test(alloc, a_step_that_runs_out_of_memory_leaves_the_world_unchanged, .timeout = 300) {
    step_fails_cleanly(0);
}

Test(alloc, a_later_step_that_runs_out_of_memory_leaves_the_world_unchanged, .timeout = 300) {
    step_fails_cleanly(10);
}

/* An input that creates bodies (a box, a polytope: its vertices, and a
 * sphere) and an emitter, and bursts: the prelude makes their room too. */
static eddy_input creating_input(eddy_body_command bc[2], eddy_emitter_command *ec) {
    memset(bc, 0, 2 * sizeof *bc);
    bc[0].type = EDDY_BODY_CREATE;
    bc[0].def = eddy_body_def_default();
    bc[0].def.shape = eddy_shape_box((eddy_vec3){0.1f, 0.2f, 0.1f});
    bc[0].def.position = (eddy_vec3){0.5f, 0.0f, 0.0f};
    bc[1].type = EDDY_BODY_CREATE;
    bc[1].def = eddy_body_def_default();
    bc[1].def.position = (eddy_vec3){-0.5f, 0.0f, 0.0f};
    memset(ec, 0, sizeof *ec);
    ec->type = EDDY_EMITTER_CREATE;
    ec->def = eddy_emitter_def_default();
    ec->def.vorton_rate = 300.0f;
    ec->def.tracer_rate = 3000.0f;
    eddy_input in = {0};
    in.body_commands = bc;
    in.body_command_count = 2;
    in.emitter_commands = ec;
    in.emitter_command_count = 1;
    return in;
}

Test(alloc, a_step_that_creates_bodies_and_runs_out_of_memory_leaves_the_world_unchanged,
     .timeout = 300) {
    hook_setup();
    eddy_body_command bc[2];
    eddy_emitter_command ec;
    const eddy_input in = creating_input(bc, &ec);
    /* the reference: a world stepped 3 frames, then this input, then 2 plain steps */
    uint64_t ref[3];
    eddy_world *w = scene_world("vortex_ring", 2);
    for (int f = 0; f < 3; ++f) cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
    eddy_bytes at3 = snap_of(w);
    long long start = calls();
    arm();
    cr_assert_eq(eddy_world_step(w, &in), EDDY_OK, "%s", eddy_world_error_message(w));
    disarm();
    const long long total = calls() - start;
    ref[0] = hash_of(w);
    for (int k = 1; k < 3; ++k) {
        cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
        ref[k] = hash_of(w);
    }
    cr_assert_eq(eddy_world_body_count(w), 2);
    eddy_world_destroy(w);
    cr_assert_gt(total, 0);
    int refused = 0;
    char message[256];
    for (long long n = 1; n <= total; ++n) {
        w = scene_world("vortex_ring", 2);
        cr_assert_eq(eddy_world_restore(w, at3.data, at3.size, message, sizeof message), EDDY_OK);
        eddy_bytes before = snap_of(w);
        fail_at(calls() + n);
        arm();
        eddy_status s = eddy_world_step(w, &in);
        disarm();
        fail_at(0);
        if (s != EDDY_OK) {
            ++refused;
            cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "step at %lld: %s", n, eddy_status_name(s));
            eddy_bytes after = snap_of(w);
            expect_same_bytes(&before, &after, "a failed step that creates bodies");
            eddy_bytes_free(&after);
            cr_assert_eq(eddy_world_step(w, &in), EDDY_OK, "%s", eddy_world_error_message(w));
        }
        cr_expect_eq(hash_of(w), ref[0], "step at %lld: another state", n);
        for (int k = 1; k < 3; ++k) {
            cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
            cr_expect_eq(hash_of(w), ref[k], "step at %lld: frame +%d differs", n, k + 1);
        }
        eddy_bytes_free(&before);
        eddy_world_destroy(w);
    }
    cr_log_info("a step creating 2 bodies and an emitter: %lld allocations, %d refused the step "
                "cleanly", total, refused);
    cr_expect_gt(refused, 0);
    eddy_bytes_free(&at3);
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}

Test(alloc, recording_fails_cleanly_at_every_allocation, .timeout = 300) {
    hook_setup();
    eddy_bytes ref_snap;
    uint64_t ref[AFTER];
    eddy_world *w = reference(2, &ref_snap, ref);
    eddy_world_destroy(w);
    const eddy_recorder_def rd = eddy_recorder_def_default();
    long long total = 0;
    eddy_bytes recorded = {0};
    uint64_t end_hash = 0;
    for (long long n = 0;; ++n) {
        eddy_world *rw = scene_world(FAIL_SCENE, FAIL_SCENE_WORKERS);
        char message[256];
        cr_assert_eq(eddy_world_restore(rw, ref_snap.data, ref_snap.size, message, sizeof message),
                     EDDY_OK);
        eddy_bytes file = {0};
        eddy_recorder *r = NULL;
        const long long start = calls();
        fail_at(n ? start + n : 0);
        arm();
        eddy_status s = eddy_recorder_create_memory(rw, &rd, &file, &r, message, sizeof message);
        for (int f = 0; f < 2 && s == EDDY_OK; ++f) s = eddy_recorder_step(r, NULL);
        if (s == EDDY_OK) s = eddy_recorder_finish(r);
        disarm();
        fail_at(0);
        if (n == 0) {
            cr_assert_eq(s, EDDY_OK);
            total = calls() - start;
            recorded = file;
            file = (eddy_bytes){0};
            end_hash = hash_of(rw);
        } else if (s == EDDY_OK) {
            /* an allocation the world's step can do without (early tracer
             * hashes): the same recording */
            cr_expect_eq(hash_of(rw), end_hash, "recording failing at %lld: another state", n);
            cr_expect(file.size == recorded.size, "recording failing at %lld: another file", n);
        } else {
            cr_expect_eq(s, EDDY_ERROR_OUT_OF_MEMORY, "recording failing at %lld: %s", n,
                         eddy_status_name(s));
        }
        arm();
        eddy_recorder_destroy(r);
        disarm();
        eddy_bytes_free(&file);
        eddy_world_destroy(rw);
        if (n >= total) break;
    }
    cr_assert_gt(total, 0);
    eddy_bytes_free(&ref_snap);
    eddy_bytes_free(&recorded);
    cr_expect_eq(atomic_load(&g_count.live), 0, "failed recordings leaked %lld blocks",
                 (long long)atomic_load(&g_count.live));
    cr_expect_eq(atomic_load(&g_bypasses), 0);
}
