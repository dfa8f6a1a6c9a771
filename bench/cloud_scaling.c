/* SPDX-License-Identifier: MIT */
/* eddy-cloud-scaling: the cost of a random vorton cloud against its size
 * (issue 35, item 5: "cost that grows like the work"). A cloud at
 * noise_cloud's density (4,096 vortons in a 2 m cube, the cube's edge growing
 * as the cube root of N so the density stays), vorticity uniform in
 * [-32, 32] per component (noise_cloud's magnitude), 16 tracers per vorton
 * spread over the same cube, the default world definition with
 * noise_cloud's vorton radius (half the mean spacing, 0.0625 m; --radius R
 * for another, e.g. 0.125, the default definition's), one worker unless told. Prints the machine, then
 * for N = 4,096, 16,384 and 65,536 (or the sizes given) the grid, and a table
 * of the median ms per phase over the measured frames (after the warm-up)
 * with the ratio of the last size's figure to the first's. Timings only:
 * nothing here is a test. Ported from the cloud-scaling bench of branch
 * wip/locality (8e9447a), on main's grid.
 *
 * --grid cubic steps the clouds on EDDY_GRID_EXTENT_VORTONS_CUBIC's grid.
 *
 *   eddy-cloud-scaling [--workers W] [--frames F] [--warmup K] [--radius R]
 *                      [--grid default|cubic] [N ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"

static uint32_t rng_next(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static float uniform(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)(rng_next(s) >> 7) * (1.0f / 16777216.0f);
}

/* 2 m at 4,096 vortons, times cbrt(n / 4096) by bisection (no libm). */
static float cube_edge(int n) {
    float lo = 0.0f, hi = 64.0f;
    const float k = (float)n / 4096.0f;
    for (int i = 0; i < 60; ++i) {
        const float m = 0.5f * (lo + hi);
        if (m * m * m < k) lo = m;
        else hi = m;
    }
    return 2.0f * lo;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The machine: the CPU's model name (Linux) and the processors online. */
static void print_machine(void) {
    char model[256] = "unknown";
    int cpus = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "processor", 9) == 0) ++cpus;
            const char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) == 0 && colon && strcmp(model, "unknown") == 0) {
                snprintf(model, sizeof model, "%s", colon + 2);
                model[strcspn(model, "\n")] = '\0';
            }
        }
        fclose(f);
    }
    printf("machine: %s, %d processors listed\n", model, cpus);
}

enum { MAX_SIZES = 8, MAX_FRAMES = 1000 };

typedef struct options {
    int workers, frames, warmup, sizes[MAX_SIZES], nsizes;
    float radius; /* the vortons' radius, m */
    bool cubic;   /* --grid cubic: EDDY_GRID_EXTENT_VORTONS_CUBIC */
} options;

static bool parse(int argc, char **argv, options *o) {
    *o = (options){.workers = 1, .frames = 10, .warmup = 3, .radius = 0.0625f};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) o->workers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) o->frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc) o->warmup = atoi(argv[++i]);
        else if (strcmp(argv[i], "--radius") == 0 && i + 1 < argc) o->radius = (float)atof(argv[++i]);
        else if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) {
            ++i;
            if (strcmp(argv[i], "cubic") == 0) o->cubic = true;
            else if (strcmp(argv[i], "default") != 0) return false;
        }
        else if (o->nsizes < MAX_SIZES && atoi(argv[i]) > 0) o->sizes[o->nsizes++] = atoi(argv[i]);
        else return false;
    }
    if (o->nsizes == 0) {
        const int defaults[3] = {4096, 16384, 65536};
        for (int s = 0; s < 3; ++s) o->sizes[s] = defaults[s];
        o->nsizes = 3;
    }
    return o->frames >= 1 && o->frames <= MAX_FRAMES && o->workers >= 1 && o->warmup >= 0 &&
           o->radius > 0.0f;
}

static eddy_world *make_cloud(const options *o, int n) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = o->workers;
    d.vorton_radius = o->radius;
    if (o->cubic) d.grid_extent = EDDY_GRID_EXTENT_VORTONS_CUBIC;
    eddy_world *w = NULL;
    if (eddy_world_create(&d, &w) != EDDY_OK) {
        fprintf(stderr, "create: %s\n", eddy_last_error_message());
        return NULL;
    }
    const float h = 0.5f * cube_edge(n);
    uint64_t seed = 0x5eed0035u + (uint64_t)n;
    eddy_vorton *v = calloc((size_t)n, sizeof *v);
    eddy_tracer *t = calloc((size_t)n * 16, sizeof *t);
    bool ok = v && t;
    for (int i = 0; ok && i < n; ++i) {
        v[i].position = (eddy_vec3){uniform(&seed, -h, h), uniform(&seed, -h, h), uniform(&seed, -h, h)};
        v[i].vorticity = (eddy_vec3){uniform(&seed, -32.0f, 32.0f), uniform(&seed, -32.0f, 32.0f),
                                     uniform(&seed, -32.0f, 32.0f)};
    }
    for (int i = 0; ok && i < 16 * n; ++i)
        t[i].position = (eddy_vec3){uniform(&seed, -h, h), uniform(&seed, -h, h), uniform(&seed, -h, h)};
    if (ok && (eddy_world_add_vortons(w, v, n) != EDDY_OK || eddy_world_add_tracers(w, t, 16 * n) != EDDY_OK)) {
        fprintf(stderr, "add: %s\n", eddy_world_error_message(w));
        ok = false;
    }
    free(v);
    free(t);
    if (!ok) {
        eddy_world_destroy(w);
        return NULL;
    }
    return w;
}

static double median_of(double *x, int n) {
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Steps one cloud; med[k] the median ms of phase k, med[EDDY_PHASE_COUNT] the step's. */
static bool measure(const options *o, int n, double med[EDDY_PHASE_COUNT + 1]) {
    static double samples[EDDY_PHASE_COUNT + 1][MAX_FRAMES];
    eddy_world *w = make_cloud(o, n);
    if (!w) return false;
    for (int f = 0; f < o->warmup + o->frames; ++f) {
        if (eddy_world_step(w, NULL) != EDDY_OK) {
            fprintf(stderr, "step: %s\n", eddy_world_error_message(w));
            eddy_world_destroy(w);
            return false;
        }
        if (f < o->warmup) continue;
        const eddy_profile p = eddy_world_get_profile(w);
        for (int k = 0; k < EDDY_PHASE_COUNT; ++k) samples[k][f - o->warmup] = p.phase_ms[k];
        samples[EDDY_PHASE_COUNT][f - o->warmup] = p.step_ms;
    }
    for (int k = 0; k <= EDDY_PHASE_COUNT; ++k) med[k] = median_of(samples[k], o->frames);
    const eddy_grid_info g = eddy_world_get_grid_info(w);
    const eddy_frame_hash hash = eddy_world_hash(w);
    printf("N %d: cube %.3f m, grid %d x %d x %d cells (%.2f per vorton), %d tree levels, "
           "mollification %.3f, final hash 0x%016llx\n",
           n, (double)cube_edge(n), g.cells[0], g.cells[1], g.cells[2],
           (double)g.cells[0] * g.cells[1] * g.cells[2] / n, g.tree_levels, (double)g.mollification,
           (unsigned long long)hash.frame_hash);
    eddy_world_destroy(w);
    return true;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: eddy-cloud-scaling [--workers W] [--frames F] [--warmup K] "
                        "[--radius R] [--grid default|cubic] [N ...]\n");
        return 2;
    }
    print_machine();
    static double med[MAX_SIZES][EDDY_PHASE_COUNT + 1];
    for (int s = 0; s < o.nsizes; ++s)
        if (!measure(&o, o.sizes[s], med[s])) return 1;
    printf("\n| phase (ms, median of %d frames after %d, %d worker%s) |", o.frames, o.warmup,
           o.workers, o.workers > 1 ? "s" : "");
    for (int s = 0; s < o.nsizes; ++s) printf(" N %d |", o.sizes[s]);
    printf(" ratio |\n|---|");
    for (int s = 0; s <= o.nsizes; ++s) printf("---:|");
    printf("\n");
    for (int k = 0; k <= EDDY_PHASE_COUNT; ++k) {
        printf("| %s |", k < EDDY_PHASE_COUNT ? eddy_phase_name((eddy_phase)k) + 5 : "step");
        for (int s = 0; s < o.nsizes; ++s) printf(" %.2f |", med[s][k]);
        printf(" %.1f |\n", med[0][k] > 0.0 ? med[o.nsizes - 1][k] / med[0][k] : 0.0);
    }
    return 0;
}
