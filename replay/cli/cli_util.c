/* SPDX-License-Identifier: MIT */
/* eddy-replay: option parsing, exit codes, progress, opening replays. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("eddy-replay: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int cli_exit_code(eddy_status s) {
    switch (s) {
    case EDDY_OK: return EXIT_OK;
    case EDDY_ERROR_DIVERGED: return EXIT_DIVERGED;
    case EDDY_ERROR_CORRUPT: case EDDY_ERROR_TRUNCATED: case EDDY_ERROR_VERSION:
    case EDDY_ERROR_FINGERPRINT: case EDDY_ERROR_NAN: case EDDY_ERROR_INVALID_DEF:
        return EXIT_INVALID_FILE;
    case EDDY_ERROR_INVALID_ARGUMENT: case EDDY_ERROR_NOT_FOUND: return EXIT_USAGE;
    case EDDY_ERROR_IO: case EDDY_ERROR_OUT_OF_MEMORY: case EDDY_ERROR_WRONG_STATE:
    case EDDY_ERROR_THREAD: case EDDY_ERROR_CAPACITY:
        return EXIT_IO;
    }
    return EXIT_IO;
}

/* ---------------------------------------------------------------- parsing */
static bool parse_int(const char *text, int64_t lo, int64_t hi, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int bad_value(const char *option, const char *value, const char *expected) {
    return cli_fail(EXIT_USAGE, "%s %s: expected %s (try --help)", option, value, expected);
}

/* Options that take a value, and flags (no value). An argument that is
 * neither is reported as unknown, never as needing a value. */
static const char *const k_valued[] = {
    "--scene", "-o", "--output", "--format", "--view", "--pin", "--threads", "--chunk",
    "--level", "--size", "--frames", "--frame", "--keyframe-every", "--every", "--sheet",
    "--against-threads", "--camera", "--color", "--range", "--extinction", "--top",
    "--vdb", "--region", "--resolution",
};

static bool is_valued(const char *name) {
    for (size_t k = 0; k < sizeof k_valued / sizeof k_valued[0]; ++k)
        if (!strcmp(name, k_valued[k])) return true;
    return false;
}

static int int_value(cli_options *o, const char *name, const char *v) {
    int64_t n = 0, lo = 0, hi = INT32_MAX;
    if (!strcmp(name, "--threads") || !strcmp(name, "--against-threads")) lo = 1, hi = EDDY_MAX_WORKERS;
    else if (!strcmp(name, "--chunk")) lo = 1, hi = 4096;
    else if (!strcmp(name, "--level")) lo = 1, hi = 19;
    else if (!strcmp(name, "--size")) lo = 16, hi = 8192;
    else if (!strcmp(name, "--frames") || !strcmp(name, "--every")) lo = 1;
    else if (!strcmp(name, "--sheet")) lo = 1, hi = 64;
    else if (!strcmp(name, "--resolution")) lo = 1, hi = 1024;
    else if (!strcmp(name, "--top")) hi = 1000;
    if (!parse_int(v, lo, hi, &n)) return bad_value(name, v, "an integer in range");
    if (!strcmp(name, "--threads")) o->threads = (int)n;
    else if (!strcmp(name, "--against-threads")) o->against_threads = (int)n;
    else if (!strcmp(name, "--chunk")) o->chunk = (int)n;
    else if (!strcmp(name, "--level")) o->level = (int)n;
    else if (!strcmp(name, "--size")) o->size = (int)n;
    else if (!strcmp(name, "--frames")) o->frames = n;
    else if (!strcmp(name, "--frame")) o->frame = n;
    else if (!strcmp(name, "--every")) o->every = (int)n;
    else if (!strcmp(name, "--sheet")) o->sheet = (int)n;
    else if (!strcmp(name, "--resolution")) o->resolution = (int)n;
    else if (!strcmp(name, "--top")) o->top = (int)n;
    else o->keyframe_every = (int)n;
    return EXIT_OK;
}

static int option_value(cli_options *o, const char *name, const char *v) {
    if (!strcmp(name, "--scene")) o->scene = v;
    else if (!strcmp(name, "-o") || !strcmp(name, "--output")) o->output = v;
    else if (!strcmp(name, "--format")) o->format = v;
    else if (!strcmp(name, "--view")) o->view = v;
    else if (!strcmp(name, "--camera")) o->camera = v;
    else if (!strcmp(name, "--vdb")) o->vdb_dir = v;
    else if (!strcmp(name, "--region")) o->region = v;
    else if (!strcmp(name, "--color")) o->color = v;
    else if (!strcmp(name, "--range")) {
        char *end;
        o->density_range = strtof(v, &end);
        if (end == v || *end || !(o->density_range > 0.0f) || !(o->density_range < 1e30f))
            return bad_value(name, v, "a positive number");
    } else if (!strcmp(name, "--extinction")) {
        char *end;
        o->extinction = strtof(v, &end);
        if (end == v || *end || !(o->extinction > 0.0f) || !(o->extinction < 1e30f))
            return bad_value(name, v, "a positive number");
    } else if (!strcmp(name, "--pin")) {
        if (!eddy_pin_parse(v, &o->pin)) return bad_value(name, v, "none, core or pu");
    } else {
        return int_value(o, name, v);
    }
    return EXIT_OK;
}

static bool is_flag(const char *a, cli_options *o) {
    if (!strcmp(a, "--strict")) o->strict = true;
    else if (!strcmp(a, "--no-block-hashes")) o->no_block_hashes = true;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o->quiet = true;
    else if (!strcmp(a, "--force") || !strcmp(a, "-f")) o->force = true;
    else if (!strcmp(a, "--json")) o->json = true;
    else if (!strcmp(a, "--volume")) o->volume = true;
    else return false;
    return true;
}

int cli_parse(int argc, char **argv, cli_options *o) {
    memset(o, 0, sizeof *o);
    o->frames = o->frame = -1;
    o->threads = 1;
    o->keyframe_every = o->chunk = o->level = -1;
    o->size = 512;
    o->top = 10;
    o->pin = EDDY_PIN_NONE;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (is_flag(a, o)) continue;
        if (a[0] != '-' || a[1] == '\0') { /* a file; "-" is standard input */
            if (o->file_count == 2) return cli_fail(EXIT_USAGE, "too many files: %s", a);
            o->files[o->file_count++] = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        char name[64];
        const char *value;
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (!is_valued(name)) return cli_fail(EXIT_USAGE, "unknown option %s (try --help)", name);
        if (eq) {
            value = eq + 1;
        } else {
            if (i + 1 >= argc) return cli_fail(EXIT_USAGE, "%s needs a value (try --help)", a);
            value = argv[++i];
        }
        int code = option_value(o, name, value);
        if (code != EXIT_OK) return code;
    }
    return EXIT_OK;
}

int cli_check_output(const char *path, const cli_options *o) {
    if (o->force || !strcmp(path, "-") || access(path, F_OK) != 0) return EXIT_OK;
    return cli_fail(EXIT_USAGE, "%s exists; not overwriting it (--force allows it)", path);
}

/* ---------------------------------------------------------------- progress */
static bool g_progress_shown;

void progress_show(const char *what, int64_t done, int64_t total) {
    static int tty = -1;
    if (tty < 0) tty = isatty(STDERR_FILENO);
    if (!tty) return;
    fprintf(stderr, "\r%s frame %lld / %lld", what, (long long)done, (long long)total);
    fflush(stderr);
    g_progress_shown = true;
}

void progress_done(void) {
    if (!g_progress_shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    g_progress_shown = false;
}

void progress_callback(int64_t frame, int64_t last_frame, void *context) {
    progress_show(context, frame, last_frame);
}

/* ---------------------------------------------------------------- open */
static int pinning(const cli_options *o, eddy_pinner **pinner, eddy_player_def *pd) {
    *pinner = NULL;
    if (o->pin != EDDY_PIN_NONE) {
        char why[256];
        *pinner = eddy_pinner_create(o->pin, why, sizeof why);
        if (!*pinner) fprintf(stderr, "eddy-replay: %s; running unpinned\n", why);
    }
    eddy_world_def threading = eddy_world_def_default();
    eddy_pin_configure(&threading, o->threads, *pinner);
    pd->worker_count = threading.worker_count;
    pd->worker_start = threading.worker_start;
    pd->worker_start_context = threading.worker_start_context;
    return EXIT_OK;
}

static eddy_status read_stdin(void *buffer, size_t capacity, size_t *got, void *context) {
    (void)context;
    *got = fread(buffer, 1, capacity, stdin);
    return ferror(stdin) ? EDDY_ERROR_IO : EDDY_OK;
}

int cli_open(const char *path, const cli_options *o, eddy_pinner **pinner, eddy_player **player,
             bool *truncated) {
    eddy_player_def pd = eddy_player_def_default();
    pd.strict_fingerprint = o->strict;
    pinning(o, pinner, &pd);
    char message[600];
    *truncated = false;
    eddy_status s = strcmp(path, "-") != 0
                        ? eddy_player_open_file(path, &pd, player, message, sizeof message)
                        : eddy_player_open_read(read_stdin, NULL, &pd, player, message, sizeof message);
    if (s == EDDY_ERROR_TRUNCATED && *player) {
        *truncated = true;
        return EXIT_OK;
    }
    if (s != EDDY_OK) return cli_fail(cli_exit_code(s), "%s: %s (%s)", path, message, eddy_status_name(s));
    const char *warnings = eddy_player_info(*player).warnings;
    if (warnings[0] && !o->quiet) fprintf(stderr, "eddy-replay: %s: note: %s\n", path, warnings);
    return EXIT_OK;
}
