/* SPDX-License-Identifier: MIT */
/* The stored codec behind plain functions (zstd_stored_shim.c). */
#ifndef EDDY_ZSTD_STORED_SHIM_H
#define EDDY_ZSTD_STORED_SHIM_H
#include <stddef.h>
size_t eddy_test_stored_bound(size_t n);
size_t eddy_test_stored_compress(void *dst, size_t cap, const void *src, size_t n);
size_t eddy_test_stored_decompress(void *dst, size_t cap, const void *src, size_t n);
unsigned long long eddy_test_stored_content_size(const void *src, size_t n);
size_t eddy_test_stored_frame_size(const void *src, size_t n);
const char *eddy_test_stored_error(size_t code); /* NULL: not an error */
#endif
