/* SPDX-License-Identifier: MIT */
/* The FP contract check (tests/fp_contract.h). The platform words are read
 * here directly, not through eddy's fpenv, so that the check does not trust
 * the code it checks. */
#include "fp_contract.h"

#include "scenes.h"

#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define FP_CONTRACT_X86 1
#elif defined(__aarch64__)
#define FP_CONTRACT_ARM 1
#endif

/* One snapshot of every FP control and status word of this thread. */
typedef struct fp_words {
    uint64_t control;   /* MXCSR control bits; FPCR */
    uint64_t status;    /* MXCSR flags; FPSR */
    int fenv_round;     /* fegetround(): x87 rounding on x86 */
    int fenv_flags;     /* fetestexcept(FE_ALL_EXCEPT): x87 and SSE flags on x86 */
} fp_words;

typedef struct caller_mode {
    const char *name;
    uint64_t control;   /* written before each step, traps unmasked */
    uint64_t status;    /* sticky flags already raised (ones whose trap stays masked) */
    int fenv_round;
} caller_mode;

#if defined(FP_CONTRACT_X86)
enum {
    MXCSR_FLAGS = 0x3F, MXCSR_UE = 0x10, MXCSR_PE = 0x20, MXCSR_DAZ = 0x40,
    MXCSR_MASKS = 0x1F80, MXCSR_IM = 0x80, MXCSR_ZM = 0x200, MXCSR_OM = 0x400,
    MXCSR_DOWN = 0x2000, MXCSR_UP = 0x4000, MXCSR_ZERO = 0x6000, MXCSR_FTZ = 0x8000,
    TRAPS = MXCSR_MASKS & ~(MXCSR_IM | MXCSR_ZM | MXCSR_OM), /* invalid, zero, overflow unmasked */
};
static const caller_mode k_modes[] = {
    {"round-up", TRAPS | MXCSR_UP, 0, FE_UPWARD},
    {"round-down", TRAPS | MXCSR_DOWN, MXCSR_UE | MXCSR_PE, FE_DOWNWARD},
    {"round-toward-zero", TRAPS | MXCSR_ZERO, MXCSR_PE, FE_TOWARDZERO},
    {"ftz-daz", TRAPS | MXCSR_FTZ | MXCSR_DAZ, MXCSR_UE, FE_TONEAREST},
    {"every-trap-inexact-included", 0, 0, FE_TONEAREST}, /* all six unmasked */
};

static void words_read(fp_words *w) {
    const uint32_t mxcsr = _mm_getcsr();
    w->control = mxcsr & ~(uint32_t)MXCSR_FLAGS;
    w->status = mxcsr & MXCSR_FLAGS;
    w->fenv_round = fegetround();
    w->fenv_flags = fetestexcept(FE_ALL_EXCEPT);
}

static void mode_enter(const caller_mode *m) {
    _mm_setcsr(MXCSR_MASKS);  /* masked while the x87 side is set up */
    feclearexcept(FE_ALL_EXCEPT);
    fesetround(m->fenv_round);
    _mm_setcsr((unsigned int)(m->control | m->status));
}

static void mode_leave(void) {
    _mm_setcsr(MXCSR_MASKS);
    feclearexcept(FE_ALL_EXCEPT);
    fesetround(FE_TONEAREST);
}

bool fp_contract_traps_supported(void) { return true; }

#elif defined(FP_CONTRACT_ARM)
enum {
    FPCR_IOE = 1 << 8, FPCR_DZE = 1 << 9, FPCR_OFE = 1 << 10, FPCR_UFE = 1 << 11,
    FPCR_IXE = 1 << 12, FPCR_IDE = 1 << 15,
    FPCR_UP = 1 << 22, FPCR_DOWN = 2 << 22, FPCR_ZERO = 3 << 22, FPCR_FZ = 1 << 24,
    FPSR_UFC = 1 << 3, FPSR_IXC = 1 << 4,
    TRAPS = FPCR_IOE | FPCR_DZE | FPCR_OFE,
};
static const caller_mode k_modes[] = {
    {"round-up", TRAPS | FPCR_UP, 0, FE_UPWARD},
    {"round-down", TRAPS | FPCR_DOWN, FPSR_UFC | FPSR_IXC, FE_DOWNWARD},
    {"round-toward-zero", TRAPS | FPCR_ZERO, FPSR_IXC, FE_TOWARDZERO},
    {"flush-to-zero", TRAPS | FPCR_FZ, FPSR_UFC, FE_TONEAREST},
    {"every-trap-inexact-included", TRAPS | FPCR_UFE | FPCR_IXE | FPCR_IDE, 0, FE_TONEAREST},
};

static uint64_t fpcr_read(void) {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
}
static void fpcr_write(uint64_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v) : "memory"); }
static uint64_t fpsr_read(void) {
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpsr" : "=r"(v));
    return v;
}
static void fpsr_write(uint64_t v) { __asm__ __volatile__("msr fpsr, %0" : : "r"(v) : "memory"); }

static void words_read(fp_words *w) {
    w->control = fpcr_read();
    w->status = fpsr_read();
    w->fenv_round = fegetround();
    w->fenv_flags = fetestexcept(FE_ALL_EXCEPT);
}

static void mode_enter(const caller_mode *m) {
    fpcr_write(m->control);
    fpsr_write(m->status);
}

static void mode_leave(void) {
    fpcr_write(0);
    fpsr_write(0);
}

bool fp_contract_traps_supported(void) {
    const uint64_t saved = fpcr_read();
    fpcr_write(saved | TRAPS);
    const bool kept = (fpcr_read() & TRAPS) == TRAPS; /* RAZ/WI where unsupported */
    fpcr_write(saved);
    return kept;
}

#else
/* No FP control or status register a program can reach (WebAssembly): the
 * mode is fixed, so only the <fenv.h> view is compared. */
static const caller_mode k_modes[] = {{"fixed", 0, 0, FE_TONEAREST}};

static void words_read(fp_words *w) {
    w->control = 0;
    w->status = 0;
    w->fenv_round = fegetround();
    w->fenv_flags = fetestexcept(FE_ALL_EXCEPT);
}

static void mode_enter(const caller_mode *m) { (void)m; feclearexcept(FE_ALL_EXCEPT); }
static void mode_leave(void) { feclearexcept(FE_ALL_EXCEPT); }
bool fp_contract_traps_supported(void) { return false; }
#endif

int fp_contract_mode_count(void) { return (int)(sizeof k_modes / sizeof k_modes[0]); }

const char *fp_contract_mode_name(int mode) { return k_modes[mode].name; }

static void words_format(const fp_words *w, char *out, size_t size) {
    snprintf(out, size, "control=%#llx status=%#llx fegetround=%#x fetestexcept=%#x",
             (unsigned long long)w->control, (unsigned long long)w->status,
             (unsigned)w->fenv_round, (unsigned)w->fenv_flags);
}

void fp_contract_describe_words(char *out, size_t size) {
    fp_words w;
    words_read(&w);
    words_format(&w, out, size);
}

static bool words_equal(const fp_words *a, const fp_words *b) {
    return a->control == b->control && a->status == b->status &&
           a->fenv_round == b->fenv_round && a->fenv_flags == b->fenv_flags;
}

/* Pool workers start in the caller mode too: eddy must set its own on them. */
static void worker_enter_mode(int worker_index, void *context) {
    (void)worker_index;
    mode_enter(context);
}

static bool step_checked(eddy_world *world, const char *scene, const caller_mode *m, int frame,
                         char *message, size_t size) {
    eddy_scene_input buffer;
    fp_words before, after;
    mode_enter(m);
    words_read(&before);
    const eddy_input *input = eddy_scene_input_for(scene, eddy_world_frame(world), &buffer);
    const eddy_status status = eddy_world_step(world, input);
    const eddy_frame_hash hash = eddy_world_hash(world);
    words_read(&after);
    mode_leave();
    (void)hash;
    if (status != EDDY_OK) {
        snprintf(message, size, "%s, %s: step %d failed: %s", scene, m->name, frame,
                 eddy_status_name(status));
        return false;
    }
    if (!words_equal(&before, &after)) {
        char b[160], a[160];
        words_format(&before, b, sizeof b);
        words_format(&after, a, sizeof a);
        snprintf(message, size, "%s, %s: frame %d changed the caller's FP words\n  before %s\n"
                 "  after  %s", scene, m->name, frame, b, a);
        return false;
    }
    return true;
}

bool fp_contract_check(const char *scene, int workers, int mode, int frames, char *message,
                       size_t message_size) {
    caller_mode worker_mode = k_modes[mode]; /* read by the workers' start hook */
    const caller_mode *m = &worker_mode;
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = workers;
    base.worker_start = worker_enter_mode;
    base.worker_start_context = &worker_mode;
    eddy_world *world = NULL;
    eddy_status status = eddy_scene_create(scene, &base, &world);
    if (status != EDDY_OK) {
        snprintf(message, message_size, "%s: cannot create at %d workers: %s", scene, workers,
                 eddy_status_name(status));
        return false;
    }
    bool ok = true;
    for (int f = 1; f <= frames && ok; ++f) {
        ok = step_checked(world, scene, m, f, message, message_size);
    }
    eddy_world_destroy(world);
    return ok;
}
