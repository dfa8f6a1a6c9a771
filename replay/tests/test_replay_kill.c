/* SPDX-License-Identifier: MIT */
/* Crash safety: a recorder process killed with SIGKILL in the middle of a
 * run leaves a file that plays to its last complete chunk.
 *
 * The child records the tiny world into a file with chunks of 2 frames and
 * reports every completed chunk through a pipe; the parent kills it after a
 * few chunks, at an arbitrary point of its work, then opens the file. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay_testkit.h"

enum { CHUNK = 2, KILL_AFTER_CHUNKS = 6, MAX_FRAMES = 20000 };

static void child_record(const char *path, int report_fd) {
    eddy_world *w;
    if (testkit_tiny_world(1, &w) != EDDY_OK) _exit(2);
    eddy_recorder_def rd = eddy_recorder_def_default();
    rd.frames_per_chunk = CHUNK;
    rd.keyframe_interval = 3;
    eddy_recorder *r;
    if (eddy_recorder_create_file(w, &rd, path, &r, NULL, 0) != EDDY_OK) _exit(3);
    int chunks = 0;
    for (int f = 0; f < MAX_FRAMES; ++f) {
        testkit_input t;
        if (eddy_recorder_step(r, testkit_tiny_input(eddy_world_frame(w), &t)) != EDDY_OK) _exit(4);
        const eddy_recorder_stats st = eddy_recorder_get_stats(r);
        if (st.chunks != chunks) {
            chunks = st.chunks;
            const int64_t frames = (int64_t)chunks * CHUNK;
            if (write(report_fd, &frames, sizeof frames) != (ssize_t)sizeof frames) _exit(5);
        }
    }
    _exit(6); /* never finishes: the parent kills it first */
}

static void kill_and_play(int delay_us) {
    char path[256];
    snprintf(path, sizeof path, "%s/killed_%d_%d.eddyr", EDDY_REPLAY_TMP, (int)getpid(), delay_us);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    const pid_t child = fork();
    cr_assert_geq(child, 0);
    if (child == 0) {
        close(fds[0]);
        child_record(path, fds[1]);
    }
    close(fds[1]);
    int64_t committed = 0;
    for (int k = 0; k < KILL_AFTER_CHUNKS; ++k)
        cr_assert_eq(read(fds[0], &committed, sizeof committed), (ssize_t)sizeof committed,
                     "the recorder died before chunk %d", k + 1);
    const struct timespec delay = {0, 1000L * delay_us}; /* kill somewhere in a later chunk */
    nanosleep(&delay, NULL);
    kill(child, SIGKILL);
    int status;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the recorder exited by itself");
    close(fds[0]);

    eddy_player_def pd = eddy_player_def_default();
    pd.worker_count = 3;
    eddy_player *p;
    char message[512];
    const eddy_status s = eddy_player_open_file(path, &pd, &p, message, sizeof message);
    cr_assert_eq(s, EDDY_ERROR_TRUNCATED, "%s: %s", eddy_status_name(s), message);
    cr_assert_not_null(p);
    const eddy_replay_info i = eddy_player_info(p);
    cr_log_info("killed after >= %lld frames: %lld frames recovered from %llu bytes (%llu valid): %s",
                (long long)committed, (long long)i.frame_count, (unsigned long long)i.file_bytes,
                (unsigned long long)i.valid_bytes, message);
    cr_assert_geq(i.frame_count, committed, "a chunk reported complete was lost");
    cr_assert_eq(i.frame_count % CHUNK, 0, "only complete chunks are recovered");
    cr_assert(!i.complete);
    eddy_divergence d;
    cr_assert_eq(eddy_player_verify(p, &d, NULL, NULL), EDDY_OK, "%s", eddy_player_error_message(p));
    cr_assert_eq(eddy_player_frame(p), i.last_frame);
    int64_t keys[4096];
    const int n = eddy_player_keyframes(p, keys, 4096);
    if (n > 0) cr_assert_leq(keys[n - 1], i.last_frame);
    eddy_player_close(p);
    unlink(path);
}

Test(replay_kill, a_killed_recorder_leaves_a_file_that_plays_to_its_last_chunk, .timeout = 60) {
    const int delays_us[] = {0, 150, 700, 2300, 5100};
    for (size_t k = 0; k < sizeof delays_us / sizeof delays_us[0]; ++k) kill_and_play(delays_us[k]);
}
