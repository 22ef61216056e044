/*
 * parallel.c - a loop split over POSIX threads (parallel.h), on a pool of
 * workers kept between calls.
 *
 * Linux starts a new thread on its creator's CPU and moves it only
 * later: a (T) term's split loop, 7 ms on two threads, took 13-16 ms
 * (its one-thread time) whenever the two threads shared a CPU, which a
 * thread created per call did in every other execution on the 2-vCPU VM
 * (docs/design.md §7). So a worker starts on another CPU of the process's
 * (then may run on any), and stays between calls, waking where it last
 * ran. After its part it waits POOL_SPIN_S spinning (and yielding) for
 * the next call (back-to-back executions find it awake), then sleeps.
 * One caller at a time uses the pool; a call made while another holds it
 * (the planner's threads, a part that splits again) starts threads of
 * its own.
 */
#include "runtime/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "runtime/timer.h"

#define MAX_THREADS 256
#define POOL_SPIN_S 5e-4

typedef struct part {
    void (*fn)(void *arg, long lo, long hi);
    void *arg;
    long lo, hi;
} part;

typedef struct worker {
    pthread_t id;
    atomic_long round; /* the call whose part `job` is: set by the caller */
    part job;
    cpu_set_t cpus; /* the process's CPUs, which it may run on once started */
    int pinned;     /* started on one of them: its mask is set to cpus then */
} worker;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER; /* held by the pool's caller */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static worker pool[MAX_THREADS];
static int pool_size;          /* workers started */
static long pool_calls;        /* calls made on the pool */
static atomic_int pool_busy;   /* workers still running this call's parts */
static int pool_forks_watched; /* the child of a fork has no workers */

static void run(const part *w)
{
    w->fn(w->arg, w->lo, w->hi);
}

static void *run_part(void *p)
{
    run(p);
    return NULL;
}

/* The round after `seen` that worker w is given: spins POOL_SPIN_S for
 * it, then sleeps until it comes. */
static long next_round(worker *w, long seen)
{
    double until = tc_rt_now() + POOL_SPIN_S;
    long r;
    for (int k = 0; (r = atomic_load(&w->round)) == seen; k++)
        if (k % 64 == 63 && (sched_yield(), tc_rt_now() > until))
            break;
    if (r != seen)
        return r;
    pthread_mutex_lock(&wake_lock);
    while ((r = atomic_load(&w->round)) == seen)
        pthread_cond_wait(&wake, &wake_lock);
    pthread_mutex_unlock(&wake_lock);
    return r;
}

static void *work(void *p)
{
    worker *w = p;
    if (w->pinned)
        pthread_setaffinity_np(pthread_self(), sizeof w->cpus, &w->cpus);
    for (long seen = 0;;) {
        seen = next_round(w, seen);
        run(&w->job);
        atomic_fetch_sub(&pool_busy, 1);
    }
    return NULL;
}

static void forget_pool(void)
{
    pool_size = 0;
    pthread_mutex_init(&pool_lock, NULL);
    pthread_mutex_init(&wake_lock, NULL);
    pthread_cond_init(&wake, NULL);
}

/* Starts worker k (pool[k]) on the k+1-th of the process's CPUs after the
 * caller's, where there is another; 0 when started. */
static int start_worker(int k)
{
    worker *w = &pool[k];
    cpu_set_t first;
    pthread_attr_t attr;
    int cpu = sched_getcpu(), n = 0, at = -1;
    atomic_store(&w->round, 0);
    w->pinned = 0;
    if (pthread_attr_init(&attr) != 0)
        return -1;
    if (cpu >= 0 && sched_getaffinity(0, sizeof w->cpus, &w->cpus) == 0 &&
        CPU_ISSET(cpu, &w->cpus) && (n = CPU_COUNT(&w->cpus)) > 1) {
        int order[CPU_SETSIZE], count = 0;
        for (int c = 0; c < CPU_SETSIZE && count < n; c++)
            if (CPU_ISSET(c, &w->cpus))
                order[count] = c, at = c == cpu ? count : at, count++;
        CPU_ZERO(&first);
        CPU_SET(order[(at + 1 + k % (n - 1)) % n], &first);
        w->pinned = pthread_attr_setaffinity_np(&attr, sizeof first, &first) == 0;
    }
    int st = pthread_create(&w->id, &attr, work, w);
    pthread_attr_destroy(&attr);
    if (st == 0)
        pthread_detach(w->id);
    return st;
}

/* Parts 1..threads-1 of w on the pool's workers, part 0 on the caller's
 * thread; parts no worker could be started for after it. */
static void on_pool(const part *w, int threads)
{
    if (!pool_forks_watched)
        pool_forks_watched = pthread_atfork(NULL, NULL, forget_pool) == 0;
    while (pool_size < threads - 1 && start_worker(pool_size) == 0)
        pool_size++;
    int helpers = threads - 1 < pool_size ? threads - 1 : pool_size;
    long round = ++pool_calls;
    atomic_store(&pool_busy, helpers);
    for (int k = 0; k < helpers; k++) {
        pool[k].job = w[k + 1];
        atomic_store(&pool[k].round, round);
    }
    pthread_mutex_lock(&wake_lock);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&wake_lock);
    run(&w[0]);
    for (int k = helpers + 1; k < threads; k++)
        run(&w[k]);
    for (int k = 0; atomic_load(&pool_busy) > 0; k++)
        if (k % 64 == 63)
            sched_yield(); /* a worker may share this CPU (a mask of one) */
}

/* Parts 1..threads-1 on threads started for this call. */
static void on_own_threads(const part *w, int threads)
{
    pthread_t id[MAX_THREADS];
    int started[MAX_THREADS];
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&id[t], NULL, run_part, (void *)&w[t]) == 0;
    run(&w[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(id[t], NULL);
        else
            run(&w[t]);
    }
}

void tc_rt_parallel(int threads, long n, void (*fn)(void *arg, long lo, long hi), void *arg)
{
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads > n)
        threads = (int)n;
    if (threads <= 1) {
        if (n > 0)
            fn(arg, 0, n);
        return;
    }
    part w[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        w[t] = (part){fn, arg, n * t / threads, n * (t + 1) / threads};
    if (pthread_mutex_trylock(&pool_lock) == 0) {
        on_pool(w, threads);
        pthread_mutex_unlock(&pool_lock);
    } else {
        on_own_threads(w, threads);
    }
}
