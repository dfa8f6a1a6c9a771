/* SPDX-License-Identifier: MIT */
/* Consumer check: a game's use of an installed eddy, through the installed
 * public headers only. It builds its own small world (a vortex ring, tracers,
 * a ball), records 40 frames of it to a replay file with libeddy_replay while
 * feeding per-frame input (an emitter burst, a push on the ball), then plays
 * the file back at 2 workers and checks every recorded frame hash.
 * Built by scripts/check_install.sh through find_package(eddy) and through
 * pkg-config (eddy-replay), against the static and the shared libraries.
 *
 * usage: eddy_install_check REPLAY_PATH */
#include <eddy/eddy.h>
#include <eddy/replay.h>

#include <stdio.h>

enum { FRAMES = 40, RING = 48, TRACERS = 512 };

static int failed(const char *what, eddy_status status, const char *message)
{
    fprintf(stderr, "eddy_install_check: %s: %s: %s\n", what, eddy_status_name(status), message);
    return 1;
}

/* A ring of vortons in the z = 0 plane and a column of tracers through it. */
static eddy_status populate(eddy_world *world)
{
    eddy_vorton ring[RING];
    for (int i = 0; i < RING; ++i) {
        const float angle = 6.2831853f * (float)i / (float)RING;
        const float c = eddy_cosf(angle), s = eddy_sinf(angle);
        ring[i] = (eddy_vorton){.position = {c, s, 0.0f}, .vorticity = {-4.0f * s, 4.0f * c, 0.0f}};
    }
    eddy_tracer tracers[TRACERS];
    for (int i = 0; i < TRACERS; ++i)
        tracers[i] = (eddy_tracer){
            .position = {0.05f * (float)(i % 8) - 0.2f, 0.05f * (float)(i / 8 % 8) - 0.2f,
                         0.02f * (float)(i / 64) - 0.5f}};
    eddy_status status = eddy_world_add_vortons(world, ring, RING);
    return status != EDDY_OK ? status : eddy_world_add_tracers(world, tracers, TRACERS);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: eddy_install_check REPLAY_PATH\n");
        return 2;
    }
    char message[256] = "";
    eddy_world_def def = eddy_world_def_default();
    eddy_world *world = NULL;
    eddy_status status = eddy_world_create(&def, &world);
    if (status != EDDY_OK) return failed("eddy_world_create", status, eddy_last_error_message());
    if ((status = populate(world)) != EDDY_OK)
        return failed("populate", status, eddy_world_error_message(world));

    eddy_emitter_def emitter_def = eddy_emitter_def_default();
    emitter_def.position = (eddy_vec3){0.0f, 0.0f, -0.5f};
    emitter_def.position_spread = (eddy_vec3){0.2f, 0.2f, 0.1f};
    eddy_emitter_id emitter;
    if ((status = eddy_world_create_emitter(world, &emitter_def, &emitter)) != EDDY_OK)
        return failed("eddy_world_create_emitter", status, eddy_world_error_message(world));
    eddy_body_def ball_def = eddy_body_def_default();
    ball_def.shape.type = EDDY_SHAPE_SPHERE;
    ball_def.shape.radius = 0.2f;
    ball_def.position = (eddy_vec3){0.0f, 0.0f, 1.0f};
    ball_def.mass = 1.0f;
    eddy_body_id ball;
    if ((status = eddy_world_create_body(world, &ball_def, &ball)) != EDDY_OK)
        return failed("eddy_world_create_body", status, eddy_world_error_message(world));

    eddy_recorder_def recorder_def = eddy_recorder_def_default();
    recorder_def.keyframe_interval = 16;
    eddy_recorder *recorder = NULL;
    status = eddy_recorder_create_file(world, &recorder_def, argv[1], &recorder, message,
                                       sizeof message);
    if (status != EDDY_OK) return failed("eddy_recorder_create_file", status, message);
    for (int frame = 0; frame < FRAMES; ++frame) {
        eddy_emitter_command burst = {.emitter = emitter, .type = EDDY_EMITTER_BURST,
                                      .vorton_count = 2, .tracer_count = 16};
        eddy_body_command push = {.body = ball, .type = EDDY_BODY_FORCE,
                                  .vector = {0.5f, 0.0f, 10.0f}};
        eddy_input input = {0};
        if (frame % 5 == 0) {
            input.emitter_commands = &burst;
            input.emitter_command_count = 1;
            input.body_commands = &push;
            input.body_command_count = 1;
        }
        if ((status = eddy_recorder_step(recorder, &input)) != EDDY_OK)
            return failed("eddy_recorder_step", status, eddy_recorder_error_message(recorder));
    }
    const eddy_frame_hash recorded_last = eddy_world_hash(world);
    if ((status = eddy_recorder_finish(recorder)) != EDDY_OK)
        return failed("eddy_recorder_finish", status, eddy_recorder_error_message(recorder));
    eddy_recorder_destroy(recorder);
    eddy_world_destroy(world);

    eddy_player_def player_def = eddy_player_def_default();
    player_def.worker_count = 2;
    eddy_player *player = NULL;
    status = eddy_player_open_file(argv[1], &player_def, &player, message, sizeof message);
    if (status != EDDY_OK) return failed("eddy_player_open_file", status, message);
    const eddy_replay_info info = eddy_player_info(player);
    eddy_divergence divergence;
    status = eddy_player_verify(player, &divergence, NULL, NULL);
    if (status != EDDY_OK) return failed("eddy_player_verify", status, eddy_player_error_message(player));
    const eddy_frame_hash played_last = eddy_world_hash(eddy_player_world(player));
    eddy_player_close(player);
    if (info.frame_count != FRAMES || !info.complete || played_last.frame_hash != recorded_last.frame_hash) {
        fprintf(stderr, "eddy_install_check: replay has %lld frames (complete %d), last hash %016llx "
                        "played back, %016llx recorded\n",
                (long long)info.frame_count, (int)info.complete,
                (unsigned long long)played_last.frame_hash, (unsigned long long)recorded_last.frame_hash);
        return 1;
    }
    printf("eddy_install_check: eddy %s: recorded %d frames and played them back at 2 workers, "
           "every hash matches (last %016llx)\n",
           eddy_version_string(), FRAMES, (unsigned long long)played_last.frame_hash);
    return 0;
}
