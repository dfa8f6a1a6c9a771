/* SPDX-License-Identifier: MIT */
/* Frame-hash traces of built-in scenes, shared by the tests that compare a
 * code path against its reference (tests/test_broadphase.c,
 * tests/test_contact_lanes.c, tests/test_coupling.c, tests/test_scenes.c): step a scene with some test mutations and
 * record its frame hashes, then find the first frame where two traces part,
 * or check a whole path against its reference over every scene (with bodies). */
#ifndef EDDY_SCENE_TRACE_H
#define EDDY_SCENE_TRACE_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "eddy/eddy.h"
#include "scenes.h"

enum { TRACE_FRAMES = 40 };

/* Frame hashes of TRACE_FRAMES frames after `warmup` unrecorded ones, at
 * `workers` workers; *bodies is the scene's body count (no frame is stepped
 * when it has none, unless *bodies is -1 on entry). */
static inline void trace_scene(const char *scene, int workers, int warmup, uint32_t mutations,
                               uint64_t out[TRACE_FRAMES], int *bodies) {
    const bool every_scene = *bodies == -1;
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    base.test_mutations = mutations;
    eddy_world *w = NULL;
    const eddy_status s = eddy_scene_create(scene, &base, &w);
    cr_assert_eq(s, EDDY_OK, "%s: %s", scene, eddy_status_name(s));
    *bodies = eddy_world_body_count(w);
    eddy_scene_input buffer;
    for (int f = 0; f < warmup + TRACE_FRAMES && (*bodies > 0 || every_scene); ++f) {
        const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(w), &buffer);
        cr_assert_eq(eddy_world_step(w, in), EDDY_OK, "%s frame %d", scene, f + 1);
        if (f >= warmup) out[f - warmup] = eddy_world_hash(w).frame_hash;
    }
    eddy_world_destroy(w);
}

/* The first frame (1-based) whose hashes differ, or 0. */
static inline int first_difference(const uint64_t a[TRACE_FRAMES],
                                   const uint64_t b[TRACE_FRAMES]) {
    for (int f = 0; f < TRACE_FRAMES; ++f)
        if (a[f] != b[f]) return f + 1;
    return 0;
}

/* Every built-in scene with bodies, stepped at 2 workers with and without
 * `mutation`, gives the same hash every frame; `what` ("the X changes")
 * names the code path in the message. At least ten scenes must have bodies. */
static inline void expect_body_scenes_unchanged_by(uint32_t mutation, const char *what) {
    int scenes_with_bodies = 0;
    for (int k = 0; k < eddy_scene_count(); ++k) {
        const char *name = eddy_scene_at(k)->name;
        uint64_t plain[TRACE_FRAMES], mutated[TRACE_FRAMES];
        int bodies = 0;
        trace_scene(name, 2, 0, EDDY_MUTATION_NONE, plain, &bodies);
        if (bodies == 0) continue;
        ++scenes_with_bodies;
        trace_scene(name, 2, 0, mutation, mutated, &bodies);
        const int f = first_difference(plain, mutated);
        cr_expect_eq(f, 0, "%s: %s frame %d", name, what, f);
    }
    cr_assert_gt(scenes_with_bodies, 10);
}

/* Every built-in scene, stepped at 2 workers with and without `mutation`,
 * gives the same hash every frame. */
static inline void expect_every_scene_unchanged_by(uint32_t mutation, const char *what) {
    for (int k = 0; k < eddy_scene_count(); ++k) {
        const char *name = eddy_scene_at(k)->name;
        uint64_t plain[TRACE_FRAMES], mutated[TRACE_FRAMES];
        int every = -1;
        trace_scene(name, 2, 0, EDDY_MUTATION_NONE, plain, &every);
        every = -1;
        trace_scene(name, 2, 0, mutation, mutated, &every);
        const int f = first_difference(plain, mutated);
        cr_expect_eq(f, 0, "%s: %s frame %d", name, what, f);
    }
}

#endif
