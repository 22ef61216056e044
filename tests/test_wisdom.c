/*
 * test_wisdom.c - the wisdom file under stress (planner/wisdom.c): export
 * merges into what the file holds, 8 processes writing one file lose
 * nothing, a reader never sees half a file, a failed write leaves the
 * previous file as it was, damage such as a NUL byte is refused and
 * located, 20 000 entries import with later duplicates replacing earlier
 * ones, every wisdom entry point takes err == NULL, and wisdom exported as
 * text by one process is imported by another.
 *
 * Entries are made directly (tc_wisdom_add) for a contraction whose
 * algorithms the test enumerates, so nothing here plans or benchmarks.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "generator/generator.h"
#include "parser/parser.h"
#include "planner/wisdom.h"
#include "tcgen.h"
#include "tests/helpers_data.h"

#define HEADER "# tcgen wisdom 1\n"
#define TEXT "C[a,b,c] = A[a,i] * B[i,b,c]"
#define NPROC 8
#define PER_PROC 5

static char tmpdir[200];
static char alg[2][128]; /* two algorithms of TEXT */

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tcgen-wisdom-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        tmpdir[0] = '\0';
        return -1;
    }
    tc_contraction c;
    tc_error err;
    tc_algorithm_set *set = NULL;
    if (tc_parse(TEXT, &c, &err) != TC_OK ||
        tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &err) != TC_OK || set->count < 2) {
        tc_alg_set_free(set);
        return -1;
    }
    snprintf(alg[0], sizeof alg[0], "%s", set->alg[0]->name);
    snprintf(alg[1], sizeof alg[1], "%s", set->alg[set->count - 1]->name);
    tc_alg_set_free(set);
    tc_wisdom_forget();
    return 0;
}

/* Removes every file of tmpdir, then tmpdir. */
static int suite_clean(void)
{
    tc_wisdom_forget();
    if (!tmpdir[0])
        return 0;
    DIR *d = opendir(tmpdir);
    if (d) {
        struct dirent *e;
        char path[600];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    return rmdir(tmpdir) == 0 ? 0 : -1;
}

static void tmp_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* The entry for TEXT with sizes a, b (c=3, i=5) on `machine`. */
static void make_entry(tc_wisdom_entry *e, int a, int b, const char *algorithm,
                       const char *machine)
{
    memset(e, 0, sizeof *e);
    snprintf(e->contraction, sizeof e->contraction, "%s", TEXT);
    snprintf(e->sizes, sizeof e->sizes, "a=%d,b=%d,c=3,i=5", a, b);
    snprintf(e->layout, sizeof e->layout, "col");
    snprintf(e->blas, sizeof e->blas, "openblas");
    e->threads = 1;
    snprintf(e->machine, sizeof e->machine, "%s", machine);
    snprintf(e->algorithm, sizeof e->algorithm, "%s", algorithm);
    e->seconds = 1e-3 * a + 1e-6 * b;
    snprintf(e->origin, sizeof e->origin, "estimate");
}

/* The algorithm remembered for sizes a, b on machine, or "" when none. */
static const char *remembered(int a, int b, const char *machine)
{
    static tc_wisdom_entry e;
    make_entry(&e, a, b, "", machine);
    return tc_wisdom_lookup(&e) ? e.algorithm : "";
}

static int write_bytes(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int bad = fwrite(text, 1, len, f) != len;
    return fclose(f) != 0 || bad ? -1 : 0;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *s = tc_test_slurp(f);
    fclose(f);
    return s;
}

/* Entry lines (not comments) in text. */
static int count_entries(const char *text)
{
    int n = 0;
    for (const char *p = text; p && *p;) {
        if (*p != '#' && *p != '\n')
            n++;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return n;
}

/* ---- 1. export merges ------------------------------------------------- */

static void test_export_merges(void)
{
    char path[400];
    tmp_path("merge.wisdom", path, sizeof path);
    unlink(path);
    tc_error err;
    tc_wisdom_entry e;

    /* The file: (1,1) decided alg[0], and an entry of another machine. */
    tc_wisdom_forget();
    make_entry(&e, 1, 1, alg[0], "m1");
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    make_entry(&e, 2, 2, alg[0], "other machine");
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);

    /* Another process's memory: (1,1) decided alg[1], and (3,3). */
    tc_wisdom_forget();
    make_entry(&e, 1, 1, alg[1], "m1");
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    make_entry(&e, 3, 3, alg[0], "m1");
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 2); /* export does not import */

    /* The file has all three keys; memory won on (1,1). */
    tc_wisdom_forget();
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 3);
    CU_ASSERT_STRING_EQUAL(remembered(1, 1, "m1"), alg[1]);
    CU_ASSERT_STRING_EQUAL(remembered(2, 2, "other machine"), alg[0]);
    CU_ASSERT_STRING_EQUAL(remembered(3, 3, "m1"), alg[0]);
    char *text = read_text(path);
    CU_ASSERT_EQUAL(count_entries(text), 3);
    free(text);

    /* A file that is not wisdom is not overwritten. */
    const char *other = "not wisdom\n";
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, other, strlen(other)), 0);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(tc_wisdom_export_file(path, &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "left as it was"));
    text = read_text(path);
    CU_ASSERT_STRING_EQUAL(text, other);
    free(text);
    tc_wisdom_forget();
}

/* ---- 2. concurrent writers and readers -------------------------------- */

/* A child: adds its PER_PROC entries one at a time, exporting after each. */
static void writer(const char *path, int id)
{
    tc_wisdom_forget();
    for (int k = 0; k < PER_PROC; k++) {
        tc_wisdom_entry e;
        tc_error err;
        make_entry(&e, 100 + id, 1 + k, alg[k % 2], "m1");
        if (tc_wisdom_add(&e, &err) != TC_OK || tc_wisdom_export_file(path, &err) != TC_OK) {
            fprintf(stderr, "\n  writer %d: %s\n", id, err.message);
            _exit(1);
        }
    }
    _exit(0);
}

static void test_concurrent_writers(void)
{
    char path[400];
    tmp_path("shared.wisdom", path, sizeof path);
    unlink(path);
    pid_t pid[NPROC];
    for (int i = 0; i < NPROC; i++) {
        fflush(NULL);
        pid[i] = fork();
        CU_ASSERT_FATAL(pid[i] >= 0);
        if (pid[i] == 0)
            writer(path, i);
    }
    int failed = 0;
    for (int i = 0; i < NPROC; i++) {
        int st;
        failed += waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) || WEXITSTATUS(st);
    }
    CU_ASSERT_EQUAL(failed, 0);

    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), NPROC * PER_PROC);
    int missing = 0;
    for (int i = 0; i < NPROC; i++)
        for (int k = 0; k < PER_PROC; k++)
            missing += strcmp(remembered(100 + i, 1 + k, "m1"), alg[k % 2]) != 0;
    CU_ASSERT_EQUAL(missing, 0);
    tc_wisdom_forget();
}

/* One process replaces the file 200 times while this one reads it: every
 * import sees a whole file, the old or the new. */
static void test_reader_during_writes(void)
{
    char path[400];
    tmp_path("busy.wisdom", path, sizeof path);
    unlink(path);
    tc_error err;
    tc_wisdom_forget();
    for (int k = 0; k < 50; k++) {
        tc_wisdom_entry e;
        make_entry(&e, 1 + k, 7, alg[k % 2], "m1");
        CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    }
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        for (int k = 0; k < 200; k++)
            if (tc_wisdom_export_file(path, NULL) != TC_OK)
                _exit(1);
        _exit(0);
    }
    int reads = 0, bad = 0, st = 0;
    char first_error[TC_ERROR_MESSAGE_MAX] = "";
    for (;;) {
        int done = waitpid(pid, &st, WNOHANG) == pid;
        tc_wisdom_forget();
        if (tc_wisdom_import_file(path, &err) != TC_OK || tc_wisdom_count() != 50) {
            if (!bad++)
                snprintf(first_error, sizeof first_error, "%s", err.message);
        }
        reads++;
        if (done)
            break;
    }
    if (bad)
        fprintf(stderr, "\n  %d of %d imports failed, first: %s\n", bad, reads, first_error);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    tc_wisdom_forget();
}

/* ---- 3. a failed write ------------------------------------------------ */

/* The names in tmpdir that start with prefix. */
static int files_starting(const char *prefix)
{
    int n = 0;
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

static void test_write_failure(void)
{
    char path[400];
    tmp_path("limit.wisdom", path, sizeof path);
    unlink(path);
    tc_error err;
    tc_wisdom_forget();
    for (int k = 0; k < 60; k++) {
        tc_wisdom_entry e;
        make_entry(&e, 1 + k, 9, alg[0], "m1");
        CU_ASSERT_EQUAL_FATAL(tc_wisdom_add(&e, &err), TC_OK);
    }
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    char *before = read_text(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    CU_ASSERT_FATAL(strlen(before) > 2048);

    /* A child with a 1 KiB file size limit and more to write: the export
     * fails (EFBIG) and says so. */
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {1024, 1024};
        tc_wisdom_entry e;
        make_entry(&e, 99, 99, alg[1], "m1");
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0 || tc_wisdom_add(&e, NULL) != TC_OK)
            _exit(3);
        tc_error cerr;
        tc_status s = tc_wisdom_export_file(path, &cerr);
        _exit(s == TC_ERESOURCE && strstr(cerr.message, "limit.wisdom") ? 0 : 1);
    }
    int st;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &st, 0), pid);
    CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *after = read_text(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(after);
    CU_ASSERT_STRING_EQUAL(after, before);
    CU_ASSERT_EQUAL(files_starting("limit.wisdom.tmp"), 0);
    free(before);
    free(after);

    /* A directory that does not exist: an error, nothing written. */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no-such-dir/x.wisdom", tmpdir);
    memset(&err, 0, sizeof err);
    CU_ASSERT_EQUAL(tc_wisdom_export_file(bad, &err), TC_ERESOURCE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no-such-dir"));
    tc_wisdom_forget();
}

/* ---- 4. damage -------------------------------------------------------- */

/* The line of one valid entry (no newline). */
static void valid_line(char *buf, size_t n)
{
    snprintf(buf, n, "%s\ta=4,b=4,c=3,i=5\tcol\topenblas\t1\tm1\t%s\t0.001\testimate", TEXT,
             alg[0]);
}

/* Imports len bytes of text; expects TC_EINPUT at line:column, nothing
 * loaded. */
static void expect_refused(const char *what, const char *text, size_t len, int line, int column)
{
    char path[400];
    tmp_path("damaged.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, text, len), 0);
    tc_wisdom_forget();
    tc_error err;
    memset(&err, 0, sizeof err);
    tc_status s = tc_wisdom_import_file(path, &err);
    CU_ASSERT_EQUAL(s, TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, line);
    CU_ASSERT_EQUAL(err.column, column);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 0);
    if (s != TC_EINPUT || err.line != line || err.column != column)
        fprintf(stderr, "\n  %s: status %d at %d:%d (want %d:%d): %s\n", what, (int)s, err.line,
                err.column, line, column, err.message);
}

static void test_nul_and_control_bytes(void)
{
    char line[1024], text[2048];
    valid_line(line, sizeof line);
    size_t n = strlen(line);

    /* Positive control. */
    int len = snprintf(text, sizeof text, HEADER "%s\n", line);
    char path[400];
    tmp_path("damaged.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, text, (size_t)len), 0);
    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);

    /* A NUL after the origin ("estimate\0junk"): the line looked whole to
     * strlen, the rest dropped. */
    len = snprintf(text, sizeof text, HEADER "%s#junk\n", line);
    text[strlen(HEADER) + n] = '\0';
    expect_refused("NUL after the origin", text, (size_t)len, 2, (int)n + 1);

    /* A NUL inside the machine field. */
    len = snprintf(text, sizeof text, HEADER "%s\n", line);
    size_t at = (size_t)(strstr(text, "\tm1\t") - text) + 2;
    text[at] = '\0';
    expect_refused("NUL in the machine", text, (size_t)len, 2, (int)(at - strlen(HEADER)) + 1);

    /* A NUL on the third line, after a comment. */
    len = snprintf(text, sizeof text, HEADER "# note\n%s\n", line);
    at = strlen(HEADER) + strlen("# note\n") + 5;
    text[at] = '\0';
    expect_refused("NUL on line 3", text, (size_t)len, 3, 6);

    /* Other control bytes, and a carriage return inside a line. */
    len = snprintf(text, sizeof text, HEADER "%s\n", line);
    text[strlen(HEADER) + 3] = '\x01';
    expect_refused("0x01", text, (size_t)len, 2, 4);
    len = snprintf(text, sizeof text, HEADER "%s\n", line);
    text[strlen(HEADER) + 3] = '\r';
    expect_refused("CR inside", text, (size_t)len, 2, 4);
    tc_wisdom_forget();
}

/* Layouts: a tile's strides after col are read (and must be a tile's);
 * anything else is refused at the layout's column. */
static void test_layouts(void)
{
    static const char *const refused[] = {
        "diag", "row;C=1,4,16", "col;C=1,4", "col;C=1,4,16;D=1", "col;C=1,3,16",
        "col;C=1,4,16;A=2,9", "col;C=1,4,16x"};
    char text[2048], path[400];
    size_t col = strlen(TEXT) + strlen("\ta=4,b=4,c=3,i=5\t") + 1;
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        int len = snprintf(text, sizeof text,
                           HEADER "%s\ta=4,b=4,c=3,i=5\t%s\topenblas\t1\tm1\t%s\t0.001\testimate\n",
                           TEXT, refused[k], alg[0]);
        expect_refused(refused[k], text, (size_t)len, 2, (int)col);
    }
    int len = snprintf(text, sizeof text,
                       HEADER "%s\ta=4,b=4,c=3,i=5\tcol;C=1,5,20;A=1,6;B=1,7,30\topenblas\t1\tm1"
                              "\t%s\t0.001\testimate\n",
                       TEXT, alg[0]);
    tmp_path("tile.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, text, (size_t)len), 0);
    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 1);
    tc_wisdom_forget();
}

/* ---- 5. many entries -------------------------------------------------- */

#define MANY 20000

static void test_many_entries(void)
{
    size_t cap = (size_t)(MANY + 200) * 200;
    char *text = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t len = (size_t)snprintf(text, cap, HEADER);
    for (int k = 0; k < MANY; k++)
        len += (size_t)snprintf(text + len, cap - len,
                                "%s\ta=%d,b=%d,c=3,i=5\tcol\topenblas\t1\tm1\t%s\t%g\testimate\n",
                                TEXT, 1 + k % 200, 1 + k / 200, alg[0], 1e-6 * (k + 1));
    /* 100 duplicates later in the file: their decisions replace the first. */
    for (int k = 0; k < 100; k++)
        len += (size_t)snprintf(text + len, cap - len,
                                "%s\ta=%d,b=%d,c=3,i=5\tcol\topenblas\t1\tm1\t%s\t0.5\tmeasure\n",
                                TEXT, 1 + k, 1 + k, alg[1]);
    char path[400];
    tmp_path("many.wisdom", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, text, len), 0);
    free(text);

    tc_wisdom_forget();
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), MANY);
    CU_ASSERT_STRING_EQUAL(remembered(1, 1, "m1"), alg[1]);
    CU_ASSERT_STRING_EQUAL(remembered(100, 100, "m1"), alg[1]);
    CU_ASSERT_STRING_EQUAL(remembered(101, 1, "m1"), alg[0]);
    CU_ASSERT_STRING_EQUAL(remembered(200, MANY / 200, "m1"), alg[0]);
    CU_ASSERT_STRING_EQUAL(remembered(200, MANY / 200 + 1, "m1"), "");

    /* Importing it again changes nothing; exported, it has every entry. */
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_import_file(path, &err), TC_OK);
    CU_ASSERT_EQUAL(tc_wisdom_count(), MANY);
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(tc_wisdom_export_file(path, &err), TC_OK);
    char *out = read_text(path);
    CU_ASSERT_EQUAL(count_entries(out), MANY);
    free(out);
    tc_wisdom_forget();
}

/* ---- 6. err == NULL --------------------------------------------------- */

static void test_null_err(void)
{
    char path[400], text[2048], line[1024];
    tmp_path("null.wisdom", path, sizeof path);
    valid_line(line, sizeof line);
    int len = snprintf(text, sizeof text, HEADER "%s\tbad\n", line);
    CU_ASSERT_EQUAL_FATAL(write_bytes(path, text, (size_t)len), 0);
    tc_wisdom_forget();
    CU_ASSERT_EQUAL(tc_wisdom_import_file(path, NULL), TC_EINPUT);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(NULL, NULL), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_wisdom_export_file(NULL, NULL), TC_EUSAGE);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/none/x.wisdom", tmpdir);
    CU_ASSERT_EQUAL(tc_wisdom_import_file(missing, NULL), TC_ERESOURCE);
    CU_ASSERT_EQUAL(tc_wisdom_export_file(missing, NULL), TC_ERESOURCE);
    /* Exporting onto the damaged file: refused, the file left alone. */
    CU_ASSERT_EQUAL(tc_wisdom_export_file(path, NULL), TC_EINPUT);
    CU_ASSERT_EQUAL(tc_wisdom_import_string(text, NULL), TC_EINPUT);
    CU_ASSERT_EQUAL(tc_wisdom_import_string(NULL, NULL), TC_EUSAGE);
    char *empty = tc_wisdom_export_string(NULL);
    CU_ASSERT_PTR_NOT_NULL(empty);
    CU_ASSERT_EQUAL(count_entries(empty), 0);
    free(empty);
    char *after = read_text(path);
    CU_ASSERT_STRING_EQUAL(after, text);
    free(after);
    /* An entry that would break the file's lines. */
    tc_wisdom_entry e;
    make_entry(&e, 1, 1, alg[0], "tab\there");
    CU_ASSERT_EQUAL(tc_wisdom_add(&e, NULL), TC_EINPUT);
    CU_ASSERT_EQUAL(tc_wisdom_count(), 0);
    tc_wisdom_forget();
}

/* ---- wisdom as text ----------------------------------------------------- */

/* A string exported by one process (a child, as another MPI rank would)
 * and imported by this one gives the same decisions; damage is located. */
static void test_string_round_trip(void)
{
    tc_wisdom_forget();
    int fds[2];
    CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        tc_wisdom_entry e;
        make_entry(&e, 7, 9, alg[1], "rank0");
        char *text = tc_wisdom_add(&e, NULL) == TC_OK ? tc_wisdom_export_string(NULL) : NULL;
        size_t len = text ? strlen(text) : 0;
        int bad = !text || write(fds[1], text, len) != (ssize_t)len;
        _exit(bad);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    char *text = tc_test_slurp(in);
    fclose(in);
    int status;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(strncmp(text, HEADER, strlen(HEADER)), 0);
    CU_ASSERT_STRING_EQUAL(remembered(7, 9, "rank0"), "");
    tc_error err;
    CU_ASSERT_EQUAL(tc_wisdom_import_string(text, &err), TC_OK);
    CU_ASSERT_STRING_EQUAL(remembered(7, 9, "rank0"), alg[1]);
    /* this process's export holds the same entry */
    char *again = tc_wisdom_export_string(&err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_EQUAL(count_entries(again), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(again, alg[1]));
    free(again);
    /* damage: a NUL cannot be in a C string, a bad header or field can */
    tc_wisdom_forget();
    CU_ASSERT_EQUAL(tc_wisdom_import_string("", &err), TC_EINPUT);
    CU_ASSERT_EQUAL(tc_wisdom_import_string("# not wisdom\n", &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, 1);
    char *bad = malloc(strlen(text) + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
    sprintf(bad, "%sC[a] = A[a,i] * B[i]\tx=1\tcol\n", text);
    CU_ASSERT_EQUAL(tc_wisdom_import_string(bad, &err), TC_EINPUT);
    CU_ASSERT_EQUAL(err.line, count_entries(text) + 3); /* header, column names, entries */
    CU_ASSERT_STRING_EQUAL(remembered(7, 9, "rank0"), ""); /* nothing taken */
    CU_ASSERT_EQUAL(tc_wisdom_import_string(NULL, &err), TC_EUSAGE);
    free(bad);
    free(text);
    tc_wisdom_forget();
}

int tc_suite_wisdom(void)
{
    CU_pSuite s = CU_add_suite("wisdom", suite_init, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "export merges into the file, memory wins", test_export_merges) ||
        !CU_add_test(s, "8 processes write one file, nothing lost", test_concurrent_writers) ||
        !CU_add_test(s, "import while another process writes", test_reader_during_writes) ||
        !CU_add_test(s, "a failed write leaves the file intact", test_write_failure) ||
        !CU_add_test(s, "NUL and control bytes refused, located",
                     test_nul_and_control_bytes) ||
        !CU_add_test(s, "layouts with a tile's strides read, others refused", test_layouts) ||
        !CU_add_test(s, "20000 entries, duplicates replace", test_many_entries) ||
        !CU_add_test(s, "err == NULL everywhere", test_null_err) ||
        !CU_add_test(s, "wisdom as text between processes", test_string_round_trip))
        return -1;
    return 0;
}
