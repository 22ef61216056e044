/* permute.c - the permutation copy (permute.h): the kernel tcgen also
 * writes into emitted files, on the executor's view type. */
#include "runtime/permute.h"

#include <complex.h>

#include "runtime/parallel.h"
#define TCGEN_PERMUTE_TYPED 1 /* every type's driver */
#include "runtime/permute_kernel.inc"

#if TC_MAX_RANK + 1 > TCGEN_PERMUTE_MAX_RANK /* + a complex element's reals */
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

void tc_rt_permute(const tc_permute *p, tc_type type, const void *src, void *dst, double beta,
                   int64_t written, int threads)
{
    long extent[TCGEN_PERMUTE_MAX_RANK], from[TCGEN_PERMUTE_MAX_RANK],
        to[TCGEN_PERMUTE_MAX_RANK];
    for (int i = 0; i < p->rank; i++) {
        extent[i] = (long)p->extent[i];
        from[i] = (long)p->src_stride[i];
        to[i] = (long)p->dst_stride[i];
    }
    const tc_type_row *row = tc_type_row_of(type);
    if (type != TC_TYPE_D) { /* the emitted files' typed driver: one thread */
        tcgen_permute_typed(row->real_bytes, row->reals, p->rank, extent, src, from, dst, to, beta,
                            (long)written);
        return;
    }
    if (threads <= 1) { /* the emitted files' driver, without OpenMP here */
        tcgen_permute(p->rank, extent, src, from, dst, to, beta, (long)written);
        return;
    }
    tcgen_permute_job jb;
    if (!tcgen_permute_init(&jb, p->rank, extent, from, to, beta, (long)written, 0))
        return;
    long n = tcgen_permute_slices(&jb, threads);
    split sp = {&jb, src, dst};
    if (n == 1)
        copy_part(&sp, 0, 1);
    else
        tc_rt_parallel(threads, n, copy_part, &sp);
}

/* x = beta * x along one run of n elements at stride st, in each type
 * (beta zero: 0 written, x not read). */
static void scale_run(tc_type type, char *x, int64_t n, int64_t st, double br, double bi)
{
    const int zero = br == 0.0 && bi == 0.0;
    if (type == TC_TYPE_D) {
        double *d = (void *)x;
        for (int64_t i = 0; i < n; i++)
            d[i * st] = zero ? 0.0 : br * d[i * st];
    } else if (type == TC_TYPE_S) {
        float *f = (void *)x;
        for (int64_t i = 0; i < n; i++)
            f[i * st] = zero ? 0.0f : (float)br * f[i * st];
    } else if (type == TC_TYPE_Z) {
        double complex *z = (void *)x, b = CMPLX(br, bi);
        for (int64_t i = 0; i < n; i++)
            z[i * st] = zero ? 0.0 : b * z[i * st];
    } else {
        float complex *z = (void *)x, b = CMPLXF((float)br, (float)bi);
        for (int64_t i = 0; i < n; i++)
            z[i * st] = zero ? 0.0f : b * z[i * st];
    }
}

void tc_rt_scale(const tc_permute *p, tc_type type, void *x, const double *beta)
{
    int64_t count[TC_MAX_RANK + 1] = {0}, off = 0, bytes = tc_type_row_of(type)->bytes;
    if (beta[0] == 1.0 && beta[1] == 0.0)
        return;
    for (int k = 0; k < p->rank; k++)
        if (p->extent[k] <= 0)
            return;
    int64_t n = p->rank ? p->extent[0] : 1, st = p->rank ? p->dst_stride[0] : 1;
    for (;;) { /* runs along dimension 0, an odometer over the others */
        scale_run(type, (char *)x + off * bytes, n, st, beta[0], beta[1]);
        int k = 1;
        for (; k < p->rank; k++) {
            off += p->dst_stride[k];
            if (++count[k] < p->extent[k])
                break;
            off -= count[k] * p->dst_stride[k];
            count[k] = 0;
        }
        if (k >= p->rank)
            return;
    }
}
