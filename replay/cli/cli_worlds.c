/* SPDX-License-Identifier: MIT */
/* eddy-replay: which world a replay holds. Replays carry no scene name, so
 * a world at frame 0 is matched against every built-in scene's frame 0 by
 * its frame hash; and two definitions are compared field by field on the
 * physical fields (those eddy_world_def_encode writes: threading is not
 * physics), to say which differ. Used by info and render-diff. */
#include "cli.h"
#include "scenes.h"

#include "eddy/snapshot.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *cli_scene_of(eddy_world *w, eddy_world_def *scene_def) {
    if (eddy_world_frame(w) != 0) return NULL;
    const uint64_t want = eddy_world_hash(w).frame_hash;
    for (int k = 0; k < eddy_scene_count(); ++k) {
        eddy_world *s = NULL;
        const char *name = eddy_scene_at(k)->name;
        if (eddy_scene_create(name, NULL, &s) != EDDY_OK) continue;
        const bool same = eddy_world_hash(s).frame_hash == want;
        if (same && scene_def) *scene_def = *eddy_world_get_def(s);
        eddy_world_destroy(s);
        if (same) return name;
    }
    return NULL;
}

typedef enum field_kind { FIELD_F32, FIELD_I32, FIELD_U64, FIELD_VEC3, FIELD_BOOL } field_kind;

typedef struct def_field {
    const char *name;
    size_t offset;
    field_kind kind;
} def_field;

#define FIELD(name, kind) {#name, offsetof(eddy_world_def, name), kind}
/* Enums are int-sized (FIELD_I32). */
static const def_field k_fields[] = {
    FIELD(dt, FIELD_F32), FIELD(substeps, FIELD_I32), FIELD(viscosity, FIELD_F32),
    FIELD(vorticity_dissipation, FIELD_F32), FIELD(density_diffusivity, FIELD_F32),
    FIELD(density_relaxation, FIELD_F32), FIELD(diffusion, FIELD_I32),
    FIELD(ambient_density, FIELD_F32), FIELD(gravity, FIELD_VEC3), FIELD(wind, FIELD_VEC3),
    FIELD(stretch_gain, FIELD_F32), FIELD(vorticity_alignment, FIELD_F32),
    FIELD(mollify_length_scale, FIELD_F32),
    FIELD(velocity_method, FIELD_I32), FIELD(treecode_traversal, FIELD_I32),
    FIELD(treecode_opening_angle, FIELD_F32), FIELD(vorton_step, FIELD_I32),
    FIELD(grid_extent, FIELD_I32), FIELD(body_coupling, FIELD_I32),
    FIELD(vorton_radius, FIELD_F32), FIELD(tracer_radius, FIELD_F32),
    FIELD(vorton_max_age, FIELD_I32), FIELD(tracer_max_age, FIELD_I32), FIELD(seed, FIELD_U64),
    FIELD(ambient_temperature, FIELD_F32), FIELD(fluid_specific_heat, FIELD_F32),
    FIELD(boundary_thickness, FIELD_F32), FIELD(shedding_gain, FIELD_F32),
    FIELD(spin_gain, FIELD_F32), FIELD(tracer_restitution, FIELD_F32),
    FIELD(wall_poisoning, FIELD_I32), FIELD(flush_denormals, FIELD_BOOL),
};
#undef FIELD
_Static_assert(sizeof(eddy_diffusion) == 4 && sizeof(eddy_velocity_method) == 4 &&
                   sizeof(eddy_treecode_traversal) == 4 && sizeof(eddy_vorton_step) == 4 &&
                   sizeof(eddy_wall_poisoning) == 4 && sizeof(eddy_grid_extent) == 4 &&
                   sizeof(eddy_body_coupling) == 4,
               "enum fields are read as 32-bit integers");

static size_t field_size(field_kind k) {
    return k == FIELD_VEC3 ? sizeof(eddy_vec3) : k == FIELD_U64 ? sizeof(uint64_t)
           : k == FIELD_BOOL ? sizeof(bool) : 4;
}

static void field_text(const void *p, field_kind k, char *out, size_t size) {
    float f[3];
    switch (k) {
    case FIELD_F32: memcpy(f, p, 4), snprintf(out, size, "%.9g", (double)f[0]); break;
    case FIELD_VEC3:
        memcpy(f, p, 12);
        snprintf(out, size, "(%.9g %.9g %.9g)", (double)f[0], (double)f[1], (double)f[2]);
        break;
    case FIELD_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(out, size, "%llu", (unsigned long long)v);
        break;
    }
    case FIELD_BOOL: snprintf(out, size, "%s", *(const bool *)p ? "true" : "false"); break;
    case FIELD_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(out, size, "%d", (int)v);
    }
    }
}

static bool encodings_differ(const eddy_world_def *a, const eddy_world_def *b) {
    eddy_bytes ea = {0}, eb = {0};
    const bool ok = eddy_world_def_encode(a, &ea) == EDDY_OK && eddy_world_def_encode(b, &eb) == EDDY_OK;
    const bool differ = !ok || ea.size != eb.size || memcmp(ea.data, eb.data, ea.size) != 0;
    eddy_bytes_free(&ea);
    eddy_bytes_free(&eb);
    return differ;
}

int cli_def_differences(const eddy_world_def *a, const eddy_world_def *b, char *out, size_t size) {
    if (size > 0) out[0] = '\0';
    if (!encodings_differ(a, b)) return 0;
    int n = 0;
    size_t used = 0;
    for (size_t k = 0; k < sizeof k_fields / sizeof k_fields[0]; ++k) {
        const def_field *f = &k_fields[k];
        const char *pa = (const char *)a + f->offset, *pb = (const char *)b + f->offset;
        if (!memcmp(pa, pb, field_size(f->kind))) continue;
        char ta[64], tb[64];
        field_text(pa, f->kind, ta, sizeof ta);
        field_text(pb, f->kind, tb, sizeof tb);
        if (used < size) {
            const int w = snprintf(out + used, size - used, "%s%s %s vs %s", n ? ", " : "", f->name, ta, tb);
            used += w > 0 ? (size_t)w : 0;
        }
        ++n;
    }
    if (n == 0 && size > 0) snprintf(out, size, "a field this tool does not name");
    return n > 0 ? n : -1;
}
