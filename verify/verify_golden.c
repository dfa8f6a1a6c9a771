/* SPDX-License-Identifier: MIT */
/* Golden trace files: reading, checking and writing (docs/golden-format.md).
 *
 * A golden is text so that a diff of a regenerated golden is readable in a
 * review: one header line per field, then one line per frame, frame 0 (the
 * scene's initial state) to frame N. The reader is strict and every refusal
 * names the file and line: a golden that parses loosely could let a broken
 * trace pass. */
#include "verify.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { GOLDEN_LINE_MAX = 512 };

/* Header fields in the order they are written. */
enum { HDR_FORMAT, HDR_SCENE, HDR_FRAMES, HDR_SPEC, HDR_EDDY, HDR_COUNT };
static const char *const k_header_keys[HDR_COUNT] = {"eddy-golden", "scene", "frames",
                                                     "hash-spec", "eddy"};

typedef struct golden_reader {
    FILE *file;
    const char *path;
    int line_number;
    char line[GOLDEN_LINE_MAX];
    char *message;
    size_t message_size;
    bool seen[HDR_COUNT];
} golden_reader;

void verify_golden_path(const char *dir, const char *scene, char *out, size_t out_size) {
    snprintf(out, out_size, "%s/%s%s", dir, scene, VERIFY_GOLDEN_SUFFIX);
}

void verify_golden_free(verify_golden *g) {
    if (g == NULL) return;
    free(g->trace);
    g->trace = NULL;
}

static int golden_fail(golden_reader *r, const char *format, ...) VERIFY_PRINTF_LIKE(2, 3);

/* "path:line: message"; always returns VERIFY_EXIT_BAD_FILE. */
static int golden_fail(golden_reader *r, const char *format, ...) {
    char detail[384];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    snprintf(r->message, r->message_size, "%s:%d: %s", r->path, r->line_number, detail);
    return VERIFY_EXIT_BAD_FILE;
}

/* Next line that is neither blank nor a comment, newline stripped; false at EOF. */
static bool golden_next_line(golden_reader *r, bool *too_long) {
    *too_long = false;
    while (fgets(r->line, sizeof r->line, r->file) != NULL) {
        ++r->line_number;
        size_t len = strlen(r->line);
        if (len > 0 && r->line[len - 1] == '\n') {
            r->line[--len] = '\0';
        } else if (!feof(r->file)) {
            *too_long = true;
            return true;
        }
        if (len > 0 && r->line[len - 1] == '\r') r->line[--len] = '\0';
        const char *p = r->line;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p != '\0' && *p != '#') return true;
    }
    return false;
}

static bool parse_decimal(const char *text, long max, long *out) {
    if (!isdigit((unsigned char)text[0])) return false;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value > max) return false;
    *out = value;
    return true;
}

/* Exactly 16 hexadecimal digits. */
static bool parse_hash(const char *text, uint64_t *out) {
    if (strlen(text) != 16) return false;
    for (int i = 0; i < 16; ++i)
        if (!isxdigit((unsigned char)text[i])) return false;
    *out = strtoull(text, NULL, 16);
    return true;
}

static int header_index(const char *key) {
    for (int i = 0; i < HDR_COUNT; ++i)
        if (strcmp(key, k_header_keys[i]) == 0) return i;
    return -1;
}

/* Check one header value against what this build and this scene expect. */
static int golden_header_value(golden_reader *r, int key, const char *value, const char *scene,
                               verify_golden *g) {
    long number = 0;
    bool is_number = parse_decimal(value, 100000000, &number);
    switch (key) {
    case HDR_FORMAT:
        if (!is_number || number != VERIFY_GOLDEN_FORMAT)
            return golden_fail(r, "golden format '%s' is not %d, the one this eddy-verify reads",
                               value, VERIFY_GOLDEN_FORMAT);
        break;
    case HDR_SCENE:
        if (strcmp(value, scene) != 0)
            return golden_fail(r, "this golden is for scene '%s', not '%s'", value, scene);
        snprintf(g->scene, sizeof g->scene, "%s", value);
        break;
    case HDR_FRAMES:
        if (!is_number || number < 1) return golden_fail(r, "frames '%s' is not a count >= 1", value);
        g->frames = (int)number;
        break;
    case HDR_SPEC:
        if (!is_number || number != EDDY_HASH_SPEC_VERSION)
            return golden_fail(r, "hash-spec '%s' but this build computes hash-spec %d "
                               "(docs/hash-spec.md): regenerate the goldens", value,
                               EDDY_HASH_SPEC_VERSION);
        g->hash_spec = (int)number;
        break;
    default:
        snprintf(g->eddy_version, sizeof g->eddy_version, "%s", value); /* informational */
        break;
    }
    return VERIFY_EXIT_OK;
}

/* "key value": known key, not repeated, and eddy-golden first. */
static int golden_header_line(golden_reader *r, const char *scene, verify_golden *g) {
    char *space = strchr(r->line, ' ');
    if (space == NULL) return golden_fail(r, "expected 'key value' in the header, got '%s'", r->line);
    *space = '\0';
    int key = header_index(r->line);
    if (key < 0) return golden_fail(r, "unknown header field '%s'", r->line);
    if (r->seen[key]) return golden_fail(r, "header field '%s' appears twice", r->line);
    if (key != HDR_FORMAT && !r->seen[HDR_FORMAT])
        return golden_fail(r, "the first field must be 'eddy-golden %d'", VERIFY_GOLDEN_FORMAT);
    r->seen[key] = true;
    return golden_header_value(r, key, space + 1, scene, g);
}

static int golden_read_header(golden_reader *r, const char *scene, verify_golden *g) {
    for (int fields = 0; fields < HDR_COUNT; ++fields) {
        bool too_long = false;
        if (!golden_next_line(r, &too_long)) {
            return golden_fail(r, "file ends inside the header (%d of %d fields)", fields,
                               HDR_COUNT);
        }
        if (too_long) return golden_fail(r, "line longer than %d bytes", GOLDEN_LINE_MAX - 2);
        int status = golden_header_line(r, scene, g);
        if (status != VERIFY_EXIT_OK) return status;
    }
    return VERIFY_EXIT_OK;
}

/* "frame frame_hash vortons tracers bodies globals" for frame `expected`. */
static int golden_frame_line(golden_reader *r, int64_t expected, eddy_frame_hash *out) {
    char *fields[7];
    int n = 0;
    for (char *tok = strtok(r->line, " \t"); tok != NULL; tok = strtok(NULL, " \t"))
        if (n < 7) fields[n++] = tok;
    if (n != 2 + EDDY_COMPONENT_COUNT)
        return golden_fail(r, "expected frame and %d hashes, got %d fields",
                           1 + EDDY_COMPONENT_COUNT, n);
    long frame = -1;
    if (!parse_decimal(fields[0], 100000000, &frame) || frame != expected)
        return golden_fail(r, "expected frame %" PRId64 ", got '%s'", expected, fields[0]);
    out->frame = frame;
    bool ok = parse_hash(fields[1], &out->frame_hash);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        ok = ok && parse_hash(fields[2 + c], &out->component[c]);
    if (!ok) return golden_fail(r, "hashes are 16 hexadecimal digits each");
    return VERIFY_EXIT_OK;
}

/* The trace grows with the lines actually read (doubling), so a header that
 * announces 10^8 frames in a short file costs nothing before it is refused. */
static bool golden_trace_reserve(verify_golden *g, int count, int *capacity) {
    if (count <= *capacity) return true;
    int cap = *capacity ? 2 * *capacity : 256;
    cap = cap < g->frames + 1 ? cap : g->frames + 1;
    eddy_frame_hash *t = realloc(g->trace, (size_t)cap * sizeof *t);
    if (t == NULL) return false;
    g->trace = t;
    *capacity = cap;
    return true;
}

static int golden_read_frames(golden_reader *r, verify_golden *g) {
    g->trace = NULL;
    int capacity = 0;
    bool too_long = false;
    for (int f = 0; f <= g->frames; ++f) {
        if (!golden_trace_reserve(g, f + 1, &capacity))
            return golden_fail(r, "out of memory for %d frames", g->frames);
        if (!golden_next_line(r, &too_long))
            return golden_fail(r, "file ends after %d of the %d frame lines the header announces "
                               "(frames 0..%d)", f, g->frames + 1, g->frames);
        if (too_long) return golden_fail(r, "line longer than %d bytes", GOLDEN_LINE_MAX - 2);
        int status = golden_frame_line(r, f, &g->trace[f]);
        if (status != VERIFY_EXIT_OK) return status;
    }
    if (golden_next_line(r, &too_long))
        return golden_fail(r, "more frame lines than the header's frames %d", g->frames);
    return VERIFY_EXIT_OK;
}

int verify_golden_read(const char *path, const char *scene, verify_golden *out, char *message,
                       size_t message_size) {
    memset(out, 0, sizeof *out);
    golden_reader r = {.path = path, .message = message, .message_size = message_size};
    r.file = fopen(path, "r");
    if (r.file == NULL) {
        /* Not a divergence: say which of the three it is. */
        const int error = errno;
        char folder[1024];
        snprintf(folder, sizeof folder, "%s", path);
        char *slash = strrchr(folder, '/');
        if (slash != NULL) *slash = '\0';
        struct stat st;
        if (error == ENOENT && slash != NULL && stat(folder, &st) != 0)
            snprintf(message, message_size,
                     "%s: no golden folder %s (the goldens are installed in "
                     "<prefix>/share/eddy/golden; pass --golden DIR); this is a missing golden, "
                     "not a divergence",
                     path, folder);
        else if (error == ENOENT)
            snprintf(message, message_size,
                     "%s: missing golden (no such file; not a divergence: is --golden the right "
                     "folder? a new scene gets one with --bless)",
                     path);
        else
            snprintf(message, message_size, "%s: unreadable golden: %s (not a divergence)", path,
                     strerror(error));
        return VERIFY_EXIT_BAD_FILE;
    }
    int status = golden_read_header(&r, scene, out);
    if (status == VERIFY_EXIT_OK) status = golden_read_frames(&r, out);
    if (status == VERIFY_EXIT_OK && ferror(r.file))
        status = golden_fail(&r, "read error: %s", strerror(errno));
    fclose(r.file);
    if (status != VERIFY_EXIT_OK) verify_golden_free(out);
    return status;
}

/* ---------------------------------------------------------------- write */

static void golden_write_frame(FILE *f, const eddy_frame_hash *h) {
    fprintf(f, "%" PRId64 " %016" PRIx64, h->frame, h->frame_hash);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c) fprintf(f, " %016" PRIx64, h->component[c]);
    fputc('\n', f);
}

static void golden_write_header(FILE *f, const verify_golden *g, const char *regenerate) {
    fprintf(f, "# eddy golden trace: the state hash of every frame of one scene "
               "(docs/golden-format.md)\n");
    fprintf(f, "# regenerate only after an intended change (docs/determinism.md):\n");
    fprintf(f, "#   %s\n", regenerate);
    fprintf(f, "%s %d\n", k_header_keys[HDR_FORMAT], VERIFY_GOLDEN_FORMAT);
    fprintf(f, "%s %s\n", k_header_keys[HDR_SCENE], g->scene);
    fprintf(f, "%s %d\n", k_header_keys[HDR_FRAMES], g->frames);
    fprintf(f, "%s %d\n", k_header_keys[HDR_SPEC], g->hash_spec);
    fprintf(f, "%s %s\n", k_header_keys[HDR_EDDY], g->eddy_version);
    fprintf(f, "# frame frame_hash");
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        fprintf(f, " %s", eddy_component_name((eddy_component)c));
    fputc('\n', f);
}

/* Written to path.tmp and renamed, so an interrupted bless never leaves half a golden. */
bool verify_golden_write(const char *path, const verify_golden *g, const char *regenerate,
                         char *message, size_t message_size) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        snprintf(message, message_size, "%s: cannot create: %s", tmp, strerror(errno));
        return false;
    }
    golden_write_header(f, g, regenerate);
    for (int i = 0; i <= g->frames; ++i) golden_write_frame(f, &g->trace[i]);
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        snprintf(message, message_size, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
    }
    return ok;
}
