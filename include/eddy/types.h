/* SPDX-License-Identifier: MIT */
/* eddy — definitions, particles, emitters, per-frame input and profile. */
#ifndef EDDY_TYPES_H
#define EDDY_TYPES_H

#include "base.h"
#include "task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ ranges
 * What validation accepts. Values outside these ranges are refused before
 * anything changes: EDDY_ERROR_INVALID_DEF for a world, body or emitter
 * definition (also when given through an EDDY_BODY_CREATE or
 * EDDY_EMITTER_CREATE command), EDDY_ERROR_INVALID_ARGUMENT for particles and
 * other input values, EDDY_ERROR_NAN for a NaN or infinity anywhere; the
 * message names the field (and the particle or command index). The ranges
 * keep every product the step forms inside the float range; they do not
 * promise a stable simulation (a huge viscosity or speed can still blow up a
 * scene, which the step then reports: see eddy_world_step). */
#define EDDY_MAX_COORDINATE 1.0e6f      /* |x|, |y|, |z| of any position, m */
#define EDDY_MAX_SPEED 1.0e4f           /* |component| of a velocity or of wind, m/s */
#define EDDY_MAX_VORTICITY 1.0e6f       /* |component| of a vorticity or angular velocity, 1/s */
#define EDDY_MAX_DENSITY_DEVIATION 1.0e4f /* |rho'| of particles and emitters, kg/m^3 */
#define EDDY_MAX_ACCELERATION 1.0e4f    /* |component| of gravity, m/s^2 */
#define EDDY_MAX_DIFFUSIVITY 1.0e3f     /* viscosity and density_diffusivity, m^2/s */
#define EDDY_MAX_GAIN 1.0e3f            /* |stretch_gain|, |spin_gain| */
#define EDDY_MAX_ALIGNMENT 16.0f        /* vorticity_alignment in [0, this] */
#define EDDY_MIN_MASS 1.0e-6f           /* body mass range, kg */
#define EDDY_MAX_MASS 1.0e12f
#define EDDY_MAX_TEMPERATURE 1.0e6f     /* body and ambient temperature in (0, this], K */
#define EDDY_MIN_HEAT_CAPACITY 1.0e-3f  /* body heat capacity range, J/K */
#define EDDY_MAX_HEAT_CAPACITY 1.0e15f
#define EDDY_MAX_CONDUCTIVITY 1.0e9f    /* body thermal conductivity in [0, this] */
#define EDDY_MAX_FRICTION 10.0f         /* body friction coefficient in [0, this] */
#define EDDY_MAX_FORCE 1.0e15f          /* |component| of an input force, torque or impulse */

typedef enum eddy_velocity_method {
    /* Treecode over nested grids evaluated at velocity-grid points (default);
     * vortons and tracers move with the grid's trilinear sample, so a vortex
     * core needs several grid cells across it (one to eight cells per vorton:
     * docs/integration.md section 8). */
    EDDY_VELOCITY_TREECODE = 0,
    /* Direct summation over all vortons at every velocity-grid point. */
    EDDY_VELOCITY_DIRECT_GRID = 1,
    /* Direct summation at every vorton: vortons move with their own exact
     * velocity and stretch with the exact gradient of the field with a core
     * of 3 vorton radii (not the grid's Jacobian); the grid, for tracers, is
     * filled directly too. O(N^2): the accuracy reference, not for games. */
    EDDY_VELOCITY_DIRECT_VORTONS = 2,
    /* The treecode at the velocity-grid points (for tracers) and two more
     * multipole walks at the vortons: one with the vortons' own core (no
     * auto-mollification), so vortons move with their own velocity instead
     * of the grid's trilinear sample, and one that gives each vorton the
     * gradient of the field with a core of 3 vorton radii, which its
     * stretching uses instead of the grid's Jacobian. Nothing a vorton does
     * then depends on the grid's cells: two rings 50 m apart each keep their
     * speed alone within 0.2 %, and a ring its speed along any direction
     * within 0.5 % (docs/physics.md section 10.1). Thin vortex rings travel
     * within 3 % of their theoretical speed with treecode_opening_angle 0.6
     * and mollify_length_scale 0.5; the velocity phase costs several times
     * the grid walk's where vortons are dense (docs/accuracy.md, "Ring
     * speed"). Needs EDDY_TREECODE_MULTIPOLE. */
    EDDY_VELOCITY_TREECODE_VORTONS = 3,
} eddy_velocity_method;

/* How the treecode (EDDY_VELOCITY_TREECODE) walks the influence tree. */
typedef enum eddy_treecode_traversal {
    /* Multipole acceptance criterion (default): a cell of edge s whose
     * centroid lies at distance D from the block of grid points being
     * evaluated is used as a multipole (summed vorticity, first and second
     * moments about its centroid) when s < treecode_opening_angle * D;
     * otherwise it is opened, down to single vortons. Accuracy and cost in
     * docs/accuracy.md. */
    EDDY_TREECODE_MULTIPOLE = 0,
    /* The original's traversal, kept for fidelity to the seed (ALGORITHM.md
     * section 4.3): only the cells that contain the query point are opened,
     * every other cell counts as one supervorton however close it is. About
     * 10-15 % RMS error against direct summation; no accuracy knob. */
    EDDY_TREECODE_ORIGINAL = 1,
} eddy_treecode_traversal;

/* How a step moves the vortons (docs/physics.md §2, "A second-order step"). */
typedef enum eddy_vorton_step {
    /* One velocity solve per step: the vortons move with the step's velocity
     * (forward Euler) and stretch with its gradient. */
    EDDY_VORTON_STEP_EULER = 0,
    /* Heun's second-order step: a second tree build and velocity solve at the
     * positions and vorticity the first one predicts, and the vortons take the
     * mean of the two (positions, vorticity, velocity). Costs about twice the
     * tree, velocity and stretching phases. At the default opening angle a
     * vortex ring's impulse drifts 1.1 % over 300 frames against Euler's
     * 2.4 % (docs/physics.md). */
    EDDY_VORTON_STEP_HEUN = 1,
    /* One velocity solve per step, as Euler's: the vortons move with the
     * step's velocity, and stretch and tilt with the rate extrapolated to the
     * middle of the step from this step's and their previous step's,
     * (3 s_n - s_(n-1)) / 2 (second-order Adams-Bashforth). Each vorton keeps
     * its last rate (in snapshots); a vorton without one (new, or whose
     * vorticity a wall reassigned) takes its own rate for that step. A vortex
     * ring's impulse drifts 1.4 % over 300 frames instead of Euler's 2.4 %
     * (multipole treecode) at Euler's cost (docs/physics.md section 2). The
     * default. */
    EDDY_VORTON_STEP_STRETCH_AB2 = 2,
    /* Heun's step (EDDY_VORTON_STEP_HEUN) in substeps the world chooses each
     * step from the vorticity: n = the least count with
     * max |omega| dt / n <= EDDY_ADAPTIVE_OMEGA_DT (the largest vorton
     * vorticity over the vortons, taken at the start of the step), at most
     * EDDY_ADAPTIVE_MAX_SUBSTEPS, each of them def.substeps fixed substeps.
     * For strong vortices at game tick rates: a ring with omega dt 2.8 in
     * its core at 30 Hz travels within 1 % of its 240 Hz distance in 1 s,
     * where the AB2 step is 10 % short; a gentle ring keeps its kinetic
     * energy within 0.3 % over 300 frames instead of losing 12 %
     * (docs/physics.md section 9.3). Costs Heun's two velocity solves per
     * substep. */
    EDDY_VORTON_STEP_HEUN_ADAPTIVE = 3,
} eddy_vorton_step;

/* EDDY_VORTON_STEP_HEUN_ADAPTIVE: the largest |omega| dt a substep may take
 * (vorton vorticity, 1/s, times the substep, s), and the most substeps. */
#define EDDY_ADAPTIVE_OMEGA_DT 1.5f
#define EDDY_ADAPTIVE_MAX_SUBSTEPS 8

/* How viscosity and density diffusivity act on the vortons (particle
 * strength exchange, lib/fluid/diffuse.c; docs/physics.md section 9). */
typedef enum eddy_diffusion {
    /* A PSE normalised by each vorton's measured second moment of the kernel
     * over its neighbours, M = sum k |d|^2 (kernel exp(-|d|^2 / eps^2), eps
     * two vorton radii, cut off at 2.5 eps): the vorticity and rho' diffuse
     * at the viscosity and diffusivity that were set, in m^2/s, at every
     * vorton spacing. Substepped where nu dt is beyond the explicit bound for
     * the spacing (up to EDDY_DIFFUSION_MAX_SUBSTEPS, else the step fails
     * with EDDY_ERROR_CAPACITY and a message naming the bound). The default. */
    EDDY_DIFFUSION_NORMALISED = 0,
    /* The seed's exchange, kept for fidelity: an un-normalised kernel
     * exp(-|d|^2 / s^2), s = 8 vorton radii, over the 27 grid cells around
     * a vorton, at rate 2 nu dt: its diffusion rate carries the (neighbour
     * distance)^2 in metres, so the viscosity it gives depends on the
     * spacing (about 1 % of nu with vortons 5 cm apart). */
    EDDY_DIFFUSION_SEED = 1,
} eddy_diffusion;

/* The most diffusion substeps a step may take (EDDY_DIFFUSION_NORMALISED). */
#define EDDY_DIFFUSION_MAX_SUBSTEPS 64

/* Where the step's grid lies and how its cells are cut (docs/algorithm.md,
 * "Where the grid lies"). */
typedef enum eddy_grid_extent {
    /* The default: the grid spans the vortons alone (their box grown by the
     * vorton radius, and by two cells where a container that carries its
     * fluid meets it). A tracer outside it moves with the velocity of the
     * treecode (or of direct summation) evaluated at the tracer itself,
     * after the step's velocity solve, so passive particles never change
     * the vortons' resolution (docs/algorithm.md, "Where the grid lies"). */
    EDDY_GRID_EXTENT_VORTONS = 0,
    /* The seed's grid: the bounding box of every particle, tracers included,
     * each axis's cell count a power of two from that box. A tracer far away
     * coarsens the grid of every vortex (issue 35). */
    EDDY_GRID_EXTENT_ALL_PARTICLES = 1,
    /* The vortons' grid of EDDY_GRID_EXTENT_VORTONS with cubic cells whose
     * edge comes from the vortons' second moments, cbrt(V / N) with V the
     * volume of the box of the same second moments (the same for any
     * rotation of the vortons): a ring travels at the same speed whatever
     * its direction (within 1 %, where the default's power-of-two cell
     * counts per axis of the vortons' box give 2.6 % slower along (1,1,1)).
     * The fewest cubes cover the box (any count per axis), so a cloud that
     * fills its box takes about one cell per vorton at any size (the step
     * grows x14 from 4,096 to 65,536 vortons, x35 on the default grid);
     * a ring along a diagonal, which fills its box thinly, takes more cells
     * than on the default grid (docs/physics.md section 10.1). */
    EDDY_GRID_EXTENT_VORTONS_CUBIC = 2,
} eddy_grid_extent;

/* Test-only switches that deliberately break determinism, so tests and the
 * verifier can prove their checks fail when they must. Never set in a game. */
enum {
    EDDY_MUTATION_NONE = 0,
    EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION = 1u << 0, /* reduce in worker order */
    EDDY_MUTATION_SKIP_WORKER_FP_MODE = 1u << 1,        /* leave workers' FP mode alone */
    EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID = 1u << 2,    /* restore leaves the old flow grid */
    /* the particle-body narrow phase tests every particle (the reference the
     * broad phase must match bit for bit; changes no result) */
    EDDY_MUTATION_NO_BROAD_PHASE = 1u << 3,
    EDDY_MUTATION_BROAD_PHASE_IGNORES_REACH = 1u << 4,  /* broad phase skips particles in reach */
    /* tracers meet solids one at a time, never in lanes (the reference the
     * lanes must match bit for bit; changes no result) */
    EDDY_MUTATION_NO_CONTACT_LANES = 1u << 5,
    /* wall poisoning tests every body at every grid point, never culls a
     * body for a chunk of points (the reference the cull must match bit for
     * bit; changes no result) */
    EDDY_MUTATION_NO_POISON_CULL = 1u << 6,
    /* emitters draw every particle one after another on the calling thread,
     * never a burst in parallel chunks (the reference the chunks must match
     * bit for bit; changes no result) */
    EDDY_MUTATION_SERIAL_EMISSION = 1u << 7,
    /* the density gather takes grid points one at a time, never four of a
     * row in lanes (the reference the lanes must match bit for bit; changes
     * no result) */
    EDDY_MUTATION_SCALAR_DENSITY_GATHER = 1u << 8,
    /* the tracers' hash blocks are all hashed at the end of the step, never
     * during advection (the reference the early hashes must match bit for
     * bit; changes no result) */
    EDDY_MUTATION_UNFUSED_TRACER_HASH = 1u << 9,
    /* the tracers are hashed early in every step, even where most blocks
     * went stale in the last one (the pause is for speed only; changes no
     * result) */
    EDDY_MUTATION_EARLY_TRACER_HASH_ALWAYS = 1u << 10,
};

/* How the fluid pushes bodies (docs/coupling.md §8). */
typedef enum eddy_body_coupling {
    /* From the flow (default): each body feels the velocity field around it
     * (the mean over a sphere just outside it and its boundary vortons, which
     * is the flow there without the body's own near field), through a drag
     * law on the relative velocity (the standard sphere drag curve; for a
     * polytope, pressure on each face), a Magnus lift on its spin, buoyancy,
     * and the added mass of the fluid it accelerates (C_m 1/2 for a sphere,
     * 0.67 for a polytope). The drag is implicit, so light bodies are stable
     * at one substep. Tracers are still pushed out of bodies but give them
     * nothing: their number and radius change no body's motion. Vortons
     * still exchange spin (angular momentum) with the bodies they touch. */
    EDDY_BODY_COUPLING_FLOW = 0,
    /* The seed's exchange, kept for fidelity to it (ALGORITHM.md, Part 4):
     * the only linear momentum a body gets from the fluid is the tracers'
     * bounce impulse, applied explicitly, and bodies have no added mass. A
     * body's drag then depends on the tracers' number and radius, and light
     * bodies need substeps (docs/coupling.md §8). */
    EDDY_BODY_COUPLING_TRACERS = 1,
} eddy_body_coupling;

typedef enum eddy_wall_poisoning {
    EDDY_WALL_POISON_NONE = 0,
    /* every grid point near a wall removes the wall-normal component of the
     * density gradient (default; each point owns its update) */
    EDDY_WALL_POISON_GRID = 1,
    /* grid corners of cells holding vortons that hit a wall last step */
    EDDY_WALL_POISON_VORTON_HITS = 2,
} eddy_wall_poisoning;

/* Default opening angle: about 1 % RMS error on resolved fields (docs/accuracy.md). */
#define EDDY_TREECODE_DEFAULT_OPENING_ANGLE 1.05f

typedef struct eddy_world_def {
    /* time */
    float dt;                 /* fixed step, seconds (default 1/30) */
    int substeps;             /* fixed substeps per step, >= 1 (default 1) */
    /* fluid */
    float viscosity;          /* kinematic viscosity nu for PSE (default 0.01),
                                 [0, EDDY_MAX_DIFFUSIVITY] */
    float vorticity_dissipation; /* rate: omega -= rate*dt*omega (default 0.01) */
    float density_diffusivity;   /* kappa for PSE of rho' (default 1e-4),
                                    [0, EDDY_MAX_DIFFUSIVITY] */
    float density_relaxation;    /* rate: rho' -= rate*dt*rho' (default 1e-4) */
    eddy_diffusion diffusion;    /* (default EDDY_DIFFUSION_NORMALISED; EDDY_DIFFUSION_SEED
                                    is the seed's exchange: docs/physics.md section 9) */
    float ambient_density;    /* rho0, [1e-3, 1e4] kg/m^3 (default 1) */
    eddy_vec3 gravity;        /* components within EDDY_MAX_ACCELERATION (default 0,0,-10) */
    eddy_vec3 wind;           /* ambient wind added to particle velocity (default 0),
                                 components within EDDY_MAX_SPEED */
    float stretch_gain;       /* multiplies (omega . grad) u, |.| <= EDDY_MAX_GAIN (default 0.5) */
    /* kappa, [0, EDDY_MAX_ALIGNMENT]: with the stretching, every step turns each
     * vorton's vorticity toward the direction of the resolved vorticity
     * curl u at the vorton by the fraction 1 - exp(-kappa |curl u| dt),
     * keeping its magnitude and the total vorticity (lib/fluid/stretch.c).
     * Keeps strong vortices from breaking up in long runs (a ring with
     * |omega| dt 2.8 in its core keeps 96 % of its kinetic energy over 300
     * frames at 30 Hz with 0.5 and EDDY_VORTON_STEP_HEUN_ADAPTIVE, where it
     * broke up and kept 44 % without), at a price in impulse: the
     * vortex_ring scene's drifts 2.8 % over 300 frames instead of 0.7 %
     * (docs/physics.md section 9.3). 0 turns it off (default 0). */
    float vorticity_alignment;
    float mollify_length_scale; /* auto-mollification length scale (default 1),
                                   [0, EDDY_MAX_COORDINATE] */
    eddy_velocity_method velocity_method;
    eddy_treecode_traversal treecode_traversal; /* (default EDDY_TREECODE_MULTIPOLE;
                                                 * EDDY_TREECODE_ORIGINAL is the seed's
                                                 * walk: docs/accuracy.md) */
    /* opening angle theta of EDDY_TREECODE_MULTIPOLE, in (0, 2]: smaller is
     * more accurate and slower (default EDDY_TREECODE_DEFAULT_OPENING_ANGLE) */
    float treecode_opening_angle;
    eddy_vorton_step vorton_step; /* (default EDDY_VORTON_STEP_STRETCH_AB2) */
    eddy_grid_extent grid_extent; /* (default EDDY_GRID_EXTENT_VORTONS) */
    float vorton_radius;      /* shared by all vortons, [1e-4, 1e4] m (default 0.125) */
    float tracer_radius;      /* shared by all tracers, [1e-6, 1e4] m (default 0.01) */
    int vorton_max_age;       /* frames; -1 = never killed by age (default -1) */
    int tracer_max_age;       /* frames; -1 = never (default -1) */
    uint64_t seed;            /* PRNG seed for emitters (default 1) */
    /* fluid-body coupling */
    float ambient_temperature;  /* T0 in (0, EDDY_MAX_TEMPERATURE] K (default 300);
                                   fluid T = T0 rho0 / rho */
    float fluid_specific_heat;  /* per unit mass, [1e-3, 1e9] (default 1) */
    float boundary_thickness;   /* vorton collision shell, in vorton radii (default 1.5) */
    float shedding_gain;        /* vorticity relaxation toward no-slip per step (default 0.1) */
    float spin_gain;            /* weight of the body's spin vorticity 2 omega_b (default 1),
                                   |.| <= EDDY_MAX_GAIN */
    float tracer_restitution;   /* normal restitution of tracers at walls (default 0.01) */
    eddy_wall_poisoning wall_poisoning;
    eddy_body_coupling body_coupling; /* (default EDDY_BODY_COUPLING_FLOW) */
    /* floating point: flush denormals (FTZ+DAZ / FPCR.FZ) while stepping (default false:
     * denormals kept, the one mode every platform computes alike; WebAssembly cannot
     * flush and refuses true; docs/determinism.md, "Denormals") */
    bool flush_denormals;
    /* hash the state at the end of every step (default true) */
    bool hash_every_step;
    /* threads: worker_count >= 1. With enqueue_task == NULL and worker_count > 1
     * the world starts its own eddy_pool (with worker_start as its hook). A
     * game's enqueue_task/finish_task, when given, receive every parallel
     * phase whatever worker_count says (worker_count then only bounds the
     * worker_index eddy expects); worker_start is for the built-in pool only:
     * a definition with both enqueue_task and worker_start is refused. */
    int worker_count;
    eddy_enqueue_task_fn *enqueue_task;
    eddy_finish_task_fn *finish_task;
    void *user_task_context;
    eddy_worker_start_fn *worker_start;
    void *worker_start_context;
    uint32_t test_mutations;  /* EDDY_MUTATION_*; test-only, 0 in games */
    /* Give every particle a stable id (eddy_particle_view.id, include/eddy/view.h):
     * costs 8 bytes per particle and a copy per moved particle, so off by
     * default. Not physics: never hashed, encoded or snapshotted (default false). */
    bool particle_ids;
    int internal_value;       /* set by eddy_world_def_default; do not touch */
} eddy_world_def;

typedef struct eddy_quat {
    float x, y, z, w;  /* unit quaternion, w the scalar part */
} eddy_quat;

/* ------------------------------------------------------------ shapes */
typedef enum eddy_shape_type {
    EDDY_SHAPE_SPHERE = 0,
    EDDY_SHAPE_POLYTOPE = 1,  /* convex, from planes (H-representation) */
} eddy_shape_type;

/* Plane n.x = offset in the body frame, n a unit outward normal. */
typedef struct eddy_plane {
    eddy_vec3 normal;
    float offset;
} eddy_plane;

enum { EDDY_MAX_PLANES = 32 };

/* A collision shape. hole = true turns a polytope inside out: a container
 * whose inside is fluid and whose outside is solid (parity -1). */
typedef struct eddy_shape {
    eddy_shape_type type;
    float radius;          /* sphere */
    int plane_count;       /* polytope */
    eddy_plane planes[EDDY_MAX_PLANES];
    bool hole;
} eddy_shape;

/* ------------------------------------------------------------ bodies */
typedef enum eddy_body_type {
    EDDY_BODY_DYNAMIC = 0,    /* moved by forces, fluid and gravity */
    EDDY_BODY_KINEMATIC = 1,  /* pose and velocity come from the input each frame */
    /* Owned by the game's own physics engine: pose and velocities come from
     * the input each frame (EDDY_BODY_SET_KINEMATIC), eddy integrates
     * nothing (the pose stays where the game put it), pushes the fluid as a
     * kinematic body does, and reports what the fluid gave it during the
     * step (eddy_world_get_body_impulses) for the game to apply. mass is the
     * game's mass of the body: the reported impulses are those that move a
     * body of that mass as eddy would move a dynamic one (docs/integration.md
     * section 10). */
    EDDY_BODY_EXTERNAL = 2,
} eddy_body_type;

typedef struct eddy_body_def {
    eddy_body_type type;
    eddy_shape shape;          /* body frame: origin at the centre of mass */
    eddy_vec3 position;
    eddy_quat orientation;
    eddy_vec3 linear_velocity;
    eddy_vec3 angular_velocity;
    float mass;                /* [EDDY_MIN_MASS, EDDY_MAX_MASS] kg */
    float temperature;         /* (0, EDDY_MAX_TEMPERATURE] K (default 300) */
    float heat_capacity;       /* J/K (default 1e5),
                                  [EDDY_MIN_HEAT_CAPACITY, EDDY_MAX_HEAT_CAPACITY] */
    float thermal_conductivity;/* fluid-body heat exchange (default 500),
                                  [0, EDDY_MAX_CONDUCTIVITY] */
    float friction;            /* Coulomb coefficient against the walls of the container that
                                  holds the body (default 0.5), [0, EDDY_MAX_FRICTION]; a pair
                                  uses sqrt(body's x container's) */
    float restitution;         /* normal speed kept when bouncing off a container's wall
                                  (default 0), [0, 1]; a pair uses the larger of the two */
    bool gravity;              /* world gravity and fluid buoyancy act (default true) */
    uint64_t user_data;        /* the game's; never read, hashed or recorded (default 0) */
    int internal_value;        /* set by eddy_body_def_default */
} eddy_body_def;

/* Generation-checked handle; index1 == 0 means null. A slot's generation
 * grows by one per body created in it; a slot whose generation reached 65535
 * is retired when that body is destroyed (never reused), so a stale id can
 * never name a later body. */
typedef struct eddy_body_id {
    int32_t index1;   /* slot + 1 */
    uint16_t generation;
} eddy_body_id;

/* A body's state as seen through the API. */
typedef struct eddy_body_state {
    eddy_body_type type;
    eddy_vec3 position;
    eddy_quat orientation;
    eddy_vec3 linear_velocity;
    eddy_vec3 angular_velocity;
    eddy_vec3 linear_momentum;
    eddy_vec3 angular_momentum;
    float mass;
    float volume;
    float temperature;
} eddy_body_state;

/* What the fluid gave a body during the last step (all substeps), in the
 * world frame, read by eddy_world_get_body_impulses. For a dynamic body with
 * gravity and no container wall or input acting,
 *     m (v_after - v_before) = m g dt + buoyancy + linear,
 * and the angular impulse is about the centre of mass. linear holds the
 * drag, lift and Magnus impulses and the reaction of the added mass
 * (-m_a dv); angular the spin drag and a polytope's face torques. With
 * EDDY_BODY_COUPLING_TRACERS (no laws) linear holds the tracers' bounces and
 * angular the vortons' spin exchange instead, for every body type. buoyancy
 * is -rho_f V g dt (zero for a body without gravity). For an
 * EDDY_BODY_EXTERNAL body the same figures for its pose and velocities as
 * the game gave them: the game applies buoyancy + linear and angular to its
 * own body. Kinematic bodies report zero with the flow coupling. */
typedef struct eddy_body_impulse {
    eddy_body_id id;
    eddy_vec3 linear;     /* N s */
    eddy_vec3 angular;    /* N m s */
    eddy_vec3 buoyancy;   /* N s */
} eddy_body_impulse;

/* A vorton as seen through the API. Vorticity is omega (not omega/2). */
typedef struct eddy_vorton {
    eddy_vec3 position;
    eddy_vec3 velocity;
    eddy_vec3 vorticity;
    float density_deviation;  /* rho' = rho - rho0 */
    int32_t birth_frame;
} eddy_vorton;

typedef struct eddy_tracer {
    eddy_vec3 position;
    eddy_vec3 velocity;
    float density_deviation;
    int32_t birth_frame;
} eddy_tracer;

typedef struct eddy_emitter_def {
    eddy_vec3 position;
    eddy_vec3 position_spread;   /* box edge lengths of uniform jitter around position */
    eddy_vec3 velocity;
    eddy_vec3 vorticity;         /* template vorticity of emitted vortons */
    eddy_vec3 vorticity_spread;
    float density_deviation;
    float vorton_rate;           /* per second */
    float tracer_rate;           /* per second */
    bool enabled;
    uint64_t user_data;          /* the game's; never read, hashed or recorded (default 0) */
} eddy_emitter_def;

/* Generation-checked handle; 0 (index1 == 0) means null. Slots are retired
 * after 65535 generations, as for bodies. */
typedef struct eddy_emitter_id {
    int32_t index1;   /* slot + 1 */
    uint16_t generation;
} eddy_emitter_id;

typedef enum eddy_emitter_command_type {
    EDDY_EMITTER_ENABLE = 1,
    EDDY_EMITTER_DISABLE = 2,
    EDDY_EMITTER_SET_RATES = 3,  /* vorton_rate, tracer_rate */
    EDDY_EMITTER_BURST = 4,      /* emit vorton_count vortons and tracer_count tracers now */
    EDDY_EMITTER_MOVE = 5,       /* position */
    EDDY_EMITTER_CREATE = 6,     /* def; the id is reported by eddy_world_created_emitters */
    EDDY_EMITTER_DESTROY = 7,
} eddy_emitter_command_type;

typedef struct eddy_emitter_command {
    eddy_emitter_id emitter;
    eddy_emitter_command_type type;
    eddy_vec3 position;
    float vorton_rate, tracer_rate;
    int32_t vorton_count, tracer_count;
    eddy_emitter_def def;        /* EDDY_EMITTER_CREATE */
} eddy_emitter_command;

typedef enum eddy_body_command_type {
    EDDY_BODY_CREATE = 1,        /* def; the id is reported by eddy_world_created_bodies */
    EDDY_BODY_DESTROY = 2,
    EDDY_BODY_FORCE = 3,         /* vector (N) through the centre of mass, for this step */
    EDDY_BODY_TORQUE = 4,        /* vector (N m), for this step */
    EDDY_BODY_IMPULSE = 5,       /* vector (N s) at world point `point` */
    EDDY_BODY_ANGULAR_IMPULSE = 6, /* vector (N m s) */
    EDDY_BODY_SET_KINEMATIC = 7, /* kinematic and external bodies: position, orientation,
                                    velocities */
} eddy_body_command_type;

typedef struct eddy_body_command {
    eddy_body_id body;
    eddy_body_command_type type;
    eddy_vec3 vector;
    eddy_vec3 point;
    eddy_vec3 position;
    eddy_quat orientation;
    eddy_vec3 linear_velocity;
    eddy_vec3 angular_velocity;
    eddy_body_def def;           /* EDDY_BODY_CREATE */
} eddy_body_command;

/* ------------------------------------------------------------ blasts and bullets
 * Gameplay impulses on the fluid (docs/gameplay.md, "Blasts and bullets").
 * Both act on tracers and vortons alike (they move the air, and the smoke
 * with it), are recorded in replays like every input, and are checked
 * against these ranges like the commands (EDDY_ERROR_INVALID_ARGUMENT, the
 * message naming the blast or bullet index and the field). */
#define EDDY_MAX_BLAST_STRENGTH 1.0e6f  /* |strength| of a blast, m^3/s */
#define EDDY_MAX_BLAST_DURATION 600.0f  /* duration and refill_duration, s */
enum {
    EDDY_MAX_BLASTS_PER_INPUT = 64,
    EDDY_MAX_BULLETS_PER_INPUT = 256,
    EDDY_MAX_ACTIVE_BLASTS = 256,     /* blasts still acting, this input's included */
};

/* A blast: a potential source at position that blows for `duration`
 * seconds with volume flow `strength` (m^3/s), then, for refill_duration
 * seconds, a sink returning the same volume (strength * duration), as the
 * negative phase of a real blast draws the air back in; 0 means no refill.
 * Its flow, u(x) = Q(t) (x - c) / (4 pi |x - c|^3), moves every tracer and
 * vorton on top of its own motion, integrated exactly over each substep: a
 * particle at distance r goes radially to (r^3 + 3 Q dt / (4 pi))^(1/3).
 * Q = strength while it blows and -strength * duration / refill_duration
 * while it refills: the cavity of volume strength * duration opens, then
 * closes. Irrotational, so vorticity is not changed. The sink pulls no
 * particle closer to the centre than `radius`.
 * A blast is part of the world's state from the step its input is given
 * until it ends (hashed in the globals and kept in snapshots while any is
 * active). */
typedef struct eddy_blast {
    eddy_vec3 position;
    float strength;         /* (0, EDDY_MAX_BLAST_STRENGTH] */
    float duration;         /* (0, EDDY_MAX_BLAST_DURATION] s */
    float refill_duration;  /* [0, EDDY_MAX_BLAST_DURATION] s */
    float radius;           /* [1e-3, 1e4] m */
} eddy_blast;

/* A bullet: the segment from -> to it swept this step, with a radius. In
 * the step it is given, every tracer and vorton within radius of the
 * segment (projecting inside it) moves radially out to
 * sqrt(r^2 + radius^2) from the axis (the disc of radius `radius` is mapped
 * onto the ring out to radius sqrt 2 with its area kept: the smoke is pushed
 * aside, none is lost), and a wake of vortons is left on the tunnel's wall:
 * rings of 4 every max(vorton_radius, length / 64) along the path, with
 * vorticity wake_vorticity * (direction x outward normal), so they drive the
 * air along the tunnel behind the bullet (0: no wake). */
typedef struct eddy_bullet {
    eddy_vec3 from, to;     /* |from - to| <= 1e4 m */
    float radius;           /* [1e-3, 100] m */
    float wake_vorticity;   /* |.| <= EDDY_MAX_VORTICITY, 1/s */
} eddy_bullet;

enum {
    EDDY_INPUT_SET_GRAVITY = 1u << 0,
    EDDY_INPUT_SET_WIND = 1u << 1,
};

/* Everything that changes a world between frames. Zero-initialised = nothing. */
typedef struct eddy_input {
    uint32_t flags;        /* EDDY_INPUT_* */
    eddy_vec3 gravity;
    eddy_vec3 wind;
    const eddy_emitter_command *emitter_commands;
    int emitter_command_count;
    const eddy_body_command *body_commands;
    int body_command_count;
    const eddy_blast *blasts;    /* up to EDDY_MAX_BLASTS_PER_INPUT */
    int blast_count;
    const eddy_bullet *bullets;  /* up to EDDY_MAX_BULLETS_PER_INPUT */
    int bullet_count;
} eddy_input;

/* Step phases, in the order the step runs them. */
typedef enum eddy_phase {
    EDDY_PHASE_INPUT = 0,
    EDDY_PHASE_KILL_EMIT,        /* kill by age, emission */
    EDDY_PHASE_ADVECT_TRACERS,   /* tracers: velocity and rho' from grids, move */
    EDDY_PHASE_TREE_BUILD,       /* bounds, grid sizing, partition, influence tree */
    EDDY_PHASE_VELOCITY_GRID,
    EDDY_PHASE_STRETCH,
    EDDY_PHASE_DENSITY,          /* rho' to grid, gradient, baroclinic */
    EDDY_PHASE_DIFFUSION,        /* PSE of vorticity and rho' */
    EDDY_PHASE_ADVECT_VORTONS,
    EDDY_PHASE_COLLIDE_TRACERS,  /* fluid-body boundary conditions, tracers */
    EDDY_PHASE_COLLIDE_VORTONS,  /* fluid-body boundary conditions, vortons */
    EDDY_PHASE_BODIES,           /* buoyancy and rigid-body integration */
    EDDY_PHASE_DIAGNOSTICS,      /* conserved quantities by fixed reduction */
    EDDY_PHASE_HASH,
    EDDY_PHASE_COUNT
} eddy_phase;

typedef struct eddy_profile {
    double phase_ms[EDDY_PHASE_COUNT]; /* last step */
    double step_ms;                    /* whole last step */
} eddy_profile;

/* Conserved quantities of the vorton field, computed every step by the fixed
 * reduction tree (so they are bit-identical for any worker count). */
typedef struct eddy_diagnostics {
    double total_vorticity[3];  /* sum of omega_i * V_i */
    double linear_impulse[3];   /* 1/2 sum of x_i x omega_i * V_i */
    double angular_impulse[3];  /* 1/3 sum of x_i x (x_i x omega_i) * V_i */
    double enstrophy;           /* sum |omega_i|^2 V_i */
    double mass_deviation;      /* sum rho'_i V_i */
} eddy_diagnostics;

#ifdef __cplusplus
}
#endif
#endif
