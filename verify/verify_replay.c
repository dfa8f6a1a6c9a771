/* SPDX-License-Identifier: MIT */
/* --replay FILE: re-simulate a replay at every worker count and pin policy
 * asked for and check every recorded frame hash (include/eddy/replay.h,
 * docs/replay.md). The player locates a divergence to a block itself when the
 * file holds block hashes (the recorder's default).
 *
 * Exit codes as for goldens: 0 every run matched, 1 a run diverged or could
 * not step, 3 the file cannot be used (missing, damaged, another format or
 * hash-spec version, an incompatible build). A file cut short (a recorder
 * that was killed) is checked up to its last complete chunk, with a warning. */
#include "verify.h"

#if defined(EDDY_VERIFY_HAVE_REPLAY)

#include "eddy/replay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct replay_run {
    int workers;
    verify_pin pin;
    eddy_status status;
    eddy_divergence divergence;
    char message[512];
} replay_run;

static void replay_progress(int64_t frame, int64_t last, void *context) {
    const replay_run *run = context;
    if (frame % 10 != 0 && frame != last) return;
    fprintf(stderr, "\r\033[Kreplay, %d worker%s, pin %s: frame %" PRId64 "/%" PRId64,
            run->workers, run->workers == 1 ? "" : "s", verify_pin_name(run->pin), frame, last);
}

/* "-": standard input, read to its end once and kept for every run. */
static bool read_stdin(uint8_t **data, size_t *size) {
    size_t capacity = 1 << 20;
    *size = 0;
    *data = malloc(capacity);
    while (*data != NULL) {
        *size += fread(*data + *size, 1, capacity - *size, stdin);
        if (*size < capacity) return !ferror(stdin);
        uint8_t *grown = capacity <= SIZE_MAX / 2 ? realloc(*data, capacity * 2) : NULL;
        if (grown == NULL) free(*data);
        *data = grown;
        capacity *= 2;
    }
    return false;
}

static eddy_status open_path(const char *path, const eddy_player_def *def, eddy_player **player,
                             char *message, size_t size) {
    static uint8_t *input;
    static size_t input_size;
    static bool input_ok;
    if (strcmp(path, "-") != 0) return eddy_player_open_file(path, def, player, message, size);
    if (input == NULL && !input_ok) input_ok = read_stdin(&input, &input_size);
    if (!input_ok) {
        snprintf(message, size, "cannot read the replay from standard input");
        return EDDY_ERROR_IO;
    }
    return eddy_player_open_memory(input, input_size, def, player, message, size);
}

/* Open the file with the run's threading; 3 if the file is unusable. */
static int replay_open(const verify_options *o, verify_env *env, replay_run *run,
                       eddy_player **player) {
    eddy_world_def threading = eddy_world_def_default();
    verify_env_configure(env, &threading, run->workers, run->pin, o->hostile_fp);
    eddy_player_def def = eddy_player_def_default();
    def.worker_count = threading.worker_count;
    def.worker_start = threading.worker_start;
    def.worker_start_context = threading.worker_start_context;
    eddy_status s = open_path(o->replay_path, &def, player, run->message, sizeof run->message);
    if (s == EDDY_OK || (s == EDDY_ERROR_TRUNCATED && *player != NULL)) return VERIFY_EXIT_OK;
    fprintf(stderr, "eddy-verify: %s: %s (%s)\n", o->replay_path, run->message,
            eddy_status_name(s));
    return VERIFY_EXIT_BAD_FILE;
}

static void replay_print_info(const verify_options *o, const eddy_player *player) {
    eddy_replay_info info = eddy_player_info(player);
    if (o->json) return;
    printf("replay %s: frames %" PRId64 "..%" PRId64 ", recorded by eddy %s (%s, %s), hash-spec "
           "%u, block hashes %s%s\n", o->replay_path, info.first_frame, info.last_frame,
           info.fingerprint.eddy_version, eddy_replay_arch_name(info.fingerprint.arch),
           info.fingerprint.compiler, info.fingerprint.hash_spec_version,
           info.block_hashes ? "yes" : "no", info.complete ? "" : ", CUT SHORT");
    if (info.warnings[0] != '\0') printf("  warning: %s\n", info.warnings);
}

/* One run: open, verify every frame, close. */
static int replay_run_one(const verify_options *o, verify_env *env, replay_run *run, bool first) {
    eddy_player *player = NULL;
    int status = replay_open(o, env, run, &player);
    if (status == VERIFY_EXIT_OK) {
        if (first) replay_print_info(o, player);
        bool tty = verify_progress_on_terminal();
        run->status = eddy_player_verify(player, &run->divergence, tty ? replay_progress : NULL, run);
        if (tty) fprintf(stderr, "\r\033[K");
        snprintf(run->message, sizeof run->message, "%s", eddy_player_error_message(player));
    }
    eddy_player_close(player);
    verify_env_end_run(env);
    return status;
}

static void replay_print_failure(const replay_run *run) {
    const eddy_divergence *d = &run->divergence;
    printf("FAIL replay at %d worker%s, pin %s: ", run->workers, run->workers == 1 ? "" : "s",
           verify_pin_name(run->pin));
    if (run->status != EDDY_ERROR_DIVERGED || d->component < 0) {
        printf("%s (%s)\n", run->message, eddy_status_name(run->status));
        return;
    }
    printf("first divergent frame %" PRId64 ", component %s, block %d%s\n", d->frame,
           eddy_component_name((eddy_component)d->component), d->block,
           d->block < 0 ? " (not known: the file holds no block hashes)" : "");
    printf("  frame hash: recorded %016" PRIx64 ", actual %016" PRIx64 "\n", d->recorded_hash,
           d->actual_hash);
    printf("  %s hash: recorded %016" PRIx64 ", actual %016" PRIx64 "\n",
           eddy_component_name((eddy_component)d->component), d->recorded_component,
           d->actual_component);
}

static void replay_print_row(const replay_run *runs, int n, verify_pin pin) {
    printf("%-20s %-5s", "replay", verify_pin_name(pin));
    for (int i = 0; i < n; ++i) {
        if (runs[i].pin != pin) continue;
        if (runs[i].status == EDDY_OK) printf(" %5s", "ok");
        else if (runs[i].status == EDDY_ERROR_DIVERGED) printf("  F%-3" PRId64, runs[i].divergence.frame);
        else printf(" %5s", "ERR");
    }
    printf("\n");
    fflush(stdout);
}

static void replay_print_json(const verify_options *o, const replay_run *runs, int n, int passed) {
    printf("{\n  \"replay\": ");
    verify_json_string(stdout, o->replay_path);
    printf(",\n  \"runs\": [\n");
    for (int i = 0; i < n; ++i) {
        const replay_run *r = &runs[i];
        printf("    {\"workers\": %d, \"pin\": \"%s\", \"result\": \"%s\", \"status\": \"%s\"",
               r->workers, verify_pin_name(r->pin), r->status == EDDY_OK ? "pass" : "fail",
               eddy_status_name(r->status));
        if (r->status == EDDY_ERROR_DIVERGED) {
            int c = r->divergence.component;
            printf(", \"frame\": %" PRId64 ", \"component\": \"%s\", \"block\": %d, "
                   "\"recorded_hash\": \"%016" PRIx64 "\", \"actual_hash\": \"%016" PRIx64 "\"",
                   r->divergence.frame, c >= 0 ? eddy_component_name((eddy_component)c) : "input",
                   r->divergence.block, r->divergence.recorded_hash, r->divergence.actual_hash);
        }
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    printf("  ],\n  \"passed\": %d,\n  \"failed\": %d\n}\n", passed, n - passed);
}

static void replay_print_header(const verify_options *o) {
    if (o->json) return;
    printf("%-20s %-5s", "replay", "pin");
    for (int i = 0; i < o->thread_count; ++i) printf(" %5d", o->threads[i]);
    printf("\n");
}

int verify_replay(const verify_options *o, verify_env *env) {
    static replay_run runs[VERIFY_MAX_THREADS * VERIFY_MAX_PINS];
    int n = 0, passed = 0;
    for (int p = 0; p < o->pin_count; ++p) {
        for (int t = 0; t < o->thread_count; ++t, ++n) {
            runs[n] = (replay_run){.workers = o->threads[t], .pin = o->pins[p]};
            if (replay_run_one(o, env, &runs[n], n == 0) != VERIFY_EXIT_OK)
                return VERIFY_EXIT_BAD_FILE;
            if (n == 0) replay_print_header(o);
            if (runs[n].status == EDDY_OK) ++passed;
        }
        if (!o->json) replay_print_row(runs, n, o->pins[p]);
    }
    if (o->json) {
        replay_print_json(o, runs, n, passed);
    } else {
        for (int i = 0; i < n; ++i)
            if (runs[i].status != EDDY_OK) replay_print_failure(&runs[i]);
        printf("eddy-verify: %d passed, %d failed\n", passed, n - passed);
    }
    return passed == n ? VERIFY_EXIT_OK : VERIFY_EXIT_MISMATCH;
}

#else /* built without replay support */

int verify_replay(const verify_options *o, verify_env *env) {
    (void)env;
    fprintf(stderr, "eddy-verify: --replay %s: this eddy-verify was not built with replay support "
            "(it needs libeddy_replay and zstd; see docs/verify.md)\n", o->replay_path);
    return VERIFY_EXIT_USAGE;
}

#endif
