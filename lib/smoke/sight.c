/* SPDX-License-Identifier: MIT */
/* Sight queries through a smoke volume: Beer-Lambert transmittance along
 * segments (kernel: include/eddy/smoke.h).
 *
 * Design note. A segment is one serial march: ceil(L / h_min) equal
 * steps, density sampled trilinearly at each step's midpoint, summed in step
 * order, times the step length and the extinction, then eddy_expf. Segments
 * are independent, so they run in fixed chunks on the world's workers and
 * each writes its own output slot: the bits depend on the volume and the
 * segment only. The step count is capped (SIGHT_MAX_STEPS) so a segment
 * miles long costs no more than a bounded march; a segment's part outside
 * the volume adds nothing. */
#include "smoke/smoke.h"

enum { SIGHT_CHUNK = 64, SIGHT_MAX_STEPS = 1 << 16 };

static float voxel_at(const eddy_smoke_volume *v, int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= v->n[0] || j >= v->n[1] || k >= v->n[2]) return 0.0f;
    return v->density[(size_t)i + (size_t)v->n[0] * ((size_t)j + (size_t)v->n[1] * (size_t)k)];
}

/* Index and fraction of a voxel coordinate; false when the point is more
 * than a voxel outside (density 0 there). */
static bool locate(const eddy_smoke_volume *v, int a, float p, int *i, float *f) {
    const float u = eddy_smoke_voxel_coord(v, a, p);
    if (!(u > -1.0f) || !(u < (float)v->n[a])) return false;
    int k = (int)u;
    if ((float)k > u) --k;
    *i = k;
    *f = u - (float)k;
    return true;
}

/* The trilinear sample (the API's, inlined into the march). */
static inline float volume_sample(const eddy_smoke_volume *v, eddy_vec3 p) {
    int i, j, k;
    float fx, fy, fz;
    if (!locate(v, 0, p.x, &i, &fx) || !locate(v, 1, p.y, &j, &fy) || !locate(v, 2, p.z, &k, &fz))
        return 0.0f;
    const float gx = 1.0f - fx, gy = 1.0f - fy, gz = 1.0f - fz;
    if (i >= 0 && j >= 0 && k >= 0 && i + 1 < v->n[0] && j + 1 < v->n[1] && k + 1 < v->n[2]) {
        /* all 8 inside: the same products, read directly */
        const size_t nx = (size_t)v->n[0], nxy = nx * (size_t)v->n[1];
        const float *a = v->density + (size_t)i + nx * (size_t)j + nxy * (size_t)k;
        const float e00 = gx * a[0] + fx * a[1];
        const float e10 = gx * a[nx] + fx * a[nx + 1];
        const float e01 = gx * a[nxy] + fx * a[nxy + 1];
        const float e11 = gx * a[nxy + nx] + fx * a[nxy + nx + 1];
        return (e00 * gy + e10 * fy) * gz + (e01 * gy + e11 * fy) * fz;
    }
    const float e00 = gx * voxel_at(v, i, j, k) + fx * voxel_at(v, i + 1, j, k);
    const float e10 = gx * voxel_at(v, i, j + 1, k) + fx * voxel_at(v, i + 1, j + 1, k);
    const float e01 = gx * voxel_at(v, i, j, k + 1) + fx * voxel_at(v, i + 1, j, k + 1);
    const float e11 = gx * voxel_at(v, i, j + 1, k + 1) + fx * voxel_at(v, i + 1, j + 1, k + 1);
    return (e00 * gy + e10 * fy) * gz + (e01 * gy + e11 * fy) * fz;
}

float eddy_smoke_volume_sample(const eddy_smoke_volume *v, eddy_vec3 p) {
    return v ? volume_sample(v, p) : 0.0f;
}

static float h_min(const eddy_smoke_volume *v) {
    return fmin_det(v->h[0], fmin_det(v->h[1], v->h[2]));
}

/* Optical depth of one segment, without the extinction. */
static float segment_integral(const eddy_smoke_volume *v, eddy_vec3 a, eddy_vec3 b) {
    const float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
    const float length = sqrtf(dx * dx + dy * dy + dz * dz);
    if (!(length > 0.0f)) return 0.0f;
    float steps_f = length / h_min(v);
    int steps = steps_f < (float)SIGHT_MAX_STEPS ? (int)steps_f : SIGHT_MAX_STEPS;
    if ((float)steps < steps_f && steps < SIGHT_MAX_STEPS) ++steps; /* ceil */
    if (steps < 1) steps = 1;
    const float inv = 1.0f / (float)steps;
    float sum = 0.0f;
    for (int s = 0; s < steps; ++s) {
        const float t = ((float)s + 0.5f) * inv;
        const eddy_vec3 p = {a.x + t * dx, a.y + t * dy, a.z + t * dz};
        sum += volume_sample(v, p);
    }
    return sum * (length * inv);
}

typedef struct sight_job {
    const eddy_smoke_volume *v;
    float extinction;
    const eddy_sight_segment *segments;
    float *transmittance, *optical_depth;
} sight_job;

static void sight_chunk(int chunk, int begin, int end, void *context) {
    const sight_job *job = context;
    (void)chunk;
    for (int s = begin; s < end; ++s) {
        const float tau = job->extinction * segment_integral(job->v, job->segments[s].from,
                                                             job->segments[s].to);
        job->transmittance[s] = eddy_expf(-tau);
        if (job->optical_depth) job->optical_depth[s] = tau;
    }
}

static eddy_status sight_check(const eddy_smoke_volume *v, float extinction,
                               const eddy_sight_segment *segments, int count, const float *out) {
    if (!v || count < 0 || (count > 0 && (!segments || !out))) {
        eddy_smoke_set_error("smoke transmittance: volume, segments or output is NULL, or count < 0");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    if (!isfinite(extinction) || extinction < 0.0f) {
        eddy_smoke_set_error("smoke transmittance: extinction must be finite and >= 0");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    for (int s = 0; s < count; ++s)
        if (!eddy_within3(segments[s].from, EDDY_MAX_COORDINATE) ||
            !eddy_within3(segments[s].to, EDDY_MAX_COORDINATE)) {
            eddy_smoke_set_error("smoke transmittance: segment %d has an endpoint that is not "
                                 "finite or beyond EDDY_MAX_COORDINATE", s);
            return EDDY_ERROR_NAN;
        }
    return EDDY_OK;
}

eddy_status eddy_smoke_transmittance(const eddy_world *world, const eddy_smoke_volume *v,
                                     float extinction, const eddy_sight_segment *segments, int count,
                                     float *transmittance, float *optical_depth) {
    eddy_status s = sight_check(v, extinction, segments, count, transmittance);
    if (s != EDDY_OK) return s;
    sight_job job = {v, extinction, segments, transmittance, optical_depth};
    const uint32_t caller_mode = eddy_fpenv_get();
    if (world) {
        eddy_fpenv_set(world->tasks.fp_canonical);
        eddy_parallel_for(&world->tasks, count, SIGHT_CHUNK, sight_chunk, &job);
    } else {
        eddy_fpenv_set(eddy_fpenv_canonical(false));
        for (int c = 0; c * SIGHT_CHUNK < count; ++c) {
            const int end = (c + 1) * SIGHT_CHUNK < count ? (c + 1) * SIGHT_CHUNK : count;
            sight_chunk(c, c * SIGHT_CHUNK, end, &job);
        }
    }
    eddy_fpenv_set(caller_mode);
    return EDDY_OK;
}

eddy_status eddy_smoke_volume_opacity(const eddy_smoke_volume *v, float extinction, float *out) {
    if (!v || !out || !isfinite(extinction) || extinction < 0.0f) {
        eddy_smoke_set_error("smoke opacity: volume or output is NULL, or extinction is not >= 0");
        return EDDY_ERROR_INVALID_ARGUMENT;
    }
    const size_t voxels = (size_t)v->n[0] * (size_t)v->n[1] * (size_t)v->n[2];
    const float scale = extinction * h_min(v);
    const uint32_t caller_mode = eddy_fpenv_get();
    eddy_fpenv_set(eddy_fpenv_canonical(false));
    for (size_t k = 0; k < voxels; ++k) out[k] = 1.0f - eddy_expf(-scale * v->density[k]);
    eddy_fpenv_set(caller_mode);
    return EDDY_OK;
}
