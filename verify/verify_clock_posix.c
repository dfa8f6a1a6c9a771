/* SPDX-License-Identifier: MIT */
/* verify_monotonic_seconds on POSIX systems: CLOCK_MONOTONIC. */
#include "verify.h"

#include <time.h>

double verify_monotonic_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
