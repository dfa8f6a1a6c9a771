/* SPDX-License-Identifier: MIT */
/* Snapshots: restoring a world's state into a world with another worker
 * count continues with the same frame hash on every later frame; the bytes
 * are canonical; a snapshot that is cut, damaged, from another version or
 * from another world is refused with a message and leaves the world as it
 * was. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdio.h>
#include <string.h>

#include "state/codec.h" /* lib internal: the snapshot's checksum helper */
#include "core/core.h"  /* lib internal: structure sizes for the layout guard */
#include "replay_testkit.h"

static eddy_world *world_at(const char *scene, int workers, int64_t frame) {
    eddy_world *w = testkit_scene_world(scene, workers);
    cr_assert_not_null(w, "cannot create %s", scene);
    while (eddy_world_frame(w) < frame)
        cr_assert_eq(testkit_step(w, scene), EDDY_OK, "%s: step to frame %lld failed: %s", scene,
                     (long long)eddy_world_frame(w) + 1, eddy_world_error_message(w));
    return w;
}

static void snapshot_of(eddy_world *w, eddy_bytes *out) {
    out->size = 0;
    cr_assert_eq(eddy_world_snapshot(w, out), EDDY_OK);
}

static void assert_same_hash(eddy_world *a, eddy_world *b, const char *what) {
    eddy_frame_hash ha = eddy_world_hash(a), hb = eddy_world_hash(b);
    cr_assert_eq(ha.frame, hb.frame, "%s: frames %lld and %lld", what, (long long)ha.frame,
                 (long long)hb.frame);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        cr_assert_eq(ha.component[c], hb.component[c], "%s: frame %lld, component %s differs", what,
                     (long long)ha.frame, eddy_component_name((eddy_component)c));
    cr_assert_eq(ha.frame_hash, hb.frame_hash, "%s", what);
}

/* ---------------------------------------------------------------- continuation */
typedef struct continuation {
    char scene[24];
    int frame;      /* snapshot taken after this many steps */
    int workers;    /* of the restored world (the original runs at 1) */
    int steps;      /* compared after the restore */
} continuation;

ParameterizedTestParameters(snapshot, continuation_matches_uninterrupted_run) {
    static continuation params[] = {
        {"tiny", 0, 4, 14},            /* before the first step: emitter, body, no grid */
        {"tiny", 3, 16, 11},           /* kinematic body created, force pending */
        {"tiny", 8, 2, 6},             /* second emitter alive, kinematic pose set */
        {"tiny", 11, 3, 4},            /* a destroyed body slot, a destroyed emitter slot */
        {"vortex_ring", 1, 16, 6},
        {"vortex_ring", 20, 3, 6},
        {"jet_ring", 12, 4, 6},        /* emitting tracers with a carried remainder */
        {"noise_cloud", 4, 2, 4},      /* emitting vortons and tracers, 262k tracers */
        {"ball_through_smoke", 25, 4, 6},  /* ball in the smoke: mid-collision */
        {"wind_past_ball", 30, 3, 5},  /* fixed ball, emitted smoke streaming past */
        {"two_rings_apart", 6, 3, 6},  /* two grid islands: their flows in ISLE */
    };
    return cr_make_param_array(continuation, params, sizeof params / sizeof params[0]);
}

ParameterizedTest(continuation *p, snapshot, continuation_matches_uninterrupted_run,
                  .timeout = 120) {
    eddy_world *original = world_at(p->scene, 1, p->frame);
    eddy_bytes snap = {0};
    snapshot_of(original, &snap);
    eddy_world *restored = testkit_scene_world(p->scene, p->workers);
    cr_assert_not_null(restored);
    testkit_step(restored, p->scene); /* a different state to overwrite */
    char message[256];
    cr_assert_eq(eddy_world_restore(restored, snap.data, snap.size, message, sizeof message),
                 EDDY_OK, "%s", message);
    assert_same_hash(original, restored, p->scene);
    for (int k = 0; k < p->steps; ++k) {
        cr_assert_eq(testkit_step(original, p->scene), EDDY_OK);
        cr_assert_eq(testkit_step(restored, p->scene), EDDY_OK, "%s",
                     eddy_world_error_message(restored));
        assert_same_hash(original, restored, p->scene);
    }
    eddy_bytes again = {0};
    snapshot_of(original, &snap);
    snapshot_of(restored, &again);
    cr_assert_eq(snap.size, again.size);
    cr_assert(memcmp(snap.data, again.data, snap.size) == 0, "snapshots of equal states differ");
    eddy_bytes_free(&snap);
    eddy_bytes_free(&again);
    eddy_world_destroy(original);
    eddy_world_destroy(restored);
}

/* noise_cloud's emitter is switched off at frame 150 and on at 200; restore
 * right after each switch and check that emission goes on the same way. */
Test(snapshot, noise_cloud_across_the_emitter_toggles, .timeout = 180) {
    eddy_world *original = world_at("noise_cloud", 2, 151);
    eddy_world *restored = testkit_scene_world("noise_cloud", 1);
    eddy_bytes snap = {0};
    const int64_t checkpoints[] = {151, 201};
    for (int c = 0; c < 2; ++c) {
        while (eddy_world_frame(original) < checkpoints[c]) testkit_step(original, "noise_cloud");
        snapshot_of(original, &snap);
        char message[256];
        cr_assert_eq(eddy_world_restore(restored, snap.data, snap.size, message, sizeof message),
                     EDDY_OK, "%s", message);
        for (int k = 0; k < 3; ++k) {
            testkit_step(original, "noise_cloud");
            testkit_step(restored, "noise_cloud");
            assert_same_hash(original, restored, "noise_cloud");
        }
    }
    eddy_bytes_free(&snap);
    eddy_world_destroy(original);
    eddy_world_destroy(restored);
}

/* ---------------------------------------------------------------- workers */
/* A game's task system that runs the ranges last to first. */
static void *reverse_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                             void *user_context) {
    const int range = min_range > 0 ? min_range : 1;
    for (int r = (item_count + range - 1) / range - 1; r >= 0; --r)
        task(r * range, (r + 1) * range < item_count ? (r + 1) * range : item_count, r % 3,
             task_context);
    (void)user_context;
    return NULL;
}
static void reverse_finish(void *user_task, void *user_context) {
    (void)user_task;
    (void)user_context;
}

/* The big arrays are copied into a snapshot in pieces on the world's workers
 * (lib/state/snapshot.c): the bytes appended after whatever `out` holds are the
 * same at any worker count and with any task system. noise_cloud's 9.6 MB
 * make about 150 pieces; the restored worlds' snapshots must equal the
 * original's byte for byte, and restoring must give its hash. */
Test(snapshot, bytes_do_not_depend_on_the_workers_that_copy_them, .timeout = 120) {
    eddy_world *original = world_at("noise_cloud", 1, 2);
    eddy_bytes ref = {0};
    snapshot_of(original, &ref);
    cr_assert_gt(ref.size, (size_t)64 * 65536, "only %zu bytes", ref.size);
    const int workers[] = {2, 3, 16, 4};
    for (int k = 0; k < 4; ++k) {
        eddy_world_def def = eddy_world_def_default();
        def.worker_count = workers[k];
        if (k == 3) {
            def.enqueue_task = reverse_enqueue;
            def.finish_task = reverse_finish;
        }
        eddy_world *w = NULL;
        cr_assert_eq(eddy_scene_create("noise_cloud", &def, &w), EDDY_OK);
        char message[256];
        cr_assert_eq(eddy_world_restore(w, ref.data, ref.size, message, sizeof message), EDDY_OK,
                     "%s", message);
        assert_same_hash(original, w, k == 3 ? "reverse task system" : "restored");
        eddy_bytes again = {0};
        const char prefix[] = "prefix";
        wire_writer ww;
        eddy_wire_writer_init(&ww, &again);
        eddy_wire_put_bytes(&ww, prefix, sizeof prefix);
        cr_assert_eq(eddy_wire_writer_status(&ww), EDDY_OK);
        cr_assert_eq(eddy_world_snapshot(w, &again), EDDY_OK);
        cr_assert_eq(again.size, sizeof prefix + ref.size, "%d workers", workers[k]);
        cr_assert(memcmp(again.data, prefix, sizeof prefix) == 0, "the prefix was overwritten");
        cr_assert(memcmp(again.data + sizeof prefix, ref.data, ref.size) == 0,
                  "%d workers%s: the snapshot's bytes differ", workers[k],
                  k == 3 ? " (reverse task system)" : "");
        eddy_bytes_free(&again);
        eddy_world_destroy(w);
    }
    eddy_bytes_free(&ref);
    eddy_world_destroy(original);
}

/* ---------------------------------------------------------------- refusals */
static uint64_t hash_of(eddy_world *w) { return eddy_world_hash(w).frame_hash; }

/* Recompute the trailing checksum after an edit, so only the field checks
 * can refuse the snapshot. */
static void reseal(eddy_bytes *b) {
    uint64_t h = eddy_wire_xxh3(b->data, b->size - 8);
    for (int i = 0; i < 8; ++i) b->data[b->size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
}

/* The offset of the payload of the last section tagged `tag` (after its tag
 * and length), or 0. */
static size_t section_payload(const eddy_bytes *b, const char tag[4]) {
    for (size_t at = b->size - 8 - 12; at >= 32; --at)
        if (memcmp(b->data + at, tag, 4) == 0) return at + 12;
    return 0;
}

/* A world of two grid islands writes their flows in an ISLE section; a
 * count out of range, or a section cut short, is refused by name and
 * leaves the world as it was. */
Test(snapshot, refuses_damaged_grid_islands) {
    eddy_world *w = world_at("two_rings_apart", 2, 3);
    cr_assert_eq(eddy_world_get_island_grid_info(w, 0, NULL), 2);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    const size_t payload = section_payload(&snap, "ISLE");
    cr_assert_gt(payload, 0, "no ISLE section");
    const uint64_t before = hash_of(w);
    const uint32_t counts[3] = {1, 9, 0xffffffffu};
    for (int k = 0; k < 3; ++k) {
        eddy_bytes bad = {0};
        testkit_append(&bad, snap.data, snap.size);
        for (int i = 0; i < 4; ++i) bad.data[payload + (size_t)i] = (uint8_t)(counts[k] >> (8 * i));
        reseal(&bad);
        char message[256];
        cr_expect_eq(eddy_world_restore(w, bad.data, bad.size, message, sizeof message),
                     EDDY_ERROR_CORRUPT, "count %u", counts[k]);
        cr_expect(strstr(message, "grid islands") != NULL, "message: %s", message);
        cr_expect_eq(hash_of(w), before, "a refused restore changed the world");
        eddy_bytes_free(&bad);
    }
    /* the last island's flow cut by one point: the section is too short */
    eddy_bytes cut = {0};
    testkit_append(&cut, snap.data, snap.size - 8 - 16);
    const uint64_t length = (uint64_t)(cut.size - 32);
    for (int i = 0; i < 8; ++i) cut.data[24 + (size_t)i] = (uint8_t)(length >> (8 * i));
    uint8_t zero[8] = {0};
    testkit_append(&cut, zero, 8);
    reseal(&cut);
    char message[256];
    const eddy_status s = eddy_world_restore(w, cut.data, cut.size, message, sizeof message);
    cr_expect(s == EDDY_ERROR_TRUNCATED || s == EDDY_ERROR_CORRUPT, "%s: %s", eddy_status_name(s),
              message);
    cr_expect_eq(hash_of(w), before, "a refused restore changed the world");
    eddy_bytes_free(&cut);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

Test(snapshot, refuses_a_world_with_another_definition) {
    eddy_world *w = world_at("tiny", 1, 4);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    eddy_world_def d = *eddy_world_get_def(w);
    d.viscosity *= 2.0f;
    eddy_world *other;
    cr_assert_eq(eddy_world_create(&d, &other), EDDY_OK);
    const uint64_t before = hash_of(other);
    char message[256];
    cr_assert_eq(eddy_world_restore(other, snap.data, snap.size, message, sizeof message),
                 EDDY_ERROR_INVALID_DEF);
    cr_assert(strstr(message, "definition") != NULL, "message: %s", message);
    cr_assert_eq(hash_of(other), before, "a refused restore changed the world");
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
    eddy_world_destroy(other);
}

Test(snapshot, refuses_every_truncation_and_keeps_the_world) {
    eddy_world *w = world_at("tiny", 1, 9);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    eddy_world *target = world_at("tiny", 1, 2);
    const uint64_t before = hash_of(target);
    char message[256];
    for (size_t n = 0; n < snap.size; ++n) {
        eddy_status s = eddy_world_restore(target, snap.data, n, message, sizeof message);
        cr_assert(s == EDDY_ERROR_TRUNCATED || s == EDDY_ERROR_CORRUPT,
                  "%zu of %zu bytes: %s (%s)", n, snap.size, eddy_status_name(s), message);
        cr_assert(message[0] != '\0');
    }
    cr_assert_eq(hash_of(target), before);
    cr_assert_eq(eddy_world_frame(target), 2);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
    eddy_world_destroy(target);
}

Test(snapshot, detects_a_bit_flip_in_every_byte) {
    eddy_world *w = world_at("tiny", 1, 9);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    eddy_world *target = world_at("tiny", 1, 2);
    const uint64_t before = hash_of(target);
    for (size_t i = 0; i < snap.size; ++i) {
        const uint8_t bit = (uint8_t)(1u << (i % 8));
        snap.data[i] ^= bit;
        char message[256];
        eddy_status s = eddy_world_restore(target, snap.data, snap.size, message, sizeof message);
        cr_assert_neq(s, EDDY_OK, "a flipped bit in byte %zu of %zu went unnoticed", i, snap.size);
        snap.data[i] ^= bit;
    }
    cr_assert_eq(hash_of(target), before);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
    eddy_world_destroy(target);
}

Test(snapshot, refuses_other_versions_with_a_message) {
    eddy_world *w = world_at("tiny", 1, 3);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    const size_t fields[] = {8, 12}; /* snapshot version, hash spec version */
    for (int f = 0; f < 2; ++f) {
        snap.data[fields[f]] ^= 0x40;
        reseal(&snap);
        char message[256];
        cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message),
                     EDDY_ERROR_VERSION, "field at %zu: %s", fields[f], message);
        cr_assert(strstr(message, "version") != NULL, "%s", message);
        snap.data[fields[f]] ^= 0x40;
        reseal(&snap);
    }
    char message[256];
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_OK,
                 "%s", message);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

/* A section whose length is shorter than its fields is named as such, not
 * as "0 bytes its fields do not use". */
Test(snapshot, a_too_short_section_says_so) {
    eddy_world *w = world_at("tiny", 1, 3);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    /* GLOB's length (u64 after its tag at byte 32): 4 bytes less */
    const size_t at = 32 + 4;
    cr_assert_gt(snap.data[at], 4);
    snap.data[at] -= 4;
    reseal(&snap);
    char message[256];
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message),
                 EDDY_ERROR_CORRUPT, "%s", message);
    cr_assert(strstr(message, "too short") != NULL && strstr(message, "4 bytes") != NULL, "%s",
              message);
    cr_assert(strstr(message, "do not use") == NULL, "%s", message);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

Test(snapshot, refuses_a_nan_in_the_state) {
    eddy_world *w = world_at("tiny", 1, 3);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    /* First vorton px: header 32, GLOB section (12 + 137), VORT tag+length 12, count 4. */
    const size_t px = 32 + 12 + 137 + 12 + 4;
    const uint8_t nan[4] = {0x00, 0x00, 0xc0, 0x7f};
    memcpy(snap.data + px, nan, 4);
    reseal(&snap);
    char message[256];
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_ERROR_NAN,
                 "%s", message);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

/* A world on the Adams-Bashforth stretching (EDDY_VORTON_STEP_STRETCH_AB2)
 * keeps each vorton's last stretching rate: its snapshot carries three more
 * arrays than Euler's (12 bytes per vorton, docs/snapshot-format.md), a NaN
 * in the last of them is refused like one in any other field, and the world
 * is kept. */
Test(snapshot, carries_the_kept_stretching_rates) {
    eddy_world *w[2];
    eddy_bytes snap[2] = {{0}, {0}};
    for (int k = 0; k < 2; ++k) {
        eddy_world_def base = eddy_world_def_default();
        base.worker_count = 2;
        base.vorton_step = k ? EDDY_VORTON_STEP_STRETCH_AB2 : EDDY_VORTON_STEP_EULER;
        cr_assert_eq(eddy_scene_create("vortex_ring", &base, &w[k]), EDDY_OK);
        for (int f = 0; f < 3; ++f) cr_assert_eq(testkit_step(w[k], "vortex_ring"), EDDY_OK);
        snapshot_of(w[k], &snap[k]);
    }
    const size_t n = (size_t)eddy_world_vorton_count(w[1]);
    cr_assert_gt(n, 0);
    cr_assert_eq(snap[1].size - snap[0].size, 12 * n, "AB2 %zu bytes, Euler %zu, %zu vortons",
                 snap[1].size, snap[0].size, n);
    /* The last vorton's sz: the 17th of the VORT section's arrays (after the
     * header 32, GLOB 12 + 137, the VORT tag, length and count 16). */
    const size_t sz = 32 + 12 + 137 + 12 + 4 + 4 * (17 * n - 1);
    const uint8_t nan[4] = {0x00, 0x00, 0xc0, 0x7f};
    memcpy(snap[1].data + sz, nan, 4);
    reseal(&snap[1]);
    const uint64_t before = eddy_world_hash(w[1]).frame_hash;
    char message[256];
    cr_assert_eq(eddy_world_restore(w[1], snap[1].data, snap[1].size, message, sizeof message),
                 EDDY_ERROR_NAN, "%s", message);
    cr_log_info("%s", message);
    cr_assert_eq(eddy_world_hash(w[1]).frame_hash, before, "a refused restore changed the world");
    cr_assert_eq(testkit_step(w[1], "vortex_ring"), EDDY_OK, "the kept world steps on");
    for (int k = 0; k < 2; ++k) {
        eddy_bytes_free(&snap[k]);
        eddy_world_destroy(w[k]);
    }
}

/* An emitter's remainders stay in [0, 1) (lib/fluid/emit.c); a snapshot whose
 * remainder is larger (found by fuzz_snapshot: 3.5e13, which emitted a
 * million vortons in the next step) is refused as corrupt, naming the
 * field, and the world is kept. The bad value is written by a world whose
 * state was edited, so the checksum is right and only the check refuses. */
Test(snapshot, refuses_an_emission_remainder_outside_zero_one) {
    const float bad[] = {1.0f, 3.5e13f, -0.25f};
    for (int k = 0; k < 3; ++k) {
        for (int field = 0; field < 2; ++field) {
            eddy_world *w = world_at("tiny", 1, 0); /* emitters are created at frame 0 */
            eddy_emitter_id id;
            const eddy_emitter_def e = eddy_emitter_def_default();
            cr_assert_eq(eddy_world_create_emitter(w, &e, &id), EDDY_OK);
            emitter *em = &w->emitters[w->emitter_count - 1];
            cr_assert(em->alive);
            if (field == 0) em->vorton_remainder = bad[k];
            else em->tracer_remainder = bad[k];
            eddy_bytes snap = {0};
            snapshot_of(w, &snap);
            eddy_world *target = world_at("tiny", 1, 1);
            const uint64_t before = hash_of(target);
            char message[256];
            cr_assert_eq(eddy_world_restore(target, snap.data, snap.size, message, sizeof message),
                         EDDY_ERROR_CORRUPT, "remainder %g: %s", (double)bad[k], message);
            cr_assert(strstr(message, "remainder") != NULL, "%s", message);
            cr_assert_eq(hash_of(target), before, "a refused restore changed the world");
            /* the same world with the remainder in range restores */
            if (field == 0) em->vorton_remainder = 0.5f;
            else em->tracer_remainder = 0.5f;
            snapshot_of(w, &snap);
            cr_assert_eq(eddy_world_restore(target, snap.data, snap.size, message, sizeof message),
                         EDDY_OK, "%s", message);
            eddy_bytes_free(&snap);
            eddy_world_destroy(w);
            eddy_world_destroy(target);
        }
    }
}

Test(snapshot, restores_a_world_that_failed_nothing_and_frame_zero_allows_population) {
    eddy_world *w = world_at("tiny", 1, 0);
    eddy_bytes snap = {0};
    snapshot_of(w, &snap);
    eddy_world *other = world_at("tiny", 1, 5);
    cr_assert_eq(eddy_world_restore(other, snap.data, snap.size, NULL, 0), EDDY_OK);
    cr_assert_eq(eddy_world_frame(other), 0);
    eddy_tracer t = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.0f, 0};
    cr_assert_eq(eddy_world_add_tracers(other, &t, 1), EDDY_OK, "frame 0 again: population allowed");
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
    eddy_world_destroy(other);
}

/* ---------------------------------------------------------------- layout guard */
/* A tripwire, not a format check: when one of these structures changes, the
 * snapshot (lib/state/snapshot.c) and the encodings (lib/state/codec.c) must be checked
 * for the new field, the format documents updated and, if the bytes change,
 * the version bumped. Then update the sizes here.
 * Fields checked and left out on purpose (not state, never encoded): the
 * world def's particle_ids, the user_data of body and emitter defs, the
 * particle arrays' stable ids (a restore renumbers them), task_system.external. */
Test(snapshot, layout_guard_state_structures_unchanged) {
    /* 200: vorton_step, encoded in definition version 3 (lib/state/codec.c);
     * body_coupling (version 4) took padding. 208: grid_extent, encoded in
     * definition version 5; vorticity_alignment (version 6) took padding */
    cr_expect_eq(sizeof(eddy_world_def), 208, "eddy_world_def changed (%zu): encode the new "
                 "physical field in lib/state/codec.c or say why not", sizeof(eddy_world_def));
    /* 920: frame_acceleration and frame_angular_acceleration (lib/bodies/carry.c)
     * are set by a step's SET_KINEMATIC and cleared at its end, so they are
     * zero between steps and not snapshotted. 928: held_by (lib/bodies/contain.c)
     * is recomputed at the start of every substep before anything reads
     * it, so it is not state either. 936: the def's friction and
     * restitution (below). 1504 (issue 31): fluid_linear, fluid_angular
     * and fluid_buoyancy are the last step's readback (zeroed at every step's
     * start), fluid_density, buoyant and flow_angular are set in every
     * substep before they are read, and face_area and face_centroid derive
     * from the shape (rebuilt on restore by eddy_body_faces): none is state.
     * The def's type may be EDDY_BODY_EXTERNAL (2), written as the body's
     * type byte. */
    cr_expect_eq(sizeof(body), 1504, "body changed (%zu): snapshot the new field in lib/state/snapshot.c",
                 sizeof(body));
    cr_expect_eq(sizeof(emitter), 112, "emitter changed (%zu): snapshot it", sizeof(emitter));
    /* 184: keeps_rate and the kept stretching rates sx, sy, sz of
     * EDDY_VORTON_STEP_STRETCH_AB2 (snapshotted: lib/state/snapshot_layout.h) */
    cr_expect_eq(sizeof(particle_array), 184, "particle_array changed (%zu): snapshot it",
                 sizeof(particle_array));
    /* 3336: the influence tree's packed multipole expansions (per level, a
     * pointer and a capacity) are rebuilt from the vortons every step, not
     * state. 3352: sorted_scratch (a pointer and a capacity), the vortons'
     * partition-order copy that the density and PSE phases fill and read
     * within one step (lib/fluid/diffuse.c), not state. 3368: the partition's
     * cell_of (a pointer and a capacity), each vorton's cell while the
     * partition is built (lib/fluid/partition.c), not state. 3400: the early
     * tracer hashes (two pointers, a capacity, a count, a flag), made by a
     * step's advection and used by the same step's hash (lib/hash/hash.c), not
     * state. 3488: Heun's step's per-vorton copies (nine pointers and a
     * capacity), filled and read within one step (lib/world.c), not state.
     * 3552: the two particle arrays' kept rates (above), state. 4416: the
     * influence tree's room for 24 levels instead of 16 (lib/core/core.h), rebuilt
     * every step, not state. 4432: busy, the overlap guard of the public
     * calls (core/core.h, eddy_world_enter), and state_counter, which changes
     * on every step and restore and is deliberately not state (include/eddy/view.h).
     * 4464: the active blasts (a pointer, a count and a capacity: state, in
     * the BLST section while any acts) and the step's bullets (the input's
     * array and its count, cleared at the end of the step: not state)
     * (lib/fluid/blast.c). 4472: why the running step failed (step_failure,
     * lib/world.c) and its substeps (step_substeps), set by the step from the
     * definition and the vortons: not state. 4480: the task system's profiler
     * zone of the phase running (lib/runtime/runtime.h), set and cleared within
     * a phase, not state. 4496: the normalised PSE's pair lists per chunk (a pointer and a
     * count, lib/fluid/diffuse.c), kept for their capacity, not state. 4528:
     * the far tracers' flags (a pointer, a capacity, a count, a flag), made by
     * a step's advection and used by the same step's velocity phase
     * (lib/fluid/velocity.c), not state. 4544: the vertex blocks a step's
     * prelude allocates for the polytopes its input creates (a pointer, a
     * count, a capacity; lib/bodies/bodies.c, eddy_bodies_reserve): room the
     * step takes instead of allocating, not state. 4560: the vortons' own
     * velocity gradients of the solvers at the vortons (a pointer and a
     * capacity, lib/fluid/velocity.c), written by a substep's velocity phase
     * and read by its stretch phase, not state. 28328: the grid islands
     * (lib/fluid/islands.c): ISLANDS_MAX islands of 2968 bytes (each a
     * gathered vorton array, its grid, tree, partition and grid arrays), the
     * island count, and the split's scratch (a pointer and a capacity). The
     * count and each island's grid shape, mollification and flow array are
     * state (the ISLE section, only while there are two or more islands),
     * the rest is rebuilt by every step, not state. */
    cr_expect_eq(sizeof(eddy_world), 28328, "eddy_world changed (%zu): is the new field state?",
                 sizeof(eddy_world));
    /* 632: friction and restitution, encoded after the flags byte when not
     * the defaults (lib/state/codec.c, eddy_codec_put_body_def) */
    cr_expect_eq(sizeof(eddy_body_def), 632, "eddy_body_def changed (%zu): encode it",
                 sizeof(eddy_body_def));
    cr_expect_eq(sizeof(eddy_emitter_def), 88, "eddy_emitter_def changed (%zu): encode it",
                 sizeof(eddy_emitter_def));
}
