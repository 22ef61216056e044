/* tapp/handle.h - a handle: the implementation a product belongs to. */
#ifndef TAPP_HANDLE_H_
#define TAPP_HANDLE_H_

#include <stdint.h>

#include "error.h"
#include "util.h"

typedef intptr_t TAPP_handle;

TAPP_EXPORT TAPP_error TAPP_create_handle(TAPP_handle *handle);
TAPP_EXPORT TAPP_error TAPP_destroy_handle(TAPP_handle handle);

#endif
