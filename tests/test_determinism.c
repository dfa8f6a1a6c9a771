/* SPDX-License-Identifier: MIT */
/* Determinism across worker counts, pinning and the caller's FP mode.
 *
 * For every registered scene the trace of frame hashes (every frame) at 1
 * worker is the reference. It must be reproduced bit for bit by 2..16
 * workers unpinned, 1..16 workers pinned one per PU, and runs where the
 * calling thread is in round-toward-zero with FTZ/DAZ on and every pool
 * thread is put in the same hostile mode by its start hook. The mutation
 * tests prove the comparison can fail: a worker-count-dependent reduction,
 * or workers left in their own FP mode, must change the trace. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "scenes.h"
#ifdef EDDY_HAVE_PIN
#include "pin.h"
#endif
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

enum { MAX_FRAMES = 128 };

typedef struct trace {
    int frames;
    eddy_frame_hash frame[MAX_FRAMES];
} trace;

static int frames_for(const char *scene) {
    /* noise_cloud (4096 vortons, 262k tracers) is the CI-time outlier. */
    return strcmp(scene, "noise_cloud") == 0 ? 40 : 100;
}

/* Round toward zero, denormals flushed (FTZ+DAZ): the opposite of eddy's
 * canonical mode (nearest, denormals kept). */
static void set_hostile_fp_mode(void) {
    fesetround(FE_TOWARDZERO);
#if defined(__SSE2__)
    _mm_setcsr(_mm_getcsr() | 0x8040u | 0x6000u);
#endif
}

static void set_normal_fp_mode(void) {
    fesetround(FE_TONEAREST);
#if defined(__SSE2__)
    _mm_setcsr(0x1F80u);
#endif
}

static void hostile_worker_start(int worker_index, void *context) {
    (void)worker_index;
    (void)context;
    set_hostile_fp_mode();
}

typedef struct run_options {
    int workers;
    bool pinned;
    bool hostile;
    uint32_t mutations;
    eddy_velocity_method velocity;
} run_options;

static void run_scene(const char *scene, const run_options *o, trace *out) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = o->workers;
    base.test_mutations = o->mutations;
    base.velocity_method = o->velocity;
#ifdef EDDY_HAVE_PIN
    eddy_pinner *pinner = NULL;
    if (o->pinned) {
        char err[256];
        pinner = eddy_pinner_create(EDDY_PIN_PU, err, sizeof err);
        cr_assert_not_null(pinner, "hwloc: %s", err);
        eddy_pin_configure(&base, o->workers, pinner);
    }
#else
    cr_assert(!o->pinned, "pinning needs the tools build");
#endif
    if (o->hostile) base.worker_start = hostile_worker_start;
    eddy_world *w = NULL;
    eddy_status s = eddy_scene_create(scene, &base, &w);
    cr_assert_eq(s, EDDY_OK, "%s: %s", scene, eddy_status_name(s));
    out->frames = frames_for(scene);
    eddy_scene_input buffer;
    for (int f = 0; f < out->frames; ++f) {
        if (o->hostile) set_hostile_fp_mode();
        const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(w), &buffer);
        s = eddy_world_step(w, in);
        cr_assert_eq(s, EDDY_OK, "%s frame %d: %s", scene, f, eddy_world_error_message(w));
        out->frame[f] = eddy_world_hash(w);
    }
    set_normal_fp_mode();
    eddy_world_destroy(w);
#ifdef EDDY_HAVE_PIN
    eddy_pinner_destroy(pinner);
#endif
}

/* First frame where b differs from a, or -1. */
static int first_divergence(const trace *a, const trace *b, int *component) {
    for (int f = 0; f < a->frames; ++f) {
        if (a->frame[f].frame_hash == b->frame[f].frame_hash) continue;
        *component = -1;
        for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
            if (a->frame[f].component[c] != b->frame[f].component[c]) {
                *component = c;
                break;
            }
        return f;
    }
    return -1;
}

static void expect_same(const char *scene, const trace *ref, const run_options *o) {
    static trace t;
    run_scene(scene, o, &t);
    int comp = -1;
    int f = first_divergence(ref, &t, &comp);
    cr_expect_eq(f, -1,
                 "%s: %d workers%s%s diverges at frame %d in %s (%016llx vs %016llx)", scene,
                 o->workers, o->pinned ? " pinned/PU" : "", o->hostile ? " hostile-FP" : "",
                 f + 1, comp >= 0 ? eddy_component_name((eddy_component)comp) : "?",
                 f >= 0 ? (unsigned long long)ref->frame[f].frame_hash : 0ull,
                 f >= 0 ? (unsigned long long)t.frame[f].frame_hash : 0ull);
}

ParameterizedTestParameters(determinism, scene) {
    static int indices[64];
    int n = eddy_scene_count();
    if (n > 64) n = 64;
    for (int i = 0; i < n; ++i) indices[i] = i;
    return cr_make_param_array(int, indices, (size_t)n);
}

ParameterizedTest(int *index, determinism, scene, .timeout = 900) {
    const char *scene = eddy_scene_at(*index)->name;
    static trace ref;
    run_options o = {1, false, false, 0, EDDY_VELOCITY_TREECODE};
    run_scene(scene, &o, &ref);
    cr_assert_gt(ref.frames, 0);
    /* The state must actually evolve, or identical hashes prove nothing. */
    cr_expect_neq(ref.frame[0].frame_hash, ref.frame[ref.frames - 1].frame_hash,
                  "%s: state did not change", scene);
    for (int w = 2; w <= 16; ++w) {
        o = (run_options){w, false, false, 0, EDDY_VELOCITY_TREECODE};
        expect_same(scene, &ref, &o);
    }
#ifdef EDDY_HAVE_PIN
    /* Pinned to processing units at the verifier matrix's counts
     * (scripts/ci_matrix.sh): every count from 2 to 16 runs unpinned above,
     * and pinning moves threads, never the work's split. */
    const int pinned_counts[] = {1, 2, 3, 4, 8, 16};
    for (size_t k = 0; k < sizeof pinned_counts / sizeof *pinned_counts; ++k) {
        o = (run_options){pinned_counts[k], true, false, 0, EDDY_VELOCITY_TREECODE};
        expect_same(scene, &ref, &o);
    }
#endif
    const int hostile_counts[] = {1, 2, 3, 5, 8, 16};
    for (size_t k = 0; k < sizeof hostile_counts / sizeof *hostile_counts; ++k) {
        o = (run_options){hostile_counts[k], false, true, 0, EDDY_VELOCITY_TREECODE};
        expect_same(scene, &ref, &o);
    }
}

/* EDDY_VELOCITY_TREECODE_VORTONS cuts the vortons into tiles by the
 * partition's order and walks the tree once more for them: the same bits at
 * every worker count, in the caller's FP mode or a hostile one. Scenes with
 * rings, a body, a container and the dense cloud. */
static const char *const k_vorton_walk_scenes[] = {"vortex_ring", "spinning_ball",
                                                    "container_layers", "noise_cloud"};

ParameterizedTestParameters(determinism, treecode_vortons) {
    static int indices[sizeof k_vorton_walk_scenes / sizeof *k_vorton_walk_scenes];
    for (size_t i = 0; i < sizeof indices / sizeof *indices; ++i) indices[i] = (int)i;
    return cr_make_param_array(int, indices, sizeof indices / sizeof *indices);
}

ParameterizedTest(int *index, determinism, treecode_vortons, .timeout = 900) {
    const char *scene = k_vorton_walk_scenes[*index];
    static trace ref, grid;
    run_options o = {1, false, false, 0, EDDY_VELOCITY_TREECODE_VORTONS};
    run_scene(scene, &o, &ref);
    /* the vortons' own walk changes the run (else this proves nothing new) */
    const run_options on_grid = {1, false, false, 0, EDDY_VELOCITY_TREECODE};
    run_scene(scene, &on_grid, &grid);
    cr_expect_neq(ref.frame[ref.frames - 1].frame_hash, grid.frame[grid.frames - 1].frame_hash,
                  "%s: the vortons' walk left the state as the grid's sample does", scene);
    for (int w = 2; w <= 16; ++w) {
        o = (run_options){w, false, false, 0, EDDY_VELOCITY_TREECODE_VORTONS};
        expect_same(scene, &ref, &o);
    }
    const int hostile_counts[] = {1, 3, 16};
    for (size_t k = 0; k < sizeof hostile_counts / sizeof *hostile_counts; ++k) {
        o = (run_options){hostile_counts[k], false, true, 0, EDDY_VELOCITY_TREECODE_VORTONS};
        expect_same(scene, &ref, &o);
    }
}

/* The checks above can fail: a reduction whose order depends on the worker
 * count changes the hash trace. */
Test(determinism, mutation_worker_dependent_reduction_is_caught, .timeout = 300) {
    static trace ref, mutated;
    run_options o = {1, false, false, 0, EDDY_VELOCITY_TREECODE};
    run_scene("vortex_ring", &o, &ref);
    int caught = 0;
    for (int w = 2; w <= 8; ++w) {
        o = (run_options){w, false, false, EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION,
                          EDDY_VELOCITY_TREECODE};
        run_scene("vortex_ring", &o, &mutated);
        int comp = -1;
        if (first_divergence(&ref, &mutated, &comp) >= 0) ++caught;
    }
    cr_expect_gt(caught, 0, "a worker-count-dependent reduction went unnoticed");
}

/* Workers left in a hostile FP mode (round-toward-zero) change the trace when
 * the library is told not to set the canonical mode on them. */
Test(determinism, mutation_skip_worker_fp_mode_is_caught, .timeout = 300) {
    static trace ref, mutated;
    run_options o = {1, false, false, 0, EDDY_VELOCITY_TREECODE};
    run_scene("vortex_ring", &o, &ref);
    o = (run_options){4, false, true, EDDY_MUTATION_SKIP_WORKER_FP_MODE,
                      EDDY_VELOCITY_TREECODE};
    run_scene("vortex_ring", &o, &mutated);
    int comp = -1;
    int f = first_divergence(&ref, &mutated, &comp);
    cr_expect_geq(f, 0, "workers in round-toward-zero went unnoticed");
}
