/*
 * threads_compute.c - arithmetic of P threads together (bench/scaling.sh):
 * for P = 1, 2, 4, ... up to the argument, each thread runs the same loop of
 * independent fused multiply-adds in registers (no memory traffic) at the
 * vector width the compiler targets (build with -O2 -march=native); the best
 * of 5 runs, timed from the first thread's start to the last one's end.
 * Prints "fma P=N TOTAL GFLOP/s total, PER per thread, X of one thread".
 * What it shows: whether P threads of this machine compute P times as fast
 * as one (virtual CPUs sharing a core, or clocks that fall with more cores
 * busy, make it less), the bound of any threaded algorithm's speedup.
 */
#include "threads_span.h"

#define ITERS 120000000L /* about 30 ms at one core's 64 GFLOP/s */
#define ACCS 12 /* the chains below */

typedef double vec __attribute__((vector_size(64)));
#define LANES ((long)(sizeof(vec) / sizeof(double)))

static volatile double sink[MAXP];

/* Twelve independent chains held in registers: enough to hide the FMA
 * units' latency (4 cycles x 2 units on current cores). */
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define DECLARE(k) vec a##k = y * (double)((k) + 1);
#define STEP(k) a##k = a##k * x + y;
#define SUM(k) s += a##k[l];

static void *run(void *arg)
{
    long t = (long)arg;
    vec x, y;
    for (int l = 0; l < LANES; l++) {
        x[l] = 0.999999;
        y[l] = 1e-7 * (double)(t + 1);
    }
    CHAINS(DECLARE)
    pthread_barrier_wait(&bar);
    t_start[t] = now();
    for (long i = 0; i < ITERS / ACCS; i++) {
        CHAINS(STEP)
    }
    t_end[t] = now();
    double s = 0.0;
    for (int l = 0; l < LANES; l++) {
        CHAINS(SUM)
    }
    sink[t] = s;
    return NULL;
}

int main(int argc, char **argv)
{
    int maxp = max_threads(argc, argv, "threads_compute");
    if (!maxp)
        return 2;
    double one = 0.0;
    for (int p = 1; p <= maxp; p = next_count(p, maxp)) {
        double best = 0.0;
        for (int rep = 0; rep < 5; rep++) {
            double gf = 2.0 * LANES * (double)(ITERS / ACCS * ACCS) * p / span_of(p, run) / 1e9;
            best = gf > best ? gf : best;
        }
        if (p == 1)
            one = best;
        printf("fma P=%d %.1f GFLOP/s total, %.1f per thread, %.2fx one thread\n", p, best,
               best / p, best / one);
    }
    return 0;
}
