/* SPDX-License-Identifier: MIT */
/* The smoke volume and sight queries (include/eddy/smoke.h): the kernel
 * against hand-computed densities, Beer-Lambert against its closed form,
 * and the bits of volumes and queries across worker counts. */
#include <criterion/criterion.h>

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/smoke.h"
#include "scenes.h"

static eddy_world *empty_world(int workers) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = workers;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    return w;
}

/* One tracer at every voxel centre of [0, 8]^3 at resolution 8 (h = 1). */
static eddy_world *lattice_world(int workers) {
    eddy_world *w = empty_world(workers);
    eddy_tracer t[512];
    memset(t, 0, sizeof t);
    for (int k = 0; k < 512; ++k)
        t[k].position = (eddy_vec3){(float)(k % 8) + 0.5f, (float)(k / 8 % 8) + 0.5f,
                                    (float)(k / 64) + 0.5f};
    cr_assert_eq(eddy_world_add_tracers(w, t, 512), EDDY_OK);
    return w;
}

static eddy_smoke_volume *cube_volume(float lo, float hi, int n, float amount) {
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    d.min_corner = (eddy_vec3){lo, lo, lo};
    d.max_corner = (eddy_vec3){hi, hi, hi};
    d.resolution[0] = d.resolution[1] = d.resolution[2] = n;
    d.tracer_amount = amount;
    eddy_smoke_volume *v = NULL;
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_OK);
    return v;
}

Test(smoke, lattice_gives_uniform_density) {
    eddy_world *w = lattice_world(1);
    eddy_smoke_volume *v = cube_volume(0.0f, 8.0f, 8, 2.0f);
    cr_assert_eq(eddy_smoke_volume_frame(v), -1);
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    cr_assert_eq(eddy_smoke_volume_frame(v), 0);
    cr_assert_eq(eddy_smoke_volume_tracer_count(v), 512);
    const float *rho = eddy_smoke_volume_density(v);
    for (int k = 0; k < 512; ++k) cr_assert_eq(rho[k], 2.0f, "voxel %d: %g", k, (double)rho[k]);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

/* A tracer between centres splits its amount by the tent; the total is kept. */
Test(smoke, tent_kernel_splits_and_conserves) {
    eddy_world *w = empty_world(1);
    eddy_tracer t = {{1.25f, 2.5f, 3.5f}, {0, 0, 0}, 0.0f, 0};
    cr_assert_eq(eddy_world_add_tracers(w, &t, 1), EDDY_OK);
    eddy_smoke_volume *v = cube_volume(0.0f, 8.0f, 8, 1.0f);
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    const float *rho = eddy_smoke_volume_density(v);
    /* u = 0.75 in x: voxels 0 and 1 get 0.25 and 0.75; y = 2.5 is voxel 2's
     * centre; z likewise voxel 3 */
    cr_assert_eq(rho[0 + 8 * (2 + 8 * 3)], 0.25f);
    cr_assert_eq(rho[1 + 8 * (2 + 8 * 3)], 0.75f);
    float total = 0.0f;
    for (int k = 0; k < 512; ++k) total += rho[k];
    cr_assert_eq(total, 1.0f);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

/* Beer-Lambert: uniform density rho along a segment of length L gives
 * T = exp(-sigma rho L). */
Test(smoke, transmittance_matches_beer_lambert) {
    eddy_world *w = lattice_world(1);
    eddy_smoke_volume *v = cube_volume(0.0f, 8.0f, 8, 1.0f);
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    const eddy_sight_segment s[3] = {
        {{0.5f, 4.0f, 4.0f}, {7.5f, 4.0f, 4.0f}},     /* L = 7 inside the centres' box */
        {{1.0f, 1.0f, 1.0f}, {7.0f, 7.0f, 7.0f}},     /* diagonal, L = 6 sqrt 3 */
        {{-30.0f, 4.0f, 4.0f}, {-20.0f, 4.0f, 4.0f}}, /* outside: clear */
    };
    float trans[3], depth[3];
    const float sigma = 0.3f;
    cr_assert_eq(eddy_smoke_transmittance(w, v, sigma, s, 3, trans, depth), EDDY_OK);
    const double want0 = exp(-0.3 * 7.0), want1 = exp(-0.3 * 6.0 * sqrt(3.0));
    cr_assert(fabs((double)trans[0] - want0) < 2e-6 * want0, "T %.9g want %.9g", (double)trans[0], want0);
    cr_assert(fabs((double)trans[1] - want1) < 2e-5 * want1, "T %.9g want %.9g", (double)trans[1], want1);
    cr_assert_eq(trans[2], 1.0f);
    cr_assert_eq(depth[2], 0.0f);
    /* the world is optional */
    float again[3];
    cr_assert_eq(eddy_smoke_transmittance(NULL, v, sigma, s, 3, again, NULL), EDDY_OK);
    cr_assert_eq(memcmp(again, trans, sizeof trans), 0);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

Test(smoke, refuses_bad_arguments) {
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    eddy_smoke_volume *v = (eddy_smoke_volume *)1;
    d.resolution[1] = 0;
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_ERROR_INVALID_DEF);
    cr_assert_null(v);
    cr_assert(strstr(eddy_smoke_error_message(), "resolution[1]") != NULL);
    d = eddy_smoke_volume_def_default();
    d.max_corner.z = d.min_corner.z;
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_ERROR_INVALID_DEF);
    d = eddy_smoke_volume_def_default();
    d.tracer_amount = NAN;
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_ERROR_NAN);
    d = eddy_smoke_volume_def_default();
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_OK);
    eddy_sight_segment s = {{0, 0, 0}, {NAN, 0, 0}};
    float t;
    cr_assert_eq(eddy_smoke_transmittance(NULL, v, 1.0f, &s, 1, &t, NULL), EDDY_ERROR_NAN);
    s.to.x = 1.0f;
    cr_assert_eq(eddy_smoke_transmittance(NULL, v, -1.0f, &s, 1, &t, NULL),
                 EDDY_ERROR_INVALID_ARGUMENT);
    eddy_smoke_volume_destroy(v);
    eddy_smoke_volume_destroy(NULL);
}

/* ---------------------------------------------------------------- determinism */
enum { SIGHT_SEGMENTS = 1024 };

typedef struct smoke_bits {
    uint64_t volume_hash;
    float transmittance[SIGHT_SEGMENTS];
} smoke_bits;

/* Deterministic segments across the cloud: endpoints on two faces of the box. */
static void cloud_segments(eddy_sight_segment *s, int n) {
    eddy_rng rng = eddy_rng_seed(34, 1);
    for (int k = 0; k < n; ++k) {
        s[k].from = (eddy_vec3){-1.3f, eddy_rng_spread(&rng, 2.4f), eddy_rng_spread(&rng, 2.4f)};
        s[k].to = (eddy_vec3){1.3f, eddy_rng_spread(&rng, 2.4f), eddy_rng_spread(&rng, 2.4f)};
    }
}

static void noise_cloud_bits(int workers, int frames, smoke_bits *out) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("noise_cloud", &base, &w), EDDY_OK);
    eddy_scene_input in;
    for (int f = 0; f < frames; ++f)
        cr_assert_eq(eddy_world_step(w, eddy_scene_input_for("noise_cloud", f, &in)), EDDY_OK);
    eddy_smoke_volume *v = cube_volume(-1.25f, 1.25f, 48, 1.0f);
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    out->volume_hash = eddy_smoke_volume_hash(v);
    static eddy_sight_segment s[SIGHT_SEGMENTS];
    cloud_segments(s, SIGHT_SEGMENTS);
    cr_assert_eq(eddy_smoke_transmittance(w, v, 5e-5f, s, SIGHT_SEGMENTS, out->transmittance, NULL),
                 EDDY_OK);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

Test(smoke, volume_and_sight_identical_for_1_to_16_workers, .timeout = 600) {
    static smoke_bits ref, other;
    noise_cloud_bits(1, 3, &ref);
    /* the cloud is dense: some segments see through, some do not */
    int clear = 0, blocked = 0;
    for (int k = 0; k < SIGHT_SEGMENTS; ++k) {
        clear += ref.transmittance[k] > 0.5f;
        blocked += ref.transmittance[k] < 0.1f;
    }
    cr_log_info("noise_cloud volume hash %016llx, %d of %d segments T > 0.5, %d T < 0.1",
                (unsigned long long)ref.volume_hash, clear, SIGHT_SEGMENTS, blocked);
    cr_assert(blocked > 0 && clear < SIGHT_SEGMENTS);
    const int workers[] = {2, 3, 4, 7, 16};
    for (size_t k = 0; k < sizeof workers / sizeof workers[0]; ++k) {
        noise_cloud_bits(workers[k], 3, &other);
        cr_assert_eq(other.volume_hash, ref.volume_hash, "%d workers", workers[k]);
        cr_assert_eq(memcmp(other.transmittance, ref.transmittance, sizeof ref.transmittance), 0,
                     "%d workers", workers[k]);
    }
}

/* The caller's FP mode (round toward zero, denormals flushed) never reaches
 * the volume or the queries: they run in the world's canonical mode and
 * give the bits of a normal caller, and the caller gets its mode back. */
Test(smoke, hostile_caller_fp_mode_changes_nothing, .timeout = 300) {
    static smoke_bits normal, hostile;
    noise_cloud_bits(2, 2, &normal);
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = 2;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create("noise_cloud", &base, &w), EDDY_OK);
    eddy_scene_input in;
    for (int f = 0; f < 2; ++f)
        cr_assert_eq(eddy_world_step(w, eddy_scene_input_for("noise_cloud", f, &in)), EDDY_OK);
    eddy_smoke_volume *v = cube_volume(-1.25f, 1.25f, 48, 1.0f);
    static eddy_sight_segment s[SIGHT_SEGMENTS];
    cloud_segments(s, SIGHT_SEGMENTS);
    fesetround(FE_TOWARDZERO);
#if defined(__SSE2__)
    _mm_setcsr(_mm_getcsr() | 0x8040u);
#endif
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    cr_assert_eq(eddy_smoke_transmittance(w, v, 5e-5f, s, SIGHT_SEGMENTS, hostile.transmittance, NULL),
                 EDDY_OK);
    const int round = fegetround();
    fesetround(FE_TONEAREST);
#if defined(__SSE2__)
    _mm_setcsr(0x1F80u);
#endif
    cr_assert_eq(round, FE_TOWARDZERO, "the caller's rounding mode was not given back");
    hostile.volume_hash = eddy_smoke_volume_hash(v);
    cr_assert_eq(hostile.volume_hash, normal.volume_hash);
    cr_assert_eq(memcmp(hostile.transmittance, normal.transmittance, sizeof normal.transmittance), 0);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}
