/*
 * wisdom.h - the process's memory of planning decisions (include/tcgen.h
 * has the public side: import, export, forget).
 *
 * File format (docs/decisions.md), UTF-8 text:
 *   # tcgen wisdom 1                          first line: format and version
 *   # any other line starting with '#' is a comment; blank lines are skipped
 *   CONTRACTION<TAB>SIZES<TAB>LAYOUT<TAB>BLAS<TAB>THREADS<TAB>MACHINE<TAB>ALGORITHM<TAB>SECONDS<TAB>ORIGIN
 * CONTRACTION is the normal form ("C[a,b,c] = A[a,i] * B[i,b,c]"), SIZES
 * "a=400,b=400,c=400,i=8" in index order, LAYOUT col or row, or for a
 * problem over strided views (tiles) col and each tensor's strides,
 * "col;C=1,130,17160;A=1,40;B=1,9" (tc_plan_layout_format), BLAS the
 * library's name, THREADS its thread count, MACHINE the signature of
 * tc_plan_machine_signature, ALGORITHM the chosen name, SECONDS its time,
 * ORIGIN estimate or measure. The first six fields are the key. Any
 * control byte but the tab separator (a NUL included) is damage.
 * tc_wisdom_export_file merges into the file under PATH.lock and replaces
 * it whole (wisdom.c).
 */
#ifndef TC_PLANNER_WISDOM_H
#define TC_PLANNER_WISDOM_H

#include "tcgen.h"

#define TC_WISDOM_NAME_MAX 512 /* bytes of an algorithm name, with NUL */

typedef struct tc_wisdom_entry {
    char contraction[1024];
    char sizes[1024];
    char layout[640];  /* col or row; strided tensors' strides after col
                          (tc_plan_layout_format) */
    char blas[64];
    int threads;
    char machine[512];
    char algorithm[TC_WISDOM_NAME_MAX];
    double seconds;
    char origin[16];
} tc_wisdom_entry;

/* If an entry has e's key, copies it into *e and returns 1; else 0. */
int tc_wisdom_lookup(tc_wisdom_entry *e);

/* Adds e, replacing an entry with the same key. TC_EINPUT when a field is
 * empty or holds a tab, line break or other control byte (it would break
 * the file), TC_ERESOURCE when out of memory. */
tc_status tc_wisdom_add(const tc_wisdom_entry *e, tc_error *err);

/* Like tc_wisdom_lookup, but for the entry of the same problem (all key
 * fields but the sizes equal) whose every size is within `tolerance`
 * (a fraction) of e's, the closest one; its sizes go into e->sizes. */
int tc_wisdom_lookup_near(tc_wisdom_entry *e, double tolerance);

/* Forgets the entries of machines other than `machine` (a signature of
 * tc_plan_machine_signature); returns how many. */
int tc_wisdom_keep_machine(const char *machine);

/* The number of entries (for tests and the command's messages). */
int tc_wisdom_count(void);

#endif
