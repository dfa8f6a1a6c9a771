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
 * point reads the unpoisoned gradient. Vorton
 * variant: every grid point removes the normals of the wall hits recorded last
 * step by the vortons of its 8 adjacent cells, in ascending vorton index (a
 * gather, never a compare-and-swap float add). */
#include "core.h"
#include "geometry.h"
#include "vmath.h"

enum { POISON_CHUNK = 256 };

static float sample_rho(const eddy_world *w, vec3 p) {
    if (!w->grid_valid) return 0.0f;
    const grid_shape *g = &w->grid;
    const float q[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a)
        if (!(q[a] >= g->min[a] && q[a] <= g->min[a] + (float)g->cells[a] * g->spacing[a]))
            return 0.0f;
    return grid_interp_float(g, w->density, p.x, p.y, p.z);
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
    const float margin = w->grid_valid ? fmax_det(w->grid.spacing[0],
                                                  fmax_det(w->grid.spacing[1], w->grid.spacing[2]))
                                       : 0.0f;
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
        if (!b->alive || b->def.type != EDDY_BODY_DYNAMIC || !b->def.gravity) continue;
        float displaced = 0.0f;
        if (!b->def.shape.hole)
            displaced = (w->def.ambient_density + surrounding_rho(w, b, gu)) * b->volume;
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

static void poison_chunk(int chunk, int begin, int end, void *context) {
    eddy_world *w = context;
    const grid_shape *g = &w->grid;
    const int nx = g->points[0], ny = g->points[1];
    /* The gridded rho' falls off to zero over one grid cell beyond the last
     * vortons (which sit at least one radius off the wall), so a wall's
     * spurious gradient reaches r + one cell into the fluid; the original's
     * 1.2 r left most of it in place. Vortons pushed off a container's wall
     * land up to 2r from it (lib/collide.c), so a container's band is
     * 2r + one cell. (2r + 2 cells delays the slow turnover of layers at
     * rest by ~300 frames but stops the sloshing layer from swinging back.) */
    const float cell = fmax_det(g->spacing[0], fmax_det(g->spacing[1], g->spacing[2]));
    const float reach = 1.2f * w->def.vorton_radius + cell;
    const float band = 2.0f * w->def.vorton_radius + cell;
    vec3 *out = w->jacobian; /* scratch: the stretch phase fills it later */
    for (int p = begin; p < end; ++p) {
        const int pt[3] = {p % nx, (p / nx) % ny, p / (nx * ny)};
        vec3 grad = w->density_gradient[p];
        if (w->def.wall_poisoning == EDDY_WALL_POISON_VORTON_HITS) {
            grad = poison_by_hits(w, pt, grad);
        } else {
            const vec3 q = {g->min[0] + (float)pt[0] * g->spacing[0],
                            g->min[1] + (float)pt[1] * g->spacing[1],
                            g->min[2] + (float)pt[2] * g->spacing[2]};
            for (int s = 0; s < w->body_count; ++s) {
                const body *b = &w->bodies[s];
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
    (void)chunk;
    eddy_world *w = context;
    for (int p = begin; p < end; ++p) w->density_gradient[p] = w->jacobian[p];
}

void eddy_phase_poison_density_gradient(eddy_world *w) {
    if (!w->grid_valid || w->def.wall_poisoning == EDDY_WALL_POISON_NONE) return;
    if (w->def.wall_poisoning == EDDY_WALL_POISON_GRID && eddy_world_body_count(w) == 0) return;
    const int points = grid_point_count(&w->grid);
    eddy_parallel_for(&w->tasks, points, POISON_CHUNK, poison_chunk, w);
    eddy_parallel_for(&w->tasks, points, POISON_CHUNK, copy_back_chunk, w);
}
