/* SPDX-License-Identifier: MIT */
/* --corpus DIR: check every replay of a regression corpus at every worker
 * count and pin policy asked for, optionally one shard of it (--shard K/N),
 * with a JUnit XML report (--junit FILE) for CI dashboards (docs/verify.md,
 * "A regression corpus in CI").
 *
 * Design notes.
 * - The corpus is every regular file named *.eddyr or *.eddyreplay directly
 *   in DIR (no recursion), sorted by name with strcmp (byte order, independent of the
 *   locale and of the order the file system lists them in).
 * - Shards: the i-th file of that sorted list (0-based) belongs to shard
 *   (i mod N) + 1. Every file is in exactly one shard, the shards differ in
 *   size by at most one file, and every machine of a job matrix computes the
 *   same assignment from the directory alone. An empty shard passes.
 * - One test case per replay x pin policy x worker count. A file that cannot
 *   be used (damaged, another format, an incompatible build) is one error
 *   case per worker count, so the dashboard's totals do not depend on it.
 * - Exit codes as for goldens: 0 all pass, 1 a run diverged or could not
 *   step, 3 a replay cannot be used (3 wins over 1), 2 usage (missing DIR). */
#include "verify.h"

#if defined(EDDY_VERIFY_HAVE_REPLAY)

#include "eddy/replay.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Names a replay file may have (docs/replay.md uses .eddyr, the README .eddyreplay). */
static const char *const k_suffixes[] = {".eddyr", ".eddyreplay"};

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- listing */
static bool has_suffix(const char *name, const char *suffix) {
    const size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcmp(name + n - s, suffix) == 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_regular(const char *dir, const char *name) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Sorted names of the corpus files; NULL and a message if DIR cannot be read. */
static char **corpus_list(const char *dir, int *count, char *message, size_t size) {
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(message, size, "--corpus %s: cannot open the directory", dir);
        return NULL;
    }
    char **names = NULL;
    int capacity = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        if (!(has_suffix(e->d_name, k_suffixes[0]) || has_suffix(e->d_name, k_suffixes[1])) ||
            !is_regular(dir, e->d_name))
            continue;
        if (*count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            char **grown = realloc(names, (size_t)capacity * sizeof *names);
            if (grown == NULL) break;
            names = grown;
        }
        names[*count] = strdup(e->d_name);
        if (names[*count] != NULL) ++*count;
    }
    closedir(d);
    if (names == NULL) names = malloc(sizeof *names);
    if (names != NULL) qsort(names, (size_t)*count, sizeof *names, by_name);
    return names;
}

bool verify_shard_contains(int index, int shard, int shard_count) {
    return shard_count <= 1 || index % shard_count == shard - 1;
}

/* ---------------------------------------------------------------- runs */
static void run_progress(int64_t frame, int64_t last, void *context) {
    const char *label = context;
    if (frame % 10 != 0 && frame != last) return;
    fprintf(stderr, "\r\033[K%s: frame %" PRId64 "/%" PRId64, label, frame, last);
}

static void describe_divergence(const eddy_divergence *d, const char *why, char *out, size_t size) {
    if (d->component < 0) {
        snprintf(out, size, "%s", why);
        return;
    }
    snprintf(out, size,
             "first divergent frame %" PRId64 ", component %s, block %d%s; frame hash recorded "
             "%016" PRIx64 ", re-simulated %016" PRIx64,
             d->frame, eddy_component_name((eddy_component)d->component), d->block,
             d->block < 0 ? " (not known: no block hashes)" : "", d->recorded_hash, d->actual_hash);
}

/* One replay at one worker count and pin: open, verify, close. Returns false
 * when the file cannot be used (case->message says why). */
static bool corpus_run(const verify_options *o, verify_env *env, const char *path, verify_case *c,
                       bool tty) {
    eddy_world_def threading = eddy_world_def_default();
    verify_env_configure(env, &threading, c->workers, c->pin, o->hostile_fp);
    eddy_player_def def = eddy_player_def_default();
    def.worker_count = threading.worker_count;
    def.worker_start = threading.worker_start;
    def.worker_start_context = threading.worker_start_context;
    eddy_player *player = NULL;
    const double t0 = seconds_now();
    eddy_status s = eddy_player_open_file(path, &def, &player, c->message, sizeof c->message);
    bool usable = s == EDDY_OK || (s == EDDY_ERROR_TRUNCATED && player != NULL);
    if (!usable) {
        c->result = VERIFY_CASE_ERROR;
        size_t used = strlen(c->message);
        snprintf(c->message + used, sizeof c->message - used, " (%s)", eddy_status_name(s));
    } else {
        char label[512];
        snprintf(label, sizeof label, "%s, %d worker%s, pin %s", c->replay, c->workers,
                 c->workers == 1 ? "" : "s", verify_pin_name(c->pin));
        eddy_divergence d;
        s = eddy_player_verify(player, &d, tty ? run_progress : NULL, label);
        if (tty) fprintf(stderr, "\r\033[K");
        c->frames = eddy_player_info(player).frame_count;
        c->result = s == EDDY_OK ? VERIFY_CASE_PASS : VERIFY_CASE_FAIL;
        if (s == EDDY_ERROR_DIVERGED)
            describe_divergence(&d, eddy_player_error_message(player), c->message,
                                sizeof c->message);
        else if (s != EDDY_OK)
            snprintf(c->message, sizeof c->message, "%s (%s)", eddy_player_error_message(player),
                     eddy_status_name(s));
        else c->message[0] = '\0';
    }
    c->seconds = seconds_now() - t0;
    eddy_player_close(player);
    verify_env_end_run(env);
    return usable;
}

/* ---------------------------------------------------------------- output */
/* The human-readable matrix and summary: standard output, or standard error
 * when standard output carries the JUnit XML (--junit -), so that stdout
 * then holds the XML alone. */
static FILE *text_out;

static void print_header(const verify_options *o, int total, int selected) {
    fprintf(text_out, "eddy-verify %s: corpus %s, %d replay%s", eddy_version_string(), o->corpus_dir, selected,
           selected == 1 ? "" : "s");
    if (o->shard_count > 1) fprintf(text_out, " (shard %d/%d of %d)", o->shard, o->shard_count, total);
    fprintf(text_out, "\n%-32s %-5s", "replay", "pin");
    for (int i = 0; i < o->thread_count; ++i) fprintf(text_out, " %5d", o->threads[i]);
    fprintf(text_out, "\n");
    fflush(stdout);
}

static void print_row(const verify_case *cases, int n) {
    fprintf(text_out, "%-32s %-5s", cases[0].replay, verify_pin_name(cases[0].pin));
    for (int i = 0; i < n; ++i) {
        if (cases[i].result == VERIFY_CASE_PASS) fprintf(text_out, " %5s", "ok");
        else if (cases[i].result == VERIFY_CASE_FAIL) fprintf(text_out, " %5s", "FAIL");
        else fprintf(text_out, " %5s", "ERR");
    }
    fprintf(text_out, "\n");
    fflush(stdout);
}

static void print_json(const verify_options *o, const verify_case *cases, int n, int passed) {
    printf("{\n  \"corpus\": ");
    verify_json_string(stdout, o->corpus_dir);
    printf(",\n  \"shard\": %d,\n  \"shard_count\": %d,\n  \"runs\": [\n", o->shard,
           o->shard_count);
    for (int i = 0; i < n; ++i) {
        const verify_case *c = &cases[i];
        printf("    {\"replay\": ");
        verify_json_string(stdout, c->replay);
        printf(", \"workers\": %d, \"pin\": \"%s\", \"result\": \"%s\", \"seconds\": %.3f",
               c->workers, verify_pin_name(c->pin), verify_case_result_name(c->result), c->seconds);
        if (c->result != VERIFY_CASE_PASS) {
            printf(", \"message\": ");
            verify_json_string(stdout, c->message);
        }
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    printf("  ],\n  \"passed\": %d,\n  \"failed\": %d\n}\n", passed, n - passed);
}

static int write_junit(const verify_options *o, const verify_case *cases, int n) {
    char message[512];
    if (!verify_junit_write(o->junit_path, o->force, "eddy-verify", cases, n, message,
                            sizeof message)) {
        fprintf(stderr, "eddy-verify: %s\n", message);
        return VERIFY_EXIT_BAD_FILE;
    }
    return VERIFY_EXIT_OK;
}

/* ---------------------------------------------------------------- corpus */
static int check_file(const verify_options *o, verify_env *env, const char *name,
                      verify_case *cases, int *n, bool tty) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", o->corpus_dir, name);
    int status = VERIFY_EXIT_OK;
    const verify_case *failed = NULL; /* the case that found the file bad */
    for (int p = 0; p < o->pin_count; ++p) {
        verify_case *row = &cases[*n];
        for (int t = 0; t < o->thread_count; ++t) {
            verify_case *c = &cases[(*n)++];
            memset(c, 0, sizeof *c);
            snprintf(c->replay, sizeof c->replay, "%s", name);
            c->workers = o->threads[t];
            c->pin = o->pins[p];
            if (status == VERIFY_EXIT_BAD_FILE) {
                /* The same file at another worker count: the same answer. */
                c->result = VERIFY_CASE_ERROR;
                snprintf(c->message, sizeof c->message, "%s", failed->message);
                continue;
            }
            if (!corpus_run(o, env, path, c, tty)) {
                status = VERIFY_EXIT_BAD_FILE;
                failed = c;
            }
            else if (c->result != VERIFY_CASE_PASS) status = VERIFY_EXIT_MISMATCH;
        }
        if (!o->json) print_row(row, o->thread_count);
    }
    return status;
}

static void print_failures(const verify_case *cases, int n) {
    for (int i = 0; i < n; ++i) {
        const verify_case *c = &cases[i];
        if (c->result == VERIFY_CASE_PASS) continue;
        fprintf(text_out, "%s %s at %d worker%s, pin %s: %s\n",
               c->result == VERIFY_CASE_FAIL ? "FAIL" : "ERROR", c->replay, c->workers,
               c->workers == 1 ? "" : "s", verify_pin_name(c->pin), c->message);
    }
}

int verify_corpus(const verify_options *o, verify_env *env) {
    char message[4200];
    const bool junit_stdout = o->junit_path != NULL && strcmp(o->junit_path, "-") == 0;
    if (junit_stdout && o->json) {
        fprintf(stderr, "eddy-verify: --json and --junit - both want standard output; "
                        "write one of them to a file\n");
        return VERIFY_EXIT_USAGE;
    }
    text_out = junit_stdout ? stderr : stdout;
    if (o->junit_path != NULL &&
        !verify_output_allowed(o->junit_path, o->force, message, sizeof message)) {
        fprintf(stderr, "eddy-verify: %s\n", message);
        return VERIFY_EXIT_USAGE;
    }
    int total = 0;
    char **names = corpus_list(o->corpus_dir, &total, message, sizeof message);
    if (names == NULL) {
        fprintf(stderr, "eddy-verify: %s\n", message);
        return VERIFY_EXIT_USAGE;
    }
    int selected = 0;
    for (int i = 0; i < total; ++i) selected += verify_shard_contains(i, o->shard, o->shard_count);
    const size_t runs = (size_t)selected * (size_t)o->thread_count * (size_t)o->pin_count;
    verify_case *cases = calloc(runs + 1, sizeof *cases);
    int worst = VERIFY_EXIT_OK, n = 0, passed = 0;
    if (cases == NULL) {
        fprintf(stderr, "eddy-verify: out of memory for %zu runs\n", runs);
        worst = VERIFY_EXIT_MISMATCH;
    } else {
        if (!o->json) print_header(o, total, selected);
        const bool tty = verify_progress_on_terminal();
        for (int i = 0; i < total; ++i) {
            if (!verify_shard_contains(i, o->shard, o->shard_count)) continue;
            int status = check_file(o, env, names[i], cases, &n, tty);
            if (status > worst) worst = status;
        }
        for (int i = 0; i < n; ++i) passed += cases[i].result == VERIFY_CASE_PASS;
        if (o->json) {
            print_json(o, cases, n, passed);
        } else {
            print_failures(cases, n);
            fprintf(text_out, "eddy-verify: %d passed, %d failed%s\n", passed, n - passed,
                   passed < n ? " (what to do about a failure: docs/verify.md)" : "");
        }
        if (o->junit_path != NULL) {
            int status = write_junit(o, cases, n);
            if (status > worst) worst = status;
        }
    }
    for (int i = 0; i < total; ++i) free(names[i]);
    free(names);
    free(cases);
    return worst;
}

#else /* built without replay support */

bool verify_shard_contains(int index, int shard, int shard_count) {
    return shard_count <= 1 || index % shard_count == shard - 1;
}

int verify_corpus(const verify_options *o, verify_env *env) {
    (void)env;
    fprintf(stderr,
            "eddy-verify: --corpus %s: this eddy-verify was not built with replay support "
            "(it needs libeddy_replay and zstd; see docs/verify.md)\n",
            o->corpus_dir);
    return VERIFY_EXIT_USAGE;
}

#endif
