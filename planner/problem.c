/* problem.c - a problem's text parsed for the planner (problem.h). */
#include "planner/problem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "parser/parser.h"

tc_status tc_plan_problem(const char *contraction, const char *sizes, unsigned flags,
                          tc_contraction *user, tc_contraction *storage, int *which,
                          tc_error *err)
{
    int w = 0;
    tc_contraction c;
    tc_sizes sz;
    memset(&sz, 0, sizeof sz);
    tc_status s = tc_parse(contraction, &c, err);
    if (s == TC_OK) {
        w = 1;
        s = tc_parse_sizes(sizes, 1, &sz, err);
    }
    if (s == TC_OK) {
        s = tc_contraction_set_sizes(&c, &sz, &c, err, NULL);
        /* located errors here (a tensor too large) point into the contraction */
        w = s != TC_OK && err && err->line ? 0 : 1;
    }
    if (which)
        *which = w;
    if (s != TC_OK)
        return s;
    *user = c;
    if (flags & TC_ROW_MAJOR)
        tc_contraction_transpose(&c, storage);
    else
        *storage = c;
    return TC_OK;
}

static const char tensor_letter[3] = {[TC_C] = 'C', [TC_A] = 'A', [TC_B] = 'B'};

tc_type tc_plan_type_of(unsigned flags)
{
    return flags & TC_COMPLEX ? (flags & TC_SINGLE ? TC_TYPE_C : TC_TYPE_Z)
                              : (flags & TC_SINGLE ? TC_TYPE_S : TC_TYPE_D);
}

unsigned tc_plan_type_flags(tc_type t)
{
    return (t == TC_TYPE_S || t == TC_TYPE_C ? TC_SINGLE : 0u) |
           (tc_type_row_of(t)->is_complex ? TC_COMPLEX : 0u);
}

int tc_plan_layout_format(const tc_contraction *c, unsigned flags, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "%s", flags & TC_ROW_MAJOR ? "row" : "col");
    if (c->type != TC_TYPE_D && len < n)
        len += (size_t)snprintf(buf + len, n - len, ":%c", tc_type_row_of(c->type)->letter);
    for (int t = TC_C; t <= TC_B && tc_contraction_strided(c) && len < n; t++) {
        len += (size_t)snprintf(buf + len, n - len, ";%c=", tensor_letter[t]);
        for (int k = 0; k < c->tensor[t].rank && len < n; k++)
            len += (size_t)snprintf(buf + len, n - len, "%s%lld", k ? "," : "",
                                    (long long)c->tensor[t].stride[k]);
    }
    return len < n;
}

/* One tensor's strides "X=s0,s1,..." at *p (moved past them) onto c. */
static tc_status read_strides(const char *layout, const char **p, tc_contraction *c,
                              tc_error *err)
{
    const char *q = *p;
    int t = -1;
    size_t n = 0;
    for (int x = TC_C; x <= TC_B && t < 0; x++) { /* the tensor's name, or its role's letter */
        n = strlen(c->tensor[x].name);
        if (strncmp(q, c->tensor[x].name, n) == 0 && q[n] == '=')
            t = x;
    }
    for (int x = TC_C; x <= TC_B && t < 0; x++)
        if (q[0] == tensor_letter[x] && q[1] == '=')
            t = x, n = 1;
    if (t < 0)
        return tc_error_set(err, TC_EINPUT, 1, (int)(q - layout) + 1,
                            "expected a tensor (%s, %s, %s; or C, A, B) and '=' at '%.20s'",
                            c->tensor[TC_C].name, c->tensor[TC_A].name, c->tensor[TC_B].name,
                            q);
    q += n + 1;
    int64_t s[TC_MAX_RANK];
    for (int k = 0; k < c->tensor[t].rank; k++) {
        char *end;
        errno = 0;
        long long v = strtoll(q, &end, 10);
        if (end == q || errno || (k + 1 < c->tensor[t].rank ? *end != ',' : 0))
            return tc_error_set(err, TC_EINPUT, 1, (int)(q - layout) + 1,
                                "expected %d strides for %s, comma-separated",
                                c->tensor[t].rank, c->tensor[t].name);
        s[k] = v;
        q = end + (*end == ',');
    }
    *p = q;
    return tc_contraction_set_strides(c, t, s, err);
}

tc_status tc_plan_layout_read(const char *layout, tc_contraction *c, unsigned *flags,
                              tc_error *err)
{
    *flags = strncmp(layout, "row", 3) == 0 ? TC_ROW_MAJOR : 0;
    if (strncmp(layout, "col", 3) && strncmp(layout, "row", 3))
        return tc_error_set(err, TC_EINPUT, 1, 1, "bad layout (use col or row)");
    const char *p = layout + 3;
    if (*p == ':') { /* the type, double when not named */
        int t = tc_type_from_letter(p[1]);
        if (t < 0 || (unsigned char)p[1] < 'a' || tc_contraction_set_type(c, (tc_type)t, err))
            return tc_error_set(err, TC_EINPUT, 1, 5, "bad type '%c' (use s, d, c or z)", p[1]);
        *flags |= tc_plan_type_flags((tc_type)t);
        p += 2;
    }
    if (*p && (*flags & TC_ROW_MAJOR))
        return tc_error_set(err, TC_EINPUT, 1, 4, "strides in the layout take col only");
    while (*p == ';') {
        p++;
        tc_status s = read_strides(layout, &p, c, err);
        if (s != TC_OK)
            return s;
    }
    if (*p)
        return tc_error_set(err, TC_EINPUT, 1, (int)(p - layout) + 1,
                            "unexpected '%c' after the strides", *p);
    return TC_OK;
}
