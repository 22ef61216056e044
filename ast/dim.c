/* dim.c - kernel dimensions (dim.h). */
#include "dim.h"

#include <assert.h>
#include <string.h>

#include "error.h"

/* Position of index i in tensor t, or -1. */
static int position(const tc_tensor *t, int i)
{
    for (int k = 0; k < t->rank; k++)
        if (t->index[k] == i)
            return k;
    return -1;
}

/* d's stride in tensor x (0 when x does not hold it); asserts the merge:
 * its indices adjacent, in order, each stride the one before times its
 * size. */
static int64_t stride_in(const tc_contraction *c, const tc_tensor *x, const tc_dim *d)
{
    int p = position(x, d->index[0]);
    if (p < 0)
        return 0;
    for (int j = 1; j < d->n; j++) {
        assert(p + j < x->rank && x->index[p + j] == d->index[j]);
        assert(!c->has_sizes ||
               x->stride[p + j] == x->stride[p + j - 1] * c->index[d->index[j - 1]].size);
    }
    return c->has_sizes ? x->stride[p] : 0;
}

tc_dim tc_dim_make(const tc_contraction *c, const int *index, int n)
{
    tc_dim d;
    memset(&d, 0, sizeof d);
    assert(n >= 0 && n <= TC_MAX_RANK);
    if (n <= 0)
        return d;
    d.n = n;
    memcpy(d.index, index, (size_t)n * sizeof *index);
    d.extent = 1;
    for (int j = 0; j < n; j++) {
        assert(index[j] >= 0 && index[j] < c->nindex);
        assert(c->index[index[j]].role == c->index[index[0]].role);
        d.extent *= c->index[index[j]].size;
    }
    for (int t = TC_C; t <= TC_B; t++)
        d.stride[t] = stride_in(c, &c->tensor[t], &d);
    return d;
}

tc_dim tc_dim_one(const tc_contraction *c, int i)
{
    return tc_dim_make(c, &i, 1);
}

int tc_dim_holds(const tc_dim *d, int i)
{
    for (int j = 0; j < d->n; j++)
        if (d->index[j] == i)
            return 1;
    return 0;
}

int tc_dim_same(const tc_dim *a, const tc_dim *b)
{
    return a->n == b->n && memcmp(a->index, b->index, (size_t)a->n * sizeof a->index[0]) == 0;
}

int tc_dim_start(const tc_dim *d)
{
    return d->n > 0 ? d->index[0] : -1;
}

tc_role tc_dim_role(const tc_contraction *c, const tc_dim *d)
{
    assert(d->n > 0);
    return c->index[d->index[0]].role;
}

size_t tc_dim_format(const tc_contraction *c, const tc_dim *d, int dotted, char *buf,
                     size_t n)
{
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    if (d->n <= 0) {
        tc_text_put(buf, n, &len, "-");
        return len;
    }
    if (d->n == 1) {
        tc_text_put(buf, n, &len, c->index[d->index[0]].name);
        return len;
    }
    tc_text_put(buf, n, &len, "(");
    for (int j = 0; j < d->n; j++) {
        if (j && dotted)
            tc_text_put(buf, n, &len, ".");
        tc_text_put(buf, n, &len, c->index[d->index[j]].name);
    }
    tc_text_put(buf, n, &len, ")");
    return len;
}
