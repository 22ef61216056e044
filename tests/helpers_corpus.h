/*
 * helpers_corpus.h - the contraction corpus of the generator, execute and
 * emit suites (tests/data/contractions.txt: "CONTRACTION ; SIZES" lines),
 * random data and comparison.
 */
#ifndef TC_TESTS_HELPERS_CORPUS_H
#define TC_TESTS_HELPERS_CORPUS_H

#include <stdint.h>

#include "ast/contraction.h"

#define TC_CORPUS_MAX 64

typedef struct tc_corpus_entry {
    char text[256];        /* the contraction as written */
    char sizes[256];       /* the sizes as written */
    tc_contraction c;      /* parsed, with sizes */
} tc_corpus_entry;

/* Parses the corpus into *out (at most max entries). Returns the count, or
 * -1 (with a message in msg) when the file is missing or a line is bad. */
int tc_corpus_load(tc_corpus_entry *out, int max, char *msg, size_t msgn);

/* tc_corpus_load into a static array for use inside a CUnit test: prints
 * the reason and fails the test (fatally) unless at least 15 entries load.
 * Returns the count. */
int tc_corpus_require(tc_corpus_entry **out);

/* Parses text and sizes (sizes may be NULL) into *c; 0 on success. */
int tc_corpus_parse(const char *text, const char *sizes, tc_contraction *c,
                    char *msg, size_t msgn);

/*
 * Writes a random contraction into text: 2..max_indices distinct indices
 * with random roles (batch included), 2-6 indices in A and B, at most 6 in
 * C, shuffled; one-letter names, or (one time in three) longer names.
 * If sizes is non-NULL, also random sizes 1..max_size ("a=3,b=1,...").
 */
void tc_corpus_random(uint64_t *state, int max_indices, int max_size, char *text,
                      size_t textn, char *sizes, size_t sizesn);

/* *c with gaps between every tensor's columns: stride k the one before
 * times its size, plus 1 to 3 elements. 0 on success. */
int tc_corpus_with_gaps(const tc_contraction *c, tc_contraction *out, tc_error *e);

/* The next permutation of a[0..n) in lexicographic order; 0 after the last. */
int tc_corpus_next_permutation(int *a, int n);

/* Deterministic uniform numbers in [-1, 1). */
void tc_corpus_fill(double *x, int64_t n, uint64_t *state);

/* Largest |got - want| over n, relative to max(1, max |want|). */
double tc_corpus_relerr(const double *got, const double *want, int64_t n);

#endif
