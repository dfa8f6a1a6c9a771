/* SPDX-License-Identifier: MIT */
/* The functions web/worker.js calls (through emscripten's ccall) to run one
 * built-in scene in the browser. Not part of eddy's API: the page's glue. */
#ifndef EDDY_WEB_H
#define EDDY_WEB_H

int eddy_web_scene_count(void);
const char *eddy_web_scene_name(int index);         /* "" out of range */
const char *eddy_web_scene_description(int index);
/* Why the last start or step failed. */
const char *eddy_web_message(void);
/* Create the named scene's world at 1 worker, replacing the previous one.
 * 0, or -1 and a message. */
int eddy_web_start(const char *name);
/* One step with the scene's scripted input. 0, or -1 and a message. */
int eddy_web_step(void);
int eddy_web_frame(void);                           /* -1 without a world */
/* The current frame's hash, 16 lower-case hex digits as in golden files. */
const char *eddy_web_hash(void);
/* The buffer the fills write; valid until the next fill. */
float *eddy_web_points(void);
int eddy_web_fill_tracers(void);   /* x, y, z per tracer; returns the count, -1 no memory */
int eddy_web_fill_vortons(void);   /* x, y, z per vorton */
int eddy_web_fill_bodies(void);    /* x, y, z, volume per body */

#endif
