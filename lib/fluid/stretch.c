/* SPDX-License-Identifier: MIT */
/* Vortex stretching and tilting: d(omega)/dt = gain * (omega . grad) u (D4),
 * and inside a turning container the Coriolis term 2 (W . grad) u (W its
 * angular velocity; lib/bodies/carry.c, point 3), added after the stretching.
 *
 * The velocity Jacobian is taken on the grid by finite differences (centred
 * inside, one-sided on the faces); each vorton interpolates it. Grid points
 * and vortons are each owned by one chunk.
 *
 * The update (stretch_tilt) splits s = (omega . grad) u into the part along
 * omega, sigma omega with sigma = omega.s/|omega|^2 (stretching), and the
 * part p across it (tilting), and integrates each exactly for a gradient
 * frozen over the step h = gain dt:
 *     |omega'| = |omega| exp(h sigma),
 *     omega_hat' = cos(a) omega_hat + sin(a) p_hat,  a = h |p| / |omega|.
 * Why it stays bounded at dt = 1/30 where explicit Euler did not: Euler
 * multiplies |omega| by |1 + h sigma| along a compressing direction, which
 * exceeds 1 once h sigma < -2 (compression faster than 60/s at gain 1, found
 * in every wall layer) and then flips the sign and grows every step; and it
 * multiplies |omega| by sqrt(1 + a^2) > 1 for any tilting, so a vorton in a
 * strong shear gains magnitude every step without any stretching at all.
 * Here compression can only shrink a vorton (factor exp(h sigma) in (0, 1)),
 * tilting never changes its magnitude, and the growth per step is at most
 * exp(h sigma_max) with sigma_max the largest strain rate of the resolved
 * flow: the exact growth of a frozen strain, so the update never
 * manufactures vorticity faster than the flow really stretches it. eddy's
 * own exp, sin and cos keep it the same bits everywhere.
 *
 * EDDY_VORTON_STEP_STRETCH_AB2 feeds the same update the rate extrapolated
 * to the middle of the step, s = (3 s_n - s_(n-1)) / 2 (second-order
 * Adams-Bashforth), s_(n-1) the rate the vorton kept from its last step
 * (particle_array sx, sy, sz). Frozen over the step, the gradient makes the
 * update first order in dt; a vortex ring's impulse then drifts by 2.8 % over
 * 300 frames, mostly that error (docs/physics.md section 2). The vorton
 * still moves with the step's velocity (Adams-Bashforth for the positions
 * too made the drift larger). Bounds: the update is the same exact exponential
 * and rotation, so compression still only shrinks and tilting never grows a
 * vorton; the growth per step is at most exp(h (3 |s_n| + |s_(n-1)|) / (2 |omega|)),
 * twice the frozen strain's exponent at worst. A kept rate of (0, 0, 0) means
 * none (a new vorton, or one whose vorticity a wall reassigned: lib/bodies/collide.c):
 * that vorton takes its own rate, Euler's start.
 *
 * Alignment (eddy_world_def.vorticity_alignment, kappa; off by default).
 * A vorton carries its vorticity along its own path; over many turns of a
 * strong core the vortons' vorticity stops being the vorticity of the flow
 * they induce (the continuum's omega = curl u), and the part of it that the
 * flow does not account for is still stretched by the resolved gradient:
 * nothing bounds its growth, and a strong ring breaks up after some 35 core
 * turns (docs/physics.md section 9.3). With kappa > 0 each vorton's
 * vorticity then turns toward the resolved vorticity c = curl u at the
 * vorton, taken from the same interpolated Jacobian rows, keeping its
 * magnitude: omega' = |omega| n / |n| with n = (1 - f) omega_hat + f c_hat,
 * f = 1 - exp(-kappa |c| dt), so a vorton aligns within about 1 / kappa
 * turns of the local rotation, whatever the tick rate. A relaxation toward
 * the resolved field, as particle methods use against this drift, restricted
 * to the direction: the magnitude (and so the vorton's share of enstrophy)
 * is left to the stretching, and no quadrature volume of the vortons enters.
 * It runs with the stretching only (stretch_gain != 0): without stretching
 * the drift does not grow.
 *
 * Total vorticity. The continuum's stretching keeps sum omega V: (omega .
 * grad) u = div(u omega) since div omega = 0, so its integral vanishes. The
 * Jacobian differenced on the grid and interpolated does not, and the change
 * is not small where the flow is sharp: next to a spinning ball it moved the
 * body + fluid angular momentum by 3.4 % in 300 frames, where the walls'
 * exchange itself is exact (tests/test_coupling.c). So the phase measures
 * what the stretching and the alignment (not the Coriolis term) added to the
 * sum, D = sum of the vortons' changes d_i, and takes it back from the vortons it changed in
 * proportion to how much it changed each: omega_i -= D |d_i| / sum |d_j|.
 * A vorton the stretching left alone (a still one, or stretching off) is
 * untouched, no vorton is moved by more than its own change (|D| <= sum
 * |d_j|), and the sum then holds to float rounding. The two sums are chunk
 * partials combined by the fixed tree (lib/runtime/parallel.c), in double, so the
 * correction is the same bits for every worker count; the partials are
 * reserved with the vortons (lib/world.c, scratch_reserve) and the weights
 * live in the PSE's first scratch array, free in this phase. */
#include "fluid/fluid.h"
#include "bodies/bodies.h"
#include "runtime/vmath.h"

enum { JACOBIAN_CHUNK = 256, STRETCH_CHUNK = 128 };

typedef struct jacobian_job {
    const grid_shape *g;
    const vec3 *u;
    vec3 *rows[3]; /* rows[a][p] = d u / d x_a at point p */
} jacobian_job;

static void jacobian_chunk(int chunk, int begin, int end, void *context) {
    const jacobian_job *job = context;
    const grid_shape *g = job->g;
    const int stride[3] = {1, g->points[0], g->points[0] * g->points[1]};
    grid_cursor at = grid_cursor_at(g, begin);
    for (int p = begin; p < end; ++p, grid_cursor_next(&at)) {
        const int *idx = at.idx;
        for (int a = 0; a < 3; ++a) {
            int lo, hi;
            float s;
            eddy_grid_diff_stencil(g, a, idx[a], &lo, &hi, &s);
            const vec3 *ul = &job->u[p + (lo - idx[a]) * stride[a]];
            const vec3 *uh = &job->u[p + (hi - idx[a]) * stride[a]];
            vec3 d = {(uh->x - ul->x) * s, (uh->y - ul->y) * s, (uh->z - ul->z) * s};
            job->rows[a][p] = d;
        }
    }
}

/* One vorton's update over gain dt for d(omega)/dt = s = (omega . grad) u:
 * s = sigma omega + p with p perpendicular to omega; the magnitude grows
 * exactly as d|omega|/dt = sigma |omega| (factor exp(h sigma) > 0) and the
 * direction turns toward p by the angle h |p| / |omega| (a rotation, which
 * keeps the magnitude). */
static vec3 stretch_tilt(vec3 o, vec3 s, float h) {
    const float m2 = v3_dot(o, o);
    if (!(m2 > 0.0f)) return o;
    const float sigma = v3_dot(o, s) / m2;
    const vec3 p = v3_sub(s, v3_scale(o, sigma));
    const float m = sqrtf(m2);
    const float grow = eddy_expf(h * sigma);
    const float plen = v3_length(p);
    if (!(plen > 0.0f)) return v3_scale(o, grow);
    const float angle = h * plen / m;
    const float c = eddy_cosf(angle), sn = eddy_sinf(angle);
    /* |omega| grow (cos a omega_hat + sin a p_hat) */
    return v3_add(v3_scale(o, grow * c), v3_scale(p, grow * m * sn / plen));
}

/* Turns o toward the direction of the resolved vorticity c by the fraction
 * f = 1 - exp(-kappa_dt |c|), keeping |o| (design note: Alignment). A
 * vorton opposite to c at exactly f = 1/2 is left as it is. */
static vec3 align_to(vec3 o, vec3 c, float kappa_dt) {
    const float ol = v3_length(o), cl = v3_length(c);
    if (!(ol > 0.0f) || !(cl > 0.0f)) return o;
    const float f = 1.0f - eddy_expf(-kappa_dt * cl);
    const vec3 n = v3_add(v3_scale(o, (1.0f - f) / ol), v3_scale(c, f / cl));
    const float nl = v3_length(n);
    return nl > 0.0f ? v3_scale(n, ol / nl) : o;
}

/* One chunk's share of the stretching's change to the total vorticity: the
 * sum of the vortons' changes, and the sum of their magnitudes (the weights
 * of the correction). */
typedef struct stretch_sum {
    double change[3];
    double weight;
} stretch_sum;

typedef struct stretch_job {
    eddy_world *w;
    bool ab2;      /* EDDY_VORTON_STEP_STRETCH_AB2 */
    bool own;      /* the vortons' own gradients (eddy_velocity_at_vortons), not the grid's */
    float gain_dt;
    float align_dt;    /* kappa dt (vorticity_alignment), applied with the stretching only */
    float coriolis_dt; /* 2 dt where a container turns, else 0 */
    float *weight;     /* per vorton: |change| of its vorticity by the stretching and alignment */
    stretch_sum *sums; /* per chunk */
    float correction[3]; /* added to a vorton's vorticity per unit of weight */
} stretch_job;

/* The Coriolis term of a vorton in a turning container (lib/bodies/carry.c, point
 * 3): 2 dt (W . grad) u, from the same interpolated Jacobian rows. */
static vec3 coriolis_change(const stretch_job *job, vec3 x, vec3 gx, vec3 gy, vec3 gz) {
    const vec3 om = eddy_frame_rotation_at(job->w, x);
    const vec3 d = {om.x * gx.x + om.y * gy.x + om.z * gz.x, om.x * gx.y + om.y * gy.y + om.z * gz.y,
                    om.x * gx.z + om.y * gy.z + om.z * gz.z};
    return v3_scale(d, job->coriolis_dt);
}

static void stretch_chunk(int chunk, int begin, int end, void *context) {
    const stretch_job *job = context;
    eddy_world *w = job->w;
    particle_array *v = &w->vortons;
    const int points = grid_point_count(&w->grid);
    const vec3 *rx = w->jacobian, *ry = w->jacobian + points, *rz = w->jacobian + 2 * points;
    stretch_sum sum = {{0.0, 0.0, 0.0}, 0.0};
    for (int i = begin; i < end; ++i) {
        const float x = v->px[i], y = v->py[i], z = v->pz[i];
        vec3 gx, gy, gz;
        if (job->own) {
            /* the vorton's own gradient from the velocity phase */
            const float *g = w->vorton_gradient + VORTON_GRADIENT_FLOATS * (size_t)i;
            gx = (vec3){g[0], g[1], g[2]};
            gy = (vec3){g[3], g[4], g[5]};
            gz = (vec3){g[6], g[7], g[8]};
        } else {
            gx = grid_interp_vec3(&w->grid, rx, x, y, z);
            gy = grid_interp_vec3(&w->grid, ry, x, y, z);
            gz = grid_interp_vec3(&w->grid, rz, x, y, z);
        }
        const vec3 o = {v->wx[i], v->wy[i], v->wz[i]};
        /* (omega . grad) u = ox du/dx + oy du/dy + oz du/dz */
        const vec3 s = {o.x * gx.x + o.y * gy.x + o.z * gz.x, o.x * gx.y + o.y * gy.y + o.z * gz.y,
                        o.x * gx.z + o.y * gy.z + o.z * gz.z};
        vec3 rate = s;
        if (job->ab2) {
            const vec3 last = {v->sx[i], v->sy[i], v->sz[i]};
            if (last.x != 0.0f || last.y != 0.0f || last.z != 0.0f)
                rate = v3_sub(v3_scale(s, 1.5f), v3_scale(last, 0.5f));
            v->sx[i] = s.x;
            v->sy[i] = s.y;
            v->sz[i] = s.z;
        }
        vec3 o1 = o;
        if (job->gain_dt != 0.0f) {
            o1 = stretch_tilt(o, rate, job->gain_dt);
            if (job->align_dt != 0.0f) {
                const vec3 curl = {gy.z - gz.y, gz.x - gx.z, gx.y - gy.x};
                o1 = align_to(o1, curl, job->align_dt);
            }
            const vec3 d = v3_sub(o1, o);
            const float m = v3_length(d);
            job->weight[i] = m;
            sum.change[0] += (double)d.x;
            sum.change[1] += (double)d.y;
            sum.change[2] += (double)d.z;
            sum.weight += (double)m;
        }
        if (job->coriolis_dt != 0.0f) o1 = v3_add(o1, coriolis_change(job, (vec3){x, y, z}, gx, gy, gz));
        v->wx[i] = o1.x;
        v->wy[i] = o1.y;
        v->wz[i] = o1.z;
    }
    job->sums[chunk] = sum;
}

static void combine_sum(void *dst, const void *src) {
    stretch_sum *a = dst;
    const stretch_sum *b = src;
    for (int k = 0; k < 3; ++k) a->change[k] += b->change[k];
    a->weight += b->weight;
}

static void correct_chunk(int chunk, int begin, int end, void *context) {
    const stretch_job *job = context;
    particle_array *v = &job->w->vortons;
    const float cx = job->correction[0], cy = job->correction[1], cz = job->correction[2];
    for (int i = begin; i < end; ++i) {
        const float m = job->weight[i];
        v->wx[i] += cx * m;
        v->wy[i] += cy * m;
        v->wz[i] += cz * m;
    }
}

size_t eddy_stretch_partials_bytes(int vortons) {
    return (size_t)chunk_count(vortons, STRETCH_CHUNK) * sizeof(stretch_sum);
}

void eddy_phase_stretch(eddy_world *w, float dt) {
    if (!w->grid_valid) return;
    const int points = grid_point_count(&w->grid);
    const bool own = eddy_velocity_at_vortons(w);
    if (!own) { /* else the vortons carry their own gradients */
        jacobian_job jj = {&w->grid, w->velocity,
                           {w->jacobian, w->jacobian + points, w->jacobian + 2 * points}};
        eddy_parallel_for(&w->tasks, points, JACOBIAN_CHUNK, jacobian_chunk, &jj);
    }
    const float coriolis_dt = eddy_frames_rotate(w) ? 2.0f * dt : 0.0f;
    if (w->def.stretch_gain == 0.0f && coriolis_dt == 0.0f) return;
    const bool ab2 = w->def.vorton_step == EDDY_VORTON_STEP_STRETCH_AB2 && w->def.stretch_gain != 0.0f;
    const int n = w->vortons.count;
    stretch_job sj = {w, ab2, own, w->def.stretch_gain * dt, w->def.vorticity_alignment * dt, coriolis_dt,
                      w->scratch[0], eddy_partials_reserve(w, eddy_stretch_partials_bytes(n)),
                      {0.0f, 0.0f, 0.0f}};
    EDDY_ASSERT(sj.sums != NULL); /* reserved with the vortons (scratch_reserve) */
    eddy_parallel_for(&w->tasks, n, STRETCH_CHUNK, stretch_chunk, &sj);
    if (sj.gain_dt == 0.0f || n == 0) return;
    eddy_reduce_tree(&w->tasks, sj.sums, chunk_count(n, STRETCH_CHUNK), sizeof *sj.sums, combine_sum);
    const stretch_sum total = sj.sums[0];
    if (!(total.weight > 0.0)) return;
    for (int k = 0; k < 3; ++k) sj.correction[k] = (float)(-total.change[k] / total.weight);
    eddy_parallel_for(&w->tasks, n, STRETCH_CHUNK, correct_chunk, &sj);
}
