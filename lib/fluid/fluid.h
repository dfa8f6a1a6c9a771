/* SPDX-License-Identifier: MIT */
/* Internal, layer fluid (docs/architecture.md): the fluid's phases and what
 * they are built of: emission, the grid and its partition, the influence
 * tree and its walks, velocity, stretching, density, diffusion, advection
 * and the diagnostics. Never installed. */
#ifndef EDDY_FLUID_H
#define EDDY_FLUID_H

#include "core/core.h"

/* Step phases (one file each). */
bool eddy_phase_emit(eddy_world *w);                /* false: out of memory */
void eddy_phase_advect_tracers(eddy_world *w, float dt);
bool eddy_phase_build_grid(eddy_world *w);          /* bounds, grid, partition, tree */
void eddy_phase_velocity_grid(eddy_world *w);
/* The tracers the step's advection left outside the flow grid (far_flag),
 * moved with the velocity solver's value at each of them (velocity.c). */
void eddy_phase_advect_far_tracers(eddy_world *w, float dt);
void eddy_phase_stretch(eddy_world *w, float dt);
bool eddy_phase_density(eddy_world *w, float dt);
/* The density phase of this step will update vorticity and re-aggregate the
 * influence tree (gravity, or a container's frame accelerates). */
bool eddy_density_rebuilds_tree(const eddy_world *w);
void eddy_phase_pack_flow(eddy_world *w);
void eddy_phase_density_grid(eddy_world *w); /* the rho' grid alone (Heun's second solve) */
bool eddy_phase_build_grid_and_tree(eddy_world *w); /* build_grid, the tree always built */
bool eddy_phase_build_tree(eddy_world *w); /* tree (and multipole moments) over the partition */

bool eddy_phase_diffuse(eddy_world *w, float dt); /* false: unstable (message set) */
bool eddy_pse_reserve(eddy_world *w, int vortons); /* diffusion's own scratch */
void eddy_pse_lists_free(eddy_world *w);          /* the normalised exchange's pair lists */
/* Room ahead of a step (eddy_world_reserve, the step's prelude in lib/world.c;
 * false: out of memory, nothing of the state changed): the pair lists of
 * `vortons` vortons at `pairs_per_vorton` pairs each; the partition and the
 * tree of any grid of that vorton count; the far tracers' flags. */
bool eddy_pse_lists_reserve(eddy_world *w, int vortons, int pairs_per_vorton);
bool eddy_partition_reserve(partition *part, int vortons);
bool eddy_tree_reserve(influence_tree *t, int vortons, bool moments);
bool eddy_far_flags_reserve(eddy_world *w, int tracers);
/* The room the fluid phases take in the chunk partials (eddy_partials_reserve)
 * for these counts and grid points. */
size_t eddy_fluid_partials_bytes(int vortons, int tracers);
/* The most vortons this input's bullets' wakes add (blast.c). */
int eddy_bullet_wakes_bound(const eddy_input *in);
/* Whether the velocity solve takes multipole moments (velocity.c). */
bool eddy_fluid_uses_moments(const eddy_world *w);
/* Grid islands (lib/fluid/islands.c). */
bool eddy_islands_find(eddy_world *w); /* false: out of memory */
bool eddy_islands_reserve_order(eddy_world *w, int n);
void eddy_islands_scatter(eddy_world *w);
void eddy_islands_free(eddy_world *w);
/* With two or more islands: every island's grid points add the other
 * islands' velocity (lib/fluid/velocity.c). */
void eddy_phase_velocity_islands(eddy_world *w);
void eddy_phase_advect_vortons(eddy_world *w, float dt);
void eddy_phase_diagnostics(eddy_world *w);

/* Blasts and bullets (blast.c): the input's check and application, the
 * pushes each substep runs after the advections, the blasts' clock. */
eddy_status eddy_impulses_validate(eddy_world *w, const eddy_input *in);
bool eddy_blasts_add(eddy_world *w, const eddy_blast *blasts, int count); /* false: out of memory */
bool eddy_bullets_add_wakes(eddy_world *w, const eddy_bullet *bullets, int count);
void eddy_phase_blast_tracers(eddy_world *w, float dt);
void eddy_phase_blast_vortons(eddy_world *w, float dt);
void eddy_phase_bullet_tracers(eddy_world *w);
void eddy_phase_bullet_vortons(eddy_world *w);
void eddy_blasts_advance(eddy_world *w, float dt);

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
/* Bounding box of the vortons (and the tracers, with_tracers) by chunk + fixed reduction tree (bounds.c).
 * Returns false when there are no particles. */
bool eddy_particles_bounds(eddy_world *w, float lo[3], float hi[3], bool with_tracers);
/* The volume of the box whose second moments are the vortons' (12^(3/2)
 * sqrt(det C)), each vorton spread over a cube of edge `blob`: the same for
 * any rotation of the vortons (and any worker count). */
float eddy_vortons_spread_volume(eddy_world *w, const float centre[3], float blob);
/* (-1: out of scratch memory.) */

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

/* The same velocity, and the gradient of the field with core ag and
 * circulation factor cg (rows d/dx, d/dy, d/dz), at q (lib/fluid/kernel.c):
 * EDDY_VELOCITY_DIRECT_VORTONS at the vortons. */
vec3 eddy_direct_velocity_and_gradient_at(const particle_array *v, float qx, float qy, float qz,
                                          float a, float ag, float cg, float g[9]);

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
/* The same walk with each point's velocity gradient too, of the field with
 * core ag and circulation factor cg: gradient[k][p][3 a + b] = du_b/dq_a
 * (lib/fluid/tree_walk.h). The velocity is eddy_tree_velocity_tile's to the
 * bit, and the builds give the same bits, as above. */
#define EDDY_TREE_GRADIENT_WALK_ARGS                                                          \
    const influence_tree *t, const particle_array *v, const partition *part,                  \
        const tree_tile *tile, float theta, float a, float c, float ag, float cg,             \
        vec3 out[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS],                                        \
        float gradient[TREE_TILE_BLOCKS][TREE_BLOCK_POINTS][9]
void eddy_tree_velocity_gradient_tile(EDDY_TREE_GRADIENT_WALK_ARGS);
void eddy_tree_velocity_gradient_tile_lanes4(EDDY_TREE_GRADIENT_WALK_ARGS);
void eddy_tree_velocity_gradient_tile_plain(EDDY_TREE_GRADIENT_WALK_ARGS);
void eddy_tree_velocity_gradient_tile_avx(EDDY_TREE_GRADIENT_WALK_ARGS);
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

/* Bytes of partials the stretching phase needs for that many vortons. */
size_t eddy_stretch_partials_bytes(int vortons);
size_t eddy_diagnostics_partials_bytes(int vortons);

#endif
