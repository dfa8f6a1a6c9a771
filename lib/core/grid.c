/* SPDX-License-Identifier: MIT */
/* Uniform grids: sizing without libm, cell lookup, trilinear interpolation.
 *
 * eddy_grid_define follows the original demo's DefineShape (cells ~ target count,
 * power of two per axis, fewer than 8x target) but takes the target cell edge
 * from eddy_cbrtf instead of powf, so the integer cell counts are the same on
 * every machine (a 1-ulp difference in powf could change the grid). */
#include "core/core.h"

static int next_pow2(int n) {
    int p = 1;
    while (p < n && p < (1 << 20)) p <<= 1;
    return p;
}

static int cells_along(float extent, float edge) {
    if (!(extent > 0.0f)) return 1;
    float n = extent / edge + 0.5f;
    if (!(n < 1048576.0f)) return 1 << 20; /* also catches NaN/inf */
    int c = (int)n;
    return c < 1 ? 1 : c;
}

void eddy_grid_define(grid_shape *g, const float lo[3], const float hi[3], int target_cells) {
    if (target_cells < 1) target_cells = 1;
    float volume = 1.0f;
    int dims = 0;
    for (int a = 0; a < 3; ++a) {
        g->min[a] = lo[a];
        g->extent[a] = (hi[a] - lo[a]) * (1.0f + EDDY_FLT_EPSILON);
        if (g->extent[a] > 0.0f) {
            volume *= g->extent[a];
            ++dims;
        }
    }
    float per_cell = volume / (float)target_cells;
    float edge = dims == 3 ? eddy_cbrtf(per_cell) : dims == 2 ? sqrtf(per_cell) : per_cell;
    int64_t product = 1;
    for (int a = 0; a < 3; ++a) {
        g->cells[a] = next_pow2(cells_along(g->extent[a], edge));
        product *= g->cells[a];
    }
    while (product >= 8 * (int64_t)target_cells && product > 1) {
        product = 1;
        for (int a = 0; a < 3; ++a) {
            if (g->cells[a] > 1) g->cells[a] >>= 1;
            product *= g->cells[a];
        }
    }
    for (int a = 0; a < 3; ++a) {
        g->points[a] = g->cells[a] + 1;
        g->spacing[a] = g->extent[a] / (float)g->cells[a];
        g->inv_spacing[a] = g->extent[a] > 0.0f ? (float)g->cells[a] / g->extent[a] : 0.0f;
    }
}

/* The cubic grid's nodes lie at c + (k + 1/4) edge along each axis, c the
 * middle of [lo, hi], k any integer: the lattice is fixed to the box's
 * middle, not to its low corner, so when the box grows by enough for one
 * more cell the new cell is added at that side and every other node stays
 * where it was (see core.h). The first and last nodes taken are the ones
 * that leave at least a quarter cell beyond lo and hi. Exact float steps:
 * the same counts on every machine. */
static void cubic_axis(float lo, float hi, float edge, int *cells, float *first) {
    const float c = 0.5f * lo + 0.5f * hi;
    const float u = (lo - c) / edge - 0.5f, v = (hi - c) / edge;
    *first = c - 0.75f * edge;
    if (u != u || v != v || !(edge < 1e29f)) { /* NaN, or no edge: one cell */
        *cells = 1;
        return;
    }
    if (!(u > -262144.0f && v < 262144.0f)) { /* more cells than any grid takes */
        *cells = 1 << 20;
        return;
    }
    /* k + 1/4 <= (lo - c)/edge - 1/4 for the first node, k + 1/4 >= (hi - c)/edge
     * + 1/4 for the last; floor and ceil by a cast, exact below 2^23 */
    const int below = (int)u - ((float)(int)u > u);
    const int above = (int)v + ((float)(int)v < v);
    *cells = above - below > 1 ? above - below : 1;
    *first = c + ((float)below + 0.25f) * edge;
}

void eddy_grid_define_cubic(grid_shape *g, const float lo[3], const float hi[3], float edge,
                            int64_t max_cells) {
    if (max_cells < 1) max_cells = 1;
    if (!(edge > 0.0f && edge < 1e30f)) edge = 1e30f; /* one cell: never loops */
    float first[3];
    for (;;) {
        int64_t product = 1;
        for (int a = 0; a < 3; ++a) {
            cubic_axis(lo[a], hi[a], edge, &g->cells[a], &first[a]);
            product *= g->cells[a];
        }
        if (product <= max_cells || product == 1 || !(edge < 1e29f)) break;
        edge *= 2.0f;
    }
    for (int a = 0; a < 3; ++a) {
        g->extent[a] = (float)g->cells[a] * edge;
        g->min[a] = first[a];
        g->points[a] = g->cells[a] + 1;
        g->spacing[a] = edge;
        g->inv_spacing[a] = 1.0f / edge;
    }
}

int eddy_grid_cell_bound(int target_cells) {
    /* Beyond 2^18 cells (over 65,536 vortons) no bound: the worst-case
     * grid, up to 4x the points of a cubic one, would cost too much memory
     * for nothing; the arrays grow to need only, as before. */
    enum { LARGEST = 1 << 18 };
    if (target_cells < 1) target_cells = 1;
    const int64_t limit = 8 * (int64_t)target_cells; /* eddy_grid_define: product < limit */
    int64_t p = 1;
    while (2 * p < limit && p < LARGEST) p *= 2;
    return 2 * p < limit ? 0 : (int)p;
}

int eddy_grid_point_bound(int target_cells) {
    const int p = eddy_grid_cell_bound(target_cells);
    return p > 0 ? 4 * p + 4 : 0; /* (P + 1) * 2 * 2 is the most of (a+1)(b+1)(c+1), abc <= P */
}

/* The parent layer with the axes in `halve` (bit a: axis a) halved. */
static void coarsen_axes(grid_shape *parent, const grid_shape *child, unsigned halve) {
    for (int a = 0; a < 3; ++a) {
        const int c = child->cells[a];
        const bool halved = (halve >> a & 1u) && c > 1;
        parent->min[a] = child->min[a];
        parent->cells[a] = halved ? (c + 1) / 2 : c;
        parent->points[a] = parent->cells[a] + 1;
        if (halved && c % 2 != 0) {
            /* an odd count (the cubic grid's): the last parent cell holds one
             * child and reaches a child cell past the layer below */
            parent->spacing[a] = 2.0f * child->spacing[a];
            parent->extent[a] = parent->spacing[a] * (float)parent->cells[a];
        } else {
            parent->extent[a] = child->extent[a];
            parent->spacing[a] = parent->extent[a] / (float)parent->cells[a];
        }
        parent->inv_spacing[a] =
            parent->extent[a] > 0.0f ? (float)parent->cells[a] / parent->extent[a] : 0.0f;
    }
}

void eddy_grid_decimate(grid_shape *parent, const grid_shape *child) {
    coarsen_axes(parent, child, 7u);
}

/* Halve the axes whose cells are clearly shorter (under 3/4) than the longest
 * cell edge among the axes still split; when none is, halve every axis. A
 * grid of 2:1 cells (16x16x32 over a near cube) thus gets cubic cells from
 * its first parent on, and every level above stays cubic. */
void eddy_grid_coarsen_cubic(grid_shape *parent, const grid_shape *child) {
    float longest = 0.0f;
    for (int a = 0; a < 3; ++a)
        if (child->cells[a] > 1 && child->spacing[a] > longest) longest = child->spacing[a];
    unsigned halve = 0;
    for (int a = 0; a < 3; ++a)
        if (child->cells[a] > 1 && child->spacing[a] < 0.75f * longest) halve |= 1u << a;
    coarsen_axes(parent, child, halve ? halve : 7u);
}

/* ---------------------------------------------------------------- islands
 * The swap and the lookups over the grid islands (lib/fluid/islands.c). */
#define ISLAND_SWAP(x, y)                                                                          \
    do {                                                                                           \
        unsigned char t_[sizeof(x)];                                                               \
        _Static_assert(sizeof(x) == sizeof(y), "same field");                                     \
        memcpy(t_, &(x), sizeof t_);                                                               \
        memcpy(&(x), &(y), sizeof t_);                                                             \
        memcpy(&(y), t_, sizeof t_);                                                               \
    } while (0)

void eddy_island_swap(eddy_world *w, int k) {
    grid_island *s = &w->islands[k];
    ISLAND_SWAP(w->vortons, s->vortons);
    ISLAND_SWAP(w->grid, s->grid);
    ISLAND_SWAP(w->grid_valid, s->grid_valid);
    ISLAND_SWAP(w->mollify, s->mollify);
    ISLAND_SWAP(w->tree, s->tree);
    ISLAND_SWAP(w->part, s->part);
    ISLAND_SWAP(w->velocity, s->velocity);
    ISLAND_SWAP(w->flow, s->flow);
    ISLAND_SWAP(w->jacobian, s->jacobian);
    ISLAND_SWAP(w->density, s->density);
    ISLAND_SWAP(w->density_gradient, s->density_gradient);
    ISLAND_SWAP(w->grid_point_capacity, s->grid_point_capacity);
}

int eddy_island_holding(const eddy_world *w, float x, float y, float z) {
    for (int k = 0; k < w->island_count; ++k)
        if (w->islands[k].grid_valid && grid_contains(&w->islands[k].grid, x, y, z)) return k;
    return -1;
}

int eddy_island_nearest(const eddy_world *w, float x, float y, float z) {
    int best = -1;
    float best_d = 0.0f;
    for (int k = 0; k < w->island_count; ++k) {
        const grid_shape *g = &w->islands[k].grid;
        if (!w->islands[k].grid_valid) continue;
        const float q[3] = {x, y, z};
        float d = 0.0f;
        for (int a = 0; a < 3; ++a) {
            const float top = g->min[a] + g->extent[a];
            const float out = q[a] < g->min[a] ? g->min[a] - q[a] : q[a] > top ? q[a] - top : 0.0f;
            d += out * out;
        }
        if (best < 0 || d < best_d) {
            best = k;
            best_d = d;
        }
    }
    return best;
}

const grid_shape *eddy_sample_grid(const eddy_world *w, float x, float y, float z, int *island) {
    *island = -1;
    if (w->island_count < 2) return w->grid_valid ? &w->grid : NULL;
    *island = eddy_island_holding(w, x, y, z);
    return *island < 0 ? NULL : &w->islands[*island].grid;
}

float eddy_grid_cell_near(const eddy_world *w, vec3 p) {
    const grid_shape *g = &w->grid;
    if (w->island_count > 1) {
        const int k = eddy_island_nearest(w, p.x, p.y, p.z);
        if (k < 0) return 0.0f;
        g = &w->islands[k].grid;
    } else if (!w->grid_valid) {
        return 0.0f;
    }
    return fmax_det(g->spacing[0], fmax_det(g->spacing[1], g->spacing[2]));
}
