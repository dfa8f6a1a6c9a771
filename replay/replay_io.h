/* SPDX-License-Identifier: MIT */
/* Internal to replay/: file and memory sinks, whole-file sources. */
#ifndef EDDY_REPLAY_IO_H
#define EDDY_REPLAY_IO_H

#include "replay_format.h"

typedef struct file_sink {
    int fd;
    bool sync; /* fsync after every record */
    int error; /* errno of the last failed write, fsync or close; 0 if none */
} file_sink;

eddy_status eddy_file_sink_open(file_sink *sink, const char *path, bool sync, char *message,
                           size_t size);
/* Open a new temporary file beside path (same directory, so a rename can
 * put it in place), its name in temp (temp_size bytes). */
eddy_status eddy_file_sink_open_temp(file_sink *sink, const char *path, char *temp, size_t temp_size,
                                     bool sync, char *message, size_t size);
/* "write failed" and the like with errno's text when the sink has one. */
const char *eddy_file_sink_error_text(const file_sink *sink);
eddy_replay_write_fn eddy_file_sink_write;
eddy_replay_flush_fn eddy_file_sink_flush;
eddy_status eddy_file_sink_close(file_sink *sink);

/* context: the caller's eddy_bytes. */
eddy_replay_write_fn eddy_memory_sink_write;

/* Read everything a callback (or a file) gives into out. */
eddy_status eddy_read_all(eddy_replay_read_fn *read, void *context, eddy_bytes *out, char *message,
                     size_t size);
eddy_status eddy_read_file(const char *path, eddy_bytes *out, char *message, size_t size);

/* A file read in place (the lazy reader): open for reading and get its size;
 * read n bytes at offset (false if they cannot all be read); close. */
eddy_status eddy_file_source_open(const char *path, int *fd, uint64_t *file_size, char *message,
                                  size_t size);
bool eddy_file_read_at(int fd, uint64_t offset, void *buffer, size_t n);
void eddy_file_source_close(int fd);

/* zstd's custom memory functions (ZSTD_customMem): zstd's contexts get their
 * memory through eddy's allocator hook (include/eddy/base.h) too. */
void *eddy_replay_zstd_alloc(void *opaque, size_t size);
/* rename(temp, path) for a file still open for writing (0: done, else errno
 * set): Windows renames an open file only when it was opened with
 * FILE_SHARE_DELETE, as replay_io_win32.h opens files. */
int eddy_replay_replace(const char *temp, const char *path);
/* A monotonic clock in milliseconds, for the recorder's statistics. */
double eddy_replay_now_ms(void);
void eddy_replay_zstd_free(void *opaque, void *address);

#endif
