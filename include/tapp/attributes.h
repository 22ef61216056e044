/* tapp/attributes.h - attributes of TAPP objects (none defined yet). */
#ifndef TAPP_ATTRIBUTES_H_
#define TAPP_ATTRIBUTES_H_

#include <stdint.h>

#include "error.h"
#include "util.h"

typedef intptr_t TAPP_attr;
typedef int TAPP_key;

TAPP_EXPORT TAPP_error TAPP_attr_set(TAPP_attr attr, TAPP_key key, void *value);
TAPP_EXPORT TAPP_error TAPP_attr_get(TAPP_attr attr, TAPP_key key, void **value);
TAPP_EXPORT TAPP_error TAPP_attr_clear(TAPP_attr attr, TAPP_key key);

#endif
