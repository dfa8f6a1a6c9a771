/* SPDX-License-Identifier: MIT */
/* Helpers shared by eddy's command-line tools (eddy-demo, eddy-bench). */
#ifndef EDDY_CLI_COMMON_H
#define EDDY_CLI_COMMON_H

#include "eddy/types.h"

#include <stdbool.h>
#include <stddef.h>

enum { EDDY_CLI_MAX_THREADS = 64 };

/* A decimal integer in [min, max] with nothing else in text. */
bool eddy_cli_parse_int(const char *text, int min, int max, int *out);
/* Worker counts like "1,2" or "1-4" or "1,2,4-8" into threads[0..*count). */
bool eddy_cli_threads_parse(const char *text, int *threads, int *count, char *err, size_t err_size);
bool eddy_cli_threads_parse_entry(const char *entry, int *lo, int *hi, char *err, size_t err_size);
bool eddy_cli_threads_append(int *threads, int *count, int value, char *err, size_t err_size);
/* The value of option `name` at argv[*i] ("--name value" or "--name=value"). */
const char *eddy_cli_option_value(int argc, char **argv, int *i, const char *name, bool *missing);
/* The CPU's model name from /proc/cpuinfo, or "unknown". */
void eddy_cli_machine_cpu_model(char *out, size_t out_size);

/* The command-line names of the world definition's choices, one table each:
 * "euler", "heun", "stretch-ab2" (eddy_vorton_step) and "multipole",
 * "original" (eddy_treecode_traversal). parse returns false for any other
 * text and leaves *out alone. */
bool eddy_cli_vorton_step_parse(const char *text, eddy_vorton_step *out);
const char *eddy_cli_vorton_step_name(eddy_vorton_step step);
bool eddy_cli_treecode_parse(const char *text, eddy_treecode_traversal *out);
const char *eddy_cli_treecode_name(eddy_treecode_traversal traversal);

/* "--version": prints "<tool> <eddy version> (hash-spec N)" on stdout. */
bool eddy_cli_is_version(const char *arg);
void eddy_cli_print_version(const char *tool);
/* A progress line on stderr, only when stderr is a terminal, at most ten
 * times a second (and always for the last step); progress_done clears it. */
void eddy_cli_progress(const char *label, long long done, long long total);
void eddy_cli_progress_done(void);

#endif
