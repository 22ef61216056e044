/*
 * views.h - tensors given by their modes (labels, extents, strides) rather
 * than a string: the layout tcgen plans over in place (a dense tensor in
 * any order, or a tile of a larger column-major array), shared by the
 * descriptor entry point (tc_plan_create_views, include/tcgen.h) and TAPP
 * (tapp_product.c).
 */
#ifndef TC_PLANNER_VIEWS_H
#define TC_PLANNER_VIEWS_H

#include <stdint.h>

/*
 * Sorts n modes (label[], stride[] together; size[label] their extents) by
 * stride, modes of extent 1 last at the stride they would have there (it
 * is never used). Returns 1 when the strides then make a view tcgen plans
 * over in place (tc_contraction_set_strides: the first 1, each at least
 * the one before times its extent), else 0 and *bad the first mode in the
 * sorted order that breaks it.
 */
int tc_plan_view_order(int n, int *label, int64_t *stride, const int64_t *size, int *bad);

#endif
