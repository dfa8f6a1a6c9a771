/* SPDX-License-Identifier: MIT */
/* Status names, the assert hook, version and the timing clock. */
#include "runtime/runtime.h"
#include "runtime/thread.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *eddy_status_name(eddy_status status) {
    switch (status) {
    case EDDY_OK: return "EDDY_OK";
    case EDDY_ERROR_INVALID_ARGUMENT: return "EDDY_ERROR_INVALID_ARGUMENT";
    case EDDY_ERROR_INVALID_DEF: return "EDDY_ERROR_INVALID_DEF";
    case EDDY_ERROR_OUT_OF_MEMORY: return "EDDY_ERROR_OUT_OF_MEMORY";
    case EDDY_ERROR_WRONG_STATE: return "EDDY_ERROR_WRONG_STATE";
    case EDDY_ERROR_NOT_FOUND: return "EDDY_ERROR_NOT_FOUND";
    case EDDY_ERROR_NAN: return "EDDY_ERROR_NAN";
    case EDDY_ERROR_THREAD: return "EDDY_ERROR_THREAD";
    case EDDY_ERROR_CAPACITY: return "EDDY_ERROR_CAPACITY";
    case EDDY_ERROR_IO: return "EDDY_ERROR_IO";
    case EDDY_ERROR_CORRUPT: return "EDDY_ERROR_CORRUPT";
    case EDDY_ERROR_TRUNCATED: return "EDDY_ERROR_TRUNCATED";
    case EDDY_ERROR_VERSION: return "EDDY_ERROR_VERSION";
    case EDDY_ERROR_FINGERPRINT: return "EDDY_ERROR_FINGERPRINT";
    case EDDY_ERROR_DIVERGED: return "EDDY_ERROR_DIVERGED";
    }
    return "EDDY_ERROR_UNKNOWN";
}

static void default_assert(const char *condition, const char *file, int line) {
    fprintf(stderr, "eddy: assertion failed: %s (%s:%d)\n", condition, file, line);
    abort();
}

static eddy_assert_fn *g_assert_handler = default_assert;

void eddy_set_assert_handler(eddy_assert_fn *handler) {
    g_assert_handler = handler ? handler : default_assert;
}

void eddy_assert_fail(const char *condition, const char *file, int line) {
    g_assert_handler(condition, file, line);
}

const char *eddy_version_string(void) { return EDDY_VERSION_STRING; }

int eddy_version(void) { return EDDY_VERSION; }

eddy_status eddy_version_check(int header_version, char *message, size_t message_size) {
    if (header_version / 100 == EDDY_VERSION / 100) return EDDY_OK;
    if (message && message_size > 0)
        snprintf(message, message_size,
                 "eddy headers %d.%d.%d do not match the library %s: build against the headers "
                 "of the library you load",
                 header_version / 10000, header_version / 100 % 100, header_version % 100,
                 EDDY_VERSION_STRING);
    return EDDY_ERROR_VERSION;
}

/* ---------------------------------------------------------------- profiler */
eddy_profiler eddy_profiler_hook;

void eddy_set_profiler(const eddy_profiler *profiler) {
    if (profiler && profiler->begin && profiler->end)
        eddy_profiler_hook = *profiler;
    else
        eddy_profiler_hook = (eddy_profiler){0};
}

/* ---------------------------------------------------------------- log hook
 * Process-wide like the assert handler; NULL (the default) is silent. */
static eddy_log_fn *g_log_handler;
static eddy_log_level g_log_max = EDDY_LOG_ERROR;
static void *g_log_user;

void eddy_set_log_handler(eddy_log_fn *handler, eddy_log_level max_level, void *user) {
    g_log_handler = handler;
    g_log_max = max_level;
    g_log_user = user;
}

bool eddy_log_enabled(eddy_log_level level) { return g_log_handler && level <= g_log_max; }

void eddy_log(eddy_log_level level, const char *fmt, ...) {
    if (!eddy_log_enabled(level)) return;
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    g_log_handler(level, message, g_log_user);
}

double eddy_now_ms(void) { return (double)eddy_monotonic_ns() * 1e-6; }
