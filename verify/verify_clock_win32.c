/* SPDX-License-Identifier: MIT */
/* verify_monotonic_seconds on Windows: QueryPerformanceCounter (the C
 * runtime has no clock_gettime without winpthreads). */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "verify.h"

double verify_monotonic_seconds(void) {
    LARGE_INTEGER frequency, count;
    QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&count);
    return (double)count.QuadPart / (double)frequency.QuadPart;
}
