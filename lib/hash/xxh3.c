/* SPDX-License-Identifier: MIT */
/* XXH3-64 dispatch (see xxh3.h): the AVX2 build where the CPU has it, else
 * the baseline build of this file. The CPU is asked on every call (the
 * compiler's CPU query reads a word its runtime filled at start-up), so
 * there is no lazily initialised state to race on. Only gcc and clang builds
 * compile the AVX2 file (CMakeLists.txt), so the query is theirs. */
#include "hash/xxh3.h"

#include "hash/hash.h" /* eddy_nonfinite_bits */

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(EDDY_HAVE_XXH3_AVX2)
#define EDDY_CPU_HAS_AVX2() __builtin_cpu_supports("avx2")
uint64_t eddy_xxh3_avx2(const void *data, size_t size);
uint64_t eddy_xxh3_pieces_avx2(const eddy_xxh3_piece *pieces, int count);
uint64_t eddy_xxh3_pieces_checked_avx2(const eddy_xxh3_piece *pieces, int count, int checked,
                                       uint32_t *nonfinite);
#endif

uint64_t eddy_xxh3_baseline(const void *data, size_t size) { return XXH3_64bits(data, size); }

uint64_t eddy_xxh3_pieces_baseline(const eddy_xxh3_piece *pieces, int count) {
    uint32_t unused = 0;
    return eddy_xxh3_pieces_checked_baseline(pieces, count, 0, &unused);
}

uint64_t eddy_xxh3_pieces_checked_baseline(const eddy_xxh3_piece *pieces, int count, int checked,
                                           uint32_t *nonfinite) {
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    for (int i = 0; i < count; ++i) {
        XXH3_64bits_update(&state, pieces[i].data, pieces[i].size);
        if (i < checked) *nonfinite |= eddy_nonfinite_bits(pieces[i].data, (int)(pieces[i].size / 4));
    }
    return XXH3_64bits_digest(&state);
}

bool eddy_xxh3_wide_available(void) {
#if defined(EDDY_HAVE_XXH3_AVX2)
    return EDDY_CPU_HAS_AVX2();
#else
    return false;
#endif
}

uint64_t eddy_xxh3_wide(const void *data, size_t size) {
#if defined(EDDY_HAVE_XXH3_AVX2)
    return eddy_xxh3_avx2(data, size);
#else
    return eddy_xxh3_baseline(data, size);
#endif
}

uint64_t eddy_xxh3_pieces_wide(const eddy_xxh3_piece *pieces, int count) {
#if defined(EDDY_HAVE_XXH3_AVX2)
    return eddy_xxh3_pieces_avx2(pieces, count);
#else
    return eddy_xxh3_pieces_baseline(pieces, count);
#endif
}

uint64_t eddy_xxh3_pieces_checked_wide(const eddy_xxh3_piece *pieces, int count, int checked,
                                       uint32_t *nonfinite) {
#if defined(EDDY_HAVE_XXH3_AVX2)
    return eddy_xxh3_pieces_checked_avx2(pieces, count, checked, nonfinite);
#else
    return eddy_xxh3_pieces_checked_baseline(pieces, count, checked, nonfinite);
#endif
}

uint64_t eddy_xxh3(const void *data, size_t size) {
    return eddy_xxh3_wide_available() ? eddy_xxh3_wide(data, size) : eddy_xxh3_baseline(data, size);
}

uint64_t eddy_xxh3_pieces(const eddy_xxh3_piece *pieces, int count) {
    return eddy_xxh3_wide_available() ? eddy_xxh3_pieces_wide(pieces, count)
                                      : eddy_xxh3_pieces_baseline(pieces, count);
}

uint64_t eddy_xxh3_pieces_checked(const eddy_xxh3_piece *pieces, int count, int checked,
                                  uint32_t *nonfinite) {
    return eddy_xxh3_wide_available()
               ? eddy_xxh3_pieces_checked_wide(pieces, count, checked, nonfinite)
               : eddy_xxh3_pieces_checked_baseline(pieces, count, checked, nonfinite);
}
