/* tapp/executor.h - an executor: where a product runs (tcgen: this
 * process, at its thread count). */
#ifndef TAPP_EXECUTOR_H_
#define TAPP_EXECUTOR_H_

#include <stdint.h>

#include "error.h"
#include "util.h"

typedef intptr_t TAPP_executor;

TAPP_EXPORT TAPP_error TAPP_create_executor(TAPP_executor *exec);
TAPP_EXPORT TAPP_error TAPP_destroy_executor(TAPP_executor exec);

#endif
