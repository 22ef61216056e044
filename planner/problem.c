/* problem.c - a problem's text parsed for the planner (problem.h). */
#include "planner/problem.h"

#include <string.h>

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
