/* SPDX-License-Identifier: MIT */
/* Fluid-body boundary conditions (D10): solids in id order, then containers.
 *
 * Placement: a push-out along the wall normal, never a snap to a position
 * the wall defines. A particle whose centre is closer to a wall than its
 * radius r (signed distance d < r along the normal n into the fluid) moves
 * along n only, x' = x + (f(d) - d) n, with
 *     f(d) = d                          d >= r   (untouched, same bits)
 *     f(d) = 2r - d                     0 <= d < r  (mirror about r)
 *     f(d) = 2r + r |d| / (r + |d|)     d < 0    (centre past the wall)
 * It keeps its coordinates along the wall (bit for bit when the wall is
 * axis-aligned). Why two particles are never mapped onto one point:
 * - f is one-to-one on d < r: the mirror maps [0, r) onto (r, 2r] and
 *   the last branch, strictly increasing in |d|, maps d < 0 onto (2r, 3r);
 *   with the tangential coordinates unchanged, two touching particles at
 *   different positions stay at different positions.
 * - A container applies its walls one after the other, each once, in plane
 *   order (a corner is two or three such moves, never "the corner point");
 *   a composition of one-to-one maps is one-to-one.
 * - The mirror is an isometry along n: it does not contract. A map that
 *   squeezes the band (0, r) into a thinner one (or onto d = r, as eddy's
 *   former C + r n did) contracts particles that the flow keeps pushing into
 *   a wall step after step; they converge geometrically and, in float,
 *   merge, and particles on one point move together forever (sloshing ended
 *   with 30,629 tracers on 6 points). The mirror only exchanges order.
 * The one coincidence left is a touching particle landing exactly (every
 * bit of all three coordinates) on an untouched one in (r, 3r): chance, not
 * a mechanism; measured: 100% distinct positions in every container scene.
 * Solids (spheres, boxes, plates) keep the original's placement, C + r n
 * (C the particle's projection on the nearest face, or the face it entered
 * through): the drag, lift and Magnus calibration of the moving-body scenes
 * rests on vortons at exactly one radius (with the mirror box_magnus lost
 * its deflection), and fluid streams past a solid instead of being held
 * against it, so the collapse that ruined the containers does not build up
 * (buoyant_ball, a ball in a container, keeps 100% distinct positions).
 *
 * Containers (holes) carry their interior (lib/bodies/carry.c): the fluid inside is
 * solved in the container's frame, so its walls are at rest for the fluid and
 * the wall velocity used below is zero for them.
 *
 * Tracers (they carry the linear momentum exchange, as in the original): a
 * tracer closer to a wall than its radius is pushed out as above, and if it
 * moves into the wall its normal relative velocity is reflected with
 * restitution e:
 *     v' = v - (1 + e) ((v - v_b(C)) . n) n,   v_b(C) = v_b + w_b x (C - x_b).
 * The body receives the momentum the tracer lost, j = m_t (v - v'), and the
 * angular impulse (C - x_b) x j about its centre of mass.
 *
 * Vortons (they carry the angular momentum exchange): a vorton within
 * boundary_thickness radii of a wall is pushed out as above, and its
 * vorticity relaxes (shedding_gain) toward the vorticity that cancels the
 * slip at the contact point. At a solid, each vorton cancels it alone,
 *     w1 = (3 |rho| / r^3) (dv x rho),   dv = u - v_b(C),
 * rho = -max(d, r) n (d the distance before the push-out; exactly: the
 * kernel of w1 at distance |rho| induces -dv_tangential at C). At a
 * container's wall the vortons form a layer, and the layer cancels the slip
 * together: a sheet of touching vortons of radius r, one per (2r)^2 of wall,
 * has strength g = w V / (2r)^2 and induces -g/2 on its wall side, so
 *     w1 = 2 (2r)^2 / V (n x dv) = (6 / (pi r)) (n x dv),
 * 2/pi of the lone vorton's 3/r. With 3/r every wall layer over-cancelled
 * its slip by pi/2, and the excess, +g/2 on the fluid side, drove the flow
 * along the wall further: with an accurate velocity field (the multipole
 * treecode, or direct summation) layers at rest in a closed box overturned
 * (enstrophy 4e-9 to 4 over 3,000 frames; the original traversal's smoother
 * field held it down; docs/coupling.md §6.2). Both plus
 * spin_gain (2R/r) 2 w_b, the body's own vorticity carried by its wall layer
 * (calibrated as the original: R the body's size, r the vorton radius). A vorton
 * is a ball of radius r turning at w/2, so its spin angular momentum is
 * L = (2/5) m r^2 w/2 = m r^2 w / 5; the body receives -dL (total angular
 * momentum body + sum of vorton spins is conserved by every collision). Heat:
 * the vorton's temperature T = T0 rho0 / rho relaxes toward the body's; the
 * body loses the heat the fluid gains.
 *
 * Determinism: particles are split into fixed chunks; each chunk writes its
 * own particles and its own partial impulse; partials are combined by the
 * fixed reduction tree, then applied to the body before the next body runs.
 *
 * Broad phase (lib/bodies/broadphase.c): a chunk visits only the particles that may
 * be within reach of the body, in ascending index; every particle it skips is
 * one the tests below would leave untouched, so the bits are the same.
 *
 * Tracers against a solid (lib/bodies/contact_lanes.h): the candidates are first
 * classified four at a time, and the common contact (outside a polytope,
 * within the radius of a face) is computed there with the operations of
 * tracer_hit, lanes being tracers; this file still books every impulse in
 * ascending tracer index and runs the one-tracer code for anything else near
 * the body. EDDY_MUTATION_NO_CONTACT_LANES runs the one-tracer code for every
 * candidate (the reference; tests/test_contact_lanes.c). */
#include "bodies/broadphase.h"
#include "bodies/contact_lanes.h"
#include "bodies/bodies.h"
#include "hash/hash.h"
#include "bodies/geometry.h"
#include "runtime/vmath.h"

enum { COLLIDE_CHUNK = 2048 };
/* a hash block is owned by one chunk: marking it stale (eddy_early_hash_stale) is no race */
_Static_assert(COLLIDE_CHUNK % EDDY_HASH_BLOCK_PARTICLES == 0, "a chunk holds whole hash blocks");

typedef struct impulse {
    double linear[3], angular[3], heat;
} impulse;

typedef struct pose {
    vec3 x, v, w;
    mat3 r;
    float radius;      /* sphere radius */
    float circum, in;  /* broad-phase radii */
    const eddy_shape *shape;
    bool sphere, hole;
    float temperature, conductivity;
} pose;

typedef struct collide_job {
    eddy_world *w;
    const pose *b;
    impulse *partials;
    const eddy_broad_body *broad; /* NULL: every particle is a candidate */
    eddy_broad_box *boxes;
    bool fit;                     /* first body of the pass: fit the boxes */
    const eddy_contact_body *lanes; /* tracers in lanes (NULL: one at a time) */
} collide_job;

typedef struct contact {
    vec3 c;       /* contact point, world */
    vec3 n;       /* normal into the fluid, world */
    float dist;   /* signed distance of the particle centre from the wall */
} contact;

static pose pose_of(const body *b) {
    pose p;
    p.x = (vec3){b->position[0], b->position[1], b->position[2]};
    p.v = (vec3){b->linear_velocity[0], b->linear_velocity[1], b->linear_velocity[2]};
    p.w = (vec3){b->angular_velocity[0], b->angular_velocity[1], b->angular_velocity[2]};
    memcpy(p.r.m, b->rotation, sizeof p.r.m);
    p.shape = &b->def.shape;
    p.sphere = b->def.shape.type == EDDY_SHAPE_SPHERE;
    p.hole = !p.sphere && b->def.shape.hole;
    p.radius = b->def.shape.radius;
    p.circum = b->circumradius;
    p.in = b->inradius;
    p.temperature = b->temperature;
    p.conductivity = b->def.thermal_conductivity;
    if (p.hole) { /* the interior moves with the container (lib/bodies/carry.c) */
        p.v = (vec3){0.0f, 0.0f, 0.0f};
        p.w = (vec3){0.0f, 0.0f, 0.0f};
    }
    return p;
}

/* Broad phase: can a particle at x be within `reach` of the walls? */
static bool near_body(const pose *b, vec3 x, float reach) {
    const vec3 d = v3_sub(x, b->x);
    const float d2 = v3_dot(d, d);
    if (b->sphere) return d2 < (b->radius + reach) * (b->radius + reach);
    if (!b->hole) return d2 < (b->circum + reach) * (b->circum + reach);
    const float inner = b->in - reach;
    return inner <= 0.0f || d2 > inner * inner;
}

static contact sphere_contact(const pose *b, vec3 x) {
    const vec3 d = v3_sub(x, b->x);
    const float len = v3_length(d);
    contact k;
    k.n = len > 0.0f ? v3_scale(d, 1.0f / len) : (vec3){0.0f, 0.0f, 1.0f};
    k.c = v3_add(b->x, v3_scale(k.n, b->radius));
    k.dist = len - b->radius;
    return k;
}

static contact polytope_contact(const pose *b, vec3 x, const vec3 *velocity) {
    const vec3 q = m3_tmul_v(&b->r, v3_sub(x, b->x));
    int plane = 0;
    float dist;
    dist = EDDY_FLT_MAX;
    /* Outside a solid the moving-point rule gives up (EDDY_FLT_MAX) and the
     * nearest face decides: ask the nearest face first, the same value. */
    if (velocity && !b->hole) {
        dist = eddy_polytope_contact_distance(b->shape, q, &plane);
        if (!(dist > 0.0f)) dist = EDDY_FLT_MAX;
    }
    if (velocity && !(dist < EDDY_FLT_MAX)) {
        const vec3 vq = m3_tmul_v(&b->r, v3_sub(*velocity, b->v));
        dist = eddy_polytope_collision_distance(b->shape, q, vq, &plane);
    }
    /* Outside a solid (or no velocity given): the nearest face, so a
     * particle within its radius of a face collides before it penetrates. */
    if (!(dist < EDDY_FLT_MAX)) dist = eddy_polytope_contact_distance(b->shape, q, &plane);
    contact k;
    k.dist = dist;
    if (!(dist < EDDY_FLT_MAX)) {
        k.c = x;
        k.n = (vec3){0.0f, 0.0f, 1.0f};
        return k;
    }
    vec3 nb;
    const vec3 cb = eddy_polytope_contact_point(b->shape, q, plane, dist, &nb);
    k.c = v3_add(b->x, m3_mul_v(&b->r, cb));
    k.n = m3_mul_v(&b->r, nb);
    return k;
}

static vec3 surface_velocity(const pose *b, vec3 c) {
    return v3_add(b->v, v3_cross(b->w, v3_sub(c, b->x)));
}

/* Distance from the wall after the push-out (design note): the mirror image
 * of d about r for 0 <= d < r, and for a centre past the wall (d < 0)
 * 2r + r |d| / (r + |d|), below 3r however deep it went. */
static float pushed_distance(float d, float r) {
    if (!(d < r)) return d;
    if (!(d < 0.0f)) return r + (r - d);
    return 2.0f * r - r * d / (r - d);
}

/* Moves x along the contact normal: to distance f(d) from a container's
 * wall, to C + r n from a solid's. */
static vec3 push_out(const pose *b, const contact *k, vec3 x, float r) {
    if (!b->hole) { /* solids: the original's placement, C + r n (design note) */
        return k->dist < r ? v3_add(k->c, v3_scale(k->n, r * (1.0f + 1.0e-4f))) : x;
    }
    return v3_add(x, v3_scale(k->n, pushed_distance(k->dist, r) - k->dist));
}

/* Contact with wall `plane` of a hole: n into the fluid, d the distance of x
 * from that wall (positive inside), C the projection of x on it. */
static contact hole_wall_contact(const pose *b, vec3 x, int plane) {
    const eddy_plane *p = &b->shape->planes[plane];
    const vec3 q = m3_tmul_v(&b->r, v3_sub(x, b->x));
    const vec3 nb = {p->normal.x, p->normal.y, p->normal.z};
    contact k;
    k.dist = p->offset - v3_dot(nb, q);
    k.n = v3_scale(m3_mul_v(&b->r, nb), -1.0f);
    k.c = v3_sub(x, v3_scale(k.n, k.dist));
    return k;
}

/* ---------------------------------------------------------------- broad phase */
/* The particles of [begin, end) that may be within reach of the body. */
static int chunk_candidates(const collide_job *job, const particle_array *a, int begin, int end,
                            int *out) {
    if (job->fit) eddy_broad_fit(job->boxes, a, begin, end);
    if (job->broad) return eddy_broad_candidates(job->broad, job->boxes, a, begin, end, out);
    for (int i = begin; i < end; ++i) out[i - begin] = i;
    return end - begin;
}

/* ---------------------------------------------------------------- tracers */
/* One tracer against one wall contact: reflect, push out, book the impulse. */
static void tracer_hit(const pose *b, const contact *k, float r, float m, float bounce, vec3 *x,
                       vec3 *v, impulse *acc) {
    const float s = v3_dot(v3_sub(*v, surface_velocity(b, k->c)), k->n);
    const vec3 v_new = s < 0.0f ? v3_sub(*v, v3_scale(k->n, bounce * s)) : *v;
    const vec3 j = v3_scale(v3_sub(*v, v_new), m);
    const vec3 t = v3_cross(v3_sub(k->c, b->x), j);
    acc->linear[0] += (double)j.x; acc->linear[1] += (double)j.y; acc->linear[2] += (double)j.z;
    acc->angular[0] += (double)t.x; acc->angular[1] += (double)t.y; acc->angular[2] += (double)t.z;
    *x = push_out(b, k, *x, r);
    *v = v_new;
}

/* One tracer against the body, one tracer at a time: test, respond, book. */
static void tracer_collide(const collide_job *job, const eddy_contact_rules *k, int i,
                           impulse *acc) {
    const pose *b = job->b;
    particle_array *a = &job->w->tracers;
    const float r = k->r;
    vec3 x = {a->px[i], a->py[i], a->pz[i]};
    if (!near_body(b, x, r)) return;
    vec3 v = {a->vx[i], a->vy[i], a->vz[i]};
    const float m = (k->rho0 + a->drho[i]) * k->volume;
    bool moved = false;
    if (b->hole) {
        for (int plane = 0; plane < b->shape->plane_count; ++plane) {
            const contact c = hole_wall_contact(b, x, plane);
            if (!(c.dist < r)) continue;
            tracer_hit(b, &c, r, m, k->bounce, &x, &v, acc);
            moved = true;
        }
    } else {
        const contact c = b->sphere ? sphere_contact(b, x) : polytope_contact(b, x, &v);
        if (c.dist < r) {
            tracer_hit(b, &c, r, m, k->bounce, &x, &v, acc);
            moved = true;
        }
    }
    if (!moved) return;
    eddy_broad_include(job->boxes, i, x);
    a->px[i] = x.x; a->py[i] = x.y; a->pz[i] = x.z;
    a->vx[i] = v.x; a->vy[i] = v.y; a->vz[i] = v.z;
    eddy_early_hash_stale(job->w, i);
}

/* Candidate `at` of a lanes batch that hit a face: book its impulse (as
 * tracer_hit does, in double, linear then angular) and store its state. */
static void tracer_apply_hit(const collide_job *job, const eddy_contact_out *o, int at, int i,
                             impulse *acc) {
    particle_array *a = &job->w->tracers;
    for (int c = 0; c < 3; ++c) acc->linear[c] += (double)o->j[c][at];
    for (int c = 0; c < 3; ++c) acc->angular[c] += (double)o->t[c][at];
    const vec3 x = {o->x[0][at], o->x[1][at], o->x[2][at]};
    eddy_broad_include(job->boxes, i, x);
    a->px[i] = x.x; a->py[i] = x.y; a->pz[i] = x.z;
    a->vx[i] = o->v[0][at]; a->vy[i] = o->v[1][at]; a->vz[i] = o->v[2][at];
    eddy_early_hash_stale(job->w, i);
}

/* The candidates in batches classified in lanes, then, in ascending index,
 * each one skipped, applied or left to tracer_collide. */
static void tracer_candidates_lanes(const collide_job *job, const eddy_contact_rules *k,
                                    const int *near, int candidates, impulse *acc) {
    eddy_contact_out out;
    for (int from = 0; from < candidates; from += EDDY_CONTACT_BATCH) {
        const int rest = candidates - from;
        const int count = rest < EDDY_CONTACT_BATCH ? rest : EDDY_CONTACT_BATCH;
        eddy_contact_tracers(job->lanes, k, &job->w->tracers, near + from, count, &out);
        for (int c = 0; c < count; ++c) {
            if (out.what[c] == EDDY_CONTACT_HIT) tracer_apply_hit(job, &out, c, near[from + c], acc);
            else if (out.what[c] == EDDY_CONTACT_SCALAR) tracer_collide(job, k, near[from + c], acc);
        }
    }
}

static eddy_contact_rules tracer_rules_of(const eddy_world_def *d) {
    eddy_contact_rules k;
    k.r = d->tracer_radius;
    k.rho0 = d->ambient_density;
    k.volume = (4.0f / 3.0f) * EDDY_PI * k.r * k.r * k.r;
    k.bounce = 1.0f + d->tracer_restitution;
    k.push = k.r * (1.0f + 1.0e-4f); /* push_out's placement of a solid's tracer */
    return k;
}

static void tracer_chunk(int chunk, int begin, int end, void *context) {
    const collide_job *job = context;
    const eddy_contact_rules k = tracer_rules_of(&job->w->def);
    impulse acc = {{0}, {0}, 0};
    int near[COLLIDE_CHUNK];
    const int candidates = chunk_candidates(job, &job->w->tracers, begin, end, near);
    if (job->lanes) {
        tracer_candidates_lanes(job, &k, near, candidates, &acc);
    } else {
        for (int c = 0; c < candidates; ++c) tracer_collide(job, &k, near[c], &acc);
    }
    job->partials[chunk] = acc;
}

/* ---------------------------------------------------------------- vortons */
typedef struct vorton_rules {
    float r, reach, rho0, t0, volume, spin, shed, heat_gain, cf;
    float w_max; /* bound on |w1| (EDDY_BODY_COUPLING_FLOW), or 0: none */
    float layer; /* a container wall layer's slip-cancelling scale, 6 / (pi r^2) */
} vorton_rules;

static vorton_rules rules_of(const eddy_world *w, const pose *b) {
    const eddy_world_def *d = &w->def;
    vorton_rules k;
    k.r = d->vorton_radius;
    k.reach = d->boundary_thickness * k.r;
    k.rho0 = d->ambient_density;
    k.t0 = d->ambient_temperature;
    k.volume = (4.0f / 3.0f) * EDDY_PI * k.r * k.r * k.r;
    /* Spin term: eddy's field does not contain the body's own vorticity 2 w_b,
     * so the vortons at its wall carry it, scaled like the wall layer's slip
     * vorticity (~3 R/r |w_b|) by the body's size over the vorton's: 2R/r,
     * the original's calibration (P13). R: sphere radius, a solid's
     * circumradius, a container's inradius. */
    const float size = b->sphere ? b->radius : b->hole ? b->in : b->circum;
    k.spin = 2.0f * d->spin_gain * (2.0f * size / k.r);
    k.shed = d->shedding_gain;
    /* EDDY_BODY_COUPLING_FLOW, solids: shedding_gain is the relaxation per 1/30 s,
     * whatever the tick rate, so the wall layer and the wake it sheds relax
     * at one rate per second at 30, 60 or 120 Hz (docs/coupling.md §8.2) */
    const float h = d->dt / (float)d->substeps;
    const bool flow_solid = d->body_coupling == EDDY_BODY_COUPLING_FLOW && !b->hole;
    if (flow_solid && k.shed > 0.0f && k.shed < 1.0f)
        k.shed = 1.0f - eddy_expf(30.0f * h * eddy_logf(1.0f - k.shed));
    k.layer = 6.0f / (EDDY_PI * k.r * k.r);
    k.w_max = 0.0f;
    /* The wall layer's stability bound (docs/coupling.md §8.2): a vorton
     * turns at |w|/2, by at most one radian per substep, and the bound is
     * the same at every tick rate from 30 Hz up (so is the wake it sheds). */
    if (flow_solid) { /* containers keep their calibration (§6.2) */
        const float step = d->dt / (float)d->substeps;
        k.w_max = 2.0f / (step > 1.0f / 30.0f ? step : 1.0f / 30.0f);
    }
    k.cf = d->fluid_specific_heat;
    float g = b->conductivity * k.r * 0.03f * k.cf;
    k.heat_gain = g < 0.5f ? g : 0.5f;
    return k;
}

/* One vorton against one wall contact: push out, relax its vorticity toward
 * the slip-cancelling one, exchange heat; books the impulse share. */
static void vorton_hit(const vorton_rules *k, const pose *b, const contact *c, particle_array *a,
                       int i, vec3 *x, impulse *acc) {
    const vec3 u = {a->vx[i], a->vy[i], a->vz[i]};
    const vec3 slip = v3_sub(u, surface_velocity(b, c->c));
    *x = push_out(b, c, *x, k->r);
    /* The slip-cancelling vorticity. Solids: for the vorton's distance, at
     * least r (the original's, whose calibration they keep). Containers: the
     * wall layer's share (design note), whatever the vorton's distance: with
     * the lone vorton's rule for its distance after the mirror (up to 2r) or
     * before it (up to boundary_thickness r) a layer needed up to 4x more
     * each; measured: enstrophy of layers at rest grew by e every ~14 frames
     * with the distance after the mirror, and from 4e-7 to 8e-4 over 600
     * frames with the distance before it. */
    const float len = b->hole ? k->r : c->dist > k->r ? c->dist : k->r;
    const vec3 rho = v3_scale(c->n, -len);
    /* |w1| per |dv x rho|: 3 |rho| / r^3 alone, 6 / (pi r^2) in a wall layer */
    const float scale = b->hole ? k->layer : 3.0f * len / (k->r * k->r * k->r);
    vec3 w1 = v3_add(v3_scale(v3_cross(slip, rho), scale), v3_scale(b->w, k->spin));
    if (k->w_max > 0.0f) {
        const float m1 = v3_length(w1);
        if (m1 > k->w_max) w1 = v3_scale(w1, k->w_max / m1);
    }
    const vec3 w_old = {a->wx[i], a->wy[i], a->wz[i]};
    const vec3 w_new = v3_add(w_old, v3_scale(v3_sub(w1, w_old), k->shed));
    /* heat: T = T0 rho0 / (rho0 + rho') */
    const float rho_old = k->rho0 + a->drho[i];
    const float t_old = k->t0 * k->rho0 / rho_old;
    const float t_new = t_old + k->heat_gain * (b->temperature - t_old);
    const float rho_new = k->t0 * k->rho0 / t_new;
    const float m = rho_new * k->volume;
    acc->heat -= (double)(m * k->cf * (t_new - t_old));
    const vec3 dl = v3_scale(v3_sub(w_old, w_new), 0.2f * m * k->r * k->r);
    acc->angular[0] += (double)dl.x; acc->angular[1] += (double)dl.y; acc->angular[2] += (double)dl.z;
    a->drho[i] = rho_new - k->rho0;
    a->wx[i] = w_new.x; a->wy[i] = w_new.y; a->wz[i] = w_new.z;
    a->hx[i] = c->n.x; a->hy[i] = c->n.y; a->hz[i] = c->n.z;
    /* the last stretching rate was the old vorticity's: the next
     * EDDY_VORTON_STEP_STRETCH_AB2 step starts again from the vorton's own */
    if (a->keeps_rate) {
        a->sx[i] = 0.0f; a->sy[i] = 0.0f; a->sz[i] = 0.0f;
    }
}

static void vorton_chunk(int chunk, int begin, int end, void *context) {
    const collide_job *job = context;
    const pose *b = job->b;
    particle_array *a = &job->w->vortons;
    const vorton_rules k = rules_of(job->w, b);
    impulse acc = {{0}, {0}, 0};
    int near[COLLIDE_CHUNK];
    const int candidates = chunk_candidates(job, a, begin, end, near);
    for (int n = 0; n < candidates; ++n) {
        const int i = near[n];
        vec3 x = {a->px[i], a->py[i], a->pz[i]};
        if (!near_body(b, x, k.reach)) continue;
        bool moved = false;
        if (b->hole) {
            for (int plane = 0; plane < b->shape->plane_count; ++plane) {
                const contact c = hole_wall_contact(b, x, plane);
                if (!(c.dist < k.reach)) continue;
                vorton_hit(&k, b, &c, a, i, &x, &acc);
                moved = true;
            }
        } else {
            const contact c = b->sphere ? sphere_contact(b, x) : polytope_contact(b, x, NULL);
            if (c.dist < k.reach) {
                vorton_hit(&k, b, &c, a, i, &x, &acc);
                moved = true;
            }
        }
        if (!moved) continue;
        eddy_broad_include(job->boxes, i, x);
        a->px[i] = x.x; a->py[i] = x.y; a->pz[i] = x.z;
    }
    job->partials[chunk] = acc;
}

/* ---------------------------------------------------------------- driver */
static void combine_impulse(void *dst, const void *src) {
    impulse *a = dst;
    const impulse *b = src;
    for (int k = 0; k < 3; ++k) {
        a->linear[k] += b->linear[k];
        a->angular[k] += b->angular[k];
    }
    a->heat += b->heat;
}

/* The body's reach region for the broad phase: the bounding ball of
 * near_body, and a polytope's faces at the narrow phase's reach. */
static void broad_body_of(const pose *p, float reach, eddy_broad_body *bb) {
    if (p->sphere) {
        eddy_broad_body_ball(bb, p->x, p->radius + reach);
        return;
    }
    eddy_broad_body_polytope(bb, p->x, p->r.m, p->shape, p->circum + reach, reach);
}

/* A solid as the tracer lanes see it: near_body's bound, and each face's
 * normal in the world frame with polytope_contact's m3_mul_v (the same bits
 * as per tracer). */
static void contact_body_of(const pose *p, float reach, eddy_contact_body *cb) {
    memset(cb, 0, sizeof *cb);
    memcpy(cb->x, &p->x, sizeof cb->x);
    memcpy(cb->v, &p->v, sizeof cb->v);
    memcpy(cb->w, &p->w, sizeof cb->w);
    memcpy(cb->r, p->r.m, sizeof cb->r);
    const float ball = p->sphere ? p->radius : p->circum;
    cb->near2 = (ball + reach) * (ball + reach);
    cb->sphere = p->sphere;
    if (p->sphere) return;
    cb->plane_count = p->shape->plane_count;
    for (int i = 0; i < cb->plane_count; ++i) {
        const eddy_plane *plane = &p->shape->planes[i];
        const vec3 n = {plane->normal.x, plane->normal.y, plane->normal.z};
        const vec3 nw = m3_mul_v(&p->r, n);
        cb->n[i][0] = n.x, cb->n[i][1] = n.y, cb->n[i][2] = n.z;
        cb->nw[i][0] = nw.x, cb->nw[i][1] = nw.y, cb->nw[i][2] = nw.z;
        cb->offset[i] = plane->offset;
    }
}

static float reach_of(const eddy_world *w, const particle_array *a) {
    if (a == &w->tracers) return w->def.tracer_radius;
    return w->def.boundary_thickness * w->def.vorton_radius;
}

/* Bodies in collision order: solids first, containers last (a particle a
 * solid pushes off ends inside its container), by slot within each. */
static int collision_order(const eddy_world *w, int from, int *out, int max) {
    int count = 0;
    for (int k = from; k < 2 * w->body_count && count < max; ++k) {
        const body *b = &w->bodies[k % w->body_count];
        if (!b->alive || eddy_body_carries_fluid(b) != (k >= w->body_count)) continue;
        out[count++] = k;
    }
    return count;
}

/* Up to COLLIDE_GROUP bodies in one parallel pass: a chunk takes its
 * particles through the bodies in collision order, as one pass per body
 * would (a body's pose is read before the pass, and applying one body's
 * impulse changes no other body), each body's partials in its own row. */
enum { COLLIDE_GROUP = 8 };

typedef struct collide_pass {
    collide_job jobs[COLLIDE_GROUP];
    int count;
    chunk_fn *fn;
} collide_pass;

static void pass_chunk(int chunk, int begin, int end, void *context) {
    collide_pass *pass = context;
    for (int k = 0; k < pass->count; ++k) pass->fn(chunk, begin, end, &pass->jobs[k]);
}

static void receive(body *b, const impulse *t) {
    eddy_body_receive(b, (vec3){(float)t->linear[0], (float)t->linear[1], (float)t->linear[2]},
                      (vec3){(float)t->angular[0], (float)t->angular[1], (float)t->angular[2]},
                      (float)t->heat);
}

static size_t collide_partials_bytes(int count) {
    const int n = chunk_count(count, COLLIDE_CHUNK);
    const size_t head = ((size_t)COLLIDE_GROUP * (size_t)n * sizeof(impulse) + 63) / 64 * 64;
    return head + (size_t)eddy_broad_block_count(count) * sizeof(eddy_broad_box);
}

size_t eddy_bodies_partials_bytes(int vortons, int tracers, int points) {
    const size_t v = collide_partials_bytes(vortons), t = collide_partials_bytes(tracers);
    const size_t reaction = eddy_flow_reaction_partials_bytes(vortons);
    const size_t poison = eddy_poison_partials_bytes(points);
    size_t m = v > t ? v : t;
    m = m > reaction ? m : reaction;
    return m > poison ? m : poison;
}

static bool collide_all(eddy_world *w, particle_array *a, chunk_fn *fn) {
    const int n = chunk_count(a->count, COLLIDE_CHUNK);
    if (n == 0 || w->body_count == 0) return true;
    /* partials[COLLIDE_GROUP][n], then the broad phase's boxes */
    const size_t head = ((size_t)COLLIDE_GROUP * (size_t)n * sizeof(impulse) + 63) / 64 * 64;
    const int blocks = eddy_broad_block_count(a->count);
    char *scratch = eddy_partials_reserve(w, head + (size_t)blocks * sizeof(eddy_broad_box));
    if (!scratch) return false;
    impulse *partials = (impulse *)(void *)scratch;
    eddy_broad_box *boxes = (eddy_broad_box *)(void *)(scratch + head);
    const bool broad_on = (w->tasks.mutations & EDDY_MUTATION_NO_BROAD_PHASE) == 0;
    /* test-only: a broad phase that forgets the reach (it must be caught) */
    const bool forget_reach = (w->tasks.mutations & EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH) != 0;
    const float reach = forget_reach ? 0.0f : reach_of(w, a);
    /* tracers against solids in lanes (lib/bodies/contact_lanes.h) */
    const bool lanes_on = a == &w->tracers && (w->tasks.mutations & EDDY_MUTATION_NO_CONTACT_LANES) == 0;
    int order[COLLIDE_GROUP];
    pose poses[COLLIDE_GROUP];
    eddy_broad_body broad[COLLIDE_GROUP];
    eddy_contact_body lanes[COLLIDE_GROUP];
    bool fit = true;
    for (int from = 0, count; (count = collision_order(w, from, order, COLLIDE_GROUP)) > 0;
         from = order[count - 1] + 1) {
        collide_pass pass = {.count = count, .fn = fn};
        for (int k = 0; k < count; ++k) {
            poses[k] = pose_of(&w->bodies[order[k] % w->body_count]);
            broad_body_of(&poses[k], reach, &broad[k]);
            const bool solid_lanes = lanes_on && !poses[k].hole;
            if (solid_lanes) contact_body_of(&poses[k], reach_of(w, a), &lanes[k]);
            pass.jobs[k] = (collide_job){w, &poses[k], partials + (size_t)k * (size_t)n,
                                         broad_on ? &broad[k] : NULL, boxes, fit && k == 0,
                                         solid_lanes ? &lanes[k] : NULL};
        }
        fit = false;
        eddy_parallel_for(&w->tasks, a->count, COLLIDE_CHUNK, pass_chunk, &pass);
        for (int k = 0; k < count; ++k) {
            impulse *row = partials + (size_t)k * (size_t)n;
            eddy_reduce_tree(&w->tasks, row, n, sizeof *row, combine_impulse);
            /* EDDY_BODY_COUPLING_FLOW: tracers push no body (the flow does) */
            body *target = &w->bodies[order[k] % w->body_count];
            if (w->def.body_coupling == EDDY_BODY_COUPLING_TRACERS)
                receive(target, &row[0]);
            else if (a != &w->tracers) { /* tracers push no body: the flow does */
                /* the vortons' spin goes to the fluid only: the body's spin
                 * follows the flow's torque law (flow_forces.c), whose
                 * reaction the vortons get back; heat still crosses */
                for (int c = 0; c < 3; ++c) row[0].angular[c] = 0.0;
                receive(target, &row[0]);
            }
        }
    }
    return true;
}

bool eddy_phase_collide_tracers(eddy_world *w) { return collide_all(w, &w->tracers, tracer_chunk); }

bool eddy_phase_collide_vortons(eddy_world *w) {
    particle_array *a = &w->vortons;
    if (a->count > 0) {
        memset(a->hx, 0, (size_t)a->count * sizeof(float));
        memset(a->hy, 0, (size_t)a->count * sizeof(float));
        memset(a->hz, 0, (size_t)a->count * sizeof(float));
    }
    return collide_all(w, a, vorton_chunk);
}

/* ---------------------------------------------------------------- embedded */
typedef struct embed_ctx {
    const pose *b;
    float r;
} embed_ctx;

static bool embedded(const particle_array *a, int i, void *context) {
    const embed_ctx *e = context;
    const vec3 x = {a->px[i], a->py[i], a->pz[i]};
    if (!near_body(e->b, x, e->r)) return false;
    const contact c = e->b->sphere ? sphere_contact(e->b, x) : polytope_contact(e->b, x, NULL);
    return c.dist < e->r;
}

/* Particles inside a newly created body (or outside a new container) are
 * removed, stably, before the body's first step. */
void eddy_phase_remove_embedded(eddy_world *w) {
    for (int s = 0; s < w->body_count; ++s) {
        body *b = &w->bodies[s];
        if (!b->alive || !b->check_embedded) continue;
        const pose p = pose_of(b);
        embed_ctx ev = {&p, w->def.vorton_radius}, et = {&p, w->def.tracer_radius};
        eddy_particles_remove_if(&w->vortons, embedded, &ev);
        eddy_particles_remove_if(&w->tracers, embedded, &et);
        b->check_embedded = false;
    }
}
