/*
 * emitted_leaves.c - an emitted function leaves no memory behind by default
 * (run by tests/workspace_test.sh, linked with the emitted ring term
 * `ring`, an algorithm that permutes whole tensors): the heap's bytes in
 * use and mapped are the same after each call as before the first.
 * Prints them; exit 0 when nothing stayed, 1 when something did, 2 when
 * the call failed.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

int ring(const double *A, const double *B, double *C);

#define N 24 /* the sizes the test emits at: every index 24 */

static size_t in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

int main(void)
{
    size_t n = (size_t)N * N * N * N;
    double *A = calloc(n, sizeof *A), *B = calloc(n, sizeof *B), *C = calloc(n, sizeof *C);
    if (!A || !B || !C)
        return 2;
    setvbuf(stdout, NULL, _IONBF, 0); /* no buffer allocated by the first printf */
    size_t before = in_use();
    for (int k = 0; k < 2; k++) {
        if (ring(A, B, C) != 0)
            return 2;
        size_t after = in_use();
        printf("call %d: %zu bytes in use before, %zu after\n", k + 1, before, after);
        if (after != before)
            return 1;
    }
    free(A);
    free(B);
    free(C);
    return 0;
}
