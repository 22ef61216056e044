/*
 * file.h - files that are replaced whole or not at all, and the advisory
 * lock that lets several processes read-merge-write one file.
 *
 * Used for everything tcgen writes that a later run reads or a build
 * compiles: emitted C (-o), wisdom, the machine profile. A write that fails
 * (disk full, file size limit, a crash half way) leaves the previous file
 * as it was, or no file.
 */
#ifndef TC_RUNTIME_FILE_H
#define TC_RUNTIME_FILE_H

#include <stddef.h>

#include "tcgen.h"

/*
 * Replaces `path` by `len` bytes of `text`: they are written to a new
 * temporary in the same directory, flushed to disk (fsync), and renamed
 * over `path`. A new file gets mode 0666 less the umask; an existing one
 * keeps its mode. On failure (TC_ERESOURCE, message naming the file and
 * the reason) the temporary is removed and `path` is untouched.
 */
tc_status tc_rt_file_replace(const char *path, const char *text, size_t len, tc_error *err);

/*
 * Takes an exclusive advisory lock (flock) on "PATH.lock", created if
 * missing, waiting for other holders. Returns a descriptor for
 * tc_rt_file_unlock, or -1 with *err set (TC_ERESOURCE).
 */
int tc_rt_file_lock(const char *path, tc_error *err);

/* Releases what tc_rt_file_lock returned; -1 is a no-op. */
void tc_rt_file_unlock(int fd);

#endif
