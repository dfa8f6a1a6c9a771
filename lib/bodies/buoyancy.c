/* SPDX-License-Identifier: MIT */
/* Gravity and buoyancy on bodies (Part 9), and wall poisoning of the density
 * gradient (Part 14, D11).
 *
 * Buoyancy: the fluid density around a body is sampled from this step's rho'
 * grid at six points one grid cell outside the body (below, above and on
 * four sides at the level of its centre); samples outside the grid read the
 * ambient fluid (rho' = 0). With rho_bar = rho0 + mean(rho'), a dynamic body with
 * gravity on feels F = (m - rho_bar V) g: denser bodies sink, lighter ones
 * rise, a neutral one floats at the level where the fluid matches it.
 * Containers feel gravity only.
 *
 * Wall poisoning: near walls the gridded density has gradients across the
 * wall that would spin up spurious baroclinic vorticity. Grid variant
 * (default): every grid point within 1.2 vorton radii plus one grid cell of
 * a wall removes the wall-normal component of its gradient (each point owns
 * its update); in a container a point near its walls takes the gradient of the
 * fluid further in (container_ghost). Both write a scratch copy, so every
 * point reads the unpoisoned gradient. A chunk of grid points first drops
 * the bodies that certainly leave all of its points alone (beyond a solid's
 * ball, deeper than the band inside a container, with margins far above
 * the per-point rounding), and a chunk that no body reaches is neither
 * written nor copied back: the same bits as testing every body at every
 * point (EDDY_MUTATION_NO_POISON_CULL, tests/test_coupling.c). Vorton
 * variant: every grid point removes the normals of the wall hits recorded last
 * step by the vortons of its 8 adjacent cells, in ascending vorton index (a
 * gather, never a compare-and-swap float add). */
#include "bodies/bodies.h"
#include "bodies/geometry.h"
#include "runtime/vmath.h"

enum { POISON_CHUNK = 256 };

static float sample_rho(const eddy_world *w, vec3 p) {
    int k;
    const grid_shape *g = eddy_sample_grid(w, p.x, p.y, p.z, &k);
    if (!g) return 0.0f;
    const float *density = k < 0 ? w->density : w->islands[k].density;
    const float q[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a)
        if (!(q[a] >= g->min[a] && q[a] <= g->min[a] + (float)g->cells[a] * g->spacing[a]))
            return 0.0f;
    return grid_interp_float(g, density, p.x, p.y, p.z);
}

/* Half extent of the body along unit direction u. */
static float extent_along(const body *b, vec3 u) {
    if (b->def.shape.type == EDDY_SHAPE_SPHERE) return b->def.shape.radius;
    mat3 r;
    memcpy(r.m, b->rotation, sizeof r.m);
    const vec3 ub = m3_tmul_v(&r, u);
    float h = 0.0f;
    for (int k = 0; k < b->vertex_count; ++k) {
        const eddy_vec3 p = b->vertices[k];
        float s = p.x * ub.x + p.y * ub.y + p.z * ub.z;
        s = s < 0.0f ? -s : s;
        h = fmax_det(h, s);
    }
    return h;
}

/* Two unit vectors perpendicular to u (u a unit vector). */
static void perpendiculars(vec3 u, vec3 *e1, vec3 *e2) {
    const vec3 a = (u.x * u.x < 0.5f) ? (vec3){1.0f, 0.0f, 0.0f} : (vec3){0.0f, 1.0f, 0.0f};
    *e1 = v3_normalize(v3_cross(u, a));
    *e2 = v3_cross(u, *e1);
}

/* Mean rho' of the fluid around the body: six samples just outside it (one
 * grid cell beyond its extent), below and above along gravity and on four
 * sides at the level of its centre. Inside the body there is no fluid (its
 * particles were removed), so samples there would read the ambient fluid. */
static float surrounding_rho(const eddy_world *w, const body *b, vec3 gu) {
    const vec3 c = {b->position[0], b->position[1], b->position[2]};
    const float margin = eddy_grid_cell_near(w, c);
    vec3 e1, e2;
    perpendiculars(gu, &e1, &e2);
    const float hg = extent_along(b, gu) + margin;
    const float h1 = extent_along(b, e1) + margin, h2 = extent_along(b, e2) + margin;
    float sum = sample_rho(w, v3_add(c, v3_scale(gu, hg)));
    sum += sample_rho(w, v3_sub(c, v3_scale(gu, hg)));
    sum += sample_rho(w, v3_add(c, v3_scale(e1, h1)));
    sum += sample_rho(w, v3_sub(c, v3_scale(e1, h1)));
    sum += sample_rho(w, v3_add(c, v3_scale(e2, h2)));
    sum += sample_rho(w, v3_sub(c, v3_scale(e2, h2)));
    return sum * (1.0f / 6.0f);
}

void eddy_phase_body_forces(eddy_world *w) {
    const vec3 g = {w->gravity.x, w->gravity.y, w->gravity.z};
    const vec3 gu = v3_normalize(g);
    for (int s = 0; s < w->body_count; ++s) {
        body *b = &w->bodies[s];
        b->buoyant = false;
        b->fluid_density = w->def.ambient_density;
        if (!b->alive || b->def.type == EDDY_BODY_KINEMATIC) continue;
        const bool solid = !b->def.shape.hole;
        /* the added mass needs the fluid's density whether gravity acts or not */
        if (solid) b->fluid_density = w->def.ambient_density + surrounding_rho(w, b, gu);
        if (!b->def.gravity) continue;
        b->buoyant = solid;
        if (b->def.type != EDDY_BODY_DYNAMIC) continue;
        float displaced = 0.0f;
        if (solid) displaced = b->fluid_density * b->volume;
        const vec3 f = v3_scale(g, b->def.mass - displaced);
        b->force[0] += f.x;
        b->force[1] += f.y;
        b->force[2] += f.z;
    }
}

/* ---------------------------------------------------------------- poisoning */
static vec3 remove_component(vec3 v, vec3 n) { return v3_sub(v, v3_scale(n, v3_dot(v, n))); }

static vec3 poison_by_body(const body *b, vec3 p, vec3 grad, float reach) {
    const vec3 c = {b->position[0], b->position[1], b->position[2]};
    const vec3 d = v3_sub(p, c);
    const float d2 = v3_dot(d, d);
    const eddy_shape *sh = &b->def.shape;
    if (sh->type == EDDY_SHAPE_SPHERE) {
        const float lim = sh->radius + reach;
        return d2 < lim * lim ? remove_component(grad, v3_normalize(d)) : grad;
    }
    if (!sh->hole && !(d2 < (b->circumradius + reach) * (b->circumradius + reach))) return grad;
    if (sh->hole) {
        const float inner = b->inradius - reach;
        if (inner > 0.0f && !(d2 > inner * inner)) return grad;
    }
    mat3 r;
    memcpy(r.m, b->rotation, sizeof r.m);
    const vec3 q = m3_tmul_v(&r, d);
    int plane = 0;
    const float dist = eddy_polytope_contact_distance(sh, q, &plane);
    if (!(dist < reach)) return grad;
    vec3 nb;
    eddy_polytope_contact_point(sh, q, plane, dist, &nb);
    return remove_component(grad, m3_mul_v(&r, nb));
}

/* A container's walls: the fluid's density has no flux through a wall
 * (d rho / dn = 0), but the gridded rho' falls off to zero over the band
 * between the last vortons and the wall and beyond it. Such a fall-off is
 * a light layer under the heavy fluid at the floor and a heavy one over the
 * light fluid at the lid: unstable, and its tangential gradient (wherever the
 * vortons near the wall are not exactly level) spun layers at rest up after
 * some 800 frames. A grid point within `band` of a wall therefore takes the
 * gradient of the fluid at `band` from every wall near it (the point moved
 * inward along each such wall's normal), without the components across
 * those walls. Reads the unpoisoned gradient, writes the scratch copy. */
static bool container_ghost(const eddy_world *w, const body *b, vec3 p, float band, vec3 *grad) {
    const eddy_shape *sh = &b->def.shape;
    const vec3 c = {b->position[0], b->position[1], b->position[2]};
    mat3 r;
    memcpy(r.m, b->rotation, sizeof r.m);
    const vec3 q = m3_tmul_v(&r, v3_sub(p, c));
    vec3 inward = {0.0f, 0.0f, 0.0f};
    unsigned near = 0;
    for (int k = 0; k < sh->plane_count; ++k) {
        const eddy_plane *pl = &sh->planes[k];
        const vec3 nb = {pl->normal.x, pl->normal.y, pl->normal.z};
        const float d = pl->offset - v3_dot(nb, q);
        if (!(d < band)) continue;
        near |= 1u << k;
        inward = v3_sub(inward, v3_scale(nb, band - d));
    }
    if (!near) return false;
    const vec3 inside = v3_add(c, m3_mul_v(&r, v3_add(q, inward)));
    vec3 g = grid_interp_vec3(&w->grid, w->density_gradient, inside.x, inside.y, inside.z);
    for (int k = 0; k < sh->plane_count; ++k) {
        if (!(near & (1u << k))) continue;
        const eddy_plane *pl = &sh->planes[k];
        g = remove_component(g, m3_mul_v(&r, (vec3){pl->normal.x, pl->normal.y, pl->normal.z}));
    }
    *grad = g;
    return true;
}

static vec3 poison_by_hits(const eddy_world *w, const int pt[3], vec3 grad) {
    const grid_shape *g = &w->grid;
    const particle_array *v = &w->vortons;
    for (int ck = pt[2] - 1; ck <= pt[2]; ++ck) {
        if (ck < 0 || ck >= g->cells[2]) continue;
        for (int cj = pt[1] - 1; cj <= pt[1]; ++cj) {
            if (cj < 0 || cj >= g->cells[1]) continue;
            for (int ci = pt[0] - 1; ci <= pt[0]; ++ci) {
                if (ci < 0 || ci >= g->cells[0]) continue;
                const int c = ci + g->cells[0] * (cj + g->cells[1] * ck);
                for (int n = w->part.cell_start[c]; n < w->part.cell_start[c + 1]; ++n) {
                    const int i = w->part.sorted_index[n];
                    const vec3 hit = {v->hx[i], v->hy[i], v->hz[i]};
                    if (hit.x != 0.0f || hit.y != 0.0f || hit.z != 0.0f)
                        grad = remove_component(grad, hit);
                }
            }
        }
    }
    return grad;
}

/* The box of grid points [begin, end) (the rows it spans, whole rows when it
 * spans more than one), in the points' own coordinates min + i spacing. */
static void points_box(const grid_shape *g, int begin, int end, double lo[3], double hi[3]) {
    const grid_cursor a = grid_cursor_at(g, begin), b = grid_cursor_at(g, end - 1);
    int first[3] = {a.idx[0], a.idx[1], a.idx[2]}, last[3] = {b.idx[0], b.idx[1], b.idx[2]};
    if (first[2] != last[2]) first[1] = 0, last[1] = g->points[1] - 1;
    if (first[1] != last[1] || first[2] != last[2]) first[0] = 0, last[0] = g->points[0] - 1;
    for (int k = 0; k < 3; ++k) {
        lo[k] = (double)(g->min[k] + (float)first[k] * g->spacing[k]);
        hi[k] = (double)(g->min[k] + (float)last[k] * g->spacing[k]);
    }
}

/* Whether body b certainly leaves every point of the box alone: a solid
 * when the box is beyond its ball (poison_by_body's first test), a
 * container when every corner lies deeper than `band` inside every wall
 * (container_ghost finds no wall near; the region is convex, so the whole
 * box does). The margins are far above the per-point float rounding, so a
 * point the cull skips is one the per-point test leaves unchanged: the
 * same bits with and without it. */
static bool body_leaves_box_alone(const body *b, const double lo[3], const double hi[3],
                                  float reach, float band) {
    const eddy_shape *sh = &b->def.shape;
    double c[3], extent = 0.0;
    for (int k = 0; k < 3; ++k) {
        c[k] = (double)b->position[k];
        const double a = fabs(lo[k] - c[k]), z = fabs(hi[k] - c[k]);
        extent += a > z ? a : z;
    }
    if (!sh->hole) {
        const float radius = sh->type == EDDY_SHAPE_SPHERE ? sh->radius : b->circumradius;
        const double ball = (double)radius + (double)reach;
        double d2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            const double d = c[k] < lo[k] ? lo[k] - c[k] : c[k] > hi[k] ? c[k] - hi[k] : 0.0;
            d2 += d * d;
        }
        const double limit = ball * (1.0 + 1e-4) + 1e-4 * extent;
        return d2 > limit * limit;
    }
    for (int corner = 0; corner < 8; ++corner) {
        const double p[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1],
                             corner & 4 ? hi[2] : lo[2]};
        double q[3];
        for (int k = 0; k < 3; ++k) /* R^T (p - c) */
            q[k] = (double)b->rotation[0][k] * (p[0] - c[0]) +
                   (double)b->rotation[1][k] * (p[1] - c[1]) +
                   (double)b->rotation[2][k] * (p[2] - c[2]);
        for (int k = 0; k < sh->plane_count; ++k) {
            const eddy_plane *pl = &sh->planes[k];
            const double depth = (double)pl->offset - ((double)pl->normal.x * q[0] +
                                                      (double)pl->normal.y * q[1] +
                                                      (double)pl->normal.z * q[2]);
            const double margin = 1e-4 * ((double)band + fabs((double)pl->offset) + extent);
            if (!(depth >= (double)band + margin)) return false;
        }
    }
    return true;
}

typedef struct poison_job {
    eddy_world *w;
    uint8_t *touched; /* per chunk: whether any point may change (NULL: all) */
} poison_job;

enum { POISON_CULL_BODIES = 64 };

static void poison_chunk(int chunk, int begin, int end, void *context) {
    const poison_job *job = context;
    eddy_world *w = job->w;
    const grid_shape *g = &w->grid;
    /* The gridded rho' falls off to zero over one grid cell beyond the last
     * vortons (which sit at least one radius off the wall), so a wall's
     * spurious gradient reaches r + one cell into the fluid; the original's
     * 1.2 r left most of it in place. Vortons pushed off a container's wall
     * land up to 2r from it (lib/bodies/collide.c), so a container's band is
     * 2r + one cell. (2r + 2 cells delays the slow turnover of layers at
     * rest by ~300 frames but stops the sloshing layer from swinging back.) */
    const float cell = fmax_det(g->spacing[0], fmax_det(g->spacing[1], g->spacing[2]));
    const float reach = 1.2f * w->def.vorton_radius + cell;
    const float band = 2.0f * w->def.vorton_radius + cell;
    vec3 *out = w->jacobian; /* scratch: the stretch phase fills it later */
    const bool by_hits = w->def.wall_poisoning == EDDY_WALL_POISON_VORTON_HITS;
    /* Grid variant: the bodies that may touch a point of this chunk, in
     * slot order (all of them past POISON_CULL_BODIES). */
    int near[POISON_CULL_BODIES];
    int near_count = 0;
    const bool cull = !by_hits && w->body_count <= POISON_CULL_BODIES &&
                      (w->tasks.mutations & EDDY_MUTATION_NO_POISON_CULL) == 0;
    if (cull) {
        double lo[3], hi[3];
        points_box(g, begin, end, lo, hi);
        for (int s = 0; s < w->body_count; ++s) {
            const body *b = &w->bodies[s];
            if (b->alive && !body_leaves_box_alone(b, lo, hi, reach, band)) near[near_count++] = s;
        }
    }
    if (job->touched) {
        job->touched[chunk] = !cull || near_count > 0;
        if (!job->touched[chunk]) return; /* every point keeps its gradient */
    }
    grid_cursor at = grid_cursor_at(g, begin);
    for (int p = begin; p < end; ++p, grid_cursor_next(&at)) {
        const int *pt = at.idx;
        vec3 grad = w->density_gradient[p];
        if (by_hits) {
            grad = poison_by_hits(w, pt, grad);
        } else {
            const vec3 q = {g->min[0] + (float)pt[0] * g->spacing[0],
                            g->min[1] + (float)pt[1] * g->spacing[1],
                            g->min[2] + (float)pt[2] * g->spacing[2]};
            const int count = cull ? near_count : w->body_count;
            for (int n = 0; n < count; ++n) {
                const body *b = &w->bodies[cull ? near[n] : n];
                if (!b->alive) continue;
                if (b->def.shape.type == EDDY_SHAPE_POLYTOPE && b->def.shape.hole) {
                    if (container_ghost(w, b, q, band, &grad)) break;
                    continue;
                }
                grad = poison_by_body(b, q, grad, reach);
            }
        }
        out[p] = grad;
    }
}

static void copy_back_chunk(int chunk, int begin, int end, void *context) {
    const poison_job *job = context;
    if (job->touched && !job->touched[chunk]) return;
    eddy_world *w = job->w;
    for (int p = begin; p < end; ++p) w->density_gradient[p] = w->jacobian[p];
}

size_t eddy_poison_partials_bytes(int points) { return (size_t)chunk_count(points, POISON_CHUNK); }

void eddy_phase_poison_density_gradient(eddy_world *w) {
    if (!w->grid_valid || w->def.wall_poisoning == EDDY_WALL_POISON_NONE) return;
    if (w->def.wall_poisoning == EDDY_WALL_POISON_GRID && eddy_world_body_count(w) == 0) return;
    const int points = grid_point_count(&w->grid);
    /* Chunks that no body reaches keep their gradient and skip both passes;
     * without the scratch for the flags every chunk is written and copied
     * (the same values). */
    poison_job job = {w, eddy_partials_reserve(w, (size_t)chunk_count(points, POISON_CHUNK))};
    eddy_parallel_for(&w->tasks, points, POISON_CHUNK, poison_chunk, &job);
    eddy_parallel_for(&w->tasks, points, POISON_CHUNK, copy_back_chunk, &job);
}
