/* SPDX-License-Identifier: MIT */
/* Desync localisation: hash trees, hash logs and the search protocol
 * (normative description: docs/desync.md).
 *
 * Design notes.
 * - Leaves are the canonical block hashes (docs/hash-spec.md): component c
 *   has blocks(c) leaves. Over them sits a binary tree of width W, a power of
 *   two >= blocks(c) (>= 1), heap-numbered: node 1 is the component's root,
 *   node k has children 2k and 2k + 1, leaf i is node W + i. A leaf past the
 *   component's blocks is the constant ABSENT_LEAF; an inner node is XXH3-64
 *   of its children as two little-endian u64. The component root is node 1
 *   at the smallest W; the frame root is XXH3-64 of (frame i64, hash spec
 *   u32, then per component blocks u32 and root u64), all little-endian.
 * - The search is symmetric: both peers send the hashes of the same nodes
 *   and apply the same rule to the same pair of values, so they descend to
 *   the same child without a leader. Round 0 exchanges the component roots
 *   and block counts and picks the first component that differs; if the
 *   block counts differ, both use the width that covers the larger count.
 *   Each later round exchanges the two children of the current node and
 *   goes to the first child that differs.
 * - Nodes are computed on demand from the leaves: a node costs its subtree's
 *   local leaves plus its height, since a subtree of absent leaves has a hash
 *   that depends only on its height (absent_table). A peer's claimed block
 *   count widens the tree but adds at most 31 levels: the whole search costs
 *   O((blocks + height) x height) hashes of 16 bytes, whatever the claim.
 * - Hash log records carry their own XXH3-64 and their root is recomputed
 *   from the leaves on reading, so a damaged log never yields a tree. */
#include "state/codec.h"
#include "eddy/desync.h"

#include <stdio.h>
#include <stdlib.h>

static const uint8_t log_magic[8] = {'E', 'D', 'D', 'Y', 'H', 'L', 'O', 'G'};
static const uint64_t ABSENT_LEAF = 0x9e3779b97f4a7c15ull;

enum {
    LOG_HEADER_BYTES = 16,
    LOG_MAX_BLOCKS = 1 << 24, /* per component (2^34 particles) */
    MESSAGE_HEADER_BYTES = 12,
    MESSAGE_FIRST_BYTES = MESSAGE_HEADER_BYTES + EDDY_COMPONENT_COUNT * 12,
    MESSAGE_NEXT_BYTES = MESSAGE_HEADER_BYTES + 16,
};

struct eddy_hash_tree {
    int64_t frame;
    uint64_t root;
    int blocks[EDDY_COMPONENT_COUNT];
    int capacity[EDDY_COMPONENT_COUNT];
    uint64_t *leaves[EDDY_COMPONENT_COUNT];
    uint64_t component_root[EDDY_COMPONENT_COUNT];
};

/* ================================================================ nodes */
static int width_for(int blocks) {
    int w = 1;
    while (w < blocks) w *= 2;
    return w;
}

static uint64_t pair_hash(uint64_t left, uint64_t right) {
    uint8_t b[16];
    for (int i = 0; i < 8; ++i) {
        b[i] = (uint8_t)(left >> (8 * i));
        b[8 + i] = (uint8_t)(right >> (8 * i));
    }
    return eddy_wire_xxh3(b, sizeof b);
}

/* Pair hashes computed by node_hash on this thread (tests count them: the
 * cost of a node must follow the local tree, not a peer's claim). */
_Thread_local uint64_t eddy_desync_pair_hashes;

/* The hash of a subtree of 2^height absent leaves, for height 0..31: it
 * depends on the height alone, so a peer that claims 2^24 blocks against a
 * local tree of a few costs the receiver no more than the local tree. */
typedef struct absent_table {
    uint64_t hash[32];
} absent_table;

static void absent_table_fill(absent_table *a) {
    a->hash[0] = ABSENT_LEAF;
    for (int h = 1; h < 32; ++h) a->hash[h] = pair_hash(a->hash[h - 1], a->hash[h - 1]);
    eddy_desync_pair_hashes += 31;
}

/* Node `node` whose subtree holds `span` leaves (a power of two) starting at
 * leaf `first`: absent subtrees come from the table, so the work is bounded
 * by the local leaves and the height, whatever the width. */
static uint64_t subtree_hash(const eddy_hash_tree *t, int c, const absent_table *a, int64_t first,
                             int64_t span, int height) {
    if (first >= t->blocks[c]) return a->hash[height];
    if (span == 1) return t->leaves[c][first];
    const int64_t half = span / 2;
    const uint64_t left = subtree_hash(t, c, a, first, half, height - 1);
    const uint64_t right = subtree_hash(t, c, a, first + half, half, height - 1);
    eddy_desync_pair_hashes += 1;
    return pair_hash(left, right);
}

/* Node `node` of component c's tree of width `width` (a power of two). */
static uint64_t node_hash(const eddy_hash_tree *t, int c, int width, int64_t node) {
    int64_t level_first = 1, span = width;
    int height = 0;
    while (2 * level_first <= node) level_first *= 2, span /= 2;
    for (int64_t k = span; k > 1; k /= 2) ++height;
    absent_table a;
    absent_table_fill(&a);
    return subtree_hash(t, c, &a, (node - level_first) * span, span, height);
}

static uint64_t frame_root(const eddy_hash_tree *t) {
    uint8_t b[8 + 4 + EDDY_COMPONENT_COUNT * 12];
    eddy_bytes out = {b, 0, sizeof b};
    wire_writer w;
    eddy_wire_writer_init(&w, &out);
    eddy_wire_put_i64(&w, t->frame);
    eddy_wire_put_u32(&w, EDDY_HASH_SPEC_VERSION);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        eddy_wire_put_u32(&w, (uint32_t)t->blocks[c]);
        eddy_wire_put_u64(&w, t->component_root[c]);
    }
    return eddy_wire_xxh3(out.data, out.size);
}

static void tree_seal(eddy_hash_tree *t) {
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        t->component_root[c] = node_hash(t, c, width_for(t->blocks[c]), 1);
    t->root = frame_root(t);
}

/* ================================================================ trees */
eddy_hash_tree *eddy_hash_tree_create(void) { return eddy_calloc(1, sizeof(eddy_hash_tree)); }

void eddy_hash_tree_destroy(eddy_hash_tree *t) {
    if (!t) return;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) eddy_free(t->leaves[c]);
    eddy_free(t);
}

static bool leaves_reserve(eddy_hash_tree *t, int c, int n) {
    if (n <= t->capacity[c]) return true;
    uint64_t *p = eddy_realloc(t->leaves[c], (size_t)n * sizeof *p);
    if (!p) return false;
    t->leaves[c] = p;
    t->capacity[c] = n;
    return true;
}

eddy_status eddy_hash_tree_capture(eddy_hash_tree *t, eddy_world *world) {
    if (!t || !world) return EDDY_ERROR_INVALID_ARGUMENT;
    t->frame = eddy_world_hash(world).frame; /* also fills the block cache */
    if (t->frame < 0) return EDDY_ERROR_WRONG_STATE; /* overlaps a call on the world */
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        const int n = eddy_world_block_hashes(world, (eddy_component)c, NULL, 0);
        if (n < 0) return EDDY_ERROR_WRONG_STATE;
        if (!leaves_reserve(t, c, n)) return EDDY_ERROR_OUT_OF_MEMORY;
        t->blocks[c] = eddy_world_block_hashes(world, (eddy_component)c, t->leaves[c], n);
    }
    tree_seal(t);
    return EDDY_OK;
}

eddy_status eddy_hash_tree_copy(eddy_hash_tree *dst, const eddy_hash_tree *src) {
    if (!dst || !src) return EDDY_ERROR_INVALID_ARGUMENT;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        if (!leaves_reserve(dst, c, src->blocks[c])) return EDDY_ERROR_OUT_OF_MEMORY;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        if (src->blocks[c] > 0)
            memcpy(dst->leaves[c], src->leaves[c], (size_t)src->blocks[c] * sizeof(uint64_t));
        dst->blocks[c] = src->blocks[c];
        dst->component_root[c] = src->component_root[c];
    }
    dst->frame = src->frame;
    dst->root = src->root;
    return EDDY_OK;
}

int64_t eddy_hash_tree_frame(const eddy_hash_tree *t) { return t ? t->frame : -1; }
uint64_t eddy_hash_tree_root(const eddy_hash_tree *t) { return t ? t->root : 0; }

int eddy_hash_tree_blocks(const eddy_hash_tree *t, eddy_component c) {
    return t && (int)c >= 0 && c < EDDY_COMPONENT_COUNT ? t->blocks[c] : 0;
}

/* ================================================================ hash logs */
eddy_status eddy_hash_log_begin(eddy_bytes *out) {
    if (!out) return EDDY_ERROR_INVALID_ARGUMENT;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    eddy_wire_put_bytes(&w, log_magic, sizeof log_magic);
    eddy_wire_put_u32(&w, EDDY_HASH_LOG_VERSION);
    eddy_wire_put_u32(&w, EDDY_HASH_SPEC_VERSION);
    return eddy_wire_writer_status(&w);
}

eddy_status eddy_hash_log_append(const eddy_hash_tree *t, eddy_bytes *out) {
    if (!t || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    const size_t start = out->size;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    eddy_wire_put_i64(&w, t->frame);
    eddy_wire_put_u64(&w, t->root);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) eddy_wire_put_u32(&w, (uint32_t)t->blocks[c]);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        for (int b = 0; b < t->blocks[c]; ++b) eddy_wire_put_u64(&w, t->leaves[c][b]);
    if (!w.failed) eddy_wire_put_u64(&w, eddy_wire_xxh3(out->data + start, out->size - start));
    if (w.failed) out->size = start;
    return eddy_wire_writer_status(&w);
}

eddy_status eddy_hash_log_read_begin(const void *data, size_t size, size_t *offset, char *message,
                                     size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "hash log", message, message_size);
    if (!offset || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "data or offset is NULL");
        return r.status;
    }
    const uint8_t *magic = eddy_wire_get_bytes(&r, sizeof log_magic, "magic");
    if (magic && memcmp(magic, log_magic, sizeof log_magic) != 0)
        eddy_wire_fail(&r, EDDY_ERROR_CORRUPT, "bad magic (not an eddy hash log)");
    const uint32_t version = eddy_wire_get_u32(&r, "format version");
    if (wire_ok(&r) && version != EDDY_HASH_LOG_VERSION)
        eddy_wire_fail(&r, EDDY_ERROR_VERSION, "format version %u, this build reads version %d",
                       (unsigned)version, EDDY_HASH_LOG_VERSION);
    const uint32_t spec = eddy_wire_get_u32(&r, "hash spec version");
    if (wire_ok(&r) && spec != EDDY_HASH_SPEC_VERSION)
        eddy_wire_fail(&r, EDDY_ERROR_VERSION, "hash spec version %u, this build has version %d",
                       (unsigned)spec, EDDY_HASH_SPEC_VERSION);
    if (wire_ok(&r)) *offset = r.pos;
    return r.status;
}

/* Block counts of a record; they must fit in the bytes that follow. */
static void get_counts(wire_reader *r, int blocks[EDDY_COMPONENT_COUNT]) {
    size_t total = 0;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        const size_t at = r->pos;
        const uint32_t n = eddy_wire_get_u32(r, "block count");
        if (!wire_ok(r)) return;
        if (n > LOG_MAX_BLOCKS || (c == EDDY_COMPONENT_GLOBALS && n != 1)) {
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "block count %u of %s at byte %zu is not valid",
                           (unsigned)n, eddy_component_name((eddy_component)c), at);
            return;
        }
        blocks[c] = (int)n;
        total += n;
    }
    eddy_wire_need(r, 8 * total + 8, "leaves and checksum");
}

static void get_record(wire_reader *r, eddy_hash_tree *t) {
    const size_t start = r->pos;
    t->frame = eddy_wire_get_i64(r, "frame");
    const uint64_t root = eddy_wire_get_u64(r, "root");
    get_counts(r, t->blocks);
    if (!wire_ok(r)) return;
    if (t->frame < 0)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "frame %lld is negative", (long long)t->frame);
    for (int c = 0; c < EDDY_COMPONENT_COUNT && wire_ok(r); ++c) {
        if (!leaves_reserve(t, c, t->blocks[c])) {
            eddy_wire_fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory for %d leaves", t->blocks[c]);
            return;
        }
        for (int b = 0; b < t->blocks[c]; ++b) t->leaves[c][b] = eddy_wire_get_u64(r, "leaf");
    }
    const size_t end = r->pos;
    const uint64_t stored = eddy_wire_get_u64(r, "record checksum");
    if (wire_ok(r) && stored != eddy_wire_xxh3(r->data + start, end - start)) {
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "checksum of the record at byte %zu does not match",
                       start);
        return;
    }
    /* A refused record (negative frame, cut leaves) has block counts without
     * leaves: sealing it read leaves that were never allocated (found by the
     * desync fuzz target). */
    if (!wire_ok(r)) return;
    tree_seal(t);
    if (t->root != root)
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                       "the root of the record at byte %zu does not follow from its leaves", start);
}

eddy_status eddy_hash_log_read_record(const void *data, size_t size, size_t *offset,
                                      eddy_hash_tree *tree, char *message, size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "hash log", message, message_size);
    if (!offset || !tree || (!data && size > 0) || *offset > size) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "data, offset or tree is NULL or out of range");
        return r.status;
    }
    r.pos = *offset;
    eddy_hash_tree *scratch = eddy_hash_tree_create();
    if (!scratch) {
        eddy_wire_fail(&r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
        return r.status;
    }
    get_record(&r, scratch);
    if (wire_ok(&r) && eddy_hash_tree_copy(tree, scratch) != EDDY_OK)
        eddy_wire_fail(&r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory copying the record");
    if (wire_ok(&r)) *offset = r.pos;
    eddy_hash_tree_destroy(scratch);
    return r.status;
}

/* ================================================================ search */
struct eddy_desync_search {
    const eddy_hash_tree *mine;
    eddy_desync_state state;
    int round;
    int component;   /* chosen in round 0 */
    int width;
    int64_t node;    /* current node (its children are exchanged next) */
    eddy_desync_result result;
};

eddy_desync_search *eddy_desync_search_create(const eddy_hash_tree *mine) {
    if (!mine) return NULL;
    eddy_desync_search *s = eddy_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->mine = mine;
    s->result.frame = mine->frame;
    s->result.block = -1;
    return s;
}

void eddy_desync_search_destroy(eddy_desync_search *s) { eddy_free(s); }

eddy_desync_result eddy_desync_search_result(const eddy_desync_search *s) {
    eddy_desync_result none = {.frame = -1, .block = -1};
    return s ? s->result : none;
}

eddy_status eddy_desync_search_message(eddy_desync_search *s, eddy_bytes *out) {
    if (!s || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    if (s->state != EDDY_DESYNC_SEARCHING) return EDDY_ERROR_WRONG_STATE;
    const size_t start = out->size;
    wire_writer w;
    eddy_wire_writer_init(&w, out);
    eddy_wire_put_u16(&w, EDDY_DESYNC_MESSAGE_VERSION);
    eddy_wire_put_u16(&w, (uint16_t)s->round);
    eddy_wire_put_i64(&w, s->mine->frame);
    if (s->round == 0) {
        for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
            eddy_wire_put_u32(&w, (uint32_t)s->mine->blocks[c]);
            eddy_wire_put_u64(&w, s->mine->component_root[c]);
        }
    } else {
        eddy_wire_put_u64(&w, node_hash(s->mine, s->component, s->width, 2 * s->node));
        eddy_wire_put_u64(&w, node_hash(s->mine, s->component, s->width, 2 * s->node + 1));
    }
    if (!w.failed) s->result.bytes_sent += out->size - start;
    return eddy_wire_writer_status(&w);
}

/* Descend from `node`; at a leaf the search is over. */
static void go_to(eddy_desync_search *s, int64_t node) {
    s->node = node;
    if (node < s->width) return;
    s->result.block = (int)(node - s->width);
    s->result.component = (eddy_component)s->component;
    s->state = EDDY_DESYNC_LOCATED;
}

static void receive_first(eddy_desync_search *s, wire_reader *r) {
    uint32_t blocks[EDDY_COMPONENT_COUNT];
    uint64_t roots[EDDY_COMPONENT_COUNT];
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        blocks[c] = eddy_wire_get_u32(r, "block count");
        roots[c] = eddy_wire_get_u64(r, "component root");
        if (wire_ok(r) && blocks[c] > LOG_MAX_BLOCKS)
            eddy_wire_fail(r, EDDY_ERROR_CORRUPT, "block count %u is out of range", (unsigned)blocks[c]);
    }
    if (!wire_ok(r)) return;
    int c = 0;
    while (c < EDDY_COMPONENT_COUNT && blocks[c] == (uint32_t)s->mine->blocks[c] &&
           roots[c] == s->mine->component_root[c])
        ++c;
    if (c == EDDY_COMPONENT_COUNT) {
        s->state = EDDY_DESYNC_IN_SYNC;
        return;
    }
    s->component = c;
    s->result.component = (eddy_component)c;
    s->result.blocks_mine = s->mine->blocks[c];
    s->result.blocks_peer = (int)blocks[c];
    s->width = width_for(s->mine->blocks[c] > (int)blocks[c] ? s->mine->blocks[c] : (int)blocks[c]);
    go_to(s, 1);
}

static void receive_next(eddy_desync_search *s, wire_reader *r) {
    const uint64_t left = eddy_wire_get_u64(r, "left child");
    const uint64_t right = eddy_wire_get_u64(r, "right child");
    if (!wire_ok(r)) return;
    if (left != node_hash(s->mine, s->component, s->width, 2 * s->node)) go_to(s, 2 * s->node);
    else if (right != node_hash(s->mine, s->component, s->width, 2 * s->node + 1))
        go_to(s, 2 * s->node + 1);
    else
        eddy_wire_fail(r, EDDY_ERROR_CORRUPT,
                       "both children of node %lld agree although it differs (is the peer at "
                       "another frame or build?)", (long long)s->node);
}

eddy_status eddy_desync_search_receive(eddy_desync_search *s, const void *data, size_t size,
                                       eddy_desync_state *state, char *message,
                                       size_t message_size) {
    wire_reader r;
    eddy_wire_reader_init(&r, data, size, "desync message", message, message_size);
    if (!s || !state || (!data && size > 0)) {
        eddy_wire_fail(&r, EDDY_ERROR_INVALID_ARGUMENT, "search, state or data is NULL");
        return r.status;
    }
    if (s->state != EDDY_DESYNC_SEARCHING) {
        eddy_wire_fail(&r, EDDY_ERROR_WRONG_STATE, "the search is over");
        return r.status;
    }
    const uint16_t version = eddy_wire_get_u16(&r, "version");
    const uint16_t round = eddy_wire_get_u16(&r, "round");
    const int64_t frame = eddy_wire_get_i64(&r, "frame");
    if (wire_ok(&r) && version != EDDY_DESYNC_MESSAGE_VERSION)
        eddy_wire_fail(&r, EDDY_ERROR_VERSION, "message version %u, this build speaks version %d",
                       (unsigned)version, EDDY_DESYNC_MESSAGE_VERSION);
    else if (wire_ok(&r) && (round != (uint16_t)s->round || frame != s->mine->frame))
        eddy_wire_fail(&r, EDDY_ERROR_CORRUPT, "message of round %u, frame %lld; expected round %d, "
                       "frame %lld", (unsigned)round, (long long)frame, s->round,
                       (long long)s->mine->frame);
    const size_t want = s->round == 0 ? MESSAGE_FIRST_BYTES : MESSAGE_NEXT_BYTES;
    if (wire_ok(&r) && size != want)
        eddy_wire_fail(&r, size < want ? EDDY_ERROR_TRUNCATED : EDDY_ERROR_CORRUPT,
                       "%zu bytes, a round-%d message has %zu", size, s->round, want);
    if (!wire_ok(&r)) return r.status;
    eddy_desync_search saved = *s;
    if (s->round == 0) receive_first(s, &r);
    else receive_next(s, &r);
    if (!wire_ok(&r)) {
        *s = saved;
        return r.status;
    }
    s->round += 1;
    s->result.rounds = s->round;
    *state = s->state;
    return EDDY_OK;
}
