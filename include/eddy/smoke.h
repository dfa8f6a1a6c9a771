/* SPDX-License-Identifier: MIT */
/* eddy — smoke for gameplay: a density volume accumulated from the tracers
 * and sight queries through it (docs/gameplay.md).
 *
 * Both are functions of the world's state only (tracer positions), computed
 * in fixed chunks with no sum whose order depends on the worker count, so
 * every peer of a lockstep or rollback game, and the server, get the same
 * bits from the same frame. Neither changes the world: a volume is the
 * caller's object, never hashed, snapshotted or recorded.
 *
 * Kernel. Voxel (i, j, k) of a volume over [min_corner, max_corner] with
 * resolution (nx, ny, nz) has edges h = (max - min) / n and centre
 * c = min + (i + 1/2, j + 1/2, k + 1/2) h. Its density is
 *     rho(c) = sum over tracers t of  A * W(x_t - c) / (hx hy hz),
 *     W(d) = (1 - |dx|/hx)+ (1 - |dy|/hy)+ (1 - |dz|/hz)+
 * (the cloud-in-cell tent: each tracer spreads its amount A =
 * tracer_amount over the 8 voxel centres around it, weights summing to 1).
 * So rho is smoke amount per cubic metre and its integral over the volume is
 * A times the tracers whose 8 centres all lie inside. Each voxel sums its
 * tracers by a gather over tracers counting-sorted by cell (ties by tracer
 * index): the same float additions in the same order for any worker count.
 *
 * Sight. Between voxel centres density is trilinear; outside the centres'
 * box it falls linearly to 0 over half a voxel (voxels beyond the region
 * count as empty). Transmittance of a segment is Beer-Lambert,
 * T = exp(-sigma * integral of rho ds), with sigma the caller's extinction
 * (m^2 per unit of smoke amount), the integral by the midpoint rule over
 * ceil(L / h_min) equal steps (one sample per shortest voxel edge), and exp
 * by eddy_expf. */
#ifndef EDDY_SMOKE_H
#define EDDY_SMOKE_H

#include "eddy.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EDDY_SMOKE_MAX_RESOLUTION = 1024, EDDY_SMOKE_MAX_VOXELS = 1 << 27 };

typedef struct eddy_smoke_volume_def {
    eddy_vec3 min_corner;      /* region, world metres; max > min on every axis */
    eddy_vec3 max_corner;
    int resolution[3];         /* voxels per axis, [1, EDDY_SMOKE_MAX_RESOLUTION],
                                  product <= EDDY_SMOKE_MAX_VOXELS (default 64^3) */
    float tracer_amount;       /* smoke each tracer carries, > 0 (default 1) */
} eddy_smoke_volume_def;

/* Region [-1, 1]^3, 64^3 voxels, tracer_amount 1. */
EDDY_API eddy_smoke_volume_def eddy_smoke_volume_def_default(void);

typedef struct eddy_smoke_volume eddy_smoke_volume;

/* Message for the last failed smoke call on this thread (or ""). */
EDDY_API const char *eddy_smoke_error_message(void);

/* EDDY_ERROR_INVALID_DEF (or EDDY_ERROR_NAN) for a bad def, with
 * eddy_smoke_error_message() naming the field; EDDY_ERROR_OUT_OF_MEMORY. */
EDDY_API eddy_status eddy_smoke_volume_create(const eddy_smoke_volume_def *def,
                                              eddy_smoke_volume **out);
EDDY_API void eddy_smoke_volume_destroy(eddy_smoke_volume *volume); /* accepts NULL */
EDDY_API eddy_smoke_volume_def eddy_smoke_volume_get_def(const eddy_smoke_volume *volume);

/* Accumulate the world's tracers as they are now (frame eddy_world_frame)
 * into the volume, replacing what it held. Runs on the world's workers (its
 * pool or the game's task system, as a step does) in the world's canonical
 * FP mode; call it where you would call eddy_world_step, not during one. */
EDDY_API eddy_status eddy_smoke_volume_update(eddy_smoke_volume *volume, const eddy_world *world);

/* Densities, x fastest: voxel (i, j, k) at i + nx (j + ny k). Valid until the
 * next update or destroy. Before the first update every voxel is 0. */
EDDY_API const float *eddy_smoke_volume_density(const eddy_smoke_volume *volume);
/* Frame of the world at the last update (-1 before the first). */
EDDY_API int64_t eddy_smoke_volume_frame(const eddy_smoke_volume *volume);
/* Tracers that reached at least one voxel at the last update. */
EDDY_API int eddy_smoke_volume_tracer_count(const eddy_smoke_volume *volume);

/* XXH3-64 of the resolution, the region's floats and every density's bits
 * (little-endian, x fastest): equal on every peer that has the same frame. */
EDDY_API uint64_t eddy_smoke_volume_hash(const eddy_smoke_volume *volume);

/* Density at a point: trilinear between voxel centres (the sight kernel). */
EDDY_API float eddy_smoke_volume_sample(const eddy_smoke_volume *volume, eddy_vec3 point);

/* Opacity of each voxel for a ray crossing it along its shortest edge:
 * out[v] = 1 - eddy_expf(-extinction * density[v] * h_min), same order as
 * the densities. out holds nx ny nz floats. */
EDDY_API eddy_status eddy_smoke_volume_opacity(const eddy_smoke_volume *volume, float extinction,
                                               float *out);

typedef struct eddy_sight_segment {
    eddy_vec3 from, to;
} eddy_sight_segment;

/* Transmittance of each segment, out[s] in [0, 1] (1: clear sight), by
 * Beer-Lambert with extinction sigma >= 0 (m^2 per unit amount: optical
 * depth = sigma * integral of density). Segments are split across the
 * world's workers in fixed chunks; each segment is one serial march, so the
 * bits do not depend on the worker count. world gives the workers and FP
 * mode; it may be NULL (then the calling thread, in the canonical mode of a
 * world that keeps denormals). optical_depth may be NULL; else it receives
 * sigma * integral. EDDY_ERROR_INVALID_ARGUMENT for NULL arrays, count < 0,
 * a negative or non-finite extinction; EDDY_ERROR_NAN for a non-finite
 * endpoint (eddy_smoke_error_message() says which segment). */
EDDY_API eddy_status eddy_smoke_transmittance(const eddy_world *world,
                                              const eddy_smoke_volume *volume, float extinction,
                                              const eddy_sight_segment *segments, int count,
                                              float *transmittance, float *optical_depth);

#ifdef __cplusplus
}
#endif
#endif
