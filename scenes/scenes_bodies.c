/* SPDX-License-Identifier: MIT */
/* Scenes with rigid bodies: projectiles through smoke, a spinning ball, wind
 * past a fixed ball, lift on a plate and an airfoil, a ball floating between
 * two layers, fluid in closed containers (still, shaken, rotating) and the
 * part-13 benchmark plume under a plate.
 *
 * Parameters follow ALGORITHM.md §10.2 and §10.3 where the original has the
 * scenario, scaled to the determinism-test budget (about 2,600 vortons and
 * 60,000 tracers; plume_plate matches the benchmark instead). Every departure
 * is listed in docs/scenes.md, "Scenes with bodies".
 *
 * Bodies are created in the populate step, after the particles: the library
 * removes particles embedded in a body (or outside a container) at the first
 * step. The first body created in a world has id {1, 1}; the scripted
 * containers rely on that. Kinematic paths and orientations use eddy_sinf and
 * eddy_cosf only, so the scripts are the same bits everywhere. */
#include "scenes_internal.h"

#include <math.h>
#include <string.h>

#define SCENE_TRY(call)                               \
    do {                                              \
        eddy_status scene_try_ = (call);              \
        if (scene_try_ != EDDY_OK) return scene_try_; \
    } while (0)

/* ---------------------------------------------------------------- small math */

static const eddy_vec3 k_zero = {0.0f, 0.0f, 0.0f};
static const eddy_quat k_identity = {0.0f, 0.0f, 0.0f, 1.0f};

/* Rotation by `angle` about a unit axis. */
static eddy_quat quat_axis_angle(eddy_vec3 axis, float angle) {
    const float s = eddy_sinf(0.5f * angle);
    eddy_quat q = {axis.x * s, axis.y * s, axis.z * s, eddy_cosf(0.5f * angle)};
    return q;
}

/* Hamilton product: the rotation b followed by a. */
static eddy_quat quat_mul(eddy_quat a, eddy_quat b) {
    eddy_quat q;
    q.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    q.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    q.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    q.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    return q;
}

static float sphere_volume(float r) { return (4.0f / 3.0f) * SCENE_PI * r * r * r; }

/* Quiescent-fluid vorticity scale (ALGORITHM.md §10.1): 0.125 FLT_EPSILON. */
#define QUIESCENT_MAGNITUDE (0.125f * SCENE_FLT_EPSILON)

/* ---------------------------------------------------------------- distributions */

/* DensityBox(dims, rho'): every skeleton cell is inside; omega is a seed
 * RandomSpread(0.001 (1,1,1)) drawn x, y, z so every cell makes a vorton. */
typedef struct density_box_params {
    float density_deviation;
} density_box_params;

static void sample_density_box(const void *params, eddy_vec3 p, eddy_rng *rng, scene_sample *out) {
    (void)p;
    const density_box_params *q = params;
    float x = eddy_rng_spread(rng, 0.001f);
    float y = eddy_rng_spread(rng, 0.001f);
    float z = eddy_rng_spread(rng, 0.001f);
    out->vorticity = scene_vec3(x, y, z);
    out->density_deviation = q->density_deviation;
}

static eddy_status add_density_box(scene_build *b, eddy_vec3 dims, float density_deviation,
                                   int nmax, eddy_vec3 centre) {
    const density_box_params box = {density_deviation};
    const scene_distribution d = {sample_density_box, &box, dims};
    return scene_assign_vortons(b, &d, 1.0f, nmax, centre);
}

/* VortexNoise over `box` at `magnitude`, rho' = 0. */
static eddy_status add_noise(scene_build *b, eddy_vec3 box, float magnitude, int nmax,
                             eddy_vec3 centre) {
    const scene_noise_params noise = {box, 0.0f};
    const scene_distribution d = {scene_sample_vortex_noise, &noise, box};
    return scene_assign_vortons(b, &d, magnitude, nmax, centre);
}

/* ---------------------------------------------------------------- bodies */

/* A dynamic body with every physical field set here, so a scene does not
 * drift when the library's body defaults change: identity orientation, at
 * rest, 300 K (the ambient temperature), heat capacity 1e5, conductivity
 * 500, gravity on, friction 0.5 and restitution 0 on a container's walls. */
static eddy_body_def body_def(eddy_shape shape, eddy_vec3 position, eddy_vec3 velocity, float mass) {
    eddy_body_def d = eddy_body_def_default();
    d.type = EDDY_BODY_DYNAMIC;
    d.shape = shape;
    d.position = position;
    d.orientation = k_identity;
    d.linear_velocity = velocity;
    d.angular_velocity = k_zero;
    d.mass = mass;
    d.temperature = 300.0f;
    d.heat_capacity = 1.0e5f;
    d.thermal_conductivity = 500.0f;
    d.gravity = true;
    d.friction = 0.5f;
    d.restitution = 0.0f;
    return d;
}

static eddy_body_def sphere_def(eddy_vec3 position, eddy_vec3 velocity, float mass, float radius) {
    return body_def(eddy_shape_sphere(radius), position, velocity, mass);
}

/* A box of edge lengths `dims`, centred on its position. */
static eddy_body_def box_def(eddy_vec3 position, eddy_vec3 velocity, float mass, eddy_vec3 dims) {
    const eddy_vec3 half = {0.5f * dims.x, 0.5f * dims.y, 0.5f * dims.z};
    return body_def(eddy_shape_box(half), position, velocity, mass);
}

/* A body that never moves unless the input moves it. */
static eddy_body_def make_fixed(eddy_body_def d) {
    d.type = EDDY_BODY_KINEMATIC;
    d.linear_velocity = k_zero;
    d.angular_velocity = k_zero;
    d.gravity = false;
    return d;
}

/* Containers: the inside of a box (a hole). Its inner dimensions are the
 * nominal ones plus CONTAINER_CLEARANCE on every side, so that the outermost
 * vortons of fluid that fills the nominal box sit more than one vorton radius
 * from the walls (the library removes particles closer than their radius at
 * the first step; at exactly the nominal size the outer layer sits exactly one
 * radius away and rounding would decide). Kinematic, no heat exchange. */
#define CONTAINER_CLEARANCE 0.025f

/* Container scenes run one step per frame with vortex stretching on at the
 * default gain (0.5). They used to need two substeps and stretching off: the
 * walls displaced particles without moving the fluid and explicit stretching
 * amplified the wall layers; the container now carries its interior
 * (lib/bodies/carry.c) and stretching is integrated in a bounded form
 * (lib/fluid/stretch.c), docs/coupling.md §6.2. */
static void container_physics(scene_build *b) {
    b->def.substeps = 1;
    b->def.stretch_gain = 0.5f;
}

static eddy_vec3 container_half_extents(eddy_vec3 nominal_dims) {
    return scene_vec3(0.5f * nominal_dims.x + CONTAINER_CLEARANCE,
                      0.5f * nominal_dims.y + CONTAINER_CLEARANCE,
                      0.5f * nominal_dims.z + CONTAINER_CLEARANCE);
}

static eddy_body_def container_def(eddy_vec3 nominal_dims, eddy_vec3 position) {
    const eddy_shape box = eddy_shape_box(container_half_extents(nominal_dims));
    eddy_body_def d = body_def(eddy_shape_hole(box), position, k_zero, 1.0e5f);
    d.type = EDDY_BODY_KINEMATIC;
    d.thermal_conductivity = 0.0f;
    d.gravity = false;
    return d;
}

static eddy_status create_body(eddy_world *w, const eddy_body_def *def) {
    eddy_body_id id;
    return eddy_world_create_body(w, def, &id);
}

/* The first body of a world (the scripted containers). */
static eddy_body_id first_body(void) {
    eddy_body_id id = {1, 1};
    return id;
}

static const eddy_input *kinematic_input(eddy_scene_input *out, eddy_vec3 position,
                                         eddy_quat orientation, eddy_vec3 velocity,
                                         eddy_vec3 angular_velocity) {
    eddy_body_command *c = &out->body_commands[0];
    memset(c, 0, sizeof *c);
    c->body = first_body();
    c->type = EDDY_BODY_SET_KINEMATIC;
    c->position = position;
    c->orientation = orientation;
    c->linear_velocity = velocity;
    c->angular_velocity = angular_velocity;
    out->input.body_commands = out->body_commands;
    out->input.body_command_count = 1;
    return &out->input;
}

/* ---------------------------------------------------------------- projectiles */
/* Quiescent smoke: VortexNoise at 0.125 FLT_EPSILON (vortons that only carry
 * the boundary vorticity the bodies give them), tracers m^3 per cell. The
 * projectiles start at x = -3, outside the smoke (x in [-2, 2]), with gravity
 * off as in the original (its bodies felt gravity only through buoyancy, in
 * scenario 14 only). */

static const eddy_vec3 k_smoke_flat = {4.0f, 0.125f, 0.5f};  /* P13 #2, #4, #22, #24 */
static const eddy_vec3 k_smoke_square = {4.0f, 0.3f, 0.3f};  /* P13 #3, #23 */

static eddy_status build_smoke(scene_build *b, eddy_vec3 box, int nmax, int m) {
    SCENE_TRY(add_noise(b, box, QUIESCENT_MAGNITUDE, nmax, k_zero));
    return scene_seed_tracers(b, m, SCENE_TRACERS_FILL);
}

static eddy_status create_projectile(eddy_world *w, eddy_body_def d, eddy_vec3 angular_velocity) {
    d.gravity = false;
    d.angular_velocity = angular_velocity;
    return create_body(w, &d);
}

/* The projectiles start 0.2 m short of the smoke (x from -2). They started
 * at x = -3 (the original's) until the bodies felt the ambient fluid's drag
 * (EDDY_BODY_COUPLING_FLOW, docs/coupling.md §8): at the default viscosity
 * (0.01 m^2/s, Re 80 for a ball at 2 m/s) ball_through_smoke's ball stops
 * within 0.82 m and never reached the smoke. */
static const eddy_vec3 k_launch = {-2.4f, 0.0f, 0.0f};

/* Spheres r = 0.2, mass 0.02, launched along +x from k_launch. The
 * original's impulsive torques become initial angular velocities: I = 2/5 m
 * r^2 = 3.2e-4, so 0.002 -> 6.25 rad/s and 0.01 -> 31.25 rad/s. */
static eddy_status launch_ball(eddy_world *w, float speed, eddy_vec3 angular_velocity) {
    const eddy_vec3 v = {speed, 0.0f, 0.0f};
    return create_projectile(w, sphere_def(k_launch, v, 0.02f, 0.2f), angular_velocity);
}

eddy_status scene_build_ball_through_smoke(scene_build *b) {
    return build_smoke(b, k_smoke_flat, 2048, 3);
}

eddy_status scene_populate_ball_through_smoke(eddy_world *w, const scene_build *b) {
    (void)b;
    return launch_ball(w, 2.0f, k_zero);
}

eddy_status scene_build_rifled_ball(scene_build *b) {
    return build_smoke(b, k_smoke_square, 2048, 3);
}

eddy_status scene_populate_rifled_ball(eddy_world *w, const scene_build *b) {
    (void)b;
    return launch_ball(w, 5.0f, scene_vec3(6.25f, 0.0f, 0.0f));
}

eddy_status scene_build_curve_ball(scene_build *b) { return build_smoke(b, k_smoke_flat, 4096, 3); }

eddy_status scene_populate_curve_ball(eddy_world *w, const scene_build *b) {
    (void)b;
    return launch_ball(w, 4.0f, scene_vec3(0.0f, 31.25f, 0.0f));
}

/* Flat plate 1 x 1 x 0.1, mass 0.02 (P13 #22), pitched leading edge up by
 * 0.2 rad: RotY(-0.2) lifts the +x end, so the lower face meets the smoke and
 * the lift is +z. 4 m/s instead of the original's 10: at 10 m/s the plate
 * moves 0.33 per frame (ten vorton radii, three plate thicknesses) and
 * crosses the whole smoke sheet in about nine frames; at 4 m/s it moves four
 * vorton radii per frame and the passage takes about thirty. */
#define PLATE_SPEED 4.0f

eddy_status scene_build_plate_lift(scene_build *b) { return build_smoke(b, k_smoke_flat, 2048, 3); }

eddy_status scene_populate_plate_lift(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_vec3 position = {-3.0f, 0.0f, -0.05f}, velocity = {PLATE_SPEED, 0.0f, 0.0f};
    eddy_body_def d = box_def(position, velocity, 0.02f, scene_vec3(1.0f, 1.0f, 0.1f));
    d.orientation = quat_axis_angle(scene_vec3(0.0f, 1.0f, 0.0f), -0.2f);
    return create_projectile(w, d, k_zero);
}

/* Box 0.2^3, mass 0.02 (P13 #23): I = m (a^2 + a^2) / 12 = 1.333e-4, so the
 * original's 0.001 about x gives 7.5 rad/s. */
eddy_status scene_build_box_spin(scene_build *b) { return build_smoke(b, k_smoke_square, 2048, 3); }

eddy_status scene_populate_box_spin(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_vec3 velocity = {4.0f, 0.0f, 0.0f}, dims = {0.2f, 0.2f, 0.2f};
    return create_projectile(w, box_def(k_launch, velocity, 0.02f, dims),
                             scene_vec3(7.5f, 0.0f, 0.0f));
}

/* Box 0.2 x 0.5 x 0.1, mass 0.015 (P13 #24): I_yy = m (0.2^2 + 0.1^2) / 12
 * = 6.25e-5, so 0.001 about y gives 16 rad/s. */
eddy_status scene_build_box_magnus(scene_build *b) { return build_smoke(b, k_smoke_flat, 4096, 3); }

eddy_status scene_populate_box_magnus(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_vec3 velocity = {2.0f, 0.0f, 0.0f}, dims = {0.2f, 0.5f, 0.1f};
    return create_projectile(w, box_def(k_launch, velocity, 0.015f, dims),
                             scene_vec3(0.0f, 16.0f, 0.0f));
}

/* Airfoil (part 13 Fig. 8; no parameters in the original code): NACA 0012
 * section, chord 1, span 1, 16 outline vertices, mass 0.02, 4 m/s.
 * eddy_shape_airfoil has the chord along x with the leading edge at -x, the
 * thickness along y and the span along z. A half turn about (0, 1, -1)/sqrt(2)
 * maps (x, y, z) -> (-x, -z, -y): leading edge to +x (the direction of
 * flight), thickness to z, span to y. Then RotY(-0.2) pitches the leading
 * edge up (angle of attack 0.2 rad), as for the plate. */
#define AIRFOIL_SPEED 4.0f
#define AIRFOIL_VERTICES 16

eddy_status scene_build_airfoil(scene_build *b) { return build_smoke(b, k_smoke_flat, 2048, 3); }

eddy_status scene_populate_airfoil(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_shape shape;
    SCENE_TRY(eddy_shape_airfoil(1.0f, 0.12f, 1.0f, AIRFOIL_VERTICES, &shape));
    eddy_body_def d = body_def(shape, k_launch, scene_vec3(AIRFOIL_SPEED, 0.0f, 0.0f), 0.02f);
    const float h = sqrtf(0.5f);
    const eddy_quat flip = {0.0f, h, -h, 0.0f};
    d.orientation = quat_mul(quat_axis_angle(scene_vec3(0.0f, 1.0f, 0.0f), -0.2f), flip);
    return create_projectile(w, d, k_zero);
}

/* ---------------------------------------------------------------- spinning ball */
/* A ball (r 0.3, mass 1) spinning about z at 3 rad/s in still fluid (P13 #5
 * with the P17 spin): I = 2/5 m r^2 = 0.036, L = 0.108. The fluid is a slab
 * of quiescent noise, 16 x 16 x 8 vortons (r = 0.05) over 1.6 x 1.6 x 0.8
 * around the ball, so the boundary layer is several vortons deep. Dissipation
 * is off and viscosity small (0.001), so the angular momentum the ball
 * exchanges stays in the fluid (body + fluid angular momentum is a test).
 * Gravity off: the ball stays where it is. */
#define SPIN_RADIUS 0.3f
#define SPIN_MASS 1.0f
#define SPIN_RATE 3.0f

eddy_status scene_build_spinning_ball(scene_build *b) {
    b->def.vorticity_dissipation = 0.0f;
    b->def.viscosity = 0.001f;
    SCENE_TRY(add_noise(b, scene_vec3(1.6f, 1.6f, 0.8f), QUIESCENT_MAGNITUDE, 2048, k_zero));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FILL);
}

eddy_status scene_populate_spinning_ball(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = sphere_def(k_zero, k_zero, SPIN_MASS, SPIN_RADIUS);
    d.angular_velocity = scene_vec3(0.0f, 0.0f, SPIN_RATE);
    d.gravity = false;
    return create_body(w, &d);
}

/* ---------------------------------------------------------------- wind */
/* P13 #7: a fixed ball (r 0.2) in a wind of 1 unit/s along +x (wind works in
 * eddy, D7), in quiescent VortexNoise(0.5^3), Nmax 512. Vortons (500/s, no
 * vorticity) and tracers (10,000/s) are emitted upstream at (-0.5, 0, 0); the
 * original's tracer spread is 0.3 of the vorton spread in y and z, so two
 * emitters. Both kinds live 100 frames: about 1,700 vortons and 33,000
 * tracers in steady state. */
eddy_status scene_build_wind_past_ball(scene_build *b) {
    b->def.wind = scene_vec3(1.0f, 0.0f, 0.0f);
    b->def.vorton_max_age = 100;
    b->def.tracer_max_age = 100;
    SCENE_TRY(add_noise(b, scene_vec3(0.5f, 0.5f, 0.5f), QUIESCENT_MAGNITUDE, 512, k_zero));
    SCENE_TRY(scene_seed_tracers(b, 3, SCENE_TRACERS_FILL));
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = scene_vec3(-0.5f, 0.0f, 0.0f);
    e.position_spread = scene_vec3(1.0f / 30.0f, 0.5f, 0.5f);
    e.vorton_rate = 500.0f;
    e.tracer_rate = 0.0f;
    e.enabled = true;
    SCENE_TRY(scene_add_emitter(b, &e));
    e.position_spread = scene_vec3(1.0f / 30.0f, 0.15f, 0.15f);
    e.vorton_rate = 0.0f;
    e.tracer_rate = 10000.0f;
    return scene_add_emitter(b, &e);
}

eddy_status scene_populate_wind_past_ball(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = make_fixed(sphere_def(k_zero, k_zero, 1.0e8f, 0.2f));
    return create_body(w, &d);
}

/* ---------------------------------------------------------------- rotated cube */
/* P13 #20: a fixed cube 0.5^3 turned 0.5 rad about x, at (0, 0.01, 0). The
 * original's noise filled exactly the unturned cube (0.5^3), so only its
 * corners survived; here the noise fills 1^3 around the cube (Nmax 2048: 8^3
 * vortons, r = 1/16), the particles inside the turned cube are removed at the
 * first step and the rest swirl against its faces. Magnitude 32 as
 * noise_cloud (same cell size): peak speed about 0.27 units/s. */
#define ROTATED_CUBE_MAGNITUDE 32.0f

eddy_status scene_build_rotated_cube(scene_build *b) {
    SCENE_TRY(add_noise(b, scene_vec3(1.0f, 1.0f, 1.0f), ROTATED_CUBE_MAGNITUDE, 2048, k_zero));
    return scene_seed_tracers(b, 4, SCENE_TRACERS_FILL);
}

eddy_status scene_populate_rotated_cube(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_vec3 position = {0.0f, 0.01f, 0.0f}, dims = {0.5f, 0.5f, 0.5f};
    eddy_body_def d = make_fixed(box_def(position, k_zero, 1.0e8f, dims));
    d.orientation = quat_axis_angle(scene_vec3(1.0f, 0.0f, 0.0f), 0.5f);
    return create_body(w, &d);
}

/* ---------------------------------------------------------------- layers */
/* Two layers, each a DensityBox 1^3 with Nmax 2048 (8^3 vortons, r = 1/16):
 * rho' = +0.6 at z = -0.5 below rho' = -0.6 at z = +0.5 (P13 #14, §10.3 #27).
 * Tracers from density, m = 3. */
static eddy_status build_layers(scene_build *b) {
    container_physics(b);
    const eddy_vec3 cube = {1.0f, 1.0f, 1.0f};
    SCENE_TRY(add_density_box(b, cube, 0.6f, 2048, scene_vec3(0.0f, 0.0f, -0.5f)));
    SCENE_TRY(add_density_box(b, cube, -0.6f, 2048, scene_vec3(0.0f, 0.0f, 0.5f)));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FROM_DENSITY);
}

static const eddy_vec3 k_tall_box = {1.0f, 1.0f, 2.0f};

/* P13 #14 (part 9): a ball of mean density rho0, between the heavy (1.6) and
 * the light (0.4) layer, starts in the light layer at z = 0.5 with gravity
 * on, sinks and settles at the interface. The original's layers sit in open
 * fluid, where the light one rises and the heavy one sinks away from each
 * other (ambient fluid is heavier than the top one and lighter than the
 * bottom one); eddy keeps them in the closed (1, 1, 2) box of
 * container_layers so the stratification stays. */
#define BUOYANT_RADIUS 0.2f

eddy_status scene_build_buoyant_ball(scene_build *b) { return build_layers(b); }

eddy_status scene_populate_buoyant_ball(eddy_world *w, const scene_build *b) {
    eddy_body_def box = container_def(k_tall_box, k_zero);
    SCENE_TRY(create_body(w, &box));
    const float mass = b->def.ambient_density * sphere_volume(BUOYANT_RADIUS);
    eddy_body_def d = sphere_def(scene_vec3(0.0f, 0.0f, 0.5f), k_zero, mass, BUOYANT_RADIUS);
    d.gravity = true;
    return create_body(w, &d);
}

/* ---------------------------------------------------------------- containers */

/* §10.3 #26: a heavy drop (rho' = 10) in a closed box. The original's
 * DensityBall(1) in a 5^3 box is scaled to a ball of radius 0.5 in a 3^3 box
 * (finer vortons for the same count); the drop starts 0.25 below the lid. */
eddy_status scene_build_container_drop(scene_build *b) {
    container_physics(b);
    const scene_ball_params ball = {0.5f, 10.0f};
    const scene_distribution d = {scene_sample_density_ball, &ball, scene_ball_domain(&ball)};
    SCENE_TRY(scene_assign_vortons(b, &d, 1.0f, 4096, scene_vec3(0.0f, 0.0f, 0.75f)));
    return scene_seed_tracers(b, 5, SCENE_TRACERS_FROM_DENSITY);
}

eddy_status scene_populate_container_drop(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = container_def(scene_vec3(3.0f, 3.0f, 3.0f), k_zero);
    return create_body(w, &d);
}

/* §10.3 #27: light over heavy in a (1, 1, 2) box (the layers above). */
eddy_status scene_build_container_layers(scene_build *b) { return build_layers(b); }

eddy_status scene_populate_container_layers(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = container_def(k_tall_box, k_zero);
    return create_body(w, &d);
}

/* §10.3 #28: a heavy layer in a (1, 1, 2) box shaken along
 *     x(t) = A (0.5 sin 3t, 0.2 cos 5t, 0.05 sin 7t),
 *     v(t) = A (1.5 cos 3t, -sin 5t, 0.35 cos 7t),   t = frame dt,
 * both set every frame, so the walls push the fluid (the original set the
 * position only). A = 0.2: the box moves at most 0.1 along x, at up to 0.3
 * units/s. The container is created at x(0) with v(0). */
#define SLOSH_AMPLITUDE 0.2f

static eddy_vec3 slosh_position(float t) {
    return scene_vec3(SLOSH_AMPLITUDE * 0.5f * eddy_sinf(3.0f * t),
                      SLOSH_AMPLITUDE * 0.2f * eddy_cosf(5.0f * t),
                      SLOSH_AMPLITUDE * 0.05f * eddy_sinf(7.0f * t));
}

static eddy_vec3 slosh_velocity(float t) {
    return scene_vec3(SLOSH_AMPLITUDE * 1.5f * eddy_cosf(3.0f * t),
                      SLOSH_AMPLITUDE * -1.0f * eddy_sinf(5.0f * t),
                      SLOSH_AMPLITUDE * 0.35f * eddy_cosf(7.0f * t));
}

/* The layer fills the bottom half of the box where the box starts, x(0). */
eddy_status scene_build_sloshing(scene_build *b) {
    container_physics(b);
    const eddy_vec3 cube = {1.0f, 1.0f, 1.0f}, start = slosh_position(0.0f);
    const eddy_vec3 centre = {start.x, start.y, start.z - 0.5f};
    SCENE_TRY(add_density_box(b, cube, 0.6f, 2048, centre));
    return scene_seed_tracers(b, 4, SCENE_TRACERS_FROM_DENSITY);
}

eddy_status scene_populate_sloshing(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = container_def(k_tall_box, slosh_position(0.0f));
    d.linear_velocity = slosh_velocity(0.0f);
    return create_body(w, &d);
}

/* Time of a frame; 1/30 is scene_physics_default's dt, which these scenes keep. */
static float frame_time(int64_t frame) { return (float)frame * (1.0f / 30.0f); }

const eddy_input *scene_input_sloshing(int64_t frame, eddy_scene_input *out) {
    const float t = frame_time(frame);
    return kinematic_input(out, slosh_position(t), k_identity, slosh_velocity(t), k_zero);
}

/* §10.3 #32/#33: heavy fluid filling the +x half of a (3, 0.5, 2) box:
 * DensityBox((1.5, 0.5, 2)) at (0.75, 0, 0), Nmax 4096 (16 x 4 x 16 vortons,
 * r = 0.0568), tracers from density, m = 3. */
static const eddy_vec3 k_wide_box = {3.0f, 0.5f, 2.0f};

static eddy_status build_heavy_side(scene_build *b, float density_deviation) {
    container_physics(b);
    SCENE_TRY(add_density_box(b, scene_vec3(1.5f, 0.5f, 2.0f), density_deviation, 4096,
                              scene_vec3(0.75f, 0.0f, 0.0f)));
    return scene_seed_tracers(b, 3, SCENE_TRACERS_FROM_DENSITY);
}

/* The container turns about y at 2 rad/s: orientation (0, sin t, 0, cos t)
 * (angle 2t), angular velocity (0, 2, 0), set every frame. rho' = 2 instead
 * of the original's 1000 (far beyond what the baroclinic term takes at
 * dt = 1/30). */
#define ROTATING_DENSITY 2.0f
#define ROTATING_RATE 2.0f

eddy_status scene_build_rotating_container(scene_build *b) {
    return build_heavy_side(b, ROTATING_DENSITY);
}

eddy_status scene_populate_rotating_container(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = container_def(k_wide_box, k_zero);
    d.angular_velocity = scene_vec3(0.0f, ROTATING_RATE, 0.0f);
    return create_body(w, &d);
}

const eddy_input *scene_input_rotating_container(int64_t frame, eddy_scene_input *out) {
    const float half_angle = 0.5f * ROTATING_RATE * frame_time(frame);
    const eddy_quat q = {0.0f, eddy_sinf(half_angle), 0.0f, eddy_cosf(half_angle)};
    return kinematic_input(out, k_zero, q, k_zero, scene_vec3(0.0f, ROTATING_RATE, 0.0f));
}

/* The original's rho' = 100 (P17 with SPH) is far beyond what the vorton
 * baroclinic term takes at dt = 1/30; 0.25 (grid value about 0.12) collapses
 * visibly: the front runs to x = -1.1 (the wall is at -1.5) in 150 frames. */
#define DAM_DENSITY 0.25f

eddy_status scene_build_dam_break(scene_build *b) { return build_heavy_side(b, DAM_DENSITY); }

eddy_status scene_populate_dam_break(eddy_world *w, const scene_build *b) {
    (void)b;
    eddy_body_def d = container_def(k_wide_box, k_zero);
    return create_body(w, &d);
}

/* ---------------------------------------------------------------- plume */
/* The part-13 benchmark (P13 #16, D12): light fluid emitted at the origin in
 * place of the flames, a fixed ball (r 0.2) below the emitter, a fixed plate
 * (1 x 0.5 x 0.1) above it and a free ball (mass 1, r 0.5) above the plate.
 * rho' = -0.85 is the density of the original's smoke at its 2000 K
 * (rho = rho0 T0 / T = 0.15). Gravity is off for the free ball: eddy has no
 * body-body contact, so a ball that sank (mean density 1.9) would fall
 * through the plate; the original's ball felt no gravity either (§8.9).
 * Emitter: spread 0.5^3, 100 vortons/s and 5,000 tracers/s, both killed at
 * age 300: about 1,000 vortons and 50,000 tracers from frame 300 on. The
 * initial cloud is the original's VortexNoise(0.22^3), Nmax 400 (64
 * vortons, r = 0.0275), quiescent. */
#define PLUME_DENSITY (-0.85f)

eddy_status scene_build_plume_plate(scene_build *b) {
    b->def.vorton_max_age = 300;
    b->def.tracer_max_age = 300;
    SCENE_TRY(add_noise(b, scene_vec3(0.22f, 0.22f, 0.22f), QUIESCENT_MAGNITUDE, 400, k_zero));
    SCENE_TRY(scene_seed_tracers(b, 3, SCENE_TRACERS_FILL));
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = k_zero;
    e.position_spread = scene_vec3(0.5f, 0.5f, 0.5f);
    e.density_deviation = PLUME_DENSITY;
    e.vorton_rate = 100.0f;
    e.tracer_rate = 5000.0f;
    e.enabled = true;
    return scene_add_emitter(b, &e);
}

eddy_status scene_populate_plume_plate(eddy_world *w, const scene_build *b) {
    (void)b;
    const eddy_vec3 low_at = {0.0f, 0.0f, -0.5f}, ball_at = {0.2f, 0.0f, 2.0f};
    const eddy_vec3 plate_at = {0.0f, 0.0f, 1.0f}, plate_dims = {1.0f, 0.5f, 0.1f};
    eddy_body_def low = make_fixed(sphere_def(low_at, k_zero, 1.0e8f, 0.2f));
    SCENE_TRY(create_body(w, &low));
    eddy_body_def ball = sphere_def(ball_at, k_zero, 1.0f, 0.5f);
    ball.gravity = false;
    SCENE_TRY(create_body(w, &ball));
    eddy_body_def plate = make_fixed(box_def(plate_at, k_zero, 1.0e8f, plate_dims));
    return create_body(w, &plate);
}
