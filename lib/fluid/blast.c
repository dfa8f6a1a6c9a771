/* SPDX-License-Identifier: MIT */
/* Blasts and bullets: gameplay impulses on the fluid (include/eddy/types.h,
 * docs/gameplay.md).
 *
 * Design note.
 * - A blast is a potential point source (then sink) whose flow moves every
 *   particle after its advection and before the collisions (walls still
 *   hold the smoke). The flow u = Q r / (4 pi |r|^3) is integrated exactly
 *   over the substep: r^3 grows by 3 Q dt / (4 pi). An explicit step would
 *   throw particles near the centre metres away at a game's dt and the
 *   sink would not bring them back; the exact map keeps volume, so the
 *   refill returns the smoke where it was (up to rounding and whatever the
 *   vortons did meanwhile). Irrotational: vorticity is not stretched by it.
 *   Each particle is its own lane; blasts act one after another in their
 *   stored order; chunks own their particles. So the bits do not depend on
 *   the worker count.
 * - A blast's time is `elapsed`, advanced by each substep's dt after it
 *   acts; it ends (and is dropped, keeping the others' order) once elapsed
 *   reaches duration + refill_duration.
 * - A bullet acts once, in the first substep of the step whose input gives
 *   it: particles inside its cylinder move radially to sqrt(r^2 + R^2), an
 *   area-preserving map of the disc onto the ring [R, R sqrt 2]. Bullets act
 *   in input order, each particle independently. Its wake vortons are
 *   appended when the input is applied (eddy_bullets_add_wakes), before
 *   the substeps, at radius R exactly, so the push (r < R) leaves them be.
 * - Tracers changed after their advection mark their early hash block stale;
 *   a chunk is one hash block, so the mark is no race. */
#include "fluid/fluid.h"
#include "hash/hash.h"

#include <stdio.h>
#include <stdlib.h>

enum { BLAST_CHUNK = EDDY_HASH_BLOCK_PARTICLES, WAKE_RING = 4, WAKE_MAX_RINGS = 64 };

/* ---------------------------------------------------------------- validation */
static bool bad(eddy_world *w, eddy_status *s, eddy_status code, const char *what, int k,
                const char *field) {
    eddy_world_set_error(w, "%s %d: %s", what, k, field);
    *s = code;
    return false;
}

static bool blast_ok(eddy_world *w, const eddy_blast *b, int k, eddy_status *s) {
    if (!eddy_finite3(b->position) || !isfinite(b->strength) || !isfinite(b->duration) ||
        !isfinite(b->refill_duration) || !isfinite(b->radius))
        return bad(w, s, EDDY_ERROR_NAN, "blast", k, "a field is not finite");
    if (!eddy_within3(b->position, EDDY_MAX_COORDINATE))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "blast", k, "position beyond EDDY_MAX_COORDINATE");
    if (!(b->strength > 0.0f) || b->strength > EDDY_MAX_BLAST_STRENGTH)
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "blast", k,
                   "strength outside (0, EDDY_MAX_BLAST_STRENGTH]");
    if (!(b->duration > 0.0f) || b->duration > EDDY_MAX_BLAST_DURATION)
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "blast", k,
                   "duration outside (0, EDDY_MAX_BLAST_DURATION]");
    if (!eddy_within(b->refill_duration, 0.0f, EDDY_MAX_BLAST_DURATION))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "blast", k,
                   "refill_duration outside [0, EDDY_MAX_BLAST_DURATION]");
    if (!eddy_within(b->radius, 1e-3f, 1e4f))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "blast", k, "radius outside [1e-3, 1e4]");
    return true;
}

static bool bullet_ok(eddy_world *w, const eddy_bullet *b, int k, eddy_status *s) {
    if (!eddy_finite3(b->from) || !eddy_finite3(b->to) || !isfinite(b->radius) ||
        !isfinite(b->wake_vorticity))
        return bad(w, s, EDDY_ERROR_NAN, "bullet", k, "a field is not finite");
    if (!eddy_within3(b->from, EDDY_MAX_COORDINATE) || !eddy_within3(b->to, EDDY_MAX_COORDINATE))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "bullet", k, "from or to beyond EDDY_MAX_COORDINATE");
    const float dx = b->to.x - b->from.x, dy = b->to.y - b->from.y, dz = b->to.z - b->from.z;
    if (!(dx * dx + dy * dy + dz * dz <= 1e8f))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "bullet", k, "path longer than 1e4 m");
    if (!eddy_within(b->radius, 1e-3f, 100.0f))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "bullet", k, "radius outside [1e-3, 100]");
    if (!eddy_within(b->wake_vorticity, -EDDY_MAX_VORTICITY, EDDY_MAX_VORTICITY))
        return bad(w, s, EDDY_ERROR_INVALID_ARGUMENT, "bullet", k, "wake_vorticity beyond EDDY_MAX_VORTICITY");
    return true;
}

eddy_status eddy_impulses_validate(eddy_world *w, const eddy_input *in) {
    eddy_status s = EDDY_OK;
    if (in->blast_count < 0 || (in->blast_count > 0 && !in->blasts) ||
        in->blast_count > EDDY_MAX_BLASTS_PER_INPUT) {
        eddy_world_set_error(w, "input blasts is NULL, or its count is negative or above "
                                "EDDY_MAX_BLASTS_PER_INPUT");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (in->bullet_count < 0 || (in->bullet_count > 0 && !in->bullets) ||
        in->bullet_count > EDDY_MAX_BULLETS_PER_INPUT) {
        eddy_world_set_error(w, "input bullets is NULL, or its count is negative or above "
                                "EDDY_MAX_BULLETS_PER_INPUT");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (w->blast_count + in->blast_count > EDDY_MAX_ACTIVE_BLASTS) {
        eddy_world_set_error(w, "input blasts: %d active and %d new exceed EDDY_MAX_ACTIVE_BLASTS",
                             w->blast_count, in->blast_count);
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (int k = 0; k < in->blast_count; ++k)
        if (!blast_ok(w, &in->blasts[k], k, &s)) return s;
    for (int k = 0; k < in->bullet_count; ++k)
        if (!bullet_ok(w, &in->bullets[k], k, &s)) return s;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- blasts */
bool eddy_blasts_add(eddy_world *w, const eddy_blast *blasts, int count) {
    if (count <= 0) return true;
    if (w->blast_count + count > w->blast_capacity) {
        const int cap = w->blast_count + count > 16 ? w->blast_count + count : 16;
        if (!eddy_grow((void **)&w->blasts, (size_t)cap * sizeof(active_blast))) return false;
        w->blast_capacity = cap;
    }
    for (int k = 0; k < count; ++k) w->blasts[w->blast_count++] = (active_blast){blasts[k], 0.0f};
    return true;
}

/* Volume flow of a blast at its current time: Q while it blows, the refill's
 * sink after, 0 once over. */
static float blast_flow(const active_blast *b) {
    const eddy_blast *d = &b->def;
    if (b->elapsed < d->duration) return d->strength;
    if (b->elapsed < d->duration + d->refill_duration)
        return -d->strength * d->duration / d->refill_duration;
    return 0.0f;
}

typedef struct blast_job {
    eddy_world *w;
    particle_array *a;
    bool tracers;
    float dt;
    int count;
    float cx[EDDY_MAX_ACTIVE_BLASTS], cy[EDDY_MAX_ACTIVE_BLASTS], cz[EDDY_MAX_ACTIVE_BLASTS];
    float core[EDDY_MAX_ACTIVE_BLASTS];  /* radius */
    float scale[EDDY_MAX_ACTIVE_BLASTS]; /* 3 Q dt / (4 pi): change of r^3 */
} blast_job;

/* One blast's substep on one particle: radially to r' with
 * r'^3 = r^3 + 3 Q dt / (4 pi), the exact flow of a point source over dt
 * (volume kept exactly, so the refill's sink undoes the blow); the sink
 * stops at min(r, radius). A particle at the centre stays. */
static void blast_move(const blast_job *job, int b, float *x, float *y, float *z) {
    const float rx = *x - job->cx[b], ry = *y - job->cy[b], rz = *z - job->cz[b];
    const float r2 = rx * rx + ry * ry + rz * rz;
    if (!(r2 > 0.0f)) return;
    const float r = sqrtf(r2);
    float cube = r2 * r + job->scale[b];
    const float floor_r = fmin_det(r, job->core[b]);
    cube = fmax_det(cube, floor_r * floor_r * floor_r);
    const float k = eddy_cbrtf(cube) / r;
    *x = job->cx[b] + k * rx;
    *y = job->cy[b] + k * ry;
    *z = job->cz[b] + k * rz;
}

static void blast_chunk(int chunk, int begin, int end, void *context) {
    const blast_job *job = context;
    particle_array *a = job->a;
    (void)chunk;
    for (int i = begin; i < end; ++i) {
        for (int b = 0; b < job->count; ++b) blast_move(job, b, &a->px[i], &a->py[i], &a->pz[i]);
        if (job->tracers) eddy_early_hash_stale(job->w, i);
    }
}

static void blasts_push(eddy_world *w, particle_array *a, bool tracers, float dt) {
    if (w->blast_count == 0 || a->count == 0) return;
    blast_job job_storage; /* about 6 kB: on the stack, no allocation in the step */
    blast_job *job = &job_storage;
    job->w = w;
    job->a = a;
    job->tracers = tracers;
    job->dt = dt;
    job->count = 0;
    for (int b = 0; b < w->blast_count; ++b) {
        const float q = blast_flow(&w->blasts[b]);
        if (q == 0.0f) continue;
        const int k = job->count++;
        job->cx[k] = w->blasts[b].def.position.x;
        job->cy[k] = w->blasts[b].def.position.y;
        job->cz[k] = w->blasts[b].def.position.z;
        job->core[k] = w->blasts[b].def.radius;
        job->scale[k] = 3.0f * q * dt / (4.0f * EDDY_PI);
    }
    if (job->count > 0) eddy_parallel_for(&w->tasks, a->count, BLAST_CHUNK, blast_chunk, job);
}

void eddy_phase_blast_tracers(eddy_world *w, float dt) { blasts_push(w, &w->tracers, true, dt); }
void eddy_phase_blast_vortons(eddy_world *w, float dt) { blasts_push(w, &w->vortons, false, dt); }

void eddy_blasts_advance(eddy_world *w, float dt) {
    int kept = 0;
    for (int b = 0; b < w->blast_count; ++b) {
        active_blast a = w->blasts[b];
        a.elapsed += dt;
        if (a.elapsed < a.def.duration + a.def.refill_duration) w->blasts[kept++] = a;
    }
    w->blast_count = kept;
}

/* ---------------------------------------------------------------- bullets */
typedef struct bullet_geometry {
    float ox, oy, oz;    /* from */
    float dx, dy, dz;    /* unit direction */
    float length;
    float px, py, pz;    /* a unit vector normal to the direction */
    float radius;
} bullet_geometry;

static bullet_geometry bullet_geometry_of(const eddy_bullet *b) {
    bullet_geometry g;
    g.ox = b->from.x; g.oy = b->from.y; g.oz = b->from.z;
    float dx = b->to.x - b->from.x, dy = b->to.y - b->from.y, dz = b->to.z - b->from.z;
    g.length = sqrtf(dx * dx + dy * dy + dz * dz);
    if (g.length > 0.0f) {
        dx /= g.length; dy /= g.length; dz /= g.length;
    } else {
        dx = 1.0f; dy = 0.0f; dz = 0.0f;
    }
    g.dx = dx; g.dy = dy; g.dz = dz;
    /* normal: direction x the axis it is least aligned with */
    const float ax = dx < 0.0f ? -dx : dx, ay = dy < 0.0f ? -dy : dy, az = dz < 0.0f ? -dz : dz;
    float nx, ny, nz;
    if (ax <= ay && ax <= az) { nx = 0.0f; ny = -dz; nz = dy; }
    else if (ay <= az) { nx = dz; ny = 0.0f; nz = -dx; }
    else { nx = -dy; ny = dx; nz = 0.0f; }
    const float n = sqrtf(nx * nx + ny * ny + nz * nz);
    g.px = nx / n; g.py = ny / n; g.pz = nz / n;
    g.radius = b->radius;
    return g;
}

typedef struct bullet_job {
    eddy_world *w;
    particle_array *a;
    bool tracers;
    int count;
    const bullet_geometry *g;
} bullet_job;

/* Moves one particle out of one bullet's cylinder; true when it moved. */
static bool bullet_push(const bullet_geometry *g, float *x, float *y, float *z) {
    const float rx = *x - g->ox, ry = *y - g->oy, rz = *z - g->oz;
    const float t = rx * g->dx + ry * g->dy + rz * g->dz;
    if (!(t >= 0.0f) || !(t <= g->length)) return false;
    float qx = rx - t * g->dx, qy = ry - t * g->dy, qz = rz - t * g->dz;
    const float r2 = qx * qx + qy * qy + qz * qz;
    if (!(r2 < g->radius * g->radius)) return false;
    const float r = sqrtf(r2);
    if (r > 0.0f) {
        qx /= r; qy /= r; qz /= r;
    } else {
        qx = g->px; qy = g->py; qz = g->pz;
    }
    const float move = sqrtf(r2 + g->radius * g->radius) - r;
    *x += move * qx;
    *y += move * qy;
    *z += move * qz;
    return true;
}

static void bullet_chunk(int chunk, int begin, int end, void *context) {
    const bullet_job *job = context;
    particle_array *a = job->a;
    (void)chunk;
    for (int i = begin; i < end; ++i) {
        bool moved = false;
        for (int b = 0; b < job->count; ++b)
            moved |= bullet_push(&job->g[b], &a->px[i], &a->py[i], &a->pz[i]);
        if (moved && job->tracers) eddy_early_hash_stale(job->w, i);
    }
}

static void bullets_push(eddy_world *w, particle_array *a, bool tracers) {
    if (w->step_bullet_count == 0 || a->count == 0) return;
    bullet_geometry g[EDDY_MAX_BULLETS_PER_INPUT];
    for (int b = 0; b < w->step_bullet_count; ++b) g[b] = bullet_geometry_of(&w->step_bullets[b]);
    bullet_job job = {w, a, tracers, w->step_bullet_count, g};
    eddy_parallel_for(&w->tasks, a->count, BLAST_CHUNK, bullet_chunk, &job);
}

void eddy_phase_bullet_tracers(eddy_world *w) { bullets_push(w, &w->tracers, true); }
void eddy_phase_bullet_vortons(eddy_world *w) { bullets_push(w, &w->vortons, false); }

int eddy_bullet_wakes_bound(const eddy_input *in) {
    /* bullet_wake: at most length / (length / WAKE_MAX_RINGS) rings, one more for rounding */
    int n = 0;
    for (int k = 0; k < in->bullet_count; ++k)
        if (in->bullets[k].wake_vorticity != 0.0f) n += (WAKE_MAX_RINGS + 1) * WAKE_RING;
    return n;
}

/* Wake rings of one bullet; false: out of memory. */
static bool bullet_wake(eddy_world *w, const eddy_bullet *b) {
    if (b->wake_vorticity == 0.0f) return true;
    const bullet_geometry g = bullet_geometry_of(b);
    float spacing = g.length / (float)WAKE_MAX_RINGS;
    spacing = spacing > w->def.vorton_radius ? spacing : w->def.vorton_radius;
    int rings = (int)(g.length / spacing);
    if (rings < 1) rings = 1;
    particle_array *a = &w->vortons;
    if (!eddy_particles_reserve(a, a->count + rings * WAKE_RING)) return false;
    /* second normal: direction x first normal */
    const float sx = g.dy * g.pz - g.dz * g.py, sy = g.dz * g.px - g.dx * g.pz,
                sz = g.dx * g.py - g.dy * g.px;
    const float nx[WAKE_RING] = {g.px, sx, -g.px, -sx}, ny[WAKE_RING] = {g.py, sy, -g.py, -sy},
                nz[WAKE_RING] = {g.pz, sz, -g.pz, -sz};
    const vec3 zero = {0.0f, 0.0f, 0.0f};
    for (int r = 0; r < rings; ++r) {
        const float t = ((float)r + 0.5f) * (g.length / (float)rings);
        for (int k = 0; k < WAKE_RING; ++k) {
            const vec3 p = {g.ox + t * g.dx + g.radius * nx[k], g.oy + t * g.dy + g.radius * ny[k],
                            g.oz + t * g.dz + g.radius * nz[k]};
            /* direction x outward normal: the ring's circulation drives the
             * air along the direction inside it */
            const vec3 om = {b->wake_vorticity * (g.dy * nz[k] - g.dz * ny[k]),
                             b->wake_vorticity * (g.dz * nx[k] - g.dx * nz[k]),
                             b->wake_vorticity * (g.dx * ny[k] - g.dy * nx[k])};
            eddy_particles_push(a, p, zero, om, 0.0f, (int32_t)w->frame);
        }
    }
    return true;
}

bool eddy_bullets_add_wakes(eddy_world *w, const eddy_bullet *bullets, int count) {
    for (int b = 0; b < count; ++b)
        if (!bullet_wake(w, &bullets[b])) return false;
    return true;
}
