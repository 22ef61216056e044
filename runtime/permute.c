/* permute.c - the permutation copy (permute.h): the kernel tcgen also
 * writes into emitted files, on the executor's view type. */
#include "runtime/permute.h"

#include "runtime/parallel.h"
#include "runtime/permute_kernel.inc"

#if TC_MAX_RANK > TCGEN_PERMUTE_MAX_RANK
#error "the permutation kernel takes fewer dimensions than a tensor has"
#endif

int tc_rt_permute_streams(int64_t elements, int64_t written, double beta)
{
    return tcgen_permute_streams((long)elements, (long)written, beta);
}

/* A split copy's slices lo..hi-1 on one thread. */
typedef struct split {
    const tcgen_permute_job *jb;
    const double *src;
    double *dst;
} split;

static void copy_part(void *arg, long lo, long hi)
{
    const split *sp = arg;
    tcgen_permute_part(sp->jb, lo, hi, sp->src, sp->dst);
}

void tc_rt_permute(const tc_permute *p, const double *src, double *dst, double beta,
                   int64_t written, int threads)
{
    long extent[TCGEN_PERMUTE_MAX_RANK], from[TCGEN_PERMUTE_MAX_RANK],
        to[TCGEN_PERMUTE_MAX_RANK];
    for (int i = 0; i < p->rank; i++) {
        extent[i] = (long)p->extent[i];
        from[i] = (long)p->src_stride[i];
        to[i] = (long)p->dst_stride[i];
    }
    if (threads <= 1) { /* the emitted files' driver, without OpenMP here */
        tcgen_permute(p->rank, extent, src, from, dst, to, beta, (long)written);
        return;
    }
    tcgen_permute_job jb;
    if (!tcgen_permute_init(&jb, p->rank, extent, from, to, beta, (long)written))
        return;
    long n = tcgen_permute_slices(&jb, threads);
    split sp = {&jb, src, dst};
    if (n == 1)
        copy_part(&sp, 0, 1);
    else
        tc_rt_parallel(threads, n, copy_part, &sp);
}
