/* SPDX-License-Identifier: MIT */
/* Containers carry the fluid they hold (issue: containers that move).
 *
 * Design note. The fluid inside a container (a hole body) is solved in the
 * container's frame:
 *
 * 1. Rigid motion. Whenever the container's pose changes (its integration
 *    at the end of a substep, or a SET_KINEMATIC command), every vorton and
 *    tracer whose centre is inside its inner box at the old pose is moved
 *    with it: x' = x + (c1 - c0) + (R1 R0^T - I)(x - c0), and a vorton's
 *    vorticity turns with it, w' = R1 R0^T w. The fluid's own velocity (from
 *    its vortons) is the velocity relative to the container; a still fluid in
 *    a container translated at constant velocity stays still relative to it,
 *    bit for bit when the container does not turn (the particles move by the
 *    container's displacement and nothing else).
 * 2. Walls at rest. In its own frame the walls do not move, so the
 *    collisions (lib/bodies/collide.c) see a container's wall velocity as zero: the
 *    walls no longer push particles around without moving the fluid, which
 *    made rho' pile up at the leading wall and spun the fluid up.
 * 3. Fictitious forces. The frame accelerates, so the baroclinic term uses
 *    the apparent gravity
 *        g_app = g - a - alpha x (x - c) - W x (W x (x - c))
 *    (a the container's acceleration, alpha its angular acceleration, W its
 *    angular velocity). a and alpha come from the velocities a SET_KINEMATIC
 *    command changes, (v_new - v_old) / dt, computed when the command is
 *    applied and cleared at the end of the step: no state beyond the pose
 *    and velocities the body already has, so snapshots are unchanged. A
 *    dynamic container carries its interior and its rotation's centrifugal
 *    term, but the fluid does not feel its linear acceleration.
 *    The Coriolis force -2 W x u does no work but turns the relative flow.
 *    Its curl is 2 (W . grad) u for a steady W (div u = 0), so it enters the
 *    vorticity equation beside the stretching term: lib/fluid/stretch.c adds
 *    dt 2 (W . grad) u to every vorton inside a turning container, with the
 *    same velocity Jacobian (eddy_frame_rotation_at gives W). Like every
 *    vorticity source in eddy it acts where the vortons are: vorticity it
 *    would raise in fluid that holds no vorton is not represented. The
 *    Euler force's curl, -2 dW/dt, is not applied: it is the lag of a fluid
 *    whose container spins up under it, and here the container carries its
 *    interior (point 1), i.e. spin-up is immediate by design.
 *
 * Why this and not walls that push: the fluid here has no pressure, so a wall
 * can only move particles one at a time and never the fluid between them.
 * Imposing the rigid motion moves the whole interior the way a liquid
 * carried in a box moves, and leaves the walls only the relative flow to
 * deal with. A particle counts as inside if its centre is inside the inner
 * box; a particle in two containers is carried by the first in id order.
 *
 * Determinism: particles are split into fixed chunks; each writes only its
 * own particles; no sums. */
#include "bodies/bodies.h"
#include "hash/hash.h"
#include "runtime/vmath.h"

enum { CARRY_CHUNK = 4096 };

typedef struct frame_move {
    const body *b;
    vec3 c0, shift;    /* old centre, displacement of the centre */
    mat3 r0, turn_m_i; /* old rotation, R1 R0^T - I */
    bool turns;
} frame_move;

typedef struct carry_job {
    const frame_move *m;
    particle_array *a;
    bool vorticity;
} carry_job;

static bool inside_box(const body *b, vec3 c, const mat3 *r, vec3 x) {
    const vec3 q = m3_tmul_v(r, v3_sub(x, c));
    const eddy_shape *s = &b->def.shape;
    for (int k = 0; k < s->plane_count; ++k) {
        const eddy_plane *p = &s->planes[k];
        if (!(p->normal.x * q.x + p->normal.y * q.y + p->normal.z * q.z < p->offset)) return false;
    }
    return true;
}

static vec3 carry_point(const frame_move *m, vec3 x) {
    vec3 d = m->shift;
    if (m->turns) d = v3_add(d, m3_mul_v(&m->turn_m_i, v3_sub(x, m->c0)));
    return v3_add(x, d);
}

static void carry_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk;
    const carry_job *job = context;
    const frame_move *m = job->m;
    particle_array *a = job->a;
    for (int i = begin; i < end; ++i) {
        const vec3 x = {a->px[i], a->py[i], a->pz[i]};
        if (!inside_box(m->b, m->c0, &m->r0, x)) continue;
        const vec3 y = carry_point(m, x);
        a->px[i] = y.x; a->py[i] = y.y; a->pz[i] = y.z;
        if (!job->vorticity || !m->turns) continue;
        const vec3 w = {a->wx[i], a->wy[i], a->wz[i]};
        const vec3 w1 = v3_add(w, m3_mul_v(&m->turn_m_i, w));
        a->wx[i] = w1.x; a->wy[i] = w1.y; a->wz[i] = w1.z;
        if (!a->keeps_rate) continue;
        /* the last stretching rate turns with the vorticity it was taken of */
        const vec3 s = {a->sx[i], a->sy[i], a->sz[i]};
        const vec3 s1 = v3_add(s, m3_mul_v(&m->turn_m_i, s));
        a->sx[i] = s1.x; a->sy[i] = s1.y; a->sz[i] = s1.z;
    }
}

bool eddy_body_carries_fluid(const body *b) {
    return b->alive && b->def.shape.type == EDDY_SHAPE_POLYTOPE && b->def.shape.hole;
}

eddy_body_pose eddy_body_pose_of(const body *b) {
    eddy_body_pose p;
    memcpy(p.position, b->position, sizeof p.position);
    memcpy(p.rotation, b->rotation, sizeof p.rotation);
    return p;
}

void eddy_carry_interior(eddy_world *w, const body *b, const eddy_body_pose *old) {
    if (!eddy_body_carries_fluid(b)) return;
    frame_move m;
    m.b = b;
    m.c0 = (vec3){old->position[0], old->position[1], old->position[2]};
    m.shift = v3_sub((vec3){b->position[0], b->position[1], b->position[2]}, m.c0);
    memcpy(m.r0.m, old->rotation, sizeof m.r0.m);
    m.turns = memcmp(old->rotation, b->rotation, sizeof old->rotation) != 0;
    if (!m.turns && m.shift.x == 0.0f && m.shift.y == 0.0f && m.shift.z == 0.0f) return;
    if (m.turns) {
        mat3 r1;
        memcpy(r1.m, b->rotation, sizeof r1.m);
        const mat3 r0t = m3_transpose(&m.r0);
        m.turn_m_i = m3_mul(&r1, &r0t);
        for (int k = 0; k < 3; ++k) m.turn_m_i.m[k][k] -= 1.0f;
    }
    carry_job jv = {&m, &w->vortons, true}, jt = {&m, &w->tracers, false};
    eddy_parallel_for(&w->tasks, w->vortons.count, CARRY_CHUNK, carry_chunk, &jv);
    eddy_early_hash_stale_from(w, 0);
    eddy_parallel_for(&w->tasks, w->tracers.count, CARRY_CHUNK, carry_chunk, &jt);
}

static bool frame_accelerates(const body *b) {
    const float *a = b->frame_acceleration, *al = b->frame_angular_acceleration;
    const float *om = b->angular_velocity;
    return a[0] != 0.0f || a[1] != 0.0f || a[2] != 0.0f || al[0] != 0.0f || al[1] != 0.0f ||
           al[2] != 0.0f || om[0] != 0.0f || om[1] != 0.0f || om[2] != 0.0f;
}

bool eddy_frames_accelerate(const eddy_world *w) {
    for (int s = 0; s < w->body_count; ++s)
        if (eddy_body_carries_fluid(&w->bodies[s]) && frame_accelerates(&w->bodies[s])) return true;
    return false;
}

static bool frame_rotates(const body *b) {
    const float *om = b->angular_velocity;
    return om[0] != 0.0f || om[1] != 0.0f || om[2] != 0.0f;
}

bool eddy_frames_rotate(const eddy_world *w) {
    for (int s = 0; s < w->body_count; ++s)
        if (eddy_body_carries_fluid(&w->bodies[s]) && frame_rotates(&w->bodies[s])) return true;
    return false;
}

/* The container that carries x (the first in slot order whose inner box
 * holds it, as for the rigid motion), or NULL. */
static const body *carrying_container(const eddy_world *w, vec3 x) {
    for (int s = 0; s < w->body_count; ++s) {
        const body *b = &w->bodies[s];
        if (!eddy_body_carries_fluid(b)) continue;
        const vec3 c = {b->position[0], b->position[1], b->position[2]};
        mat3 r;
        memcpy(r.m, b->rotation, sizeof r.m);
        if (inside_box(b, c, &r, x)) return b;
    }
    return NULL;
}

vec3 eddy_frame_rotation_at(const eddy_world *w, vec3 x) {
    const body *b = carrying_container(w, x);
    if (!b) return (vec3){0.0f, 0.0f, 0.0f};
    return (vec3){b->angular_velocity[0], b->angular_velocity[1], b->angular_velocity[2]};
}

vec3 eddy_frame_apparent_gravity(const eddy_world *w, vec3 x, vec3 g_scaled, float scale) {
    const body *b = carrying_container(w, x);
    if (!b || !frame_accelerates(b)) return g_scaled;
    const vec3 d = v3_sub(x, (vec3){b->position[0], b->position[1], b->position[2]});
    const vec3 om = {b->angular_velocity[0], b->angular_velocity[1], b->angular_velocity[2]};
    const vec3 al = {b->frame_angular_acceleration[0], b->frame_angular_acceleration[1],
                     b->frame_angular_acceleration[2]};
    const vec3 a = {b->frame_acceleration[0], b->frame_acceleration[1], b->frame_acceleration[2]};
    const vec3 fict = v3_add(v3_add(a, v3_cross(al, d)), v3_cross(om, v3_cross(om, d)));
    return v3_sub(g_scaled, v3_scale(fict, scale));
}
