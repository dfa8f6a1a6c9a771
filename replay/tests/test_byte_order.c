/* SPDX-License-Identifier: MIT */
/* The snapshot and replay paths as a compiler without __BYTE_ORDER__ builds
 * them (MSVC defines no such macro): this binary compiles the files of lib/
 * with a byte-order decision (lib/state/codec.c, lib/state/restore.c,
 * lib/hash/hash.c) with the macro undefined and links them ahead of the
 * libraries, so its snapshots, restores and frame hashes take the portable
 * path (EDDY_HOST_LITTLE_ENDIAN = 0, lib/runtime/runtime.h). Such a build
 * must restore its own snapshots, play its own replays, and agree bit for bit
 * with the files of the ordinary little-endian build, both ways:
 *   - EDDY_BYTE_ORDER_NATIVE_REPLAY, recorded by the ordinary eddy-replay
 *     (ctest fixture), plays here hash for hash, keyframes decoded;
 *   - the replay this binary writes to EDDY_BYTE_ORDER_PORTABLE_REPLAY is
 *     played by the ordinary eddy-replay (ctest byte_order_portable_played). */
#include "runtime/runtime.h"
#include "replay_testkit.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(!EDDY_HOST_LITTLE_ENDIAN, "this test is built with __BYTE_ORDER__ undefined");

static uint64_t state_hash(eddy_world *w) { return eddy_world_hash(w).frame_hash; }

Test(byte_order, snapshot_restores_in_the_portable_build, .timeout = 120) {
    eddy_world *w = testkit_scene_world("two_drops", 2);
    cr_assert_not_null(w);
    for (int i = 0; i < 6; ++i) cr_assert_eq(testkit_step(w, "two_drops"), EDDY_OK);
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK, "%s", eddy_last_error_message());
    const uint64_t at_snapshot = state_hash(w);
    for (int i = 0; i < 6; ++i) cr_assert_eq(testkit_step(w, "two_drops"), EDDY_OK);
    const uint64_t later = state_hash(w);

    /* restore: same state hash, same snapshot bytes, same future */
    char message[256] = "";
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_OK, "%s",
                 message);
    cr_assert_eq(state_hash(w), at_snapshot);
    eddy_bytes again = {0};
    cr_assert_eq(eddy_world_snapshot(w, &again), EDDY_OK);
    cr_assert_eq(again.size, snap.size);
    cr_assert(memcmp(again.data, snap.data, snap.size) == 0, "snapshot bytes changed");
    for (int i = 0; i < 6; ++i) cr_assert_eq(testkit_step(w, "two_drops"), EDDY_OK);
    cr_assert_eq(state_hash(w), later);
    eddy_bytes_free(&again);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

static void play_all(const void *data, size_t size) {
    eddy_player *p = NULL;
    eddy_player_def def = eddy_player_def_default();
    char message[256] = "";
    cr_assert_eq(eddy_player_open_memory(data, size, &def, &p, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_not_null(eddy_player_world(p), "%s", eddy_player_error_message(p));
    eddy_divergence d;
    cr_assert_eq(eddy_player_verify(p, &d, NULL, NULL), EDDY_OK, "frame %lld: %s",
                 (long long)d.frame, eddy_player_error_message(p));
    /* seeking restores keyframes */
    int64_t keys[8];
    const int n = eddy_player_keyframes(p, keys, 8);
    cr_assert_gt(n, 0);
    for (int k = n < 8 ? n - 1 : 7; k >= 0; --k) {
        cr_assert_eq(eddy_player_seek(p, keys[k], &d), EDDY_OK, "%s",
                     eddy_player_error_message(p));
        eddy_frame_hash h;
        cr_assert_eq(eddy_player_recorded_hash(p, keys[k], &h), EDDY_OK);
        cr_assert_eq(eddy_world_hash(eddy_player_world(p)).frame_hash, h.frame_hash);
    }
    eddy_player_close(p);
}

Test(byte_order, replay_round_trip_in_the_portable_build, .timeout = 120) {
    eddy_bytes file = {0};
    cr_assert_eq(testkit_record_tiny(12, NULL, &file), EDDY_OK);
    play_all(file.data, file.size);
    eddy_bytes_free(&file);

    eddy_recorder_def def = eddy_recorder_def_default();
    def.keyframe_interval = 5;
    cr_assert_eq(testkit_record_scene("two_drops", 12, 2, &def, &file), EDDY_OK);
    play_all(file.data, file.size);
    cr_assert(testkit_write_file(EDDY_BYTE_ORDER_PORTABLE_REPLAY, file.data, file.size));
    eddy_bytes_free(&file);
}

Test(byte_order, plays_the_little_endian_build_replay, .timeout = 120) {
    eddy_bytes file = {0};
    cr_assert(testkit_read_file(EDDY_BYTE_ORDER_NATIVE_REPLAY, &file),
              "%s (written by the ctest fixture byte_order_native_recorded)",
              EDDY_BYTE_ORDER_NATIVE_REPLAY);
    play_all(file.data, file.size);
    eddy_bytes_free(&file);
}
