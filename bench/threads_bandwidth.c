/*
 * threads_bandwidth.c - memory bandwidth of P threads together (bench/together.sh):
 * for P = 1, 2, 4, ... up to the argument, each thread reads (then updates in
 * place) its own 64 MiB at once; the best of 5 runs, timed from the first
 * thread's start to the last one's end (a thread that starts late cannot make
 * the span look short). Prints "read|update P=N TOTAL GB/s total, PER per thread".
 */
#include <string.h>

#include "threads_span.h"

#define N (8L << 20) /* doubles per thread */

static double *buf[MAXP];
static volatile double sink[MAXP];
static int updating;

static void *run(void *arg)
{
    long t = (long)arg;
    double *x = buf[t], s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    pthread_barrier_wait(&bar);
    t_start[t] = now();
    if (!updating)
        for (long i = 0; i < N; i += 4) {
            s0 += x[i];
            s1 += x[i + 1];
            s2 += x[i + 2];
            s3 += x[i + 3];
        }
    else
        for (long i = 0; i < N; i++)
            x[i] = x[i] * 1.0000001;
    sink[t] = s0 + s1 + s2 + s3;
    t_end[t] = now();
    return NULL;
}

int main(int argc, char **argv)
{
    int maxp = max_threads(argc, argv, "threads_bandwidth");
    if (!maxp)
        return 2;
    for (int t = 0; t < maxp; t++) {
        if (!(buf[t] = malloc(N * sizeof(double)))) {
            fprintf(stderr, "threads_bandwidth: out of memory\n");
            return 1;
        }
        memset(buf[t], 1, N * sizeof(double));
    }
    for (updating = 0; updating < 2; updating++)
        for (int p = 1; p <= maxp; p = next_count(p, maxp)) {
            double best = 0.0;
            for (int rep = 0; rep < 5; rep++) {
                double bytes = (updating ? 2.0 : 1.0) * p * N * sizeof(double);
                double gbs = bytes / span_of(p, run) / 1e9;
                best = gbs > best ? gbs : best;
            }
            printf("%s P=%d %.1f GB/s total, %.1f per thread\n", updating ? "update" : "read", p, best,
                   best / p);
        }
    return 0;
}
