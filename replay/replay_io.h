/* SPDX-License-Identifier: MIT */
/* Internal to replay/: file and memory sinks, whole-file sources. */
#ifndef EDDY_REPLAY_IO_H
#define EDDY_REPLAY_IO_H

#include "replay_format.h"

typedef struct file_sink {
    int fd;
    bool sync; /* fsync after every record */
} file_sink;

eddy_status eddy_file_sink_open(file_sink *sink, const char *path, bool sync, char *message,
                           size_t size);
eddy_replay_write_fn eddy_file_sink_write;
eddy_replay_flush_fn eddy_file_sink_flush;
eddy_status eddy_file_sink_close(file_sink *sink);

/* context: the caller's eddy_bytes. */
eddy_replay_write_fn eddy_memory_sink_write;

/* Read everything a callback (or a file) gives into out. */
eddy_status eddy_read_all(eddy_replay_read_fn *read, void *context, eddy_bytes *out, char *message,
                     size_t size);
eddy_status eddy_read_file(const char *path, eddy_bytes *out, char *message, size_t size);

#endif
