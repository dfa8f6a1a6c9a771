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
