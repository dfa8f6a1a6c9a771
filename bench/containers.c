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
 * - With --trace K, every K-th frame also prints "# scene frame enstrophy"
 *   before the scene's line: how a disturbance grows (docs/physics.md §8.2).
 *
 * The checks (tests/container_checks.h, shared with tests/test_containers.c)
 * read the world's particle arrays and body records in place, as the tests
 * do: nothing is copied out per frame. */
#include "eddy/eddy.h"
#include "cli_common.h"
#include "container_checks.h"
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

/* Particles of one array outside the walls; counts non-finite ones too. */
static long check_particles(const body *box, const particle_array *a, long *nonfinite) {
    long out = 0;
    for (int i = 0; i < a->count; ++i) {
        bool finite = isfinite(a->px[i]) && isfinite(a->py[i]) && isfinite(a->pz[i]);
        if (a->has_vorticity) finite = finite && isfinite(a->wx[i]) && isfinite(a->wy[i]) &&
                                       isfinite(a->wz[i]);
        *nonfinite += !finite;
        out += container_checks_beyond_walls(box, a->px[i], a->py[i], a->pz[i]) > 0.0;
    }
    return out;
}

static bool run_scene(const char *name, int frames, int workers, int treecode,
                      eddy_vorton_step step, int trace, run_result *r) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    if (treecode >= 0) base.treecode_traversal = (eddy_treecode_traversal)treecode;
    base.vorton_step = step;
    eddy_world *w = NULL;
    if (eddy_scene_create(name, &base, &w) != EDDY_OK) return false;
    memset(r, 0, sizeof *r);
    int n0 = -1;
    for (int f = 1; f <= frames; ++f) {
        eddy_scene_input si;
        if (eddy_world_step(w, eddy_scene_input_for(name, eddy_world_frame(w), &si)) != EDDY_OK) {
            eddy_world_destroy(w);
            return false;
        }
        const double e = eddy_world_get_diagnostics(w).enstrophy;
        if (trace > 0 && f % trace == 0) printf("# %s %d %.4g\n", name, f, e);
        double *slot = f <= EARLY_FRAMES ? &r->early_max : &r->late_max;
        if (!(e <= *slot)) *slot = e; /* a NaN sticks */
        const int n = w->vortons.count + w->tracers.count;
        if (n0 < 0) n0 = n;
        if (n0 - n > r->lost) r->lost = n0 - n;
        const body *box = container_checks_container(w);
        if (box)
            r->escaped += check_particles(box, &w->vortons, &r->nonfinite) +
                          check_particles(box, &w->tracers, &r->nonfinite);
    }
    r->distinct_v = container_checks_distinct_fraction(&w->vortons);
    r->distinct_t = container_checks_distinct_fraction(&w->tracers);
    eddy_world_destroy(w);
    return true;
}

static void usage(void) {
    fprintf(stderr, "usage: eddy-containers [--frames N] [--workers W] [--trace K]\n"
                    "                       [--treecode multipole|original]\n"
                    "                       [--vorton-step euler|heun|stretch-ab2|heun-adaptive] [scene ...]\n"
                    "  default: 10000 frames, 2 workers, the six container scenes\n"
                    "  --trace K: print the enstrophy every K frames\n"
                    "  --treecode T: the treecode traversal (default: the world definition's)\n"
                    "  --vorton-step S: eddy_world_def.vorton_step (default: the definition's)\n");
}

int main(int argc, char **argv) {
    int frames = 10000, workers = 2, trace = 0, treecode = -1, first_scene = argc;
    eddy_vorton_step step = eddy_world_def_default().vorton_step;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
            workers = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            trace = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--treecode") && i + 1 < argc) {
            eddy_treecode_traversal t;
            if (!eddy_cli_treecode_parse(argv[++i], &t)) {
                usage();
                return 2;
            }
            treecode = (int)t;
        } else if (!strcmp(argv[i], "--vorton-step") && i + 1 < argc) {
            if (!eddy_cli_vorton_step_parse(argv[++i], &step)) {
                usage();
                return 2;
            }
        } else if (argv[i][0] == '-') {
            usage();
            return 2;
        } else {
            first_scene = i;
            break;
        }
    }
    if (frames < 1 || workers < 1 || trace < 0) {
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
            char m[256];
            fprintf(stderr, "eddy-containers: %s\n",
                    eddy_scene_unknown_message(names[s], "eddy-replay scenes", m, sizeof m));
            return 2;
        }
        run_result r;
        if (!run_scene(names[s], frames, workers, treecode, step, trace, &r)) {
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
