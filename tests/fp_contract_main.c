/* SPDX-License-Identifier: MIT */
/* eddy-fp-contract: the FP contract check (tests/fp_contract.h) as a program,
 * for platforms where the Criterion suite does not run (Windows under wine,
 * aarch64 under qemu, WebAssembly under node).
 *
 *   eddy-fp-contract [--frames N] [--threads LIST]   (default 2 frames, workers 1,3)
 *
 * Checks every scene at every listed worker count in every caller mode;
 * prints one line per failure and a summary; exits 0 only when all held. A
 * trap ends the process with the platform's FP-exception status (non-zero):
 * the line printed just before names the scene and mode. */
#include "fp_contract.h"
#include "scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_WORKER_COUNTS = 8 };

typedef struct options {
    int frames;
    int workers[MAX_WORKER_COUNTS];
    int worker_count_count;
} options;

static bool parse_workers(const char *text, options *o) {
    o->worker_count_count = 0;
    for (const char *p = text; *p != '\0';) {
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p || n < 1 || n > 64 || o->worker_count_count == MAX_WORKER_COUNTS) return false;
        o->workers[o->worker_count_count++] = (int)n;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') return false;
    }
    return o->worker_count_count > 0;
}

static bool parse(int argc, char **argv, options *o) {
    *o = (options){.frames = 2, .workers = {1, 3}, .worker_count_count = 2};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            o->frames = atoi(argv[++i]);
            if (o->frames < 1) return false;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_workers(argv[++i], o)) return false;
        } else {
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr, "usage: eddy-fp-contract [--frames N>=1] [--threads N,N,...]\n");
        return 2;
    }
    printf("eddy-fp-contract: %d scenes x %d caller modes, %d frames; FP traps %s\n",
           eddy_scene_count(), fp_contract_mode_count(), o.frames,
           fp_contract_traps_supported() ? "unmasked (invalid, divide-by-zero, overflow)"
                                         : "not supported here: flags and modes only");
    int checks = 0, failures = 0;
    char message[512];
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const char *scene = eddy_scene_at(i)->name;
        for (int w = 0; w < o.worker_count_count; ++w) {
            for (int m = 0; m < fp_contract_mode_count(); ++m) {
                fflush(stdout); /* a trap must not eat the lines before it */
                checks += 1;
                if (!fp_contract_check(scene, o.workers[w], m, o.frames, message, sizeof message)) {
                    failures += 1;
                    printf("FAIL %s (%d workers)\n", message, o.workers[w]);
                }
            }
        }
    }
    printf("eddy-fp-contract: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
