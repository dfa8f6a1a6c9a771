/* SPDX-License-Identifier: MIT */
/* eddy-replay export --vdb: a smoke volume as an OpenVDB file (C++ behind a
 * C interface, replay/vdb/vdb_writer.cpp). Built only where OpenVDB is
 * (Debian's libopenvdb-dev); EDDY_HAVE_OPENVDB says so. */
#ifndef EDDY_REPLAY_VDB_WRITER_H
#define EDDY_REPLAY_VDB_WRITER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write one float grid named "density" (fog volume) to path: voxel (i, j, k)
 * of the n[0] x n[1] x n[2] array (x fastest) holds density[i + n0 (j + n1 k)]
 * at world position min + (i + 1/2, j + 1/2, k + 1/2) h (an affine
 * transform: scale h, translation min + h / 2). Zero voxels stay background
 * (0, inactive). Metadata: "eddy_frame", "eddy_time", "eddy_source",
 * "eddy_frame_hash" (hex). Returns 0, or -1 with a message in error. */
int eddy_vdb_write_density(const char *path, const float *density, const int n[3],
                           const float min[3], const float h[3], int64_t frame, double time,
                           const char *source, uint64_t frame_hash, char *error, int error_size);

#ifdef __cplusplus
}
#endif
#endif
