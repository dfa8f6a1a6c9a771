/* SPDX-License-Identifier: MIT */
/* The stored zstd frames of a libeddy_replay built without libzstd
 * (EDDY_REPLAY_ZSTD_STORED, replay/zstd_stored/zstd.h: the Windows DLL),
 * checked against libzstd: libzstd reads what it writes, it reads libzstd's
 * raw frames, and it refuses compressed frames and a wrong checksum with a
 * message. */
#include <criterion/criterion.h>
#include <zstd.h>

#include "zstd_stored_shim.h"

#include <stdlib.h>
#include <string.h>

static unsigned char *pattern(size_t n) {
    unsigned char *p = malloc(n + 1);
    for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(i * 7u + i / 13u);
    return p;
}

/* sizes about the 128 KiB block limit */
static const size_t SIZES[] = {0, 1, 1000, 131071, 131072, 131073, 400000};

Test(zstd_stored, libzstd_reads_the_stored_frames_and_so_does_the_codec) {
    for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; ++k) {
        const size_t n = SIZES[k];
        unsigned char *src = pattern(n), *back = malloc(n + 1);
        const size_t cap = eddy_test_stored_bound(n);
        unsigned char *z = malloc(cap);
        const size_t zn = eddy_test_stored_compress(z, cap, src, n);
        cr_assert_null(eddy_test_stored_error(zn), "%zu bytes: %s", n, eddy_test_stored_error(zn));
        cr_expect_eq(eddy_test_stored_frame_size(z, zn), zn, "%zu bytes: frame size", n);
        cr_expect_eq(eddy_test_stored_content_size(z, zn), n);
        cr_expect_eq(ZSTD_getFrameContentSize(z, zn), n);
        cr_expect_eq(ZSTD_findFrameCompressedSize(z, zn), zn);
        size_t got = ZSTD_decompress(back, n + 1, z, zn);
        cr_assert(!ZSTD_isError(got) && got == n && memcmp(back, src, n) == 0,
                  "%zu bytes: libzstd does not read the stored frame", n);
        memset(back, 0, n + 1);
        got = eddy_test_stored_decompress(back, n, z, zn);
        cr_assert(eddy_test_stored_error(got) == NULL && got == n && memcmp(back, src, n) == 0,
                  "%zu bytes: the codec does not read its own frame", n);
        if (n > 0) { /* a flipped content byte fails the checksum */
            z[zn - 5] ^= 1;
            got = eddy_test_stored_decompress(back, n, z, zn);
            cr_expect_not_null(eddy_test_stored_error(got), "%zu bytes: a changed byte passed", n);
        }
        free(src);
        free(back);
        free(z);
    }
}

Test(zstd_stored, libzstd_raw_frames_are_read_and_compressed_ones_refused) {
    unsigned char tiny[3] = {1, 2, 3}, back[400000];
    unsigned char z[1024];
    size_t zn = ZSTD_compress(z, sizeof z, tiny, sizeof tiny, 3); /* too small to compress: raw */
    size_t got = eddy_test_stored_decompress(back, sizeof back, z, zn);
    cr_expect(eddy_test_stored_error(got) == NULL && got == 3 && memcmp(back, tiny, 3) == 0);
    unsigned char *src = pattern(400000);
    const size_t cap = ZSTD_compressBound(400000);
    unsigned char *zz = malloc(cap);
    zn = ZSTD_compress(zz, cap, src, 400000, 3);
    cr_assert(!ZSTD_isError(zn) && zn < 400000);
    cr_expect_eq(eddy_test_stored_frame_size(zz, zn), zn, "the codec walks a compressed frame's blocks");
    got = eddy_test_stored_decompress(back, sizeof back, zz, zn);
    cr_assert_not_null(eddy_test_stored_error(got));
    cr_expect(strstr(eddy_test_stored_error(got), "stored frames only") != NULL, "%s",
              eddy_test_stored_error(got));
    free(src);
    free(zz);
}
