/* SPDX-License-Identifier: MIT */
/* The fluid's push on bodies from the flow (EDDY_BODY_COUPLING_FLOW,
 * docs/coupling.md §8): added mass, drag, face pressure, Magnus lift, the
 * implicit update that keeps light bodies stable, and the reaction handed
 * back to the vortons.
 *
 * The flow a body feels. eddy's velocity field near a body holds the body's
 * own near field: the wall vortons cancel the slip, so the flow at the body
 * moves with it and a drag law on it would see no relative velocity. The
 * body feels instead the mean of the velocity over a sphere of radius
 * rho_s = R + (boundary_thickness + 1) r + one grid cell around its centre
 * (R its radius or circumradius, r the vorton radius), at 14 points (the
 * octahedron's 6 with weight 1/15 and the cube's 8 with 3/40: exact for
 * polynomials of degree 5 on the sphere). For the Biot-Savart velocity the
 * mean over a sphere of the field of a vortex inside it is zero (the field
 * is the gradient in the source point of the sphere's mean of 1/|x - x'|,
 * which is 1/rho_s for every inner point), and the field of the vortices
 * outside is harmonic inside, so its mean is its value at the centre: the
 * shell mean is the flow at the body's centre induced by all vorticity
 * farther than rho_s, the body's boundary layer and near wake excluded.
 * Points outside the velocity grid read no flow (only the wind). A body held
 * by a container that carries its fluid adds the container's own motion at
 * its centre (the interior's velocity is relative to the container).
 *
 * Laws, on w = v_b - u (the body's velocity relative to that flow):
 * - sphere drag, the standard curve (Schiller & Naumann 1933, as tabulated
 *   by Clift, Grace & Weber, "Bubbles, Drops and Particles", 1978, table
 *   5.2): Cd = 24/Re (1 + 0.15 Re^0.687) for Re = 2R|w|/nu <= 1000, 0.44
 *   above (and for nu = 0); F = -1/2 rho_f Cd pi R^2 |w| w, which for
 *   Re <= 1000 is -6 pi rho_f nu R (1 + 0.15 Re^0.687) w (no division by |w|);
 * - polytope: pressure on each face, -1/2 rho_f A_f |w_f| (w_f . n_f) n_f
 *   C, C = 0.8 on a face moving into the fluid (w_f . n_f > 0) and 0.25 on a
 *   face moving away (suction), w_f the face centroid's relative velocity,
 *   so a cube face-on has Cd = 1.05 (Hoerner, "Fluid-Dynamic Drag", 1965,
 *   ch. 3: 1.05 for a cube), a plate at incidence a gets a normal force
 *   1.05 sin a and its lift, and the faces give the torques; plus Stokes'
 *   -6 pi rho_f nu R_eq w on the volume-equivalent sphere (low Re);
 * - Magnus lift on the spin: F = 1/2 rho_f A C_L |w|^2 (w_b x w)/|w_b x w|
 *   with C_L = S / (1 + 2S), S = R |w_b| / |w| (a saturating fit: 2S at
 *   small spin as Rubinow & Keller's low-Re result, 0.5 at large spin; the
 *   measured 0.1-0.3 for S = 0.1-0.5 of smooth balls, Nathan 2008, Am. J.
 *   Phys. 76, 119), written (1/2) rho_f A R |w| (w_b x w) / (|w| + 2 R |w_b|).
 * - added mass m_a = C_m rho_f V: C_m = 1/2 for a sphere (Lamb,
 *   "Hydrodynamics", 6th ed., §92), 0.67 for a polytope (the cube's,
 *   DNV-RP-C205 (2010) table A-2; a plate's is larger across it and smaller
 *   along it: one isotropic figure for every polytope).
 *
 * The implicit update (stability: docs/coupling.md §8.2). With M = m + m_a,
 * G the other forces (gravity and buoyancy, input), the law's force F(w0)
 * split into its part along w0, -k w0 (k >= 0), and the rest F_perp (lift,
 * Magnus), the body's new velocity solves
 *     M (v1 - v0) = dt (G + F_perp') + dt k (u - v1),
 *     v1 = (M v0 + dt (G + F_perp') + dt k u) / (M + dt k),
 * with F_perp' = F_perp / (1 + dt (k + |F_perp| / |w0|) / M). The drag can
 * then only bring the relative velocity towards its balance, never past it
 * (M / (M + dt k) in (0, 1] for any mass, however light); the lift turns it
 * by at most |w0| per step. The face torques are bounded alike (below). The
 * fluid's impulse on the body is m (v1 - v0) - dt G: drag and lift, and the
 * reaction of the added mass, -m_a (v1 - v0).
 *
 * The reaction: the fluid gets minus that impulse, as vorticity on the
 * vortons within rho_s of the body: d(omega_i) = b x (x_i - c), c their
 * volume-weighted centroid, which adds no total vorticity and a linear
 * impulse 1/2 rho_f sum (x_i - c) x (b x (x_i - c)) V = 1/2 rho_f M_v b
 * (M_v their "inertia" about c); b = 2 M_v^-1 J / rho_f. A vortex ring's
 * vorticity pattern, pushing the fluid along J. The angular impulse L of
 * the spin drag and the face torques goes to the same vortons as one
 * d(omega) = 2 M_v^-1 L / rho_f: the fluid there turning rigidly at
 * d(omega)/2, with angular momentum L. Its kinetic energy, L^2 / (2 I_f)
 * with I_f = rho_f M_v, is less than the spin energy the body gave up,
 * L^2 / (2 I_b), whenever the fluid within rho_s has more inertia than the
 * body, which it always has for R < rho_s and a body not much denser than
 * the fluid. (Handed as each vorton's own spin, m r^2 d(omega) / 5 with r
 * the vorton radius, the seed's bookkeeping of §2, the same L needed a
 * d(omega) (rho_s / r)^2 times larger: a light spinning ball's wake then
 * pushed it back at 0.8 m/s for seconds, curve_ball.) With fewer than 8
 * vortons there the reaction is not represented, and with a degenerate M_v
 * only the spin is, with the isotropic tr(M_v)/3 (logged by nothing: the
 * fluid there has no vortons to carry it).
 *
 * Determinism: bodies in slot order; the flow samples and laws are per body
 * and serial; the reaction's sums are per-chunk partials combined by the
 * fixed reduction tree, and each vorton's update is written by its chunk. */
#include "bodies/bodies.h"
#include "bodies/geometry.h"
#include "runtime/vmath.h"

#include <string.h>

enum { REACTION_CHUNK = 2048, REACTION_MIN_VORTONS = 8 };

/* ---------------------------------------------------------------- faces */
/* Pseudo-angle of (x, y) in [0, 4), increasing counter-clockwise: + - / only. */
static float pseudo_angle(float x, float y) {
    const float ax = x < 0.0f ? -x : x, ay = y < 0.0f ? -y : y;
    const float s = ax + ay;
    if (!(s > 0.0f)) return 0.0f;
    const float p = y / s; /* in [-1, 1] */
    return x >= 0.0f ? (p < 0.0f ? 4.0f + p : p) : 2.0f - p;
}

void eddy_body_faces(body *b) {
    memset(b->face_area, 0, sizeof b->face_area);
    memset(b->face_centroid, 0, sizeof b->face_centroid);
    const eddy_shape *sh = &b->def.shape;
    if (sh->type != EDDY_SHAPE_POLYTOPE || b->vertex_count < 3) return;
    const float tol = 1.0e-4f * (b->circumradius > 0.0f ? b->circumradius : 1.0f);
    for (int k = 0; k < sh->plane_count; ++k) {
        const vec3 n = v3_from(sh->planes[k].normal);
        vec3 pts[EDDY_SHAPE_MAX_VERTICES];
        int m = 0;
        vec3 mean = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < b->vertex_count && m < EDDY_SHAPE_MAX_VERTICES; ++i) {
            const vec3 p = v3_from(b->vertices[i]);
            const float d = v3_dot(n, p) - sh->planes[k].offset;
            if (d > tol || d < -tol) continue;
            pts[m++] = p;
            mean = v3_add(mean, p);
        }
        if (m < 3) continue;
        mean = v3_scale(mean, 1.0f / (float)m);
        const vec3 a = (n.x * n.x < 0.5f) ? (vec3){1.0f, 0.0f, 0.0f} : (vec3){0.0f, 1.0f, 0.0f};
        const vec3 e1 = v3_normalize(v3_cross(n, a)), e2 = v3_cross(n, e1);
        float ang[EDDY_SHAPE_MAX_VERTICES];
        for (int i = 0; i < m; ++i) {
            const vec3 d = v3_sub(pts[i], mean);
            ang[i] = pseudo_angle(v3_dot(d, e1), v3_dot(d, e2));
        }
        for (int i = 1; i < m; ++i) /* insertion sort by angle: stable, deterministic */
            for (int j = i; j > 0 && ang[j] < ang[j - 1]; --j) {
                const float t = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = t;
                const vec3 q = pts[j]; pts[j] = pts[j - 1]; pts[j - 1] = q;
            }
        /* fan from the mean: area and area-weighted centroid */
        float area = 0.0f;
        vec3 c = {0.0f, 0.0f, 0.0f};
        for (int i = 0; i < m; ++i) {
            const vec3 p = pts[i], q = pts[(i + 1) % m];
            const float t = 0.5f * v3_dot(v3_cross(v3_sub(p, mean), v3_sub(q, mean)), n);
            area += t;
            c = v3_add(c, v3_scale(v3_add(mean, v3_add(p, q)), t * (1.0f / 3.0f)));
        }
        if (!(area > 0.0f)) continue;
        b->face_area[k] = area;
        b->face_centroid[k] = v3_to(v3_scale(c, 1.0f / area));
    }
}

/* ---------------------------------------------------------------- the flow */
static vec3 sample_flow(const eddy_world *w, vec3 p) {
    int k;
    const grid_shape *g = eddy_sample_grid(w, p.x, p.y, p.z, &k);
    if (!g) return (vec3){0.0f, 0.0f, 0.0f};
    const float *flow = k < 0 ? w->flow : w->islands[k].flow;
    const float q[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a)
        if (!(q[a] >= g->min[a] && q[a] <= g->min[a] + (float)g->cells[a] * g->spacing[a]))
            return (vec3){0.0f, 0.0f, 0.0f};
    float o[4];
    grid_interp_n(g, flow, 4, p.x, p.y, p.z, o);
    return (vec3){o[0], o[1], o[2]};
}

float eddy_body_flow_radius(const eddy_world *w, const body *b) {
    const float size = b->def.shape.type == EDDY_SHAPE_SPHERE ? b->def.shape.radius : b->circumradius;
    const float cell = eddy_grid_cell_near(w, v3_load(b->position));
    return size + (w->def.boundary_thickness + 1.0f) * w->def.vorton_radius + cell;
}

vec3 eddy_body_flow_velocity(const eddy_world *w, const body *b) {
    const vec3 c = v3_load(b->position);
    const float rs = eddy_body_flow_radius(w, b);
    const float d = rs * 0.57735026919f; /* 1/sqrt(3) */
    vec3 axes = {0.0f, 0.0f, 0.0f}, corners = {0.0f, 0.0f, 0.0f};
    for (int a = 0; a < 3; ++a)
        for (int s = -1; s <= 1; s += 2) {
            vec3 o = {0.0f, 0.0f, 0.0f};
            if (a == 0) o.x = (float)s * rs;
            else if (a == 1) o.y = (float)s * rs;
            else o.z = (float)s * rs;
            axes = v3_add(axes, sample_flow(w, v3_add(c, o)));
        }
    for (int k = 0; k < 8; ++k) {
        const vec3 o = {(k & 1) ? d : -d, (k & 2) ? d : -d, (k & 4) ? d : -d};
        corners = v3_add(corners, sample_flow(w, v3_add(c, o)));
    }
    vec3 u = v3_add(v3_scale(axes, 1.0f / 15.0f), v3_scale(corners, 3.0f / 40.0f));
    u = v3_add(u, v3_from(w->wind));
    if (b->held_by > 0) { /* the interior's flow is relative to its container */
        const body *h = &w->bodies[b->held_by - 1];
        if (h->alive && eddy_body_carries_fluid(h)) {
            const vec3 arm = v3_sub(c, v3_load(h->position));
            u = v3_add(u, v3_add(v3_load(h->linear_velocity),
                                 v3_cross(v3_load(h->angular_velocity), arm)));
        }
    }
    return u;
}

float eddy_body_added_mass(const body *b, float fluid_density) {
    const float cm = b->def.shape.type == EDDY_SHAPE_SPHERE ? 0.5f : 0.67f;
    return b->def.shape.hole ? 0.0f : cm * fluid_density * b->volume;
}

/* ---------------------------------------------------------------- laws */
static float sphere_drag_k(float rho, float nu, float radius, float speed) {
    const float re = 2.0f * radius * speed / (nu > 0.0f ? nu : 1.0f);
    if (nu > 0.0f && re <= 1000.0f) {
        const float corr = re > 0.0f ? 0.15f * eddy_expf(0.687f * eddy_logf(re)) : 0.0f;
        return 6.0f * EDDY_PI * rho * nu * radius * (1.0f + corr);
    }
    return 0.5f * rho * EDDY_PI * radius * radius * 0.44f * speed;
}

/* Force and torque of the fluid on the body for relative flow: body velocity
 * v, spin om, fluid velocity u at its centre. */
/* The spin's drag: T = -k om, k = 8 pi rho nu R^3 + 3.225 rho R^4 sqrt(nu |om|). */
static float rotation_k(float rho, float nu, float radius, float spin) {
    const float r3 = radius * radius * radius;
    return 8.0f * EDDY_PI * rho * nu * r3 + 3.225f * rho * r3 * radius * sqrtf(nu * spin);
}

/* The law's force is -drag_k w + *force (the faces' pressure and Magnus);
 * the drag's stiffness drag_k is defined at w = 0 too (Stokes' limit). */
static void flow_law(const eddy_world *w, const body *b, float rho, vec3 v, vec3 om, vec3 u,
                     float *drag_k, vec3 *force, vec3 *torque, float *spin_k) {
    const float nu = w->def.viscosity;
    const vec3 wr = v3_sub(v, u);
    const float speed = v3_length(wr);
    const bool sphere = b->def.shape.type == EDDY_SHAPE_SPHERE;
    const float radius = sphere ? b->def.shape.radius
                                : eddy_cbrtf(3.0f * b->volume / (4.0f * EDDY_PI));
    vec3 f = {0.0f, 0.0f, 0.0f}, t = {0.0f, 0.0f, 0.0f};
    if (sphere) {
        *drag_k = sphere_drag_k(rho, nu, radius, speed);
    } else {
        *drag_k = 6.0f * EDDY_PI * rho * nu * radius;
        mat3 r;
        memcpy(r.m, b->rotation, sizeof r.m);
        const vec3 x = v3_load(b->position);
        const eddy_shape *sh = &b->def.shape;
        for (int k = 0; k < sh->plane_count; ++k) {
            if (!(b->face_area[k] > 0.0f)) continue;
            const vec3 n = m3_mul_v(&r, v3_from(sh->planes[k].normal));
            const vec3 arm = m3_mul_v(&r, v3_from(b->face_centroid[k]));
            const vec3 wf = v3_add(wr, v3_cross(om, arm));
            const float s = v3_dot(wf, n);
            const float c = s > 0.0f ? 0.8f : 0.25f;
            const vec3 ff = v3_scale(n, -0.5f * rho * b->face_area[k] * c * v3_length(wf) * s);
            f = v3_add(f, ff);
            t = v3_add(t, v3_cross(arm, ff));
        }
        (void)x;
    }
    /* Magnus: 1/2 rho A R |w| (om x w) / (|w| + 2 R |om|) */
    *spin_k = rotation_k(rho, nu, radius, v3_length(om));
    const float den = speed + 2.0f * radius * v3_length(om);
    if (den > 0.0f) {
        const float a = EDDY_PI * radius * radius;
        f = v3_add(f, v3_scale(v3_cross(om, wr), 0.5f * rho * a * radius * speed / den));
    }
    *force = f;
    *torque = t;
}

/* ---------------------------------------------------------------- update */
void eddy_body_flow_update(const eddy_world *w, const body *b, float dt, vec3 other_force,
                           eddy_flow_update *out) {
    const float m = b->def.mass;
    const float rho = b->fluid_density;
    const float ma = eddy_body_added_mass(b, rho);
    const float big_m = m + ma;
    const vec3 v0 = v3_load(b->linear_velocity), om = v3_load(b->angular_velocity);
    const vec3 u = eddy_body_flow_velocity(w, b);
    vec3 f, t;
    float spin_k, k;
    flow_law(w, b, rho, v0, om, u, &k, &f, &t, &spin_k);
    const vec3 w0 = v3_sub(v0, u);
    const float w2 = v3_dot(w0, w0);
    vec3 f_perp = f;
    if (w2 > 0.0f) {
        const float along = -v3_dot(f, w0) / w2;
        const float k_faces = along > 0.0f ? along : 0.0f;
        k += k_faces;
        f_perp = v3_add(f, v3_scale(w0, k_faces));
        const float lim = 1.0f + dt * (k + v3_length(f_perp) / sqrtf(w2)) / big_m;
        f_perp = v3_scale(f_perp, 1.0f / lim);
    }
    const vec3 rhs = v3_add(v3_scale(v0, big_m),
                            v3_scale(v3_add(v3_add(other_force, f_perp), v3_scale(u, k)), dt));
    const vec3 v1 = v3_scale(rhs, 1.0f / (big_m + dt * k));
    out->velocity = v1;
    out->impulse = v3_sub(v3_scale(v3_sub(v1, v0), m), v3_scale(other_force, dt));
    /* Face torques, bounded as an implicit damping: the angular impulse
     * dt T / (1 + dt kappa), kappa = |Iw^-1 T| over the body's rate scale
     * |w_b| + |w0| / R, so the spin it changes is at most that scale. */
    vec3 dl = v3_scale(t, dt);
    const float tt = v3_dot(t, t);
    if (tt > 0.0f) {
        mat3 iw;
        memcpy(iw.m, b->inv_inertia_world, sizeof iw.m);
        const float alpha = v3_length(m3_mul_v(&iw, t));
        const float size = b->def.shape.type == EDDY_SHAPE_SPHERE ? b->def.shape.radius
                                                                  : b->circumradius;
        const float rate = v3_length(om) + sqrtf(w2) / size;
        dl = rate > 0.0f ? v3_scale(dl, 1.0f / (1.0f + dt * alpha / rate)) : (vec3){0.0f, 0.0f, 0.0f};
    }
    /* The spin's drag, implicit: -dt k om / (1 + dt k i_max), i_max the
     * largest inverse inertia (a row sum bound), exact for a sphere. */
    double i_max = 0.0;
    for (int r = 0; r < 3; ++r) {
        double row = 0.0;
        for (int c = 0; c < 3; ++c) row += fabs((double)b->inv_inertia_world[r][c]);
        i_max = row > i_max ? row : i_max;
    }
    if (b->def.type == EDDY_BODY_EXTERNAL) { /* the game's inertia: from its mass and shape */
        i_max = 0.0;
        eddy_mass_properties mp;
        if (eddy_shape_mass_properties(&b->def.shape, &mp, NULL, 0) == EDDY_OK && mp.volume > 0.0f) {
            const double density = (double)b->def.mass / (double)mp.volume;
            double least = (double)mp.inertia[0][0];
            for (int c = 1; c < 3; ++c)
                least = (double)mp.inertia[c][c] < least ? (double)mp.inertia[c][c] : least;
            if (least > 0.0) i_max = 1.0 / (least * density);
        }
    }
    const float dtk = dt * spin_k;
    dl = v3_add(dl, v3_scale(om, -dtk / (1.0f + dtk * (float)i_max)));
    out->angular_impulse = dl;
}

/* ---------------------------------------------------------------- reaction */
typedef struct reaction_sum {
    double v, r[3], rr[6]; /* count, sum r, sum r r^T (xx, yy, zz, xy, xz, yz) */
} reaction_sum;

typedef struct reaction_job {
    eddy_world *w;
    vec3 centre;
    float radius2;
    reaction_sum *partials;
    vec3 c, b;  /* pass 2 */
    vec3 spin;  /* pass 2: d(omega) of every vorton there, the angular reaction */
} reaction_job;

static void reaction_sum_chunk(int chunk, int begin, int end, void *context) {
    reaction_job *job = context;
    const particle_array *a = &job->w->vortons;
    reaction_sum s;
    memset(&s, 0, sizeof s);
    for (int i = begin; i < end; ++i) {
        const vec3 d = v3_sub((vec3){a->px[i], a->py[i], a->pz[i]}, job->centre);
        if (!(v3_dot(d, d) < job->radius2)) continue;
        const double x = (double)d.x, y = (double)d.y, z = (double)d.z;
        s.v += 1.0;
        s.r[0] += x; s.r[1] += y; s.r[2] += z;
        s.rr[0] += x * x; s.rr[1] += y * y; s.rr[2] += z * z;
        s.rr[3] += x * y; s.rr[4] += x * z; s.rr[5] += y * z;
    }
    job->partials[chunk] = s;
}

static void reaction_combine(void *dst, const void *src) {
    reaction_sum *a = dst;
    const reaction_sum *b = src;
    a->v += b->v;
    for (int k = 0; k < 3; ++k) a->r[k] += b->r[k];
    for (int k = 0; k < 6; ++k) a->rr[k] += b->rr[k];
}

static void reaction_apply_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk;
    reaction_job *job = context;
    particle_array *a = &job->w->vortons;
    for (int i = begin; i < end; ++i) {
        const vec3 x = {a->px[i], a->py[i], a->pz[i]};
        const vec3 d = v3_sub(x, job->centre);
        if (!(v3_dot(d, d) < job->radius2)) continue;
        const vec3 dw = v3_add(v3_cross(job->b, v3_sub(x, job->c)), job->spin);
        a->wx[i] += dw.x; a->wy[i] += dw.y; a->wz[i] += dw.z;
    }
}

/* Hands the linear impulse j (N s) and the angular impulse l (N m s) to the
 * vortons around body b: j as the ring pattern b x (x - c), l as one
 * d(omega) on all of them, the vorticity of the fluid there turning rigidly
 * at d(omega)/2 about c, whose angular momentum rho_f M d(omega) / 2 is l
 * (docs/coupling.md §8). */
size_t eddy_flow_reaction_partials_bytes(int vortons) {
    return (size_t)chunk_count(vortons, REACTION_CHUNK) * sizeof(reaction_sum);
}

bool eddy_body_flow_reaction(eddy_world *w, const body *b, vec3 j, vec3 l) {
    particle_array *a = &w->vortons;
    if (a->count == 0 || !(v3_dot(j, j) > 0.0f || v3_dot(l, l) > 0.0f)) return true;
    const int n = chunk_count(a->count, REACTION_CHUNK);
    reaction_sum *partials = eddy_partials_reserve(w, (size_t)n * sizeof *partials);
    if (!partials) return false;
    const float rs = eddy_body_flow_radius(w, b);
    reaction_job job = {w, v3_load(b->position), rs * rs, partials,
                        {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    eddy_parallel_for(&w->tasks, a->count, REACTION_CHUNK, reaction_sum_chunk, &job);
    eddy_reduce_tree(&w->tasks, partials, n, sizeof *partials, reaction_combine);
    const reaction_sum s = partials[0];
    if (s.v < (double)REACTION_MIN_VORTONS) return true;
    /* about the centroid c (relative to the body's centre): per unit volume */
    const double cx = s.r[0] / s.v, cy = s.r[1] / s.v, cz = s.r[2] / s.v;
    const double xx = s.rr[0] / s.v - cx * cx, yy = s.rr[1] / s.v - cy * cy,
                 zz = s.rr[2] / s.v - cz * cz, xy = s.rr[3] / s.v - cx * cy,
                 xz = s.rr[4] / s.v - cx * cz, yz = s.rr[5] / s.v - cy * cz;
    /* M = sum V (|r|^2 I - r r^T) */
    const double vol = (4.0 / 3.0) * 3.14159265358979323846 * (double)w->def.vorton_radius *
                       (double)w->def.vorton_radius * (double)w->def.vorton_radius;
    const double scale = s.v * vol;
    double m[3][3] = {{(yy + zz) * scale, -xy * scale, -xz * scale},
                      {-xy * scale, (xx + zz) * scale, -yz * scale},
                      {-xz * scale, -yz * scale, (xx + yy) * scale}};
    const double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    const double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    const double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    const double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    const double tr = m[0][0] + m[1][1] + m[2][2];
    const double rho = (double)b->fluid_density;
    const double ll[3] = {(double)l.x, (double)l.y, (double)l.z};
    if (!(det > 1.0e-6 * tr * tr * tr)) {
        /* degenerate: the linear part is not represented; the spin takes the
         * isotropic part of M (tr M / 3) */
        const double iso = tr > 0.0 ? 2.0 / (rho * tr / 3.0) : 0.0;
        job.spin = (vec3){(float)(ll[0] * iso), (float)(ll[1] * iso), (float)(ll[2] * iso)};
        eddy_parallel_for(&w->tasks, a->count, REACTION_CHUNK, reaction_apply_chunk, &job);
        return true;
    }
    double inv[3][3];
    inv[0][0] = c00 / det;
    inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
    inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
    inv[1][0] = c01 / det;
    inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
    inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
    inv[2][0] = c02 / det;
    inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
    inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
    const double jj[3] = {(double)j.x, (double)j.y, (double)j.z};
    double bv[3], sv[3];
    for (int r = 0; r < 3; ++r) {
        bv[r] = 2.0 * (inv[r][0] * jj[0] + inv[r][1] * jj[1] + inv[r][2] * jj[2]) / rho;
        sv[r] = 2.0 * (inv[r][0] * ll[0] + inv[r][1] * ll[1] + inv[r][2] * ll[2]) / rho;
    }
    job.spin = (vec3){(float)sv[0], (float)sv[1], (float)sv[2]};
    job.b = (vec3){(float)bv[0], (float)bv[1], (float)bv[2]};
    job.c = v3_add(job.centre, (vec3){(float)cx, (float)cy, (float)cz});
    eddy_parallel_for(&w->tasks, a->count, REACTION_CHUNK, reaction_apply_chunk, &job);
    return true;
}
