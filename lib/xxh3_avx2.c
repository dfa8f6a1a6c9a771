/* SPDX-License-Identifier: MIT */
/* xxHash's XXH3 compiled for AVX2 (this file only is built with -mavx2, and
 * only on x86-64; lib/xxh3.c calls it when the CPU has AVX2). Integer code
 * only: no floating point is compiled here. */
#include "xxh3.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t eddy_xxh3_avx2(const void *data, size_t size);
uint64_t eddy_xxh3_pieces_avx2(const eddy_xxh3_piece *pieces, int count);

uint64_t eddy_xxh3_avx2(const void *data, size_t size) { return XXH3_64bits(data, size); }

uint64_t eddy_xxh3_pieces_avx2(const eddy_xxh3_piece *pieces, int count) {
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    for (int i = 0; i < count; ++i) XXH3_64bits_update(&state, pieces[i].data, pieces[i].size);
    return XXH3_64bits_digest(&state);
}
