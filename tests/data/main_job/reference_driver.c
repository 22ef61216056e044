/*
 * reference_driver.c - checks the function contraction() that the main job
 * emitted (fixed sizes, column-major) against tcgen's naive reference
 * loops (runtime/reference.c), linked from libtcgen.a:
 *     reference_driver CONTRACTION SIZES
 * parses both as tcgen does, runs both on the same random A, B and C, and
 * exits 0 when they agree to 1e-12 (relative to the largest element).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "runtime/reference.h"

int contraction(const double *A, const double *B, double *C);
/* Emitted where the algorithm keeps tensor-sized temporaries between calls:
 * called when present, so that a leak checker sees them freed. */
void contraction_release(void) __attribute__((weak));

static void fill(double *x, int64_t n, unsigned long *state)
{
    for (int64_t k = 0; k < n; k++) {
        *state = *state * 6364136223846793005UL + 1442695040888963407UL;
        x[k] = (double)(*state >> 11) / 4503599627370496.0 - 1.0;
    }
}

int main(int argc, char **argv)
{
    tc_contraction c;
    tc_sizes sz;
    tc_error e;
    memset(&sz, 0, sizeof sz);
    if (argc != 3 || tc_parse(argv[1], &c, &e) != TC_OK ||
        tc_parse_sizes(argv[2], 1, &sz, &e) != TC_OK ||
        tc_contraction_set_sizes(&c, &sz, &c, &e, NULL) != TC_OK) {
        fprintf(stderr, "usage: reference_driver CONTRACTION SIZES (%s)\n",
                argc == 3 ? e.message : "two arguments");
        return 2;
    }
    int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements;
    int64_t nc = c.tensor[TC_C].elements;
    double *A = malloc((size_t)na * sizeof *A), *B = malloc((size_t)nb * sizeof *B);
    double *C = malloc((size_t)nc * sizeof *C), *want = malloc((size_t)nc * sizeof *want);
    if (!A || !B || !C || !want)
        return 3;
    unsigned long state = 42;
    fill(A, na, &state);
    fill(B, nb, &state);
    fill(C, nc, &state);
    memcpy(want, C, (size_t)nc * sizeof *C);
    tc_rt_reference(&c, A, B, want);
    int rc = contraction(A, B, C);
    if (contraction_release)
        contraction_release();
    double scale = 1.0, err = 0.0;
    for (int64_t k = 0; k < nc; k++)
        scale = fabs(want[k]) > scale ? fabs(want[k]) : scale;
    for (int64_t k = 0; k < nc; k++) {
        double d = fabs(C[k] - want[k]);
        err = !(d <= err) ? (isnan(d) ? INFINITY : d) : err;
    }
    printf("%lld elements, returned %d, largest error %g (relative)\n", (long long)nc, rc,
           err / scale);
    free(A);
    free(B);
    free(C);
    free(want);
    return rc == 0 && err <= 1e-12 * scale ? 0 : 1;
}
