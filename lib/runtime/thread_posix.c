/* SPDX-License-Identifier: MIT */
/* The POSIX back end of lib/runtime/thread.h: pthreads and the POSIX clocks. */
#define _POSIX_C_SOURCE 200809L

#include "runtime/thread.h"
#include "eddy/base.h" /* eddy_alloc, eddy_free: the allocator hook */

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h> /* _mm_pause */
#endif

struct eddy_mutex {
    pthread_mutex_t handle;
};

struct eddy_cond {
    pthread_cond_t handle;
};

struct eddy_thread {
    pthread_t handle;
    eddy_thread_main_fn *main;
    void *arg;
};

void *eddy_system_aligned_alloc(size_t alignment, size_t size) { return aligned_alloc(alignment, size); }

void eddy_system_aligned_free(void *memory) { free(memory); }

int eddy_cpu_count_online(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && cpus < 1L << 20 ? (int)cpus : 0;
}

int64_t eddy_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void eddy_thread_yield(void) { sched_yield(); }

#if defined(__x86_64__) || defined(__i386__)
void eddy_cpu_relax(void) { _mm_pause(); }
#elif defined(__aarch64__)
void eddy_cpu_relax(void) { __asm__ __volatile__("yield" ::: "memory"); }
#else
void eddy_cpu_relax(void) {}
#endif

eddy_mutex *eddy_mutex_create(void) {
    eddy_mutex *mutex = eddy_alloc(sizeof *mutex);
    if (mutex != NULL && pthread_mutex_init(&mutex->handle, NULL) != 0) {
        eddy_free(mutex);
        return NULL;
    }
    return mutex;
}

void eddy_mutex_destroy(eddy_mutex *mutex) {
    if (mutex != NULL) {
        pthread_mutex_destroy(&mutex->handle);
        eddy_free(mutex);
    }
}

void eddy_mutex_lock(eddy_mutex *mutex) { pthread_mutex_lock(&mutex->handle); }

void eddy_mutex_unlock(eddy_mutex *mutex) { pthread_mutex_unlock(&mutex->handle); }

eddy_cond *eddy_cond_create(void) {
    eddy_cond *cond = eddy_alloc(sizeof *cond);
    if (cond != NULL && pthread_cond_init(&cond->handle, NULL) != 0) {
        eddy_free(cond);
        return NULL;
    }
    return cond;
}

void eddy_cond_destroy(eddy_cond *cond) {
    if (cond != NULL) {
        pthread_cond_destroy(&cond->handle);
        eddy_free(cond);
    }
}

void eddy_cond_wait(eddy_cond *cond, eddy_mutex *mutex) {
    pthread_cond_wait(&cond->handle, &mutex->handle);
}

void eddy_cond_signal(eddy_cond *cond) { pthread_cond_signal(&cond->handle); }

void eddy_cond_broadcast(eddy_cond *cond) { pthread_cond_broadcast(&cond->handle); }

static void *thread_trampoline(void *arg) {
    eddy_thread *thread = arg;
    thread->main(thread->arg);
    return NULL;
}

eddy_thread *eddy_thread_start(eddy_thread_main_fn *main, void *arg, bool *out_of_memory) {
    eddy_thread *thread = eddy_alloc(sizeof *thread);
    *out_of_memory = thread == NULL;
    if (thread == NULL) {
        return NULL;
    }
    thread->main = main;
    thread->arg = arg;
    if (pthread_create(&thread->handle, NULL, thread_trampoline, thread) != 0) {
        eddy_free(thread);
        return NULL;
    }
    return thread;
}

void eddy_thread_join(eddy_thread *thread) {
    pthread_join(thread->handle, NULL);
    eddy_free(thread);
}
