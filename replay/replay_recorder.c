/* SPDX-License-Identifier: MIT */
/* The recorder: steps a world, records every frame's input and hash.
 *
 * Design notes.
 * - Crash safety comes from the write order. The file is a header, then
 *   records; a record is a record header (a skippable frame with sizes and
 *   hashes) followed by one independent zstd frame, handed to the sink as
 *   soon as it is complete and followed by a flush. Nothing already written
 *   is ever rewritten, so a recorder killed at any instant leaves a prefix
 *   of a valid file: every complete record reads back, the chunk being
 *   filled is lost. The seek index and footer come last, from finish.
 * - Every record header carries the XXH3-64 of all file bytes before it (a
 *   running hash updated as bytes go out) and of its own zstd frame. So the
 *   complete records of a cut-short file prove that every byte before them,
 *   headers and framing included, is as written: zstd's content checksum
 *   alone does not cover frame headers.
 * - The recorder only records what the world accepted: the input is encoded
 *   first (an unencodable input is refused before the world steps), the
 *   world steps, and only a successful step is appended to the chunk.
 * - Recording cost per frame is one input encoding, the frame hash the step
 *   already computed (plus block hashes when enabled) and an append; the
 *   compression and write happen once per chunk. */
#include "replay_io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCCtx_advanced: eddy's allocator */
#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

enum { RECORDER_COOKIE = 0x0EDD5EC0 };

struct eddy_recorder {
    eddy_world *world;
    eddy_recorder_def def;
    eddy_replay_write_fn *write;
    eddy_replay_flush_fn *flush;
    void *context;
    file_sink file;                /* when the recorder owns a file */
    bool owns_file;
    ZSTD_CCtx *cctx;
    XXH3_state_t *file_hash;       /* every byte written so far (64-byte aligned in file_hash_block) */
    void *file_hash_block;         /* from eddy_alloc: xxHash's own createState calls malloc */
    uint64_t offset;               /* bytes written so far */
    uint32_t sequence;             /* next record's sequence number */
    int64_t first_frame, last_frame;
    eddy_bytes chunk;              /* frames of the chunk being filled */
    int chunk_frames;
    int64_t chunk_first;
    eddy_bytes input;              /* scratch: encoded input, snapshots */
    eddy_bytes frame;              /* scratch: a compressed frame */
    eddy_bytes header;             /* scratch: a record header */
    index_entry *index;
    uint32_t eddy_index_count, index_capacity;
    uint64_t *blocks;
    int block_capacity;
    eddy_status failed;            /* sticky */
    bool finished;
    eddy_recorder_stats stats;
    char error[256];
};

static double now_ms(void) { return eddy_replay_now_ms(); }

eddy_recorder_def eddy_recorder_def_default(void) {
    eddy_recorder_def d;
    memset(&d, 0, sizeof d);
    d.frames_per_chunk = 32;
    d.keyframe_interval = 0;
    d.block_hashes = false;
    d.compression_level = 3;
    d.sync = false;
    d.internal_value = RECORDER_COOKIE;
    return d;
}

static eddy_status def_check(const eddy_recorder_def *d, char *message, size_t size) {
    if (d->internal_value != RECORDER_COOKIE)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_DEF,
                           "recorder def was not initialised with eddy_recorder_def_default()");
    if (d->frames_per_chunk < 1 || d->frames_per_chunk > MAX_FRAMES_PER_CHUNK)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_DEF,
                           "frames_per_chunk must be in [1, %d], got %d", MAX_FRAMES_PER_CHUNK,
                           d->frames_per_chunk);
    if (d->keyframe_interval < 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_DEF,
                           "keyframe_interval must be >= 0 (0: no keyframes), got %d",
                           d->keyframe_interval);
    if (d->compression_level < 1 || d->compression_level > 19)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_DEF,
                           "compression_level must be in [1, 19], got %d", d->compression_level);
    return EDDY_OK;
}

/* ---------------------------------------------------------------- output */
static eddy_status fail(eddy_recorder *r, eddy_status s, const char *what) {
    if (r->failed == EDDY_OK) {
        r->failed = s;
        /* the cause as the system gave it (disk full, I/O error, ...) */
        const char *cause = r->owns_file ? eddy_file_sink_error_text(&r->file) : NULL;
        if (cause)
            snprintf(r->error, sizeof r->error, "%s: %s (%s); the recording stops here", what, cause,
                     eddy_status_name(s));
        else
            snprintf(r->error, sizeof r->error, "%s: %s; the recording stops here", what,
                     eddy_status_name(s));
    }
    return r->failed;
}

/* Hand bytes to the sink and fold them into the running file hash. */
static eddy_status emit(eddy_recorder *r, const void *data, size_t size) {
    if (r->failed != EDDY_OK) return r->failed;
    eddy_status s = r->write(data, size, r->context);
    if (s != EDDY_OK) return fail(r, s, "write failed");
    XXH3_64bits_update(r->file_hash, data, size);
    r->offset += size;
    r->stats.bytes_written = r->offset;
    return EDDY_OK;
}

static eddy_status flush(eddy_recorder *r) {
    if (r->failed != EDDY_OK || !r->flush) return r->failed;
    eddy_status s = r->flush(r->context);
    return s == EDDY_OK ? EDDY_OK : fail(r, s, "flush failed");
}

static bool index_push(eddy_recorder *r, const index_entry *e) {
    if (r->eddy_index_count == r->index_capacity) {
        uint32_t cap = r->index_capacity ? 2 * r->index_capacity : 64;
        index_entry *p = eddy_realloc(r->index, (size_t)cap * sizeof *p);
        if (!p) return false;
        r->index = p;
        r->index_capacity = cap;
    }
    r->index[r->eddy_index_count++] = *e;
    return true;
}

static eddy_status compress(eddy_recorder *r, const void *content, size_t size) {
    r->frame.size = 0;
    if (!bytes_reserve(&r->frame, ZSTD_compressBound(size)))
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory compressing a record");
    size_t n = ZSTD_compress2(r->cctx, r->frame.data, r->frame.capacity, content, size);
    if (ZSTD_isError(n)) {
        snprintf(r->error, sizeof r->error, "zstd: %s", ZSTD_getErrorName(n));
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "compression failed");
    }
    r->frame.size = n;
    return EDDY_OK;
}

/* One record: header, then the zstd frame of content; then a flush. */
static eddy_status write_record(eddy_recorder *r, record_kind kind, int64_t first_frame,
                                uint32_t frame_count, const void *content, size_t size) {
    if (r->failed != EDDY_OK) return r->failed;
    eddy_status s = compress(r, content, size);
    if (s != EDDY_OK) return s;
    record_header h = {(uint32_t)kind, r->sequence, frame_count, first_frame,
                       r->frame.size, size, eddy_replay_xxh3(r->frame.data, r->frame.size),
                       XXH3_64bits_digest(r->file_hash)};
    index_entry e = {(uint32_t)kind, frame_count, first_frame, r->offset,
                     RECORD_HEADER_FRAME + r->frame.size};
    r->header.size = 0;
    if (!eddy_record_header_put(&r->header, &h) || !index_push(r, &e))
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory writing a record");
    s = emit(r, r->header.data, r->header.size);
    if (s == EDDY_OK) s = emit(r, r->frame.data, r->frame.size);
    if (s == EDDY_OK) s = flush(r);
    r->sequence += 1;
    r->stats.raw_bytes += size;
    return s;
}

/* ---------------------------------------------------------------- frames */
static void put_hash(put_buffer *p, const eddy_frame_hash *h) {
    put64(p, (uint64_t)h->frame);
    put64(p, h->frame_hash);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) put64(p, h->component[c]);
}

/* Every component's block hashes: u32 count, then the hashes. */
static void put_blocks(eddy_recorder *r, put_buffer *p) {
    for (int c = 0; c < EDDY_COMPONENT_COUNT && !p->failed; ++c) {
        int n = eddy_world_block_hashes(r->world, (eddy_component)c, NULL, 0);
        if (n > r->block_capacity) {
            uint64_t *q = eddy_realloc(r->blocks, (size_t)n * sizeof *q);
            if (!q) {
                p->failed = true;
                return;
            }
            r->blocks = q;
            r->block_capacity = n;
        }
        n = eddy_world_block_hashes(r->world, (eddy_component)c, r->blocks, n);
        put32(p, (uint32_t)n);
        for (int k = 0; k < n; ++k) put64(p, r->blocks[k]);
    }
}

static eddy_status write_chunk(eddy_recorder *r) {
    if (r->chunk_frames == 0) return r->failed;
    eddy_status s = write_record(r, RECORD_CHUNK, r->chunk_first, (uint32_t)r->chunk_frames,
                                 r->chunk.data, r->chunk.size);
    r->chunk.size = 0;
    r->chunk_frames = 0;
    if (s == EDDY_OK) r->stats.chunks += 1;
    return s;
}

static eddy_status write_keyframe(eddy_recorder *r) {
    r->input.size = 0;
    if (eddy_world_snapshot(r->world, &r->input) != EDDY_OK)
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "snapshot for a keyframe failed");
    eddy_status s = write_record(r, RECORD_KEYFRAME, r->last_frame, 0, r->input.data, r->input.size);
    if (s == EDDY_OK) r->stats.keyframes += 1;
    return s;
}

/* Appends the frame just stepped to the chunk; writes what is due. */
static eddy_status record_frame(eddy_recorder *r) {
    const eddy_frame_hash h = eddy_world_hash(r->world);
    put_buffer p = {&r->chunk, false};
    if (r->chunk_frames == 0) r->chunk_first = h.frame;
    put32(&p, (uint32_t)r->input.size);
    put_raw(&p, r->input.data, r->input.size);
    put_hash(&p, &h);
    if (r->def.block_hashes) put_blocks(r, &p);
    if (p.failed) return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory recording a frame");
    r->last_frame = h.frame;
    r->chunk_frames += 1;
    r->stats.frames += 1;
    eddy_status s = EDDY_OK;
    if (r->chunk_frames == r->def.frames_per_chunk) s = write_chunk(r);
    const int64_t k = r->def.keyframe_interval;
    if (s == EDDY_OK && k > 0 && (r->last_frame - r->first_frame) % k == 0) s = write_keyframe(r);
    return s;
}

/* Why eddy_input_encode refused an input, in the world's words: the input
 * is encoded before the step (so a step is never left unrecorded), and the
 * encoder has no message of its own. */
static void describe_unencodable(const eddy_input *in, char *out, size_t size) {
    snprintf(out, size, "the input cannot be encoded");
    if (!in) return;
    if (in->emitter_command_count < 0 || (in->emitter_command_count > 0 && !in->emitter_commands) ||
        in->body_command_count < 0 || (in->body_command_count > 0 && !in->body_commands)) {
        snprintf(out, size, "input command arrays are NULL or their counts negative");
        return;
    }
    for (int k = 0; k < in->emitter_command_count; ++k) {
        const int t = (int)in->emitter_commands[k].type;
        if (t < EDDY_EMITTER_ENABLE || t > EDDY_EMITTER_DESTROY) {
            snprintf(out, size, "emitter command %d has unknown type %d", k, t);
            return;
        }
    }
    for (int k = 0; k < in->body_command_count; ++k) {
        const int t = (int)in->body_commands[k].type;
        if (t < EDDY_BODY_CREATE || t > EDDY_BODY_SET_KINEMATIC) {
            snprintf(out, size, "body command %d has unknown type %d", k, t);
            return;
        }
    }
}

eddy_status eddy_recorder_step(eddy_recorder *r, const eddy_input *input) {
    if (!r) return EDDY_ERROR_INVALID_ARGUMENT;
    if (r->failed != EDDY_OK) return r->failed;
    if (r->finished) {
        snprintf(r->error, sizeof r->error, "the recording was finished");
        return EDDY_ERROR_WRONG_STATE;
    }
    if (eddy_world_frame(r->world) != r->last_frame) {
        snprintf(r->error, sizeof r->error,
                 "the world is at frame %lld but the recording at %lld: it was stepped outside "
                 "the recorder", (long long)eddy_world_frame(r->world), (long long)r->last_frame);
        return EDDY_ERROR_WRONG_STATE;
    }
    r->input.size = 0;
    eddy_status s = eddy_input_encode(input, &r->input);
    if (s != EDDY_OK) {
        describe_unencodable(input, r->error, sizeof r->error);
        return s;
    }
    s = eddy_world_step(r->world, input);
    if (s != EDDY_OK) {
        snprintf(r->error, sizeof r->error, "the world refused the step: %s",
                 eddy_world_error_message(r->world));
        return s;
    }
    const double t0 = now_ms();
    s = record_frame(r);
    r->stats.record_ms += now_ms() - t0;
    return s;
}

/* ---------------------------------------------------------------- start */
static eddy_status write_header(eddy_recorder *r) {
    const eddy_world_def *d = eddy_world_get_def(r->world);
    file_header h = {EDDY_REPLAY_FORMAT_VERSION, eddy_replay_fingerprint_current(d->flush_denormals),
                     (uint32_t)r->def.frames_per_chunk, (uint32_t)r->def.keyframe_interval,
                     r->def.block_hashes ? HEADER_FLAG_BLOCK_HASHES : 0u,
                     (uint32_t)r->def.compression_level, r->first_frame};
    r->header.size = 0;
    if (!eddy_file_header_put(&r->header, &h))
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory writing the header");
    return emit(r, r->header.data, r->header.size);
}

/* Definition, initial snapshot, initial hash (and block hashes). */
static eddy_status write_world(eddy_recorder *r) {
    eddy_bytes content = {0};
    put_buffer p = {&content, false};
    r->input.size = 0;
    eddy_status s = eddy_world_def_encode(eddy_world_get_def(r->world), &r->input);
    put32(&p, (uint32_t)r->input.size);
    put_raw(&p, r->input.data, r->input.size);
    r->input.size = 0;
    if (s == EDDY_OK) s = eddy_world_snapshot(r->world, &r->input);
    put64(&p, r->input.size);
    put_raw(&p, r->input.data, r->input.size);
    const eddy_frame_hash h = eddy_world_hash(r->world);
    put_hash(&p, &h);
    if (r->def.block_hashes) put_blocks(r, &p);
    if (s != EDDY_OK || p.failed) s = fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    else s = write_record(r, RECORD_WORLD, r->first_frame, 0, content.data, content.size);
    eddy_bytes_free(&content);
    return s;
}

static eddy_status zstd_setup(eddy_recorder *r) {
    r->cctx = ZSTD_createCCtx_advanced(
        (ZSTD_customMem){eddy_replay_zstd_alloc, eddy_replay_zstd_free, NULL});
    if (!r->cctx) return EDDY_ERROR_OUT_OF_MEMORY;
    size_t e = ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_compressionLevel, r->def.compression_level);
    if (!ZSTD_isError(e)) e = ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(e)) e = ZSTD_CCtx_setParameter(r->cctx, ZSTD_c_contentSizeFlag, 1);
    return ZSTD_isError(e) ? EDDY_ERROR_INVALID_ARGUMENT : EDDY_OK;
}

static eddy_recorder *recorder_alloc(eddy_world *world, const eddy_recorder_def *def) {
    eddy_recorder *r = eddy_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->world = world;
    r->def = *def;
    r->file.fd = -1;
    r->first_frame = r->last_frame = eddy_world_frame(world);
    r->file_hash_block = eddy_alloc(sizeof(XXH3_state_t) + 64);
    if (r->file_hash_block)
        r->file_hash = (XXH3_state_t *)(((uintptr_t)r->file_hash_block + 63) & ~(uintptr_t)63);
    if (!r->file_hash || XXH3_64bits_reset(r->file_hash) != XXH_OK || zstd_setup(r) != EDDY_OK) {
        eddy_recorder_destroy(r);
        return NULL;
    }
    return r;
}

static eddy_status recorder_start(eddy_recorder *r, char *message, size_t size) {
    eddy_status s = write_header(r);
    if (s == EDDY_OK) s = write_world(r);
    if (s != EDDY_OK) eddy_replay_message(message, size, "%s", r->error);
    return s;
}

eddy_status eddy_recorder_create(eddy_world *world, const eddy_recorder_def *def,
                                 eddy_replay_write_fn *write, eddy_replay_flush_fn *flush_fn,
                                 void *context, eddy_recorder **out, char *message, size_t size) {
    eddy_replay_message(message, size, "%s", "");
    if (!out) return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!world || !write)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "world or write is NULL");
    const eddy_recorder_def defaults = eddy_recorder_def_default();
    if (!def) def = &defaults;
    eddy_status s = def_check(def, message, size);
    if (s != EDDY_OK) return s;
    eddy_recorder *r = recorder_alloc(world, def);
    if (!r) return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    r->write = write;
    r->flush = flush_fn;
    r->context = context;
    s = recorder_start(r, message, size);
    if (s != EDDY_OK) {
        eddy_recorder_destroy(r);
        return s;
    }
    *out = r;
    return EDDY_OK;
}

eddy_status eddy_recorder_create_memory(eddy_world *world, const eddy_recorder_def *def,
                                        eddy_bytes *buffer, eddy_recorder **out, char *message,
                                        size_t size) {
    if (!buffer) {
        if (out) *out = NULL;
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "buffer is NULL");
    }
    return eddy_recorder_create(world, def, eddy_memory_sink_write, NULL, buffer, out, message, size);
}

eddy_status eddy_recorder_create_file(eddy_world *world, const eddy_recorder_def *def,
                                      const char *path, eddy_recorder **out, char *message,
                                      size_t size) {
    if (out) *out = NULL;
    if (!path || !out || !world)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "world, path or out is NULL");
    const eddy_recorder_def defaults = eddy_recorder_def_default();
    if (!def) def = &defaults;
    eddy_status s = def_check(def, message, size);
    if (s != EDDY_OK) return s;
    eddy_recorder *r = recorder_alloc(world, def);
    if (!r) return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    /* The header and the world record go to a temporary file beside path,
     * which replaces path only once they are complete: a recording that
     * cannot start leaves an existing file at path as it was. */
    char temp[4096];
    s = eddy_file_sink_open_temp(&r->file, path, temp, sizeof temp, def->sync, message, size);
    if (s == EDDY_OK) {
        r->owns_file = true;
        r->write = eddy_file_sink_write;
        r->flush = eddy_file_sink_flush;
        r->context = &r->file;
        s = recorder_start(r, message, size);
        if (s == EDDY_OK && eddy_replay_replace(temp, path) != 0)
            s = eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot put %s in place of %s: %s", temp,
                                 path, strerror(errno));
        if (s != EDDY_OK) remove(temp);
    }
    if (s != EDDY_OK) {
        eddy_recorder_destroy(r);
        return s;
    }
    *out = r;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- finish */
static eddy_status write_index(eddy_recorder *r) {
    const uint64_t index_offset = r->offset;
    r->header.size = 0;
    if (!eddy_index_put(&r->header, r->index, r->eddy_index_count))
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory writing the index");
    eddy_status s = emit(r, r->header.data, r->header.size);
    if (s != EDDY_OK) return s;
    const footer f = {r->eddy_index_count, r->last_frame, index_offset, XXH3_64bits_digest(r->file_hash)};
    r->header.size = 0;
    if (!eddy_footer_put(&r->header, &f))
        return fail(r, EDDY_ERROR_OUT_OF_MEMORY, "out of memory writing the footer");
    s = emit(r, r->header.data, r->header.size);
    return s == EDDY_OK ? flush(r) : s;
}

eddy_status eddy_recorder_finish(eddy_recorder *r) {
    if (!r) return EDDY_ERROR_INVALID_ARGUMENT;
    if (r->failed != EDDY_OK) return r->failed;
    if (r->finished) return EDDY_OK;
    const double t0 = now_ms();
    eddy_status s = write_chunk(r);
    if (s == EDDY_OK) s = write_index(r);
    if (s == EDDY_OK && r->owns_file && eddy_file_sink_close(&r->file) != EDDY_OK)
        s = fail(r, EDDY_ERROR_IO, "closing the file failed");
    r->stats.record_ms += now_ms() - t0;
    r->finished = true;
    return s;
}

void eddy_recorder_destroy(eddy_recorder *r) {
    if (!r) return;
    if (r->owns_file) eddy_file_sink_close(&r->file);
    ZSTD_freeCCtx(r->cctx);
    eddy_free(r->file_hash_block);
    eddy_bytes_free(&r->chunk);
    eddy_bytes_free(&r->input);
    eddy_bytes_free(&r->frame);
    eddy_bytes_free(&r->header);
    eddy_free(r->index);
    eddy_free(r->blocks);
    eddy_free(r);
}

eddy_world *eddy_recorder_world(eddy_recorder *r) { return r ? r->world : NULL; }

eddy_recorder_stats eddy_recorder_get_stats(const eddy_recorder *r) {
    eddy_recorder_stats none = {0};
    return r ? r->stats : none;
}

const char *eddy_recorder_error_message(const eddy_recorder *r) { return r ? r->error : ""; }
