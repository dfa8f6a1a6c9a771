/* SPDX-License-Identifier: MIT */
/* Internal to replay/: little-endian byte helpers over eddy_bytes.
 *
 * replay/ builds on eddy's public API only, so it does not share lib/'s
 * internal wire helpers; these are the few it needs, header-only. Readers
 * here are plain bounds-checked loads: the callers check sizes up front
 * (fixed-size frames) or use rd_* with a cursor that refuses to run past
 * the end. */
#ifndef EDDY_REPLAY_WIRE_H
#define EDDY_REPLAY_WIRE_H

#include "eddy/snapshot.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- loads */
static inline uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static inline void store32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void store64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------------------------------------------------------------- appends */
/* Grow b so that extra more bytes fit; false on allocation failure. The
 * buffer is realloc'd, so eddy_bytes_free (free) releases it. */
static inline bool bytes_reserve(eddy_bytes *b, size_t extra) {
    if (extra <= b->capacity - b->size) return true;
    if (extra > SIZE_MAX / 2 - b->size) return false;
    size_t cap = b->capacity < 256 ? 256 : b->capacity;
    while (cap - b->size < extra) cap *= 2;
    uint8_t *p = eddy_realloc(b->data, cap);
    if (!p) return false;
    b->data = p;
    b->capacity = cap;
    return true;
}

static inline bool bytes_append(eddy_bytes *b, const void *data, size_t n) {
    if (n == 0) return true;
    if (!bytes_reserve(b, n)) return false;
    memcpy(b->data + b->size, data, n);
    b->size += n;
    return true;
}

/* Appends with a sticky failure flag, for straight-line record writers. */
typedef struct put_buffer {
    eddy_bytes *b;
    bool failed;
} put_buffer;

static inline void put_raw(put_buffer *p, const void *data, size_t n) {
    if (!p->failed && !bytes_append(p->b, data, n)) p->failed = true;
}

static inline void put32(put_buffer *p, uint32_t v) {
    uint8_t b[4];
    store32(b, v);
    put_raw(p, b, 4);
}

static inline void put64(put_buffer *p, uint64_t v) {
    uint8_t b[8];
    store64(b, v);
    put_raw(p, b, 8);
}

/* ---------------------------------------------------------------- cursor */
typedef struct cursor {
    const uint8_t *p;
    size_t size, pos;
    bool bad; /* ran past the end */
} cursor;

static inline bool rd_need(cursor *c, size_t n) {
    if (c->bad || n > c->size - c->pos) {
        c->bad = true;
        return false;
    }
    return true;
}

static inline const uint8_t *rd_bytes(cursor *c, size_t n) {
    if (!rd_need(c, n)) return NULL;
    const uint8_t *q = c->p + c->pos;
    c->pos += n;
    return q;
}

static inline uint32_t rd32(cursor *c) {
    const uint8_t *q = rd_bytes(c, 4);
    return q ? le32(q) : 0;
}

static inline uint64_t rd64(cursor *c) {
    const uint8_t *q = rd_bytes(c, 8);
    return q ? le64(q) : 0;
}

#endif
