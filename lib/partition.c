/* SPDX-License-Identifier: MIT */
/* Vortons sorted by grid cell: a stable counting sort (ties by vorton index).
 *
 * Every gather in the solver (supervortons, density to grid, PSE) walks cells
 * in a fixed order and, within a cell, vortons in ascending index: that order
 * is a function of the state alone, never of the worker count. */
#include "core.h"

#include <stdlib.h>

static bool reserve_ints(int **p, int *capacity, int n) {
    if (n <= *capacity) return true;
    int *q = realloc(*p, (size_t)n * sizeof *q);
    if (!q) return false;
    *p = q;
    *capacity = n;
    return true;
}

bool eddy_partition_build(partition *part, const grid_shape *g, const particle_array *v) {
    const int cells = grid_cell_count(g);
    if (!reserve_ints(&part->cell_start, &part->cell_capacity, cells + 1)) return false;
    if (!reserve_ints(&part->sorted_index,
                      &part->index_capacity, v->count > 0 ? v->count : 1))
        return false;
    int *start = part->cell_start;
    memset(start, 0, (size_t)(cells + 1) * sizeof *start);
    /* Count into start[c + 1], prefix-sum, then place in index order. The
     * cell of each vorton is recomputed (cheap) rather than stored. */
    for (int i = 0; i < v->count; ++i) {
        int idx[3];
        grid_cell_of(g, v->px[i], v->py[i], v->pz[i], idx);
        ++start[idx[0] + g->cells[0] * (idx[1] + g->cells[1] * idx[2]) + 1];
    }
    for (int c = 0; c < cells; ++c) start[c + 1] += start[c];
    for (int i = 0; i < v->count; ++i) {
        int idx[3];
        grid_cell_of(g, v->px[i], v->py[i], v->pz[i], idx);
        int c = idx[0] + g->cells[0] * (idx[1] + g->cells[1] * idx[2]);
        part->sorted_index[start[c]++] = i;
    }
    /* start[c] now holds the end of cell c; shift back to starts. */
    for (int c = cells; c > 0; --c) start[c] = start[c - 1];
    start[0] = 0;
    return true;
}

void eddy_partition_free(partition *part) {
    free(part->cell_start);
    free(part->sorted_index);
    memset(part, 0, sizeof *part);
}
