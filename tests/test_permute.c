/*
 * test_permute.c - the rank-n permutation copy (runtime/permute.h) against
 * an element-by-element walk of the same views: every permutation of
 * ranks 1 to 4, random ranks up to TC_MAX_RANK with extents that are not
 * multiples of the tile, padded strides, beta 0 over NaN, beta 1 and -0.5,
 * streamed views with long and short extents at every alignment, extents
 * 0 and rank 0.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/permute.h"
#include "tests/helpers_corpus.h"

/* A deterministic generator, so a failure reproduces. */
static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 33;
}

static int64_t volume(const tc_permute *p, const int64_t *stride)
{
    int64_t v = 1;
    for (int i = 0; i < p->rank; i++)
        v += (p->extent[i] - 1) * stride[i];
    return v;
}

/* Checks tc_rt_permute on p against the walk, for one beta, with the
 * destination `shift` elements and the source `src_shift` elements past an
 * allocation's start, on `threads` threads. */
static void check_at(const tc_permute *p, double beta, int shift, int src_shift, int threads)
{
    int64_t ns = volume(p, p->src_stride), nd = volume(p, p->dst_stride);
    double *src_block = malloc((size_t)(ns + src_shift) * sizeof *src_block),
           *src = src_block + src_shift;
    double *block = malloc((size_t)(nd + shift) * sizeof *block), *dst = block + shift;
    double *want = malloc((size_t)nd * sizeof *want);
    CU_ASSERT_FATAL(src_block && block && want);
    for (int64_t i = 0; i < ns; i++)
        src[i] = (double)(rng() % 1000) - 500.0;
    for (int64_t i = 0; i < nd; i++)
        want[i] = dst[i] = beta == 0.0 && i % 3 == 0 ? NAN : (double)(rng() % 100);
    int64_t idx[TC_MAX_RANK] = {0}, count = 1;
    for (int i = 0; i < p->rank; i++)
        count *= p->extent[i];
    for (int64_t e = 0; e < count; e++) { /* odometer over every element */
        int64_t s = 0, d = 0;
        for (int i = 0; i < p->rank; i++) {
            s += idx[i] * p->src_stride[i];
            d += idx[i] * p->dst_stride[i];
        }
        want[d] = beta == 0.0 ? src[s] : src[s] + beta * want[d];
        for (int i = 0; i < p->rank && ++idx[i] == p->extent[i]; i++)
            idx[i] = 0;
    }
    tc_rt_permute(p, TC_TYPE_D, src, dst, beta, 0, threads);
    int64_t bad = 0;
    for (int64_t i = 0; i < nd; i++)
        bad += !(dst[i] == want[i] || (isnan(dst[i]) && isnan(want[i])));
    CU_ASSERT_EQUAL(bad, 0);
    free(src_block);
    free(block);
    free(want);
}

static void check(const tc_permute *p, double beta)
{
    check_at(p, beta, 0, 0, 1);
}

/* Column-major strides in the given order of dimensions, with pad extra
 * elements after the first dimension (a leading dimension larger than the
 * extent). */
static void strides(tc_permute *p, const int *order, int64_t pad, int64_t *stride)
{
    int64_t s = 1;
    for (int k = 0; k < p->rank; k++) {
        stride[order[k]] = s;
        s *= p->extent[order[k]] + (k == 0 ? pad : 0);
    }
}

static void test_every_permutation(void)
{
    static const int64_t ext[] = {37, 5, 70, 3};
    rng_state = 1;
    for (int rank = 1; rank <= 4; rank++) {
        tc_permute p = {.rank = rank};
        int id[TC_MAX_RANK], perm[TC_MAX_RANK];
        for (int i = 0; i < rank; i++)
            p.extent[i] = ext[i], id[i] = perm[i] = i;
        strides(&p, id, 0, p.src_stride);
        do {
            strides(&p, perm, 0, p.dst_stride);
            check(&p, 0.0);
            check(&p, 1.0);
        } while (tc_corpus_next_permutation(perm, rank));
    }
}

static void test_random_views(void)
{
    rng_state = 7;
    for (int t = 0; t < 300; t++) {
        tc_permute p = {.rank = 1 + (int)(rng() % TC_MAX_RANK)};
        int64_t count = 1;
        int a[TC_MAX_RANK], b[TC_MAX_RANK];
        for (int i = 0; i < p.rank; i++) {
            int64_t cap = 40000 / count > 1 ? 40000 / count : 1;
            p.extent[i] = 1 + (int64_t)(rng() % (uint64_t)(cap < 80 ? cap : 80));
            count *= p.extent[i];
            a[i] = b[i] = i;
        }
        for (int i = p.rank - 1; i > 0; i--) { /* two random orders */
            int j = (int)(rng() % (uint64_t)(i + 1)), x = a[i];
            a[i] = a[j], a[j] = x;
            j = (int)(rng() % (uint64_t)(i + 1)), x = b[i];
            b[i] = b[j], b[j] = x;
        }
        strides(&p, a, (int64_t)(rng() % 3), p.src_stride);
        strides(&p, b, (int64_t)(rng() % 3), p.dst_stride);
        check(&p, t % 3 == 0 ? 0.0 : t % 3 == 1 ? 1.0 : -0.5);
    }
}

/* Destinations of 4 MiB and more are written with streaming stores, in
 * whole lines: every permutation of tensors of 4.2-4.6 MiB, the
 * destination and the source (whose lines the tiles follow) at every
 * alignment within a line, and with beta. 72 x 96 x 80: rows that start
 * on lines (tiles of 8 x 2 blocks); 73 x 96 x 77: rows that do not (lines
 * gathered); 40 x 200 x 72: a short inner dimension whose source rows the
 * next one continues (looped inside the band). */
static void test_large_views(void)
{
    static const int64_t shapes[3][3] = {{72, 96, 80}, {73, 96, 77}, {40, 200, 72}};
    rng_state = 11;
    for (int sh = 0; sh < 3; sh++) {
        tc_permute p = {.rank = 3, .extent = {shapes[sh][0], shapes[sh][1], shapes[sh][2]}};
        int id[3] = {0, 1, 2}, perm[3] = {0, 1, 2};
        strides(&p, id, 0, p.src_stride);
        int shift = 0;
        do {
            strides(&p, perm, 0, p.dst_stride);
            for (int k = 0; k < 3; k++, shift = (shift + 3) % 8)
                check_at(&p, 0.0, shift, (shift + 5) % 8, 1 + k % 3);
            check_at(&p, -2.0, shift, shift, 2);
        } while (tc_corpus_next_permutation(perm, 3));
    }
}

/* Streamed views with short extents: 13 x 17 x 40 x 60 (4.0 MiB), every
 * permutation, the destination at two alignments: blocks transposed
 * through a buffer where the destination's first dimensions hold the
 * source's unit-stride one ([b,a,c,d]; [c,a,b,d] with a,b fused and split
 * 17 x 13), short runs fused into longer ones (the fused path), and where
 * dimension 0 stays first, its 13-element runs staged in blocks. */
static void test_short_extents(void)
{
    tc_permute p = {.rank = 4, .extent = {13, 17, 40, 60}};
    int id[4] = {0, 1, 2, 3}, perm[4] = {0, 1, 2, 3};
    rng_state = 13;
    strides(&p, id, 0, p.src_stride);
    int shift = 0;
    do {
        strides(&p, perm, 0, p.dst_stride);
        for (int k = 0; k < 2; k++, shift = (shift + 3) % 8)
            check_at(&p, 0.0, shift, (shift + 1) % 8, 1);
    } while (tc_corpus_next_permutation(perm, 4));
}

/* Streamed views whose source rows are short where the destination's
 * first dimensions do not hold them (the chunked path: runs of the
 * destination by short columns through a buffer): 5 x 7 x 120 x 130
 * (4.4 MiB) and 11 x 11 x 70 x 70 (4.5 MiB), every permutation, columns of
 * one dimension and of two (5 x 7, 11 x 11: 121 of them), dense on 1
 * thread, then with a gap after the first dimension on either side on 2
 * and 3 (slices of the outer dimensions), the destination and the source
 * at several alignments. */
static void test_short_columns(void)
{
    static const int64_t shapes[2][4] = {{5, 7, 120, 130}, {11, 11, 70, 70}};
    rng_state = 17;
    int shift = 0;
    for (int sh = 0; sh < 2; sh++) {
        tc_permute p = {.rank = 4};
        int id[4] = {0, 1, 2, 3}, perm[4] = {0, 1, 2, 3};
        for (int k = 0; k < 4; k++)
            p.extent[k] = shapes[sh][k];
        do {
            for (int pad = 0; pad < 3; pad++) {
                strides(&p, id, pad == 1 ? 3 : 0, p.src_stride);
                strides(&p, perm, pad == 2 ? 5 : 0, p.dst_stride);
                check_at(&p, 0.0, shift, (shift + 1) % 8, 1 + pad);
                shift = (shift + 3) % 8;
            }
        } while (tc_corpus_next_permutation(perm, 4));
    }
}

/* Streamed 11^6 transposes whose first dimensions on the two sides share
 * some (the wide path: blocks of 11^4 elements whose source runs and
 * destination runs are 1331 long, gathered run by run while the next
 * block's source is asked for; where the unit-stride dimension is the same
 * but short, 051324; with destination runs of 14641, 304152; 251043 and
 * 312045, whose runs lie an element apart in the source and advance
 * together, a round of lines each; 014532, whose runs of 121 on both
 * sides take the plain runs instead),
 * the destination and the source at several alignments, on 1 to 3
 * threads (slices of the blocks' outer dimensions), and one with a gap
 * after the first destination dimension (no run that long: another path). */
static void test_wide_blocks(void)
{
    static const char *const perms[] = {"250413", "051324", "304152", "251043",
                                        "312045", "014532", "310542"};
    tc_permute p = {.rank = 6};
    int id[6] = {0, 1, 2, 3, 4, 5}, perm[6];
    rng_state = 19;
    for (int k = 0; k < 6; k++)
        p.extent[k] = 11;
    strides(&p, id, 0, p.src_stride);
    for (int q = 0; q < (int)(sizeof perms / sizeof perms[0]); q++) {
        for (int k = 0; k < 6; k++)
            perm[k] = perms[q][k] - '0';
        strides(&p, perm, 0, p.dst_stride);
        check_at(&p, 0.0, q % 8, (q + 3) % 8, 1 + q % 3);
    }
    for (int k = 0; k < 6; k++)
        perm[k] = perms[0][k] - '0';
    strides(&p, perm, 0, p.dst_stride);
    check_at(&p, 0.0, 3, 0, 2);
    strides(&p, perm, 1, p.dst_stride);
    check_at(&p, 0.0, 0, 5, 1);
}

/* Streamed views the tiled path takes (tiles of the destination's first
 * dimensions by the source's, through a buffer, the next tile's source
 * asked for meanwhile): 35 x 30 x 27 x 44 (10 MiB), every permutation
 * (sixteen tiled: ten with runs of 108-220 elements, not all multiples
 * of a line, by 35, 50 or 75 columns, some cut from a longer dimension;
 * six whose destination runs continue into the columns, [b,a,..] and
 * [c,a,..], streamed out 35-210 columns' runs at once) dense on 1
 * thread, then with a gap after the first dimension on either side on 2
 * and 3 (slices of the outer dimensions; other paths where the gap breaks
 * a run), the destination and the source at several alignments; and a
 * 2-D transpose of 300 x 2000 (a fused path's, tiled). */
static void test_tiles(void)
{
    tc_permute p = {.rank = 4, .extent = {35, 30, 27, 44}};
    int id[4] = {0, 1, 2, 3}, perm[4] = {0, 1, 2, 3}, shift = 0;
    rng_state = 23;
    do {
        for (int pad = 0; pad < 3; pad++) {
            strides(&p, id, pad == 1 ? 3 : 0, p.src_stride);
            strides(&p, perm, pad == 2 ? 5 : 0, p.dst_stride);
            check_at(&p, 0.0, shift, (shift + 5) % 8, 1 + pad);
            shift = (shift + 3) % 8;
        }
    } while (tc_corpus_next_permutation(perm, 4));
    tc_permute t = {.rank = 2, .extent = {300, 2000}};
    int swap[2] = {1, 0};
    strides(&t, id, 0, t.src_stride);
    strides(&t, swap, 0, t.dst_stride);
    check_at(&t, 0.0, 1, 0, 1);
    check_at(&t, 0.0, 0, 3, 2);
}

/* Split over threads (above TCGEN_PERMUTE_SPLIT elements): every
 * permutation of a 4-index view, on 2 and 3 threads (slices of the
 * outermost dimension, or of the two outermost where the first has fewer
 * than 4 per thread: 5 x 16 x ... splits both), overwriting and with beta. */
static void test_split(void)
{
    static const int64_t ext[4] = {24, 20, 5, 150};
    rng_state = 13;
    tc_permute p = {.rank = 4, .extent = {ext[0], ext[1], ext[2], ext[3]}};
    int id[4] = {0, 1, 2, 3}, perm[4] = {0, 1, 2, 3};
    strides(&p, id, 0, p.src_stride);
    do {
        strides(&p, perm, 0, p.dst_stride);
        for (int threads = 2; threads <= 3; threads++) {
            check_at(&p, 0.0, 0, 0, threads);
            check_at(&p, 0.5, 1, 0, threads);
        }
    } while (tc_corpus_next_permutation(perm, 4));
}

/* Split inside the path (views with no outer dimension, streamed): every
 * permutation of 28^4 (the 2-D transposes of 784 x 784 take the fused
 * path, split by its chunks of columns; those whose columns are short the
 * chunked path, split by its chunks of the one run) and two of 10^6 (the
 * reversal: chunked), on 2 and 3 threads, the destination off a line. */
static void test_split_inside(void)
{
    rng_state = 17;
    tc_permute p = {.rank = 4, .extent = {28, 28, 28, 28}};
    int id[6] = {0, 1, 2, 3, 4, 5}, perm[4] = {0, 1, 2, 3};
    strides(&p, id, 0, p.src_stride);
    do {
        strides(&p, perm, 0, p.dst_stride);
        for (int threads = 2; threads <= 3; threads++)
            check_at(&p, 0.0, 1, 0, threads);
    } while (tc_corpus_next_permutation(perm, 4));
    static const int six[2][6] = {{5, 4, 3, 2, 1, 0}, {5, 3, 4, 2, 0, 1}};
    tc_permute q = {.rank = 6, .extent = {10, 10, 10, 10, 10, 10}};
    strides(&q, id, 0, q.src_stride);
    for (int k = 0; k < 2; k++) {
        strides(&q, six[k], 0, q.dst_stride);
        for (int threads = 2; threads <= 3; threads++)
            check_at(&q, 0.0, 3, 0, threads);
    }
}

static void test_empty_and_scalar(void)
{
    double src[4] = {1, 2, 3, 4}, dst[4] = {9, 9, 9, 9};
    tc_permute p = {.rank = 2, .extent = {0, 4}, .src_stride = {1, 1}, .dst_stride = {4, 1}};
    tc_rt_permute(&p, TC_TYPE_D, src, dst, 0.0, 0, 1);
    CU_ASSERT_EQUAL(dst[0], 9.0); /* nothing to copy: dst untouched */
    tc_permute s = {.rank = 0};
    tc_rt_permute(&s, TC_TYPE_D, src + 2, dst, 2.0, 0, 1);
    CU_ASSERT_EQUAL(dst[0], 3.0 + 2.0 * 9.0);
    CU_ASSERT_EQUAL(dst[1], 9.0);
}

int tc_suite_permute(void)
{
    CU_pSuite s = CU_add_suite("permute", NULL, NULL);
    if (!s || !CU_add_test(s, "every permutation of ranks 1-4", test_every_permutation) ||
        !CU_add_test(s, "random views up to the maximum rank", test_random_views) ||
        !CU_add_test(s, "large views: streaming stores at any alignment", test_large_views) ||
        !CU_add_test(s, "wide blocks: long runs on both sides of 11^6", test_wide_blocks) ||
        !CU_add_test(s, "large views: short extents fused or staged", test_short_extents) ||
        !CU_add_test(s, "large views: short columns chunked", test_short_columns) ||
        !CU_add_test(s, "large views: tiles through a buffer", test_tiles) ||
        !CU_add_test(s, "split: slices over threads, every permutation", test_split) ||
        !CU_add_test(s, "split: inside the path where no dimension is outside it",
                     test_split_inside) ||
        !CU_add_test(s, "extent 0 and rank 0", test_empty_and_scalar))
        return 1;
    return 0;
}
