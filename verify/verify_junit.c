/* SPDX-License-Identifier: MIT */
/* JUnit XML for CI dashboards (--junit FILE, docs/verify.md).
 *
 * The dialect every common reader accepts (Jenkins, GitLab, GitHub test
 * reporters, Buildkite): a <testsuites> root with the totals, one
 * <testsuite> per replay file, one <testcase> per pin policy x worker count
 * with classname "eddy-verify.<file>" and name "workers=N pin=P", a
 * <failure type="divergence"> for a run that left the recording and an
 * <error type="unusable-file"> for a file that cannot be used. Times are in
 * seconds. Text is escaped for XML 1.0; control characters it forbids
 * become '?'. "-" writes to standard output. */
#include "verify.h"

#include <string.h>
#include <sys/stat.h>

const char *verify_case_result_name(verify_case_result r) {
    switch (r) {
    case VERIFY_CASE_PASS: return "pass";
    case VERIFY_CASE_FAIL: return "fail";
    case VERIFY_CASE_ERROR: return "error";
    }
    return "?";
}

bool verify_output_allowed(const char *path, bool force, char *message, size_t size) {
    struct stat st;
    if (force || strcmp(path, "-") == 0 || stat(path, &st) != 0) return true;
    snprintf(message, size, "%s exists; not overwriting it (--force allows it)", path);
    return false;
}

static void xml_text(FILE *out, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; ++p) {
        switch (*p) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t') fputc('?', out);
            else fputc(*p, out);
        }
    }
}

typedef struct totals {
    int tests, failures, errors;
    double seconds;
} totals;

static totals count(const verify_case *cases, int n) {
    totals t = {0, 0, 0, 0.0};
    for (int i = 0; i < n; ++i) {
        t.tests += 1;
        t.failures += cases[i].result == VERIFY_CASE_FAIL;
        t.errors += cases[i].result == VERIFY_CASE_ERROR;
        t.seconds += cases[i].seconds;
    }
    return t;
}

static void write_case(FILE *out, const verify_case *c) {
    fputs("    <testcase classname=\"eddy-verify.", out);
    xml_text(out, c->replay);
    fprintf(out, "\" name=\"workers=%d pin=%s\" time=\"%.3f\"", c->workers, verify_pin_name(c->pin),
            c->seconds);
    if (c->result == VERIFY_CASE_PASS) {
        fputs("/>\n", out);
        return;
    }
    const bool fail = c->result == VERIFY_CASE_FAIL;
    fprintf(out, ">\n      <%s type=\"%s\" message=\"", fail ? "failure" : "error",
            fail ? "divergence" : "unusable-file");
    xml_text(out, c->message);
    fputs("\">", out);
    xml_text(out, c->message);
    fputs(fail ? "\nWhat to do: docs/verify.md, \"After a failure\" (a divergence is a determinism "
                 "bug until shown otherwise)."
               : "\nThe file cannot be checked: damaged, cut short before its world record, or "
                 "recorded by an incompatible build (docs/replay.md).",
          out);
    fprintf(out, "</%s>\n    </testcase>\n", fail ? "failure" : "error");
}

/* Cases of one replay are adjacent (the corpus runs a file at a time). */
static void write_suites(FILE *out, const verify_case *cases, int n) {
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(cases[j].replay, cases[i].replay) == 0) ++j;
        const totals t = count(cases + i, j - i);
        fputs("  <testsuite name=\"", out);
        xml_text(out, cases[i].replay);
        fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
                t.tests, t.failures, t.errors, t.seconds);
        for (int k = i; k < j; ++k) write_case(out, &cases[k]);
        fputs("  </testsuite>\n", out);
        i = j;
    }
}

bool verify_junit_write(const char *path, bool force, const char *name, const verify_case *cases,
                        int n, char *message, size_t size) {
    if (!verify_output_allowed(path, force, message, size)) return false;
    const bool to_stdout = strcmp(path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(path, "w");
    if (out == NULL) {
        snprintf(message, size, "--junit %s: cannot write the file", path);
        return false;
    }
    const totals t = count(cases, n);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
    xml_text(out, name);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", t.tests,
            t.failures, t.errors, t.seconds);
    write_suites(out, cases, n);
    fputs("</testsuites>\n", out);
    const bool ok = to_stdout ? fflush(out) == 0 : fclose(out) == 0;
    if (!ok) snprintf(message, size, "--junit %s: writing failed", path);
    return ok;
}
