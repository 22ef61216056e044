/*
 * problem.h - a problem as text (contraction and sizes) parsed into the
 * form the planner and the wisdom file check work on. Its own file so that
 * plan.c and wisdom.c, which each use the other's ends of a decision, do
 * not call each other: plan.c reads and adds wisdom, wisdom.c checks its
 * entries' problems here.
 */
#ifndef TC_PLANNER_PROBLEM_H
#define TC_PLANNER_PROBLEM_H

#include "ast/contraction.h"
#include "tcgen.h"

/*
 * Parses a problem: the contraction and sizes as the user wrote them
 * (*user) and the column-major form the algorithms work on (*storage: the
 * transpose under TC_ROW_MAJOR). Errors are TC_EINPUT located in the
 * string they are in (line 1); *which (if not NULL) says which: 0 the
 * contraction, 1 the sizes.
 */
tc_status tc_plan_problem(const char *contraction, const char *sizes, unsigned flags,
                          tc_contraction *user, tc_contraction *storage, int *which,
                          tc_error *err);

/* The element type planning flags name (TC_SINGLE, TC_COMPLEX), and the
 * flags of a type. */
tc_type tc_plan_type_of(unsigned flags);
unsigned tc_plan_type_flags(tc_type t);

/*
 * A problem's layout as wisdom keys it: "col" or "row", then the type
 * where it is not double (":s", ":c", ":z"), and for strided tensors
 * (tc_contraction_set_strides) each tensor's strides after it:
 * "col:z;C=1,130,17160;A=1,40;B=1,9". c is the column-major form. 0 when
 * it does not fit in n bytes.
 */
int tc_plan_layout_format(const tc_contraction *c, unsigned flags, char *buf, size_t n);

/*
 * Reads a layout tc_plan_layout_format wrote: *flags gets TC_ROW_MAJOR for
 * "row" and the type's flags, the type goes onto *c, and the strides (the column-major form; strides only
 * with "col"), each tensor named by its role's letter (C, A, B) or its own
 * name. TC_EINPUT, with the column in the layout, otherwise.
 */
tc_status tc_plan_layout_read(const char *layout, tc_contraction *c, unsigned *flags,
                              tc_error *err);

#endif
