/* SPDX-License-Identifier: MIT */
/* Tracer advection four (SSE2) or eight (AVX) tracers at a time.
 *
 * Internal to lib/: advect.c calls eddy_tracer_batches for the bulk of each
 * chunk and finishes the remainder with its one-tracer loop. Every batch path
 * computes, for each tracer, exactly the operations of the one-tracer path in
 * the same order (locate, trilinear sample x then y then z, wind, Euler step):
 * vector lanes are different tracers, or components of one tracer, and
 * nothing is ever summed across lanes, so all paths give the same bits. */
#ifndef EDDY_ADVECT_BATCH_H
#define EDDY_ADVECT_BATCH_H

#include "fluid/fluid.h"

#if defined(__SSE2__)
#define EDDY_TRACER_BATCH 1

typedef struct tracer_out {
    float *px, *py, *pz; /* read, then written: x + u dt */
    float *vx, *vy, *vz; /* written: sampled velocity + wind */
    float *rho;          /* written: sampled rho' */
} tracer_out;

/* Advects tracers [begin, begin + 4k) for the largest k that fits before end
 * and returns begin + 4k, the first tracer left to the caller. */
int eddy_tracer_batches(const grid_shape *g, const float *flow, float dt, vec3 wind,
                        tracer_out out, int begin, int end);

/* The SSE2 batch: every x86-64 CPU. */
int eddy_tracer_batches_sse2(const grid_shape *g, const float *flow, float dt, vec3 wind,
                             tracer_out out, int begin, int end);
/* The AVX batch, eight at a time (lib/fluid/advect_avx.c; x86-64 builds only, call
 * only when eddy_tracer_batches_avx_available()). */
int eddy_tracer_batches_avx(const grid_shape *g, const float *flow, float dt, vec3 wind,
                            tracer_out out, int begin, int end);
/* True when this build has the AVX batch and the CPU runs it. */
bool eddy_tracer_batches_avx_available(void);
#endif

#endif
