/* SPDX-License-Identifier: MIT */
/* The engine hooks of include/eddy/base.h other than the allocator
 * (tests/test_alloc.c): the log hook, the version check and the profiler
 * zones with the Chrome trace sink (tools/chrome_trace.h). */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "eddy/eddy.h"
#include "chrome_trace.h"
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- log */
typedef struct log_record {
    int count[3];
    char last[512];
    eddy_log_level last_level;
} log_record;

static void log_into(eddy_log_level level, const char *message, void *user) {
    log_record *r = user;
    r->count[level] += 1;
    r->last_level = level;
    snprintf(r->last, sizeof r->last, "%s", message);
}

static eddy_vorton nan_vorton(void) {
    eddy_vorton v = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}, 0.0f, 0};
    v.position.y = NAN;
    return v;
}

Test(hooks, eddy_is_silent_without_a_log_handler, .init = cr_redirect_stderr) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    const eddy_vorton v = nan_vorton();
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_ERROR_NAN);
    d.dt = -1.0f;
    eddy_world *bad = NULL;
    cr_assert_neq(eddy_world_create(&d, &bad), EDDY_OK);
    eddy_world_destroy(w);
    fflush(stderr);
    cr_assert_stderr_eq_str("");
}

Test(hooks, refusals_reach_the_log_handler_with_their_message_and_level) {
    log_record r = {0};
    eddy_set_log_handler(log_into, EDDY_LOG_INFO, &r);
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = NULL;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_OK);
    cr_expect_eq(r.count[0] + r.count[1] + r.count[2], 0, "a good create logged: %s", r.last);
    const eddy_vorton v = nan_vorton();
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_ERROR_NAN);
    cr_expect_eq(r.count[EDDY_LOG_WARNING], 1);
    cr_expect_str_eq(r.last, eddy_world_error_message(w));
    /* a range past the end is clamped, and said so at the info level */
    eddy_vorton out[2];
    cr_expect_eq(eddy_world_get_vortons(w, 0, 2, out), 0);
    cr_expect_eq(r.last_level, EDDY_LOG_INFO);
    cr_expect(strstr(r.last, "clamped") != NULL, "%s", r.last);
    /* a bad definition: the create's message */
    d.dt = -1.0f;
    eddy_world *bad = NULL;
    cr_assert_neq(eddy_world_create(&d, &bad), EDDY_OK);
    cr_expect(strstr(r.last, eddy_last_error_message()) != NULL, "%s", r.last);
    /* above the level set, nothing */
    eddy_set_log_handler(log_into, EDDY_LOG_ERROR, &r);
    const int before = r.count[EDDY_LOG_WARNING];
    cr_assert_eq(eddy_world_add_vortons(w, &v, 1), EDDY_ERROR_NAN);
    cr_expect_eq(r.count[EDDY_LOG_WARNING], before);
    eddy_set_log_handler(NULL, EDDY_LOG_INFO, NULL);
    eddy_world_destroy(w);
}

/* ---------------------------------------------------------------- version */
Test(hooks, the_version_macros_are_the_library_version) {
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR,
             EDDY_VERSION_PATCH);
    cr_expect_str_eq(text, EDDY_VERSION_STRING);
    cr_expect_str_eq(eddy_version_string(), EDDY_VERSION_STRING);
    cr_expect_eq(eddy_version(), EDDY_VERSION);
    cr_expect_eq(eddy_version_check(EDDY_VERSION, NULL, 0), EDDY_OK);
    /* a patch release of the same major.minor is accepted */
    cr_expect_eq(eddy_version_check(EDDY_VERSION + 1, NULL, 0), EDDY_OK);
}

Test(hooks, a_mismatched_version_is_refused_naming_both) {
    char message[256];
    const int other = (EDDY_VERSION_MAJOR + 1) * 10000 + 2 * 100 + 3;
    cr_assert_eq(eddy_version_check(other, message, sizeof message), EDDY_ERROR_VERSION);
    char want[32];
    snprintf(want, sizeof want, "%d.2.3", EDDY_VERSION_MAJOR + 1);
    cr_expect(strstr(message, want) != NULL, "%s", message);
    cr_expect(strstr(message, EDDY_VERSION_STRING) != NULL, "%s", message);
}

/* What a game compiled against other headers runs: eddy_world_create is
 * eddy.h's macro and passes the header's EDDY_VERSION, here that of a
 * header one minor version ahead. */
#undef EDDY_VERSION
#define EDDY_VERSION ((EDDY_VERSION_MAJOR * 10000) + (EDDY_VERSION_MINOR + 1) * 100)
Test(hooks, world_creation_from_other_headers_is_refused) {
    eddy_world_def d = eddy_world_def_default();
    eddy_world *w = (eddy_world *)&d;
    cr_assert_eq(eddy_world_create(&d, &w), EDDY_ERROR_VERSION);
    cr_expect(w == NULL);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.0", EDDY_VERSION_MAJOR, EDDY_VERSION_MINOR + 1);
    cr_expect(strstr(eddy_last_error_message(), want) != NULL, "%s", eddy_last_error_message());
    cr_expect(strstr(eddy_last_error_message(), EDDY_VERSION_STRING) != NULL, "%s",
              eddy_last_error_message());
    /* the function itself, as a binding that passes nothing calls it */
    cr_assert_eq((eddy_world_create)(&d, &w), EDDY_OK);
    eddy_world_destroy(w);
}
#undef EDDY_VERSION
#define EDDY_VERSION (EDDY_VERSION_MAJOR * 10000 + EDDY_VERSION_MINOR * 100 + EDDY_VERSION_PATCH)

/* ---------------------------------------------------------------- profiler zones */
enum { WORKERS = 4 };

static eddy_world *scene_world(const char *scene, int workers) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK, "%s", eddy_last_error_message());
    return w;
}

static void step_scene(eddy_world *w, const char *scene) {
    eddy_scene_input in;
    const eddy_input *input = eddy_scene_input_for(scene, eddy_world_frame(w), &in);
    cr_assert_eq(eddy_world_step(w, input), EDDY_OK, "%s", eddy_world_error_message(w));
}

/* Zones of worker: balanced, properly nested; counts how often each name opens. */
static void check_nesting(const eddy_chrome_trace *t, int worker) {
    const char *stack[64];
    int depth = 0;
    for (int i = 0; i < eddy_chrome_trace_count(t, worker); ++i) {
        bool begin;
        const char *zone = eddy_chrome_trace_event(t, worker, i, &begin);
        if (begin) {
            cr_assert_lt(depth, 64);
            stack[depth++] = zone;
        } else {
            cr_assert_gt(depth, 0, "worker %d: %s ends unopened", worker, zone);
            cr_assert_str_eq(stack[--depth], zone, "worker %d: zones cross", worker);
        }
    }
    cr_expect_eq(depth, 0, "worker %d: %d zones left open", worker, depth);
}

static bool worker_has(const eddy_chrome_trace *t, int worker, const char *zone) {
    for (int i = 0; i < eddy_chrome_trace_count(t, worker); ++i) {
        bool begin;
        if (strcmp(eddy_chrome_trace_event(t, worker, i, &begin), zone) == 0 && begin) return true;
    }
    return false;
}

/* A game's task system as a profiler sees it, made deterministic: every task
 * is cut into WORKERS ranges, range k run as worker k (on the calling
 * thread, one after the other), so a phase with at least WORKERS chunks runs
 * on every worker whatever the machine's load. */
static void *split_enqueue(eddy_task_fn *task, int count, int min_range, void *context, void *user) {
    (void)min_range;
    (void)user;
    for (int k = 0; k < WORKERS; ++k) {
        const int begin = (int)((long long)count * k / WORKERS);
        const int end = (int)((long long)count * (k + 1) / WORKERS);
        if (begin < end) task(begin, end, k, context);
    }
    return NULL;
}
static void split_finish(void *task, void *user) { (void)task, (void)user; }

Test(hooks, one_step_traces_every_phase_on_every_worker, .timeout = 120) {
    const char *scene = "noise_cloud"; /* enough particles for every phase to have 4 chunks */
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = WORKERS;
    base.enqueue_task = split_enqueue;
    base.finish_task = split_finish;
    eddy_world *w = NULL;
    cr_assert_eq(eddy_scene_create(scene, &base, &w), EDDY_OK, "%s", eddy_last_error_message());
    step_scene(w, scene);
    eddy_chrome_trace *t = eddy_chrome_trace_create(WORKERS, 1 << 16);
    const eddy_profiler p = eddy_chrome_trace_profiler(t);
    eddy_set_profiler(&p);
    step_scene(w, scene);
    eddy_set_profiler(NULL);
    cr_assert_eq(eddy_chrome_trace_dropped(t), 0);
    /* The phases with parallel work (at least WORKERS chunks in this step)
     * appear on every worker; the serial ones on worker 0 only. */
    char on_all[512] = "";
    int phases_on_all = 0;
    for (int ph = 0; ph < EDDY_PHASE_COUNT; ++ph) {
        const char *zone = eddy_phase_name((eddy_phase)ph);
        bool all = true;
        for (int k = 0; k < WORKERS; ++k) all = all && worker_has(t, k, zone);
        if (!all) continue;
        phases_on_all += 1;
        strncat(on_all, zone, sizeof on_all - strlen(on_all) - 2);
        strcat(on_all, " ");
    }
    cr_log_info("phases on every worker: %s", on_all);
    const char *const parallel[] = {"eddy.advect_tracers", "eddy.tree_build", "eddy.velocity_grid",
                                    "eddy.stretch", "eddy.density", "eddy.diffusion",
                                    "eddy.advect_vortons", "eddy.hash"};
    for (size_t i = 0; i < sizeof parallel / sizeof parallel[0]; ++i)
        cr_expect(strstr(on_all, parallel[i]) != NULL, "%s is not on every worker (%s)", parallel[i],
                  on_all);
    for (int k = 0; k < WORKERS; ++k) check_nesting(t, k);
    eddy_chrome_trace_destroy(t);
    eddy_world_destroy(w);
}

Test(hooks, one_step_on_the_pool_traces_every_phase_and_nests, .timeout = 120) {
    const char *scene = "plume_plate";
    eddy_world *w = scene_world(scene, WORKERS);
    for (int f = 0; f < 30; ++f) step_scene(w, scene);
    eddy_chrome_trace *t = eddy_chrome_trace_create(WORKERS, 1 << 16);
    cr_assert(t != NULL);
    const eddy_profiler p = eddy_chrome_trace_profiler(t);
    eddy_set_profiler(&p);
    step_scene(w, scene);
    eddy_set_profiler(NULL);
    cr_assert_eq(eddy_chrome_trace_dropped(t), 0);
    for (int k = 0; k < WORKERS; ++k) check_nesting(t, k);
    /* the step and every phase on the calling thread, worker 0 */
    cr_expect(worker_has(t, 0, "eddy_world_step"));
    for (int ph = 0; ph < EDDY_PHASE_COUNT; ++ph)
        cr_expect(worker_has(t, 0, eddy_phase_name((eddy_phase)ph)), "no zone for %s",
                  eddy_phase_name((eddy_phase)ph));
    /* task ranges, each named by a phase (which worker gets one is the pool's choice) */
    for (int k = 1; k < WORKERS; ++k) {
        for (int i = 0; i < eddy_chrome_trace_count(t, k); ++i) {
            bool begin;
            const char *zone = eddy_chrome_trace_event(t, k, i, &begin);
            cr_expect(strncmp(zone, "eddy.", 5) == 0, "worker %d: zone %s", k, zone);
        }
    }
    /* the JSON a trace viewer opens */
    char *json = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&json, &size);
    cr_assert(eddy_chrome_trace_write(t, f));
    fclose(f);
    cr_expect(strncmp(json, "{\"displayTimeUnit\"", 18) == 0);
    cr_expect(strstr(json, "\"ph\": \"B\"") != NULL && strstr(json, "\"ph\": \"E\"") != NULL);
    cr_expect(strstr(json, "\"name\": \"eddy.velocity_grid\"") != NULL);
    free(json);
    /* unset: nothing more arrives */
    eddy_chrome_trace_clear(t);
    step_scene(w, scene);
    for (int k = 0; k < WORKERS; ++k) cr_expect_eq(eddy_chrome_trace_count(t, k), 0);
    eddy_chrome_trace_destroy(t);
    eddy_world_destroy(w);
}

/* Zones never change a result: the same frames hash the same with a profiler. */
Test(hooks, zones_leave_the_hashes_alone, .timeout = 120) {
    eddy_world *a = scene_world("ball_through_smoke", 2);
    eddy_world *b = scene_world("ball_through_smoke", 2);
    eddy_chrome_trace *t = eddy_chrome_trace_create(2, 1 << 18);
    const eddy_profiler p = eddy_chrome_trace_profiler(t);
    for (int f = 0; f < 20; ++f) {
        step_scene(a, "ball_through_smoke");
        eddy_set_profiler(&p);
        step_scene(b, "ball_through_smoke");
        eddy_set_profiler(NULL);
        cr_assert_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(b).frame_hash, "frame %d", f + 1);
    }
    eddy_chrome_trace_destroy(t);
    eddy_world_destroy(a);
    eddy_world_destroy(b);
}
