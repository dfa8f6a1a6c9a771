/* SPDX-License-Identifier: MIT */
/* Blasts and bullets (include/eddy/types.h, lib/fluid/blast.c): what they do
 * to the smoke, seen through the sight queries; their bits across worker
 * counts; their encoding and their place in snapshots. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/smoke.h"
#include "eddy/snapshot.h"

enum { SIDE = 40 }; /* tracers per axis, spacing 0.1 over [-2, 2]^3 */

/* A room of still smoke: a lattice of tracers, no vortons, no gravity. */
static eddy_world *smoke_room(int workers) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = workers;
    d.gravity = (eddy_vec3){0, 0, 0};
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    eddy_tracer *t = calloc(SIDE * SIDE * SIDE, sizeof *t);
    for (int k = 0; k < SIDE * SIDE * SIDE; ++k)
        t[k].position = (eddy_vec3){-1.95f + 0.1f * (float)(k % SIDE),
                                    -1.95f + 0.1f * (float)(k / SIDE % SIDE),
                                    -1.95f + 0.1f * (float)(k / (SIDE * SIDE))};
    cr_assert_eq(eddy_world_add_tracers(w, t, SIDE * SIDE * SIDE), EDDY_OK);
    free(t);
    return w;
}

/* voxels of 1/16 m: the bullet's tunnel is 2.4 voxels in radius */
static eddy_smoke_volume *room_volume(void) {
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    d.min_corner = (eddy_vec3){-2.5f, -2.5f, -2.5f};
    d.max_corner = (eddy_vec3){2.5f, 2.5f, 2.5f};
    d.resolution[0] = d.resolution[1] = d.resolution[2] = 80;
    eddy_smoke_volume *v = NULL;
    cr_assert_eq(eddy_smoke_volume_create(&d, &v), EDDY_OK);
    return v;
}

/* 1000 tracers per m^3: sigma 2e-3 gives optical depth 2 per metre */
#define SIGMA 2e-3f

static float sight(eddy_world *w, eddy_smoke_volume *v, eddy_sight_segment s) {
    float t;
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    cr_assert_eq(eddy_smoke_transmittance(w, v, SIGMA, &s, 1, &t, NULL), EDDY_OK);
    return t;
}

static const eddy_blast k_blast = {{0.0f, 0.0f, 0.0f}, 20.0f, 0.2f, 1.0f, 0.2f};

Test(impulses, blast_clears_the_line_then_smoke_refills) {
    eddy_world *w = smoke_room(2);
    eddy_smoke_volume *v = room_volume();
    const eddy_sight_segment line = {{-0.8f, 0.0f, 0.0f}, {0.8f, 0.0f, 0.0f}};
    const float before = sight(w, v, line);
    cr_assert(before < 0.1f, "before the blast T = %g", (double)before);
    eddy_input in = {0};
    in.blasts = &k_blast;
    in.blast_count = 1;
    cr_assert_eq(eddy_world_step(w, &in), EDDY_OK);
    float peak = 0.0f;
    int peak_frame = 0;
    for (int f = 1; f < 8; ++f) {
        const float t = sight(w, v, line);
        if (t > peak) { peak = t; peak_frame = f; }
        cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
    }
    cr_log_info("blast: T %.3g before, peak %.3g at frame %d", (double)before, (double)peak, peak_frame);
    cr_assert(peak > 0.8f, "the blast did not open the line: peak T = %g", (double)peak);
    cr_assert(peak_frame <= 6, "the line opened only at frame %d", peak_frame);
    /* refill: the sink runs 30 frames after the 6 of the blast */
    for (int f = 0; f < 40; ++f) cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
    const float after = sight(w, v, line);
    cr_log_info("blast: T %.3g after the refill", (double)after);
    cr_assert(after < 0.2f, "the smoke did not refill the cavity: T = %g", (double)after);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

static const eddy_bullet k_bullet = {{-2.4f, 0.3f, 0.0f}, {2.4f, 0.3f, 0.0f}, 0.15f, 20.0f};

Test(impulses, bullet_opens_a_tunnel_along_its_path) {
    eddy_world *w = smoke_room(2);
    eddy_smoke_volume *v = room_volume();
    const eddy_sight_segment along = {{-1.5f, 0.3f, 0.0f}, {1.5f, 0.3f, 0.0f}};
    const eddy_sight_segment beside = {{-1.5f, -0.7f, 0.0f}, {1.5f, -0.7f, 0.0f}};
    const float before = sight(w, v, along);
    eddy_input in = {0};
    in.bullets = &k_bullet;
    in.bullet_count = 1;
    const int vortons = eddy_world_vorton_count(w);
    cr_assert_eq(eddy_world_step(w, &in), EDDY_OK);
    cr_assert_gt(eddy_world_vorton_count(w), vortons, "no wake vortons");
    const float after = sight(w, v, along), side = sight(w, v, beside);
    cr_log_info("bullet: T along the path %.3g before, %.3g after; 1 m beside %.3g", (double)before,
                (double)after, (double)side);
    cr_assert(before < 0.01f);
    cr_assert(after > 0.3f, "no tunnel: T = %g", (double)after);
    cr_assert(side < 0.01f, "the bullet cleared smoke 1 m away: T = %g", (double)side);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- determinism */
typedef struct impulse_trace {
    uint64_t frame[24];
    uint64_t volume;
} impulse_trace;

static void run_impulses(int workers, impulse_trace *out) {
    eddy_world *w = smoke_room(workers);
    eddy_smoke_volume *v = room_volume();
    for (int f = 0; f < 24; ++f) {
        eddy_input in = {0};
        if (f == 2) { in.blasts = &k_blast; in.blast_count = 1; }
        if (f == 5) { in.bullets = &k_bullet; in.bullet_count = 1; }
        cr_assert_eq(eddy_world_step(w, &in), EDDY_OK);
        out->frame[f] = eddy_world_hash(w).frame_hash;
    }
    cr_assert_eq(eddy_smoke_volume_update(v, w), EDDY_OK);
    out->volume = eddy_smoke_volume_hash(v);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
}

Test(impulses, identical_for_1_to_16_workers) {
    impulse_trace ref, other;
    run_impulses(1, &ref);
    const int workers[] = {2, 3, 8, 16};
    for (size_t k = 0; k < 4; ++k) {
        run_impulses(workers[k], &other);
        cr_assert_eq(memcmp(&ref, &other, sizeof ref), 0, "%d workers differ", workers[k]);
    }
}

/* A snapshot taken while a blast acts carries it: restored into a fresh
 * world (other worker count), the trace continues bit for bit. */
Test(impulses, snapshot_mid_blast_continues_the_same) {
    eddy_world *a = smoke_room(1), *b = smoke_room(3);
    eddy_input in = {0};
    in.blasts = &k_blast;
    in.blast_count = 1;
    cr_assert_eq(eddy_world_step(a, &in), EDDY_OK);
    cr_assert_eq(eddy_world_step(a, NULL), EDDY_OK);
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(a, &snap), EDDY_OK);
    char msg[256];
    cr_assert_eq(eddy_world_restore(b, snap.data, snap.size, msg, sizeof msg), EDDY_OK, "%s", msg);
    for (int f = 0; f < 40; ++f) {
        cr_assert_eq(eddy_world_step(a, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_step(b, NULL), EDDY_OK);
        cr_assert_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(b).frame_hash, "frame %d", f);
    }
    eddy_bytes_free(&snap);
    eddy_world_destroy(a);
    eddy_world_destroy(b);
}

/* Encoding: an input with impulses is version 2 and round-trips; one
 * without is version 1, as before blasts existed. */
Test(impulses, input_encoding_round_trip) {
    eddy_input in = {0};
    eddy_bytes plain = {0}, rich = {0}, again = {0};
    cr_assert_eq(eddy_input_encode(&in, &plain), EDDY_OK);
    cr_assert_eq(plain.data[0] | plain.data[1] << 8, 1);
    in.blasts = &k_blast;
    in.blast_count = 1;
    in.bullets = &k_bullet;
    in.bullet_count = 1;
    cr_assert_eq(eddy_input_encode(&in, &rich), EDDY_OK);
    cr_assert_eq(rich.data[0] | rich.data[1] << 8, 2);
    eddy_input_storage *s = eddy_input_storage_create();
    const eddy_input *out = NULL;
    char msg[256];
    cr_assert_eq(eddy_input_decode(rich.data, rich.size, s, &out, msg, sizeof msg), EDDY_OK, "%s", msg);
    cr_assert_eq(out->blast_count, 1);
    cr_assert_eq(out->bullet_count, 1);
    cr_assert_eq(memcmp(out->blasts, &k_blast, sizeof k_blast), 0);
    cr_assert_eq(memcmp(out->bullets, &k_bullet, sizeof k_bullet), 0);
    cr_assert_eq(eddy_input_encode(out, &again), EDDY_OK);
    cr_assert_eq(again.size, rich.size);
    cr_assert_eq(memcmp(again.data, rich.data, rich.size), 0);
    /* a version 3 input is refused by name */
    rich.data[0] = 3;
    cr_assert_eq(eddy_input_decode(rich.data, rich.size, s, &out, msg, sizeof msg), EDDY_ERROR_VERSION);
    cr_assert(strstr(msg, "version 3") != NULL, "%s", msg);
    eddy_input_storage_destroy(s);
    eddy_bytes_free(&plain);
    eddy_bytes_free(&rich);
    eddy_bytes_free(&again);
}

Test(impulses, refuses_bad_impulses) {
    eddy_world *w = smoke_room(1);
    eddy_blast b = k_blast;
    b.strength = -1.0f;
    eddy_input in = {0};
    in.blasts = &b;
    in.blast_count = 1;
    cr_assert_eq(eddy_world_step(w, &in), EDDY_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(eddy_world_error_message(w), "blast 0: strength") != NULL, "%s",
              eddy_world_error_message(w));
    eddy_bullet u = k_bullet;
    u.radius = NAN;
    eddy_input in2 = {0};
    in2.bullets = &u;
    in2.bullet_count = 1;
    cr_assert_eq(eddy_world_step(w, &in2), EDDY_ERROR_NAN);
    cr_assert_eq(eddy_world_frame(w), 0);
    eddy_world_destroy(w);
}
