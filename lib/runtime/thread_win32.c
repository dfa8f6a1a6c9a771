/* SPDX-License-Identifier: MIT */
/* The Win32 back end of lib/runtime/thread.h: CreateThread, slim reader/writer locks
 * (used exclusively) and condition variables, QueryPerformanceCounter.
 * Plain Win32 (Windows Vista and later): no winpthreads, builds with MinGW-w64
 * and MSVC alike. */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "runtime/thread.h"
#include "eddy/base.h" /* eddy_alloc, eddy_free: the allocator hook */

#include <malloc.h> /* _aligned_malloc: the CRT has no C11 aligned_alloc */
#include <stdlib.h>

struct eddy_mutex {
    SRWLOCK handle;
};

struct eddy_cond {
    CONDITION_VARIABLE handle;
};

struct eddy_thread {
    HANDLE handle;
    eddy_thread_main_fn *main;
    void *arg;
};

void *eddy_system_aligned_alloc(size_t alignment, size_t size) { return _aligned_malloc(size, alignment); }

void eddy_system_aligned_free(void *memory) { _aligned_free(memory); }

int eddy_cpu_count_online(void) {
    DWORD cpus = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return cpus > 0 && cpus < 1u << 20 ? (int)cpus : 0;
}

int64_t eddy_monotonic_ns(void) {
    LARGE_INTEGER frequency, count;
    QueryPerformanceFrequency(&frequency); /* fixed at boot; cheap to read */
    QueryPerformanceCounter(&count);
    const int64_t ticks = count.QuadPart, hz = frequency.QuadPart;
    return ticks / hz * 1000000000 + ticks % hz * 1000000000 / hz;
}

void eddy_thread_yield(void) { SwitchToThread(); }

void eddy_cpu_relax(void) { YieldProcessor(); } /* pause on x64, yield on arm64 */

eddy_mutex *eddy_mutex_create(void) {
    eddy_mutex *mutex = eddy_alloc(sizeof *mutex);
    if (mutex != NULL) {
        InitializeSRWLock(&mutex->handle);
    }
    return mutex;
}

void eddy_mutex_destroy(eddy_mutex *mutex) { eddy_free(mutex); } /* SRW locks need no clean-up */

void eddy_mutex_lock(eddy_mutex *mutex) { AcquireSRWLockExclusive(&mutex->handle); }

void eddy_mutex_unlock(eddy_mutex *mutex) { ReleaseSRWLockExclusive(&mutex->handle); }

eddy_cond *eddy_cond_create(void) {
    eddy_cond *cond = eddy_alloc(sizeof *cond);
    if (cond != NULL) {
        InitializeConditionVariable(&cond->handle);
    }
    return cond;
}

void eddy_cond_destroy(eddy_cond *cond) { eddy_free(cond); }

void eddy_cond_wait(eddy_cond *cond, eddy_mutex *mutex) {
    SleepConditionVariableSRW(&cond->handle, &mutex->handle, INFINITE, 0);
}

void eddy_cond_signal(eddy_cond *cond) { WakeConditionVariable(&cond->handle); }

void eddy_cond_broadcast(eddy_cond *cond) { WakeAllConditionVariable(&cond->handle); }

static DWORD WINAPI thread_trampoline(LPVOID arg) {
    eddy_thread *thread = arg;
    thread->main(thread->arg);
    return 0;
}

eddy_thread *eddy_thread_start(eddy_thread_main_fn *main, void *arg, bool *out_of_memory) {
    eddy_thread *thread = eddy_alloc(sizeof *thread);
    *out_of_memory = thread == NULL;
    if (thread == NULL) {
        return NULL;
    }
    thread->main = main;
    thread->arg = arg;
    thread->handle = CreateThread(NULL, 0, thread_trampoline, thread, 0, NULL);
    if (thread->handle == NULL) {
        eddy_free(thread);
        return NULL;
    }
    return thread;
}

void eddy_thread_join(eddy_thread *thread) {
    WaitForSingleObject(thread->handle, INFINITE);
    CloseHandle(thread->handle);
    eddy_free(thread);
}
