/* SPDX-License-Identifier: MIT */
/* Internal to replay/: a replay file, verified once when it is opened and
 * then read lazily: chunks are decompressed on demand into a small cache
 * (replay_reader.c, "Design notes"). */
#ifndef EDDY_REPLAY_READER_H
#define EDDY_REPLAY_READER_H

#include "replay_format.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced: eddy's allocator */
#include <zstd.h>

typedef struct frame_entry {
    const uint8_t *input;        /* encoded input of the step that produced the frame */
    uint32_t input_size;
    eddy_frame_hash hash;
    const uint8_t *blocks;       /* 4 x (u32 n, n x u64), or NULL */
} frame_entry;

typedef struct keyframe_entry {
    int64_t frame;
    uint64_t offset;             /* of its zstd frame in the file */
    uint64_t zhash;              /* XXH3-64 of the zstd frame (checked again on every load) */
    size_t compressed, content;
} keyframe_entry;

typedef struct chunk_entry {
    uint64_t offset;             /* of its zstd frame in the file */
    uint64_t zhash;              /* XXH3-64 of the zstd frame */
    size_t compressed, content;
    int64_t first_frame;
    uint32_t frame_count;
    uint32_t sequence;           /* record number, for messages */
} chunk_entry;

/* Decompressed chunks, least recently used first out. Behind a pointer:
 * loading a chunk changes no observable state, so readers that hold a
 * const replay_file may load. */
enum { REPLAY_CHUNK_CACHE = 4 };

typedef struct chunk_slot {
    int chunk;                   /* index into chunks; -1: empty */
    uint64_t used;               /* clock of the last use */
    uint8_t *content;
    frame_entry *frames;         /* frame_count entries pointing into content */
} chunk_slot;

typedef struct replay_cache {
    chunk_slot slots[REPLAY_CHUNK_CACHE];
    uint64_t clock;
    eddy_bytes compressed;       /* a record read from the file */
    ZSTD_DCtx *dctx;
    char message[256];           /* why the last load failed */
} replay_cache;

typedef struct replay_file {
    eddy_bytes bytes;            /* memory source: the whole file (owned) */
    int fd;                      /* file source (owned, closed by free); -1: memory */
    uint64_t size;               /* file size */
    file_header header;
    eddy_replay_info info;
    uint8_t *world;              /* decompressed world record */
    const uint8_t *def;
    uint32_t def_size;
    const uint8_t *snapshot;
    size_t snapshot_size;
    eddy_frame_hash initial_hash;
    const uint8_t *initial_blocks;
    chunk_entry *chunks;         /* in frame order */
    int chunk_count, chunk_capacity;
    int64_t frame_count;         /* frames first_frame + 1 .. first_frame + frame_count */
    replay_cache *cache;
    keyframe_entry *keyframes;
    int keyframe_count, keyframe_capacity;
} replay_file;

/* Sources: a whole file in memory (f->bytes, set by the caller after
 * eddy_replay_file_init) or an open file descriptor (eddy_replay_file_open). */
void eddy_replay_file_init(replay_file *f);
eddy_status eddy_replay_file_open(replay_file *f, const char *path, char *message, size_t size);

/* Parse and verify the source. EDDY_OK: intact.
 * EDDY_ERROR_TRUNCATED: f holds every complete record (f->world != NULL if
 * the world record was recovered). Anything else: refused, f unusable.
 * The message names the problem or where reading stopped. */
eddy_status eddy_replay_file_parse(replay_file *f, bool strict, char *message, size_t size);
void eddy_replay_file_free(replay_file *f);

/* Decompress keyframe k into out (replacing its contents). */
eddy_status eddy_replay_keyframe_load(const replay_file *f, int k, eddy_bytes *out, char *message,
                                 size_t size);

/* The record of frame (first_frame < frame <= last): *out points into the
 * chunk cache and stays valid until REPLAY_CHUNK_CACHE - 1 other chunks
 * were loaded. EDDY_ERROR_NOT_FOUND outside the recording; a chunk that no
 * longer reads back as it did when the file was opened is
 * EDDY_ERROR_CORRUPT (or EDDY_ERROR_IO), with the reason in
 * f->cache->message. */
eddy_status eddy_replay_frame_get(const replay_file *f, int64_t frame, const frame_entry **out);

/* Block hashes of component c from a block record (see frame_entry). */
int eddy_replay_blocks_get(const uint8_t *blocks, int component, uint64_t *out, int capacity);

#endif
