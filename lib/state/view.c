/* SPDX-License-Identifier: MIT */
/* Read-only access for renderers and games (include/eddy/view.h): particle
 * views, body shapes, user data. Nothing here writes simulation state; user
 * data lives in the stored defs, whose encoders (codec.c, hash.c) name their
 * fields one by one and so never see it. */
#include "core/core.h"

static eddy_particle_view view_of(const particle_array *a, int64_t frame) {
    eddy_particle_view v;
    memset(&v, 0, sizeof v);
    v.count = a->count;
    v.frame = frame;
    v.position_x = a->px;
    v.position_y = a->py;
    v.position_z = a->pz;
    v.velocity_x = a->vx;
    v.velocity_y = a->vy;
    v.velocity_z = a->vz;
    if (a->has_vorticity) {
        v.vorticity_x = a->wx;
        v.vorticity_y = a->wy;
        v.vorticity_z = a->wz;
    }
    v.density_deviation = a->drho;
    v.birth_frame = a->birth;
    v.id = a->track_ids ? a->id : NULL;
    return v;
}

eddy_particle_view eddy_world_view_tracers(const eddy_world *w) {
    eddy_particle_view empty = {0};
    if (!w) return empty;
    eddy_particle_view v = view_of(&w->tracers, w->frame);
    v.state_counter = w->state_counter;
    return v;
}

eddy_particle_view eddy_world_view_vortons(const eddy_world *w) {
    eddy_particle_view empty = {0};
    if (!w) return empty;
    eddy_particle_view v = view_of(&w->vortons, w->frame);
    v.state_counter = w->state_counter;
    return v;
}

/* Not state: never hashed, encoded or snapshotted (a restore gives a new
 * value, not the snapshot's). */
uint64_t eddy_world_state_counter(const eddy_world *w) { return w ? w->state_counter : 0; }

/* ---------------------------------------------------------------- lookups */
static body *live_body(const eddy_world *w, eddy_body_id id) {
    if (!w || id.index1 < 1 || id.index1 > w->body_count) return NULL;
    body *b = &w->bodies[id.index1 - 1];
    return b->alive && b->generation == id.generation ? b : NULL;
}

static emitter *live_emitter(const eddy_world *w, eddy_emitter_id id) {
    if (!w || id.index1 < 1 || id.index1 > w->emitter_count) return NULL;
    emitter *e = &w->emitters[id.index1 - 1];
    return e->alive && e->generation == id.generation ? e : NULL;
}

/* ---------------------------------------------------------------- bodies */
eddy_status eddy_world_get_body_shape(const eddy_world *w, eddy_body_id id, eddy_shape *out) {
    if (!w || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    const body *b = live_body(w, id);
    if (!b) return EDDY_ERROR_NOT_FOUND;
    *out = b->def.shape;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- user data */
eddy_status eddy_world_set_body_user_data(eddy_world *w, eddy_body_id id, uint64_t user_data) {
    body *b = live_body(w, id);
    if (!b) return w ? EDDY_ERROR_NOT_FOUND : EDDY_ERROR_INVALID_ARGUMENT;
    b->def.user_data = user_data;
    return EDDY_OK;
}

uint64_t eddy_world_get_body_user_data(const eddy_world *w, eddy_body_id id) {
    const body *b = live_body(w, id);
    return b ? b->def.user_data : 0;
}

eddy_status eddy_world_set_emitter_user_data(eddy_world *w, eddy_emitter_id id, uint64_t user_data) {
    emitter *e = live_emitter(w, id);
    if (!e) return w ? EDDY_ERROR_NOT_FOUND : EDDY_ERROR_INVALID_ARGUMENT;
    e->def.user_data = user_data;
    return EDDY_OK;
}

uint64_t eddy_world_get_emitter_user_data(const eddy_world *w, eddy_emitter_id id) {
    const emitter *e = live_emitter(w, id);
    return e ? e->def.user_data : 0;
}
