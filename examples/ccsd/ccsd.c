/*
 * ccsd.c - three terms of the coupled-cluster doubles residual through
 * tcgen's plan API.
 *
 *   ccsd [O V [WISDOM_FILE]]   O occupied, V virtual orbitals (default 10 32);
 *                              wisdom goes to WISDOM_FILE (default ccsd.wisdom)
 *
 * 1. Plans every term with TC_ESTIMATE: tcgen ranks all algorithms by
 *    predicted time (micro-benchmarks, nothing is run on the tensors).
 * 2. Exports the decisions as wisdom, forgets them, shows that TC_WISDOM_ONLY
 *    now refuses, imports the file and plans again with TC_WISDOM_ONLY: the
 *    same algorithms, without any benchmarking.
 * 3. Runs each plan, compares it with naive loops and prints the algorithm,
 *    predicted and measured seconds per execution and the largest error.
 *
 * Exit status 0 when every term matches, 1 otherwise.
 * Tensors are column-major (Fortran order), tcgen's default.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tcgen.h>

/* Column-major offset of element (p,q,r,s) of an n1 x n2 x n3 x . tensor. */
#define AT(p, q, r, s, n1, n2, n3) ((p) + (n1) * ((q) + (n2) * ((r) + (n3) * (s))))

/* The residual R[a,b,i,j] is v x v x o x o in every term. */
typedef void naive_fn(size_t o, size_t v, const double *A, const double *B, const double *R0,
                      double *ref, double *mag);

typedef struct term {
    const char *name;
    const char *contraction;
    const char *virt, *occ; /* the indices of each kind, for the sizes */
    const char *shape_a, *shape_b; /* 'o' or 'v' per dimension of A and B */
    naive_fn *naive;
    tc_plan *estimated, *remembered;
} term;

/* R[a,b,i,j] += 0.5 * W[a,b,e,f] * T[e,f,i,j]: particle-particle ladder. */
static void naive_ladder(size_t o, size_t v, const double *W, const double *T, const double *R0,
                         double *ref, double *mag)
{
    for (size_t j = 0; j < o; j++)
        for (size_t i = 0; i < o; i++)
            for (size_t b = 0; b < v; b++)
                for (size_t a = 0; a < v; a++) {
                    double s = 0, m = 0;
                    for (size_t f = 0; f < v; f++)
                        for (size_t e = 0; e < v; e++) {
                            double x = W[AT(a, b, e, f, v, v, v)] * T[AT(e, f, i, j, v, v, o)];
                            s += x;
                            m += fabs(x);
                        }
                    size_t r = AT(a, b, i, j, v, v, o);
                    ref[r] = R0[r] + 0.5 * s;
                    mag[r] = fabs(R0[r]) + 0.5 * m;
                }
}

/* R[a,b,i,j] += 0.5 * T[a,b,m,n] * W[m,n,i,j]: hole-hole ladder. */
static void naive_hole_ladder(size_t o, size_t v, const double *T, const double *W,
                              const double *R0, double *ref, double *mag)
{
    for (size_t j = 0; j < o; j++)
        for (size_t i = 0; i < o; i++)
            for (size_t b = 0; b < v; b++)
                for (size_t a = 0; a < v; a++) {
                    double s = 0, mg = 0;
                    for (size_t n = 0; n < o; n++)
                        for (size_t m = 0; m < o; m++) {
                            double x = T[AT(a, b, m, n, v, v, o)] * W[AT(m, n, i, j, o, o, o)];
                            s += x;
                            mg += fabs(x);
                        }
                    size_t r = AT(a, b, i, j, v, v, o);
                    ref[r] = R0[r] + 0.5 * s;
                    mag[r] = fabs(R0[r]) + 0.5 * mg;
                }
}

/* R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]: ring (particle-hole) term. */
static void naive_ring(size_t o, size_t v, const double *T, const double *W, const double *R0,
                       double *ref, double *mag)
{
    for (size_t j = 0; j < o; j++)
        for (size_t i = 0; i < o; i++)
            for (size_t b = 0; b < v; b++)
                for (size_t a = 0; a < v; a++) {
                    double s = 0, mg = 0;
                    for (size_t m = 0; m < o; m++)
                        for (size_t e = 0; e < v; e++) {
                            double x = T[AT(a, e, i, m, v, v, o)] * W[AT(m, b, e, j, o, v, v)];
                            s += x;
                            mg += fabs(x);
                        }
                    size_t r = AT(a, b, i, j, v, v, o);
                    ref[r] = R0[r] + s;
                    mag[r] = fabs(R0[r]) + mg;
                }
}

static term terms[] = {
    {"ladder", "R[a,b,i,j] += 0.5 * W[a,b,e,f] * T[e,f,i,j]", "abef", "ij", "vvvv", "vvoo",
     naive_ladder, NULL, NULL},
    {"hole_ladder", "R[a,b,i,j] += 0.5 * T[a,b,m,n] * W[m,n,i,j]", "ab", "ijmn", "vvoo", "oooo",
     naive_hole_ladder, NULL, NULL},
    {"ring", "R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]", "abe", "ijm", "vvoo", "ovvo", naive_ring,
     NULL, NULL},
};
enum { NTERMS = sizeof terms / sizeof terms[0] };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "a=b=e=f=32,i=j=10" from the term's index kinds. */
static void term_sizes(const term *t, size_t o, size_t v, char *buf, size_t len)
{
    size_t at = 0;
    const char *kinds[2] = {t->virt, t->occ};
    size_t extent[2] = {v, o};
    for (int k = 0; k < 2; k++) {
        for (const char *c = kinds[k]; *c; c++)
            at += (size_t)snprintf(buf + at, len - at, "%c=", *c);
        at += (size_t)snprintf(buf + at, len - at, "%zu%s", extent[k], k == 0 ? "," : "");
    }
}

static size_t elements(const char *shape, size_t o, size_t v)
{
    size_t n = 1;
    for (const char *c = shape; *c; c++)
        n *= *c == 'o' ? o : v;
    return n;
}

/* Pseudo-random values in [-1, 1) with all 53 bits of the mantissa used,
   so that a different order of summation shows up as a (tiny) error. */
static void fill(double *x, size_t n, unsigned long long *seed)
{
    for (size_t k = 0; k < n; k++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        x[k] = (double)(*seed >> 11) * 0x1p-52 - 1.0;
    }
}

static void report(const char *what, const term *t, const tc_error *err)
{
    fprintf(stderr, "ccsd: %s %s: %s: %s\n", what, t->name, tc_status_name(err->code),
            err->message);
}

/* Seconds per execution, averaged over enough runs to last 50 ms. */
static double time_execution(const tc_plan *p, const double *A, const double *B, double *R)
{
    for (long n = 1;; n *= 2) {
        double t0 = now();
        for (long k = 0; k < n; k++)
            if (tc_execute(p, A, B, R) != TC_OK)
                return -1;
        double dt = now() - t0;
        if (dt >= 0.05 || n >= (1L << 20))
            return dt / (double)n;
    }
}

/* Runs one term, checks it, prints its line. Returns 0 when it matches. */
static int run_term(const term *t, size_t o, size_t v, unsigned long long seed)
{
    size_t na = elements(t->shape_a, o, v), nb = elements(t->shape_b, o, v);
    size_t nr = elements("vvoo", o, v);
    double *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B);
    double *R0 = malloc(nr * sizeof *R0), *R = malloc(nr * sizeof *R);
    double *ref = malloc(nr * sizeof *ref), *mag = malloc(nr * sizeof *mag);
    int bad = 1;
    if (!A || !B || !R0 || !R || !ref || !mag) {
        fprintf(stderr, "ccsd: %s: out of memory\n", t->name);
        goto out;
    }
    fill(A, na, &seed);
    fill(B, nb, &seed);
    fill(R0, nr, &seed); /* "+=": the plan must add to what R holds */
    memcpy(R, R0, nr * sizeof *R);

    tc_status s = tc_execute(t->remembered, A, B, R);
    if (s != TC_OK) {
        fprintf(stderr, "ccsd: executing %s: %s\n", t->name, tc_status_name(s));
        goto out;
    }
    t->naive(o, v, A, B, R0, ref, mag);
    /* Error relative to the sum of the magnitudes of what was added up:
       a correct algorithm stays within a small multiple of the unit
       roundoff times the contraction length. */
    double worst = 0;
    for (size_t k = 0; k < nr; k++) {
        double d = fabs(R[k] - ref[k]);
        double e = mag[k] > 0 ? d / mag[k] : (d > 0 ? INFINITY : 0);
        if (!(e <= worst)) /* also catches NaN */
            worst = e;
    }
    bad = !(worst <= 1e-12);
    double measured = time_execution(t->remembered, A, B, R);
    printf("  %-12s %-16s %11.3e %11.3e %13.1e  %s\n", t->name, tc_plan_algorithm(t->remembered),
           tc_plan_predicted_seconds(t->remembered), measured, worst, bad ? "MISMATCH" : "ok");
out:
    free(A), free(B), free(R0), free(R), free(ref), free(mag);
    return bad;
}

static int parse_count(const char *s, size_t *out)
{
    char *end;
    unsigned long n = strtoul(s, &end, 10);
    if (*s < '1' || *s > '9' || *end || n > 1000)
        return -1;
    *out = n;
    return 0;
}

int main(int argc, char **argv)
{
    size_t o = 10, v = 32;
    const char *wisdom = argc > 3 ? argv[3] : "ccsd.wisdom";
    if (argc == 2 || argc > 4 || (argc > 2 && (parse_count(argv[1], &o) || parse_count(argv[2], &v)))) {
        fprintf(stderr, "usage: ccsd [O V [WISDOM_FILE]]   (O, V: 1 to 1000 orbitals)\n");
        return 2;
    }
    printf("ccsd: o=%zu v=%zu, %d doubles terms, tcgen %s\n", o, v, (int)NTERMS, tc_version());

    int failed = 0, status = 1;
    tc_error err;
    char sizes[128];

    /* 1. Rank every algorithm of every term by predicted time. */
    printf("planning with TC_ESTIMATE:\n");
    for (int k = 0; k < NTERMS; k++) {
        term *t = &terms[k];
        term_sizes(t, o, v, sizes, sizeof sizes);
        double t0 = now();
        t->estimated = tc_plan_create(t->contraction, sizes, TC_ESTIMATE, &err);
        if (!t->estimated) {
            report("planning", t, &err);
            goto done;
        }
        printf("  %-12s %-44s %-8s %-16s planned in %.6f s\n", t->name, t->contraction,
               tc_plan_origin(t->estimated), tc_plan_algorithm(t->estimated), now() - t0);
    }

    /* 2. Wisdom: export, forget, import; the second planning benchmarks nothing. */
    if (tc_wisdom_export_file(wisdom, &err) != TC_OK) {
        fprintf(stderr, "ccsd: exporting wisdom: %s\n", err.message);
        goto done;
    }
    tc_wisdom_forget();
    term_sizes(&terms[0], o, v, sizes, sizeof sizes);
    tc_plan *none = tc_plan_create(terms[0].contraction, sizes, TC_WISDOM_ONLY, &err);
    if (none || err.code != TC_EINPUT) {
        fprintf(stderr, "ccsd: TC_WISDOM_ONLY planned %s with no wisdom\n", terms[0].name);
        tc_plan_destroy(none);
        failed = 1;
    } else {
        printf("wisdom exported to %s and forgotten; TC_WISDOM_ONLY refuses: %s\n", wisdom,
               err.message);
    }
    if (tc_wisdom_import_file(wisdom, &err) != TC_OK) {
        fprintf(stderr, "ccsd: importing wisdom: %s\n", err.message);
        goto done;
    }
    printf("wisdom imported from %s; planning with TC_WISDOM_ONLY:\n", wisdom);
    for (int k = 0; k < NTERMS; k++) {
        term *t = &terms[k];
        term_sizes(t, o, v, sizes, sizeof sizes);
        double t0 = now();
        t->remembered = tc_plan_create(t->contraction, sizes, TC_WISDOM_ONLY, &err);
        if (!t->remembered) {
            report("planning from wisdom", t, &err);
            goto done;
        }
        const char *same = strcmp(tc_plan_algorithm(t->remembered),
                                  tc_plan_algorithm(t->estimated)) == 0 ? "same" : "DIFFERENT";
        printf("  %-12s %-8s %-16s planned in %.6f s (%s algorithm)\n", t->name,
               tc_plan_origin(t->remembered), tc_plan_algorithm(t->remembered), now() - t0, same);
        if (strcmp(tc_plan_origin(t->remembered), "wisdom") != 0 || strcmp(same, "same") != 0)
            failed = 1;
    }

    /* 3. Run and check. */
    printf("executing (seconds per execution; error relative to the sum of |terms|):\n");
    printf("  %-12s %-16s %11s %11s %13s  %s\n", "term", "algorithm", "predicted", "measured",
           "max_error", "check");
    int mismatches = 0;
    for (int k = 0; k < NTERMS; k++)
        mismatches += run_term(&terms[k], o, v, 12345u + (unsigned)k);
    if (mismatches || failed)
        printf("ccsd: FAILED (%d of %d terms wrong%s)\n", mismatches, (int)NTERMS,
               failed ? ", wisdom did not behave" : "");
    else
        printf("ccsd: all %d terms ok\n", (int)NTERMS);
    status = mismatches || failed;
done:
    for (int k = 0; k < NTERMS; k++) {
        tc_plan_destroy(terms[k].estimated);
        tc_plan_destroy(terms[k].remembered);
    }
    return status;
}
