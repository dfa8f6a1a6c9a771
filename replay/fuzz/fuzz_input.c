/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the input decoder (eddy_input_decode), then the input
 * applied to a small world.
 *
 * A decoded input must re-encode to the same bytes. It is then given to
 * eddy_world_step on a small world with a body and an emitter: the step
 * either succeeds or refuses with a message, and a refused input must change
 * nothing (same frame hash). This is where the world's validation of
 * commands meets arbitrary values (ranges, unknown types, stale ids, degenerate
 * body definitions). Inputs whose bursts or rates would make a step slow are
 * decoded but not stepped. The world is put back to its clean state after
 * every run. The regression test (replay/tests/test_fuzz_regressions.c) calls
 * the same function. Run: scripts/fuzz_replay.sh SECONDS input. */
#include "eddy/snapshot.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok) {
    if (!ok) __builtin_trap();
}

typedef struct clean_world {
    eddy_world *world;
    eddy_bytes snapshot;
    eddy_input_storage *storage;
} clean_world;

static clean_world *clean(void) {
    static clean_world c;
    if (c.world) return &c;
    eddy_world_def d = eddy_world_def_default();
    d.vorton_radius = 0.2f;
    if (eddy_world_create(&d, &c.world) != EDDY_OK) abort();
    eddy_vorton v[4];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; ++i) {
        v[i].position = (eddy_vec3){0.3f * (float)i, 0.0f, 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 1.0f};
    }
    eddy_body_def b = eddy_body_def_default();
    b.position = (eddy_vec3){0.0f, 2.0f, 0.0f};
    eddy_body_id body;
    eddy_emitter_def e = eddy_emitter_def_default();
    e.vorton_rate = 3.0f;
    eddy_emitter_id emitter;
    if (eddy_world_add_vortons(c.world, v, 4) != EDDY_OK ||
        eddy_world_create_body(c.world, &b, &body) != EDDY_OK ||
        eddy_world_create_emitter(c.world, &e, &emitter) != EDDY_OK ||
        eddy_world_step(c.world, NULL) != EDDY_OK ||
        eddy_world_snapshot(c.world, &c.snapshot) != EDDY_OK)
        abort();
    c.storage = eddy_input_storage_create();
    if (!c.storage) abort();
    return &c;
}

/* Bursts and rates that keep one step of the small world fast. */
static bool cheap(const eddy_input *in) {
    for (int k = 0; k < in->emitter_command_count; ++k) {
        const eddy_emitter_command *c = &in->emitter_commands[k];
        if (c->vorton_count > 64 || c->tracer_count > 1024) return false;
        if (c->vorton_rate > 1000.0f || c->tracer_rate > 30000.0f) return false;
        if (c->def.vorton_rate > 1000.0f || c->def.tracer_rate > 30000.0f) return false;
    }
    return in->emitter_command_count + in->body_command_count <= 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    clean_world *c = clean();
    const eddy_input *in;
    if (eddy_input_decode(data, size, c->storage, &in, NULL, 0) != EDDY_OK) return 0;
    eddy_bytes b = {0};
    require(eddy_input_encode(in, &b) == EDDY_OK);
    require(b.size == size && memcmp(b.data, data, size) == 0);
    eddy_bytes_free(&b);
    if (!cheap(in)) return 0;
    const eddy_frame_hash before = eddy_world_hash(c->world);
    const eddy_status s = eddy_world_step(c->world, in);
    require(s == EDDY_OK || eddy_world_error_message(c->world)[0] != '\0');
    if (s != EDDY_OK && s != EDDY_ERROR_NAN && s != EDDY_ERROR_OUT_OF_MEMORY) {
        const eddy_frame_hash after = eddy_world_hash(c->world);
        require(after.frame == before.frame && after.frame_hash == before.frame_hash);
    }
    require(eddy_world_restore(c->world, c->snapshot.data, c->snapshot.size, NULL, 0) == EDDY_OK);
    return 0;
}
