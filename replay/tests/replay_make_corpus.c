/* SPDX-License-Identifier: MIT */
/* Writes the stored corpus of bad replay files and the fuzzer's seeds.
 *
 *   replay_make_corpus BAD_DIR SEED_DIR [REGRESSIONS_DIR]
 *
 * BAD_DIR (tests/corpus/replay) receives damaged, cut and forged variants
 * of a small recording of the tiny world plus MANIFEST, the status each must
 * keep being refused with (test_replay_robust replays them). SEED_DIR
 * (replay/fuzz/seeds) receives valid inputs for fuzz_replay, each prefixed
 * with its mode byte; REGRESSIONS_DIR (replay/fuzz/regressions), when given,
 * receives the seeds of the snapshot, input and desync targets (seed_*,
 * raw bytes). The files are committed; rerun this only when the
 * format changes on purpose (and bump the version), then review the diff of
 * MANIFEST. Forged files get their hashes recomputed, so only the check of
 * the forged field can refuse them. */
#include "replay_format.h"
#include "replay_testkit.h"
#include "eddy/desync.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const char *g_bad_dir, *g_seed_dir;
static FILE *g_manifest;

static void write_bad(const char *name, const void *data, size_t size, const char *status,
                      const char *frames, const char *why) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_bad_dir, name);
    if (!testkit_write_file(path, data, size)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(4);
    }
    fprintf(g_manifest, "%-34s %-26s %-3s # %s\n", name, status, frames, why);
}

static void write_seed(const char *name, uint8_t mode, const void *data, size_t size) {
    eddy_bytes b = {0};
    testkit_append(&b, &mode, 1);
    testkit_append(&b, data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_seed_dir, name);
    if (!testkit_write_file(path, b.data, b.size)) exit(4);
    eddy_bytes_free(&b);
}

/* ---------------------------------------------------------------- records */
typedef struct record {
    uint32_t kind, frame_count;
    int64_t first_frame;
    eddy_bytes content;
} record;

typedef struct parsed {
    eddy_bytes header;  /* the file header frame */
    record records[64];
    int count;
} parsed;

static void parse(const eddy_bytes *file, parsed *p) {
    memset(p, 0, sizeof *p);
    testkit_frame f[256];
    const int n = testkit_walk(file->data, file->size, f, 256);
    testkit_append(&p->header, file->data, f[0].size);
    for (int k = 1; k + 1 < n; ++k) {
        if (f[k].tag != TAG_RECORD_HEADER) continue;
        record *r = &p->records[p->count++];
        record_header h;
        eddy_record_header_get(file->data + f[k].offset, &h);
        r->kind = h.kind;
        r->frame_count = h.frame_count;
        r->first_frame = h.first_frame;
        uint8_t *buf = malloc(h.content_size);
        ZSTD_decompress(buf, h.content_size, file->data + f[k + 1].offset, f[k + 1].size);
        testkit_append(&r->content, buf, h.content_size);
        free(buf);
    }
}

/* Writes a parsed file back: header, records, index, footer, all hashes. */
static void rebuild(const parsed *p, eddy_bytes *out) {
    out->size = 0;
    testkit_append(out, p->header.data, p->header.size);
    index_entry entries[64];
    for (int k = 0; k < p->count; ++k) {
        const record *r = &p->records[k];
        eddy_bytes z = {0};
        z.capacity = ZSTD_compressBound(r->content.size);
        z.data = malloc(z.capacity);
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        z.size = ZSTD_compress2(c, z.data, z.capacity, r->content.data, r->content.size);
        ZSTD_freeCCtx(c);
        const record_header h = {r->kind, (uint32_t)k, r->frame_count, r->first_frame, z.size,
                                 r->content.size, eddy_replay_xxh3(z.data, z.size), 0};
        entries[k] = (index_entry){r->kind, r->frame_count, r->first_frame, out->size,
                                   RECORD_HEADER_FRAME + z.size};
        eddy_record_header_put(out, &h);
        testkit_append(out, z.data, z.size);
        eddy_bytes_free(&z);
    }
    const uint64_t index_offset = out->size;
    eddy_index_put(out, entries, (uint32_t)p->count);
    int64_t last = p->records[0].first_frame;
    for (int k = 0; k < p->count; ++k)
        if (p->records[k].kind == RECORD_CHUNK)
            last = p->records[k].first_frame + p->records[k].frame_count - 1;
    const footer f = {(uint32_t)p->count, last, index_offset, 0};
    eddy_footer_put(out, &f);
    testkit_refresh_hashes(out->data, out->size);
}

static void parsed_free(parsed *p) {
    eddy_bytes_free(&p->header);
    for (int k = 0; k < p->count; ++k) eddy_bytes_free(&p->records[k].content);
}

/* ---------------------------------------------------------------- variants */
static size_t frame_offset(const eddy_bytes *file, int index, size_t *size) {
    testkit_frame f[256];
    testkit_walk(file->data, file->size, f, 256);
    *size = f[index].size;
    return f[index].offset;
}

static void cut(const eddy_bytes *base, const char *name, size_t n, const char *frames,
                const char *why) {
    write_bad(name, base->data, n, "EDDY_ERROR_TRUNCATED", frames, why);
}

static void flip(const eddy_bytes *base, const char *name, size_t at, const char *status,
                 const char *frames, const char *why) {
    eddy_bytes b = {0};
    testkit_append(&b, base->data, base->size);
    b.data[at] ^= 0x08;
    write_bad(name, b.data, b.size, status, frames, why);
    eddy_bytes_free(&b);
}

static void forge32(const eddy_bytes *base, const char *name, size_t at, uint32_t value,
                    const char *status, const char *why) {
    eddy_bytes b = {0};
    testkit_append(&b, base->data, base->size);
    store32(b.data + at, value);
    testkit_refresh_hashes(b.data, b.size);
    write_bad(name, b.data, b.size, status, "-", why);
    eddy_bytes_free(&b);
}

static void cuts_and_flips(const eddy_bytes *base) {
    size_t s, o;
    cut(base, "empty.eddyr", 0, "-", "no bytes at all");
    cut(base, "cut_in_header.eddyr", 100, "-", "ends inside the file header");
    cut(base, "header_only.eddyr", FILE_HEADER_FRAME, "-", "the header and nothing else");
    o = frame_offset(base, 2, &s);
    cut(base, "cut_in_world_record.eddyr", o + s / 2, "-", "ends inside the initial snapshot");
    /* Frames of the base file: 0 header; 1-2 world; 3-4 chunk 1-4; 5-6 keyframe 5;
     * 7-8 chunk 5-8; 9-10 keyframe 10; 11-12 chunk 9-12; 13 index; 14 footer. */
    o = frame_offset(base, 12, &s);
    cut(base, "cut_mid_chunk.eddyr", o + s / 2, "8", "ends inside the third chunk");
    o = frame_offset(base, 13, &s);
    cut(base, "cut_before_index.eddyr", o, "12", "every chunk, no index");
    cut(base, "cut_in_footer.eddyr", base->size - 10, "12", "ends inside the footer");
    flip(base, "flip_in_file_header.eddyr", 40, "EDDY_ERROR_CORRUPT", "-", "header checksum");
    o = frame_offset(base, 2, &s);
    flip(base, "flip_in_world_record.eddyr", o + s / 2, "EDDY_ERROR_CORRUPT", "-", "whole-file checksum");
    o = frame_offset(base, 4, &s);
    flip(base, "flip_in_chunk.eddyr", o + s - 3, "EDDY_ERROR_CORRUPT", "-", "a chunk's last bytes");
    o = frame_offset(base, 3, &s);
    flip(base, "flip_in_record_header.eddyr", o + 20, "EDDY_ERROR_CORRUPT", "-", "a record header");
    o = frame_offset(base, 13, &s);
    flip(base, "flip_in_index.eddyr", o + 30, "EDDY_ERROR_CORRUPT", "-", "an index entry");
    flip(base, "flip_in_footer.eddyr", base->size - 20, "EDDY_ERROR_TRUNCATED", "12",
         "a damaged footer reads as cut short");
    eddy_bytes b = {0};
    testkit_append(&b, base->data, base->size);
    testkit_append(&b, "junk", 4);
    write_bad("trailing_garbage.eddyr", b.data, b.size, "EDDY_ERROR_TRUNCATED", "12",
              "bytes after the footer: the footer is not last");
    eddy_bytes_free(&b);
}

static void foreign(const eddy_bytes *base) {
    static const char text[] = "this is not a replay\n";
    write_bad("text_file.eddyr", text, sizeof text - 1, "EDDY_ERROR_CORRUPT", "-", "plain text");
    uint8_t z[64];
    const size_t n = ZSTD_compress(z, sizeof z, "hello", 5, 3);
    write_bad("plain_zstd_frame.eddyr", z, n, "EDDY_ERROR_CORRUPT", "-", "zstd, not eddy");
    forge32(base, "future_format_version.eddyr", 12, 2, "EDDY_ERROR_VERSION", "format version 2");
    forge32(base, "other_hash_spec.eddyr", 32, 2, "EDDY_ERROR_VERSION", "hash spec version 2");
    forge32(base, "other_snapshot_version.eddyr", 36, 2, "EDDY_ERROR_VERSION", "snapshot version 2");
    forge32(base, "other_input_encoding.eddyr", 40, EDDY_INPUT_ENCODING_VERSION + 1, "EDDY_ERROR_VERSION",
            "input encoding 3");
    forge32(base, "unknown_fp_model.eddyr", 52, 9, "EDDY_ERROR_FINGERPRINT", "FP model 9");
    forge32(base, "fast_math_recording.eddyr", 60, EDDY_BUILD_FAST_MATH, "EDDY_ERROR_FINGERPRINT",
            "recorded with -ffast-math");
    forge32(base, "flush_policy_mismatch.eddyr", 56, 1, "EDDY_ERROR_CORRUPT",
            "header and definition disagree on flushing");
}

/* Content edits, re-framed with valid hashes. */
typedef void edit_fn(eddy_bytes *content);

static void edit_record(const eddy_bytes *base, int record_index, edit_fn *edit, const char *name,
                        const char *status, const char *why) {
    parsed p;
    parse(base, &p);
    edit(&p.records[record_index].content);
    eddy_bytes out = {0};
    rebuild(&p, &out);
    write_bad(name, out.data, out.size, status, "-", why);
    eddy_bytes_free(&out);
    parsed_free(&p);
}

static void edit_frame_number(eddy_bytes *c) { c->data[4 + le32(c->data) + 1] ^= 1; }
static void edit_input_flags(eddy_bytes *c) { c->data[4 + 2] = 0x80; }
static void edit_def_dt(eddy_bytes *c) { store32(c->data + 4 + 8, 0xbf800000u); /* -1.0f */ }
static void edit_snapshot_nan(eddy_bytes *c) {
    const size_t snap = 4 + le32(c->data) + 8;
    const size_t snap_size = (size_t)le64(c->data + 4 + le32(c->data));
    store32(c->data + snap + 32 + 12 + 137 + 12 + 4, 0x7fc00000u); /* first vorton's px */
    store64(c->data + snap + snap_size - 8, eddy_replay_xxh3(c->data + snap, snap_size - 8));
}

static void semantic(const eddy_bytes *base) {
    edit_record(base, 1, edit_frame_number, "chunk_wrong_frame_number.eddyr", "EDDY_ERROR_CORRUPT",
                "a chunk's frame numbers do not follow on");
    edit_record(base, 3, edit_input_flags, "chunk_bad_input.eddyr", "EDDY_ERROR_CORRUPT",
                "an input with unknown flag bits");
    edit_record(base, 0, edit_def_dt, "world_bad_definition.eddyr", "EDDY_ERROR_CORRUPT",
                "a definition with dt = -1");
    edit_record(base, 0, edit_snapshot_nan, "world_nan_snapshot.eddyr", "EDDY_ERROR_NAN",
                "opens; creating the world refuses a NaN in the state");
    parsed p;
    parse(base, &p);
    record t = p.records[1];
    p.records[1] = p.records[3];
    p.records[3] = t;
    eddy_bytes out = {0};
    rebuild(&p, &out);
    write_bad("chunks_swapped.eddyr", out.data, out.size, "EDDY_ERROR_CORRUPT", "-",
              "records out of order");
    eddy_bytes_free(&out);
    parsed_free(&p);
}

/* ---------------------------------------------------------------- seeds */
static void seeds(const eddy_bytes *base) {
    write_seed("tiny_12_frames.eddyr", 0, base->data, base->size);
    eddy_bytes b = {0};
    eddy_recorder_def d = eddy_recorder_def_default();
    d.frames_per_chunk = 3;
    d.block_hashes = false;
    testkit_record_tiny(7, &d, &b);
    write_seed("tiny_no_blocks.eddyr", 0, b.data, b.size);
    write_seed("tiny_cut.eddyr", 0, b.data, b.size - 60);
    eddy_world *w;
    testkit_tiny_world(1, &w);
    for (int f = 0; f < 8; ++f) testkit_step(w, "tiny");
    b.size = 0;
    eddy_world_snapshot(w, &b);
    write_seed("tiny_snapshot.bin", 2, b.data, b.size);
    b.size = 0;
    eddy_world_def_encode(eddy_world_get_def(w), &b);
    write_seed("tiny_def.bin", 3, b.data, b.size);
    eddy_world_def aligned = *eddy_world_get_def(w); /* definition version 6 */
    aligned.vorticity_alignment = 0.5f;
    b.size = 0;
    eddy_world_def_encode(&aligned, &b);
    write_seed("tiny_def_aligned.bin", 3, b.data, b.size);
    for (int f = 1; f < 13; ++f) {
        testkit_input t;
        b.size = 0;
        eddy_input_encode(testkit_tiny_input(f, &t), &b);
        char name[64];
        snprintf(name, sizeof name, "tiny_input_%02d.bin", f);
        if (b.size > 14) write_seed(name, 1, b.data, b.size);
    }
    eddy_world_destroy(w);
    eddy_bytes_free(&b);
}

/* ------------------------------------------------------- the other targets' seeds */
/* The seeds of fuzz_snapshot, fuzz_input and fuzz_desync (REGRESSIONS_DIR/
 * TARGET/seed_*): raw bytes, no mode byte, made by this build so they reach
 * the decoders (test_fuzz_regressions checks that every one still decodes). */
static void write_raw(const char *dir, const char *target, const char *name, const void *data,
                      size_t size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
    if (!testkit_write_file(path, data, size)) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(4);
    }
}

static void target_seeds(const char *dir) {
    eddy_world *w;
    if (testkit_tiny_world(1, &w) != EDDY_OK) exit(1);
    eddy_bytes b = {0};
    eddy_bytes log = {0};
    eddy_hash_tree *tree = eddy_hash_tree_create();
    if (!tree || eddy_hash_log_begin(&log) != EDDY_OK) exit(1);
    for (int f = 0; f <= 12; ++f) {
        if (f > 0 && testkit_step(w, "tiny") != EDDY_OK) exit(1);
        if (f == 0 || f == 4 || f == 8 || f == 12) { /* emitter and bodies in several states */
            char name[64];
            b.size = 0;
            if (eddy_world_snapshot(w, &b) != EDDY_OK) exit(1);
            snprintf(name, sizeof name, "seed_tiny_snapshot_f%02d.bin", f);
            write_raw(dir, "snapshot", name, b.data, b.size);
        }
        if (eddy_hash_tree_capture(tree, w) != EDDY_OK || eddy_hash_log_append(tree, &log) != EDDY_OK)
            exit(1);
    }
    write_raw(dir, "desync", "seed_tiny_hash_log.bin", log.data, log.size);
    for (int f = 1; f < 13; ++f) {
        testkit_input t;
        b.size = 0;
        eddy_input_encode(testkit_tiny_input(f, &t), &b);
        char name[64];
        snprintf(name, sizeof name, "seed_tiny_input_%02d.bin", f);
        if (b.size > 14) write_raw(dir, "input", name, b.data, b.size);
    }
    eddy_hash_tree_destroy(tree);
    eddy_bytes_free(&log);
    eddy_bytes_free(&b);
    eddy_world_destroy(w);
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: replay_make_corpus BAD_DIR SEED_DIR [REGRESSIONS_DIR]\n");
        return 2;
    }
    if (argc == 4) target_seeds(argv[3]);
    g_bad_dir = argv[1];
    g_seed_dir = argv[2];
    char path[512];
    snprintf(path, sizeof path, "%s/MANIFEST", g_bad_dir);
    g_manifest = fopen(path, "w");
    if (!g_manifest) return 4;
    fprintf(g_manifest, "# Bad replay files and the status each must be refused with (opening, then\n"
                        "# creating the world). Columns: file, status, frames recovered (- = nothing playable).\n"
                        "# Written by replay_make_corpus; replayed by test_replay_robust.\n");
    eddy_bytes base = {0};
    if (testkit_record_tiny(12, NULL, &base) != EDDY_OK) return 1;
    cuts_and_flips(&base);
    foreign(&base);
    semantic(&base);
    seeds(&base);
    fclose(g_manifest);
    eddy_bytes_free(&base);
    return 0;
}
