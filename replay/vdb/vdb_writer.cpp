// SPDX-License-Identifier: MIT
// eddy-replay export --vdb: writes a smoke volume as an OpenVDB fog volume
// (vdb_writer.h). The only C++ of eddy; it uses OpenVDB's public API only.
// A grid "density" with class GRID_FOG_VOLUME, which Blender, Houdini and
// Unreal read as smoke density; its transform maps voxel (i, j, k) to the
// centre of eddy's voxel (i, j, k).
#include "vdb_writer.h"

#include <openvdb/openvdb.h>

#include <cstdio>
#include <exception>

extern "C" int eddy_vdb_write_density(const char *path, const float *density, const int n[3],
                                      const float min[3], const float h[3], int64_t frame,
                                      double time, const char *source, uint64_t frame_hash,
                                      char *error, int error_size) {
    try {
        openvdb::initialize();
        openvdb::FloatGrid::Ptr grid = openvdb::FloatGrid::create(0.0f);
        grid->setName("density");
        grid->setGridClass(openvdb::GRID_FOG_VOLUME);
        openvdb::math::Mat4d m = openvdb::math::Mat4d::identity();
        const double hx = h[0], hy = h[1], hz = h[2];
        m.setToScale(openvdb::Vec3d(hx, hy, hz));
        m.setTranslation(openvdb::Vec3d(double(min[0]) + 0.5 * hx, double(min[1]) + 0.5 * hy,
                                        double(min[2]) + 0.5 * hz));
        grid->setTransform(openvdb::math::Transform::createLinearTransform(m));
        openvdb::FloatGrid::Accessor acc = grid->getAccessor();
        for (int k = 0; k < n[2]; ++k)
            for (int j = 0; j < n[1]; ++j)
                for (int i = 0; i < n[0]; ++i) {
                    const float v = density[i + (size_t)n[0] * (j + (size_t)n[1] * k)];
                    if (v != 0.0f) acc.setValue(openvdb::Coord(i, j, k), v);
                }
        grid->insertMeta("eddy_frame", openvdb::Int64Metadata(frame));
        grid->insertMeta("eddy_time", openvdb::DoubleMetadata(time));
        grid->insertMeta("eddy_source", openvdb::StringMetadata(source ? source : ""));
        char hex[32];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(frame_hash));
        grid->insertMeta("eddy_frame_hash", openvdb::StringMetadata(hex));
        openvdb::io::File file(path);
        openvdb::GridPtrVec grids;
        grids.push_back(grid);
        file.write(grids);
        file.close();
        return 0;
    } catch (const std::exception &e) {
        std::snprintf(error, (size_t)error_size, "%s: %s", path, e.what());
        return -1;
    }
}
