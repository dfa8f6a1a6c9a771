/* SPDX-License-Identifier: MIT */
/* The FP contract check shared by the Criterion test (tests/test_fp_contract.c)
 * and the standalone program eddy-fp-contract (tests/fp_contract_main.c,
 * run under wine, qemu and node by the platform stages).
 *
 * For a scene, a worker count and a caller mode: put the calling thread (and
 * every pool worker, through the worker-start hook) in the caller mode, with
 * the invalid, divide-by-zero and overflow traps unmasked and some sticky
 * flags already raised; read the platform's FP control and status words
 * (MXCSR and the <fenv.h> view, x87 included, on x86-64; FPCR and FPSR on
 * aarch64); step, hash, read again. The step must not trap (a trap kills the
 * process, failing the test) and the words must be exactly as before: no
 * flag added, none cleared, no control bit changed. */
#ifndef EDDY_FP_CONTRACT_H
#define EDDY_FP_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

/* Caller modes, in the platform's terms; each unmasks invalid, divide-by-zero
 * and overflow traps, the last one every trap, inexact included. */
int fp_contract_mode_count(void);
const char *fp_contract_mode_name(int mode);
/* Whether this platform can unmask FP traps at all (false on WebAssembly,
 * and where the hardware ignores trap enables: reported, not hidden). */
bool fp_contract_traps_supported(void);
/* Every word the platform has, as text, for messages ("mxcsr=... fenv=..."). */
void fp_contract_describe_words(char *out, size_t size);

/* Create the scene at `workers`, then `frames` times: enter `mode`, step,
 * hash, compare the words. Returns true when they matched every time; else
 * writes what differed (scene, frame, words before and after) to message. */
bool fp_contract_check(const char *scene, int workers, int mode, int frames, char *message,
                       size_t message_size);

#endif
