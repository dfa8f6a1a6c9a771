/* SPDX-License-Identifier: MIT */
/* The POSIX file calls of replay_io.c on Windows (MinGW's io.h): files in
 * binary mode, _commit for fsync, and pread as a seek and a read (a file
 * source is read by one thread at a time: eddy_player's calls do not
 * overlap). open() goes through CreateFileA sharing read, write and delete,
 * so that the recorder can rename its temporary file while it is open
 * (eddy_replay_replace, MoveFileExA). Included by replay_io.c alone, under
 * _WIN32. */
#ifndef EDDY_REPLAY_IO_WIN32_H
#define EDDY_REPLAY_IO_WIN32_H

#include <io.h>
#include <process.h>
#include <windows.h>

#define EDDY_O_FLAGS O_BINARY /* never text mode: it would rewrite \n */
#define fsync _commit

static ssize_t pread(int fd, void *buffer, size_t n, off_t offset) {
    if (_lseeki64(fd, (long long)offset, SEEK_SET) < 0) return -1;
    const unsigned chunk = n > 0x40000000u ? 0x40000000u : (unsigned)n;
    return _read(fd, buffer, chunk);
}

static int win32_open(const char *path, int flags, ...) {
    const int access = flags & (O_RDONLY | O_WRONLY | O_RDWR);
    const DWORD rights = access == O_RDONLY ? GENERIC_READ
                         : access == O_WRONLY ? GENERIC_WRITE : GENERIC_READ | GENERIC_WRITE;
    const DWORD how = (flags & O_CREAT) == 0 ? OPEN_EXISTING
                      : (flags & O_EXCL) != 0 ? CREATE_NEW
                      : (flags & O_TRUNC) != 0 ? CREATE_ALWAYS : OPEN_ALWAYS;
    HANDLE h = CreateFileA(path, rights, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, how, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        const DWORD e = GetLastError();
        errno = e == ERROR_FILE_EXISTS || e == ERROR_ALREADY_EXISTS ? EEXIST
                : e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? ENOENT : EACCES;
        return -1;
    }
    const int fd = _open_osfhandle((intptr_t)h, access | O_BINARY);
    if (fd < 0) CloseHandle(h);
    return fd;
}
#define open win32_open

int eddy_replay_replace(const char *temp, const char *path) {
    if (MoveFileExA(temp, path, MOVEFILE_REPLACE_EXISTING)) return 0;
    errno = EACCES;
    return -1;
}

double eddy_replay_now_ms(void) {
    LARGE_INTEGER now, hz;
    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&hz);
    return (double)now.QuadPart * 1e3 / (double)hz.QuadPart;
}

#endif
