/* SPDX-License-Identifier: MIT */
/* Grid sizing for the step and velocity from vorticity.
 *
 * eddy_phase_build_grid sizes the grid template over all particles (plus a margin
 * of one vorton radius), sorts vortons into its cells and builds the
 * influence tree (with first moments for the multipole traversal).
 * eddy_phase_velocity_grid fills the velocity at every grid point by the
 * treecode (default) or by direct summation, each point owned by one chunk.
 * The original treecode traversal walks the tree once per block of 2x2x2
 * grid points, one point per lane (lib/fluid/tree_descend_walk.h), each point
 * getting the bits of its own scalar walk (eddy_tree_velocity_at).
 * The multipole treecode evaluates blocks of 2x2x2 grid points (the corners
 * of one base cell, fewer on the last faces), 2x2x2 blocks (a tile) per walk
 * of the tree: every point of a block summed in its block's traversal order.
 * Blocks and tiles are fixed by the grid, so neither the order nor the result
 * depends on the worker count. Auto-mollification (Part 12): the vorton core is widened to
 * f r with f = max(length_scale * cbrt(V_cell) / r, 1) for the treecode.
 * EDDY_VELOCITY_TREECODE_VORTONS walks the tree a second time for the
 * vortons, with their own core r: tiles of 64 vortons in the partition's
 * order, 8 to a block, so a vorton's bits depend on the vortons beside it in
 * that order, never on the worker count. The trilinear sample of a grid of
 * cells about the core's size is what slows thin rings (docs/accuracy.md).
 *
 * The vortons' own velocity gradient (both methods at the vortons). The
 * stretching used to difference the velocity on the grid, whose cells
 * follow the vortons' box: a ring's stretching, and so its speed, then
 * depended on a second ring 50 m away (0.94 of its speed alone) and on its
 * direction (0.974 along (1,1,1)), docs/physics.md section 10.1. These
 * methods now give every vorton its velocity gradient (w->vorton_gradient,
 * which the stretch phase reads instead of the grid's Jacobian), with a core
 * of VORTON_GRADIENT_CORE vorton radii: with the vortons' own core r (no
 * overlap at the usual spacing of 2r) the gradient is the particles' noise,
 * and the vortex_ring scene's impulse drifted 26 % in 300 frames; with 2r
 * 8 %, with 3r 1.6 % (the grid's Jacobian: 1.6 %). 3r is also the normalised
 * PSE's kernel width (lib/fluid/diffuse.h): the scale the vortons resolve.
 * Direct summation sums the kernel's exact gradient (lib/fluid/kernel.c).
 * The treecode sums it in the vortons' own walk (the same tiles, cells and
 * order as their velocity, whose bits it leaves alone): each term the walk
 * adds to a vorton's velocity, a base cell's vortons or a cell's expansion,
 * adds its derivative to the gradient, with the gradient's core
 * (lib/fluid/tree_walk.h, cell_group_and_gradient). Against direct summation
 * with the same core, relative RMS 6-7 % on a ring and a swirl, 16 % on
 * incoherent noise at the default theta, 0.01-0.1 % at theta 0.4
 * (tests/test_tree.c); the central differences of a second walk with one
 * vorton to a block that it replaced gave 10-12 % and 40 %, at about
 * twice the cost. A vorton's gradient depends on the tree and on the
 * vortons beside it in the partition's order, as its velocity does. */
#include "bodies/bodies.h"
#include "fluid/fluid.h"
#include "hash/hash.h"

enum { DESCEND_CHUNK = 8, DIRECT_CHUNK = 16, TILE_CHUNK = 1 };

static bool uses_treecode(const eddy_world *w) {
    return w->def.velocity_method == EDDY_VELOCITY_TREECODE ||
           w->def.velocity_method == EDDY_VELOCITY_TREECODE_VORTONS;
}

/* The multipole treecode takes moments about the build's centroids. */
static bool uses_moments(const eddy_world *w) {
    return uses_treecode(w) && w->def.treecode_traversal == EDDY_TREECODE_MULTIPOLE;
}

bool eddy_fluid_uses_moments(const eddy_world *w) { return uses_moments(w); }

/* True when a container that carries its fluid (lib/bodies/carry.c) meets
 * the box [lo, hi] (its vertices' box, in world coordinates). */
static bool fluid_container_meets(const eddy_world *w, const float lo[3], const float hi[3]) {
    for (int s = 0; s < w->body_count; ++s) {
        const body *b = &w->bodies[s];
        if (!b->alive || !eddy_body_carries_fluid(b) || b->vertex_count == 0) continue;
        float blo[3] = {0.0f, 0.0f, 0.0f}, bhi[3] = {0.0f, 0.0f, 0.0f};
        for (int k = 0; k < b->vertex_count; ++k) {
            const eddy_vec3 v = b->vertices[k];
            for (int a = 0; a < 3; ++a) {
                const float x = b->position[a] + (b->rotation[a][0] * v.x + b->rotation[a][1] * v.y +
                                                  b->rotation[a][2] * v.z);
                blo[a] = k ? fmin_det(blo[a], x) : x;
                bhi[a] = k ? fmax_det(bhi[a], x) : x;
            }
        }
        bool meets = true;
        for (int a = 0; a < 3; ++a) meets = meets && blo[a] <= hi[a] && bhi[a] >= lo[a];
        if (meets) return true;
    }
    return false;
}

bool eddy_phase_build_grid(eddy_world *w) {
    w->grid_valid = false;
    if (w->vortons.count == 0) return true;
    float lo[3], hi[3];
    eddy_particles_bounds(w, lo, hi, w->def.grid_extent == EDDY_GRID_EXTENT_ALL_PARTICLES);
    /* The seed's margin is one vorton radius. A grid of the vortons alone
     * takes three: the rho' field falls to zero over 2 r past the last
     * vortons (lib/fluid/density.c), and its gradient there (a free surface)
     * makes the baroclinic term, which the seed's grid had only where
     * tracers lay beyond the fluid. */
    const float margin = w->def.vorton_radius;
    for (int a = 0; a < 3; ++a) {
        lo[a] -= margin;
        hi[a] += margin;
    }
    const bool cubic = w->def.grid_extent == EDDY_GRID_EXTENT_VORTONS_CUBIC;
    const int64_t max_cells = GRID_CUBIC_MAX_CELLS_PER_VORTON * (int64_t)w->vortons.count;
    if (cubic) {
        /* One cell per vorton over the volume the vortons' second moments
         * span, each vorton a cube of 2r (so a sheet or a line of vortons,
         * whose moments span no volume, still gets cells of about 2r). */
        const float centre[3] = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]),
                                 0.5f * (lo[2] + hi[2])};
        const float volume = eddy_vortons_spread_volume(w, centre, 2.0f * w->def.vorton_radius);
        if (volume < 0.0f) return false;
        eddy_grid_define_cubic(&w->grid, lo, hi, eddy_cbrtf(volume / (float)w->vortons.count),
                               max_cells);
    } else {
        eddy_grid_define(&w->grid, lo, hi, w->vortons.count);
    }
    if (eddy_grid_of_vortons(w) && fluid_container_meets(w, lo, hi)) {
        /* A fluid held in a container has a free surface: rho' falls to zero
         * over a cell or two past its last vortons, and that gradient makes
         * the baroclinic term that tilts the surface. The seed's grid had
         * that room because the tracers filled the container; a grid of the
         * vortons takes two of its cells more on every side there (in the
         * open, where no wall holds a surface, the vortons' box suffices:
         * docs/algorithm.md, "Where the grid lies"). */
        const grid_shape *g0 = &w->grid;
        const float cell = fmax_det(g0->spacing[0], fmax_det(g0->spacing[1], g0->spacing[2]));
        for (int a = 0; a < 3; ++a) {
            lo[a] -= 2.0f * cell;
            hi[a] += 2.0f * cell;
        }
        if (cubic)
            eddy_grid_define_cubic(&w->grid, lo, hi, cell, max_cells);
        else
            eddy_grid_define(&w->grid, lo, hi, w->vortons.count);
    }
    if (!eddy_grid_arrays_reserve(w, grid_point_count(&w->grid))) return false;
    if (!eddy_partition_build(&w->part, &w->tasks, &w->grid, &w->vortons)) return false;
    /* Nothing reads the tree before the density phase; when that phase
     * re-aggregates it (after generating vorticity), this build would be
     * overwritten unread. */
    if (!eddy_density_rebuilds_tree(w) && !eddy_phase_build_tree(w)) return false;
    const grid_shape *g = &w->grid;
    float cell_volume = 1.0f;
    for (int a = 0; a < 3; ++a) cell_volume *= g->spacing[a];
    float f = w->def.mollify_length_scale * eddy_cbrtf(cell_volume) / w->def.vorton_radius;
    w->mollify = f > 1.0f ? f : 1.0f;
    w->grid_valid = true;
    return true;
}

/* The influence tree over the partition, with the multipole's near-cubic
 * levels and moments when the step uses that traversal. */
bool eddy_phase_build_tree(eddy_world *w) {
    const bool multipole = uses_moments(w);
    if (!eddy_tree_build(&w->tree, &w->tasks, &w->grid, &w->vortons, &w->part, multipole))
        return false;
    return !multipole || eddy_tree_build_moments(&w->tree, &w->tasks, &w->vortons, &w->part);
}

/* The same, with the tree always aggregated: for a second solve within a
 * step (Heun's, lib/world.c), which no density phase re-aggregates. */
bool eddy_phase_build_grid_and_tree(eddy_world *w) {
    if (!eddy_phase_build_grid(w)) return false;
    if (!w->grid_valid) return true;
    if (eddy_density_rebuilds_tree(w)) return eddy_phase_build_tree(w); /* build_grid skipped it */
    return true;
}

typedef struct velocity_job {
    eddy_world *w;
    vec3 *out;
    float a, c;   /* the velocity's core and circulation factor */
    float ag, cg; /* the vortons' walk: the gradient's (vorton_tile_chunk) */
} velocity_job;

static inline void point_position(const grid_shape *g, int p, float q[3]) {
    int i = p % g->points[0], j = (p / g->points[0]) % g->points[1];
    int k = p / (g->points[0] * g->points[1]);
    q[0] = g->min[0] + (float)i * g->spacing[0];
    q[1] = g->min[1] + (float)j * g->spacing[1];
    q[2] = g->min[2] + (float)k * g->spacing[2];
}

static inline int blocks_along(const grid_shape *g, int axis) { return (g->points[axis] + 1) / 2; }

/* Block n: grid points (2 bi + dx, 2 bj + dy, 2 bk + dz), lane dx + 2 dy + 4 dz;
 * on the last face a missing point repeats the block's first one (its lane is
 * computed and dropped). Returns the lanes' point indices (-1: dropped). */
static void block_points(const grid_shape *g, int n, tree_block *b, int point[TREE_BLOCK_POINTS]) {
    const int nbx = blocks_along(g, 0), nby = blocks_along(g, 1);
    const int base[3] = {2 * (n % nbx), 2 * ((n / nbx) % nby), 2 * (n / (nbx * nby))};
    for (int a = 0; a < 3; ++a) {
        const int last = base[a] + 1 < g->points[a] ? base[a] + 1 : base[a];
        b->lo[a] = g->min[a] + (float)base[a] * g->spacing[a];
        b->hi[a] = g->min[a] + (float)last * g->spacing[a];
    }
    for (int k = 0; k < TREE_BLOCK_POINTS; ++k) {
        const int off[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
        int idx[3];
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
            idx[a] = base[a] + off[a];
            if (idx[a] >= g->points[a]) {
                inside = false;
                idx[a] = base[a];
            }
        }
        b->qx[k] = g->min[0] + (float)idx[0] * g->spacing[0];
        b->qy[k] = g->min[1] + (float)idx[1] * g->spacing[1];
        b->qz[k] = g->min[2] + (float)idx[2] * g->spacing[2];
        point[k] = inside ? idx[0] + g->points[0] * (idx[1] + g->points[1] * idx[2]) : -1;
    }
}

/* The original traversal, one block of 2x2x2 grid points per walk (lanes of
 * lib/fluid/tree_descend_walk.h; each point gets eddy_tree_velocity_at's bits). */
static void descend_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    for (int n = begin; n < end; ++n) {
        tree_block b;
        int point[TREE_BLOCK_POINTS];
        block_points(&job->w->grid, n, &b, point);
        vec3 u[TREE_BLOCK_POINTS];
        eddy_tree_velocity_descend_block(&job->w->tree, &b, job->a, job->c, u);
        for (int p = 0; p < TREE_BLOCK_POINTS; ++p)
            if (point[p] >= 0) job->out[point[p]] = u[p];
    }
}

static inline int tiles_along(const grid_shape *g, int axis) {
    return (blocks_along(g, axis) + 1) / 2;
}

/* Tile n: blocks (2 ti + bx, 2 tj + by, 2 tk + bz), block bx + 2 by + 4 bz of
 * the tile, active when it lies in the grid; the tile's box holds theirs. */
static void tile_blocks(const grid_shape *g, int n, tree_tile *tile,
                        int point[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]) {
    const int ntx = tiles_along(g, 0), nty = tiles_along(g, 1);
    const int t[3] = {n % ntx, (n / ntx) % nty, n / (ntx * nty)};
    const int nb[3] = {blocks_along(g, 0), blocks_along(g, 1), blocks_along(g, 2)};
    memset(tile, 0, sizeof *tile); /* inactive blocks: zeros, never used */
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k) {
        const int bi[3] = {2 * t[0] + (k & 1), 2 * t[1] + ((k >> 1) & 1), 2 * t[2] + (k >> 2)};
        if (bi[0] >= nb[0] || bi[1] >= nb[1] || bi[2] >= nb[2]) continue;
        tree_block *b = &tile->block[k];
        block_points(g, bi[0] + nb[0] * (bi[1] + nb[1] * bi[2]), b, point[k]);
        for (int a = 0; a < 3; ++a) {
            tile->lo[a] = tile->active ? fmin_det(tile->lo[a], b->lo[a]) : b->lo[a];
            tile->hi[a] = tile->active ? fmax_det(tile->hi[a], b->hi[a]) : b->hi[a];
        }
        tile->active |= 1u << k;
    }
}

static void multipole_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    const eddy_world *w = job->w;
    for (int n = begin; n < end; ++n) {
        tree_tile tile;
        int point[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        tile_blocks(&w->grid, n, &tile, point);
        vec3 u[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        eddy_tree_velocity_tile(&w->tree, &w->vortons, &w->part, &tile,
                                w->def.treecode_opening_angle, job->a, job->c, u);
        for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
            if (tile.active >> k & 1u)
                for (int p = 0; p < TREE_BLOCK_POINTS; ++p)
                    if (point[k][p] >= 0) job->out[point[k][p]] = u[k][p];
    }
}

static inline int vorton_tiles(int vortons) {
    const int per_tile = TREE_TILE_BLOCKS * TREE_BLOCK_POINTS;
    return (vortons + per_tile - 1) / per_tile;
}

/* Vorton tile n (EDDY_VELOCITY_TREECODE_VORTONS): the vortons n * 64 ...
 * n * 64 + 63 of the partition's order, 8 to a block (one lane each, blocks
 * boxed by their vortons) and 8 blocks to the tile. Past the last vorton a
 * block's lanes repeat its first vorton (computed and dropped, who = -1);
 * blocks with no vorton stay inactive. The partition's order, and so every
 * block, is fixed by the vortons alone, never by the worker count. */
static void vorton_tile_blocks(const particle_array *v, const partition *part, int n,
                               tree_tile *tile, int who[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS]) {
    memset(tile, 0, sizeof *tile);
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k) {
        const int first = (n * TREE_TILE_BLOCKS + k) * TREE_BLOCK_POINTS;
        if (first >= v->count) break;
        tree_block *b = &tile->block[k];
        for (int p = 0; p < TREE_BLOCK_POINTS; ++p) {
            const bool inside = first + p < v->count;
            const int i = part->sorted_index[inside ? first + p : first];
            who[k][p] = inside ? i : -1;
            const float q[3] = {v->px[i], v->py[i], v->pz[i]};
            b->qx[p] = q[0];
            b->qy[p] = q[1];
            b->qz[p] = q[2];
            for (int a = 0; a < 3; ++a) {
                b->lo[a] = p ? fmin_det(b->lo[a], q[a]) : q[a];
                b->hi[a] = p ? fmax_det(b->hi[a], q[a]) : q[a];
            }
        }
        for (int a = 0; a < 3; ++a) {
            tile->lo[a] = tile->active ? fmin_det(tile->lo[a], b->lo[a]) : b->lo[a];
            tile->hi[a] = tile->active ? fmax_det(tile->hi[a], b->hi[a]) : b->hi[a];
        }
        tile->active |= 1u << k;
    }
}

/* The gradient's core in vorton radii (the header's design note). */
static const float VORTON_GRADIENT_CORE = 3.0f;

/* The vortons' own walk: the multipole treecode with the vortons' core r (no
 * mollification), each vorton's velocity into v->v*, and in the same walk
 * its velocity gradient with the gradient's core (job->ag, job->cg) into
 * w->vorton_gradient. */
static void vorton_tile_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    eddy_world *w = job->w;
    particle_array *v = &w->vortons;
    for (int n = begin; n < end; ++n) {
        tree_tile tile;
        int who[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        vorton_tile_blocks(v, &w->part, n, &tile, who);
        vec3 u[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        float grad[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS][VORTON_GRADIENT_FLOATS];
        eddy_tree_velocity_gradient_tile(&w->tree, v, &w->part, &tile,
                                         w->def.treecode_opening_angle, job->a, job->c, job->ag,
                                         job->cg, u, grad);
        for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
            if (tile.active >> k & 1u)
                for (int p = 0; p < TREE_BLOCK_POINTS; ++p)
                    if (who[k][p] >= 0) {
                        const int i = who[k][p];
                        v->vx[i] = u[k][p].x;
                        v->vy[i] = u[k][p].y;
                        v->vz[i] = u[k][p].z;
                        memcpy(w->vorton_gradient + VORTON_GRADIENT_FLOATS * (size_t)i,
                               grad[k][p], sizeof grad[k][p]);
                    }
    }
    (void)chunk;
}

static void direct_grid_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    for (int p = begin; p < end; ++p) {
        float q[3];
        point_position(&job->w->grid, p, q);
        job->out[p] = eddy_direct_velocity_at(&job->w->vortons, q[0], q[1], q[2], job->a);
    }
}

static void direct_vorton_chunk(int chunk, int begin, int end, void *context) {
    const velocity_job *job = context;
    particle_array *v = &job->w->vortons;
    const float ag = VORTON_GRADIENT_CORE * job->a;
    const float cg = 1.0f / (VORTON_GRADIENT_CORE * VORTON_GRADIENT_CORE * VORTON_GRADIENT_CORE);
    for (int i = begin; i < end; ++i) {
        float *g = job->w->vorton_gradient + VORTON_GRADIENT_FLOATS * (size_t)i;
        vec3 u = eddy_direct_velocity_and_gradient_at(v, v->px[i], v->py[i], v->pz[i], job->a, ag,
                                                      cg, g);
        v->vx[i] = u.x;
        v->vy[i] = u.y;
        v->vz[i] = u.z;
    }
}

void eddy_phase_velocity_grid(eddy_world *w) {
    if (!w->grid_valid) return;
    const int points = grid_point_count(&w->grid);
    const float r = w->def.vorton_radius;
    if (uses_treecode(w)) {
        const float f = w->mollify;
        velocity_job job = {w, w->velocity, r * f, 1.0f / (f * f * f), 0.0f, 0.0f};
        const grid_shape *g = &w->grid;
        if (w->def.treecode_traversal == EDDY_TREECODE_ORIGINAL) {
            const int blocks = blocks_along(g, 0) * blocks_along(g, 1) * blocks_along(g, 2);
            eddy_parallel_for(&w->tasks, blocks, DESCEND_CHUNK, descend_chunk, &job);
            return;
        }
        const int tiles = tiles_along(g, 0) * tiles_along(g, 1) * tiles_along(g, 2);
        eddy_parallel_for(&w->tasks, tiles, TILE_CHUNK, multipole_chunk, &job);
        if (w->def.velocity_method == EDDY_VELOCITY_TREECODE_VORTONS) {
            const float k = VORTON_GRADIENT_CORE;
            velocity_job at_vortons = {w, NULL, r, 1.0f, k * r, 1.0f / (k * k * k)};
            eddy_parallel_for(&w->tasks, vorton_tiles(w->vortons.count), TILE_CHUNK,
                              vorton_tile_chunk, &at_vortons);
        }
        return;
    }
    velocity_job job = {w, w->velocity, r, 1.0f, 0.0f, 0.0f};
    eddy_parallel_for(&w->tasks, points, DIRECT_CHUNK, direct_grid_chunk, &job);
    if (w->def.velocity_method == EDDY_VELOCITY_DIRECT_VORTONS)
        eddy_parallel_for(&w->tasks, w->vortons.count, DIRECT_CHUNK, direct_vorton_chunk, &job);
}

/* ---------------------------------------------------------------- islands
 * Two or more grid islands (lib/fluid/islands.c): each island's velocity
 * phase walked its own tree. Here each island's grid points add, island by
 * island in order, the velocity of every other island's vortons: a walk of
 * that island's tree with its core (the multipole test takes a far island's
 * root as one cell), over the same tiles as the island's own walk. */
typedef struct island_job {
    eddy_world *w;
    const grid_island *from;
    float a, c;
} island_job;

static void island_tile_chunk(int chunk, int begin, int end, void *context) {
    const island_job *job = context;
    eddy_world *w = job->w;
    for (int n = begin; n < end; ++n) {
        tree_tile tile;
        int point[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        tile_blocks(&w->grid, n, &tile, point);
        vec3 u[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
        eddy_tree_velocity_tile(&job->from->tree, &job->from->vortons, &job->from->part, &tile,
                                w->def.treecode_opening_angle, job->a, job->c, u);
        for (int k = 0; k < TREE_TILE_BLOCKS; ++k)
            if (tile.active >> k & 1u)
                for (int p = 0; p < TREE_BLOCK_POINTS; ++p)
                    if (point[k][p] >= 0) {
                        vec3 *o = &w->velocity[point[k][p]];
                        o->x += u[k][p].x;
                        o->y += u[k][p].y;
                        o->z += u[k][p].z;
                    }
    }
    (void)chunk;
}

void eddy_phase_velocity_islands(eddy_world *w) {
    if (w->island_count < 2) return;
    const float r = w->def.vorton_radius;
    for (int k = 0; k < w->island_count; ++k) {
        eddy_island_swap(w, k);
        if (w->grid_valid) {
            const grid_shape *g = &w->grid;
            const int tiles = tiles_along(g, 0) * tiles_along(g, 1) * tiles_along(g, 2);
            for (int j = 0; j < w->island_count; ++j) {
                const grid_island *from = &w->islands[j];
                if (j == k || !from->grid_valid) continue;
                const float f = from->mollify;
                island_job job = {w, from, r * f, 1.0f / (f * f * f)};
                eddy_parallel_for(&w->tasks, tiles, TILE_CHUNK, island_tile_chunk, &job);
            }
        }
        eddy_island_swap(w, k);
    }
}

/* ---------------------------------------------------------------- far tracers
 * EDDY_GRID_EXTENT_VORTONS: the grid spans the vortons alone, so the step's
 * tracer advection left the tracers outside it where they were (far_flag,
 * lib/fluid/advect.c). Here, with this step's tree, each moves with the
 * velocity the solver gives at the tracer itself: the multipole walk (its
 * tracers in blocks of 8, tiles of 64, as the vortons' own walk), the
 * original traversal or direct summation, with the grid's core (a = f r).
 * Far from the vortons the walk takes the root's expansion, so a tracer a
 * kilometre away costs one cell. The chunks are hash blocks of tracers: a
 * chunk's flagged tracers, in index order, make its blocks, so nothing
 * depends on the worker count; each moved tracer's early hash is stale. */

enum { FAR_CHUNK = EDDY_HASH_BLOCK_PARTICLES, FAR_TILE = TREE_TILE_BLOCKS * TREE_BLOCK_POINTS };

typedef struct far_job {
    eddy_world *w;
    float dt, a, c;
} far_job;

/* The multipole walk at tracers who[0 .. n), n <= FAR_TILE, of the tree of
 * vortons v (core a, circulation factor c). */
static void far_tile(const far_job *job, const influence_tree *tree, const particle_array *v,
                     const partition *part, float core, float c, const int *who, int n, vec3 *u) {
    const eddy_world *w = job->w;
    const particle_array *t = &w->tracers;
    tree_tile tile;
    memset(&tile, 0, sizeof tile);
    for (int k = 0; k < TREE_TILE_BLOCKS; ++k) {
        const int first = k * TREE_BLOCK_POINTS;
        if (first >= n) break;
        tree_block *b = &tile.block[k];
        for (int p = 0; p < TREE_BLOCK_POINTS; ++p) {
            const int i = who[first + p < n ? first + p : first];
            const float q[3] = {t->px[i], t->py[i], t->pz[i]};
            b->qx[p] = q[0];
            b->qy[p] = q[1];
            b->qz[p] = q[2];
            for (int a = 0; a < 3; ++a) {
                b->lo[a] = p ? fmin_det(b->lo[a], q[a]) : q[a];
                b->hi[a] = p ? fmax_det(b->hi[a], q[a]) : q[a];
            }
        }
        for (int a = 0; a < 3; ++a) {
            tile.lo[a] = tile.active ? fmin_det(tile.lo[a], b->lo[a]) : b->lo[a];
            tile.hi[a] = tile.active ? fmax_det(tile.hi[a], b->hi[a]) : b->hi[a];
        }
        tile.active |= 1u << k;
    }
    vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS];
    eddy_tree_velocity_tile(tree, v, part, &tile, w->def.treecode_opening_angle, core, c, out);
    for (int m = 0; m < n; ++m) u[m] = out[m / TREE_BLOCK_POINTS][m % TREE_BLOCK_POINTS];
}

/* Two or more islands: the sum of every island's walk at the tracers, in
 * island order, each with its own core. */
static void far_tile_islands(const far_job *job, const int *who, int n, vec3 *u) {
    const eddy_world *w = job->w;
    const float r = w->def.vorton_radius;
    for (int m = 0; m < n; ++m) u[m] = (vec3){0.0f, 0.0f, 0.0f};
    for (int k = 0; k < w->island_count; ++k) {
        const grid_island *s = &w->islands[k];
        if (!s->grid_valid) continue;
        const float f = s->mollify;
        vec3 part_u[FAR_TILE];
        far_tile(job, &s->tree, &s->vortons, &s->part, r * f, 1.0f / (f * f * f), who, n, part_u);
        for (int m = 0; m < n; ++m) {
            u[m].x += part_u[m].x;
            u[m].y += part_u[m].y;
            u[m].z += part_u[m].z;
        }
    }
}

static void far_chunk(int chunk, int begin, int end, void *context) {
    const far_job *job = context;
    eddy_world *w = job->w;
    particle_array *t = &w->tracers;
    int who[FAR_CHUNK];
    int n = 0;
    for (int i = begin; i < end; ++i)
        if (w->far_flag[i]) who[n++] = i;
    (void)chunk;
    if (n == 0) return;
    vec3 u[FAR_CHUNK];
    if (w->island_count > 1) {
        for (int m = 0; m < n; m += FAR_TILE)
            far_tile_islands(job, who + m, n - m < FAR_TILE ? n - m : FAR_TILE, u + m);
    } else if (!w->grid_valid) {
        for (int m = 0; m < n; ++m) u[m] = (vec3){0.0f, 0.0f, 0.0f};
    } else if (uses_moments(w)) {
        for (int m = 0; m < n; m += FAR_TILE)
            far_tile(job, &w->tree, &w->vortons, &w->part, job->a, job->c, who + m,
                     n - m < FAR_TILE ? n - m : FAR_TILE, u + m);
    } else {
        for (int m = 0; m < n; ++m) {
            const int i = who[m];
            u[m] = uses_treecode(w)
                       ? eddy_tree_velocity_at(&w->tree, t->px[i], t->py[i], t->pz[i], job->a, job->c)
                       : eddy_direct_velocity_at(&w->vortons, t->px[i], t->py[i], t->pz[i], job->a);
        }
    }
    const float dt = job->dt, wx = w->wind.x, wy = w->wind.y, wz = w->wind.z;
    for (int m = 0; m < n; ++m) {
        const int i = who[m];
        const float ux = u[m].x + wx, uy = u[m].y + wy, uz = u[m].z + wz;
        t->vx[i] = ux;
        t->vy[i] = uy;
        t->vz[i] = uz;
        t->drho[i] = 0.0f; /* no rho' beyond the vortons' grid */
        t->px[i] = t->px[i] + ux * dt;
        t->py[i] = t->py[i] + uy * dt;
        t->pz[i] = t->pz[i] + uz * dt;
        eddy_early_hash_stale(w, i);
    }
}

void eddy_phase_advect_far_tracers(eddy_world *w, float dt) {
    if (!w->far_any) return;
    const float r = w->def.vorton_radius, f = w->grid_valid && uses_treecode(w) ? w->mollify : 1.0f;
    far_job job = {w, dt, r * f, 1.0f / (f * f * f)};
    eddy_parallel_for(&w->tasks, w->far_count, FAR_CHUNK, far_chunk, &job);
    w->far_any = false;
}
