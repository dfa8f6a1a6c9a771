/* SPDX-License-Identifier: MIT */
/* A game's frame loop around eddy (docs/integration.md walks through it).
 *
 * - Fixed step with render interpolation: the game's frames take varying
 *   time (a fixed, made-up sequence here, so the run is reproducible); an
 *   accumulator decides how many fixed eddy steps each frame runs (at most
 *   MAX_STEPS_PER_FRAME), and the renderer interpolates the ball between the
 *   last two states and draws tracers straight from the read-only view.
 * - The game's own job system (a minimal one below, three threads plus the
 *   main thread) runs every parallel phase of every step.
 * - The whole session is recorded to a replay file (eddy_recorder_step
 *   instead of eddy_world_step), with the player's input each frame.
 * - A quick save (snapshot) at frame SAVE_FRAME; at the end the save is
 *   loaded into a new world, the same inputs are replayed from there, and the
 *   final state must be the same bits.
 * - Finally the replay file is played back with the built-in pool at another
 *   worker count, every frame hash checked.
 *
 * usage: eddy-game-loop REPLAY_PATH      exit 0: every check passed */
#include <eddy/eddy.h>
#include <eddy/replay.h>
#include <eddy/snapshot.h>

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GAME_FRAMES = 150, MAX_STEPS_PER_FRAME = 4, SAVE_FRAME = 60, JOB_THREADS = 3 };
static const float STEP_SECONDS = 1.0f / 30.0f;

/* ================================================================ job system */
/* The game's job system: JOB_THREADS threads that sleep until a job comes,
 * then take ranges of its items from an atomic counter, the enqueuing thread
 * helping. One job in flight at a time, which is how eddy uses a job system
 * (enqueue, then finish, phase after phase). */
typedef struct job {
    eddy_task_fn *task;
    void *context;
    int count, range;
    atomic_int next, done;
} job;

typedef struct job_system job_system;

typedef struct worker_arg {
    job_system *js;
    int index;
} worker_arg;

struct job_system {
    pthread_t threads[JOB_THREADS];
    worker_arg args[JOB_THREADS];
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    job current;
    bool has_job, quit;
    unsigned generation;   /* counts jobs, so a thread takes each one once */
    int busy;              /* threads working on the current job */
    long jobs_run;         /* statistics: jobs eddy handed over */
};

static void job_run_ranges(job *j, int worker_index) {
    for (;;) {
        const int start = atomic_fetch_add(&j->next, j->range);
        if (start >= j->count) return;
        const int end = start + j->range < j->count ? start + j->range : j->count;
        j->task(start, end, worker_index, j->context);
        atomic_fetch_add(&j->done, end - start);
    }
}

static void *job_thread(void *p) {
    worker_arg *arg = p;
    job_system *js = arg->js;
    unsigned seen = 0;
    pthread_mutex_lock(&js->lock);
    for (;;) {
        while (!js->quit && (!js->has_job || js->generation == seen))
            pthread_cond_wait(&js->wake, &js->lock);
        if (js->quit) break;
        seen = js->generation;
        js->busy++;
        pthread_mutex_unlock(&js->lock);
        job_run_ranges(&js->current, arg->index);
        pthread_mutex_lock(&js->lock);
        if (--js->busy == 0) pthread_cond_broadcast(&js->idle);
    }
    pthread_mutex_unlock(&js->lock);
    return NULL;
}

static void *job_enqueue(eddy_task_fn *task, int item_count, int min_range, void *task_context,
                         void *user_context) {
    job_system *js = user_context;
    pthread_mutex_lock(&js->lock);
    js->current.task = task;
    js->current.context = task_context;
    js->current.count = item_count;
    js->current.range = min_range > 0 ? min_range : 1;
    atomic_store(&js->current.next, 0);
    atomic_store(&js->current.done, 0);
    js->has_job = true;
    js->generation++;
    js->jobs_run++;
    pthread_cond_broadcast(&js->wake);
    pthread_mutex_unlock(&js->lock);
    return &js->current;
}

static void job_finish(void *user_task, void *user_context) {
    job_system *js = user_context;
    job *j = user_task;
    job_run_ranges(j, 0); /* the calling thread is worker 0 and helps */
    pthread_mutex_lock(&js->lock);
    while (atomic_load(&j->done) < j->count || js->busy > 0) pthread_cond_wait(&js->idle, &js->lock);
    js->has_job = false;
    pthread_mutex_unlock(&js->lock);
}

static bool job_system_start(job_system *js) {
    memset(js, 0, sizeof *js);
    pthread_mutex_init(&js->lock, NULL);
    pthread_cond_init(&js->wake, NULL);
    pthread_cond_init(&js->idle, NULL);
    for (int i = 0; i < JOB_THREADS; ++i) {
        js->args[i] = (worker_arg){js, i + 1};
        if (pthread_create(&js->threads[i], NULL, job_thread, &js->args[i]) != 0) return false;
    }
    return true;
}

static void job_system_stop(job_system *js) {
    pthread_mutex_lock(&js->lock);
    js->quit = true;
    pthread_cond_broadcast(&js->wake);
    pthread_mutex_unlock(&js->lock);
    for (int i = 0; i < JOB_THREADS; ++i) pthread_join(js->threads[i], NULL);
    pthread_mutex_destroy(&js->lock);
    pthread_cond_destroy(&js->wake);
    pthread_cond_destroy(&js->idle);
}

/* ================================================================ the game */
typedef struct game {
    eddy_body_id ball;
    eddy_emitter_id smoke;
} game;

/* The world definition, the same for the recorded world and a loaded save. */
static eddy_world_def game_world_def(job_system *js) {
    eddy_world_def def = eddy_world_def_default();
    def.dt = STEP_SECONDS;
    def.tracer_max_age = 90;        /* smoke fades after 3 s */
    def.vorton_max_age = 120;
    def.worker_count = JOB_THREADS + 1;
    def.enqueue_task = job_enqueue;
    def.finish_task = job_finish;
    def.user_task_context = js;
    return def;
}

static bool populate(eddy_world *world, game *g) {
    eddy_emitter_def smoke = eddy_emitter_def_default();
    smoke.position = (eddy_vec3){0.0f, 0.0f, -0.5f};
    smoke.position_spread = (eddy_vec3){0.2f, 0.2f, 0.05f};
    smoke.velocity = (eddy_vec3){0.0f, 0.0f, 0.5f};
    smoke.vorticity_spread = (eddy_vec3){2.0f, 2.0f, 2.0f};
    smoke.density_deviation = -0.05f;      /* warm, light smoke rises */
    smoke.vorton_rate = 60.0f;
    smoke.tracer_rate = 3000.0f;
    smoke.user_data = 1001;                /* the game's entity id for the chimney */
    eddy_body_def ball = eddy_body_def_default();
    ball.shape = eddy_shape_sphere(0.15f);
    ball.position = (eddy_vec3){-1.0f, 0.0f, 0.3f};
    ball.mass = 0.5f;
    ball.user_data = 2002;                 /* the game's entity id for the ball */
    return eddy_world_create_emitter(world, &smoke, &g->smoke) == EDDY_OK &&
           eddy_world_create_body(world, &ball, &g->ball) == EDDY_OK;
}

/* The player's input for the step that leads to frame + 1: a throw, wind
 * gusts, the chimney swaying. A function of the frame only, so a loaded save
 * can be fed the same inputs again. */
typedef struct game_input {
    eddy_input input;
    eddy_body_command body;
    eddy_emitter_command emitter;
} game_input;

static const eddy_input *input_for(const game *g, int64_t frame, game_input *out) {
    memset(out, 0, sizeof *out);
    if (frame == 10) { /* the player throws the ball across the smoke */
        out->body = (eddy_body_command){.body = g->ball, .type = EDDY_BODY_IMPULSE,
                                        .vector = {1.5f, 0.0f, 2.5f},
                                        .point = {-1.0f, 0.0f, 0.25f}};
        out->input.body_commands = &out->body;
        out->input.body_command_count = 1;
    }
    if (frame % 20 == 0) { /* gusts of wind */
        out->input.flags |= EDDY_INPUT_SET_WIND;
        out->input.wind = (eddy_vec3){(frame / 20) % 2 ? 0.4f : 0.0f, 0.0f, 0.0f};
    }
    out->emitter = (eddy_emitter_command){.emitter = g->smoke, .type = EDDY_EMITTER_MOVE,
                                          .position = {0.1f * (float)(frame % 16) - 0.8f, 0.0f, -0.5f}};
    out->input.emitter_commands = &out->emitter;
    out->input.emitter_command_count = 1;
    return &out->input;
}

/* The game's frame times in seconds: about 60 Hz with a hitch now and then. */
static float frame_seconds(int game_frame) {
    if (game_frame % 37 == 36) return 0.120f; /* a loading hitch */
    return game_frame % 3 == 0 ? 0.018f : 0.016f;
}

/* ================================================================ rendering */
typedef struct render_stats {
    int frames;
    long tracers_drawn;
    double ball_path;          /* length of the interpolated ball path */
    eddy_vec3 last_ball;
} render_stats;

static eddy_vec3 lerp3(eddy_vec3 a, eddy_vec3 b, float t) {
    return (eddy_vec3){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

/* Draw one game frame at alpha in [0, 1) between the previous and the current
 * step. Bodies: interpolated between their last two states. Tracers: read in
 * place from the view (valid until the next step), moved on by alpha steps of
 * their own velocity, and "drawn" when inside the camera's box. */
static void render(const eddy_world *world, const eddy_body_state *previous,
                   const eddy_body_state *current, float alpha, render_stats *stats) {
    const eddy_vec3 ball = lerp3(previous->position, current->position, alpha);
    if (stats->frames > 0) {
        const float dx = ball.x - stats->last_ball.x, dy = ball.y - stats->last_ball.y,
                    dz = ball.z - stats->last_ball.z;
        stats->ball_path += (double)sqrtf(dx * dx + dy * dy + dz * dz);
    }
    stats->last_ball = ball;
    const eddy_particle_view smoke = eddy_world_view_tracers(world);
    const float lead = alpha * STEP_SECONDS;
    for (int i = 0; i < smoke.count; ++i) {
        const float x = smoke.position_x[i] + lead * smoke.velocity_x[i];
        const float z = smoke.position_z[i] + lead * smoke.velocity_z[i];
        const float age = (float)(smoke.frame - smoke.birth_frame[i]);
        const float opacity = 1.0f - age / 90.0f; /* what a shader would get */
        if (x > -2.0f && x < 2.0f && z > -1.0f && z < 3.0f && opacity > 0.0f) stats->tracers_drawn++;
    }
    stats->frames++;
}

/* ================================================================ checks */
static int fail(const char *what, eddy_status status, const char *message) {
    fprintf(stderr, "eddy-game-loop: %s: %s: %s\n", what, eddy_status_name(status), message);
    return 1;
}

/* Load the quick save into a new world and step it with the same inputs up
 * to frame last; true when it reaches the recorded world's final hash. */
static bool save_replays_to(const eddy_bytes *save, const eddy_world_def *def, const game *g,
                            int64_t last, uint64_t expected) {
    eddy_world *world = NULL;
    char message[256];
    if (eddy_world_create(def, &world) != EDDY_OK) return false;
    /* The save holds every particle, emitter and body: nothing to populate,
     * and the ids (part of the state) are the ones the game already holds. */
    bool ok = eddy_world_restore(world, save->data, save->size, message, sizeof message) == EDDY_OK;
    if (!ok) fprintf(stderr, "eddy-game-loop: load: %s\n", message);
    while (ok && eddy_world_frame(world) < last) {
        game_input in;
        ok = eddy_world_step(world, input_for(g, eddy_world_frame(world), &in)) == EDDY_OK;
    }
    ok = ok && eddy_world_hash(world).frame_hash == expected;
    eddy_world_destroy(world);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: eddy-game-loop REPLAY_PATH\n");
        return 2;
    }
    job_system jobs;
    if (!job_system_start(&jobs)) return fail("job system", EDDY_ERROR_THREAD, "pthread_create");
    const eddy_world_def def = game_world_def(&jobs);
    eddy_world *world = NULL;
    eddy_status s = eddy_world_create(&def, &world);
    if (s != EDDY_OK) return fail("eddy_world_create", s, eddy_last_error_message());
    game g;
    if (!populate(world, &g)) return fail("populate", EDDY_ERROR_INVALID_DEF, eddy_world_error_message(world));

    char message[256];
    eddy_recorder *recorder = NULL;
    eddy_recorder_def rdef = eddy_recorder_def_default();
    rdef.keyframe_interval = 30; /* fast seeking in the replay */
    s = eddy_recorder_create_file(world, &rdef, argv[1], &recorder, message, sizeof message);
    if (s != EDDY_OK) return fail("eddy_recorder_create_file", s, message);

    /* ---- the frame loop */
    eddy_body_state previous, current;
    eddy_world_get_body(world, g.ball, &current);
    previous = current;
    eddy_bytes save = {0};
    render_stats stats = {0};
    float accumulator = 0.0f;
    for (int frame = 0; frame < GAME_FRAMES; ++frame) {
        accumulator += frame_seconds(frame);
        int steps = 0;
        while (accumulator >= STEP_SECONDS && steps < MAX_STEPS_PER_FRAME) {
            game_input in;
            s = eddy_recorder_step(recorder, input_for(&g, eddy_world_frame(world), &in));
            if (s != EDDY_OK) return fail("eddy_recorder_step", s, eddy_recorder_error_message(recorder));
            previous = current;
            eddy_world_get_body(world, g.ball, &current);
            accumulator -= STEP_SECONDS;
            ++steps;
            if (eddy_world_frame(world) == SAVE_FRAME) { /* quick save */
                s = eddy_world_snapshot(world, &save);
                if (s != EDDY_OK) return fail("eddy_world_snapshot", s, eddy_world_error_message(world));
            }
        }
        if (steps == MAX_STEPS_PER_FRAME) accumulator = 0.0f; /* too far behind: drop time */
        render(world, &previous, &current, accumulator / STEP_SECONDS, &stats);
    }
    const int64_t last = eddy_world_frame(world);
    const uint64_t final_hash = eddy_world_hash(world).frame_hash;
    const uint64_t ball_entity = eddy_world_get_body_user_data(world, g.ball);
    if ((s = eddy_recorder_finish(recorder)) != EDDY_OK)
        return fail("eddy_recorder_finish", s, eddy_recorder_error_message(recorder));
    eddy_recorder_destroy(recorder);
    eddy_world_destroy(world);
    printf("eddy-game-loop: %d game frames, %lld steps, %ld phases run by the game's job system\n",
           GAME_FRAMES, (long long)last, jobs.jobs_run);
    printf("eddy-game-loop: drew %ld tracers in all, the ball (entity %llu) moved %.2f m on screen\n",
           stats.tracers_drawn, (unsigned long long)ball_entity, stats.ball_path);

    /* ---- the quick save, loaded and played on to the same end */
    int failures = 0;
    if (save.size == 0 || !save_replays_to(&save, &def, &g, last, final_hash)) {
        fprintf(stderr, "eddy-game-loop: the save from frame %d does not lead to the same state\n",
                SAVE_FRAME);
        failures++;
    } else {
        printf("eddy-game-loop: save at frame %d loaded and stepped to frame %lld: same hash %016llx\n",
               SAVE_FRAME, (long long)last, (unsigned long long)final_hash);
    }
    eddy_bytes_free(&save);
    job_system_stop(&jobs);

    /* ---- the replay, played back with the built-in pool at 2 workers */
    eddy_player_def pdef = eddy_player_def_default();
    pdef.worker_count = 2;
    eddy_player *player = NULL;
    s = eddy_player_open_file(argv[1], &pdef, &player, message, sizeof message);
    if (s != EDDY_OK) return fail("eddy_player_open_file", s, message);
    eddy_divergence d;
    s = eddy_player_verify(player, &d, NULL, NULL);
    const eddy_replay_info info = eddy_player_info(player);
    if (s != EDDY_OK || info.last_frame != last ||
        eddy_world_hash(eddy_player_world(player)).frame_hash != final_hash) {
        fprintf(stderr, "eddy-game-loop: replay: %s (%s), %lld of %lld frames\n", eddy_status_name(s),
                eddy_player_error_message(player), (long long)info.last_frame, (long long)last);
        failures++;
    } else {
        printf("eddy-game-loop: replay of %lld frames played back at 2 workers: every hash matches\n",
               (long long)info.frame_count);
    }
    eddy_player_close(player);
    return failures == 0 ? 0 : 1;
}
