/* SPDX-License-Identifier: MIT */
/* eddy scene builders, shared by tests, demo, bench, replay and verifier.
 *
 * A scene is a named, documented initial state plus an optional script of
 * per-frame inputs. Scene names are a contract: goldens and replays refer to
 * them. Scenes use only eddy's public API and eddy's own deterministic math,
 * so a scene's initial state is bit-identical on every build and machine. */
#ifndef EDDY_SCENES_H
#define EDDY_SCENES_H

#include "eddy/eddy.h"
#include "eddy/smoke.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eddy_scene_info {
    const char *name;
    const char *description;   /* one line */
    int default_frames;        /* frames that reach the interesting part */
} eddy_scene_info;

/* Storage for one frame of scripted input (the scene fills it). */
enum { EDDY_SCENE_MAX_COMMANDS = 16 };
typedef struct eddy_scene_input {
    eddy_input input;
    eddy_emitter_command emitter_commands[EDDY_SCENE_MAX_COMMANDS];
    eddy_body_command body_commands[EDDY_SCENE_MAX_COMMANDS];
    eddy_blast blasts[EDDY_SCENE_MAX_COMMANDS];
    eddy_bullet bullets[EDDY_SCENE_MAX_COMMANDS];
} eddy_scene_input;

int eddy_scene_count(void);
const eddy_scene_info *eddy_scene_at(int index);        /* NULL if out of range */
const eddy_scene_info *eddy_scene_find(const char *name); /* NULL if unknown */
/* The one wording every tool uses for a wrong scene name, with the nearest
 * scene name (by edit distance): "unknown scene 'voretx_ring' (the nearest
 * is 'vortex_ring'; LIST shows them all)", LIST being the tool's own way to
 * list scenes (e.g. "eddy-replay scenes"). Writes into out; returns out. */
const char *eddy_scene_unknown_message(const char *name, const char *list, char *out, size_t size);

/* Create the named scene's world. Threading, FP and test fields of base
 * (worker_count, enqueue_task, finish_task, user_task_context, worker_start,
 * worker_start_context, flush_denormals, hash_every_step, test_mutations,
 * velocity_method, particle_ids) are taken from base (NULL: defaults); every physical field
 * is the scene's own. */
eddy_status eddy_scene_create(const char *name, const eddy_world_def *base, eddy_world **out);

/* The scene's scripted input for the step that will produce frame + 1
 * (frame = eddy_world_frame(world) before the step). Returns &out->input,
 * or NULL if the scene has no input for that step. */
const eddy_input *eddy_scene_input_for(const char *name, int64_t frame, eddy_scene_input *out);

/* Gameplay scenes (smoke_grenade): the two players' eyes and the extinction
 * their sight queries use (m^2 per tracer). False for a scene without one. */
#define EDDY_SCENE_SMOKE_EXTINCTION 2.0e-3f
bool eddy_scene_sight_line(const char *name, eddy_vec3 *a, eddy_vec3 *b, float *extinction);
/* A smoke volume over the scene's room (smoke_grenade: 96 x 64 x 48 voxels of
 * 0.0625 m); the default volume for other scenes. */
eddy_smoke_volume_def eddy_scene_smoke_volume(const char *name);

#ifdef __cplusplus
}
#endif
#endif
