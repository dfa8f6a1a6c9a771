/* SPDX-License-Identifier: MIT */
/* eddy-replay render --volume: the smoke volume ray-marched (cli_volume.c). */
#ifndef EDDY_REPLAY_CLI_VOLUME_H
#define EDDY_REPLAY_CLI_VOLUME_H

#include "cli_draw.h"
#include "eddy/eddy.h"

typedef struct cli_volume_view {
    int axis[2];   /* world axes shown right and up */
    char view;     /* 'x', 'y' or 'z' */
    float lo[2], span;
    int size;
} cli_volume_view;

/* Ray-march the smoke of w over im (its background already drawn).
 * extinction 0: chosen from the frame; *sigma_used receives the one used
 * (0 when there is no smoke). False when out of memory. */
bool cli_draw_volume(image *im, const cli_volume_view *view, eddy_world *w, float extinction,
                     float *sigma_used);
const char *cli_light_text(void);
int cli_float_compare(const void *a, const void *b);

#endif
