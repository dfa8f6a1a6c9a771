/* SPDX-License-Identifier: MIT */
/* Fluid-only scenes and the vorticity/density distributions they sample.
 *
 * The distributions follow ALGORITHM.md §10.1 (the original demo's
 * vorticityDistribution), written afresh with eddy's deterministic math.
 * Each returns omega (eddy stores omega, not omega/2) and rho' at a point
 * relative to its centre; scene_assign_vortons scales omega by the scene's
 * magnitude. Scene parameters and the resulting counts are listed in
 * docs/scenes.md; tests/test_scenes.c pins the counts. */
#include "scenes_internal.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- small math */

static float dot3(eddy_vec3 a, eddy_vec3 b) {
    float s = a.x * b.x;
    s += a.y * b.y;
    s += a.z * b.z;
    return s;
}

static eddy_vec3 cross3(eddy_vec3 a, eddy_vec3 b) {
    return scene_vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static eddy_vec3 scale3(eddy_vec3 a, float s) { return scene_vec3(a.x * s, a.y * s, a.z * s); }

static float abs_f(float x) { return x < 0.0f ? -x : x; }

/* Raised cosine 0.5 (cos(pi x) + 1): 1 at x = 0, 0 at |x| = 1. */
static float raised_cosine(float x) { return 0.5f * (eddy_cosf(SCENE_PI * x) + 1.0f); }

/* Split p into its component along a unit axis and the rest. */
typedef struct axial_split {
    float along;          /* p . axis */
    eddy_vec3 radial;     /* p - along * axis */
    float radius;         /* |radial| */
} axial_split;

static axial_split split_axial(eddy_vec3 p, eddy_vec3 axis) {
    axial_split s;
    s.along = dot3(p, axis);
    s.radial = scene_vec3(p.x - s.along * axis.x, p.y - s.along * axis.y, p.z - s.along * axis.z);
    s.radius = sqrtf(dot3(s.radial, s.radial));
    return s;
}

/* Azimuthal unit vector axis x rho_hat (the radius must be > 0). */
static eddy_vec3 azimuth(eddy_vec3 axis, const axial_split *s) {
    return scale3(cross3(axis, s->radial), 1.0f / s->radius);
}

/* ---------------------------------------------------------------- distributions */

eddy_vec3 scene_ring_domain(const scene_ring_params *p) {
    float d = 2.0f * (p->radius + p->thickness);
    return scene_vec3(d, d, d);
}

/* omega = raised_cosine(rho_c / T) phi_hat inside the core, where rho_c is
 * the distance from the core circle. With phi_hat = axis x rho_hat the ring's
 * impulse, and its motion, point along +axis. */
void scene_sample_vortex_ring(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)rng;
    const scene_ring_params *q = params;
    axial_split s = split_axial(p, q->axis);
    if (!(s.radius > 0.0f)) return;
    float dr = s.radius - q->radius;
    float core = sqrtf(dr * dr + s.along * s.along);
    if (!(core < q->thickness)) return;
    out->vorticity = scale3(azimuth(q->axis, &s), raised_cosine(core / q->thickness));
}

eddy_vec3 scene_jet_domain(const scene_jet_params *p) {
    float d = 2.0f * (p->jet_radius + p->thickness);
    return scene_vec3(d, d, d);
}

/* Curl of a jet u = axis * a(z) b(rho) confined to |z| < Rs, rho < Rs + T:
 * omega = phi_hat raised_cosine(z / Rs) sin(pi (rho - Rs) / T) pi / T for
 * Rs < rho < Rs + T. rho' = 1e-4 everywhere (marks the jet fluid). */
void scene_sample_jet_ring(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)rng;
    const scene_jet_params *q = params;
    out->density_deviation = 1e-4f;
    axial_split s = split_axial(p, q->axis);
    if (!(s.radius > q->jet_radius && s.radius < q->jet_radius + q->thickness)) return;
    if (!(abs_f(s.along) < q->jet_radius)) return;
    float axial = raised_cosine(s.along / q->jet_radius);
    float shell = eddy_sinf(SCENE_PI * (s.radius - q->jet_radius) / q->thickness);
    float profile = axial * shell * (SCENE_PI / q->thickness);
    out->vorticity = scale3(azimuth(q->axis, &s), profile);
}

eddy_vec3 scene_sheet_domain(const scene_sheet_params *p) {
    return scene_vec3(14.0f * p->thickness, p->width, 14.0f * p->thickness);
}

/* Vorticity of the shear layer u_x = tanh(z / d(y)), d = T (1 - var/2
 * (cos(2 pi y / W) - 1)): omega_y = sech^2(z/d) / d, omega_z = sech^2(z/d)
 * pi var (z/d) sin(2 pi y / W) / (W d). The original's table writes tanh^2 in
 * omega_z; sech^2 is the exact curl (divergence-free), so eddy uses it.
 * Cut where |omega|^2 < 0.01 (before the magnitude). */
void scene_sample_vortex_sheet(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)rng;
    const scene_sheet_params *q = params;
    float phase = 2.0f * SCENE_PI * p.y / q->width;
    float d = q->thickness * (1.0f - 0.5f * q->variation * (eddy_cosf(phase) - 1.0f));
    float zd = p.z / d;
    float th = eddy_tanhf(zd);
    float sech2 = 1.0f - th * th;
    float wy = sech2 / d;
    float wz = sech2 * SCENE_PI * q->variation * zd * eddy_sinf(phase) / (q->width * d);
    if (wy * wy + wz * wz < 0.01f) return;
    out->vorticity = scene_vec3(0.0f, wy, wz);
}

eddy_vec3 scene_tube_domain(const scene_tube_params *p) {
    float across = 4.0f * p->diameter;
    if (p->location < 0) return scene_vec3(p->width, across, across);
    return scene_vec3(across, p->width, across);
}

/* A straight tube with a raised-cosine core of radius r_local =
 * (diameter/2)(1 + var sin(2 pi periods s / width)), s the coordinate along
 * the tube. location -1: along +x, axis at z = -r; 0: along +y, axis at z = 0;
 * +1: along +y, axis at z = +r. rho' = 0. */
void scene_sample_vortex_tube(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)rng;
    const scene_tube_params *q = params;
    const float r0 = 0.5f * q->diameter;
    /* (along, u, v): coordinate along the tube and the offset from its axis */
    const bool along_x = q->location < 0;
    const float z_axis = along_x ? -r0 : (q->location > 0 ? r0 : 0.0f);
    const float along = along_x ? p.x : p.y;
    const float u = along_x ? p.y : p.x;
    const float v = p.z - z_axis;
    const eddy_vec3 dir = along_x ? scene_vec3(1.0f, 0.0f, 0.0f) : scene_vec3(0.0f, 1.0f, 0.0f);
    float r_local = r0;
    if (q->variation != 0.0f)
        r_local = r0 * (1.0f + q->variation * eddy_sinf(2.0f * SCENE_PI * q->periods * along / q->width));
    float rho = sqrtf(u * u + v * v);
    if (!(rho < r_local)) return;
    out->vorticity = scale3(dir, raised_cosine(rho / r_local));
}

/* omega = RandomSpread((1,1,1)) drawn x, y, z inside the box (the skeleton
 * only asks for points inside). */
void scene_sample_vortex_noise(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)p;
    const scene_noise_params *q = params;
    float x = eddy_rng_spread(rng, 1.0f);
    float y = eddy_rng_spread(rng, 1.0f);
    float z = eddy_rng_spread(rng, 1.0f);
    out->vorticity = scene_vec3(x, y, z);
    out->density_deviation = q->density_deviation;
}

eddy_vec3 scene_ball_domain(const scene_ball_params *p) {
    float d = 4.0f * p->radius;
    return scene_vec3(d, d, d);
}

/* Inside |p| < R: rho' given, omega = RandomSpread(0.001 (1,1,1)) drawn
 * x, y, z (a seed so every vorton has some vorticity). Outside: nothing, and
 * no draws. */
void scene_sample_density_ball(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    const scene_ball_params *q = params;
    if (!(dot3(p, p) < q->radius * q->radius)) return;
    float x = eddy_rng_spread(rng, 0.001f);
    float y = eddy_rng_spread(rng, 0.001f);
    float z = eddy_rng_spread(rng, 0.001f);
    out->vorticity = scene_vec3(x, y, z);
    out->density_deviation = q->density_deviation;
}

/* ---------------------------------------------------------------- scenes */

static const eddy_vec3 k_origin = {0.0f, 0.0f, 0.0f};
static const eddy_vec3 k_axis_x = {1.0f, 0.0f, 0.0f};

/* Returns early from a builder on the first failing step. */
#define SCENE_TRY(call)                         \
    do {                                        \
        eddy_status scene_try_ = (call);        \
        if (scene_try_ != EDDY_OK) return scene_try_; \
    } while (0)

eddy_status scene_build_vortex_ring(scene_build *b) {
    const scene_ring_params ring = {1.0f, 1.0f, k_axis_x};
    const scene_distribution d = {scene_sample_vortex_ring, &ring, scene_ring_domain(&ring)};
    SCENE_TRY(scene_assign_vortons(b, &d, 20.0f, 4096, k_origin));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FILL);
}

eddy_status scene_build_jet_ring(scene_build *b) {
    const scene_jet_params jet = {1.0f, 1.0f, k_axis_x};
    const scene_distribution d = {scene_sample_jet_ring, &jet, scene_jet_domain(&jet)};
    SCENE_TRY(scene_assign_vortons(b, &d, 20.0f, 4096, k_origin));
    SCENE_TRY(scene_seed_tracers(b, 3, SCENE_TRACERS_FILL));
    /* Tracers stream from the jet's centre and live 240 frames (8 s). */
    b->def.tracer_max_age = 240;
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = k_origin;
    e.position_spread = scene_vec3(0.5f, 0.5f, 0.5f);
    e.vorton_rate = 0.0f;
    e.tracer_rate = 2000.0f;
    e.enabled = true;
    return scene_add_emitter(b, &e);
}

eddy_status scene_build_vortex_sheet(scene_build *b) {
    const scene_sheet_params sheet = {1.0f, 0.2f, 7.0f};
    const scene_distribution d = {scene_sample_vortex_sheet, &sheet, scene_sheet_domain(&sheet)};
    SCENE_TRY(scene_assign_vortons(b, &d, 20.0f, 4096, k_origin));
    return scene_seed_tracers(b, 4, SCENE_TRACERS_FILL);
}

eddy_status scene_build_crossed_tubes(scene_build *b) {
    const scene_tube_params lower = {1.0f, 0.0f, 4.0f, 2.0f, -1};
    const scene_tube_params upper = {1.0f, 0.0f, 4.0f, 2.0f, +1};
    const scene_distribution d0 = {scene_sample_vortex_tube, &lower, scene_tube_domain(&lower)};
    const scene_distribution d1 = {scene_sample_vortex_tube, &upper, scene_tube_domain(&upper)};
    SCENE_TRY(scene_assign_vortons(b, &d0, 20.0f, 4096, k_origin));
    SCENE_TRY(scene_assign_vortons(b, &d1, 20.0f, 4096, k_origin));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FILL);
}

/* Leapfrog magnitude: sets the rings' speed (about 1 unit per 60 frames). */
#define LEAPFROG_MAGNITUDE 30.0f

eddy_status scene_build_leapfrog(scene_build *b) {
    const scene_ring_params ring = {1.0f, 0.35f, k_axis_x};
    const scene_distribution d = {scene_sample_vortex_ring, &ring, scene_ring_domain(&ring)};
    SCENE_TRY(scene_assign_vortons(b, &d, LEAPFROG_MAGNITUDE, 4096, scene_vec3(-0.6f, 0.0f, 0.0f)));
    SCENE_TRY(scene_assign_vortons(b, &d, LEAPFROG_MAGNITUDE, 4096, scene_vec3(0.6f, 0.0f, 0.0f)));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FILL);
}

/* two_rings_apart: two rings on one axis, 16 units apart, moving toward
 * each other. At first the gap (12 units between their domains) is more
 * than twice either ring's extent, so each ring is a grid island of its own
 * (lib/fluid/islands.c); as they close in they share one grid, then meet.
 * The tracers fill the box over both, most of them between the rings,
 * outside both islands' grids (the far field). */
eddy_status scene_build_two_rings_apart(scene_build *b) {
    const scene_ring_params forward = {1.0f, 1.0f, k_axis_x};
    const scene_ring_params backward = {1.0f, 1.0f, {-1.0f, 0.0f, 0.0f}};
    const scene_distribution df = {scene_sample_vortex_ring, &forward, scene_ring_domain(&forward)};
    const scene_distribution db = {scene_sample_vortex_ring, &backward,
                                   scene_ring_domain(&backward)};
    SCENE_TRY(scene_assign_vortons(b, &df, 20.0f, 1024, k_origin));
    SCENE_TRY(scene_assign_vortons(b, &db, 20.0f, 1024, scene_vec3(16.0f, 0.0f, 0.0f)));
    return scene_seed_tracers(b, 2, SCENE_TRACERS_FILL);
}

eddy_status scene_build_dye_drop(scene_build *b) {
    const scene_ball_params ball = {1.0f, 10.0f};
    const scene_distribution d = {scene_sample_density_ball, &ball, scene_ball_domain(&ball)};
    SCENE_TRY(scene_assign_vortons(b, &d, 1.0f, 4096, scene_vec3(0.0f, 0.0f, 5.0f)));
    return scene_seed_tracers(b, 5, SCENE_TRACERS_FROM_DENSITY);
}

eddy_status scene_build_two_drops(scene_build *b) {
    const scene_ball_params light = {1.0f, -0.9f};
    const scene_ball_params heavy = {1.0f, 0.9f};
    const scene_distribution dl = {scene_sample_density_ball, &light, scene_ball_domain(&light)};
    const scene_distribution dh = {scene_sample_density_ball, &heavy, scene_ball_domain(&heavy)};
    SCENE_TRY(scene_assign_vortons(b, &dl, 1.0f, 4096, scene_vec3(0.0f, 0.0f, -2.0f)));
    SCENE_TRY(scene_assign_vortons(b, &dh, 1.0f, 4096, scene_vec3(0.0f, 0.0f, 2.0f)));
    return scene_seed_tracers(b, 4, SCENE_TRACERS_FROM_DENSITY);
}

/* noise_cloud: its one emitter is the first created in the world, so its
 * generation-checked id is {index1 1, generation 1}. */
enum { NOISE_EMITTER_OFF_FRAME = 150, NOISE_EMITTER_ON_FRAME = 200 };

/* Cell-scale white noise has little large-scale energy and PSE diffuses it
 * within about h^2/nu = 47 frames: magnitude 4 barely moves (peak speed 0.05
 * units/s). 32 gives visible swirling (peak 0.27 units/s, |omega| dt < 1)
 * and stays stable past the 600-frame age limit. */
#define NOISE_MAGNITUDE 32.0f

eddy_status scene_build_noise_cloud(scene_build *b) {
    const scene_noise_params noise = {{2.0f, 2.0f, 2.0f}, 0.0f};
    const scene_distribution d = {scene_sample_vortex_noise, &noise, noise.box};
    SCENE_TRY(scene_assign_vortons(b, &d, NOISE_MAGNITUDE, 4096, k_origin));
    SCENE_TRY(scene_seed_tracers(b, 4, SCENE_TRACERS_FILL));
    b->def.vorton_max_age = 600;
    b->def.tracer_max_age = 600;
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = k_origin;
    e.position_spread = scene_vec3(0.5f, 0.5f, 0.5f);
    e.vorticity = k_origin;
    e.vorticity_spread = scene_vec3(4.0f, 4.0f, 4.0f);
    e.vorton_rate = 30.0f;
    e.tracer_rate = 3000.0f;
    e.enabled = true;
    return scene_add_emitter(b, &e);
}

const eddy_input *scene_input_noise_cloud(int64_t frame, eddy_scene_input *out) {
    eddy_emitter_command_type type;
    if (frame == NOISE_EMITTER_OFF_FRAME) type = EDDY_EMITTER_DISABLE;
    else if (frame == NOISE_EMITTER_ON_FRAME) type = EDDY_EMITTER_ENABLE;
    else return NULL;
    eddy_emitter_command *c = &out->emitter_commands[0];
    memset(c, 0, sizeof *c);
    c->emitter.index1 = 1;
    c->emitter.generation = 1;
    c->type = type;
    out->input.emitter_commands = out->emitter_commands;
    out->input.emitter_command_count = 1;
    return &out->input;
}
