/* SPDX-License-Identifier: MIT */
/* Writes EddyLayout.g.cs: the sizes and offsets of eddy's C structs that the
 * C# bindings (Eddy.cs) mirror, taken from the headers by the C compiler.
 * Run by scripts/check_csharp.sh (bindings/csharp/README.md).
 *
 * Eddy.cs is written by hand, so it can drift from the headers: a field added
 * in C and not in C# makes the library read or write past the managed struct
 * (a view returned by value once overwrote mono's frame record on the stack,
 * and mono crashed at the next exception). Layout.Mirrors lists, for every
 * struct that crosses, the C size and the C offset of each C# field;
 * LayoutCheck (Eddy.cs) compares them with the C# declarations and World
 * refuses to start when any differs. Every C# field must be listed here
 * (LayoutCheck says which is not); a C field the C# side lacks shows as a
 * size that differs. */
#include <eddy/eddy.h>
#include <eddy/replay.h>
#include <eddy/snapshot.h>
#include "scenes.h" /* the tests' scene input storage (tests/EddyTests.cs) */

#include <stddef.h>
#include <stdio.h>

typedef struct field {
    const char *name; /* the C# field */
    size_t offset;    /* its C counterpart's offset */
} field;

typedef struct mirror {
    const char *type; /* the C# struct */
    size_t size;      /* sizeof the C struct */
    const field *fields;
    size_t field_count;
} mirror;

#define F(cs, ctype, member) {cs, offsetof(ctype, member)}
#define MIRROR(cs, ctype, fields) {cs, sizeof(ctype), fields, sizeof fields / sizeof fields[0]}

static const field vec3[] = {F("X", eddy_vec3, x), F("Y", eddy_vec3, y), F("Z", eddy_vec3, z)};
static const field vorton[] = {
    F("Position", eddy_vorton, position),   F("Velocity", eddy_vorton, velocity),
    F("Vorticity", eddy_vorton, vorticity), F("DensityDeviation", eddy_vorton, density_deviation),
    F("BirthFrame", eddy_vorton, birth_frame),
};
static const field tracer[] = {
    F("Position", eddy_tracer, position),
    F("Velocity", eddy_tracer, velocity),
    F("DensityDeviation", eddy_tracer, density_deviation),
    F("BirthFrame", eddy_tracer, birth_frame),
};
static const field frame_hash[] = {
    F("Frame", eddy_frame_hash, frame),
    F("Value", eddy_frame_hash, frame_hash),
    F("Component", eddy_frame_hash, component),
};
static const field input[] = {
    F("Flags", eddy_input, flags),
    F("Gravity", eddy_input, gravity),
    F("Wind", eddy_input, wind),
    F("EmitterCommands", eddy_input, emitter_commands),
    F("EmitterCommandCount", eddy_input, emitter_command_count),
    F("BodyCommands", eddy_input, body_commands),
    F("BodyCommandCount", eddy_input, body_command_count),
    F("Blasts", eddy_input, blasts),
    F("BlastCount", eddy_input, blast_count),
    F("Bullets", eddy_input, bullets),
    F("BulletCount", eddy_input, bullet_count),
};
static const field particle_view[] = {
    F("Count", eddy_particle_view, count),
    F("Frame", eddy_particle_view, frame),
    F("PositionX", eddy_particle_view, position_x),
    F("PositionY", eddy_particle_view, position_y),
    F("PositionZ", eddy_particle_view, position_z),
    F("VelocityX", eddy_particle_view, velocity_x),
    F("VelocityY", eddy_particle_view, velocity_y),
    F("VelocityZ", eddy_particle_view, velocity_z),
    F("VorticityX", eddy_particle_view, vorticity_x),
    F("VorticityY", eddy_particle_view, vorticity_y),
    F("VorticityZ", eddy_particle_view, vorticity_z),
    F("DensityDeviation", eddy_particle_view, density_deviation),
    F("BirthFrame", eddy_particle_view, birth_frame),
    F("Id", eddy_particle_view, id),
    F("StateCounter", eddy_particle_view, state_counter),
};
static const field bytes[] = {
    F("Data", eddy_bytes, data),
    F("Size", eddy_bytes, size),
    F("Capacity", eddy_bytes, capacity),
};
/* The definitions are opaque blobs of the C size (one fixed buffer). */
static const field world_def[] = {{"bytes", 0}};
static const field recorder_def[] = {{"bytes", 0}};

static const mirror mirrors[] = {
    MIRROR("Vec3", eddy_vec3, vec3),
    MIRROR("Vorton", eddy_vorton, vorton),
    MIRROR("Tracer", eddy_tracer, tracer),
    MIRROR("FrameHash", eddy_frame_hash, frame_hash),
    MIRROR("Input", eddy_input, input),
    MIRROR("ParticleView", eddy_particle_view, particle_view),
    MIRROR("NativeBytes", eddy_bytes, bytes),
    MIRROR("WorldDef", eddy_world_def, world_def),
    MIRROR("RecorderDef", eddy_recorder_def, recorder_def),
};

static void print_mirrors(void) {
    printf("    // Every struct Eddy.cs passes to or gets from eddy, as the C compiler lays it out:\n"
           "    // {C# type, C size, C# field, C offset, C# field, C offset, ...} (LayoutCheck).\n");
    printf("    internal static readonly object[][] Mirrors = {\n");
    for (size_t m = 0; m < sizeof mirrors / sizeof mirrors[0]; ++m) {
        printf("        new object[] {typeof(%s), %zu", mirrors[m].type, mirrors[m].size);
        for (size_t f = 0; f < mirrors[m].field_count; ++f)
            printf(",\n            \"%s\", %zu", mirrors[m].fields[f].name, mirrors[m].fields[f].offset);
        printf("},\n");
    }
    printf("    };\n");
}

int main(void) {
    printf("// SPDX-License-Identifier: MIT\n");
    printf("// Generated by bindings/csharp/layout_gen.c from eddy %s's headers: do not edit.\n",
           EDDY_VERSION_STRING);
    printf("namespace Eddy {\n");
    printf("internal static class Layout {\n");
    printf("    public const int HeaderVersion = %d; // EDDY_VERSION\n", EDDY_VERSION);
    printf("    public const string HeaderVersionString = \"%s\";\n", EDDY_VERSION_STRING);
    printf("    public const int WorldDefSize = %zu;\n", sizeof(eddy_world_def));
    printf("    public const int WorldDefDt = %zu;\n", offsetof(eddy_world_def, dt));
    printf("    public const int WorldDefSeed = %zu;\n", offsetof(eddy_world_def, seed));
    printf("    public const int WorldDefWorkerCount = %zu;\n", offsetof(eddy_world_def, worker_count));
    printf("    public const int RecorderDefSize = %zu;\n", sizeof(eddy_recorder_def));
    printf("    public const int ComponentCount = %d;\n", EDDY_COMPONENT_COUNT);
    printf("    public const int SceneInputSize = %zu; // tests only: scenes/scenes.h\n",
           sizeof(eddy_scene_input));
    print_mirrors();
    printf("}\n}\n");
    return 0;
}
