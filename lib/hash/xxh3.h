/* SPDX-License-Identifier: MIT */
/* Internal: XXH3-64 (seed 0) with the widest SIMD path the CPU has.
 *
 * XXH3's value does not depend on the instruction set it was computed with
 * (xxHash's promise, checked by tests/test_hash.c against the SSE2 path), so
 * this choice can never show in a hash, a snapshot or a replay: it only makes
 * hashing faster. On x86-64 an AVX2 build of xxHash (xxh3_avx2.c) is used when
 * the CPU has AVX2; elsewhere the baseline build (SSE2 on x86-64, NEON on
 * aarch64). */
#ifndef EDDY_XXH3_H
#define EDDY_XXH3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One piece of a byte string hashed as the concatenation of its pieces. */
typedef struct eddy_xxh3_piece {
    const void *data;
    size_t size;
} eddy_xxh3_piece;

uint64_t eddy_xxh3(const void *data, size_t size);
uint64_t eddy_xxh3_pieces(const eddy_xxh3_piece *pieces, int count);
/* eddy_xxh3_pieces, and the finiteness check of the first `checked` pieces,
 * read as 4-byte floats while they are in cache: ORs 0x80000000 into
 * *nonfinite when one of them is a NaN or an infinity (the exponent field all
 * ones; integer operations only, like eddy_nonfinite_bits). */
uint64_t eddy_xxh3_pieces_checked(const eddy_xxh3_piece *pieces, int count, int checked,
                                  uint32_t *nonfinite);

/* The two paths, for the test that they agree. */
uint64_t eddy_xxh3_baseline(const void *data, size_t size);
uint64_t eddy_xxh3_pieces_baseline(const eddy_xxh3_piece *pieces, int count);
bool eddy_xxh3_wide_available(void);
uint64_t eddy_xxh3_wide(const void *data, size_t size);
uint64_t eddy_xxh3_pieces_wide(const eddy_xxh3_piece *pieces, int count);
uint64_t eddy_xxh3_pieces_checked_baseline(const eddy_xxh3_piece *pieces, int count, int checked,
                                           uint32_t *nonfinite);
uint64_t eddy_xxh3_pieces_checked_wide(const eddy_xxh3_piece *pieces, int count, int checked,
                                       uint32_t *nonfinite);

#endif
