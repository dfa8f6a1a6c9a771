/* SPDX-License-Identifier: MIT */
/* eddy-replay render and render-diff: the camera, the panel and the PNG
 * they share (cli_render.c; render-diff in cli_render_diff.c). */
#ifndef EDDY_REPLAY_CLI_RENDER_H
#define EDDY_REPLAY_CLI_RENDER_H

#include "cli.h"
#include "cli_draw.h"
#include "cli_shapes.h"

typedef struct cli_camera {
    int axis[2];         /* world axes shown right and up */
    char view;           /* 'x', 'y' or 'z' */
    float lo[2], span;   /* square: lo .. lo + span on both axes */
    int size;            /* panel edge in pixels */
    float scale;         /* pixels per world unit */
    float density_range; /* |rho'| at the ends of the colour scale */
    bool density;        /* --color density */
    bool volume;         /* --volume: the smoke ray-marched */
    float extinction;    /* --extinction, 0: per frame */
    char source[96];     /* the file's name as the pictures show it */
    char label[96];      /* the same in upper case, for the image's font */
    bool diff;           /* render-diff: its own labels take the legend's place */
} cli_camera;
/* The camera from --view, --size, --camera, --color, --volume: fitted over
 * every frame of the n players unless --camera sets it. */
int cli_setup_camera(const cli_options *o, cli_camera *c, eddy_player **players, int n);
void cli_print_camera(const cli_options *o, const cli_camera *c);
/* Where the summary lines go: standard error when the picture goes to standard output. */
FILE *cli_info_stream(const cli_options *o);
void cli_to_pixel(const cli_camera *c, eddy_vec3 p, float *x, float *y);
/* Pixels per font pixel: 2 on pictures of 384 pixels and more. */
int cli_text_scale(const cli_camera *c);

/* One panel of the frame w is at: particles (or the smoke volume), bodies,
 * the frame label (with extra after it), scale bar and legends. */
bool cli_draw_panel(image *im, const cli_camera *c, eddy_world *w, const char *extra);
void cli_draw_body(image *im, const cli_camera *c, const cli_body *b, rgb edge);

/* The PNG with its text chunks (eddy-camera, eddy-frame, eddy-time,
 * eddy-source, eddy-view, eddy-hash; eddy-extinction with --volume; eddy-diff
 * when diff is not NULL). */
int cli_write_picture(const cli_options *o, const char *path, const image *im, const cli_camera *c,
                      const char *frames, const char *times, const char *hashes, const char *diff);
void cli_hash_text(eddy_world *w, char *out, size_t size);
bool cli_frame_text(eddy_world *w, char *frame, char *time, size_t size);

#endif
