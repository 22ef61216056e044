/* tapp/status.h - what an execution reports (tcgen: nothing yet; the
 * value an execution gives may be destroyed or ignored). */
#ifndef TAPP_STATUS_H_
#define TAPP_STATUS_H_

#include <stdint.h>

#include "error.h"
#include "util.h"

typedef intptr_t TAPP_status;

TAPP_EXPORT TAPP_error TAPP_destroy_status(TAPP_status status);

#endif
