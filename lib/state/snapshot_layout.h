/* SPDX-License-Identifier: MIT */
/* Internal: the snapshot layout shared by the writer (snapshot.c) and the
 * reader (restore.c). Normative description: docs/snapshot-format.md. */
#ifndef EDDY_SNAPSHOT_LAYOUT_H
#define EDDY_SNAPSHOT_LAYOUT_H

#include "state/codec.h"

#include <stddef.h>

static const uint8_t snap_magic[8] = {'E', 'D', 'D', 'Y', 'S', 'N', 'A', 'P'};

enum {
    SNAP_HEADER_BYTES = 32,     /* magic, version, hash spec, def digest, body length */
    SNAP_MAX_PARTICLES = INT32_MAX / 2,
    SNAP_MAX_SLOTS = 1 << 20,   /* emitter and body slots */
    SNAP_MAX_CELLS = 1 << 20,   /* per axis, as eddy_grid_define */
    SNAP_MAX_POINTS = 1 << 26,  /* grid points in total */
};

/* Section tags, in the order they appear. */
#define SNAP_TAG(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
static const uint32_t k_sections[] = {SNAP_TAG('G', 'L', 'O', 'B'), SNAP_TAG('V', 'O', 'R', 'T'),
                                      SNAP_TAG('T', 'R', 'A', 'C'), SNAP_TAG('E', 'M', 'I', 'T'),
                                      SNAP_TAG('B', 'O', 'D', 'Y'), SNAP_TAG('G', 'R', 'I', 'D'),
                                      SNAP_TAG('B', 'L', 'S', 'T'), SNAP_TAG('I', 'S', 'L', 'E')};
/* BLST (the active blasts) follows GRID only while a blast is active, and
 * ISLE (the grid islands, lib/fluid/islands.c) comes last only while the
 * world has two or more, so a world that never had either writes version
 * 1's bytes exactly. */
enum { SEC_GLOBALS, SEC_VORTONS, SEC_TRACERS, SEC_EMITTERS, SEC_BODIES, SEC_GRID, SEC_BLASTS,
       SEC_ISLANDS, SEC_COUNT };

/* Particle fields in wire order (VORT and TRAC sections), one 32-bit word
 * per particle each. The encoder, the decoder, the finiteness check and the
 * copies all walk this table, so a new per-particle field is one row here
 * (plus a format version and a line in the document). The rate fields are
 * present only where the world's definition (whose digest the snapshot
 * carries) has EDDY_VORTON_STEP_STRETCH_AB2, so every other world's snapshot
 * keeps version 1's bytes. */
typedef struct particle_field {
    size_t member;      /* offsetof(particle_array, <field pointer>) */
    bool vorton_only;   /* only arrays with vorticity carry it */
    bool rate_only;     /* only arrays that keep the stretching rate carry it */
    bool is_float;      /* checked finite on restore (int32 fields are not) */
} particle_field;

#define SNAP_PF(name, vorton_only, is_float) \
    {offsetof(particle_array, name), vorton_only, false, is_float}
#define SNAP_RATE(name) {offsetof(particle_array, name), true, true, true}
static const particle_field k_particle_fields[] = {
    SNAP_PF(px, false, true),   SNAP_PF(py, false, true),     SNAP_PF(pz, false, true),
    SNAP_PF(vx, false, true),   SNAP_PF(vy, false, true),     SNAP_PF(vz, false, true),
    SNAP_PF(wx, true, true),    SNAP_PF(wy, true, true),      SNAP_PF(wz, true, true),
    SNAP_PF(drho, false, true), SNAP_PF(birth, false, false), SNAP_PF(hx, true, true),
    SNAP_PF(hy, true, true),    SNAP_PF(hz, true, true),      SNAP_RATE(sx),
    SNAP_RATE(sy),              SNAP_RATE(sz),
};
#undef SNAP_PF
#undef SNAP_RATE
enum { PARTICLE_FIELD_COUNT = sizeof k_particle_fields / sizeof k_particle_fields[0] };

static inline bool particle_field_present(const particle_field *f, const particle_array *a) {
    if (f->rate_only) return a->keeps_rate;
    return a->has_vorticity || !f->vorton_only;
}

/* The array of field f in a (float or int32 storage). */
static inline void *particle_field_array(const particle_field *f, const particle_array *a) {
    void *p;
    memcpy(&p, (const char *)a + f->member, sizeof p);
    return p;
}

static inline int particle_field_count(const particle_array *a) {
    int n = 0;
    for (int f = 0; f < PARTICLE_FIELD_COUNT; ++f)
        n += particle_field_present(&k_particle_fields[f], a);
    return n;
}

#endif
