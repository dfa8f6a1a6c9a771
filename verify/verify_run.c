/* SPDX-License-Identifier: MIT */
/* Running a scene and comparing its hash trace with a golden.
 *
 * Design note: how a divergence is located to a block.
 *
 * A golden holds, per frame, the frame hash and the four component hashes,
 * not the block hashes (a golden of noise_cloud would otherwise hold 260
 * block hashes per frame). Comparing frame hashes finds the first divergent
 * frame and the component hashes name the component. To name the block, the
 * run that diverged stops right there and takes the block hashes of that
 * component (eddy_world_block_hashes); then a fresh reference run, 1 worker,
 * unpinned, the caller in the ordinary FP mode and no mutation, steps the
 * same scene to the same frame and takes its block hashes. The first block
 * whose hashes differ is reported. The reference run's frame hash is also
 * compared with the golden: if it differs too, the golden is stale or this
 * build is not the one that blessed it, and the report says so instead of
 * blaming the worker count. */
#include "verify.h"

#include "scenes.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Called with the hash of every frame from 0 on; return false to stop. */
typedef bool verify_frame_fn(eddy_world *world, const eddy_frame_hash *hash, void *context);

typedef struct run_loop {
    const verify_run_config *config;
    verify_frame_fn *on_frame;
    void *context;
    verify_progress_fn *progress;
    void *progress_context;
} run_loop;

static double now_seconds(void) { return verify_monotonic_seconds(); }

static eddy_status run_create(verify_env *env, const verify_run_config *c, eddy_world **out) {
    eddy_world_def base = eddy_world_def_default();
    base.test_mutations = c->mutations;
    base.treecode_traversal = c->treecode;
    base.hash_every_step = true;
    if (c->denormals != VERIFY_DENORMALS_DEFAULT)
        base.flush_denormals = c->denormals == VERIFY_DENORMALS_FLUSH;
    verify_env_configure(env, &base, c->workers, c->pin, c->hostile_fp);
    return eddy_scene_create(c->scene, &base, out);
}

/* Step frames 1..config->frames with the scene's scripted input. */
static bool run_steps(eddy_world *world, const run_loop *loop, char *message, size_t size) {
    const verify_run_config *c = loop->config;
    eddy_frame_hash hash = eddy_world_hash(world);
    if (!loop->on_frame(world, &hash, loop->context)) return true;
    eddy_scene_input buffer;
    for (int f = 1; f <= c->frames; ++f) {
        if (c->hostile_fp) verify_fp_set_hostile();
        const eddy_input *input = eddy_scene_input_for(c->scene, eddy_world_frame(world), &buffer);
        eddy_status status = eddy_world_step(world, input);
        if (status != EDDY_OK) {
            snprintf(message, size, "%s: step to frame %d failed: %s (%s)", c->scene, f,
                     eddy_status_name(status), eddy_world_error_message(world));
            return false;
        }
        hash = eddy_world_hash(world);
        if (loop->progress != NULL) loop->progress(f, c->frames, loop->progress_context);
        if (!loop->on_frame(world, &hash, loop->context)) return true;
    }
    return true;
}

/* Create, step, destroy; the environment is restored whatever happens. */
static bool run_scene(verify_env *env, const run_loop *loop, char *message, size_t size) {
    eddy_world *world = NULL;
    eddy_status status = run_create(env, loop->config, &world);
    bool ok = status == EDDY_OK;
    if (!ok) {
        snprintf(message, size, "%s: cannot create the scene at %d workers: %s (%s)",
                 loop->config->scene, loop->config->workers, eddy_status_name(status),
                 eddy_last_error_message());
    } else {
        ok = run_steps(world, loop, message, size);
    }
    eddy_world_destroy(world);
    verify_env_end_run(env);
    return ok;
}

/* Block hashes of one component of the world's current state (malloc'd). */
static uint64_t *block_hashes(eddy_world *world, int component, int *count) {
    *count = 0;
    if (component < 0) return NULL;
    int n = eddy_world_block_hashes(world, (eddy_component)component, NULL, 0);
    if (n <= 0) return NULL;
    uint64_t *blocks = malloc((size_t)n * sizeof *blocks);
    if (blocks == NULL) return NULL;
    *count = eddy_world_block_hashes(world, (eddy_component)component, blocks, n);
    return blocks;
}

static int first_component_difference(const eddy_frame_hash *a, const eddy_frame_hash *b) {
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        if (a->component[c] != b->component[c]) return c;
    return -1;
}

/* ---------------------------------------------------------------- check */

typedef struct check_state {
    const verify_golden *golden;
    verify_divergence *divergence;
    uint64_t *blocks;          /* the diverging run's blocks at the divergent frame */
    int block_count;
} check_state;

static bool check_frame(eddy_world *world, const eddy_frame_hash *hash, void *context) {
    check_state *s = context;
    /* The frame numbers themselves are part of the frame record: a world that
     * does not start at frame 0 cannot match, so compare with frame 0. */
    int64_t index = hash->frame >= 0 && hash->frame <= s->golden->frames ? hash->frame : 0;
    const eddy_frame_hash *expected = &s->golden->trace[index];
    if (hash->frame_hash == expected->frame_hash) return true;
    verify_divergence *d = s->divergence;
    d->frame = hash->frame;
    d->expected = *expected;
    d->actual = *hash;
    d->component = first_component_difference(expected, hash);
    s->blocks = block_hashes(world, d->component, &s->block_count);
    return false;
}

typedef struct reference_state {
    int64_t target;             /* frame to stop at */
    int64_t frame;              /* frame reached (-1: none) */
    int component;
    uint64_t frame_hash;
    uint64_t *blocks;
    int block_count;
} reference_state;

static bool reference_frame(eddy_world *world, const eddy_frame_hash *hash, void *context) {
    reference_state *s = context;
    if (hash->frame < s->target) return true;
    s->frame = hash->frame;
    s->frame_hash = hash->frame_hash;
    s->blocks = block_hashes(world, s->component, &s->block_count);
    return false;
}

/* First block where the two lists differ (a block present in only one counts). */
static void compare_blocks(const reference_state *ref, const check_state *run,
                           verify_divergence *d) {
    d->blocks_expected = ref->block_count;
    d->blocks_actual = run->block_count;
    int common = ref->block_count < run->block_count ? ref->block_count : run->block_count;
    for (int k = 0; k < common; ++k) {
        if (ref->blocks[k] == run->blocks[k]) continue;
        d->block = k;
        d->block_expected = ref->blocks[k];
        d->block_actual = run->blocks[k];
        return;
    }
    if (ref->block_count != run->block_count) d->block = common;
}

static void locate_block(verify_env *env, const verify_run_config *c, check_state *run) {
    verify_divergence *d = run->divergence;
    if (d->component < 0) return;
    verify_run_config rc = {c->scene, (int)d->frame, 1, VERIFY_PIN_NONE, false, 0,
                            VERIFY_DENORMALS_DEFAULT, c->treecode};
    reference_state ref = {d->frame, -1, d->component, 0, NULL, 0};
    run_loop loop = {&rc, reference_frame, &ref, NULL, NULL};
    char message[256];
    if (run_scene(env, &loop, message, sizeof message) && ref.frame == d->frame) {
        d->reference_ran = true;
        d->reference_matches = ref.frame_hash == d->expected.frame_hash;
        compare_blocks(&ref, run, d);
    }
    free(ref.blocks);
}

void verify_run_check(verify_env *env, const verify_run_config *config, const verify_golden *g,
                      verify_progress_fn *progress, void *progress_context, verify_outcome *out) {
    memset(out, 0, sizeof *out);
    out->divergence.frame = -1;
    out->divergence.block = -1;
    check_state state = {g, &out->divergence, NULL, 0};
    run_loop loop = {config, check_frame, &state, progress, progress_context};
    double start = now_seconds();
    out->error = !run_scene(env, &loop, out->message, sizeof out->message);
    if (!out->error && out->divergence.frame >= 0) locate_block(env, config, &state);
    free(state.blocks);
    out->ok = !out->error && out->divergence.frame < 0;
    out->seconds = now_seconds() - start;
}

/* ---------------------------------------------------------------- record */

static bool record_frame(eddy_world *world, const eddy_frame_hash *hash, void *context) {
    (void)world;
    verify_golden *g = context;
    g->trace[hash->frame] = *hash;
    return true;
}

bool verify_run_record(verify_env *env, const char *scene, int frames,
                       eddy_treecode_traversal treecode, verify_progress_fn *progress, void *progress_context, verify_golden *g,
                       char *message, size_t message_size) {
    memset(g, 0, sizeof *g);
    snprintf(g->scene, sizeof g->scene, "%s", scene);
    snprintf(g->eddy_version, sizeof g->eddy_version, "%s", eddy_version_string());
    g->hash_spec = EDDY_HASH_SPEC_VERSION;
    g->frames = frames;
    g->trace = calloc((size_t)frames + 1, sizeof *g->trace);
    if (g->trace == NULL) {
        snprintf(message, message_size, "%s: out of memory for %d frames", scene, frames);
        return false;
    }
    verify_run_config rc = {scene, frames, 1, VERIFY_PIN_NONE, false, 0, VERIFY_DENORMALS_DEFAULT,
                            treecode};
    run_loop loop = {&rc, record_frame, g, progress, progress_context};
    if (run_scene(env, &loop, message, message_size)) return true;
    verify_golden_free(g);
    return false;
}
