/* SPDX-License-Identifier: MIT */
/* eddy-demo: the first thing to run. Shows that a scene steps bit-identically
 * whatever the worker count, and how fast it steps.
 *
 * Design note.
 *
 * - For each worker count the scene is built from scratch with the shared
 *   scene builder, its workers pinned one per processing unit (tools/pin.h),
 *   and stepped N frames with the scene's scripted input. The frame hash of
 *   every frame is kept (the trace), not just the last one: a run matches only
 *   if every frame's hash equals the reference run's (the 1-worker run when
 *   the list has one, else the first), and a mismatch names the first
 *   divergent frame, which is where anyone debugging starts.
 * - The program is a list of sections run in order by main. Each section
 *   prints its own table and returns its verdict; the exit status is 0 only if
 *   every section's verdict is yes. The sections: determinism of the fluid
 *   across worker counts, a rigid body thrown through smoke at several worker
 *   counts, and a replay recorded at one worker count and played back at
 *   others. A new section is one more demo_section function reading the same
 *   demo_context: see demo_sections in main.
 * - Progress is a \r-updated line on stderr when stderr is a terminal, and
 *   nothing otherwise, so logs and CI output stay clean.
 * - Option and worker-list parsing are shared with eddy-bench
 *   (tools/cli_common.h), so both tools accept and reject the same lists.
 *
 * Exit status: 0 all verdicts yes, 1 a verdict is no or a world failed,
 * 2 bad command line. */
#include "eddy/eddy.h"
#include "cli_common.h"
#include "pin.h"
#include "eddy/replay.h"
#include "eddy/snapshot.h"
#include "eddy/smoke.h"
#include "scenes.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- phases */

enum { DEMO_ROW_STEP = EDDY_PHASE_COUNT, DEMO_ROW_COUNT = EDDY_PHASE_COUNT + 1 };

/* Names as printed and as JSON keys (docs/bench.md), indexed by eddy_phase so
 * the order is the step's. A phase added to eddy_phase and not named here is
 * printed as "phase_<n>" rather than breaking the build of the tools. */
static const char *const k_row_names[DEMO_ROW_COUNT] = {
    [EDDY_PHASE_INPUT] = "input",
    [EDDY_PHASE_KILL_EMIT] = "kill_emit",
    [EDDY_PHASE_ADVECT_TRACERS] = "advect_tracers",
    [EDDY_PHASE_TREE_BUILD] = "tree_build",
    [EDDY_PHASE_VELOCITY_GRID] = "velocity_grid",
    [EDDY_PHASE_STRETCH] = "stretch",
    [EDDY_PHASE_DENSITY] = "density",
    [EDDY_PHASE_DIFFUSION] = "diffusion",
    [EDDY_PHASE_ADVECT_VORTONS] = "advect_vortons",
    [EDDY_PHASE_COLLIDE_TRACERS] = "collide_tracers",
    [EDDY_PHASE_COLLIDE_VORTONS] = "collide_vortons",
    [EDDY_PHASE_BODIES] = "bodies",
    [EDDY_PHASE_DIAGNOSTICS] = "diagnostics",
    [EDDY_PHASE_HASH] = "hash",
    [DEMO_ROW_STEP] = "step",
};

static const char *row_name(int row)
{
    static char fallback[DEMO_ROW_COUNT][16];
    if (k_row_names[row] != NULL) {
        return k_row_names[row];
    }
    snprintf(fallback[row], sizeof fallback[row], "phase_%d", row);
    return fallback[row];
}

/* ---------------------------------------------------------------- options */

enum { DEMO_MAX_RUNS = 64 };

typedef struct demo_options {
    const char *scene;
    int threads[DEMO_MAX_RUNS];
    int thread_count;
    int frames;   /* 0: the scene's default_frames */
    bool list;
    bool help;
} demo_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: eddy-demo [--scene NAME] [--frames N] [--threads LIST] [--list] [--help]\n"
            "                 [--version]\n"
            "\n"
            "Runs a scene from scratch at each worker count, workers pinned one per\n"
            "processing unit, hashes the state every frame and checks that every\n"
            "frame's hash matches across worker counts. Exit status 0 when they do.\n"
            "\n"
            "  --scene NAME    scene to run (default noise_cloud; --list shows them)\n"
            "  --frames N      frames per run (default: the scene's own, 300 for noise_cloud)\n"
            "  --threads LIST  worker counts, e.g. 1,2,4 or 1-4 (default 1,2,4,8,16)\n"
            "  --list          list the scenes and exit\n"
            "  --help          this text\n"
            "  --version       eddy version and hash-spec version\n");
}

static int fail_usage(const char *option, const char *problem)
{
    fprintf(stderr, "eddy-demo: %s: %s (see --help)\n", option, problem);
    return 2;
}

/* Returns -1 when parsing succeeded, else the exit code. */
static int options_parse(int argc, char **argv, demo_options *o)
{
    char err[160];
    for (int i = 1; i < argc; ++i) {
        bool missing = false;
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
        } else if (eddy_cli_is_version(argv[i])) {
            eddy_cli_print_version("eddy-demo");
            return 0;
        } else if (strcmp(argv[i], "--list") == 0) {
            o->list = true;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--scene", &missing)) != NULL) {
            o->scene = v;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--threads", &missing)) != NULL) {
            if (!eddy_cli_threads_parse(v, o->threads, &o->thread_count, err, sizeof err)) {
                return fail_usage("--threads", err);
            }
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--frames", &missing)) != NULL) {
            if (!eddy_cli_parse_int(v, 1, 1000000, &o->frames)) {
                return fail_usage("--frames", "expected a whole number from 1 to 1000000");
            }
        } else if (missing) {
            return fail_usage(argv[i], "needs a value");
        } else {
            return fail_usage(argv[i], "unknown option");
        }
    }
    return -1;
}

static void scenes_list(FILE *out)
{
    int width = 0;
    for (int i = 0; i < eddy_scene_count(); ++i) {
        int len = (int)strlen(eddy_scene_at(i)->name);
        width = len > width ? len : width;
    }
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const eddy_scene_info *info = eddy_scene_at(i);
        fprintf(out, "  %-*s  %s\n", width, info->name, info->description);
    }
}

/* ---------------------------------------------------------------- context */

/* What every section reads: the options, the machine and the pinner. */
typedef struct demo_context {
    const demo_options *options;
    const eddy_scene_info *scene;
    eddy_pinner *pinner;   /* NULL: workers unpinned */
    char cpu[128];
    int cores;
    int pus;
    bool progress;         /* stderr is a terminal */
} demo_context;

/* Pin one worker per PU; when hwloc cannot bind threads here, say so and run
 * unpinned (pinning changes speed, never results). */
static void context_init(demo_context *ctx, const demo_options *o)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->options = o;
    ctx->scene = eddy_scene_find(o->scene);
    ctx->progress = isatty(STDERR_FILENO) != 0;
    eddy_cli_machine_cpu_model(ctx->cpu, sizeof ctx->cpu);
    char err[256];
    ctx->pinner = eddy_pinner_create(EDDY_PIN_PU, err, sizeof err);
    if (ctx->pinner == NULL) {
        fprintf(stderr, "eddy-demo: %s; running unpinned\n", err);
        eddy_pinner *counter = eddy_pinner_create(EDDY_PIN_NONE, err, sizeof err);
        ctx->cores = eddy_pinner_core_count(counter);
        ctx->pus = eddy_pinner_pu_count(counter);
        eddy_pinner_destroy(counter);
    } else {
        ctx->cores = eddy_pinner_core_count(ctx->pinner);
        ctx->pus = eddy_pinner_pu_count(ctx->pinner);
    }
    if (ctx->pus <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        ctx->pus = online > 0 ? (int)online : 0;
    }
}

static int context_frames(const demo_context *ctx)
{
    return ctx->options->frames > 0 ? ctx->options->frames : ctx->scene->default_frames;
}

/* "1,2,4,8,16" */
static void context_worker_list(const demo_context *ctx, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ctx->options->thread_count && used < out_size; ++i) {
        int n = snprintf(out + used, out_size - used, "%s%d", i > 0 ? "," : "",
                         ctx->options->threads[i]);
        used += n > 0 ? (size_t)n : 0;
    }
}

static void header_print(const demo_context *ctx)
{
    printf("eddy %s - deterministic vortex-particle fluids\n\n", eddy_version_string());
    printf("  scene    %s: %s\n", ctx->scene->name, ctx->scene->description);
    printf("  machine  %s, %d cores / %d PUs, workers %s\n", ctx->cpu, ctx->cores, ctx->pus,
           ctx->pinner != NULL ? "pinned one per PU" : "unpinned");
    printf("  run      %d frames from scratch per worker count, scripted input,\n"
           "           state hashed every frame\n\n",
           context_frames(ctx));
}

/* ---------------------------------------------------------------- one run */

/* One world stepped from scratch: its per-frame hashes and timings. */
typedef struct demo_run {
    int workers;
    int frames;
    uint64_t *trace;                  /* frame hash after step f is trace[f] */
    double *samples[DEMO_ROW_COUNT];  /* ms per frame */
    double median_ms[DEMO_ROW_COUNT];
    int first_divergence;             /* index into trace, -1 if none */
} demo_run;

static void run_free(demo_run *run)
{
    free(run->trace);
    for (int r = 0; r < DEMO_ROW_COUNT; ++r) {
        free(run->samples[r]);
    }
    memset(run, 0, sizeof *run);
}

static bool run_alloc(demo_run *run, int workers, int frames)
{
    memset(run, 0, sizeof *run);
    run->workers = workers;
    run->frames = frames;
    run->first_divergence = -1;
    run->trace = calloc((size_t)frames, sizeof *run->trace);
    bool ok = run->trace != NULL;
    for (int r = 0; r < DEMO_ROW_COUNT; ++r) {
        run->samples[r] = calloc((size_t)frames, sizeof(double));
        ok = ok && run->samples[r] != NULL;
    }
    if (!ok) {
        fprintf(stderr, "eddy-demo: out of memory for %d frames\n", frames);
    }
    return ok;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of values[0..count); sorts values in place. */
static double median_sort(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_double);
    if (count % 2 == 1) {
        return values[count / 2];
    }
    return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void run_record(demo_run *run, int f, eddy_world *world)
{
    eddy_profile profile = eddy_world_get_profile(world);
    for (int p = 0; p < EDDY_PHASE_COUNT; ++p) {
        run->samples[p][f] = profile.phase_ms[p];
    }
    run->samples[DEMO_ROW_STEP][f] = profile.step_ms;
    run->trace[f] = eddy_world_hash(world).frame_hash;
}

static void progress_show(const demo_context *ctx, int workers, int frame, int frames)
{
    if (ctx->progress) {
        fprintf(stderr, "\r  workers %2d: frame %d/%d ", workers, frame, frames);
    }
}

static void progress_clear(const demo_context *ctx)
{
    if (ctx->progress) {
        fprintf(stderr, "\r%40s\r", "");
    }
}

static eddy_world *world_create(const demo_context *ctx, int workers)
{
    eddy_world_def def = eddy_world_def_default();
    eddy_pin_configure(&def, workers, ctx->pinner);
    eddy_world *world = NULL;
    eddy_status status = eddy_scene_create(ctx->scene->name, &def, &world);
    if (status != EDDY_OK) {
        progress_clear(ctx);
        fprintf(stderr, "eddy-demo: cannot create scene %s with %d worker%s: %s: %s\n",
                ctx->scene->name, workers, workers == 1 ? "" : "s", eddy_status_name(status),
                eddy_last_error_message());
    }
    return world;
}

static bool world_step_scripted(const demo_context *ctx, eddy_world *world)
{
    eddy_scene_input storage;
    int64_t frame = eddy_world_frame(world);
    const eddy_input *input = eddy_scene_input_for(ctx->scene->name, frame, &storage);
    eddy_status status = eddy_world_step(world, input);
    if (status != EDDY_OK) {
        progress_clear(ctx);
        fprintf(stderr, "eddy-demo: step to frame %" PRId64 " failed: %s: %s\n", frame + 1,
                eddy_status_name(status), eddy_world_error_message(world));
        return false;
    }
    return true;
}

/* Step a fresh world run->frames frames, recording hashes and timings. */
static bool run_execute(const demo_context *ctx, demo_run *run)
{
    eddy_world *world = world_create(ctx, run->workers);
    if (world == NULL) {
        return false;
    }
    bool ok = true;
    for (int f = 0; ok && f < run->frames; ++f) {
        progress_show(ctx, run->workers, f + 1, run->frames);
        ok = world_step_scripted(ctx, world);
        if (ok) {
            run_record(run, f, world);
        }
    }
    eddy_world_destroy(world);
    for (int r = 0; ok && r < DEMO_ROW_COUNT; ++r) {
        run->median_ms[r] = median_sort(run->samples[r], run->frames);
    }
    return ok;
}

static void run_compare(demo_run *run, const demo_run *reference)
{
    run->first_divergence = -1;
    for (int f = 0; f < run->frames; ++f) {
        if (run->trace[f] != reference->trace[f]) {
            run->first_divergence = f;
            return;
        }
    }
}

/* ---------------------------------------------------------------- section: determinism */

static int runs_reference(const demo_run *runs, int count)
{
    for (int i = 0; i < count; ++i) {
        if (runs[i].workers == 1) {
            return i;
        }
    }
    return 0;
}

static void determinism_table(const demo_run *runs, int count, int reference)
{
    const double base_ms = runs[reference].median_ms[DEMO_ROW_STEP];
    printf("  workers  final frame hash    every frame's hash       step ms  speedup\n");
    for (int i = 0; i < count; ++i) {
        const demo_run *run = &runs[i];
        char trace[40];
        if (i == reference) {
            snprintf(trace, sizeof trace, "reference");
        } else if (run->first_divergence < 0) {
            snprintf(trace, sizeof trace, "identical");
        } else {
            snprintf(trace, sizeof trace, "DIFFERS from frame %d", run->first_divergence + 1);
        }
        double step = run->median_ms[DEMO_ROW_STEP];
        printf("  %7d  0x%016" PRIx64 "  %-22s %8.2f  %6.2fx\n", run->workers,
               run->trace[run->frames - 1], trace, step, step > 0.0 ? base_ms / step : 0.0);
    }
}

/* Phases under 0.005 ms in every run print as 0.00 everywhere: they are
 * listed in one line under the table instead of taking a row each. */
static bool row_is_negligible(const demo_run *runs, int count, int row)
{
    for (int i = 0; i < count; ++i) {
        if (runs[i].median_ms[row] >= 0.005) {
            return false;
        }
    }
    return row != DEMO_ROW_STEP;
}

static void phase_table_negligible(const demo_run *runs, int count)
{
    int listed = 0;
    for (int row = 0; row < DEMO_ROW_COUNT; ++row) {
        if (row_is_negligible(runs, count, row)) {
            printf("%s%s", listed++ == 0 ? "    (under 0.01 ms: " : ", ", row_name(row));
        }
    }
    if (listed > 0) {
        printf(")\n");
    }
}

static void phase_table(const demo_run *runs, int count)
{
    printf("\n  median ms per phase");
    for (int i = 0; i < count; ++i) {
        printf(" %7d", runs[i].workers);
    }
    printf("  (workers)\n");
    for (int row = 0; row < DEMO_ROW_COUNT; ++row) {
        if (row_is_negligible(runs, count, row)) {
            continue;
        }
        printf("    %-17s", row_name(row));
        for (int i = 0; i < count; ++i) {
            printf(" %7.2f", runs[i].median_ms[row]);
        }
        printf("\n");
    }
    phase_table_negligible(runs, count);
}

/* Said before the table: runs with more workers than this machine has
 * processing units time-share them, so their speedup is expected below 1;
 * the hashes must still be identical. */
static void demo_oversubscription_note(const demo_context *ctx, const demo_run *runs, int count)
{
    int over = 0, most = 0;
    for (int i = 0; i < count; ++i) {
        if (ctx->pus > 0 && runs[i].workers > ctx->pus) {
            ++over;
            if (runs[i].workers > most) {
                most = runs[i].workers;
            }
        }
    }
    if (over > 0) {
        printf("  note: this machine has %d processing unit%s; %d of these runs use%s more "
               "workers than that (up to %d), which then share the units, so a speedup below 1 "
               "is expected there. The hashes must still be identical.\n",
               ctx->pus, ctx->pus == 1 ? "" : "s", over, over == 1 ? "s" : "", most);
    }
}

/* Runs every worker count; prints the tables and the verdict line. Returns
 * 1 (yes), 0 (no) or -1 (a world failed). */
static int demo_section_determinism(const demo_context *ctx)
{
    const demo_options *o = ctx->options;
    static demo_run runs[DEMO_MAX_RUNS];
    int made = 0, result = -1;
    for (; made < o->thread_count; ++made) {
        if (!run_alloc(&runs[made], o->threads[made], context_frames(ctx)) ||
            !run_execute(ctx, &runs[made])) {
            ++made;
            goto cleanup;
        }
    }
    progress_clear(ctx);
    int reference = runs_reference(runs, made);
    bool identical = true;
    for (int i = 0; i < made; ++i) {
        run_compare(&runs[i], &runs[reference]);
        identical = identical && runs[i].first_divergence < 0;
    }
    demo_oversubscription_note(ctx, runs, made);
    determinism_table(runs, made, reference);
    phase_table(runs, made);
    char list[256];
    context_worker_list(ctx, list, sizeof list);
    printf("\nbit-identical across %s workers: %s\n", list, identical ? "yes" : "no");
    result = identical ? 1 : 0;
cleanup:
    for (int i = 0; i < made; ++i) {
        run_free(&runs[i]);
    }
    return result;
}

/* ---------------------------------------------------------------- bodies */

/* A ball spinning about y thrown along +x through smoke: the fluid slows it
 * and the Magnus effect pushes it along omega x v (-z). Run at several
 * worker counts; the ball ends in the same place to the bit. */
/* Gameplay smoke: smoke_grenade at 1 and 4 workers, the two players' sight
 * line queried through a smoke volume every frame (docs/gameplay.md). Prints
 * its transmittance over time, one row every 10 frames and at each event;
 * the verdict is that every frame's transmittance has the same bits at both
 * worker counts (what lets a server and every peer agree on who sees whom). */
static bool sight_run(const demo_context *ctx, int workers, int frames, float *out)
{
    static const char *const scene = "smoke_grenade";
    eddy_world_def def = eddy_world_def_default();
    eddy_pin_configure(&def, workers, ctx->pinner);
    eddy_world *world = NULL;
    eddy_smoke_volume *volume = NULL;
    const eddy_smoke_volume_def vd = eddy_scene_smoke_volume(scene);
    eddy_sight_segment line;
    float extinction;
    eddy_scene_sight_line(scene, &line.from, &line.to, &extinction);
    if (eddy_scene_create(scene, &def, &world) != EDDY_OK ||
        eddy_smoke_volume_create(&vd, &volume) != EDDY_OK) {
        eddy_world_destroy(world);
        return false;
    }
    bool ok = true;
    eddy_scene_input in;
    for (int f = 0; f < frames && ok; ++f) {
        ok = eddy_world_step(world, eddy_scene_input_for(scene, f, &in)) == EDDY_OK &&
             eddy_smoke_volume_update(volume, world) == EDDY_OK &&
             eddy_smoke_transmittance(world, volume, extinction, &line, 1, &out[f], NULL) == EDDY_OK;
    }
    eddy_smoke_volume_destroy(volume);
    eddy_world_destroy(world);
    return ok;
}

static const char *sight_event(int frame)
{
    switch (frame) {
    case 90: return "grenade spent";
    case 100: return "blast on the line";
    case 150: return "bullet A -> B along the line";
    case 175: return "bullet from B across the room";
    default: return "";
    }
}

static int demo_section_sight(const demo_context *ctx)
{
    enum { FRAMES = 300 };
    static float t1[FRAMES], t4[FRAMES];
    printf("\nsmoke: smoke_grenade, %d frames: %s\n", FRAMES,
           eddy_scene_find("smoke_grenade")->description);
    if (!sight_run(ctx, 1, FRAMES, t1) || !sight_run(ctx, 4, FRAMES, t4)) {
        fprintf(stderr, "eddy-demo: smoke_grenade failed\n");
        return -1;
    }
    printf("  sight line A (-2.5, 0, -0.5) -> B (2.5, 0, -0.5), extinction %g m^2 per tracer\n",
           (double)EDDY_SCENE_SMOKE_EXTINCTION);
    printf("  frame  time s  transmittance  seen\n");
    for (int f = 0; f < FRAMES; ++f) {
        const char *event = sight_event(f); /* the input of the step to frame f + 1 */
        if ((f + 1) % 10 != 0 && !event[0] && !(f > 0 && sight_event(f - 1)[0])) continue;
        const int bar = (int)(t1[f] * 20.0f + 0.5f);
        printf("  %5d  %6.2f  %13.4f  %-3s %.*s%*s %s\n", f + 1, (double)(f + 1) / 30.0,
               (double)t1[f], t1[f] > 0.5f ? "yes" : "no", bar, "####################", 20 - bar,
               "", event);
    }
    const bool identical = memcmp(t1, t4, sizeof t1) == 0;
    printf("\nsight line bit-identical at 1 and 4 workers, every frame: %s\n", identical ? "yes" : "no");
    return identical ? 1 : 0;
}

static int demo_section_bodies(const demo_context *ctx)
{
    static const char *const scene = "curve_ball";
    static const int workers[] = {1, 4, 16};
    const int frames = 150;
    printf("\nbodies: %s, %d frames: %s\n", scene, frames, eddy_scene_find(scene)->description);
    printf("  workers  ball x      ball z      speed m/s  spin rad/s  final frame hash\n");
    bool identical = true;
    uint64_t reference = 0;
    for (size_t k = 0; k < sizeof workers / sizeof workers[0]; ++k) {
        eddy_world_def def = eddy_world_def_default();
        eddy_pin_configure(&def, workers[k], ctx->pinner);
        eddy_world *world = NULL;
        if (eddy_scene_create(scene, &def, &world) != EDDY_OK) {
            fprintf(stderr, "eddy-demo: cannot create %s: %s\n", scene, eddy_last_error_message());
            return -1;
        }
        eddy_scene_input storage;
        for (int f = 0; f < frames; ++f) {
            const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(world), &storage);
            if (eddy_world_step(world, in) != EDDY_OK) {
                fprintf(stderr, "eddy-demo: %s: %s\n", scene, eddy_world_error_message(world));
                eddy_world_destroy(world);
                return -1;
            }
        }
        eddy_body_id id;
        eddy_body_state b;
        eddy_world_get_body_ids(world, &id, 1);
        eddy_world_get_body(world, id, &b);
        const uint64_t hash = eddy_world_hash(world).frame_hash;
        if (k == 0) reference = hash;
        identical = identical && hash == reference;
        const float v = sqrtf(b.linear_velocity.x * b.linear_velocity.x +
                              b.linear_velocity.y * b.linear_velocity.y +
                              b.linear_velocity.z * b.linear_velocity.z);
        printf("  %7d  %+10.4f  %+10.4f  %9.4f  %10.4f  0x%016" PRIx64 "\n", workers[k],
               (double)b.position.x, (double)b.position.z, (double)v,
               (double)b.angular_velocity.y, hash);
        eddy_world_destroy(world);
    }
    printf("  the ball is deflected along omega x v (-z); identical across workers: %s\n",
           identical ? "yes" : "no");
    return identical ? 1 : 0;
}

/* ---------------------------------------------------------------- replay */

/* Record the Part 13 benchmark scene (bodies, emitters, buoyant plume) at 2
 * workers into a replay in memory, then play it back at 1, 4 and 16 workers:
 * every frame's recorded hash must be reproduced, and a seek must land on
 * the recorded state. */
static int demo_section_replay(const demo_context *ctx)
{
    static const char *const scene = "plume_plate";
    static const int players[] = {1, 4, 16};
    const int frames = 120;
    eddy_world_def def = eddy_world_def_default();
    eddy_pin_configure(&def, 2, ctx->pinner);
    eddy_world *world = NULL;
    if (eddy_scene_create(scene, &def, &world) != EDDY_OK) return -1;
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.keyframe_interval = 30;
    rd.block_hashes = true;
    eddy_bytes file = {0};
    eddy_recorder *rec = NULL;
    char msg[256];
    if (eddy_recorder_create_memory(world, &rd, &file, &rec, msg, sizeof msg) != EDDY_OK) {
        fprintf(stderr, "eddy-demo: recorder: %s\n", msg);
        eddy_world_destroy(world);
        return -1;
    }
    eddy_scene_input storage;
    for (int f = 0; f < frames; ++f) {
        const eddy_input *in = eddy_scene_input_for(scene, eddy_world_frame(world), &storage);
        if (eddy_recorder_step(rec, in) != EDDY_OK) break;
    }
    const eddy_status finished = eddy_recorder_finish(rec);
    const eddy_recorder_stats st = eddy_recorder_get_stats(rec);
    eddy_recorder_destroy(rec);
    eddy_world_destroy(world);
    if (finished != EDDY_OK) {
        fprintf(stderr, "eddy-demo: recording failed: %s\n", eddy_status_name(finished));
        eddy_bytes_free(&file);
        return -1;
    }
    printf("\nreplay: %s recorded at 2 workers, %" PRId64 " frames, %d keyframes, %zu bytes "
           "(%.1fx compressed), recording cost %.3f ms/frame\n",
           scene, st.frames, st.keyframes, file.size,
           (double)st.raw_bytes / (double)(file.size ? file.size : 1),
           st.record_ms / (double)(st.frames ? st.frames : 1));
    bool all_ok = true;
    for (size_t k = 0; k < sizeof players / sizeof players[0]; ++k) {
        eddy_player_def pd = eddy_player_def_default();
        eddy_world_def tmp = eddy_world_def_default();
        eddy_pin_configure(&tmp, players[k], ctx->pinner);
        pd.worker_count = players[k];
        pd.worker_start = tmp.worker_start;
        pd.worker_start_context = tmp.worker_start_context;
        eddy_player *player = NULL;
        eddy_divergence div;
        eddy_status s = eddy_player_open_memory(file.data, file.size, &pd, &player, msg, sizeof msg);
        if (s == EDDY_OK) s = eddy_player_verify(player, &div, NULL, NULL);
        eddy_status seek = s == EDDY_OK ? eddy_player_seek(player, frames / 2 + 5, &div) : s;
        printf("  play at %2d workers: every frame hash %s; seek to frame %d %s\n", players[k],
               s == EDDY_OK ? "matches" : eddy_status_name(s), frames / 2 + 5,
               seek == EDDY_OK ? "matches" : eddy_status_name(seek));
        all_ok = all_ok && s == EDDY_OK && seek == EDDY_OK;
        eddy_player_close(player);
    }
    eddy_bytes_free(&file);
    printf("  replay reproduced at 1, 4 and 16 workers: %s\n", all_ok ? "yes" : "no");
    return all_ok ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

typedef int demo_section(const demo_context *ctx);

int main(int argc, char **argv)
{
    demo_options o = {.scene = "noise_cloud", .threads = {1, 2, 4, 8, 16}, .thread_count = 5};
    int code = options_parse(argc, argv, &o);
    if (code >= 0) {
        return code;
    }
    if (o.help || o.list) {
        if (o.help) {
            usage(stdout);
        } else {
            scenes_list(stdout);
        }
        return 0;
    }
    if (eddy_scene_find(o.scene) == NULL) {
        char m[256];
        fprintf(stderr, "eddy-demo: %s\n",
                eddy_scene_unknown_message(o.scene, "eddy-demo --list", m, sizeof m));
        return 2;
    }
    demo_context ctx;
    context_init(&ctx, &o);
    header_print(&ctx);

    /* The sections, in order: the fluid at every worker count, bodies, and a
     * replay recorded at one worker count and played back at others. */
    demo_section *const demo_sections[] = {demo_section_determinism, demo_section_bodies,
                                           demo_section_sight, demo_section_replay};
    code = 0;
    for (size_t i = 0; i < sizeof demo_sections / sizeof demo_sections[0]; ++i) {
        int verdict = demo_sections[i](&ctx);
        if (verdict <= 0) {
            code = 1;
        }
        if (verdict < 0) {
            break;
        }
    }
    eddy_pinner_destroy(ctx.pinner);
    return code;
}
