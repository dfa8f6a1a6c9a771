/* SPDX-License-Identifier: MIT */
/* The reader against damaged files: a cut at every byte offset recovers
 * exactly the complete chunks before it (or fails cleanly); a bit flip in
 * any byte is detected; foreign versions and fingerprints are refused with a
 * message; arbitrary bytes never crash it; the stored corpus of bad files
 * keeps being refused the way it was; `zstd -t` accepts a replay. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay_testkit.h"

typedef struct small_file {
    eddy_bytes bytes;
    testkit_frame frames[256];
    int frame_count;
} small_file;

/* 12 frames in chunks of 4, keyframes every 5: about 5 KB. */
static void make_small(small_file *f) {
    memset(f, 0, sizeof *f);
    cr_assert_eq(testkit_record_tiny(12, NULL, &f->bytes), EDDY_OK);
    f->frame_count = testkit_walk(f->bytes.data, f->bytes.size, f->frames, 256);
    cr_assert_gt(f->frame_count, 0);
    cr_log_info("small replay: %zu bytes, %d frames", f->bytes.size, f->frame_count);
}

/* What a reader may recover from the first n bytes: -1 nothing playable,
 * else the number of frames in complete chunks. */
static int expected_frames(const small_file *f, size_t n) {
    int frames = -1;
    for (int k = 0; k < f->frame_count; ++k) {
        const testkit_frame *h = &f->frames[k];
        if (h->tag != 0x48525245u /* "ERRH" */) continue;
        const testkit_frame *z = &f->frames[k + 1];
        if (z->offset + z->size > n) break;
        if (h->kind == 1) frames = 0;
        if (h->kind == 2) frames += (int)h->frame_count;
    }
    return frames;
}

static eddy_status open_prefix(const small_file *f, size_t n, eddy_player **p, char *message,
                               size_t size) {
    return eddy_player_open_memory(f->bytes.data, n, NULL, p, message, size);
}

Test(replay_robust, truncation_at_every_offset_recovers_the_complete_chunks, .timeout = 120) {
    small_file f;
    make_small(&f);
    int verified_for = -2;
    for (size_t n = 0; n <= f.bytes.size; ++n) {
        eddy_player *p = NULL;
        char message[512] = "";
        const eddy_status s = open_prefix(&f, n, &p, message, sizeof message);
        const int want = expected_frames(&f, n);
        if (n == f.bytes.size) {
            cr_assert_eq(s, EDDY_OK, "%s", message);
        } else {
            cr_assert_eq(s, EDDY_ERROR_TRUNCATED, "cut at %zu of %zu: %s: %s", n, f.bytes.size,
                         eddy_status_name(s), message);
            cr_assert(strstr(message, "cut short") != NULL, "cut at %zu: %s", n, message);
        }
        cr_assert_eq(p != NULL, want >= 0, "cut at %zu: player %p, expected %d frames", n,
                     (void *)p, want);
        if (!p) continue;
        const eddy_replay_info i = eddy_player_info(p);
        cr_assert_eq(i.frame_count, want, "cut at %zu", n);
        cr_assert_eq(i.complete, n == f.bytes.size);
        cr_assert_leq(i.valid_bytes, n);
        if (want != verified_for) { /* re-simulate each distinct prefix once */
            eddy_divergence d;
            cr_assert_eq(eddy_player_verify(p, &d, NULL, NULL), EDDY_OK, "cut at %zu: %s", n,
                         eddy_player_error_message(p));
            verified_for = want;
        }
        eddy_player_close(p);
    }
    eddy_bytes_free(&f.bytes);
}

Test(replay_robust, a_bit_flip_in_any_byte_is_detected, .timeout = 120) {
    small_file f;
    make_small(&f);
    int truncated = 0, corrupt = 0;
    for (size_t i = 0; i < f.bytes.size; ++i) {
        const uint8_t bit = (uint8_t)(1u << (i % 8));
        f.bytes.data[i] ^= bit;
        eddy_player *p = NULL;
        char message[512] = "";
        const eddy_status s = open_prefix(&f, f.bytes.size, &p, message, sizeof message);
        cr_assert_neq(s, EDDY_OK, "a flipped bit in byte %zu of %zu went unnoticed", i,
                      f.bytes.size);
        cr_assert(message[0] != '\0', "byte %zu: no message", i);
        if (s == EDDY_ERROR_TRUNCATED) ++truncated;
        if (s == EDDY_ERROR_CORRUPT) ++corrupt;
        if (p) {
            /* Only a damaged index or footer leaves a playable file. */
            cr_assert_eq(s, EDDY_ERROR_TRUNCATED);
            cr_assert_eq(eddy_player_info(p).frame_count, 12);
            eddy_player_close(p);
        }
        f.bytes.data[i] ^= bit;
    }
    cr_log_info("bit flips: %d corrupt, %d read as cut short, %zu bytes", corrupt, truncated,
                f.bytes.size);
    eddy_bytes_free(&f.bytes);
}

/* A bit flipped in the middle of the file names the damaged record (its
 * kind, frames and bytes), not "corrupt at byte 0: whole-file checksum". */
Test(replay_robust, a_mid_file_bit_flip_names_the_record_and_its_bytes, .timeout = 60) {
    small_file f;
    make_small(&f);
    int checked = 0;
    for (int k = 0; k + 1 < f.frame_count; ++k) {
        const testkit_frame *h = &f.frames[k], *z = &f.frames[k + 1];
        if (h->tag != 0x48525245u /* "ERRH" */ || (h->kind != 2 && h->kind != 3)) continue;
        const size_t i = z->offset + z->size / 2;
        f.bytes.data[i] ^= 0x10;
        eddy_player *p = NULL;
        char message[512] = "";
        cr_assert_eq(open_prefix(&f, f.bytes.size, &p, message, sizeof message), EDDY_ERROR_CORRUPT,
                     "%s", message);
        char where[64];
        snprintf(where, sizeof where, "corrupt at byte %zu: record ", h->offset);
        cr_assert(strstr(message, where) != NULL, "byte %zu flipped: %s", i, message);
        cr_assert(strstr(message, h->kind == 2 ? "(chunk, frames " : "(keyframe, frames ") != NULL,
                  "%s", message);
        cr_assert(strstr(message, "whole-file") == NULL, "%s", message);
        f.bytes.data[i] ^= 0x10;
        ++checked;
    }
    cr_assert_gt(checked, 2);
    eddy_bytes_free(&f.bytes);
}

/* ---------------------------------------------------------------- versions */
typedef struct forged {
    size_t offset;     /* in the file: header payload starts at 8 */
    uint32_t value;
    eddy_status expect;
    const char *says;  /* the message (or warning) mentions this */
} forged;

static void store32le(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

Test(replay_robust, foreign_versions_and_fingerprints_are_refused_with_a_message) {
    small_file f;
    make_small(&f);
    const forged cases[] = {
        {12, 2, EDDY_ERROR_VERSION, "format version 2"},
        {32, 9, EDDY_ERROR_VERSION, "hash spec"},
        {36, 9, EDDY_ERROR_VERSION, "snapshot"},
        {40, 9, EDDY_ERROR_VERSION, "input"},
        {44, 9, EDDY_ERROR_VERSION, "definition"},
        {52, 7, EDDY_ERROR_FINGERPRINT, "model 7"},
        {60, 1u << 5, EDDY_ERROR_FINGERPRINT, "fast-math"},
        {60, 1u << 6, EDDY_ERROR_FINGERPRINT, "precision"},
        {56, 1, EDDY_ERROR_CORRUPT, "flush"},      /* the definition keeps denormals */
        {112, 0, EDDY_ERROR_CORRUPT, "settings"},  /* frames per chunk */
        {48, 2, EDDY_OK, "aarch64"},               /* another architecture: a warning */
    };
    eddy_bytes copy = {0};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        copy.size = 0;
        testkit_append(&copy, f.bytes.data, f.bytes.size);
        store32le(copy.data + cases[k].offset, cases[k].value);
        cr_assert(testkit_refresh_hashes(copy.data, copy.size));
        eddy_player *p = NULL;
        char message[512] = "";
        const eddy_status s = eddy_player_open_memory(copy.data, copy.size, NULL, &p, message,
                                                      sizeof message);
        cr_assert_eq(s, cases[k].expect, "field at %zu: %s: %s", cases[k].offset,
                     eddy_status_name(s), message);
        const char *text = p ? eddy_player_info(p).warnings : message;
        cr_assert(strstr(text, cases[k].says) != NULL, "field at %zu: '%s'", cases[k].offset, text);
        cr_assert_eq(p != NULL, s == EDDY_OK);
        if (p) {
            eddy_divergence d;
            cr_assert_eq(eddy_player_verify(p, &d, NULL, NULL), EDDY_OK);
            eddy_player_close(p);
            eddy_player_def strict = eddy_player_def_default();
            strict.strict_fingerprint = true;
            cr_assert_eq(eddy_player_open_memory(copy.data, copy.size, &strict, &p, message,
                                                 sizeof message),
                         EDDY_ERROR_FINGERPRINT);
            cr_assert(strstr(message, "strict") != NULL, "%s", message);
            cr_assert_null(p);
        }
    }
    /* Text fields: another compiler and eddy version are warnings too. */
    copy.size = 0;
    testkit_append(&copy, f.bytes.data, f.bytes.size);
    memcpy(copy.data + 16, "0.0.9\0\0\0", 8);
    memset(copy.data + 64, 0, 48);
    memcpy(copy.data + 64, "tcc 0.9.27", 10);
    cr_assert(testkit_refresh_hashes(copy.data, copy.size));
    eddy_player *p;
    char message[512];
    cr_assert_eq(eddy_player_open_memory(copy.data, copy.size, NULL, &p, message, sizeof message),
                 EDDY_OK, "%s", message);
    cr_assert(strstr(eddy_player_info(p).warnings, "eddy 0.0.9") != NULL);
    cr_assert(strstr(eddy_player_info(p).warnings, "tcc 0.9.27") != NULL);
    eddy_player_close(p);
    eddy_bytes_free(&copy);
    eddy_bytes_free(&f.bytes);
}

Test(replay_robust, the_index_must_describe_the_file) {
    small_file f;
    make_small(&f);
    const testkit_frame *index = NULL;
    for (int k = 0; k < f.frame_count; ++k)
        if (f.frames[k].tag == 0x58495245u /* "ERIX" */) index = &f.frames[k];
    cr_assert_not_null(index);
    /* Entry 1's frame count (entry layout: kind, frame_count, first_frame, offset, size). */
    f.bytes.data[index->offset + 16 + 32 + 4] ^= 1;
    cr_assert(testkit_refresh_hashes(f.bytes.data, f.bytes.size));
    eddy_player *p;
    char message[512];
    cr_assert_eq(eddy_player_open_memory(f.bytes.data, f.bytes.size, NULL, &p, message,
                                         sizeof message),
                 EDDY_ERROR_CORRUPT);
    cr_assert(strstr(message, "index") != NULL, "%s", message);
    eddy_bytes_free(&f.bytes);
}

/* ---------------------------------------------------------------- garbage */
Test(replay_robust, arbitrary_bytes_are_refused_cleanly) {
    eddy_rng rng = eddy_rng_seed(99, 5);
    uint8_t buf[600];
    small_file f;
    make_small(&f);
    for (int round = 0; round < 3000; ++round) {
        size_t n = eddy_rng_next_u32(&rng) % sizeof buf;
        for (size_t i = 0; i < n; ++i) buf[i] = (uint8_t)eddy_rng_next_u32(&rng);
        if (round % 2 == 0 && n > 200) memcpy(buf, f.bytes.data, 150); /* a valid header */
        eddy_player *p = NULL;
        char message[512] = "";
        eddy_status s = eddy_player_open_memory(buf, n, NULL, &p, message, sizeof message);
        cr_assert_neq(s, EDDY_OK);
        cr_assert(message[0] != '\0');
        cr_assert_null(p);
    }
    eddy_bytes_free(&f.bytes);
}

/* ---------------------------------------------------------------- corpus */
static eddy_status status_named(const char *name) {
    for (int s = 0; s <= 30; ++s)
        if (strcmp(eddy_status_name((eddy_status)s), name) == 0) return (eddy_status)s;
    cr_assert_fail("unknown status %s in the corpus manifest", name);
    return EDDY_OK;
}

/* tests/corpus/replay/MANIFEST: "file STATUS frames" per line, frames "-"
 * when nothing is playable; '#' starts a comment. The files are stored, not
 * regenerated: a reader change that accepts one of them again fails here. */
Test(replay_robust, the_stored_corpus_of_bad_files_is_refused_as_recorded) {
    char path[512];
    snprintf(path, sizeof path, "%s/MANIFEST", EDDY_REPLAY_CORPUS);
    FILE *m = fopen(path, "r");
    cr_assert_not_null(m, "missing %s", path);
    char line[512];
    int files = 0;
    while (fgets(line, sizeof line, m)) {
        char name[200], status[64], frames[32];
        if (line[0] == '#' || sscanf(line, "%199s %63s %31s", name, status, frames) != 3) continue;
        snprintf(path, sizeof path, "%s/%s", EDDY_REPLAY_CORPUS, name);
        eddy_bytes b = {0};
        cr_assert(testkit_read_file(path, &b), "cannot read %s", path);
        eddy_player *p = NULL;
        char message[512] = "";
        eddy_status s = eddy_player_open_memory(b.data, b.size, NULL, &p, message, sizeof message);
        cr_assert(message[0] != '\0' || s == EDDY_OK, "%s: no message", name);
        cr_assert_eq(p != NULL, strcmp(frames, "-") != 0 || s == EDDY_OK, "%s", name);
        if (p && strcmp(frames, "-") != 0)
            cr_assert_eq(eddy_player_info(p).frame_count, atoi(frames), "%s", name);
        /* The status to match is the first failure of opening and creating the
         * world at the initial snapshot. (No stepping: a change in the physics
         * must not turn these files into divergences.) */
        if (p && !eddy_player_world(p)) {
            snprintf(message, sizeof message, "%s", eddy_player_error_message(p));
            s = EDDY_ERROR_NAN;
            cr_assert(strstr(message, "NaN") != NULL, "%s: %s", name, message);
        }
        cr_assert_eq(s, status_named(status), "%s: %s: %s", name, eddy_status_name(s), message);
        eddy_player_close(p);
        eddy_bytes_free(&b);
        ++files;
    }
    fclose(m);
    cr_assert_geq(files, 15, "the corpus shrank to %d files", files);
}

/* ---------------------------------------------------------------- zstd -t */
Test(replay_robust, zstd_accepts_a_replay_as_a_sequence_of_frames) {
    if (system("command -v zstd >/dev/null 2>&1") != 0) {
        cr_log_warn("zstd command not installed (Debian package zstd): skipped");
        return;
    }
    small_file f;
    make_small(&f);
    char path[256], command[400];
    snprintf(path, sizeof path, "%s/zstd_t_%d.eddyr", EDDY_REPLAY_TMP, (int)getpid());
    cr_assert(testkit_write_file(path, f.bytes.data, f.bytes.size));
    snprintf(command, sizeof command, "zstd -q -t '%s'", path);
    cr_assert_eq(system(command), 0, "zstd -t refused %s", path);
    /* ...and notices a damaged frame. */
    f.bytes.data[f.frames[2].offset + f.frames[2].size / 2] ^= 0x10; /* the world record's zstd frame */
    cr_assert(testkit_write_file(path, f.bytes.data, f.bytes.size));
    snprintf(command, sizeof command, "zstd -q -t '%s' 2>/dev/null", path);
    cr_assert_neq(system(command), 0);
    unlink(path);
    eddy_bytes_free(&f.bytes);
}
