/* SPDX-License-Identifier: MIT */
/* Internal: shared types of the eddy library. Never installed.
 *
 * Layout: particles are stored as structure-of-arrays (one float array per
 * field) so that per-particle loops vectorise with lanes = particles, never
 * lanes = summation index (determinism rule 7 in docs/determinism.md). */
#ifndef EDDY_CORE_H
#define EDDY_CORE_H

#include "fpcheck.h" /* first: refuses non-IEEE float builds */
#include "eddy/eddy.h"
#include "eddy/math_functions.h"
#include "eddy/view.h"

#include <math.h> /* sqrtf only: correctly rounded, deterministic */
#include <stdint.h>
#include <string.h>

#define EDDY_PI 3.14159265358979323846f
#define EDDY_FLT_EPSILON 1.1920928955078125e-07f
#define EDDY_FLT_MIN 1.17549435082228750797e-38f
#define EDDY_FLT_MAX 3.40282346638528859812e+38f

/* printf-style format checking where the compiler has it; nothing elsewhere
 * (MSVC). MinGW-w64 checks against the C99 printf it links (gnu_printf, which
 * knows %zu), not the Microsoft one its plain `printf` archetype means. */
#if defined(__MINGW32__)
#include <stdio.h> /* defines __MINGW_PRINTF_FORMAT */
#define EDDY_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(__MINGW_PRINTF_FORMAT, format_index, first_arg)))
#elif defined(__GNUC__)
#define EDDY_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define EDDY_PRINTF_LIKE(format_index, first_arg)
#endif

void eddy_assert_fail(const char *condition, const char *file, int line);
#define EDDY_ASSERT(c) ((c) ? (void)0 : eddy_assert_fail(#c, __FILE__, __LINE__))
#ifndef NDEBUG
#define EDDY_DEBUG_ASSERT(c) EDDY_ASSERT(c)
#else
#define EDDY_DEBUG_ASSERT(c) ((void)0)
#endif

typedef struct vec3 {
    float x, y, z;
} vec3;

/* min/max with ties and signed zeros resolved one way on every ISA:
 * on a tie the first argument is returned (rule 8). */
static inline float fmin_det(float a, float b) { return b < a ? b : a; }
static inline float fmax_det(float a, float b) { return b > a ? b : a; }

/* Index of the lowest set bit of a nonzero mask: the compiler's builtin
 * where it has one, a loop elsewhere (MSVC). */
#if defined(__GNUC__)
#define EDDY_LOWEST_BIT64(m) __builtin_ctzll(m)
#else
#define EDDY_LOWEST_BIT64(m) eddy_lowest_bit64_loop(m)
static inline int eddy_lowest_bit64_loop(uint64_t m) {
    int k = 0;
    while (!(m >> k & 1u)) ++k;
    return k;
}
#endif

/* ---------------------------------------------------------------- particles */
enum { BIRTHS_ORDER_UNKNOWN = 0, BIRTHS_IN_ORDER = 1, BIRTHS_OUT_OF_ORDER = 2 };

typedef struct particle_array {
    int count;
    int capacity;       /* slots from the field pointers on */
    bool has_vorticity; /* vortons carry wx, wy, wz */
    /* Whether birth is non-decreasing over [0, count): BIRTHS_IN_ORDER,
     * BIRTHS_OUT_OF_ORDER or BIRTHS_ORDER_UNKNOWN (memset 0, and after a
     * restore; the next kill finds out). Derived, never state: push keeps it,
     * a stable kill cannot break it (lib/particles.c). */
    int8_t births_order;
    /* Slots before the field pointers, freed by kill_by_age dropping a prefix
     * (lib/particles.c): each allocation starts head slots before its
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
     * step (lib/stretch.c); (0,0,0): none, the next step takes its own.
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
     * formula: lib/tree_walk.h, lanes_cell). */
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
     * (lib/carry.c); zero between steps, so not state. */
    float frame_acceleration[3], frame_angular_acceleration[3];
    /* Slot + 1 of the container that holds the body's centre at the start
     * of this substep, 0 for none (lib/contain.c); recomputed every
     * substep, so not state. */
    int held_by;
    float volume;
    float circumradius;        /* broad phase, solids */
    float inradius;            /* broad phase, holes */
    /* derived from def.shape (not state; rebuilt by eddy_body_rebuild_derived) */
    eddy_vec3 *vertices;       /* body frame, polytopes only */
    int vertex_count;
} body;

typedef enum wall_poisoning {
    WALL_POISON_NONE = 0,
    WALL_POISON_GRID = 1,
    WALL_POISON_VORTON_HITS = 2,
} wall_poisoning;

/* ---------------------------------------------------------------- threads */
typedef struct task_system {
    int worker_count;
    eddy_enqueue_task_fn *enqueue;
    eddy_finish_task_fn *finish;
    void *user_context;
    eddy_pool *own_pool;      /* created by the world, or NULL */
    bool external;            /* the game's task system: every phase goes through it */
    uint32_t fp_canonical;    /* canonical control word for workers */
    uint32_t mutations;
} task_system;

/* Body of one chunk. Writes only outputs owned by that chunk. */
typedef void chunk_fn(int chunk, int begin, int end, void *context);

/* Run fn over [0, count) in chunks of chunk_size (a constant of the phase),
 * on the task system. Every chunk runs with the canonical FP mode. */
void eddy_parallel_for(const task_system *ts, int count, int chunk_size, chunk_fn *fn, void *context);

static inline int chunk_count(int count, int chunk_size) {
    return count <= 0 ? 0 : (count + chunk_size - 1) / chunk_size;
}

/* Combine partials[0..n) of elem_size bytes pairwise over chunk index
 * (stride 1, 2, 4, ...): combine(dst, src) folds src into dst. The tree is the
 * same for every worker count; the result lands in partials[0]. */
typedef void combine_fn(void *dst, const void *src);
void eddy_reduce_tree(task_system *ts, void *partials, int n, size_t elem_size, combine_fn *combine);

/* FP environment: one back end per ISA (fpenv_x86_64.c, fpenv_aarch64.c);
 * what the mode word holds: lib/fpenv.c.
 * WebAssembly (fpenv_wasm.c) has one mode, which keeps denormals: a world
 * asking to flush them is refused there. */
#if defined(__wasm__)
#define EDDY_FPENV_CAN_FLUSH 0
#else
#define EDDY_FPENV_CAN_FLUSH 1
#endif
uint32_t eddy_fpenv_canonical(bool flush_denormals);
uint32_t eddy_fpenv_get(void);
void eddy_fpenv_set(uint32_t mode);
bool eddy_fpenv_is(uint32_t mode);

/* ---------------------------------------------------------------- world */
/* Heun's step keeps 9 per-vorton arrays: x, y, z, wx, wy, wz, vx, vy, vz */
enum { HEUN_ARRAYS = 9 };

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

    /* scratch for PSE (Jacobi update needs start-of-phase copies) */
    float *scratch[4];
    int scratch_capacity;
    /* Per-vorton scratch in partition order, 7 arrays (lib/diffuse.c): PSE's
     * copy of the vortons' values; before it, the density phase's cell x
     * index of each vorton (lib/density.c, the first array) */
    float *sorted_scratch;
    int sorted_scratch_capacity;
    /* EDDY_VORTON_STEP_HEUN (lib/world.c, heun_vortons): the vortons'
     * positions and vorticity before the predictor, and their velocity in it */
    float *heun[HEUN_ARRAYS];
    int heun_capacity;

    /* chunk partials */
    void *partials;
    size_t partials_bytes;

    eddy_diagnostics diagnostics;
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
    /* Tracer hash blocks hashed by the advection that wrote them (lib/hash.c,
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
    char error[256];
} eddy_world;

/* Step phases (one file each). */
void eddy_phase_kill_by_age(eddy_world *w, particle_array *a, int max_age);
bool eddy_phase_emit(eddy_world *w);                /* false: out of memory */
void eddy_phase_advect_tracers(eddy_world *w, float dt);
bool eddy_phase_build_grid(eddy_world *w);          /* bounds, grid, partition, tree */
void eddy_phase_velocity_grid(eddy_world *w);
void eddy_phase_stretch(eddy_world *w, float dt);
bool eddy_phase_density(eddy_world *w, float dt);
/* The density phase of this step will update vorticity and re-aggregate the
 * influence tree (gravity, or a container's frame accelerates). */
bool eddy_density_rebuilds_tree(const eddy_world *w);
void eddy_phase_pack_flow(eddy_world *w);
void eddy_phase_density_grid(eddy_world *w); /* the rho' grid alone (Heun's second solve) */
bool eddy_phase_build_grid_and_tree(eddy_world *w); /* build_grid, the tree always built */
bool eddy_phase_build_tree(eddy_world *w); /* tree (and multipole moments) over the partition */

/* Containers carry their interior (carry.c). */
typedef struct eddy_body_pose {
    float position[3];
    float rotation[3][3];
} eddy_body_pose;
bool eddy_body_carries_fluid(const body *b);
eddy_body_pose eddy_body_pose_of(const body *b);
/* Early tracer hashes (lib/hash.c). eddy_early_hash_prepare, before the
 * tracers' advection: arms the step's early hashes (when the step hashes and
 * the scratch is there) with every block stale. eddy_early_hash_block, by
 * the advection chunk that wrote block b: hashes it. The writers of tracer
 * state after the advection mark what they change stale:
 * eddy_early_hash_stale (one tracer's block; one chunk owns a block),
 * eddy_early_hash_stale_from (blocks from tracer `first` on, serial). */
enum { EARLY_FRESH = 1, EARLY_NONFINITE = 2 };
void eddy_early_hash_prepare(eddy_world *w);
void eddy_early_hash_block(eddy_world *w, int block);
static inline void eddy_early_hash_stale(eddy_world *w, int tracer) {
    const int b = tracer / EDDY_HASH_BLOCK_PARTICLES;
    if (w->early_armed && b < w->early_blocks) w->early_flags[b] = 0;
}
void eddy_early_hash_stale_from(eddy_world *w, int first);
void eddy_carry_interior(eddy_world *w, const body *b, const eddy_body_pose *old);
bool eddy_frames_accelerate(const eddy_world *w);
vec3 eddy_frame_apparent_gravity(const eddy_world *w, vec3 x, vec3 g_scaled, float scale);
bool eddy_frames_rotate(const eddy_world *w);
vec3 eddy_frame_rotation_at(const eddy_world *w, vec3 x); /* W of the carrying container, or 0 */
void eddy_phase_diffuse(eddy_world *w, float dt);
bool eddy_pse_reserve(eddy_world *w, int vortons); /* diffusion's own scratch */
void eddy_phase_advect_vortons(eddy_world *w, float dt);
void eddy_phase_diagnostics(eddy_world *w);
/* Bodies (bodies.c, collide.c, buoyancy.c). */
void eddy_phase_remove_embedded(eddy_world *w);
bool eddy_phase_collide_tracers(eddy_world *w);   /* false: out of memory */
bool eddy_phase_collide_vortons(eddy_world *w);
void eddy_phase_poison_density_gradient(eddy_world *w);
void eddy_phase_body_forces(eddy_world *w);
void eddy_phase_integrate_bodies(eddy_world *w, float dt);
/* Containers hold their bodies (contain.c): find the holders before the
 * integration, resolve the walls after it. */
void eddy_phase_find_held_bodies(eddy_world *w);
void eddy_phase_contain_bodies(eddy_world *w);
eddy_status eddy_bodies_validate_commands(eddy_world *w, const eddy_input *in);
bool eddy_bodies_apply_commands(eddy_world *w, const eddy_input *in);  /* false: out of memory */
bool eddy_body_create(eddy_world *w, const eddy_body_def *def, eddy_body_id *out); /* def validated */
eddy_status eddy_body_def_check(eddy_world *w, const eddy_body_def *def);
void eddy_bodies_free(eddy_world *w);
void eddy_bodies_end_step(eddy_world *w); /* clears input forces */
void eddy_body_receive(body *b, vec3 linear, vec3 angular, float heat);
/* Recompute what is derived from the def and the orientation (rotation,
 * world inverse inertia, vertex cache); false: out of memory. */
bool eddy_body_rebuild_derived(body *b);

/* Influence tree (tree.c) and partition (partition.c). */
/* Levels: every axis halved per level (the original's tree), or, with
 * cubic_levels, eddy_grid_coarsen_cubic's near-cubic cells (the multipole's:
 * its acceptance test measures a cell by its longest edge). */
bool eddy_tree_build(influence_tree *t, task_system *ts, const grid_shape *template_grid,
                     const particle_array *v, const partition *part, bool cubic_levels);
void eddy_tree_free(influence_tree *t);
/* First moments of every cell of a built tree (tree.c). */
bool eddy_tree_build_moments(influence_tree *t, task_system *ts, const particle_array *v,
                             const partition *part);
/* ts may be NULL (the calling thread does all of it). */
bool eddy_partition_build(partition *part, task_system *ts, const grid_shape *g,
                          const particle_array *v);
void eddy_partition_free(partition *part);
/* Bounding box of vortons and tracers by chunk + fixed reduction tree (bounds.c).
 * Returns false when there are no particles. */
bool eddy_particles_bounds(eddy_world *w, float lo[3], float hi[3]);

/* eddy_expf of n arguments (lib/emath.c), four at a time where the CPU has
 * vectors: out[j] has the bits of eddy_expf(x[j]) for every j, on every
 * instruction set. */
void eddy_expf_array(const float *x, float *out, int n);

/* The vorton velocity kernel (design note in kernel.c): velocity induced at
 * q by a vorton or supervorton at p with vorticity w and core radius a
 * (already mollified), circulation factor c = 1/f^3; accumulated into *u.
 * d == 0 (or |d|^3 below the float range) contributes exactly zero. Inline:
 * the treecode's innermost call. */
static inline void kernel_accumulate(vec3 *u, float qx, float qy, float qz, float px, float py,
                                     float pz, float wx, float wy, float wz, float a, float c) {
    const float dx = qx - px, dy = qy - py, dz = qz - pz;
    const float d2 = dx * dx + dy * dy + dz * dz;
    if (d2 == 0.0f) return; /* no contribution at all, not even a +0 */
    const float a2 = a * a;
    float s = c * (1.0f / 3.0f);
    if (!(d2 < a2)) {
        const float den = d2 * sqrtf(d2);
        if (!(den > 0.0f)) return; /* |d|^3 underflows: no contribution */
        s = s * ((a2 * a) / den);
    }
    u->x += s * (wy * dz - wz * dy);
    u->y += s * (wz * dx - wx * dz);
    u->z += s * (wx * dy - wy * dx);
}

/* Treecode velocity at q, the original's traversal (tree.c). */
vec3 eddy_tree_velocity_at(const influence_tree *t, float qx, float qy, float qz, float a, float c);

/* Multipole treecode (lib/tree_walk.h): the velocity at the query points of
 * a block (TREE_BLOCK_POINTS points in the box [lo, hi]: a block of grid
 * points), by one traversal shared by the block. A cell of edge s whose
 * centroid lies at distance D from the box is used as a multipole (sum, first
 * and second moments) when s < theta D; base cells that fail are summed
 * vorton by vorton. The tree must carry its moments. Each point's sum runs in
 * traversal order, which depends only on the tree and the box. Lanes beyond
 * the grid are computed and dropped by the caller. */
enum { TREE_BLOCK_POINTS = 8, TREE_TILE_BLOCKS = 8 };
typedef struct tree_block {
    float qx[TREE_BLOCK_POINTS], qy[TREE_BLOCK_POINTS], qz[TREE_BLOCK_POINTS];
    float lo[3], hi[3];
} tree_block;
/* Up to TREE_TILE_BLOCKS blocks walked together (bit k of active: block k is
 * evaluated): one recursion serves them all and a cell's expansion is set up
 * once for every block that accepts it, but each block meets exactly the
 * cells, in the order, of its own walk, so its bits equal
 * eddy_tree_velocity_block's. lo/hi: a box holding every active block's. */
typedef struct tree_tile {
    tree_block block[TREE_TILE_BLOCKS];
    unsigned active;
    float lo[3], hi[3];
} tree_tile;
void eddy_tree_velocity_tile(const influence_tree *t, const particle_array *v,
                             const partition *part, const tree_tile *tile, float theta, float a,
                             float c, vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]);
void eddy_tree_velocity_block(const influence_tree *t, const particle_array *v,
                              const partition *part, const tree_block *b, float theta, float a,
                              float c, vec3 out[TREE_BLOCK_POINTS]);
/* The tile walk built for one lane width each (lib/tree_multipole*.c), all
 * giving the same bits: four lanes (SSE2, NEON or plain C, whichever the
 * build has), plain C lanes everywhere, and eight AVX lanes (x86-64 builds
 * only; call only when eddy_tree_avx_available()). eddy_tree_velocity_tile
 * calls the widest the CPU runs. */
void eddy_tree_velocity_tile_lanes4(const influence_tree *t, const particle_array *v,
                                    const partition *part, const tree_tile *tile, float theta,
                                    float a, float c,
                                    vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]);
void eddy_tree_velocity_tile_plain(const influence_tree *t, const particle_array *v,
                                   const partition *part, const tree_tile *tile, float theta,
                                   float a, float c,
                                   vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]);
void eddy_tree_velocity_tile_avx(const influence_tree *t, const particle_array *v,
                                 const partition *part, const tree_tile *tile, float theta,
                                 float a, float c, vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]);
bool eddy_tree_avx_available(void);
/* The original traversal (eddy_tree_velocity_at) at the points of a block
 * (qx, qy, qz of b; lo/hi unused), one point per lane (lib/tree_descend*.c):
 * each point gets the bits eddy_tree_velocity_at gives it. The block function
 * calls the four-lane build (scalar for a one-cell tree); the builds need a
 * tree of at least two levels. */
void eddy_tree_velocity_descend_block(const influence_tree *t, const tree_block *b, float a,
                                      float c, vec3 out[TREE_BLOCK_POINTS]);
void eddy_tree_velocity_descend_lanes4(const influence_tree *t, const tree_block *b, float a,
                                       float c, vec3 out[TREE_BLOCK_POINTS]);
void eddy_tree_velocity_descend_plain(const influence_tree *t, const tree_block *b, float a,
                                      float c, vec3 out[TREE_BLOCK_POINTS]);
/* Direct summation at q over all vortons. */
vec3 eddy_direct_velocity_at(const particle_array *v, float qx, float qy, float qz, float a);

/* Grow helpers. */
bool eddy_grid_arrays_reserve(eddy_world *w, int points);
void *eddy_partials_reserve(eddy_world *w, size_t bytes);
/* Bytes of partials the stretching phase needs for that many vortons. */
size_t eddy_stretch_partials_bytes(int vortons);

/* End-of-step check (finite.c): true when a particle or body holds a NaN or
 * infinity; what names the first one ("vorton 12 velocity.x = nan"). */
bool eddy_state_find_nonfinite(eddy_world *w, char *what, size_t size);
/* Nonzero iff one of x[0..n) is a NaN or an infinity (integer test, no FP). */
uint32_t eddy_nonfinite_bits(const float *x, int n);

/* Hash (hash.c). */
void eddy_world_hash_compute(eddy_world *w);

void eddy_world_set_error(eddy_world *w, const char *fmt, ...) EDDY_PRINTF_LIKE(2, 3);
double eddy_now_ms(void); /* timing only, never in state */

#endif
