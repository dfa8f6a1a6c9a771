/* SPDX-License-Identifier: MIT */
/* eddy-replay: shared declarations of the command-line tool (docs/replay.md). */
#ifndef EDDY_REPLAY_CLI_H
#define EDDY_REPLAY_CLI_H

#include "eddy/replay.h"
#include "pin.h"

#include <stdio.h>

/* Exit codes (documented in --help and docs/replay.md). */
enum {
    EXIT_OK = 0,
    EXIT_DIVERGED = 1,
    EXIT_USAGE = 2,
    EXIT_INVALID_FILE = 3, /* corrupt, cut short, unknown version, foreign fingerprint */
    EXIT_IO = 4,           /* reading or writing failed (and other system errors) */
};

/* Parsed options; which ones a command accepts is checked by the command. */
typedef struct cli_options {
    const char *files[2];
    int file_count;
    const char *scene;
    const char *output;
    const char *format;    /* csv | json */
    const char *view;      /* x | y | z */
    int64_t frames;        /* -1: not given */
    int64_t frame;         /* -1: not given */
    int threads;
    int keyframe_every;    /* -1: not given */
    int chunk;             /* -1: not given */
    int level;             /* -1: not given */
    int size;              /* render: image edge in pixels */
    int every;             /* render: every K-th frame; 0: not given */
    int sheet;             /* render: contact sheet of N frames; 0: not given */
    int against_threads;   /* render-diff: second worker count; 0: not given */
    int top;               /* render-diff: the K most divergent particles ringed (default 10) */
    const char *camera;    /* render: XLO,YLO,XHI,YHI */
    const char *color;     /* render: plain | density */
    float density_range;   /* render: --range R for --color density; 0: fitted */
    bool volume;           /* render: --volume, the smoke volume ray-marched */
    float extinction;      /* render --volume: --extinction S; 0: per frame, from the smoke */
    const char *vdb_dir;   /* export: --vdb DIR */
    const char *region;    /* export: --region XLO,YLO,ZLO,XHI,YHI,ZHI */
    int resolution;        /* export: voxels along the longest axis; 0: 64 */
    eddy_pin_policy pin;
    bool strict;
    bool no_block_hashes;
    bool quiet;
    bool force;            /* overwrite existing output files */
    bool json;             /* info, play: one JSON object on stdout */
} cli_options;

/* Print "eddy-replay: <message>" to stderr and return code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit code for a library status. */
int cli_exit_code(eddy_status status);
/* Parse argv after the command; returns EXIT_OK or EXIT_USAGE (message printed). */
int cli_parse(int argc, char **argv, cli_options *o);

/* Progress on stderr when it is a terminal (cleared by progress_done). */
void progress_show(const char *what, int64_t done, int64_t total);
void progress_done(void);
eddy_replay_progress_fn progress_callback; /* context: the label */

/* EXIT_OK if path may be written: "-", a new file, or --force. Else a
 * message and EXIT_USAGE. */
int cli_check_output(const char *path, const cli_options *o);

/* Open a replay for reading with the options' threading; prints why not.
 * Returns the exit code; *player is set (and maybe truncated is set) when
 * it can be played. */
int cli_open(const char *path, const cli_options *o, eddy_pinner **pinner, eddy_player **player,
             bool *truncated);

/* Open FILE (o->files[0]) and seek to o->frame; prints why not. */
int cli_open_at_frame(const cli_options *o, const char *command, eddy_pinner **pinner,
                      eddy_player **player);

/* The built-in scene whose frame 0 has this world's frame hash (replays
 * carry no scene name), or NULL; w must be at frame 0. *scene_def (may be
 * NULL) receives that scene's definition. cli_worlds.c */
const char *cli_scene_of(eddy_world *w, eddy_world_def *scene_def);
/* The physical fields of two definitions (those eddy_world_def_encode
 * writes) that differ, as "viscosity 0.01 vs 0.02, seed 1 vs 2" in out;
 * returns how many (0: the same physics; -1: the encodings differ in a field
 * the list does not name, and out says so). */
int cli_def_differences(const eddy_world_def *a, const eddy_world_def *b, char *out, size_t size);

/* Commands: return the exit code. */
int cmd_record(const cli_options *o);
int cmd_play(const cli_options *o);
int cmd_info(const cli_options *o);
int cmd_diff(const cli_options *o);
int cmd_scenes(const cli_options *o);
int cmd_dump(const cli_options *o);
int cmd_render(const cli_options *o);
int cmd_render_diff(const cli_options *o);
int cmd_export(const cli_options *o);

#endif
