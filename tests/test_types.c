/*
 * test_types.c - float, double, float complex and double complex: every
 * algorithm of every corpus contraction (and its loops split over 2
 * threads) executed in each type through OpenBLAS's s, d, c and z kernels,
 * with beta 0 (C holding NaN that must not survive), 1 and a third value
 * (complex for complex types, with a complex alpha), on dense tensors and
 * on tiles with gaps (dense C of beta 0 all NaN; the gaps compared too,
 * so a gap written fails); each compared with the naive reference in the same
 * type within 100 units of the type's epsilon times the contraction
 * length. Plus the type table, the kernel names per type and the bytes.
 */
#include <CUnit/CUnit.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ast/kernel.h"
#include "generator/generator.h"
#include "runtime/blas.h"
#include "runtime/execute.h"
#include "runtime/memory.h"
#include "runtime/permute.h"
#include "runtime/reference.h"
#include "tcgen.h"
#include "tests/helpers_corpus.h"

static tc_blas *blas;

static int suite_init(void)
{
    tc_error e;
    return tc_rt_blas_load("openblas", 1, &blas, &e) == TC_OK ? 0 : -1;
}

static int suite_clean(void)
{
    tc_rt_blas_unload(blas);
    return 0;
}

/* Reals per element. */
static int reals(tc_type t)
{
    return tc_type_row_of(t)->reals;
}

/* n elements of type t, each real random in [-1, 1) (nan: all NaN). */
static void *typed_new(tc_type t, int64_t n, uint64_t *state, int nan)
{
    int64_t r = n * reals(t);
    double *x = tc_rt_alloc(tc_type_words(TC_TYPE_D, r), NULL);
    if (!x)
        return NULL;
    tc_corpus_fill(x, r, state);
    for (int64_t k = 0; nan && k < r; k++)
        x[k] = NAN;
    if (tc_type_row_of(t)->real_bytes == 4) { /* to floats, in place, front to back */
        float *f = (float *)(void *)x;
        for (int64_t k = 0; k < r; k++)
            f[k] = (float)x[k];
    }
    return x;
}

/* Largest |got - want| over n elements of type t relative to max(1, max
 * |want|), NaN counting as infinite. */
static double typed_relerr(tc_type t, const void *got, const void *want, int64_t n)
{
    double err = 0.0, big = 1.0;
    const int single = tc_type_row_of(t)->real_bytes == 4;
    for (int64_t k = 0; k < n * reals(t); k++) {
        double g = single ? ((const float *)got)[k] : ((const double *)got)[k];
        double w = single ? ((const float *)want)[k] : ((const double *)want)[k];
        double d = fabs(g - w);
        if (isnan(d))
            return INFINITY;
        err = d > err ? d : err;
        big = fabs(w) > big ? fabs(w) : big;
    }
    return err / big;
}

/* The contraction length: the product of the contracted sizes. */
static double length(const tc_contraction *c)
{
    double n = 1.0;
    for (int i = 0; i < c->nindex; i++)
        if (c->index[i].role == TC_ROLE_CONTRACTED)
            n *= (double)c->index[i].size;
    return n;
}

/* Every algorithm of c (type and scalars set) against the reference; the
 * failures. */
static int check_type(const tc_contraction *c, const char *text, uint64_t seed, int *nrun)
{
    tc_algorithm_set *set = NULL;
    tc_error e;
    if (tc_gen_enumerate_families(c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e) != TC_OK ||
        tc_gen_add_threaded(set, c, 2, &e) != TC_OK) {
        tc_alg_set_free(set);
        fprintf(stderr, "\n  %s: %s\n", text, e.message);
        return 1;
    }
    uint64_t state = seed;
    const tc_type t = c->type;
    const int64_t nc = c->tensor[TC_C].span, bytes = tc_type_row_of(t)->bytes;
    const int zero_beta = c->beta == 0.0 && c->beta_im == 0.0;
    void *A = typed_new(t, c->tensor[TC_A].span, &state, 0),
         *B = typed_new(t, c->tensor[TC_B].span, &state, 0),
         *C0 = typed_new(t, nc, &state, zero_beta && !tc_contraction_strided(c)), *want = typed_new(t, nc, &state, 0),
         *got = typed_new(t, nc, &state, 0);
    int bad = !A || !B || !C0 || !want || !got;
    if (!bad) {
        memcpy(want, C0, (size_t)(nc * bytes));
        tc_rt_reference(c, A, B, want);
    }
    const double tol = 100.0 * tc_type_row_of(t)->epsilon * length(c);
    for (int i = 0; !bad && i < set->count; i++) {
        const tc_algorithm *alg = set->alg[i];
        memcpy(got, C0, (size_t)(nc * bytes));
        tc_status s = tc_rt_execute(blas, alg, c, A, B, got, &e);
        double err = s == TC_OK ? typed_relerr(t, got, want, nc) : INFINITY;
        (*nrun)++;
        if (!(err <= tol)) {
            fprintf(stderr, "\n  %s, %s, beta %g%+gi: %s: %s (relative error %g)\n", text,
                    tc_type_row_of(t)->c_name, c->beta, c->beta_im, alg->name,
                    s == TC_OK ? "wrong result" : e.message, err);
            bad++;
        }
    }
    tc_rt_free(A);
    tc_rt_free(B);
    tc_rt_free(C0);
    tc_rt_free(want);
    tc_rt_free(got);
    tc_alg_set_free(set);
    return bad;
}

static void test_corpus(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), runs = 0;
    static const double betas[3][2] = {{0.0, 0.0}, {1.0, 0.0}, {-0.5, 0.75}};
    for (int t = 0; t < TC_TYPE_COUNT; t++)
        for (int i = 0; i < n; i++) {
            tc_contraction c = corpus[i].c;
            const double *beta = betas[(i + t) % 3];
            CU_ASSERT_EQUAL_FATAL(tc_contraction_set_type(&c, (tc_type)t, NULL), TC_OK);
            c.beta = beta[0];
            c.alpha = 0.75;
            if (tc_type_row_of((tc_type)t)->is_complex)
                c.beta_im = beta[1], c.alpha_im = -1.25;
            if (i % 4 == 3)
                CU_ASSERT_EQUAL(tc_corpus_with_gaps(&c, &c, NULL), 0);
            CU_ASSERT_EQUAL(check_type(&c, corpus[i].text, 9000 + (uint64_t)(i + 100 * t), &runs),
                            0);
        }
    CU_ASSERT(runs > 10000);
    fprintf(stderr, "[%d contractions x 4 types, %d executions]\n", n, runs);
}

/* Every corpus contraction ranked (every candidate predicted: the sampler
 * times each case in its type, its operands in that type's bytes) and
 * measured in float, float complex and double complex; under the
 * sanitizers, an operand sized in the wrong unit is an overflow. */
static void test_predicted(void)
{
    static const unsigned flags[3] = {TC_SINGLE, TC_SINGLE | TC_COMPLEX, TC_COMPLEX};
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), planned = 0;
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < n; i += 1 + t) {
            tc_error e;
            tc_plan *p = tc_plan_create(corpus[i].text, corpus[i].sizes,
                                        (i % 2 ? TC_MEASURE : TC_ESTIMATE) | flags[t], &e);
            CU_ASSERT_PTR_NOT_NULL(p);
            if (!p) {
                fprintf(stderr, "\n  %s: %s\n", corpus[i].text, e.message);
                continue;
            }
            CU_ASSERT(tc_plan_predicted_seconds(p) > 0.0);
            planned++;
            tc_plan_destroy(p);
        }
    tc_wisdom_forget();
    CU_ASSERT(planned > 40);
}

/* Random permutations (rank 1 to 4, extents 1 to 9, both sides dense in
 * random orders, beta 0 and 0.5) in every type against a plain loop: the
 * float plane's 4 x 4 transposes and edges, float pairs moved as doubles,
 * complex as reals. */
static void test_permute_types(void)
{
    uint64_t state = 4242;
    int runs = 0, bad = 0;
    for (int trial = 0; trial < 400; trial++)
        for (int t = 0; t < TC_TYPE_COUNT; t++) {
            tc_permute v = {.rank = 1 + trial % 4};
            int64_t n = 1, sd = 1, order[TC_MAX_RANK];
            for (int k = 0; k < v.rank; k++) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                v.extent[k] = 1 + (int64_t)(state >> 33) % 9;
                v.src_stride[k] = n, n *= v.extent[k], order[k] = k;
            }
            for (int k = v.rank - 1; k > 0; k--) { /* the destination's order: shuffled */
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                int j = (int)((state >> 33) % (uint64_t)(k + 1)), x = (int)order[k];
                order[k] = order[j], order[j] = x;
            }
            for (int k = 0; k < v.rank; k++)
                v.dst_stride[order[k]] = sd, sd *= v.extent[order[k]];
            const tc_type_row *r = tc_type_row_of((tc_type)t);
            double beta = trial % 2 ? 0.5 : 0.0;
            uint64_t fill = 7 + (uint64_t)trial;
            void *src = typed_new((tc_type)t, n, &fill, 0), *dst = typed_new((tc_type)t, n, &fill, 0),
                 *want = tc_rt_alloc(tc_type_words((tc_type)t, n), NULL);
            CU_ASSERT_FATAL(src && dst && want);
            memcpy(want, dst, (size_t)(n * r->bytes));
            int reals = r->reals, single = r->real_bytes == 4;
            int64_t ix[TC_MAX_RANK] = {0}, so = 0, doff = 0;
            for (int64_t e = 0; e < n; e++) { /* the loop: dst = src + beta dst, real by real */
                for (int q = 0; q < reals; q++) {
                    int64_t a = so * reals + q, b = doff * reals + q;
                    if (single)
                        ((float *)want)[b] = ((float *)src)[a] + (float)beta * ((float *)want)[b];
                    else
                        ((double *)want)[b] = ((double *)src)[a] + beta * ((double *)want)[b];
                }
                for (int k = 0; k < v.rank; k++) {
                    so += v.src_stride[k], doff += v.dst_stride[k];
                    if (++ix[k] < v.extent[k])
                        break;
                    so -= ix[k] * v.src_stride[k], doff -= ix[k] * v.dst_stride[k], ix[k] = 0;
                }
            }
            tc_rt_permute(&v, (tc_type)t, src, dst, beta, 0, 1);
            runs++;
            bad += memcmp(dst, want, (size_t)(n * r->bytes)) != 0;
            tc_rt_free(src);
            tc_rt_free(dst);
            tc_rt_free(want);
        }
    CU_ASSERT_EQUAL(bad, 0);
    fprintf(stderr, "[%d permutations, %d wrong]\n", runs, bad);
}

/* n bytes ending where a page no one may read begins (a guard page): a
 * kernel that reads past the end faults. */
static void *at_guard(size_t n, void **map, size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (n + page - 1) / page * page;
    char *m = mmap(NULL, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    mprotect(m + body, page, PROT_NONE);
    *map = m, *len = body + page;
    return m + body - n;
}

/* The dot algorithms of C[a] = A[a,i] * B[i] and C[a] = A[i] * B[a,i] in
 * float complex and double complex, A and B each ending at a guard page:
 * OpenBLAS 0.3.21's cdotu and zdotu read one element past the end of a
 * strided vector, which the executor must not call there. */
static void test_dot_at_page_end(void)
{
    static const char *const text[2] = {"C[a] = A[a,i] * B[i]", "C[a] = A[i] * B[a,i]"};
    for (int t = TC_TYPE_Z; t <= TC_TYPE_C; t++)
        for (int v = 0; v < 2; v++) {
            tc_contraction c;
            CU_ASSERT_EQUAL_FATAL(tc_corpus_parse(text[v], "a=5,i=48", &c, NULL, 0), 0);
            CU_ASSERT_EQUAL_FATAL(tc_contraction_set_type(&c, (tc_type)t, NULL), TC_OK);
            tc_algorithm_set *set = NULL;
            CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, 1u << TC_KERNEL_DDOT,
                                                            TC_FAMILY_MASK_ALL, &set, NULL),
                                  TC_OK);
            void *map[2];
            size_t len[2];
            int64_t bytes = tc_type_row_of((tc_type)t)->bytes;
            void *A = at_guard((size_t)(tc_tensor_bytes(&c, TC_A)), &map[0], &len[0]),
                 *B = at_guard((size_t)(tc_tensor_bytes(&c, TC_B)), &map[1], &len[1]);
            char C[5 * 16], want[5 * 16];
            CU_ASSERT_FATAL(A && B);
            memset(A, 0, (size_t)tc_tensor_bytes(&c, TC_A));
            memset(B, 0, (size_t)tc_tensor_bytes(&c, TC_B));
            memset(want, 0, sizeof want);
            tc_rt_reference(&c, A, B, want);
            for (int i = 0; i < set->count; i++) {
                memset(C, 1, sizeof C);
                CU_ASSERT_EQUAL(tc_rt_execute(blas, set->alg[i], &c, A, B, C, NULL), TC_OK);
                CU_ASSERT(memcmp(C, want, (size_t)(5 * bytes)) == 0);
            }
            CU_ASSERT(set->count > 0);
            munmap(map[0], len[0]);
            munmap(map[1], len[1]);
            tc_alg_set_free(set);
        }
}

/* The table: letters, bytes, names per type, and what the names parse to. */
static void test_table(void)
{
    static const char letters[] = "sdcz";
    static const int bytes[] = {4, 8, 8, 16};
    for (int k = 0; k < 4; k++) {
        int t = tc_type_from_letter(letters[k]);
        CU_ASSERT_FATAL(t >= 0);
        CU_ASSERT_EQUAL(tc_type_from_letter((char)(letters[k] - 'a' + 'A')), t);
        CU_ASSERT_EQUAL(tc_type_row_of((tc_type)t)->bytes, bytes[k]);
        CU_ASSERT_EQUAL(tc_type_words((tc_type)t, 3), (3 * bytes[k] + 7) / 8);
    }
    CU_ASSERT_EQUAL(tc_type_from_letter('h'), -1);
    CU_ASSERT_STRING_EQUAL(tc_kernel_type_name(TC_KERNEL_DGER, TC_TYPE_Z), "zgeru");
    CU_ASSERT_STRING_EQUAL(tc_kernel_type_name(TC_KERNEL_DDOT, TC_TYPE_C), "cdotu");
    CU_ASSERT_STRING_EQUAL(tc_kernel_type_name(TC_KERNEL_DGEMM, TC_TYPE_S), "sgemm");
}

/* Names, bytes and the overflow check follow the type. */
static void test_contraction(void)
{
    tc_contraction c;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(
        tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=3,b=4,i=5", &c, NULL, 0), 0);
    CU_ASSERT_EQUAL(tc_tensor_bytes(&c, TC_A), 15 * 8);
    CU_ASSERT_EQUAL(tc_contraction_set_type(&c, TC_TYPE_Z, &e), TC_OK);
    CU_ASSERT_EQUAL(tc_tensor_bytes(&c, TC_A), 15 * 16);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_EQUAL_FATAL(
        tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set, &e), TC_OK);
    int gemm = 0;
    for (int i = 0; i < set->count; i++) {
        CU_ASSERT_EQUAL(set->alg[i]->type, TC_TYPE_Z);
        CU_ASSERT_PTR_NULL(strstr(set->alg[i]->name, "-d")); /* no double kernel named */
        gemm += strcmp(set->alg[i]->name, "zgemm") == 0 || strstr(set->alg[i]->name, "-zgemm");
    }
    CU_ASSERT(gemm > 0);
    tc_alg_set_free(set);
    /* 2^59 elements fit in double's bytes, not in double complex's */
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a] = A[a,i] * B[i]", "a=1,i=576460752303423488",
                                          &c, NULL, 0), 0);
    CU_ASSERT_EQUAL(tc_contraction_set_type(&c, TC_TYPE_Z, &e), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "double complex"));
    CU_ASSERT_EQUAL(c.type, TC_TYPE_D);
}

/* Streamed float transposes (the blocked path, with its inner dimension
 * split where too long, and the float plane otherwise): every permutation
 * of a 13 x 17 x 40 x 60 float view (2.0 MiB, streamed), the destination
 * at a line start and 3 floats after one, against a loop. */
static void test_float_large(void)
{
    static const int64_t ext[4] = {13, 17, 40, 60};
    const int64_t n = 13 * 17 * 40 * 60;
    float *src = (float *)(void *)tc_rt_alloc(n / 2 + 1, NULL),
          *dst = (float *)(void *)tc_rt_alloc(n / 2 + 8, NULL);
    CU_ASSERT_FATAL(src && dst);
    for (int64_t e = 0; e < n; e++)
        src[e] = (float)(e % 1009) - 500.0f;
    int perm[4] = {0, 1, 2, 3}, bad = 0, runs = 0;
    do {
        tc_permute v = {.rank = 4};
        int64_t sd = 1, ss = 1;
        for (int k = 0; k < 4; k++)
            v.extent[k] = ext[k], v.src_stride[k] = ss, ss *= ext[k];
        for (int k = 0; k < 4; k++)
            v.dst_stride[perm[k]] = sd, sd *= ext[perm[k]];
        for (int shift = 0; shift <= 3; shift += 3, runs++) {
            float *d = dst + shift;
            for (int64_t e = 0; e < n; e++)
                d[e] = NAN; /* beta 0: not read */
            tc_rt_permute(&v, TC_TYPE_S, src, d, 0.0, n, 1);
            int64_t ix[4] = {0}, doff = 0;
            for (int64_t e = 0; e < n; e++) {
                bad += d[doff] != src[e];
                for (int k = 0; k < 4; k++) {
                    doff += v.dst_stride[k];
                    if (++ix[k] < ext[k])
                        break;
                    doff -= ix[k] * v.dst_stride[k];
                    ix[k] = 0;
                }
            }
        }
    } while (tc_corpus_next_permutation(perm, 4));
    CU_ASSERT_EQUAL(runs, 48);
    CU_ASSERT_EQUAL(bad, 0);
    tc_rt_free((double *)(void *)src);
    tc_rt_free((double *)(void *)dst);
}

int tc_suite_types(void)
{
    CU_pSuite s = CU_add_suite("types", suite_init, suite_clean);
    return !s || !CU_add_test(s, "the type table and kernel names", test_table) ||
           !CU_add_test(s, "bytes, names and overflow per type", test_contraction) ||
           !CU_add_test(s, "every algorithm of the corpus in s, d, c, z", test_corpus) ||
           !CU_add_test(s, "the corpus ranked and measured in s, c, z", test_predicted) ||
           !CU_add_test(s, "complex dots on vectors that end a mapping", test_dot_at_page_end) ||
           !CU_add_test(s, "permutations in every type against a loop", test_permute_types) ||
           !CU_add_test(s, "streamed float transposes, every permutation", test_float_large);
}
