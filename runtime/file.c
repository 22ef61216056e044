/* file.c - the one file writer and the advisory lock (file.h). */
#include "runtime/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ast/error.h"

enum { LINKS_MAX = 40, TMP_TRIES = 16 };
enum { IN_PLACE_PATH = 1, IN_PLACE_FILE = 2 };

static char *join(const char *a, size_t alen, const char *b)
{
    size_t n = alen + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*s%s", (int)alen, a, b);
    return s;
}

/* The directory part of path, with its slash ("" for a bare name). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Names under /proc are the kernel's views of open files: a link there
 * (/dev/stdout -> /proc/self/fd/1 -> "pipe:[42]") is no name to replace. */
static int under_proc(const char *path)
{
    return strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0;
}

/* The descriptor a name stands for (/dev/stdout, /dev/fd/N, ...), or -1:
 * such a name is written through the descriptor, as a shell does, so that
 * what the caller redirected (a pipe, a file opened for appending, a file
 * this user could not open) gets the text. */
static int named_descriptor(const char *path)
{
    static const char *const prefix[] = {"/dev/fd/", "/proc/self/fd/"};
    if (strcmp(path, "/dev/stdout") == 0)
        return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0)
        return STDERR_FILENO;
    for (size_t k = 0; k < sizeof prefix / sizeof *prefix; k++) {
        size_t n = strlen(prefix[k]);
        if (strncmp(path, prefix[k], n) == 0 && path[n] >= '0' && path[n] <= '9' &&
            strspn(path + n, "0123456789") == strlen(path + n) && strlen(path + n) < 6)
            return atoi(path + n);
    }
    return -1;
}

/* The link's target, resolved against the link's directory; NULL with
 * errno set when it cannot be read. */
static char *read_link(const char *link, size_t size_hint)
{
    size_t cap = size_hint + 2 > 256 ? size_hint + 2 : 256;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        ssize_t n = readlink(link, buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            if (buf[0] == '/')
                return buf;
            char *full = join(link, dir_len(link), buf);
            free(buf);
            return full;
        }
        free(buf);
        cap *= 2;
    }
}

/* Follows the symbolic links at path to the name they end at, which may
 * not exist yet. *proc is set when the way leads through /proc. */
static char *resolve(const char *path, int *proc, tc_error *err)
{
    char *cur = strdup(path);
    *proc = 0;
    for (int hop = 0; cur; hop++) {
        struct stat st;
        if (under_proc(cur)) {
            *proc = 1;
            return cur;
        }
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur; /* missing: created; unreadable: open says why */
        if (hop == LINKS_MAX) {
            tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': more than %d symbolic "
                         "links", path, LINKS_MAX);
            free(cur);
            return NULL;
        }
        char *next = read_link(cur, (size_t)st.st_size);
        int e = errno;
        free(cur);
        if (!next) {
            tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s", path, strerror(e));
            return NULL;
        }
        cur = next;
    }
    tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory writing '%s'", path);
    return NULL;
}

/* 16 hex digits nobody can guess in advance (the temporary's name). */
static void random_suffix(char out[18])
{
    static atomic_uint serial;
    unsigned long long r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((unsigned long long)ts.tv_nsec << 32) ^ (unsigned long long)ts.tv_sec ^
            ((unsigned long long)getpid() << 16) ^ atomic_fetch_add(&serial, 1);
    }
    snprintf(out, 18, ".%016llx", r);
}

/* A new temporary beside target, mode 0666 less the umask; -1 with errno. */
static int make_temp(const char *target, char **tmp)
{
    for (int k = 0; k < TMP_TRIES; k++) {
        char suffix[18];
        random_suffix(suffix);
        char *name = join(target, strlen(target), ".tmp");
        char *full = name ? join(name, strlen(name), suffix) : NULL;
        free(name);
        if (!full) {
            errno = ENOMEM;
            return -1;
        }
        int fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            *tmp = full;
            return fd;
        }
        int e = errno;
        free(full);
        errno = e;
        if (e != EEXIST)
            return -1;
    }
    return -1;
}

/* The temporary takes the replaced file's mode and owner; 0 when it could. */
static int keep_mode_and_owner(int fd, const struct stat *old)
{
    struct stat now;
    if (fstat(fd, &now) != 0)
        return -1;
    if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
        fchown(fd, old->st_uid, old->st_gid) != 0)
        return -1;
    return fchmod(fd, old->st_mode & 07777);
}

static tc_status fail(tc_rt_file *f, tc_error *err, const char *path, int e)
{
    tc_status s = tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s", path,
                               strerror(e));
    free(f->target);
    f->target = NULL;
    f->fd = -1;
    return s;
}

tc_status tc_rt_file_open(const char *path, tc_rt_file *f, tc_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    int named = named_descriptor(path);
    if (named >= 0) {
        f->in_place = IN_PLACE_PATH;
        f->fd = fcntl(named, F_DUPFD_CLOEXEC, 0);
        return f->fd < 0 ? tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s", path,
                                        strerror(errno)) : TC_OK;
    }
    struct stat st;
    int special = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (special && S_ISDIR(st.st_mode))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': it is a directory",
                            path);
    int proc = 0;
    f->target = special ? strdup(path) : resolve(path, &proc, err);
    if (!f->target)
        return special ? fail(f, err, path, ENOMEM) : TC_ERESOURCE;
    if (special || proc) { /* the shell's `>`: written where it is */
        f->in_place = IN_PLACE_PATH;
        f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
        return f->fd < 0 ? fail(f, err, path, errno) : TC_OK;
    }
    int exists = lstat(f->target, &st) == 0;
    f->fd = make_temp(f->target, &f->tmp);
    int e = errno;
    if (f->fd >= 0 && exists && keep_mode_and_owner(f->fd, &st) != 0) {
        close(f->fd); /* another's file: rewrite it rather than take it over */
        unlink(f->tmp);
        free(f->tmp);
        f->tmp = NULL;
        f->fd = -1;
        e = EPERM;
    }
    if (f->fd >= 0)
        return TC_OK;
    if (!exists || (e != EACCES && e != EPERM))
        return fail(f, err, path, e);
    /* the directory refuses a temporary, the file may still be writable */
    f->in_place = IN_PLACE_FILE;
    f->fd = open(f->target, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (f->fd < 0)
        return fail(f, err, path, errno);
    int r;
    while ((r = flock(f->fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        e = errno;
        close(f->fd);
        return fail(f, err, path, e);
    }
    return TC_OK;
}

static void release(tc_rt_file *f)
{
    if (f->tmp)
        unlink(f->tmp);
    free(f->tmp);
    free(f->target);
    f->tmp = f->target = NULL;
    f->fd = -1;
}

void tc_rt_file_abort(tc_rt_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    release(f);
}

tc_status tc_rt_file_commit(tc_rt_file *f, tc_error *err)
{
    int ok = 1, e = 0;
    if (f->in_place == IN_PLACE_FILE) {
        off_t end = lseek(f->fd, 0, SEEK_CUR);
        if (end < 0 || ftruncate(f->fd, end) != 0)
            ok = 0, e = errno;
    }
    /* EINVAL: a pipe or a device, nothing to flush */
    if (ok && f->in_place != IN_PLACE_PATH && fsync(f->fd) != 0 && errno != EINVAL)
        ok = 0, e = errno;
    if (close(f->fd) != 0 && ok)
        ok = 0, e = errno;
    f->fd = -1;
    if (ok && f->tmp && rename(f->tmp, f->target) != 0)
        ok = 0, e = errno;
    if (ok && f->tmp) {
        free(f->tmp);
        f->tmp = NULL; /* renamed: nothing left to remove */
    }
    tc_status s = TC_OK;
    if (!ok)
        s = tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s%s", f->target,
                         strerror(e), f->tmp ? " (the previous file, if any, is unchanged)" : "");
    release(f);
    return s;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

tc_status tc_rt_file_replace(const char *path, const char *text, size_t len, tc_error *err)
{
    tc_rt_file f;
    tc_status s = tc_rt_file_open(path, &f, err);
    if (s != TC_OK)
        return s;
    int e = 0;
    /* rewriting in place: claim the space first, so a full disk fails
     * before the old text is touched */
    if (f.in_place == IN_PLACE_FILE && len > 0)
        e = posix_fallocate(f.fd, 0, (off_t)len);
    if (e == EINVAL || e == EOPNOTSUPP)
        e = 0;
    if (e == 0 && write_all(f.fd, text, len) != 0)
        e = errno;
    if (e != 0) {
        s = tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write '%s': %s%s", path, strerror(e),
                         f.tmp ? " (the previous file, if any, is unchanged)" : "");
        tc_rt_file_abort(&f);
        return s;
    }
    return tc_rt_file_commit(&f, err);
}

FILE *tc_rt_file_open_regular(const char *path)
{
    /* O_NONBLOCK: a FIFO without a writer must not hang the open */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    FILE *f = fcntl(fd, F_SETFL, 0) == 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

/* ---- the advisory lock ---------------------------------------------------- */

static int lock_fd(int fd, const char *name, tc_error *err)
{
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (r == 0)
        return fd;
    tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot lock '%s': %s", name, strerror(errno));
    close(fd);
    return -1;
}

/* The target's directory, locked: where no lock file can be made. */
static int lock_directory(const char *target, tc_error *err)
{
    size_t n = dir_len(target);
    char *dir = n ? join(target, n, "") : strdup(".");
    if (!dir) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory locking '%s'", target);
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot lock the directory '%s': %s", dir,
                     strerror(errno));
    else
        fd = lock_fd(fd, dir, err);
    free(dir);
    return fd;
}

/* Opens "TARGET.lock" without following a link there: the descriptor, -1
 * when it cannot be made or opened (errno), -2 after refusing it. */
static int open_lock_file(const char *name, tc_error *err)
{
    const int flags = O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
    int fd = open(name, O_RDWR | O_CREAT | flags, 0666);
    if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
        fd = open(name, O_RDONLY | flags); /* flock needs no write access */
    if (fd < 0 && errno == ELOOP) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "refusing the lock file '%s': it is a symbolic "
                     "link (tcgen makes a plain file there; remove the link)", name);
        return -2;
    }
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        tc_error_set(err, TC_ERESOURCE, 0, 0, "refusing the lock file '%s': it is not a "
                     "plain file of its own (tcgen makes one there; remove it)", name);
        close(fd);
        return -2;
    }
    return fd;
}

int tc_rt_file_lock(const char *path, tc_error *err)
{
    int proc;
    char *target = resolve(path, &proc, err);
    if (!target)
        return -1;
    struct stat st;
    int fd;
    if (proc || (stat(target, &st) == 0 && !S_ISREG(st.st_mode))) {
        fd = lock_directory(target, err); /* a device or a pipe: no lock file beside it */
    } else {
        char *name = join(target, strlen(target), ".lock");
        fd = name ? open_lock_file(name, err) : -1;
        if (fd >= 0)
            fd = lock_fd(fd, name, err);
        else if (fd == -1 && name && (errno == EACCES || errno == EPERM || errno == EROFS ||
                                      errno == ENOENT))
            fd = lock_directory(target, err);
        else if (fd == -1)
            tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot create lock file '%s.lock': %s",
                         target, name ? strerror(errno) : "out of memory");
        free(name);
    }
    free(target);
    return fd < 0 ? -1 : fd;
}

void tc_rt_file_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the last descriptor releases the flock */
}
