/* SPDX-License-Identifier: MIT */
/* Broad phase of particle-body collision: which particles can a body touch?
 *
 * Design note.
 *
 * The narrow phase (lib/bodies/collide.c) tests every particle against every body:
 * a bounding-ball test, then, for a polytope, the particle in the body frame
 * against every face. Most particles are far from most bodies, so the broad
 * phase skips them in two steps, both in a fixed order and per chunk of the
 * collision pass (a chunk reads and writes only its own blocks):
 *
 * 1. Blocks. Particles [64 k, 64 k + 64) form block k, with a box fitted to
 *    their positions at the start of the pass and grown to contain every
 *    new position a body moves one of them to. A chunk's range of blocks,
 *    then each block, is skipped whole when its box is out of a body's
 *    reach: outside the bounding ball (spheres, solids), beyond reach of one
 *    face of a solid (the whole box on the far side of that face's plane
 *    moved out by reach), or, in a container, farther than reach inside
 *    every wall. Bounds are computed in double from the box.
 * 2. Particles. In a block that is not skipped, a particle of a sphere is
 *    skipped when it is outside the bounding ball grown by the block test's
 *    margin, a particle of a solid when it is beyond reach of one face, and
 *    a particle of a container when it is farther than reach inside every
 *    wall: one dot product per face with the world-frame normal R n_i, in
 *    float, over the faces that can decide for some point of the block's
 *    box.
 *
 * Why the result is the same bits. The narrow phase leaves a particle
 * untouched exactly when (sphere, bounding ball) its squared distance from
 * the centre is not below (R + reach)^2, (solid) some face distance
 * n_i . R^T (x - c) - o_i is not below reach (the first thing
 * eddy_polytope_collision_distance computes: outside the solid it returns
 * the contact distance, the largest face distance), (container) every wall
 * distance o_i - n_i . R^T (x - c) is not below reach. Those are float
 * evaluations of the linear functions m_i . (x - c) with m_i = R n_i
 * (|m_i| and the rotation's entries at most 1 up to rounding), whose
 * rounding error is below 40 float epsilons (6e-8 each) of the scale
 * S = 3 max|x - c| + |o_i| + reach, and so is the broad phase's own float
 * test. The broad phase skips only with a margin of 1e-4 S + 1e-15 beyond
 * reach, over 20 times both errors together plus what flushing denormals
 * to zero can lose, so every skipped particle is one the narrow phase
 * leaves untouched, whatever the rounding. A sphere's particle test is
 * exact: its squared distance is the narrow phase's (the same float
 * operations on the same floats, the centre being the body's float
 * position), compared with a larger bound, (R + reach)^2 (1 + 1e-4)^2.
 * Skipped particles add nothing to a body's impulse (the narrow phase adds
 * only for touched particles) and the touched ones are visited in ascending
 * index as before, so every sum keeps its order. NaN or infinity anywhere
 * (a particle, a body) makes the comparisons false: nothing is skipped.
 *
 * tests/test_broadphase.c steps every scene with bodies with and without
 * the broad phase and demands the same hashes. */
#include "bodies/broadphase.h"

static double abs_d(double x) { return x < 0.0 ? -x : x; }
static double max_d(double a, double b) { return a > b ? a : b; }

static double margin_of(double extent, double offset, double reach) {
    return 1.0e-4 * (3.0 * extent + abs_d(offset) + abs_d(reach)) + 1.0e-15;
}

/* ---------------------------------------------------------------- bodies */
void eddy_broad_body_ball(eddy_broad_body *bb, vec3 centre, float ball) {
    memset(bb, 0, sizeof *bb);
    bb->kind = EDDY_BROAD_BALL;
    bb->centre[0] = (double)centre.x;
    bb->centre[1] = (double)centre.y;
    bb->centre[2] = (double)centre.z;
    bb->ball = (double)ball;
}

void eddy_broad_body_polytope(eddy_broad_body *bb, vec3 centre, const float rotation[3][3],
                              const eddy_shape *shape, float ball, float reach) {
    eddy_broad_body_ball(bb, centre, ball);
    bb->kind = shape->hole ? EDDY_BROAD_HOLE : EDDY_BROAD_SOLID;
    bb->reach = reach;
    bb->plane_count = shape->plane_count;
    for (int i = 0; i < shape->plane_count; ++i) {
        const eddy_vec3 n = shape->planes[i].normal;
        for (int r = 0; r < 3; ++r)
            bb->normal[i][r] = (double)rotation[r][0] * (double)n.x +
                               (double)rotation[r][1] * (double)n.y +
                               (double)rotation[r][2] * (double)n.z;
        bb->offset[i] = (double)shape->planes[i].offset;
    }
}

/* ---------------------------------------------------------------- boxes */
/* A box only has to contain its particles (it need not be the tightest one,
 * nor the same bits on every path): it only decides what is skipped, with
 * the margin of the design note. Finiteness is checked on the bits. */
static unsigned nonfinite_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x7f800000u) == 0x7f800000u;
}

static void fit_scalar(const particle_array *a, int begin, int end, float lo[3], float hi[3],
                       unsigned *bad) {
    for (int i = begin; i < end; ++i) {
        const float p[3] = {a->px[i], a->py[i], a->pz[i]};
        for (int k = 0; k < 3; ++k) {
            lo[k] = p[k] < lo[k] ? p[k] : lo[k];
            hi[k] = p[k] > hi[k] ? p[k] : hi[k];
            *bad |= nonfinite_bits(p[k]);
        }
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

static float fold_lanes(__m128 v, bool low) {
    float l[4];
    _mm_storeu_ps(l, v);
    float r = l[0];
    for (int k = 1; k < 4; ++k) r = low ? (l[k] < r ? l[k] : r) : (l[k] > r ? l[k] : r);
    return r;
}

/* Four particles per iteration; the scalar loop takes the tail. */
static int fit_sse2(const particle_array *a, int begin, int end, float lo[3], float hi[3],
                    unsigned *bad) {
    const int stop = begin + (end - begin) / 4 * 4;
    if (stop == begin) return begin;
    const float *p[3] = {a->px, a->py, a->pz};
    const __m128i exponent = _mm_set1_epi32(0x7f800000);
    __m128i nonfinite = _mm_setzero_si128();
    for (int k = 0; k < 3; ++k) {
        __m128 l = _mm_loadu_ps(p[k] + begin), h = l;
        for (int i = begin; i < stop; i += 4) {
            const __m128 v = _mm_loadu_ps(p[k] + i);
            l = _mm_min_ps(v, l);
            h = _mm_max_ps(v, h);
            const __m128i e = _mm_and_si128(_mm_castps_si128(v), exponent);
            nonfinite = _mm_or_si128(nonfinite, _mm_cmpeq_epi32(e, exponent));
        }
        lo[k] = fold_lanes(l, true);
        hi[k] = fold_lanes(h, false);
    }
    *bad |= _mm_movemask_epi8(nonfinite) != 0;
    return stop;
}
#else
static int fit_sse2(const particle_array *a, int begin, int end, float lo[3], float hi[3],
                    unsigned *bad) {
    (void)a, (void)end, (void)lo, (void)hi, (void)bad;
    return begin;
}
#endif

static void fit_block(eddy_broad_box *box, const particle_array *a, int begin, int end) {
    float lo[3] = {a->px[begin], a->py[begin], a->pz[begin]};
    float hi[3] = {lo[0], lo[1], lo[2]};
    unsigned bad = 0;
    const int rest = fit_sse2(a, begin, end, lo, hi, &bad);
    fit_scalar(a, rest, end, lo, hi, &bad);
    for (int k = 0; k < 3; ++k) {
        box->lo[k] = lo[k];
        box->hi[k] = hi[k];
    }
    box->finite = bad == 0;
}

static int block_end(int block, int end) {
    const int e = (block + 1) * EDDY_BROAD_BLOCK;
    return e < end ? e : end;
}

void eddy_broad_fit(eddy_broad_box *boxes, const particle_array *a, int begin, int end) {
    for (int k = begin / EDDY_BROAD_BLOCK; k * EDDY_BROAD_BLOCK < end; ++k)
        fit_block(&boxes[k], a, k * EDDY_BROAD_BLOCK, block_end(k, end));
}


/* ---------------------------------------------------------------- blocks */
/* The box relative to the body's centre; returns max |x - c| over it. */
static double box_relative(const eddy_broad_body *bb, const eddy_broad_box *box, double lo[3],
                           double hi[3]) {
    double extent = 0.0;
    for (int k = 0; k < 3; ++k) {
        lo[k] = (double)box->lo[k] - bb->centre[k];
        hi[k] = (double)box->hi[k] - bb->centre[k];
        extent = max_d(extent, max_d(abs_d(lo[k]), abs_d(hi[k])));
    }
    return extent;
}

static bool outside_ball(const eddy_broad_body *bb, const double lo[3], const double hi[3]) {
    double gap2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double g = max_d(0.0, max_d(lo[k], -hi[k]));
        gap2 += g * g;
    }
    const double limit = bb->ball * (1.0 + 1.0e-4) + 1.0e-15;
    return gap2 >= limit * limit;
}

/* Smallest and largest of m . x over the box. */
static void plane_range(const double m[3], const double lo[3], const double hi[3], double *min,
                        double *max) {
    double a = 0.0, b = 0.0;
    for (int k = 0; k < 3; ++k) {
        a += m[k] >= 0.0 ? m[k] * lo[k] : m[k] * hi[k];
        b += m[k] >= 0.0 ? m[k] * hi[k] : m[k] * lo[k];
    }
    *min = a;
    *max = b;
}

static bool block_out_of_reach(const eddy_broad_body *bb, const eddy_broad_box *box) {
    if (!box->finite) return false;
    double lo[3], hi[3];
    const double extent = box_relative(bb, box, lo, hi);
    if (bb->kind != EDDY_BROAD_HOLE && outside_ball(bb, lo, hi)) return true;
    if (bb->kind == EDDY_BROAD_BALL) return false;
    bool all_inside = bb->plane_count > 0;
    for (int i = 0; i < bb->plane_count; ++i) {
        double min, max;
        plane_range(bb->normal[i], lo, hi, &min, &max);
        const double margin = (double)bb->reach + margin_of(extent, bb->offset[i], (double)bb->reach);
        if (bb->kind == EDDY_BROAD_SOLID && min - bb->offset[i] >= margin) return true;
        if (!(bb->offset[i] - max >= margin)) all_inside = false;
    }
    return bb->kind == EDDY_BROAD_HOLE && all_inside;
}

/* ---------------------------------------------------------------- particles */
/* The faces that can decide for some particle of the block, world frame. */
typedef struct block_planes {
    int count;
    float m[EDDY_MAX_PLANES][3];
    float limit[EDDY_MAX_PLANES]; /* solid: skip at or above; hole: near above */
} block_planes;

/* A face is left out when no particle of the box can meet its test: for a
 * solid that only skips fewer particles; a container's wall is left out
 * only with a second margin, beyond any rounding of the particle's test. */
static void planes_for_block(const eddy_broad_body *bb, const eddy_broad_box *box,
                             block_planes *out) {
    double lo[3], hi[3];
    const double extent = box_relative(bb, box, lo, hi);
    const bool solid = bb->kind == EDDY_BROAD_SOLID;
    out->count = 0;
    for (int i = 0; i < bb->plane_count; ++i) {
        double min, max;
        plane_range(bb->normal[i], lo, hi, &min, &max);
        const double margin = margin_of(extent, bb->offset[i], (double)bb->reach);
        const double reach = (double)bb->reach;
        if (solid && max < bb->offset[i] + reach) continue;
        if (!solid && bb->offset[i] - max >= reach + 2.0 * margin) continue;
        const int f = out->count++;
        for (int k = 0; k < 3; ++k) out->m[f][k] = (float)bb->normal[i][k];
        out->limit[f] = (float)(solid ? bb->offset[i] + reach + margin : bb->offset[i] - reach - margin);
    }
}

/* Bit j of the result: particle begin + j may be within reach. */
static uint64_t filter_scalar(const eddy_broad_body *bb, const block_planes *p,
                              const particle_array *a, int begin, int end) {
    const float cx = (float)bb->centre[0], cy = (float)bb->centre[1], cz = (float)bb->centre[2];
    const bool solid = bb->kind == EDDY_BROAD_SOLID;
    uint64_t keep = 0;
    for (int i = begin; i < end; ++i) {
        const float x = a->px[i] - cx, y = a->py[i] - cy, z = a->pz[i] - cz;
        bool near = solid;
        for (int f = 0; f < p->count; ++f) {
            const float s = p->m[f][0] * x + p->m[f][1] * y + p->m[f][2] * z;
            if (solid && s >= p->limit[f]) near = false;
            if (!solid && !(s <= p->limit[f])) near = true;
        }
        keep |= (uint64_t)near << (i - begin);
    }
    return keep;
}

#if defined(__SSE2__)
/* Four particles per iteration: the same tests (cmpge: skip from a solid's
 * face; cmpnle, true for NaN: near a container's wall). */
static int filter_sse2(const eddy_broad_body *bb, const block_planes *p, const particle_array *a,
                       int begin, int end, uint64_t *keep) {
    const int stop = begin + (end - begin) / 4 * 4;
    const __m128 cx = _mm_set1_ps((float)bb->centre[0]), cy = _mm_set1_ps((float)bb->centre[1]),
                 cz = _mm_set1_ps((float)bb->centre[2]);
    const bool solid = bb->kind == EDDY_BROAD_SOLID;
    __m128 m[EDDY_MAX_PLANES][4]; /* each face's normal and limit, broadcast once */
    for (int f = 0; f < p->count; ++f) {
        for (int k = 0; k < 3; ++k) m[f][k] = _mm_set1_ps(p->m[f][k]);
        m[f][3] = _mm_set1_ps(p->limit[f]);
    }
    for (int i = begin; i < stop; i += 4) {
        const __m128 x = _mm_sub_ps(_mm_loadu_ps(a->px + i), cx);
        const __m128 y = _mm_sub_ps(_mm_loadu_ps(a->py + i), cy);
        const __m128 z = _mm_sub_ps(_mm_loadu_ps(a->pz + i), cz);
        __m128 flag = _mm_setzero_ps(); /* solid: skip; hole: near */
        for (int f = 0; f < p->count; ++f) {
            const __m128 s = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[f][0], x), _mm_mul_ps(m[f][1], y)),
                                        _mm_mul_ps(m[f][2], z));
            flag = _mm_or_ps(flag, solid ? _mm_cmpge_ps(s, m[f][3]) : _mm_cmpnle_ps(s, m[f][3]));
        }
        unsigned bits = (unsigned)_mm_movemask_ps(flag);
        if (solid) bits = ~bits & 0xfu;
        *keep |= (uint64_t)bits << (i - begin);
    }
    return stop;
}
#else
static int filter_sse2(const eddy_broad_body *bb, const block_planes *p, const particle_array *a,
                       int begin, int end, uint64_t *keep) {
    (void)bb, (void)p, (void)a, (void)end, (void)keep;
    return begin;
}
#endif

static uint64_t filter_block(const eddy_broad_body *bb, const eddy_broad_box *box,
                             const particle_array *a, int begin, int end) {
    block_planes p;
    planes_for_block(bb, box, &p);
    uint64_t keep = 0;
    const int rest = filter_sse2(bb, &p, a, begin, end, &keep);
    if (rest < end) keep |= filter_scalar(bb, &p, a, rest, end) << (rest - begin);
    return keep;
}

/* ---------------------------------------------------------------- balls */
/* Bit j: particle begin + j may be within the ball: its squared distance
 * from the centre, computed as near_body in lib/bodies/collide.c does (the same
 * float operations on the same floats: the same bits), is below the ball's
 * radius grown by outside_ball's margin, squared; NaN is kept. */
static float ball_limit2(const eddy_broad_body *bb) {
    const double limit = bb->ball * (1.0 + 1.0e-4) + 1.0e-15;
    return (float)(limit * limit);
}

static uint64_t ball_scalar(const eddy_broad_body *bb, const particle_array *a, int begin,
                            int end) {
    const float cx = (float)bb->centre[0], cy = (float)bb->centre[1], cz = (float)bb->centre[2];
    const float limit2 = ball_limit2(bb);
    uint64_t keep = 0;
    for (int i = begin; i < end; ++i) {
        const float x = a->px[i] - cx, y = a->py[i] - cy, z = a->pz[i] - cz;
        keep |= (uint64_t)!(x * x + y * y + z * z >= limit2) << (i - begin);
    }
    return keep;
}

#if defined(__SSE2__)
static int ball_sse2(const eddy_broad_body *bb, const particle_array *a, int begin, int end,
                     uint64_t *keep) {
    const int stop = begin + (end - begin) / 4 * 4;
    const __m128 cx = _mm_set1_ps((float)bb->centre[0]), cy = _mm_set1_ps((float)bb->centre[1]),
                 cz = _mm_set1_ps((float)bb->centre[2]);
    const __m128 limit2 = _mm_set1_ps(ball_limit2(bb));
    for (int i = begin; i < stop; i += 4) {
        const __m128 x = _mm_sub_ps(_mm_loadu_ps(a->px + i), cx);
        const __m128 y = _mm_sub_ps(_mm_loadu_ps(a->py + i), cy);
        const __m128 z = _mm_sub_ps(_mm_loadu_ps(a->pz + i), cz);
        const __m128 d2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z));
        const unsigned far = (unsigned)_mm_movemask_ps(_mm_cmpge_ps(d2, limit2));
        *keep |= (uint64_t)(~far & 0xfu) << (i - begin);
    }
    return stop;
}
#else
static int ball_sse2(const eddy_broad_body *bb, const particle_array *a, int begin, int end,
                     uint64_t *keep) {
    (void)bb, (void)a, (void)end, (void)keep;
    return begin;
}
#endif

static uint64_t ball_block(const eddy_broad_body *bb, const particle_array *a, int begin, int end) {
    uint64_t keep = 0;
    const int rest = ball_sse2(bb, a, begin, end, &keep);
    if (rest < end) keep |= ball_scalar(bb, a, rest, end) << (rest - begin);
    return keep;
}

/* The box of all the blocks of [begin, end): one test for the whole range. */
static eddy_broad_box range_box(const eddy_broad_box *boxes, int begin, int end) {
    eddy_broad_box u = boxes[begin / EDDY_BROAD_BLOCK];
    for (int k = begin / EDDY_BROAD_BLOCK + 1; k * EDDY_BROAD_BLOCK < end; ++k) {
        for (int c = 0; c < 3; ++c) {
            u.lo[c] = boxes[k].lo[c] < u.lo[c] ? boxes[k].lo[c] : u.lo[c];
            u.hi[c] = boxes[k].hi[c] > u.hi[c] ? boxes[k].hi[c] : u.hi[c];
        }
        u.finite &= boxes[k].finite;
    }
    return u;
}

int eddy_broad_candidates(const eddy_broad_body *bb, const eddy_broad_box *boxes,
                          const particle_array *a, int begin, int end, int *out) {
    if (begin >= end) return 0;
    const eddy_broad_box all = range_box(boxes, begin, end);
    if (block_out_of_reach(bb, &all)) return 0;
    int count = 0;
    for (int k = begin / EDDY_BROAD_BLOCK; k * EDDY_BROAD_BLOCK < end; ++k) {
        const eddy_broad_box *box = &boxes[k];
        const int b0 = k * EDDY_BROAD_BLOCK, b1 = block_end(k, end);
        if (block_out_of_reach(bb, box)) continue;
        if (!box->finite) {
            for (int i = b0; i < b1; ++i) out[count++] = i;
            continue;
        }
        const uint64_t kept = bb->kind == EDDY_BROAD_BALL ? ball_block(bb, a, b0, b1)
                                                           : filter_block(bb, box, a, b0, b1);
        for (uint64_t keep = kept; keep != 0; keep &= keep - 1)
            out[count++] = b0 + EDDY_LOWEST_BIT64(keep);
    }
    return count;
}
