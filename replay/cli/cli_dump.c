/* SPDX-License-Identifier: MIT */
/* eddy-replay dump: the state at a frame as CSV or JSON.
 *
 * Floats are printed with 9 significant digits, enough to read back the
 * exact binary32 value. CSV has one row per particle or body under one
 * header; a body row puts its position, linear velocity and angular velocity
 * in the p, v and w columns, its temperature in rho and its id's generation
 * in birth. JSON spells everything out. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Open FILE, check the frame, seek there. Shared with render. */
int cli_open_at_frame(const cli_options *o, const char *command, eddy_pinner **pinner,
                      eddy_player **p) {
    *pinner = NULL;
    *p = NULL;
    if (o->file_count != 1 || o->frame < 0)
        return cli_fail(EXIT_USAGE, "%s needs FILE and --frame N (try --help)", command);
    bool truncated;
    int code = cli_open(o->files[0], o, pinner, p, &truncated);
    if (code != EXIT_OK) return code;
    if (truncated && !o->quiet)
        fprintf(stderr, "eddy-replay: note: %s\n", eddy_player_error_message(*p));
    const eddy_replay_info i = eddy_player_info(*p);
    if (o->frame < i.first_frame || o->frame > i.last_frame)
        return cli_fail(EXIT_USAGE, "frame %lld is outside the recording (%lld..%lld)",
                        (long long)o->frame, (long long)i.first_frame, (long long)i.last_frame);
    eddy_divergence d;
    eddy_status s = eddy_player_seek(*p, o->frame, &d);
    if (s != EDDY_OK) return cli_fail(cli_exit_code(s), "%s", eddy_player_error_message(*p));
    return EXIT_OK;
}

static void f3(FILE *out, eddy_vec3 v, const char *sep) {
    fprintf(out, "%.9g%s%.9g%s%.9g", (double)v.x, sep, (double)v.y, sep, (double)v.z);
}

/* ---------------------------------------------------------------- csv */
static void csv_particles(FILE *out, eddy_world *w) {
    eddy_vorton v;
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i) {
        fprintf(out, "vorton,%d,", i);
        f3(out, v.position, ",");
        fputc(',', out);
        f3(out, v.velocity, ",");
        fputc(',', out);
        f3(out, v.vorticity, ",");
        fprintf(out, ",%.9g,%d\n", (double)v.density_deviation, (int)v.birth_frame);
    }
    eddy_tracer t;
    for (int i = 0; eddy_world_get_tracers(w, i, 1, &t) == 1; ++i) {
        fprintf(out, "tracer,%d,", i);
        f3(out, t.position, ",");
        fputc(',', out);
        f3(out, t.velocity, ",");
        fprintf(out, ",,,,%.9g,%d\n", (double)t.density_deviation, (int)t.birth_frame);
    }
}

static int body_ids(eddy_world *w, eddy_body_id **ids) {
    const int n = eddy_world_body_count(w);
    *ids = malloc(((size_t)n + 1) * sizeof **ids);
    return *ids ? eddy_world_get_body_ids(w, *ids, n) : 0;
}

static void csv_bodies(FILE *out, eddy_world *w) {
    eddy_body_id *ids;
    const int n = body_ids(w, &ids);
    for (int k = 0; k < n; ++k) {
        eddy_body_state b;
        if (eddy_world_get_body(w, ids[k], &b) != EDDY_OK) continue;
        fprintf(out, "body,%d,", (int)ids[k].index1);
        f3(out, b.position, ",");
        fputc(',', out);
        f3(out, b.linear_velocity, ",");
        fputc(',', out);
        f3(out, b.angular_velocity, ",");
        fprintf(out, ",%.9g,%d\n", (double)b.temperature, (int)ids[k].generation);
    }
    free(ids);
}

static void dump_csv(FILE *out, eddy_world *w, const eddy_frame_hash *h) {
    fprintf(out, "# eddy state at frame %lld, frame hash %016llx\n", (long long)h->frame,
            (unsigned long long)h->frame_hash);
    fprintf(out, "kind,index,px,py,pz,vx,vy,vz,wx,wy,wz,rho,birth\n");
    csv_particles(out, w);
    csv_bodies(out, w);
}

/* ---------------------------------------------------------------- json */
static void json_vec(FILE *out, const char *name, eddy_vec3 v) {
    fprintf(out, "\"%s\":[", name);
    f3(out, v, ",");
    fputc(']', out);
}

static void json_particles(FILE *out, eddy_world *w) {
    eddy_vorton v;
    fputs("  \"vortons\": [", out);
    for (int i = 0; eddy_world_get_vortons(w, i, 1, &v) == 1; ++i) {
        fputs(i ? ",\n    {" : "\n    {", out);
        json_vec(out, "p", v.position);
        fputc(',', out);
        json_vec(out, "v", v.velocity);
        fputc(',', out);
        json_vec(out, "w", v.vorticity);
        fprintf(out, ",\"rho\":%.9g,\"birth\":%d}", (double)v.density_deviation, (int)v.birth_frame);
    }
    fputs("],\n  \"tracers\": [", out);
    eddy_tracer t;
    for (int i = 0; eddy_world_get_tracers(w, i, 1, &t) == 1; ++i) {
        fputs(i ? ",\n    {" : "\n    {", out);
        json_vec(out, "p", t.position);
        fputc(',', out);
        json_vec(out, "v", t.velocity);
        fprintf(out, ",\"rho\":%.9g,\"birth\":%d}", (double)t.density_deviation, (int)t.birth_frame);
    }
    fputs("],\n", out);
}

static void json_body(FILE *out, eddy_body_id id, const eddy_body_state *b) {
    fprintf(out, "{\"id\":%d,\"generation\":%d,\"type\":\"%s\",", (int)id.index1, (int)id.generation,
            b->type == EDDY_BODY_KINEMATIC   ? "kinematic"
            : b->type == EDDY_BODY_EXTERNAL ? "external"
                                            : "dynamic");
    json_vec(out, "position", b->position);
    fprintf(out, ",\"orientation\":[%.9g,%.9g,%.9g,%.9g],", (double)b->orientation.x,
            (double)b->orientation.y, (double)b->orientation.z, (double)b->orientation.w);
    json_vec(out, "linear_velocity", b->linear_velocity);
    fputc(',', out);
    json_vec(out, "angular_velocity", b->angular_velocity);
    fputc(',', out);
    json_vec(out, "linear_momentum", b->linear_momentum);
    fputc(',', out);
    json_vec(out, "angular_momentum", b->angular_momentum);
    fprintf(out, ",\"mass\":%.9g,\"volume\":%.9g,\"temperature\":%.9g}", (double)b->mass,
            (double)b->volume, (double)b->temperature);
}

static void json_bodies(FILE *out, eddy_world *w) {
    eddy_body_id *ids;
    const int n = body_ids(w, &ids);
    fputs("  \"bodies\": [", out);
    for (int k = 0; k < n; ++k) {
        eddy_body_state b;
        if (eddy_world_get_body(w, ids[k], &b) != EDDY_OK) continue;
        fputs(k ? ",\n    " : "\n    ", out);
        json_body(out, ids[k], &b);
    }
    fputs("]\n", out);
    free(ids);
}

static void dump_json(FILE *out, eddy_world *w, const eddy_frame_hash *h) {
    fprintf(out, "{\n  \"frame\": %lld,\n  \"frame_hash\": \"%016llx\",\n  \"components\": {",
            (long long)h->frame, (unsigned long long)h->frame_hash);
    for (int c = 0; c < EDDY_COMPONENT_COUNT; ++c)
        fprintf(out, "%s\"%s\": \"%016llx\"", c ? ", " : "", eddy_component_name((eddy_component)c),
                (unsigned long long)h->component[c]);
    fputs("},\n", out);
    json_particles(out, w);
    json_bodies(out, w);
    fputs("}\n", out);
}

int cmd_dump(const cli_options *o) {
    const char *format = o->format ? o->format : "csv";
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0)
        return cli_fail(EXIT_USAGE, "--format %s: expected csv or json", format);
    const bool to_file = o->output && strcmp(o->output, "-") != 0;
    if (to_file && cli_check_output(o->output, o) != EXIT_OK) return EXIT_USAGE;
    eddy_pinner *pinner;
    eddy_player *p;
    int code = cli_open_at_frame(o, "dump", &pinner, &p);
    FILE *out = stdout;
    if (code == EXIT_OK && to_file && !(out = fopen(o->output, "w")))
        code = cli_fail(EXIT_IO, "cannot write %s", o->output);
    if (code == EXIT_OK) {
        eddy_world *w = eddy_player_world(p);
        const eddy_frame_hash h = eddy_world_hash(w);
        if (!strcmp(format, "csv")) dump_csv(out, w, &h);
        else dump_json(out, w, &h);
        if (ferror(out)) code = cli_fail(EXIT_IO, "writing %s failed", o->output ? o->output : "output");
    }
    if (out && out != stdout && fclose(out) != 0 && code == EXIT_OK)
        code = cli_fail(EXIT_IO, "writing %s failed", o->output);
    eddy_player_close(p);
    eddy_pinner_destroy(pinner);
    return code;
}
