// SPDX-License-Identifier: MIT
// eddy-replay export --vdb, read back with OpenVDB's own reader: a recorded
// smoke_grenade replay exported over a set region, and frame 60's file
// compared voxel for voxel with the library's smoke volume of the same frame
// (the scene stepped here), plus the grid's transform and eddy metadata.
// Exit status 0: every check held.
#include <openvdb/openvdb.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include "eddy/eddy.h"
#include "eddy/smoke.h"
#include "scenes.h"
}

static int g_failures = 0;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            std::fprintf(stderr, "FAIL %s: ", #cond);      \
            std::fprintf(stderr, __VA_ARGS__);             \
            std::fprintf(stderr, "\n");                    \
            ++g_failures;                                  \
        }                                                  \
    } while (0)

int main() {
    const std::string dir = std::string(EDDY_REPLAY_TMP) + "/vdb_roundtrip";
    const std::string replay = dir + "/grenade.eddyr";
    const std::string make = "mkdir -p '" + dir + "' && rm -f '" + dir + "'/*.vdb";
    CHECK(std::system(make.c_str()) == 0, "%s", make.c_str());
    const std::string record = std::string(EDDY_REPLAY_CLI) +
                               " record --scene smoke_grenade --frames 60 -q -f -o '" + replay + "'";
    CHECK(std::system(record.c_str()) == 0, "%s", record.c_str());
    const std::string exp = std::string(EDDY_REPLAY_CLI) + " export '" + replay + "' --vdb '" + dir +
                            "' --region -3,-2,-1.5,3,2,1.5 --resolution 48 --every 60 -q";
    CHECK(std::system(exp.c_str()) == 0, "%s", exp.c_str());

    // the library's volume of frame 60 over the same region: 0.125 m voxels
    eddy_world *w = nullptr;
    CHECK(eddy_scene_create("smoke_grenade", nullptr, &w) == EDDY_OK, "scene");
    eddy_scene_input in;
    for (int f = 0; f < 60; ++f) eddy_world_step(w, eddy_scene_input_for("smoke_grenade", f, &in));
    eddy_smoke_volume_def d = eddy_smoke_volume_def_default();
    d.min_corner = {-3.0f, -2.0f, -1.5f};
    d.max_corner = {3.0f, 2.0f, 1.5f};
    d.resolution[0] = 48, d.resolution[1] = 32, d.resolution[2] = 24;
    eddy_smoke_volume *v = nullptr;
    CHECK(eddy_smoke_volume_create(&d, &v) == EDDY_OK, "volume");
    CHECK(eddy_smoke_volume_update(v, w) == EDDY_OK, "update");
    const float *rho = eddy_smoke_volume_density(v);
    char want_hash[32];
    std::snprintf(want_hash, sizeof want_hash, "%016llx",
                  static_cast<unsigned long long>(eddy_world_hash(w).frame_hash));

    openvdb::initialize();
    openvdb::io::File file(dir + "/grenade_00060.vdb");
    file.open();
    openvdb::GridBase::Ptr base = file.readGrid("density");
    file.close();
    openvdb::FloatGrid::Ptr grid = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
    CHECK(grid != nullptr, "no float grid named density");
    if (!grid) return 1;
    CHECK(grid->getGridClass() == openvdb::GRID_FOG_VOLUME, "grid class");
    CHECK(grid->metaValue<openvdb::Int64>("eddy_frame") == 60, "eddy_frame");
    CHECK(grid->metaValue<std::string>("eddy_frame_hash") == want_hash, "hash %s, want %s",
          grid->metaValue<std::string>("eddy_frame_hash").c_str(), want_hash);
    const openvdb::Vec3d c0 = grid->indexToWorld(openvdb::Coord(0, 0, 0));
    CHECK(std::fabs(c0.x() - (-3.0 + 0.0625)) < 1e-6 && std::fabs(c0.z() - (-1.5 + 0.0625)) < 1e-6,
          "voxel 0 centre at %g %g %g", c0.x(), c0.y(), c0.z());
    openvdb::FloatGrid::ConstAccessor acc = grid->getConstAccessor();
    int differ = 0, nonzero = 0;
    for (int k = 0; k < 24; ++k)
        for (int j = 0; j < 32; ++j)
            for (int i = 0; i < 48; ++i) {
                const float want = rho[i + 48 * (j + 32 * k)];
                const float got = acc.getValue(openvdb::Coord(i, j, k));
                differ += got != want;
                nonzero += want != 0.0f;
            }
    CHECK(nonzero > 100, "only %d smoky voxels at frame 60", nonzero);
    CHECK(differ == 0, "%d of %d voxels differ from the library's volume", differ, 48 * 32 * 24);
    std::printf("vdb_roundtrip: %d smoky voxels, %d differ; hash %s\n", nonzero, differ, want_hash);
    eddy_smoke_volume_destroy(v);
    eddy_world_destroy(w);
    return g_failures == 0 ? 0 : 1;
}
