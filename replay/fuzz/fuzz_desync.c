/* SPDX-License-Identifier: MIT */
/* libFuzzer target: desync search messages from a hostile peer
 * (eddy_desync_search_receive, lib/state/desync.c) and hash logs
 * (eddy_hash_log_read_begin / _record).
 *
 * The input is a script of peer messages against the search of a small
 * world's hash tree. Each message starts with one control byte: bit 0 set
 * means "fix the header" (version, round and frame are overwritten with what
 * the search expects, so mutations reach the tree code rather than the header
 * check), bits 1..7 are ignored; then come the message bytes, 60 for round 0
 * and 28 later (fewer if the input ends). Every message is either taken or
 * refused; a refused one must leave the search as it was (its next outgoing
 * message is unchanged). Whatever block count a peer claims, one message may
 * cost at most the local tree plus its height in pair hashes
 * (eddy_desync_pair_hashes): a round costing more traps. An input that
 * starts with "EDDYHLOG" is read as a hash log instead. The regression test
 * (replay/tests/test_fuzz_regressions.c) calls the same function. Run:
 * scripts/fuzz_replay.sh SECONDS desync. */
#include "eddy/desync.h"
#include "eddy/snapshot.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern _Thread_local uint64_t eddy_desync_pair_hashes; /* lib/state/desync.c */

/* Of the last input: messages the search took, and hash-log records read
 * (the seed test of test_fuzz_regressions checks that seeds still get in). */
int eddy_fuzz_desync_taken;

static void require(bool ok) {
    if (!ok) __builtin_trap();
}

/* A small world's tree (3 vorton blocks, 1 tracer block, 1 body), built once. */
static const eddy_hash_tree *tree(void) {
    static eddy_hash_tree *t;
    if (t) return t;
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = NULL;
    if (eddy_world_create(&d, &w) != EDDY_OK) abort();
    enum { VORTONS = 2 * EDDY_HASH_BLOCK_PARTICLES + 5, TRACERS = 7 };
    eddy_vorton *v = calloc(VORTONS, sizeof *v);
    eddy_tracer tr[TRACERS];
    memset(tr, 0, sizeof tr);
    if (!v) abort();
    for (int i = 0; i < VORTONS; ++i) {
        v[i].position = (eddy_vec3){0.01f * (float)(i % 50), 0.01f * (float)(i / 50), 0.0f};
        v[i].vorticity = (eddy_vec3){0.0f, 0.0f, 0.1f};
    }
    for (int i = 0; i < TRACERS; ++i) tr[i].position = (eddy_vec3){0.1f * (float)i, 1.0f, 0.0f};
    eddy_body_def b = eddy_body_def_default();
    b.position = (eddy_vec3){0.0f, 3.0f, 0.0f};
    eddy_body_id id;
    t = eddy_hash_tree_create();
    if (!t || eddy_world_add_vortons(w, v, VORTONS) != EDDY_OK ||
        eddy_world_add_tracers(w, tr, TRACERS) != EDDY_OK ||
        eddy_world_create_body(w, &b, &id) != EDDY_OK || eddy_hash_tree_capture(t, w) != EDDY_OK)
        abort();
    free(v);
    eddy_world_destroy(w);
    return t;
}

static int local_blocks(const eddy_hash_tree *t) {
    int most = 0;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        if (eddy_hash_tree_blocks(t, (eddy_component)c) > most)
            most = eddy_hash_tree_blocks(t, (eddy_component)c);
    return most;
}

static void read_log(const uint8_t *data, size_t size) {
    eddy_hash_tree *t = eddy_hash_tree_create();
    require(t != NULL);
    char message[256];
    size_t at = 0;
    eddy_status s = eddy_hash_log_read_begin(data, size, &at, message, sizeof message);
    while (s == EDDY_OK && at < size) {
        const size_t before = at;
        s = eddy_hash_log_read_record(data, size, &at, t, message, sizeof message);
        eddy_fuzz_desync_taken += s == EDDY_OK;
        require(s != EDDY_OK || at > before); /* progress, or a refusal */
        require(s == EDDY_OK || message[0] != '\0');
    }
    eddy_hash_tree_destroy(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    eddy_fuzz_desync_taken = 0;
    if (size >= 8 && memcmp(data, "EDDYHLOG", 8) == 0) {
        read_log(data, size);
        return 0;
    }
    const eddy_hash_tree *mine = tree();
    /* a message: two nodes to compare, two to send next, each at most the
     * local tree twice, the absent table (31) and one hash per level (31) */
    const uint64_t bound = 4 * (2 * (uint64_t)local_blocks(mine) + 31 + 31);
    eddy_desync_search *s = eddy_desync_search_create(mine);
    require(s != NULL);
    eddy_bytes mine_out = {0}, again = {0};
    uint8_t msg[64];
    size_t at = 0;
    for (int round = 0; at < size && round < 64; ++round) {
        const uint8_t control = data[at++];
        const size_t want = round == 0 ? 60 : 28;
        const size_t n = size - at < want ? size - at : want;
        memcpy(msg, data + at, n);
        at += n;
        mine_out.size = 0;
        if (eddy_desync_search_message(s, &mine_out) != EDDY_OK) break; /* the search is over */
        if ((control & 1) && n >= 12) memcpy(msg, mine_out.data, 12); /* same version, round, frame */
        eddy_desync_state state = EDDY_DESYNC_SEARCHING;
        char message[256] = "";
        const uint64_t before = eddy_desync_pair_hashes;
        const eddy_status st = eddy_desync_search_receive(s, msg, n, &state, message, sizeof message);
        require(eddy_desync_pair_hashes - before <= bound);
        if (st == EDDY_OK) ++eddy_fuzz_desync_taken;
        if (st != EDDY_OK) {
            require(message[0] != '\0');
            again.size = 0; /* refused: the search is where it was */
            require(eddy_desync_search_message(s, &again) == EDDY_OK);
            require(again.size == mine_out.size && memcmp(again.data, mine_out.data, again.size) == 0);
            break;
        }
        if (state != EDDY_DESYNC_SEARCHING) {
            const eddy_desync_result r = eddy_desync_search_result(s);
            require(state != EDDY_DESYNC_LOCATED || (r.block >= 0 && (int)r.component >= 0 &&
                                                     (int)r.component < EDDY_COMPONENT_COUNT));
            break;
        }
    }
    eddy_bytes_free(&mine_out);
    eddy_bytes_free(&again);
    eddy_desync_search_destroy(s);
    return 0;
}
