/* SPDX-License-Identifier: MIT */
/* The part of zstd's API that libeddy_replay calls, for a build without
 * libzstd (a MinGW cross build: Debian has no MinGW libzstd): frames are
 * written stored (raw blocks, RFC 8878 3.1.1.2.2), and read when their blocks
 * are raw or RLE. Such frames are valid zstd: libzstd and eddy-verify read
 * them. A frame with compressed blocks (a replay written by a libzstd build)
 * is refused with "compressed block: this libeddy_replay reads stored frames
 * only". Chosen by EDDY_REPLAY_ZSTD_STORED (replay/CMakeLists.txt). */
#ifndef EDDY_ZSTD_STORED_H
#define EDDY_ZSTD_STORED_H

#include <stddef.h>

#ifndef ZSTD_FRAME_MAGIC
#define ZSTD_FRAME_MAGIC 0xFD2FB528u
#endif
#define ZSTD_CONTENTSIZE_UNKNOWN (0ULL - 1)
#define ZSTD_CONTENTSIZE_ERROR (0ULL - 2)

typedef void *(*ZSTD_allocFunction)(void *opaque, size_t size);
typedef void (*ZSTD_freeFunction)(void *opaque, void *address);
typedef struct {
    ZSTD_allocFunction customAlloc;
    ZSTD_freeFunction customFree;
    void *opaque;
} ZSTD_customMem;

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct ZSTD_DCtx_s ZSTD_DCtx;
typedef enum {
    ZSTD_c_compressionLevel = 100,
    ZSTD_c_checksumFlag = 201,
    ZSTD_c_contentSizeFlag = 200
} ZSTD_cParameter;
typedef enum { ZSTD_d_experimentalParam3 = 1002 } ZSTD_dParameter;

unsigned ZSTD_isError(size_t code);
const char *ZSTD_getErrorName(size_t code);
size_t ZSTD_compressBound(size_t srcSize);

ZSTD_CCtx *ZSTD_createCCtx_advanced(ZSTD_customMem mem);
size_t ZSTD_freeCCtx(ZSTD_CCtx *cctx);
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *cctx, ZSTD_cParameter param, int value);
size_t ZSTD_compress2(ZSTD_CCtx *cctx, void *dst, size_t dstCapacity, const void *src, size_t srcSize);

ZSTD_DCtx *ZSTD_createDCtx_advanced(ZSTD_customMem mem);
size_t ZSTD_freeDCtx(ZSTD_DCtx *dctx);
size_t ZSTD_DCtx_setParameter(ZSTD_DCtx *dctx, ZSTD_dParameter param, int value);
size_t ZSTD_decompressDCtx(ZSTD_DCtx *dctx, void *dst, size_t dstCapacity, const void *src,
                           size_t srcSize);
unsigned long long ZSTD_getFrameContentSize(const void *src, size_t srcSize);
size_t ZSTD_findFrameCompressedSize(const void *src, size_t srcSize);

#endif
