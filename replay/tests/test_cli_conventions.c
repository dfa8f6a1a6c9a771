/* SPDX-License-Identifier: MIT */
/* Conventions shared by eddy's command-line tools (eddy-replay, eddy-verify,
 * eddy-bench, eddy-demo): --version and --help everywhere, an unknown option
 * reported as unknown, --json for CI, "-" for standard input and output, no
 * silent overwrite; eddy-verify's failure report without a ready-to-run
 * bless command; and eddy-verify's corpus mode (--corpus, --shard, --junit). */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_testkit.h"

static char g_log[512];
static eddy_bytes g_text;

static const char *tmp(const char *name) { return testkit_tmp_path(EDDY_REPLAY_TMP, "conv", name); }

/* Runs a shell command line; its stdout and stderr end up in g_text. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(g_log, sizeof g_log, "%s/conv_%d_log.txt", EDDY_REPLAY_TMP, (int)getpid());
    const int status = testkit_shell(line, NULL, g_log, &g_text);
    cr_assert(status >= 0, "%s did not exit", line);
    return status;
}

static const char *out(void) { return (const char *)g_text.data; }
static bool said(const char *text) { return strstr(out(), text) != NULL; }
static int occurrences(const char *text) {
    int n = 0;
    for (const char *p = strstr(out(), text); p; p = strstr(p + 1, text)) ++n;
    return n;
}

#define EXPECT(code, ...)                                                                          \
    do {                                                                                           \
        int got_ = sh(__VA_ARGS__);                                                                \
        cr_assert_eq(got_, code, "exit %d, expected %d; output:\n%s", got_, code, out());          \
    } while (0)

static const char *const k_tools[][2] = {
    {EDDY_REPLAY_CLI, "eddy-replay"},
    {EDDY_VERIFY_CLI, "eddy-verify"},
    {EDDY_BENCH_CLI, "eddy-bench"},
    {EDDY_DEMO_CLI, "eddy-demo"},
};

Test(cli_conventions, every_tool_has_version_help_and_names_an_unknown_option) {
    for (size_t k = 0; k < sizeof k_tools / sizeof k_tools[0]; ++k) {
        const char *tool = k_tools[k][0], *name = k_tools[k][1];
        EXPECT(0, "%s --version", tool);
        cr_assert(!strncmp(out(), name, strlen(name)) && said(eddy_version_string()),
                  "%s --version printed: %s", name, out());
        EXPECT(0, "%s --help", tool);
        cr_assert(said("usage"), "%s --help printed: %s", name, out());
        /* Last on the line, an unknown option must not read as one that
         * lacks its value. */
        EXPECT(2, "%s --bogus", tool);
        cr_assert(said("unknown") && !said("needs a value"), "%s: %s", name, out());
    }
    EXPECT(2, "%s play x.eddyr --bogus", EDDY_REPLAY_CLI);
    cr_assert(said("unknown option --bogus") && !said("needs a value"), "%s", out());
    EXPECT(2, "%s play x.eddyr --frame", EDDY_REPLAY_CLI);
    cr_assert(said("--frame needs a value"));
}

/* A file whose hashes from frame 11 on come from another run: play diverges. */
static void record_diverging(const char *path) {
    eddy_world *w, *other;
    cr_assert_eq(testkit_tiny_world(1, &w), EDDY_OK);
    cr_assert_eq(testkit_tiny_world(1, &other), EDDY_OK);
    eddy_bytes b = {0};
    eddy_recorder *r;
    cr_assert_eq(eddy_recorder_create_memory(w, NULL, &b, &r, NULL, 0), EDDY_OK);
    for (int64_t f = 0; f < 14; ++f) {
        testkit_input t;
        cr_assert_eq(eddy_recorder_step(r, testkit_tiny_input(f, &t)), EDDY_OK);
        eddy_emitter_command extra = {
            .emitter = {1, 1}, .type = EDDY_EMITTER_BURST, .tracer_count = 2};
        testkit_tiny_input(f, &t);
        if (f == 5) t.input.emitter_commands = &extra, t.input.emitter_command_count = 1;
        cr_assert_eq(eddy_world_step(other, &t.input), EDDY_OK);
        if (f == 9) {
            eddy_bytes snap = {0};
            cr_assert_eq(eddy_world_snapshot(other, &snap), EDDY_OK);
            cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, NULL, 0), EDDY_OK);
            eddy_bytes_free(&snap);
        }
    }
    cr_assert_eq(eddy_recorder_finish(r), EDDY_OK);
    cr_assert(testkit_write_file(path, b.data, b.size));
    eddy_recorder_destroy(r);
    eddy_world_destroy(w);
    eddy_world_destroy(other);
    eddy_bytes_free(&b);
}

Test(cli_conventions, replay_json_stdin_stdout_and_no_silent_overwrite, .timeout = 60) {
    const char *a = tmp("a.eddyr"), *d = tmp("diverges.eddyr"), *csv = tmp("a.csv");
    EXPECT(0, "%s record --scene vortex_ring --frames 12 -o %s -q", EDDY_REPLAY_CLI, a);
    EXPECT(2, "%s record --scene vortex_ring --frames 3 -o %s -q", EDDY_REPLAY_CLI, a);
    cr_assert(said("exists") && said("--force"));
    struct stat st;
    cr_assert_eq(stat(a, &st), 0);
    EXPECT(0, "%s info %s --json", EDDY_REPLAY_CLI, a);
    cr_assert(out()[0] == '{' && said("\"frames\": 12") && said("\"complete\": true"), "%s", out());
    EXPECT(0, "%s play %s --json --threads 2", EDDY_REPLAY_CLI, a);
    cr_assert(out()[0] == '{' && said("\"result\": \"ok\"") && said("\"workers\": 2"), "%s", out());
    record_diverging(d);
    EXPECT(1, "%s play %s --json", EDDY_REPLAY_CLI, d);
    cr_assert(said("\"result\": \"diverged\"") && said("\"divergence\": {\"frame\": 11,"), "%s",
              out());

    /* "-": a recording piped into play and info. */
    EXPECT(0, "%s record --scene vortex_ring --frames 6 -o - | %s play -", EDDY_REPLAY_CLI,
           EDDY_REPLAY_CLI);
    cr_assert(said("recorded vortex_ring") && said("ok: frames 0..6 match"), "%s", out());
    EXPECT(0, "%s info - < %s", EDDY_REPLAY_CLI, a);
    cr_assert(said("frames          0..12"));
    EXPECT(0, "%s --replay - --threads 1,2 < %s", EDDY_VERIFY_CLI, a);
    cr_assert(said("2 passed, 0 failed"), "%s", out());

    EXPECT(0, "%s dump %s --frame 3 -o %s", EDDY_REPLAY_CLI, a, csv);
    EXPECT(2, "%s dump %s --frame 4 -o %s", EDDY_REPLAY_CLI, a, csv);
    EXPECT(0, "%s dump %s --frame 4 -o %s --force", EDDY_REPLAY_CLI, a, csv);
    EXPECT(0, "%s dump %s --frame 4 -o - | head -c 300", EDDY_REPLAY_CLI, a);
    cr_assert(said("kind,index"));
    unlink(a), unlink(d), unlink(csv);
}

/* A golden with one altered frame hash: the report points to the docs and
 * prints no ready-to-run bless command. */
Test(cli_conventions, verify_failure_points_to_the_docs_not_to_bless, .timeout = 120) {
    const char *dir = tmp("golden");
    EXPECT(0,
           "mkdir -p %s && awk '$1 == \"3\" { $2 = ($2 ~ /^0/ ? \"1\" : \"0\") substr($2, 2) } "
           "{ print }' %s/vortex_ring.golden > %s/vortex_ring.golden",
           dir, EDDY_GOLDEN_DIR, dir);
    EXPECT(0, "grep -c '^3 ' %s/vortex_ring.golden", dir);
    EXPECT(0, "! cmp -s %s/vortex_ring.golden %s/vortex_ring.golden", dir, EDDY_GOLDEN_DIR);
    EXPECT(1, "%s --scene vortex_ring --frames 5 --threads 1 --golden %s", EDDY_VERIFY_CLI, dir);
    cr_assert(said("FAIL vortex_ring") && said("docs/verify.md"), "%s", out());
    cr_assert(!said("--bless"), "a bless command was printed:\n%s", out());
    EXPECT(1, "%s --scene vortex_ring --frames 5 --threads 1 --golden %s --json", EDDY_VERIFY_CLI,
           dir);
    cr_assert(out()[0] == '{' && said("\"result\": \"fail\"") && !said("--bless"), "%s", out());
    sh("rm -rf %s", dir);
}

/* A wrong scene name gets one wording in every tool, with the nearest name. */
Test(cli_conventions, a_wrong_scene_name_has_one_wording_with_the_nearest_name, .timeout = 60) {
    EXPECT(2, "%s record --scene voretx_ring -o %s -q", EDDY_REPLAY_CLI, tmp("never.eddyr"));
    cr_assert(said("unknown scene 'voretx_ring' (the nearest is 'vortex_ring'; "), "%s", out());
    EXPECT(2, "%s --scene voretx_ring", EDDY_VERIFY_CLI);
    cr_assert(said("unknown scene 'voretx_ring' (the nearest is 'vortex_ring'; "), "%s", out());
    EXPECT(2, "%s --scene leapfrgo --frames 1", EDDY_BENCH_CLI);
    cr_assert(said("unknown scene 'leapfrgo' (the nearest is 'leapfrog'; "), "%s", out());
    EXPECT(2, "%s --scene noise_clod", EDDY_DEMO_CLI);
    cr_assert(said("unknown scene 'noise_clod' (the nearest is 'noise_cloud'; "), "%s", out());
}

/* Before speedups below 1 the demo says that some runs have more workers
 * than the machine has processing units (64 workers: more than any CI box). */
Test(cli_conventions, demo_says_when_workers_outnumber_processing_units, .timeout = 120) {
    EXPECT(0, "%s --scene vortex_ring --threads 1,64 --frames 2", EDDY_DEMO_CLI);
    const char *note = strstr(out(), "note: this machine has ");
    const char *table = strstr(out(), "speedup");
    cr_assert(note != NULL && table != NULL && note < table, "%s", out());
    cr_assert(said("1 of these runs uses more workers than that (up to 64)"), "%s", out());
}

/* A missing golden folder, a missing golden and an unreadable one are told
 * apart from a divergence (exit 3 and what is wrong, never "bless it"). */
Test(cli_conventions, verify_tells_a_missing_golden_from_a_divergence, .timeout = 120) {
    const char *none = tmp("no_such_golden_folder"), *empty = tmp("empty_golden");
    sh("rm -rf %s %s", none, empty);
    EXPECT(3, "%s --scene vortex_ring --frames 3 --threads 1 --golden %s", EDDY_VERIFY_CLI, none);
    cr_assert(said("no golden folder") && said("--golden DIR") && said("not a divergence"), "%s",
              out());
    cr_assert(!said("bless it"), "%s", out());
    EXPECT(0, "mkdir -p %s", empty);
    EXPECT(3, "%s --scene vortex_ring --frames 3 --threads 1 --golden %s", EDDY_VERIFY_CLI, empty);
    cr_assert(said("missing golden") && said("not a divergence"), "%s", out());
    sh("rm -rf %s %s", none, empty);
}

/* An installed eddy-verify (bin/ beside share/eddy/golden) uses the goldens
 * installed with it, not the source tree it was built from. */
Test(cli_conventions, installed_verify_finds_the_goldens_beside_it, .timeout = 120) {
    const char *prefix = tmp("prefix");
    EXPECT(0, "rm -rf %s && mkdir -p %s/bin %s/share/eddy/golden && cp %s %s/bin/ && "
              "cp %s/vortex_ring.golden %s/share/eddy/golden/",
           prefix, prefix, prefix, EDDY_VERIFY_CLI, prefix, EDDY_GOLDEN_DIR, prefix);
    EXPECT(0, "%s/bin/eddy-verify --scene vortex_ring --frames 3 --threads 1", prefix);
    cr_assert(said("/share/eddy/golden"), "%s", out());
    /* the installed folder lacks the other goldens: that is what it says */
    EXPECT(3, "%s/bin/eddy-verify --scene leapfrog --frames 3 --threads 1", prefix);
    cr_assert(said("share/eddy/golden/leapfrog.golden: missing golden"), "%s", out());
    sh("rm -rf %s", prefix);
}

/* ---------------------------------------------------------------- corpus */
static const char *make_corpus(void) {
    const char *dir = tmp("corpus");
    EXPECT(0, "rm -rf %s && mkdir -p %s", dir, dir);
    const char *scenes[] = {"vortex_ring", "leapfrog", "dye_drop"};
    for (int k = 0; k < 3; ++k)
        EXPECT(0, "%s record --scene %s --frames 6 -o %s/%c_%s.eddyr -q", EDDY_REPLAY_CLI,
               scenes[k], dir, 'a' + k, scenes[k]);
    char path[400];
    snprintf(path, sizeof path, "%s/d_diverges.eddyr", dir);
    record_diverging(path);
    snprintf(path, sizeof path, "%s/e_junk.eddyr", dir);
    cr_assert(testkit_write_file(path, "not a replay", 12));
    snprintf(path, sizeof path, "%s/ignored.txt", dir);
    cr_assert(testkit_write_file(path, "x", 1));
    return dir;
}

Test(cli_conventions, verify_corpus_writes_junit_one_case_per_replay_and_worker_count,
     .timeout = 120) {
    const char *dir = make_corpus(), *xml = tmp("junit.xml");
    unlink(xml);
    EXPECT(3, "%s --corpus %s --threads 1,2 --junit %s", EDDY_VERIFY_CLI, dir, xml);
    cr_assert(said("a_vortex_ring.eddyr") && said("e_junk.eddyr") && said("6 passed, 4 failed"),
              "%s", out());
    cr_assert(!said("ignored.txt"));
    EXPECT(0, "cat %s", xml);
    cr_assert(said("<?xml version=\"1.0\"") && said("<testsuites name=\"eddy-verify\" tests=\"10\" "
                                                    "failures=\"2\" errors=\"2\""),
              "%s", out());
    cr_assert_eq(occurrences("<testcase "), 10);
    cr_assert_eq(occurrences("<testsuite "), 5);
    cr_assert_eq(occurrences("<failure type=\"divergence\""), 2);
    cr_assert_eq(occurrences("<error type=\"unusable-file\""), 2);
    cr_assert(said("classname=\"eddy-verify.d_diverges.eddyr\" name=\"workers=2 pin=none\""));
    cr_assert(said("first divergent frame 11"), "%s", out());
    if (system("command -v xmllint >/dev/null 2>&1") == 0)
        EXPECT(0, "xmllint --noout %s", xml); /* well-formed XML */
    else
        cr_log_warn("xmllint not installed (Debian package libxml2-utils): XML not validated");

    EXPECT(2, "%s --corpus %s --threads 1 --junit %s", EDDY_VERIFY_CLI, dir, xml);
    cr_assert(said("exists") && said("--force"));
    EXPECT(3, "%s --corpus %s --threads 1 --junit %s --force", EDDY_VERIFY_CLI, dir, xml);
    EXPECT(0, "%s --corpus %s --threads 1 --junit - --shard 1/5", EDDY_VERIFY_CLI, dir);
    cr_assert(said("<testsuites") && said("a_vortex_ring.eddyr") && !said("b_leapfrog"), "%s",
              out());
    /* with -, standard output holds the XML alone (the matrix goes to stderr) */
    EXPECT(0, "%s --corpus %s --threads 1 --junit - --shard 1/5 2>/dev/null", EDDY_VERIFY_CLI, dir);
    cr_assert(strncmp(out(), "<?xml", 5) == 0, "%s", out());
    const size_t len = strlen(out());
    cr_assert(len > 14 && strcmp(out() + len - 14, "</testsuites>\n") == 0, "%s", out());
    cr_assert(!said("passed,") && !said("replay  "), "%s", out());
    if (system("command -v xmllint >/dev/null 2>&1") == 0)
        EXPECT(0, "%s --corpus %s --threads 1 --junit - --shard 1/5 2>/dev/null | xmllint --noout -",
               EDDY_VERIFY_CLI, dir);
    EXPECT(2, "%s --corpus %s --threads 1 --junit - --json", EDDY_VERIFY_CLI, dir);
    cr_assert(said("both want standard output"), "%s", out());
    EXPECT(0, "cp %s/a_vortex_ring.eddyr %s/f_copy.eddyreplay", dir, dir);
    EXPECT(3, "%s --corpus %s --threads 1 --json", EDDY_VERIFY_CLI, dir);
    cr_assert(said("\"f_copy.eddyreplay\"") && said("\"passed\": 4"), "%s", out());
    unlink(xml);
    sh("rm -rf %s", dir);
}

Test(cli_conventions, verify_shards_split_the_corpus_exactly_once, .timeout = 120) {
    const char *dir = make_corpus();
    const char *names[] = {"a_vortex_ring", "b_leapfrog", "c_dye_drop", "d_diverges", "e_junk"};
    for (int n = 1; n <= 3; ++n) {
        int seen[5] = {0};
        for (int k = 1; k <= n; ++k) {
            sh("%s --corpus %s --threads 1 --shard %d/%d --json", EDDY_VERIFY_CLI, dir, k, n);
            cr_assert(out()[0] == '{', "%s", out());
            for (int i = 0; i < 5; ++i) {
                if (!said(names[i])) continue;
                ++seen[i];
                cr_assert_eq(i % n, k - 1, "%s is in shard %d/%d", names[i], k, n);
            }
        }
        for (int i = 0; i < 5; ++i)
            cr_assert_eq(seen[i], 1, "%s in %d shards of %d", names[i], seen[i], n);
    }
    EXPECT(2, "%s --corpus %s --shard 0/3", EDDY_VERIFY_CLI, dir);
    EXPECT(2, "%s --corpus %s --shard 4/3", EDDY_VERIFY_CLI, dir);
    EXPECT(2, "%s --corpus %s --shard 2", EDDY_VERIFY_CLI, dir);
    EXPECT(2, "%s --shard 1/2", EDDY_VERIFY_CLI);
    EXPECT(2, "%s --corpus %s/nonexistent", EDDY_VERIFY_CLI, dir);
    sh("rm -rf %s", dir);
}
