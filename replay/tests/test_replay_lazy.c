/* SPDX-License-Identifier: MIT */
/* Lazy reading: a replay opened from a file is verified once and then read
 * chunk by chunk (replay_reader.c). Opening a file gives exactly what
 * opening the same bytes in memory gives (intact, cut short at any offset,
 * every stored bad file); seeking back and forth over more chunks than the
 * cache holds replays every hash; and a chunk that changes on disk after
 * the file was opened is reported as corrupt, never played. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "replay_testkit.h"

static const char *tmp(const char *name) { return testkit_tmp_path(EDDY_REPLAY_TMP, "lazy", name); }

/* Open the same bytes from memory and from a file: same status, message and
 * recovered recording. */
static void expect_same_open(const uint8_t *data, size_t size, const char *what) {
    const char *path = tmp("same.eddyr");
    cr_assert(testkit_write_file(path, data, size));
    char mm[600] = "", fm[600] = "";
    eddy_player *pm = NULL, *pf = NULL;
    const eddy_status sm = eddy_player_open_memory(data, size, NULL, &pm, mm, sizeof mm);
    const eddy_status sf = eddy_player_open_file(path, NULL, &pf, fm, sizeof fm);
    cr_assert_eq(sf, sm, "%s: file %s (%s), memory %s (%s)", what, eddy_status_name(sf), fm,
                 eddy_status_name(sm), mm);
    cr_assert_str_eq(fm, mm, "%s", what);
    cr_assert_eq(pf == NULL, pm == NULL, "%s", what);
    if (pf) {
        const eddy_replay_info a = eddy_player_info(pf), b = eddy_player_info(pm);
        cr_assert_eq(a.last_frame, b.last_frame, "%s", what);
        cr_assert_eq(a.chunk_count, b.chunk_count, "%s", what);
        cr_assert_eq(a.keyframe_count, b.keyframe_count, "%s", what);
        cr_assert_eq(a.valid_bytes, b.valid_bytes, "%s", what);
        eddy_divergence d;
        cr_assert_eq(eddy_replay_compare(pf, pm, &d), EDDY_OK, "%s", what);
        cr_assert_eq(d.frame, -1, "%s", what);
    }
    eddy_player_close(pm);
    eddy_player_close(pf);
    unlink(path);
}

Test(replay_lazy, a_file_opens_like_its_bytes_in_memory_cut_anywhere, .timeout = 120) {
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 3;
    rd.keyframe_interval = 4;
    rd.block_hashes = true;
    eddy_bytes file = {0};
    cr_assert_eq(testkit_record_tiny(20, &rd, &file), EDDY_OK);
    expect_same_open(file.data, file.size, "intact");
    for (size_t n = 0; n < file.size; n += 1 + n / 16) {
        char what[64];
        snprintf(what, sizeof what, "cut at %zu of %zu", n, file.size);
        expect_same_open(file.data, n, what);
    }
    for (size_t at = 0; at < file.size; at += 97) {
        file.data[at] ^= 0x10;
        char what[64];
        snprintf(what, sizeof what, "byte %zu flipped", at);
        expect_same_open(file.data, file.size, what);
        file.data[at] ^= 0x10;
    }
    eddy_bytes_free(&file);
}

Test(replay_lazy, the_stored_bad_files_open_from_disk_as_from_memory) {
    DIR *d = opendir(EDDY_REPLAY_CORPUS);
    cr_assert(d != NULL);
    int files = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        const size_t n = strlen(e->d_name);
        if (n < 7 || strcmp(e->d_name + n - 6, ".eddyr") != 0) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", EDDY_REPLAY_CORPUS, e->d_name);
        eddy_bytes b = {0};
        cr_assert(testkit_read_file(path, &b));
        expect_same_open(b.data, b.size, e->d_name);
        eddy_bytes_free(&b);
        ++files;
    }
    closedir(d);
    cr_assert(files > 5, "only %d stored files", files);
}

/* 2 frames per chunk, 40 frames: 20 chunks against a cache of a few. */
Test(replay_lazy, seeking_back_and_forth_over_many_chunks_replays_every_hash, .timeout = 120) {
    const char *path = tmp("seek.eddyr");
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 2;
    rd.keyframe_interval = 7;
    eddy_bytes file = {0};
    cr_assert_eq(testkit_record_tiny(40, &rd, &file), EDDY_OK);
    cr_assert(testkit_write_file(path, file.data, file.size));
    for (int workers = 1; workers <= 3; workers += 2) {
        eddy_player_def pd = eddy_player_def_default();
        pd.worker_count = workers;
        eddy_player *p;
        cr_assert_eq(eddy_player_open_file(path, &pd, &p, NULL, 0), EDDY_OK);
        const int64_t order[] = {37, 3, 40, 0, 21, 20, 39, 1, 12, 33};
        for (size_t k = 0; k < sizeof order / sizeof order[0]; ++k) {
            eddy_divergence d;
            cr_assert_eq(eddy_player_seek(p, order[k], &d), EDDY_OK, "seek %lld: %s",
                         (long long)order[k], eddy_player_error_message(p));
            eddy_frame_hash h;
            cr_assert_eq(eddy_player_recorded_hash(p, order[k], &h), EDDY_OK);
            cr_assert_eq(eddy_world_hash(eddy_player_world(p)).frame_hash, h.frame_hash);
        }
        cr_assert_eq(eddy_player_seek(p, 0, NULL), EDDY_OK);
        cr_assert_eq(eddy_player_verify(p, NULL, NULL, NULL), EDDY_OK);
        eddy_player_close(p);
    }
    eddy_bytes_free(&file);
    unlink(path);
}

/* The player keeps no copy of the chunks: damage one on disk after opening
 * and playing reaches it and refuses it. */
Test(replay_lazy, a_chunk_changed_on_disk_after_opening_is_refused, .timeout = 60) {
    const char *path = tmp("changed.eddyr");
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = 4;
    eddy_bytes file = {0};
    cr_assert_eq(testkit_record_tiny(24, &rd, &file), EDDY_OK);
    cr_assert(testkit_write_file(path, file.data, file.size));
    eddy_player *p;
    cr_assert_eq(eddy_player_open_file(path, NULL, &p, NULL, 0), EDDY_OK);
    /* The last chunk's zstd frame ends right before the seek index. */
    testkit_frame frames[64];
    const int n = testkit_walk(file.data, file.size, frames, 64);
    cr_assert(n > 4);
    size_t at = 0;
    for (int k = 0; k < n; ++k)
        if (frames[k].tag == 0) at = frames[k].offset + frames[k].size / 2;
    cr_assert(at > 0);
    file.data[at] ^= 0xff;
    FILE *f = fopen(path, "r+b");
    cr_assert(f && fseek(f, (long)at, SEEK_SET) == 0 && fwrite(file.data + at, 1, 1, f) == 1);
    fclose(f);
    eddy_divergence d;
    const eddy_status s = eddy_player_verify(p, &d, NULL, NULL);
    cr_assert_eq(s, EDDY_ERROR_CORRUPT, "%s: %s", eddy_status_name(s),
                 eddy_player_error_message(p));
    cr_assert(strstr(eddy_player_error_message(p), "changed since the file was opened"), "%s",
              eddy_player_error_message(p));
    eddy_player_close(p);
    eddy_bytes_free(&file);
    unlink(path);
}
