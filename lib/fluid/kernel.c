/* SPDX-License-Identifier: MIT */
/* The mollified vorton velocity kernel and direct summation.
 *
 * A vorton is a ball of radius a carrying uniform vorticity w (volume
 * V = 4/3 pi a^3). Its induced velocity at offset d = q - p is
 *     u = (V / 4 pi) w x d / |d|^3 = (a^3 / 3) w x d / |d|^3   for |d| >= a,
 *     u = (1 / 3) w x d                                         for |d| <  a,
 * i.e. the field of the uniformly rotating ball: linear inside, Biot-Savart
 * outside, continuous at |d| = a. Auto-mollification widens the core to
 * a = f r while the circulation factor c = 1/f^3 keeps the far field of the
 * original vorton: c a^3 = r^3. d == 0 contributes exactly zero (guards the
 * 0 * inf of an empty cell sitting on the query point). kernel_accumulate
 * itself is inline in lib/fluid/fluid.h. */
#include "fluid/fluid.h"

vec3 eddy_direct_velocity_at(const particle_array *v, float qx, float qy, float qz, float a) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < v->count; ++i)
        kernel_accumulate(&u, qx, qy, qz, v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i],
                          v->wz[i], a, 1.0f);
    return u;
}

/* The velocity at q with core a, and the gradient g (rows d/dx, d/dy, d/dz:
 * g[3 j + i] = du_i/dq_j) of the field with core ag and circulation factor
 * cg, by direct summation, each vorton's terms in index order. With
 * u = s w x d, s = cg / 3 inside the core and (cg ag^3 / 3) / |d|^3 outside:
 *     du/dq_j = s (w x e_j) - 3 s (d_j / |d|^2) (w x d)  (the second term
 * outside the core only). A vorton at q itself (d = 0) adds its core's
 * rotation s (w x e_j) to the gradient, as the treecode's walk at the
 * vortons adds it (lib/fluid/tree_walk.h, base_cell_vortons_gradient). */
vec3 eddy_direct_velocity_and_gradient_at(const particle_array *v, float qx, float qy, float qz,
                                          float a, float ag, float cg, float g[9]) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < 9; ++k) g[k] = 0.0f;
    const float ag2 = ag * ag, third = cg * (1.0f / 3.0f);
    for (int i = 0; i < v->count; ++i) {
        const float px = v->px[i], py = v->py[i], pz = v->pz[i];
        const float wx = v->wx[i], wy = v->wy[i], wz = v->wz[i];
        kernel_accumulate(&u, qx, qy, qz, px, py, pz, wx, wy, wz, a, 1.0f);
        const float dx = qx - px, dy = qy - py, dz = qz - pz;
        const float d2 = dx * dx + dy * dy + dz * dz;
        float s = third, t = 0.0f; /* t: -3 s / |d|^2, outside the core */
        if (!(d2 < ag2)) {
            const float den = d2 * sqrtf(d2);
            if (!(den > 0.0f)) continue; /* |d|^3 underflows: no contribution */
            s = third * ((ag2 * ag) / den);
            t = -3.0f * s / d2;
        }
        const float cx = wy * dz - wz * dy, cy = wz * dx - wx * dz, cz = wx * dy - wy * dx;
        /* w x e_x = (0, wz, -wy), w x e_y = (-wz, 0, wx), w x e_z = (wy, -wx, 0) */
        const float d[3] = {dx, dy, dz};
        const float e[3][3] = {{0.0f, wz, -wy}, {-wz, 0.0f, wx}, {wy, -wx, 0.0f}};
        for (int j = 0; j < 3; ++j) {
            const float f = t * d[j];
            g[3 * j + 0] += s * e[j][0] + f * cx;
            g[3 * j + 1] += s * e[j][1] + f * cy;
            g[3 * j + 2] += s * e[j][2] + f * cz;
        }
    }
    return u;
}
