/* SPDX-License-Identifier: MIT */
/* Structure-of-arrays particle storage: growth, append, stable compaction. */
#include "core.h"

#include <stdlib.h>

static bool grow_array(void **p, int capacity, size_t elem) {
    void *q = realloc(*p, (size_t)capacity * elem);
    if (!q) return false;
    *p = q;
    return true;
}

bool eddy_particles_reserve(particle_array *a, int capacity) {
    if (capacity <= a->capacity) return true;
    int cap = a->capacity < 64 ? 64 : a->capacity;
    while (cap < capacity) cap = cap > (1 << 29) ? capacity : cap * 2;
    float **fields[] = {&a->px, &a->py, &a->pz, &a->vx, &a->vy, &a->vz, &a->drho,
                        &a->wx, &a->wy, &a->wz, &a->hx, &a->hy, &a->hz};
    int nfields = a->has_vorticity ? 13 : 7;
    for (int f = 0; f < nfields; ++f)
        if (!grow_array((void **)fields[f], cap, sizeof(float))) return false;
    if (!grow_array((void **)&a->birth, cap, sizeof(int32_t))) return false;
    if (a->track_ids && !grow_array((void **)&a->id, cap, sizeof(uint64_t))) return false;
    a->capacity = cap;
    return true;
}

void eddy_particles_free(particle_array *a) {
    free(a->px); free(a->py); free(a->pz);
    free(a->vx); free(a->vy); free(a->vz);
    free(a->wx); free(a->wy); free(a->wz);
    free(a->drho); free(a->birth);
    free(a->hx); free(a->hy); free(a->hz);
    free(a->id);
    bool hv = a->has_vorticity, ids = a->track_ids;
    memset(a, 0, sizeof *a);
    a->has_vorticity = hv;
    a->track_ids = ids;
}

bool eddy_particles_renumber_ids(particle_array *a) {
    if (!a->track_ids) return true;
    /* eddy_particles_reserve grows the ids with the other fields: allocate
     * only when ids were never stored (no allocation on an in-place restore). */
    if (a->capacity > 0 && !a->id && !grow_array((void **)&a->id, a->capacity, sizeof(uint64_t)))
        return false;
    for (int i = 0; i < a->count; ++i) a->id[i] = (uint64_t)i;
    a->next_id = (uint64_t)a->count;
    return true;
}

void eddy_particles_push(particle_array *a, vec3 p, vec3 v, vec3 w, float drho, int32_t birth) {
    int i = a->count++;
    a->px[i] = p.x; a->py[i] = p.y; a->pz[i] = p.z;
    a->vx[i] = v.x; a->vy[i] = v.y; a->vz[i] = v.z;
    if (a->has_vorticity) {
        a->wx[i] = w.x; a->wy[i] = w.y; a->wz[i] = w.z;
        a->hx[i] = 0.0f; a->hy[i] = 0.0f; a->hz[i] = 0.0f;
    }
    a->drho[i] = drho;
    a->birth[i] = birth;
    if (a->id) a->id[i] = a->next_id++;
}

static void copy_particle(particle_array *a, int dst, int src) {
    a->px[dst] = a->px[src]; a->py[dst] = a->py[src]; a->pz[dst] = a->pz[src];
    a->vx[dst] = a->vx[src]; a->vy[dst] = a->vy[src]; a->vz[dst] = a->vz[src];
    if (a->has_vorticity) {
        a->wx[dst] = a->wx[src]; a->wy[dst] = a->wy[src]; a->wz[dst] = a->wz[src];
        a->hx[dst] = a->hx[src]; a->hy[dst] = a->hy[src]; a->hz[dst] = a->hz[src];
    }
    a->drho[dst] = a->drho[src];
    a->birth[dst] = a->birth[src];
    if (a->id) a->id[dst] = a->id[src];
}

/* Stable removal of the particles for which remove(i) is true. */
void eddy_particles_remove_if(particle_array *a, bool (*remove)(const particle_array *, int, void *),
                         void *context) {
    int dst = 0;
    for (int src = 0; src < a->count; ++src) {
        if (remove(a, src, context)) continue;
        if (dst != src) copy_particle(a, dst, src);
        ++dst;
    }
    a->count = dst;
}

/* Stable removal of particles older than max_age (frame - birth > max_age):
 * survivors keep their relative order (D8), so the state after a kill does
 * not depend on how the array was traversed. */
void eddy_phase_kill_by_age(eddy_world *w, particle_array *a, int max_age) {
    if (max_age < 0 || a->count == 0) return;
    const int64_t frame = w->frame;
    int n = a->count, dst = 0;
    while (dst < n && frame - a->birth[dst] <= max_age) ++dst;
    for (int src = dst; src < n; ++src) {
        if (frame - a->birth[src] > max_age) continue;
        copy_particle(a, dst++, src);
    }
    a->count = dst;
}
