/* reference.h - the naive contraction (plain loops), the oracle for tests. */
#ifndef TC_RUNTIME_REFERENCE_H
#define TC_RUNTIME_REFERENCE_H

#include "ast/contraction.h"

/*
 * C = alpha * A * B + beta * C with plain loops over every index, in the
 * column-major layout of *c (sizes must be set) and its type: float and
 * double summed in double, complex in double complex (alpha and beta with
 * their imaginary parts). Never calls BLAS. As in BLAS, alpha 0 is C =
 * beta * C without reading A and B, and beta 0 does not read C.
 */
void tc_rt_reference(const tc_contraction *c, const void *A, const void *B, void *C);

#endif
