/* SPDX-License-Identifier: MIT */
/* eddy-replay: record, play, info, diff and scenes. */
#include "cli.h"
#include "scenes.h"

#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int want_files(const cli_options *o, int n, const char *command) {
    if (o->file_count != n)
        return cli_fail(EXIT_USAGE, "%s takes %d file%s, got %d (try --help)", command, n,
                        n == 1 ? "" : "s", o->file_count);
    return EXIT_OK;
}

/* ---------------------------------------------------------------- record */
static eddy_recorder_def recorder_def(const cli_options *o) {
    eddy_recorder_def d = eddy_recorder_def_default();
    d.keyframe_interval = o->keyframe_every >= 0 ? o->keyframe_every : 100;
    if (o->chunk > 0) d.frames_per_chunk = o->chunk;
    if (o->level > 0) d.compression_level = o->level;
    d.block_hashes = !o->no_block_hashes;
    return d;
}

static int record_frames(eddy_recorder *r, const char *scene, int64_t frames) {
    eddy_world *w = eddy_recorder_world(r);
    for (int64_t k = 0; k < frames; ++k) {
        eddy_scene_input in;
        eddy_status s = eddy_recorder_step(r, eddy_scene_input_for(scene, eddy_world_frame(w), &in));
        if (s != EDDY_OK) {
            progress_done();
            return cli_fail(cli_exit_code(s) == EXIT_USAGE ? EXIT_IO : cli_exit_code(s),
                            "recording frame %lld: %s", (long long)k + 1,
                            eddy_recorder_error_message(r));
        }
        progress_show("recording", k + 1, frames);
    }
    progress_done();
    return EXIT_OK;
}

static void record_summary(const cli_options *o, const eddy_recorder_stats *st, double seconds) {
    if (o->quiet) return;
    FILE *out = strcmp(o->output, "-") ? stdout : stderr; /* the file itself may be on stdout */
    fprintf(out, "recorded %s: %lld frames, %d chunks, %d keyframes\n", o->scene, (long long)st->frames,
            st->chunks, st->keyframes);
    fprintf(out, "wrote %s: %llu bytes (%.1f per frame), payload %llu bytes, ratio %.2f\n", o->output,
            (unsigned long long)st->bytes_written,
            st->frames ? (double)st->bytes_written / (double)st->frames : 0.0,
            (unsigned long long)st->raw_bytes,
            st->bytes_written ? (double)st->raw_bytes / (double)st->bytes_written : 0.0);
    fprintf(out, "time %.2f s, of which recording %.3f s\n", seconds, st->record_ms * 1e-3);
}

static eddy_status write_stdout(const void *data, size_t size, void *context) {
    (void)context;
    return fwrite(data, 1, size, stdout) == size ? EDDY_OK : EDDY_ERROR_IO;
}

static eddy_status flush_stdout(void *context) {
    (void)context;
    return fflush(stdout) == 0 ? EDDY_OK : EDDY_ERROR_IO;
}

int cmd_record(const cli_options *o) {
    if (!o->scene || !o->output || o->file_count != 0)
        return cli_fail(EXIT_USAGE, "record needs --scene NAME and -o FILE (try --help)");
    const eddy_scene_info *info = eddy_scene_find(o->scene);
    if (!info) {
        char m[256];
        return cli_fail(EXIT_USAGE, "%s",
                        eddy_scene_unknown_message(o->scene, "eddy-replay scenes", m, sizeof m));
    }
    int checked = cli_check_output(o->output, o);
    if (checked != EXIT_OK) return checked;
    const int64_t frames = o->frames > 0 ? o->frames : info->default_frames;
    eddy_pinner *pinner = NULL;
    char why[600];
    if (o->pin != EDDY_PIN_NONE && !(pinner = eddy_pinner_create(o->pin, why, sizeof why)))
        fprintf(stderr, "eddy-replay: %s; running unpinned\n", why);
    eddy_world_def base = eddy_world_def_default();
    eddy_pin_configure(&base, o->threads, pinner);
    eddy_world *w = NULL;
    eddy_recorder *r = NULL;
    const eddy_recorder_def rd = recorder_def(o);
    const double t0 = now_s();
    int code = EXIT_OK;
    eddy_status s = eddy_scene_create(o->scene, &base, &w);
    if (s != EDDY_OK) {
        code = cli_fail(EXIT_IO, "cannot create scene %s: %s", o->scene, eddy_status_name(s));
        goto done;
    }
    if (strcmp(o->output, "-") == 0)
        s = eddy_recorder_create(w, &rd, write_stdout, flush_stdout, NULL, &r, why, sizeof why);
    else
        s = eddy_recorder_create_file(w, &rd, o->output, &r, why, sizeof why);
    if (s != EDDY_OK) {
        code = cli_fail(cli_exit_code(s) == EXIT_USAGE ? EXIT_IO : cli_exit_code(s), "%s", why);
        goto done;
    }
    code = record_frames(r, o->scene, frames);
    if (code == EXIT_OK && (s = eddy_recorder_finish(r)) != EDDY_OK)
        code = cli_fail(EXIT_IO, "%s", eddy_recorder_error_message(r));
    if (code == EXIT_OK) {
        const eddy_recorder_stats st = eddy_recorder_get_stats(r);
        record_summary(o, &st, now_s() - t0);
    }
done:
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    eddy_pinner_destroy(pinner);
    return code;
}

/* ---------------------------------------------------------------- play */
static int report_divergence(const eddy_divergence *d, eddy_player *p) {
    printf("DIVERGED at frame %lld", (long long)d->frame);
    if (d->component < 0) {
        printf(": %s\n", eddy_player_error_message(p));
        return EXIT_DIVERGED;
    }
    printf(", component %s, block ", eddy_component_name((eddy_component)d->component));
    if (d->block >= 0) printf("%d", d->block);
    else printf("unknown (the file has no block hashes or keyframe for this frame)");
    printf("\n  frame hash     recorded %016llx, re-simulated %016llx\n",
           (unsigned long long)d->recorded_hash, (unsigned long long)d->actual_hash);
    printf("  component hash recorded %016llx, re-simulated %016llx\n",
           (unsigned long long)d->recorded_component, (unsigned long long)d->actual_component);
    return EXIT_DIVERGED;
}

/* ---------------------------------------------------------------- json */
static void json_string(const char *text) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)text; *p; ++p) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static void play_json(const cli_options *o, const eddy_replay_info *i, eddy_status s,
                      const eddy_divergence *d, eddy_player *p, bool truncated, double seconds) {
    const char *result = s == EDDY_ERROR_DIVERGED ? "diverged" : s != EDDY_OK ? "error"
                         : truncated ? "cut_short" : "ok";
    printf("{\"file\": ");
    json_string(o->files[0]);
    printf(", \"result\": \"%s\", \"status\": \"%s\", \"first_frame\": %lld, \"last_frame\": %lld, "
           "\"frames\": %lld, \"workers\": %d, \"seconds\": %.3f", result, eddy_status_name(s),
           (long long)i->first_frame, (long long)i->last_frame, (long long)i->frame_count, o->threads,
           seconds);
    if (s == EDDY_ERROR_DIVERGED) {
        printf(", \"divergence\": {\"frame\": %lld, \"component\": ", (long long)d->frame);
        json_string(d->component >= 0 ? eddy_component_name((eddy_component)d->component) : "input");
        printf(", \"block\": %d, \"recorded_hash\": \"%016llx\", \"actual_hash\": \"%016llx\"}", d->block,
               (unsigned long long)d->recorded_hash, (unsigned long long)d->actual_hash);
    }
    if (s != EDDY_OK || truncated) {
        printf(", \"message\": ");
        json_string(eddy_player_error_message(p));
    }
    printf("}\n");
}

int cmd_play(const cli_options *o) {
    int code = want_files(o, 1, "play");
    if (code != EXIT_OK) return code;
    eddy_pinner *pinner = NULL;
    eddy_player *p = NULL;
    bool truncated;
    code = cli_open(o->files[0], o, &pinner, &p, &truncated);
    if (code != EXIT_OK) goto done;
    const eddy_replay_info i = eddy_player_info(p);
    if (!eddy_player_world(p)) {
        code = cli_fail(EXIT_INVALID_FILE, "%s", eddy_player_error_message(p));
        goto done;
    }
    const double t0 = now_s();
    eddy_divergence d;
    eddy_status s = eddy_player_verify(p, &d, progress_callback, (void *)"playing");
    progress_done();
    if (o->json) {
        play_json(o, &i, s, &d, p, truncated, now_s() - t0);
        code = s == EDDY_ERROR_DIVERGED ? EXIT_DIVERGED : s != EDDY_OK ? cli_exit_code(s)
               : truncated ? EXIT_INVALID_FILE : EXIT_OK;
        goto done;
    }
    if (s == EDDY_ERROR_DIVERGED) {
        code = report_divergence(&d, p);
        goto done;
    }
    if (s != EDDY_OK) {
        code = cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
        goto done;
    }
    printf("ok: frames %lld..%lld match (%lld frames, %d workers, %.2f s)\n",
           (long long)i.first_frame, (long long)i.last_frame, (long long)i.frame_count,
           o->threads, now_s() - t0);
    if (truncated) {
        printf("the file was cut short: %s\n", eddy_player_error_message(p));
        code = EXIT_INVALID_FILE;
    }
done:
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return code;
}

/* ---------------------------------------------------------------- info */
static void print_fingerprint(const eddy_replay_fingerprint *f) {
    printf("recorded by     eddy %s, %s, %s\n", f->eddy_version, f->compiler,
           eddy_replay_arch_name(f->arch));
    printf("fingerprint     hash spec %u, snapshot %u, input %u, definition %u; FP model %u, "
           "%s denormals; build flags 0x%x\n",
           (unsigned)f->hash_spec_version, (unsigned)f->snapshot_version,
           (unsigned)f->input_version, (unsigned)f->def_version, (unsigned)f->fp_model,
           f->flush_denormals ? "flushed" : "kept", (unsigned)f->build_flags);
}

static void print_keyframes(eddy_player *p) {
    int64_t frames[64];
    const int n = eddy_player_keyframes(p, frames, 64);
    printf("keyframes       %d", n);
    for (int k = 0; k < n && k < 64; ++k) printf("%s%lld", k ? ", " : " at ", (long long)frames[k]);
    printf("%s\n", n > 64 ? ", ..." : "");
}

/* The scene of the replay's first frame (when it is frame 0), whether the
 * replay's definition is that scene's, and the counts at the first frame. */
typedef struct world_summary {
    const char *scene;
    char def_differs[512]; /* "" when the definition is the scene's */
    int64_t frame;
    int vortons, tracers, bodies;
} world_summary;

static void summarize_world(eddy_player *p, world_summary *s) {
    eddy_world *w = eddy_player_world(p);
    eddy_world_def scene_def;
    s->scene = cli_scene_of(w, &scene_def);
    s->def_differs[0] = '\0';
    if (s->scene) cli_def_differences(eddy_world_get_def(w), &scene_def, s->def_differs, sizeof s->def_differs);
    s->frame = eddy_world_frame(w);
    s->vortons = eddy_world_vorton_count(w);
    s->tracers = eddy_world_tracer_count(w);
    s->bodies = eddy_world_body_count(w);
}

/* ", \"scene\": ..., \"definition_differs\": ..., \"counts_frame\": F, \"vortons\": ..." */
static void info_json_world(const world_summary *s) {
    printf(", \"scene\": ");
    if (s->scene) json_string(s->scene);
    else printf("null");
    printf(", \"definition_differs\": ");
    json_string(s->def_differs);
    printf(", \"counts_frame\": %lld, \"vortons\": %d, \"tracers\": %d, \"bodies\": %d",
           (long long)s->frame, s->vortons, s->tracers, s->bodies);
}

static void print_world(const world_summary *s) {
    printf("scene           %s\n", s->scene ? s->scene : "none of the built-in scenes (initial state differs)");
    if (s->def_differs[0])
        printf("definition      not the scene's: %s (replay vs scene)\n", s->def_differs);
    printf("at frame %-7lld %d vortons, %d tracers, %d bodies\n", (long long)s->frame, s->vortons,
           s->tracers, s->bodies);
}

static void info_json(const cli_options *o, const eddy_replay_info *i, eddy_player *p,
                      const world_summary *world) {
    const eddy_replay_fingerprint *f = &i->fingerprint;
    printf("{\"file\": ");
    json_string(o->files[0]);
    printf(", \"format_version\": %u, \"complete\": %s, \"eddy_version\": ", (unsigned)i->format_version,
           i->complete ? "true" : "false");
    json_string(f->eddy_version);
    printf(", \"compiler\": ");
    json_string(f->compiler);
    printf(", \"arch\": \"%s\", \"hash_spec\": %u, \"snapshot_version\": %u, \"input_version\": %u, "
           "\"def_version\": %u, \"fp_model\": %u, \"flush_denormals\": %s, \"build_flags\": %u",
           eddy_replay_arch_name(f->arch), (unsigned)f->hash_spec_version, (unsigned)f->snapshot_version,
           (unsigned)f->input_version, (unsigned)f->def_version, (unsigned)f->fp_model,
           f->flush_denormals ? "true" : "false", (unsigned)f->build_flags);
    printf(", \"first_frame\": %lld, \"last_frame\": %lld, \"frames\": %lld, \"chunks\": %d, "
           "\"frames_per_chunk\": %d, \"keyframe_interval\": %d, \"keyframes\": [",
           (long long)i->first_frame, (long long)i->last_frame, (long long)i->frame_count, i->chunk_count,
           i->frames_per_chunk, i->keyframe_interval);
    int64_t frames[256];
    const int n = eddy_player_keyframes(p, frames, 256);
    for (int k = 0; k < n && k < 256; ++k) printf("%s%lld", k ? ", " : "", (long long)frames[k]);
    printf("], \"block_hashes\": %s, \"compression_level\": %d, \"file_bytes\": %llu, "
           "\"valid_bytes\": %llu, \"raw_bytes\": %llu, \"compressed_bytes\": %llu, "
           "\"snapshot_bytes\": %llu, \"keyframe_bytes\": %llu, \"notes\": ",
           i->block_hashes ? "true" : "false", i->compression_level, (unsigned long long)i->file_bytes,
           (unsigned long long)i->valid_bytes, (unsigned long long)i->raw_bytes,
           (unsigned long long)i->compressed_bytes, (unsigned long long)i->snapshot_bytes,
           (unsigned long long)i->keyframe_bytes);
    json_string(i->warnings);
    info_json_world(world);
    printf("}\n");
}

int cmd_info(const cli_options *o) {
    int code = want_files(o, 1, "info");
    if (code != EXIT_OK) return code;
    eddy_pinner *pinner = NULL;
    eddy_player *p = NULL;
    bool truncated;
    code = cli_open(o->files[0], o, &pinner, &p, &truncated);
    if (code != EXIT_OK) return code;
    const eddy_replay_info i = eddy_player_info(p);
    if (o->json) {
        world_summary world;
        summarize_world(p, &world);
        info_json(o, &i, p, &world);
        eddy_player_close(p);
        eddy_pinner_destroy(pinner);
        return truncated ? EXIT_INVALID_FILE : EXIT_OK;
    }
    printf("file            %s\n", o->files[0]);
    printf("format          eddy replay version %u, %s\n", (unsigned)i.format_version,
           i.complete ? "complete (index and footer verified)" : "CUT SHORT");
    print_fingerprint(&i.fingerprint);
    printf("frames          %lld..%lld (%lld frames) in %d chunks of up to %d frames\n",
           (long long)i.first_frame, (long long)i.last_frame, (long long)i.frame_count,
           i.chunk_count, i.frames_per_chunk);
    print_keyframes(p);
    printf("recorder        keyframe interval %d, block hashes %s, zstd level %d\n",
           i.keyframe_interval, i.block_hashes ? "yes" : "no", i.compression_level);
    printf("sizes           file %llu bytes (%llu verified), initial snapshot %llu bytes, "
           "keyframes %llu bytes compressed\n",
           (unsigned long long)i.file_bytes, (unsigned long long)i.valid_bytes,
           (unsigned long long)i.snapshot_bytes, (unsigned long long)i.keyframe_bytes);
    printf("compression     %llu bytes of records in %llu bytes: ratio %.2f; %.1f bytes per frame\n",
           (unsigned long long)i.raw_bytes, (unsigned long long)i.compressed_bytes,
           i.compressed_bytes ? (double)i.raw_bytes / (double)i.compressed_bytes : 0.0,
           i.frame_count ? (double)i.file_bytes / (double)i.frame_count : 0.0);
    world_summary world;
    summarize_world(p, &world);
    print_world(&world);
    if (i.warnings[0]) printf("notes           %s\n", i.warnings);
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return truncated ? EXIT_INVALID_FILE : EXIT_OK;
}

/* ---------------------------------------------------------------- diff */
int cmd_diff(const cli_options *o) {
    int code = want_files(o, 2, "diff");
    if (code != EXIT_OK) return code;
    eddy_pinner *pinner[2] = {NULL, NULL};
    eddy_player *p[2] = {NULL, NULL};
    bool truncated[2];
    for (int k = 0; k < 2 && code == EXIT_OK; ++k)
        code = cli_open(o->files[k], o, &pinner[k], &p[k], &truncated[k]);
    if (code == EXIT_OK) {
        eddy_divergence d;
        eddy_replay_compare(p[0], p[1], &d);
        const eddy_replay_info a = eddy_player_info(p[0]), b = eddy_player_info(p[1]);
        if (d.frame >= 0) {
            printf("first difference at frame %lld, component %s, block ", (long long)d.frame,
                   eddy_component_name((eddy_component)d.component));
            if (d.block >= 0) printf("%d\n", d.block);
            else printf("unknown (needs block hashes in both files)\n");
            printf("  %s: %016llx\n  %s: %016llx\n", o->files[0], (unsigned long long)d.recorded_hash,
                   o->files[1], (unsigned long long)d.actual_hash);
            code = EXIT_DIVERGED;
        } else if (a.first_frame > b.last_frame || b.first_frame > a.last_frame) {
            printf("no frames in common (%lld..%lld and %lld..%lld)\n", (long long)a.first_frame,
                   (long long)a.last_frame, (long long)b.first_frame, (long long)b.last_frame);
            code = EXIT_DIVERGED;
        } else {
            printf("identical hash traces over the common frames %lld..%lld",
                   (long long)(a.first_frame > b.first_frame ? a.first_frame : b.first_frame),
                   (long long)(a.last_frame < b.last_frame ? a.last_frame : b.last_frame));
            if (a.last_frame != b.last_frame || a.first_frame != b.first_frame)
                printf(" (the files cover %lld..%lld and %lld..%lld)", (long long)a.first_frame,
                       (long long)a.last_frame, (long long)b.first_frame, (long long)b.last_frame);
            printf("\n");
        }
    }
    for (int k = 0; k < 2; ++k) {
        eddy_player_close(p[k]);
        eddy_pinner_destroy(pinner[k]);
    }
    return code;
}

/* ---------------------------------------------------------------- scenes */
int cmd_scenes(const cli_options *o) {
    if (o->file_count != 0) return cli_fail(EXIT_USAGE, "scenes takes no file");
    for (int k = 0; k < eddy_scene_count(); ++k) {
        const eddy_scene_info *s = eddy_scene_at(k);
        printf("%-20s %4d frames  %s\n", s->name, s->default_frames, s->description);
    }
    return EXIT_OK;
}
