/* SPDX-License-Identifier: MIT */
/* XXH3 dispatch (lib/xxh3.h): the wide (AVX2) and the baseline builds give
 * the same value for every length and alignment, one-shot and in pieces. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "xxh3.h"

static uint8_t *pattern(size_t n) {
    uint8_t *b = malloc(n + 64);
    uint64_t x = 0x243f6a8885a308d3ull;
    for (size_t i = 0; i < n + 64; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(x >> 56);
    }
    return b;
}

Test(xxh3, wide_and_baseline_agree_for_every_length_and_offset) {
    const size_t n = 20000;
    uint8_t *b = pattern(n);
    for (size_t len = 0; len < 2100; len += len < 300 ? 1 : 97)
        for (size_t off = 0; off < 8; off += 3)
            cr_assert_eq(eddy_xxh3_wide(b + off, len), eddy_xxh3_baseline(b + off, len),
                         "length %zu, offset %zu", len, off);
    cr_assert_eq(eddy_xxh3_wide(b, n), eddy_xxh3_baseline(b, n));
    cr_assert_eq(eddy_xxh3(b, n), eddy_xxh3_baseline(b, n), "the dispatch changes the value");
    free(b);
}

Test(xxh3, pieces_hash_as_their_concatenation_on_both_paths) {
    const size_t n = 1 << 18;
    uint8_t *b = pattern(n);
    const size_t cuts[] = {0, 1, 4096, 4097, 70000, 131072, 200001, n};
    eddy_xxh3_piece pieces[7];
    for (int i = 0; i < 7; ++i) pieces[i] = (eddy_xxh3_piece){b + cuts[i], cuts[i + 1] - cuts[i]};
    const uint64_t whole = eddy_xxh3_baseline(b, n);
    cr_assert_eq(eddy_xxh3_pieces_baseline(pieces, 7), whole);
    cr_assert_eq(eddy_xxh3_pieces_wide(pieces, 7), whole);
    cr_assert_eq(eddy_xxh3_pieces(pieces, 7), whole);
    free(b);
}
