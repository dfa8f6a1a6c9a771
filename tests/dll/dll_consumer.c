/* SPDX-License-Identifier: MIT */
/* A game that loads libeddy as a shared library (libeddy.dll under wine, or
 * libeddy.so: scripts/check_windows.sh builds it both ways and compares).
 *
 * It goes through the library's exports only: with its own allocator and log
 * hook set across the DLL boundary, it records a session (the frame-0
 * snapshot, every frame's encoded input and frame hash), then replays it into
 * a fresh world restored from the snapshot and checks every frame hash. It
 * prints the final frame and hash, which must be the same on every platform.
 *
 * Built with EDDY_CONSUMER_REPLAY it links libeddy_replay as well
 * (libeddy_replay.dll, scripts/check_windows.sh): with the arrays reserved
 * up front (eddy_world_reserve), it records the same session into a replay
 * file with eddy_recorder, opens the file with eddy_player at another worker
 * count and verifies every frame hash. The file's path is the second
 * argument; eddy-verify --replay reads it on Linux.
 * Exit code 0 when everything matched. */
#include <eddy/eddy.h>
#include <eddy/snapshot.h>
#ifdef EDDY_CONSUMER_REPLAY
#include <eddy/replay.h>
#endif

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FRAMES = 40, VORTONS = 256, TRACERS = 2048 };

/* ---------------------------------------------------------------- the game's hooks */
/* eddy calls the hooks from the pool's workers too (include/eddy/base.h):
 * the count is atomic, else a race loses a count and the check below
 * reports a leak that is not there (seen once under wine) */
static atomic_llong g_blocks;
static void *game_alloc(size_t size, void *user) {
    (void)user;
    ++g_blocks;
    return malloc(size);
}
static void *game_aligned_alloc(size_t size, size_t alignment, void *user) {
    (void)user;
    ++g_blocks;
    /* one free for both kinds: over-allocate and keep the base in front */
    unsigned char *base = malloc(size + alignment + sizeof(void *));
    if (!base) return NULL;
    uintptr_t p = ((uintptr_t)base + sizeof(void *) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    ((void **)p)[-1] = base;
    ((void **)p)[-2] = (void *)(uintptr_t)0xa11a; /* marks an aligned block */
    return (void *)p;
}
static void game_free(void *memory, void *user) {
    (void)user;
    --g_blocks;
    if (((void **)memory)[-2] == (void *)(uintptr_t)0xa11a) free(((void **)memory)[-1]);
    else free(memory);
}
static int g_warnings;
static void game_log(eddy_log_level level, const char *message, void *user) {
    (void)user;
    if (level <= EDDY_LOG_WARNING) ++g_warnings;
    printf("log %d: %s\n", (int)level, message);
}

/* ---------------------------------------------------------------- the session */
static int fail(const char *what, eddy_status s, const char *message) {
    printf("FAILED: %s: %s: %s\n", what, eddy_status_name(s), message);
    return 1;
}

static eddy_status populate(eddy_world *w) {
    eddy_vorton v[VORTONS];
    for (int i = 0; i < VORTONS; ++i) {
        const float a = 6.2831853f * (float)i / VORTONS;
        const float c = eddy_cosf(a), s = eddy_sinf(a);
        v[i] = (eddy_vorton){{0.5f * c, 0.0f, 0.5f * s}, {0.0f, 0.0f, 0.0f}, {-s * 0.2f, 0.0f, c * 0.2f},
                             0.0f, 0};
    }
    static eddy_tracer t[TRACERS];
    for (int i = 0; i < TRACERS; ++i)
        t[i] = (eddy_tracer){{0.01f * (float)(i % 64) - 0.32f, 0.01f * (float)(i / 64) - 0.16f, 0.0f},
                             {0.0f, 0.0f, 0.0f}, 0.0f, 0};
    eddy_status s = eddy_world_add_vortons(w, v, VORTONS);
    if (s == EDDY_OK) s = eddy_world_add_tracers(w, t, TRACERS);
    eddy_body_def b = eddy_body_def_default();
    b.shape = eddy_shape_sphere(0.1f);
    b.position = (eddy_vec3){0.0f, 0.6f, 0.0f};
    eddy_body_id id;
    if (s == EDDY_OK) s = eddy_world_create_body(w, &b, &id);
    return s;
}

/* The game's input of frame f: wind gusts and a puff of smoke. */
static eddy_input input_for(int f, eddy_emitter_command *cmd) {
    eddy_input in = {0};
    if (f % 10 == 5) {
        in.flags = EDDY_INPUT_SET_WIND;
        in.wind = (eddy_vec3){0.05f * (float)(f / 10), 0.0f, 0.0f};
    }
    if (f == 3) {
        memset(cmd, 0, sizeof *cmd);
        cmd->type = EDDY_EMITTER_CREATE;
        cmd->def = eddy_emitter_def_default();
        cmd->def.position = (eddy_vec3){0.0f, -0.3f, 0.0f};
        cmd->def.velocity = (eddy_vec3){0.0f, 0.4f, 0.0f};
        cmd->def.tracer_rate = 600.0f;
        cmd->def.vorton_rate = 30.0f;
        in.emitter_commands = cmd;
        in.emitter_command_count = 1;
    }
    return in;
}

#ifdef EDDY_CONSUMER_REPLAY
/* The session recorded into `path` by eddy_recorder, then played back from
 * the file by eddy_player at another worker count, every frame checked. */
static int replay_file_check(int workers, const char *path, uint64_t final_hash) {
    eddy_world_def def = eddy_world_def_default();
    def.worker_count = workers;
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(&def, &w);
    if (s != EDDY_OK) return fail("create", s, eddy_last_error_message());
    if ((s = populate(w)) != EDDY_OK) return fail("populate", s, eddy_world_error_message(w));
    if ((s = eddy_world_reserve(w, 2 * VORTONS, 2 * TRACERS)) != EDDY_OK)
        return fail("reserve", s, eddy_world_error_message(w));
    char message[256];
    eddy_recorder *r = NULL;
    const eddy_recorder_def rd = eddy_recorder_def_default();
    if ((s = eddy_recorder_create_file(w, &rd, path, &r, message, sizeof message)) != EDDY_OK)
        return fail("recorder", s, message);
    for (int f = 0; f < FRAMES; ++f) {
        eddy_emitter_command cmd;
        const eddy_input in = input_for(f, &cmd);
        if ((s = eddy_recorder_step(r, &in)) != EDDY_OK)
            return fail("recorder step", s, eddy_recorder_error_message(r));
    }
    const uint64_t recorded = eddy_world_hash(w).frame_hash;
    if ((s = eddy_recorder_finish(r)) != EDDY_OK)
        return fail("recorder finish", s, eddy_recorder_error_message(r));
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    if (recorded != final_hash) return fail("recording", EDDY_ERROR_DIVERGED, "another final hash");

    eddy_player_def pd = eddy_player_def_default();
    pd.worker_count = workers == 1 ? 4 : 1;
    eddy_player *p = NULL;
    if ((s = eddy_player_open_file(path, &pd, &p, message, sizeof message)) != EDDY_OK)
        return fail("player", s, message);
    eddy_divergence d;
    if ((s = eddy_player_verify(p, &d, NULL, NULL)) != EDDY_OK) {
        snprintf(message, sizeof message, "frame %lld differs", (long long)d.frame);
        return fail("player verify", s, message);
    }
    const eddy_replay_info info = eddy_player_info(p);
    const uint64_t played = eddy_world_hash(eddy_player_world(p)).frame_hash;
    printf("replay file %s: %lld frames played back hash for hash at %d workers, %llu bytes, "
           "final hash %016" PRIx64 "\n", path, (long long)info.frame_count, pd.worker_count,
           (unsigned long long)info.file_bytes, played);
    eddy_player_close(p);
    return played == final_hash ? 0 : fail("player", EDDY_ERROR_DIVERGED, "another final hash");
}
#endif

int main(int argc, char **argv) {
    const int workers = argc > 1 ? atoi(argv[1]) : 2;
    const eddy_allocator a = {game_alloc, game_aligned_alloc, game_free, NULL};
    eddy_status s = eddy_set_allocator(&a);
    if (s != EDDY_OK) return fail("eddy_set_allocator", s, "");
    eddy_set_log_handler(game_log, EDDY_LOG_WARNING, NULL);
    printf("eddy %s (headers %s), %d workers\n", eddy_version_string(), EDDY_VERSION_STRING, workers);

    eddy_world_def def = eddy_world_def_default();
    def.worker_count = workers;
    eddy_world *w = NULL;
    s = eddy_world_create(&def, &w); /* the version-checking macro */
    if (s != EDDY_OK) return fail("create", s, eddy_last_error_message());
    if ((s = populate(w)) != EDDY_OK) return fail("populate", s, eddy_world_error_message(w));

    /* record */
    eddy_bytes start = {0}, inputs[FRAMES];
    uint64_t hashes[FRAMES];
    if ((s = eddy_world_snapshot(w, &start)) != EDDY_OK) return fail("snapshot", s, "");
    for (int f = 0; f < FRAMES; ++f) {
        eddy_emitter_command cmd;
        const eddy_input in = input_for(f, &cmd);
        inputs[f] = (eddy_bytes){0};
        if ((s = eddy_input_encode(&in, &inputs[f])) != EDDY_OK) return fail("encode", s, "");
        if ((s = eddy_world_step(w, &in)) != EDDY_OK) return fail("step", s, eddy_world_error_message(w));
        hashes[f] = eddy_world_hash(w).frame_hash;
    }
    /* a refusal reaches the game's log */
    const eddy_vorton late = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f, 0};
    if (eddy_world_add_vortons(w, &late, 1) != EDDY_ERROR_WRONG_STATE || g_warnings != 1)
        return fail("log hook", EDDY_ERROR_WRONG_STATE, "the refusal was not logged");
    eddy_world_destroy(w);

    /* replay into a fresh world, at another worker count */
    def.worker_count = workers == 1 ? 3 : 1;
    if ((s = eddy_world_create(&def, &w)) != EDDY_OK) return fail("create", s, eddy_last_error_message());
    char message[256];
    if ((s = eddy_world_restore(w, start.data, start.size, message, sizeof message)) != EDDY_OK)
        return fail("restore", s, message);
    eddy_input_storage *storage = eddy_input_storage_create();
    int mismatches = 0;
    for (int f = 0; f < FRAMES; ++f) {
        const eddy_input *in = NULL;
        s = eddy_input_decode(inputs[f].data, inputs[f].size, storage, &in, message, sizeof message);
        if (s != EDDY_OK) return fail("decode", s, message);
        if ((s = eddy_world_step(w, in)) != EDDY_OK) return fail("replay step", s, eddy_world_error_message(w));
        if (eddy_world_hash(w).frame_hash != hashes[f]) {
            printf("frame %d: replayed %016" PRIx64 ", recorded %016" PRIx64 "\n", f + 1,
                   eddy_world_hash(w).frame_hash, hashes[f]);
            ++mismatches;
        }
        eddy_bytes_free(&inputs[f]);
    }
    printf("frame %" PRId64 " hash %016" PRIx64 " vortons %d tracers %d\n", eddy_world_frame(w),
           hashes[FRAMES - 1], eddy_world_vorton_count(w), eddy_world_tracer_count(w));
    eddy_input_storage_destroy(storage);
    eddy_bytes_free(&start);
    eddy_world_destroy(w);
#ifdef EDDY_CONSUMER_REPLAY
    const int replayed = replay_file_check(workers, argc > 2 ? argv[2] : "dll_consumer.eddyr",
                                           hashes[FRAMES - 1]);
    if (replayed != 0) return replayed;
#endif
    if (g_blocks != 0) return fail("allocator", EDDY_ERROR_OUT_OF_MEMORY, "blocks were not freed");
    if (eddy_set_allocator(NULL) != EDDY_OK) return fail("allocator", EDDY_ERROR_WRONG_STATE, "");
    printf(mismatches ? "replay: %d frames differ\n" : "replay: every frame hash matches%.0d\n",
           mismatches);
    return mismatches ? 1 : 0;
}
