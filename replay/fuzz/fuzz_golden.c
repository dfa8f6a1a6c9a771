/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the golden-file reader of eddy-verify
 * (verify/verify_golden.c, docs/golden-format.md).
 *
 * The bytes are written to a file and read as the golden of scene
 * "vortex_ring": the reader accepts it or refuses it with a message, never
 * crashes, reads past no buffer and allocates no more than the file can
 * fill. An accepted golden is written back and read again: the two reads
 * must agree. The regression test (replay/tests/test_fuzz_regressions.c)
 * calls the same function. Run: scripts/fuzz_replay.sh SECONDS golden. */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok) {
    if (!ok) __builtin_trap();
}

static const char *scratch_path(const char *suffix) {
    static char path[2][256];
    const int k = suffix[0] == 'a' ? 0 : 1;
    if (!path[k][0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path[k], sizeof path[k], "%s/eddy_fuzz_golden_%d_%s", dir ? dir : "/tmp",
                 (int)getpid(), suffix);
    }
    return path[k];
}

static bool same_golden(const verify_golden *a, const verify_golden *b) {
    if (a->frames != b->frames || a->hash_spec != b->hash_spec) return false;
    for (int f = 0; f <= a->frames; ++f) {
        const eddy_frame_hash *x = &a->trace[f], *y = &b->trace[f];
        if (x->frame != y->frame || x->frame_hash != y->frame_hash) return false;
        for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
            if (x->component[c] != y->component[c]) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = scratch_path("a");
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    verify_golden g;
    char message[512];
    message[0] = '\0';
    const int status = verify_golden_read(path, "vortex_ring", &g, message, sizeof message);
    if (status != VERIFY_EXIT_OK) {
        require(status == VERIFY_EXIT_BAD_FILE && message[0] != '\0');
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        /* Memory follows the file: a short file never runs out of it. Checked
         * on the stored inputs only (test_fuzz_regressions runs them under a
         * 1 GB limit); under libFuzzer its malloc limit catches a large
         * allocation, and a mutated file may spell "out of memory" in a field
         * the message quotes. */
        require(size > (1u << 20) || strstr(message, "out of memory") == NULL);
#endif
        remove(path);
        return 0;
    }
    const char *again = scratch_path("b");
    require(verify_golden_write(again, &g, "eddy-verify --bless", message, sizeof message));
    verify_golden h;
    require(verify_golden_read(again, "vortex_ring", &h, message, sizeof message) == VERIFY_EXIT_OK);
    require(same_golden(&g, &h));
    verify_golden_free(&g);
    verify_golden_free(&h);
    remove(path);
    remove(again);
    return 0;
}
