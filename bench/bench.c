/* SPDX-License-Identifier: MIT */
/* eddy-bench: per-phase timings of one scene at several worker counts.
 *
 * Design note.
 *
 * - What is measured. Every world is built from scratch by the shared scene
 *   builder, stepped `warmup` frames that are not measured (pools spin up,
 *   caches and page tables fill), then `frames` measured frames. After every
 *   measured step the library's own profile (eddy_world_get_profile) is read;
 *   the report is the MEDIAN over the measured frames of each phase and of the
 *   whole step, so one descheduled frame does not move the figure.
 * - The scripted input of the scene is applied every frame, exactly as the
 *   demo, tests and verifier do, so the bench steps the same states they hash.
 * - Determinism is shown, not assumed: the final frame hash of every worker
 *   count is printed, and a warning line appears when they differ.
 * - Output is a table for people (phases as rows, worker counts as columns)
 *   or, with --json, one JSON object whose keys are documented in
 *   docs/bench.md. Timing is the library's (clock_gettime inside the step);
 *   the tool only reads it.
 * - Exit codes: 0 success, 1 a world could not be created or stepped,
 *   2 bad command line (unknown scene, bad worker list, bad number). */
#include "eddy/eddy.h"
#include "chrome_trace.h"
#include "cli_common.h"
#include "pin.h"
#include "scenes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- phases */

/* Output rows: the eddy_phase slots in step order, then the whole step. */
enum { BENCH_ROW_STEP = EDDY_PHASE_COUNT, BENCH_ROW_COUNT = EDDY_PHASE_COUNT + 1 };

/* Names as printed and as JSON keys (docs/bench.md), indexed by eddy_phase so
 * the order is the step's. A phase added to eddy_phase and not named here is
 * printed as "phase_<n>" rather than breaking the build of the tools. */
static const char *const k_row_names[BENCH_ROW_COUNT] = {
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
    [BENCH_ROW_STEP] = "step",
};

static const char *row_name(int row)
{
    static char fallback[BENCH_ROW_COUNT][16];
    if (k_row_names[row] != NULL) {
        return k_row_names[row];
    }
    snprintf(fallback[row], sizeof fallback[row], "phase_%d", row);
    return fallback[row];
}

/* ---------------------------------------------------------------- options */

enum { BENCH_MAX_RUNS = 64 };

typedef struct bench_options {
    const char *scene;
    int threads[BENCH_MAX_RUNS];
    int thread_count;
    int frames;
    int warmup;
    eddy_pin_policy pin;
    int treecode; /* -1: the world definition's default */
    float opening_angle; /* 0: the world definition's default */
    float alignment;     /* eddy_world_def.vorticity_alignment (default 0) */
    int velocity; /* -1: the world definition's default, else an eddy_velocity_method */
    bool hash_at_end; /* tracers hashed at the end of the step, not by their advection */
    eddy_vorton_step step; /* eddy_world_def.vorton_step */
    bool list;
    bool json;
    bool help;
    const char *trace; /* --trace FILE, or NULL */
} bench_options;

enum { BENCH_TRACE_EVENTS = 1 << 18 };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: eddy-bench [--scene NAME] [--threads LIST] [--frames N] [--warmup N]\n"
            "                  [--pin none|core|pu] [--treecode multipole|original]\n"
            "                  [--opening-angle THETA]\n"
            "                  [--tracer-hash early|end]\n"
            "                  [--vorton-step euler|heun|stretch-ab2|heun-adaptive]\n"
            "                  [--alignment KAPPA]\n"
            "                  [--velocity treecode|treecode-vortons|direct-grid|\n"
            "                              direct-vortons]\n"
            "                  [--trace FILE] [--list] [--json] [--help] [--version]\n"
            "\n"
            "Steps a scene at each worker count and reports the median ms per step of\n"
            "every phase, tracers advected per ms, the hashing share of the step, the\n"
            "speedup against 1 worker and the final frame hash of each run, with the\n"
            "velocity grid's cells per axis over the measured frames (the velocity\n"
            "phases cost in proportion to its points) and the mean step.\n"
            "\n"
            "  --scene NAME    scene to run (default noise_cloud; --list shows them)\n"
            "  --threads LIST  worker counts, e.g. 1,2 or 1-4 or 1,2,4-8 (default 1,2)\n"
            "  --frames N      measured frames per run (default 100)\n"
            "  --warmup N      frames stepped before measuring, not measured (default 10)\n"
            "  --pin POLICY    none, core or pu: where workers run (default pu)\n"
            "  --treecode T    treecode traversal: multipole or original (default: the\n"
            "                  world definition's default)\n"
            "  --opening-angle THETA  the multipole's opening angle, above 0 and at most\n"
            "                  2 (eddy_world_def.treecode_opening_angle; default: the\n"
            "                  world definition's default)\n"
            "  --tracer-hash W early (default): each block of tracers is hashed by the\n"
            "                  advection that wrote it, so the hash phase holds only the\n"
            "                  rest; end: every tracer hashed in the hash phase (to\n"
            "                  measure what hashing the state costs)\n"
            "  --vorton-step S euler, heun, stretch-ab2 or heun-adaptive: the vortons'\n"
            "                  step (eddy_world_def.vorton_step, default: the definition's,\n"
            "                  stretch-ab2; heun solves the velocity twice, heun-adaptive\n"
            "                  twice per substep, in substeps from the vorticity)\n"
            "  --alignment K   eddy_world_def.vorticity_alignment, in [0, 16] (default 0)\n"
            "  --velocity M    treecode (default), treecode-vortons, direct-grid or\n"
            "                  direct-vortons: eddy_world_def.velocity_method\n"
            "                  (treecode-vortons walks the tree at the vortons too;\n"
            "                  direct summation is the accuracy reference, O(N^2):\n"
            "                  shorten --frames)\n"
            "  --trace FILE    write the profiler zones of the last worker count's measured\n"
            "                  frames (up to %d events per worker) as Chrome trace-event\n"
            "                  JSON, for Perfetto or chrome://tracing (tools/chrome_trace.h)\n"
            "  --list          list the scenes and exit\n"
            "  --json          print one JSON object (keys: docs/bench.md)\n"
            "  --help          this text\n"
            "  --version       eddy version and hash-spec version\n"
            "A progress line goes to standard error when it is a terminal.\n",
            BENCH_TRACE_EVENTS);
}

static int fail_usage(const char *option, const char *problem)
{
    fprintf(stderr, "eddy-bench: %s: %s (see --help)\n", option, problem);
    return 2;
}

/* Returns -1 when parsing succeeded, else the exit code. */
/* A number and nothing else in text (the caller checks its range). */
static bool parse_number(const char *text, float *out)
{
    char *end = NULL;
    *out = strtof(text, &end);
    return end != text && *end == '\0';
}

static int options_parse(int argc, char **argv, bench_options *o)
{
    char err[160];
    for (int i = 1; i < argc; ++i) {
        bool missing = false;
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o->help = true;
        } else if (eddy_cli_is_version(argv[i])) {
            eddy_cli_print_version("eddy-bench");
            return 0;
        } else if (strcmp(argv[i], "--list") == 0) {
            o->list = true;
        } else if (strcmp(argv[i], "--json") == 0) {
            o->json = true;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--trace", &missing)) != NULL) {
            o->trace = v;
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
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--warmup", &missing)) != NULL) {
            if (!eddy_cli_parse_int(v, 0, 1000000, &o->warmup)) {
                return fail_usage("--warmup", "expected a whole number from 0 to 1000000");
            }
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--pin", &missing)) != NULL) {
            if (!eddy_pin_parse(v, &o->pin)) {
                return fail_usage("--pin", "expected none, core or pu");
            }
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--tracer-hash", &missing)) != NULL) {
            if (strcmp(v, "early") == 0) o->hash_at_end = false;
            else if (strcmp(v, "end") == 0) o->hash_at_end = true;
            else return fail_usage("--tracer-hash", "expected early or end");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--vorton-step", &missing)) != NULL) {
            if (!eddy_cli_vorton_step_parse(v, &o->step))
                return fail_usage("--vorton-step", "expected euler, heun or stretch-ab2");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--velocity", &missing)) != NULL) {
            if (strcmp(v, "treecode") == 0) o->velocity = EDDY_VELOCITY_TREECODE;
            else if (strcmp(v, "direct-grid") == 0) o->velocity = EDDY_VELOCITY_DIRECT_GRID;
            else if (strcmp(v, "direct-vortons") == 0) o->velocity = EDDY_VELOCITY_DIRECT_VORTONS;
            else if (strcmp(v, "treecode-vortons") == 0)
                o->velocity = EDDY_VELOCITY_TREECODE_VORTONS;
            else
                return fail_usage("--velocity", "expected treecode, treecode-vortons, direct-grid "
                                                "or direct-vortons");
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--opening-angle", &missing)) !=
                   NULL) {
            float theta;
            if (!parse_number(v, &theta) || !(theta > 0.0f && theta <= 2.0f))
                return fail_usage("--opening-angle", "expected a number above 0 and at most 2");
            o->opening_angle = theta;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--alignment", &missing)) != NULL) {
            float kappa;
            if (!parse_number(v, &kappa) || !(kappa >= 0.0f && kappa <= EDDY_MAX_ALIGNMENT))
                return fail_usage("--alignment", "expected a number in [0, 16]");
            o->alignment = kappa;
        } else if ((v = eddy_cli_option_value(argc, argv, &i, "--treecode", &missing)) != NULL) {
            eddy_treecode_traversal t;
            if (!eddy_cli_treecode_parse(v, &t))
                return fail_usage("--treecode", "expected multipole or original");
            o->treecode = (int)t;
        } else if (missing) {
            return fail_usage(argv[i], "needs a value");
        } else {
            return fail_usage(argv[i], "unknown option");
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- scenes */

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

static int fail_unknown_scene(const char *name)
{
    char m[256];
    fprintf(stderr, "eddy-bench: %s\n",
            eddy_scene_unknown_message(name, "eddy-bench --list", m, sizeof m));
    return 2;
}

/* ---------------------------------------------------------------- machine */

typedef struct bench_machine {
    char cpu[128];
    int cores;
    int pus;
    double load;  /* 1-minute load average when the bench started; < 0 unknown */
} bench_machine;

/* Other work on the machine skews timings; the load average lets a reader see it. */
static double machine_load(void)
{
    double load = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &load) != 1) {
            load = -1.0;
        }
        fclose(f);
    }
    return load;
}

static void machine_describe(bench_machine *m, const eddy_pinner *pinner)
{
    eddy_cli_machine_cpu_model(m->cpu, sizeof m->cpu);
    m->load = machine_load();
    m->cores = eddy_pinner_core_count(pinner);
    m->pus = eddy_pinner_pu_count(pinner);
    if (m->pus <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        m->pus = online > 0 ? (int)online : 0;
    }
}

#if defined(__clang__)
static const char k_compiler[] = __VERSION__; /* "Clang 17.0.6 ..." */
#else
static const char k_compiler[] = "gcc " __VERSION__;
#endif
#ifdef __OPTIMIZE__
static const bool k_optimized = true;
#else
static const bool k_optimized = false;
#endif
#ifdef NDEBUG
static const bool k_ndebug = true;
#else
static const bool k_ndebug = false;
#endif

static const char *machine_simd(void)
{
#if defined(__AVX512F__)
    return "avx512f";
#elif defined(__AVX2__)
    return "avx2";
#elif defined(__AVX__)
    return "avx";
#elif defined(__SSE2__)
    return "sse2";
#elif defined(__ARM_NEON)
    return "neon";
#else
    return "none";
#endif
}

/* ---------------------------------------------------------------- medians */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *values, int count, double *scratch)
{
    memcpy(scratch, values, (size_t)count * sizeof *scratch);
    qsort(scratch, (size_t)count, sizeof *scratch, compare_double);
    if (count % 2 == 1) {
        return scratch[count / 2];
    }
    return 0.5 * (scratch[count / 2 - 1] + scratch[count / 2]);
}

/* Tracer count at the frame(s) whose advect_tracers time is the median (the
 * two middle frames averaged for an even count), so the rate pairs a time
 * with the number of tracers that took that time. */
static double tracers_at_median(const double *ms, const int *tracers, int count, double median)
{
    double below = -1.0, above = -1.0;
    int below_tracers = 0, above_tracers = 0;
    for (int i = 0; i < count; ++i) {
        if (ms[i] <= median && (below < 0.0 || ms[i] > below)) {
            below = ms[i];
            below_tracers = tracers[i];
        }
        if (ms[i] >= median && (above < 0.0 || ms[i] < above)) {
            above = ms[i];
            above_tracers = tracers[i];
        }
    }
    return count % 2 == 1 ? (double)below_tracers
                          : 0.5 * ((double)below_tracers + (double)above_tracers);
}

/* ---------------------------------------------------------------- one run */

/* A stretch of measured frames stepped on one velocity grid shape. */
enum { BENCH_MAX_GRIDS = 8 };
typedef struct bench_grid {
    int cells[3];
    int64_t from_frame; /* the first frame (eddy_world_frame after the step) */
} bench_grid;

typedef struct bench_run {
    int workers;
    double median_ms[BENCH_ROW_COUNT];
    double mean_ms[BENCH_ROW_COUNT];
    bench_grid grids[BENCH_MAX_GRIDS];
    int grid_count;
    bool grids_truncated; /* more shapes than BENCH_MAX_GRIDS: the first ones kept */
    double tracers_per_ms;  /* < 0: not measured (no tracers or zero time) */
    double hash_share;      /* percent of the median step */
    double speedup;         /* < 0: no 1-worker run */
    uint64_t final_hash;
    int64_t final_frame;
    int vortons;            /* at the end of the run */
    int tracers;
} bench_run;

/* Per-frame samples of the measured frames. */
typedef struct bench_samples {
    double *ms[BENCH_ROW_COUNT];
    int *tracers;
    double *scratch;
    int frames;
} bench_samples;

static void samples_free(bench_samples *s)
{
    for (int r = 0; r < BENCH_ROW_COUNT; ++r) {
        free(s->ms[r]);
    }
    free(s->tracers);
    free(s->scratch);
}

static bool samples_alloc(bench_samples *s, int frames)
{
    memset(s, 0, sizeof *s);
    s->frames = frames;
    bool ok = true;
    for (int r = 0; r < BENCH_ROW_COUNT; ++r) {
        s->ms[r] = calloc((size_t)frames, sizeof(double));
        ok = ok && s->ms[r] != NULL;
    }
    s->tracers = calloc((size_t)frames, sizeof(int));
    s->scratch = calloc((size_t)frames, sizeof(double));
    return ok && s->tracers != NULL && s->scratch != NULL;
}

static void samples_record(bench_samples *s, int frame, const eddy_world *world)
{
    eddy_profile profile = eddy_world_get_profile(world);
    for (int p = 0; p < EDDY_PHASE_COUNT; ++p) {
        s->ms[p][frame] = profile.phase_ms[p];
    }
    s->ms[BENCH_ROW_STEP][frame] = profile.step_ms;
    s->tracers[frame] = eddy_world_tracer_count(world);
}

/* Appends the grid of the step that produced the world's frame when its
 * shape differs from the last one recorded. */
static void run_record_grid(bench_run *run, const eddy_world *world)
{
    const eddy_grid_info g = eddy_world_get_grid_info(world);
    if (run->grid_count > 0 &&
        memcmp(run->grids[run->grid_count - 1].cells, g.cells, sizeof g.cells) == 0) {
        return;
    }
    if (run->grid_count == BENCH_MAX_GRIDS) {
        run->grids_truncated = true;
        return;
    }
    bench_grid *b = &run->grids[run->grid_count++];
    memcpy(b->cells, g.cells, sizeof b->cells);
    b->from_frame = eddy_world_frame(world);
}

static void run_summarize(bench_run *run, const bench_samples *s)
{
    for (int r = 0; r < BENCH_ROW_COUNT; ++r) {
        run->median_ms[r] = median_of(s->ms[r], s->frames, s->scratch);
        double sum = 0.0;
        for (int f = 0; f < s->frames; ++f) {
            sum += s->ms[r][f];
        }
        run->mean_ms[r] = sum / s->frames;
    }
    double advect = run->median_ms[EDDY_PHASE_ADVECT_TRACERS];
    double tracers = tracers_at_median(s->ms[EDDY_PHASE_ADVECT_TRACERS], s->tracers, s->frames,
                                       advect);
    run->tracers_per_ms = advect > 0.0 && tracers > 0.0 ? tracers / advect : -1.0;
    double step = run->median_ms[BENCH_ROW_STEP];
    run->hash_share = step > 0.0 ? 100.0 * run->median_ms[EDDY_PHASE_HASH] / step : 0.0;
    run->speedup = -1.0;
}

static bool step_once(eddy_world *world, const char *scene)
{
    eddy_scene_input storage;
    const eddy_input *input = eddy_scene_input_for(scene, eddy_world_frame(world), &storage);
    eddy_status status = eddy_world_step(world, input);
    if (status != EDDY_OK) {
        fprintf(stderr, "eddy-bench: step to frame %" PRId64 " failed: %s: %s\n",
                eddy_world_frame(world) + 1, eddy_status_name(status),
                eddy_world_error_message(world));
        return false;
    }
    return true;
}

/* trace: records the measured frames' zones (NULL: none). */
static bool run_steps(eddy_world *world, const bench_options *o, bench_samples *s,
                      bench_run *run, eddy_chrome_trace *trace)
{
    for (int f = 0; f < o->warmup; ++f) {
        if (!step_once(world, o->scene)) {
            return false;
        }
    }
    if (trace != NULL) {
        const eddy_profiler profiler = eddy_chrome_trace_profiler(trace);
        eddy_set_profiler(&profiler);
    }
    char label[128];
    snprintf(label, sizeof label, "eddy-bench: %s, %d worker%s, frame", o->scene,
             eddy_world_get_def(world)->worker_count,
             eddy_world_get_def(world)->worker_count == 1 ? "" : "s");
    for (int f = 0; f < o->frames; ++f) {
        if (!step_once(world, o->scene)) {
            eddy_cli_progress_done();
            return false;
        }
        samples_record(s, f, world);
        run_record_grid(run, world);
        eddy_cli_progress(label, f + 1, o->frames);
    }
    eddy_set_profiler(NULL);
    eddy_cli_progress_done();
    return true;
}

/* Write the trace to o->trace; false (with a message) on failure. */
static bool trace_write(const bench_options *o, const eddy_chrome_trace *trace)
{
    FILE *f = fopen(o->trace, "w");
    bool ok = f != NULL && eddy_chrome_trace_write(trace, f);
    if (f != NULL && fclose(f) != 0) ok = false;
    if (!ok) {
        fprintf(stderr, "eddy-bench: cannot write the trace to %s\n", o->trace);
        return false;
    }
    if (eddy_chrome_trace_dropped(trace) > 0)
        fprintf(stderr, "eddy-bench: the trace kept %d events per worker and dropped %lld more "
                        "(shorten --frames)\n", BENCH_TRACE_EVENTS, eddy_chrome_trace_dropped(trace));
    return true;
}

/* o: the options' world settings, NULL for the defaults. */
static eddy_world *world_create(const char *scene, int workers, const bench_options *o,
                                eddy_pinner *pinner)
{
    eddy_world_def def = eddy_world_def_default();
    if (o != NULL) {
        if (o->hash_at_end) def.test_mutations |= EDDY_MUTATION_UNFUSED_TRACER_HASH;
        def.vorton_step = o->step;
        if (o->treecode >= 0) def.treecode_traversal = (eddy_treecode_traversal)o->treecode;
        if (o->opening_angle > 0.0f) def.treecode_opening_angle = o->opening_angle;
        def.vorticity_alignment = o->alignment;
        if (o->velocity >= 0) def.velocity_method = (eddy_velocity_method)o->velocity;
    }
    eddy_pin_configure(&def, workers, pinner);
    eddy_world *world = NULL;
    eddy_status status = eddy_scene_create(scene, &def, &world);
    if (status != EDDY_OK) {
        fprintf(stderr, "eddy-bench: cannot create scene %s with %d worker%s: %s: %s\n", scene,
                workers, workers == 1 ? "" : "s", eddy_status_name(status),
                eddy_last_error_message());
        return NULL;
    }
    return world;
}

/* Build, step and summarize one worker count (traced: --trace records it).
 * Returns false on failure. */
static bool run_one(const bench_options *o, int workers, eddy_pinner *pinner, bench_run *run,
                    bool traced)
{
    bench_samples samples;
    bool ok = false;
    eddy_world *world = NULL;
    eddy_chrome_trace *trace = NULL;
    if (traced && (trace = eddy_chrome_trace_create(workers, BENCH_TRACE_EVENTS)) == NULL) {
        fprintf(stderr, "eddy-bench: out of memory for the trace\n");
        return false;
    }
    memset(run, 0, sizeof *run);
    run->workers = workers;
    if (!samples_alloc(&samples, o->frames)) {
        fprintf(stderr, "eddy-bench: out of memory for %d frames of samples\n", o->frames);
        goto cleanup;
    }
    world = world_create(o->scene, workers, o, pinner);
    if (world == NULL || !run_steps(world, o, &samples, run, trace)) {
        goto cleanup;
    }
    if (trace != NULL && !trace_write(o, trace)) {
        goto cleanup;
    }
    run_summarize(run, &samples);
    eddy_frame_hash hash = eddy_world_hash(world);
    run->final_hash = hash.frame_hash;
    run->final_frame = hash.frame;
    run->vortons = eddy_world_vorton_count(world);
    run->tracers = eddy_world_tracer_count(world);
    ok = true;
cleanup:
    eddy_world_destroy(world);
    samples_free(&samples);
    eddy_chrome_trace_destroy(trace);
    return ok;
}

static void runs_set_speedup(bench_run *runs, int count)
{
    const bench_run *reference = NULL;
    for (int i = 0; i < count; ++i) {
        if (runs[i].workers == 1) {
            reference = &runs[i];
        }
    }
    for (int i = 0; reference != NULL && i < count; ++i) {
        double step = runs[i].median_ms[BENCH_ROW_STEP];
        runs[i].speedup = step > 0.0 ? reference->median_ms[BENCH_ROW_STEP] / step : -1.0;
    }
}

static bool runs_hashes_match(const bench_run *runs, int count)
{
    for (int i = 1; i < count; ++i) {
        if (runs[i].final_hash != runs[0].final_hash) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- text */

typedef struct bench_report {
    const bench_options *options;
    const bench_machine *machine;
    const bench_run *runs;
    int run_count;
    int initial_vortons;
    int initial_tracers;
} bench_report;

static void text_header(const bench_report *r)
{
    const bench_options *o = r->options;
    const bench_machine *m = r->machine;
    const eddy_scene_info *info = eddy_scene_find(o->scene);
    printf("eddy-bench %s  scene %s: %s\n", eddy_version_string(), o->scene, info->description);
    printf("machine    %s, %d cores / %d PUs, load average %.2f at start\n", m->cpu, m->cores,
           m->pus, m->load);
    printf("build      %s, optimized %s, NDEBUG %s, SIMD %s\n", k_compiler,
           k_optimized ? "yes" : "no", k_ndebug ? "yes" : "no", machine_simd());
    printf("run        %d measured frames after %d warm-up, pin %s; at frame 0: %d vortons, "
           "%d tracers\n\n",
           o->frames, o->warmup, eddy_pin_name(o->pin), r->initial_vortons, r->initial_tracers);
}

static void text_column_heads(const bench_report *r, const char *title)
{
    printf("%-22s", title);
    for (int i = 0; i < r->run_count; ++i) {
        char head[24];
        snprintf(head, sizeof head, "%d worker%s", r->runs[i].workers,
                 r->runs[i].workers == 1 ? "" : "s");
        printf(" %11s", head);
    }
    printf("\n");
}

/* One row of optional values: value < 0 prints "-". */
static void text_optional_row(const char *label, const double *values, int count,
                              const char *suffix)
{
    printf("%-22s", label);
    for (int i = 0; i < count; ++i) {
        char cell[32];
        if (values[i] < 0.0) {
            snprintf(cell, sizeof cell, "-");
        } else {
            snprintf(cell, sizeof cell, "%.2f%s", values[i], suffix);
        }
        printf(" %11s", cell);
    }
    printf("\n");
}

static void text_summary(const bench_report *r)
{
    double values[BENCH_MAX_RUNS];
    for (int i = 0; i < r->run_count; ++i) {
        values[i] = r->runs[i].tracers_per_ms < 0.0 ? -1.0 : r->runs[i].tracers_per_ms / 1000.0;
    }
    text_optional_row("k tracers advected/ms", values, r->run_count, "");
    for (int i = 0; i < r->run_count; ++i) {
        values[i] = r->runs[i].hash_share;
    }
    text_optional_row("hash share of step", values, r->run_count, "%");
    for (int i = 0; i < r->run_count; ++i) {
        values[i] = r->runs[i].speedup;
    }
    text_optional_row("speedup vs 1 worker", values, r->run_count, "x");
}

static void text_grids(const bench_report *r)
{
    printf("\nvelocity grid (cells per axis, from frame)  mean ms: step, velocity_grid\n");
    for (int i = 0; i < r->run_count; ++i) {
        const bench_run *run = &r->runs[i];
        printf("  %2d worker%s ", run->workers, run->workers == 1 ? " " : "s");
        for (int k = 0; k < run->grid_count; ++k) {
            const bench_grid *g = &run->grids[k];
            printf("%s%dx%dx%d from %" PRId64, k > 0 ? ", " : " ", g->cells[0], g->cells[1],
                   g->cells[2], g->from_frame);
        }
        printf("%s  mean %.3f, %.3f\n", run->grids_truncated ? ", ..." : "",
               run->mean_ms[BENCH_ROW_STEP], run->mean_ms[EDDY_PHASE_VELOCITY_GRID]);
    }
}

static void text_hashes(const bench_report *r)
{
    printf("\nfinal frame hash\n");
    for (int i = 0; i < r->run_count; ++i) {
        const bench_run *run = &r->runs[i];
        printf("  %2d worker%s  frame %" PRId64 "  0x%016" PRIx64 "  (%d vortons, %d tracers)\n",
               run->workers, run->workers == 1 ? " " : "s", run->final_frame, run->final_hash,
               run->vortons, run->tracers);
    }
    if (!runs_hashes_match(r->runs, r->run_count)) {
        printf("WARNING: final frame hashes differ across worker counts: determinism is broken\n");
    }
}

static void text_print(const bench_report *r)
{
    text_header(r);
    text_column_heads(r, "median ms per step");
    for (int row = 0; row < BENCH_ROW_COUNT; ++row) {
        if (row == BENCH_ROW_STEP) {
            printf("%-22s", "");
            for (int i = 0; i < r->run_count; ++i) {
                printf(" %11s", "--------");
            }
            printf("\n");
        }
        printf("  %-20s", row_name(row));
        for (int i = 0; i < r->run_count; ++i) {
            printf(" %11.3f", r->runs[i].median_ms[row]);
        }
        printf("\n");
    }
    printf("\n");
    text_summary(r);
    text_grids(r);
    text_hashes(r);
}

/* ---------------------------------------------------------------- JSON */

static void json_string(const char *text)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; ++c) {
        if (*c == '"' || *c == '\\') {
            printf("\\%c", *c);
        } else if (*c < 0x20) {
            printf("\\u%04x", *c);
        } else {
            putchar(*c);
        }
    }
    putchar('"');
}

/* A number, or null for "not measured" (negative) values. */
static void json_optional(double value)
{
    if (value < 0.0) {
        printf("null");
    } else {
        printf("%.6g", value);
    }
}

static void json_machine(const bench_machine *m)
{
    printf("\"machine\":{\"cpu\":");
    json_string(m->cpu);
    printf(",\"cores\":%d,\"pus\":%d,\"compiler\":", m->cores, m->pus);
    json_string(k_compiler);
    printf(",\"optimized\":%s,\"ndebug\":%s,\"simd\":\"%s\",\"load_average\":",
           k_optimized ? "true" : "false", k_ndebug ? "true" : "false", machine_simd());
    json_optional(m->load);
    putchar('}');
}

static void json_run(const bench_run *run)
{
    printf("{\"workers\":%d,\"median_ms\":{", run->workers);
    for (int row = 0; row < BENCH_ROW_COUNT; ++row) {
        printf("%s\"%s\":%.6g", row > 0 ? "," : "", row_name(row), run->median_ms[row]);
    }
    printf("},\"mean_ms\":{");
    for (int row = 0; row < BENCH_ROW_COUNT; ++row) {
        printf("%s\"%s\":%.6g", row > 0 ? "," : "", row_name(row), run->mean_ms[row]);
    }
    printf("},\"grids\":[");
    for (int k = 0; k < run->grid_count; ++k) {
        const bench_grid *g = &run->grids[k];
        printf("%s{\"cells\":[%d,%d,%d],\"from_frame\":%" PRId64 "}", k > 0 ? "," : "",
               g->cells[0], g->cells[1], g->cells[2], g->from_frame);
    }
    printf("],\"grids_truncated\":%s,\"tracers_per_ms\":", run->grids_truncated ? "true" : "false");
    json_optional(run->tracers_per_ms);
    printf(",\"hash_share\":%.6g,\"speedup\":", run->hash_share);
    json_optional(run->speedup);
    printf(",\"final_frame\":%" PRId64 ",\"final_hash\":\"0x%016" PRIx64 "\"", run->final_frame,
           run->final_hash);
    printf(",\"vortons\":%d,\"tracers\":%d}", run->vortons, run->tracers);
}

static void json_print(const bench_report *r)
{
    const bench_options *o = r->options;
    printf("{\"tool\":\"eddy-bench\",\"eddy_version\":");
    json_string(eddy_version_string());
    printf(",\"scene\":");
    json_string(o->scene);
    static const char *const velocity_names[] = {"treecode", "direct-grid", "direct-vortons",
                                                 "treecode-vortons"};
    printf(",\"frames\":%d,\"warmup\":%d,\"pin\":\"%s\",\"vorton_step\":\"%s\",", o->frames,
           o->warmup, eddy_pin_name(o->pin), eddy_cli_vorton_step_name(o->step));
    const eddy_world_def defaults = eddy_world_def_default();
    const int velocity = o->velocity < 0 ? (int)defaults.velocity_method : o->velocity;
    const int treecode = o->treecode < 0 ? (int)defaults.treecode_traversal : o->treecode;
    const float theta = o->opening_angle > 0.0f ? o->opening_angle
                                                : defaults.treecode_opening_angle;
    printf("\"velocity\":\"%s\",\"treecode\":\"%s\",\"opening_angle\":%g,\"alignment\":%g,",
           velocity_names[velocity], eddy_cli_treecode_name((eddy_treecode_traversal)treecode),
           (double)theta, (double)o->alignment);
    json_machine(r->machine);
    printf(",\"initial_vortons\":%d,\"initial_tracers\":%d,\"runs\":[", r->initial_vortons,
           r->initial_tracers);
    for (int i = 0; i < r->run_count; ++i) {
        if (i > 0) {
            putchar(',');
        }
        json_run(&r->runs[i]);
    }
    printf("],\"hashes_match\":%s}\n", runs_hashes_match(r->runs, r->run_count) ? "true" : "false");
}

/* ---------------------------------------------------------------- main */

/* Particle counts at frame 0, from a throw-away 1-worker world. */
static bool scene_initial_counts(const char *scene, int *vortons, int *tracers)
{
    eddy_world *world = world_create(scene, 1, NULL, NULL);
    if (world == NULL) {
        return false;
    }
    *vortons = eddy_world_vorton_count(world);
    *tracers = eddy_world_tracer_count(world);
    eddy_world_destroy(world);
    return true;
}

static int bench_all(const bench_options *o, eddy_pinner *pinner, const bench_machine *machine)
{
    static bench_run runs[BENCH_MAX_RUNS];
    bench_report report = {o, machine, runs, o->thread_count, 0, 0};
    if (!scene_initial_counts(o->scene, &report.initial_vortons, &report.initial_tracers)) {
        return 1;
    }
    eddy_pinner *configure_pinner = o->pin == EDDY_PIN_NONE ? NULL : pinner;
    for (int i = 0; i < o->thread_count; ++i) {
        if (!run_one(o, o->threads[i], configure_pinner, &runs[i],
                     o->trace != NULL && i == o->thread_count - 1)) {
            return 1;
        }
    }
    runs_set_speedup(runs, o->thread_count);
    if (o->json) {
        json_print(&report);
    } else {
        text_print(&report);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_options o = {.scene = "noise_cloud", .threads = {1, 2}, .thread_count = 2,
                       .frames = 100, .warmup = 10, .pin = EDDY_PIN_PU, .treecode = -1,
                       .step = eddy_world_def_default().vorton_step,
                       .velocity = -1};
    int code = options_parse(argc, argv, &o);
    if (code >= 0) {
        return code;
    }
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.list) {
        scenes_list(stdout);
        return 0;
    }
    if (eddy_scene_find(o.scene) == NULL) {
        return fail_unknown_scene(o.scene);
    }
    char err[256];
    eddy_pinner *pinner = eddy_pinner_create(o.pin, err, sizeof err);
    if (pinner == NULL) {
        fprintf(stderr, "eddy-bench: %s\n", err);
        return 1;
    }
    bench_machine machine;
    machine_describe(&machine, pinner);
    code = bench_all(&o, pinner, &machine);
    eddy_pinner_destroy(pinner);
    return code;
}
