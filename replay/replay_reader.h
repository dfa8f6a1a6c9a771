/* SPDX-License-Identifier: MIT */
/* Internal to replay/: a replay file parsed and verified in memory. */
#ifndef EDDY_REPLAY_READER_H
#define EDDY_REPLAY_READER_H

#include "replay_format.h"

#include <zstd.h>

typedef struct frame_entry {
    const uint8_t *input;        /* encoded input of the step that produced the frame */
    uint32_t input_size;
    eddy_frame_hash hash;
    const uint8_t *blocks;       /* 4 x (u32 n, n x u64), or NULL */
} frame_entry;

typedef struct keyframe_entry {
    int64_t frame;
    const uint8_t *zframe;       /* zstd frame inside the file bytes */
    size_t compressed, content;
} keyframe_entry;

typedef struct replay_file {
    eddy_bytes bytes;            /* the whole file (owned) */
    file_header header;
    eddy_replay_info info;
    ZSTD_DCtx *dctx;
    uint8_t *world;              /* decompressed world record */
    const uint8_t *def;
    uint32_t def_size;
    const uint8_t *snapshot;
    size_t snapshot_size;
    eddy_frame_hash initial_hash;
    const uint8_t *initial_blocks;
    uint8_t **chunks;            /* decompressed chunk records */
    int chunk_count, chunk_capacity;
    frame_entry *frames;         /* frames[i] is frame first_frame + 1 + i */
    int64_t frame_count, frame_capacity;
    keyframe_entry *keyframes;
    int keyframe_count, keyframe_capacity;
} replay_file;

/* Parse and verify f->bytes (set by the caller). EDDY_OK: intact.
 * EDDY_ERROR_TRUNCATED: f holds every complete record (f->world != NULL if
 * the world record was recovered). Anything else: refused, f unusable.
 * The message names the problem or where reading stopped. */
eddy_status eddy_replay_file_parse(replay_file *f, bool strict, char *message, size_t size);
void eddy_replay_file_free(replay_file *f);

/* Decompress keyframe k into out (replacing its contents). */
eddy_status eddy_replay_keyframe_load(replay_file *f, int k, eddy_bytes *out, char *message,
                                 size_t size);

/* Block hashes of component c from a block record (see frame_entry). */
int eddy_replay_blocks_get(const uint8_t *blocks, int component, uint64_t *out, int capacity);

#endif
