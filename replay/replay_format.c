/* SPDX-License-Identifier: MIT */
/* The replay container's own frames: file header, record headers, seek index
 * and footer (docs/replay-format.md §2). All are zstd skippable frames with a
 * tagged, self-hashed payload of little-endian fields. */
#include "replay_format.h"

#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t eddy_replay_xxh3(const void *data, size_t size) { return XXH3_64bits(data, size); }

void eddy_replay_message(char *message, size_t size, const char *fmt, ...) {
    if (!message || size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, size, fmt, ap);
    va_end(ap);
}

eddy_status eddy_replay_fail(char *message, size_t size, eddy_status status, const char *fmt, ...) {
    if (message && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, size, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---------------------------------------------------------------- framing */
/* Appends the skippable frame header and the tag; returns the payload start. */
static size_t frame_begin(put_buffer *p, uint32_t tag, size_t payload) {
    put32(p, REPLAY_SKIPPABLE_MAGIC);
    put32(p, (uint32_t)payload);
    size_t start = p->b->size;
    put32(p, tag);
    return start;
}

/* Appends the self-hash of the payload written since start. */
static bool frame_end(put_buffer *p, size_t start, size_t payload) {
    if (p->failed) return false;
    put64(p, eddy_replay_xxh3(p->b->data + start, p->b->size - start));
    return !p->failed && p->b->size - start == payload;
}

static void put_string(put_buffer *p, const char *s, size_t field) {
    uint8_t buf[64] = {0};
    size_t n = strlen(s);
    if (n > field - 1) n = field - 1;
    memcpy(buf, s, n);
    put_raw(p, buf, field);
}

bool eddy_file_header_put(eddy_bytes *out, const file_header *h) {
    put_buffer p = {out, false};
    const eddy_replay_fingerprint *f = &h->fingerprint;
    size_t start = frame_begin(&p, TAG_FILE_HEADER, FILE_HEADER_PAYLOAD);
    put32(&p, h->format_version);
    put_string(&p, f->eddy_version, sizeof f->eddy_version);
    put32(&p, f->hash_spec_version);
    put32(&p, f->snapshot_version);
    put32(&p, f->input_version);
    put32(&p, f->def_version);
    put32(&p, (uint32_t)f->arch);
    put32(&p, f->fp_model);
    put32(&p, f->flush_denormals ? 1u : 0u);
    put32(&p, f->build_flags);
    put_string(&p, f->compiler, sizeof f->compiler);
    put32(&p, h->frames_per_chunk);
    put32(&p, h->keyframe_interval);
    put32(&p, h->flags);
    put32(&p, h->compression_level);
    put64(&p, (uint64_t)h->first_frame);
    return frame_end(&p, start, FILE_HEADER_PAYLOAD);
}

bool eddy_record_header_put(eddy_bytes *out, const record_header *h) {
    put_buffer p = {out, false};
    size_t start = frame_begin(&p, TAG_RECORD_HEADER, RECORD_HEADER_PAYLOAD);
    put32(&p, h->kind);
    put32(&p, h->sequence);
    put32(&p, h->frame_count);
    put64(&p, (uint64_t)h->first_frame);
    put64(&p, h->compressed_size);
    put64(&p, h->content_size);
    put64(&p, h->frame_hash);
    put64(&p, h->prefix_hash);
    return frame_end(&p, start, RECORD_HEADER_PAYLOAD);
}

bool eddy_index_put(eddy_bytes *out, const index_entry *entries, uint32_t count) {
    put_buffer p = {out, false};
    const size_t payload = 16 + (size_t)count * INDEX_ENTRY_BYTES;
    size_t start = frame_begin(&p, TAG_INDEX, payload);
    put32(&p, count);
    for (uint32_t k = 0; k < count; ++k) {
        put32(&p, entries[k].kind);
        put32(&p, entries[k].frame_count);
        put64(&p, (uint64_t)entries[k].first_frame);
        put64(&p, entries[k].offset);
        put64(&p, entries[k].size);
    }
    return frame_end(&p, start, payload);
}

bool eddy_footer_put(eddy_bytes *out, const footer *f) {
    put_buffer p = {out, false};
    size_t start = frame_begin(&p, TAG_FOOTER, FOOTER_PAYLOAD);
    put32(&p, f->record_count);
    put64(&p, (uint64_t)f->last_frame);
    put64(&p, f->index_offset);
    put64(&p, f->file_hash);
    return frame_end(&p, start, FOOTER_PAYLOAD);
}

/* ---------------------------------------------------------------- checking */
uint32_t eddy_skippable_tag(const uint8_t *p, size_t avail) {
    if (avail < SKIP_HEADER_BYTES + 4 || le32(p) != REPLAY_SKIPPABLE_MAGIC) return 0;
    return le32(p + SKIP_HEADER_BYTES);
}

static const char *tag_text(uint32_t tag, char buf[5]) {
    for (int i = 0; i < 4; ++i) {
        char c = (char)(tag >> (8 * i));
        buf[i] = c >= 0x20 && c < 0x7f ? c : '?';
    }
    buf[4] = '\0';
    return buf;
}

eddy_status eddy_skippable_check(const uint8_t *p, size_t avail, uint32_t tag, size_t expected_payload,
                            size_t *frame_bytes, const char *what, char *message, size_t size) {
    char a[5], b[5];
    if (avail < SKIP_HEADER_BYTES)
        return eddy_replay_fail(message, size, EDDY_ERROR_TRUNCATED, "%s: cut short in its frame header",
                           what);
    if (le32(p) != REPLAY_SKIPPABLE_MAGIC)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT,
                           "%s: bad frame magic 0x%08x (expected 0x%08x)", what, (unsigned)le32(p),
                           (unsigned)REPLAY_SKIPPABLE_MAGIC);
    const size_t payload = le32(p + 4);
    if (payload < 12 || (expected_payload != 0 && payload != expected_payload))
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT, "%s: payload of %zu bytes (expected %zu)",
                           what, payload, expected_payload);
    if (payload > avail - SKIP_HEADER_BYTES)
        return eddy_replay_fail(message, size, EDDY_ERROR_TRUNCATED,
                           "%s: cut short (%zu of %zu payload bytes present)", what,
                           avail - SKIP_HEADER_BYTES, payload);
    const uint8_t *q = p + SKIP_HEADER_BYTES;
    if (le32(q) != tag)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT, "%s: tag '%s' (expected '%s')", what,
                           tag_text(le32(q), a), tag_text(tag, b));
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if (le64(q + payload - 8) != eddy_replay_xxh3(q, payload - 8))
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT, "%s: checksum mismatch", what);
#endif
    *frame_bytes = SKIP_HEADER_BYTES + payload;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- decoding */
/* A fixed-size string field: NUL-terminated, zero after the terminator. */
static bool get_string(const uint8_t *p, size_t field, char *out) {
    size_t n = 0;
    while (n < field && p[n] != 0) ++n;
    if (n == field) return false;
    for (size_t i = n; i < field; ++i)
        if (p[i] != 0) return false;
    memcpy(out, p, field);
    return true;
}

static eddy_status header_version(const uint8_t *p, size_t avail, char *message, size_t size) {
    static const uint8_t magic[4] = {0x55, 0x2A, 0x4D, 0x18};
    size_t have = avail < 4 ? avail : 4;
    if (have > 0 && memcmp(p, magic, have) != 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT,
                           "not an eddy replay (the file does not start with its header frame)");
    if (avail < SKIP_HEADER_BYTES + 8)
        return eddy_replay_fail(message, size, EDDY_ERROR_TRUNCATED,
                           "file cut short in its header (%zu bytes)", avail);
    if (le32(p + SKIP_HEADER_BYTES) != TAG_FILE_HEADER)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT, "not an eddy replay (bad header tag)");
    uint32_t version = le32(p + SKIP_HEADER_BYTES + 4);
    if (version != EDDY_REPLAY_FORMAT_VERSION)
        return eddy_replay_fail(message, size, EDDY_ERROR_VERSION,
                           "replay format version %u; this build reads version %d", (unsigned)version,
                           EDDY_REPLAY_FORMAT_VERSION);
    return EDDY_OK;
}

static bool header_fields(const uint8_t *q, file_header *h) {
    eddy_replay_fingerprint *f = &h->fingerprint;
    memset(h, 0, sizeof *h);
    h->format_version = le32(q + 4);
    bool ok = get_string(q + 8, sizeof f->eddy_version, f->eddy_version);
    f->hash_spec_version = le32(q + 24);
    f->snapshot_version = le32(q + 28);
    f->input_version = le32(q + 32);
    f->def_version = le32(q + 36);
    uint32_t arch = le32(q + 40);
    f->arch = arch == EDDY_ARCH_X86_64 ? EDDY_ARCH_X86_64
              : arch == EDDY_ARCH_AARCH64 ? EDDY_ARCH_AARCH64 : EDDY_ARCH_OTHER;
    f->fp_model = le32(q + 44);
    uint32_t flush = le32(q + 48);
    f->flush_denormals = flush == 1;
    f->build_flags = le32(q + 52);
    ok = ok && get_string(q + 56, sizeof f->compiler, f->compiler) && flush <= 1 && arch <= 2;
    h->frames_per_chunk = le32(q + 104);
    h->keyframe_interval = le32(q + 108);
    h->flags = le32(q + 112);
    h->compression_level = le32(q + 116);
    h->first_frame = (int64_t)le64(q + 120);
    return ok;
}

eddy_status eddy_file_header_get(const uint8_t *frame, size_t avail, file_header *h, char *message,
                            size_t size) {
    eddy_status s = header_version(frame, avail, message, size);
    if (s != EDDY_OK) return s;
    size_t bytes;
    s = eddy_skippable_check(frame, avail, TAG_FILE_HEADER, FILE_HEADER_PAYLOAD, &bytes, "file header",
                        message, size);
    if (s != EDDY_OK) return s;
    const uint8_t *q = frame + SKIP_HEADER_BYTES;
    if (!header_fields(q, h))
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT,
                           "file header: a text field or flag is malformed");
    if (h->frames_per_chunk < 1 || h->frames_per_chunk > MAX_FRAMES_PER_CHUNK ||
        (h->flags & ~(uint32_t)HEADER_FLAG_BLOCK_HASHES) != 0 || h->first_frame < 0 ||
        h->first_frame >= INT32_MAX || h->keyframe_interval > INT32_MAX)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT,
                           "file header: recorder settings out of range");
    return EDDY_OK;
}

void eddy_record_header_get(const uint8_t *frame, record_header *h) {
    const uint8_t *q = frame + SKIP_HEADER_BYTES;
    h->kind = le32(q + 4);
    h->sequence = le32(q + 8);
    h->frame_count = le32(q + 12);
    h->first_frame = (int64_t)le64(q + 16);
    h->compressed_size = le64(q + 24);
    h->content_size = le64(q + 32);
    h->frame_hash = le64(q + 40);
    h->prefix_hash = le64(q + 48);
}

void eddy_footer_get(const uint8_t *frame, footer *f) {
    const uint8_t *q = frame + SKIP_HEADER_BYTES;
    f->record_count = le32(q + 4);
    f->last_frame = (int64_t)le64(q + 8);
    f->index_offset = le64(q + 16);
    f->file_hash = le64(q + 24);
}

uint32_t eddy_index_count(const uint8_t *frame) { return le32(frame + SKIP_HEADER_BYTES + 4); }

void eddy_index_entry_get(const uint8_t *frame, uint32_t k, index_entry *e) {
    const uint8_t *q = frame + SKIP_HEADER_BYTES + 8 + (size_t)k * INDEX_ENTRY_BYTES;
    e->kind = le32(q);
    e->frame_count = le32(q + 4);
    e->first_frame = (int64_t)le64(q + 8);
    e->offset = le64(q + 16);
    e->size = le64(q + 24);
}
