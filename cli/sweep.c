/* sweep.c - parsing --sweep 'a=b=c=8:1000:64' and 'i=8,64,512'. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int bad(const char *spec, const char *why)
{
    return tc_cli_failf(TC_EUSAGE, "usage: --sweep '%s': %s (e.g. 'a=b=c=8:1000:64' or "
                                   "'i=8,64,512')", spec, why);
}

/* A whole number from 1 to 2^62 at *p; advances *p. */
static int number(const char **p, int64_t *v)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    long long n = strtoll(*p, &end, 10);
    if (n < 1 || n > ((long long)1 << 62))
        return -1;
    *v = n;
    *p = end;
    return 0;
}

int tc_cli_sweep_parse(const char *spec, tc_sweep *sw)
{
    memset(sw, 0, sizeof *sw);
    const char *p = spec;
    /* names: identifiers, each followed by '=' */
    while (isalpha((unsigned char)*p) || *p == '_') {
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t len = (size_t)(p - start);
        if (*p != '=')
            return bad(spec, "expected '=' after an index name");
        if (len >= TC_NAME_MAX || sw->nnames == TC_MAX_INDICES)
            return bad(spec, "index name too long or too many names");
        memcpy(sw->names[sw->nnames], start, len);
        sw->nnames++;
        p++;
    }
    if (sw->nnames == 0)
        return bad(spec, "expected index names");
    for (int k = 0; k < sw->nnames; k++) {
        if (k)
            strcat(sw->label, "=");
        strcat(sw->label, sw->names[k]);
    }
    int64_t first, stop, step;
    if (number(&p, &first))
        return bad(spec, "sizes are whole numbers from 1");
    if (*p == ':') {
        p++;
        if (number(&p, &stop) || *p != ':' || (p++, number(&p, &step)) || *p)
            return bad(spec, "a range is START:STOP:STEP");
        if (stop < first)
            return bad(spec, "STOP is below START");
        if ((stop - first) / step >= TC_SWEEP_MAX_POINTS)
            return bad(spec, "more than 1000 points");
        for (int64_t v = first; v <= stop; v += step)
            sw->value[sw->npoints++] = v;
        return 0;
    }
    sw->value[sw->npoints++] = first;
    while (*p == ',') {
        p++;
        if (sw->npoints == TC_SWEEP_MAX_POINTS)
            return bad(spec, "more than 1000 points");
        if (number(&p, &sw->value[sw->npoints++]))
            return bad(spec, "sizes are whole numbers from 1");
    }
    if (*p)
        return bad(spec, "unexpected text after the sizes");
    return 0;
}
