/* SPDX-License-Identifier: MIT */
/* A game that loads libeddy as a shared library (libeddy.dll under wine, or
 * libeddy.so: scripts/check_windows.sh builds it both ways and compares).
 *
 * It goes through the library's exports only: with its own allocator and log
 * hook set across the DLL boundary, it records a session (the frame-0
 * snapshot, every frame's encoded input and frame hash), then replays it into
 * a fresh world restored from the snapshot and checks every frame hash. It
 * prints the final frame and hash, which must be the same on every platform.
 * Exit code 0 when everything matched. */
#include <eddy/eddy.h>
#include <eddy/snapshot.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FRAMES = 40, VORTONS = 256, TRACERS = 2048 };

/* ---------------------------------------------------------------- the game's hooks */
static long long g_blocks;
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
    if (g_blocks != 0) return fail("allocator", EDDY_ERROR_OUT_OF_MEMORY, "blocks were not freed");
    if (eddy_set_allocator(NULL) != EDDY_OK) return fail("allocator", EDDY_ERROR_WRONG_STATE, "");
    printf(mismatches ? "replay: %d frames differ\n" : "replay: every frame hash matches%.0d\n",
           mismatches);
    return mismatches ? 1 : 0;
}
