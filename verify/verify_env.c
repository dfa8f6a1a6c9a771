/* SPDX-License-Identifier: MIT */
/* The environment of one verifier run: where its threads run and which FP
 * mode they start in.
 *
 * Design note.
 * - Pinning goes through tools/pin.h (hwloc), exactly as the demo and bench
 *   pin: eddy_pin_configure fills the def and pins the stepping thread as
 *   worker 0; the pool's worker-start hook is then replaced by a chain that
 *   first applies the hostile FP mode (when asked) and then pins.
 * - Pinning the stepping thread is sticky, and pool threads inherit their
 *   creator's affinity: an "unpinned" run after a pinned one would otherwise
 *   run every thread on PU 0. So the stepping thread's affinity at start-up
 *   is saved and restored after every run, and so is its FP environment:
 *   the whole <fenv.h> environment (x87 included) and, through eddy's own
 *   eddy_fp_save/eddy_fp_restore, the SSE/FPCR word exactly, since C
 *   libraries differ in what fesetenv restores (MinGW-w64).
 * - Built with EDDY_VERIFY_NO_PIN (the aarch64 cross build, no hwloc), only
 *   "none" exists; asking for more is refused when the environment is made.
 * - The hostile mode (round toward zero, denormals flushed) is the opposite of
 *   eddy's canonical mode: the contract says the caller's mode and the
 *   workers' start mode do not matter, because the library sets its own. */
#if !defined(EDDY_VERIFY_NO_PIN)
#define _GNU_SOURCE /* sched_getaffinity: restore the stepping thread's affinity */
#include <sched.h>
#include "pin.h"
#endif

#include "verify.h"

#include <fenv.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

/* What the worker-start hook of the current run does. */
typedef struct verify_hook {
    bool hostile;
#if !defined(EDDY_VERIFY_NO_PIN)
    eddy_pinner *pinner;  /* NULL: unpinned */
#endif
} verify_hook;

struct verify_env {
    fenv_t fp;            /* the stepping thread's FP environment at start-up */
    eddy_fp_saved fp_word; /* and eddy's view of it (MXCSR, FPCR + FPSR) */
    verify_hook hook;     /* lives as long as the env: pool threads read it */
#if !defined(EDDY_VERIFY_NO_PIN)
    eddy_pinner *pinners[VERIFY_MAX_PINS];  /* by verify_pin; none stays NULL */
    cpu_set_t affinity;
    bool have_affinity;
    bool pinned_run;
#endif
};

void verify_fp_set_hostile(void) {
    fesetround(FE_TOWARDZERO);
#if defined(__SSE2__)
    _mm_setcsr(_mm_getcsr() | 0x8040u); /* FTZ (bit 15) and DAZ (bit 6) on */
#elif defined(__aarch64__)
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    fpcr |= UINT64_C(1) << 24; /* FZ on */
    __asm__ __volatile__("msr fpcr, %0" : : "r"(fpcr) : "memory");
#endif
}

static void env_worker_start(int worker_index, void *context) {
    const verify_hook *hook = context;
    if (hook->hostile) verify_fp_set_hostile();
#if !defined(EDDY_VERIFY_NO_PIN)
    if (hook->pinner != NULL) eddy_pin_worker_start(worker_index, hook->pinner);
#else
    (void)worker_index;
#endif
}

bool verify_env_can_pin(void) {
#if defined(EDDY_VERIFY_NO_PIN)
    return false;
#else
    return true;
#endif
}

#if !defined(EDDY_VERIFY_NO_PIN)
static bool env_load_pinners(verify_env *env, const verify_pin *pins, int pin_count,
                             char *message, size_t message_size) {
    for (int i = 0; i < pin_count; ++i) {
        if (pins[i] == VERIFY_PIN_NONE || env->pinners[pins[i]] != NULL) continue;
        eddy_pin_policy policy = pins[i] == VERIFY_PIN_CORE ? EDDY_PIN_CORE : EDDY_PIN_PU;
        env->pinners[pins[i]] = eddy_pinner_create(policy, message, message_size);
        if (env->pinners[pins[i]] == NULL) return false;
    }
    env->have_affinity = sched_getaffinity(0, sizeof env->affinity, &env->affinity) == 0;
    return true;
}
#endif

verify_env *verify_env_create(const verify_pin *pins, int pin_count, char *message,
                              size_t message_size) {
    verify_env *env = calloc(1, sizeof *env);
    if (env == NULL) {
        snprintf(message, message_size, "out of memory");
        return NULL;
    }
    fegetenv(&env->fp);
    env->fp_word = eddy_fp_save();
#if !defined(EDDY_VERIFY_NO_PIN)
    if (!env_load_pinners(env, pins, pin_count, message, message_size)) {
        verify_env_destroy(env);
        return NULL;
    }
#else
    for (int i = 0; i < pin_count; ++i) {
        if (pins[i] == VERIFY_PIN_NONE) continue;
        snprintf(message, message_size, "--pin %s: this eddy-verify was built without hwloc "
                 "(EDDY_VERIFY_NO_PIN); only --pin none is available", verify_pin_name(pins[i]));
        verify_env_destroy(env);
        return NULL;
    }
#endif
    return env;
}

void verify_env_destroy(verify_env *env) {
    if (env == NULL) return;
#if !defined(EDDY_VERIFY_NO_PIN)
    for (int i = 0; i < VERIFY_MAX_PINS; ++i) eddy_pinner_destroy(env->pinners[i]);
#endif
    free(env);
}

void verify_env_configure(verify_env *env, eddy_world_def *def, int workers, verify_pin pin,
                          bool hostile) {
#if !defined(EDDY_VERIFY_NO_PIN)
    env->hook.pinner = env->pinners[pin];
    env->pinned_run = env->hook.pinner != NULL;
    eddy_pin_configure(def, workers, env->hook.pinner);
#else
    (void)pin;
    def->worker_count = workers;
    def->enqueue_task = NULL;
    def->finish_task = NULL;
    def->user_task_context = NULL;
#endif
    env->hook.hostile = hostile;
    def->worker_start = env_worker_start;
    def->worker_start_context = &env->hook;
    if (hostile) verify_fp_set_hostile();
}

void verify_env_end_run(verify_env *env) {
    fesetenv(&env->fp);
    eddy_fp_restore(env->fp_word);
#if !defined(EDDY_VERIFY_NO_PIN)
    if (env->pinned_run && env->have_affinity)
        sched_setaffinity(0, sizeof env->affinity, &env->affinity);
    env->pinned_run = false;
#endif
}
