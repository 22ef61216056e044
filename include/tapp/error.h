/* tapp/error.h - TAPP's error codes: 0 is success; the others are tcgen's
 * (TAPP_explain_error says what each means, and what went wrong last). */
#ifndef TAPP_ERROR_H_
#define TAPP_ERROR_H_

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef int TAPP_error;

/* true when `error` is success. */
TAPP_EXPORT bool TAPP_check_success(TAPP_error error);

/* Writes at most maxlen - 1 characters of the explanation of `error` into
 * message and a terminating NUL when maxlen > 0; returns the length of the
 * whole explanation (without the NUL), so maxlen 0 asks for it. */
TAPP_EXPORT size_t TAPP_explain_error(TAPP_error error, size_t maxlen, char *message);

#endif
