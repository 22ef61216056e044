/*
 * main.c - calls three routines written by tcgen and checks each against
 * naive loops. Built by this directory's Makefile:
 *
 *   ladder     R[a,b,i,j] += 0.5 * W[a,b,e,f] * T[e,f,i,j]   sizes fixed at
 *              generation (a=b=e=f=VIRT, i=j=OCC), column-major
 *   transform  V[a,n,i,j] = Cv[m,a] * U[m,n,i,j]             --generic: sizes
 *              are arguments (ranked for ../integral_transform.tc), column-major;
 *              -2 for a size that BLAS's int arguments cannot hold
 *   ring_rm    R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]          fixed sizes
 *              (a=b=e=VIRT, i=j=m=OCC), --layout row (C order)
 *
 * VIRT and OCC must be the sizes the routines were generated for (-D).
 * Prints one line per check; exits 1 on any mismatch.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VIRT
#define VIRT 24
#endif
#ifndef OCC
#define OCC 8
#endif

int ladder(const double *A, const double *B, double *C);
int transform(size_t a, size_t n, size_t i, size_t j, size_t m, const double *A, const double *B,
              double *C);
int ring_rm(const double *A, const double *B, double *C);

/* Offsets of element (p,q,r,s) of an n1 x n2 x n3 x n4 tensor. */
#define COL(p, q, r, s, n1, n2, n3) ((p) + (n1) * ((q) + (n2) * ((r) + (n3) * (s))))
#define ROW(p, q, r, s, n2, n3, n4) ((s) + (n4) * ((r) + (n3) * ((q) + (n2) * (p))))

static double *alloc(size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) {
        fprintf(stderr, "out of memory\n");
        exit(3);
    }
    return x;
}

/* n pseudo-random values in [-1, 1), all 53 bits of the mantissa used. */
static double *filled(size_t n, unsigned long long seed)
{
    double *x = alloc(n);
    for (size_t k = 0; k < n; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x[k] = (double)(seed >> 11) * 0x1p-52 - 1.0;
    }
    return x;
}

/*
 * Compares got with ref element by element, relative to mag (the sum of the
 * magnitudes of what was added up for that element); prints the verdict.
 * Returns 1 on a mismatch or when the routine did not return 0.
 */
static int verdict(const char *what, int rc, const double *got, const double *ref,
                   const double *mag, size_t n)
{
    double worst = 0;
    for (size_t k = 0; k < n; k++) {
        double d = fabs(got[k] - ref[k]);
        double e = mag[k] > 0 ? d / mag[k] : (d > 0 ? INFINITY : 0);
        if (!(e <= worst))
            worst = e;
    }
    int bad = rc != 0 || !(worst <= 1e-12);
    printf("%-40s returned %d, max error %.1e  %s\n", what, rc, worst, bad ? "MISMATCH" : "ok");
    return bad;
}

static int check_ladder(void)
{
    const size_t v = VIRT, o = OCC, nr = v * v * o * o;
    double *W = filled(v * v * v * v, 1), *T = filled(v * v * o * o, 2), *R = filled(nr, 3);
    double *ref = alloc(nr), *mag = alloc(nr);
    for (size_t j = 0; j < o; j++)
        for (size_t i = 0; i < o; i++)
            for (size_t b = 0; b < v; b++)
                for (size_t a = 0; a < v; a++) {
                    double s = 0, m = 0;
                    for (size_t f = 0; f < v; f++)
                        for (size_t e = 0; e < v; e++) {
                            double x = W[COL(a, b, e, f, v, v, v)] * T[COL(e, f, i, j, v, v, o)];
                            s += x;
                            m += fabs(x);
                        }
                    size_t r = COL(a, b, i, j, v, v, o);
                    ref[r] = R[r] + 0.5 * s;
                    mag[r] = fabs(R[r]) + 0.5 * m;
                }
    char what[64];
    snprintf(what, sizeof what, "ladder (v=%zu o=%zu)", v, o);
    int bad = verdict(what, ladder(W, T, R), R, ref, mag, nr);
    free(W), free(T), free(R), free(ref), free(mag);
    return bad;
}

/* V[a,n,i,j] = Cv[m,a] * U[m,n,i,j] at any sizes. V starts as garbage: "=". */
static int check_transform(size_t na, size_t nn, size_t ni, size_t nj, size_t nm)
{
    const size_t nv = na * nn * ni * nj;
    double *Cv = filled(nm * na, 4), *U = filled(nm * nn * ni * nj, 5), *V = filled(nv, 6);
    double *ref = alloc(nv), *mag = alloc(nv);
    for (size_t j = 0; j < nj; j++)
        for (size_t i = 0; i < ni; i++)
            for (size_t n = 0; n < nn; n++)
                for (size_t a = 0; a < na; a++) {
                    double s = 0, mg = 0;
                    for (size_t m = 0; m < nm; m++) {
                        double x = Cv[m + nm * a] * U[COL(m, n, i, j, nm, nn, ni)];
                        s += x;
                        mg += fabs(x);
                    }
                    ref[COL(a, n, i, j, na, nn, ni)] = s;
                    mag[COL(a, n, i, j, na, nn, ni)] = mg;
                }
    char what[64];
    snprintf(what, sizeof what, "transform (a=%zu n=%zu i=%zu j=%zu m=%zu)", na, nn, ni, nj, nm);
    int bad = verdict(what, transform(na, nn, ni, nj, nm, Cv, U, V), V, ref, mag, nv);
    free(Cv), free(U), free(V), free(ref), free(mag);
    return bad;
}

/* A size beyond INT_MAX cannot reach BLAS: the generic routine must return
   -2 before it touches any tensor (these have one element). */
static int check_too_large(void)
{
    double cv[1] = {0}, u[1] = {0}, v[1] = {0};
    const size_t huge = (size_t)INT_MAX + 1;
    int rc = transform(huge, 1, 1, 1, 1, cv, u, v);
    int bad = rc != -2;
    printf("%-40s returned %d (-2 wanted)  %s\n", "transform (a=INT_MAX+1)", rc,
           bad ? "MISMATCH" : "ok");
    return bad;
}

/* R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j], every tensor in C order. */
static int check_ring(void)
{
    const size_t v = VIRT, o = OCC, nr = v * v * o * o;
    double *T = filled(v * v * o * o, 7), *W = filled(o * v * v * o, 8), *R = filled(nr, 9);
    double *ref = alloc(nr), *mag = alloc(nr);
    for (size_t a = 0; a < v; a++)
        for (size_t b = 0; b < v; b++)
            for (size_t i = 0; i < o; i++)
                for (size_t j = 0; j < o; j++) {
                    double s = 0, mg = 0;
                    for (size_t m = 0; m < o; m++)
                        for (size_t e = 0; e < v; e++) {
                            double x = T[ROW(a, e, i, m, v, o, o)] * W[ROW(m, b, e, j, v, v, o)];
                            s += x;
                            mg += fabs(x);
                        }
                    size_t r = ROW(a, b, i, j, v, o, o);
                    ref[r] = R[r] + s;
                    mag[r] = fabs(R[r]) + mg;
                }
    char what[64];
    snprintf(what, sizeof what, "ring_rm (v=%zu o=%zu, row-major)", v, o);
    int bad = verdict(what, ring_rm(T, W, R), R, ref, mag, nr);
    free(T), free(W), free(R), free(ref), free(mag);
    return bad;
}

int main(void)
{
    int bad = check_ladder();
    bad += check_transform(64, 80, 16, 16, 80); /* the sizes it was ranked for */
    bad += check_transform(7, 5, 3, 4, 6);      /* any others */
    bad += check_transform(7, 5, 3, 4, 0);      /* nothing to sum: V = 0 */
    bad += check_too_large();
    bad += check_ring();
    if (bad)
        printf("emitted: %d checks FAILED\n", bad);
    else
        printf("emitted: all checks ok\n");
    return bad ? 1 : 0;
}
