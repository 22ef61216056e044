/* tapp/product.h - the tensor product D = alpha op(A) op(B) + beta op(C):
 * a product is made once (the modes of each tensor named by integer
 * labels) and executed any number of times on data. */
#ifndef TAPP_PRODUCT_H_
#define TAPP_PRODUCT_H_

#include <stdint.h>

#include "datatype.h"
#include "error.h"
#include "executor.h"
#include "handle.h"
#include "status.h"
#include "tensor.h"
#include "util.h"

typedef int TAPP_element_op;
enum {
    TAPP_IDENTITY = 0,
    TAPP_CONJUGATE = 1,
};

#define TAPP_IN_PLACE NULL

typedef intptr_t TAPP_tensor_product;

TAPP_EXPORT TAPP_error TAPP_create_tensor_product(TAPP_tensor_product *plan, TAPP_handle handle,
                                                  TAPP_element_op op_A, TAPP_tensor_info A,
                                                  const int64_t *idx_A, TAPP_element_op op_B,
                                                  TAPP_tensor_info B, const int64_t *idx_B,
                                                  TAPP_element_op op_C, TAPP_tensor_info C,
                                                  const int64_t *idx_C, TAPP_element_op op_D,
                                                  TAPP_tensor_info D, const int64_t *idx_D,
                                                  TAPP_prectype prec);
TAPP_EXPORT TAPP_error TAPP_destroy_tensor_product(TAPP_tensor_product plan);

TAPP_EXPORT TAPP_error TAPP_execute_product(TAPP_tensor_product plan, TAPP_executor exec,
                                            TAPP_status *status, const void *alpha,
                                            const void *A, const void *B, const void *beta,
                                            const void *C, void *D);
TAPP_EXPORT TAPP_error TAPP_execute_batched_product(TAPP_tensor_product plan,
                                                    TAPP_executor exec, TAPP_status *status,
                                                    int num_batches, const void *alpha,
                                                    const void **A, const void **B,
                                                    const void *beta, const void **C,
                                                    void **D);

#endif
