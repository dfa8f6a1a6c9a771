/* SPDX-License-Identifier: MIT */
/* Vortons sorted by grid cell: a stable counting sort (ties by vorton index).
 *
 * Every gather in the solver (supervortons, density to grid, PSE) walks cells
 * in a fixed order and, within a cell, vortons in ascending index: that order
 * is a function of the state alone, never of the worker count.
 *
 * The cell of each vorton is found in parallel (fixed chunks, each writing
 * its own vortons' slots); the count, the prefix sum and the placement are
 * serial and integer-only, so the result is the same for any worker count.
 * Placement walks the vortons from the last to the first, each taking the
 * last free slot of its cell: a cell's vortons end up in ascending index and
 * each cell's counter ends at the cell's start, with no pass to shift the
 * ends back. */
#include "fluid/fluid.h"

#include <stdlib.h>

enum { PARTITION_CHUNK = 1024 };

static bool reserve_ints(int **p, int *capacity, int n) {
    if (n <= *capacity) return true;
    n = eddy_grown_capacity(*capacity, n);
    int *q = eddy_realloc(*p, (size_t)n * sizeof *q);
    if (!q) return false;
    *p = q;
    *capacity = n;
    return true;
}

typedef struct cell_job {
    const grid_shape *g;
    const particle_array *v;
    int *cell_of;
} cell_job;

static void cell_chunk(int chunk, int begin, int end, void *context) {
    (void)chunk;
    const cell_job *job = context;
    const grid_shape *g = job->g;
    const particle_array *v = job->v;
    for (int i = begin; i < end; ++i) {
        int idx[3];
        grid_cell_of(g, v->px[i], v->py[i], v->pz[i], idx);
        job->cell_of[i] = idx[0] + g->cells[0] * (idx[1] + g->cells[1] * idx[2]);
    }
}

bool eddy_partition_build(partition *part, task_system *ts, const grid_shape *g,
                          const particle_array *v) {
    const int cells = grid_cell_count(g);
    const int count = v->count > 0 ? v->count : 1;
    /* room for any grid of this vorton count (core/core.h, eddy_grid_cell_bound) */
    const int bound = eddy_grid_cell_bound(v->count);
    if (!reserve_ints(&part->cell_start, &part->cell_capacity, (cells > bound ? cells : bound) + 1))
        return false;
    if (!reserve_ints(&part->sorted_index, &part->index_capacity, count)) return false;
    if (!reserve_ints(&part->cell_of, &part->cell_of_capacity, count)) return false;
    cell_job job = {g, v, part->cell_of};
    if (ts)
        eddy_parallel_for(ts, v->count, PARTITION_CHUNK, cell_chunk, &job);
    else
        cell_chunk(0, 0, v->count, &job);
    int *start = part->cell_start;
    memset(start, 0, (size_t)(cells + 1) * sizeof *start);
    for (int i = 0; i < v->count; ++i) ++start[part->cell_of[i]];
    for (int c = 1; c < cells; ++c) start[c] += start[c - 1]; /* start[c]: end of cell c */
    for (int i = v->count - 1; i >= 0; --i) part->sorted_index[--start[part->cell_of[i]]] = i;
    start[cells] = v->count;
    return true;
}

bool eddy_partition_reserve(partition *part, int vortons) {
    const int count = vortons > 0 ? vortons : 1;
    const int bound = eddy_grid_cell_bound(vortons);
    return reserve_ints(&part->cell_start, &part->cell_capacity, bound + 1) &&
           reserve_ints(&part->sorted_index, &part->index_capacity, count) &&
           reserve_ints(&part->cell_of, &part->cell_of_capacity, count);
}

void eddy_partition_free(partition *part) {
    eddy_free(part->cell_start);
    eddy_free(part->sorted_index);
    eddy_free(part->cell_of);
    memset(part, 0, sizeof *part);
}
