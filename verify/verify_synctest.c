/* SPDX-License-Identifier: MIT */
/* --synctest N: the rollback check (docs/verify.md, docs/rollback.md).
 *
 * Design note. A rollback game restores an older state and re-simulates to
 * the present whenever a late input arrives; if restore + re-simulation does
 * not give the same bits as the first simulation, the peers desync. This mode
 * forces that path on every frame, as rollback libraries' "synctest" does:
 *
 *   after stepping to frame f, record the frame's snapshot, hash and block
 *   hashes; then restore the snapshot of frame b = max(0, f - N) and step
 *   again to f with the same scripted input, comparing every frame b..f with
 *   what was recorded the first time.
 *
 * The world then carries on from the re-simulated state, so a divergence that
 * a restore plants is also carried forward. On a mismatch the report names
 * the frame, the component and the first differing block (the recorded block
 * hashes of that frame against the re-simulated world's), and the frame the
 * rollback started from. Recording costs a ring of N + 1 snapshots and block
 * hash lists. */
#include "verify.h"

#include "eddy/snapshot.h"
#include "scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { SYNCTEST_DEFAULT_FRAMES = 60 };

/* One recorded frame. */
typedef struct sync_frame {
    int64_t frame;
    eddy_bytes snapshot;
    eddy_frame_hash hash;
    uint64_t *blocks[EDDY_COMPONENT_COUNT];
    int block_count[EDDY_COMPONENT_COUNT];
    int block_capacity[EDDY_COMPONENT_COUNT];
} sync_frame;

typedef struct sync_run {
    const char *scene;
    int workers;
    verify_pin pin;
    bool hostile_fp;
    int depth;
    int frames;
    eddy_world *world;
    sync_frame *ring; /* depth + 1 entries, frame f at f % (depth + 1) */
    char message[512];
} sync_run;

static sync_frame *ring_at(sync_run *r, int64_t frame) {
    return &r->ring[frame % (r->depth + 1)];
}

static bool record_blocks(sync_run *r, sync_frame *e) {
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) {
        int n = eddy_world_block_hashes(r->world, (eddy_component)c, NULL, 0);
        if (n > e->block_capacity[c]) {
            uint64_t *p = realloc(e->blocks[c], (size_t)n * sizeof *p);
            if (p == NULL) return false;
            e->blocks[c] = p;
            e->block_capacity[c] = n;
        }
        e->block_count[c] = eddy_world_block_hashes(r->world, (eddy_component)c, e->blocks[c], n);
    }
    return true;
}

static bool record(sync_run *r) {
    sync_frame *e = ring_at(r, eddy_world_frame(r->world));
    e->frame = eddy_world_frame(r->world);
    e->hash = eddy_world_hash(r->world);
    e->snapshot.size = 0;
    if (eddy_world_snapshot(r->world, &e->snapshot) != EDDY_OK || !record_blocks(r, e)) {
        snprintf(r->message, sizeof r->message, "out of memory recording frame %" PRId64, e->frame);
        return false;
    }
    return true;
}

static bool step(sync_run *r) {
    eddy_scene_input buffer;
    if (r->hostile_fp) verify_fp_set_hostile();
    const eddy_input *input = eddy_scene_input_for(r->scene, eddy_world_frame(r->world), &buffer);
    eddy_status s = eddy_world_step(r->world, input);
    if (s == EDDY_OK) return true;
    snprintf(r->message, sizeof r->message, "step to frame %" PRId64 " failed: %s (%s)",
             eddy_world_frame(r->world) + 1, eddy_status_name(s), eddy_world_error_message(r->world));
    return false;
}

/* The first component and block where the world differs from e. */
static void describe_mismatch(sync_run *r, const sync_frame *e, int64_t from) {
    const eddy_frame_hash now = eddy_world_hash(r->world);
    int c = 0;
    while (c < EDDY_COMPONENT_COUNT && now.component[c] == e->hash.component[c]) ++c;
    if (c == EDDY_COMPONENT_COUNT) {
        snprintf(r->message, sizeof r->message,
                 "frame %" PRId64 " (rolled back from frame %" PRId64 "): frame hash %016" PRIx64
                 ", recorded %016" PRIx64, e->frame, from, now.frame_hash, e->hash.frame_hash);
        return;
    }
    const int n = eddy_world_block_hashes(r->world, (eddy_component)c, NULL, 0);
    uint64_t *blocks = calloc((size_t)(n > 0 ? n : 1), sizeof *blocks);
    int block = -1;
    if (blocks != NULL) {
        eddy_world_block_hashes(r->world, (eddy_component)c, blocks, n);
        for (int b = 0; b < n && b < e->block_count[c] && block < 0; ++b)
            if (blocks[b] != e->blocks[c][b]) block = b;
        if (block < 0 && n != e->block_count[c]) block = n < e->block_count[c] ? n : e->block_count[c];
    }
    free(blocks);
    snprintf(r->message, sizeof r->message,
             "frame %" PRId64 " (re-simulated after restoring frame %" PRId64 "): component %s, "
             "block %d (%d blocks, recorded %d); component hash %016" PRIx64 ", recorded %016" PRIx64,
             e->frame, from, eddy_component_name((eddy_component)c), block, n, e->block_count[c],
             now.component[c], e->hash.component[c]);
}

static bool matches(sync_run *r, int64_t from) {
    const sync_frame *e = ring_at(r, eddy_world_frame(r->world));
    if (eddy_world_hash(r->world).frame_hash == e->hash.frame_hash) return true;
    describe_mismatch(r, e, from);
    return false;
}

/* Restore frame f - depth (or 0) and step back to f, checking every frame. */
static bool roll_back(sync_run *r, bool *diverged) {
    const int64_t now = eddy_world_frame(r->world);
    const int64_t from = now - r->depth > 0 ? now - r->depth : 0;
    const sync_frame *e = ring_at(r, from);
    char why[256];
    if (eddy_world_restore(r->world, e->snapshot.data, e->snapshot.size, why, sizeof why) != EDDY_OK) {
        snprintf(r->message, sizeof r->message, "restore of frame %" PRId64 " failed: %s", from, why);
        return false;
    }
    if (!matches(r, from)) return *diverged = true, false;
    while (eddy_world_frame(r->world) < now) {
        if (!step(r)) return false;
        if (!matches(r, from)) return *diverged = true, false;
    }
    return true;
}

static bool sync_run_all(sync_run *r, bool *diverged) {
    if (!record(r)) return false;
    for (int f = 1; f <= r->frames; ++f) {
        if (!step(r) || !record(r) || !roll_back(r, diverged)) return false;
    }
    return true;
}

static void sync_run_free(sync_run *r) {
    if (r->ring != NULL)
        for (int i = 0; i <= r->depth; ++i) {
            eddy_bytes_free(&r->ring[i].snapshot);
            for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) free(r->ring[i].blocks[c]);
        }
    free(r->ring);
    eddy_world_destroy(r->world);
}

/* One scene at one worker count and pin: 0 ok, 1 mismatch, 2 error. */
static int synctest_one(const verify_options *o, verify_env *env, sync_run *r) {
    eddy_world_def base = eddy_world_def_default();
    base.test_mutations = o->mutations;
    base.hash_every_step = true;
    verify_env_configure(env, &base, r->workers, r->pin, r->hostile_fp);
    eddy_status s = eddy_scene_create(r->scene, &base, &r->world);
    r->ring = calloc((size_t)r->depth + 1, sizeof *r->ring);
    bool diverged = false, ok = false;
    if (s != EDDY_OK)
        snprintf(r->message, sizeof r->message, "cannot create the scene: %s (%s)",
                 eddy_status_name(s), eddy_last_error_message());
    else if (r->ring == NULL)
        snprintf(r->message, sizeof r->message, "out of memory");
    else
        ok = sync_run_all(r, &diverged);
    sync_run_free(r);
    verify_env_end_run(env);
    return ok ? 0 : diverged ? 1 : 2;
}

int verify_synctest(const verify_options *o, verify_env *env) {
    static const char *const verdicts[] = {"ok", "MISMATCH", "ERROR"};
    int worst = 0, runs = 0, failed = 0;
    for (int i = 0; i < o->scene_count; ++i)
        for (int p = 0; p < o->pin_count; ++p)
            for (int t = 0; t < o->thread_count; ++t) {
                sync_run r = {.scene = o->scenes[i], .workers = o->threads[t], .pin = o->pins[p],
                              .hostile_fp = o->hostile_fp, .depth = o->synctest,
                              .frames = o->frames > 0 ? o->frames : SYNCTEST_DEFAULT_FRAMES};
                int v = synctest_one(o, env, &r);
                printf("synctest %-20s workers %2d pin %-4s rollback %d, %d frames: %s%s%s\n",
                       r.scene, r.workers, verify_pin_name(r.pin), r.depth, r.frames, verdicts[v],
                       v ? ": " : "", v ? r.message : "");
                fflush(stdout);
                worst = v > worst ? v : worst;
                ++runs;
                failed += v != 0;
            }
    printf("synctest: %d of %d runs ok\n", runs - failed, runs);
    return worst == 0 ? VERIFY_EXIT_OK : VERIFY_EXIT_MISMATCH;
}
