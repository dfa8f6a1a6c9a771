/* SPDX-License-Identifier: MIT */
/* Rigid bodies: definitions, slots and ids, per-frame commands, integration.
 *
 * Bodies live in slots; an id is (slot + 1, generation) and a destroyed
 * slot's generation is bumped, so stale ids are refused. New bodies take the
 * lowest free slot. Every per-body loop runs in slot order.
 *
 * Integration (D9): dynamic bodies
 *     p1 = p0 + F dt,  x += dt (p0 + p1) / 2m,
 *     L1 = L0 + T dt,  w_mid = Iw^-1(q_half) (L0 + L1) / 2,  dq/dt = 1/2 (0, w_mid) q,
 * where q_half is the orientation half a step ahead (midpoint rule) and the
 * world-frame inverse inertia Iw^-1 = R Ib^-1 R^T is recomputed from each
 * orientation used, then v = p1 / m and w = Iw^-1 L1. Kinematic bodies
 * move with the velocities the input gave them and ignore forces and
 * impulses (infinite mass).
 *
 * With EDDY_BODY_COUPLING_FLOW (the default) the linear update of a dynamic
 * body is the implicit one of lib/bodies/flow_forces.c (added mass, drag and
 * lift from the flow around it), p1 = m v1, x += dt (v0 + v1) / 2, and its
 * faces' pressure torque joins L1; the fluid gets the reaction. External
 * bodies (the game's) get the same computation for their own pose and
 * velocities, reported (eddy_world_get_body_impulses) and not applied. */
#include "bodies/bodies.h"
#include "bodies/geometry.h"
#include "runtime/vmath.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { EDDY_BODY_DEF_COOKIE = 0x0B0D1DEF };

eddy_body_def eddy_body_def_default(void) {
    eddy_body_def d;
    memset(&d, 0, sizeof d);
    d.type = EDDY_BODY_DYNAMIC;
    d.shape = eddy_shape_sphere(0.5f);
    d.orientation = (eddy_quat){0.0f, 0.0f, 0.0f, 1.0f};
    d.mass = 1.0f;
    d.temperature = 300.0f;
    d.heat_capacity = 1.0e5f;
    d.thermal_conductivity = 500.0f;
    d.friction = 0.5f;
    d.gravity = true;
    d.internal_value = EDDY_BODY_DEF_COOKIE;
    return d;
}

static bool finite3(eddy_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static bool within3(eddy_vec3 v, float limit) {
    return v.x >= -limit && v.x <= limit && v.y >= -limit && v.y <= limit && v.z >= -limit &&
           v.z <= limit;
}

static bool within(float x, float lo, float hi) { return x >= lo && x <= hi; }

/* The documented ranges of types.h, first failing field named. */
static eddy_status body_def_check_ranges(eddy_world *w, const eddy_body_def *d) {
    const char *field = NULL;
    float limit = 0.0f;
    if (!within3(d->position, EDDY_MAX_COORDINATE)) {
        field = "position";
        limit = EDDY_MAX_COORDINATE;
    } else if (!within3(d->linear_velocity, EDDY_MAX_SPEED)) {
        field = "linear_velocity";
        limit = EDDY_MAX_SPEED;
    } else if (!within3(d->angular_velocity, EDDY_MAX_VORTICITY)) {
        field = "angular_velocity";
        limit = EDDY_MAX_VORTICITY;
    }
    if (field) {
        eddy_world_set_error(w, "body %s has a component outside [-%g, %g]", field, (double)limit,
                             (double)limit);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!within(d->mass, EDDY_MIN_MASS, EDDY_MAX_MASS)) {
        eddy_world_set_error(w, "body mass %g must be in [%g, %g] kg", (double)d->mass,
                             (double)EDDY_MIN_MASS, (double)EDDY_MAX_MASS);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!(d->temperature > 0.0f && d->temperature <= EDDY_MAX_TEMPERATURE)) {
        eddy_world_set_error(w, "body temperature %g must be in (0, %g] K", (double)d->temperature,
                             (double)EDDY_MAX_TEMPERATURE);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!within(d->heat_capacity, EDDY_MIN_HEAT_CAPACITY, EDDY_MAX_HEAT_CAPACITY)) {
        eddy_world_set_error(w, "body heat_capacity %g must be in [%g, %g] J/K",
                             (double)d->heat_capacity, (double)EDDY_MIN_HEAT_CAPACITY,
                             (double)EDDY_MAX_HEAT_CAPACITY);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!within(d->thermal_conductivity, 0.0f, EDDY_MAX_CONDUCTIVITY)) {
        eddy_world_set_error(w, "body thermal_conductivity %g must be in [0, %g]",
                             (double)d->thermal_conductivity, (double)EDDY_MAX_CONDUCTIVITY);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!within(d->friction, 0.0f, EDDY_MAX_FRICTION)) {
        eddy_world_set_error(w, "body friction %g must be in [0, %g]", (double)d->friction,
                             (double)EDDY_MAX_FRICTION);
        return EDDY_ERROR_INVALID_DEF;
    }
    if (!within(d->restitution, 0.0f, 1.0f)) {
        eddy_world_set_error(w, "body restitution %g must be in [0, 1]", (double)d->restitution);
        return EDDY_ERROR_INVALID_DEF;
    }
    return EDDY_OK;
}

static bool body_setup(body *b, const eddy_body_def *def, eddy_vec3 *spare, bool derived);

/* Build the body once on the side: whatever the combination of mass and
 * shape, a def that passes here cannot fail later inside a step. Without
 * its derived vertices: the check allocates nothing, so running out of
 * memory is never taken for a bad def (the step's prelude makes their room,
 * eddy_bodies_reserve). */
static eddy_status body_def_check_setup(eddy_world *w, const eddy_body_def *d) {
    body trial;
    memset(&trial, 0, sizeof trial);
    const bool ok = body_setup(&trial, d, NULL, false);
    if (!ok) {
        eddy_world_set_error(w, "body mass %g with this shape gives no invertible inertia",
                             (double)d->mass);
        return EDDY_ERROR_INVALID_DEF;
    }
    return EDDY_OK;
}

eddy_status eddy_body_def_check(eddy_world *w, const eddy_body_def *d) {
    if (d->internal_value != EDDY_BODY_DEF_COOKIE) {
        eddy_world_set_error(w, "body def was not initialised with eddy_body_def_default()");
        return EDDY_ERROR_INVALID_DEF;
    }
    if (d->type != EDDY_BODY_DYNAMIC && d->type != EDDY_BODY_KINEMATIC &&
        d->type != EDDY_BODY_EXTERNAL) {
        eddy_world_set_error(w, "body type %d is not an eddy_body_type", (int)d->type);
        return EDDY_ERROR_INVALID_DEF;
    }
    const eddy_quat q = d->orientation;
    if (!finite3(d->position) || !finite3(d->linear_velocity) || !finite3(d->angular_velocity) ||
        !isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w) ||
        !isfinite(d->mass) || !isfinite(d->temperature) || !isfinite(d->heat_capacity) ||
        !isfinite(d->thermal_conductivity) || !isfinite(d->friction) ||
        !isfinite(d->restitution)) {
        eddy_world_set_error(w, "body def has a NaN or infinite field");
        return EDDY_ERROR_NAN;
    }
    const float qq = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(qq > 0.25f && qq < 4.0f)) {
        eddy_world_set_error(w, "body orientation must be a (near) unit quaternion");
        return EDDY_ERROR_INVALID_DEF;
    }
    eddy_status s = body_def_check_ranges(w, d);
    if (s != EDDY_OK) return s;
    char msg[200];
    s = eddy_shape_validate(&d->shape, msg, sizeof msg);
    if (s != EDDY_OK) {
        eddy_world_set_error(w, "body shape: %s", msg);
        return s;
    }
    return body_def_check_setup(w, d);
}

/* Power of two near the largest |element| (1 for a zero matrix). */
static float m3_scale_pow2(const mat3 *a) {
    float big = 0.0f;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const float x = a->m[i][j] < 0.0f ? -a->m[i][j] : a->m[i][j];
            big = x > big ? x : big;
        }
    float s = 1.0f;
    if (!(big > 0.0f) || !isfinite(big)) return s;
    while (big * s >= 2.0f) s *= 0.5f;
    while (big * s < 0.5f) s *= 2.0f;
    return s;
}

/* Inverse by cofactors of the matrix scaled by a power of two s (exact), so
 * the determinant stays inside the float range for every inertia the body
 * ranges allow: inv(A) = s inv(sA). Without under- or overflow the bits
 * equal those of the unscaled formula. */
static bool m3_inverse(const mat3 *a_in, mat3 *out) {
    const float scale = m3_scale_pow2(a_in);
    mat3 scaled;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) scaled.m[i][j] = a_in->m[i][j] * scale;
    const mat3 *a = &scaled;
    const float (*m)[3] = a->m;
    const float c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    const float c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    const float c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    const float det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    if (!(det != 0.0f) || !isfinite(det)) return false;
    const float k = 1.0f / det;
    out->m[0][0] = c00 * k;
    out->m[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * k;
    out->m[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * k;
    out->m[1][0] = c01 * k;
    out->m[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * k;
    out->m[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * k;
    out->m[2][0] = c02 * k;
    out->m[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * k;
    out->m[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * k;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            out->m[i][j] *= scale;
            if (!isfinite(out->m[i][j])) return false;
        }
    return true;
}

/* Rotation and world inverse inertia from the orientation. */
static void body_update_frame(body *b) {
    quat q = q_normalize((quat){b->orientation[0], b->orientation[1], b->orientation[2],
                                b->orientation[3]});
    b->orientation[0] = q.x; b->orientation[1] = q.y; b->orientation[2] = q.z; b->orientation[3] = q.w;
    mat3 r = q_to_m3(q);
    memcpy(b->rotation, r.m, sizeof r.m);
    mat3 ib = m3_load(b->inv_inertia_body);
    mat3 rt = m3_transpose(&r);
    mat3 t = m3_mul(&r, &ib);
    mat3 iw = m3_mul(&t, &rt);
    memcpy(b->inv_inertia_world, iw.m, sizeof iw.m);
}

static vec3 body_iw_mul(const body *b, vec3 v) {
    mat3 iw = m3_load(b->inv_inertia_world);
    return m3_mul_v(&iw, v);
}

/* L = Iw omega with Iw = R Ib R^T (Ib from the inverse). */
static vec3 body_angular_momentum_of(const body *b, vec3 omega, const mat3 *inertia_body) {
    mat3 r = m3_load(b->rotation);
    vec3 local = m3_tmul_v(&r, omega);
    return m3_mul_v(&r, m3_mul_v(inertia_body, local));
}

/* spare: a block of EDDY_SHAPE_MAX_VERTICES vertices to take instead of
 * allocating (eddy_bodies_reserve), or NULL; always taken or freed. */
static bool rebuild_derived(body *b, eddy_vec3 *spare) {
    body_update_frame(b);
    eddy_free(b->vertices);
    b->vertices = NULL;
    b->vertex_count = 0;
    const bool polytope = b->def.shape.type == EDDY_SHAPE_POLYTOPE;
    const int n = polytope ? eddy_shape_vertices(&b->def.shape, NULL, 0) : 0;
    const bool fits = n > 0 && n <= EDDY_SHAPE_MAX_VERTICES;
    if (!fits) eddy_free(spare);
    if (n <= 0) return true;
    b->vertices = fits && spare ? spare : eddy_alloc((size_t)n * sizeof *b->vertices);
    if (!b->vertices) return false;
    b->vertex_count = eddy_shape_vertices(&b->def.shape, b->vertices, n);
    eddy_body_faces(b);
    return true;
}

bool eddy_body_rebuild_derived(body *b) { return rebuild_derived(b, NULL); }

static void set3(float d[3], vec3 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; }

/* A def body_setup cannot take (checked defs never come here): the spare
 * goes back to the allocator. */
static bool setup_refused(eddy_vec3 *spare) {
    eddy_free(spare);
    return false;
}

static bool body_setup(body *b, const eddy_body_def *def, eddy_vec3 *spare, bool derived) {
    b->def = *def;
    eddy_mass_properties mp;
    if (eddy_shape_mass_properties(&def->shape, &mp, NULL, 0) != EDDY_OK) return setup_refused(spare);
    /* Re-centre a polytope on its centroid: the body origin is the centre of mass. */
    if (def->shape.type == EDDY_SHAPE_POLYTOPE) {
        for (int k = 0; k < b->def.shape.plane_count; ++k) {
            eddy_plane *p = &b->def.shape.planes[k];
            p->offset -= p->normal.x * mp.centroid.x + p->normal.y * mp.centroid.y +
                         p->normal.z * mp.centroid.z;
        }
        if (eddy_shape_mass_properties(&b->def.shape, &mp, NULL, 0) != EDDY_OK) return setup_refused(spare);
    }
    b->volume = mp.volume;
    b->circumradius = mp.circumradius;
    b->inradius = mp.inradius;
    b->temperature = def->temperature;
    set3(b->position, v3_from(def->position));
    b->orientation[0] = def->orientation.x; b->orientation[1] = def->orientation.y;
    b->orientation[2] = def->orientation.z; b->orientation[3] = def->orientation.w;
    mat3 inertia = {{{0}}};
    const float density = def->mass / mp.volume;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) inertia.m[i][j] = mp.inertia[i][j] * density;
    mat3 inv = {{{0}}};
    const bool dynamic = def->type == EDDY_BODY_DYNAMIC;
    if (dynamic && !m3_inverse(&inertia, &inv)) return setup_refused(spare);
    memcpy(b->inv_inertia_body, inv.m, sizeof inv.m);
    b->inv_mass = dynamic ? 1.0f / def->mass : 0.0f;
    if (derived && !rebuild_derived(b, spare)) return false;
    const vec3 v = v3_from(def->linear_velocity), om = v3_from(def->angular_velocity);
    set3(b->linear_velocity, v);
    set3(b->angular_velocity, om);
    set3(b->linear_momentum, dynamic ? v3_scale(v, def->mass) : (vec3){0.0f, 0.0f, 0.0f});
    set3(b->angular_momentum,
         dynamic ? body_angular_momentum_of(b, om, &inertia) : (vec3){0.0f, 0.0f, 0.0f});
    memset(b->force, 0, sizeof b->force);
    memset(b->torque, 0, sizeof b->torque);
    b->check_embedded = true;
    return true;
}

/* A dead slot whose last body had the last generation a 16-bit id can hold
 * is never reused: a stale id can then never name a later body. */
static bool body_slot_retired(const body *b) { return !b->alive && b->generation == UINT16_MAX; }

bool eddy_body_create(eddy_world *w, const eddy_body_def *def, eddy_body_id *out) {
    int slot = 0;
    while (slot < w->body_count && (w->bodies[slot].alive || body_slot_retired(&w->bodies[slot])))
        ++slot;
    if (slot == w->body_count) {
        if (w->body_count == w->body_capacity) {
            int cap = w->body_capacity ? 2 * w->body_capacity : 8;
            body *nb = eddy_realloc(w->bodies, (size_t)cap * sizeof *nb);
            if (!nb) return false;
            w->bodies = nb;
            w->body_capacity = cap;
        }
        memset(&w->bodies[slot], 0, sizeof(body));
        ++w->body_count;
    }
    body *b = &w->bodies[slot];
    const uint16_t generation = (uint16_t)(b->generation + 1u); /* never wraps: retired first */
    eddy_free(b->vertices);
    memset(b, 0, sizeof *b);
    eddy_vec3 *spare = def->shape.type == EDDY_SHAPE_POLYTOPE && w->vertex_spare_count > 0
                           ? w->vertex_spares[--w->vertex_spare_count] : NULL;
    if (!body_setup(b, def, spare, true)) { /* the def was checked: only an allocation can fail here */
        eddy_world_set_error(w, "out of memory creating a body");
        return false;
    }
    b->generation = generation;
    b->alive = true;
    *out = (eddy_body_id){slot + 1, generation};
    return true;
}

static body *body_get(eddy_world *w, eddy_body_id id) {
    if (id.index1 < 1 || id.index1 > w->body_count) return NULL;
    body *b = &w->bodies[id.index1 - 1];
    return b->alive && b->generation == id.generation ? b : NULL;
}

static eddy_status world_create_body_held(eddy_world *w, const eddy_body_def *def, eddy_body_id *out) {
    if (!w || !def || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    *out = (eddy_body_id){0, 0};
    if (w->stepped) {
        eddy_world_set_error(w, "bodies are created through the input after the first step");
        return EDDY_ERROR_WRONG_STATE;
    }
    eddy_status s = eddy_body_def_check(w, def);
    if (s != EDDY_OK) return s;
    if (!eddy_body_create(w, def, out)) return EDDY_ERROR_OUT_OF_MEMORY;
    w->hash_valid = false;
    return EDDY_OK;
}

void eddy_bodies_free(eddy_world *w) {
    for (int i = 0; i < w->body_count; ++i) eddy_free(w->bodies[i].vertices);
    for (int i = 0; i < w->vertex_spare_count; ++i) eddy_free(w->vertex_spares[i]);
    eddy_free(w->vertex_spares);
    eddy_free(w->bodies);
    eddy_free(w->created_bodies);
    eddy_free(w->created_emitters);
}

/* ---------------------------------------------------------------- commands */
static bool quat_ok(eddy_quat q) {
    if (!isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z) || !isfinite(q.w)) return false;
    const float qq = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return qq > 0.25f && qq < 4.0f;
}

static const char *body_command_name(eddy_body_command_type t) {
    switch (t) {
    case EDDY_BODY_CREATE: return "create";
    case EDDY_BODY_DESTROY: return "destroy";
    case EDDY_BODY_FORCE: return "force";
    case EDDY_BODY_TORQUE: return "torque";
    case EDDY_BODY_IMPULSE: return "impulse";
    case EDDY_BODY_ANGULAR_IMPULSE: return "angular impulse";
    case EDDY_BODY_SET_KINEMATIC: return "set kinematic";
    }
    return NULL;
}

/* First field of a command outside its range or not finite, or NULL. */
static const char *command_bad_field(const eddy_body_command *c, eddy_status *status) {
    const eddy_body_command_type t = c->type;
    const bool vector = t == EDDY_BODY_FORCE || t == EDDY_BODY_TORQUE ||
                        t == EDDY_BODY_ANGULAR_IMPULSE || t == EDDY_BODY_IMPULSE;
    const bool point = t == EDDY_BODY_IMPULSE, pose = t == EDDY_BODY_SET_KINEMATIC;
    *status = EDDY_ERROR_NAN;
    if (vector && !finite3(c->vector)) return "vector";
    if (point && !finite3(c->point)) return "point";
    if (pose && !finite3(c->position)) return "position";
    if (pose && !finite3(c->linear_velocity)) return "linear_velocity";
    if (pose && !finite3(c->angular_velocity)) return "angular_velocity";
    *status = EDDY_ERROR_INVALID_ARGUMENT;
    if (pose && !quat_ok(c->orientation))
        return "orientation (must be a finite near-unit quaternion)";
    if (vector && !within3(c->vector, EDDY_MAX_FORCE)) return "vector (beyond EDDY_MAX_FORCE)";
    if (point && !within3(c->point, EDDY_MAX_COORDINATE)) return "point (beyond EDDY_MAX_COORDINATE)";
    if (pose && !within3(c->position, EDDY_MAX_COORDINATE))
        return "position (beyond EDDY_MAX_COORDINATE)";
    if (pose && !within3(c->linear_velocity, EDDY_MAX_SPEED))
        return "linear_velocity (beyond EDDY_MAX_SPEED)";
    if (pose && !within3(c->angular_velocity, EDDY_MAX_VORTICITY))
        return "angular_velocity (beyond EDDY_MAX_VORTICITY)";
    return NULL;
}

static eddy_status command_check(eddy_world *w, const eddy_body_command *c, int k) {
    const char *name = body_command_name(c->type);
    if (!name) {
        eddy_world_set_error(w, "body command %d has unknown type %d", k, (int)c->type);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (c->type == EDDY_BODY_CREATE) {
        eddy_status s = eddy_body_def_check(w, &c->def);
        if (s != EDDY_OK) {
            char msg[sizeof w->error];
            snprintf(msg, sizeof msg, "%s", w->error);
            eddy_world_set_error(w, "body command %d (create): %s", k, msg);
        }
        return s;
    }
    body *b = body_get(w, c->body);
    if (!b) {
        eddy_world_set_error(w, "body command %d (%s) names a stale or unknown body (%d, %u)", k,
                             name, (int)c->body.index1, (unsigned)c->body.generation);
        return EDDY_ERROR_NOT_FOUND;
    }
    if (c->type == EDDY_BODY_SET_KINEMATIC && b->def.type == EDDY_BODY_DYNAMIC) {
        eddy_world_set_error(w, "body command %d (set kinematic) sets the pose of a dynamic body",
                             k);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    eddy_status s;
    const char *field = command_bad_field(c, &s);
    if (!field) return EDDY_OK;
    eddy_world_set_error(w, "body command %d (%s): %s %s", k, name, field,
                         s == EDDY_ERROR_NAN ? "is NaN or infinite" : "is invalid");
    return s;
}

eddy_status eddy_bodies_validate_commands(eddy_world *w, const eddy_input *in) {
    if (in->body_command_count < 0 || (in->body_command_count > 0 && !in->body_commands)) {
        eddy_world_set_error(w, "input body_commands is NULL or its count is negative");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    /* Commands are checked against the bodies as they are before the step; a
     * command naming a body destroyed earlier in the same input fails here
     * only if the id was already stale. */
    for (int k = 0; k < in->body_command_count; ++k) {
        eddy_status s = command_check(w, &in->body_commands[k], k);
        if (s != EDDY_OK) return s;
    }
    return EDDY_OK;
}

static void body_apply_impulse(body *b, vec3 j, vec3 point) {
    if (b->inv_mass == 0.0f) return;
    vec3 p = v3_add(v3_load(b->linear_momentum), j);
    set3(b->linear_momentum, p);
    set3(b->linear_velocity, v3_scale(p, b->inv_mass));
    vec3 arm = v3_sub(point, v3_load(b->position));
    vec3 l = v3_add(v3_load(b->angular_momentum), v3_cross(arm, j));
    set3(b->angular_momentum, l);
    set3(b->angular_velocity, body_iw_mul(b, l));
}

static void body_apply_angular_impulse(body *b, vec3 j) {
    if (b->inv_mass == 0.0f) return;
    vec3 l = v3_add(v3_load(b->angular_momentum), j);
    set3(b->angular_momentum, l);
    set3(b->angular_velocity, body_iw_mul(b, l));
}

static bool push_created_body(eddy_world *w, eddy_body_id id) {
    if (w->created_body_count == w->created_body_capacity) {
        int cap = w->created_body_capacity ? 2 * w->created_body_capacity : 8;
        eddy_body_id *p = eddy_realloc(w->created_bodies, (size_t)cap * sizeof *p);
        if (!p) return false;
        w->created_bodies = p;
        w->created_body_capacity = cap;
    }
    w->created_bodies[w->created_body_count++] = id;
    return true;
}

/* A vertex block for each polytope the input creates. */
static bool vertex_spares_reserve(eddy_world *w, int polytopes) {
    if (polytopes > w->vertex_spare_capacity) {
        eddy_vec3 **p = eddy_realloc(w->vertex_spares, (size_t)polytopes * sizeof *p);
        if (!p) return false;
        w->vertex_spares = p;
        w->vertex_spare_capacity = polytopes;
    }
    while (w->vertex_spare_count < polytopes) {
        eddy_vec3 *block = eddy_alloc((size_t)EDDY_SHAPE_MAX_VERTICES * sizeof *block);
        if (!block) return false;
        w->vertex_spares[w->vertex_spare_count++] = block;
    }
    return true;
}

bool eddy_bodies_reserve(eddy_world *w, const eddy_input *in) {
    int creates = 0, polytopes = 0;
    for (int k = 0; k < in->body_command_count; ++k) {
        const eddy_body_command *c = &in->body_commands[k];
        creates += c->type == EDDY_BODY_CREATE;
        polytopes += c->type == EDDY_BODY_CREATE && c->def.shape.type == EDDY_SHAPE_POLYTOPE;
    }
    if (creates == 0) return true;
    if (!vertex_spares_reserve(w, polytopes)) return false;
    if (w->body_count + creates > w->body_capacity) {
        const int cap = eddy_grown_capacity(w->body_capacity, w->body_count + creates);
        body *nb = eddy_realloc(w->bodies, (size_t)cap * sizeof *nb);
        if (!nb) return false;
        w->bodies = nb;
        w->body_capacity = cap;
    }
    if (creates > w->created_body_capacity) {
        eddy_body_id *p = eddy_realloc(w->created_bodies, (size_t)creates * sizeof *p);
        if (!p) return false;
        w->created_bodies = p;
        w->created_body_capacity = creates;
    }
    return true;
}

bool eddy_bodies_apply_commands(eddy_world *w, const eddy_input *in) {
    w->created_body_count = 0;
    for (int k = 0; k < in->body_command_count; ++k) {
        const eddy_body_command *c = &in->body_commands[k];
        if (c->type == EDDY_BODY_CREATE) {
            eddy_body_id id;
            if (!eddy_body_create(w, &c->def, &id) || !push_created_body(w, id)) return false;
            continue;
        }
        body *b = body_get(w, c->body);
        if (!b) continue; /* destroyed by an earlier command of this input */
        switch (c->type) {
        case EDDY_BODY_DESTROY:
            b->alive = false;
            if (body_slot_retired(b))
                eddy_log(EDDY_LOG_INFO, "body slot %d retired: its 16-bit generation is used up",
                         c->body.index1 - 1);
            eddy_free(b->vertices);
            b->vertices = NULL;
            b->vertex_count = 0;
            break;
        case EDDY_BODY_FORCE:
            set3(b->input_force, v3_add(v3_load(b->input_force), v3_from(c->vector)));
            break;
        case EDDY_BODY_TORQUE:
            set3(b->input_torque, v3_add(v3_load(b->input_torque), v3_from(c->vector)));
            break;
        case EDDY_BODY_IMPULSE: body_apply_impulse(b, v3_from(c->vector), v3_from(c->point)); break;
        case EDDY_BODY_ANGULAR_IMPULSE: body_apply_angular_impulse(b, v3_from(c->vector)); break;
        case EDDY_BODY_SET_KINEMATIC: {
            const eddy_body_pose old = eddy_body_pose_of(b);
            const float inv_dt = 1.0f / w->def.dt;
            set3(b->frame_acceleration,
                 v3_scale(v3_sub(v3_from(c->linear_velocity), v3_load(b->linear_velocity)), inv_dt));
            set3(b->frame_angular_acceleration,
                 v3_scale(v3_sub(v3_from(c->angular_velocity), v3_load(b->angular_velocity)), inv_dt));
            set3(b->position, v3_from(c->position));
            b->orientation[0] = c->orientation.x; b->orientation[1] = c->orientation.y;
            b->orientation[2] = c->orientation.z; b->orientation[3] = c->orientation.w;
            body_update_frame(b);
            set3(b->linear_velocity, v3_from(c->linear_velocity));
            set3(b->angular_velocity, v3_from(c->angular_velocity));
            eddy_carry_interior(w, b, &old);
            break;
        }
        case EDDY_BODY_CREATE: break;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- integration */
static void add3(float d[3], vec3 v) { d[0] += v.x; d[1] += v.y; d[2] += v.z; }

/* The angular part of the midpoint rule (D9) with the torque given. */
static void integrate_rotation(body *b, vec3 torque, float dt) {
    const vec3 l0 = v3_load(b->angular_momentum);
    const vec3 l1 = v3_add(l0, v3_scale(torque, dt));
    /* Midpoint rule: the angular velocity of the mid-step momentum, taken
     * with the inertia of the mid-step orientation (second order; the
     * first-order update adds energy to a tumbling body). */
    const vec3 l_mid = v3_scale(v3_add(l0, l1), 0.5f);
    const quat q0 = {b->orientation[0], b->orientation[1], b->orientation[2], b->orientation[3]};
    const quat q_half = q_integrate(q0, body_iw_mul(b, l_mid), 0.5f * dt);
    b->orientation[0] = q_half.x; b->orientation[1] = q_half.y;
    b->orientation[2] = q_half.z; b->orientation[3] = q_half.w;
    body_update_frame(b);
    const vec3 w_mid = body_iw_mul(b, l_mid);
    const quat q = q_integrate(q0, w_mid, dt);
    b->orientation[0] = q.x; b->orientation[1] = q.y; b->orientation[2] = q.z; b->orientation[3] = q.w;
    body_update_frame(b);
    set3(b->angular_momentum, l1);
    set3(b->angular_velocity, body_iw_mul(b, l1));
}

static void integrate_dynamic(body *b, float dt) {
    const vec3 force = v3_add(v3_load(b->force), v3_load(b->input_force));
    const vec3 torque = v3_add(v3_load(b->torque), v3_load(b->input_torque));
    const vec3 p0 = v3_load(b->linear_momentum);
    const vec3 p1 = v3_add(p0, v3_scale(force, dt));
    set3(b->position, v3_add(v3_load(b->position), v3_scale(v3_add(p0, p1), 0.5f * dt * b->inv_mass)));
    integrate_rotation(b, torque, dt);
    set3(b->linear_momentum, p1);
    set3(b->linear_velocity, v3_scale(p1, b->inv_mass));
}

/* EDDY_BODY_COUPLING_FLOW: the implicit linear update with the flow's push
 * (flow_forces.c); returns the fluid's linear impulse. */
static vec3 integrate_dynamic_flow(const eddy_world *w, body *b, float dt) {
    const vec3 force = v3_add(v3_load(b->force), v3_load(b->input_force));
    eddy_flow_update f;
    eddy_body_flow_update(w, b, dt, force, &f);
    const vec3 v0 = v3_load(b->linear_velocity);
    set3(b->position, v3_add(v3_load(b->position), v3_scale(v3_add(v0, f.velocity), 0.5f * dt)));
    const vec3 torque = v3_add(v3_load(b->torque), v3_load(b->input_torque));
    integrate_rotation(b, v3_add(torque, v3_scale(f.angular_impulse, 1.0f / dt)), dt);
    const vec3 p1 = v3_scale(f.velocity, b->def.mass);
    set3(b->linear_momentum, p1);
    set3(b->linear_velocity, v3_scale(p1, b->inv_mass));
    add3(b->fluid_angular, f.angular_impulse);
    set3(b->flow_angular, f.angular_impulse);
    return f.impulse;
}

/* An external body: what the fluid would give it, reported, not applied. */
static vec3 external_flow(const eddy_world *w, body *b, float dt) {
    const vec3 g = {w->gravity.x, w->gravity.y, w->gravity.z};
    vec3 force = {0.0f, 0.0f, 0.0f};
    if (b->buoyant) force = v3_scale(g, b->def.mass - b->fluid_density * b->volume);
    eddy_flow_update f;
    eddy_body_flow_update(w, b, dt, force, &f);
    add3(b->fluid_angular, f.angular_impulse);
    set3(b->flow_angular, f.angular_impulse);
    return f.impulse;
}

static void integrate_kinematic(body *b, float dt) {
    set3(b->position, v3_add(v3_load(b->position), v3_scale(v3_load(b->linear_velocity), dt)));
    quat q = {b->orientation[0], b->orientation[1], b->orientation[2], b->orientation[3]};
    q = q_integrate(q, v3_load(b->angular_velocity), dt);
    b->orientation[0] = q.x; b->orientation[1] = q.y; b->orientation[2] = q.z; b->orientation[3] = q.w;
    body_update_frame(b);
}

bool eddy_phase_integrate_bodies(eddy_world *w, float dt) {
    const bool flow = w->def.body_coupling == EDDY_BODY_COUPLING_FLOW;
    const vec3 g = {w->gravity.x, w->gravity.y, w->gravity.z};
    for (int i = 0; i < w->body_count; ++i) {
        body *b = &w->bodies[i];
        if (!b->alive) continue;
        if (b->buoyant)
            add3(b->fluid_buoyancy, v3_scale(g, -b->fluid_density * b->volume * dt));
        const eddy_body_pose old = eddy_body_pose_of(b);
        vec3 j = {0.0f, 0.0f, 0.0f};
        const bool pushed = flow && !b->def.shape.hole;
        if (b->def.type == EDDY_BODY_DYNAMIC && pushed)
            j = integrate_dynamic_flow(w, b, dt);
        else if (b->def.type == EDDY_BODY_DYNAMIC)
            integrate_dynamic(b, dt);
        else if (b->def.type == EDDY_BODY_KINEMATIC)
            integrate_kinematic(b, dt);
        else if (pushed)
            j = external_flow(w, b, dt);
        add3(b->fluid_linear, j);
        if (pushed && b->def.type != EDDY_BODY_KINEMATIC &&
            !eddy_body_flow_reaction(w, b, v3_scale(j, -1.0f),
                                     v3_scale(v3_load(b->flow_angular), -1.0f)))
            return false;
        eddy_carry_interior(w, b, &old); /* containers move what they hold */
        memset(b->force, 0, sizeof b->force);
        memset(b->torque, 0, sizeof b->torque);
    }
    return true;
}

void eddy_bodies_begin_step(eddy_world *w) {
    for (int i = 0; i < w->body_count; ++i) {
        body *b = &w->bodies[i];
        memset(b->fluid_linear, 0, sizeof b->fluid_linear);
        memset(b->fluid_angular, 0, sizeof b->fluid_angular);
        memset(b->fluid_buoyancy, 0, sizeof b->fluid_buoyancy);
    }
}

void eddy_bodies_end_step(eddy_world *w) {
    for (int i = 0; i < w->body_count; ++i) {
        memset(w->bodies[i].input_force, 0, sizeof w->bodies[i].input_force);
        memset(w->bodies[i].input_torque, 0, sizeof w->bodies[i].input_torque);
        memset(w->bodies[i].frame_acceleration, 0, sizeof w->bodies[i].frame_acceleration);
        memset(w->bodies[i].frame_angular_acceleration, 0,
               sizeof w->bodies[i].frame_angular_acceleration);
    }
}

/* Apply a linear and angular impulse and heat from the fluid (collide.c). */
void eddy_body_receive(body *b, vec3 linear, vec3 angular, float heat) {
    add3(b->fluid_linear, linear);
    add3(b->fluid_angular, angular);
    if (b->inv_mass != 0.0f) {
        vec3 p = v3_add(v3_load(b->linear_momentum), linear);
        set3(b->linear_momentum, p);
        set3(b->linear_velocity, v3_scale(p, b->inv_mass));
        body_apply_angular_impulse(b, angular);
    }
    b->temperature += heat / b->def.heat_capacity;
}

/* ---------------------------------------------------------------- queries */
int eddy_world_body_count(const eddy_world *w) {
    if (!w) return 0;
    int n = 0;
    for (int i = 0; i < w->body_count; ++i) n += w->bodies[i].alive ? 1 : 0;
    return n;
}

int eddy_world_get_body_ids(const eddy_world *w, eddy_body_id *out, int capacity) {
    if (!w || !out) return 0;
    int n = 0;
    for (int i = 0; i < w->body_count && n < capacity; ++i)
        if (w->bodies[i].alive) out[n++] = (eddy_body_id){i + 1, w->bodies[i].generation};
    return n;
}

eddy_status eddy_world_get_body(const eddy_world *w, eddy_body_id id, eddy_body_state *out) {
    if (!w || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    const body *b = body_get((eddy_world *)(uintptr_t)w, id);
    if (!b) return EDDY_ERROR_NOT_FOUND;
    out->type = b->def.type;
    out->position = v3_to(v3_load(b->position));
    out->orientation = (eddy_quat){b->orientation[0], b->orientation[1], b->orientation[2],
                                   b->orientation[3]};
    out->linear_velocity = v3_to(v3_load(b->linear_velocity));
    out->angular_velocity = v3_to(v3_load(b->angular_velocity));
    out->linear_momentum = v3_to(v3_load(b->linear_momentum));
    out->angular_momentum = v3_to(v3_load(b->angular_momentum));
    out->mass = b->def.mass;
    out->volume = b->volume;
    out->temperature = b->temperature;
    return EDDY_OK;
}

int eddy_world_get_body_impulses(const eddy_world *w, eddy_body_impulse *out, int capacity) {
    if (!w || !out) return 0;
    int n = 0;
    for (int i = 0; i < w->body_count && n < capacity; ++i) {
        const body *b = &w->bodies[i];
        if (!b->alive) continue;
        out[n].id = (eddy_body_id){i + 1, b->generation};
        out[n].linear = v3_to(v3_load(b->fluid_linear));
        out[n].angular = v3_to(v3_load(b->fluid_angular));
        out[n].buoyancy = v3_to(v3_load(b->fluid_buoyancy));
        ++n;
    }
    return n;
}

int eddy_world_created_bodies(const eddy_world *w, eddy_body_id *out, int capacity) {
    if (!w || !out) return 0;
    int n = w->created_body_count < capacity ? w->created_body_count : capacity;
    memcpy(out, w->created_bodies, (size_t)(n > 0 ? n : 0) * sizeof *out);
    return n;
}

int eddy_world_created_emitters(const eddy_world *w, eddy_emitter_id *out, int capacity) {
    if (!w || !out) return 0;
    int n = w->created_emitter_count < capacity ? w->created_emitter_count : capacity;
    memcpy(out, w->created_emitters, (size_t)(n > 0 ? n : 0) * sizeof *out);
    return n;
}

/* Held against overlapping calls (core/core.h, eddy_world_enter). */
eddy_status eddy_world_create_body(eddy_world *w, const eddy_body_def *def, eddy_body_id *out) {
    if (!w) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_world_enter(w, "eddy_world_create_body")) return EDDY_ERROR_WRONG_STATE;
    const eddy_status s = world_create_body_held(w, def, out);
    if (s == EDDY_OK) w->state_counter += 1;
    eddy_world_leave(w);
    return s;
}
