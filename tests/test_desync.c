/* SPDX-License-Identifier: MIT */
/* Desync localisation: two peers with one planted difference in their state
 * find its component and block by exchanging O(log n) hashes; hash logs and
 * search messages that are cut, damaged or of another version are refused.
 *
 * lib/core/core.h is included to plant differences straight into a world's state. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "eddy/desync.h"
#include "scenes.h"

static eddy_world *scene_at(const char *scene, int workers, int frame) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK);
    eddy_scene_input in;
    while (eddy_world_frame(w) < frame)
        cr_assert_eq(eddy_world_step(w, eddy_scene_input_for(scene, eddy_world_frame(w), &in)),
                     EDDY_OK);
    return w;
}

static int ceil_log2(int n) {
    int k = 0;
    while ((1 << k) < n) ++k;
    return k;
}

/* Both peers' searches, messages passed by hand as a network would. */
static eddy_desync_state run_search(const eddy_hash_tree *a, const eddy_hash_tree *b,
                                    eddy_desync_result *ra, eddy_desync_result *rb) {
    eddy_desync_search *sa = eddy_desync_search_create(a), *sb = eddy_desync_search_create(b);
    cr_assert(sa && sb);
    eddy_desync_state state_a = EDDY_DESYNC_SEARCHING, state_b = EDDY_DESYNC_SEARCHING;
    eddy_bytes ma = {0}, mb = {0};
    char message[256];
    for (int round = 0; state_a == EDDY_DESYNC_SEARCHING; ++round) {
        cr_assert_lt(round, 40, "the search does not end");
        ma.size = mb.size = 0;
        cr_assert_eq(eddy_desync_search_message(sa, &ma), EDDY_OK);
        cr_assert_eq(eddy_desync_search_message(sb, &mb), EDDY_OK);
        cr_assert_eq(eddy_desync_search_receive(sa, mb.data, mb.size, &state_a, message, sizeof message),
                     EDDY_OK, "%s", message);
        cr_assert_eq(eddy_desync_search_receive(sb, ma.data, ma.size, &state_b, message, sizeof message),
                     EDDY_OK, "%s", message);
        cr_assert_eq(state_a, state_b, "the peers disagree on what comes next");
    }
    *ra = eddy_desync_search_result(sa);
    *rb = eddy_desync_search_result(sb);
    eddy_bytes_free(&ma);
    eddy_bytes_free(&mb);
    eddy_desync_search_destroy(sa);
    eddy_desync_search_destroy(sb);
    return state_a;
}

/* ---------------------------------------------------------------- planted */
typedef enum plant {
    PLANT_VORTON_POSITION,
    PLANT_VORTON_VORTICITY,
    PLANT_TRACER_DENSITY,
    PLANT_TRACER_REMOVED,
    PLANT_BODY_POSITION,
    PLANT_PRNG,
    PLANT_EMITTER,
} plant;

typedef struct plant_case {
    char scene[24];
    int frame;
    plant what;
    int index; /* particle or body slot; -1: the last particle */
    eddy_component component;
} plant_case;

static float nudged(float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits ^= 1u;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Returns the block the difference lands in. */
static int plant_in(eddy_world *w, const plant_case *p) {
    const int last_tracer = w->tracers.count - 1;
    switch (p->what) {
    case PLANT_VORTON_POSITION: w->vortons.px[p->index] = nudged(w->vortons.px[p->index]); break;
    case PLANT_VORTON_VORTICITY: w->vortons.wz[p->index] = nudged(w->vortons.wz[p->index]); break;
    case PLANT_TRACER_DENSITY:
        w->tracers.drho[p->index < 0 ? last_tracer : p->index] =
            nudged(w->tracers.drho[p->index < 0 ? last_tracer : p->index]);
        break;
    case PLANT_TRACER_REMOVED: w->tracers.count -= 1; break;
    case PLANT_BODY_POSITION: w->bodies[p->index].position[2] = nudged(w->bodies[p->index].position[2]); break;
    case PLANT_PRNG: w->rng.state ^= 1u; break;
    case PLANT_EMITTER: w->emitters[0].tracer_remainder = nudged(w->emitters[0].tracer_remainder); break;
    }
    w->hash_valid = false;
    if (p->component == EDDY_COMPONENT_BODIES || p->component == EDDY_COMPONENT_GLOBALS) return 0;
    const int index = p->what == PLANT_TRACER_REMOVED ? last_tracer
                      : p->index < 0                   ? last_tracer
                                                       : p->index;
    return index / EDDY_HASH_BLOCK_PARTICLES;
}

ParameterizedTestParameters(desync, a_planted_difference_is_named_after_log_n_rounds) {
    static plant_case cases[] = {
        {"noise_cloud", 2, PLANT_VORTON_POSITION, 2500, EDDY_COMPONENT_VORTONS},
        {"noise_cloud", 2, PLANT_VORTON_VORTICITY, 0, EDDY_COMPONENT_VORTONS},
        {"noise_cloud", 2, PLANT_TRACER_DENSITY, 140000, EDDY_COMPONENT_TRACERS},
        {"noise_cloud", 2, PLANT_TRACER_DENSITY, -1, EDDY_COMPONENT_TRACERS},
        {"plume_plate", 30, PLANT_TRACER_REMOVED, 0, EDDY_COMPONENT_TRACERS},
        {"plume_plate", 30, PLANT_BODY_POSITION, 1, EDDY_COMPONENT_BODIES},
        {"noise_cloud", 2, PLANT_PRNG, 0, EDDY_COMPONENT_GLOBALS},
        {"plume_plate", 30, PLANT_EMITTER, 0, EDDY_COMPONENT_GLOBALS},
    };
    return cr_make_param_array(plant_case, cases, sizeof cases / sizeof cases[0]);
}

/* noise_cloud (4096 vortons, 262k tracers, an emitter) and plume_plate (a
 * plate and two balls, emitters); peer b runs with another worker count. */
ParameterizedTest(plant_case *p, desync, a_planted_difference_is_named_after_log_n_rounds,
                  .timeout = 120) {
    eddy_world *a = scene_at(p->scene, 1, p->frame), *b = scene_at(p->scene, 2, p->frame);
    eddy_hash_tree *ta = eddy_hash_tree_create(), *tb = eddy_hash_tree_create();
    cr_assert_eq(eddy_hash_tree_capture(ta, a), EDDY_OK);
    cr_assert_eq(eddy_hash_tree_capture(tb, b), EDDY_OK);
    cr_assert_eq(eddy_hash_tree_root(ta), eddy_hash_tree_root(tb), "equal states, equal roots");
    const int block = plant_in(b, p);
    cr_assert_eq(eddy_hash_tree_capture(tb, b), EDDY_OK);
    cr_assert_neq(eddy_hash_tree_root(ta), eddy_hash_tree_root(tb), "%s, plant %d: the root misses "
                  "the difference", p->scene, (int)p->what);
    eddy_desync_result ra, rb;
    cr_assert_eq(run_search(ta, tb, &ra, &rb), EDDY_DESYNC_LOCATED);
    cr_assert_eq(ra.component, p->component, "named %s", eddy_component_name(ra.component));
    cr_assert_eq(rb.component, p->component);
    cr_assert_eq(ra.block, block, "named block %d, planted in %d", ra.block, block);
    cr_assert_eq(rb.block, block);
    const int blocks = ra.blocks_mine > ra.blocks_peer ? ra.blocks_mine : ra.blocks_peer;
    cr_assert_eq(ra.rounds, 1 + ceil_log2(blocks), "%d rounds for %d blocks", ra.rounds, blocks);
    cr_assert_eq(ra.bytes_sent, (size_t)(60 + 28 * ceil_log2(blocks)));
    cr_assert_eq(ra.frame, p->frame);
    eddy_hash_tree_destroy(ta);
    eddy_hash_tree_destroy(tb);
    eddy_world_destroy(a);
    eddy_world_destroy(b);
}

Test(desync, equal_trees_are_in_sync_after_one_round) {
    eddy_world *a = scene_at("ball_through_smoke", 1, 5), *b = scene_at("ball_through_smoke", 3, 5);
    eddy_hash_tree *ta = eddy_hash_tree_create(), *tb = eddy_hash_tree_create();
    eddy_hash_tree_capture(ta, a);
    eddy_hash_tree_capture(tb, b);
    eddy_desync_result ra, rb;
    cr_assert_eq(run_search(ta, tb, &ra, &rb), EDDY_DESYNC_IN_SYNC);
    cr_assert_eq(ra.rounds, 1);
    eddy_hash_tree_destroy(ta);
    eddy_hash_tree_destroy(tb);
    eddy_world_destroy(a);
    eddy_world_destroy(b);
}

/* ---------------------------------------------------------------- messages */
Test(desync, refuses_messages_of_another_round_frame_version_or_size) {
    eddy_world *a = scene_at("vortex_ring", 1, 2);
    eddy_hash_tree *t = eddy_hash_tree_create();
    eddy_hash_tree_capture(t, a);
    eddy_desync_search *s = eddy_desync_search_create(t);
    eddy_bytes m = {0};
    cr_assert_eq(eddy_desync_search_message(s, &m), EDDY_OK);
    cr_assert_eq(m.size, 60);
    eddy_desync_state state;
    char message[256];
    for (size_t cut = 0; cut < m.size; ++cut)
        cr_assert_neq(eddy_desync_search_receive(s, m.data, cut, &state, message, sizeof message),
                      EDDY_OK, "a message cut to %zu bytes was taken", cut);
    const size_t fields[] = {0, 2, 4}; /* version, round, frame */
    const eddy_status want[] = {EDDY_ERROR_VERSION, EDDY_ERROR_CORRUPT, EDDY_ERROR_CORRUPT};
    for (int f = 0; f < 3; ++f) {
        m.data[fields[f]] ^= 0x10;
        cr_assert_eq(eddy_desync_search_receive(s, m.data, m.size, &state, message, sizeof message),
                     want[f], "field at %zu", fields[f]);
        cr_assert(message[0] != '\0');
        m.data[fields[f]] ^= 0x10;
    }
    cr_assert_eq(eddy_desync_search_receive(s, m.data, m.size, &state, message, sizeof message),
                 EDDY_OK, "the refusals changed the search: %s", message);
    cr_assert_eq(state, EDDY_DESYNC_IN_SYNC);
    eddy_bytes_free(&m);
    eddy_desync_search_destroy(s);
    eddy_hash_tree_destroy(t);
    eddy_world_destroy(a);
}

/* ---------------------------------------------------------------- hostile peers */
extern _Thread_local uint64_t eddy_desync_pair_hashes; /* lib/state/desync.c */

static void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* Runs a search against a peer that claims `claim` vorton blocks and then
 * answers every round with hashes that differ from ours; returns the pair
 * hashes this side computed, the most of any one round in *worst. */
static uint64_t hostile_search(const eddy_hash_tree *mine, uint32_t claim, uint64_t *worst, int *rounds) {
    eddy_desync_search *s = eddy_desync_search_create(mine);
    cr_assert_not_null(s);
    eddy_bytes m = {0};
    char message[256];
    eddy_desync_state state = EDDY_DESYNC_SEARCHING;
    const uint64_t start = eddy_desync_pair_hashes;
    *worst = 0;
    for (*rounds = 0; state == EDDY_DESYNC_SEARCHING; ++*rounds) {
        cr_assert_lt(*rounds, 40, "the search does not end");
        const uint64_t before = eddy_desync_pair_hashes;
        m.size = 0;
        cr_assert_eq(eddy_desync_search_message(s, &m), EDDY_OK);
        if (*rounds == 0) {
            put_le(m.data + 12, claim, 4);              /* vortons: the claimed block count */
            put_le(m.data + 16, 0x0123456789abcdefull, 8); /* and some root */
        } else {
            put_le(m.data + 12, 0, 8), put_le(m.data + 20, 0, 8); /* two children that differ */
        }
        cr_assert_eq(eddy_desync_search_receive(s, m.data, m.size, &state, message, sizeof message),
                     EDDY_OK, "%s", message);
        const uint64_t cost = eddy_desync_pair_hashes - before;
        if (cost > *worst) *worst = cost;
    }
    cr_assert_eq(state, EDDY_DESYNC_LOCATED);
    eddy_bytes_free(&m);
    eddy_desync_search_destroy(s);
    return eddy_desync_pair_hashes - start;
}

/* A 60-byte round-0 message claiming 2^24 blocks used to cost the receiver
 * 2^24 hashes per message (the whole widened tree, absent leaves included).
 * Now a round costs the local tree plus the height, whatever the claim. */
Test(desync, a_peer_claiming_many_blocks_costs_only_the_local_tree, .timeout = 60) {
    eddy_world *a = scene_at("vortex_ring", 1, 1);
    eddy_hash_tree *t = eddy_hash_tree_create();
    cr_assert_eq(eddy_hash_tree_capture(t, a), EDDY_OK);
    const int local = eddy_hash_tree_blocks(t, EDDY_COMPONENT_VORTONS);
    /* a node costs at most 2 x local inner hashes, the absent table (31) and
     * one boundary hash per level (24); a round hashes four nodes (two for
     * the message, two to compare the reply) */
    const uint64_t bound = 4 * (2 * (uint64_t)local + 31 + 24);
    uint64_t worst_small = 0, worst_big = 0;
    int rounds_small = 0, rounds_big = 0;
    hostile_search(t, 1u << 10, &worst_small, &rounds_small);
    const uint64_t total_big = hostile_search(t, 1u << 24, &worst_big, &rounds_big);
    cr_log_info("local %d, bound %llu, worst %llu (claim 2^10: %llu)", local,
                (unsigned long long)bound, (unsigned long long)worst_big,
                (unsigned long long)worst_small);
    cr_assert_eq(rounds_big, 24 + 1);
    cr_assert(worst_big <= bound, "one round cost %llu pair hashes (bound %llu)",
              (unsigned long long)worst_big, (unsigned long long)bound);
    cr_assert_leq(worst_small, bound);
    cr_assert_leq(total_big, (uint64_t)rounds_big * bound);
    cr_log_info("claim 2^24 against %d local blocks: %d rounds, %llu pair hashes in all, "
                "at most %llu in one round", local, rounds_big, (unsigned long long)total_big,
                (unsigned long long)worst_big);
    eddy_hash_tree_destroy(t);
    eddy_world_destroy(a);
}

/* ---------------------------------------------------------------- hash logs */
static void log_of(eddy_world *w, int frames, eddy_bytes *out) {
    eddy_hash_tree *t = eddy_hash_tree_create();
    cr_assert_eq(eddy_hash_log_begin(out), EDDY_OK);
    for (int f = 0; f <= frames; ++f) {
        if (f > 0) cr_assert_eq(eddy_world_step(w, NULL), EDDY_OK);
        cr_assert_eq(eddy_hash_tree_capture(t, w), EDDY_OK);
        cr_assert_eq(eddy_hash_log_append(t, out), EDDY_OK);
    }
    eddy_hash_tree_destroy(t);
}

/* Reads a whole log; returns the records read or -status on a refusal. */
static int read_log(const eddy_bytes *log, eddy_hash_tree *t, char *message, size_t size) {
    size_t at = 0;
    eddy_status s = eddy_hash_log_read_begin(log->data, log->size, &at, message, size);
    int records = 0;
    while (s == EDDY_OK && at < log->size) {
        s = eddy_hash_log_read_record(log->data, log->size, &at, t, message, size);
        records += s == EDDY_OK;
    }
    return s == EDDY_OK ? records : -(int)s;
}

Test(desync, hash_log_round_trip_and_every_cut_or_flip_is_refused, .timeout = 120) {
    eddy_world *w = scene_at("jet_ring", 1, 10);
    eddy_bytes log = {0};
    log_of(w, 2, &log);
    eddy_hash_tree *t = eddy_hash_tree_create(), *live = eddy_hash_tree_create();
    char message[256];
    cr_assert_eq(read_log(&log, t, message, sizeof message), 3, "%s", message);
    eddy_hash_tree_capture(live, w);
    cr_assert_eq(eddy_hash_tree_root(t), eddy_hash_tree_root(live), "the last record is the world");
    /* A cut inside the header or a record is refused, never read short. */
    size_t first_record = 16, record = (log.size - 16) / 3;
    for (size_t cut = 1; cut < log.size; ++cut) {
        if (cut == first_record || cut == first_record + record || cut == first_record + 2 * record)
            continue; /* a cut between records is a shorter, valid log */
        eddy_bytes shorter = {log.data, cut, cut};
        cr_assert_lt(read_log(&shorter, t, message, sizeof message), 0, "cut at %zu read", cut);
        cr_assert(message[0] != '\0');
    }
    for (size_t i = 0; i < log.size; ++i) {
        log.data[i] ^= 0x04;
        cr_assert_lt(read_log(&log, t, message, sizeof message), 0, "flip in byte %zu read", i);
        log.data[i] ^= 0x04;
    }
    eddy_bytes garbage = {0};
    eddy_bytes_free(&garbage);
    uint8_t junk[64];
    for (size_t i = 0; i < sizeof junk; ++i) junk[i] = (uint8_t)(i * 37 + 11);
    eddy_bytes junk_log = {junk, sizeof junk, sizeof junk};
    cr_assert_eq(read_log(&junk_log, t, message, sizeof message), -(int)EDDY_ERROR_CORRUPT);
    eddy_bytes_free(&log);
    eddy_hash_tree_destroy(t);
    eddy_hash_tree_destroy(live);
    eddy_world_destroy(w);
}
