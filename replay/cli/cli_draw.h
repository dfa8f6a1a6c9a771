/* SPDX-License-Identifier: MIT */
/* eddy-replay: a small RGB raster for render (lines, filled polygons,
 * discs, a built-in 3x5 bitmap font) and PNG output. */
#ifndef EDDY_REPLAY_CLI_DRAW_H
#define EDDY_REPLAY_CLI_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

typedef struct image {
    int width, height;
    uint8_t *rgb; /* width * height * 3, rows top to bottom */
} image;

/* Allocate a width x height image filled with col; false if out of memory. */
bool image_init(image *im, int width, int height, rgb col);
void image_free(image *im);
void image_put(image *im, int x, int y, rgb col);
rgb image_get(const image *im, int x, int y);
/* Blend col over the pixel with weight a in [0, 1]. */
void image_blend(image *im, int x, int y, rgb col, float a);
void image_rect(image *im, int x0, int y0, int x1, int y1, rgb col); /* filled, inclusive */
void image_line(image *im, float x0, float y0, float x1, float y1, rgb col);
/* Convex polygon (n points, x y pairs) filled with col at opacity a. */
void image_fill_convex(image *im, const float (*p)[2], int n, rgb col, float a);
void image_fill_disc(image *im, float cx, float cy, float r, rgb col, float a);
/* Copy src into dst with its top-left corner at (x, y). */
void image_blit(image *dst, const image *src, int x, int y);

/* Text in the built-in 3x5 font: digits, letters (lower case drawn as upper
 * case except m and s), space and . , - + = : / ( ) % ' _. A glyph is 3
 * pixels wide (m: 5) and 5 high, times scale, plus one column of spacing.
 * Returns the width drawn. */
int text_width(const char *text, int scale);
int image_text(image *im, int x, int y, const char *text, int scale, rgb col);
/* Text on a dark box (readable over any picture). */
void image_label(image *im, int x, int y, const char *text, int scale, rgb col);

/* Write im as an 8-bit RGB PNG with tEXt chunks (keys[i], values[i]);
 * path "-" is standard output. Returns 0 or the exit code after a message. */
int image_write_png(const char *path, const image *im, const char *const *keys,
                    const char *const *values, int text_count);

#endif
