/* SPDX-License-Identifier: MIT */
/* eddy-rollback-bench: what snapshots, restores and rollbacks cost.
 *
 * Design note.
 *
 * - What is measured. For each scene and worker count a world is built by
 *   the shared scene builder and stepped (with the scene's scripted input)
 *   to frame `at`; that state S is snapshotted once. Then, `reps` times each
 *   and reported as MEDIANS (this machine is shared and noisy):
 *     snapshot  eddy_world_snapshot of S into a reused buffer;
 *     restore   eddy_world_restore of S into the same world (which therefore
 *               already has every capacity the state needs: the steady state
 *               of a rollback loop);
 *     step      one eddy_world_step from S (restored before every step);
 *     rollback  what the worst frame of a rollback loop costs: restore S,
 *               then `depth` times (step, snapshot) — the re-simulated frames
 *               are saved again, as a rollback loop must.
 * - Determinism is shown, not assumed: after every rollback the frame hash
 *   must equal the one of the first pass from S; a difference is an error
 *   (exit 1), not a timing.
 * - Only eddy's public API, the scene registry and the pinning helpers are
 *   used, so the same file builds against older versions of the library for
 *   before/after comparisons.
 * - Exit codes: 0 success, 1 a world could not be created, stepped or
 *   restored, or a rollback diverged, 2 bad command line. */
#include "eddy/eddy.h"
#include "eddy/snapshot.h"
#include "cli_common.h"
#include "pin.h"
#include "scenes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RB_MAX_SCENES = 256 };

typedef struct rb_options {
    const char *scenes[RB_MAX_SCENES];
    int scene_count;
    int threads[EDDY_CLI_MAX_THREADS];
    int thread_count;
    int at;      /* frame of the snapshot; 0: the scene's default_frames */
    int reps;
    int depth;
    eddy_pin_policy pin;
    bool json;
    bool help;
} rb_options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: eddy-rollback-bench [--scene NAMES|all] [--threads LIST] [--at FRAME]\n"
            "                           [--reps N] [--depth N] [--pin none|core|pu] [--json]\n"
            "\n"
            "Median ms of a snapshot, a restore into a world that has the capacity, one\n"
            "step, and a rollback of DEPTH frames (restore + DEPTH x (step + snapshot)),\n"
            "from the state at FRAME of each scene at each worker count; then the fastest\n"
            "snapshot and restore (what they cost when nothing else runs).\n"
            "\n"
            "  --scene NAMES   scene, comma list or all (default plume_plate)\n"
            "  --threads LIST  worker counts, e.g. 1,2 (default 1,2)\n"
            "  --at FRAME      frame of the snapshot (default: the scene's default frames)\n"
            "  --reps N        repetitions of each measurement (default 50)\n"
            "  --depth N       frames re-simulated by a rollback (default 7)\n"
            "  --pin POLICY    none, core or pu (default pu)\n"
            "  --json          one JSON object per line per run\n");
}

static int fail_usage(const char *option, const char *problem) {
    fprintf(stderr, "eddy-rollback-bench: %s: %s (see --help)\n", option, problem);
    return 2;
}

static int add_scenes(const char *text, rb_options *o) {
    o->scene_count = 0;
    if (strcmp(text, "all") == 0) {
        for (int i = 0; i < eddy_scene_count() && i < RB_MAX_SCENES; ++i)
            o->scenes[o->scene_count++] = eddy_scene_at(i)->name;
        return -1;
    }
    char buffer[2048];
    snprintf(buffer, sizeof buffer, "%s", text);
    for (char *item = strtok(buffer, ","); item != NULL; item = strtok(NULL, ",")) {
        const eddy_scene_info *info = eddy_scene_find(item);
        if (info == NULL) {
            char m[256];
            fprintf(stderr, "eddy-rollback-bench: %s\n",
                    eddy_scene_unknown_message(item, "eddy-rollback-bench --help", m, sizeof m));
            return 2;
        }
        if (o->scene_count < RB_MAX_SCENES) o->scenes[o->scene_count++] = info->name;
    }
    return o->scene_count > 0 ? -1 : fail_usage("--scene", "no scene");
}

/* Returns -1 when parsing succeeded, else the exit code. */
static int options_parse(int argc, char **argv, rb_options *o) {
    char err[160];
    for (int i = 1; i < argc; ++i) {
        bool missing = false;
        const char *v;
        int status = -1;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            o->json = true;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--scene", &missing)) != NULL) {
            status = add_scenes(v, o);
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--threads", &missing)) != NULL) {
            if (!eddy_cli_threads_parse(v, o->threads, &o->thread_count, err, sizeof err))
                status = fail_usage("--threads", err);
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--at", &missing)) != NULL) {
            if (!eddy_cli_parse_int(v, 0, 1000000, &o->at)) status = fail_usage("--at", "bad frame");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--reps", &missing)) != NULL) {
            if (!eddy_cli_parse_int(v, 1, 100000, &o->reps)) status = fail_usage("--reps", "bad count");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--depth", &missing)) != NULL) {
            if (!eddy_cli_parse_int(v, 0, 1000, &o->depth)) status = fail_usage("--depth", "bad count");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--pin", &missing)) != NULL) {
            if (!eddy_pin_parse(v, &o->pin)) status = fail_usage("--pin", "expected none, core or pu");
        } else if (missing) {
            status = fail_usage(argv[i], "needs a value");
        } else {
            status = fail_usage(argv[i], "unknown option");
        }
        if (status != -1) return status;
    }
    return -1;
}

/* ---------------------------------------------------------------- timing */
static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Sorts v. */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---------------------------------------------------------------- runs */
typedef struct rb_result {
    size_t bytes;
    int vortons, tracers;
    double snapshot, restore, step, rollback;
    double snapshot_min, restore_min; /* the fastest repetition: the cost on a quiet machine */
} rb_result;

typedef struct rb_run {
    const char *scene;
    eddy_world *world;
    eddy_bytes state;   /* S */
    eddy_bytes scratch; /* reused by every timed snapshot */
    char message[256];
} rb_run;

static bool step_scene(rb_run *r) {
    eddy_scene_input in;
    const eddy_input *input = eddy_scene_input_for(r->scene, eddy_world_frame(r->world), &in);
    if (eddy_world_step(r->world, input) == EDDY_OK) return true;
    snprintf(r->message, sizeof r->message, "step failed: %s", eddy_world_error_message(r->world));
    return false;
}

static bool restore_state(rb_run *r) {
    return eddy_world_restore(r->world, r->state.data, r->state.size, r->message,
                              sizeof r->message) == EDDY_OK;
}

static bool time_snapshot_restore(rb_run *r, int reps, double *t, rb_result *out) {
    for (int k = 0; k < reps; ++k) {
        r->scratch.size = 0;
        double t0 = now_ms();
        if (eddy_world_snapshot(r->world, &r->scratch) != EDDY_OK) return false;
        t[k] = now_ms() - t0;
    }
    out->snapshot = median(t, reps);
    out->snapshot_min = t[0];
    for (int k = 0; k < reps; ++k) {
        double t0 = now_ms();
        if (!restore_state(r)) return false;
        t[k] = now_ms() - t0;
    }
    out->restore = median(t, reps);
    out->restore_min = t[0];
    return true;
}

static bool time_step(rb_run *r, int reps, double *t, rb_result *out) {
    for (int k = 0; k < reps; ++k) {
        if (!restore_state(r)) return false;
        double t0 = now_ms();
        if (!step_scene(r)) return false;
        t[k] = now_ms() - t0;
    }
    out->step = median(t, reps);
    return true;
}

static bool time_rollback(rb_run *r, int reps, int depth, double *t, rb_result *out) {
    uint64_t first = 0;
    for (int k = 0; k < reps; ++k) {
        double t0 = now_ms();
        if (!restore_state(r)) return false;
        for (int d = 0; d < depth; ++d) {
            if (!step_scene(r)) return false;
            r->scratch.size = 0;
            if (eddy_world_snapshot(r->world, &r->scratch) != EDDY_OK) return false;
        }
        t[k] = now_ms() - t0;
        uint64_t h = eddy_world_hash(r->world).frame_hash;
        if (k == 0) first = h;
        if (h != first) {
            snprintf(r->message, sizeof r->message, "rollback %d diverged at frame %" PRId64, k,
                     eddy_world_frame(r->world));
            return false;
        }
    }
    out->rollback = median(t, reps);
    return true;
}

static bool run_one(const rb_options *o, const char *scene, int workers, eddy_pinner *pinner,
                    rb_result *out) {
    rb_run r = {.scene = scene};
    eddy_world_def base = eddy_world_def_default();
    eddy_pin_configure(&base, workers, pinner);
    bool ok = eddy_scene_create(scene, &base, &r.world) == EDDY_OK;
    if (!ok) snprintf(r.message, sizeof r.message, "cannot create: %s", eddy_last_error_message());
    const int at = o->at > 0 ? o->at : eddy_scene_find(scene)->default_frames;
    while (ok && eddy_world_frame(r.world) < at) ok = step_scene(&r);
    double *t = ok ? malloc((size_t)o->reps * sizeof *t) : NULL;
    ok = ok && t != NULL && eddy_world_snapshot(r.world, &r.state) == EDDY_OK;
    if (ok) {
        out->bytes = r.state.size;
        out->vortons = eddy_world_vorton_count(r.world);
        out->tracers = eddy_world_tracer_count(r.world);
        ok = time_snapshot_restore(&r, o->reps, t, out) && time_step(&r, o->reps, t, out) &&
             time_rollback(&r, o->reps, o->depth, t, out);
    }
    if (!ok) fprintf(stderr, "eddy-rollback-bench: %s at %d workers: %s\n", scene, workers, r.message);
    free(t);
    eddy_bytes_free(&r.state);
    eddy_bytes_free(&r.scratch);
    eddy_world_destroy(r.world);
    return ok;
}

static void print_result(const rb_options *o, const char *scene, int workers, const rb_result *x) {
    const int at = o->at > 0 ? o->at : eddy_scene_find(scene)->default_frames;
    if (o->json) {
        printf("{\"scene\": \"%s\", \"workers\": %d, \"frame\": %d, \"bytes\": %zu, "
               "\"vortons\": %d, \"tracers\": %d, \"snapshot_ms\": %.4f, \"restore_ms\": %.4f, "
               "\"step_ms\": %.4f, \"depth\": %d, \"rollback_ms\": %.4f, \"snapshot_min_ms\": %.4f, "
               "\"restore_min_ms\": %.4f}\n",
               scene, workers, at, x->bytes, x->vortons, x->tracers, x->snapshot, x->restore,
               x->step, o->depth, x->rollback, x->snapshot_min, x->restore_min);
        return;
    }
    printf("%-20s %2d %5d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", scene, workers, at,
           (double)x->bytes / 1e6, x->snapshot, x->restore, x->step, x->rollback, x->snapshot_min,
           x->restore_min);
}

int main(int argc, char **argv) {
    rb_options o = {.at = 0, .reps = 50, .depth = 7, .pin = EDDY_PIN_PU};
    o.scenes[o.scene_count++] = "plume_plate";
    o.threads[0] = 1;
    o.threads[1] = 2;
    o.thread_count = 2;
    int code = options_parse(argc, argv, &o);
    if (code != -1) return code;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    char err[256];
    eddy_pinner *pinner = eddy_pinner_create(o.pin, err, sizeof err);
    if (pinner == NULL) {
        fprintf(stderr, "eddy-rollback-bench: %s\n", err);
        return 1;
    }
    if (!o.json)
        printf("%-20s %2s %5s %9s %9s %9s %9s %9s %9s %9s\n", "scene", "w", "frame", "MB",
               "snapshot", "restore", "step", "rollback", "snap_min", "rest_min");
    code = 0;
    for (int s = 0; s < o.scene_count; ++s)
        for (int i = 0; i < o.thread_count; ++i) {
            rb_result x;
            if (!run_one(&o, o.scenes[s], o.threads[i], o.pin == EDDY_PIN_NONE ? NULL : pinner, &x)) {
                code = 1;
                continue;
            }
            print_result(&o, o.scenes[s], o.threads[i], &x);
            fflush(stdout);
        }
    eddy_pinner_destroy(pinner);
    return code;
}
