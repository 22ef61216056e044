/* parallel.c - a loop split over POSIX threads (parallel.h). */
#include "runtime/parallel.h"

#include <pthread.h>

#define MAX_THREADS 256

typedef struct part {
    void (*fn)(void *arg, long lo, long hi);
    void *arg;
    long lo, hi;
} part;

static void *run_part(void *p)
{
    part *w = p;
    w->fn(w->arg, w->lo, w->hi);
    return NULL;
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
    pthread_t id[MAX_THREADS];
    int started[MAX_THREADS];
    for (int t = 0; t < threads; t++)
        w[t] = (part){fn, arg, n * t / threads, n * (t + 1) / threads};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&id[t], NULL, run_part, &w[t]) == 0;
    fn(arg, w[0].lo, w[0].hi);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(id[t], NULL);
        else
            fn(arg, w[t].lo, w[t].hi);
    }
}
