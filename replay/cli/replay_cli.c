/* SPDX-License-Identifier: MIT */
/* eddy-replay: record, play, inspect, compare and render eddy replay files
 * (docs/replay.md). One command per invocation; every outcome is an exit
 * code (see usage()). */
#include "cli.h"

#include <string.h>

static void usage(FILE *out) {
    fputs(
        "usage: eddy-replay COMMAND [OPTIONS]\n"
        "\n"
        "Commands:\n"
        "  record --scene NAME -o FILE [--frames N] [--threads T] [--keyframe-every K]\n"
        "         [--chunk N] [--level L] [--no-block-hashes] [--pin none|core|pu]\n"
        "      Record a built-in scene (default frames: the scene's own; a keyframe\n"
        "      every 100 frames, 0 = none; 32 frames per chunk; zstd level 3; block\n"
        "      hashes on, so a divergence is located to a block of particles).\n"
        "  play FILE [--threads T] [--pin none|core|pu] [--strict]\n"
        "      Re-simulate and check every recorded hash; report the first divergence\n"
        "      (frame, component, block). --strict refuses any fingerprint difference.\n"
        "  info FILE\n"
        "      Header, fingerprint, frames, keyframes, sizes and compression ratio.\n"
        "  dump FILE --frame N [--format csv|json] [-o OUT] [--threads T]\n"
        "      The state at frame N (by seeking), to OUT or standard output.\n"
        "  diff A B\n"
        "      The first frame where the two replays' hash traces differ, with the\n"
        "      component and block (block needs block hashes in both files).\n"
        "  scenes\n"
        "      The built-in scenes and their descriptions.\n"
        "  render FILE (--frame N | --every K | --sheet N) -o OUT.png [--view x|y|z]\n"
        "         [--size PX] [--camera XLO,YLO,XHI,YHI] [--color plain|density]\n"
        "         [--range R] [--volume [--extinction S]] [--threads T]\n"
        "      Pictures seen along an axis (default z) with one camera for the whole\n"
        "      replay (fitted to every particle and body over all frames, or set by\n"
        "      --camera, in world units on the view plane; printed and stored in the\n"
        "      PNG). Tracers shaded by how many fall in a pixel (--color density: by\n"
        "      their density deviation, blue - white - red, scale +-R fitted over the\n"
        "      replay, with a legend), vortons in red, bodies in amber; frame, time\n"
        "      and a scale bar on the image. --frame N: one frame; --every K: every\n"
        "      K-th frame to OUT with one %d (e.g. f_%05d.png), for a video;\n"
        "      --sheet N: a contact sheet of N frames spread over the replay.\n"
        "      --volume: the smoke as a volume (include/eddy/smoke.h) ray-marched\n"
        "      along the view axis, lit from one fixed direction, over a dark\n"
        "      background; extinction S per tracer (default: chosen per frame so\n"
        "      the densest columns are nearly opaque; printed on the image).\n"
        "      Every picture names the file, frame, time and frame hash (on the\n"
        "      image and in its PNG text), the view axis, and has a legend.\n"
        "  export FILE --vdb DIR [--resolution N] [--region XLO,YLO,ZLO,XHI,YHI,ZHI]\n"
        "         [--every K]\n"
        "      The smoke volume of every (K-th) frame as OpenVDB files\n"
        "      DIR/<name>_<frame>.vdb, grid \"density\" (a fog volume: Blender,\n"
        "      Houdini, Unreal), N voxels along the longest axis (default 64) of a\n"
        "      region fitted over every frame's tracers unless --region sets it.\n"
        "  render-diff A B -o OUT.png | render-diff A --against-threads T -o OUT.png\n"
        "              [--frame N] [--top K] [--view x|y|z] [--size PX] [--camera ...]\n"
        "      Re-simulate two replays (or one at --threads and at T workers) side by\n"
        "      side; draw the first frame where they differ (--frame N: a later one),\n"
        "      A left, B right: the scene as render draws it, each differing\n"
        "      particle coloured by how far apart its two positions are (log scale,\n"
        "      legend), the K farthest apart ringed and numbered (default 10, listed\n"
        "      on stdout), with --frame the first divergent particles crossed, bodies\n"
        "      that differ outlined. Two recordings with different definitions or\n"
        "      first frames are different worlds, not a divergence: said on stdout\n"
        "      and on the picture (scenes and fields named), both drawn plainly.\n"
        "      Exit 1 when they differ, 0 (and no picture) when they agree.\n"
        "\n"
        "Options for every command:\n"
        "  -  as FILE reads standard input; -o - writes standard output.\n"
        "  --force (-f) overwrites an existing output file (never done silently).\n"
        "  --json (info, play) prints one JSON object instead of text.\n"
        "  -q, --quiet  no summary lines.\n"
        "\n"
        "Exit codes:\n"
        "  0  ok\n"
        "  1  divergence found (play: re-simulation differs; diff: traces differ)\n"
        "  2  usage error (unknown command or option, bad value, frame out of range)\n"
        "  3  invalid or corrupt file (damaged, cut short, unknown version, foreign\n"
        "     fingerprint); play on a cut-short file checks the recovered frames,\n"
        "     says where it was cut and exits 3 (1 if they diverge); info exits 3;\n"
        "     dump and render work on its recovered frames, with a note\n"
        "  4  I/O error (a file cannot be read or written) or other system error\n"
        "\n"
        "Progress is shown on standard error when it is a terminal.\n",
        out);
}

typedef struct command {
    const char *name;
    int (*run)(const cli_options *);
} command;

static const command k_commands[] = {
    {"record", cmd_record}, {"play", cmd_play},     {"info", cmd_info},     {"dump", cmd_dump},
    {"diff", cmd_diff},     {"scenes", cmd_scenes}, {"render", cmd_render},
    {"render-diff", cmd_render_diff}, {"export", cmd_export},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("eddy-replay %s (replay format %d)\n", eddy_version_string(),
               EDDY_REPLAY_FORMAT_VERSION);
        return EXIT_OK;
    }
    for (size_t k = 0; k < sizeof k_commands / sizeof k_commands[0]; ++k) {
        if (strcmp(argv[1], k_commands[k].name) != 0) continue;
        for (int i = 2; i < argc; ++i)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                usage(stdout);
                return EXIT_OK;
            }
        cli_options o;
        int code = cli_parse(argc - 2, argv + 2, &o);
        return code != EXIT_OK ? code : k_commands[k].run(&o);
    }
    return cli_fail(EXIT_USAGE, "unknown command '%s' (try --help)", argv[1]);
}
