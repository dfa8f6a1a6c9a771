/* SPDX-License-Identifier: MIT */
/* Structure-of-arrays particle storage: growth, append, stable compaction. */
#include "core/core.h"

#include <stdlib.h>

static bool grow_array(void **p, int capacity, size_t elem) {
    void *q = eddy_realloc(*p, (size_t)capacity * elem);
    if (!q) return false;
    *p = q;
    return true;
}

/* The addresses of the field pointers that are allocated, with the bytes per
 * particle of each (4, or 8 for stable ids). */
enum { FIELD_POINTERS = 18 };
static int allocated_fields(particle_array *a, void **fields[FIELD_POINTERS],
                            size_t sizes[FIELD_POINTERS]) {
    void **all[FIELD_POINTERS] = {
        (void **)&a->px, (void **)&a->py, (void **)&a->pz, (void **)&a->vx, (void **)&a->vy,
        (void **)&a->vz, (void **)&a->drho, (void **)&a->birth, (void **)&a->wx, (void **)&a->wy,
        (void **)&a->wz, (void **)&a->hx, (void **)&a->hy, (void **)&a->hz, (void **)&a->sx,
        (void **)&a->sy, (void **)&a->sz, (void **)&a->id};
    int n = 0;
    for (int f = 0; f < FIELD_POINTERS; ++f) {
        if (!*all[f]) continue;
        fields[n] = all[f];
        sizes[n++] = f == FIELD_POINTERS - 1 ? sizeof *a->id : 4;
    }
    return n;
}

/* Moves every field pointer by `slots` particles (negative: back). */
static void shift_pointers(particle_array *a, int slots) {
    void **fields[FIELD_POINTERS];
    size_t sizes[FIELD_POINTERS];
    const int n = allocated_fields(a, fields, sizes);
    for (int f = 0; f < n; ++f) *fields[f] = (char *)*fields[f] + (ptrdiff_t)slots * (ptrdiff_t)sizes[f];
    a->head += slots;
    a->capacity -= slots;
}

void eddy_particles_rewind(particle_array *a) { shift_pointers(a, -a->head); }

void eddy_particles_drop_prefix(particle_array *a, int n) {
    EDDY_ASSERT(n >= 0 && n <= a->count);
    shift_pointers(a, n);
    a->count -= n;
}

/* Moves the particles back to the start of their allocations (head 0). */
static void slide_back(particle_array *a) {
    void **fields[FIELD_POINTERS];
    size_t sizes[FIELD_POINTERS];
    const int n = allocated_fields(a, fields, sizes);
    for (int f = 0; f < n; ++f) {
        char *at = *fields[f];
        memmove(at - (size_t)a->head * sizes[f], at, (size_t)a->count * sizes[f]);
    }
    eddy_particles_rewind(a);
}

bool eddy_particles_reserve(particle_array *a, int capacity) {
    if (capacity <= a->capacity) return true;
    if (a->head > 0) slide_back(a);
    if (capacity <= a->capacity) return true;
    int cap = a->capacity < 64 ? 64 : a->capacity;
    while (cap < capacity) cap = cap > (1 << 29) ? capacity : cap * 2;
    float **fields[] = {&a->px, &a->py, &a->pz, &a->vx, &a->vy, &a->vz, &a->drho, &a->wx,
                        &a->wy, &a->wz, &a->hx, &a->hy, &a->hz, &a->sx, &a->sy, &a->sz};
    const int nfields = !a->has_vorticity ? 7 : a->keeps_rate ? 16 : 13;
    for (int f = 0; f < nfields; ++f)
        if (!grow_array((void **)fields[f], cap, sizeof(float))) return false;
    if (!grow_array((void **)&a->birth, cap, sizeof(int32_t))) return false;
    if (a->track_ids && !grow_array((void **)&a->id, cap, sizeof(uint64_t))) return false;
    a->capacity = cap;
    return true;
}

bool eddy_particles_reserve_rewound(particle_array *a, int capacity) {
    return capacity <= a->capacity + a->head || eddy_particles_reserve(a, capacity);
}

void eddy_particles_free(particle_array *a) {
    eddy_particles_rewind(a);
    eddy_free(a->px); eddy_free(a->py); eddy_free(a->pz);
    eddy_free(a->vx); eddy_free(a->vy); eddy_free(a->vz);
    eddy_free(a->wx); eddy_free(a->wy); eddy_free(a->wz);
    eddy_free(a->drho); eddy_free(a->birth);
    eddy_free(a->hx); eddy_free(a->hy); eddy_free(a->hz);
    eddy_free(a->sx); eddy_free(a->sy); eddy_free(a->sz);
    eddy_free(a->id);
    bool hv = a->has_vorticity, ids = a->track_ids, rate = a->keeps_rate;
    memset(a, 0, sizeof *a);
    a->has_vorticity = hv;
    a->keeps_rate = rate;
    a->track_ids = ids;
}

bool eddy_particles_renumber_ids(particle_array *a) {
    if (!a->track_ids) return true;
    /* eddy_particles_reserve grows the ids with the other fields: allocate
     * only when ids were never stored (no allocation on an in-place restore). */
    if (a->capacity > 0 && !a->id) {
        uint64_t *ids = eddy_alloc((size_t)(a->capacity + a->head) * sizeof *ids);
        if (!ids) return false;
        a->id = ids + a->head; /* the same head as the other fields */
    }
    for (int i = 0; i < a->count; ++i) a->id[i] = (uint64_t)i;
    a->next_id = (uint64_t)a->count;
    return true;
}

void eddy_particles_push(particle_array *a, vec3 p, vec3 v, vec3 w, float drho, int32_t birth) {
    int i = a->count++;
    if (i == 0)
        a->births_order = BIRTHS_IN_ORDER;
    else if (a->births_order == BIRTHS_IN_ORDER && birth < a->birth[i - 1])
        a->births_order = BIRTHS_OUT_OF_ORDER;
    a->px[i] = p.x; a->py[i] = p.y; a->pz[i] = p.z;
    a->vx[i] = v.x; a->vy[i] = v.y; a->vz[i] = v.z;
    if (a->has_vorticity) {
        a->wx[i] = w.x; a->wy[i] = w.y; a->wz[i] = w.z;
        a->hx[i] = 0.0f; a->hy[i] = 0.0f; a->hz[i] = 0.0f;
    }
    if (a->keeps_rate) {
        a->sx[i] = 0.0f; a->sy[i] = 0.0f; a->sz[i] = 0.0f;
    }
    a->drho[i] = drho;
    a->birth[i] = birth;
    if (a->id) a->id[i] = a->next_id++;
}

int eddy_particles_extend(particle_array *a, int n, int32_t birth, uint64_t *first_id) {
    const int first = a->count;
    if (n <= 0) return first;
    if (first == 0)
        a->births_order = BIRTHS_IN_ORDER;
    else if (a->births_order == BIRTHS_IN_ORDER && birth < a->birth[first - 1])
        a->births_order = BIRTHS_OUT_OF_ORDER;
    *first_id = a->next_id;
    if (a->id) a->next_id += (uint64_t)n;
    a->count += n;
    return first;
}

static void copy_particle(particle_array *a, int dst, int src) {
    a->px[dst] = a->px[src]; a->py[dst] = a->py[src]; a->pz[dst] = a->pz[src];
    a->vx[dst] = a->vx[src]; a->vy[dst] = a->vy[src]; a->vz[dst] = a->vz[src];
    if (a->has_vorticity) {
        a->wx[dst] = a->wx[src]; a->wy[dst] = a->wy[src]; a->wz[dst] = a->wz[src];
        a->hx[dst] = a->hx[src]; a->hy[dst] = a->hy[src]; a->hz[dst] = a->hz[src];
    }
    if (a->keeps_rate) {
        a->sx[dst] = a->sx[src]; a->sy[dst] = a->sy[src]; a->sz[dst] = a->sz[src];
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

/* ------------------------------------------------------------ kill by age
 *
 * Stable removal of particles older than max_age (frame - birth > max_age):
 * survivors keep their relative order (D8), so the state after a kill does
 * not depend on how the array was traversed.
 *
 * Particles are born in order, so the dead usually form a prefix, and the
 * survivors a few long runs. A dead prefix costs nothing: the field pointers
 * move past it (the array's head, lib/core/core.h), and the particles slide back
 * to the start of their allocations only once the room after the last one
 * runs low, so a steady emitter pays one move of the array every few hundred
 * frames instead of one every frame. While every birth is known to be in
 * order (births_order: emission appends the current frame; after a restore
 * one parallel pass finds out), the dead are exactly a prefix, found by
 * bisection, and nothing is scanned.
 *
 * Otherwise (particles added or restored out of order), after the prefix one
 * scan of `birth` lists the runs that must move (source, destination,
 * length); then each field array applies the same list with memmove, one
 * field per chunk. A field is written only by its own chunk and the moves
 * are plain copies, so the bytes are those of a particle-by-particle
 * compaction for any worker count. */
enum { KILL_PARALLEL_MIN = 16384 }; /* fewer particles: fields moved inline */

typedef struct survivor_run {
    int src, dst, len;
} survivor_run;

typedef struct field_move_job {
    void *fields[FIELD_POINTERS];
    size_t sizes[FIELD_POINTERS]; /* bytes per particle: 4, or 8 for stable ids */
    const survivor_run *runs;
    int run_count;
} field_move_job;

static bool is_dead(int64_t frame, int32_t birth, int max_age) { return frame - birth > max_age; }

/* The first dead particle, or n. Scanned in blocks of 16 whose test has no
 * early exit (the compiler vectorises it): in most frames nobody dies. */
static int first_dead(const int32_t *birth, int n, int64_t frame, int max_age) {
    const int64_t limit = frame - max_age; /* dead: birth < limit */
    if (limit <= INT32_MIN) return n;
    if (limit > INT32_MAX) return 0;
    const int32_t threshold = (int32_t)limit;
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        int any = 0;
        for (int j = 0; j < 16; ++j) any |= birth[i + j] < threshold;
        if (any) break;
    }
    while (i < n && !is_dead(frame, birth[i], max_age)) ++i;
    return i;
}

/* The first index in [i, n) whose death differs from `dead`: blocks of 16
 * whose test has no early exit (the compiler vectorises it), then one by
 * one. Dead: birth < threshold (is_dead, with frame - max_age in range). */
static int scan_while(const int32_t *birth, int i, int n, int32_t threshold, bool dead) {
    const int flip = dead ? 0 : 1; /* looking for (birth < threshold) == flip */
    for (; i + 16 <= n; i += 16) {
        int any = 0;
        for (int j = 0; j < 16; ++j) any |= (birth[i + j] < threshold) == flip;
        if (any) break;
    }
    while (i < n && (birth[i] < threshold) != flip) ++i;
    return i;
}

/* Survivor runs that move (src != dst), scanning from `first`, the first dead
 * particle (so frame - max_age is within int32: first_dead returned early
 * otherwise, or everyone is dead); writes them to runs when it is not NULL;
 * returns their number and the survivor count in *survivors. */
static int survivor_runs(const int32_t *birth, int first, int n, int64_t frame, int max_age,
                         survivor_run *runs, int *survivors) {
    const int64_t limit = frame - max_age;
    if (limit > INT32_MAX) { /* everyone is dead */
        *survivors = first;
        return 0;
    }
    const int32_t threshold = (int32_t)limit;
    int count = 0, dst = first, src = first;
    while (src < n) {
        src = scan_while(birth, src, n, threshold, true);
        const int run_end = scan_while(birth, src, n, threshold, false);
        if (run_end > src) {
            if (runs) runs[count] = (survivor_run){src, dst, run_end - src};
            ++count;
            dst += run_end - src;
        }
        src = run_end;
    }
    *survivors = dst;
    return count;
}

static void field_move_chunk(int chunk, int begin, int end, void *context) {
    const field_move_job *job = context;
    for (int f = begin; f < end; ++f) {
        char *base = job->fields[f];
        const size_t size = job->sizes[f];
        for (int r = 0; r < job->run_count; ++r) {
            const survivor_run *run = &job->runs[r];
            memmove(base + (size_t)run->dst * size, base + (size_t)run->src * size,
                    (size_t)run->len * size);
        }
    }
}

/* Every per-particle array that moves with the particle, stable ids included
 * (not state, but a tracked particle keeps its id: include/eddy/view.h). */
static int particle_fields(particle_array *a, void *fields[FIELD_POINTERS], size_t sizes[FIELD_POINTERS]) {
    void **at[FIELD_POINTERS];
    const int n = allocated_fields(a, at, sizes);
    for (int f = 0; f < n; ++f) fields[f] = *at[f];
    return n;
}

/* Particle by particle: the fallback when no scratch memory is available. */
static void kill_compact_serial(particle_array *a, int first, int64_t frame, int max_age) {
    int dst = first;
    for (int src = first; src < a->count; ++src) {
        if (is_dead(frame, a->birth[src], max_age)) continue;
        copy_particle(a, dst++, src);
    }
    a->count = dst;
}

typedef struct order_job {
    const int32_t *birth;
    uint8_t *descends; /* per chunk: 1 if a birth is below the one before it */
} order_job;

enum { ORDER_CHUNK = 16384 };

/* Blocks of 16 adjacent pairs whose test has no early exit (the compiler
 * vectorises it), then the tail; pair (i - 1, i) for every i in the chunk
 * but 0. */
static void order_chunk(int chunk, int begin, int end, void *context) {
    const order_job *job = context;
    const int32_t *birth = job->birth;
    int descents = 0, i = begin > 1 ? begin : 1;
    for (; i + 16 <= end; i += 16)
        for (int j = 0; j < 16; ++j) descents |= birth[i + j] < birth[i + j - 1];
    for (; i < end; ++i) descents |= birth[i] < birth[i - 1];
    job->descends[chunk] = (uint8_t)descents;
}

/* Finds out whether the births are in order (after a restore), in chunks. */
static void births_order_find(eddy_world *w, particle_array *a) {
    const int chunks = (a->count + ORDER_CHUNK - 1) / ORDER_CHUNK;
    order_job job = {a->birth, eddy_partials_reserve(w, (size_t)chunks)};
    if (!job.descends) return; /* stays unknown: the scan below still kills right */
    eddy_parallel_for(&w->tasks, a->count, ORDER_CHUNK, order_chunk, &job);
    int descends = 0;
    for (int c = 0; c < chunks; ++c) descends |= job.descends[c];
    a->births_order = descends ? BIRTHS_OUT_OF_ORDER : BIRTHS_IN_ORDER;
}

/* With births in order the dead are exactly those before the first birth
 * >= frame - max_age: found by bisection. */
static int dead_in_sorted(const int32_t *birth, int n, int64_t frame, int max_age) {
    const int64_t limit = frame - max_age;
    if (limit <= INT32_MIN) return 0;
    if (limit > INT32_MAX) return n;
    int lo = 0, hi = n; /* birth[< lo] < limit <= birth[>= hi] */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (birth[mid] < (int32_t)limit) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The number of dead particles before the first survivor. */
static int dead_prefix(const int32_t *birth, int n, int64_t frame, int max_age) {
    const int64_t limit = frame - max_age;
    if (limit <= INT32_MIN) return 0;
    if (limit > INT32_MAX) return n;
    return scan_while(birth, 0, n, (int32_t)limit, true);
}

/* Moves the particles back to the start of their allocations, one field per
 * chunk, once the slots left after the last particle run low and the head
 * holds enough to be worth a move: emission then finds room without sliding
 * them itself, on one thread. (An array with little room to spare would
 * otherwise slide every frame; its emission slides it when it must.) */
static void slide_back_when_short(eddy_world *w, particle_array *a) {
    const int eighth = a->count / 8 + 64;
    if (a->head < eighth || a->capacity - a->count >= eighth) return;
    if (a->count < KILL_PARALLEL_MIN) {
        slide_back(a);
        return;
    }
    const survivor_run run = {a->head, 0, a->count};
    field_move_job job = {.runs = &run, .run_count = 1};
    const int fields = particle_fields(a, job.fields, job.sizes);
    for (int f = 0; f < fields; ++f) job.fields[f] = (char *)job.fields[f] - (size_t)a->head * job.sizes[f];
    eddy_parallel_for(&w->tasks, fields, 1, field_move_chunk, &job);
    eddy_particles_rewind(a);
}

void eddy_phase_kill_by_age(eddy_world *w, particle_array *a, int max_age) {
    if (max_age < 0 || a->count == 0) return;
    const int64_t frame = w->frame;
    /* Particles are born in order, so the dead usually lead: they are dropped
     * by moving the field pointers past them, and the particles stay put.
     * When every birth is known to be in order, nobody else is dead. */
    if (a->births_order == BIRTHS_ORDER_UNKNOWN) births_order_find(w, a);
    if (a->births_order == BIRTHS_IN_ORDER) {
        eddy_particles_drop_prefix(a, dead_in_sorted(a->birth, a->count, frame, max_age));
        slide_back_when_short(w, a);
        return;
    }
    eddy_particles_drop_prefix(a, dead_prefix(a->birth, a->count, frame, max_age));
    const int n = a->count;
    const int first = first_dead(a->birth, n, frame, max_age);
    if (first < n) {
        int survivors;
        const int run_count = survivor_runs(a->birth, first, n, frame, max_age, NULL, &survivors);
        survivor_run *runs = run_count > 0
            ? eddy_partials_reserve(w, (size_t)run_count * sizeof(survivor_run)) : NULL;
        if (run_count > 0 && !runs) {
            kill_compact_serial(a, first, frame, max_age);
            return;
        }
        if (run_count > 0) {
            survivor_runs(a->birth, first, n, frame, max_age, runs, &survivors);
            field_move_job job = {.runs = runs, .run_count = run_count};
            const int fields = particle_fields(a, job.fields, job.sizes);
            if (n >= KILL_PARALLEL_MIN)
                eddy_parallel_for(&w->tasks, fields, 1, field_move_chunk, &job);
            else
                field_move_chunk(0, 0, fields, &job);
        }
        a->count = survivors;
    }
    slide_back_when_short(w, a);
}
