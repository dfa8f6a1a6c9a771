/* SPDX-License-Identifier: MIT */
/* eddy — replay files: a recorder that wraps a world, and a player that
 * re-simulates a recording at any worker count, seeks to any frame and
 * reports the first divergence (docs/replay.md; the file format is specified
 * in docs/replay-format.md). Implemented by libeddy_replay (needs libzstd).
 *
 * A replay holds the world definition and a snapshot of the state the
 * recording started from, then every frame's input and resulting frame hash
 * in chunks that are each an independent zstd frame, written and flushed as
 * soon as they are complete: a recorder killed mid-run loses at most the
 * chunk it was filling. Keyframe snapshots every K frames make seeking fast.
 *
 * Errors: every call that can fail returns an eddy_status (pinned values in
 * base.h) and leaves a message naming the problem, either in the caller's
 * buffer (open/create) or behind eddy_player_error_message /
 * eddy_recorder_error_message. File damage is EDDY_ERROR_CORRUPT, a cut-off
 * file EDDY_ERROR_TRUNCATED, an unknown format or encoding version
 * EDDY_ERROR_VERSION, an incompatible build EDDY_ERROR_FINGERPRINT, a failed
 * read or write EDDY_ERROR_IO, a re-simulation that does not match the
 * recording EDDY_ERROR_DIVERGED. */
#ifndef EDDY_REPLAY_H
#define EDDY_REPLAY_H

#include "eddy.h"
#include "snapshot.h"

/* The functions of libeddy_replay: as EDDY_API (base.h), with their own
 * export switch on Windows, where building libeddy_replay.dll defines
 * EDDY_REPLAY_BUILDING_DLL and its users (it included) import libeddy.dll's. */
#if defined(_WIN32)
#if defined(EDDY_REPLAY_BUILDING_DLL)
#define EDDY_REPLAY_API __declspec(dllexport)
#elif defined(EDDY_DLL)
#define EDDY_REPLAY_API __declspec(dllimport)
#else
#define EDDY_REPLAY_API
#endif
#else
#define EDDY_REPLAY_API EDDY_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum { EDDY_REPLAY_FORMAT_VERSION = 1 };

/* ================================================================ fingerprint */
/* What the recording build was. Which differences refuse a replay and which
 * only warn is specified in docs/replay-format.md §3. */
typedef enum eddy_replay_arch {
    EDDY_ARCH_OTHER = 0,
    EDDY_ARCH_X86_64 = 1,
    EDDY_ARCH_AARCH64 = 2,
} eddy_replay_arch;

/* Floating-point model the library steps in. */
enum {
    /* IEEE-754 binary32 with FLT_EVAL_METHOD 0, round to nearest, exceptions
     * masked, no contraction into FMA, the canonical FP mode set by eddy on
     * every worker; denormals flushed as the definition says. */
    EDDY_FP_MODEL_CANONICAL = 1,
};

/* Build flags (bits of build_flags). Informational except where noted. */
enum {
    EDDY_BUILD_OPTIMIZED = 1u << 0,      /* __OPTIMIZE__ */
    EDDY_BUILD_NDEBUG = 1u << 1,         /* release asserts off */
    EDDY_BUILD_NATIVE_FMA = 1u << 2,     /* FMA instructions available (-march) */
    EDDY_BUILD_AVX2 = 1u << 3,
    EDDY_BUILD_SANITIZED = 1u << 4,      /* address/undefined sanitizer */
    EDDY_BUILD_FAST_MATH = 1u << 5,      /* -ffast-math: breaks determinism, refused */
    EDDY_BUILD_EXCESS_PRECISION = 1u << 6, /* FLT_EVAL_METHOD != 0: refused */
};

typedef struct eddy_replay_fingerprint {
    char eddy_version[16];       /* "0.1.0" */
    uint32_t hash_spec_version;  /* EDDY_HASH_SPEC_VERSION */
    uint32_t snapshot_version;   /* EDDY_SNAPSHOT_VERSION */
    uint32_t input_version;      /* EDDY_INPUT_ENCODING_VERSION */
    uint32_t def_version;        /* EDDY_DEF_ENCODING_VERSION */
    eddy_replay_arch arch;
    uint32_t fp_model;           /* EDDY_FP_MODEL_* */
    bool flush_denormals;        /* the recorded world's FP flush policy */
    uint32_t build_flags;        /* EDDY_BUILD_* */
    char compiler[48];           /* e.g. "gcc 12.2.0" (informational) */
} eddy_replay_fingerprint;

/* This build's fingerprint for a world that flushes denormals or not. */
EDDY_REPLAY_API eddy_replay_fingerprint eddy_replay_fingerprint_current(bool flush_denormals);
/* Short name of an architecture: "x86_64", "aarch64", "other". */
EDDY_REPLAY_API const char *eddy_replay_arch_name(eddy_replay_arch arch);

/* ================================================================ recorder */
/* Where the bytes go. write must consume all size bytes or fail; flush is
 * called after every complete record (may be NULL). Both return EDDY_OK or
 * an error (EDDY_ERROR_IO), which stops the recording. */
typedef eddy_status eddy_replay_write_fn(const void *data, size_t size, void *context);
typedef eddy_status eddy_replay_flush_fn(void *context);

typedef struct eddy_recorder_def {
    int frames_per_chunk;     /* frames per chunk, 1..4096 (default 32) */
    int keyframe_interval;    /* a keyframe every K frames; 0 = none (default 0) */
    bool block_hashes;        /* store every frame's block hashes, so a divergence is
                                 located to a block (default false; about 0.1% of a step
                                 when the world hashes every step, as by default, since
                                 the world keeps them; eddy-replay record sets it) */
    int compression_level;    /* zstd level 1..19 (default 3) */
    bool sync;                /* files: fsync after every record (default false; a
                                 process crash loses nothing written either way) */
    int internal_value;       /* set by eddy_recorder_def_default; do not touch */
} eddy_recorder_def;

typedef struct eddy_recorder eddy_recorder;

typedef struct eddy_recorder_stats {
    int64_t frames;           /* frames recorded */
    int chunks;               /* complete chunks written */
    int keyframes;
    uint64_t bytes_written;   /* file bytes so far */
    uint64_t raw_bytes;       /* uncompressed payload bytes (chunks, keyframes, world) */
    double record_ms;         /* time spent recording (encoding, hashing, compressing,
                                 writing), excluding the world's steps */
} eddy_recorder_stats;

EDDY_REPLAY_API eddy_recorder_def eddy_recorder_def_default(void);

/* Start recording world from its current state (any frame). The recorder
 * borrows the world: destroy the recorder before the world. The header and
 * the world record (definition and initial snapshot) are written now. */
EDDY_REPLAY_API eddy_status eddy_recorder_create(eddy_world *world, const eddy_recorder_def *def,
                                          eddy_replay_write_fn *write, eddy_replay_flush_fn *flush,
                                          void *context, eddy_recorder **out, char *message,
                                          size_t message_size);
/* Appends the file to *buffer (caller-owned; free with eddy_bytes_free). */
EDDY_REPLAY_API eddy_status eddy_recorder_create_memory(eddy_world *world, const eddy_recorder_def *def,
                                                 eddy_bytes *buffer, eddy_recorder **out,
                                                 char *message, size_t message_size);
/* Writes the file at path. The header and the initial world record go to a
 * temporary file beside it (path.partial-PID-N, same directory), which is
 * renamed over path once they are complete: if the recorder cannot start,
 * an existing file at path is left as it was and the temporary file is
 * removed. A failed write, flush or close keeps the system's reason in the
 * message (for example "write failed: No space left on device"). */
EDDY_REPLAY_API eddy_status eddy_recorder_create_file(eddy_world *world, const eddy_recorder_def *def,
                                               const char *path, eddy_recorder **out,
                                               char *message, size_t message_size);

/* Step the world with input (NULL: none) and record the input and the
 * resulting frame hash. An input the world refuses is not recorded (the
 * world's status is returned, the world is unchanged). After a write error
 * the recording is over: every later call returns that error without
 * stepping (step the world directly to go on without recording). */
EDDY_REPLAY_API eddy_status eddy_recorder_step(eddy_recorder *recorder, const eddy_input *input);
/* Write the last partial chunk, the seek index and the footer. Further
 * steps return EDDY_ERROR_WRONG_STATE. */
EDDY_REPLAY_API eddy_status eddy_recorder_finish(eddy_recorder *recorder);
/* Frees the recorder (accepts NULL); does not finish: an unfinished file
 * reads as cut short after its last complete chunk. */
EDDY_REPLAY_API void eddy_recorder_destroy(eddy_recorder *recorder);
EDDY_REPLAY_API eddy_world *eddy_recorder_world(eddy_recorder *recorder);
EDDY_REPLAY_API eddy_recorder_stats eddy_recorder_get_stats(const eddy_recorder *recorder);
EDDY_REPLAY_API const char *eddy_recorder_error_message(const eddy_recorder *recorder);

/* ================================================================ player */
typedef struct eddy_player_def {
    /* Threading of the re-simulating world (any values: results are the same). */
    int worker_count;                  /* default 1 */
    eddy_enqueue_task_fn *enqueue_task;
    eddy_finish_task_fn *finish_task;
    void *user_task_context;
    eddy_worker_start_fn *worker_start;
    void *worker_start_context;
    /* Refuse (EDDY_ERROR_FINGERPRINT) any fingerprint difference, not only
     * the ones that break compatibility (default false). */
    bool strict_fingerprint;
    int internal_value;                /* set by eddy_player_def_default */
} eddy_player_def;

typedef struct eddy_player eddy_player;

typedef struct eddy_replay_info {
    uint32_t format_version;
    eddy_replay_fingerprint fingerprint;  /* of the recording build */
    int frames_per_chunk;
    int keyframe_interval;
    int compression_level;
    bool block_hashes;
    int64_t first_frame;      /* frame of the initial snapshot */
    int64_t last_frame;       /* last recorded frame recovered (first_frame if none) */
    int64_t frame_count;      /* last_frame - first_frame */
    int chunk_count;
    int keyframe_count;
    bool complete;            /* index and footer present and verified */
    uint64_t file_bytes;      /* size of the file */
    uint64_t valid_bytes;     /* bytes up to the end of the last verified record */
    uint64_t raw_bytes;       /* decompressed payload of the verified records */
    uint64_t compressed_bytes;/* their zstd frames */
    uint64_t snapshot_bytes;  /* initial snapshot, uncompressed */
    uint64_t keyframe_bytes;  /* all keyframes, compressed */
    /* Fingerprint differences that were accepted, and for a cut-short file
     * where and why reading stopped; "" if none. */
    char warnings[512];
} eddy_replay_info;

/* Open a replay. Returns EDDY_OK for an intact file. For a file cut short
 * (a recorder that was killed, a partial download) returns
 * EDDY_ERROR_TRUNCATED and still sets *out to a player over every complete
 * chunk when at least the world record is intact; *out is NULL otherwise,
 * and for every other error. The message says what is wrong or where a
 * truncated file stops. The data are copied; the player reads them all up
 * front and verifies every checksum before returning. */
EDDY_REPLAY_API eddy_status eddy_player_open_memory(const void *data, size_t size,
                                             const eddy_player_def *def, eddy_player **out,
                                             char *message, size_t message_size);
EDDY_REPLAY_API eddy_status eddy_player_open_file(const char *path, const eddy_player_def *def,
                                           eddy_player **out, char *message, size_t message_size);
/* Read callback: fill up to capacity bytes, set *got (0 at the end). */
typedef eddy_status eddy_replay_read_fn(void *buffer, size_t capacity, size_t *got, void *context);
EDDY_REPLAY_API eddy_status eddy_player_open_read(eddy_replay_read_fn *read, void *context,
                                           const eddy_player_def *def, eddy_player **out,
                                           char *message, size_t message_size);
EDDY_REPLAY_API void eddy_player_close(eddy_player *player); /* accepts NULL */
EDDY_REPLAY_API eddy_player_def eddy_player_def_default(void);

EDDY_REPLAY_API eddy_replay_info eddy_player_info(const eddy_player *player);
EDDY_REPLAY_API const char *eddy_player_error_message(const eddy_player *player);

/* The re-simulating world, created on first use at the initial state (NULL
 * if it cannot be created; the error message says why). Read it freely;
 * change it only through the player. */
EDDY_REPLAY_API eddy_world *eddy_player_world(eddy_player *player);
/* Frame of the player's world (first_frame before any step). */
EDDY_REPLAY_API int64_t eddy_player_frame(const eddy_player *player);

/* First difference between a re-simulation and the recording. */
typedef struct eddy_divergence {
    int64_t frame;              /* -1: none */
    int component;              /* eddy_component; -1: the recorded input was refused */
    int block;                  /* block within the component; -1: not known */
    uint64_t recorded_hash, actual_hash;          /* frame hashes */
    uint64_t recorded_component, actual_component;
} eddy_divergence;

/* Step the world to the next recorded frame with its recorded input and
 * compare the frame hash. EDDY_ERROR_DIVERGED (with *divergence filled when
 * not NULL) if it differs; EDDY_ERROR_NOT_FOUND past the last frame. */
EDDY_REPLAY_API eddy_status eddy_player_step(eddy_player *player, eddy_divergence *divergence);
/* Put the world at frame (first_frame..last_frame): restore the nearest
 * keyframe at or before it (or the initial snapshot, or keep going from the
 * current frame when that is nearer) and step from there, checking hashes. */
EDDY_REPLAY_API eddy_status eddy_player_seek(eddy_player *player, int64_t frame,
                                      eddy_divergence *divergence);
/* Step from the current frame to last_frame checking every hash; stops at
 * the first divergence. progress (may be NULL) is called after every frame. */
typedef void eddy_replay_progress_fn(int64_t frame, int64_t last_frame, void *context);
EDDY_REPLAY_API eddy_status eddy_player_verify(eddy_player *player, eddy_divergence *divergence,
                                        eddy_replay_progress_fn *progress, void *context);

/* The recording itself, without simulating. */
EDDY_REPLAY_API eddy_status eddy_player_recorded_hash(const eddy_player *player, int64_t frame,
                                               eddy_frame_hash *out);
/* Recorded block hashes of a component at frame: returns the block count
 * and writes up to capacity of them; -1 if the file has none for it. */
EDDY_REPLAY_API int eddy_player_recorded_block_hashes(const eddy_player *player, int64_t frame,
                                               eddy_component component, uint64_t *out,
                                               int capacity);
/* Recorded input of the step that produced frame (first_frame < frame <=
 * last_frame); valid until the next call on the player. */
EDDY_REPLAY_API eddy_status eddy_player_recorded_input(eddy_player *player, int64_t frame,
                                                const eddy_input **out);
/* Frames of the keyframes, ascending; returns the count (may exceed capacity). */
EDDY_REPLAY_API int eddy_player_keyframes(const eddy_player *player, int64_t *frames, int capacity);

/* First difference between two recordings' hash traces (no simulation):
 * frame, component and, when both files hold block hashes, block. Returns
 * EDDY_OK with divergence->frame == -1 when the common frames agree. */
EDDY_REPLAY_API eddy_status eddy_replay_compare(const eddy_player *a, const eddy_player *b,
                                         eddy_divergence *divergence);

#ifdef __cplusplus
}
#endif
#endif
