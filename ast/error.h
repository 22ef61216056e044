/* error.h - filling tc_error, and a string helper, shared by every module. */
#ifndef TC_AST_ERROR_H
#define TC_AST_ERROR_H

#include <stddef.h>

#include "tcgen.h"

/* Fill *err (if err != NULL) and return code. line/column 0 = no position. */
tc_status tc_error_set(tc_error *err, tc_status code, int line, int column,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Reset *err to TC_OK with an empty message. */
void tc_error_clear(tc_error *err);

/* Appends s to buf (capacity n) with snprintf semantics: *len counts what
 * was needed, buf stays terminated. Used by the IR and AST printers. */
void tc_text_put(char *buf, size_t n, size_t *len, const char *s);

#endif
