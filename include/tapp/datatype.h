/* tapp/datatype.h - storage types of tensor elements and computational
 * precisions, with the standard's values (values from 0x1000 up are left
 * to implementations). */
#ifndef TAPP_DATATYPE_H_
#define TAPP_DATATYPE_H_

#include "util.h"

typedef int TAPP_datatype;
enum {
    TAPP_F32 = 0,  /* IEEE 754 binary32 */
    TAPP_F64 = 1,  /* IEEE 754 binary64 */
    TAPP_C32 = 2,  /* complex binary32: real, then imaginary part (8 bytes) */
    TAPP_C64 = 3,  /* complex binary64 (16 bytes) */
    TAPP_F16 = 4,  /* IEEE 754 binary16 */
    TAPP_BF16 = 5, /* bfloat16 */

    TAPP_FLOAT = TAPP_F32,
    TAPP_DOUBLE = TAPP_F64,
    TAPP_SCOMPLEX = TAPP_C32,
    TAPP_DCOMPLEX = TAPP_C64,
};

/* The precision of the multiplications and their accumulation: the
 * default is at least the lowest of the operands' storage types. */
typedef int TAPP_prectype;
enum {
    TAPP_DEFAULT_PREC = -1,
    TAPP_F32F32_ACCUM_F32 = TAPP_F32,
    TAPP_F64F64_ACCUM_F64 = TAPP_F64,
    TAPP_F16F16_ACCUM_F16 = TAPP_F16,
    TAPP_F16F16_ACCUM_F32 = 5,
    TAPP_BF16BF16_ACCUM_F32 = 6,
};

#endif
