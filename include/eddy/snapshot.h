/* SPDX-License-Identifier: MIT */
/* eddy — snapshots of a world's state and the wire encodings of definitions
 * and per-frame inputs (docs/snapshot-format.md).
 *
 * Everything is written field by field, little-endian, behind a versioned
 * header; never a raw struct image. A snapshot restored into a world with any
 * worker count continues with the same frame hashes as the original world. */
#ifndef EDDY_SNAPSHOT_H
#define EDDY_SNAPSHOT_H

#include "eddy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Definition encoding 2 adds the treecode traversal, 3 the vorton step, 4 the
 * diffusion and the body coupling, 5 the grid's extent, 6 the vorticity
 * alignment; eddy writes each definition in the oldest version that holds it
 * (1 for the original traversal with Euler's step, 2 for another traversal)
 * and reads all six. */
/* Input encoding 2 adds blasts and bullets; an input without them is
 * written in version 1 (so older replays' bytes never change) and both are
 * read. Snapshots of a world with an active blast carry an extra section
 * (BLST) that builds before it refuse as trailing bytes. */
enum { EDDY_SNAPSHOT_VERSION = 1, EDDY_INPUT_ENCODING_VERSION = 2, EDDY_DEF_ENCODING_VERSION = 6 };

/* Growable byte buffer owned by the caller (free with eddy_bytes_free). */
typedef struct eddy_bytes {
    uint8_t *data;
    size_t size;
    size_t capacity;
} eddy_bytes;
EDDY_API void eddy_bytes_free(eddy_bytes *bytes);

/* Physical fields of a world definition (threading fields are not encoded:
 * a replay may be played at any worker count). Appends to out. */
EDDY_API eddy_status eddy_world_def_encode(const eddy_world_def *def, eddy_bytes *out);
/* Decodes into *def, which must come from eddy_world_def_default(); its
 * threading fields are kept. */
EDDY_API eddy_status eddy_world_def_decode(const void *data, size_t size, eddy_world_def *def,
                                           char *message, size_t message_size);

/* Whole state of the world (frame, particles, bodies, emitters, PRNG, the
 * flow grid of the last step, diagnostics). Appends to out. The particle
 * arrays are copied on the world's workers (its pool or the game's task
 * system, as in a step); the bytes do not depend on them. Call it where you
 * would call eddy_world_step. */
EDDY_API eddy_status eddy_world_snapshot(const eddy_world *world, eddy_bytes *out);
/* Replace the world's state with a snapshot. The world must have been
 * created from the same physical definition (checked by a digest). On any
 * error the world is left unchanged and the message says why. */
EDDY_API eddy_status eddy_world_restore(eddy_world *world, const void *data, size_t size,
                                        char *message, size_t message_size);

/* Per-frame input. Appends to out. */
EDDY_API eddy_status eddy_input_encode(const eddy_input *input, eddy_bytes *out);

/* Decoded input; owns its command arrays. */
typedef struct eddy_input_storage eddy_input_storage;
EDDY_API eddy_input_storage *eddy_input_storage_create(void);
EDDY_API void eddy_input_storage_destroy(eddy_input_storage *storage);
/* Decode into storage; *input points into storage until the next decode. */
EDDY_API eddy_status eddy_input_decode(const void *data, size_t size, eddy_input_storage *storage,
                                       const eddy_input **input, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif
#endif
