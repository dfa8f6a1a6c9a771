/* SPDX-License-Identifier: MIT */
/* The FP contract (docs/determinism.md): for every scene, under several
 * caller modes with the invalid, divide-by-zero and overflow traps unmasked
 * and some flags already raised, a step and a hash leave the caller's FP
 * control and status words exactly as they were, and never trap (a trap
 * kills the test process). At 1 worker (the calling thread alone) and at 3
 * (pool workers started in the caller mode). The same check runs under wine
 * and qemu through eddy-fp-contract (tests/fp_contract_main.c). */
#include "fp_contract.h"
#include "scenes.h"

#include <criterion/criterion.h>

enum { FRAMES = 2 };

static void check_all_scenes(int workers) {
    cr_assert(fp_contract_traps_supported(), "this machine ignores FP trap enables");
    char message[512];
    for (int i = 0; i < eddy_scene_count(); ++i) {
        const char *scene = eddy_scene_at(i)->name;
        for (int m = 0; m < fp_contract_mode_count(); ++m) {
            cr_expect(fp_contract_check(scene, workers, m, FRAMES, message, sizeof message),
                      "%s", message);
        }
    }
}

Test(fp_contract, every_scene_one_worker, .timeout = 900) { check_all_scenes(1); }

Test(fp_contract, every_scene_three_workers, .timeout = 900) { check_all_scenes(3); }

/* The check itself can fail: a caller mode that the step is not given back
 * (here: flags changed behind the step's back) is reported. */
Test(fp_contract, a_changed_word_is_reported) {
    char before[160], after[160];
    fp_contract_describe_words(before, sizeof before);
    volatile float big = 3e38f;
    volatile float overflowed = big * big; /* raises overflow and inexact (masked here) */
    (void)overflowed;
    fp_contract_describe_words(after, sizeof after);
    cr_expect_str_neq(before, after, "the words show a raised flag");
}
