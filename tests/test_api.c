/* SPDX-License-Identifier: MIT */
/* What games and renderers read from a world (include/eddy/view.h) and how a
 * game's task system is used: particle views equal the copy API field by
 * field; stable particle ids survive kills, emission and removal by bodies,
 * are never reused and leave every frame hash unchanged; body shapes read
 * back with faces wound counter-clockwise; user data never reaches the hash
 * or a snapshot; a game's task system gets every phase even at one worker,
 * and a definition that would silently ignore worker_start is refused.
 * Only the public API is used. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eddy/eddy.h"
#include "eddy/snapshot.h"

enum { RING = 64, SEEDED_TRACERS = 600, FRAMES = 30 };

/* ================================================================ helpers */

static eddy_world *make_world(const eddy_world_def *def) {
    eddy_world *w = NULL;
    eddy_status s = eddy_world_create(def, &w);
    cr_assert_eq(s, EDDY_OK, "create: %s (%s)", eddy_status_name(s), eddy_last_error_message());
    return w;
}

/* A vortex ring blowing tracers through a ball that swallows some, with an
 * emitter adding tracers every step and tracers dying after 12 frames: every
 * way a particle array gains, loses and moves particles. */
static eddy_world *busy_world(eddy_world_def def, eddy_body_id *ball, eddy_emitter_id *emitter) {
    def.tracer_max_age = 12;
    def.vorton_max_age = 40;
    eddy_world *w = make_world(&def);
    eddy_vorton ring[RING];
    for (int i = 0; i < RING; ++i) {
        const float a = 6.2831853f * (float)i / (float)RING;
        const float c = eddy_cosf(a), s = eddy_sinf(a);
        ring[i] = (eddy_vorton){.position = {0.5f * c, 0.5f * s, 0.0f},
                                .vorticity = {-6.0f * s, 6.0f * c, 0.0f}};
    }
    cr_assert_eq(eddy_world_add_vortons(w, ring, RING), EDDY_OK);
    eddy_tracer tracers[SEEDED_TRACERS];
    for (int i = 0; i < SEEDED_TRACERS; ++i)
        tracers[i] = (eddy_tracer){.position = {0.04f * (float)(i % 10) - 0.2f,
                                                0.04f * (float)(i / 10 % 10) - 0.2f,
                                                0.05f * (float)(i / 100) - 0.1f}};
    cr_assert_eq(eddy_world_add_tracers(w, tracers, SEEDED_TRACERS), EDDY_OK);
    eddy_emitter_def e = eddy_emitter_def_default();
    e.position = (eddy_vec3){0.0f, 0.0f, -0.3f};
    e.position_spread = (eddy_vec3){0.3f, 0.3f, 0.1f};
    e.tracer_rate = 900.0f;
    e.vorton_rate = 30.0f;
    e.vorticity_spread = (eddy_vec3){1.0f, 1.0f, 1.0f};
    e.user_data = 0xe111u;
    cr_assert_eq(eddy_world_create_emitter(w, &e, emitter), EDDY_OK);
    eddy_body_def b = eddy_body_def_default();
    b.shape = eddy_shape_sphere(0.15f);
    b.position = (eddy_vec3){0.0f, 0.0f, 0.25f};
    b.mass = 1.0e6f;
    b.gravity = false;
    b.user_data = 0xba11u;
    cr_assert_eq(eddy_world_create_body(w, &b, ball), EDDY_OK);
    return w;
}

static void step_ok(eddy_world *w) {
    eddy_status s = eddy_world_step(w, NULL);
    cr_assert_eq(s, EDDY_OK, "step: %s (%s)", eddy_status_name(s), eddy_world_error_message(w));
}

/* ================================================================ views */

Test(view, tracers_and_vortons_equal_the_copy_api) {
    eddy_body_id ball;
    eddy_emitter_id emitter;
    eddy_world *w = busy_world(eddy_world_def_default(), &ball, &emitter);
    for (int f = 0; f < 15; ++f) step_ok(w);

    const eddy_particle_view t = eddy_world_view_tracers(w);
    cr_assert_eq(t.count, eddy_world_tracer_count(w));
    cr_assert_eq(t.frame, eddy_world_frame(w));
    cr_assert(t.count > SEEDED_TRACERS / 2, "only %d tracers", t.count);
    cr_assert_null(t.vorticity_x);
    cr_assert_null(t.id, "ids are off by default");
    eddy_tracer *copy = malloc((size_t)t.count * sizeof *copy);
    cr_assert_eq(eddy_world_get_tracers(w, 0, t.count, copy), t.count);
    for (int i = 0; i < t.count; ++i) {
        cr_assert(memcmp(&copy[i].position.x, &t.position_x[i], 4) == 0 &&
                      memcmp(&copy[i].position.y, &t.position_y[i], 4) == 0 &&
                      memcmp(&copy[i].position.z, &t.position_z[i], 4) == 0,
                  "tracer %d position", i);
        cr_assert(memcmp(&copy[i].velocity.z, &t.velocity_z[i], 4) == 0, "tracer %d velocity", i);
        cr_assert(memcmp(&copy[i].density_deviation, &t.density_deviation[i], 4) == 0,
                  "tracer %d rho'", i);
        cr_assert_eq(copy[i].birth_frame, t.birth_frame[i], "tracer %d birth", i);
        const int64_t age = t.frame - t.birth_frame[i];
        /* The next step kills what is older than tracer_max_age (12) at its
         * start, before it advances the frame: ages run up to 13 in a view. */
        cr_assert(age >= 0 && age <= 13, "tracer %d age %lld beyond tracer_max_age + 1", i,
                  (long long)age);
    }
    free(copy);

    const eddy_particle_view v = eddy_world_view_vortons(w);
    cr_assert_eq(v.count, eddy_world_vorton_count(w));
    cr_assert_not_null(v.vorticity_x);
    eddy_vorton *vc = malloc((size_t)v.count * sizeof *vc);
    cr_assert_eq(eddy_world_get_vortons(w, 0, v.count, vc), v.count);
    for (int i = 0; i < v.count; ++i)
        cr_assert(memcmp(&vc[i].vorticity.y, &v.vorticity_y[i], 4) == 0 &&
                      memcmp(&vc[i].position.x, &v.position_x[i], 4) == 0,
                  "vorton %d", i);
    free(vc);
    eddy_world_destroy(w);
}

Test(view, null_world_gives_an_empty_view) {
    const eddy_particle_view v = eddy_world_view_tracers(NULL);
    cr_assert_eq(v.count, 0);
    cr_assert_null(v.position_x);
}

/* ================================================================ ids */

/* Ids are strictly increasing along the array (stable removal keeps order,
 * new particles are appended with fresh ids), below the next id. */
static void check_ids_ordered(const eddy_particle_view *v, const char *what, int frame) {
    cr_assert_not_null(v->id, "%s: no ids", what);
    for (int i = 1; i < v->count; ++i)
        cr_assert(v->id[i - 1] < v->id[i], "%s frame %d: id[%d] = %llu, id[%d] = %llu", what,
                  frame, i - 1, (unsigned long long)v->id[i - 1], i,
                  (unsigned long long)v->id[i]);
}

Test(ids, stable_unique_and_invisible_to_the_hash) {
    eddy_world_def def = eddy_world_def_default();
    eddy_body_id ball;
    eddy_emitter_id emitter;
    eddy_world *plain = busy_world(def, &ball, &emitter);
    def.particle_ids = true;
    eddy_world *tracked = busy_world(def, &ball, &emitter);

    /* Every frame: the same hash as without ids; ids strictly increasing
     * along each array (survivors keep their ids and order, newcomers get
     * fresh ones at the end); the newest id never goes back (no reuse). */
    uint64_t max_seen = 0;
    int died = 0;
    for (int f = 1; f <= FRAMES; ++f) {
        step_ok(plain);
        step_ok(tracked);
        const eddy_frame_hash a = eddy_world_hash(plain), b = eddy_world_hash(tracked);
        cr_assert_eq(a.frame_hash, b.frame_hash, "frame %d: ids changed the hash", f);
        const eddy_particle_view t = eddy_world_view_tracers(tracked);
        const eddy_particle_view v = eddy_world_view_vortons(tracked);
        check_ids_ordered(&t, "tracers", f);
        check_ids_ordered(&v, "vortons", f);
        if (t.count > 0) {
            cr_assert(t.id[t.count - 1] >= max_seen, "frame %d: an id was reused", f);
            max_seen = t.id[t.count - 1];
        }
        if (t.count > 0 && t.id[0] != 0) died = 1;
    }
    /* Tracers live 12 frames: the seeded ones are all gone, so ids must have
     * run past the seeded range without being reused. */
    const eddy_particle_view t = eddy_world_view_tracers(tracked);
    cr_assert(died && t.count > 0 && t.id[0] >= SEEDED_TRACERS, "first id %llu",
              (unsigned long long)t.id[0]);
    eddy_world_destroy(plain);
    eddy_world_destroy(tracked);
}

Test(ids, restore_renumbers_and_keeps_the_hash) {
    eddy_world_def def = eddy_world_def_default();
    def.particle_ids = true;
    eddy_body_id ball;
    eddy_emitter_id emitter;
    eddy_world *w = busy_world(def, &ball, &emitter);
    for (int f = 0; f < 16; ++f) step_ok(w);
    eddy_bytes snap = {0};
    cr_assert_eq(eddy_world_snapshot(w, &snap), EDDY_OK);
    const eddy_frame_hash before = eddy_world_hash(w);
    char message[200];
    cr_assert_eq(eddy_world_restore(w, snap.data, snap.size, message, sizeof message), EDDY_OK,
                 "%s", message);
    cr_assert_eq(eddy_world_hash(w).frame_hash, before.frame_hash);
    const eddy_particle_view t = eddy_world_view_tracers(w);
    for (int i = 0; i < t.count; ++i) cr_assert_eq(t.id[i], (uint64_t)i);
    step_ok(w);
    check_ids_ordered(&t, "after restore", 17);
    eddy_bytes_free(&snap);
    eddy_world_destroy(w);
}

/* ================================================================ shapes */

Test(shape, box_faces_are_quads_wound_counter_clockwise) {
    const eddy_shape box = eddy_shape_box((eddy_vec3){0.5f, 1.0f, 2.0f});
    eddy_vec3 vertices[EDDY_SHAPE_MAX_VERTICES];
    const int nv = eddy_shape_vertices(&box, vertices, EDDY_SHAPE_MAX_VERTICES);
    cr_assert_eq(nv, 8);
    for (int p = 0; p < box.plane_count; ++p) {
        int face[16];
        cr_assert_eq(eddy_shape_face(&box, p, face, 16), 4, "plane %d", p);
        const eddy_vec3 n = box.planes[p].normal;
        for (int k = 0; k < 4; ++k) {
            const eddy_vec3 a = vertices[face[k]], b = vertices[face[(k + 1) % 4]],
                            c = vertices[face[(k + 2) % 4]];
            const float on = n.x * a.x + n.y * a.y + n.z * a.z;
            cr_assert_float_eq(on, box.planes[p].offset, 1e-6f, "plane %d vertex %d", p, k);
            const eddy_vec3 e1 = {b.x - a.x, b.y - a.y, b.z - a.z};
            const eddy_vec3 e2 = {c.x - b.x, c.y - b.y, c.z - b.z};
            const eddy_vec3 x = {e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z,
                                 e1.x * e2.y - e1.y * e2.x};
            cr_assert(x.x * n.x + x.y * n.y + x.z * n.z > 0.0f, "plane %d turns clockwise at %d",
                      p, k);
        }
    }
    int face[4];
    cr_assert_eq(eddy_shape_face(&box, 6, face, 4), -1);
    const eddy_shape ball = eddy_shape_sphere(1.0f);
    cr_assert_eq(eddy_shape_face(&ball, 0, face, 4), -1);
}

Test(shape, airfoil_faces_cover_every_vertex_three_times) {
    eddy_shape foil;
    cr_assert_eq(eddy_shape_airfoil(1.0f, 0.12f, 0.5f, 12, &foil), EDDY_OK);
    const int nv = eddy_shape_vertices(&foil, NULL, 0);
    int uses[EDDY_SHAPE_MAX_VERTICES] = {0};
    for (int p = 0; p < foil.plane_count; ++p) {
        int face[EDDY_SHAPE_MAX_VERTICES];
        const int n = eddy_shape_face(&foil, p, face, EDDY_SHAPE_MAX_VERTICES);
        cr_assert(n >= 3, "plane %d: %d vertices", p, n);
        for (int k = 0; k < n; ++k) uses[face[k]]++;
    }
    /* A simple polytope (three faces meet at each vertex of a prism). */
    for (int k = 0; k < nv; ++k) cr_assert_eq(uses[k], 3, "vertex %d on %d faces", k, uses[k]);
}

Test(shape, body_shape_reads_back_recentred) {
    eddy_world_def def = eddy_world_def_default();
    eddy_world *w = make_world(&def);
    eddy_body_def d = eddy_body_def_default();
    d.shape = eddy_shape_box((eddy_vec3){0.25f, 0.5f, 1.0f});
    /* Shift the box off its origin: the world re-centres it. */
    for (int p = 0; p < d.shape.plane_count; ++p)
        d.shape.planes[p].offset += d.shape.planes[p].normal.x * 0.125f;
    eddy_body_id id;
    cr_assert_eq(eddy_world_create_body(w, &d, &id), EDDY_OK);
    eddy_shape got;
    cr_assert_eq(eddy_world_get_body_shape(w, id, &got), EDDY_OK);
    cr_assert_eq(got.type, EDDY_SHAPE_POLYTOPE);
    cr_assert_eq(got.plane_count, 6);
    cr_assert_float_eq(got.planes[0].offset, 0.25f, 1e-6f);
    cr_assert_float_eq(got.planes[1].offset, 0.25f, 1e-6f);
    cr_assert_eq(eddy_shape_vertices(&got, NULL, 0), 8);
    cr_assert_eq(eddy_world_get_body_shape(w, (eddy_body_id){7, 0}, &got), EDDY_ERROR_NOT_FOUND);
    eddy_world_destroy(w);
}

/* ================================================================ user data */

Test(user_data, kept_by_the_world_and_absent_from_hash_and_snapshot) {
    eddy_body_id ball, ball2;
    eddy_emitter_id emitter, emitter2;
    eddy_world *a = busy_world(eddy_world_def_default(), &ball, &emitter);
    eddy_world *b = busy_world(eddy_world_def_default(), &ball2, &emitter2);
    cr_assert_eq(eddy_world_get_body_user_data(a, ball), 0xba11u);
    cr_assert_eq(eddy_world_get_emitter_user_data(a, emitter), 0xe111u);
    /* b gets different user data; its state must stay the same bits. */
    cr_assert_eq(eddy_world_set_body_user_data(b, ball2, UINT64_MAX), EDDY_OK);
    cr_assert_eq(eddy_world_set_emitter_user_data(b, emitter2, 42u), EDDY_OK);
    cr_assert_eq(eddy_world_get_body_user_data(b, ball2), UINT64_MAX);
    cr_assert_eq(eddy_world_get_emitter_user_data(b, emitter2), 42u);
    for (int f = 0; f < 5; ++f) {
        step_ok(a);
        step_ok(b);
        cr_assert_eq(eddy_world_hash(a).frame_hash, eddy_world_hash(b).frame_hash, "frame %d", f);
    }
    eddy_bytes sa = {0}, sb = {0};
    cr_assert_eq(eddy_world_snapshot(a, &sa), EDDY_OK);
    cr_assert_eq(eddy_world_snapshot(b, &sb), EDDY_OK);
    cr_assert_eq(sa.size, sb.size);
    cr_assert(memcmp(sa.data, sb.data, sa.size) == 0, "user data reached the snapshot");
    char message[200];
    cr_assert_eq(eddy_world_restore(b, sa.data, sa.size, message, sizeof message), EDDY_OK);
    cr_assert_eq(eddy_world_get_body_user_data(b, ball2), 0, "a restored world has no user data");
    eddy_bytes_free(&sa);
    eddy_bytes_free(&sb);
    const eddy_body_id stale = {ball.index1, (uint16_t)(ball.generation + 1)};
    cr_assert_eq(eddy_world_set_body_user_data(a, stale, 1u), EDDY_ERROR_NOT_FOUND);
    cr_assert_eq(eddy_world_get_body_user_data(a, stale), 0);
    cr_assert_eq(eddy_world_set_emitter_user_data(NULL, emitter, 1u), EDDY_ERROR_INVALID_ARGUMENT);
    eddy_world_destroy(a);
    eddy_world_destroy(b);
}

/* ================================================================ tasks */

typedef struct counting_tasks {
    int enqueued;
    int items;
} counting_tasks;

/* A game's task system that runs everything at once, on the caller, from
 * the last item to the first. */
static void *counting_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                              void *user_context) {
    (void)min_range;
    counting_tasks *c = user_context;
    c->enqueued++;
    c->items += item_count;
    for (int i = item_count - 1; i >= 0; --i) task(i, i + 1, 0, task_context);
    return NULL;
}

static void counting_finish(void *user_task, void *user_context) {
    (void)user_task;
    (void)user_context;
}

Test(tasks, a_game_task_system_gets_every_phase_at_one_worker) {
    eddy_world_def def = eddy_world_def_default();
    eddy_body_id ball;
    eddy_emitter_id emitter;
    eddy_world *reference = busy_world(def, &ball, &emitter);
    counting_tasks counts = {0, 0};
    def.worker_count = 1;
    def.enqueue_task = counting_enqueue;
    def.finish_task = counting_finish;
    def.user_task_context = &counts;
    eddy_world *game = busy_world(def, &ball, &emitter);
    for (int f = 0; f < 5; ++f) {
        const int before = counts.enqueued;
        step_ok(reference);
        step_ok(game);
        cr_assert(counts.enqueued > before + 5, "frame %d: %d phases enqueued", f,
                  counts.enqueued - before);
        cr_assert_eq(eddy_world_hash(reference).frame_hash, eddy_world_hash(game).frame_hash,
                     "frame %d", f);
    }
    eddy_world_destroy(reference);
    eddy_world_destroy(game);
}

static void unused_worker_start(int worker_index, void *context) {
    (void)worker_index;
    (void)context;
}

Test(tasks, worker_start_with_a_game_task_system_is_refused) {
    eddy_world_def def = eddy_world_def_default();
    def.enqueue_task = counting_enqueue;
    def.finish_task = counting_finish;
    def.worker_start = unused_worker_start;
    eddy_world *w = (eddy_world *)&def;
    cr_assert_eq(eddy_world_create(&def, &w), EDDY_ERROR_INVALID_DEF);
    cr_assert_null(w);
    cr_assert(strstr(eddy_last_error_message(), "worker_start") != NULL, "message: %s",
              eddy_last_error_message());
}
