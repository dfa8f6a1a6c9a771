/* SPDX-License-Identifier: MIT */
/* Containers hold the dynamic bodies inside them.
 *
 * Design note. eddy does not collide bodies with each other in general; it
 * does keep a body inside the container that holds it, so that a ball the
 * fluid pushes against a wall, or a box in a container that is carried and
 * tipped, stays inside instead of passing through the wall. Before the
 * bodies are integrated in each substep, eddy_phase_find_held_bodies gives
 * every dynamic solid body the first container (a hole polytope, slot order)
 * whose inside holds its centre. After the integration,
 * eddy_phase_contain_bodies takes every held body (slot order) with its
 * container, wherever the step took the body (a thin plate falling fast may
 * have its centre behind the floor by then), and for that pair:
 *
 * 1. Contacts. For each wall plane i of the container, in order, the points
 *    of the body behind it (n_i . q > offset_i in the container's frame):
 *    a sphere's deepest point (centre + r n_i), or a polytope's vertices in
 *    order. A contact has the wall's normal n pointing into the container
 *    (world frame), its point p and its depth. At most CONTAIN_MAX_CONTACTS
 *    per pair, the first ones in that order.
 * 2. Velocities. Sequential impulses: CONTAIN_ITERATIONS passes over the
 *    contacts in order. The normal impulse brings the normal speed to
 *    -e v_n (v_n the approach speed before the impulses, e the pair's
 *    restitution, the larger of the two bodies'), or to 0 for an approach
 *    slower than CONTAIN_BOUNCE_SPEED; it is accumulated per contact and
 *    clamped at zero, so the passes converge to the pair's impulses instead
 *    of pulling. Friction is Coulomb's, along two fixed tangents of n, the
 *    accumulated tangential impulse clamped to a disc of radius mu times the
 *    normal one (mu = sqrt(mu_body mu_container): 0.5 for the defaults). The relative velocity is
 *    v_b + w_b x r_b - (v_c + w_c x r_c): a moving container's walls push
 *    and drag what they hold. A dynamic container takes the opposite
 *    impulses (momentum is exchanged, not created); a kinematic one is
 *    immovable.
 * 3. Positions. The body is translated out of every wall it is still
 *    behind, wall by wall, in at most CONTAIN_POSITION_PASSES passes, so a
 *    body that fits ends the substep with no depth left (to rounding). Only
 *    the held body moves: a dynamic container keeps its pose, and so the
 *    fluid it carries.
 *
 * No state is kept between substeps (no warm starting), so snapshots and
 * replays are unchanged by this phase; a body that never touches a wall
 * gets no bit from it. A body whose centre is outside every container at
 * the start of a substep (it was created there, teleported out, or is larger
 * than the container's inside) is not held by any; one inside two nested
 * containers is held by the first in slot order.
 *
 * Determinism: one thread, a fixed order of containers, bodies, planes and
 * vertices, and only + - * / and sqrt in the step's canonical FP mode: the
 * same bits for every worker count and every machine. */
#include "bodies/bodies.h"
#include "bodies/geometry.h"
#include "runtime/vmath.h"

#include <string.h>

/* Slower approaches do not bounce: a body resting on a floor meets it at
 * g dt (0.33 m/s at 1/30 s) every substep and must stay at rest. */
static const float CONTAIN_BOUNCE_SPEED = 0.5f;

enum {
    CONTAIN_MAX_CONTACTS = 64,
    CONTAIN_ITERATIONS = 8,
    CONTAIN_POSITION_PASSES = 4,
};

typedef struct contact {
    vec3 normal;     /* world, from the wall into the container */
    vec3 tangent[2]; /* world, with normal a right-handed orthonormal basis */
    vec3 arm_body, arm_container; /* contact point minus each centre of mass */
    float mass_normal, mass_tangent[2]; /* 1 / effective inverse mass */
    float target;    /* normal speed to reach: -e v_n before the impulses, or 0 */
    float impulse_normal, impulse_tangent[2];
} contact;

typedef struct contact_pair {
    body *held, *container;
    float friction, restitution; /* the pair's: sqrt of the product, the larger */
    int count;
    contact c[CONTAIN_MAX_CONTACTS];
} contact_pair;

static vec3 inv_inertia_mul(const body *b, vec3 v) {
    const mat3 iw = m3_load(b->inv_inertia_world);
    return m3_mul_v(&iw, v);
}

/* Two unit tangents of the unit normal n: t0 perpendicular to n and to the
 * coordinate axis least aligned with n (ties to the lower axis), t1 = n x t0. */
static void tangents_of(vec3 n, vec3 t[2]) {
    const float ax = n.x < 0.0f ? -n.x : n.x, ay = n.y < 0.0f ? -n.y : n.y;
    const float az = n.z < 0.0f ? -n.z : n.z;
    vec3 axis = {0.0f, 0.0f, 1.0f};
    if (ax <= ay && ax <= az)
        axis = (vec3){1.0f, 0.0f, 0.0f};
    else if (ay <= az)
        axis = (vec3){0.0f, 1.0f, 0.0f};
    t[0] = v3_normalize(v3_cross(n, axis));
    t[1] = v3_cross(n, t[0]);
}

static vec3 point_velocity(const body *b, vec3 arm) {
    return v3_add(v3_load(b->linear_velocity), v3_cross(v3_load(b->angular_velocity), arm));
}

/* The held body's velocity at contact k relative to the container's. */
static vec3 relative_velocity(const contact_pair *p, const contact *k) {
    return v3_sub(point_velocity(p->held, k->arm_body),
                  point_velocity(p->container, k->arm_container));
}

/* 1 / (1/m + (I^-1 (r x d) x r) . d) summed over the movable bodies. */
static float effective_mass(const contact_pair *p, vec3 arm_b, vec3 arm_c, vec3 d) {
    const body *b = p->held;
    float k = b->inv_mass + v3_dot(v3_cross(inv_inertia_mul(b, v3_cross(arm_b, d)), arm_b), d);
    const body *c = p->container;
    if (c->inv_mass != 0.0f)
        k += c->inv_mass + v3_dot(v3_cross(inv_inertia_mul(c, v3_cross(arm_c, d)), arm_c), d);
    return k > 0.0f ? 1.0f / k : 0.0f;
}

static void add_contact(contact_pair *p, vec3 normal, vec3 point) {
    if (p->count == CONTAIN_MAX_CONTACTS) return;
    contact *k = &p->c[p->count++];
    memset(k, 0, sizeof *k);
    k->normal = normal;
    tangents_of(normal, k->tangent);
    k->arm_body = v3_sub(point, v3_load(p->held->position));
    k->arm_container = v3_sub(point, v3_load(p->container->position));
    k->mass_normal = effective_mass(p, k->arm_body, k->arm_container, normal);
    for (int j = 0; j < 2; ++j)
        k->mass_tangent[j] = effective_mass(p, k->arm_body, k->arm_container, k->tangent[j]);
    const float approach = v3_dot(relative_velocity(p, k), normal);
    k->target = approach < -CONTAIN_BOUNCE_SPEED ? -p->restitution * approach : 0.0f;
}

/* The held body's points in the container's frame: a sphere's centre (and
 * its radius), a polytope's vertices. Returns the number of points. */
static int held_points(const body *held, const body *container, vec3 *out, int capacity,
                       float *radius) {
    const mat3 rc = m3_load(container->rotation);
    const vec3 centre = v3_sub(v3_load(held->position), v3_load(container->position));
    if (held->def.shape.type == EDDY_SHAPE_SPHERE) {
        *radius = held->def.shape.radius;
        out[0] = m3_tmul_v(&rc, centre);
        return 1;
    }
    *radius = 0.0f;
    const mat3 rb = m3_load(held->rotation);
    const int n = held->vertex_count < capacity ? held->vertex_count : capacity;
    for (int k = 0; k < n; ++k)
        out[k] = m3_tmul_v(&rc, v3_add(centre, m3_mul_v(&rb, v3_from(held->vertices[k]))));
    return n;
}

static void apply_impulse(contact_pair *p, const contact *k, vec3 j) {
    eddy_body_receive(p->held, j, v3_cross(k->arm_body, j), 0.0f);
    if (p->container->inv_mass != 0.0f) {
        const vec3 minus = v3_scale(j, -1.0f);
        eddy_body_receive(p->container, minus, v3_cross(k->arm_container, minus), 0.0f);
    }
}

static void solve_velocities(contact_pair *p) {
    for (int it = 0; it < CONTAIN_ITERATIONS; ++it)
        for (int n = 0; n < p->count; ++n) {
            contact *k = &p->c[n];
            vec3 rel = relative_velocity(p, k);
            /* friction first, bounded by the normal impulse so far */
            const float limit = p->friction * k->impulse_normal;
            float t[2];
            for (int j = 0; j < 2; ++j)
                t[j] = k->impulse_tangent[j] - k->mass_tangent[j] * v3_dot(rel, k->tangent[j]);
            const float t2 = t[0] * t[0] + t[1] * t[1];
            if (t2 > limit * limit) {
                const float s = t2 > 0.0f ? limit / sqrtf(t2) : 0.0f;
                t[0] *= s;
                t[1] *= s;
            }
            const vec3 jt = v3_add(v3_scale(k->tangent[0], t[0] - k->impulse_tangent[0]),
                                   v3_scale(k->tangent[1], t[1] - k->impulse_tangent[1]));
            k->impulse_tangent[0] = t[0];
            k->impulse_tangent[1] = t[1];
            apply_impulse(p, k, jt);
            rel = relative_velocity(p, k);
            float lambda =
                k->impulse_normal + k->mass_normal * (k->target - v3_dot(rel, k->normal));
            if (!(lambda > 0.0f)) lambda = 0.0f;
            apply_impulse(p, k, v3_scale(k->normal, lambda - k->impulse_normal));
            k->impulse_normal = lambda;
        }
}

enum { CONTAIN_MAX_POINTS = 256 };

/* Gathers the pair's contacts; false when the body touches no wall. */
static bool gather_contacts(contact_pair *p, const vec3 *q, int points, float radius) {
    const eddy_shape *s = &p->container->def.shape;
    const mat3 rc = m3_load(p->container->rotation);
    const vec3 centre = v3_load(p->held->position);
    p->count = 0;
    for (int i = 0; i < s->plane_count; ++i) {
        const vec3 n = v3_from(s->planes[i].normal);
        const vec3 inward = v3_scale(m3_mul_v(&rc, n), -1.0f);
        for (int k = 0; k < points; ++k) {
            const float depth = v3_dot(n, q[k]) - s->planes[i].offset + radius;
            if (!(depth > 0.0f)) continue;
            /* the sphere's deepest point, or the vertex (centre + R_c (q_k - q_centre)) */
            const vec3 point =
                radius > 0.0f ? v3_add(centre, v3_scale(inward, -radius))
                              : v3_add(v3_load(p->container->position), m3_mul_v(&rc, q[k]));
            add_contact(p, inward, point);
        }
    }
    return p->count > 0;
}

/* Translates the held body out of the walls it is still behind. */
static void solve_positions(contact_pair *p, const vec3 *q, int points, float radius) {
    const eddy_shape *s = &p->container->def.shape;
    float deepest[EDDY_MAX_PLANES];
    for (int i = 0; i < s->plane_count; ++i) {
        const vec3 n = v3_from(s->planes[i].normal);
        float m = v3_dot(n, q[0]);
        for (int k = 1; k < points; ++k) {
            const float d = v3_dot(n, q[k]);
            if (d > m) m = d;
        }
        deepest[i] = m - s->planes[i].offset + radius;
    }
    vec3 shift = {0.0f, 0.0f, 0.0f}; /* container frame */
    for (int pass = 0; pass < CONTAIN_POSITION_PASSES; ++pass) {
        bool moved = false;
        for (int i = 0; i < s->plane_count; ++i) {
            const vec3 n = v3_from(s->planes[i].normal);
            const float depth = deepest[i] + v3_dot(n, shift);
            if (!(depth > 0.0f)) continue;
            shift = v3_sub(shift, v3_scale(n, depth));
            moved = true;
        }
        if (!moved) break;
    }
    const mat3 rc = m3_load(p->container->rotation);
    const vec3 d = m3_mul_v(&rc, shift);
    body *b = p->held;
    b->position[0] += d.x;
    b->position[1] += d.y;
    b->position[2] += d.z;
}

/* The centre of `held` lies inside `container`. */
static bool holds(const body *container, const body *held) {
    const mat3 rc = m3_load(container->rotation);
    const vec3 q = m3_tmul_v(&rc, v3_sub(v3_load(held->position), v3_load(container->position)));
    int plane = 0;
    return eddy_polytope_contact_distance(&container->def.shape, q, &plane) > 0.0f;
}

static bool is_container(const body *b) {
    return b->alive && b->def.shape.type == EDDY_SHAPE_POLYTOPE && b->def.shape.hole;
}

static bool is_holdable(const body *b) {
    return b->alive && b->def.type == EDDY_BODY_DYNAMIC && !b->def.shape.hole;
}

void eddy_phase_find_held_bodies(eddy_world *w) {
    for (int h = 0; h < w->body_count; ++h) {
        body *held = &w->bodies[h];
        held->held_by = 0;
        if (!is_holdable(held)) continue;
        for (int c = 0; c < w->body_count; ++c) {
            const body *container = &w->bodies[c];
            if (c != h && is_container(container) && holds(container, held)) {
                held->held_by = c + 1;
                break;
            }
        }
    }
}

void eddy_phase_contain_bodies(eddy_world *w) {
    contact_pair pair;
    vec3 q[CONTAIN_MAX_POINTS];
    for (int h = 0; h < w->body_count; ++h) {
        body *held = &w->bodies[h];
        if (held->held_by == 0 || !is_holdable(held)) continue;
        body *container = &w->bodies[held->held_by - 1];
        float radius = 0.0f;
        const int points = held_points(held, container, q, CONTAIN_MAX_POINTS, &radius);
        if (points == 0) continue;
        pair.held = held;
        pair.container = container;
        pair.friction = sqrtf(held->def.friction * container->def.friction);
        pair.restitution = held->def.restitution > container->def.restitution
                               ? held->def.restitution
                               : container->def.restitution;
        if (!gather_contacts(&pair, q, points, radius)) continue;
        solve_velocities(&pair);
        solve_positions(&pair, q, points, radius);
    }
}
