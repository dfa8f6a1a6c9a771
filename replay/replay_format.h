/* SPDX-License-Identifier: MIT */
/* Internal to replay/: the replay container's frames (normative layout:
 * docs/replay-format.md). Encoders append to an eddy_bytes; decoders check a
 * frame's bytes and fill a struct, returning a status and a message.
 *
 * Every eddy frame is a zstd skippable frame (magic REPLAY_SKIPPABLE_MAGIC,
 * u32 payload size) whose payload starts with a 4-byte tag and ends with an
 * XXH3-64 of the payload bytes before it (the frame's self-hash). So `zstd
 * -t` and any zstd decoder walk a replay file as a valid sequence of frames,
 * and a reader can check each frame on its own. */
#ifndef EDDY_REPLAY_FORMAT_H
#define EDDY_REPLAY_FORMAT_H

#include "eddy/replay.h"
#include "replay_wire.h"

#include <stdarg.h>

#define REPLAY_SKIPPABLE_MAGIC 0x184D2A55u  /* one of zstd's 16 skippable magics */
#define ZSTD_FRAME_MAGIC 0xFD2FB528u

enum {
    SKIP_HEADER_BYTES = 8,     /* magic, payload size */
    FILE_HEADER_PAYLOAD = 136,
    RECORD_HEADER_PAYLOAD = 64,
    FOOTER_PAYLOAD = 40,
    INDEX_ENTRY_BYTES = 32,
    FILE_HEADER_FRAME = SKIP_HEADER_BYTES + FILE_HEADER_PAYLOAD,
    RECORD_HEADER_FRAME = SKIP_HEADER_BYTES + RECORD_HEADER_PAYLOAD,
    FOOTER_FRAME = SKIP_HEADER_BYTES + FOOTER_PAYLOAD,
    MAX_FRAMES_PER_CHUNK = 4096,
};

/* Payload tags, little-endian u32 of the four ASCII bytes. */
#define TAG4(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define TAG_FILE_HEADER TAG4('E', 'R', 'P', 'H')
#define TAG_RECORD_HEADER TAG4('E', 'R', 'R', 'H')
#define TAG_INDEX TAG4('E', 'R', 'I', 'X')
#define TAG_FOOTER TAG4('E', 'R', 'F', 'T')

typedef enum record_kind {
    RECORD_WORLD = 1,     /* definition, initial snapshot, initial hash */
    RECORD_CHUNK = 2,     /* frames: input and resulting hash */
    RECORD_KEYFRAME = 3,  /* snapshot */
} record_kind;

enum { HEADER_FLAG_BLOCK_HASHES = 1u << 0 };

typedef struct file_header {
    uint32_t format_version;
    eddy_replay_fingerprint fingerprint;
    uint32_t frames_per_chunk;
    uint32_t keyframe_interval;
    uint32_t flags;              /* HEADER_FLAG_* */
    uint32_t compression_level;
    int64_t first_frame;
} file_header;

typedef struct record_header {
    uint32_t kind;               /* record_kind */
    uint32_t sequence;           /* 0, 1, 2, ... in file order */
    uint32_t frame_count;        /* chunk: frames in it; else 0 */
    int64_t first_frame;         /* world: initial frame; chunk: first frame; keyframe: frame */
    uint64_t compressed_size;    /* bytes of the zstd frame that follows */
    uint64_t content_size;       /* its decompressed size */
    uint64_t frame_hash;         /* XXH3-64 of the zstd frame's bytes */
    uint64_t prefix_hash;        /* XXH3-64 of every file byte before this header */
} record_header;

typedef struct index_entry {
    uint32_t kind;
    uint32_t frame_count;
    int64_t first_frame;
    uint64_t offset;             /* of the record header */
    uint64_t size;               /* record header + zstd frame */
} index_entry;

typedef struct footer {
    uint32_t record_count;
    int64_t last_frame;
    uint64_t index_offset;
    uint64_t file_hash;          /* XXH3-64 of every byte before the footer */
} footer;

/* The printf archetype of the messages: MinGW's C99 printf (the replay
 * objects are built with __USE_MINGW_ANSI_STDIO, replay/CMakeLists.txt)
 * checks as gnu_printf; "printf" there means msvcrt's, which knows no %zu. */
#if defined(__MINGW32__)
#define EDDY_REPLAY_PRINTF gnu_printf
#else
#define EDDY_REPLAY_PRINTF printf
#endif

/* Messages: snprintf into a caller buffer, tolerant of NULL/0. */
void eddy_replay_message(char *message, size_t size, const char *fmt, ...)
    __attribute__((format(EDDY_REPLAY_PRINTF, 3, 4)));
eddy_status eddy_replay_fail(char *message, size_t size, eddy_status status, const char *fmt, ...)
    __attribute__((format(EDDY_REPLAY_PRINTF, 4, 5)));

uint64_t eddy_replay_xxh3(const void *data, size_t size);

/* Encoders: append one complete skippable frame. false: out of memory. */
bool eddy_file_header_put(eddy_bytes *out, const file_header *h);
bool eddy_record_header_put(eddy_bytes *out, const record_header *h);
bool eddy_index_put(eddy_bytes *out, const index_entry *entries, uint32_t count);
bool eddy_footer_put(eddy_bytes *out, const footer *f);

/* Check the skippable frame at p (avail bytes): magic, payload size, tag and
 * self-hash. Returns EDDY_OK with *frame_bytes set, EDDY_ERROR_TRUNCATED if
 * avail is too short for it, EDDY_ERROR_CORRUPT otherwise. expected_payload
 * 0 means any size (index). */
eddy_status eddy_skippable_check(const uint8_t *p, size_t avail, uint32_t tag, size_t expected_payload,
                            size_t *frame_bytes, const char *what, char *message, size_t size);
/* Tag of the skippable frame at p, or 0 if it is not an eddy frame. */
uint32_t eddy_skippable_tag(const uint8_t *p, size_t avail);

/* Decoders of checked frames (eddy_skippable_check passed). */
eddy_status eddy_file_header_get(const uint8_t *frame, size_t avail, file_header *h, char *message,
                            size_t size);
void eddy_record_header_get(const uint8_t *frame, record_header *h);
void eddy_footer_get(const uint8_t *frame, footer *f);
/* Entry k of a checked index frame. */
uint32_t eddy_index_count(const uint8_t *frame);
void eddy_index_entry_get(const uint8_t *frame, uint32_t k, index_entry *e);

/* Fingerprint policy (replay_fingerprint.c): EDDY_OK if a recording made
 * with recorded can be played by this build; VERSION or FINGERPRINT with a
 * message otherwise. Accepted differences are described in warnings. */
eddy_status eddy_fingerprint_check(const eddy_replay_fingerprint *recorded, bool strict, char *message,
                              size_t message_size, char *warnings, size_t warnings_size);

#endif
