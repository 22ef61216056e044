/*
 * release_rss.c - tc_release_workspace gives the memory back (run by
 * tests/workspace_test.sh): the resident set after plans with whole-tensor
 * temporaries have run and been destroyed and tc_release_workspace() has
 * been called is within LIMIT_MB of what it was before the first plan.
 *
 * The program calls its BLAS once before that first measurement, as the
 * application tcgen runs in would have: the BLAS's own buffers and threads
 * are the application's, not tcgen's. The ring term is planned among the
 * permuted family only (the planner's option), so that whichever wins
 * holds whole-tensor temporaries. Prints "before N after N (MiB)";
 * exit 0 within the limit, 1 beyond it, 2 when something failed.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "parser/parser.h"
#include "planner/plan.h"
#include "planner/problem.h"
#include "tcgen.h"

#define LIMIT_MB 5.0

static double resident_mib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = -1;
    if (f)
        fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

/* Plans text at sizes among `families` (0: all), runs it twice on
 * n-element tensors, destroys it; reports the algorithm and the workspace
 * it took. 0 on success. */
static int run(const char *text, const char *sizes, unsigned families, long na, long nb,
               long nc)
{
    tc_error err;
    tc_contraction user, storage;
    int which;
    tc_plan *p = NULL;
    tc_plan_options o = tc_plan_options_default();
    o.families = families;
    if (tc_plan_problem(text, sizes, TC_ESTIMATE, &user, &storage, &which, &err) == TC_OK)
        p = tc_plan_create_with(&user, TC_ESTIMATE, &o, &err);
    if (!p) {
        fprintf(stderr, "release_rss: %s: %s\n", text, err.message);
        return -1;
    }
    double *A = calloc((size_t)na, sizeof *A), *B = calloc((size_t)nb, sizeof *B);
    double *C = calloc((size_t)nc, sizeof *C);
    int rc = A && B && C ? 0 : -1;
    for (int k = 0; k < 2 && rc == 0; k++)
        rc = tc_execute(p, A, B, C) == TC_OK ? 0 : -1;
    printf("%s: %s, %zu bytes of temporaries\n", text, tc_plan_algorithm(p),
           tc_plan_workspace_bytes(p));
    free(A);
    free(B);
    free(C);
    tc_plan_destroy(p);
    return rc;
}

int main(void)
{
    double x[64] = {0}, y[64] = {0}, z[64] = {0};
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 8, 8, 8, 1.0, x, 8, y, 8, 0.0, z, 8);
    double before = resident_mib();
    /* the CCSD ring term (its best algorithms permute whole tensors of 8 MiB)
     * and the ladder */
    const long v = 64, o = 16;
    if (run("R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", "a=b=e=64,i=j=m=16",
            1u << TC_FAMILY_PERMUTED, v * v * o * o, o * v * v * o, v * v * o * o) ||
        run("R[a,b,i,j] += W[a,b,e,f] * T[e,f,i,j]", "a=b=e=f=64,i=j=16", 0, v * v * v * v,
            v * v * o * o, v * v * o * o))
        return 2;
    double kept = resident_mib();
    tc_release_workspace();
    double after = resident_mib();
    printf("before %.1f kept %.1f after %.1f (MiB resident)\n", before, kept, after);
    if (kept - before < 8.0) { /* the ring term's 8 MiB temporary, kept for the next call */
        fprintf(stderr, "release_rss: nothing was kept to release\n");
        return 2;
    }
    return after - before <= LIMIT_MB ? 0 : 1;
}
