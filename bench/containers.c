/* SPDX-License-Identifier: MIT */
/* eddy-containers: the long-run benchmark of the container scenes
 * (docs/physics.md, "Containers over 10,000 frames").
 *
 * Design note.
 *
 * - Every scene is built by the shared scene builder and stepped with its
 *   scripted input, exactly as the tests, demo and verifier step it.
 * - After every step it reads the diagnostics' enstrophy and keeps its maximum
 *   over frames 1-300 and over frames 301-N; it counts the particles whose
 *   centre is outside the container's inner box at the container's pose after
 *   the step (the interior moves with the container, so the end-of-step pose
 *   is the one to check), particles lost, and non-finite positions or
 *   vorticities.
 * - At the end it counts the vortons and tracers whose position (bitwise) is
 *   shared with no other particle of their kind.
 * - Output: one line per scene, "scene frames max_e_0_300 max_e_300_N ratio
 *   escaped lost nonfinite distinct_vortons distinct_tracers"; exit code 1 if
 *   a world could not be created or stepped, 2 for a bad command line.
 *
 * The tool reads the container's shape from the library's internal body
 * record (as the tests do): the public API does not return a body's shape. */
#include "eddy/eddy.h"
#include "core.h"
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_scenes[] = {"container_drop", "container_layers", "sloshing",
                                       "rotating_container", "dam_break", "buoyant_ball"};
enum { SCENE_COUNT = sizeof k_scenes / sizeof k_scenes[0], EARLY_FRAMES = 300 };

typedef struct run_result {
    double early_max, late_max;
    long escaped, nonfinite;
    int lost;
    double distinct_v, distinct_t;
} run_result;

/* Largest signed distance of p outside the hole's inner box at the body's
 * current pose (> 0: outside). */
static double beyond_walls(const body *b, eddy_vec3 p) {
    const double d[3] = {(double)p.x - (double)b->position[0], (double)p.y - (double)b->position[1],
                         (double)p.z - (double)b->position[2]};
    double l[3];
    for (int k = 0; k < 3; ++k)
        l[k] = (double)b->rotation[0][k] * d[0] + (double)b->rotation[1][k] * d[1] +
               (double)b->rotation[2][k] * d[2];
    double m = -1e30;
    const eddy_shape *s = &b->def.shape;
    for (int k = 0; k < s->plane_count; ++k) {
        const eddy_vec3 n = s->planes[k].normal;
        const double e =
            (double)n.x * l[0] + (double)n.y * l[1] + (double)n.z * l[2] - (double)s->planes[k].offset;
        m = e > m ? e : m;
    }
    return m;
}

static const body *container_of(const eddy_world *w) {
    for (int i = 0; i < w->body_count; ++i) {
        const body *b = &w->bodies[i];
        if (b->alive && b->def.shape.type == EDDY_SHAPE_POLYTOPE && b->def.shape.hole) return b;
    }
    return NULL;
}

typedef struct key3 {
    uint32_t k[3];
} key3;

static int key_cmp(const void *a, const void *b) {
    const key3 *x = a, *y = b;
    for (int i = 0; i < 3; ++i)
        if (x->k[i] != y->k[i]) return x->k[i] < y->k[i] ? -1 : 1;
    return 0;
}

/* Fraction of positions that no other position equals bitwise. */
static double distinct_fraction(key3 *keys, int n) {
    if (n == 0) return 1.0;
    qsort(keys, (size_t)n, sizeof *keys, key_cmp);
    int alone = 0;
    for (int i = 0; i < n; ++i) {
        const bool same_prev = i > 0 && key_cmp(&keys[i], &keys[i - 1]) == 0;
        const bool same_next = i + 1 < n && key_cmp(&keys[i], &keys[i + 1]) == 0;
        alone += !same_prev && !same_next;
    }
    return (double)alone / n;
}

static key3 key_of(eddy_vec3 p) {
    key3 k;
    memcpy(&k.k[0], &p.x, 4);
    memcpy(&k.k[1], &p.y, 4);
    memcpy(&k.k[2], &p.z, 4);
    return k;
}

static bool finite3(eddy_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Checks one frame's particles; returns the number outside the walls. */
static long check_particles(const eddy_world *w, const body *box, const eddy_vorton *v, int nv,
                            const eddy_tracer *t, int nt, long *nonfinite) {
    long out = 0;
    for (int i = 0; i < nv; ++i) {
        if (!finite3(v[i].position) || !finite3(v[i].vorticity)) ++*nonfinite;
        out += beyond_walls(box, v[i].position) > 0.0;
    }
    for (int i = 0; i < nt; ++i) {
        if (!finite3(t[i].position)) ++*nonfinite;
        out += beyond_walls(box, t[i].position) > 0.0;
    }
    (void)w;
    return out;
}

static bool run_scene(const char *name, int frames, int workers, run_result *r) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    if (eddy_scene_create(name, &base, &w) != EDDY_OK) return false;
    memset(r, 0, sizeof *r);
    int n0 = -1;
    eddy_vorton *v = NULL;
    eddy_tracer *t = NULL;
    int nv = 0, nt = 0;
    for (int f = 1; f <= frames; ++f) {
        eddy_scene_input si;
        if (eddy_world_step(w, eddy_scene_input_for(name, eddy_world_frame(w), &si)) != EDDY_OK) {
            eddy_world_destroy(w);
            return false;
        }
        const double e = eddy_world_get_diagnostics(w).enstrophy;
        double *slot = f <= EARLY_FRAMES ? &r->early_max : &r->late_max;
        if (!(e <= *slot)) *slot = e; /* a NaN sticks */
        nv = eddy_world_vorton_count(w);
        nt = eddy_world_tracer_count(w);
        if (n0 < 0) n0 = nv + nt;
        if (n0 - (nv + nt) > r->lost) r->lost = n0 - (nv + nt);
        v = realloc(v, (size_t)(nv > 0 ? nv : 1) * sizeof *v);
        t = realloc(t, (size_t)(nt > 0 ? nt : 1) * sizeof *t);
        eddy_world_get_vortons(w, 0, nv, v);
        eddy_world_get_tracers(w, 0, nt, t);
        const body *box = container_of(w);
        if (box) r->escaped += check_particles(w, box, v, nv, t, nt, &r->nonfinite);
    }
    key3 *keys = malloc((size_t)(nv + nt + 1) * sizeof *keys);
    for (int i = 0; i < nv; ++i) keys[i] = key_of(v[i].position);
    r->distinct_v = distinct_fraction(keys, nv);
    for (int i = 0; i < nt; ++i) keys[i] = key_of(t[i].position);
    r->distinct_t = distinct_fraction(keys, nt);
    free(keys);
    free(v);
    free(t);
    eddy_world_destroy(w);
    return true;
}

static void usage(void) {
    fprintf(stderr, "usage: eddy-containers [--frames N] [--workers W] [scene ...]\n"
                    "  default: 10000 frames, 2 workers, the six container scenes\n");
}

int main(int argc, char **argv) {
    int frames = 10000, workers = 2, first_scene = argc;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
            workers = atoi(argv[++i]);
        } else if (argv[i][0] == '-') {
            usage();
            return 2;
        } else {
            first_scene = i;
            break;
        }
    }
    if (frames < 1 || workers < 1) {
        usage();
        return 2;
    }
    const char *const *names = first_scene < argc ? (const char *const *)&argv[first_scene] : k_scenes;
    const int count = first_scene < argc ? argc - first_scene : SCENE_COUNT;
    printf("%-20s %6s %12s %12s %8s %8s %5s %9s %9s %9s\n", "scene", "frames", "max_e_0_300",
           "max_e_late", "ratio", "escaped", "lost", "nonfinite", "dist_vort", "dist_trac");
    int status = 0;
    for (int s = 0; s < count; ++s) {
        if (!eddy_scene_find(names[s])) {
            fprintf(stderr, "eddy-containers: unknown scene '%s'\n", names[s]);
            return 2;
        }
        run_result r;
        if (!run_scene(names[s], frames, workers, &r)) {
            fprintf(stderr, "eddy-containers: %s could not be created or stepped\n", names[s]);
            status = 1;
            continue;
        }
        printf("%-20s %6d %12.4g %12.4g %8.3g %8ld %5d %9ld %8.2f%% %8.2f%%\n", names[s], frames,
               r.early_max, r.late_max, r.late_max / r.early_max, r.escaped, r.lost, r.nonfinite,
               100.0 * r.distinct_v, 100.0 * r.distinct_t);
        fflush(stdout);
    }
    return status;
}
