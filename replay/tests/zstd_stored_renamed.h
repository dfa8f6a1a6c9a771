/* SPDX-License-Identifier: MIT */
/* Renames the stored codec's functions (replay/zstd_stored) so that
 * test_zstd_stored links them beside libzstd's. Force-included (-include)
 * into zstd_stored.c and the shim by replay/CMakeLists.txt. */
#define ZSTD_isError eddy_stored_ZSTD_isError
#define ZSTD_getErrorName eddy_stored_ZSTD_getErrorName
#define ZSTD_compressBound eddy_stored_ZSTD_compressBound
#define ZSTD_createCCtx_advanced eddy_stored_ZSTD_createCCtx_advanced
#define ZSTD_freeCCtx eddy_stored_ZSTD_freeCCtx
#define ZSTD_CCtx_setParameter eddy_stored_ZSTD_CCtx_setParameter
#define ZSTD_compress2 eddy_stored_ZSTD_compress2
#define ZSTD_createDCtx_advanced eddy_stored_ZSTD_createDCtx_advanced
#define ZSTD_freeDCtx eddy_stored_ZSTD_freeDCtx
#define ZSTD_DCtx_setParameter eddy_stored_ZSTD_DCtx_setParameter
#define ZSTD_decompressDCtx eddy_stored_ZSTD_decompressDCtx
#define ZSTD_getFrameContentSize eddy_stored_ZSTD_getFrameContentSize
#define ZSTD_findFrameCompressedSize eddy_stored_ZSTD_findFrameCompressedSize
