/* SPDX-License-Identifier: MIT */
/* Small helpers shared by eddy's command-line tools (demo, bench): number and
 * worker-list parsing, option values, the names of the definition's choices,
 * the CPU's name. Not part of the library. */
#include "cli_common.h"

#include "eddy/eddy.h"
#include "eddy/task.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Parse a decimal integer in [min, max] with nothing else in text. */
/* Names indexed by enum value (both enums count from 0). */
static const char *const k_vorton_steps[] = {"euler", "heun", "stretch-ab2", "heun-adaptive"};
static const char *const k_treecodes[] = {"multipole", "original"};
enum { VORTON_STEP_NAMES = 4, TREECODE_NAMES = 2 };

static int name_index(const char *text, const char *const *names, int count)
{
    for (int k = 0; text != NULL && k < count; ++k)
        if (strcmp(text, names[k]) == 0) return k;
    return -1;
}

bool eddy_cli_vorton_step_parse(const char *text, eddy_vorton_step *out)
{
    const int k = name_index(text, k_vorton_steps, VORTON_STEP_NAMES);
    if (k < 0) return false;
    *out = (eddy_vorton_step)k;
    return true;
}

const char *eddy_cli_vorton_step_name(eddy_vorton_step step)
{
    return (int)step >= 0 && (int)step < VORTON_STEP_NAMES ? k_vorton_steps[step] : "?";
}

bool eddy_cli_treecode_parse(const char *text, eddy_treecode_traversal *out)
{
    const int k = name_index(text, k_treecodes, TREECODE_NAMES);
    if (k < 0) return false;
    *out = (eddy_treecode_traversal)k;
    return true;
}

const char *eddy_cli_treecode_name(eddy_treecode_traversal traversal)
{
    return (int)traversal >= 0 && (int)traversal < TREECODE_NAMES ? k_treecodes[traversal] : "?";
}

bool eddy_cli_parse_int(const char *text, int min, int max, int *out)
{
    if (text == NULL || *text < '0' || *text > '9') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < min || value > max) {
        return false;
    }
    *out = (int)value;
    return true;
}

bool eddy_cli_threads_parse_entry(const char *entry, int *lo, int *hi, char *err, size_t err_size)
{
    char first[16], second[16];
    const char *dash = strchr(entry, '-');
    size_t first_len = dash != NULL ? (size_t)(dash - entry) : strlen(entry);
    if (first_len == 0 || first_len >= sizeof first ||
        (dash != NULL && strlen(dash + 1) >= sizeof second)) {
        snprintf(err, err_size, "'%s' is not a worker count or a range A-B", entry);
        return false;
    }
    memcpy(first, entry, first_len);
    first[first_len] = '\0';
    snprintf(second, sizeof second, "%s", dash != NULL ? dash + 1 : first);
    if (!eddy_cli_parse_int(first, 1, EDDY_MAX_WORKERS, lo) ||
        !eddy_cli_parse_int(second, 1, EDDY_MAX_WORKERS, hi)) {
        snprintf(err, err_size, "'%s': worker counts are whole numbers from 1 to %d", entry,
                 EDDY_MAX_WORKERS);
        return false;
    }
    if (*lo > *hi) {
        snprintf(err, err_size, "range '%s' runs backwards", entry);
        return false;
    }
    return true;
}

bool eddy_cli_threads_append(int *threads, int *count, int value, char *err, size_t err_size)
{
    for (int i = 0; i < *count; ++i) {
        if (threads[i] == value) {
            snprintf(err, err_size, "worker count %d appears twice", value);
            return false;
        }
    }
    if (*count >= EDDY_CLI_MAX_THREADS) {
        snprintf(err, err_size, "more than %d worker counts", EDDY_CLI_MAX_THREADS);
        return false;
    }
    threads[(*count)++] = value;
    return true;
}

/* "1,2,4-8" -> {1,2,4,5,6,7,8}, in the order given. */
bool eddy_cli_threads_parse(const char *text, int *threads, int *count, char *err, size_t err_size)
{
    char buffer[256];
    *count = 0;
    if (strlen(text) >= sizeof buffer) {
        snprintf(err, err_size, "the list is too long");
        return false;
    }
    snprintf(buffer, sizeof buffer, "%s", text);
    char *entry = buffer;
    for (;;) {
        char *comma = strchr(entry, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (*entry == '\0') {
            snprintf(err, err_size, "empty entry (lists look like 1,2 or 1-4 or 1,2,4-8)");
            return false;
        }
        int lo = 0, hi = 0;
        if (!eddy_cli_threads_parse_entry(entry, &lo, &hi, err, err_size)) {
            return false;
        }
        for (int n = lo; n <= hi; ++n) {
            if (!eddy_cli_threads_append(threads, count, n, err, err_size)) {
                return false;
            }
        }
        if (comma == NULL) {
            return true;
        }
        entry = comma + 1;
    }
}

const char *eddy_cli_option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0) {
        return NULL;
    }
    if (arg[len] == '=') {
        return arg + len + 1;
    }
    if (arg[len] != '\0') {
        return NULL;
    }
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* CPU model from /proc/cpuinfo ("model name"), else "unknown". */
void eddy_cli_machine_cpu_model(char *out, size_t out_size)
{
    snprintf(out, out_size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            const char *start = colon + 1;
            while (*start == ' ' || *start == '\t') {
                ++start;
            }
            snprintf(out, out_size, "%s", start);
            out[strcspn(out, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}


bool eddy_cli_is_version(const char *arg)
{
    return strcmp(arg, "--version") == 0;
}

void eddy_cli_print_version(const char *tool)
{
    printf("%s %s (hash-spec %d)\n", tool, eddy_version_string(), EDDY_HASH_SPEC_VERSION);
}

static bool g_progress_shown;

void eddy_cli_progress(const char *label, long long done, long long total)
{
    static int tty = -1;
    static double last;
    if (tty < 0) {
        tty = isatty(STDERR_FILENO);
    }
    if (!tty) {
        return;
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double now = (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
    if (now - last < 0.1 && done < total) {
        return;
    }
    last = now;
    fprintf(stderr, "\r\033[K%s: %lld / %lld", label, done, total);
    fflush(stderr);
    g_progress_shown = true;
}

void eddy_cli_progress_done(void)
{
    if (g_progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        g_progress_shown = false;
    }
}
