/* permute.c - the permutation copy (permute.h): the kernel tcgen also
 * writes into emitted files, on the executor's view type. */
#include "runtime/permute.h"

#include "runtime/permute_kernel.inc"

#if TC_MAX_RANK > TCGEN_PERMUTE_MAX_RANK
#error "the permutation kernel takes fewer dimensions than a tensor has"
#endif

int tc_rt_permute_streams(int64_t elements, int64_t written, double beta)
{
    return tcgen_permute_streams((long)elements, (long)written, beta);
}

void tc_rt_permute(const tc_permute *p, const double *src, double *dst, double beta,
                   int64_t written)
{
    long extent[TCGEN_PERMUTE_MAX_RANK], from[TCGEN_PERMUTE_MAX_RANK],
        to[TCGEN_PERMUTE_MAX_RANK];
    for (int i = 0; i < p->rank; i++) {
        extent[i] = (long)p->extent[i];
        from[i] = (long)p->src_stride[i];
        to[i] = (long)p->dst_stride[i];
    }
    tcgen_permute(p->rank, extent, src, from, dst, to, beta, (long)written);
}
