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

/* Version of the canonical state hash (docs/hash-spec.md). Any change to what
 * is hashed, or how, bumps this number and regenerates every golden file. */
#define EDDY_HASH_SPEC_VERSION 1

/* EDDY_API marks the public functions: the only symbols libeddy.so and
 * libeddy_replay.so export. Everything else in the libraries is compiled with
 * -fvisibility=hidden, so a shared build exports the API and nothing more,
 * and a static library linked into a game's own shared object keeps eddy's
 * internals hidden there too. Every symbol the libraries define, hidden or
 * not, starts with eddy_ (a test runs nm on the built libraries).
 * (Windows builds are static: PE has no visibility attribute.) */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
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

typedef struct eddy_vec3 {
    float x, y, z;
} eddy_vec3;

#ifdef __cplusplus
}
#endif
#endif
