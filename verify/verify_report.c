/* SPDX-License-Identifier: MIT */
/* What eddy-verify prints: the pass/fail matrix (one row per scene and pin
 * policy, one column per worker count, printed as soon as the row is done so
 * a CI log streams), the details of each failure, where to read what to do
 * about one (never a ready-to-run bless command), a closing count; or, with --json, one JSON object
 * (keys in docs/verify.md). A progress line goes to stderr only when stderr
 * is a terminal. */
#include "verify.h"

#include "scenes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct report_entry {
    verify_run_config config;
    int golden_frames;
    verify_outcome outcome;
} report_entry;

typedef struct bad_file {
    const char *scene;
    char message[2048];
} bad_file;

struct verify_report {
    const verify_options *o;
    bool tty;
    report_entry *entries;
    int count, capacity;
    bad_file *bad;
    int bad_count;
    int runs_total;
    char label[128];        /* current run, for the progress line */
    double last_progress;
};

static double monotonic_seconds(void) { return verify_monotonic_seconds(); }

static void print_list_int(FILE *out, const int *values, int count) {
    for (int i = 0; i < count; ++i) fprintf(out, "%s%d", i > 0 ? "," : "", values[i]);
}

static void print_matrix_header(const verify_report *r) {
    const verify_options *o = r->o;
    printf("eddy-verify %s, hash-spec %d: %d scene%s x workers {", eddy_version_string(),
           EDDY_HASH_SPEC_VERSION, o->scene_count, o->scene_count == 1 ? "" : "s");
    print_list_int(stdout, o->threads, o->thread_count);
    printf("} x pin {");
    for (int i = 0; i < o->pin_count; ++i) printf("%s%s", i ? "," : "", verify_pin_name(o->pins[i]));
    printf("}%s%s%s%s, goldens in %s\n", o->hostile_fp ? ", hostile FP mode" : "",
           o->denormals != VERIFY_DENORMALS_DEFAULT ? ", denormals " : "",
           o->denormals != VERIFY_DENORMALS_DEFAULT ? verify_denormals_name(o->denormals) : "",
           o->mutations != 0 ? ", MUTATED (test only)" : "", o->golden_dir);
    printf("%-20s %-5s", "scene", "pin");
    for (int i = 0; i < o->thread_count; ++i) printf(" %5d", o->threads[i]);
    printf("  %8s\n", "time");
    fflush(stdout);
}

verify_report *verify_report_create(const verify_options *o) {
    verify_report *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->o = o;
    r->tty = verify_progress_on_terminal();
    r->bad = calloc((size_t)o->scene_count + 1, sizeof *r->bad);
    r->runs_total = o->scene_count * o->thread_count * o->pin_count;
    if (r->bad == NULL) {
        free(r);
        return NULL;
    }
    if (!o->json) print_matrix_header(r);
    return r;
}

void verify_report_destroy(verify_report *r) {
    if (r == NULL) return;
    free(r->entries);
    free(r->bad);
    free(r);
}

static void progress_clear(verify_report *r) {
    if (r->tty) fprintf(stderr, "\r\033[K");
}

void verify_report_begin_run(verify_report *r, const char *scene, int workers, verify_pin pin) {
    snprintf(r->label, sizeof r->label, "[%d/%d] %s, %d worker%s, pin %s", r->count + 1,
             r->runs_total, scene, workers, workers == 1 ? "" : "s", verify_pin_name(pin));
    r->last_progress = 0.0;
}

void verify_report_progress(int64_t frame, int64_t frames, void *report) {
    verify_report *r = report;
    if (!r->tty) return;
    double now = monotonic_seconds();
    if (now - r->last_progress < 0.1 && frame < frames) return;
    r->last_progress = now;
    fprintf(stderr, "\r\033[K%s: frame %" PRId64 "/%" PRId64, r->label, frame, frames);
    fflush(stderr);
}

void verify_report_bad_file(verify_report *r, const char *scene, const char *message) {
    bad_file *b = &r->bad[r->bad_count++];
    b->scene = scene;
    snprintf(b->message, sizeof b->message, "%s", message);
    r->runs_total -= r->o->thread_count * r->o->pin_count;
    progress_clear(r);
    if (!r->o->json) printf("%-20s BAD FILE: %s\n", scene, message);
    fflush(stdout);
}

void verify_report_result(verify_report *r, const verify_run_config *c, int golden_frames,
                          const verify_outcome *o) {
    if (r->count == r->capacity) {
        int cap = r->capacity > 0 ? 2 * r->capacity : 64;
        report_entry *grown = realloc(r->entries, (size_t)cap * sizeof *grown);
        if (grown == NULL) return;
        r->entries = grown;
        r->capacity = cap;
    }
    r->entries[r->count++] = (report_entry){*c, golden_frames, *o};
}

static void print_cell(const verify_outcome *o) {
    char cell[16];
    if (o->error) snprintf(cell, sizeof cell, "ERR");
    else if (o->ok) snprintf(cell, sizeof cell, "ok");
    else snprintf(cell, sizeof cell, "F%" PRId64, o->divergence.frame);
    printf(" %5s", cell);
}

void verify_report_row_done(verify_report *r, const char *scene, verify_pin pin) {
    progress_clear(r);
    if (r->o->json) return;
    printf("%-20s %-5s", scene, verify_pin_name(pin));
    double seconds = 0.0;
    for (int i = 0; i < r->count; ++i) {
        const report_entry *e = &r->entries[i];
        if (e->config.pin != pin || strcmp(e->config.scene, scene) != 0) continue;
        print_cell(&e->outcome);
        seconds += e->outcome.seconds;
    }
    printf("  %7.1fs\n", seconds);
    fflush(stdout);
}

/* ---------------------------------------------------------------- regenerate */

/* Shell-quote text unless it is made of safe characters only. */
static void append_word(char *out, size_t size, const char *text) {
    size_t used = strlen(out);
    bool safe = *text != '\0' && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                                              "WXYZ0123456789_./-=,+:@") == strlen(text);
    const char *sep = used > 0 ? " " : "";
    if (safe) {
        snprintf(out + used, size - used, "%s%s", sep, text);
        return;
    }
    snprintf(out + used, size - used, "%s'", sep);
    for (const char *p = text; *p != '\0'; ++p) {
        used = strlen(out);
        if (*p == '\'') snprintf(out + used, size - used, "'\\''");
        else snprintf(out + used, size - used, "%c", *p);
    }
    used = strlen(out);
    snprintf(out + used, size - used, "'");
}

void verify_regenerate_command(const verify_options *o, const char *scene, char *out,
                               size_t out_size) {
    out[0] = '\0';
    append_word(out, out_size, o->program);
    append_word(out, out_size, "--bless");
    append_word(out, out_size, "--scene");
    append_word(out, out_size, scene != NULL ? scene : "all");
    append_word(out, out_size, "--golden");
    append_word(out, out_size, o->golden_dir);
}

/* Where a failure is explained. No ready-to-run bless command is printed: a
 * CI reader would be one paste away from blessing a determinism bug. */
#define VERIFY_AFTER_FAILURE "docs/verify.md, \"After a failure\""

/* ---------------------------------------------------------------- text */

static void print_run_title(const report_entry *e) {
    const verify_run_config *c = &e->config;
    printf("FAIL %s at %d worker%s, pin %s%s%s%s%s", c->scene, c->workers,
           c->workers == 1 ? "" : "s", verify_pin_name(c->pin),
           c->hostile_fp ? ", hostile FP mode" : "",
           c->denormals != VERIFY_DENORMALS_DEFAULT ? ", denormals " : "",
           c->denormals != VERIFY_DENORMALS_DEFAULT ? verify_denormals_name(c->denormals) : "",
           c->mutations != 0 ? ", mutated" : "");
}

static void print_block(const verify_divergence *d) {
    const char *name = eddy_component_name((eddy_component)d->component);
    if (!d->reference_ran) {
        printf("  block: not located (the 1-worker reference run could not be made)\n");
    } else if (d->block < 0) {
        printf("  block: none differs from a fresh 1-worker reference run (%d blocks):\n"
               "  this build reproduces itself, so the golden is stale or was blessed by a build\n"
               "  that computes other values\n", d->blocks_actual);
    } else if (d->block >= d->blocks_expected || d->block >= d->blocks_actual) {
        printf("  block %d of %s: present in only one run (%d blocks in the 1-worker reference, "
               "%d in this run)\n", d->block, name, d->blocks_expected, d->blocks_actual);
    } else {
        printf("  block %d of %d in %s: 1-worker reference %016" PRIx64 ", this run %016" PRIx64
               "\n", d->block, d->blocks_expected, name, d->block_expected, d->block_actual);
    }
    if (d->reference_ran && !d->reference_matches && d->block >= 0)
        printf("  note: the fresh 1-worker reference run differs from the golden at this frame "
               "too: the golden is stale or was blessed by a build that computes other values\n");
}

static void print_failure(const verify_report *r, const report_entry *e) {
    print_run_title(e);
    if (e->outcome.error) {
        printf(": %s\n", e->outcome.message);
        return;
    }
    const verify_divergence *d = &e->outcome.divergence;
    const char *name = d->component >= 0 ? eddy_component_name((eddy_component)d->component)
                                         : "frame record";
    printf(": first divergent frame %" PRId64 ", component %s\n", d->frame, name);
    printf("  frame hash: expected %016" PRIx64 ", actual %016" PRIx64 "\n",
           d->expected.frame_hash, d->actual.frame_hash);
    if (d->component >= 0) {
        printf("  %s hash: expected %016" PRIx64 ", actual %016" PRIx64 "\n", name,
               d->expected.component[d->component], d->actual.component[d->component]);
        print_block(d);
    }
    if (e->config.mutations != 0) {
        printf("  (a test-only mutation was on: this failure is the expected one; never bless it)\n");
        return;
    }
}

static void count_results(const verify_report *r, int *passed, int *failed) {
    *passed = 0;
    *failed = r->bad_count;
    for (int i = 0; i < r->count; ++i) {
        if (r->entries[i].outcome.ok) ++*passed;
        else ++*failed;
    }
}

static void finish_text(const verify_report *r, int passed, int failed) {
    for (int i = 0; i < r->count; ++i)
        if (!r->entries[i].outcome.ok) print_failure(r, &r->entries[i]);
    if (failed > 0)
        printf("what to do: %s (a divergence is a determinism bug until shown otherwise)\n",
               VERIFY_AFTER_FAILURE);
    printf("eddy-verify: %d passed, %d failed\n", passed, failed);
}

/* ---------------------------------------------------------------- json */

void verify_json_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; ++p) {
        if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
        else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
        else fputc(*p, out);
    }
    fputc('"', out);
}

static void json_hash(const char *key, uint64_t value) {
    printf("\"%s\": \"%016" PRIx64 "\"", key, value);
}

static void json_divergence(const verify_divergence *d) {
    printf("{\"frame\": %" PRId64 ", \"component\": ", d->frame);
    verify_json_string(stdout, d->component >= 0 ? eddy_component_name((eddy_component)d->component)
                                                 : "frame");
    printf(", ");
    json_hash("expected_frame_hash", d->expected.frame_hash);
    printf(", ");
    json_hash("actual_frame_hash", d->actual.frame_hash);
    if (d->component >= 0) {
        printf(", ");
        json_hash("expected_component_hash", d->expected.component[d->component]);
        printf(", ");
        json_hash("actual_component_hash", d->actual.component[d->component]);
    }
    printf(", \"block\": %d, \"reference_matches_golden\": %s}", d->block,
           d->reference_matches ? "true" : "false");
}

static void json_entry(const verify_report *r, const report_entry *e) {
    const verify_outcome *o = &e->outcome;
    printf("    {\"scene\": ");
    verify_json_string(stdout, e->config.scene);
    printf(", \"workers\": %d, \"pin\": \"%s\", \"hostile_fp\": %s, \"denormals\": \"%s\", "
           "\"frames\": %d, \"result\": \"%s\", \"seconds\": %.3f", e->config.workers,
           verify_pin_name(e->config.pin), e->config.hostile_fp ? "true" : "false",
           verify_denormals_name(e->config.denormals),
           e->config.frames, o->error ? "error" : o->ok ? "pass" : "fail", o->seconds);
    if (o->error) {
        printf(", \"error\": ");
        verify_json_string(stdout, o->message);
    } else if (!o->ok) {
        printf(", \"divergence\": ");
        json_divergence(&o->divergence);
    }
    printf("}");
}

static void finish_json(const verify_report *r, int passed, int failed) {
    printf("{\n  \"eddy_version\": \"%s\",\n  \"hash_spec\": %d,\n  \"golden_dir\": ",
           eddy_version_string(), EDDY_HASH_SPEC_VERSION);
    verify_json_string(stdout, r->o->golden_dir);
    printf(",\n  \"runs\": [\n");
    for (int i = 0; i < r->count; ++i) {
        json_entry(r, &r->entries[i]);
        printf("%s\n", i + 1 < r->count ? "," : "");
    }
    printf("  ],\n  \"bad_files\": [");
    for (int i = 0; i < r->bad_count; ++i) {
        printf("%s{\"scene\": ", i > 0 ? ", " : "");
        verify_json_string(stdout, r->bad[i].scene);
        printf(", \"message\": ");
        verify_json_string(stdout, r->bad[i].message);
        printf("}");
    }
    printf("],\n  \"passed\": %d,\n  \"failed\": %d,\n  \"after_failure\": ", passed, failed);
    verify_json_string(stdout, VERIFY_AFTER_FAILURE);
    printf("\n}\n");
}

int verify_report_finish(verify_report *r) {
    int passed = 0, failed = 0;
    progress_clear(r);
    count_results(r, &passed, &failed);
    if (r->o->json) finish_json(r, passed, failed);
    else finish_text(r, passed, failed);
    fflush(stdout);
    if (r->bad_count > 0) return VERIFY_EXIT_BAD_FILE;
    return failed > 0 ? VERIFY_EXIT_MISMATCH : VERIFY_EXIT_OK;
}

bool verify_progress_on_terminal(void) {
#if defined(__EMSCRIPTEN__)
    return false; /* emscripten's isatty() is true for every stream, logs included */
#else
    return isatty(STDERR_FILENO) != 0;
#endif
}
