/* SPDX-License-Identifier: MIT */
/* Status names, the assert hook, version and the timing clock. */
#include "runtime/runtime.h"
#include "runtime/thread.h"

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

double eddy_now_ms(void) { return (double)eddy_monotonic_ns() * 1e-6; }
