/* file.c - whole-file replacement by rename, and flock-based merging (file.h). */
#include "runtime/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ast/error.h"

static atomic_uint serial;

/* "PATH" + suffix in a new buffer (NULL when out of memory). */
static char *with_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", path, suffix);
    return s;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

tc_status tc_rt_file_replace(const char *path, const char *text, size_t len, tc_error *err)
{
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".tmp.%ld.%u", (long)getpid(), atomic_fetch_add(&serial, 1));
    char *tmp = with_suffix(path, suffix);
    if (!tmp)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory writing '%s'", path);
    /* O_EXCL: never follow or reuse something already there. 0666 lets the
     * umask decide, as for any file a program creates. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        tc_status s = tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s", path,
                                   strerror(errno));
        free(tmp);
        return s;
    }
    struct stat st;
    int ok = write_all(fd, text, len) == 0;
    int saved = errno;
    if (ok && stat(path, &st) == 0)
        (void)fchmod(fd, st.st_mode & 07777);
    if (ok && fsync(fd) != 0 && errno != EINVAL) /* EINVAL: e.g. a pipe-backed fs */
        ok = 0, saved = errno;
    if (close(fd) != 0 && ok)
        ok = 0, saved = errno;
    if (ok && rename(tmp, path) != 0)
        ok = 0, saved = errno;
    if (!ok) {
        unlink(tmp);
        free(tmp);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s (the previous file, "
                            "if any, is unchanged)", path, strerror(saved));
    }
    free(tmp);
    return TC_OK;
}

int tc_rt_file_lock(const char *path, tc_error *err)
{
    char *name = with_suffix(path, ".lock");
    if (!name) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory locking '%s'", path);
        return -1;
    }
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot create lock file '%s': %s", name,
                     strerror(errno));
        free(name);
        return -1;
    }
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot lock '%s': %s", name, strerror(errno));
        close(fd);
        fd = -1;
    }
    free(name);
    return fd;
}

void tc_rt_file_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the last descriptor releases the flock */
}
