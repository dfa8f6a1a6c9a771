/* SPDX-License-Identifier: MIT */
/* Rollback: restoring a snapshot into the world that took it (the steady
 * state of a rollback loop) reuses the world's buffers and allocates nothing,
 * and re-simulating from it gives the same frame hashes again.
 *
 * Allocations are counted by wrapping the C allocator at link time
 * (-Wl,--wrap=malloc,... on this test only, CMakeLists.txt): every call that
 * libeddy makes to malloc, calloc or realloc goes through the wrappers below. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/snapshot.h"
#include "scenes.h"

/* ---------------------------------------------------------------- counting allocator */
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);

static bool g_counting;
static int g_allocations;

void *__wrap_malloc(size_t size) {
    if (g_counting) ++g_allocations;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size) {
    if (g_counting) ++g_allocations;
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *p, size_t size) {
    if (g_counting) ++g_allocations;
    return __real_realloc(p, size);
}

/* ---------------------------------------------------------------- helpers */
static eddy_world *scene_world(const char *scene, int workers) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK, "%s: %s", scene,
                 eddy_last_error_message());
    return w;
}

static void step_scene(eddy_world *w, const char *scene) {
    eddy_scene_input in;
    const eddy_input *input = eddy_scene_input_for(scene, eddy_world_frame(w), &in);
    cr_assert_eq(eddy_world_step(w, input), EDDY_OK, "%s: %s", scene, eddy_world_error_message(w));
}

static int counted_restore(eddy_world *w, const eddy_bytes *snap) {
    char message[256];
    g_allocations = 0;
    g_counting = true;
    eddy_status s = eddy_world_restore(w, snap->data, snap->size, message, sizeof message);
    g_counting = false;
    cr_assert_eq(s, EDDY_OK, "restore: %s", message);
    return g_allocations;
}

/* ---------------------------------------------------------------- tests */
typedef struct rollback_case {
    char scene[24];
    int frame;   /* snapshot taken here */
    int ahead;   /* frames stepped past it before rolling back */
    int workers;
} rollback_case;

ParameterizedTestParameters(rollback, restore_in_place_allocates_nothing_and_replays_the_same) {
    static rollback_case cases[] = {
        {"plume_plate", 40, 4, 2},       /* a polytope body, emitters, growing tracer count */
        {"ball_through_smoke", 25, 3, 1}, /* a sphere in mid-collision */
        {"box_spin", 30, 3, 3},          /* a spinning box (polytope) */
        {"noise_cloud", 4, 2, 2},        /* 262k tracers */
        {"wind_past_ball", 112, 4, 2},   /* particles dying by age: their arrays have a head */
    };
    return cr_make_param_array(rollback_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(rollback_case *c, rollback, restore_in_place_allocates_nothing_and_replays_the_same,
                  .timeout = 120) {
    eddy_world *w = scene_world(c->scene, c->workers);
    while (eddy_world_frame(w) < c->frame) step_scene(w, c->scene);
    eddy_bytes snap = {0}, again = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    const uint64_t at = eddy_world_hash(w).frame_hash;
    uint64_t ahead[8];
    for (int k = 0; k < c->ahead; ++k) {
        step_scene(w, c->scene);
        ahead[k] = eddy_world_hash(w).frame_hash;
    }
    cr_expect_eq(counted_restore(w, &snap), 0, "%s: the restore allocated", c->scene);
    cr_assert_eq(eddy_world_frame(w), c->frame);
    cr_assert_eq(eddy_world_hash(w).frame_hash, at, "%s: restored hash differs", c->scene);
    for (int k = 0; k < c->ahead; ++k) {
        step_scene(w, c->scene);
        cr_assert_eq(eddy_world_hash(w).frame_hash, ahead[k], "%s: frame %d after the rollback",
                     c->scene, c->frame + 1 + k);
    }
    /* A snapshot into a buffer that has the room allocates nothing either. */
    cr_assert_eq(eddy_world_snapshot(w, &again), EDDY_OK);
    again.size = 0;
    g_allocations = 0;
    g_counting = true;
    cr_assert_eq(eddy_world_snapshot(w, &again), EDDY_OK);
    g_counting = false;
    cr_expect_eq(g_allocations, 0, "%s: the snapshot allocated", c->scene);
    eddy_bytes_free(&snap);
    eddy_bytes_free(&again);
    eddy_world_destroy(w);
}

/* The counter sees what it must: a fresh world has no room for the state. */
Test(rollback, restore_into_a_fresh_world_allocates) {
    eddy_world *w = scene_world("plume_plate", 1);
    while (eddy_world_frame(w) < 10) step_scene(w, "plume_plate");
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    eddy_world *fresh = scene_world("plume_plate", 2);
    cr_expect_gt(counted_restore(fresh, &snap), 0, "the counting allocator saw nothing");
    cr_expect_eq(eddy_world_hash(fresh).frame_hash, eddy_world_hash(w).frame_hash);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
    eddy_world_destroy(fresh);
}

/* Particles dying of age every frame and an emitter refilling them: the
 * arrays' heads (lib/core/particles.c) move every frame and slide back now and
 * then. births_in_order false scatters the first tracers' births, so the
 * kill takes its scan-and-compact path. */
static eddy_world *aging_world(bool births_in_order) {
    enum { VORTONS = 64, TRACERS = 24000, MAX_AGE = 12 };
    eddy_world_def def = eddy_world_def_default();
    def.worker_count = 2;
    def.tracer_max_age = MAX_AGE;
    def.vorton_max_age = MAX_AGE + 3;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK);
    eddy_vorton v[VORTONS];
    memset(v, 0, sizeof v);
    for (int i = 0; i < VORTONS; ++i) {
        v[i].position = (eddy_vec3){(float)(i % 4) * 0.3f - 0.45f, (float)(i / 4 % 4) * 0.3f - 0.45f,
                                    (float)(i / 16) * 0.3f - 0.45f};
        v[i].vorticity = (eddy_vec3){0.0f, 1.0f, 0.5f};
        v[i].birth_frame = -(i % (MAX_AGE + 3));
    }
    eddy_tracer *t = calloc(TRACERS, sizeof *t);
    cr_assert_not_null(t);
    for (int i = 0; i < TRACERS; ++i) {
        t[i].position = (eddy_vec3){(float)(i % 37) * 0.03f - 0.5f, (float)(i / 37 % 29) * 0.03f - 0.4f,
                                    (float)(i % 11) * 0.05f - 0.25f};
        t[i].birth_frame = births_in_order ? -MAX_AGE + i / (TRACERS / MAX_AGE) : -((i * 7) % (MAX_AGE + 1));
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, VORTONS), EDDY_OK);
    cr_assert_eq(eddy_world_add_tracers(w, t, TRACERS), EDDY_OK);
    free(t);
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position_spread = (eddy_vec3){0.4f, 0.4f, 0.4f};
    e.vorticity_spread = (eddy_vec3){1.0f, 1.0f, 1.0f};
    e.tracer_rate = 30.0f * (TRACERS / MAX_AGE);
    e.vorton_rate = 30.0f * 4.0f;
    eddy_emitter_id id;
    cr_assert_eq(eddy_world_create_emitter(w, &e, &id), EDDY_OK);
    return w;
}

static void step_plain(eddy_world *w) {
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK, "%s", eddy_world_error_message(w));
}

/* Where the particles sit in their allocations is never state: a snapshot
 * restored into a world whose arrays have another head and capacity (one
 * stepped further, or a fresh one) steps on to the same hash every frame as
 * the world that took it. */
static void check_layout_is_not_state(bool births_in_order) {
    enum { FRAMES = 60, AT = 17 };
    eddy_world *reference = aging_world(births_in_order);
    uint64_t hash[FRAMES + 1];
    eddy_bytes snap = {0};
    for (int f = 0; f <= FRAMES; ++f) {
        if (f == AT) cr_assert_eq(eddy_world_snapshot(reference, &snap), EDDY_OK);
        hash[f] = eddy_world_hash(reference).frame_hash;
        if (f < FRAMES) step_plain(reference);
    }
    eddy_world *ahead = aging_world(births_in_order), *fresh = aging_world(births_in_order);
    while (eddy_world_frame(ahead) < AT + 23) step_plain(ahead);
    eddy_world *targets[2] = {ahead, fresh};
    for (int k = 0; k < 2; ++k) {
        eddy_world *w = targets[k];
        char message[256];
        cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_OK,
                     "%s", message);
        for (int f = AT; f <= FRAMES; ++f) {
            cr_assert_eq(eddy_world_hash(w).frame_hash, hash[f], "%s world, births %s, frame %d",
                         k == 0 ? "a stepped" : "a fresh", births_in_order ? "in order" : "scattered",
                         f);
            if (f < FRAMES) step_plain(w);
        }
    }
    eddy_bytes_free(&snap);
    eddy_world_destroy(reference);
    eddy_world_destroy(ahead);
    eddy_world_destroy(fresh);
}

Test(rollback, particle_layout_is_not_state_births_in_order, .timeout = 60) {
    check_layout_is_not_state(true);
}

Test(rollback, particle_layout_is_not_state_births_scattered, .timeout = 60) {
    check_layout_is_not_state(false);
}

/* A world of smoke around one fixed body of the given shape. */
static eddy_world *body_world(eddy_shape shape) {
    eddy_world_def def = eddy_world_def_default();
    def.worker_count = 2;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_OK);
    eddy_body_def b = eddy_body_def_default();
    b.shape = shape;
    b.type = EDDY_BODY_KINEMATIC;
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &b, &id), EDDY_OK, "%s", eddy_world_error_message(w));
    eddy_vorton v[64];
    eddy_tracer t[64];
    memset(v, 0, sizeof v);
    memset(t, 0, sizeof t);
    for (int i = 0; i < 64; ++i) {
        const float x = (float)(i % 4) * 0.3f - 0.45f, y = (float)(i / 4 % 4) * 0.3f - 0.45f;
        const float z = (float)(i / 16) * 0.3f + 0.8f;
        v[i].position = (eddy_vec3){x, y, z};
        v[i].vorticity = (eddy_vec3){0.0f, 1.0f, 0.5f};
        t[i].position = (eddy_vec3){y, x, z};
    }
    cr_assert_eq(eddy_world_add_vortons(w, v, 64), EDDY_OK);
    cr_assert_eq(eddy_world_add_tracers(w, t, 64), EDDY_OK);
    return w;
}

/* The snapshot's body has another shape than the world's slot: the restore
 * validates it and builds its vertices, and the world then steps exactly as
 * the one that took the snapshot (and back again). */
Test(rollback, restore_over_a_body_of_another_shape) {
    eddy_world *box = body_world(eddy_shape_box((eddy_vec3){0.3f, 0.2f, 0.1f}));
    eddy_world *ball = body_world(eddy_shape_sphere(0.25f));
    for (int f = 0; f < 3; ++f) {
        cr_assert_eq(eddy_world_step(box, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_step(ball, NULL), EDDY_OK);
    }
    eddy_bytes of_box = {0}, of_ball = {0};
    cr_assert_eq(eddy_world_snapshot(box, &of_box), EDDY_OK);
    cr_assert_eq(eddy_world_snapshot(ball, &of_ball), EDDY_OK);
    char message[256];
    cr_assert_eq(eddy_world_restore(ball, of_box.data, of_box.size, message, sizeof message),
                 EDDY_OK, "%s", message);
    for (int f = 0; f < 4; ++f) {
        cr_assert_eq(eddy_world_step(box, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_step(ball, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_hash(ball).frame_hash, eddy_world_hash(box).frame_hash, "frame %d",
                     4 + f);
    }
    eddy_world *again = body_world(eddy_shape_sphere(0.25f));
    for (int f = 0; f < 3; ++f) cr_assert_eq(eddy_world_step(again, NULL), EDDY_OK);
    cr_assert_eq(eddy_world_restore(ball, of_ball.data, of_ball.size, message, sizeof message),
                 EDDY_OK, "%s", message);
    for (int f = 0; f < 3; ++f) {
        cr_assert_eq(eddy_world_step(again, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_step(ball, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_hash(ball).frame_hash, eddy_world_hash(again).frame_hash);
    }
    eddy_bytes_free(&of_box);
    eddy_bytes_free(&of_ball);
    eddy_world_destroy(box);
    eddy_world_destroy(ball);
    eddy_world_destroy(again);
}

/* Restore 2 frames back and step again, every frame, as eddy-verify
 * --synctest does; returns the first frame whose hash differs, or -1. */
static int64_t synctest(const char *scene, uint32_t mutations, int frames,
                        eddy_component *component) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = 2;
    base.test_mutations = mutations;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK);
    eddy_bytes snaps[3] = {{0}};
    eddy_frame_hash hashes[3];
    int64_t diverged = -1;
    cr_assert_eq(eddy_world_snapshot(w, &snaps[0]), EDDY_OK);
    hashes[0] = eddy_world_hash(w);
    for (int f = 1; f <= frames && diverged < 0; ++f) {
        step_scene(w, scene);
        snaps[f % 3].size = 0;
        cr_assert_eq(eddy_world_snapshot(w, &snaps[f % 3]), EDDY_OK);
        hashes[f % 3] = eddy_world_hash(w);
        const int back = f >= 2 ? f - 2 : 0;
        cr_assert_eq(eddy_world_restore(w, snaps[back % 3].data, snaps[back % 3].size, NULL, 0),
                     EDDY_OK);
        for (int g = back + 1; g <= f && diverged < 0; ++g) {
            step_scene(w, scene);
            const eddy_frame_hash h = eddy_world_hash(w);
            if (h.frame_hash == hashes[g % 3].frame_hash) continue;
            diverged = g;
            int c = 0;
            while (c < EDDY_COMPONENT_COUNT && h.component[c] == hashes[g % 3].component[c]) ++c;
            *component = (eddy_component)c;
        }
    }
    for (int i = 0; i < 3; ++i) eddy_bytes_free(&snaps[i]);
    eddy_world_destroy(w);
    return diverged;
}

/* The rollback check holds for a correct restore and catches the test-only
 * broken one (a restore that keeps the newer flow grid: tracers then move
 * with the wrong velocities on the first re-simulated frame, and with the
 * flow coupling (docs/coupling.md §8) the ball samples the same stale flow
 * and gives the vortons around it the wrong reaction, so the vortons, hashed
 * first, may differ first). */
Test(rollback, synctest_passes_and_catches_a_restore_that_keeps_the_flow_grid, .timeout = 120) {
    eddy_component c = EDDY_COMPONENT_COUNT;
    cr_assert_eq(synctest("ball_through_smoke", 0, 8, &c), -1, "a correct restore diverged");
    const int64_t f = synctest("ball_through_smoke", EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID, 8, &c);
    cr_assert_geq(f, 1, "the broken restore was not caught");
    cr_assert(c == EDDY_COMPONENT_TRACERS || c == EDDY_COMPONENT_VORTONS,
              "diverged first in %s", eddy_component_name(c));
}

/* A rollback game's loop (bench/soak_bench.c): a snapshot of every frame into
 * a ring of reused buffers, and every 100 frames a restore of the one taken 8
 * frames back and the re-simulation of those frames. The particle counts stay
 * the same; the particles' box changes shape as the ring moves and deforms,
 * and with it the grid (cells and points per axis). After a warm-up (the
 * first frames and the first rollback) the library must allocate nothing
 * more, so neither its live bytes nor its peak can grow: the arrays sized by
 * the grid reserve what any grid of the vorton count can need (core/core.h,
 * eddy_grid_point_bound). Before, they grew to each new high-water mark
 * (vortex_ring: the grid's cells went from 4,096 to 8,192 between frames 100
 * and 200), leaving the old blocks behind as heap holes: the creep of issue
 * 32, item 8 (bench/RESULTS.md, "Soak"). */
Test(rollback, a_long_rollback_loop_allocates_nothing_after_its_warm_up, .timeout = 120) {
    enum { RING = 9, DEPTH = 8, EVERY = 100, WARM_UP = 10, FRAMES = 400 };
    const char *scene = "vortex_ring";
    eddy_world *w = scene_world(scene, 2);
    eddy_bytes ring[RING];
    uint64_t hashes[RING];
    memset(ring, 0, sizeof ring);
    int allocations_after_warm_up = 0;
    for (int f = 1; f <= FRAMES; ++f) {
        if (f == WARM_UP + 1) {
            g_allocations = 0;
            g_counting = true;
        }
        const int64_t frame = eddy_world_frame(w);
        ring[frame % RING].size = 0;
        cr_assert_eq(eddy_world_snapshot(w, &ring[frame % RING]), EDDY_OK);
        step_scene(w, scene);
        hashes[(frame + 1) % RING] = eddy_world_hash(w).frame_hash;
        if (f % EVERY != 0 && f != WARM_UP) continue;
        const int64_t back = eddy_world_frame(w) - DEPTH, end = eddy_world_frame(w);
        char message[256];
        const eddy_bytes *s = &ring[back % RING];
        cr_assert_eq(eddy_world_restore(w, s->data, s->size, message, sizeof message), EDDY_OK,
                     "%s", message);
        for (int64_t g = back; g < end; ++g) {
            ring[g % RING].size = 0;
            cr_assert_eq(eddy_world_snapshot(w, &ring[g % RING]), EDDY_OK);
            step_scene(w, scene);
            cr_assert_eq(eddy_world_hash(w).frame_hash, hashes[(g + 1) % RING],
                         "frame %lld after the rollback", (long long)(g + 1));
        }
    }
    g_counting = false;
    allocations_after_warm_up = g_allocations;
    cr_expect_eq(allocations_after_warm_up, 0,
                 "%s: %d allocations between frame %d and frame %d of a rollback loop with "
                 "constant particle counts",
                 scene, allocations_after_warm_up, WARM_UP, FRAMES);
    for (int k = 0; k < RING; ++k) eddy_bytes_free(&ring[k]);
    eddy_world_destroy(w);
}
