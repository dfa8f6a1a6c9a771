/* SPDX-License-Identifier: MIT */
/* The stored codec (replay/zstd_stored) behind plain functions, so that
 * test_zstd_stored.c can use it and libzstd in one program. */
#include "../zstd_stored/zstd.h"
#include "zstd_stored_shim.h"

#include <stdlib.h>

static void *shim_alloc(void *opaque, size_t size) { (void)opaque; return malloc(size); }
static void shim_free(void *opaque, void *p) { (void)opaque; free(p); }
static const ZSTD_customMem shim_mem = {shim_alloc, shim_free, NULL};

size_t eddy_test_stored_bound(size_t n) { return ZSTD_compressBound(n); }

size_t eddy_test_stored_compress(void *dst, size_t cap, const void *src, size_t n) {
    ZSTD_CCtx *c = ZSTD_createCCtx_advanced(shim_mem);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
    const size_t r = ZSTD_compress2(c, dst, cap, src, n);
    ZSTD_freeCCtx(c);
    return r;
}

size_t eddy_test_stored_decompress(void *dst, size_t cap, const void *src, size_t n) {
    ZSTD_DCtx *d = ZSTD_createDCtx_advanced(shim_mem);
    const size_t r = ZSTD_decompressDCtx(d, dst, cap, src, n);
    ZSTD_freeDCtx(d);
    return r;
}

unsigned long long eddy_test_stored_content_size(const void *src, size_t n) {
    return ZSTD_getFrameContentSize(src, n);
}

size_t eddy_test_stored_frame_size(const void *src, size_t n) {
    return ZSTD_findFrameCompressedSize(src, n);
}

const char *eddy_test_stored_error(size_t code) {
    return ZSTD_isError(code) ? ZSTD_getErrorName(code) : NULL;
}
