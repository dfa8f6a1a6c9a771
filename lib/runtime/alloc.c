/* SPDX-License-Identifier: MIT */
/* The allocator hook: the one place libeddy and libeddy_replay get memory.
 *
 * Design note. Every file of lib/ and replay/ calls eddy_alloc, eddy_calloc,
 * eddy_realloc and eddy_free (and the pool eddy_aligned_alloc) instead of the
 * C library; the tests link eddy with malloc, calloc, realloc and free wrapped
 * so that a call that bypasses these functions fails them
 * (tests/test_alloc.c).
 *
 * Without a hook the functions are the C library's, block for block: a block
 * is what malloc returned, so realloc stays realloc and nothing changes for a
 * game that never sets one.
 *
 * The game's hook has no realloc (Box2D's and Jolt's have none either, and a
 * game's pools rarely do), so with a hook each plain block carries a header
 * of HEADER bytes in front of it that holds its size: eddy_realloc allocates
 * the new block, copies min(old, new) bytes and frees the old one. HEADER is
 * 16 so the block keeps the alignment of what the game returned up to 16.
 * Aligned blocks are never resized and carry no header.
 *
 * The hook can change only while no block is live (`g_live` counts them), so
 * a block is always freed by the functions that allocated it. The count is
 * one atomic add per allocation; a steady-state step makes none. */
#include "runtime/runtime.h"
#include "runtime/thread.h"

#include <stdatomic.h>
#include <stdlib.h>

enum { HEADER = 16 };

static eddy_allocator g_hook;         /* alloc == NULL: the C library */
static atomic_llong g_live;           /* blocks allocated and not yet freed */

eddy_status eddy_set_allocator(const eddy_allocator *a) {
    if (a && (!a->alloc || !a->aligned_alloc || !a->free)) return EDDY_ERROR_INVALID_ARGUMENT;
    if (atomic_load(&g_live) > 0) return EDDY_ERROR_WRONG_STATE;
    if (a)
        g_hook = *a;
    else
        g_hook = (eddy_allocator){0};
    return EDDY_OK;
}

static void *counted(void *p) {
    if (p) atomic_fetch_add_explicit(&g_live, 1, memory_order_relaxed);
    return p;
}

static void *hook_alloc(size_t size) {
    if (size > SIZE_MAX - HEADER) return NULL;
    unsigned char *base = g_hook.alloc(size + HEADER, g_hook.user);
    if (!base) return NULL;
    memcpy(base, &size, sizeof size);
    return base + HEADER;
}

void *eddy_alloc(size_t size) {
    if (size == 0) size = 1; /* never NULL for success */
    return counted(g_hook.alloc ? hook_alloc(size) : malloc(size));
}

void *eddy_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    size_t bytes = count * size;
    if (bytes == 0) bytes = 1;
    if (!g_hook.alloc) return counted(calloc(bytes, 1));
    void *p = hook_alloc(bytes);
    if (p) memset(p, 0, bytes);
    return counted(p);
}

void *eddy_realloc(void *memory, size_t size) {
    if (!memory) return eddy_alloc(size);
    if (size == 0) size = 1;
    if (!g_hook.alloc) return realloc(memory, size);
    void *q = hook_alloc(size);
    if (!q) return NULL;
    size_t old;
    memcpy(&old, (unsigned char *)memory - HEADER, sizeof old);
    memcpy(q, memory, old < size ? old : size);
    g_hook.free((unsigned char *)memory - HEADER, g_hook.user);
    return q;
}

void eddy_free(void *memory) {
    if (!memory) return;
    atomic_fetch_sub_explicit(&g_live, 1, memory_order_relaxed);
    if (g_hook.alloc)
        g_hook.free((unsigned char *)memory - HEADER, g_hook.user);
    else
        free(memory);
}

void *eddy_aligned_alloc(size_t alignment, size_t size) {
    if (!g_hook.alloc) return counted(eddy_system_aligned_alloc(alignment, size));
    return counted(g_hook.aligned_alloc(size, alignment, g_hook.user));
}

void eddy_aligned_free(void *memory) {
    if (!memory) return;
    atomic_fetch_sub_explicit(&g_live, 1, memory_order_relaxed);
    if (g_hook.alloc)
        g_hook.free(memory, g_hook.user);
    else
        eddy_system_aligned_free(memory);
}
