/* SPDX-License-Identifier: MIT */
/* Test helpers: the tiny world and its input script, recording helpers and
 * file helpers (replay_testkit.h). */
#include "replay_testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static eddy_vec3 v3(float x, float y, float z) { return (eddy_vec3){x, y, z}; }

/* ---------------------------------------------------------------- tiny world */
static eddy_status add_particles(eddy_world *w) {
    eddy_vorton vortons[8];
    for (int i = 0; i < 8; ++i) {
        /* A ring of radius 1 in the y-z plane, vorticity along the ring. */
        const float c = eddy_cosf(0.785398163f * (float)i), s = eddy_sinf(0.785398163f * (float)i);
        vortons[i] = (eddy_vorton){v3(0.0f, c, s), v3(0.0f, 0.0f, 0.0f), v3(0.0f, -4.0f * s, 4.0f * c),
                                   i % 2 ? 0.25f : -0.25f, 0};
    }
    eddy_status st = eddy_world_add_vortons(w, vortons, 8);
    eddy_tracer tracers[16];
    for (int i = 0; i < 16; ++i)
        tracers[i] = (eddy_tracer){v3(-0.5f + 0.25f * (float)(i % 4), -0.5f + 0.25f * (float)(i / 4),
                                      0.1f),
                                   v3(0.0f, 0.0f, 0.0f), 0.0f, 0};
    if (st == EDDY_OK) st = eddy_world_add_tracers(w, tracers, 16);
    return st;
}

static eddy_status add_emitter_and_body(eddy_world *w) {
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = v3(0.0f, 0.0f, 0.0f);
    e.position_spread = v3(0.2f, 0.2f, 0.2f);
    e.velocity = v3(0.5f, 0.0f, 0.0f);
    e.vorticity = v3(0.0f, 0.0f, 1.0f);
    e.vorticity_spread = v3(1.0f, 1.0f, 1.0f);
    e.density_deviation = 0.1f;
    e.vorton_rate = 6.0f;  /* 0.2 per frame: remainders matter */
    e.tracer_rate = 30.0f;
    eddy_emitter_id id;
    eddy_status st = eddy_world_create_emitter(w, &e, &id);
    eddy_body_def b = eddy_body_def_default();
    b.shape = eddy_shape_sphere(0.3f);
    b.position = v3(1.0f, 0.0f, 0.5f);
    b.mass = 0.05f;
    eddy_body_id body;
    if (st == EDDY_OK) st = eddy_world_create_body(w, &b, &body);
    return st;
}

eddy_status testkit_tiny_world(int worker_count, eddy_world **out) {
    eddy_world_def d = eddy_world_def_default();
    d.worker_count = worker_count;
    d.vorton_radius = 0.2f;
    d.tracer_max_age = 15;
    d.seed = 7;
    eddy_status st = eddy_world_create(&d, out);
    if (st == EDDY_OK) st = add_particles(*out);
    if (st == EDDY_OK) st = add_emitter_and_body(*out);
    if (st != EDDY_OK) {
        eddy_world_destroy(*out);
        *out = NULL;
    }
    return st;
}

static eddy_emitter_command *emitter_command(testkit_input *t, eddy_emitter_command_type type,
                                             int32_t index1, uint16_t generation) {
    eddy_emitter_command *c = &t->emitter_commands[t->input.emitter_command_count++];
    memset(c, 0, sizeof *c);
    c->type = type;
    c->emitter = (eddy_emitter_id){index1, generation};
    t->input.emitter_commands = t->emitter_commands;
    return c;
}

static eddy_body_command *body_command(testkit_input *t, eddy_body_command_type type,
                                       int32_t index1, uint16_t generation) {
    eddy_body_command *c = &t->body_commands[t->input.body_command_count++];
    memset(c, 0, sizeof *c);
    c->type = type;
    c->body = (eddy_body_id){index1, generation};
    t->input.body_commands = t->body_commands;
    return c;
}

static void emitter_script(int64_t frame, testkit_input *t) {
    eddy_emitter_command *c;
    switch (frame) {
    case 1: c = emitter_command(t, EDDY_EMITTER_BURST, 1, 1); c->vorton_count = 2; c->tracer_count = 3; break;
    case 2: c = emitter_command(t, EDDY_EMITTER_MOVE, 1, 1); c->position = v3(0.1f, 0.0f, 0.0f); break;
    case 3:
        c = emitter_command(t, EDDY_EMITTER_SET_RATES, 1, 1);
        c->vorton_rate = 3.0f;
        c->tracer_rate = 20.0f;
        break;
    case 4:
        c = emitter_command(t, EDDY_EMITTER_CREATE, 0, 0);
        c->def = eddy_emitter_def_default();
        c->def.position = v3(0.0f, 0.5f, 0.0f);
        c->def.tracer_rate = 15.0f;
        break;
    case 5: emitter_command(t, EDDY_EMITTER_DISABLE, 1, 1); break;
    case 7: emitter_command(t, EDDY_EMITTER_ENABLE, 1, 1); break;
    case 9: emitter_command(t, EDDY_EMITTER_DESTROY, 2, 1); break;
    default: break;
    }
}

static void body_script(int64_t frame, testkit_input *t) {
    eddy_body_command *c;
    switch (frame) {
    case 2:
        c = body_command(t, EDDY_BODY_CREATE, 0, 0);
        c->def = eddy_body_def_default();
        c->def.type = EDDY_BODY_KINEMATIC;
        c->def.shape = eddy_shape_box(v3(0.2f, 0.3f, 0.1f));
        c->def.position = v3(-1.0f, 0.0f, 0.0f);
        c->def.linear_velocity = v3(0.3f, 0.0f, 0.0f);
        break;
    case 3: c = body_command(t, EDDY_BODY_FORCE, 1, 1); c->vector = v3(0.0f, 0.0f, 0.6f); break;
    case 4: c = body_command(t, EDDY_BODY_TORQUE, 1, 1); c->vector = v3(0.0f, 0.01f, 0.0f); break;
    case 5:
        c = body_command(t, EDDY_BODY_IMPULSE, 1, 1);
        c->vector = v3(0.01f, 0.0f, 0.0f);
        c->point = v3(1.0f, 0.1f, 0.5f);
        break;
    case 6: c = body_command(t, EDDY_BODY_ANGULAR_IMPULSE, 1, 1); c->vector = v3(0.0f, 0.0f, 0.001f); break;
    case 8:
        c = body_command(t, EDDY_BODY_SET_KINEMATIC, 2, 1);
        c->position = v3(-0.6f, 0.1f, 0.0f);
        c->orientation = (eddy_quat){0.0f, 0.0f, 0.38268343f, 0.92387953f};
        c->linear_velocity = v3(0.2f, 0.0f, 0.0f);
        c->angular_velocity = v3(0.0f, 0.0f, 0.5f);
        break;
    case 11: body_command(t, EDDY_BODY_DESTROY, 2, 1); break;
    case 12:
        c = body_command(t, EDDY_BODY_CREATE, 0, 0);
        c->def = eddy_body_def_default();
        c->def.shape = eddy_shape_sphere(0.2f);
        c->def.position = v3(0.0f, -1.5f, 0.0f);
        c->def.mass = 0.02f;
        break;
    default: break;
    }
}

const eddy_input *testkit_tiny_input(int64_t frame, testkit_input *t) {
    memset(&t->input, 0, sizeof t->input);
    if (frame == 1) {
        t->input.flags |= EDDY_INPUT_SET_WIND;
        t->input.wind = v3(0.05f, 0.0f, 0.0f);
    }
    if (frame == 6) {
        t->input.flags |= EDDY_INPUT_SET_GRAVITY;
        t->input.gravity = v3(0.0f, 0.0f, -5.0f);
    }
    emitter_script(frame, t);
    body_script(frame, t);
    return &t->input;
}

/* ---------------------------------------------------------------- scenes */
eddy_world *testkit_scene_world(const char *scene, int worker_count) {
    eddy_world_def base = eddy_world_def_default();
    base.worker_count = worker_count;
    eddy_world *w = NULL;
    if (strcmp(scene, "tiny") == 0) testkit_tiny_world(worker_count, &w);
    else eddy_scene_create(scene, &base, &w);
    return w;
}

eddy_status testkit_step(eddy_world *world, const char *script) {
    const int64_t frame = eddy_world_frame(world);
    if (strcmp(script, "tiny") == 0) {
        testkit_input t;
        return eddy_world_step(world, testkit_tiny_input(frame, &t));
    }
    eddy_scene_input in;
    return eddy_world_step(world, eddy_scene_input_for(script, frame, &in));
}

/* ---------------------------------------------------------------- recording */
static eddy_status record(eddy_world *w, const char *script, int frames,
                          const eddy_recorder_def *def, eddy_bytes *out) {
    eddy_recorder *r;
    eddy_status s = eddy_recorder_create_memory(w, def, out, &r, NULL, 0);
    for (int k = 0; s == EDDY_OK && k < frames; ++k) {
        const int64_t frame = eddy_world_frame(w);
        if (strcmp(script, "tiny") == 0) {
            testkit_input t;
            s = eddy_recorder_step(r, testkit_tiny_input(frame, &t));
        } else {
            eddy_scene_input in;
            s = eddy_recorder_step(r, eddy_scene_input_for(script, frame, &in));
        }
    }
    if (s == EDDY_OK) s = eddy_recorder_finish(r);
    eddy_recorder_destroy(r);
    return s;
}

eddy_status testkit_record_tiny(int frames, const eddy_recorder_def *def, eddy_bytes *out) {
    eddy_recorder_def small = eddy_recorder_def_default();
    small.frames_per_chunk = 4;
    small.keyframe_interval = 5;
    small.block_hashes = true;
    eddy_world *w;
    eddy_status s = testkit_tiny_world(1, &w);
    if (s == EDDY_OK) s = record(w, "tiny", frames, def ? def : &small, out);
    eddy_world_destroy(w);
    return s;
}

eddy_status testkit_record_scene(const char *scene, int frames, int worker_count,
                                 const eddy_recorder_def *def, eddy_bytes *out) {
    eddy_world *w = testkit_scene_world(scene, worker_count);
    if (!w) return EDDY_ERROR_NOT_FOUND;
    eddy_status s = record(w, scene, frames, def, out);
    eddy_world_destroy(w);
    return s;
}

/* ---------------------------------------------------------------- files */
void testkit_append(eddy_bytes *b, const void *data, size_t size) {
    if (size == 0) return;
    if (b->size + size > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 256;
        while (cap < b->size + size) cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p) abort();
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

bool testkit_read_file(const char *path, eddy_bytes *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint8_t buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) testkit_append(out, buf, n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

bool testkit_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static uint32_t load32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool testkit_reseal_frame(uint8_t *file, size_t size, size_t offset) {
    if (offset + 8 > size || load32(file + offset) != 0x184D2A55u) return false;
    const size_t payload = load32(file + offset + 4);
    if (payload < 12 || payload > size - offset - 8) return false;
    uint8_t *q = file + offset + 8;
    uint64_t h = XXH3_64bits(q, payload - 8);
    for (int i = 0; i < 8; ++i) q[payload - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
    return true;
}

static void store64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

enum { SKIP = 0x184D2A55u, ZSTD_MAGIC = 0xFD2FB528u };
#define TAG(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

int testkit_walk(const uint8_t *file, size_t size, testkit_frame *out, int capacity) {
    size_t pos = 0;
    int n = 0;
    while (pos < size) {
        testkit_frame f = {pos, 0, 0, 0, 0};
        if (size - pos < 8) return -1;
        const uint32_t magic = load32(file + pos);
        if (magic == SKIP) {
            f.size = 8 + (size_t)load32(file + pos + 4);
            if (f.size > size - pos || f.size < 12) return -1;
            f.tag = load32(file + pos + 8);
            if (f.tag == TAG('E', 'R', 'R', 'H') && f.size >= 8 + 16) {
                f.kind = load32(file + pos + 12);
                f.frame_count = load32(file + pos + 20);
            }
        } else if (magic == ZSTD_MAGIC) {
            f.size = ZSTD_findFrameCompressedSize(file + pos, size - pos);
            if (ZSTD_isError(f.size)) return -1;
        } else {
            return -1;
        }
        if (n < capacity) out[n] = f;
        ++n;
        pos += f.size;
    }
    return n;
}

bool testkit_refresh_hashes(uint8_t *file, size_t size) {
    testkit_frame frames[512];
    const int n = testkit_walk(file, size, frames, 512);
    if (n < 0 || n > 512) return false;
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    for (int k = 0; k < n; ++k) {
        const testkit_frame *f = &frames[k];
        uint8_t *p = file + f->offset;
        if (f->tag == TAG('E', 'R', 'R', 'H')) store64(p + 8 + 48, XXH3_64bits_digest(&state));
        if (f->tag == TAG('E', 'R', 'F', 'T')) store64(p + 8 + 24, XXH3_64bits_digest(&state));
        if (f->tag != 0) testkit_reseal_frame(file, size, f->offset);
        XXH3_64bits_update(&state, p, f->size);
    }
    return true;
}

const char *testkit_tmp_path(const char *dir, const char *prefix, const char *name) {
    static char paths[16][256];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, sizeof paths[0], "%s/%s_%d_%s", dir, prefix, (int)getpid(), name);
    return p;
}

int testkit_shell(const char *command_line, const char *stdout_path, const char *log_path,
                  eddy_bytes *out) {
    char command[4096];
    if (stdout_path)
        snprintf(command, sizeof command, "( %s ) > '%s' 2> '%s'", command_line, stdout_path,
                 log_path);
    else snprintf(command, sizeof command, "( %s ) > '%s' 2>&1", command_line, log_path);
    const int status = system(command);
    out->size = 0;
    testkit_read_file(log_path, out);
    testkit_append(out, "", 1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
