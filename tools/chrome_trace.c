/* SPDX-License-Identifier: MIT */
/* Chrome trace-event JSON from eddy's profiler zones (chrome_trace.h). */
#include "chrome_trace.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

typedef struct trace_event {
    const char *zone;
    int64_t ns;
    bool begin;
} trace_event;

struct eddy_chrome_trace {
    int workers;
    int capacity;       /* events per worker */
    int *count;         /* per worker */
    trace_event *events; /* workers * capacity */
    atomic_llong dropped;
    int64_t origin_ns;
};

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

eddy_chrome_trace *eddy_chrome_trace_create(int workers, int events_per_worker) {
    if (workers < 1 || events_per_worker < 1) return NULL;
    eddy_chrome_trace *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->workers = workers;
    t->capacity = events_per_worker;
    t->count = calloc((size_t)workers, sizeof *t->count);
    t->events = calloc((size_t)workers * (size_t)events_per_worker, sizeof *t->events);
    if (!t->count || !t->events) {
        eddy_chrome_trace_destroy(t);
        return NULL;
    }
    t->origin_ns = now_ns();
    return t;
}

void eddy_chrome_trace_destroy(eddy_chrome_trace *t) {
    if (!t) return;
    free(t->count);
    free(t->events);
    free(t);
}

void eddy_chrome_trace_clear(eddy_chrome_trace *t) {
    for (int w = 0; w < t->workers; ++w) t->count[w] = 0;
    atomic_store(&t->dropped, 0);
}

static void record(eddy_chrome_trace *t, const char *zone, int worker, bool begin) {
    if (worker < 0 || worker >= t->workers || t->count[worker] == t->capacity) {
        atomic_fetch_add(&t->dropped, 1);
        return;
    }
    t->events[(size_t)worker * (size_t)t->capacity + (size_t)t->count[worker]++] =
        (trace_event){zone, now_ns(), begin};
}

static void zone_begin(const char *zone, int worker, void *user) { record(user, zone, worker, true); }
static void zone_end(const char *zone, int worker, void *user) { record(user, zone, worker, false); }

eddy_profiler eddy_chrome_trace_profiler(eddy_chrome_trace *t) {
    return (eddy_profiler){zone_begin, zone_end, t};
}

int eddy_chrome_trace_count(const eddy_chrome_trace *t, int worker) {
    return worker >= 0 && worker < t->workers ? t->count[worker] : 0;
}

long long eddy_chrome_trace_dropped(const eddy_chrome_trace *t) { return atomic_load(&t->dropped); }

const char *eddy_chrome_trace_event(const eddy_chrome_trace *t, int worker, int i, bool *begin) {
    const trace_event *e = &t->events[(size_t)worker * (size_t)t->capacity + (size_t)i];
    *begin = e->begin;
    return e->zone;
}

bool eddy_chrome_trace_write(const eddy_chrome_trace *t, FILE *out) {
    fprintf(out, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n");
    bool first = true;
    for (int w = 0; w < t->workers; ++w) {
        fprintf(out, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                     "\"args\": {\"name\": \"eddy worker %d\"}}",
                first ? "" : ",\n", w, w);
        first = false;
        for (int i = 0; i < t->count[w]; ++i) {
            const trace_event *e = &t->events[(size_t)w * (size_t)t->capacity + (size_t)i];
            /* zone names are eddy's static identifiers: no JSON escaping needed */
            fprintf(out, ",\n{\"name\": \"%s\", \"cat\": \"eddy\", \"ph\": \"%c\", \"pid\": 1, "
                         "\"tid\": %d, \"ts\": %.3f}",
                    e->zone, e->begin ? 'B' : 'E', w, (double)(e->ns - t->origin_ns) * 1e-3);
        }
    }
    fprintf(out, "\n]}\n");
    return !ferror(out);
}
