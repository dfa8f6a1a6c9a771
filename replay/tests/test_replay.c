/* SPDX-License-Identifier: MIT */
/* Recorder and player: round trips in memory, through files and through a
 * read callback; recording and playing at different worker counts; seeking
 * to random frames equals stepping there; divergences are located to a
 * frame, component and block; the recorder records only what the world
 * accepted. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay_testkit.h"

static eddy_player *open_bytes(const eddy_bytes *b, int workers) {
    eddy_player_def d = eddy_player_def_default();
    d.worker_count = workers;
    eddy_player *p = NULL;
    char message[512];
    eddy_status s = eddy_player_open_memory(b->data, b->size, &d, &p, message, sizeof message);
    cr_assert_eq(s, EDDY_OK, "open: %s: %s", eddy_status_name(s), message);
    return p;
}

static void verify_ok(eddy_player *p) {
    eddy_divergence d;
    eddy_status s = eddy_player_verify(p, &d, NULL, NULL);
    cr_assert_eq(s, EDDY_OK, "verify: %s: %s", eddy_status_name(s), eddy_player_error_message(p));
    cr_assert_eq(d.frame, -1);
    cr_assert_eq(eddy_player_frame(p), eddy_player_info(p).last_frame);
}

Test(replay, round_trip_in_memory) {
    eddy_bytes b = {0};
    cr_assert_eq(testkit_record_tiny(30, NULL, &b), EDDY_OK);
    eddy_player *p = open_bytes(&b, 1);
    const eddy_replay_info i = eddy_player_info(p);
    cr_assert(i.complete);
    cr_assert_eq(i.first_frame, 0);
    cr_assert_eq(i.last_frame, 30);
    cr_assert_eq(i.frame_count, 30);
    cr_assert_eq(i.chunk_count, 8, "30 frames in chunks of 4");
    cr_assert_eq(i.keyframe_count, 6, "a keyframe every 5 frames");
    cr_assert_eq(i.file_bytes, b.size);
    cr_assert_eq(i.valid_bytes, b.size);
    cr_assert(i.block_hashes);
    cr_assert_str_eq(i.warnings, "");
    verify_ok(p);
    eddy_player_close(p);
    eddy_bytes_free(&b);
}

static eddy_status read_in_pieces(void *buffer, size_t capacity, size_t *got, void *context) {
    eddy_bytes *src = context; /* size: bytes left, data: cursor */
    size_t n = capacity < 97 ? capacity : 97;
    if (n > src->size) n = src->size;
    memcpy(buffer, src->data, n);
    src->data += n;
    src->size -= n;
    *got = n;
    return EDDY_OK;
}

Test(replay, round_trip_through_a_file_and_a_read_callback) {
    char path[256];
    snprintf(path, sizeof path, "%s/round_trip_%d.eddyr", EDDY_REPLAY_TMP, (int)getpid());
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(2, &w), EDDY_OK);
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 3;
    rd.keyframe_interval = 4;
    eddy_recorder *r;
    char message[512];
    cr_assert_eq(eddy_recorder_create_file(w, &rd, path, &r, message, sizeof message), EDDY_OK,
                 "%s", message);
    for (int f = 0; f < 14; ++f) {
        testkit_input t;
        cr_assert_eq(eddy_recorder_step(r, testkit_tiny_input(eddy_world_frame(w), &t)), EDDY_OK,
                     "%s", eddy_recorder_error_message(r));
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    const eddy_recorder_stats st = eddy_recorder_get_stats(r);
    cr_assert_eq(st.frames, 14);
    cr_assert_eq(st.chunks, 5);
    cr_assert_eq(st.keyframes, 3);
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);

    eddy_player *p;
    cr_assert_eq(eddy_player_open_file(path, NULL, &p, message, sizeof message), EDDY_OK, "%s",
                 message);
    cr_assert_eq(eddy_player_info(p).file_bytes, st.bytes_written);
    verify_ok(p);
    eddy_player_close(p);

    eddy_bytes file = {0};
    cr_assert(testkit_read_file(path, &file));
    eddy_bytes cursor = file;
    cr_assert_eq(eddy_player_open_read(read_in_pieces, &cursor, NULL, &p, message, sizeof message),
                 EDDY_OK, "%s", message);
    verify_ok(p);
    eddy_player_close(p);
    eddy_bytes_free(&file);
    unlink(path);
}

Test(replay, open_file_reports_io_errors) {
    eddy_player *p = (eddy_player *)1;
    char message[512];
    cr_assert_eq(eddy_player_open_file("/nonexistent/dir/x.eddyr", NULL, &p, message, sizeof message),
                 EDDY_ERROR_IO);
    cr_assert_null(p);
    cr_assert(strstr(message, "/nonexistent/dir/x.eddyr") != NULL, "%s", message);
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create_file(w, NULL, "/nonexistent/dir/x.eddyr", &r, message,
                                           sizeof message),
                 EDDY_ERROR_IO);
    cr_assert_null(r);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- workers */
typedef struct worker_case {
    char scene[24];
    int frames;
    int record_workers, play_workers;
} worker_case;

ParameterizedTestParameters(replay, record_and_play_at_other_worker_counts) {
    static worker_case cases[] = {
        {"tiny", 30, 1, 16},         {"tiny", 30, 16, 1},
        {"vortex_ring", 40, 1, 16},  {"vortex_ring", 40, 16, 1},
        {"ball_through_smoke", 30, 1, 8}, {"jet_ring", 30, 4, 1},
    };
    return cr_make_param_array(worker_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(worker_case *c, replay, record_and_play_at_other_worker_counts, .timeout = 120) {
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.keyframe_interval = 16;
    eddy_bytes b = {0};
    cr_assert_eq(testkit_record_scene(c->scene, c->frames, c->record_workers, &rd, &b), EDDY_OK);
    eddy_player *p = open_bytes(&b, c->play_workers);
    cr_assert_eq(eddy_world_worker_count(eddy_player_world(p)), c->play_workers);
    verify_ok(p);
    eddy_player_close(p);
    eddy_bytes_free(&b);
}

Test(replay, a_recording_may_start_at_any_frame) {
    eddy_world *w = testkit_scene_world("tiny", 1);
    for (int f = 0; f < 6; ++f) cr_assert_eq(testkit_step(w, "tiny"), EDDY_OK);
    eddy_bytes b = {0};
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create_memory(w, NULL, &b, &r, NULL, 0), EDDY_OK);
    for (int f = 0; f < 9; ++f) {
        testkit_input t;
        cr_assert_eq(eddy_recorder_step(r, testkit_tiny_input(eddy_world_frame(w), &t)), EDDY_OK);
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_player *p = open_bytes(&b, 3);
    cr_assert_eq(eddy_player_info(p).first_frame, 6);
    cr_assert_eq(eddy_player_info(p).last_frame, 15);
    cr_assert_eq(eddy_player_frame(p), 6);
    verify_ok(p);
    eddy_player_close(p);
    eddy_world_destroy(w);
    eddy_bytes_free(&b);
}

/* ---------------------------------------------------------------- seeking */
static void snapshot_bytes(eddy_world *w, eddy_bytes *out) {
    out->size = 0;
    cr_assert_eq(eddy_world_snapshot(w, out), EDDY_OK);
}

Test(replay, seek_to_random_frames_equals_stepping_there) {
    enum { FRAMES = 30 };
    eddy_bytes b = {0};
    cr_assert_eq(testkit_record_tiny(FRAMES, NULL, &b), EDDY_OK);
    /* The reference: every frame's state, stepping from the start. */
    eddy_bytes states[FRAMES + 1];
    memset(states, 0, sizeof states);
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    for (int f = 0; f <= FRAMES; ++f) {
        snapshot_bytes(w, &states[f]);
        if (f < FRAMES) cr_assert_eq(testkit_step(w, "tiny"), EDDY_OK);
    }
    eddy_player *p = open_bytes(&b, 4);
    eddy_rng rng = eddy_rng_seed(2024, 1);
    eddy_bytes got = {0};
    for (int k = 0; k < 40; ++k) {
        const int64_t target = k == 0 ? FRAMES : k == 1 ? 0 : (int64_t)(eddy_rng_next_u32(&rng) % (FRAMES + 1));
        eddy_divergence d;
        cr_assert_eq(eddy_player_seek(p, target, &d), EDDY_OK, "seek %lld: %s", (long long)target,
                     eddy_player_error_message(p));
        cr_assert_eq(eddy_player_frame(p), target);
        snapshot_bytes(eddy_player_world(p), &got);
        cr_assert(got.size == states[target].size &&
                      memcmp(got.data, states[target].data, got.size) == 0,
                  "the state after seeking to frame %lld is not the stepped one", (long long)target);
    }
    eddy_divergence d;
    cr_assert_eq(eddy_player_seek(p, FRAMES + 1, &d), EDDY_ERROR_NOT_FOUND);
    cr_assert_eq(eddy_player_seek(p, -1, &d), EDDY_ERROR_NOT_FOUND);
    cr_assert_eq(eddy_player_seek(p, FRAMES, &d), EDDY_OK);
    cr_assert_eq(eddy_player_step(p, &d), EDDY_ERROR_NOT_FOUND);
    for (int f = 0; f <= FRAMES; ++f) eddy_bytes_free(&states[f]);
    eddy_bytes_free(&got);
    eddy_player_close(p);
    eddy_world_destroy(w);
    eddy_bytes_free(&b);
}

Test(replay, recorded_inputs_and_hashes_are_the_recorded_ones) {
    eddy_bytes b = {0};
    cr_assert_eq(testkit_record_tiny(12, NULL, &b), EDDY_OK);
    eddy_player *p = open_bytes(&b, 1);
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    eddy_bytes want = {0}, got = {0};
    for (int64_t f = 1; f <= 12; ++f) {
        testkit_input t;
        const eddy_input *in = testkit_tiny_input(f - 1, &t);
        want.size = got.size = 0;
        cr_assert_eq(eddy_input_encode(in, &want), EDDY_OK);
        const eddy_input *rec;
        cr_assert_eq(eddy_player_recorded_input(p, f, &rec), EDDY_OK);
        cr_assert_eq(eddy_input_encode(rec, &got), EDDY_OK);
        cr_assert(want.size == got.size && memcmp(want.data, got.data, got.size) == 0, "frame %lld",
                  (long long)f);
        cr_assert_eq(eddy_world_step(w, in), EDDY_OK);
        eddy_frame_hash h;
        cr_assert_eq(eddy_player_recorded_hash(p, f, &h), EDDY_OK);
        cr_assert_eq(h.frame_hash, eddy_world_hash(w).frame_hash);
        const int n = eddy_player_recorded_block_hashes(p, f, EDDY_COMPONENT_TRACERS, NULL, 0);
        cr_assert_eq(n, eddy_world_block_hashes(w, EDDY_COMPONENT_TRACERS, NULL, 0));
    }
    int64_t keys[8];
    cr_assert_eq(eddy_player_keyframes(p, keys, 8), 2);
    cr_assert_eq(keys[0], 5);
    cr_assert_eq(keys[1], 10);
    eddy_bytes_free(&want);
    eddy_bytes_free(&got);
    eddy_player_close(p);
    eddy_world_destroy(w);
    eddy_bytes_free(&b);
}

/* ---------------------------------------------------------------- recorder rules */
Test(replay, the_recorder_records_only_what_the_world_accepted) {
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    eddy_bytes b = {0};
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create_memory(w, NULL, &b, &r, NULL, 0), EDDY_OK);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_OK);
    eddy_emitter_command stale;
    memset(&stale, 0, sizeof stale);
    stale.type = EDDY_EMITTER_ENABLE;
    stale.emitter = (eddy_emitter_id){1, 9};
    eddy_input in = {0};
    in.emitter_commands = &stale;
    in.emitter_command_count = 1;
    cr_assert_eq(eddy_recorder_step(r, &in), EDDY_ERROR_NOT_FOUND);
    cr_assert_eq(eddy_world_frame(w), 1, "a refused input stepped the world");
    cr_assert(strlen(eddy_recorder_error_message(r)) > 0);
    stale.type = (eddy_emitter_command_type)99;
    cr_assert_eq(eddy_recorder_step(r, &in), EDDY_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_OK, "the recording goes on");
    cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_ERROR_WRONG_STATE,
                 "a world stepped behind the recorder's back");
    cr_assert(strstr(eddy_recorder_error_message(r), "outside") != NULL);
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_ERROR_WRONG_STATE);
    eddy_recorder_destroy(r);
    eddy_player *p = open_bytes(&b, 1);
    cr_assert_eq(eddy_player_info(p).frame_count, 2);
    verify_ok(p);
    eddy_player_close(p);
    eddy_world_destroy(w);
    eddy_bytes_free(&b);
}

static eddy_status failing_write(const void *data, size_t size, void *context) {
    int *budget = context;
    (void)data;
    if (*budget < (int)size) return EDDY_ERROR_IO;
    *budget -= (int)size;
    return EDDY_OK;
}

Test(replay, a_write_error_stops_the_recording_with_a_message) {
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 2;
    int budget = 3000;
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create(w, &rd, failing_write, NULL, &budget, &r, NULL, 0), EDDY_OK);
    eddy_status s = EDDY_OK;
    int steps = 0;
    while (s == EDDY_OK && steps < 100) s = eddy_recorder_step(r, NULL), ++steps;
    cr_assert_eq(s, EDDY_ERROR_IO);
    const int64_t frame = eddy_world_frame(w);
    cr_assert_eq(eddy_recorder_step(r, NULL), EDDY_ERROR_IO);
    cr_assert_eq(eddy_world_frame(w), frame, "a failed recorder stepped the world");
    cr_assert(strstr(eddy_recorder_error_message(r), "write failed") != NULL);
    cr_assert_eq(eddy_recorder_finish(r), EDDY_ERROR_IO);
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
}

Test(replay, bad_defs_are_refused_with_a_message) {
    eddy_world *w;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    eddy_bytes b = {0};
    eddy_recorder *r;
    char message[256];
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 0;
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, &b, &r, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(message, "frames_per_chunk") != NULL, "%s", message);
    eddy_recorder_def zero;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(eddy_recorder_create_memory(w, &zero, &b, &r, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    cr_assert_eq(b.size, 0);
    eddy_player_def pd;
    memset(&pd, 0, sizeof pd);
    eddy_player *p;
    cr_assert_eq(eddy_player_open_memory("x", 1, &pd, &p, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- divergence */
/* Records the tiny world but, after frame 10, swaps in the state of a run
 * that got one extra tracer burst at frame 5: the file's hashes from frame
 * 11 on belong to that other run, so playing it diverges at frame 11. */
static void record_tampered(bool block_hashes, int keyframe_interval, eddy_bytes *out,
                            eddy_world **other_at_11) {
    eddy_world *w, *other;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    cr_assert_eq(testkit_tiny_world(1, &other), EDDY_OK);
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.block_hashes = block_hashes;
    rd.keyframe_interval = keyframe_interval;
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create_memory(w, &rd, out, &r, NULL, 0), EDDY_OK);
    for (int64_t f = 0; f < 14; ++f) {
        testkit_input t;
        cr_assert_eq(eddy_recorder_step(r, testkit_tiny_input(f, &t)), EDDY_OK);
        eddy_emitter_command extra = {.emitter = {1, 1}, .type = EDDY_EMITTER_BURST, .tracer_count = 1};
        testkit_tiny_input(f, &t);
        if (f == 5) {
            t.input.emitter_commands = &extra;
            t.input.emitter_command_count = 1;
        }
        cr_assert_eq(eddy_world_step(other, &t.input), EDDY_OK);
        if (f == 9) {
            eddy_bytes snap = {0};
            cr_assert_eq(eddy_world_snapshot(other, &snap), EDDY_OK);
            cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, NULL, 0), EDDY_OK);
            eddy_bytes_free(&snap);
        }
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    /* other is at frame 14; bring a copy of its frame-11 state back. */
    eddy_world_destroy(other);
    cr_assert_eq(testkit_tiny_world(1, other_at_11), EDDY_OK);
    for (int64_t f = 0; f < 11; ++f) {
        testkit_input t;
        eddy_emitter_command extra = {.emitter = {1, 1}, .type = EDDY_EMITTER_BURST, .tracer_count = 1};
        testkit_tiny_input(f, &t);
        if (f == 5) {
            t.input.emitter_commands = &extra;
            t.input.emitter_command_count = 1;
        }
        cr_assert_eq(eddy_world_step(*other_at_11, &t.input), EDDY_OK);
    }
}

/* The first differing component and block between two worlds. */
static void expected_divergence(eddy_world *a, eddy_world *b, int *component, int *block) {
    eddy_frame_hash ha = eddy_world_hash(a), hb = eddy_world_hash(b);
    *component = -1;
    for (int c = 0; c < EDDY_COMPONENT_COUNT && *component < 0; ++c)
        if (ha.component[c] != hb.component[c]) *component = c;
    cr_assert_geq(*component, 0);
    uint64_t x[64], y[64];
    int nx = eddy_world_block_hashes(a, (eddy_component)*component, x, 64);
    int ny = eddy_world_block_hashes(b, (eddy_component)*component, y, 64);
    *block = -1;
    for (int k = 0; k < nx && k < ny && *block < 0; ++k)
        if (x[k] != y[k]) *block = k;
    if (*block < 0) *block = nx < ny ? nx : ny;
}

static void check_divergence(bool block_hashes, int keyframe_interval, bool block_known) {
    eddy_bytes b = {0};
    eddy_world *other;
    record_tampered(block_hashes, keyframe_interval, &b, &other);
    eddy_player *p = open_bytes(&b, 2);
    eddy_divergence d;
    cr_assert_eq(eddy_player_verify(p, &d, NULL, NULL), EDDY_ERROR_DIVERGED);
    cr_assert_eq(d.frame, 11);
    cr_assert_eq(eddy_player_frame(p), 11);
    int component, block;
    expected_divergence(other, eddy_player_world(p), &component, &block);
    cr_assert_eq(d.component, component);
    cr_assert_eq(d.block, block_known ? block : -1);
    cr_assert_neq(d.recorded_hash, d.actual_hash);
    cr_assert_eq(d.recorded_component, eddy_world_hash(other).component[component]);
    cr_assert(strstr(eddy_player_error_message(p), "frame 11") != NULL, "%s",
              eddy_player_error_message(p));
    /* Seeking back before the divergence works again. */
    cr_assert_eq(eddy_player_seek(p, 8, &d), EDDY_OK);
    eddy_player_close(p);
    eddy_world_destroy(other);
    eddy_bytes_free(&b);
}

Test(replay, divergence_is_located_by_block_hashes) { check_divergence(true, 0, true); }
Test(replay, divergence_block_comes_from_a_keyframe_at_that_frame) { check_divergence(false, 11, true); }
Test(replay, divergence_block_is_unknown_without_either) { check_divergence(false, 0, false); }

Test(replay, compare_finds_the_first_different_frame) {
    eddy_bytes a = {0}, b = {0}, c = {0};
    eddy_world *other;
    cr_assert_eq(testkit_record_tiny(14, NULL, &a), EDDY_OK);
    eddy_recorder_def rd = eddy_recorder_def_default();
    cr_assert_eq(testkit_record_tiny(14, &rd, &b), EDDY_OK);
    record_tampered(true, 0, &c, &other);
    eddy_player *pa = open_bytes(&a, 1), *pb = open_bytes(&b, 1), *pc = open_bytes(&c, 1);
    eddy_divergence d;
    cr_assert_eq(eddy_replay_compare(pa, pb, &d), EDDY_OK, "same run, other chunking");
    cr_assert_eq(d.frame, -1);
    cr_assert_eq(eddy_replay_compare(pa, pc, &d), EDDY_ERROR_DIVERGED);
    cr_assert_eq(d.frame, 11);
    cr_assert_geq(d.block, 0);
    eddy_player_close(pa);
    eddy_player_close(pb);
    eddy_player_close(pc);
    eddy_world_destroy(other);
    eddy_bytes_free(&a);
    eddy_bytes_free(&b);
    eddy_bytes_free(&c);
}
