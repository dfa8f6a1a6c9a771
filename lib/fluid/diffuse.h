/* SPDX-License-Identifier: MIT */
/* Internal to the PSE diffusion (lib/fluid/diffuse.c): the job, the homes, and the
 * exchange of one cell's homes with their neighbourhood, built once per lane
 * width: four lanes (lib/fluid/diffuse.c: SSE2, NEON or plain C) and eight
 * (lib/fluid/diffuse_avx2.c, x86-64 CPUs with AVX2). Both give the same bits: every
 * lane does the scalar operations, the sums run in visiting order. */
#ifndef EDDY_DIFFUSE_H
#define EDDY_DIFFUSE_H

#include "fluid/fluid.h"

/* Neighbours packed per batch (a multiple of the lane count), the segments
 * (runs, or parts of runs) a batch may hold, and the homes of one cell
 * handled together. */
enum { PSE_BATCH = 128, PSE_SEGMENTS = 9, PSE_HOMES = 16 };

/* Arrays of the partition-order copy: x, y, z, wx, wy, wz, rho'; each is
 * followed by PSE_PAD zeroed floats that the last lanes may read. */
enum { PSE_ARRAYS = 7, PSE_PAD = 8 }; /* the widest lanes */

typedef struct pse_sorted {
    const float *x, *y, *z, *wx, *wy, *wz, *rho;
} pse_sorted;

/* The exchange sums of one vorton H: its position and values, and the
 * running sums over its neighbours. */
typedef struct pse_home {
    int self; /* H's sorted position */
    float x, y, z;
    float wx, wy, wz, rho;
    float dwx, dwy, dwz, dr;
} pse_home;

struct pse_job;
/* The exchange of homes[0 .. count), all in cell c, with its neighbourhood. */
typedef void pse_cell_fn(const struct pse_job *job, const int c[3], pse_home *homes, int count);

typedef struct pse_job {
    eddy_world *w;
    pse_sorted s;
    pse_cell_fn *cell; /* the widest build the CPU runs */
    float neg_inv_s2; /* -1 / s^2: d2 (-1/s^2) has the bits of (-d2) (1/s^2) */
    float nu2dt, kappa2dt;
    float keep_w, keep_rho; /* 1 - rate dt */
} pse_job;

/* Weight of the exchange along the pair's axis (lib/fluid/diffuse.c). */
static const float PSE_AXIAL_WEIGHT = 5.0f;

void eddy_pse_cell_lanes4(const pse_job *job, const int c[3], pse_home *homes, int count);
void eddy_pse_cell_avx2(const pse_job *job, const int c[3], pse_home *homes, int count);

/* The phase with a given build of the cell exchange (eddy_phase_diffuse
 * takes the widest the CPU runs), and the eight-lane build where this build
 * has it and the CPU runs it (else NULL). For tests/test_diffuse.c. */
void eddy_phase_diffuse_using(eddy_world *w, float dt, pse_cell_fn *cell);
pse_cell_fn *eddy_pse_cell_avx2_if_available(void);

#endif
