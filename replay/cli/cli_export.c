/* SPDX-License-Identifier: MIT */
/* eddy-replay export --vdb DIR: the smoke volume of every frame (or every
 * K-th) as an OpenVDB file, DIR/<file stem>_<frame, 5 digits>.vdb, for
 * Blender, Houdini or Unreal (replay/vdb/vdb_writer.cpp writes them).
 *
 * The region is fixed for the whole export, so voxels line up from frame to
 * frame: --region XLO,YLO,ZLO,XHI,YHI,ZHI, or fitted over every recorded
 * frame's tracers (5 % margin). --resolution N voxels along the region's
 * longest axis (default 64), the others in proportion with cubic voxels.
 * The densities are eddy_smoke_volume_update's (include/eddy/smoke.h): a
 * test reads the files back with OpenVDB's reader and compares them with
 * the library's volume, value for value. */
#include "cli.h"
#include "eddy/smoke.h"
#ifdef EDDY_HAVE_OPENVDB
#include "vdb_writer.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef EDDY_HAVE_OPENVDB
int cmd_export(const cli_options *o) {
    (void)o;
    return cli_fail(EXIT_USAGE, "export --vdb: this eddy-replay was built without OpenVDB "
                                "(install libopenvdb-dev and reconfigure)");
}
#else

static void grow_bounds(float lo[3], float hi[3], eddy_world *w) {
    const eddy_particle_view t = eddy_world_view_tracers(w);
    for (int k = 0; k < t.count; ++k) {
        const float p[3] = {t.position_x[k], t.position_y[k], t.position_z[k]};
        for (int a = 0; a < 3; ++a)
            if (isfinite(p[a])) lo[a] = fminf(lo[a], p[a]), hi[a] = fmaxf(hi[a], p[a]);
    }
}

static int fit_region(eddy_player *p, float lo[3], float hi[3]) {
    eddy_divergence d;
    const eddy_replay_info info = eddy_player_info(p);
    eddy_status s = eddy_player_seek(p, info.first_frame, &d);
    if (s != EDDY_OK && s != EDDY_ERROR_DIVERGED)
        return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
    grow_bounds(lo, hi, eddy_player_world(p));
    while ((s = eddy_player_step(p, &d)) != EDDY_ERROR_NOT_FOUND) {
        if (s != EDDY_OK && s != EDDY_ERROR_DIVERGED)
            return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
        grow_bounds(lo, hi, eddy_player_world(p));
    }
    for (int a = 0; a < 3; ++a) {
        if (!(hi[a] >= lo[a])) lo[a] = -1.0f, hi[a] = 1.0f;
        const float m = 0.05f * fmaxf(hi[a] - lo[a], 0.1f);
        lo[a] -= m, hi[a] += m;
    }
    return EXIT_OK;
}

static int region_def(const cli_options *o, eddy_player *p, eddy_smoke_volume_def *d) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (o->region) {
        char tail;
        if (sscanf(o->region, "%f,%f,%f,%f,%f,%f%c", &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2],
                   &tail) != 6 || !(hi[0] > lo[0] && hi[1] > lo[1] && hi[2] > lo[2]))
            return cli_fail(EXIT_USAGE, "--region %s: expected XLO,YLO,ZLO,XHI,YHI,ZHI with LO < HI",
                            o->region);
    } else {
        const int code = fit_region(p, lo, hi);
        if (code != EXIT_OK) return code;
    }
    const int n = o->resolution > 0 ? o->resolution : 64;
    const float longest = fmaxf(hi[0] - lo[0], fmaxf(hi[1] - lo[1], hi[2] - lo[2]));
    const float h = longest / (float)n;
    *d = eddy_smoke_volume_def_default();
    for (int a = 0; a < 3; ++a) {
        int m = (int)ceilf((hi[a] - lo[a]) / h - 1e-4f);
        d->resolution[a] = m < 1 ? 1 : m;
        hi[a] = lo[a] + h * (float)d->resolution[a];
    }
    d->min_corner = (eddy_vec3){lo[0], lo[1], lo[2]};
    d->max_corner = (eddy_vec3){hi[0], hi[1], hi[2]};
    return EXIT_OK;
}

static void file_stem(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
    char *dot = strrchr(out, '.');
    if (dot && dot != out) *dot = '\0';
}

static int export_frame(const cli_options *o, eddy_smoke_volume *v, const eddy_smoke_volume_def *d,
                        eddy_world *w, const char *stem) {
    if (eddy_smoke_volume_update(v, w) != EDDY_OK)
        return cli_fail(EXIT_IO, "smoke volume: %s", eddy_smoke_error_message());
    char path[1024], error[512];
    const int64_t frame = eddy_world_frame(w);
    snprintf(path, sizeof path, "%s/%s_%05lld.vdb", o->vdb_dir, stem, (long long)frame);
    const float lo[3] = {d->min_corner.x, d->min_corner.y, d->min_corner.z};
    const float h[3] = {(d->max_corner.x - lo[0]) / (float)d->resolution[0],
                        (d->max_corner.y - lo[1]) / (float)d->resolution[1],
                        (d->max_corner.z - lo[2]) / (float)d->resolution[2]};
    if (eddy_vdb_write_density(path, eddy_smoke_volume_density(v), d->resolution, lo, h, frame,
                               (double)frame * (double)eddy_world_get_def(w)->dt, stem,
                               eddy_world_hash(w).frame_hash, error, (int)sizeof error) != 0)
        return cli_fail(EXIT_IO, "%s", error);
    return EXIT_OK;
}

int cmd_export(const cli_options *o) {
    if (o->file_count != 1 || !o->vdb_dir)
        return cli_fail(EXIT_USAGE, "export needs one FILE and --vdb DIR (try --help)");
    eddy_pinner *pinner = NULL;
    eddy_player *p = NULL;
    bool truncated;
    int code = cli_open(o->files[0], o, &pinner, &p, &truncated);
    if (code != EXIT_OK) return code;
    eddy_smoke_volume_def d;
    code = region_def(o, p, &d);
    eddy_smoke_volume *v = NULL;
    if (code == EXIT_OK && eddy_smoke_volume_create(&d, &v) != EDDY_OK)
        code = cli_fail(EXIT_USAGE, "smoke volume: %s", eddy_smoke_error_message());
    char stem[256];
    file_stem(o->files[0], stem, sizeof stem);
    const eddy_replay_info info = eddy_player_info(p);
    const int every = o->every > 0 ? o->every : 1;
    int written = 0;
    for (int64_t f = info.first_frame; code == EXIT_OK && f <= info.last_frame; f += every) {
        eddy_divergence div;
        eddy_status s = eddy_player_seek(p, f, &div);
        if (s != EDDY_OK) code = cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(p));
        else code = export_frame(o, v, &d, eddy_player_world(p), stem), ++written;
    }
    if (code == EXIT_OK && !o->quiet)
        printf("wrote %d OpenVDB files to %s: grid \"density\", %d x %d x %d voxels over "
               "(%g %g %g)..(%g %g %g)\n", written, o->vdb_dir, d.resolution[0], d.resolution[1],
               d.resolution[2], (double)d.min_corner.x, (double)d.min_corner.y,
               (double)d.min_corner.z, (double)d.max_corner.x, (double)d.max_corner.y,
               (double)d.max_corner.z);
    eddy_smoke_volume_destroy(v);
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return code;
}
#endif
