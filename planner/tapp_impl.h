/*
 * tapp_impl.h - tcgen's TAPP objects (include/tapp.h), shared by
 * tapp_objects.c (errors, handles, executors, statuses, tensor infos) and
 * tapp_product.c (products: planned by tcgen, executed by the plan).
 * docs/tapp.md says what is supported and how each case is mapped.
 */
#ifndef TC_PLANNER_TAPP_IMPL_H
#define TC_PLANNER_TAPP_IMPL_H

#include <stdint.h>

#include "tapp.h"

/* tcgen's TAPP error codes (0 is success, as the standard says). */
enum {
    TC_TAPP_OK = 0,
    TC_TAPP_EARGUMENT,   /* a NULL pointer or a handle that is not one */
    TC_TAPP_ENEGATIVE,   /* a negative number of modes or extent */
    TC_TAPP_EEXTENT,     /* one label, two extents */
    TC_TAPP_ESTRUCTURE,  /* C and D not alike (modes, labels, extents) */
    TC_TAPP_EALIAS,      /* two elements of D at one address */
    TC_TAPP_ENULL_C,     /* C NULL with beta not 0 */
    TC_TAPP_EUNSUPPORTED, /* a type, precision or index pattern tcgen lacks yet */
    TC_TAPP_EMEMORY,     /* out of memory */
    TC_TAPP_EPLAN,       /* tcgen could not plan the product */
    TC_TAPP_NERRORS
};

/* Sets the calling thread's last error: its code and what went wrong,
 * which TAPP_explain_error adds to the code's meaning; returns code. */
TAPP_error tc_tapp_fail(TAPP_error code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#define TC_TAPP_MAX_MODES 8

typedef struct tc_tapp_info {
    uint32_t magic;
    TAPP_datatype type;
    int nmode;
    int64_t extent[TC_TAPP_MAX_MODES];
    int64_t stride[TC_TAPP_MAX_MODES];
} tc_tapp_info;

/* The info behind a handle value, or NULL (after setting the error) when
 * it is not one; `which` names it in the message ("A", "info"). */
const tc_tapp_info *tc_tapp_info_of(TAPP_tensor_info info, const char *which);

#endif
