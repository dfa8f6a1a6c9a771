/* SPDX-License-Identifier: MIT */
/* eddy — deterministic vortex-particle fluids for games.
 * base.h: version, export macro, status codes, assert hook, small math types. */
#ifndef EDDY_BASE_H
#define EDDY_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EDDY_VERSION_MAJOR 0
#define EDDY_VERSION_MINOR 1
#define EDDY_VERSION_PATCH 0
#define EDDY_VERSION_STRING "0.1.0"
/* The three in one number, major * 10000 + minor * 100 + patch. */
#define EDDY_VERSION (EDDY_VERSION_MAJOR * 10000 + EDDY_VERSION_MINOR * 100 + EDDY_VERSION_PATCH)

/* Version of the canonical state hash (docs/hash-spec.md). Any change to what
 * is hashed, or how, bumps this number and regenerates every golden file. */
#define EDDY_HASH_SPEC_VERSION 1

/* EDDY_API marks the public functions: the only symbols libeddy.so and
 * libeddy_replay.so export. Everything else in the libraries is compiled with
 * -fvisibility=hidden, so a shared build exports the API and nothing more,
 * and a static library linked into a game's own shared object keeps eddy's
 * internals hidden there too. Every symbol the libraries define, hidden or
 * not, starts with eddy_ (a test runs nm on the built libraries).
 *
 * On Windows the same functions are the DLL's exports: building libeddy.dll
 * defines EDDY_BUILDING_DLL (dllexport, so nothing else is exported), and a
 * game that links the DLL defines EDDY_DLL (dllimport; the CMake target
 * eddy::eddy of a shared build says so itself). A static library needs
 * neither. libeddy_replay's functions carry EDDY_REPLAY_API (replay.h). */
#if defined(_WIN32)
#if defined(EDDY_BUILDING_DLL)
#define EDDY_API __declspec(dllexport)
#elif defined(EDDY_DLL)
#define EDDY_API __declspec(dllimport)
#else
#define EDDY_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define EDDY_API __attribute__((visibility("default")))
#else
#define EDDY_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. The numeric values are pinned: they appear in logs, replay
 * tooling and bug reports, and never change meaning between versions. */
typedef enum eddy_status {
    EDDY_OK = 0,
    EDDY_ERROR_INVALID_ARGUMENT = 1, /* a NULL or out-of-range argument */
    EDDY_ERROR_INVALID_DEF = 2,      /* a definition field is invalid (message names it) */
    EDDY_ERROR_OUT_OF_MEMORY = 3,
    EDDY_ERROR_WRONG_STATE = 4,      /* call not allowed now (e.g. adding particles after frame 0,
                                        stepping a world that needs a restore) */
    EDDY_ERROR_NOT_FOUND = 5,        /* unknown name or stale id */
    EDDY_ERROR_NAN = 6,              /* a NaN or infinity in an input or in the state
                                        after a step (then the world needs a restore) */
    EDDY_ERROR_THREAD = 7,           /* a worker thread could not be started */
    EDDY_ERROR_CAPACITY = 8,         /* a fixed limit would be exceeded */
    EDDY_ERROR_IO = 20,              /* reading or writing failed */
    EDDY_ERROR_CORRUPT = 21,         /* bytes fail a checksum or do not parse */
    EDDY_ERROR_TRUNCATED = 22,       /* data ends early */
    EDDY_ERROR_VERSION = 23,         /* unknown format or hash-spec version */
    EDDY_ERROR_FINGERPRINT = 24,     /* recorded on an incompatible build or platform */
    EDDY_ERROR_DIVERGED = 25,        /* re-simulation does not match a recorded hash */
} eddy_status;

/* Short stable name of a status, e.g. "EDDY_ERROR_INVALID_DEF". Never NULL. */
EDDY_API const char *eddy_status_name(eddy_status status);

/* Called on a programmer error (bad id, NaN in state in debug builds, broken
 * invariant). The default prints the message and aborts. Return to continue. */
typedef void eddy_assert_fn(const char *condition, const char *file, int line);
EDDY_API void eddy_set_assert_handler(eddy_assert_fn *handler);

/* Library version as a string, e.g. "0.1.0". */
EDDY_API const char *eddy_version_string(void);
/* Library version as EDDY_VERSION computes it. */
EDDY_API int eddy_version(void);

/* Is the library the headers a caller was compiled with? header_version is
 * the caller's EDDY_VERSION. The structs of this header may change at any
 * minor version while the major is 0 (and at any major after), so the major
 * and minor must match; the patch may differ. On a mismatch returns
 * EDDY_ERROR_VERSION and, if message != NULL, writes a message naming both
 * versions into message[0..message_size). eddy_world_create (eddy.h) calls it
 * with the header's version, so a game built against other headers than the
 * library it loads is refused before any struct crosses. */
EDDY_API eddy_status eddy_version_check(int header_version, char *message, size_t message_size);

/* ---------------------------------------------------------------- allocator
 * Every allocation libeddy and libeddy_replay make goes through these
 * functions (docs/integration.md, "Allocator"). Without a hook they are the C
 * library's malloc/realloc/free (and aligned_alloc, _aligned_malloc on
 * Windows). With one, eddy calls the game's functions only:
 *   alloc(size, user)                    like malloc; NULL when out of memory;
 *   aligned_alloc(size, alignment, user) alignment a power of two >= 16
 *                                        (the built-in pool's cache lines);
 *   free(memory, user)                   every block either returned; never NULL.
 * eddy has no realloc hook: a growing block is allocated, copied and freed.
 * The functions may be called from any thread that calls eddy, and from the
 * pool's workers, so they must be thread-safe when several worlds run at once.
 * A failed allocation is an EDDY_ERROR_OUT_OF_MEMORY from the call that made it.
 *
 * eddy_set_allocator(NULL) restores the C library. It is refused with
 * EDDY_ERROR_WRONG_STATE while any block allocated through the previous
 * functions is live (a world, pool, recorder, player or eddy_bytes not yet
 * destroyed or freed): set it once, before the first eddy call that allocates.
 * The hook is process-wide, like the assert handler (Box2D's b2SetAllocator,
 * Jolt's Allocate): eddy's allocations outside any world (replay files, bytes)
 * need it too. */
typedef struct eddy_allocator {
    void *(*alloc)(size_t size, void *user);
    void *(*aligned_alloc)(size_t size, size_t alignment, void *user);
    void (*free)(void *memory, void *user);
    void *user;
} eddy_allocator;
EDDY_API eddy_status eddy_set_allocator(const eddy_allocator *allocator);

/* eddy's allocation functions: the hook's, or the C library's. eddy_bytes
 * (snapshot.h) that eddy grows or frees must come from these when a hook is
 * set. eddy_free accepts NULL; eddy_realloc keeps *memory on failure. */
EDDY_API void *eddy_alloc(size_t size);
EDDY_API void *eddy_calloc(size_t count, size_t size);
EDDY_API void *eddy_realloc(void *memory, size_t size);
EDDY_API void eddy_free(void *memory);

/* ---------------------------------------------------------------- log
 * What eddy would otherwise drop silently or only keep in an error message:
 * refused calls and inputs (EDDY_LOG_WARNING, with the message the error
 * functions return), clamped or adjusted settings and retired ids
 * (EDDY_LOG_INFO), out of memory and broken worlds (EDDY_LOG_ERROR).
 * Silent by default: nothing is formatted or called until a handler is set.
 * The message is only valid during the call. The handler may be called from
 * any thread that calls eddy (never from the pool's workers).
 * eddy_set_log_handler(NULL, ...) silences eddy again. */
typedef enum eddy_log_level {
    EDDY_LOG_ERROR = 0,
    EDDY_LOG_WARNING = 1,
    EDDY_LOG_INFO = 2,
} eddy_log_level;
typedef void eddy_log_fn(eddy_log_level level, const char *message, void *user);
/* Messages at level <= max_level reach handler. */
EDDY_API void eddy_set_log_handler(eddy_log_fn *handler, eddy_log_level max_level, void *user);

/* ---------------------------------------------------------------- profiler zones
 * begin and end bracket every phase of eddy_world_step and the step itself
 * on the calling thread (worker_index 0), and every task range a worker runs
 * (worker_index as the task system gives it: the pool's 0..worker_count-1),
 * so a profiler (Tracy, Superluminal, PIX, Perfetto through a sink like
 * tools/chrome_trace.c) shows where a step's time goes on each thread.
 * zone is a static string: "eddy_world_step", the phase names of
 * eddy_phase_name (eddy.h: "eddy.input", ...), "eddy_task" for work outside a step. A task
 * range's zone is the name of the phase that runs it. Zones nest properly on
 * each worker. Unset (the default, or eddy_set_profiler(NULL)) costs one
 * predictable branch per phase and per task range (docs/bench.md).
 * Set it while no world steps; the functions run on eddy's threads and must
 * not call eddy. */
typedef void eddy_zone_fn(const char *zone, int worker_index, void *user);
typedef struct eddy_profiler {
    eddy_zone_fn *begin;
    eddy_zone_fn *end;
    void *user;
} eddy_profiler;
EDDY_API void eddy_set_profiler(const eddy_profiler *profiler);

typedef struct eddy_vec3 {
    float x, y, z;
} eddy_vec3;

#ifdef __cplusplus
}
#endif
#endif
