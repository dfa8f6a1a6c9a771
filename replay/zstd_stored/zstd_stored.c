/* SPDX-License-Identifier: MIT */
/* Stored zstd frames (zstd.h beside this file says why and what).
 *
 * A frame written here: magic, a Frame_Header_Descriptor with a single
 * segment, an 8-byte Frame_Content_Size and the Content_Checksum flag, raw
 * blocks of at most 128 KiB, the last one flagged, then the low 32 bits of
 * XXH64(content, 0) (RFC 8878 3.1.1). The reader takes any frame header,
 * raw and RLE blocks, and checks the checksum when there is one. Every
 * symbol is internal to libeddy_replay (hidden visibility, not exported). */
#include "zstd.h"

#include <stdint.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { BLOCK_MAX = 128 * 1024, HEADER_MAX = 4 + 1 + 1 + 4 + 8 };

/* Error codes as zstd returns them: (size_t)-code. */
enum { E_GENERIC = 1, E_PREFIX = 10, E_FRAME_PARAM = 14, E_CORRUPT = 20, E_CHECKSUM = 22,
       E_COMPRESSED = 30, E_DST_SMALL = 70, E_SRC_SIZE = 72, E_MEMORY = 64 };
#define ERR(code) ((size_t)0 - (size_t)(code))

struct ZSTD_CCtx_s { ZSTD_customMem mem; int checksum, content_size; };
struct ZSTD_DCtx_s { ZSTD_customMem mem; };

unsigned ZSTD_isError(size_t code) { return code > ERR(120); }

const char *ZSTD_getErrorName(size_t code) {
    if (!ZSTD_isError(code)) return "No error detected";
    switch ((int)(0 - code)) {
    case E_PREFIX: return "Unknown frame descriptor";
    case E_FRAME_PARAM: return "Unsupported frame parameter";
    case E_CORRUPT: return "Data corruption detected";
    case E_CHECKSUM: return "Restored data doesn't match checksum";
    case E_COMPRESSED: return "compressed block: this libeddy_replay reads stored frames only";
    case E_DST_SMALL: return "Destination buffer is too small";
    case E_SRC_SIZE: return "Src size is incorrect";
    case E_MEMORY: return "Allocation error : not enough memory";
    default: return "Error (generic)";
    }
}

size_t ZSTD_compressBound(size_t n) { return n + (n / BLOCK_MAX + 1) * 3 + HEADER_MAX + 4; }

ZSTD_CCtx *ZSTD_createCCtx_advanced(ZSTD_customMem mem) {
    ZSTD_CCtx *c = mem.customAlloc(mem.opaque, sizeof *c);
    if (c) *c = (ZSTD_CCtx){mem, 0, 1};
    return c;
}

size_t ZSTD_freeCCtx(ZSTD_CCtx *c) {
    if (c) c->mem.customFree(c->mem.opaque, c);
    return 0;
}

size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *c, ZSTD_cParameter p, int value) {
    if (p == ZSTD_c_checksumFlag) c->checksum = value != 0;
    if (p == ZSTD_c_contentSizeFlag) c->content_size = value != 0;
    return 0; /* the level: every frame is stored */
}

static void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) p[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t get_le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int k = 0; k < bytes; ++k) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

size_t ZSTD_compress2(ZSTD_CCtx *c, void *dst, size_t cap, const void *src, size_t n) {
    if (cap < ZSTD_compressBound(n)) return ERR(E_DST_SMALL);
    uint8_t *o = dst;
    const uint8_t *s = src;
    put_le(o, ZSTD_FRAME_MAGIC, 4);
    o[4] = (uint8_t)(0xC0 | 0x20 | (c->checksum ? 0x04 : 0)); /* 8-byte size, single segment */
    put_le(o + 5, n, 8);
    size_t at = 13, done = 0;
    do {
        const size_t b = n - done < BLOCK_MAX ? n - done : BLOCK_MAX;
        const unsigned last = done + b == n;
        put_le(o + at, (uint64_t)(last | (0u << 1) | ((uint32_t)b << 3)), 3);
        if (b > 0) memcpy(o + at + 3, s + done, b);
        at += 3 + b;
        done += b;
    } while (done < n);
    if (c->checksum) {
        put_le(o + at, (uint32_t)XXH64(src, n, 0), 4);
        at += 4;
    }
    return at;
}

ZSTD_DCtx *ZSTD_createDCtx_advanced(ZSTD_customMem mem) {
    ZSTD_DCtx *d = mem.customAlloc(mem.opaque, sizeof *d);
    if (d) d->mem = mem;
    return d;
}

size_t ZSTD_freeDCtx(ZSTD_DCtx *d) {
    if (d) d->mem.customFree(d->mem.opaque, d);
    return 0;
}

size_t ZSTD_DCtx_setParameter(ZSTD_DCtx *d, ZSTD_dParameter p, int value) {
    (void)d, (void)p, (void)value;
    return 0;
}

typedef struct frame_header {
    size_t size;             /* bytes of the header, magic included */
    unsigned long long content;
    int checksum;
} frame_header;

/* RFC 8878 3.1.1.1; an error code, or 0. */
static size_t header_parse(const uint8_t *p, size_t n, frame_header *h) {
    if (n < 5) return ERR(E_SRC_SIZE);
    if (get_le(p, 4) != ZSTD_FRAME_MAGIC) return ERR(E_PREFIX);
    const unsigned fhd = p[4], fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, dict_flag = fhd & 3;
    if (fhd & 0x08) return ERR(E_FRAME_PARAM); /* reserved bit */
    static const int dict_bytes[4] = {0, 1, 2, 4};
    static const int fcs_bytes[4] = {0, 2, 4, 8};
    const int fcs = fcs_flag == 0 && single ? 1 : fcs_bytes[fcs_flag];
    size_t at = 5 + (single ? 0 : 1) + (size_t)dict_bytes[dict_flag];
    if (n < at + (size_t)fcs) return ERR(E_SRC_SIZE);
    h->content = fcs == 0 ? ZSTD_CONTENTSIZE_UNKNOWN : get_le(p + at, fcs) + (fcs == 2 ? 256 : 0);
    h->size = at + (size_t)fcs;
    h->checksum = (fhd >> 2) & 1;
    return 0;
}

unsigned long long ZSTD_getFrameContentSize(const void *src, size_t n) {
    frame_header h;
    return ZSTD_isError(header_parse(src, n, &h)) ? ZSTD_CONTENTSIZE_ERROR : h.content;
}

/* Walks the blocks; with dst, writes raw and RLE blocks there. */
static size_t frame_walk(const uint8_t *p, size_t n, uint8_t *dst, size_t cap, size_t *written) {
    frame_header h;
    size_t e = header_parse(p, n, &h);
    if (ZSTD_isError(e)) return e;
    size_t at = h.size, out = 0;
    for (;;) {
        if (n - at < 3) return ERR(E_SRC_SIZE);
        const uint32_t bh = (uint32_t)get_le(p + at, 3);
        const unsigned last = bh & 1, type = (bh >> 1) & 3;
        const size_t size = bh >> 3;
        at += 3;
        const size_t stored = type == 1 ? 1 : size; /* RLE: one byte, repeated size times */
        if (type == 3) return ERR(E_CORRUPT);
        if (n - at < stored) return ERR(E_SRC_SIZE);
        if (dst) {
            if (type == 2) return ERR(E_COMPRESSED);
            if (cap - out < size) return ERR(E_DST_SMALL);
            if (type == 0) memcpy(dst + out, p + at, size);
            else memset(dst + out, p[at], size);
            out += size;
        }
        at += stored;
        if (last) break;
    }
    if (h.checksum) {
        if (n - at < 4) return ERR(E_SRC_SIZE);
        if (dst && get_le(p + at, 4) != (uint32_t)XXH64(dst, out, 0)) return ERR(E_CHECKSUM);
        at += 4;
    }
    if (dst && h.content != ZSTD_CONTENTSIZE_UNKNOWN && h.content != out) return ERR(E_CORRUPT);
    if (written) *written = out;
    return at;
}

size_t ZSTD_findFrameCompressedSize(const void *src, size_t n) {
    return frame_walk(src, n, NULL, 0, NULL);
}

size_t ZSTD_decompressDCtx(ZSTD_DCtx *d, void *dst, size_t cap, const void *src, size_t n) {
    (void)d;
    size_t out = 0;
    const size_t e = frame_walk(src, n, dst, cap, &out);
    if (ZSTD_isError(e)) return e;
    if (e != n) return ERR(E_SRC_SIZE); /* one frame exactly */
    return out;
}
