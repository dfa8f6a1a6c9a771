/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the replay reader and the decoders behind it.
 *
 * The first byte picks what the rest is fed to:
 *   0  a replay file: open it, read every recorded input, hash and block
 *      list, create the world from the initial snapshot and restore every
 *      keyframe (no stepping: a fuzzed state may be physically absurd, and
 *      the step is not the reader);
 *   1  eddy_input_decode; a decoded input must re-encode to the same bytes;
 *   2  eddy_world_restore into a small world; a restored state must
 *      snapshot back to the same bytes (the checksum aside);
 *   3  eddy_world_def_decode; a decoded definition must re-encode the same.
 * Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which skips checksum
 * comparisons so mutations reach the parsers. Run: scripts/fuzz_replay.sh. */
#include "eddy/replay.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok) {
    if (!ok) __builtin_trap();
}

static void fuzz_file(const uint8_t *data, size_t size) {
    eddy_player *p = NULL;
    char message[512];
    eddy_status s = eddy_player_open_memory(data, size, NULL, &p, message, sizeof message);
    require(!p || s == EDDY_OK || s == EDDY_ERROR_TRUNCATED);
    require(message[0] != '\0' || s == EDDY_OK);
    if (!p) return;
    const eddy_replay_info info = eddy_player_info(p);
    for (int64_t f = info.first_frame; f <= info.last_frame; ++f) {
        eddy_frame_hash h;
        require(eddy_player_recorded_hash(p, f, &h) == EDDY_OK && h.frame == f);
        const eddy_input *in;
        if (f > info.first_frame) require(eddy_player_recorded_input(p, f, &in) == EDDY_OK);
        for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
            uint64_t blocks[8];
            eddy_player_recorded_block_hashes(p, f, (eddy_component)c, blocks, 8);
        }
    }
    if (eddy_player_world(p)) {
        int64_t keys[16];
        const int n = eddy_player_keyframes(p, keys, 16);
        for (int k = 0; k < n && k < 16; ++k) {
            eddy_divergence d;
            eddy_player_seek(p, keys[k], &d);
        }
    }
    eddy_player_close(p);
}

static void fuzz_input(const uint8_t *data, size_t size) {
    static eddy_input_storage *storage;
    if (!storage) storage = eddy_input_storage_create();
    const eddy_input *in;
    if (eddy_input_decode(data, size, storage, &in, NULL, 0) != EDDY_OK) return;
    eddy_bytes b = {0};
    require(eddy_input_encode(in, &b) == EDDY_OK);
    require(b.size == size && memcmp(b.data, data, size) == 0);
    eddy_bytes_free(&b);
}

static eddy_world *small_world(void) {
    static eddy_world *w;
    if (w) return w;
    eddy_world_def d = eddy_world_def_default();
    d.vorton_radius = 0.2f;
    d.tracer_max_age = 15;
    d.seed = 7;
    if (eddy_world_create(&d, &w) != EDDY_OK) abort();
    return w;
}

static void fuzz_snapshot(const uint8_t *data, size_t size) {
    eddy_world *w = small_world();
    if (eddy_world_restore(w, data, size, NULL, 0) != EDDY_OK) return;
    eddy_bytes b = {0};
    require(eddy_world_snapshot(w, &b) == EDDY_OK);
    require(b.size == size && memcmp(b.data, data, size - 8) == 0);
    eddy_bytes_free(&b);
}

static void fuzz_def(const uint8_t *data, size_t size) {
    eddy_world_def d = eddy_world_def_default();
    if (eddy_world_def_decode(data, size, &d, NULL, 0) != EDDY_OK) return;
    eddy_bytes b = {0};
    require(eddy_world_def_encode(&d, &b) == EDDY_OK);
    require(b.size == size && memcmp(b.data, data, size) == 0);
    eddy_bytes_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    switch (data[0] & 3) {
    case 0: fuzz_file(data + 1, size - 1); break;
    case 1: fuzz_input(data + 1, size - 1); break;
    case 2: fuzz_snapshot(data + 1, size - 1); break;
    default: fuzz_def(data + 1, size - 1); break;
    }
    return 0;
}
