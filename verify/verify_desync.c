/* SPDX-License-Identifier: MIT */
/* --hash-log FILE and --desync A,B: desync localisation between two machines
 * (docs/desync.md).
 *
 * Design note. Two peers of a game that desynced cannot send each other
 * their states, but each can keep a hash log: one record per frame with the
 * frame's hash tree (include/eddy/desync.h). --hash-log writes such a log for
 * a scene run here; --desync reads two logs, finds the first frame whose
 * roots differ (what the peers' per-frame 8-byte exchange would have
 * caught), and then plays the search protocol between the two trees of that
 * frame, message by message, exactly as two peers would over the network,
 * printing every round and the bytes each side sent. Exit: 0 in sync, 1 a
 * desync was located, 3 a log is missing, damaged or of another version. */
#include "verify.h"

#include "eddy/desync.h"
#include "scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- writing */
static bool write_file(const char *path, const eddy_bytes *b) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return false;
    bool ok = fwrite(b->data, 1, b->size, f) == b->size;
    return fclose(f) == 0 && ok;
}

static bool log_scene(const verify_options *o, eddy_world *w, eddy_bytes *log, char *message,
                      size_t size) {
    const char *scene = o->scenes[0];
    const int frames = o->frames > 0 ? o->frames : eddy_scene_find(scene)->default_frames;
    eddy_hash_tree *tree = eddy_hash_tree_create();
    bool ok = tree != NULL && eddy_hash_log_begin(log) == EDDY_OK;
    eddy_scene_input buffer;
    for (int f = 0; ok && f <= frames; ++f) {
        if (f > 0) {
            if (o->hostile_fp) verify_fp_set_hostile();
            eddy_status s = eddy_world_step(w, eddy_scene_input_for(scene, eddy_world_frame(w), &buffer));
            if (s != EDDY_OK) {
                snprintf(message, size, "%s: step to frame %d failed: %s", scene, f,
                         eddy_world_error_message(w));
                ok = false;
                break;
            }
        }
        ok = eddy_hash_tree_capture(tree, w) == EDDY_OK && eddy_hash_log_append(tree, log) == EDDY_OK;
        if (!ok) snprintf(message, size, "out of memory");
    }
    eddy_hash_tree_destroy(tree);
    return ok;
}

int verify_hash_log(const verify_options *o, verify_env *env) {
    eddy_world_def base = eddy_world_def_default();
    base.test_mutations = o->mutations;
    verify_env_configure(env, &base, o->threads[0], o->pins[0], o->hostile_fp);
    eddy_world *w = NULL;
    char message[512] = "";
    eddy_bytes log = {0};
    int64_t last = -1;
    bool ok = eddy_scene_create(o->scenes[0], &base, &w) == EDDY_OK;
    if (!ok) snprintf(message, sizeof message, "cannot create %s: %s", o->scenes[0],
                      eddy_last_error_message());
    ok = ok && log_scene(o, w, &log, message, sizeof message);
    if (w != NULL) last = eddy_world_frame(w);
    if (ok && !write_file(o->hash_log_path, &log)) {
        snprintf(message, sizeof message, "cannot write %s", o->hash_log_path);
        ok = false;
    }
    eddy_world_destroy(w);
    verify_env_end_run(env);
    if (ok)
        printf("hash log %s: %s, %d workers, frames 0..%" PRId64 ", %zu bytes\n", o->hash_log_path,
               o->scenes[0], o->threads[0], last, log.size);
    else
        fprintf(stderr, "eddy-verify: %s\n", message);
    eddy_bytes_free(&log);
    return ok ? VERIFY_EXIT_OK : VERIFY_EXIT_BAD_FILE;
}

/* ---------------------------------------------------------------- reading */
typedef struct hash_log {
    const char *path;
    uint8_t *data;
    size_t size;
    size_t at;
    eddy_hash_tree *tree;
} hash_log;

static bool read_file(hash_log *l, char *message, size_t size) {
    FILE *f = fopen(l->path, "rb");
    if (f == NULL) {
        snprintf(message, size, "%s: cannot open", l->path);
        return false;
    }
    size_t capacity = 1 << 16;
    l->data = malloc(capacity);
    l->size = 0;
    for (size_t got = 1; l->data != NULL && got > 0;) {
        if (l->size == capacity) {
            uint8_t *p = realloc(l->data, capacity * 2);
            if (p == NULL) break;
            l->data = p;
            capacity *= 2;
        }
        got = fread(l->data + l->size, 1, capacity - l->size, f);
        l->size += got;
    }
    bool ok = l->data != NULL && !ferror(f);
    fclose(f);
    if (!ok) snprintf(message, size, "%s: cannot read", l->path);
    return ok;
}

static bool log_open(hash_log *l, char *message, size_t size) {
    char why[256];
    l->tree = eddy_hash_tree_create();
    if (l->tree == NULL || !read_file(l, message, size)) return false;
    if (eddy_hash_log_read_begin(l->data, l->size, &l->at, why, sizeof why) != EDDY_OK) {
        snprintf(message, size, "%s: %s", l->path, why);
        return false;
    }
    return true;
}

/* The next record; false at the end (message empty) or on a refusal. */
static bool log_next(hash_log *l, char *message, size_t size) {
    message[0] = '\0';
    if (l->at == l->size) return false;
    char why[256];
    if (eddy_hash_log_read_record(l->data, l->size, &l->at, l->tree, why, sizeof why) == EDDY_OK)
        return true;
    snprintf(message, size, "%s: %s", l->path, why);
    return false;
}

static void log_close(hash_log *l) {
    free(l->data);
    eddy_hash_tree_destroy(l->tree);
}

/* ---------------------------------------------------------------- search */
static void describe_block(eddy_component c, int block, char *out, size_t size) {
    if (c == EDDY_COMPONENT_VORTONS || c == EDDY_COMPONENT_TRACERS)
        snprintf(out, size, " (%s %d..%d)", c == EDDY_COMPONENT_VORTONS ? "vortons" : "tracers",
                 block * EDDY_HASH_BLOCK_PARTICLES, (block + 1) * EDDY_HASH_BLOCK_PARTICLES - 1);
    else if (c == EDDY_COMPONENT_BODIES)
        snprintf(out, size, " (live bodies %d..%d in slot order)", block * EDDY_HASH_BLOCK_BODIES,
                 (block + 1) * EDDY_HASH_BLOCK_BODIES - 1);
    else
        snprintf(out, size, " (frame, PRNG, gravity, wind, emitters, diagnostics, grid)");
}

/* Both peers' searches with the messages passed between them. */
static int play_search(const hash_log *a, const hash_log *b, char *message, size_t size) {
    eddy_desync_search *sa = eddy_desync_search_create(a->tree);
    eddy_desync_search *sb = eddy_desync_search_create(b->tree);
    eddy_bytes ma = {0}, mb = {0};
    eddy_desync_state state = EDDY_DESYNC_SEARCHING, other = EDDY_DESYNC_SEARCHING;
    int status = VERIFY_EXIT_MISMATCH;
    for (int round = 0; sa && sb && state == EDDY_DESYNC_SEARCHING; ++round) {
        ma.size = mb.size = 0;
        char why[256];
        if (eddy_desync_search_message(sa, &ma) != EDDY_OK ||
            eddy_desync_search_message(sb, &mb) != EDDY_OK ||
            eddy_desync_search_receive(sa, mb.data, mb.size, &state, why, sizeof why) != EDDY_OK ||
            eddy_desync_search_receive(sb, ma.data, ma.size, &other, why, sizeof why) != EDDY_OK) {
            snprintf(message, size, "the search failed in round %d", round);
            status = VERIFY_EXIT_BAD_FILE;
            break;
        }
        printf("  round %2d: %zu bytes each way%s\n", round, ma.size,
               round == 0 ? " (block counts and component roots)" : " (two child hashes)");
    }
    const eddy_desync_result r = eddy_desync_search_result(sa);
    if (state == EDDY_DESYNC_LOCATED) {
        char where[128];
        describe_block(r.component, r.block, where, sizeof where);
        printf("desync at frame %" PRId64 ": component %s, block %d%s; %d vs %d blocks\n"
               "located after %d rounds, %zu bytes sent by each peer\n",
               r.frame, eddy_component_name(r.component), r.block, where, r.blocks_mine,
               r.blocks_peer, r.rounds, r.bytes_sent);
    } else if (state == EDDY_DESYNC_IN_SYNC && status == VERIFY_EXIT_MISMATCH) {
        snprintf(message, size, "the roots differ but the trees agree (damaged log?)");
        status = VERIFY_EXIT_BAD_FILE;
    }
    eddy_bytes_free(&ma);
    eddy_bytes_free(&mb);
    eddy_desync_search_destroy(sa);
    eddy_desync_search_destroy(sb);
    return status;
}

static int compare_logs(hash_log *a, hash_log *b, char *message, size_t size) {
    char other[512];
    int frames = 0;
    for (;;) {
        const bool more_a = log_next(a, message, size);
        if (!more_a && message[0] != '\0') return VERIFY_EXIT_BAD_FILE;
        const bool more_b = log_next(b, other, sizeof other);
        if (!more_b && other[0] != '\0') {
            snprintf(message, size, "%s", other);
            return VERIFY_EXIT_BAD_FILE;
        }
        if (!more_a || !more_b) {
            printf("in sync over %d frames%s\n", frames,
                   more_a != more_b ? " (one log is longer; the rest is not compared)" : "");
            return VERIFY_EXIT_OK;
        }
        if (eddy_hash_tree_frame(a->tree) != eddy_hash_tree_frame(b->tree)) {
            snprintf(message, size, "the logs hold frame %" PRId64 " and frame %" PRId64
                     " at the same place", eddy_hash_tree_frame(a->tree), eddy_hash_tree_frame(b->tree));
            return VERIFY_EXIT_BAD_FILE;
        }
        if (eddy_hash_tree_root(a->tree) != eddy_hash_tree_root(b->tree)) {
            printf("roots differ at frame %" PRId64 " (%016" PRIx64 " vs %016" PRIx64 "), "
                   "after %d equal frames of 8-byte roots\n", eddy_hash_tree_frame(a->tree),
                   eddy_hash_tree_root(a->tree), eddy_hash_tree_root(b->tree), frames);
            return play_search(a, b, message, size);
        }
        ++frames;
    }
}

int verify_desync(const verify_options *o) {
    char paths[1024];
    snprintf(paths, sizeof paths, "%s", o->desync_paths);
    char *comma = strchr(paths, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL || comma == paths || comma[1] == '\0') {
        fprintf(stderr, "eddy-verify: --desync needs two hash logs: --desync A.log,B.log\n");
        return VERIFY_EXIT_USAGE;
    }
    *comma = '\0';
    hash_log a = {.path = paths}, b = {.path = comma + 1};
    char message[768] = "";
    int status = VERIFY_EXIT_BAD_FILE;
    if (log_open(&a, message, sizeof message) && log_open(&b, message, sizeof message))
        status = compare_logs(&a, &b, message, sizeof message);
    if (status == VERIFY_EXIT_BAD_FILE) fprintf(stderr, "eddy-verify: %s\n", message);
    log_close(&a);
    log_close(&b);
    return status;
}
