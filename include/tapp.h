/*
 * tapp.h - TAPP, the Tensor Algebra Processing Primitives: the standard C
 * interface for tensor products (github.com/TAPPorg), implemented by
 * libtcgen. Written for tcgen from the published interface: the same type
 * names, constants and function signatures, so a program built against
 * TAPP's own headers links with -ltcgen. tcgen's plans are behind it:
 * TAPP_create_tensor_product ranks the algorithms, TAPP_execute_product
 * runs the chosen one (docs/tapp.md says what is supported yet).
 */
#ifndef TAPP_TAPP_H_
#define TAPP_TAPP_H_

#ifdef __cplusplus
extern "C" {
#endif

#include "tapp/error.h"
#include "tapp/attributes.h"
#include "tapp/datatype.h"
#include "tapp/handle.h"
#include "tapp/executor.h"
#include "tapp/status.h"
#include "tapp/tensor.h"
#include "tapp/product.h"

#ifdef __cplusplus
}
#endif

#endif /* TAPP_TAPP_H_ */
