/* SPDX-License-Identifier: MIT */
/* Helpers shared by the replay tests and the corpus generator.
 *
 * The tiny world is built through the public API only: a handful of
 * vortons and tracers, one emitter and two bodies, and an input script that
 * uses every kind of input (gravity, wind, every emitter and body command,
 * creation and destruction included). Its replay files are a few KB, small
 * enough to truncate at every byte offset and flip every bit of. */
#ifndef EDDY_REPLAY_TESTKIT_H
#define EDDY_REPLAY_TESTKIT_H

#include "eddy/eddy.h"
#include "eddy/replay.h"
#include "eddy/snapshot.h"
#include "scenes.h"

#include <stdio.h>

/* Storage for one frame of scripted input. */
typedef struct testkit_input {
    eddy_input input;
    eddy_emitter_command emitter_commands[4];
    eddy_body_command body_commands[4];
} testkit_input;

/* The tiny world at frame 0 with worker_count workers. */
eddy_status testkit_tiny_world(int worker_count, eddy_world **out);
/* Scripted input for the step from frame to frame + 1 (never NULL). */
const eddy_input *testkit_tiny_input(int64_t frame, testkit_input *storage);

/* A scene world with worker_count workers (NULL on failure). */
eddy_world *testkit_scene_world(const char *scene, int worker_count);

/* Step a world one frame with the tiny script ("tiny") or a scene's script. */
eddy_status testkit_step(eddy_world *world, const char *script);

/* Record frames steps of the tiny world (1 worker) into out, with the
 * recorder def (NULL: small chunks of 4, a keyframe every 5 frames, block
 * hashes). */
eddy_status testkit_record_tiny(int frames, const eddy_recorder_def *def, eddy_bytes *out);
/* Record frames steps of a scene at worker_count workers into out. */
eddy_status testkit_record_scene(const char *scene, int frames, int worker_count,
                                 const eddy_recorder_def *def, eddy_bytes *out);

/* Whole-file helpers. */
bool testkit_read_file(const char *path, eddy_bytes *out);
bool testkit_write_file(const char *path, const void *data, size_t size);
/* Append bytes to a buffer (abort on out of memory: tests only). */
void testkit_append(eddy_bytes *b, const void *data, size_t size);

/* A scratch path of this process, dir/prefix_pid_name (16 rotating buffers:
 * enough for the files of one test). */
const char *testkit_tmp_path(const char *dir, const char *prefix, const char *name);
/* Runs command_line through the shell. Its stdout goes to stdout_path when
 * given, else with its stderr to log_path; the log is read back into out,
 * NUL-terminated. Returns the exit status, -1 if it did not exit. */
int testkit_shell(const char *command_line, const char *stdout_path, const char *log_path,
                  eddy_bytes *out);

/* Recompute the self-hash of the skippable frame at offset (a header, record
 * header, index or footer) after a test edited its payload; returns false if
 * there is no eddy frame at offset. Used to forge versions and fingerprints
 * that only the field checks, not the checksums, can refuse. */
bool testkit_reseal_frame(uint8_t *file, size_t size, size_t offset);

/* Recompute every hash in a replay file after a test edited it: each
 * frame's self-hash, each record header's prefix hash and the footer's
 * whole-file hash (an independent walk of docs/replay-format.md). Only
 * checks of field values can then refuse the file. False if the file does
 * not walk as a sequence of frames. */
bool testkit_refresh_hashes(uint8_t *file, size_t size);

/* One frame of a replay file, as an independent walker sees it. */
typedef struct testkit_frame {
    size_t offset, size;
    uint32_t tag;          /* payload tag of an eddy skippable frame; 0 for a zstd frame */
    uint32_t kind;         /* record kind of a record header (ERRH) */
    uint32_t frame_count;  /* chunk frames of a record header */
} testkit_frame;
/* Walk the frames of a file; returns the count (up to capacity stored), or
 * -1 if the bytes are not a sequence of complete frames. */
int testkit_walk(const uint8_t *file, size_t size, testkit_frame *out, int capacity);

#endif
