/* SPDX-License-Identifier: MIT */
/* Byte sinks and sources for recorders and players: POSIX files, memory
 * buffers and the caller's read callback. Files are written with write(2)
 * straight to the kernel (no stdio buffer), so a record is in the file as
 * soon as its write returns: SIGKILL then loses nothing that was written;
 * fsync after every record is the optional protection against power loss. */
#include "replay_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _WIN32
#include "replay_io_win32.h"
#else
#define EDDY_O_FLAGS O_CLOEXEC
#endif

/* ---------------------------------------------------------------- file sink */
eddy_status eddy_file_sink_open(file_sink *sink, const char *path, bool sync, char *message,
                           size_t size) {
    sink->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | EDDY_O_FLAGS, 0644);
    sink->sync = sync;
    sink->error = 0;
    if (sink->fd < 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot create %s: %s", path,
                           strerror(errno));
    return EDDY_OK;
}

eddy_status eddy_file_sink_open_temp(file_sink *sink, const char *path, char *temp, size_t temp_size,
                                     bool sync, char *message, size_t size) {
    sink->sync = sync;
    sink->error = 0;
    sink->fd = -1;
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int n = snprintf(temp, temp_size, "%s.partial-%ld-%d", path, (long)getpid(), attempt);
        if (n < 0 || (size_t)n >= temp_size)
            return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot create %s: the path is too long",
                                    path);
        sink->fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | EDDY_O_FLAGS, 0644);
        if (sink->fd >= 0) return EDDY_OK;
        if (errno != EEXIST) break;
    }
    return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot create %s (temporary file %s): %s",
                            path, temp, strerror(errno));
}

const char *eddy_file_sink_error_text(const file_sink *sink) {
    return sink->error ? strerror(sink->error) : NULL;
}

eddy_status eddy_file_sink_write(const void *data, size_t size, void *context) {
    file_sink *sink = context;
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t n = write(sink->fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            sink->error = n < 0 ? errno : ENOSPC; /* a write of 0 bytes: no room */
            return EDDY_ERROR_IO;
        }
        p += n;
        size -= (size_t)n;
    }
    return EDDY_OK;
}

eddy_status eddy_file_sink_flush(void *context) {
    file_sink *sink = context;
    if (sink->sync && fsync(sink->fd) != 0) {
        sink->error = errno;
        return EDDY_ERROR_IO;
    }
    return EDDY_OK;
}

eddy_status eddy_file_sink_close(file_sink *sink) {
    if (sink->fd < 0) return EDDY_OK;
    int r = close(sink->fd);
    sink->fd = -1;
    if (r != 0) sink->error = errno;
    return r == 0 ? EDDY_OK : EDDY_ERROR_IO;
}

/* ---------------------------------------------------------------- memory sink */
eddy_status eddy_memory_sink_write(const void *data, size_t size, void *context) {
    return bytes_append(context, data, size) ? EDDY_OK : EDDY_ERROR_OUT_OF_MEMORY;
}

/* ---------------------------------------------------------------- sources */
eddy_status eddy_read_all(eddy_replay_read_fn *read, void *context, eddy_bytes *out, char *message,
                     size_t size) {
    for (;;) {
        if (!bytes_reserve(out, 1 << 16))
            return eddy_replay_fail(message, size, EDDY_ERROR_OUT_OF_MEMORY,
                               "out of memory reading the replay (%zu bytes so far)", out->size);
        size_t got = 0;
        eddy_status s = read(out->data + out->size, out->capacity - out->size, &got, context);
        if (s != EDDY_OK)
            return eddy_replay_fail(message, size, s, "read failed after %zu bytes (%s)", out->size,
                               eddy_status_name(s));
        if (got == 0) return EDDY_OK;
        if (got > out->capacity - out->size)
            return eddy_replay_fail(message, size, EDDY_ERROR_INVALID_ARGUMENT,
                               "read callback reported more bytes than it was given room for");
        out->size += got;
    }
}

static eddy_status fd_read(void *buffer, size_t capacity, size_t *got, void *context) {
    const int fd = *(const int *)context;
    for (;;) {
        ssize_t n = read(fd, buffer, capacity);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return EDDY_ERROR_IO;
        *got = (size_t)n;
        return EDDY_OK;
    }
}

eddy_status eddy_read_file(const char *path, eddy_bytes *out, char *message, size_t size) {
    int fd = open(path, O_RDONLY | EDDY_O_FLAGS);
    if (fd < 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot open %s: %s", path,
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "%s is a directory", path);
    }
    if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2)
        bytes_reserve(out, (size_t)st.st_size + 1);
    eddy_status s = eddy_read_all(fd_read, &fd, out, message, size);
    close(fd);
    if (s == EDDY_ERROR_IO)
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot read %s: %s", path,
                           strerror(errno));
    return s;
}

eddy_status eddy_file_source_open(const char *path, int *fd, uint64_t *file_size, char *message,
                                  size_t size) {
    *fd = open(path, O_RDONLY | EDDY_O_FLAGS);
    if (*fd < 0)
        return eddy_replay_fail(message, size, EDDY_ERROR_IO, "cannot open %s: %s", path,
                                strerror(errno));
    struct stat st;
    const bool ok = fstat(*fd, &st) == 0;
    if (!ok || S_ISDIR(st.st_mode) || st.st_size < 0) {
        close(*fd);
        *fd = -1;
        return eddy_replay_fail(message, size, EDDY_ERROR_IO,
                                ok ? "%s is a directory" : "cannot stat %s", path);
    }
    *file_size = (uint64_t)st.st_size;
    return EDDY_OK;
}

bool eddy_file_read_at(int fd, uint64_t offset, void *buffer, size_t n) {
    size_t done = 0;
    while (done < n) {
        const ssize_t got = pread(fd, (uint8_t *)buffer + done, n - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += (size_t)got;
    }
    return true;
}

void eddy_file_source_close(int fd) {
    if (fd >= 0) close(fd);
}

void *eddy_replay_zstd_alloc(void *opaque, size_t size) {
    (void)opaque;
    return eddy_alloc(size);
}

void eddy_replay_zstd_free(void *opaque, void *address) {
    (void)opaque;
    eddy_free(address);
}

#ifndef _WIN32
int eddy_replay_replace(const char *temp, const char *path) { return rename(temp, path); }

double eddy_replay_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
#endif
