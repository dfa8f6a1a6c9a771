/* SPDX-License-Identifier: MIT */
/* eddy-verify: proves eddy's determinism contract on this build and machine.
 *
 * For each scene x pin policy x worker count it runs the scene with its
 * scripted input, hashes every frame (frame 0, the initial state, included)
 * and compares the trace with the scene's golden; --bless writes the goldens
 * from a 1-worker unpinned run; --replay checks a replay's recorded hashes.
 * User documentation: docs/verify.md; golden format: docs/golden-format.md;
 * what is guaranteed and how it is kept: docs/determinism.md. */
#include "verify.h"

#include "scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- check */

/* Read scene's golden and decide how many frames to check: --frames N checks
 * the first N, or all the golden holds if it is shorter. 3 on a bad file. */
static int load_golden(const verify_options *o, const char *scene, verify_golden *g,
                       int *frames, char *message, size_t size) {
    char path[1024];
    verify_golden_path(o->golden_dir, scene, path, sizeof path);
    int status = verify_golden_read(path, scene, g, message, size);
    if (status != VERIFY_EXIT_OK) return status;
    *frames = o->frames > 0 && o->frames < g->frames ? o->frames : g->frames;
    if (o->frames > g->frames && !o->json)
        printf("note: %s holds %d frames; --frames %d checks those %d\n", path, g->frames,
               o->frames, g->frames);
    return VERIFY_EXIT_OK;
}

static void check_scene(const verify_options *o, verify_env *env, verify_report *report,
                        const char *scene) {
    verify_golden golden;
    int frames = 0;
    char message[2048];
    if (load_golden(o, scene, &golden, &frames, message, sizeof message) != VERIFY_EXIT_OK) {
        verify_report_bad_file(report, scene, message);
        return;
    }
    for (int p = 0; p < o->pin_count; ++p) {
        for (int t = 0; t < o->thread_count; ++t) {
            verify_run_config c = {scene, frames, o->threads[t], o->pins[p], o->hostile_fp,
                                   o->mutations, o->denormals, o->treecode};
            verify_outcome outcome;
            verify_report_begin_run(report, scene, c.workers, c.pin);
            verify_run_check(env, &c, &golden, verify_report_progress, report, &outcome);
            verify_report_result(report, &c, golden.frames, &outcome);
        }
        verify_report_row_done(report, scene, o->pins[p]);
    }
    verify_golden_free(&golden);
}

static int check_all(const verify_options *o, verify_env *env) {
    verify_report *report = verify_report_create(o);
    if (report == NULL) {
        fprintf(stderr, "eddy-verify: out of memory\n");
        return VERIFY_EXIT_MISMATCH;
    }
    for (int i = 0; i < o->scene_count; ++i) check_scene(o, env, report, o->scenes[i]);
    int status = verify_report_finish(report);
    verify_report_destroy(report);
    return status;
}

/* ---------------------------------------------------------------- bless */

static void bless_progress(int64_t frame, int64_t frames, void *context) {
    const char *const *scene_name = context;
    const char *scene = *scene_name;
    if (frame % 10 == 0 || frame == frames)
        fprintf(stderr, "\r\033[Kblessing %s: frame %" PRId64 "/%" PRId64, scene, frame, frames);
}

/* One line saying what changed between the old golden (may be empty) and the new. */
static void bless_describe(const verify_golden *old, bool had_old, const verify_golden *g) {
    if (!had_old) {
        printf("%-20s new golden, frames 0..%d\n", g->scene, g->frames);
        return;
    }
    int common = old->frames < g->frames ? old->frames : g->frames;
    int f = 0;
    while (f <= common && old->trace[f].frame_hash == g->trace[f].frame_hash) ++f;
    if (f > common && old->frames == g->frames) {
        printf("%-20s unchanged, frames 0..%d\n", g->scene, g->frames);
    } else if (f > common) {
        printf("%-20s frames %d -> %d, frames 0..%d unchanged\n", g->scene, old->frames,
               g->frames, common);
    } else {
        int c = 0;
        while (c < EDDY_COMPONENT_COUNT && old->trace[f].component[c] == g->trace[f].component[c]) ++c;
        printf("%-20s CHANGED from frame %d (%s): %016" PRIx64 " -> %016" PRIx64 "; frames %d -> %d\n",
               g->scene, f, c < EDDY_COMPONENT_COUNT ? eddy_component_name((eddy_component)c) : "frame",
               old->trace[f].frame_hash, g->trace[f].frame_hash, old->frames, g->frames);
    }
}

/* The command quoted inside a golden: portable, from the repository root. A
 * traversal other than the default has its goldens in golden/<traversal>. */
static void bless_golden_command(const char *scene, int frames, eddy_treecode_traversal treecode,
                                 char *out, size_t size) {
    const eddy_scene_info *info = eddy_scene_find(scene);
    const char *other = treecode == eddy_world_def_default().treecode_traversal ? NULL
                        : treecode == EDDY_TREECODE_ORIGINAL                   ? "original"
                                                                               : "multipole";
    int used = other ? snprintf(out, size,
                                "./build/verify/eddy-verify --bless --scene %s --treecode %s "
                                "--golden golden/%s",
                                scene, other, other)
                     : snprintf(out, size,
                                "./build/verify/eddy-verify --bless --scene %s --golden golden",
                                scene);
    if (info != NULL && frames != info->default_frames && used > 0 && (size_t)used < size)
        snprintf(out + used, size - (size_t)used, " --frames %d", frames);
}

static int bless_scene(const verify_options *o, verify_env *env, const char *scene) {
    const eddy_scene_info *info = eddy_scene_find(scene);
    int frames = o->frames > 0 ? o->frames : info->default_frames;
    char path[1024], message[2048], command[512];
    verify_golden_path(o->golden_dir, scene, path, sizeof path);
    verify_golden old, g;
    bool had_old = verify_golden_read(path, scene, &old, message, sizeof message) == VERIFY_EXIT_OK;
    bool tty = verify_progress_on_terminal();
    bool ok = verify_run_record(env, scene, frames, o->treecode, tty ? bless_progress : NULL, &scene, &g,
                                message, sizeof message);
    if (tty) fprintf(stderr, "\r\033[K");
    int status = ok ? VERIFY_EXIT_OK : VERIFY_EXIT_MISMATCH;
    if (ok) {
        bless_golden_command(scene, frames, o->treecode, command, sizeof command);
        if (!verify_golden_write(path, &g, command, message, sizeof message))
            status = VERIFY_EXIT_BAD_FILE;
        else
            bless_describe(&old, had_old, &g);
    }
    if (status != VERIFY_EXIT_OK) fprintf(stderr, "eddy-verify: %s\n", message);
    if (had_old) verify_golden_free(&old);
    if (ok) verify_golden_free(&g);
    return status;
}

static int bless_all(const verify_options *o, verify_env *env) {
    printf("blessing %d golden%s in %s (1 worker, unpinned, ordinary FP mode)\n", o->scene_count,
           o->scene_count == 1 ? "" : "s", o->golden_dir);
    int worst = VERIFY_EXIT_OK;
    for (int i = 0; i < o->scene_count; ++i) {
        int status = bless_scene(o, env, o->scenes[i]);
        if (status > worst) worst = status;
    }
    if (worst == VERIFY_EXIT_OK)
        printf("commit the changed goldens together with the change that explains them "
               "(docs/determinism.md)\n");
    return worst;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
    verify_options o;
    int status = verify_parse_args(argc, argv, &o);
    if (status != VERIFY_EXIT_OK) return status;
    if (o.help) {
        verify_usage(stdout);
        return VERIFY_EXIT_OK;
    }
    if (o.version) {
        printf("eddy-verify %s (hash-spec %d)\n", eddy_version_string(), EDDY_HASH_SPEC_VERSION);
        return VERIFY_EXIT_OK;
    }
    if (o.list) {
        verify_list_scenes();
        return VERIFY_EXIT_OK;
    }
    char message[512];
    verify_env *env = verify_env_create(o.pins, o.pin_count, message, sizeof message);
    if (env == NULL) {
        fprintf(stderr, "eddy-verify: %s\n", message);
        return VERIFY_EXIT_USAGE;
    }
    if (o.corpus_dir != NULL) status = verify_corpus(&o, env);
    else if (o.desync_paths != NULL) status = verify_desync(&o);
    else if (o.hash_log_path != NULL) status = verify_hash_log(&o, env);
    else if (o.synctest > 0) status = verify_synctest(&o, env);
    else if (o.replay_path != NULL) status = verify_replay(&o, env);
    else if (o.bless) status = bless_all(&o, env);
    else status = check_all(&o, env);
    verify_env_destroy(env);
    return status;
}
