/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the snapshot decoder (eddy_world_restore), then a step.
 *
 * Every input is restored into a small world. A refused snapshot must leave
 * the world exactly as it was (same frame hash). A restored one must snapshot
 * back to the same bytes (the checksum aside), and the world must take one
 * step without crashing: the step may refuse (a restored state can be
 * physically absurd, then EDDY_ERROR_NAN asks for a restore), never crash.
 * The world is put back to its clean state afterwards, so runs do not depend
 * on each other. Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which
 * skips checksum comparisons so mutations reach the parser; the regression
 * test (replay/tests/test_fuzz_regressions.c) calls the same function in a
 * normal build. Run: scripts/fuzz_replay.sh SECONDS snapshot. */
#include "eddy/snapshot.h"

/* Test code may read internals (replay/CMakeLists.txt): only to tell a
 * restored state that one step can handle quickly under the sanitizers. */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok) {
    if (!ok) __builtin_trap();
}

typedef struct clean_world {
    eddy_world *world;
    eddy_bytes snapshot;   /* its clean state */
} clean_world;

static clean_world *clean(void) {
    static clean_world c;
    if (c.world) return &c;
    eddy_world_def d = eddy_world_def_default();
    d.vorton_radius = 0.2f;
    d.tracer_max_age = 15;
    d.seed = 7;
    if (eddy_world_create(&d, &c.world) != EDDY_OK) abort();
    if (eddy_world_snapshot(c.world, &c.snapshot) != EDDY_OK) abort();
    return &c;
}

/* Few particles and little to emit: a fuzzed count could make a step slow
 * (the step's limits are checked by the input target and tests/test_misuse.c). */
static bool small_state(const eddy_world *w) {
    if (w->vortons.count > 256 || w->tracers.count > 4096) return false;
    for (int e = 0; e < w->emitter_count; ++e) {
        const emitter *em = &w->emitters[e];
        if (!em->alive) continue;
        if (em->pending_vortons > 64 || em->pending_tracers > 1024) return false;
        if (!(em->def.vorton_rate <= 1000.0f && em->def.tracer_rate <= 30000.0f)) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    clean_world *c = clean();
    const eddy_frame_hash before = eddy_world_hash(c->world);
    char message[256];
    if (eddy_world_restore(c->world, data, size, message, sizeof message) != EDDY_OK) {
        require(message[0] != '\0');
        const eddy_frame_hash after = eddy_world_hash(c->world);
        require(after.frame == before.frame && after.frame_hash == before.frame_hash);
        return 0;
    }
    eddy_bytes b = {0};
    require(eddy_world_snapshot(c->world, &b) == EDDY_OK);
    require(size >= 8 && b.size == size && memcmp(b.data, data, size - 8) == 0);
    eddy_bytes_free(&b);
        if (small_state(c->world)) {
        const eddy_status s = eddy_world_step(c->world, NULL);
        require(s == EDDY_OK || eddy_world_error_message(c->world)[0] != '\0');
    }
    require(eddy_world_restore(c->world, c->snapshot.data, c->snapshot.size, NULL, 0) == EDDY_OK);
    return 0;
}
