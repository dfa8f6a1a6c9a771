/* SPDX-License-Identifier: MIT */
/* The tracer narrow phase against a solid in four lanes (contact_lanes.h),
 * written once over the lanes of lanes4.h and compiled twice: with SIMD
 * lanes (lib/bodies/contact_lanes.c) and plain C lanes (lib/bodies/contact_lanes_plain.c).
 * The includer defines CONTACT_LANES_ENTRY and includes lanes4.h first.
 *
 * Design note: why a HIT here is the one-tracer path's bits.
 *
 * lib/bodies/collide.c, for one tracer x (velocity v, rho') near a solid polytope:
 * near_body (d = x - c, |d|^2 < (R + r)^2), q = R^T d (polytope_contact),
 * the largest plane distance n_i . q - o_i over the planes in order (strict
 * >, first maximum wins; times parity 1), and when it is > 0 and finite
 * (outside) that distance and plane are the contact; the contact point is
 * C = c + R (q - n_p d_p) with d_p the same plane distance recomputed (the
 * same operations on the same inputs: the same bits as the maximum), the
 * normal R n_p (a function of the pose and the plane only: computed once per
 * pass with the same m3_mul_v, so the same bits). tracer_hit then takes
 * s = (v - v_b(C)) . n, reflects when s < 0, books j = (v - v') m and
 * t = (C - c) x j, and puts the tracer at C + r (1 + 1e-4) n.
 * Each of those is written below as the same IEEE operations in the same
 * order, per lane (vmath.h: dot products and matrix rows summed left to
 * right, v3_cross's operand order); selects copy bits. Every comparison is
 * the one-tracer path's, with its NaN outcome: NaN anywhere fails `>`, `<`,
 * so such a tracer is left to the one-tracer code (SCALAR), as is a tracer
 * inside the solid (its moving-point rule) and every tracer near a sphere. */

#ifndef CONTACT_LANES_ENTRY
#error "define CONTACT_LANES_ENTRY before including contact_lanes_body.h"
#endif

#include "bodies/contact_lanes.h"

typedef struct lanes_tracers {
    vf x[3], v[3], m;
} lanes_tracers;

/* One array's values at the four indices, in lanes. */
static inline vf lanes_gather(const float *values, const int i[4]) {
    return vf_set4(values[i[0]], values[i[1]], values[i[2]], values[i[3]]);
}

/* The velocities and masses of four tracers (positions are read first). */
static void lanes_gather_motion(const eddy_contact_rules *k, const particle_array *a,
                                const int i[4], lanes_tracers *t) {
    t->v[0] = lanes_gather(a->vx, i);
    t->v[1] = lanes_gather(a->vy, i);
    t->v[2] = lanes_gather(a->vz, i);
    t->m = vf_mul(vf_add(vf_splat(k->rho0), lanes_gather(a->drho, i)), vf_splat(k->volume));
}

/* (a0 b0 + a1 b1) + a2 b2: v3_dot, m3_mul_v's rows. */
static inline vf lanes_dot(vf a0, vf a1, vf a2, vf b0, vf b1, vf b2) {
    return vf_add(vf_add(vf_mul(a0, b0), vf_mul(a1, b1)), vf_mul(a2, b2));
}

static inline vf lanes_dot_s(const float m[3], vf b0, vf b1, vf b2) {
    return lanes_dot(vf_splat(m[0]), vf_splat(m[1]), vf_splat(m[2]), b0, b1, b2);
}

/* The contact of four tracers with the faces: q in the body frame, the
 * largest plane distance and its plane (an exact small integer per lane). */
typedef struct lanes_face {
    vf q[3], best, plane;
} lanes_face;

static lanes_face lanes_nearest_face(const eddy_contact_body *b, const vf d[3]) {
    lanes_face f;
    for (int c = 0; c < 3; ++c) {
        const float col[3] = {b->r[0][c], b->r[1][c], b->r[2][c]}; /* R^T row c */
        f.q[c] = lanes_dot_s(col, d[0], d[1], d[2]);
    }
    f.best = vf_splat(-EDDY_FLT_MAX);
    f.plane = vf_splat(0.0f); /* plane 0 when every comparison fails */
    for (int i = 0; i < b->plane_count; ++i) {
        const vf dist = vf_sub(lanes_dot_s(b->n[i], f.q[0], f.q[1], f.q[2]), vf_splat(b->offset[i]));
        const vm better = vf_gt(dist, f.best);
        f.best = vf_select(better, dist, f.best);
        f.plane = vf_select(better, vf_splat((float)i), f.plane);
    }
    return f;
}

/* Each lane's plane normal from a table (body or world frame). */
static void lanes_normal(const float (*table)[3], const int plane[4], vf n[3]) {
    for (int c = 0; c < 3; ++c)
        n[c] = vf_set4(table[plane[0]][c], table[plane[1]][c], table[plane[2]][c],
                       table[plane[3]][c]);
}

static inline void lanes_cross(const vf a[3], const vf b[3], vf out[3]) {
    out[0] = vf_sub(vf_mul(a[1], b[2]), vf_mul(a[2], b[1]));
    out[1] = vf_sub(vf_mul(a[2], b[0]), vf_mul(a[0], b[2]));
    out[2] = vf_sub(vf_mul(a[0], b[1]), vf_mul(a[1], b[0]));
}

/* tracer_hit for four tracers at contact point C (world) with normal n:
 * the new velocity, the impulse j, the angular impulse t, the new position. */
static void lanes_hit(const eddy_contact_body *b, const eddy_contact_rules *k,
                      const lanes_tracers *p, const vf c[3], const vf n[3], eddy_contact_out *out,
                      int at) {
    vf e[3], w[3], spin[3], v_new[3], j[3], t[3];
    for (int a = 0; a < 3; ++a) {
        e[a] = vf_sub(c[a], vf_splat(b->x[a]));
        w[a] = vf_splat(b->w[a]);
    }
    lanes_cross(w, e, spin);
    vf rel[3];
    for (int a = 0; a < 3; ++a) rel[a] = vf_sub(p->v[a], vf_add(vf_splat(b->v[a]), spin[a]));
    const vf s = lanes_dot(rel[0], rel[1], rel[2], n[0], n[1], n[2]);
    const vm reflect = vf_lt(s, vf_splat(0.0f));
    const vf bs = vf_mul(vf_splat(k->bounce), s);
    for (int a = 0; a < 3; ++a) {
        v_new[a] = vf_select(reflect, vf_sub(p->v[a], vf_mul(n[a], bs)), p->v[a]);
        j[a] = vf_mul(vf_sub(p->v[a], v_new[a]), p->m);
    }
    lanes_cross(e, j, t);
    const vf push = vf_splat(k->push);
    for (int a = 0; a < 3; ++a) {
        vf_store(out->x[a] + at, vf_add(c[a], vf_mul(n[a], push)));
        vf_store(out->v[a] + at, v_new[a]);
        vf_store(out->j[a] + at, j[a]);
        vf_store(out->t[a] + at, t[a]);
    }
}

/* Four candidates: which are near, which polytope contacts are HITs. */
static void lanes_four(const eddy_contact_body *b, const eddy_contact_rules *k,
                       const particle_array *a, const int *index, int from, int count,
                       eddy_contact_out *out) {
    int i[4]; /* the candidates, the last one repeated past count */
    for (int l = 0; l < 4; ++l) i[l] = index[from + l < count ? from + l : count - 1];
    lanes_tracers p;
    p.x[0] = lanes_gather(a->px, i);
    p.x[1] = lanes_gather(a->py, i);
    p.x[2] = lanes_gather(a->pz, i);
    vf d[3];
    for (int c = 0; c < 3; ++c) d[c] = vf_sub(p.x[c], vf_splat(b->x[c]));
    const vm near = vf_lt(lanes_dot(d[0], d[1], d[2], d[0], d[1], d[2]), vf_splat(b->near2));
    unsigned hit = 0, scalar = vm_bits(near);
    if (!b->sphere && scalar != 0) {
        const lanes_face f = lanes_nearest_face(b, d);
        const vf dist = vf_mul(f.best, vf_splat(1.0f)); /* times parity, as the scalar path */
        const vm outside = vm_and(vf_gt(dist, vf_splat(0.0f)), vf_lt(dist, vf_splat(EDDY_FLT_MAX)));
        hit = vm_bits(vm_and(near, vm_and(outside, vf_lt(dist, vf_splat(k->r)))));
        scalar = vm_bits(vm_andnot(outside, near));
        if (hit != 0) {
            lanes_gather_motion(k, a, i, &p);
            float lane_plane[4];
            vf_store(lane_plane, f.plane);
            int plane[4];
            for (int l = 0; l < 4; ++l) plane[l] = (int)lane_plane[l];
            vf nb[3], nw[3], cb[3], cw[3];
            lanes_normal(b->n, plane, nb);
            lanes_normal(b->nw, plane, nw);
            for (int c = 0; c < 3; ++c) cb[c] = vf_sub(f.q[c], vf_mul(nb[c], f.best));
            for (int c = 0; c < 3; ++c)
                cw[c] = vf_add(vf_splat(b->x[c]), lanes_dot_s(b->r[c], cb[0], cb[1], cb[2]));
            lanes_hit(b, k, &p, cw, nw, out, from);
        }
    }
    for (int l = 0; l < 4 && from + l < count; ++l)
        out->what[from + l] = (hit >> l & 1u)      ? EDDY_CONTACT_HIT
                              : (scalar >> l & 1u) ? EDDY_CONTACT_SCALAR
                                                   : EDDY_CONTACT_SKIP;
}

void CONTACT_LANES_ENTRY(const eddy_contact_body *b, const eddy_contact_rules *k,
                         const particle_array *a, const int *index, int count,
                         eddy_contact_out *out) {
    EDDY_DEBUG_ASSERT(count >= 0 && count <= EDDY_CONTACT_BATCH);
    for (int from = 0; from < count; from += 4) lanes_four(b, k, a, index, from, count, out);
}
