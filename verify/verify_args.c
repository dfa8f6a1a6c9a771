/* SPDX-License-Identifier: MIT */
/* eddy-verify command line (docs/verify.md).
 *
 * Every option takes "--name VALUE" or "--name=VALUE". Lists are resolved
 * here, once: scene names against the registry, worker counts into numbers,
 * pin policies into verify_pin, so the rest of the tool never sees text. */
#include "verify.h"

#include "scenes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef EDDY_VERIFY_GOLDEN_DIR
#define EDDY_VERIFY_GOLDEN_DIR "golden"
#endif

/* The matrix CI runs (docs/verify.md), also the default. */
#define VERIFY_DEFAULT_THREADS "1,2,3,4,8,16"

void verify_usage(FILE *out) {
    fprintf(out,
            "usage: eddy-verify [--scene NAME|all] [--frames N] [--threads LIST]\n"
            "                   [--pin none|core|pu|all] [--golden DIR] [--bless]\n"
            "                   [--replay FILE] [--hostile-fp] [--denormals flush|keep]\n"
            "                   [--treecode multipole|original] [--json] [--list] [--help]\n"
            "       eddy-verify --corpus DIR [--shard K/N] [--junit FILE] [--force] [--threads LIST]\n"
            "\n"
            "Runs each scene at each worker count and pin policy, hashes every frame and\n"
            "compares the trace with DIR/<scene>.golden; prints a pass/fail matrix and, for\n"
            "a failure, the first divergent frame, component and block.\n"
            "\n"
            "  --scene NAMES   a scene, a comma-separated list, or all (default all)\n"
            "  --frames N      frames to check (default: all the golden holds; when\n"
            "                  blessing, the scene's default_frames)\n"
            "  --threads LIST  worker counts, e.g. 1-16 or 1,2,7,16 (default %s)\n"
            "  --pin POLICY    none, core, pu or all (= none,core,pu); a comma list works\n"
            "                  too (default none)\n"
            "  --golden DIR    golden directory (default: <prefix>/share/eddy/golden beside\n"
            "                  an installed eddy-verify, else the source tree's %s)\n"
            "  --bless         rewrite the goldens from a 1-worker unpinned run and print\n"
            "                  what changed (only after an intended change: docs/determinism.md)\n"
            "  --replay FILE   check a replay's embedded hashes at every worker count and pin\n"
            "                  (- reads it from standard input)\n"
            "  --corpus DIR    check every replay in DIR (*.eddyr, *.eddyreplay) at every worker\n"
            "                  count and pin\n"
            "  --shard K/N     only the files of shard K of N: the i-th file by name (from 0)\n"
            "                  is in shard (i mod N) + 1\n"
            "  --junit FILE    also write JUnit XML (one test case per replay x pin x worker\n"
            "                  count) to FILE, - for standard output (with --corpus)\n"
            "  --force         overwrite an existing --junit FILE\n"
            "  --hostile-fp    step from a thread in round-toward-zero with FTZ/DAZ on and\n"
            "                  start every worker in that mode (the result must not change)\n"
            "  --denormals D   run the worlds with flush_denormals = true (flush) or false\n"
            "                  (keep); default: eddy's default (keep). The goldens must\n"
            "                  match either way (docs/determinism.md, denormals)\n"
            "  --treecode T    step every scene with this treecode traversal: multipole\n"
            "                  (accurate, the default) or original (the seed's; its\n"
            "                  goldens are in golden/original: --golden golden/original)\n"
            "  --json          one JSON object on stdout instead of the matrix\n"
            "  --list          list the scenes and their default frames\n"
            "  --help          this text\n"
            "  --synctest N    rollback check instead of goldens: every frame, restore the\n"
            "                  state of N frames ago and re-simulate to now (--frames\n"
            "                  default 60); a mismatch names frame, component and block\n"
            "  --hash-log FILE write the hash log (a hash tree per frame) of one scene at one\n"
            "                  worker count (the first of --scene and --threads)\n"
            "  --desync A,B    compare two hash logs written on two machines: the first frame\n"
            "                  whose roots differ, then the component and block, by the\n"
            "                  search two peers would run (docs/desync.md)\n"
            "  --version       eddy version and hash-spec version\n"
            "  --mutate WHAT   TEST ONLY: break determinism on purpose to prove the check\n"
            "                  fails: reduction (reduction order follows the worker count),\n"
            "                  fp-mode (workers keep their own FP mode; use with\n"
            "                  --hostile-fp) or restore (a restore keeps the world's flow\n"
            "                  grid; use with --synctest)\n"
            "\n"
            "exit: 0 all match, 1 a mismatch, 2 usage, 3 missing, unreadable or bad golden\n"
            "      or replay file (never a divergence)\n"
            "after a failure: docs/verify.md\n",
            VERIFY_DEFAULT_THREADS, EDDY_VERIFY_GOLDEN_DIR);
}

const char *verify_pin_name(verify_pin pin) {
    switch (pin) {
    case VERIFY_PIN_NONE: return "none";
    case VERIFY_PIN_CORE: return "core";
    case VERIFY_PIN_PU: return "pu";
    }
    return "?";
}

const char *verify_denormals_name(verify_denormals denormals) {
    switch (denormals) {
    case VERIFY_DENORMALS_DEFAULT: return "default";
    case VERIFY_DENORMALS_FLUSH: return "flush";
    case VERIFY_DENORMALS_KEEP: return "keep";
    }
    return "?";
}

static int usage_error(const char *format, ...) VERIFY_PRINTF_LIKE(1, 2);

static int usage_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fprintf(stderr, "eddy-verify: ");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n(eddy-verify --help for usage)\n");
    va_end(args);
    return VERIFY_EXIT_USAGE;
}

/* A decimal integer in [min, max] and nothing else. */
static bool parse_int(const char *text, int min, int max, int *out) {
    if (text == NULL || *text < '0' || *text > '9') return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < min || value > max) return false;
    *out = (int)value;
    return true;
}

/* Split a comma list in place into at most max entries; false on an empty entry. */
static int split_commas(char *text, char **items, int max) {
    int n = 0;
    for (char *item = text; item != NULL;) {
        char *comma = strchr(item, ',');
        if (comma != NULL) *comma = '\0';
        if (*item == '\0' || n == max) return -1;
        items[n++] = item;
        item = comma != NULL ? comma + 1 : NULL;
    }
    return n;
}

/* "N" or "A-B" appended to o->threads; duplicates refused. */
static bool threads_add_entry(const char *entry, verify_options *o) {
    char first[16];
    const char *dash = strchr(entry, '-');
    size_t len = dash != NULL ? (size_t)(dash - entry) : strlen(entry);
    if (len == 0 || len >= sizeof first) return false;
    memcpy(first, entry, len);
    first[len] = '\0';
    int lo = 0, hi = 0;
    if (!parse_int(first, 1, EDDY_MAX_WORKERS, &lo)) return false;
    if (!parse_int(dash != NULL ? dash + 1 : first, 1, EDDY_MAX_WORKERS, &hi)) return false;
    if (hi < lo) return false;
    for (int n = lo; n <= hi; ++n) {
        for (int k = 0; k < o->thread_count; ++k)
            if (o->threads[k] == n) return false;
        if (o->thread_count == VERIFY_MAX_THREADS) return false;
        o->threads[o->thread_count++] = n;
    }
    return true;
}

static int parse_threads(const char *text, verify_options *o) {
    char buffer[512];
    char *items[VERIFY_MAX_THREADS];
    snprintf(buffer, sizeof buffer, "%s", text);
    int n = split_commas(buffer, items, VERIFY_MAX_THREADS);
    o->thread_count = 0;
    for (int i = 0; i < n; ++i)
        if (!threads_add_entry(items[i], o)) n = -1;
    if (n <= 0)
        return usage_error("--threads '%s': expected worker counts 1-64 like 1-16 or 1,2,7,16, "
                           "each once", text);
    return VERIFY_EXIT_OK;
}

/* One policy name appended to o->pins; false if unknown or repeated. */
static bool pins_add(const char *name, verify_options *o) {
    static const verify_pin known[] = {VERIFY_PIN_NONE, VERIFY_PIN_CORE, VERIFY_PIN_PU};
    for (int k = 0; k < VERIFY_MAX_PINS; ++k) {
        if (strcmp(name, verify_pin_name(known[k])) != 0) continue;
        for (int j = 0; j < o->pin_count; ++j)
            if (o->pins[j] == known[k]) return false;
        o->pins[o->pin_count++] = known[k];
        return true;
    }
    return false;
}

static int parse_pins(const char *text, verify_options *o) {
    char buffer[64];
    char *items[VERIFY_MAX_PINS];
    snprintf(buffer, sizeof buffer, "%s", strcmp(text, "all") == 0 ? "none,core,pu" : text);
    int n = split_commas(buffer, items, VERIFY_MAX_PINS);
    o->pin_count = 0;
    for (int i = 0; i < n; ++i)
        if (!pins_add(items[i], o)) n = -1;
    if (n <= 0)
        return usage_error("--pin '%s': expected none, core, pu or all (or a comma list, each "
                           "once)", text);
    return VERIFY_EXIT_OK;
}

static int add_scene(const char *name, verify_options *o) {
    const eddy_scene_info *info = eddy_scene_find(name);
    if (info == NULL) {
        char m[256];
        return usage_error("%s", eddy_scene_unknown_message(name, "eddy-verify --list", m, sizeof m));
    }
    for (int i = 0; i < o->scene_count; ++i)
        if (strcmp(o->scenes[i], info->name) == 0) return VERIFY_EXIT_OK;
    o->scenes[o->scene_count++] = info->name;
    return VERIFY_EXIT_OK;
}

static int parse_scenes(const char *text, verify_options *o) {
    o->scene_count = 0;
    if (strcmp(text, "all") == 0) {
        for (int i = 0; i < eddy_scene_count() && i < VERIFY_MAX_SCENES; ++i)
            o->scenes[o->scene_count++] = eddy_scene_at(i)->name;
        return VERIFY_EXIT_OK;
    }
    char buffer[4096];
    char *items[VERIFY_MAX_SCENES];
    snprintf(buffer, sizeof buffer, "%s", text);
    int n = split_commas(buffer, items, VERIFY_MAX_SCENES);
    if (n <= 0) return usage_error("--scene '%s': expected a scene name, a comma list or all",
                                   text);
    for (int i = 0; i < n; ++i) {
        int status = add_scene(items[i], o);
        if (status != VERIFY_EXIT_OK) return status;
    }
    return VERIFY_EXIT_OK;
}

static int parse_mutation(const char *text, verify_options *o) {
    if (strcmp(text, "reduction") == 0) {
        o->mutations |= EDDY_MUTATION_WORKER_DEPENDENT_REDUCTION;
    } else if (strcmp(text, "fp-mode") == 0) {
        o->mutations |= EDDY_MUTATION_SKIP_WORKER_FP_MODE;
    } else if (strcmp(text, "restore") == 0) {
        o->mutations |= EDDY_MUTATION_RESTORE_KEEPS_FLOW_GRID;
    } else {
        return usage_error("--mutate '%s': expected reduction, fp-mode or restore (test only)", text);
    }
    return VERIFY_EXIT_OK;
}

void verify_list_scenes(void) {
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const eddy_scene_info *s = eddy_scene_at(i);
        printf("%-20s %4d  %s\n", s->name, s->default_frames, s->description);
    }
}

static int parse_denormals(const char *text, verify_options *o) {
    if (strcmp(text, "flush") == 0) {
        o->denormals = VERIFY_DENORMALS_FLUSH;
    } else if (strcmp(text, "keep") == 0) {
        o->denormals = VERIFY_DENORMALS_KEEP;
    } else {
        return usage_error("--denormals '%s': expected flush or keep", text);
    }
    return VERIFY_EXIT_OK;
}

/* Value of "--name VALUE" / "--name=VALUE" at argv[*i], or NULL if argv[*i]
 * is another option. *missing is set when the option matched without a value. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0) return NULL;
    if (arg[len] == '=') return arg + len + 1;
    if (arg[len] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* "K/N" with 1 <= K <= N. */
static int parse_shard(const char *text, verify_options *o) {
    char first[16];
    const char *slash = strchr(text, '/');
    size_t len = slash != NULL ? (size_t)(slash - text) : 0;
    bool ok = len > 0 && len < sizeof first;
    if (ok) {
        memcpy(first, text, len);
        first[len] = '\0';
        ok = parse_int(first, 1, 100000, &o->shard) && parse_int(slash + 1, 1, 100000, &o->shard_count) &&
             o->shard <= o->shard_count;
    }
    if (!ok) return usage_error("--shard '%s': expected K/N with 1 <= K <= N, e.g. 2/4", text);
    return VERIFY_EXIT_OK;
}

static int parse_valued(const char *name, const char *value, verify_options *o) {
    if (strcmp(name, "--scene") == 0) return parse_scenes(value, o);
    if (strcmp(name, "--threads") == 0) return parse_threads(value, o);
    if (strcmp(name, "--pin") == 0) return parse_pins(value, o);
    if (strcmp(name, "--mutate") == 0) return parse_mutation(value, o);
    if (strcmp(name, "--denormals") == 0) return parse_denormals(value, o);
    if (strcmp(name, "--synctest") == 0 && !parse_int(value, 1, 1000, &o->synctest))
        return usage_error("--synctest '%s': expected a rollback depth from 1 to 1000", value);
    if (strcmp(name, "--synctest") == 0) return VERIFY_EXIT_OK;
    if (strcmp(name, "--treecode") == 0) {
        if (strcmp(value, "multipole") == 0) o->treecode = EDDY_TREECODE_MULTIPOLE;
        else if (strcmp(value, "original") == 0) o->treecode = EDDY_TREECODE_ORIGINAL;
        else return usage_error("--treecode '%s': expected multipole or original", value);
        return VERIFY_EXIT_OK;
    }
    if (strcmp(name, "--golden") == 0) {
        o->golden_dir = value;
    } else if (strcmp(name, "--replay") == 0) {
        o->replay_path = value;
    } else if (strcmp(name, "--corpus") == 0) {
        o->corpus_dir = value;
    } else if (strcmp(name, "--junit") == 0) {
        o->junit_path = value;
    } else if (strcmp(name, "--shard") == 0) {
        return parse_shard(value, o);
    } else if (strcmp(name, "--hash-log") == 0) {
        o->hash_log_path = value;
    } else if (strcmp(name, "--desync") == 0) {
        o->desync_paths = value;
    } else if (!parse_int(value, 1, 1000000, &o->frames)) {
        return usage_error("--frames '%s': expected a whole number of frames >= 1", value);
    }
    return VERIFY_EXIT_OK;
}

static bool *flag_of(const char *arg, verify_options *o) {
    if (strcmp(arg, "--bless") == 0) return &o->bless;
    if (strcmp(arg, "--json") == 0) return &o->json;
    if (strcmp(arg, "--hostile-fp") == 0) return &o->hostile_fp;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return &o->help;
    if (strcmp(arg, "--list") == 0) return &o->list;
    if (strcmp(arg, "--force") == 0) return &o->force;
    if (strcmp(arg, "--version") == 0) return &o->version;
    return NULL;
}

static int parse_one(int argc, char **argv, int *i, verify_options *o) {
    static const char *const valued[] = {"--scene", "--frames", "--threads", "--pin",
                                         "--golden", "--replay", "--mutate", "--corpus",
                                         "--shard", "--junit", "--denormals",
                                         "--synctest", "--hash-log", "--desync", "--treecode"};
    bool *flag = flag_of(argv[*i], o);
    if (flag != NULL) {
        *flag = true;
        return VERIFY_EXIT_OK;
    }
    for (size_t k = 0; k < sizeof valued / sizeof *valued; ++k) {
        bool missing = false;
        const char *value = option_value(argc, argv, i, valued[k], &missing);
        if (missing) return usage_error("%s needs a value", valued[k]);
        if (value != NULL) return parse_valued(valued[k], value, o);
    }
    return usage_error("unknown argument '%s'", argv[*i]);
}

/* Combinations that cannot mean anything. */
static int check_combinations(const verify_options *o) {
    if (o->bless && o->replay_path != NULL) return usage_error("--bless and --replay exclude each other");
    if (o->bless && o->mutations != 0) return usage_error("--bless with --mutate would bless a broken trace");
    if (o->bless && o->denormals != VERIFY_DENORMALS_DEFAULT)
        return usage_error("--bless with --denormals: goldens are blessed with the default definition");
    if (o->replay_path != NULL && o->denormals != VERIFY_DENORMALS_DEFAULT)
        return usage_error("--denormals needs scene runs; a replay's world definition is its own");
    if (o->synctest > 0 && (o->bless || o->replay_path != NULL))
        return usage_error("--synctest runs scenes; it excludes --bless and --replay");
    if (o->replay_path != NULL && o->mutations != 0)
        return usage_error("--mutate needs scene runs; a replay's world definition is its own");
    if (o->corpus_dir != NULL && (o->bless || o->replay_path != NULL || o->mutations != 0))
        return usage_error("--corpus excludes --bless, --replay and --mutate");
    if (o->corpus_dir == NULL && (o->shard_count > 1 || o->junit_path != NULL))
        return usage_error("--shard and --junit need --corpus DIR");
    return VERIFY_EXIT_OK;
}

/* The goldens an eddy-verify uses without --golden: those installed with it
 * (<prefix>/share/eddy/golden beside <prefix>/bin/eddy-verify), else those of
 * the source tree it was built from (a build-tree binary), else the installed
 * place, which then does not exist and the error says to pass --golden. */
static bool is_directory(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *verify_default_golden_dir(const char *program) {
    static char installed[4096];
    char exe[4096] = "";
#if defined(__linux__)
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
#endif
    if (exe[0] == '\0' && program != NULL) snprintf(exe, sizeof exe, "%s", program);
    char *slash = strrchr(exe, '/');
    if (slash == NULL) return EDDY_VERIFY_GOLDEN_DIR; /* where the binary is is unknown */
    *slash = '\0';
    snprintf(installed, sizeof installed, "%s/../share/eddy/golden", exe);
    if (is_directory(installed)) return installed;
    if (is_directory(EDDY_VERIFY_GOLDEN_DIR)) return EDDY_VERIFY_GOLDEN_DIR;
    return installed;
}

static void set_defaults(verify_options *o, const char *program) {
    memset(o, 0, sizeof *o);
    o->program = program;
    o->golden_dir = verify_default_golden_dir(program);
    o->treecode = eddy_world_def_default().treecode_traversal;
    o->pins[0] = VERIFY_PIN_NONE;
    o->pin_count = 1;
    o->shard = o->shard_count = 1;
    parse_threads(VERIFY_DEFAULT_THREADS, o);
    parse_scenes("all", o);
}

int verify_parse_args(int argc, char **argv, verify_options *o) {
    set_defaults(o, argc > 0 ? argv[0] : "eddy-verify");
    for (int i = 1; i < argc; ++i) {
        int status = parse_one(argc, argv, &i, o);
        if (status != VERIFY_EXIT_OK) return status;
    }
    return check_combinations(o);
}
