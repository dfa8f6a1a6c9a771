/* SPDX-License-Identifier: MIT */
/* eddy-replay: raster drawing and PNG output for render (cli_draw.h).
 * Pictures are for people: floats and libm are fine here. */
#include "cli_draw.h"
#include "cli.h"

#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

bool image_init(image *im, int width, int height, rgb col) {
    im->width = width;
    im->height = height;
    im->rgb = malloc((size_t)width * (size_t)height * 3);
    if (!im->rgb) return false;
    for (size_t k = 0; k < (size_t)width * (size_t)height; ++k) {
        im->rgb[3 * k] = col.r;
        im->rgb[3 * k + 1] = col.g;
        im->rgb[3 * k + 2] = col.b;
    }
    return true;
}

void image_free(image *im) {
    free(im->rgb);
    im->rgb = NULL;
}

static uint8_t *at(const image *im, int x, int y) {
    return im->rgb + 3 * ((size_t)y * (size_t)im->width + (size_t)x);
}

static bool inside(const image *im, int x, int y) {
    return x >= 0 && y >= 0 && x < im->width && y < im->height;
}

void image_put(image *im, int x, int y, rgb col) {
    if (!inside(im, x, y)) return;
    uint8_t *p = at(im, x, y);
    p[0] = col.r, p[1] = col.g, p[2] = col.b;
}

rgb image_get(const image *im, int x, int y) {
    if (!inside(im, x, y)) return (rgb){0, 0, 0};
    const uint8_t *p = at(im, x, y);
    return (rgb){p[0], p[1], p[2]};
}

static uint8_t mix(uint8_t a, uint8_t b, float t) {
    return (uint8_t)lroundf((float)a + ((float)b - (float)a) * t);
}

void image_blend(image *im, int x, int y, rgb col, float a) {
    if (!inside(im, x, y)) return;
    uint8_t *p = at(im, x, y);
    p[0] = mix(p[0], col.r, a), p[1] = mix(p[1], col.g, a), p[2] = mix(p[2], col.b, a);
}

void image_rect(image *im, int x0, int y0, int x1, int y1, rgb col) {
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < im->height; ++y)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < im->width; ++x) image_put(im, x, y, col);
}

void image_line(image *im, float x0, float y0, float x1, float y1, rgb col) {
    if (!isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    const float dx = x1 - x0, dy = y1 - y0;
    const float len = fabsf(dx) > fabsf(dy) ? fabsf(dx) : fabsf(dy);
    const int steps = len < 100000.0f ? (int)len + 1 : 100000;
    for (int k = 0; k <= steps; ++k) {
        const float t = (float)k / (float)steps;
        image_put(im, (int)lroundf(x0 + t * dx), (int)lroundf(y0 + t * dy), col);
    }
}

/* Scanline fill: a pixel centre is inside when it is on the inner side of
 * every edge (the polygon is convex; either winding). */
void image_fill_convex(image *im, const float (*p)[2], int n, rgb col, float a) {
    if (n < 3) return;
    float lo_x = p[0][0], hi_x = p[0][0], lo_y = p[0][1], hi_y = p[0][1], area = 0.0f;
    for (int k = 0; k < n; ++k) {
        if (!isfinite(p[k][0]) || !isfinite(p[k][1])) return;
        lo_x = fminf(lo_x, p[k][0]), hi_x = fmaxf(hi_x, p[k][0]);
        lo_y = fminf(lo_y, p[k][1]), hi_y = fmaxf(hi_y, p[k][1]);
        const float *q = p[(k + 1) % n];
        area += p[k][0] * q[1] - q[0] * p[k][1];
    }
    const float sign = area < 0.0f ? -1.0f : 1.0f;
    const int x0 = (int)fmaxf(floorf(lo_x), 0.0f),
              x1 = (int)fminf(ceilf(hi_x), (float)im->width - 1);
    const int y0 = (int)fmaxf(floorf(lo_y), 0.0f),
              y1 = (int)fminf(ceilf(hi_y), (float)im->height - 1);
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            const float cx = (float)x + 0.5f, cy = (float)y + 0.5f;
            bool in = true;
            for (int k = 0; k < n && in; ++k) {
                const float *u = p[k], *v = p[(k + 1) % n];
                in = sign * ((v[0] - u[0]) * (cy - u[1]) - (v[1] - u[1]) * (cx - u[0])) >= 0.0f;
            }
            if (in) image_blend(im, x, y, col, a);
        }
}

void image_fill_disc(image *im, float cx, float cy, float r, rgb col, float a) {
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(r)) return;
    if (r < 0.7f) r = 0.7f;
    const int x0 = (int)fmaxf(floorf(cx - r), 0.0f),
              x1 = (int)fminf(ceilf(cx + r), (float)im->width - 1);
    const int y0 = (int)fmaxf(floorf(cy - r), 0.0f),
              y1 = (int)fminf(ceilf(cy + r), (float)im->height - 1);
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            const float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            if (dx * dx + dy * dy <= r * r) image_blend(im, x, y, col, a);
        }
}

void image_blit(image *dst, const image *src, int x, int y) {
    for (int j = 0; j < src->height; ++j)
        for (int i = 0; i < src->width; ++i) image_put(dst, x + i, y + j, image_get(src, i, j));
}

/* ---------------------------------------------------------------- font */
/* 3x5 glyphs (m is 5 wide), one byte per row, the highest of `width` bits
 * is the leftmost column. */
typedef struct glyph {
    char c;
    uint8_t rows[5];
    uint8_t width;
} glyph;

static const glyph k_font[] = {
    {'0', {7, 5, 5, 5, 7}, 3},     {'1', {2, 6, 2, 2, 7}, 3}, {'2', {7, 1, 7, 4, 7}, 3},
    {'3', {7, 1, 7, 1, 7}, 3},     {'4', {5, 5, 7, 1, 1}, 3}, {'5', {7, 4, 7, 1, 7}, 3},
    {'6', {7, 4, 7, 5, 7}, 3},     {'7', {7, 1, 2, 2, 2}, 3}, {'8', {7, 5, 7, 5, 7}, 3},
    {'9', {7, 5, 7, 1, 7}, 3},     {'A', {2, 5, 7, 5, 5}, 3}, {'B', {6, 5, 6, 5, 6}, 3},
    {'C', {3, 4, 4, 4, 3}, 3},     {'D', {6, 5, 5, 5, 6}, 3}, {'E', {7, 4, 6, 4, 7}, 3},
    {'F', {7, 4, 6, 4, 4}, 3},     {'G', {3, 4, 5, 5, 3}, 3}, {'H', {5, 5, 7, 5, 5}, 3},
    {'I', {7, 2, 2, 2, 7}, 3},     {'J', {1, 1, 1, 5, 2}, 3}, {'K', {5, 5, 6, 5, 5}, 3},
    {'L', {4, 4, 4, 4, 7}, 3},     {'M', {5, 7, 7, 5, 5}, 3}, {'N', {6, 5, 5, 5, 5}, 3},
    {'O', {2, 5, 5, 5, 2}, 3},     {'P', {6, 5, 6, 4, 4}, 3}, {'Q', {2, 5, 5, 6, 3}, 3},
    {'R', {6, 5, 6, 5, 5}, 3},     {'S', {3, 4, 2, 1, 6}, 3}, {'T', {7, 2, 2, 2, 2}, 3},
    {'U', {5, 5, 5, 5, 7}, 3},     {'V', {5, 5, 5, 5, 2}, 3}, {'W', {5, 5, 7, 7, 5}, 3},
    {'X', {5, 5, 2, 5, 5}, 3},     {'Y', {5, 5, 2, 2, 2}, 3}, {'Z', {7, 1, 2, 4, 7}, 3},
    {'m', {0, 30, 21, 21, 21}, 5}, {'s', {0, 3, 6, 3, 6}, 3}, {'\'', {2, 2, 0, 0, 0}, 3},
    {'.', {0, 0, 0, 0, 2}, 3},     {',', {0, 0, 0, 2, 4}, 3}, {'-', {0, 0, 7, 0, 0}, 3},
    {'+', {0, 2, 7, 2, 0}, 3},     {'=', {0, 7, 0, 7, 0}, 3}, {':', {0, 2, 0, 2, 0}, 3},
    {'/', {1, 1, 2, 4, 4}, 3},     {'(', {2, 4, 4, 4, 2}, 3}, {')', {2, 1, 1, 1, 2}, 3},
    {'%', {5, 1, 2, 4, 5}, 3},     {' ', {0, 0, 0, 0, 0}, 3}, {'_', {0, 0, 0, 0, 7}, 3},
};

static const glyph *find_glyph(char c) {
    if (c >= 'a' && c <= 'z' && c != 'm' && c != 's') c = (char)(c - 'a' + 'A');
    for (size_t k = 0; k < sizeof k_font / sizeof k_font[0]; ++k)
        if (k_font[k].c == c) return &k_font[k];
    return NULL;
}

static int glyph_width(const glyph *g) { return g ? g->width : 3; }

int text_width(const char *text, int scale) {
    int w = 0;
    for (const char *c = text; *c; ++c) w += (glyph_width(find_glyph(*c)) + 1) * scale;
    return w;
}

int image_text(image *im, int x, int y, const char *text, int scale, rgb col) {
    int cx = x;
    for (const char *c = text; *c; ++c) {
        const glyph *g = find_glyph(*c);
        if (!g) g = find_glyph(' ');
        const int w = glyph_width(g);
        for (int row = 0; row < 5; ++row)
            for (int column = 0; column < w; ++column)
                if (g->rows[row] & (1 << (w - 1 - column)))
                    image_rect(im, cx + column * scale, y + row * scale,
                               cx + (column + 1) * scale - 1, y + (row + 1) * scale - 1, col);
        cx += (w + 1) * scale;
    }
    return cx - x;
}

void image_label(image *im, int x, int y, const char *text, int scale, rgb col) {
    const int w = text_width(text, scale), h = 5 * scale;
    for (int j = y - scale; j <= y + h + scale - 1; ++j)
        for (int i = x - scale; i <= x + w; ++i) image_blend(im, i, j, (rgb){0, 0, 0}, 0.65f);
    image_text(im, x, y, text, scale, col);
}

/* ---------------------------------------------------------------- png */
int image_write_png(const char *path, const image *im, const char *const *keys,
                    const char *const *values, int text_count_in) {
    const int text_count = text_count_in > 8 ? 8 : text_count_in;
    const bool to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "wb");
    if (!f) return cli_fail(EXIT_IO, "cannot write %s", path);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_text text[8];
    for (int k = 0; k < text_count; ++k) {
        memset(&text[k], 0, sizeof text[k]);
        text[k].compression = PNG_TEXT_COMPRESSION_NONE;
        text[k].key = (png_charp)(uintptr_t)keys[k];
        text[k].text = (png_charp)(uintptr_t)values[k];
    }
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        if (!to_stdout) fclose(f);
        return cli_fail(EXIT_IO, "writing %s failed", path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)im->width, (png_uint_32)im->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (text_count > 0) png_set_text(png, info, text, text_count);
    png_write_info(png, info);
    for (int y = 0; y < im->height; ++y)
        png_write_row(png, im->rgb + 3 * (size_t)y * (size_t)im->width);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    const bool ok = to_stdout ? fflush(f) == 0 : fclose(f) == 0;
    return ok ? EXIT_OK : cli_fail(EXIT_IO, "writing %s failed", path);
}
