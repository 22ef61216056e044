/*
 * test_file.c - the one file writer (runtime/file.h): an aborted write
 * leaves the old file and no temporary; a commit replaces a regular file
 * and keeps its mode; a link is followed and kept; a lock file planted as
 * a link is refused without creating its target. (tests/files_test.sh runs
 * the same through the command, with devices, FIFOs and another user, who
 * takes the lock on the directory.)
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/file.h"

static char dir[64];

static int setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tcgen-file-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t len = fread(buf, 1, n - 1, f);
    buf[len] = '\0';
    fclose(f);
}

static int entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_replace_and_abort(void)
{
    char p[128], buf[64];
    path_of(p, sizeof p, "out.c");
    CU_ASSERT_EQUAL(tc_rt_file_replace(p, "first\n", 6, NULL), TC_OK);
    chmod(p, 0640);
    tc_rt_file f;
    CU_ASSERT_EQUAL_FATAL(tc_rt_file_open(p, &f, NULL), TC_OK);
    CU_ASSERT_EQUAL(write(f.fd, "half", 4), 4);
    tc_rt_file_abort(&f);
    slurp(p, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "first\n");
    CU_ASSERT_EQUAL(entries(), 1); /* the temporary is gone */
    CU_ASSERT_EQUAL(tc_rt_file_replace(p, "second\n", 7, NULL), TC_OK);
    slurp(p, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "second\n");
    struct stat st;
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
    CU_ASSERT_EQUAL(entries(), 1);
    unlink(p);
}

static void test_link_followed(void)
{
    char target[128], link[128], buf[64], to[128];
    path_of(target, sizeof target, "target");
    path_of(link, sizeof link, "link");
    CU_ASSERT_EQUAL_FATAL(symlink("target", link), 0);
    CU_ASSERT_EQUAL(tc_rt_file_replace(link, "via link\n", 9, NULL), TC_OK);
    slurp(target, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "via link\n");
    ssize_t n = readlink(link, to, sizeof to - 1);
    CU_ASSERT_EQUAL(n, 6);
    struct stat st;
    CU_ASSERT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT_TRUE(S_ISLNK(st.st_mode));
    unlink(link);
    unlink(target);
}

static void test_directory_refused(void)
{
    tc_error err;
    CU_ASSERT_EQUAL(tc_rt_file_replace(dir, "x", 1, &err), TC_ERESOURCE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "is a directory"));
}

static void test_lock(void)
{
    char w[128], lock[128], victim[128];
    path_of(w, sizeof w, "w.wisdom");
    path_of(lock, sizeof lock, "w.wisdom.lock");
    path_of(victim, sizeof victim, "victim");
    tc_error err;
    int fd = tc_rt_file_lock(w, &err);
    CU_ASSERT_TRUE(fd >= 0);
    tc_rt_file_unlock(fd);
    struct stat st;
    CU_ASSERT_EQUAL(lstat(lock, &st), 0);
    CU_ASSERT_TRUE(S_ISREG(st.st_mode));
    unlink(lock);
    /* a link planted at the lock's name: refused, nothing made at its target */
    CU_ASSERT_EQUAL_FATAL(symlink(victim, lock), 0);
    CU_ASSERT_EQUAL(tc_rt_file_lock(w, &err), -1);
    CU_ASSERT_EQUAL(err.code, TC_ERESOURCE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "symbolic link"));
    CU_ASSERT_NOT_EQUAL(lstat(victim, &st), 0);
    unlink(lock);
    /* no lock file can be made where a regular file stands for the
     * directory: the error names the path */
    char plain[128], inside[160];
    path_of(plain, sizeof plain, "plain");
    CU_ASSERT_EQUAL(tc_rt_file_replace(plain, "", 0, NULL), TC_OK);
    snprintf(inside, sizeof inside, "%s/w.wisdom", plain);
    CU_ASSERT_EQUAL(tc_rt_file_lock(inside, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, plain));
    unlink(plain);
}

int tc_suite_file(void)
{
    CU_pSuite s = CU_add_suite("file", setup, teardown);
    if (!s || !CU_add_test(s, "replace keeps the mode; abort keeps the old file",
                           test_replace_and_abort) ||
        !CU_add_test(s, "a link is followed and kept", test_link_followed) ||
        !CU_add_test(s, "a directory is refused", test_directory_refused) ||
        !CU_add_test(s, "lock: a planted link refused", test_lock))
        return 1;
    return 0;
}
