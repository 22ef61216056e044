/*
 * threads_bandwidth.c - memory bandwidth of P threads together (bench/together.sh):
 * for P = 1, 2, 4, ... up to the argument, each thread reads (then updates in
 * place) its own 64 MiB at once; the best of 5 runs, timed from the first
 * thread's start to the last one's end (a thread that starts late cannot make
 * the span look short). Prints "read|update P=N TOTAL GB/s total, PER per thread".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (8L << 20) /* doubles per thread */
#define MAXP 256

static double *buf[MAXP];
static volatile double sink[MAXP];
static double t_start[MAXP], t_end[MAXP];
static int updating;
static pthread_barrier_t bar;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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
    int maxp = argc > 1 ? atoi(argv[1]) : 1;
    if (maxp < 1 || maxp > MAXP) {
        fprintf(stderr, "threads_bandwidth: threads must be 1..%d\n", MAXP);
        return 2;
    }
    for (int t = 0; t < maxp; t++) {
        if (!(buf[t] = malloc(N * sizeof(double)))) {
            fprintf(stderr, "threads_bandwidth: out of memory\n");
            return 1;
        }
        memset(buf[t], 1, N * sizeof(double));
    }
    for (updating = 0; updating < 2; updating++)
        for (int p = 1; p <= maxp; p = p * 2 > maxp && p < maxp ? maxp : p * 2) {
            double best = 0.0;
            for (int rep = 0; rep < 5; rep++) {
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
                double gbs = (updating ? 2.0 : 1.0) * p * N * sizeof(double) / (b - a) / 1e9;
                best = gbs > best ? gbs : best;
            }
            printf("%s P=%d %.1f GB/s total, %.1f per thread\n", updating ? "update" : "read", p, best,
                   best / p);
        }
    return 0;
}
