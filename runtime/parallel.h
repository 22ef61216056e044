/*
 * parallel.h - a loop split over threads, for the executor's own work
 * (the permutation copies): the library keeps to POSIX threads; emitted
 * files use OpenMP for the same loops.
 */
#ifndef TC_RUNTIME_PARALLEL_H
#define TC_RUNTIME_PARALLEL_H

/*
 * Runs fn(arg, lo, hi) over [0, n) cut into `threads` contiguous parts of
 * near-equal size, one per thread, the caller's thread taking the first;
 * returns when every part is done. threads <= 1, n <= 1, or a thread that
 * cannot be started: its part runs on the caller's thread.
 */
void tc_rt_parallel(int threads, long n, void (*fn)(void *arg, long lo, long hi), void *arg);

#endif
