/* error.c - tc_error helpers and the library's version/status names. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tc_status tc_error_set(tc_error *err, tc_status code, int line, int column,
                       const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->line = line;
        err->column = column;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

void tc_text_put(char *buf, size_t n, size_t *len, const char *s)
{
    size_t l = strlen(s);
    if (*len < n)
        memcpy(buf + *len, s, (*len + l < n) ? l : n - *len - 1);
    *len += l;
    if (n > 0)
        buf[(*len < n) ? *len : n - 1] = '\0';
}

void tc_error_clear(tc_error *err)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->code = TC_OK;
    }
}

const char *tc_version(void) { return TC_VERSION; }

const char *tc_status_name(tc_status s)
{
    switch (s) {
    case TC_OK: return "ok";
    case TC_EINPUT: return "bad input";
    case TC_EUSAGE: return "usage";
    case TC_ERESOURCE: return "resources";
    case TC_EINTERNAL: return "internal error";
    }
    return "unknown status";
}
