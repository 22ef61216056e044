/*
 * fma_peak.h - what one core can do: the rate of a loop of independent
 * fused multiply-adds at the widest vector width the CPU has, against
 * which the BLAS's dgemm rate is judged (a library running kernels below
 * the CPU's ability shows as a small fraction of it; docs/prediction.md,
 * The right BLAS kernels).
 */
#ifndef TC_MICROBENCH_FMA_PEAK_H
#define TC_MICROBENCH_FMA_PEAK_H

/* One thread's flop/s at the widest width (about 20 ms of work); *width
 * (when not NULL) gets "avx512", "avx2", "sse2" or "scalar". */
double tc_mb_fma_peak(const char **width);

#endif
