/* SPDX-License-Identifier: MIT */
/* Internal, layer core (docs/architecture.md): the world's data (particle
 * arrays, grids, the storage of the tree and of the bodies, the world
 * itself) and the per-step services every phase uses (lib/core/step.c:
 * error, scratch partials, grid arrays). Never installed.
 *
 * Layout: particles are stored as structure-of-arrays (one float array per
 * field) so that per-particle loops vectorise with lanes = particles, never
 * lanes = summation index (determinism rule 7 in docs/determinism.md). */
#ifndef EDDY_CORE_H
#define EDDY_CORE_H

#include "runtime/runtime.h"

#include <stdatomic.h>

/* ---------------------------------------------------------------- particles */
enum { BIRTHS_ORDER_UNKNOWN = 0, BIRTHS_IN_ORDER = 1, BIRTHS_OUT_OF_ORDER = 2 };

typedef struct particle_array {
    int count;
    int capacity;       /* slots from the field pointers on */
    bool has_vorticity; /* vortons carry wx, wy, wz */
    /* Whether birth is non-decreasing over [0, count): BIRTHS_IN_ORDER,
     * BIRTHS_OUT_OF_ORDER or BIRTHS_ORDER_UNKNOWN (memset 0, and after a
     * restore; the next kill finds out). Derived, never state: push keeps it,
     * a stable kill cannot break it (lib/core/particles.c). */
    int8_t births_order;
    /* Slots before the field pointers, freed by kill_by_age dropping a prefix
     * (lib/core/particles.c): each allocation starts head slots before its
     * pointer. Memory layout only, never state. */
    int head;
    float *px, *py, *pz;
    float *vx, *vy, *vz;
    float *wx, *wy, *wz; /* NULL for tracers */
    float *drho;         /* rho' */
    int32_t *birth;
    /* vortons only: wall normal of the last collision (0,0,0: none), read
     * by vorton-hit wall poisoning in the next step */
    float *hx, *hy, *hz;
    /* The vortons of an EDDY_VORTON_STEP_STRETCH_AB2 world (keeps_rate, set
     * at creation): each one's stretching rate (omega . grad) u of its last
     * step (lib/fluid/stretch.c); (0,0,0): none, the next step takes its own.
     * NULL otherwise. */
    bool keeps_rate;
    float *sx, *sy, *sz;
    /* stable ids (eddy_world_def.particle_ids), not state: never hashed */
    bool track_ids;
    uint64_t *id;        /* NULL unless track_ids */
    uint64_t next_id;
} particle_array;

/* At least capacity slots from the pointers on; may slide the particles back
 * over the head (contents kept). */
bool eddy_particles_reserve(particle_array *a, int capacity);
/* At least capacity slots counting the head, contents kept: enough for
 * eddy_particles_rewind, then an overwrite of every slot (restore). */
bool eddy_particles_reserve_rewound(particle_array *a, int capacity);
/* Points the fields back at their allocations (head 0) without moving the
 * particles: the contents are garbage until the caller writes them. */
void eddy_particles_rewind(particle_array *a);
/* Drops the first n particles by moving the pointers, not the data. */
void eddy_particles_drop_prefix(particle_array *a, int n);
/* The births were overwritten whole (restore): their order is unknown. */
static inline void eddy_particles_births_rewritten(particle_array *a) {
    a->births_order = BIRTHS_ORDER_UNKNOWN;
}
void eddy_particles_free(particle_array *a);
/* Append one particle; caller ensured capacity. */
void eddy_particles_push(particle_array *a, vec3 p, vec3 v, vec3 w, float drho, int32_t birth);
/* Appends n particles born at `birth` without writing their fields (the
 * capacity must be reserved): the bookkeeping of n pushes. Returns the
 * first new index; *first_id is the first new id (ids, when tracked, are
 * first_id + k: the caller writes them with the fields). */
int eddy_particles_extend(particle_array *a, int n, int32_t birth, uint64_t *first_id);
/* With track_ids: give the count particles new ids 0..count-1 (a restored
 * snapshot carries no ids); false: out of memory, nothing changed. */
bool eddy_particles_renumber_ids(particle_array *a);
/* Stable removal (survivors keep their order). */
void eddy_particles_remove_if(particle_array *a, bool (*remove)(const particle_array *, int, void *),
                         void *context);

/* ---------------------------------------------------------------- grids */
/* A uniform grid: cells[a] cells and cells[a] + 1 points per axis. Point
 * (i,j,k) lies at min + (i,j,k)*spacing; the cell (i,j,k) is owned by its
 * minimal corner. Point and cell arrays are x-fastest. */
typedef struct grid_shape {
    float min[3];
    float extent[3];
    float spacing[3];      /* extent / cells */
    float inv_spacing[3];  /* cells / extent (0 on a degenerate axis) */
    int cells[3];
    int points[3];
} grid_shape;

static inline int grid_point_count(const grid_shape *g) {
    return g->points[0] * g->points[1] * g->points[2];
}
static inline int grid_cell_count(const grid_shape *g) {
    return g->cells[0] * g->cells[1] * g->cells[2];
}

/* Size a grid over [lo, hi] with about target_cells cells (power of two per
 * axis, fewer than 8*target_cells), without libm (grid.c). */
void eddy_grid_define(grid_shape *g, const float lo[3], const float hi[3], int target_cells);
/* EDDY_GRID_EXTENT_VORTONS_CUBIC: cubic cells of edge `edge` (any count per
 * axis, not a power of two), their nodes at c + (k + 1/4) edge with c the
 * middle of [lo, hi], the fewest that leave a quarter cell or more beyond
 * lo and hi; the edge is doubled (all axes at once) while there are more
 * than max_cells. Why fixed to the middle: as the box grows, cells are added
 * at its ends and no node jumps (a grid centred with the fewest cells moved
 * every node by half a cell whenever a count changed parity, and the
 * vortex_ring's impulse drift at stretch gain 1 doubled: docs/algorithm.md).
 * Why the quarter: the edge is the vortons' mean spacing, so a lattice of
 * vortons centred in the box lies either on the cells' faces or in their
 * middles, and on the faces a fluid at rest (container_layers) overturned
 * by frame 129; a quarter cell off, neither parity of the lattice lies on a
 * face (docs/physics.md, finding 7). The tree's levels above halve odd
 * counts rounding up (eddy_grid_decimate, grid_child_count). */
void eddy_grid_define_cubic(grid_shape *g, const float lo[3], const float hi[3], float edge,
                            int64_t max_cells);
/* The most cells, and points, a grid eddy_grid_define sizes for target_cells
 * can have, whatever the box: P, the largest power of two below
 * 8*target_cells, and 4P + 4 (P cells along one axis). The arrays sized by
 * the grid reserve these bounds on their first growth, so a world whose
 * vorton count stays the same never grows them again however its particles'
 * box changes shape (bench/RESULTS.md, "Soak"). 0: no bound (over 65,536 vortons:
 * the arrays then grow to need only). */
int eddy_grid_cell_bound(int target_cells);
int eddy_grid_point_bound(int target_cells);
/* The children along axis a of cell p of `parent`, a layer over `child`:
 * where the parent halved the axis, cells 2p and 2p + 1 (the last alone
 * where the child's count is odd), else cell p. The stride is 2 or 1. */
static inline int grid_child_stride(const grid_shape *child, const grid_shape *parent, int a) {
    return parent->cells[a] == child->cells[a] ? 1 : 2;
}
static inline int grid_child_count(const grid_shape *child, const grid_shape *parent, int a, int p) {
    const int s = grid_child_stride(child, parent, a), left = child->cells[a] - p * s;
    return left < s ? left : s;
}
/* Parent layer: cell counts halved (min 1), same min/extent. */
void eddy_grid_decimate(grid_shape *parent, const grid_shape *child);
/* Parent layer for cells as near cubic as the counts allow: only the axes
 * whose cells are clearly the shortest are halved (all when none is). */
void eddy_grid_coarsen_cubic(grid_shape *parent, const grid_shape *child);
/* Continuous cell coordinate along axis a, clamped to [0, cells]; index and
 * fraction within the cell. Clamping makes out-of-grid queries take the
 * boundary value instead of reading outside the arrays; NaN maps to 0.
 * Inline: it sits in the innermost loops (advection, P2G, PSE). */
static inline void grid_locate_axis(const grid_shape *g, int a, float p, int *index, float *frac) {
    float u = (p - g->min[a]) * g->inv_spacing[a];
    const float top = (float)g->cells[a];
    u = u > 0.0f ? u : 0.0f;
    u = u < top ? u : top;
    int i = (int)u;
    i = i < g->cells[a] - 1 ? i : g->cells[a] - 1;
    *index = i;
    *frac = u - (float)i;
}

/* Cell indices and fractions in [0, 1] within the cell (clamped). */
static inline void grid_locate(const grid_shape *g, float x, float y, float z, int idx[3],
                               float frac[3]) {
    grid_locate_axis(g, 0, x, &idx[0], &frac[0]);
    grid_locate_axis(g, 1, y, &idx[1], &frac[1]);
    grid_locate_axis(g, 2, z, &idx[2], &frac[2]);
}

/* Cell indices containing p, clamped into the grid. */
static inline void grid_cell_of(const grid_shape *g, float x, float y, float z, int idx[3]) {
    float f[3];
    grid_locate(g, x, y, z, idx, f);
}

/* Trilinear interpolation of an n-component float field (n floats per point,
 * point-major) at (x, y, z), clamped to the grid; evaluated in one fixed
 * nested order: x within each edge, then y, then z. */
/* True when p lies in the grid's box (bounds included): a sample there
 * interpolates, outside it grid_locate would clamp. NaN is outside. Written
 * without branches, so that a loop over particles vectorises (with g a
 * local copy the loop's stores cannot alias). */
static inline bool grid_contains(const grid_shape *g, float x, float y, float z) {
    const float ux = (x - g->min[0]) * g->inv_spacing[0];
    const float uy = (y - g->min[1]) * g->inv_spacing[1];
    const float uz = (z - g->min[2]) * g->inv_spacing[2];
    return ((unsigned)(ux >= 0.0f) & (unsigned)(ux <= (float)g->cells[0]) &
            (unsigned)(uy >= 0.0f) & (unsigned)(uy <= (float)g->cells[1]) &
            (unsigned)(uz >= 0.0f) & (unsigned)(uz <= (float)g->cells[2])) != 0u;
}

static inline void grid_interp_n(const grid_shape *g, const float *field, int n, float x, float y,
                                 float z, float *out) {
    int idx[3];
    float t[3];
    grid_locate(g, x, y, z, idx, t);
    const int nx = g->points[0], nxy = g->points[0] * g->points[1];
    const float *a000 = field + (size_t)n * (size_t)(idx[0] + nx * idx[1] + nxy * idx[2]);
    const float *a010 = a000 + (size_t)n * (size_t)nx, *a001 = a000 + (size_t)n * (size_t)nxy;
    const float *a011 = a001 + (size_t)n * (size_t)nx;
    const float sx = 1.0f - t[0], sy = 1.0f - t[1], sz = 1.0f - t[2];
    const float tx = t[0], ty = t[1], tz = t[2];
    for (int c = 0; c < n; ++c) {
        const float e00 = sx * a000[c] + tx * a000[n + c], e10 = sx * a010[c] + tx * a010[n + c];
        const float e01 = sx * a001[c] + tx * a001[n + c], e11 = sx * a011[c] + tx * a011[n + c];
        out[c] = (e00 * sy + e10 * ty) * sz + (e01 * sy + e11 * ty) * tz;
    }
}

static inline vec3 grid_interp_vec3(const grid_shape *g, const vec3 *field, float x, float y,
                                    float z) {
    float o[3];
    grid_interp_n(g, &field->x, 3, x, y, z, o);
    return (vec3){o[0], o[1], o[2]};
}

static inline float grid_interp_float(const grid_shape *g, const float *field, float x, float y,
                                      float z) {
    float o;
    grid_interp_n(g, field, 1, x, y, z, &o);
    return o;
}

/* Finite-difference stencil along axis at point index i: derivative =
 * (f[hi] - f[lo]) * scale; centred inside, one-sided on the faces. Inline:
 * the per-point passes call it three times a point. */
static inline void eddy_grid_diff_stencil(const grid_shape *g, int axis, int i, int *lo, int *hi,
                                          float *scale) {
    const int n = g->points[axis];
    if (i == 0) {
        *lo = 0; *hi = 1; *scale = g->inv_spacing[axis];
    } else if (i == n - 1) {
        *lo = n - 2; *hi = n - 1; *scale = g->inv_spacing[axis];
    } else {
        *lo = i - 1; *hi = i + 1; *scale = 0.5f * g->inv_spacing[axis];
    }
}

/* Walks point indices p, p + 1, ... of a grid keeping (i, j, k): one
 * division at the start of a range instead of three per point. */
typedef struct grid_cursor {
    int idx[3];
    int nx, ny;
} grid_cursor;

static inline grid_cursor grid_cursor_at(const grid_shape *g, int p) {
    grid_cursor c;
    c.nx = g->points[0];
    c.ny = g->points[1];
    c.idx[0] = p % c.nx;
    c.idx[1] = (p / c.nx) % c.ny;
    c.idx[2] = p / (c.nx * c.ny);
    return c;
}

static inline void grid_cursor_next(grid_cursor *c) {
    if (++c->idx[0] == c->nx) {
        c->idx[0] = 0;
        if (++c->idx[1] == c->ny) {
            c->idx[1] = 0;
            ++c->idx[2];
        }
    }
}

/* ---------------------------------------------------------------- tree */
/* TREE_MAX_LEVELS: eddy_grid_define caps an axis at 2^20 cells, so halving
 * every axis needs at most 21 levels, and the near-cubic levels at most two
 * more (an axis's cells start within 2:1 of the others'). */
enum { TREE_MAX_LEVELS = 24, TREE_MOMENTS = 27, TREE_EXPANSION = 48 };
/* The multipole walk sums a base cell of at most this many vortons vorton by
 * vorton, accepted or not (cheaper than its expansion, and exact); such a
 * cell's expansion is never packed. */
enum { TREE_DIRECT_VORTONS = 4 };

typedef struct supervorton {
    float px, py, pz;    /* |omega|-weighted centroid */
    float wx, wy, wz;    /* summed vorticity */
    float weight;        /* summed |omega|, 0 = empty cell */
} supervorton;

typedef struct influence_tree {
    int levels;                         /* level 0 = finest (the template) */
    grid_shape layer[TREE_MAX_LEVELS];
    supervorton *cells[TREE_MAX_LEVELS];
    int capacity[TREE_MAX_LEVELS];
    /* Moments about each cell's centroid, TREE_MOMENTS floats per cell,
     * filled by eddy_tree_build_moments (multipole traversal only), sums over
     * the cell's vortons with r = p - centroid: m[3 b + k] = sum r_b w_k;
     * m[9 + 6 k + pair] = sum r_b r_c w_k, pairs xx xy xz yy yz zz. */
    float *moments[TREE_MAX_LEVELS];
    int moment_capacity[TREE_MAX_LEVELS];
    /* Each cell's expansion as the multipole walk evaluates it,
     * TREE_EXPANSION floats per cell (eddy_tree_build_moments; layout and
     * formula: lib/fluid/tree_walk.h, lanes_cell). */
    float *expansion[TREE_MAX_LEVELS];
    int expansion_capacity[TREE_MAX_LEVELS];
} influence_tree;

/* Vortons sorted by cell (counting sort, ties by vorton index): the vortons of
 * cell c are sorted_index[cell_start[c] .. cell_start[c+1]). */
typedef struct partition {
    int *cell_start;    /* cell_count + 1 */
    int *sorted_index;  /* vorton count */
    int *cell_of;       /* vorton count: each vorton's cell (scratch of the build) */
    int cell_capacity, index_capacity, cell_of_capacity;
} partition;

/* ---------------------------------------------------------------- islands */
/* A grid island (lib/fluid/islands.c): a cluster of vortons well separated
 * from the others, with a grid, a partition and an influence tree of its
 * own. While a world has two or more islands, the grid phases run once per
 * island with the island swapped into the world's grid fields (and its
 * vortons, gathered in index order, into w->vortons): the fields below carry
 * the same names and meaning as the world's. */
typedef struct grid_island {
    particle_array vortons; /* the island's vortons, gathered in index order */
    int *member;            /* vortons.count indices into the world's vortons, increasing */
    int member_capacity;
    grid_shape grid;
    bool grid_valid;
    float mollify;
    influence_tree tree;
    partition part;
    vec3 *velocity;
    float *flow;
    vec3 *jacobian;
    float *density;
    vec3 *density_gradient;
    int grid_point_capacity;
} grid_island;

/* The most islands a world splits its vortons into. */
enum { ISLANDS_MAX = 8 };

/* ---------------------------------------------------------------- emitters */
typedef struct emitter {
    eddy_emitter_def def;
    float vorton_remainder, tracer_remainder;
    uint16_t generation;
    bool alive;
    int32_t pending_vortons, pending_tracers; /* bursts requested by input */
} emitter;

/* ---------------------------------------------------------------- bodies */
/* A rigid body slot. Bodies are processed in slot (= id) order. The shape is
 * stored re-centred (body origin = centre of mass). */
typedef struct body {
    eddy_body_def def;         /* as created (shape re-centred) */
    bool alive;
    bool check_embedded;       /* remove particles inside it at the next step */
    uint16_t generation;
    float position[3];
    float orientation[4];      /* x, y, z, w */
    float rotation[3][3];      /* from orientation, body to world */
    float linear_momentum[3];
    float angular_momentum[3];
    float linear_velocity[3];
    float angular_velocity[3];
    float force[3], torque[3]; /* gravity and buoyancy of this substep */
    float input_force[3], input_torque[3]; /* from the input, for every substep of the step */
    float inv_mass;            /* 0 for kinematic */
    float inv_inertia_body[3][3];
    float inv_inertia_world[3][3]; /* R I^-1 R^T */
    float temperature;
    /* A container's frame acceleration from this step's SET_KINEMATIC
     * (lib/bodies/carry.c); zero between steps, so not state. */
    float frame_acceleration[3], frame_angular_acceleration[3];
    /* Slot + 1 of the container that holds the body's centre at the start
     * of this substep, 0 for none (lib/bodies/contain.c); recomputed every
     * substep, so not state. */
    int held_by;
    /* What the fluid gave the body during this step (eddy_body_impulse):
     * zeroed at the start of every step, summed over its substeps; an
     * output, not state (never hashed or snapshotted). */
    float fluid_linear[3], fluid_angular[3], fluid_buoyancy[3];
    /* This substep's fluid around the body (lib/bodies/buoyancy.c): the
     * displaced density rho_f and whether buoyancy acts; not state. */
    float fluid_density;
    bool buoyant;
    float flow_angular[3]; /* this substep's angular impulse from the flow's laws */
    float volume;
    float circumradius;        /* broad phase, solids */
    float inradius;            /* broad phase, holes */
    /* derived from def.shape (not state; rebuilt by eddy_body_rebuild_derived) */
    eddy_vec3 *vertices;       /* body frame, polytopes only */
    int vertex_count;
    /* faces of a polytope (lib/bodies/flow_forces.c): area and centroid per
     * plane, body frame; derived from def.shape, not state */
    float face_area[EDDY_MAX_PLANES];
    eddy_vec3 face_centroid[EDDY_MAX_PLANES];
} body;

typedef enum wall_poisoning {
    WALL_POISON_NONE = 0,
    WALL_POISON_GRID = 1,
    WALL_POISON_VORTON_HITS = 2,
} wall_poisoning;

/* ---------------------------------------------------------------- world */
/* Heun's step keeps 9 per-vorton arrays: x, y, z, wx, wy, wz, vx, vy, vz */
enum { HEUN_ARRAYS = 9 };

/* A blast still acting (lib/fluid/blast.c): its input and the seconds since
 * it started (advanced by each substep's dt). State: hashed in the globals
 * and snapshotted while any is active. */
typedef struct active_blast {
    eddy_blast def;
    float elapsed;
} active_blast;

typedef struct eddy_world {
    eddy_world_def def;
    task_system tasks;
    int64_t frame;
    bool stepped;              /* at least one step done: no more population */
    eddy_rng rng;
    eddy_vec3 gravity, wind;   /* current values (input may change them) */

    particle_array vortons;
    particle_array tracers;

    emitter *emitters;
    int emitter_count, emitter_capacity;

    body *bodies;
    int body_count, body_capacity;   /* slots, live or dead */
    eddy_body_id *created_bodies;     /* by the last step's commands */
    int created_body_count, created_body_capacity;
    eddy_emitter_id *created_emitters;
    int created_emitter_count, created_emitter_capacity;
    /* Vertex blocks of EDDY_SHAPE_MAX_VERTICES each that a step's prelude
     * allocates for the polytope bodies its input creates (lib/bodies/bodies.c,
     * eddy_bodies_reserve), so that creating them inside the step allocates
     * nothing: room, not state. */
    eddy_vec3 **vertex_spares;
    int vertex_spare_count, vertex_spare_capacity;

    /* grids of the last step */
    grid_shape grid;           /* template: velocity, density, partition */
    bool grid_valid;
    float mollify;             /* auto-mollification factor f */
    influence_tree tree;
    partition part;
    vec3 *velocity;            /* grid points */
    float *flow;               /* grid points x 4: u, v, w, rho' (what particles sample) */
    vec3 *jacobian;            /* grid points * 3 (rows d/dx, d/dy, d/dz) */
    float *density;            /* grid points: rho' field */
    vec3 *density_gradient;    /* grid points */
    int grid_point_capacity;
    /* Two or more grid islands (lib/fluid/islands.c): island_count > 1 and the
     * grid fields above are the swapped-in island's inside a grid phase,
     * unused (grid_valid false) between them; 0 or 1: one grid, the fields
     * above. Which islands the last step had is state (their flow grids
     * advect the tracers of the next step). */
    grid_island islands[ISLANDS_MAX];
    int island_count;
    /* Scratch of the split (2 x capacity ints), not state. */
    int *island_order;
    int island_order_capacity;
    /* EDDY_GRID_EXTENT_VORTONS (lib/fluid/advect.c, lib/fluid/velocity.c): the
     * step's tracer advection leaves the tracers outside the flow grid where
     * they are and flags them (far_flag[i] = 1 for i < far_count); after the
     * velocity solve each flagged tracer moves with the velocity the solver
     * gives at the tracer itself. Scratch of one step, not state. */
    uint8_t *far_flag;
    int far_flag_capacity, far_count;
    bool far_any;

    /* scratch for PSE (Jacobi update needs start-of-phase copies) */
    float *scratch[4];
    int scratch_capacity;
    /* Per-vorton scratch in partition order, 7 arrays (lib/fluid/diffuse.c): PSE's
     * copy of the vortons' values; before it, the density phase's cell x
     * index of each vorton (lib/fluid/density.c, the first array) */
    float *sorted_scratch;
    int sorted_scratch_capacity;
    /* The normalised PSE's pair lists, one per chunk (lib/fluid/diffuse.c):
     * scratch kept for its capacity, not state. */
    struct pse_list *pse_lists;
    int pse_list_count;
    /* EDDY_VELOCITY_TREECODE_VORTONS and EDDY_VELOCITY_DIRECT_VORTONS
     * (lib/fluid/velocity.c): each vorton's velocity gradient from the
     * velocity phase, VORTON_GRADIENT_FLOATS floats per vorton index (the
     * rows d/dx, d/dy, d/dz), which the stretch phase of the same substep
     * reads instead of the grid's Jacobian. Scratch of one substep, not
     * state. */
    float *vorton_gradient;
    int vorton_gradient_capacity;
    /* EDDY_VORTON_STEP_HEUN (lib/world.c, heun_vortons): the vortons'
     * positions and vorticity before the predictor, and their velocity in it */
    float *heun[HEUN_ARRAYS];
    int heun_capacity;

    /* chunk partials */
    void *partials;
    size_t partials_bytes;

    eddy_diagnostics diagnostics;

    /* blasts still acting, in the order their inputs gave them */
    active_blast *blasts;
    int blast_count, blast_capacity;
    /* the bullets of the step being run (the input's array; NULL between steps) */
    const eddy_bullet *step_bullets;
    int step_bullet_count;
    eddy_profile profile;
    eddy_frame_hash last_hash;
    bool hash_valid;
    /* block hashes of vortons then tracers behind last_hash (valid while
     * hash_valid and block_cache_valid) */
    uint64_t *block_cache;
    size_t block_cache_capacity;
    bool block_cache_valid;
    /* per hash block of the same layout: 1 if it holds a NaN or infinity
     * (filled by the parallel hash; valid while block_nonfinite_valid) */
    uint8_t *block_nonfinite;
    bool block_nonfinite_valid;
    /* Tracer hash blocks hashed by the advection that wrote them (lib/hash/hash.c,
     * "Early tracer hashes"): hash and flags of blocks [0, early_blocks),
     * usable by this step's hash while early_armed. Scratch, not state. */
    uint64_t *early_hash;
    uint8_t *early_flags; /* EARLY_FRESH, EARLY_NONFINITE */
    int early_capacity, early_blocks;
    int early_pause; /* steps left without early hashes (most went stale) */
    bool early_armed;
    /* A step failed (out of memory, or it left a NaN or infinity in the
     * state): the state is not usable and every step is refused until
     * eddy_world_restore clears this. broken_reason says what happened. */
    bool needs_restore;
    char broken_reason[160];
    eddy_status step_failure; /* why the running step failed, EDDY_OK for out of memory */
    int step_substeps; /* substeps of the running step: def.substeps times the
                          vorticity's (EDDY_VORTON_STEP_HEUN_ADAPTIVE); set by the step */
    char error[256];
    /* A public call that reads or writes the state is running on this world
     * (step, snapshot, restore, population, the hash queries): any call that
     * would overlap it, from the game's enqueue_task callback or from
     * another thread, is refused (eddy_world_enter). */
    atomic_int busy;
    /* Changes on every step and every restore (eddy_world_state_counter). */
    uint64_t state_counter;
} eddy_world;

/* The velocity method evaluates the solver at the vortons themselves: they
 * move with their own velocity and stretch with their own gradient
 * (w->vorton_gradient). */
enum { VORTON_GRADIENT_FLOATS = 9 };
static inline bool eddy_velocity_at_vortons(const eddy_world *w) {
    return w->def.velocity_method == EDDY_VELOCITY_DIRECT_VORTONS ||
           w->def.velocity_method == EDDY_VELOCITY_TREECODE_VORTONS;
}

/* The grid spans the vortons alone (EDDY_GRID_EXTENT_VORTONS or
 * EDDY_GRID_EXTENT_VORTONS_CUBIC): tracers outside it take the far field. */
static inline bool eddy_grid_of_vortons(const eddy_world *w) {
    return w->def.grid_extent != EDDY_GRID_EXTENT_ALL_PARTICLES;
}
/* The world may split its vortons into grid islands (lib/fluid/islands.c):
 * a grid of the vortons and the multipole treecode at the grid points (any
 * vorton step). */
static inline bool eddy_islands_allowed(const eddy_world *w) {
    return eddy_grid_of_vortons(w) && w->def.velocity_method == EDDY_VELOCITY_TREECODE &&
           w->def.treecode_traversal == EDDY_TREECODE_MULTIPOLE;
}
/* The most cells per vorton EDDY_GRID_EXTENT_VORTONS_CUBIC's grid takes
 * (lib/fluid/velocity.c), twice eddy_grid_define's bound. */
enum { GRID_CUBIC_MAX_CELLS_PER_VORTON = 16 };
/* The vorton count the grid arrays are reserved for: twice the vortons for
 * the cubic grid, whose bound is twice eddy_grid_define's. */
static inline int eddy_grid_reserve_target(const eddy_world *w, int vortons) {
    return w->def.grid_extent == EDDY_GRID_EXTENT_VORTONS_CUBIC && vortons < (1 << 29) ? 2 * vortons
                                                                                        : vortons;
}

/* The overlap guard of the public calls (lib/core/step.c): true if the world
 * was idle and is now held by this call; false if another call holds it,
 * with eddy_thread_error saying so (the world's own message belongs to the
 * running call). Every true is paired with eddy_world_leave. */
bool eddy_world_enter(const eddy_world *w, const char *call);
void eddy_world_leave(const eddy_world *w);
/* The calling thread's message of the last refused world creation or
 * overlapping call (eddy_last_error_message). */
extern _Thread_local char eddy_thread_error[256];

/* The grid islands of the last step (lib/core/grid.c): the island whose
 * grid holds p (-1: none), the island whose grid is nearest p (the first
 * on a tie; -1: no valid island), and the largest cell edge of the grid
 * nearest p (the world's own grid without islands; 0: no grid). */
int eddy_island_holding(const eddy_world *w, float x, float y, float z);
/* Exchanges island k's vortons and grid fields with the world's: once to
 * swap it in, once more to swap it out. */
void eddy_island_swap(eddy_world *w, int k);
int eddy_island_nearest(const eddy_world *w, float x, float y, float z);
float eddy_grid_cell_near(const eddy_world *w, vec3 p);
/* The grid a sample at p reads: with islands, the island whose grid holds p
 * (*island its index; NULL when none does), else the world's own grid when
 * valid (*island -1; NULL without one). */
const grid_shape *eddy_sample_grid(const eddy_world *w, float x, float y, float z, int *island);

/* Kills the particles older than max_age (lib/core/particles.c). */
void eddy_phase_kill_by_age(eddy_world *w, particle_array *a, int max_age);

/* Per-step services (lib/core/step.c). */
void eddy_world_set_error(eddy_world *w, const char *fmt, ...) EDDY_PRINTF_LIKE(2, 3);
/* Grow helpers: *p realloc'ed to bytes (false: out of memory, *p kept);
 * the grid's point arrays; the chunk partials. */
bool eddy_grow(void **p, size_t bytes);
bool eddy_grid_arrays_reserve(eddy_world *w, int points);
void *eddy_partials_reserve(eddy_world *w, size_t bytes);

#endif
