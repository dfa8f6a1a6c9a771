/* Uniform grids: sizing without libm, cell lookup, trilinear interpolation.
 *
 * grid_define follows the original demo's DefineShape (cells ~ target count,
 * power of two per axis, fewer than 8x target) but takes the target cell edge
 * from eddy_cbrtf instead of powf, so the integer cell counts are the same on
 * every machine (a 1-ulp difference in powf could change the grid). */
#include "core.h"

static int next_pow2(int n) {
    int p = 1;
    while (p < n && p < (1 << 20)) p <<= 1;
    return p;
}

static int cells_along(float extent, float edge) {
    if (!(extent > 0.0f)) return 1;
    float n = extent / edge + 0.5f;
    if (!(n < 1048576.0f)) return 1 << 20; /* also catches NaN/inf */
    int c = (int)n;
    return c < 1 ? 1 : c;
}

void grid_define(grid_shape *g, const float lo[3], const float hi[3], int target_cells) {
    if (target_cells < 1) target_cells = 1;
    float volume = 1.0f;
    int dims = 0;
    for (int a = 0; a < 3; ++a) {
        g->min[a] = lo[a];
        g->extent[a] = (hi[a] - lo[a]) * (1.0f + EDDY_FLT_EPSILON);
        if (g->extent[a] > 0.0f) {
            volume *= g->extent[a];
            ++dims;
        }
    }
    float per_cell = volume / (float)target_cells;
    float edge = dims == 3 ? eddy_cbrtf(per_cell) : dims == 2 ? sqrtf(per_cell) : per_cell;
    int64_t product = 1;
    for (int a = 0; a < 3; ++a) {
        g->cells[a] = next_pow2(cells_along(g->extent[a], edge));
        product *= g->cells[a];
    }
    while (product >= 8 * (int64_t)target_cells && product > 1) {
        product = 1;
        for (int a = 0; a < 3; ++a) {
            if (g->cells[a] > 1) g->cells[a] >>= 1;
            product *= g->cells[a];
        }
    }
    for (int a = 0; a < 3; ++a) {
        g->points[a] = g->cells[a] + 1;
        g->spacing[a] = g->extent[a] / (float)g->cells[a];
        g->inv_spacing[a] = g->extent[a] > 0.0f ? (float)g->cells[a] / g->extent[a] : 0.0f;
    }
}

void grid_decimate(grid_shape *parent, const grid_shape *child) {
    for (int a = 0; a < 3; ++a) {
        parent->min[a] = child->min[a];
        parent->extent[a] = child->extent[a];
        parent->cells[a] = child->cells[a] > 1 ? child->cells[a] / 2 : 1;
        parent->points[a] = parent->cells[a] + 1;
        parent->spacing[a] = parent->extent[a] / (float)parent->cells[a];
        parent->inv_spacing[a] =
            parent->extent[a] > 0.0f ? (float)parent->cells[a] / parent->extent[a] : 0.0f;
    }
}

/* Continuous cell coordinate along axis a, clamped to [0, cells]; index and
 * fraction within the cell. Clamping makes out-of-grid queries take the
 * boundary value instead of reading outside the arrays. */
static inline void locate(const grid_shape *g, int a, float p, int *index, float *frac) {
    float u = (p - g->min[a]) * g->inv_spacing[a];
    float top = (float)g->cells[a];
    if (!(u > 0.0f)) u = 0.0f;   /* also maps NaN to 0 */
    if (u > top) u = top;
    int i = (int)u;
    if (i >= g->cells[a]) i = g->cells[a] - 1;
    *index = i;
    *frac = u - (float)i;
}

void grid_locate(const grid_shape *g, float x, float y, float z, int idx[3], float frac[3]) {
    locate(g, 0, x, &idx[0], &frac[0]);
    locate(g, 1, y, &idx[1], &frac[1]);
    locate(g, 2, z, &idx[2], &frac[2]);
}

void grid_cell_of(const grid_shape *g, float x, float y, float z, int idx[3]) {
    float f;
    locate(g, 0, x, &idx[0], &f);
    locate(g, 1, y, &idx[1], &f);
    locate(g, 2, z, &idx[2], &f);
}

vec3 grid_interp_vec3(const grid_shape *g, const vec3 *field, float x, float y, float z) {
    int i, j, k;
    float tx, ty, tz;
    locate(g, 0, x, &i, &tx);
    locate(g, 1, y, &j, &ty);
    locate(g, 2, z, &k, &tz);
    const int nx = g->points[0], nxy = g->points[0] * g->points[1];
    const int o = i + nx * j + nxy * k;
    const int dx = g->cells[0] > 0 ? 1 : 0, dy = nx, dz = nxy;
    const vec3 *a000 = &field[o], *a100 = &field[o + dx];
    const vec3 *a010 = &field[o + dy], *a110 = &field[o + dy + dx];
    const vec3 *a001 = &field[o + dz], *a101 = &field[o + dz + dx];
    const vec3 *a011 = &field[o + dz + dy], *a111 = &field[o + dz + dy + dx];
    const float sx = 1.0f - tx, sy = 1.0f - ty, sz = 1.0f - tz;
    vec3 r;
#define EDDY_TRILERP(c)                                                                    \
    (((sx * a000->c + tx * a100->c) * sy + (sx * a010->c + tx * a110->c) * ty) * sz +       \
     ((sx * a001->c + tx * a101->c) * sy + (sx * a011->c + tx * a111->c) * ty) * tz)
    r.x = EDDY_TRILERP(x);
    r.y = EDDY_TRILERP(y);
    r.z = EDDY_TRILERP(z);
#undef EDDY_TRILERP
    return r;
}

float grid_interp_float(const grid_shape *g, const float *field, float x, float y, float z) {
    int i, j, k;
    float tx, ty, tz;
    locate(g, 0, x, &i, &tx);
    locate(g, 1, y, &j, &ty);
    locate(g, 2, z, &k, &tz);
    const int nx = g->points[0], nxy = g->points[0] * g->points[1];
    const int o = i + nx * j + nxy * k;
    const float sx = 1.0f - tx, sy = 1.0f - ty, sz = 1.0f - tz;
    const float *f = field;
    return ((sx * f[o] + tx * f[o + 1]) * sy + (sx * f[o + nx] + tx * f[o + nx + 1]) * ty) * sz +
           ((sx * f[o + nxy] + tx * f[o + nxy + 1]) * sy +
            (sx * f[o + nxy + nx] + tx * f[o + nxy + nx + 1]) * ty) * tz;
}

void grid_diff_stencil(const grid_shape *g, int axis, int i, int *lo, int *hi, float *scale) {
    const int n = g->points[axis];
    if (i == 0) {
        *lo = 0; *hi = 1; *scale = g->inv_spacing[axis];
    } else if (i == n - 1) {
        *lo = n - 2; *hi = n - 1; *scale = g->inv_spacing[axis];
    } else {
        *lo = i - 1; *hi = i + 1; *scale = 0.5f * g->inv_spacing[axis];
    }
}
