/*
 * driver.c - runs the main job's emitted routine for
 *     C[a,b,c] = ALPHA * A[a,i] * B[i,b,c]      (ACC 0)
 *     C[a,b,c] += ALPHA * A[a,i] * B[i,b,c]     (ACC 1)
 * on tensors in Fortran order (ROW 0) or C order (ROW 1), emitted for fixed
 * sizes (GENERIC 0) or with sizes as parameters (GENERIC 1, then also run
 * with an empty index), and compares with naive loops written here.
 * Build: cc -DROW=0 -DGENERIC=0 -DACC=0 -DALPHA=1.0 -DNA=.. -DNB=.. -DNC=.. -DNI=..
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if GENERIC
int contraction(size_t a, size_t b, size_t c, size_t i, const double *A, const double *B,
                double *C);
#define CALL(a, b, c, i, A, B, C) contraction(a, b, c, i, A, B, C)
#else
int contraction(const double *A, const double *B, double *C);
#define CALL(a, b, c, i, A, B, C) contraction(A, B, C)
#endif

#if ROW
#define IX2(x, y, nx, ny) ((x) * (ny) + (y))
#define IX3(x, y, z, nx, ny, nz) (((x) * (ny) + (y)) * (nz) + (z))
#else
#define IX2(x, y, nx, ny) ((x) + (nx) * (y))
#define IX3(x, y, z, nx, ny, nz) ((x) + (nx) * ((y) + (ny) * (z)))
#endif

static double A[NA * NI], B[NI * NB * NC], C[NA * NB * NC], C0[NA * NB * NC],
    want[NA * NB * NC];

int main(void)
{
    unsigned s = 12345;
    for (int k = 0; k < NA * NI; k++)
        A[k] = (double)((s = s * 1103515245u + 12345u) >> 16 & 1023) / 512.0 - 1.0;
    for (int k = 0; k < NI * NB * NC; k++)
        B[k] = (double)((s = s * 1103515245u + 12345u) >> 16 & 1023) / 512.0 - 1.0;
    for (int k = 0; k < NA * NB * NC; k++)
        C0[k] = (double)((s = s * 1103515245u + 12345u) >> 16 & 1023) / 512.0 - 1.0;
    for (int a = 0; a < NA; a++)
        for (int b = 0; b < NB; b++)
            for (int c = 0; c < NC; c++) {
                double sum = 0.0;
                for (int i = 0; i < NI; i++)
                    sum += A[IX2(a, i, NA, NI)] * B[IX3(i, b, c, NI, NB, NC)];
                int k = IX3(a, b, c, NA, NB, NC);
                want[k] = (ACC ? C0[k] : 0.0) + ALPHA * sum;
            }
    memcpy(C, C0, sizeof C);
    int r = CALL(NA, NB, NC, NI, A, B, C);
    double err = 0.0;
    for (int k = 0; k < NA * NB * NC; k++)
        if (!(fabs(C[k] - want[k]) <= err))
            err = fabs(C[k] - want[k]);
    if (r != 0 || !(err <= 1e-12 * NI)) {
        printf("wrong: returned %d, max error %g\n", r, err);
        return 1;
    }
#if GENERIC
    /* An empty contracted index: C = beta * C. An empty free index: nothing. */
    memcpy(C, C0, sizeof C);
    r = CALL(NA, NB, NC, 0, A, B, C);
    for (int k = 0; k < NA * NB * NC; k++)
        if (C[k] != (ACC ? C0[k] : 0.0)) {
            printf("wrong with i = 0 at %d: %g\n", k, C[k]);
            return 1;
        }
    if (r != 0 || CALL(0, NB, NC, NI, A, B, C) != 0) {
        printf("an empty index returned non-zero\n");
        return 1;
    }
#endif
    printf("ok: max error %g\n", err);
    return 0;
}
