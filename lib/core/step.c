/* SPDX-License-Identifier: MIT */
/* The per-step services of a world that every phase uses (layer core,
 * docs/architecture.md): the error message a failing phase leaves, the
 * growth of an allocation, the grid's point arrays and the chunk partials.
 * They sit below the phases so that no phase calls lib/world.c. */
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void eddy_world_set_error(eddy_world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->error, sizeof w->error, fmt, ap);
    va_end(ap);
    /* A refusal the game may not look at: the log hook hears it (silent by default). */
    eddy_log(EDDY_LOG_WARNING, "%s", w->error);
}

_Thread_local char eddy_thread_error[256];

bool eddy_world_enter(const eddy_world *w, const char *call) {
    /* the flag is the one field a const query writes: the world was
     * allocated writable (eddy_world_create), so casting the const away is
     * defined */
    atomic_int *busy = (atomic_int *)(uintptr_t)&w->busy;
    int idle = 0;
    if (atomic_compare_exchange_strong(busy, &idle, 1)) return true;
    snprintf(eddy_thread_error, sizeof eddy_thread_error,
             "%s: another call (a step, snapshot, restore or hash) is running on this world; "
             "calls on one world must not overlap (eddy/eddy.h, \"Threads\")",
             call);
    return false;
}

void eddy_world_leave(const eddy_world *w) { atomic_store((atomic_int *)(uintptr_t)&w->busy, 0); }

bool eddy_grow(void **p, size_t bytes) {
    void *q = eddy_realloc(*p, bytes);
    if (!q) return false;
    *p = q;
    return true;
}

bool eddy_grid_arrays_reserve(eddy_world *w, int points) {
    if (points <= w->grid_point_capacity) return true;
    /* Room for any grid of the vorton count (core/core.h,
     * eddy_grid_point_bound), not just this one: growing to each new
     * high-water mark of the point count, as the particles' box changes
     * shape, left the old blocks behind as heap holes (bench/RESULTS.md,
     * "Soak"). Only room: nothing reads past `points`. */
    const int bound = eddy_grid_point_bound(eddy_grid_reserve_target(w, w->vortons.count));
    if (bound > points) points = bound;
    const size_t n = (size_t)points;
    if (!eddy_grow((void **)&w->velocity, n * sizeof(vec3)) ||
        !eddy_grow((void **)&w->flow, 4 * n * sizeof(float)) ||
        !eddy_grow((void **)&w->jacobian, 3 * n * sizeof(vec3)) ||
        !eddy_grow((void **)&w->density, n * sizeof(float)) ||
        !eddy_grow((void **)&w->density_gradient, n * sizeof(vec3)))
        return false;
    w->grid_point_capacity = points;
    return true;
}

void *eddy_partials_reserve(eddy_world *w, size_t bytes) {
    if (bytes > w->partials_bytes) {
        const size_t grown = w->partials_bytes + w->partials_bytes / 2;
        if (grown > bytes) bytes = grown;
        if (!eddy_grow(&w->partials, bytes)) return NULL;
        w->partials_bytes = bytes;
    }
    return w->partials;
}
