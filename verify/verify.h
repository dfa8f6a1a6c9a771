/* SPDX-License-Identifier: MIT */
/* eddy-verify: internal interfaces shared by the verifier's files.
 *
 * Files, one topic each:
 *   verify_main.c    the command: matrix of runs, bless, exit code
 *   verify_args.c    command line
 *   verify_golden.c  golden trace files (docs/golden-format.md)
 *   verify_run.c     running a scene, comparing with a golden, naming the block
 *   verify_env.c     worker environment: hwloc pinning, hostile FP mode
 *   verify_report.c  text matrix, JSON, progress on a terminal
 *   verify_replay.c  --replay: a replay's embedded hashes at every worker count
 *   verify_corpus.c  --corpus: a directory of replays, --shard K/N of it
 *   verify_junit.c   --junit: JUnit XML of the corpus runs; output file rules
 *   verify_synctest.c --synctest: restore N frames back and re-simulate, every frame
 *   verify_desync.c  --hash-log, --desync: hash logs and desync localisation
 *
 * Dependency rule: only eddy's public API, the scene registry, tools/pin.h
 * (unless built with EDDY_VERIFY_NO_PIN) and include/eddy/replay.h (when built
 * with EDDY_VERIFY_HAVE_REPLAY). Never lib/ internals: the verifier checks the
 * library from the outside, as a game would see it. */
#ifndef EDDY_VERIFY_H
#define EDDY_VERIFY_H

#include "eddy/eddy.h"

#include <stdio.h>

/* A monotonic clock for timing lines only (verify_clock_posix.c or
 * verify_clock_win32.c, chosen by the build). */
double verify_monotonic_seconds(void);

/* printf format checking; MinGW-w64 links a C99 printf (gnu_printf, %zu). */
#if defined(__MINGW32__)
#define VERIFY_PRINTF_LIKE(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#elif defined(__GNUC__)
#define VERIFY_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define VERIFY_PRINTF_LIKE(f, a)
#endif

/* Exit codes (docs/verify.md). */
enum {
    VERIFY_EXIT_OK = 0,        /* every run matched */
    VERIFY_EXIT_MISMATCH = 1,  /* at least one run diverged */
    VERIFY_EXIT_USAGE = 2,     /* bad command line */
    VERIFY_EXIT_BAD_FILE = 3,  /* golden or replay missing, unparsable or of another scene/spec */
};

enum { VERIFY_MAX_THREADS = 64, VERIFY_MAX_SCENES = 256, VERIFY_MAX_PINS = 3 };

/* Golden files are named <dir>/<scene>.golden. */
#define VERIFY_GOLDEN_SUFFIX ".golden"
/* Version of the golden text format itself (the "eddy-golden" line). */
#define VERIFY_GOLDEN_FORMAT 1

typedef enum verify_pin {
    VERIFY_PIN_NONE = 0,  /* threads left to the OS */
    VERIFY_PIN_CORE = 1,  /* worker i on core i mod cores */
    VERIFY_PIN_PU = 2,    /* worker i on processing unit i mod PUs */
} verify_pin;

/* The world definition's flush_denormals for the runs (--denormals). */
typedef enum verify_denormals {
    VERIFY_DENORMALS_DEFAULT = 0,  /* whatever eddy_world_def_default() says */
    VERIFY_DENORMALS_FLUSH = 1,    /* flush_denormals = true (FTZ+DAZ / FPCR.FZ) */
    VERIFY_DENORMALS_KEEP = 2,     /* flush_denormals = false (IEEE gradual underflow) */
} verify_denormals;

/* ---------------------------------------------------------------- options */
typedef struct verify_options {
    const char *scenes[VERIFY_MAX_SCENES];  /* registry names, resolved from --scene */
    int scene_count;
    int frames;                             /* 0: golden's count (default_frames when blessing) */
    int threads[VERIFY_MAX_THREADS];
    int thread_count;
    verify_pin pins[VERIFY_MAX_PINS];
    int pin_count;
    const char *golden_dir;
    const char *replay_path;
    bool bless;
    bool json;
    bool hostile_fp;
    verify_denormals denormals;
    uint32_t mutations;                     /* EDDY_MUTATION_*, test-only (--mutate) */
    int synctest;                           /* --synctest N: rollback depth, 0 off */
    const char *hash_log_path;              /* --hash-log FILE: write a scene's hash log */
    const char *desync_paths;               /* --desync A,B: compare two hash logs */
    eddy_treecode_traversal treecode;       /* --treecode (default: the library's default) */
    bool help;
    bool list;
    const char *program;                    /* argv[0], for the regenerate command */
    const char *corpus_dir;                 /* --corpus DIR: every *.eddyr in DIR */
    int shard, shard_count;                 /* --shard K/N (1-based); 1/1 = everything */
    const char *junit_path;                 /* --junit FILE ("-": stdout) */
    bool force;                             /* --force: overwrite output files */
    bool version;                           /* --version */
} verify_options;

/* Progress lines ("\r" updates on stderr) only when stderr is a terminal:
 * never into a redirected log. Under WebAssembly isatty() answers yes for
 * every stream, so there it is always no. */
bool verify_progress_on_terminal(void);

/* Parse argv into *o. Returns VERIFY_EXIT_OK or VERIFY_EXIT_USAGE (message on stderr). */
int verify_parse_args(int argc, char **argv, verify_options *o);
void verify_usage(FILE *out);
void verify_list_scenes(void);
const char *verify_pin_name(verify_pin pin);
const char *verify_denormals_name(verify_denormals denormals);

/* ---------------------------------------------------------------- goldens */
typedef struct verify_golden {
    char scene[64];
    char eddy_version[32];
    int hash_spec;
    int frames;               /* steps recorded; the trace holds frames 0..frames */
    eddy_frame_hash *trace;   /* frames + 1 entries, trace[f].frame == f */
} verify_golden;

/* Path of scene's golden in dir. */
void verify_golden_path(const char *dir, const char *scene, char *out, size_t out_size);
/* Read and check a golden. Returns VERIFY_EXIT_OK, or VERIFY_EXIT_BAD_FILE with
 * a message naming the file and line (missing file, syntax, wrong scene, wrong
 * hash-spec version, frames out of order or missing). */
int verify_golden_read(const char *path, const char *scene, verify_golden *out, char *message,
                       size_t message_size);
/* Write a golden (format: docs/golden-format.md). regenerate is the command
 * quoted in the header comment. */
bool verify_golden_write(const char *path, const verify_golden *g, const char *regenerate,
                         char *message, size_t message_size);
void verify_golden_free(verify_golden *g);

/* ---------------------------------------------------------------- environment */
typedef struct verify_env verify_env;

/* Load the topology once (pins beyond "none" need hwloc). NULL and a message
 * on failure, e.g. a build without hwloc asked for "pu". */
verify_env *verify_env_create(const verify_pin *pins, int pin_count, char *message,
                              size_t message_size);
void verify_env_destroy(verify_env *env);
bool verify_env_can_pin(void);

/* Threading fields of def for one run: worker count, pool start hook that
 * pins (policy pin) and, if hostile, puts the worker in the hostile FP mode.
 * Pins the calling thread as worker 0. Call verify_env_end_run afterwards. */
void verify_env_configure(verify_env *env, eddy_world_def *def, int workers, verify_pin pin,
                          bool hostile);
/* Restore the calling thread's original affinity and FP mode. */
void verify_env_end_run(verify_env *env);

/* Round toward zero with denormals flushed (FTZ+DAZ or FPCR.FZ on): the
 * opposite of eddy's canonical mode (nearest, denormals kept). On
 * WebAssembly only the rounding request exists, and it changes nothing. */
void verify_fp_set_hostile(void);

/* ---------------------------------------------------------------- runs */
typedef struct verify_run_config {
    const char *scene;
    int frames;
    int workers;
    verify_pin pin;
    bool hostile_fp;
    uint32_t mutations;
    verify_denormals denormals;
    eddy_treecode_traversal treecode;
} verify_run_config;

/* Where a run first left its golden. */
typedef struct verify_divergence {
    int64_t frame;              /* -1: none */
    int component;              /* eddy_component; -1 only the frame record differs */
    eddy_frame_hash expected;   /* golden */
    eddy_frame_hash actual;
    int block;                  /* first differing block; -1 unknown */
    int blocks_expected;        /* block counts of the component: reference run */
    int blocks_actual;          /* and this run */
    uint64_t block_expected, block_actual;
    bool reference_ran;         /* the reference run reached the frame */
    bool reference_matches;     /* and its frame hash matched the golden there */
} verify_divergence;

typedef struct verify_outcome {
    bool ok;                    /* ran and matched */
    bool error;                 /* the world could not be created or stepped */
    char message[256];          /* for error */
    verify_divergence divergence;
    double seconds;
} verify_outcome;

/* Called after every frame; frame is the frame just hashed. */
typedef void verify_progress_fn(int64_t frame, int64_t frames, void *context);

/* Run config against golden, stopping at the first divergence, which is then
 * located to a block (see docs/verify.md: the reference run). */
void verify_run_check(verify_env *env, const verify_run_config *config, const verify_golden *g,
                      verify_progress_fn *progress, void *progress_context, verify_outcome *out);
/* Run at 1 worker unpinned and record the whole trace into g (allocated). */
bool verify_run_record(verify_env *env, const char *scene, int frames,
                       eddy_treecode_traversal treecode, verify_progress_fn *progress, void *progress_context, verify_golden *g,
                       char *message, size_t message_size);

/* ---------------------------------------------------------------- report */
typedef struct verify_report verify_report;

verify_report *verify_report_create(const verify_options *o);
void verify_report_destroy(verify_report *r);
/* Progress line on stderr when it is a terminal. */
void verify_report_progress(int64_t frame, int64_t frames, void *report);
void verify_report_begin_run(verify_report *r, const char *scene, int workers, verify_pin pin);
void verify_report_bad_file(verify_report *r, const char *scene, const char *message);
void verify_report_result(verify_report *r, const verify_run_config *c, int golden_frames,
                          const verify_outcome *o);
/* Print the row of (scene, pin) once all its worker counts ran. */
void verify_report_row_done(verify_report *r, const char *scene, verify_pin pin);
/* Failures in detail, the regenerate command and the closing count. */
int verify_report_finish(verify_report *r);
/* The shell command that regenerates the goldens of scenes (NULL: all). */
void verify_regenerate_command(const verify_options *o, const char *scene, char *out,
                               size_t out_size);
void verify_json_string(FILE *out, const char *text);

/* ---------------------------------------------------------------- replay */
/* Check a replay's embedded hashes at every worker count and pin policy of o. */
int verify_replay(const verify_options *o, verify_env *env);

/* ---------------------------------------------------------------- corpus */
typedef enum verify_case_result {
    VERIFY_CASE_PASS = 0,
    VERIFY_CASE_FAIL = 1,   /* diverged or could not step */
    VERIFY_CASE_ERROR = 2,  /* the file cannot be used */
} verify_case_result;

/* One replay x pin policy x worker count (a JUnit test case). */
typedef struct verify_case {
    char replay[256];       /* file name within the corpus */
    int workers;
    verify_pin pin;
    verify_case_result result;
    int64_t frames;
    double seconds;
    char message[768];      /* why it failed; "" on a pass */
} verify_case;

/* Check every replay of o->corpus_dir in shard o->shard of o->shard_count. */
int verify_corpus(const verify_options *o, verify_env *env);
/* Whether the index-th corpus file (0-based, sorted by name) is in shard
 * (1-based) of shard_count: index mod shard_count == shard - 1. */
bool verify_shard_contains(int index, int shard, int shard_count);
const char *verify_case_result_name(verify_case_result r);
/* JUnit XML of cases to path ("-": stdout); refuses to overwrite an existing
 * file unless force. */
bool verify_junit_write(const char *path, bool force, const char *name, const verify_case *cases,
                        int n, char *message, size_t size);
/* false (and a message) if path exists and force is off; "-" is always allowed. */
bool verify_output_allowed(const char *path, bool force, char *message, size_t size);

/* ---------------------------------------------------------------- synctest */
/* Every frame, restore the state of o->synctest frames ago and re-simulate to
 * now, comparing every frame's hashes with the first simulation. */
int verify_synctest(const verify_options *o, verify_env *env);

/* ---------------------------------------------------------------- desync */
/* Write the hash log of the first scene at the first worker count and pin. */
int verify_hash_log(const verify_options *o, verify_env *env);
/* Locate the first desync between two hash logs (docs/desync.md). */
int verify_desync(const verify_options *o);

#endif
