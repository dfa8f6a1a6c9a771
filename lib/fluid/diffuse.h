/* SPDX-License-Identifier: MIT */
/* Internal to the PSE diffusion (lib/fluid/diffuse.c): the job, the homes, and the
 * exchange of one cell's homes with their neighbourhood, built once per lane
 * width: four lanes (lib/fluid/diffuse.c: SSE2, NEON or plain C) and eight
 * (lib/fluid/diffuse_avx2.c, x86-64 CPUs with AVX2). Both give the same bits: every
 * lane does the scalar operations, the sums run in visiting order. */
#ifndef EDDY_DIFFUSE_H
#define EDDY_DIFFUSE_H

#include "fluid/fluid.h"

/* The farthest a neighbourhood reaches, in cells along each axis from the
 * home's cell (EDDY_DIFFUSION_NORMALISED: the cut-off radius in cells,
 * rounded up, at most this; EDDY_DIFFUSION_SEED: 1), and the runs of x-cells
 * it is made of. */
enum { PSE_MAX_REACH = 3, PSE_MAX_RUNS = (2 * PSE_MAX_REACH + 1) * (2 * PSE_MAX_REACH + 1) };

/* Neighbours packed per batch (a multiple of the lane count), the segments
 * (runs, or parts of runs) a batch may hold, and the homes of one cell
 * handled together. */
enum { PSE_BATCH = 128, PSE_SEGMENTS = PSE_MAX_RUNS, PSE_HOMES = 16 };

/* Arrays of the partition-order copy: x, y, z, wx, wy, wz, rho', and the
 * normalisation g = 6 / M of each vorton (EDDY_DIFFUSION_NORMALISED, written
 * by the moments pass) and its stability figure a = 6 S / M; each is followed
 * by PSE_PAD zeroed floats that the last lanes may read. */
enum { PSE_ARRAYS = 9, PSE_PAD = 8 }; /* the widest lanes */
/* The records' alignment, in floats (32 bytes: an AVX load). */
enum { PSE_RECORD_ALIGN_FLOATS = 8 };

typedef struct pse_sorted {
    const float *x, *y, *z, *wx, *wy, *wz, *rho, *g;
    /* The same values as one 8-float record per sorted position (x, y, z,
     * wx, wy, wz, rho', g; 32-byte aligned): the moments pass and the
     * exchange substeps gather a neighbour as one record, one cache line,
     * where the arrays above cost a line per field. g is written by the
     * moments pass. */
    float *rec;
} pse_sorted;

/* What a pass over the neighbourhoods computes. */
typedef enum pse_pass {
    PSE_PASS_SEED = 0,     /* the seed's exchange: un-normalised kernel, 27 cells */
    PSE_PASS_MOMENTS = 1,  /* per home: M = sum k |d|^2 and S = sum k */
    PSE_PASS_EXCHANGE = 2, /* the normalised exchange, pair factor min(g_H, g_T) */
} pse_pass;

/* The exchange sums of one vorton H: its position and values, and the
 * running sums over its neighbours. */
typedef struct pse_home {
    int self; /* H's sorted position */
    float x, y, z;
    float wx, wy, wz, rho;
    float dwx, dwy, dwz, dr;
    float g; /* the home's normalisation (PSE_PASS_EXCHANGE) */
} pse_home;

/* One chunk's pairs within the cut-off, written by PSE_PASS_MOMENTS and read
 * back by every PSE_PASS_EXCHANGE substep (positions do not move within the
 * phase, so the pairs and their k do not change): per home, in the chunk's
 * order, the number of its pairs, then their sorted positions (idx) and
 * kernel values (k, at the same offsets) in visiting order. */
typedef struct pse_list {
    int *idx;
    float *k;
    int count, capacity;
    int at;      /* the next entry to read */
    bool failed; /* out of memory: the chunk's exchange searches its cells */
} pse_list;

struct pse_job;
/* The exchange of homes[0 .. count), all in cell c, with its neighbourhood;
 * list (or NULL): the chunk's pairs, written (PSE_PASS_MOMENTS) or read
 * (PSE_PASS_EXCHANGE). */
typedef void pse_cell_fn(const struct pse_job *job, const int c[3], pse_home *homes, int count,
                         pse_list *list);

typedef struct pse_job {
    eddy_world *w;
    pse_sorted s;
    pse_cell_fn *cell; /* the widest build the CPU runs */
    float neg_inv_s2; /* -1 / s^2: d2 (-1/s^2) has the bits of (-d2) (1/s^2) */
    float nu_dt, kappa_dt; /* the rates' factors: 2 nu dt (seed), nu dt (normalised) */
    float keep_w, keep_rho; /* 1 - rate dt */
    pse_pass pass;
    int reach[3];  /* cells along each axis either side of the home's */
    float cut2;    /* PSE_PASS_MOMENTS and _EXCHANGE: pairs with |d|^2 >= cut2 are no pair */
    float *g_out, *a_out; /* PSE_PASS_MOMENTS: g and a in partition order */
    float spread_floor;   /* PSE_PASS_MOMENTS: M is at least this times S */
    pse_list *lists;      /* per chunk of PSE_CHUNK homes, or NULL */
} pse_job;

/* EDDY_DIFFUSION_NORMALISED's kernel width eps in vorton radii and its
 * cut-off radius in eps (lib/fluid/diffuse.c, diffuse_normalised). */
static const float PSE_EPS_RADII = 3.0f;
static const float PSE_CUT_EPS = 1.9f;
/* The least mean |d|^2 the normalisation takes, in eps^2: a cluster of
 * vortons narrower than the kernel diffuses as if spread over it. */
static const float PSE_MIN_SPREAD_EPS2 = 0.5f;

/* The largest weight an exchange may put on a vorton's own value before the
 * phase splits it into substeps (lib/fluid/diffuse.c, diffuse_normalised). */
static const float PSE_MAX_WEIGHT = 0.9f;

/* Weight of the exchange along the pair's axis (lib/fluid/diffuse.c). */
static const float PSE_AXIAL_WEIGHT = 5.0f;

void eddy_pse_cell_lanes4(const pse_job *job, const int c[3], pse_home *homes, int count,
                          pse_list *list);
void eddy_pse_cell_avx2(const pse_job *job, const int c[3], pse_home *homes, int count,
                        pse_list *list);

/* The phase with a given build of the cell exchange (eddy_phase_diffuse
 * takes the widest the CPU runs), and the eight-lane build where this build
 * has it and the CPU runs it (else NULL). For tests/test_diffuse.c. */
bool eddy_phase_diffuse_using(eddy_world *w, float dt, pse_cell_fn *cell);
pse_cell_fn *eddy_pse_cell_avx2_if_available(void);

#endif
