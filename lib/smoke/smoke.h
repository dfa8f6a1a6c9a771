/* SPDX-License-Identifier: MIT */
/* Internal, layer smoke (docs/architecture.md): the smoke volume's storage,
 * shared by its accumulation (volume.c) and the sight queries (sight.c).
 * Never installed; the API is include/eddy/smoke.h. */
#ifndef EDDY_SMOKE_INTERNAL_H
#define EDDY_SMOKE_INTERNAL_H

#include "core/core.h"
#include "eddy/smoke.h"

/* A tracer in the update's sort: voxel coordinates and its bin's x and y. */
typedef struct eddy_smoke_grouped {
    float u, v, w;
    int xy; /* bx | by << 16 (extended bin indices, each in [0, n]) */
} eddy_smoke_grouped;

struct eddy_smoke_volume {
    eddy_smoke_volume_def def;
    int n[3];              /* voxels per axis */
    float min[3];
    float h[3];            /* voxel edges */
    float inv_h[3];
    float inv_cell_volume; /* 1 / (hx hy hz) */
    float *density;        /* n[0] n[1] n[2], x fastest */
    int64_t frame;         /* world frame of the last update, -1 before */
    int tracer_count;      /* tracers that reached a voxel at the last update */
    /* scratch of the update (volume.c's design note): the tracers grouped
     * by bin plane (coordinates and bin in the plane), the bins' starts,
     * the coordinates in sorted order */
    struct eddy_smoke_grouped *grouped;
    int grouped_capacity;  /* tracers grouped and sorted hold */
    int *bin_start;        /* bins + 1 */
    /* the tracers in sorted order: the gather reads them front to back */
    struct eddy_smoke_grouped *sorted;
    float *slab_pad;       /* the gather's padded slabs, one per slab */
    int *sort_scratch;     /* per chunk and plane counts, plane starts */
    int sort_capacity;
};

void eddy_smoke_set_error(const char *format, ...) EDDY_PRINTF_LIKE(1, 2);

/* Voxel coordinate of a world coordinate on axis a: 0 at the first centre. */
static inline float eddy_smoke_voxel_coord(const eddy_smoke_volume *v, int a, float p) {
    return (p - v->min[a]) * v->inv_h[a] - 0.5f;
}

#endif
