/* SPDX-License-Identifier: MIT */
/* Reading a replay: verify a whole file once, then read it lazily.
 *
 * Design notes.
 * - Two sources: a file read with pread (eddy_player_open_file) or the
 *   whole file in memory (open_memory, open_read). Opening reads every byte
 *   once and checks everything below, but keeps only the decompressed world
 *   record, one entry per chunk and per keyframe (offset, sizes, the XXH3 of
 *   its zstd frame) and per-record bookkeeping. A chunk is decompressed
 *   again when a frame in it is needed, into a cache of REPLAY_CHUNK_CACHE
 *   chunks (least recently used out); its zstd frame must hash to what it
 *   did at open, so a file changed behind the player's back is reported as
 *   corrupt, never trusted. Memory is the world record plus a few chunks
 *   and a keyframe, not the file size (docs/replay.md, "Memory").
 * - Two kinds of file. A *complete* file ends with a valid footer (its own
 *   self-hash checks); then the whole-file hash in the footer must match,
 *   the seek index must describe exactly the records the scan finds, and any
 *   failure anywhere is EDDY_ERROR_CORRUPT. A file without a valid footer is
 *   read as *cut short*: records are scanned from the start and kept while
 *   they verify; the scan stops at the first record that ends beyond the
 *   end of the file (or at a partial index) and the file is reported
 *   EDDY_ERROR_TRUNCATED with every complete chunk recovered. A record that
 *   is all there but fails a check is corruption, never truncation.
 * - What is checked for each record before anything is decompressed: the
 *   record header's self-hash; its prefix hash against the running XXH3 of
 *   every byte before it (so header and framing damage anywhere earlier is
 *   caught, also in a cut-short file); the sequence number; the XXH3 of the
 *   zstd frame's bytes; that the zstd frame's own size, content size and
 *   checksum flag agree with the header. zstd then checks the content
 *   checksum while decompressing.
 * - Nothing in the file is trusted for a size: every count and length is
 *   checked against the bytes actually present before it is used, content
 *   sizes are capped, and chunk and world contents are parsed with a
 *   bounds-checked cursor. Inputs are decoded once here, so a player never
 *   meets an undecodable input later.
 * - Keyframes are verified (hashes, zstd framing) but decompressed only when
 *   a seek needs them. Keyframes past the last recovered frame of a cut-short
 *   file are dropped: their frame's recorded hash is lost with its chunk.
 * - Fuzzing builds (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION) skip the
 *   checksum comparisons so the fuzzer reaches the parsers behind them. */
#include "replay_reader.h"
#include "replay_io.h"

#include <errno.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CHECKSUM_MISMATCH(a, b) ((void)(a), (void)(b), false)
enum { MAX_CONTENT = 1 << 24 };
#else
#define CHECKSUM_MISMATCH(a, b) ((a) != (b))
enum { MAX_CONTENT = 1 << 30 };
#endif

/* A record as the scan met it, for the seek index check. */
typedef struct record_seen {
    uint64_t offset, size;
    uint32_t kind, frame_count;
    int64_t first_frame;
} record_seen;

typedef struct scan {
    replay_file *f;
    size_t size;
    size_t pos, end;             /* next record; where records stop */
    bool complete;
    bool file_hash_bad;          /* the whole-file hash failed: found by the walk, or reported after it */
    footer foot;
    const uint8_t *index;        /* index frame (complete files) */
    eddy_bytes header_buf, zframe_buf, index_buf; /* file source: bytes read */
    record_seen *records;
    int64_t record_count, record_capacity;
    XXH3_state_t prefix;         /* every byte before pos */
    uint32_t sequence;
    int64_t next_frame;          /* frame the next chunk must start at */
    eddy_input_storage *inputs;
    char *message;
    size_t message_size;
    bool stopped;                /* cut short: stop scanning, keep what we have */
} scan;

/* ---------------------------------------------------------------- growth */
static bool grow(void **items, int64_t *capacity, int64_t needed, size_t item) {
    if (needed <= *capacity) return true;
    int64_t cap = *capacity ? *capacity : 64;
    while (cap < needed) cap *= 2;
    if ((uint64_t)cap > SIZE_MAX / item) return false;
    void *p = eddy_realloc(*items, (size_t)cap * item);
    if (!p) return false;
    *items = p;
    *capacity = cap;
    return true;
}

static bool grow_int(void **items, int *capacity, int needed, size_t item) {
    int64_t cap = *capacity;
    bool ok = grow(items, &cap, needed, item);
    if (ok) *capacity = (int)cap;
    return ok;
}

/* ---------------------------------------------------------------- outcomes */
static eddy_status vcorrupt(char *message, size_t size, size_t pos, const char *fmt, va_list ap)
    __attribute__((format(EDDY_REPLAY_PRINTF, 4, 0)));
static eddy_status vcorrupt(char *message, size_t size, size_t pos, const char *fmt, va_list ap) {
    if (message && size) {
        int n = snprintf(message, size, "corrupt at byte %zu: ", pos);
        if (n >= 0 && (size_t)n < size) vsnprintf(message + n, size - (size_t)n, fmt, ap);
    }
    return EDDY_ERROR_CORRUPT;
}

static eddy_status corrupt(scan *s, const char *fmt, ...) __attribute__((format(EDDY_REPLAY_PRINTF, 2, 3)));
static eddy_status corrupt(scan *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vcorrupt(s->message, s->message_size, s->pos, fmt, ap);
    va_end(ap);
    return EDDY_ERROR_CORRUPT;
}

/* ---------------------------------------------------------------- source */
/* n bytes at offset (within the file): a pointer into the file in memory,
 * or the bytes read into buf. NULL if they cannot be read. */
static const uint8_t *source_view(const replay_file *f, size_t offset, size_t n, eddy_bytes *buf) {
    static const uint8_t nothing[1];
    if (f->fd < 0) return f->bytes.data ? f->bytes.data + offset : nothing;
    buf->size = 0;
    if (!bytes_reserve(buf, n + 1) || !eddy_file_read_at(f->fd, offset, buf->data, n)) return NULL;
    buf->size = n;
    return buf->data;
}

static eddy_status read_failed(scan *s, size_t offset, size_t n) {
    return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_IO,
                            "cannot read %zu bytes at byte %zu of the file (%s)", n, offset,
                            errno ? strerror(errno) : "it became shorter");
}

/* XXH3-64 of the file's first n bytes. */
static bool hash_prefix(scan *s, size_t n, uint64_t *out) {
    if (s->f->fd < 0) {
        *out = eddy_replay_xxh3(s->f->bytes.data, n);
        return true;
    }
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    for (size_t at = 0; at < n;) {
        const size_t piece = n - at < ((size_t)1 << 20) ? n - at : (size_t)1 << 20;
        const uint8_t *p = source_view(s->f, at, piece, &s->zframe_buf);
        if (!p) return false;
        XXH3_64bits_update(&state, p, piece);
        at += piece;
    }
    *out = XXH3_64bits_digest(&state);
    return true;
}

/* A cut-short file: keep what was read. In a complete file this cannot
 * happen honestly, so it is corruption. */
static eddy_status cut_short(scan *s, const char *what) {
    if (s->complete) return corrupt(s, "%s runs past the seek index", what);
    s->stopped = true;
    eddy_replay_message(s->message, s->message_size,
                   "file cut short: %s at byte %zu is incomplete (%zu of the file's %zu bytes "
                   "verified)", what, s->pos, s->pos, s->size);
    return EDDY_OK;
}

/* ---------------------------------------------------------------- footer */
static eddy_status find_index(scan *s) {
    const size_t foot_at = s->size - FOOTER_FRAME;
    if (s->foot.index_offset < FILE_HEADER_FRAME || s->foot.index_offset >= foot_at)
        return corrupt(s, "the footer points the index at byte %llu, outside the file",
                       (unsigned long long)s->foot.index_offset);
    const size_t at = (size_t)s->foot.index_offset, avail = foot_at - at;
    /* Read the frame header first, then no more than the frame claims: the
     * check reads the payload only when it fits in avail. */
    size_t want = avail < 12 ? avail : 12;
    const uint8_t *p = source_view(s->f, at, want, &s->index_buf);
    if (!p) return read_failed(s, at, want);
    if (avail >= SKIP_HEADER_BYTES && le32(p) == REPLAY_SKIPPABLE_MAGIC &&
        (size_t)le32(p + 4) <= avail - SKIP_HEADER_BYTES) {
        want = SKIP_HEADER_BYTES + (size_t)le32(p + 4);
        if (!(p = source_view(s->f, at, want, &s->index_buf))) return read_failed(s, at, want);
    }
    size_t bytes = 0;
    char why[160];
    if (eddy_skippable_check(p, avail, TAG_INDEX, 0, &bytes, "seek index", why, sizeof why) != EDDY_OK)
        return corrupt(s, "%s", why);
    const uint32_t count = eddy_index_count(p);
    if (bytes != foot_at - at || bytes != SKIP_HEADER_BYTES + 16 + (size_t)count * INDEX_ENTRY_BYTES)
        return corrupt(s, "the seek index's size does not match its %u entries", (unsigned)count);
    s->index = p;
    s->end = at;
    return EDDY_OK;
}

/* Complete if the last bytes are a valid footer; then check the whole-file
 * hash and locate the index. */
static eddy_status find_footer(scan *s) {
    s->end = s->size;
    if (s->size < FILE_HEADER_FRAME + FOOTER_FRAME) return EDDY_OK;
    const uint8_t *p = source_view(s->f, s->size - FOOTER_FRAME, FOOTER_FRAME, &s->header_buf);
    if (!p) return read_failed(s, s->size - FOOTER_FRAME, FOOTER_FRAME);
    size_t bytes;
    if (eddy_skippable_check(p, FOOTER_FRAME, TAG_FOOTER, FOOTER_PAYLOAD, &bytes, "footer", NULL, 0) !=
        EDDY_OK)
        return EDDY_OK; /* no valid footer: read as cut short */
    s->complete = true;
    eddy_footer_get(p, &s->foot);
    uint64_t file_hash;
    if (!hash_prefix(s, s->size - FOOTER_FRAME, &file_hash)) return read_failed(s, 0, s->size);
    /* A damaged file: the walk over the records (each with its own
     * checksums) names the damaged one and its bytes; only if every record
     * checks out is the whole-file mismatch itself reported (scan_records). */
    s->file_hash_bad = CHECKSUM_MISMATCH(file_hash, s->foot.file_hash);
    return find_index(s);
}

/* ---------------------------------------------------------------- zstd */
static eddy_status zframe_check(scan *s, const record_header *h, const uint8_t *z) {
    const size_t n = (size_t)h->compressed_size;
    if (n < 4 || le32(z) != ZSTD_FRAME_MAGIC) return corrupt(s, "record %u is not a zstd frame",
                                                              (unsigned)h->sequence);
    if (ZSTD_findFrameCompressedSize(z, n) != n)
        return corrupt(s, "record %u: the zstd frame's size disagrees with its header",
                       (unsigned)h->sequence);
    /* Frame_Header_Descriptor (RFC 8878 3.1.1.1.1): bit 2 is Content_Checksum_flag. */
    const bool checksum = n > 4 && (z[4] & 0x04) != 0;
    if (!checksum || ZSTD_getFrameContentSize(z, n) != h->content_size)
        return corrupt(s, "record %u: the zstd frame header disagrees with the record header",
                       (unsigned)h->sequence);
    if (h->content_size > MAX_CONTENT)
        return corrupt(s, "record %u claims %llu bytes of content (limit %d)", (unsigned)h->sequence,
                       (unsigned long long)h->content_size, (int)MAX_CONTENT);
    return EDDY_OK;
}

static eddy_status decompress(scan *s, const record_header *h, const uint8_t *z, uint8_t **out) {
    const size_t n = (size_t)h->content_size;
    *out = eddy_alloc(n > 0 ? n : 1);
    if (!*out) return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_OUT_OF_MEMORY,
                                  "out of memory for a record of %zu bytes", n);
    size_t got = ZSTD_decompressDCtx(s->f->cache->dctx, *out, n, z, (size_t)h->compressed_size);
    if (ZSTD_isError(got) || got != n) {
        eddy_free(*out);
        *out = NULL;
        return corrupt(s, "record %u does not decompress: %s", (unsigned)h->sequence,
                       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- contents */
static bool get_hash(cursor *c, eddy_frame_hash *h) {
    h->frame = (int64_t)rd64(c);
    h->frame_hash = rd64(c);
    for (int k = 0; k < EDDY_COMPONENT_COUNT; ++k) h->component[k] = rd64(c);
    return !c->bad;
}

/* Skips a block record, checking its counts; returns its start or NULL. */
static const uint8_t *get_blocks(cursor *c) {
    const uint8_t *start = c->p + c->pos;
    for (int k = 0; k < EDDY_COMPONENT_COUNT; ++k) {
        uint32_t n = rd32(c);
        if (c->bad || n > (c->size - c->pos) / 8 || n > INT32_MAX / 8) {
            c->bad = true;
            return NULL;
        }
        rd_bytes(c, (size_t)n * 8);
    }
    return c->bad ? NULL : start;
}

static bool has_blocks(const scan *s) { return (s->f->header.flags & HEADER_FLAG_BLOCK_HASHES) != 0; }

static eddy_status parse_world(scan *s, uint8_t *content, size_t size) {
    replay_file *f = s->f;
    cursor c = {content, size, 0, false};
    f->def_size = rd32(&c);
    f->def = rd_bytes(&c, f->def_size);
    uint64_t snap = rd64(&c);
    if (c.bad || snap > c.size - c.pos) return corrupt(s, "the world record's sizes are wrong");
    f->snapshot_size = (size_t)snap;
    f->snapshot = rd_bytes(&c, f->snapshot_size);
    bool ok = get_hash(&c, &f->initial_hash) && f->initial_hash.frame == f->header.first_frame;
    if (ok && has_blocks(s)) ok = (f->initial_blocks = get_blocks(&c)) != NULL;
    if (!ok || c.pos != c.size) return corrupt(s, "the world record's contents do not parse");
    eddy_world_def def = eddy_world_def_default();
    char why[200];
    eddy_status st = eddy_world_def_decode(f->def, f->def_size, &def, why, sizeof why);
    if (st == EDDY_ERROR_VERSION)
        return eddy_replay_fail(s->message, s->message_size, st, "%s", why);
    if (st != EDDY_OK) return corrupt(s, "%s", why);
    if (def.flush_denormals != f->header.fingerprint.flush_denormals)
        return corrupt(s, "the definition's flush policy disagrees with the fingerprint");
    return EDDY_OK;
}

/* Parsing a chunk's contents: at open (every input decoded once, so a
 * player never meets an undecodable input later) and again on every load. */
typedef struct chunk_parse {
    bool blocks;                   /* the file holds block hashes */
    eddy_input_storage *inputs;    /* decode every input; NULL: verified at open */
    char *message;
    size_t message_size;
    size_t pos;                    /* of the record, for messages */
} chunk_parse;

static eddy_status chunk_corrupt(const chunk_parse *cp, const char *fmt, ...)
    __attribute__((format(EDDY_REPLAY_PRINTF, 2, 3)));
static eddy_status chunk_corrupt(const chunk_parse *cp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vcorrupt(cp->message, cp->message_size, cp->pos, fmt, ap);
    va_end(ap);
    return EDDY_ERROR_CORRUPT;
}

static eddy_status parse_frame(const chunk_parse *cp, cursor *c, int64_t frame, frame_entry *e) {
    memset(e, 0, sizeof *e);
    e->input_size = rd32(c);
    e->input = rd_bytes(c, e->input_size);
    bool ok = get_hash(c, &e->hash) && e->hash.frame == frame;
    if (ok && cp->blocks) ok = (e->blocks = get_blocks(c)) != NULL;
    if (!ok) return chunk_corrupt(cp, "the record of frame %lld does not parse", (long long)frame);
    if (!cp->inputs) return EDDY_OK;
    const eddy_input *in;
    char why[200];
    eddy_status st = eddy_input_decode(e->input, e->input_size, cp->inputs, &in, why, sizeof why);
    if (st == EDDY_ERROR_VERSION) return eddy_replay_fail(cp->message, cp->message_size, st, "%s", why);
    if (st != EDDY_OK) return chunk_corrupt(cp, "frame %lld: %s", (long long)frame, why);
    return EDDY_OK;
}

/* The frames of a chunk's content into frames (count entries). */
static eddy_status parse_chunk_frames(const chunk_parse *cp, const uint8_t *content, size_t size,
                                      int64_t first_frame, uint32_t count, uint32_t sequence,
                                      frame_entry *frames) {
    cursor c = {content, size, 0, false};
    for (uint32_t k = 0; k < count; ++k) {
        eddy_status st = parse_frame(cp, &c, first_frame + k, &frames[k]);
        if (st != EDDY_OK) return st;
    }
    if (c.pos != c.size)
        return chunk_corrupt(cp, "chunk %u has %zu bytes after its last frame", (unsigned)sequence,
                             c.size - c.pos);
    return EDDY_OK;
}

/* A verified chunk at open: checked, then remembered by place only. */
static eddy_status parse_chunk(scan *s, const record_header *h, const uint8_t *content) {
    replay_file *f = s->f;
    const chunk_parse cp = {has_blocks(s), s->inputs, s->message, s->message_size, s->pos};
    frame_entry *frames = eddy_alloc(((size_t)h->frame_count + 1) * sizeof *frames);
    if (!frames ||
        !grow_int((void **)&f->chunks, &f->chunk_capacity, f->chunk_count + 1, sizeof(chunk_entry))) {
        eddy_free(frames);
        return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    eddy_status st = parse_chunk_frames(&cp, content, (size_t)h->content_size, h->first_frame,
                                        h->frame_count, h->sequence, frames);
    eddy_free(frames);
    if (st != EDDY_OK) return st;
    f->chunks[f->chunk_count++] = (chunk_entry){
        .offset = s->pos + RECORD_HEADER_FRAME, .zhash = h->frame_hash,
        .compressed = (size_t)h->compressed_size, .content = (size_t)h->content_size,
        .first_frame = h->first_frame, .frame_count = h->frame_count, .sequence = h->sequence};
    f->frame_count += h->frame_count;
    s->next_frame = h->first_frame + h->frame_count;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- records */
static eddy_status check_order(scan *s, const record_header *h) {
    const file_header *fh = &s->f->header;
    if (h->sequence != s->sequence)
        return corrupt(s, "record %u where record %u was expected", (unsigned)h->sequence,
                       (unsigned)s->sequence);
    if ((h->kind == RECORD_WORLD) != (h->sequence == 0))
        return corrupt(s, "record %u: the world record must come first, once",
                       (unsigned)h->sequence);
    switch (h->kind) {
    case RECORD_WORLD:
        if (h->first_frame != fh->first_frame || h->frame_count != 0) break;
        return EDDY_OK;
    case RECORD_CHUNK:
        if (h->first_frame != s->next_frame || h->frame_count < 1 ||
            h->frame_count > fh->frames_per_chunk)
            break;
        return EDDY_OK;
    case RECORD_KEYFRAME: {
        const keyframe_entry *k = s->f->keyframes;
        const int n = s->f->keyframe_count;
        if (h->frame_count != 0 || h->first_frame <= fh->first_frame ||
            h->first_frame >= s->next_frame + fh->frames_per_chunk ||
            (n > 0 && h->first_frame <= k[n - 1].frame))
            break;
        return EDDY_OK;
    }
    default:
        return corrupt(s, "record %u has unknown kind %u", (unsigned)h->sequence, (unsigned)h->kind);
    }
    return corrupt(s, "record %u (kind %u, frame %lld, %u frames) is out of place",
                   (unsigned)h->sequence, (unsigned)h->kind, (long long)h->first_frame,
                   (unsigned)h->frame_count);
}

static eddy_status add_keyframe(scan *s, const record_header *h) {
    replay_file *f = s->f;
    if (!grow_int((void **)&f->keyframes, &f->keyframe_capacity, f->keyframe_count + 1,
                  sizeof(keyframe_entry)))
        return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    keyframe_entry *k = &f->keyframes[f->keyframe_count++];
    k->frame = h->first_frame;
    k->offset = s->pos + RECORD_HEADER_FRAME;
    k->zhash = h->frame_hash;
    k->compressed = (size_t)h->compressed_size;
    k->content = (size_t)h->content_size;
    f->info.keyframe_bytes += h->compressed_size;
    return EDDY_OK;
}

static eddy_status record_contents(scan *s, const record_header *h, const uint8_t *z) {
    if (h->kind == RECORD_KEYFRAME) return add_keyframe(s, h);
    uint8_t *content;
    eddy_status st = decompress(s, h, z, &content);
    if (st != EDDY_OK) return st;
    if (h->kind == RECORD_CHUNK) {
        st = parse_chunk(s, h, content);
        eddy_free(content);
        if (st == EDDY_OK) s->f->info.chunk_count += 1;
        return st;
    }
    s->f->world = content;
    s->f->info.snapshot_bytes = 0;
    st = parse_world(s, content, (size_t)h->content_size);
    if (st == EDDY_OK) s->f->info.snapshot_bytes = s->f->snapshot_size;
    s->next_frame = h->first_frame + 1;
    return st;
}

/* The record at s->pos; sets s->stopped on a cut-short tail. */
static eddy_status remember_record(scan *s, const record_header *h) {
    if (!grow((void **)&s->records, &s->record_capacity, s->record_count + 1, sizeof(record_seen)))
        return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    s->records[s->record_count++] =
        (record_seen){.offset = s->pos, .size = RECORD_HEADER_FRAME + h->compressed_size,
                      .kind = h->kind, .frame_count = h->frame_count, .first_frame = h->first_frame};
    return EDDY_OK;
}

static eddy_status read_record(scan *s) {
    const size_t avail = s->end - s->pos;
    const size_t head = avail < RECORD_HEADER_FRAME ? avail : RECORD_HEADER_FRAME;
    const uint8_t *p = source_view(s->f, s->pos, head, &s->header_buf);
    if (!p) return read_failed(s, s->pos, head);
    if (avail < SKIP_HEADER_BYTES ||
        (le32(p) == REPLAY_SKIPPABLE_MAGIC && le32(p + 4) > avail - SKIP_HEADER_BYTES))
        return cut_short(s, "a frame");
    if (!s->complete && eddy_skippable_tag(p, avail) == TAG_INDEX)
        return cut_short(s, "the seek index (the footer is missing or damaged)");
    size_t bytes;
    char why[160];
    eddy_status st = eddy_skippable_check(p, avail, TAG_RECORD_HEADER, RECORD_HEADER_PAYLOAD, &bytes,
                                     "record header", why, sizeof why);
    if (st == EDDY_ERROR_TRUNCATED) return cut_short(s, "a record header");
    if (st != EDDY_OK) return corrupt(s, "%s", why);
    record_header h;
    eddy_record_header_get(p, &h);
    if (CHECKSUM_MISMATCH(h.prefix_hash, XXH3_64bits_digest(&s->prefix)))
        return corrupt(s, "the bytes before record %u are not the ones it was written after",
                       (unsigned)h.sequence);
    st = check_order(s, &h);
    if (st != EDDY_OK) return st;
    if (h.compressed_size > avail - RECORD_HEADER_FRAME) return cut_short(s, "a record");
    const uint8_t *z = source_view(s->f, s->pos + RECORD_HEADER_FRAME, (size_t)h.compressed_size,
                                   &s->zframe_buf);
    if (!z) return read_failed(s, s->pos + RECORD_HEADER_FRAME, (size_t)h.compressed_size);
    if (CHECKSUM_MISMATCH(eddy_replay_xxh3(z, (size_t)h.compressed_size), h.frame_hash))
        return corrupt(s,
                       "record %u (%s, frames %lld..%lld, bytes %zu..%zu): checksum mismatch (the "
                       "record was damaged after it was written)",
                       (unsigned)h.sequence,
                       h.kind == RECORD_WORLD      ? "world record"
                       : h.kind == RECORD_KEYFRAME ? "keyframe"
                                                   : "chunk",
                       (long long)h.first_frame,
                       (long long)(h.first_frame + (h.frame_count > 0 ? h.frame_count - 1 : 0)),
                       s->pos, s->pos + RECORD_HEADER_FRAME + (size_t)h.compressed_size);
    st = zframe_check(s, &h, z);
    if (st == EDDY_OK) st = record_contents(s, &h, z);
    if (st == EDDY_OK) st = remember_record(s, &h);
    if (st != EDDY_OK) return st;
    const size_t total = RECORD_HEADER_FRAME + (size_t)h.compressed_size;
    XXH3_64bits_update(&s->prefix, p, RECORD_HEADER_FRAME);
    XXH3_64bits_update(&s->prefix, z, (size_t)h.compressed_size);
    s->pos += total;
    s->sequence += 1;
    s->f->info.raw_bytes += h.content_size;
    s->f->info.compressed_bytes += h.compressed_size;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- index */
static eddy_status check_index(scan *s) {
    const uint32_t n = eddy_index_count(s->index);
    if (n != s->sequence || s->foot.record_count != n ||
        s->foot.last_frame != s->f->header.first_frame + s->f->frame_count)
        return corrupt(s, "the footer and index describe %u records, the file has %u",
                       (unsigned)n, (unsigned)s->sequence);
    size_t offset = FILE_HEADER_FRAME;
    for (uint32_t k = 0; k < n; ++k) {
        index_entry e;
        eddy_index_entry_get(s->index, k, &e);
        if (e.offset != offset || e.size < RECORD_HEADER_FRAME || e.size > s->end - offset)
            return corrupt(s, "seek index entry %u points at the wrong place", (unsigned)k);
        const record_seen *h = &s->records[k]; /* the record at offset, as the scan read it */
        if (e.kind != h->kind || e.frame_count != h->frame_count || e.first_frame != h->first_frame ||
            e.size != h->size)
            return corrupt(s, "seek index entry %u disagrees with record %u", (unsigned)k,
                           (unsigned)k);
        offset += (size_t)e.size;
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- parse */
static void finish_info(scan *s) {
    replay_file *f = s->f;
    eddy_replay_info *i = &f->info;
    /* Keyframes whose frame was lost with a cut-short chunk are dropped. */
    const int64_t last = f->header.first_frame + f->frame_count;
    while (f->keyframe_count > 0 && f->keyframes[f->keyframe_count - 1].frame > last) {
        i->keyframe_bytes -= f->keyframes[f->keyframe_count - 1].compressed;
        f->keyframe_count -= 1;
    }
    i->format_version = f->header.format_version;
    i->fingerprint = f->header.fingerprint;
    i->frames_per_chunk = (int)f->header.frames_per_chunk;
    i->keyframe_interval = (int)f->header.keyframe_interval;
    i->compression_level = (int)f->header.compression_level;
    i->block_hashes = has_blocks(s);
    i->first_frame = f->header.first_frame;
    i->last_frame = last;
    i->frame_count = f->frame_count;
    i->keyframe_count = f->keyframe_count;
    i->complete = s->complete && !s->stopped;
    i->file_bytes = s->size;
    i->valid_bytes = s->complete ? s->size : s->pos;
}

static eddy_status scan_records(scan *s) {
    XXH3_INITSTATE(&s->prefix);
    XXH3_64bits_reset(&s->prefix);
    const uint8_t *head = source_view(s->f, 0, FILE_HEADER_FRAME, &s->header_buf);
    if (!head) return read_failed(s, 0, FILE_HEADER_FRAME);
    XXH3_64bits_update(&s->prefix, head, FILE_HEADER_FRAME);
    s->pos = FILE_HEADER_FRAME;
    while (s->pos < s->end && !s->stopped) {
        eddy_status st = read_record(s);
        if (st != EDDY_OK) return st;
    }
    if (s->complete && s->sequence == 0) return corrupt(s, "the file holds no records");
    if (s->file_hash_bad) {
        s->pos = 0;
        return corrupt(s, "whole-file checksum mismatch, though every record, the index and "
                          "the footer check out: the damage is in the file header (bytes 0..%u) "
                          "or between the records",
                       (unsigned)FILE_HEADER_FRAME);
    }
    if (s->complete) return check_index(s);
    if (!s->stopped) {
        eddy_replay_message(s->message, s->message_size,
                       "file cut short after record %u (byte %zu): no seek index or footer",
                       (unsigned)s->sequence, s->pos);
        s->stopped = true;
    }
    return EDDY_OK;
}

void eddy_replay_file_init(replay_file *f) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

eddy_status eddy_replay_file_open(replay_file *f, const char *path, char *message, size_t size) {
    eddy_replay_file_init(f);
    return eddy_file_source_open(path, &f->fd, &f->size, message, size);
}

static void scan_free(scan *s) {
    eddy_bytes_free(&s->header_buf);
    eddy_bytes_free(&s->zframe_buf);
    eddy_bytes_free(&s->index_buf);
    eddy_free(s->records);
}

static eddy_status parse_source(scan *s, bool strict) {
    replay_file *f = s->f;
    const size_t head = s->size < FILE_HEADER_FRAME ? s->size : FILE_HEADER_FRAME;
    const uint8_t *p = source_view(f, 0, head, &s->header_buf);
    if (!p) return read_failed(s, 0, head);
    eddy_status st = eddy_file_header_get(p, s->size, &f->header, s->message, s->message_size);
    if (st == EDDY_OK)
        st = eddy_fingerprint_check(&f->header.fingerprint, strict, s->message, s->message_size,
                                    f->info.warnings, sizeof f->info.warnings);
    if (st != EDDY_OK) return st;
    f->cache = eddy_calloc(1, sizeof *f->cache);
    if (f->cache) f->cache->dctx = ZSTD_createDCtx_advanced(
                      (ZSTD_customMem){eddy_replay_zstd_alloc, eddy_replay_zstd_free, NULL});
    s->inputs = eddy_input_storage_create();
    if (!f->cache || !f->cache->dctx || !s->inputs)
        return eddy_replay_fail(s->message, s->message_size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int k = 0; k < REPLAY_CHUNK_CACHE; ++k) f->cache->slots[k].chunk = -1;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    ZSTD_DCtx_setParameter(f->cache->dctx, ZSTD_d_experimentalParam3, 1);
#endif
    st = find_footer(s);
    if (st == EDDY_OK) st = scan_records(s);
    return st;
}

eddy_status eddy_replay_file_parse(replay_file *f, bool strict, char *message, size_t size) {
    eddy_replay_message(message, size, "%s", "");
    scan s;
    memset(&s, 0, sizeof s);
    s.f = f;
    if (f->fd < 0) f->size = f->bytes.size;
    s.size = (size_t)f->size;
    s.message = message;
    s.message_size = size;
    eddy_status st = parse_source(&s, strict);
    eddy_input_storage_destroy(s.inputs);
    if (st != EDDY_OK) {
        scan_free(&s);
        return st;
    }
    finish_info(&s);
    scan_free(&s);
    if (!f->world && st == EDDY_OK)
        eddy_replay_message(message, size, "file cut short before its world record was complete "
                                      "(%zu bytes): nothing to play", s.size);
    if (s.stopped) {
        size_t used = strlen(f->info.warnings);
        snprintf(f->info.warnings + used, sizeof f->info.warnings - used, "%s", message ? message : "");
        return EDDY_ERROR_TRUNCATED;
    }
    return EDDY_OK;
}

void eddy_replay_file_free(replay_file *f) {
    eddy_bytes_free(&f->bytes);
    eddy_file_source_close(f->fd);
    if (f->cache) {
        for (int k = 0; k < REPLAY_CHUNK_CACHE; ++k) {
            eddy_free(f->cache->slots[k].content);
            eddy_free(f->cache->slots[k].frames);
        }
        eddy_bytes_free(&f->cache->compressed);
        ZSTD_freeDCtx(f->cache->dctx);
        eddy_free(f->cache);
    }
    eddy_free(f->world);
    eddy_free(f->chunks);
    eddy_free(f->keyframes);
    eddy_replay_file_init(f);
}

/* ---------------------------------------------------------------- access */
/* The zstd frame at offset read back and checked against the hash it had at
 * open; then decompressed into out (content bytes). */
static eddy_status load_zframe(const replay_file *f, size_t offset, size_t compressed, uint64_t zhash,
                               uint8_t *out, size_t content, const char *what, char *message,
                               size_t size) {
    replay_cache *c = f->cache;
    const uint8_t *z = source_view(f, offset, compressed, &c->compressed);
    if (!z)
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "%s: cannot read %zu bytes at byte %zu",
                                what, compressed, offset);
    if (CHECKSUM_MISMATCH(eddy_replay_xxh3(z, compressed), zhash))
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT,
                                "%s at byte %zu changed since the file was opened", what, offset);
    size_t got = ZSTD_decompressDCtx(c->dctx, out, content, z, compressed);
    if (ZSTD_isError(got) || got != content)
        return eddy_replay_fail(message, size, EDDY_ERROR_CORRUPT, "%s: %s", what,
                                ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
    return EDDY_OK;
}

eddy_status eddy_replay_keyframe_load(const replay_file *f, int k, eddy_bytes *out, char *message,
                                 size_t size) {
    const keyframe_entry *e = &f->keyframes[k];
    out->size = 0;
    if (!bytes_reserve(out, e->content + 1))
        return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory for a keyframe");
    char what[64];
    snprintf(what, sizeof what, "keyframe at frame %lld", (long long)e->frame);
    eddy_status st = load_zframe(f, (size_t)e->offset, e->compressed, e->zhash, out->data, e->content,
                                 what, message, size);
    if (st == EDDY_OK) out->size = e->content;
    return st;
}

/* Index of the chunk holding frame, or -1. */
static int find_chunk(const replay_file *f, int64_t frame) {
    int lo = 0, hi = f->chunk_count - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        const chunk_entry *c = &f->chunks[mid];
        if (frame < c->first_frame) hi = mid - 1;
        else if (frame >= c->first_frame + (int64_t)c->frame_count) lo = mid + 1;
        else return mid;
    }
    return -1;
}

static eddy_status load_chunk(const replay_file *f, int k, chunk_slot *slot) {
    replay_cache *c = f->cache;
    const chunk_entry *e = &f->chunks[k];
    eddy_free(slot->content);
    eddy_free(slot->frames);
    slot->chunk = -1;
    slot->content = eddy_alloc(e->content + 1);
    slot->frames = eddy_alloc(((size_t)e->frame_count + 1) * sizeof *slot->frames);
    if (!slot->content || !slot->frames)
        return eddy_replay_fail(c->message, sizeof c->message, EDDY_ERROR_OUT_OF_MEMORY,
                                "out of memory for a chunk of %zu bytes", e->content);
    char what[64];
    snprintf(what, sizeof what, "chunk of frames %lld..%lld", (long long)e->first_frame,
             (long long)(e->first_frame + e->frame_count - 1));
    eddy_status st = load_zframe(f, (size_t)e->offset, e->compressed, e->zhash, slot->content,
                                 e->content, what, c->message, sizeof c->message);
    const chunk_parse cp = {(f->header.flags & HEADER_FLAG_BLOCK_HASHES) != 0, NULL, c->message,
                            sizeof c->message, (size_t)e->offset - RECORD_HEADER_FRAME};
    if (st == EDDY_OK)
        st = parse_chunk_frames(&cp, slot->content, e->content, e->first_frame, e->frame_count,
                                e->sequence, slot->frames);
    if (st == EDDY_OK) slot->chunk = k;
    return st;
}

eddy_status eddy_replay_frame_get(const replay_file *f, int64_t frame, const frame_entry **out) {
    *out = NULL;
    const int k = find_chunk(f, frame);
    if (k < 0 || !f->cache) return EDDY_ERROR_NOT_FOUND;
    replay_cache *c = f->cache;
    chunk_slot *slot = &c->slots[0];
    for (int i = 0; i < REPLAY_CHUNK_CACHE; ++i) {
        if (c->slots[i].chunk == k) {
            slot = &c->slots[i];
            break;
        }
        if (c->slots[i].used < slot->used) slot = &c->slots[i];
    }
    if (slot->chunk != k) {
        eddy_status st = load_chunk(f, k, slot);
        if (st != EDDY_OK) return st;
    }
    slot->used = ++c->clock;
    *out = &slot->frames[frame - f->chunks[k].first_frame];
    return EDDY_OK;
}

int eddy_replay_blocks_get(const uint8_t *blocks, int component, uint64_t *out, int capacity) {
    if (!blocks || component < 0 || component >= EDDY_COMPONENT_COUNT) return -1;
    const uint8_t *p = blocks;
    for (int k = 0; k < component; ++k) p += 4 + 8 * (size_t)le32(p);
    const int n = (int)le32(p);
    for (int i = 0; i < n && i < capacity; ++i) out[i] = le64(p + 4 + 8 * (size_t)i);
    return n;
}
