/* SPDX-License-Identifier: MIT */
/* Internal: little-endian wire helpers shared by codec.c and snapshot.c.
 * Never installed (replay/ has its own copy in replay/wire.h: lib/ internals
 * are not part of the API replay/ builds on).
 *
 * Writer: appends to an eddy_bytes; an allocation failure is sticky (every
 * later put is a no-op) and reported once by eddy_wire_writer_status, so encoders
 * are straight-line code without a check after every field.
 *
 * Reader: a cursor over caller-owned bytes with a sticky first error. A read
 * past the end sets EDDY_ERROR_TRUNCATED and returns 0; the message names the
 * field being read and the byte offset. Decoders read everything, then check
 * reader->status once. A bool is one byte that must be 0 or 1 (anything else
 * is EDDY_ERROR_CORRUPT): a flipped bit in a flag never reads as "true". */
#ifndef EDDY_CODEC_H
#define EDDY_CODEC_H

#include "core/core.h"
#include "eddy/snapshot.h"

#include <stdarg.h>

typedef struct wire_writer {
    eddy_bytes *out;
    bool failed; /* an allocation failed; nothing more is appended */
} wire_writer;

void eddy_wire_writer_init(wire_writer *w, eddy_bytes *out);
/* EDDY_OK, or EDDY_ERROR_OUT_OF_MEMORY if any append failed. */
eddy_status eddy_wire_writer_status(const wire_writer *w);
/* Make room for extra more bytes; false (and failed) on allocation failure. */
bool eddy_wire_reserve(wire_writer *w, size_t extra);
void eddy_wire_put_bytes(wire_writer *w, const void *bytes, size_t n);
void eddy_wire_put_u8(wire_writer *w, uint8_t v);
void eddy_wire_put_u16(wire_writer *w, uint16_t v);
void eddy_wire_put_u32(wire_writer *w, uint32_t v);
void eddy_wire_put_u64(wire_writer *w, uint64_t v);
void eddy_wire_put_i32(wire_writer *w, int32_t v);
void eddy_wire_put_i64(wire_writer *w, int64_t v);
void eddy_wire_put_f32(wire_writer *w, float v);
void eddy_wire_put_f64(wire_writer *w, double v);
void eddy_wire_put_bool(wire_writer *w, bool v);
void eddy_wire_put_vec3(wire_writer *w, eddy_vec3 v);
/* n 32-bit values (float bit patterns or int32), little-endian. */
void eddy_wire_put_words32(wire_writer *w, const void *words, size_t n);
/* Room for n 32-bit values, appended now and filled later with
 * eddy_wire_store_words32 (before anything reads the bytes): the offset of
 * the room, or SIZE_MAX when the append failed. */
size_t eddy_wire_put_room32(wire_writer *w, size_t n);
/* The bytes eddy_wire_put_words32 appends for n values, stored at dst. */
void eddy_wire_store_words32(uint8_t *dst, const void *words, size_t n);
/* Overwrite 8 bytes at offset (a length or checksum written after the fact). */
void eddy_wire_patch_u64(wire_writer *w, size_t offset, uint64_t v);

typedef struct wire_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    eddy_status status;
    const char *what;   /* name of the structure being read, for messages */
    char *message;
    size_t message_size;
} wire_reader;

void eddy_wire_reader_init(wire_reader *r, const void *data, size_t size, const char *what,
                      char *message, size_t message_size);
/* Record the first error (later ones are ignored). */
void eddy_wire_fail(wire_reader *r, eddy_status status, const char *fmt, ...)
    EDDY_PRINTF_LIKE(3, 4);
static inline bool wire_ok(const wire_reader *r) { return r->status == EDDY_OK; }
static inline size_t wire_remaining(const wire_reader *r) { return r->size - r->pos; }
/* True if n more bytes are there; else fails with TRUNCATED naming field. */
bool eddy_wire_need(wire_reader *r, size_t n, const char *field);
const uint8_t *eddy_wire_get_bytes(wire_reader *r, size_t n, const char *field);
uint8_t eddy_wire_get_u8(wire_reader *r, const char *field);
uint16_t eddy_wire_get_u16(wire_reader *r, const char *field);
uint32_t eddy_wire_get_u32(wire_reader *r, const char *field);
uint64_t eddy_wire_get_u64(wire_reader *r, const char *field);
int32_t eddy_wire_get_i32(wire_reader *r, const char *field);
int64_t eddy_wire_get_i64(wire_reader *r, const char *field);
float eddy_wire_get_f32(wire_reader *r, const char *field);
double eddy_wire_get_f64(wire_reader *r, const char *field);
bool eddy_wire_get_bool(wire_reader *r, const char *field);
eddy_vec3 eddy_wire_get_vec3(wire_reader *r, const char *field);
/* n 32-bit little-endian values into words (float or int32 storage). */
void eddy_wire_get_words32(wire_reader *r, void *words, size_t n, const char *field);
/* A count that must be <= max and whose elements (min_bytes each) fit in the
 * remaining bytes: a corrupt count never drives a huge allocation. */
uint32_t eddy_wire_get_count(wire_reader *r, uint32_t max, size_t min_bytes, const char *field);

/* XXH3-64 (seed 0) of bytes: the digest used by snapshots and replays. */
uint64_t eddy_wire_xxh3(const void *data, size_t size);

/* Encodings shared by codec.c and snapshot.c. */
void eddy_codec_put_emitter_def(wire_writer *w, const eddy_emitter_def *d);
void eddy_codec_get_emitter_def(wire_reader *r, eddy_emitter_def *d);
/* Body definition incl. its shape; put returns false for an unknown type. */
bool eddy_codec_put_body_def(wire_writer *w, const eddy_body_def *d);
void eddy_codec_get_body_def(wire_reader *r, eddy_body_def *d);
/* Digest of the def's physical encoding; false if it could not be encoded. */
bool eddy_codec_def_digest(const eddy_world_def *def, uint64_t *digest);

#endif
