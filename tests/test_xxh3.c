/* SPDX-License-Identifier: MIT */
/* XXH3 dispatch (lib/hash/xxh3.h): the wide (AVX2) and the baseline builds give
 * the same value for every length and alignment, one-shot and in pieces. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "hash/xxh3.h"

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

/* The checked variants hash like the plain one and flag a NaN or an infinity
 * in a checked piece, wherever it lies (vector body or tail), and only there. */
Test(xxh3, checked_pieces_flag_nonfinite_floats_of_the_checked_pieces_only) {
    enum { N = 1000 }; /* floats per piece: a tail after the 16-float blocks */
    float *f = malloc(3 * N * sizeof *f);
    for (int i = 0; i < 3 * N; ++i) f[i] = (float)i * 0.25f - 100.0f;
    const eddy_xxh3_piece pieces[3] = {{f, N * 4}, {f + N, N * 4}, {f + 2 * N, N * 4}};
    typedef uint64_t checked_fn(const eddy_xxh3_piece *, int, int, uint32_t *);
    checked_fn *paths[3] = {eddy_xxh3_pieces_checked_baseline, eddy_xxh3_pieces_checked_wide,
                            eddy_xxh3_pieces_checked};
    const uint32_t nan_bits = 0x7fc00001u, inf_bits = 0xff800000u, max_bits = 0x7f7fffffu;
    const int spots[] = {0, 17, 991, N - 1, N + 5, 2 * N + 3};
    for (int p = 0; p < 3; ++p) {
        uint32_t bad = 0;
        cr_assert_eq(paths[p](pieces, 3, 2, &bad), eddy_xxh3_pieces_baseline(pieces, 3), "path %d", p);
        cr_assert_eq(bad, 0u, "path %d: finite data flagged", p);
        for (size_t s = 0; s < sizeof spots / sizeof spots[0]; ++s) {
            const uint32_t planted[3] = {nan_bits, inf_bits, max_bits};
            for (int k = 0; k < 3; ++k) {
                const float keep = f[spots[s]];
                memcpy(&f[spots[s]], &planted[k], sizeof planted[k]);
                bad = 0;
                cr_assert_eq(paths[p](pieces, 3, 2, &bad), eddy_xxh3_pieces_baseline(pieces, 3));
                const bool checked = spots[s] < 2 * N, nonfinite = k < 2;
                cr_assert_eq(bad != 0, checked && nonfinite, "path %d, float %d, bits %08x: %08x", p,
                             spots[s], planted[k], bad);
                f[spots[s]] = keep;
            }
        }
    }
    free(f);
}
