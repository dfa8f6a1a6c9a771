/* SPDX-License-Identifier: MIT */
/* The player: re-simulates a verified replay file and compares hashes.
 *
 * Design notes.
 * - The world is created lazily from the recorded definition with the
 *   player's own threading fields, then set to the initial snapshot. Any
 *   worker count gives the same hashes, which is the point of playing.
 * - A divergence is located to a frame (the first frame whose hash differs),
 *   a component (the first of vortons, tracers, bodies, globals whose
 *   component hash differs) and, when it can be known, a block. The block
 *   needs the recorded state's block hashes at that frame: recorders store
 *   them for every frame by default (eddy_recorder_def.block_hashes). When a
 *   file has none, the block is still known if a keyframe sits exactly at
 *   the divergent frame (its snapshot is restored into a probe world and
 *   hashed); otherwise it is reported as unknown (-1). Nothing else about
 *   the recorded state at that frame exists in the file, so nothing else is
 *   claimed.
 * - Seeking picks the cheapest start among the current state (when it is at
 *   or before the target and has not diverged), the last keyframe at or
 *   before the target and the initial snapshot, then steps with hash checks.
 *   A restored keyframe must hash to the recorded hash of its frame. */
#include "replay_io.h"
#include "replay_reader.h"

#include <stdio.h>

enum { PLAYER_COOKIE = 0x0EDD91A7 };

struct eddy_player {
    replay_file file;
    eddy_player_def def;
    eddy_world *world;           /* lazily created */
    eddy_world *probe;           /* lazily created: keyframes for block localisation */
    bool diverged;               /* the world left the recording */
    eddy_status world_status;    /* why the world could not be created */
    eddy_input_storage *inputs;
    eddy_bytes scratch;          /* decompressed keyframes */
    char error[512];
};

eddy_player_def eddy_player_def_default(void) {
    eddy_player_def d;
    memset(&d, 0, sizeof d);
    d.worker_count = 1;
    d.internal_value = PLAYER_COOKIE;
    return d;
}

static eddy_status error(eddy_player *p, eddy_status s, const char *fmt, ...)
    __attribute__((format(EDDY_REPLAY_PRINTF, 3, 4)));
static eddy_status error(eddy_player *p, eddy_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
    return s;
}

/* ---------------------------------------------------------------- open */
static eddy_status open_parsed(eddy_player *p, const eddy_player_def *def, eddy_player **out,
                               char *message, size_t size) {
    eddy_status s = eddy_replay_file_parse(&p->file, def->strict_fingerprint, message, size);
    p->inputs = eddy_input_storage_create();
    if (!p->inputs && (s == EDDY_OK || s == EDDY_ERROR_TRUNCATED))
        s = eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    const bool playable = (s == EDDY_OK || s == EDDY_ERROR_TRUNCATED) && p->file.world != NULL;
    if (!playable) {
        eddy_player_close(p);
        return s;
    }
    if (message && size && s == EDDY_ERROR_TRUNCATED) snprintf(p->error, sizeof p->error, "%s", message);
    *out = p;
    return s;
}

static eddy_player *player_alloc(const eddy_player_def *def) {
    eddy_player *p = eddy_calloc(1, sizeof *p);
    if (p) {
        p->def = *def;
        eddy_replay_file_init(&p->file);
    }
    return p;
}

static eddy_status open_prologue(const eddy_player_def **def, eddy_player **out, char *message,
                                 size_t size, const eddy_player_def *defaults) {
    eddy_replay_message(message, size, "%s", "");
    if (!out) return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!*def) *def = defaults;
    if ((*def)->internal_value != PLAYER_COOKIE)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_DEF,
                           "player def was not initialised with eddy_player_def_default()");
    return EDDY_OK;
}

eddy_status eddy_player_open_memory(const void *data, size_t data_size, const eddy_player_def *def,
                                    eddy_player **out, char *message, size_t size) {
    const eddy_player_def defaults = eddy_player_def_default();
    eddy_status s = open_prologue(&def, out, message, size, &defaults);
    if (s != EDDY_OK) return s;
    if (!data && data_size > 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "data is NULL");
    eddy_player *p = player_alloc(def);
    if (!p || !bytes_append(&p->file.bytes, data, data_size)) {
        eddy_player_close(p);
        return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return open_parsed(p, def, out, message, size);
}

eddy_status eddy_player_open_read(eddy_replay_read_fn *read, void *context,
                                  const eddy_player_def *def, eddy_player **out, char *message,
                                  size_t size) {
    const eddy_player_def defaults = eddy_player_def_default();
    eddy_status s = open_prologue(&def, out, message, size, &defaults);
    if (s != EDDY_OK) return s;
    if (!read) return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "read is NULL");
    eddy_player *p = player_alloc(def);
    if (!p) return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    s = eddy_read_all(read, context, &p->file.bytes, message, size);
    if (s != EDDY_OK) {
        eddy_player_close(p);
        return s;
    }
    return open_parsed(p, def, out, message, size);
}

eddy_status eddy_player_open_file(const char *path, const eddy_player_def *def, eddy_player **out,
                                  char *message, size_t size) {
    const eddy_player_def defaults = eddy_player_def_default();
    eddy_status s = open_prologue(&def, out, message, size, &defaults);
    if (s != EDDY_OK) return s;
    if (!path) return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT, "path is NULL");
    eddy_player *p = player_alloc(def);
    if (!p) return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY, "out of memory");
    s = eddy_replay_file_open(&p->file, path, message, size);
    if (s != EDDY_OK) {
        eddy_player_close(p);
        return s;
    }
    return open_parsed(p, def, out, message, size);
}

void eddy_player_close(eddy_player *p) {
    if (!p) return;
    eddy_world_destroy(p->world);
    eddy_world_destroy(p->probe);
    eddy_input_storage_destroy(p->inputs);
    eddy_bytes_free(&p->scratch);
    eddy_replay_file_free(&p->file);
    eddy_free(p);
}

eddy_replay_info eddy_player_info(const eddy_player *p) {
    eddy_replay_info none;
    memset(&none, 0, sizeof none);
    return p ? p->file.info : none;
}

const char *eddy_player_error_message(const eddy_player *p) { return p ? p->error : ""; }

/* ---------------------------------------------------------------- worlds */
static eddy_status create_world(eddy_player *p, int worker_count, bool own_threading,
                                eddy_world **out) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = worker_count;
    if (own_threading) {
        d.enqueue_task = p->def.enqueue_task;
        d.finish_task = p->def.finish_task;
        d.user_task_context = p->def.user_task_context;
        d.worker_start = p->def.worker_start;
        d.worker_start_context = p->def.worker_start_context;
    }
    char why[256];
    eddy_status s = eddy_world_def_decode(p->file.def, p->file.def_size, &d, why, sizeof why);
    if (s != EDDY_OK) return error(p, s, "recorded definition: %s", why);
    s = eddy_world_create(&d, out);
    if (s != EDDY_OK) return error(p, s, "cannot create the world: %s", eddy_last_error_message());
    return EDDY_OK;
}

static eddy_status restore(eddy_player *p, eddy_world *w, const void *data, size_t size,
                           const char *what) {
    char why[256];
    eddy_status s = eddy_world_restore(w, data, size, why, sizeof why);
    if (s != EDDY_OK) return error(p, s, "%s: %s", what, why);
    return EDDY_OK;
}

eddy_world *eddy_player_world(eddy_player *p) {
    if (!p) return NULL;
    if (p->world) return p->world;
    eddy_world *w = NULL;
    eddy_status s = create_world(p, p->def.worker_count, true, &w);
    if (s == EDDY_OK) s = restore(p, w, p->file.snapshot, p->file.snapshot_size, "initial snapshot");
    if (s != EDDY_OK) {
        eddy_world_destroy(w);
        p->world_status = s;
        return NULL;
    }
    p->world = w;
    p->diverged = false;
    return w;
}

int64_t eddy_player_frame(const eddy_player *p) {
    if (!p) return -1;
    return p->world ? eddy_world_frame(p->world) : p->file.header.first_frame;
}

/* ---------------------------------------------------------------- recording */
/* The recorded frame (first_frame < frame <= last_frame), read lazily. */
static eddy_status entry_at(const eddy_player *p, int64_t frame, const frame_entry **out) {
    return eddy_replay_frame_get(&p->file, frame, out);
}

eddy_status eddy_player_recorded_hash(const eddy_player *p, int64_t frame, eddy_frame_hash *out) {
    if (!p || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    if (frame == p->file.header.first_frame) {
        *out = p->file.initial_hash;
        return EDDY_OK;
    }
    const frame_entry *e;
    eddy_status s = entry_at(p, frame, &e);
    if (s != EDDY_OK) return s;
    *out = e->hash;
    return EDDY_OK;
}

static const uint8_t *blocks_at(const eddy_player *p, int64_t frame) {
    if (frame == p->file.header.first_frame) return p->file.initial_blocks;
    const frame_entry *e;
    return entry_at(p, frame, &e) == EDDY_OK ? e->blocks : NULL;
}

int eddy_player_recorded_block_hashes(const eddy_player *p, int64_t frame, eddy_component c,
                                      uint64_t *out, int capacity) {
    if (!p || (!out && capacity > 0)) return -1;
    return eddy_replay_blocks_get(blocks_at(p, frame), (int)c, out, capacity);
}

eddy_status eddy_player_recorded_input(eddy_player *p, int64_t frame, const eddy_input **out) {
    if (!p || !out) return EDDY_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    const frame_entry *e;
    eddy_status s = entry_at(p, frame, &e);
    if (s == EDDY_ERROR_NOT_FOUND) return error(p, s, "no recorded frame %lld", (long long)frame);
    if (s != EDDY_OK) return error(p, s, "%s", p->file.cache->message);
    char why[256];
    s = eddy_input_decode(e->input, e->input_size, p->inputs, out, why, sizeof why);
    if (s != EDDY_OK) return error(p, s, "frame %lld: %s", (long long)frame, why);
    return EDDY_OK;
}

int eddy_player_keyframes(const eddy_player *p, int64_t *frames, int capacity) {
    if (!p) return 0;
    for (int k = 0; k < p->file.keyframe_count && k < capacity; ++k)
        frames[k] = p->file.keyframes[k].frame;
    return p->file.keyframe_count;
}

/* ---------------------------------------------------------------- divergence */
/* First differing block between two block lists (a longer list differs at
 * the first block the shorter one lacks); -1 if they agree. */
static int first_block_difference(const uint64_t *a, int na, const uint64_t *b, int nb) {
    const int n = na < nb ? na : nb;
    for (int k = 0; k < n; ++k)
        if (a[k] != b[k]) return k;
    return na != nb ? n : -1;
}

static int keyframe_at(const eddy_player *p, int64_t frame) {
    for (int k = 0; k < p->file.keyframe_count; ++k)
        if (p->file.keyframes[k].frame == frame) return k;
    return -1;
}

/* Block hashes of the recorded state at frame into *out (malloc'd); -1 if
 * the file cannot tell. */
static int recorded_blocks(eddy_player *p, int64_t frame, int c, uint64_t **out) {
    *out = NULL;
    const uint8_t *blocks = blocks_at(p, frame);
    if (blocks) {
        int n = eddy_replay_blocks_get(blocks, c, NULL, 0);
        *out = eddy_alloc(((size_t)n + 1) * sizeof **out);
        return *out ? eddy_replay_blocks_get(blocks, c, *out, n) : -1;
    }
    const int k = keyframe_at(p, frame);
    if (k < 0) return -1;
    if (!p->probe && create_world(p, 1, false, &p->probe) != EDDY_OK) return -1;
    if (eddy_replay_keyframe_load(&p->file, k, &p->scratch, NULL, 0) != EDDY_OK ||
        eddy_world_restore(p->probe, p->scratch.data, p->scratch.size, NULL, 0) != EDDY_OK)
        return -1;
    int n = eddy_world_block_hashes(p->probe, (eddy_component)c, NULL, 0);
    *out = eddy_alloc(((size_t)n + 1) * sizeof **out);
    return *out ? eddy_world_block_hashes(p->probe, (eddy_component)c, *out, n) : -1;
}

static int locate_block(eddy_player *p, int64_t frame, int c) {
    uint64_t *recorded;
    const int nr = recorded_blocks(p, frame, c, &recorded);
    if (nr < 0) return -1;
    const int na = eddy_world_block_hashes(p->world, (eddy_component)c, NULL, 0);
    uint64_t *actual = eddy_alloc(((size_t)na + 1) * sizeof *actual);
    int block = -1;
    if (actual) {
        eddy_world_block_hashes(p->world, (eddy_component)c, actual, na);
        block = first_block_difference(recorded, nr, actual, na);
    }
    eddy_free(recorded);
    eddy_free(actual);
    return block;
}

static eddy_status diverge(eddy_player *p, const eddy_frame_hash *want, const eddy_frame_hash *got,
                           eddy_divergence *d) {
    eddy_divergence local;
    if (!d) d = &local;
    memset(d, 0, sizeof *d);
    d->frame = want->frame;
    d->component = EDDY_COMPONENT_GLOBALS;
    for (int c = EDDY_COMPONENT_COUNT - 1; c >= 0; --c)
        if (want->component[c] != got->component[c]) d->component = c;
    d->recorded_hash = want->frame_hash;
    d->actual_hash = got->frame_hash;
    d->recorded_component = want->component[d->component];
    d->actual_component = got->component[d->component];
    d->block = locate_block(p, want->frame, d->component);
    p->diverged = true;
    return error(p, EDDY_ERROR_DIVERGED,
                 "diverged at frame %lld in %s, block %d: recorded %016llx, re-simulated %016llx",
                 (long long)d->frame, eddy_component_name((eddy_component)d->component), d->block,
                 (unsigned long long)d->recorded_component, (unsigned long long)d->actual_component);
}

static eddy_status compare_now(eddy_player *p, eddy_divergence *d) {
    eddy_frame_hash want;
    const int64_t frame = eddy_world_frame(p->world);
    eddy_status s = eddy_player_recorded_hash(p, frame, &want);
    if (s == EDDY_ERROR_NOT_FOUND)
        return error(p, s, "no recorded hash for frame %lld", (long long)frame);
    if (s != EDDY_OK) return error(p, s, "%s", p->file.cache->message);
    const eddy_frame_hash got = eddy_world_hash(p->world);
    if (got.frame_hash == want.frame_hash && got.frame == want.frame) return EDDY_OK;
    return diverge(p, &want, &got, d);
}

/* ---------------------------------------------------------------- stepping */
static eddy_status refused(eddy_player *p, int64_t frame, eddy_status s, eddy_divergence *d) {
    if (d) {
        memset(d, 0, sizeof *d);
        d->frame = frame;
        d->component = -1;
        d->block = -1;
    }
    p->diverged = true;
    return error(p, EDDY_ERROR_DIVERGED,
                 "diverged at frame %lld: the world refused the recorded input (%s: %s)",
                 (long long)frame, eddy_status_name(s), eddy_world_error_message(p->world));
}

eddy_status eddy_player_step(eddy_player *p, eddy_divergence *d) {
    if (d) d->frame = -1;
    if (!p) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_player_world(p)) return p->world_status;
    const int64_t next = eddy_world_frame(p->world) + 1;
    const eddy_input *in;
    if (next > p->file.info.last_frame)
        return error(p, EDDY_ERROR_NOT_FOUND, "frame %lld is past the last recorded frame %lld",
                     (long long)next, (long long)p->file.info.last_frame);
    eddy_status s = eddy_player_recorded_input(p, next, &in);
    if (s != EDDY_OK) return s;
    s = eddy_world_step(p->world, in);
    if (s != EDDY_OK) return refused(p, next, s, d);
    return compare_now(p, d);
}

/* Restore keyframe k (or the initial snapshot for k < 0) and check it. */
static eddy_status restore_start(eddy_player *p, int k, eddy_divergence *d) {
    eddy_status s;
    if (k < 0) {
        s = restore(p, p->world, p->file.snapshot, p->file.snapshot_size, "initial snapshot");
    } else {
        char why[256];
        s = eddy_replay_keyframe_load(&p->file, k, &p->scratch, why, sizeof why);
        if (s != EDDY_OK) return error(p, s, "%s", why);
        s = restore(p, p->world, p->scratch.data, p->scratch.size, "keyframe");
    }
    if (s != EDDY_OK) return s;
    p->diverged = false;
    return compare_now(p, d);
}

eddy_status eddy_player_seek(eddy_player *p, int64_t frame, eddy_divergence *d) {
    if (d) d->frame = -1;
    if (!p) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_player_world(p)) return p->world_status;
    const replay_file *f = &p->file;
    if (frame < f->info.first_frame || frame > f->info.last_frame)
        return error(p, EDDY_ERROR_NOT_FOUND, "frame %lld is outside the recording (%lld..%lld)",
                     (long long)frame, (long long)f->info.first_frame,
                     (long long)f->info.last_frame);
    int k = -1;
    while (k + 1 < f->keyframe_count && f->keyframes[k + 1].frame <= frame) ++k;
    const int64_t start = k >= 0 ? f->keyframes[k].frame : f->info.first_frame;
    const int64_t now = eddy_world_frame(p->world);
    eddy_status s = EDDY_OK;
    if (p->diverged || now > frame || now < start) s = restore_start(p, k, d);
    while (s == EDDY_OK && eddy_world_frame(p->world) < frame) s = eddy_player_step(p, d);
    return s;
}

eddy_status eddy_player_verify(eddy_player *p, eddy_divergence *d, eddy_replay_progress_fn *progress,
                               void *context) {
    if (d) d->frame = -1;
    if (!p) return EDDY_ERROR_INVALID_ARGUMENT;
    if (!eddy_player_world(p)) return p->world_status;
    eddy_status s = p->diverged ? EDDY_OK : compare_now(p, d);
    const int64_t last = p->file.info.last_frame;
    while (s == EDDY_OK && eddy_world_frame(p->world) < last) {
        s = eddy_player_step(p, d);
        if (progress) progress(eddy_world_frame(p->world), last, context);
    }
    return s;
}

/* ---------------------------------------------------------------- compare */
static int compare_blocks(const eddy_player *a, const eddy_player *b, int64_t frame, int c) {
    const uint8_t *ba = blocks_at(a, frame), *bb = blocks_at(b, frame);
    if (!ba || !bb) return -1;
    const int na = eddy_replay_blocks_get(ba, c, NULL, 0), nb = eddy_replay_blocks_get(bb, c, NULL, 0);
    uint64_t *ha = eddy_alloc(((size_t)na + 1) * sizeof *ha), *hb = eddy_alloc(((size_t)nb + 1) * sizeof *hb);
    int block = -1;
    if (ha && hb) {
        eddy_replay_blocks_get(ba, c, ha, na);
        eddy_replay_blocks_get(bb, c, hb, nb);
        block = first_block_difference(ha, na, hb, nb);
    }
    eddy_free(ha);
    eddy_free(hb);
    return block;
}

eddy_status eddy_replay_compare(const eddy_player *a, const eddy_player *b, eddy_divergence *d) {
    if (!a || !b || !d) return EDDY_ERROR_INVALID_ARGUMENT;
    memset(d, 0, sizeof *d);
    d->frame = -1;
    const int64_t lo = a->file.info.first_frame > b->file.info.first_frame ? a->file.info.first_frame
                                                                           : b->file.info.first_frame;
    const int64_t hi = a->file.info.last_frame < b->file.info.last_frame ? a->file.info.last_frame
                                                                         : b->file.info.last_frame;
    for (int64_t f = lo; f <= hi; ++f) {
        eddy_frame_hash ha, hb;
        eddy_status sa = eddy_player_recorded_hash(a, f, &ha);
        eddy_status sb = sa == EDDY_OK ? eddy_player_recorded_hash(b, f, &hb) : sa;
        if (sb != EDDY_OK) return sb; /* a chunk that no longer reads back */
        if (ha.frame_hash == hb.frame_hash) continue;
        d->frame = f;
        d->component = EDDY_COMPONENT_GLOBALS;
        for (int c = EDDY_COMPONENT_COUNT - 1; c >= 0; --c)
            if (ha.component[c] != hb.component[c]) d->component = c;
        d->recorded_hash = ha.frame_hash;
        d->actual_hash = hb.frame_hash;
        d->recorded_component = ha.component[d->component];
        d->actual_component = hb.component[d->component];
        d->block = compare_blocks(a, b, f, d->component);
        return EDDY_ERROR_DIVERGED;
    }
    return EDDY_OK;
}
