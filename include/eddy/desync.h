/* SPDX-License-Identifier: MIT */
/* eddy — desync localisation between peers that cannot send each other their
 * states (docs/desync.md).
 *
 * Every frame each peer captures a hash tree of its state (the leaves are the
 * per-component block hashes of the canonical hash, docs/hash-spec.md) and
 * sends its 8-byte root. When the roots of a frame differ, both peers run a
 * desync search over the trees they kept for that frame: they exchange, round
 * by round, the hashes of the same few nodes and both descend to the same
 * child, until a leaf names the divergent component and block. A component of
 * n blocks is searched in 1 + ceil(log2 n) rounds; a round's message is 60
 * bytes (the first) or 28 bytes.
 *
 * Trees can also be written to a hash log (a header, then one record per
 * frame) and compared later: eddy-verify --desync A.log,B.log. */
#ifndef EDDY_DESYNC_H
#define EDDY_DESYNC_H

#include "hash.h"
#include "snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { EDDY_HASH_LOG_VERSION = 1, EDDY_DESYNC_MESSAGE_VERSION = 1 };

/* ---------------------------------------------------------------- trees */
typedef struct eddy_hash_tree eddy_hash_tree;

EDDY_API eddy_hash_tree *eddy_hash_tree_create(void); /* NULL: out of memory */
EDDY_API void eddy_hash_tree_destroy(eddy_hash_tree *tree); /* accepts NULL */
/* Capture the tree of the world's current state. Reuses the tree's storage:
 * capturing every frame into the same tree allocates only when the state
 * has more blocks than ever before. */
EDDY_API eddy_status eddy_hash_tree_capture(eddy_hash_tree *tree, eddy_world *world);
EDDY_API eddy_status eddy_hash_tree_copy(eddy_hash_tree *dst, const eddy_hash_tree *src);
EDDY_API int64_t eddy_hash_tree_frame(const eddy_hash_tree *tree);
/* The value exchanged every frame (8 bytes). Equal states, equal roots. */
EDDY_API uint64_t eddy_hash_tree_root(const eddy_hash_tree *tree);
/* Leaves (blocks) of one component. */
EDDY_API int eddy_hash_tree_blocks(const eddy_hash_tree *tree, eddy_component component);

/* ---------------------------------------------------------------- hash logs */
/* Appends the 16-byte header of a hash log. */
EDDY_API eddy_status eddy_hash_log_begin(eddy_bytes *out);
/* Appends one record (one frame's tree). */
EDDY_API eddy_status eddy_hash_log_append(const eddy_hash_tree *tree, eddy_bytes *out);
/* Checks the header at the start of data; *offset is set past it. */
EDDY_API eddy_status eddy_hash_log_read_begin(const void *data, size_t size, size_t *offset,
                                              char *message, size_t message_size);
/* Decodes the record at *offset into tree and advances *offset. A damaged or
 * cut record is refused with a message naming it; tree is then unchanged. */
EDDY_API eddy_status eddy_hash_log_read_record(const void *data, size_t size, size_t *offset,
                                               eddy_hash_tree *tree, char *message,
                                               size_t message_size);

/* ---------------------------------------------------------------- search */
typedef enum eddy_desync_state {
    EDDY_DESYNC_SEARCHING = 0, /* send the next message */
    EDDY_DESYNC_LOCATED = 1,   /* the result names component and block */
    EDDY_DESYNC_IN_SYNC = 2,   /* the trees are equal */
} eddy_desync_state;

typedef struct eddy_desync_result {
    int64_t frame;
    eddy_component component; /* valid when LOCATED */
    int block;                /* first divergent block of the component */
    int blocks_mine, blocks_peer; /* the component's block counts on both sides */
    int rounds;               /* messages sent (and received) so far */
    size_t bytes_sent;        /* by this peer so far (the peer sends as many) */
} eddy_desync_result;

typedef struct eddy_desync_search eddy_desync_search;

/* A search over mine (which must stay unchanged while the search runs). */
EDDY_API eddy_desync_search *eddy_desync_search_create(const eddy_hash_tree *mine);
EDDY_API void eddy_desync_search_destroy(eddy_desync_search *search); /* accepts NULL */
/* Appends this round's message to out (send it to the peer). */
EDDY_API eddy_status eddy_desync_search_message(eddy_desync_search *search, eddy_bytes *out);
/* The peer's message of the same round. On EDDY_OK *state says what next.
 * A message of another frame, round or version, or a cut one, is refused
 * (EDDY_ERROR_CORRUPT, EDDY_ERROR_TRUNCATED, EDDY_ERROR_VERSION) and the
 * search is unchanged. */
EDDY_API eddy_status eddy_desync_search_receive(eddy_desync_search *search, const void *data,
                                                size_t size, eddy_desync_state *state,
                                                char *message, size_t message_size);
EDDY_API eddy_desync_result eddy_desync_search_result(const eddy_desync_search *search);

#ifdef __cplusplus
}
#endif
#endif
