/* SPDX-License-Identifier: MIT */
/* eddy-replay render --volume: the smoke as a volume, ray-marched.
 *
 * Design notes.
 * - The volume is eddy's own (include/eddy/smoke.h): a density grid over the
 *   camera's square on the view plane and the tracers' depth range, one
 *   voxel per two pixels (at most 160 a side), from the tracers of the frame.
 * - Light comes from one fixed direction, up and a little to the side
 *   (k_light, world coordinates). The optical depth from each voxel to the
 *   top of the volume along it is swept layer by layer from the top down:
 *   a voxel's is its upper neighbour's (sampled bilinearly where the slanted
 *   ray crosses that layer) plus the step between them. One pass, O(voxels).
 * - The camera is orthographic along the view axis, front to back: each
 *   layer's opacity alpha = 1 - exp(-sigma rho h) adds alpha times the light
 *   that reaches it (ambient plus the attenuated key light) to what the
 *   pixel already holds, scaled by the transmittance in front of it; what
 *   is left over shows the background.
 * - sigma: --extinction, or chosen per frame so that the densest 2 % of the
 *   columns reach an optical depth of 4 (nearly opaque); it is printed on
 *   the image. The picture is for people: floats and libm are fine here. */
#include "cli_volume.h"

#include "eddy/smoke.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const float k_light[3] = {-0.35f, 0.25f, 1.0f}; /* toward the light, world */
static const float k_ambient = 0.28f;

typedef struct grid3 {
    int n[3];      /* voxels along view right, view up, depth */
    float *rho;    /* n0 n1 n2, right fastest, depth slowest */
    float *tau_light;
    float h[3];
} grid3;

static float at(const grid3 *g, const float *f, int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= g->n[0] || j >= g->n[1] || k >= g->n[2]) return 0.0f;
    return f[(size_t)i + (size_t)g->n[0] * ((size_t)j + (size_t)g->n[1] * (size_t)k)];
}

/* Bilinear in layer k at fractional voxel coordinates (u, v). */
static float bilinear(const grid3 *g, const float *f, float u, float v, int k) {
    const int i = (int)floorf(u), j = (int)floorf(v);
    const float fu = u - (float)i, fv = v - (float)j;
    return (1 - fv) * ((1 - fu) * at(g, f, i, j, k) + fu * at(g, f, i + 1, j, k)) +
           fv * ((1 - fu) * at(g, f, i, j + 1, k) + fu * at(g, f, i + 1, j + 1, k));
}

static float coord3(const float *v, int a) { return v[a]; }

/* The smoke volume's densities reordered to (right, up, depth), depth 0 the
 * layer nearest the camera. */
static bool grid_from_volume(grid3 *g, const eddy_smoke_volume *vol, const int axis[3],
                             const bool flip[3]) {
    const eddy_smoke_volume_def d = eddy_smoke_volume_get_def(vol);
    const float lo[3] = {d.min_corner.x, d.min_corner.y, d.min_corner.z};
    const float hi[3] = {d.max_corner.x, d.max_corner.y, d.max_corner.z};
    for (int k = 0; k < 3; ++k) {
        g->n[k] = d.resolution[axis[k]];
        g->h[k] = (hi[axis[k]] - lo[axis[k]]) / (float)g->n[k];
    }
    const size_t n = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    g->rho = malloc(n * sizeof(float));
    g->tau_light = calloc(n, sizeof(float));
    if (!g->rho || !g->tau_light) return false;
    const float *src = eddy_smoke_volume_density(vol);
    const int nw[3] = {d.resolution[0], d.resolution[1], d.resolution[2]};
    for (int k = 0; k < g->n[2]; ++k)
        for (int j = 0; j < g->n[1]; ++j)
            for (int i = 0; i < g->n[0]; ++i) {
                int w[3];
                const int idx[3] = {i, j, k};
                for (int a = 0; a < 3; ++a) {
                    const int v = flip[a] ? g->n[a] - 1 - idx[a] : idx[a];
                    w[axis[a]] = v;
                }
                g->rho[(size_t)i + (size_t)g->n[0] * ((size_t)j + (size_t)g->n[1] * (size_t)k)] =
                    src[(size_t)w[0] + (size_t)nw[0] * ((size_t)w[1] + (size_t)nw[1] * (size_t)w[2])];
            }
    return true;
}

/* Optical depth toward the light, swept from the side of the grid the light
 * comes from. The light is expressed in grid axes (right, up, depth) as
 * ldir; the sweep runs along the grid axis where |ldir| is largest. */
static void light_sweep(grid3 *g, const float ldir[3], float sigma) {
    int m = 0;
    for (int a = 1; a < 3; ++a)
        if (fabsf(ldir[a]) > fabsf(ldir[m])) m = a;
    const int p = (m + 1) % 3, q = (m + 2) % 3;
    const int step = ldir[m] > 0.0f ? 1 : -1; /* toward the light along m */
    /* per layer along m, the ray moves by these voxels along p and q */
    const float dp = (ldir[p] / fabsf(ldir[m])) * g->h[m] / g->h[p];
    const float dq = (ldir[q] / fabsf(ldir[m])) * g->h[m] / g->h[q];
    const float len = g->h[m] / fabsf(ldir[m]) *
                      sqrtf(ldir[0] * ldir[0] + ldir[1] * ldir[1] + ldir[2] * ldir[2]);
    const int first = step > 0 ? g->n[m] - 1 : 0;
    for (int s = 0; s < g->n[m]; ++s) {
        const int l = first - step * s;
        for (int b = 0; b < g->n[q]; ++b)
            for (int a = 0; a < g->n[p]; ++a) {
                int idx[3];
                idx[m] = l, idx[p] = a, idx[q] = b;
                float tau = 0.0f;
                const int up = l + step;
                if (up >= 0 && up < g->n[m]) {
                    /* the neighbour layer toward the light, sampled where the ray meets it */
                    const float u = (float)a + dp, v = (float)b + dq;
                    const int iu = (int)floorf(u), iv = (int)floorf(v);
                    const float fu = u - (float)iu, fv = v - (float)iv;
                    float tn = 0.0f, rn = 0.0f;
                    for (int cb = 0; cb < 2; ++cb)
                        for (int ca = 0; ca < 2; ++ca) {
                            int jdx[3];
                            jdx[m] = up, jdx[p] = iu + ca, jdx[q] = iv + cb;
                            const float wgt = (ca ? fu : 1 - fu) * (cb ? fv : 1 - fv);
                            tn += wgt * at(g, g->tau_light, jdx[0], jdx[1], jdx[2]);
                            rn += wgt * at(g, g->rho, jdx[0], jdx[1], jdx[2]);
                        }
                    tau = tn + sigma * 0.5f * (rn + at(g, g->rho, idx[0], idx[1], idx[2])) * len;
                }
                g->tau_light[(size_t)idx[0] +
                             (size_t)g->n[0] * ((size_t)idx[1] + (size_t)g->n[1] * (size_t)idx[2])] = tau;
            }
    }
}

/* sigma with the densest 2 % of the columns at optical depth 4. */
static float auto_sigma(const grid3 *g) {
    const size_t cols = (size_t)g->n[0] * (size_t)g->n[1];
    float *depth = malloc(cols * sizeof(float));
    if (!depth) return 1.0f;
    size_t used = 0;
    for (int j = 0; j < g->n[1]; ++j)
        for (int i = 0; i < g->n[0]; ++i) {
            float sum = 0.0f;
            for (int k = 0; k < g->n[2]; ++k) sum += at(g, g->rho, i, j, k);
            if (sum > 0.0f) depth[used++] = sum * g->h[2];
        }
    float sigma = 1.0f;
    if (used > 0) {
        qsort(depth, used, sizeof(float), cli_float_compare);
        const float p98 = depth[(size_t)(0.98 * (double)(used - 1))];
        if (p98 > 0.0f) sigma = 4.0f / p98;
    }
    free(depth);
    return sigma;
}

int cli_float_compare(const void *a, const void *b) {
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

bool cli_draw_volume(image *im, const cli_volume_view *view, eddy_world *w, float extinction,
                     float *sigma_used) {
    /* depth axis and which way is toward the camera: view z looks along -z,
     * y along +y, x along -x (right-handed, "up" on screen) */
    const int depth_axis = 3 - view->axis[0] - view->axis[1];
    const bool near_is_high = view->view != 'y';
    eddy_particle_view t = eddy_world_view_tracers(w);
    float dlo = INFINITY, dhi = -INFINITY;
    for (int k = 0; k < t.count; ++k) {
        const float p[3] = {t.position_x[k], t.position_y[k], t.position_z[k]};
        const float d = coord3(p, depth_axis);
        if (isfinite(d)) dlo = fminf(dlo, d), dhi = fmaxf(dhi, d);
    }
    *sigma_used = 0.0f;
    if (!(dhi >= dlo)) return true; /* no smoke */
    const int n = view->size / 2 < 160 ? (view->size / 2 > 16 ? view->size / 2 : 16) : 160;
    const float hview = view->span / (float)n;
    int nd = (int)ceilf((dhi - dlo) / hview) + 2;
    if (nd > 160) nd = 160;
    if (nd < 2) nd = 2;
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    float lo[3], hi[3];
    lo[view->axis[0]] = view->lo[0], hi[view->axis[0]] = view->lo[0] + view->span;
    lo[view->axis[1]] = view->lo[1], hi[view->axis[1]] = view->lo[1] + view->span;
    const float pad = (dhi - dlo) / (float)nd + 1e-3f;
    lo[depth_axis] = dlo - pad, hi[depth_axis] = dhi + pad;
    d.min_corner = (eddy_vec3){lo[0], lo[1], lo[2]};
    d.max_corner = (eddy_vec3){hi[0], hi[1], hi[2]};
    d.resolution[view->axis[0]] = n;
    d.resolution[view->axis[1]] = n;
    d.resolution[depth_axis] = nd;
    eddy_smoke_volume *vol = NULL;
    if (eddy_smoke_volume_create(&d, &vol) != EDDY_OK) return false;
    bool ok = eddy_smoke_volume_update(vol, w) == EDDY_OK;
    grid3 g = {{0, 0, 0}, NULL, NULL, {0, 0, 0}};
    const int axis[3] = {view->axis[0], view->axis[1], depth_axis};
    const bool flip[3] = {false, false, near_is_high};
    ok = ok && grid_from_volume(&g, vol, axis, flip);
    eddy_smoke_volume_destroy(vol);
    if (ok) {
        const float sigma = extinction > 0.0f ? extinction : auto_sigma(&g);
        *sigma_used = sigma;
        float ldir[3];
        for (int a = 0; a < 3; ++a) ldir[a] = k_light[axis[a]] * (a == 2 && near_is_high ? -1.0f : 1.0f);
        light_sweep(&g, ldir, sigma);
        const float scale = (float)(view->size - 1) / view->span;
        for (int py = 0; py < view->size; ++py)
            for (int px = 0; px < view->size; ++px) {
                /* world on the view plane at the pixel, then voxel coordinates */
                const float wx = view->lo[0] + (float)px / scale;
                const float wy = view->lo[1] + (float)(view->size - 1 - py) / scale;
                const float u = (wx - view->lo[0]) / g.h[0] - 0.5f;
                const float v = (wy - view->lo[1]) / g.h[1] - 0.5f;
                float trans = 1.0f, light = 0.0f;
                for (int k = 0; k < g.n[2] && trans > 0.004f; ++k) {
                    const float rho = bilinear(&g, g.rho, u, v, k);
                    if (rho <= 0.0f) continue;
                    const float a = 1.0f - expf(-sigma * rho * g.h[2]);
                    const float lit = k_ambient + (1.0f - k_ambient) * expf(-bilinear(&g, g.tau_light, u, v, k));
                    light += trans * a * lit;
                    trans *= 1.0f - a;
                }
                const rgb bg = image_get(im, px, py);
                const float smoke[3] = {236.0f, 236.0f, 240.0f}, shade[3] = {0.80f, 0.84f, 1.0f};
                const float bgc[3] = {bg.r, bg.g, bg.b};
                uint8_t out[3];
                for (int c = 0; c < 3; ++c) {
                    const float tint = light < 1e-6f ? 1.0f : shade[c] + (1.0f - shade[c]) * light;
                    float val = smoke[c] * light * tint + bgc[c] * trans;
                    out[c] = (uint8_t)fminf(255.0f, fmaxf(0.0f, val));
                }
                image_put(im, px, py, (rgb){out[0], out[1], out[2]});
            }
    }
    free(g.rho);
    free(g.tau_light);
    return ok;
}

const char *cli_light_text(void) { return "LIGHT FROM UP (-0.35 0.25 1)"; }
