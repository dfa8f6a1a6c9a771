/* SPDX-License-Identifier: MIT */
/* smoke_grenade: gameplay smoke (docs/gameplay.md). A closed room fills from
 * a smoke grenade on its floor; two players stand at either end, eye height
 * 1 m, and the smoke cuts the line between them. A blast on the line opens
 * it, the smoke refills the cavity, then two bullets carve tunnels, the
 * first along the line itself.
 *
 *   frame   0  grenade starts: 15000 tracers/s and 60 vortons/s, light
 *              (rho' -0.3, hot smoke rises), upward at 1.5 m/s
 *   frame  90  grenade spent (disabled)
 *   frame 100  blast at the middle of the line: 40 m^3/s for 0.2 s, then a
 *              1.5 s refill
 *   frame 150  bullet from player A to player B (radius 0.2 m)
 *   frame 175  bullet from B across the room, 0.5 m above the line
 *
 * Everything is a public input (emitter commands, eddy_blast, eddy_bullet),
 * so a replay of the scene carries them. */
#include "scenes_internal.h"

#include <string.h>

static const eddy_vec3 k_room = {6.0f, 4.0f, 3.0f}; /* inside, metres */
static const eddy_vec3 k_player_a = {-2.5f, 0.0f, -0.5f};
static const eddy_vec3 k_player_b = {2.5f, 0.0f, -0.5f};

enum {
    GRENADE_OFF_FRAME = 90,
    BLAST_FRAME = 100,
    BULLET_A_FRAME = 150,
    BULLET_B_FRAME = 175,
};

eddy_status scene_build_smoke_grenade(scene_build *b) {
    b->def.substeps = 1;
    b->def.stretch_gain = 0.5f;
    b->def.vorton_radius = 0.125f;
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = scene_vec3(0.0f, 0.0f, -1.3f);
    e.position_spread = scene_vec3(0.3f, 0.3f, 0.1f);
    e.velocity = scene_vec3(0.0f, 0.0f, 1.5f);
    e.vorticity = scene_vec3(0.0f, 0.0f, 0.0f);
    e.vorticity_spread = scene_vec3(8.0f, 8.0f, 8.0f);
    e.density_deviation = -0.3f;
    e.vorton_rate = 60.0f;
    e.tracer_rate = 15000.0f;
    e.enabled = true;
    return scene_add_emitter(b, &e);
}

/* The room: a kinematic box turned inside out (fluid inside, solid
 * outside), at rest at the origin. */
eddy_status scene_populate_smoke_grenade(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_shape box = eddy_shape_box(scene_vec3(0.5f * k_room.x, 0.5f * k_room.y, 0.5f * k_room.z));
    eddy_body_def d = eddy_body_def_default();
    d.type = EDDY_BODY_KINEMATIC;
    d.shape = eddy_shape_hole(box);
    d.position = scene_vec3(0.0f, 0.0f, 0.0f);
    d.orientation = (eddy_quat){0.0f, 0.0f, 0.0f, 1.0f};
    d.mass = 1.0e5f;
    d.temperature = 300.0f;
    d.heat_capacity = 1.0e5f;
    d.thermal_conductivity = 0.0f;
    d.gravity = false;
    d.friction = 0.5f;
    d.restitution = 0.0f;
    eddy_body_id id;
    return eddy_world_create_body(w, &d, &id);
}

static const eddy_input *grenade_off(eddy_scene_input *out) {
    eddy_emitter_command *c = &out->emitter_commands[0];
    memset(c, 0, sizeof *c);
    c->emitter.index1 = 1; /* the scene's only emitter */
    c->emitter.generation = 1;
    c->type = EDDY_EMITTER_DISABLE;
    out->input.emitter_commands = out->emitter_commands;
    out->input.emitter_command_count = 1;
    return &out->input;
}

static const eddy_input *blast(eddy_scene_input *out) {
    eddy_blast *b = &out->blasts[0];
    b->position = scene_vec3(0.5f * (k_player_a.x + k_player_b.x), 0.5f * (k_player_a.y + k_player_b.y),
                             0.5f * (k_player_a.z + k_player_b.z));
    b->strength = 40.0f;
    b->duration = 0.2f;
    b->refill_duration = 1.5f;
    b->radius = 0.25f;
    out->input.blasts = out->blasts;
    out->input.blast_count = 1;
    return &out->input;
}

static const eddy_input *bullet(eddy_scene_input *out, eddy_vec3 from, eddy_vec3 to) {
    eddy_bullet *b = &out->bullets[0];
    b->from = from;
    b->to = to;
    b->radius = 0.2f;
    b->wake_vorticity = 10.0f;
    out->input.bullets = out->bullets;
    out->input.bullet_count = 1;
    return &out->input;
}

const eddy_input *scene_input_smoke_grenade(int64_t frame, eddy_scene_input *out) {
    switch (frame) {
    case GRENADE_OFF_FRAME: return grenade_off(out);
    case BLAST_FRAME: return blast(out);
    case BULLET_A_FRAME: return bullet(out, k_player_a, k_player_b);
    case BULLET_B_FRAME:
        return bullet(out, k_player_b, scene_vec3(-2.9f, 1.5f, k_player_b.z + 0.5f));
    default: return NULL;
    }
}

bool eddy_scene_sight_line(const char *name, eddy_vec3 *a, eddy_vec3 *b, float *extinction) {
    if (name == NULL || strcmp(name, "smoke_grenade") != 0) return false;
    if (a) *a = k_player_a;
    if (b) *b = k_player_b;
    if (extinction) *extinction = EDDY_SCENE_SMOKE_EXTINCTION;
    return true;
}

eddy_smoke_volume_def eddy_scene_smoke_volume(const char *name) {
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    if (name != NULL && strcmp(name, "smoke_grenade") == 0) {
        d.min_corner = scene_vec3(-0.5f * k_room.x, -0.5f * k_room.y, -0.5f * k_room.z);
        d.max_corner = scene_vec3(0.5f * k_room.x, 0.5f * k_room.y, 0.5f * k_room.z);
        d.resolution[0] = 96;
        d.resolution[1] = 64;
        d.resolution[2] = 48;
    }
    return d;
}
