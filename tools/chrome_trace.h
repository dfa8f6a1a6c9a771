/* SPDX-License-Identifier: MIT */
/* An example sink for eddy's profiler zones (include/eddy/base.h): it keeps
 * every begin and end with its worker and time, and writes them as Chrome
 * trace-event JSON (one "B"/"E" event each, tid = worker index), which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open. eddy-bench --trace
 * FILE uses it; a game would forward the zones to its own profiler instead.
 *
 * Nothing is allocated while zones arrive: each worker has its own row of
 * events_per_worker slots, written only by the thread that is that worker,
 * and events past the end of a row are counted as dropped. */
#ifndef EDDY_CHROME_TRACE_H
#define EDDY_CHROME_TRACE_H

#include "eddy/eddy.h"

#include <stdio.h>

typedef struct eddy_chrome_trace eddy_chrome_trace;

/* NULL when out of memory. */
eddy_chrome_trace *eddy_chrome_trace_create(int workers, int events_per_worker);
void eddy_chrome_trace_destroy(eddy_chrome_trace *trace);

/* The profiler that records into trace (pass it to eddy_set_profiler). */
eddy_profiler eddy_chrome_trace_profiler(eddy_chrome_trace *trace);

/* Forget every event recorded so far. */
void eddy_chrome_trace_clear(eddy_chrome_trace *trace);

/* Events recorded for worker (begin and end each count one), and dropped. */
int eddy_chrome_trace_count(const eddy_chrome_trace *trace, int worker);
long long eddy_chrome_trace_dropped(const eddy_chrome_trace *trace);
/* Event i of worker: its zone name and whether it is a begin. */
const char *eddy_chrome_trace_event(const eddy_chrome_trace *trace, int worker, int i, bool *begin);

/* Write the JSON object {"traceEvents": [...]}; false on an I/O error. */
bool eddy_chrome_trace_write(const eddy_chrome_trace *trace, FILE *out);

#endif
