/* SPDX-License-Identifier: MIT */
/* eddy-replay render: bodies with their shapes (cli_shapes.c). */
#ifndef EDDY_REPLAY_CLI_SHAPES_H
#define EDDY_REPLAY_CLI_SHAPES_H

#include "eddy/eddy.h"
#include "eddy/snapshot.h"

enum { CLI_MAX_BODY_VERTICES = 256 };

typedef struct cli_body {
    eddy_body_id id;
    eddy_body_state state;
    eddy_shape shape;
} cli_body;

/* The live bodies of w with their shapes (*out malloc'd, NULL if none);
 * returns the count (0 when the shapes cannot be read). */
int cli_world_bodies(eddy_world *w, cli_body **out);
/* World-space vertices of a polytope body (0 for a sphere). */
int cli_body_vertices(const cli_body *b, eddy_vec3 *out, int capacity);
/* Radius of a sphere around the body's position that holds it. */
float cli_body_bound(const cli_body *b);

#endif
