/*
 * test_parallel.c - the loop split over threads (runtime/parallel.h): every
 * index once on any number of threads, the pool's workers free to run on
 * any of the process's CPUs, calls made from inside a part or from two
 * threads at once, and a forked child.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/parallel.h"

#define MAX_N 1000

typedef struct visits {
    atomic_int count[MAX_N];
} visits;

static void visit(void *arg, long lo, long hi)
{
    visits *v = arg;
    for (long i = lo; i < hi; i++)
        atomic_fetch_add(&v->count[i], 1);
}

/* 1 when tc_rt_parallel(threads, n) visits each of 0..n-1 once (callable
 * from several threads at once). */
static int once_each(int threads, long n)
{
    visits *v = calloc(1, sizeof *v);
    if (!v)
        return 0;
    tc_rt_parallel(threads, n, visit, v);
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok &= atomic_load(&v->count[i]) == 1;
    free(v);
    return ok;
}

static void test_once_each(void)
{
    static const int threads[] = {1, 2, 3, 5, 8};
    static const long n[] = {0, 1, 2, 7, 100, MAX_N};
    for (int again = 0; again < 2; again++) /* the second time on the pool's workers */
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
            for (size_t k = 0; k < sizeof n / sizeof *n; k++)
                CU_ASSERT(once_each(threads[t], n[k]));
}

/* A worker's part: whether its thread may run on every CPU the process may. */
typedef struct masks {
    cpu_set_t process;
    atomic_int checked, same;
} masks;

static void check_mask(void *arg, long lo, long hi)
{
    masks *m = arg;
    cpu_set_t mine;
    (void)hi;
    if (lo == 0 || sched_getaffinity(0, sizeof mine, &mine) != 0)
        return; /* part 0 is the caller's */
    atomic_fetch_add(&m->checked, 1);
    atomic_fetch_add(&m->same, CPU_EQUAL(&mine, &m->process) ? 1 : 0);
}

static void test_workers_unpinned(void)
{
    static masks m;
    CU_ASSERT_FATAL(sched_getaffinity(0, sizeof m.process, &m.process) == 0);
    for (int threads = 2; threads <= 4; threads++) {
        atomic_store(&m.checked, 0);
        atomic_store(&m.same, 0);
        tc_rt_parallel(threads, threads, check_mask, &m);
        CU_ASSERT_EQUAL(atomic_load(&m.checked), threads - 1);
        CU_ASSERT_EQUAL(atomic_load(&m.same), threads - 1);
    }
}

static atomic_int nested_ok;

static void nested(void *arg, long lo, long hi)
{
    (void)arg;
    for (long i = lo; i < hi; i++)
        atomic_fetch_add(&nested_ok, once_each(2, 50));
}

static void test_nested(void)
{
    atomic_store(&nested_ok, 0);
    tc_rt_parallel(2, 4, nested, NULL);
    CU_ASSERT_EQUAL(atomic_load(&nested_ok), 4);
}

static void *caller(void *arg)
{
    atomic_int *ok = arg;
    for (int k = 0; k < 50; k++)
        atomic_fetch_add(ok, once_each(3, 200));
    return NULL;
}

static void test_two_callers(void)
{
    atomic_int ok = 0;
    pthread_t a, b;
    CU_ASSERT_FATAL(pthread_create(&a, NULL, caller, &ok) == 0);
    CU_ASSERT_FATAL(pthread_create(&b, NULL, caller, &ok) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CU_ASSERT_EQUAL(atomic_load(&ok), 100);
}

/* The child of a fork has none of the parent's workers: it starts its own
 * (an alarm ends it should it wait for the parent's). */
static void test_fork(void)
{
    CU_ASSERT(once_each(2, 100)); /* the pool has a worker */
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        alarm(20);
        _exit(once_each(2, 100) && once_each(3, 100) ? 0 : 1);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int tc_suite_parallel(void)
{
    CU_pSuite s = CU_add_suite("parallel", NULL, NULL);
    return !s || !CU_add_test(s, "every index once, any number of threads", test_once_each) ||
           !CU_add_test(s, "workers may run on any of the process's CPUs",
                        test_workers_unpinned) ||
           !CU_add_test(s, "a call from inside a part", test_nested) ||
           !CU_add_test(s, "two callers at once", test_two_callers) ||
           !CU_add_test(s, "a forked child", test_fork);
}
