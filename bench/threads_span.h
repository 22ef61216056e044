/*
 * threads_span.h - P threads started together, timed from the first one's
 * start to the last one's end (a thread that starts late cannot make the
 * span look short); shared by threads_bandwidth.c and threads_compute.c.
 * A thread's function waits on `bar`, then records its t_start and t_end.
 */
#ifndef BENCH_THREADS_SPAN_H
#define BENCH_THREADS_SPAN_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXP 256

static double t_start[MAXP], t_end[MAXP];
static pthread_barrier_t bar;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The most threads, from the command line's first argument (1..MAXP);
 * 0 after a message when it is out of range. */
static int max_threads(int argc, char **argv, const char *name)
{
    int maxp = argc > 1 ? atoi(argv[1]) : 1;
    if (maxp >= 1 && maxp <= MAXP)
        return maxp;
    fprintf(stderr, "%s: threads must be 1..%d\n", name, MAXP);
    return 0;
}

/* The thread counts 1, 2, 4, ... and maxp last. */
static int next_count(int p, int maxp) { return p * 2 > maxp && p < maxp ? maxp : p * 2; }

/* Seconds from the first start to the last end of p threads running run(t). */
static double span_of(int p, void *(*run)(void *))
{
    pthread_t th[MAXP];
    pthread_barrier_init(&bar, NULL, (unsigned)p);
    for (long t = 0; t < p; t++)
        pthread_create(&th[t], NULL, run, (void *)t);
    for (int t = 0; t < p; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    double a = t_start[0], b = t_end[0];
    for (int t = 1; t < p; t++) {
        a = t_start[t] < a ? t_start[t] : a;
        b = t_end[t] > b ? t_end[t] : b;
    }
    return b - a;
}

#endif
