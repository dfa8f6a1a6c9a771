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
 * 0 * inf of an empty cell sitting on the query point). */
#include "core.h"

void kernel_accumulate(vec3 *u, float qx, float qy, float qz, float px, float py, float pz,
                       float wx, float wy, float wz, float a, float c) {
    const float dx = qx - px, dy = qy - py, dz = qz - pz;
    const float d2 = dx * dx + dy * dy + dz * dz;
    if (d2 == 0.0f) return;
    const float a2 = a * a;
    const float a3 = a2 * a;
    /* Inside the core the factor is a^3 / a^3 = 1. */
    const float s = d2 < a2 ? c * (1.0f / 3.0f) : c * (1.0f / 3.0f) * (a3 / (d2 * sqrtf(d2)));
    u->x += s * (wy * dz - wz * dy);
    u->y += s * (wz * dx - wx * dz);
    u->z += s * (wx * dy - wy * dx);
}

vec3 direct_velocity_at(const particle_array *v, float qx, float qy, float qz, float a) {
    vec3 u = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < v->count; ++i)
        kernel_accumulate(&u, qx, qy, qz, v->px[i], v->py[i], v->pz[i], v->wx[i], v->wy[i],
                          v->wz[i], a, 1.0f);
    return u;
}
