/* SPDX-License-Identifier: MIT */
/* eddy — canonical state hash, spec version EDDY_HASH_SPEC_VERSION.
 *
 * Design notes. The normative description is docs/hash-spec.md; this file is
 * one implementation of it, and tests/test_hash.c is a second, independent one.
 *
 * - Every number is fed to XXH3-64 (seed 0) as little-endian bytes, field by
 *   field; struct memory is never hashed (padding is not canonical).
 * - Particle components are cut into fixed blocks of EDDY_HASH_BLOCK_PARTICLES
 *   particles. A block hash depends only on that block's particles, so blocks
 *   are hashed in parallel (one chunk per block, each chunk writes only its own
 *   slot) and then folded into the component hash serially in block order.
 *   The block size is a constant of the spec, never derived from the worker
 *   count, so the result is the same for any worker count (rule 1).
 * - Block hashes go through a streaming XXH3 state: the block's field arrays
 *   are not contiguous, and XXH3 guarantees that streaming the pieces equals
 *   hashing their concatenation. On a little-endian host the SoA arrays are
 *   already in canonical byte order and are fed straight from memory, through
 *   the widest XXH3 build the CPU has (lib/hash/xxh3.h: AVX2 on x86-64 when
 *   present; XXH3's value does not depend on it); on a big-endian host they
 *   are byte-swapped through a small stack buffer.
 * - Short records (component headers, globals, the frame record) are written
 *   byte by byte in little-endian order through a small buffered writer, which
 *   is endian-independent by construction.
 * - If the per-world scratch for block hashes cannot be had (out of memory),
 *   each block hash is fed to the component state as soon as it is computed:
 *   same bytes in the same order, so the same value, without scratch.
 * - Early tracer hashes. The tracers are most of the state (8.4 MB of
 *   noise_cloud's 8.7), and by the end of the step they have long left the
 *   cache: hashing them there is a pass over memory. So the advection, which
 *   writes every tracer, hashes each block of 1024 right after it wrote it
 *   (still in L1), with the finiteness flags, into early_hash/early_flags;
 *   the end-of-step hash takes a block's early hash when the block is still
 *   EARLY_FRESH and hashes it again otherwise. Correctness rests on every
 *   later writer of tracer state in the step marking what it writes stale:
 *   the tracer collision (each moved tracer), emission (the blocks from the
 *   old count on), a container's carry (every block). Restore, adding
 *   particles and the kill all come before the advection of a step, and the
 *   early hashes are disarmed when the step ends, so nothing outside a step
 *   can see them. Same bytes hashed, so the same hash:
 *   EDDY_MUTATION_UNFUSED_TRACER_HASH turns this off and tests/test_scenes.c
 *   compares every scene frame by frame. Only in steps that hash
 *   (hash_every_step) with one substep. Where most blocks go stale anyway
 *   (a container carries its tracers every step; many tracers touch a
 *   plate), hashing them early is work done twice: when fewer than 3/4 of
 *   the blocks were still fresh, the next EARLY_PAUSE steps hash everything
 *   at the end, then one step tries again. That choice changes no bit. */
#include "hash/hash.h"
#include "hash/xxh3.h"

#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* runtime/runtime.h: 1 on known little-endian hosts (gcc/clang's
 * __BYTE_ORDER__, MSVC's little-endian targets), else the portable path. */
#define HASH_HOST_LITTLE_ENDIAN EDDY_HOST_LITTLE_ENDIAN

/* "EDDYHSH1": magic at the start of every frame record. */
static const unsigned char frame_magic[8] = {'E', 'D', 'D', 'Y', 'H', 'S', 'H', '1'};

/* ---------------------------------------------------------------- writer */
/* Buffered little-endian writer into a streaming XXH3 state. */
typedef struct le_writer {
    XXH3_state_t *state;
    size_t used;
    unsigned char buf[256];
} le_writer;

static void writer_begin(le_writer *wr, XXH3_state_t *state) {
    XXH3_INITSTATE(state);
    XXH3_64bits_reset(state);
    wr->state = state;
    wr->used = 0;
}

static void writer_flush(le_writer *wr) {
    if (wr->used > 0) XXH3_64bits_update(wr->state, wr->buf, wr->used);
    wr->used = 0;
}

static uint64_t writer_digest(le_writer *wr) {
    writer_flush(wr);
    return XXH3_64bits_digest(wr->state);
}

static void put_bytes(le_writer *wr, const unsigned char *bytes, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (wr->used == sizeof wr->buf) writer_flush(wr);
        wr->buf[wr->used++] = bytes[i];
    }
}

static void put_u32(le_writer *wr, uint32_t v) {
    unsigned char b[4];
    for (int i = 0; i < 4; ++i) b[i] = (unsigned char)(v >> (8 * i));
    put_bytes(wr, b, sizeof b);
}

static void put_u64(le_writer *wr, uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = (unsigned char)(v >> (8 * i));
    put_bytes(wr, b, sizeof b);
}

static void put_i32(le_writer *wr, int32_t v) { put_u32(wr, (uint32_t)v); }
static void put_i64(le_writer *wr, int64_t v) { put_u64(wr, (uint64_t)v); }
static void put_bool(le_writer *wr, bool v) { put_u32(wr, v ? 1u : 0u); }

static void put_f32(le_writer *wr, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u32(wr, bits);
}

static void put_f64(le_writer *wr, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(wr, bits);
}

static void put_vec3(le_writer *wr, eddy_vec3 v) {
    put_f32(wr, v.x);
    put_f32(wr, v.y);
    put_f32(wr, v.z);
}

#if !HASH_HOST_LITTLE_ENDIAN
/* n 32-bit words (float bit patterns or int32) as little-endian bytes, written
 * with shifts through a small stack buffer: correct on any byte order (the
 * portable path of hosts not known to be little-endian). */
static void update_words32(XXH3_state_t *state, const void *words, size_t n) {
    const unsigned char *src = words;
    unsigned char bytes[256];
    while (n > 0) {
        size_t m = n < 64 ? n : 64;
        for (size_t i = 0; i < m; ++i) {
            uint32_t v;
            memcpy(&v, src + 4 * i, 4);
            for (int b = 0; b < 4; ++b) bytes[4 * i + (size_t)b] = (unsigned char)(v >> (8 * b));
        }
        XXH3_64bits_update(state, bytes, m * 4);
        src += 4 * m;
        n -= m;
    }
}
#endif

/* ---------------------------------------------------------------- particles */
static const particle_array *component_particles(const eddy_world *w, eddy_component c) {
    return c == EDDY_COMPONENT_VORTONS ? &w->vortons : &w->tracers;
}

/* Hash of block `block` of a particle component: its field arrays one after
 * another (vortons: p, v, w, drho, birth; tracers: p, v, drho, birth). */
static uint64_t particle_block_hash(const particle_array *a, bool vorton, int block,
                                    uint8_t *nonfinite) {
    int begin = block * EDDY_HASH_BLOCK_PARTICLES;
    int end = begin + EDDY_HASH_BLOCK_PARTICLES < a->count ? begin + EDDY_HASH_BLOCK_PARTICLES
                                                           : a->count;
    size_t n = (size_t)(end - begin);
    const float *fields[10] = {a->px, a->py, a->pz, a->vx, a->vy, a->vz};
    int field_count = 6;
    if (vorton) {
        fields[field_count++] = a->wx;
        fields[field_count++] = a->wy;
        fields[field_count++] = a->wz;
    }
    fields[field_count++] = a->drho;

#if HASH_HOST_LITTLE_ENDIAN
    /* The fields' bytes are already canonical: hash them where they lie,
     * with the widest XXH3 the CPU has (same value on every path). */
    eddy_xxh3_piece pieces[11];
    for (int f = 0; f < field_count; ++f) pieces[f] = (eddy_xxh3_piece){fields[f] + begin, 4 * n};
    pieces[field_count] = (eddy_xxh3_piece){a->birth + begin, 4 * n};
    if (!nonfinite) return eddy_xxh3_pieces(pieces, field_count + 1);
    /* the end-of-step finiteness check of the float fields, each read while
     * the hash has just brought it into cache */
    uint32_t bad = 0;
    const uint64_t hash = eddy_xxh3_pieces_checked(pieces, field_count + 1, field_count, &bad);
    *nonfinite = bad != 0;
    return hash;
#else
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    uint32_t bad = 0;
    for (int f = 0; f < field_count; ++f) {
        update_words32(&state, fields[f] + begin, n);
        /* the end-of-step finiteness check, on data the hash just brought into cache */
        if (nonfinite) bad |= eddy_nonfinite_bits(fields[f] + begin, (int)n);
    }
    if (nonfinite) *nonfinite = bad != 0;
    update_words32(&state, a->birth + begin, n);
    return XXH3_64bits_digest(&state);
#endif
}

/* Room for `total` block hashes and their flags (the per-world cache). */
static bool block_cache_reserve(eddy_world *w, int total) {
    if ((size_t)total <= w->block_cache_capacity) return true;
    const int cap = eddy_grown_capacity((int)w->block_cache_capacity, total);
    uint64_t *p = eddy_realloc(w->block_cache, (size_t)cap * sizeof *p);
    if (p == NULL) return false;
    w->block_cache = p;
    uint8_t *f = eddy_realloc(w->block_nonfinite, (size_t)cap);
    if (f == NULL) return false;
    w->block_nonfinite = f;
    w->block_cache_capacity = (size_t)cap;
    return true;
}

static bool early_reserve(eddy_world *w, int blocks);

bool eddy_hash_reserve(eddy_world *w, int vortons, int tracers) {
    const int v = chunk_count(vortons, EDDY_HASH_BLOCK_PARTICLES);
    const int t = chunk_count(tracers, EDDY_HASH_BLOCK_PARTICLES);
    return block_cache_reserve(w, v + t) && early_reserve(w, t);
}

/* ---------------------------------------------------------------- early */
enum { EARLY_PAUSE = 31 };

static bool early_reserve(eddy_world *w, int blocks) {
    if (blocks <= w->early_capacity) return true;
    const int grown = eddy_grown_capacity(w->early_capacity, blocks);
    uint64_t *h = eddy_realloc(w->early_hash, (size_t)grown * sizeof *h);
    if (h == NULL) return false;
    w->early_hash = h;
    uint8_t *f = eddy_realloc(w->early_flags, (size_t)grown);
    if (f == NULL) return false;
    w->early_flags = f;
    w->early_capacity = grown;
    return true;
}

void eddy_early_hash_prepare(eddy_world *w) {
    w->early_armed = false;
    w->early_blocks = 0;
    if (!w->def.hash_every_step || w->step_substeps != 1 ||
        !(w->grid_valid || w->island_count > 1) ||
        (w->tasks.mutations & EDDY_MUTATION_UNFUSED_TRACER_HASH) != 0)
        return;
    if (w->early_pause > 0 && (w->tasks.mutations & EDDY_MUTATION_EARLY_TRACER_HASH_ALWAYS) == 0) {
        --w->early_pause;
        return;
    }
    const int blocks = chunk_count(w->tracers.count, EDDY_HASH_BLOCK_PARTICLES);
    if (blocks == 0) return;
    if (!early_reserve(w, blocks)) return; /* the end-of-step hash does it all */
    memset(w->early_flags, 0, (size_t)blocks);
    w->early_blocks = blocks;
    w->early_armed = true;
}

void eddy_early_hash_block(eddy_world *w, int block) {
    if (!w->early_armed || block >= w->early_blocks) return;
    uint8_t nonfinite = 0;
    w->early_hash[block] = particle_block_hash(&w->tracers, false, block, &nonfinite);
    w->early_flags[block] = (uint8_t)(EARLY_FRESH | (nonfinite ? EARLY_NONFINITE : 0));
}

void eddy_early_hash_stale_from(eddy_world *w, int first) {
    if (!w->early_armed) return;
    for (int b = first / EDDY_HASH_BLOCK_PARTICLES; b < w->early_blocks; ++b) w->early_flags[b] = 0;
}

/* Up to two particle components hashed in one eddy_parallel_for: chunk c is block
 * c of the first segment, then block c - blocks[0] of the second. */
typedef struct block_job {
    const particle_array *arrays[2];
    bool vorton[2];
    int blocks[2];
    uint64_t *out; /* blocks[0] + blocks[1] slots */
    uint8_t *nonfinite; /* NULL, or per block: 1 if it holds a NaN or infinity */
    const eddy_world *early; /* the early tracer hashes, or NULL */
} block_job;

static void block_job_chunk(int chunk, int begin, int end, void *context) {
    const block_job *job = context;
    for (int c = begin; c < end; ++c) {
        int s = c < job->blocks[0] ? 0 : 1;
        int block = s == 0 ? c : c - job->blocks[0];
        const eddy_world *e = job->early;
        if (s == 1 && e && block < e->early_blocks && (e->early_flags[block] & EARLY_FRESH)) {
            job->out[c] = e->early_hash[block];
            if (job->nonfinite) job->nonfinite[c] = (e->early_flags[block] & EARLY_NONFINITE) != 0;
            continue;
        }
        job->out[c] = particle_block_hash(job->arrays[s], job->vorton[s], block,
                                          job->nonfinite ? &job->nonfinite[c] : NULL);
    }
    (void)chunk;
}

static void component_header(le_writer *wr, eddy_component c, uint64_t elements, uint64_t blocks) {
    put_u32(wr, (uint32_t)c);
    put_u32(wr, EDDY_HASH_SPEC_VERSION);
    put_u64(wr, elements);
    put_u64(wr, blocks);
}

/* Component hash from its block hashes (scratch path). */
static uint64_t component_hash_of_blocks(eddy_component c, uint64_t elements,
                                         const uint64_t *block_hashes, int blocks) {
    XXH3_state_t state;
    le_writer wr;
    writer_begin(&wr, &state);
    component_header(&wr, c, elements, (uint64_t)blocks);
    for (int b = 0; b < blocks; ++b) put_u64(&wr, block_hashes[b]);
    return writer_digest(&wr);
}

/* Component hash computing each block as it goes (no-scratch path). */
static uint64_t particle_component_serial(const eddy_world *w, eddy_component c) {
    const particle_array *a = component_particles(w, c);
    int blocks = chunk_count(a->count, EDDY_HASH_BLOCK_PARTICLES);
    XXH3_state_t state;
    le_writer wr;
    writer_begin(&wr, &state);
    component_header(&wr, c, (uint64_t)a->count, (uint64_t)blocks);
    for (int b = 0; b < blocks; ++b)
        put_u64(&wr, particle_block_hash(a, c == EDDY_COMPONENT_VORTONS, b, NULL));
    return writer_digest(&wr);
}

/* ---------------------------------------------------------------- globals */
static void put_emitter(le_writer *wr, const emitter *e) {
    put_bool(wr, e->alive);
    put_u32(wr, e->generation);
    if (!e->alive) return; /* a free slot's contents are not state */
    const eddy_emitter_def *d = &e->def;
    put_vec3(wr, d->position);
    put_vec3(wr, d->position_spread);
    put_vec3(wr, d->velocity);
    put_vec3(wr, d->vorticity);
    put_vec3(wr, d->vorticity_spread);
    put_f32(wr, d->density_deviation);
    put_f32(wr, d->vorton_rate);
    put_f32(wr, d->tracer_rate);
    put_bool(wr, d->enabled);
    put_f32(wr, e->vorton_remainder);
    put_f32(wr, e->tracer_remainder);
    put_i32(wr, e->pending_vortons);
    put_i32(wr, e->pending_tracers);
}

static void put_diagnostics(le_writer *wr, const eddy_diagnostics *d) {
    for (int i = 0; i < 3; ++i) put_f64(wr, d->total_vorticity[i]);
    for (int i = 0; i < 3; ++i) put_f64(wr, d->linear_impulse[i]);
    for (int i = 0; i < 3; ++i) put_f64(wr, d->angular_impulse[i]);
    put_f64(wr, d->enstrophy);
    put_f64(wr, d->mass_deviation);
}

/* Without a valid grid its fields are leftovers of an earlier frame (the
 * build phase keeps them when there are no vortons): not state, not hashed. */
static void put_grid_record(le_writer *wr, bool valid, const grid_shape *g, float mollify) {
    put_bool(wr, valid);
    if (!valid) return;
    for (int i = 0; i < 3; ++i) put_f32(wr, g->min[i]);
    for (int i = 0; i < 3; ++i) put_f32(wr, g->spacing[i]);
    for (int i = 0; i < 3; ++i) put_i32(wr, g->cells[i]);
    put_f32(wr, mollify);
}

static void put_grid(le_writer *wr, const eddy_world *w) {
    put_grid_record(wr, w->grid_valid, &w->grid, w->mollify);
}

/* Grid islands (lib/fluid/islands.c), only while there are two or more: a
 * world that never split hashes as before islands existed. */
static void put_islands(le_writer *wr, const eddy_world *w) {
    if (w->island_count < 2) return;
    put_u32(wr, (uint32_t)w->island_count);
    for (int k = 0; k < w->island_count; ++k)
        put_grid_record(wr, w->islands[k].grid_valid, &w->islands[k].grid, w->islands[k].mollify);
}

/* The single block of the globals component. */
static uint64_t globals_block_hash(const eddy_world *w) {
    XXH3_state_t state;
    le_writer wr;
    writer_begin(&wr, &state);
    put_i64(&wr, w->frame);
    put_u64(&wr, w->rng.state);
    put_u64(&wr, w->rng.inc);
    put_vec3(&wr, w->gravity);
    put_vec3(&wr, w->wind);
    put_u32(&wr, (uint32_t)w->emitter_count);
    for (int i = 0; i < w->emitter_count; ++i) put_emitter(&wr, &w->emitters[i]);
    put_diagnostics(&wr, &w->diagnostics);
    put_grid(&wr, w);
    put_islands(&wr, w);
    /* Active blasts (lib/fluid/blast.c), only while there are any: a world
     * that never had one hashes as before blasts existed (hash spec 1). */
    if (w->blast_count > 0) {
        put_u32(&wr, (uint32_t)w->blast_count);
        for (int b = 0; b < w->blast_count; ++b) {
            const active_blast *a = &w->blasts[b];
            put_vec3(&wr, a->def.position);
            put_f32(&wr, a->def.strength);
            put_f32(&wr, a->def.duration);
            put_f32(&wr, a->def.refill_duration);
            put_f32(&wr, a->def.radius);
            put_f32(&wr, a->elapsed);
        }
    }
    return writer_digest(&wr);
}

/* ---------------------------------------------------------------- frame */
static uint64_t frame_hash_of(int64_t frame, const uint64_t component[EDDY_COMPONENT_COUNT]) {
    XXH3_state_t state;
    le_writer wr;
    writer_begin(&wr, &state);
    put_bytes(&wr, frame_magic, sizeof frame_magic);
    put_u32(&wr, EDDY_HASH_SPEC_VERSION);
    put_u32(&wr, EDDY_COMPONENT_COUNT);
    put_i64(&wr, frame);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) put_u64(&wr, component[c]);
    return writer_digest(&wr);
}

/* Vortons and tracers: all blocks of both in one eddy_parallel_for into scratch,
 * then two serial folds. Returns false (nothing written) without scratch. */
static bool particle_components_parallel(eddy_world *w, uint64_t component[EDDY_COMPONENT_COUNT]) {
    block_job job = {
        .arrays = {&w->vortons, &w->tracers},
        .vorton = {true, false},
        .blocks = {chunk_count(w->vortons.count, EDDY_HASH_BLOCK_PARTICLES),
                   chunk_count(w->tracers.count, EDDY_HASH_BLOCK_PARTICLES)},
    };
    int total = job.blocks[0] + job.blocks[1];
    w->block_cache_valid = false;
    w->block_nonfinite_valid = false;
    if (total > 0) {
        /* Block hashes land in a per-world cache, so eddy_world_block_hashes
         * of the same state is a copy. */
        if (!block_cache_reserve(w, total)) return false;
        job.out = w->block_cache;
        job.nonfinite = w->block_nonfinite;
        job.early = w->early_armed ? w : NULL;
        eddy_parallel_for(&w->tasks, total, 1, block_job_chunk, &job);
    }
    w->block_cache_valid = true;
    w->block_nonfinite_valid = true;
    component[EDDY_COMPONENT_VORTONS] = component_hash_of_blocks(
        EDDY_COMPONENT_VORTONS, (uint64_t)w->vortons.count, job.out, job.blocks[0]);
    component[EDDY_COMPONENT_TRACERS] =
        component_hash_of_blocks(EDDY_COMPONENT_TRACERS, (uint64_t)w->tracers.count,
                                 total > 0 ? job.out + job.blocks[0] : NULL, job.blocks[1]);
    return true;
}

/* ---------------------------------------------------------------- bodies */
/* One body record (docs/hash-spec.md §5): live bodies in slot order. */
static void put_body(le_writer *wr, const body *b, int slot) {
    put_u32(wr, (uint32_t)slot);
    put_u32(wr, b->generation);
    put_u32(wr, (uint32_t)b->def.type);
    put_u32(wr, (uint32_t)b->def.shape.type);
    put_u32(wr, b->def.shape.hole ? 1u : 0u);
    put_u32(wr, (uint32_t)b->def.shape.plane_count);
    put_f32(wr, b->def.mass);
    put_f32(wr, b->volume);
    for (int k = 0; k < 3; ++k) put_f32(wr, b->position[k]);
    for (int k = 0; k < 4; ++k) put_f32(wr, b->orientation[k]);
    for (int k = 0; k < 3; ++k) put_f32(wr, b->linear_momentum[k]);
    for (int k = 0; k < 3; ++k) put_f32(wr, b->angular_momentum[k]);
    for (int k = 0; k < 3; ++k) put_f32(wr, b->linear_velocity[k]);
    for (int k = 0; k < 3; ++k) put_f32(wr, b->angular_velocity[k]);
    put_f32(wr, b->temperature);
}

/* Block hashes of the live bodies; returns the live count, writes at most
 * capacity block hashes (blocks of EDDY_HASH_BLOCK_BODIES). */
static int body_blocks(const eddy_world *w, uint64_t *out, int capacity, int *blocks) {
    XXH3_state_t state;
    le_writer wr;
    int live = 0, block = 0, in_block = 0;
    for (int s = 0; s < w->body_count; ++s) {
        const body *b = &w->bodies[s];
        if (!b->alive) continue;
        if (in_block == 0) writer_begin(&wr, &state);
        put_body(&wr, b, s);
        ++live;
        if (++in_block == EDDY_HASH_BLOCK_BODIES) {
            uint64_t h = writer_digest(&wr);
            if (block < capacity) out[block] = h;
            ++block;
            in_block = 0;
        }
    }
    if (in_block > 0) {
        uint64_t h = writer_digest(&wr);
        if (block < capacity) out[block] = h;
        ++block;
    }
    *blocks = block;
    return live;
}

static uint64_t bodies_component(const eddy_world *w) {
    int blocks = 0;
    int live = body_blocks(w, NULL, 0, &blocks);
    if (live == 0) return component_hash_of_blocks(EDDY_COMPONENT_BODIES, 0, NULL, 0);
    enum { STACK_BLOCKS = 16 };
    uint64_t stack[STACK_BLOCKS];
    uint64_t *hashes = blocks <= STACK_BLOCKS ? stack : eddy_alloc((size_t)blocks * sizeof *hashes);
    if (!hashes) return 0; /* out of memory: see hash-spec §5 */
    body_blocks(w, hashes, blocks, &blocks);
    uint64_t h = component_hash_of_blocks(EDDY_COMPONENT_BODIES, (uint64_t)live, hashes, blocks);
    if (hashes != stack) eddy_free(hashes);
    return h;
}

static void other_components(const eddy_world *w, uint64_t component[EDDY_COMPONENT_COUNT]) {
    component[EDDY_COMPONENT_BODIES] = bodies_component(w);
    uint64_t globals = globals_block_hash(w);
    component[EDDY_COMPONENT_GLOBALS] = component_hash_of_blocks(EDDY_COMPONENT_GLOBALS, 1, &globals, 1);
}

static void store_hash(eddy_world *w, const uint64_t component[EDDY_COMPONENT_COUNT]) {
    w->last_hash.frame = w->frame;
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) w->last_hash.component[c] = component[c];
    w->last_hash.frame_hash = frame_hash_of(w->frame, component);
    w->hash_valid = true;
}

/* The no-scratch path on its own; not in lib/hash/hash.h. Declared again in
 * tests/test_hash.c, which checks it agrees with eddy_world_hash_compute. */
void eddy_hash_compute_without_scratch(eddy_world *w);
void eddy_hash_compute_without_scratch(eddy_world *w) {
    uint64_t component[EDDY_COMPONENT_COUNT];
    w->block_cache_valid = false;
    component[EDDY_COMPONENT_VORTONS] = particle_component_serial(w, EDDY_COMPONENT_VORTONS);
    component[EDDY_COMPONENT_TRACERS] = particle_component_serial(w, EDDY_COMPONENT_TRACERS);
    other_components(w, component);
    store_hash(w, component);
}

void eddy_world_hash_compute(eddy_world *w) {
    uint64_t component[EDDY_COMPONENT_COUNT];
    const bool parallel = particle_components_parallel(w, component);
    if (w->early_armed) {
        int fresh = 0;
        for (int b = 0; b < w->early_blocks; ++b) fresh += w->early_flags[b] & EARLY_FRESH;
        if (4 * (int64_t)fresh < 3 * (int64_t)w->early_blocks) w->early_pause = EARLY_PAUSE;
    }
    w->early_armed = false; /* used once, by the hash of the step that made them */
    if (!parallel) {
        eddy_hash_compute_without_scratch(w);
        return;
    }
    other_components(w, component);
    store_hash(w, component);
}

/* ---------------------------------------------------------------- public */
const char *eddy_component_name(eddy_component component) {
    switch (component) {
    case EDDY_COMPONENT_VORTONS: return "vortons";
    case EDDY_COMPONENT_TRACERS: return "tracers";
    case EDDY_COMPONENT_BODIES: return "bodies";
    case EDDY_COMPONENT_GLOBALS: return "globals";
    case EDDY_COMPONENT_COUNT: break;
    }
    return "unknown";
}

eddy_frame_hash eddy_world_hash(eddy_world *world) {
    if (world == NULL) { /* documented in eddy/hash.h: frame -1, every hash 0 */
        eddy_frame_hash none = {0};
        none.frame = -1;
        return none;
    }
    if (!eddy_world_enter(world, "eddy_world_hash")) { /* overlaps a running call */
        eddy_frame_hash none = {0};
        none.frame = -1;
        return none;
    }
    if (!world->hash_valid) eddy_world_hash_compute(world);
    const eddy_frame_hash h = world->last_hash;
    eddy_world_leave(world);
    return h;
}

/* Only the requested blocks are computed, straight into out (no scratch). */
static int block_hashes_held(eddy_world *world, eddy_component component, uint64_t *out,
                             int capacity) {
    /* misuse is refused with -1 in every build (eddy/hash.h), never asserted */
    if (world == NULL) return -1;
    if ((int)component < 0 || (int)component >= EDDY_COMPONENT_COUNT) {
        eddy_world_set_error(world, "block hashes: component %d is outside 0..%d", (int)component,
                             EDDY_COMPONENT_COUNT - 1);
        return -1;
    }
    if (capacity < 0 || (out == NULL && capacity > 0)) {
        eddy_world_set_error(world, "block hashes: capacity %d with %s output", capacity,
                             out ? "an" : "a NULL");
        return -1;
    }

    switch (component) {
    case EDDY_COMPONENT_VORTONS:
    case EDDY_COMPONENT_TRACERS: {
        const particle_array *a = component_particles(world, component);
        int blocks = chunk_count(a->count, EDDY_HASH_BLOCK_PARTICLES);
        if (world->hash_valid && world->block_cache_valid) {
            const int skip = component == EDDY_COMPONENT_TRACERS
                                 ? chunk_count(world->vortons.count, EDDY_HASH_BLOCK_PARTICLES)
                                 : 0;
            const int n = blocks < capacity ? blocks : capacity;
            if (n > 0) memcpy(out, world->block_cache + skip, (size_t)n * sizeof *out);
            return blocks;
        }
        block_job job = {
            .arrays = {a, a},
            .vorton = {component == EDDY_COMPONENT_VORTONS, false},
            .blocks = {blocks < capacity ? blocks : capacity, 0},
            .out = out,
        };
        if (job.blocks[0] > 0) eddy_parallel_for(&world->tasks, job.blocks[0], 1, block_job_chunk, &job);
        return blocks;
    }
    case EDDY_COMPONENT_BODIES: {
        int blocks = 0;
        body_blocks(world, out, capacity, &blocks);
        return blocks;
    }
    case EDDY_COMPONENT_GLOBALS:
        if (capacity >= 1) out[0] = globals_block_hash(world);
        return 1;
    case EDDY_COMPONENT_COUNT:
        break;
    }
    return 0;
}

/* Held against overlapping calls (core/core.h, eddy_world_enter). */
int eddy_world_block_hashes(eddy_world *world, eddy_component component, uint64_t *out,
                            int capacity) {
    if (world == NULL) return -1;
    if (!eddy_world_enter(world, "eddy_world_block_hashes")) return -1;
    const int n = block_hashes_held(world, component, out, capacity);
    eddy_world_leave(world);
    return n;
}
