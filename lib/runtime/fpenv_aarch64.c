/* SPDX-License-Identifier: MIT */
/* The FP environment on aarch64: FPCR (control) and FPSR (status).
 *
 * One back end of the internal interface declared in lib/runtime/runtime.h, chosen by the
 * build; what the canonical mode is: lib/runtime/fpenv.c.
 *
 * The mode word. Canonical = FPCR with RMode 0 (round to nearest), no trap
 * enables, no alternative half precision / default-NaN / FEAT_AFP bits, plus
 * FZ (bit 24) when denormals are flushed. FZ flushes denormal inputs and
 * outputs to zero, which matches x86's FTZ+DAZ pair.
 *
 * Like MXCSR on x86-64, the word also carries the sticky exception flags, so
 * that saving and restoring it around a step gives the caller back its flags
 * untouched (the FP contract, docs/determinism.md). They live in FPSR; the
 * word keeps them in FPCR bits that are RES0 (always zero in FPCR itself):
 *   FPSR IOC DZC OFC UFC IXC (bits 0-4) -> word bits 3-7,
 *   FPSR IDC (bit 7)                    -> word bit 13.
 * eddy_fpenv_is compares the FPCR bits only. eddy_fpenv_canonical has no
 * flags, so entering the canonical mode starts the step with clear flags. */
#include "runtime/runtime.h"

#if !defined(__aarch64__)
#error "eddy: lib/runtime/fpenv_aarch64.c is the aarch64 FP environment; the build picked the wrong file"
#endif

enum {
    FPCR_FZ = 1u << 24,           /* flush denormal inputs and outputs to zero */
    FPSR_FLAGS_LOW = 0x1Fu,       /* IOC DZC OFC UFC IXC */
    FPSR_IDC = 1u << 7,           /* input denormal */
    WORD_FLAGS_LOW_SHIFT = 3,
    WORD_IDC = 1u << 13,
    WORD_FLAGS = (FPSR_FLAGS_LOW << WORD_FLAGS_LOW_SHIFT) | WORD_IDC,
};

static inline uint64_t fpcr_read(void) {
    uint64_t value;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(value));
    return value;
}

static inline void fpcr_write(uint64_t value) {
    __asm__ __volatile__("msr fpcr, %0" : : "r"(value) : "memory");
}

static inline uint64_t fpsr_read(void) {
    uint64_t value;
    __asm__ __volatile__("mrs %0, fpsr" : "=r"(value));
    return value;
}

static inline void fpsr_write(uint64_t value) {
    __asm__ __volatile__("msr fpsr, %0" : : "r"(value) : "memory");
}

static uint32_t flags_to_word(uint64_t fpsr) {
    uint32_t low = (uint32_t)fpsr & FPSR_FLAGS_LOW;
    return (low << WORD_FLAGS_LOW_SHIFT) | ((fpsr & FPSR_IDC) != 0 ? WORD_IDC : 0u);
}

static uint64_t flags_from_word(uint32_t word) {
    uint64_t low = (word >> WORD_FLAGS_LOW_SHIFT) & FPSR_FLAGS_LOW;
    return low | ((word & WORD_IDC) != 0 ? FPSR_IDC : 0u);
}

uint32_t eddy_fpenv_canonical(bool flush_denormals) {
    /* RMode 0 (nearest), traps IOE/DZE/OFE/UFE/IXE/IDE off, DN/AHP/FZ16 off. */
    return flush_denormals ? FPCR_FZ : 0u;
}

uint32_t eddy_fpenv_get(void) {
    return ((uint32_t)fpcr_read() & ~(uint32_t)WORD_FLAGS) | flags_to_word(fpsr_read());
}

void eddy_fpenv_set(uint32_t mode) {
    fpcr_write(mode & ~(uint32_t)WORD_FLAGS);
    uint64_t fpsr = fpsr_read() & ~(uint64_t)(FPSR_FLAGS_LOW | FPSR_IDC);
    fpsr_write(fpsr | flags_from_word(mode));
}

bool eddy_fpenv_is(uint32_t mode) {
    return (((uint32_t)fpcr_read() ^ mode) & ~(uint32_t)WORD_FLAGS) == 0;
}
