/*
 * file.h - the one writer for every file tcgen writes (emitted C, Fortran
 * modules, wisdom, the machine profile, plots), and the advisory lock that
 * lets several processes read-merge-write one file.
 *
 * A path is written the way the shell's `>` would treat it, without ever
 * leaving half a file behind where that can be avoided (docs/decisions.md,
 * "Writing files"):
 *   - a device, a pipe, a terminal, /dev/stdout or /dev/fd/N (anything that
 *     exists and is not a regular file, or is reached through /proc) is
 *     opened and written in place, never renamed over;
 *   - a symbolic link is followed to its target, and the target is
 *     replaced, the link kept;
 *   - a regular file (or a new name) is written to a temporary beside it,
 *     created with O_EXCL under an unpredictable name, flushed (fsync) and
 *     renamed over it; an existing file keeps its mode and its owner;
 *   - where no temporary can be made (the directory is not writable) or
 *     the owner could not be kept, an existing regular file is rewritten
 *     in place under an exclusive lock, its space reserved first.
 * On failure (TC_ERESOURCE, a message naming the file and the reason) the
 * temporary is removed and a replaced file is as it was.
 */
#ifndef TC_RUNTIME_FILE_H
#define TC_RUNTIME_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "tcgen.h"

/* An output being written: write to fd, then commit or abort. */
typedef struct tc_rt_file {
    int fd;
    int in_place;   /* fd is the path itself (1), a regular file rewritten (2) */
    char *target;   /* the name written, links followed */
    char *tmp;      /* the temporary renamed over target at commit, or NULL */
} tc_rt_file;

/* Opens path for writing as above. On failure f->fd is -1 and nothing
 * needs releasing. */
tc_status tc_rt_file_open(const char *path, tc_rt_file *f, tc_error *err);

/* Finishes what was written to f->fd: renames the temporary over the
 * target, or truncates a file rewritten in place to what was written.
 * Releases f either way; on failure the target is untouched where it was
 * replaced through a temporary. */
tc_status tc_rt_file_commit(tc_rt_file *f, tc_error *err);

/* Drops what was written to a temporary (a path written in place keeps
 * what reached it) and releases f. */
void tc_rt_file_abort(tc_rt_file *f);

/* Writes `len` bytes of `text` to path: open, write, commit. */
tc_status tc_rt_file_replace(const char *path, const char *text, size_t len, tc_error *err);

/* Opens path for reading when it is a regular file (a link to one
 * included), without waiting on a FIFO: NULL with errno set, EINVAL when
 * it exists but is no regular file. What tcgen reads back (wisdom, the
 * profile) is read through this. */
FILE *tc_rt_file_open_regular(const char *path);

/*
 * Takes an exclusive advisory lock (flock) for the file at path (its
 * links followed): on "TARGET.lock", created if missing, or on the
 * target's directory where no lock file can be made or opened there. The
 * lock file is opened with O_NOFOLLOW and must be a plain file with one
 * link: a symbolic link or anything else planted there is refused, and
 * nothing is created through it. Waits for other holders. Returns a
 * descriptor for tc_rt_file_unlock, or -1 with *err set (TC_ERESOURCE).
 */
int tc_rt_file_lock(const char *path, tc_error *err);

/* Releases what tc_rt_file_lock returned; -1 is a no-op. */
void tc_rt_file_unlock(int fd);

#endif
