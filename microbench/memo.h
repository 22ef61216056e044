/*
 * memo.h - the sampler's memo: the median time of every distinct case,
 * keyed by its canonical description (a string built by sample.c).
 * An open-addressing hash table (FNV-1a, linear probing) that doubles when
 * half full, so a lookup costs O(key length) however many cases it holds.
 */
#ifndef TC_MICROBENCH_MEMO_H
#define TC_MICROBENCH_MEMO_H

#include <stdint.h>

typedef struct tc_mb_memo tc_mb_memo;

/* An empty memo, or NULL when out of memory. Free with tc_mb_memo_free(). */
tc_mb_memo *tc_mb_memo_new(void);
/* NULL is a no-op. */
void tc_mb_memo_free(tc_mb_memo *m);

/* 1 and *seconds when key is remembered, else 0. */
int tc_mb_memo_find(const tc_mb_memo *m, const char *key, double *seconds);

/* Remembers (a copy of) key with seconds, replacing an earlier value.
 * 0, or -1 when out of memory (the memo is then unchanged). */
int tc_mb_memo_put(tc_mb_memo *m, const char *key, double seconds);

/* Keys remembered. */
int64_t tc_mb_memo_count(const tc_mb_memo *m);

#endif
