/* contraction.c - validation, sizes, strides, printing and hashing of the IR. */
#include "contraction.h"

#include <stdio.h>
#include <string.h>

#include "error.h"


int tc_contraction_find_index(const tc_contraction *c, const char *name)
{
    for (int i = 0; i < c->nindex; i++)
        if (strcmp(c->index[i].name, name) == 0)
            return i;
    return -1;
}

int tc_tensor_has_index(const tc_tensor *t, int i)
{
    for (int k = 0; k < t->rank; k++)
        if (t->index[k] == i)
            return 1;
    return 0;
}

const char *tc_role_name(tc_role r)
{
    switch (r) {
    case TC_ROLE_FREE_A: return "free_a";
    case TC_ROLE_FREE_B: return "free_b";
    case TC_ROLE_CONTRACTED: return "contracted";
    case TC_ROLE_BATCH: return "batch";
    }
    return "?";
}

/* Where index i first occurs in tensor t (its position in t->index). */
static int position_in(const tc_tensor *t, int i)
{
    for (int k = 0; k < t->rank; k++)
        if (t->index[k] == i)
            return k;
    return -1;
}

static tc_status check_names(const tc_contraction *c, tc_error *err)
{
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (strcmp(c->tensor[a].name, c->tensor[b].name) == 0)
                return tc_error_set(err, TC_EINPUT, c->tensor[b].line,
                                    c->tensor[b].column,
                                    "tensor name '%s' is used twice (first at %d:%d); "
                                    "the output and the two inputs need distinct names",
                                    c->tensor[b].name, c->tensor[a].line,
                                    c->tensor[a].column);
    for (int t = 0; t < 3; t++) {
        const tc_tensor *x = &c->tensor[t];
        for (int k = 0; k < x->rank; k++)
            for (int j = 0; j < k; j++)
                if (x->index[j] == x->index[k])
                    return tc_error_set(err, TC_EINPUT, x->index_line[k],
                                        x->index_column[k],
                                        "index '%s' appears twice in %s (first at %d:%d); "
                                        "%s",
                                        c->index[x->index[k]].name, x->name,
                                        x->index_line[j], x->index_column[j],
                                        t == TC_C ? "an output cannot repeat an index"
                                                  : "a diagonal of an operand is for the "
                                                    "TAPP interface (docs/tapp.md; 'tcgen "
                                                    "list' and 'explain' show its mapping)");
    }
    return TC_OK;
}

tc_status tc_contraction_validate(tc_contraction *c, tc_error *err)
{
    tc_status s = check_names(c, err);
    if (s != TC_OK)
        return s;
    for (int i = 0; i < c->nindex; i++) {
        int in[3];
        for (int t = 0; t < 3; t++)
            in[t] = tc_tensor_has_index(&c->tensor[t], i);
        const char *name = c->index[i].name;
        /* locate the message at the occurrence that is alone */
        int t_alone = in[TC_C] ? TC_C : in[TC_A] ? TC_A : TC_B;
        const tc_tensor *x = &c->tensor[t_alone];
        int k = position_in(x, i);
        int line = k >= 0 ? x->index_line[k] : 0, col = k >= 0 ? x->index_column[k] : 0;
        if (in[TC_A] && in[TC_B])
            c->index[i].role = in[TC_C] ? TC_ROLE_BATCH : TC_ROLE_CONTRACTED;
        else if (in[TC_A] && in[TC_C])
            c->index[i].role = TC_ROLE_FREE_A;
        else if (in[TC_B] && in[TC_C])
            c->index[i].role = TC_ROLE_FREE_B;
        else if (in[TC_C])
            return tc_error_set(err, TC_EINPUT, line, col,
                                "index '%s' of the output %s appears in neither %s nor %s",
                                name, c->tensor[TC_C].name, c->tensor[TC_A].name,
                                c->tensor[TC_B].name);
        else
            return tc_error_set(err, TC_EINPUT, line, col,
                                "index '%s' appears only in %s (an index summed over "
                                "one operand is for the TAPP interface: docs/tapp.md; 'tcgen "
                                "list' and 'explain' show its mapping)",
                                name, x->name);
    }
    /* Every algorithm is a loop nest around a BLAS kernel, and a kernel
     * needs an index that is free or contracted: with batch indices only
     * (an element-wise product, C[] = A[] * B[]) there is none. */
    int kernel_index = 0;
    for (int i = 0; i < c->nindex; i++)
        kernel_index |= c->index[i].role != TC_ROLE_BATCH;
    if (!kernel_index)
        return tc_error_set(err, TC_EINPUT, c->tensor[TC_C].line, c->tensor[TC_C].column,
                            "no BLAS kernel applies: %s (tcgen needs an index that is "
                            "contracted or in only one of %s and %s)",
                            c->nindex ? "every index is in all three tensors, an element-wise "
                                        "product" : "no tensor has an index",
                            c->tensor[TC_A].name, c->tensor[TC_B].name);
    return TC_OK;
}

static tc_status compute_layout(tc_contraction *c, tc_error *err)
{
    for (int t = 0; t < 3; t++) {
        tc_tensor *x = &c->tensor[t];
        int64_t n = 1;
        for (int k = 0; k < x->rank; k++) {
            int64_t next;
            x->stride[k] = n;
            if (__builtin_mul_overflow(n, c->index[x->index[k]].size, &next) ||
                __builtin_mul_overflow(next, (int64_t)tc_type_row_of(c->type)->bytes, &(int64_t){0}))
                return tc_error_set(err, TC_EINPUT, x->line, x->column,
                                    "tensor %s is too large: its size in bytes "
                                    "overflows 64 bits (at index '%s')",
                                    x->name, c->index[x->index[k]].name);
            n = next;
        }
        x->elements = x->span = n;
    }
    return TC_OK;
}

tc_status tc_contraction_set_strides(tc_contraction *c, int t, const int64_t *stride,
                                     tc_error *err)
{
    tc_tensor *x = &c->tensor[t];
    int64_t span = 1, least = 1;
    for (int k = 0; k < x->rank; k++) {
        int64_t size = c->index[x->index[k]].size, far;
        if (stride[k] < least)
            return tc_error_set(err, TC_EINPUT, x->index_line[k], x->index_column[k],
                                "index '%s' of %s has stride %lld: tcgen takes strides "
                                "starting at 1, each at least the one before times its size "
                                "(%lld here)",
                                c->index[x->index[k]].name, x->name, (long long)stride[k],
                                (long long)least);
        if (__builtin_mul_overflow(stride[k], size, &least) ||
            __builtin_mul_overflow(stride[k], size - 1, &far) ||
            __builtin_add_overflow(span, far, &span) ||
            __builtin_mul_overflow(span, (int64_t)tc_type_row_of(c->type)->bytes, &(int64_t){0}))
            return tc_error_set(err, TC_EINPUT, x->line, x->column,
                                "tensor %s is too large: its span in bytes overflows 64 bits "
                                "(at index '%s')",
                                x->name, c->index[x->index[k]].name);
        if (k == 0 && stride[0] != 1)
            return tc_error_set(err, TC_EINPUT, x->index_line[0], x->index_column[0],
                                "index '%s' of %s has stride %lld: the first index of a "
                                "tensor must have stride 1",
                                c->index[x->index[0]].name, x->name, (long long)stride[0]);
    }
    for (int k = 0; k < x->rank; k++)
        x->stride[k] = stride[k];
    x->span = span;
    return TC_OK;
}

int tc_contraction_strided(const tc_contraction *c)
{
    for (int t = 0; t < 3; t++)
        if (c->tensor[t].span != c->tensor[t].elements)
            return 1;
    return 0;
}

tc_status tc_contraction_set_sizes(const tc_contraction *c,
                                   const tc_sizes *sizes,
                                   tc_contraction *out, tc_error *err,
                                   tc_error *warning)
{
    tc_contraction r = *c;
    tc_error_clear(warning);
    for (int e = 0; e < sizes->count; e++) {
        const tc_size_entry *s = &sizes->entry[e];
        int i = tc_contraction_find_index(&r, s->name);
        if (i < 0) {
            if (!warning || warning->code == TC_OK)
                tc_error_set(warning ? warning : err, TC_EINPUT, s->line, s->column,
                             "a size is given for '%s', which the contraction does not use",
                             s->name);
            if (!warning)
                return TC_EINPUT;
            continue;
        }
        r.index[i].size = s->size;
    }
    for (int i = 0; i < r.nindex; i++)
        if (r.index[i].size <= 0)
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "no size given for index '%s' (first used at %d:%d)",
                                r.index[i].name, r.index[i].line, r.index[i].column);
    tc_status s = compute_layout(&r, err);
    if (s != TC_OK)
        return s;
    r.has_sizes = 1;
    *out = r;
    return TC_OK;
}

int tc_contraction_canonical(const tc_contraction *c, tc_contraction *out)
{
    static const char *const tensor_name[3] = {[TC_C] = "C", [TC_A] = "A", [TC_B] = "B"};
    static const int scan[3] = {TC_C, TC_A, TC_B};
    int seen[TC_MAX_INDICES] = {0}, next = 0;
    for (int s = 0; s < 3; s++) {
        const tc_tensor *t = &c->tensor[scan[s]];
        for (int d = 0; d < t->rank; d++) {
            int k = t->index[d];
            if (k < 0 || k >= c->nindex)
                return 0;
            if (!seen[k] && k != next++)
                return 0; /* numbered otherwise than by first appearance */
            seen[k] = 1;
        }
    }
    if (next != c->nindex || c->nindex > 26)
        return 0;
    *out = *c;
    for (int k = 0; k < c->nindex; k++)
        snprintf(out->index[k].name, sizeof out->index[k].name, "%c", 'a' + k);
    for (int t = 0; t < 3; t++)
        snprintf(out->tensor[t].name, sizeof out->tensor[t].name, "%s", tensor_name[t]);
    if (out->alpha != 0.0)
        out->alpha = 1.0;
    return 1;
}

void tc_contraction_transpose(const tc_contraction *c, tc_contraction *out)
{
    tc_contraction r = *c;
    for (int t = 0; t < 3; t++) {
        tc_tensor *x = &r.tensor[t];
        for (int k = 0; k < x->rank; k++) {
            int m = x->rank - 1 - k;
            x->index[k] = c->tensor[t].index[m];
            x->index_line[k] = c->tensor[t].index_line[m];
            x->index_column[k] = c->tensor[t].index_column[m];
        }
    }
    if (r.has_sizes)
        compute_layout(&r, NULL); /* same sizes, same products: cannot fail */
    *out = r;
}

int64_t tc_tensor_bytes(const tc_contraction *c, int t)
{
    return c->tensor[t].span * (int64_t)tc_type_row_of(c->type)->bytes;
}

tc_status tc_contraction_set_type(tc_contraction *c, tc_type type, tc_error *err)
{
    if ((unsigned)type >= TC_TYPE_COUNT)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "no element type %d", (int)type);
    int64_t bytes = tc_type_row_of(type)->bytes;
    for (int t = 0; c->has_sizes && t < 3; t++)
        if (c->tensor[t].span > INT64_MAX / bytes)
            return tc_error_set(err, TC_EINPUT, c->tensor[t].line, c->tensor[t].column,
                                "tensor %s is too large: its span in bytes overflows 64 "
                                "bits in %s",
                                c->tensor[t].name, tc_type_row_of(type)->c_name);
    c->type = type;
    return TC_OK;
}

double tc_contraction_flops(const tc_contraction *c)
{
    double f = 2.0 * tc_type_flop_factor(c->type);
    for (int i = 0; i < c->nindex; i++)
        f *= (double)c->index[i].size;
    return f;
}

static void put_tensor(const tc_contraction *c, int t, char *buf, size_t n, size_t *len)
{
    const tc_tensor *x = &c->tensor[t];
    tc_text_put(buf, n, len, x->name);
    tc_text_put(buf, n, len, "[");
    for (int k = 0; k < x->rank; k++) {
        if (k)
            tc_text_put(buf, n, len, ",");
        tc_text_put(buf, n, len, c->index[x->index[k]].name);
    }
    tc_text_put(buf, n, len, "]");
}

size_t tc_contraction_format(const tc_contraction *c, char *buf, size_t n)
{
    size_t len = 0;
    char num[40];
    if (n > 0)
        buf[0] = '\0';
    put_tensor(c, TC_C, buf, n, &len);
    tc_text_put(buf, n, &len, c->beta != 0.0 ? " += " : " = ");
    if (c->alpha != 1.0) {
        snprintf(num, sizeof num, "%.17g * ", c->alpha);
        tc_text_put(buf, n, &len, num);
    }
    put_tensor(c, TC_A, buf, n, &len);
    tc_text_put(buf, n, &len, " * ");
    put_tensor(c, TC_B, buf, n, &len);
    return len;
}

size_t tc_contraction_format_sizes(const tc_contraction *c, char *buf, size_t n)
{
    size_t len = 0;
    char num[TC_NAME_MAX + 32];
    if (n > 0)
        buf[0] = '\0';
    for (int i = 0; i < c->nindex; i++) {
        snprintf(num, sizeof num, "%s%s=%lld", i ? "," : "", c->index[i].name,
                 (long long)c->index[i].size);
        tc_text_put(buf, n, &len, num);
    }
    return len;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t tc_contraction_hash(const tc_contraction *c)
{
    char buf[1024];
    uint64_t h = 0xcbf29ce484222325ULL;
    tc_contraction_format(c, buf, sizeof buf);
    h = fnv1a(h, buf);
    h = fnv1a(h, "|");
    tc_contraction_format_sizes(c, buf, sizeof buf);
    return fnv1a(h, buf);
}
