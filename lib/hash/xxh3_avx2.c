/* SPDX-License-Identifier: MIT */
/* xxHash's XXH3 compiled for AVX2 (this file only is built with -mavx2, and
 * only on x86-64; lib/hash/xxh3.c calls it when the CPU has AVX2). Integer code
 * only: no floating point is compiled here (the finiteness check reads the
 * floats' bits as integers). */
#include "hash/xxh3.h"

#include <immintrin.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t eddy_xxh3_avx2(const void *data, size_t size);
uint64_t eddy_xxh3_pieces_avx2(const eddy_xxh3_piece *pieces, int count);
uint64_t eddy_xxh3_pieces_checked_avx2(const eddy_xxh3_piece *pieces, int count, int checked,
                                       uint32_t *nonfinite);

uint64_t eddy_xxh3_avx2(const void *data, size_t size) { return XXH3_64bits(data, size); }

uint64_t eddy_xxh3_pieces_avx2(const eddy_xxh3_piece *pieces, int count) {
    uint32_t unused = 0;
    return eddy_xxh3_pieces_checked_avx2(pieces, count, 0, &unused);
}

/* (bits & exponent) + the exponent's lowest bit carries into the sign bit
 * exactly when the exponent is all ones: a NaN or an infinity. */
static uint32_t nonfinite_bits_avx2(const void *data, size_t n) {
    const uint8_t *x = data;
    const __m256i exponent = _mm256_set1_epi32(0x7f800000);
    const __m256i carry = _mm256_set1_epi32(0x00800000);
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i u0 = _mm256_loadu_si256((const __m256i *)(const void *)(x + 4 * i));
        const __m256i u1 = _mm256_loadu_si256((const __m256i *)(const void *)(x + 4 * i + 32));
        acc0 = _mm256_or_si256(acc0, _mm256_add_epi32(_mm256_and_si256(u0, exponent), carry));
        acc1 = _mm256_or_si256(acc1, _mm256_add_epi32(_mm256_and_si256(u1, exponent), carry));
    }
    uint32_t lanes[8];
    _mm256_storeu_si256((__m256i *)(void *)lanes, _mm256_or_si256(acc0, acc1));
    uint32_t all = 0;
    for (int k = 0; k < 8; ++k) all |= lanes[k];
    for (; i < n; ++i) {
        uint32_t u;
        memcpy(&u, x + 4 * i, sizeof u);
        all |= (u & 0x7f800000u) + 0x00800000u;
    }
    return all & 0x80000000u;
}

uint64_t eddy_xxh3_pieces_checked_avx2(const eddy_xxh3_piece *pieces, int count, int checked,
                                       uint32_t *nonfinite) {
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    for (int i = 0; i < count; ++i) {
        XXH3_64bits_update(&state, pieces[i].data, pieces[i].size);
        if (i < checked) *nonfinite |= nonfinite_bits_avx2(pieces[i].data, pieces[i].size / 4);
    }
    return XXH3_64bits_digest(&state);
}
