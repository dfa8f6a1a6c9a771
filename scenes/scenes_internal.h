/* SPDX-License-Identifier: MIT */
/* Internal to the scene builders: the registry entry and the helpers shared
 * by every scene file (scenes_fluid.c, scenes_bodies.c, ...). Never installed.
 *
 * How a scene is made (eddy_scene_create in scenes.c):
 *   1. the registry fills a scene_build with eddy's reference physics
 *      (scene_physics_default) and a scene-local PRNG seeded from the entry;
 *   2. the entry's build function describes the initial state: it may change
 *      physical def fields, appends vortons and tracers with the helpers below
 *      and lists emitters; nothing touches a world yet;
 *   3. the registry copies the threading/FP/test fields of the caller's base
 *      definition, creates the world, adds vortons, tracers and emitters in that
 *      order, then calls the entry's optional populate function (bodies, ...).
 *
 * Determinism: every number here comes from + - * /, sqrtf and eddy's own
 * math (eddy_cbrtf, eddy_cosf, ...), loops run in a fixed order (z outer, then
 * y, then x), and random draws come from the scene's own eddy_rng in an
 * explicit x, y, z order. A scene's initial state is therefore the same bits
 * on every machine and build. */
#ifndef EDDY_SCENES_INTERNAL_H
#define EDDY_SCENES_INTERNAL_H

#include "scenes.h"

#define SCENE_PI 3.14159265358979323846f
#define SCENE_FLT_EPSILON 1.1920928955078125e-07f
#define SCENE_FLT_MIN 1.17549435082228750797e-38f
/* A sampled vorticity counts as non-zero when |omega|^2 exceeds this
 * (sqrt(FLT_EPSILON * FLT_MIN), written out: computing it in float would
 * pass through a denormal). */
#define SCENE_VORTICITY_FLOOR_SQ 3.7e-23f

enum { SCENE_MAX_EMITTERS = 8 };

typedef struct scene_vortons {
    eddy_vorton *items;
    int count, capacity;
} scene_vortons;

typedef struct scene_tracers {
    eddy_tracer *items;
    int count, capacity;
} scene_tracers;

/* Everything a scene says about its initial state before the world exists. */
typedef struct scene_build {
    eddy_world_def def;   /* physical fields are the scene's */
    eddy_rng rng;         /* scene-local; never the world's */
    scene_vortons vortons;
    scene_tracers tracers;
    eddy_emitter_def emitters[SCENE_MAX_EMITTERS];
    int emitter_count;
    bool vorton_radius_set; /* set by the first scene_assign_vortons */
} scene_build;

typedef eddy_status scene_build_fn(scene_build *b);
/* Optional: runs after the world has its particles and emitters. */
typedef eddy_status scene_populate_fn(eddy_world *world, const scene_build *b);
/* Optional: fills out and returns &out->input, or NULL for no input. */
typedef const eddy_input *scene_input_fn(int64_t frame, eddy_scene_input *out);

typedef struct scene_entry {
    eddy_scene_info info;
    uint64_t seed;            /* scene PRNG and the world's def.seed */
    scene_build_fn *build;
    scene_populate_fn *populate;
    scene_input_fn *input;
} scene_entry;

/* ---------------------------------------------------------------- physics */

/* eddy's reference physics (ALGORITHM.md §11): dt 1/30, nu 0.01, rho0 1,
 * gravity (0,0,-10), no wind, no age limits. Every physical field is set
 * explicitly so a scene does not drift when library defaults change. */
eddy_world_def scene_physics_default(uint64_t seed);

/* ---------------------------------------------------------------- grids */

/* A cell grid over [min, min + cells*spacing]. Cell (i,j,k) spans
 * [min + i*h, min + (i+1)*h) per axis; points are the cell corners. */
typedef struct scene_grid {
    float min[3];
    float spacing[3];
    int cells[3];
} scene_grid;

/* Cell counts for about `target` cells over `extent` (ALGORITHM.md §2.4
 * DefineShape with pow2): extent nudged by (1+FLT_EPSILON); target edge
 * s = cbrt(V/N) (eddy_cbrtf; sqrt or ratio for 2-D/1-D); cells = max(1,
 * (int)(E*s^-1 + 0.5)) rounded up to a power of two; all halved (min 1) while
 * the product is >= 8*target. An axis of zero extent gets one cell. */
void scene_grid_cells(const float extent[3], int target, int cells[3]);

/* Grid over [lo, hi] with scene_grid_cells(hi - lo, target). */
void scene_grid_define(scene_grid *g, const float lo[3], const float hi[3], int target);

/* AssignVortons skeleton: box `domain` centred on the origin, sized like a
 * grid for nmax cells, then all counts halved while the product exceeds nmax. */
void scene_skeleton_define(scene_grid *g, eddy_vec3 domain, int nmax);

/* 0.5 * cbrt(cell volume); exactly half the edge when cells are cubes. */
float scene_grid_cell_radius(const scene_grid *g);

/* ---------------------------------------------------------------- vortons */

typedef struct scene_sample {
    eddy_vec3 vorticity;      /* omega before the magnitude factor */
    float density_deviation;  /* rho' */
} scene_sample;

/* Sample a distribution at p (relative to its centre). Draws from rng, if it
 * draws at all, in x, y, z order. */
typedef void scene_distribution_fn(const void *params, eddy_vec3 p, eddy_rng *rng,
                                   scene_sample *out);

typedef struct scene_distribution {
    scene_distribution_fn *sample;
    const void *params;
    eddy_vec3 domain;         /* box edge lengths, centred on the origin */
} scene_distribution;

/* AssignVortons (ALGORITHM.md §10.1): one vorton per skeleton cell centre
 * (z outer, y, x inner) where |omega|^2 > SCENE_VORTICITY_FLOOR_SQ, at
 * centre + translation with vorticity omega*magnitude. Sets def.vorton_radius
 * to the skeleton's cell radius; a second call must produce the same radius
 * (all vortons of a world share it) or EDDY_ERROR_INVALID_ARGUMENT. */
eddy_status scene_assign_vortons(scene_build *b, const scene_distribution *d, float magnitude,
                                 int nmax, eddy_vec3 translation);

/* ---------------------------------------------------------------- tracers */

typedef enum scene_tracer_mode {
    SCENE_TRACERS_FILL = 0,        /* m^3 tracers in every cell */
    SCENE_TRACERS_FROM_DENSITY = 1 /* keep only where the vortons' rho' is significant */
} scene_tracer_mode;

/* The tracer grid: the vortons' bounding box grown by the vorton radius,
 * sized for about (vorton count) cells. */
void scene_tracer_grid(const scene_build *b, scene_grid *g);

/* Seed tracers over scene_tracer_grid (ALGORITHM.md §7.3): m^3 per cell on a
 * cell-centred sub-lattice, each jittered inside its sub-cell from the scene
 * PRNG (x, y, z). FROM_DENSITY: P2G of rho'*V (trilinear) onto the grid points;
 * a tracer is kept where |interpolated| >= 0.5 * max|point value|, and gets
 * rho' = interpolated / cell volume (the units of eddy's density grid). Sets
 * def.tracer_radius = scene_grid_cell_radius / m. Needs vortons. */
eddy_status scene_seed_tracers(scene_build *b, int m, scene_tracer_mode mode);

/* ---------------------------------------------------------------- emitters */

/* scenes_smoke.c */
eddy_status scene_build_smoke_grenade(scene_build *b);
eddy_status scene_populate_smoke_grenade(eddy_world *w, const scene_build *b);
const eddy_input *scene_input_smoke_grenade(int64_t frame, eddy_scene_input *out);

eddy_status scene_add_emitter(scene_build *b, const eddy_emitter_def *def);

/* ---------------------------------------------------------------- lists */

eddy_status scene_push_vorton(scene_build *b, const eddy_vorton *v);
eddy_status scene_push_tracer(scene_build *b, const eddy_tracer *t);
void scene_build_free(scene_build *b);

/* ---------------------------------------------------------------- small math */

static inline eddy_vec3 scene_vec3(float x, float y, float z) {
    eddy_vec3 v = {x, y, z};
    return v;
}

/* ---------------------------------------------------------------- distributions */
/* scenes_fluid.c; positions relative to the distribution's centre. */

typedef struct scene_ring_params {      /* VortexRing: cosine core around a circle */
    float radius, thickness;
    eddy_vec3 axis;                     /* unit */
} scene_ring_params;
scene_distribution_fn scene_sample_vortex_ring;
eddy_vec3 scene_ring_domain(const scene_ring_params *p);

typedef struct scene_jet_params {       /* JetRing: curl of a localised jet, rho' 1e-4 */
    float jet_radius, thickness;
    eddy_vec3 axis;                     /* unit */
} scene_jet_params;
scene_distribution_fn scene_sample_jet_ring;
eddy_vec3 scene_jet_domain(const scene_jet_params *p);

typedef struct scene_sheet_params {     /* VortexSheet: shear layer, spanwise wobble */
    float thickness, variation, width;
} scene_sheet_params;
scene_distribution_fn scene_sample_vortex_sheet;
eddy_vec3 scene_sheet_domain(const scene_sheet_params *p);

typedef struct scene_tube_params {      /* VortexTube: cosine core along a line */
    float diameter, variation, width, periods;
    int location;                       /* -1: along x at z=-r; 0: along y; +1: along y at z=+r */
} scene_tube_params;
scene_distribution_fn scene_sample_vortex_tube;
eddy_vec3 scene_tube_domain(const scene_tube_params *p);

typedef struct scene_noise_params {     /* VortexNoise: RandomSpread((1,1,1)), rho' given */
    eddy_vec3 box;
    float density_deviation;
} scene_noise_params;
scene_distribution_fn scene_sample_vortex_noise;

typedef struct scene_ball_params {      /* DensityBall: rho' inside, omega spread 0.001 */
    float radius, density_deviation;
} scene_ball_params;
scene_distribution_fn scene_sample_density_ball;
eddy_vec3 scene_ball_domain(const scene_ball_params *p);

/* ---------------------------------------------------------------- scenes */
/* scenes_fluid.c */
scene_build_fn scene_build_vortex_ring;
scene_build_fn scene_build_jet_ring;
scene_build_fn scene_build_vortex_sheet;
scene_build_fn scene_build_crossed_tubes;
scene_build_fn scene_build_leapfrog;
scene_build_fn scene_build_two_rings_apart;
scene_build_fn scene_build_dye_drop;
scene_build_fn scene_build_two_drops;
scene_build_fn scene_build_noise_cloud;
scene_input_fn scene_input_noise_cloud;

/* scenes_bodies.c: build (particles) and populate (bodies) for each scene */
scene_build_fn scene_build_ball_through_smoke;
scene_populate_fn scene_populate_ball_through_smoke;
scene_build_fn scene_build_rifled_ball;
scene_populate_fn scene_populate_rifled_ball;
scene_build_fn scene_build_curve_ball;
scene_populate_fn scene_populate_curve_ball;
scene_build_fn scene_build_spinning_ball;
scene_populate_fn scene_populate_spinning_ball;
scene_build_fn scene_build_wind_past_ball;
scene_populate_fn scene_populate_wind_past_ball;
scene_build_fn scene_build_rotated_cube;
scene_populate_fn scene_populate_rotated_cube;
scene_build_fn scene_build_plate_lift;
scene_populate_fn scene_populate_plate_lift;
scene_build_fn scene_build_box_spin;
scene_populate_fn scene_populate_box_spin;
scene_build_fn scene_build_box_magnus;
scene_populate_fn scene_populate_box_magnus;
scene_build_fn scene_build_airfoil;
scene_populate_fn scene_populate_airfoil;
scene_build_fn scene_build_buoyant_ball;
scene_populate_fn scene_populate_buoyant_ball;
scene_build_fn scene_build_container_drop;
scene_populate_fn scene_populate_container_drop;
scene_build_fn scene_build_container_layers;
scene_populate_fn scene_populate_container_layers;
scene_build_fn scene_build_sloshing;
scene_populate_fn scene_populate_sloshing;
scene_build_fn scene_build_rotating_container;
scene_populate_fn scene_populate_rotating_container;
scene_build_fn scene_build_dam_break;
scene_populate_fn scene_populate_dam_break;
scene_build_fn scene_build_plume_plate;
scene_populate_fn scene_populate_plume_plate;
scene_input_fn scene_input_sloshing;
scene_input_fn scene_input_rotating_container;

#endif
