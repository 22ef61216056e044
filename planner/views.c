/* views.c - tensors as views (views.h) and tc_plan_create_views (tcgen.h). */
#include "planner/views.h"

#include <stdio.h>

#include "ast/error.h"
#include "planner/plan.h"
#include "planner/problem.h"

int tc_plan_view_order(int n, int *label, int64_t *stride, const int64_t *size, int *bad)
{
    for (int j = 1; j < n; j++) /* insertion sort: extent-1 modes last, else by stride */
        for (int i = j; i > 0; i--) {
            int one_before = size[label[i - 1]] == 1, one_here = size[label[i]] == 1;
            if (!(one_before > one_here ||
                  (one_before == one_here && stride[i - 1] > stride[i])))
                break;
            int l = label[i];
            int64_t s = stride[i];
            label[i] = label[i - 1], stride[i] = stride[i - 1];
            label[i - 1] = l, stride[i - 1] = s;
        }
    int64_t least = 1;
    for (int j = 0; j < n; j++) {
        int64_t e = size[label[j]];
        if (e == 1)
            stride[j] = least;
        if ((j == 0 ? stride[0] != 1 : stride[j] < least) ||
            __builtin_mul_overflow(stride[j], e, &least)) {
            *bad = j;
            return 0;
        }
    }
    return 1;
}

/* ---- tc_plan_create_views ------------------------------------------------ */

static const char *const tensor_name[3] = {"C", "A", "B"};

/* The problem the views give: labels numbered by first appearance (lab[t]),
 * their sizes, each tensor's modes in stride order (order[t]: labels,
 * stride[t]: strides). TC_OK, or TC_EINPUT / TC_EUSAGE naming the tensor,
 * mode and label. */
typedef struct views {
    int nlabel;
    int64_t value[3 * TC_MAX_RANK], size[3 * TC_MAX_RANK];
    int n[3], order[3][TC_MAX_RANK];
    int64_t stride[3][TC_MAX_RANK];
} views;

static tc_status read_labels(const tc_tensor_desc *const d[3], views *v, tc_error *err)
{
    v->nlabel = 0;
    for (int t = 0; t < 3; t++) {
        if (d[t]->nmode < 0 || d[t]->nmode > TC_MAX_RANK ||
            (d[t]->nmode > 0 && (!d[t]->label || !d[t]->extent)))
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "tc_plan_create_views: %s has %d modes%s (0 to %d, with labels "
                                "and extents)", tensor_name[t], d[t]->nmode,
                                d[t]->nmode > 0 ? " without labels or extents" : "",
                                TC_MAX_RANK);
        v->n[t] = d[t]->nmode;
        for (int k = 0; k < d[t]->nmode; k++)
            for (int j = 0; j < k; j++)
                if (d[t]->label[j] == d[t]->label[k])
                    return tc_error_set(err, TC_EINPUT, 0, 0, "label %lld twice in %s (modes "
                                        "%d and %d): diagonals are not supported",
                                        (long long)d[t]->label[k], tensor_name[t], j, k);
        for (int k = 0; k < d[t]->nmode; k++) {
            int64_t x = d[t]->label[k], e = d[t]->extent[k];
            int l = 0;
            while (l < v->nlabel && v->value[l] != x)
                l++;
            if (e < 1)
                return tc_error_set(err, TC_EINPUT, 0, 0, "mode %d of %s (label %lld) has "
                                    "extent %lld: extents start at 1", k, tensor_name[t],
                                    (long long)x, (long long)e);
            if (l < v->nlabel && v->size[l] != e)
                return tc_error_set(err, TC_EINPUT, 0, 0, "mode %d of %s (label %lld) has "
                                    "extent %lld, another mode with that label %lld", k,
                                    tensor_name[t], (long long)x, (long long)e,
                                    (long long)v->size[l]);
            if (l == v->nlabel)
                v->value[v->nlabel] = x, v->size[v->nlabel++] = e;
            v->order[t][k] = l;
            v->stride[t][k] = d[t]->stride ? d[t]->stride[k] : 0;
        }
    }
    return TC_OK;
}

/* Each tensor's modes in stride order (dense column-major where no
 * strides are given), checked to be a view tcgen plans over in place. */
static tc_status order_modes(const tc_tensor_desc *const d[3], views *v, tc_error *err)
{
    for (int t = 0; t < 3; t++) {
        int64_t dense = 1;
        for (int k = 0; k < v->n[t] && !d[t]->stride; k++)
            v->stride[t][k] = dense, dense *= v->size[v->order[t][k]];
        int bad;
        if (!tc_plan_view_order(v->n[t], v->order[t], v->stride[t], v->size, &bad)) {
            int l = v->order[t][bad], k = 0;
            while (d[t]->label[k] != v->value[l])
                k++;
            return tc_error_set(err, TC_EINPUT, 0, 0,
                                "mode %d of %s (label %lld) has stride %lld: tcgen takes "
                                "views whose strides, sorted, start at 1 and each reach the "
                                "one before times its extent (a dense tensor, or a tile of a "
                                "larger column-major array)", k, tensor_name[t],
                                (long long)v->value[l],
                                (long long)(d[t]->stride ? d[t]->stride[k] : 0));
        }
    }
    return TC_OK;
}

/* "C[x0,x1] += A[x0,x2] * B[x2,x1]" and "x0=4,x1=5,x2=6"; TC_EINPUT when a
 * label is in one tensor only. */
static tc_status problem_text(const views *v, double beta, char *text, size_t n, char *sizes,
                              size_t ns, tc_error *err)
{
    size_t len = 0, ls = 0;
    for (int l = 0; l < v->nlabel; l++) {
        int holders = 0;
        for (int t = 0; t < 3; t++)
            for (int k = 0; k < v->n[t]; k++)
                holders += v->order[t][k] == l;
        if (holders < 2)
            return tc_error_set(err, TC_EINPUT, 0, 0, "label %lld is in one tensor only: "
                                "TAPP_create_tensor_product sums such an index out, a "
                                "plan does not",
                                (long long)v->value[l]);
        if (ls < ns)
            ls += (size_t)snprintf(sizes + ls, ns - ls, "%sx%d=%lld", l ? "," : "", l,
                                   (long long)v->size[l]);
    }
    for (int t = 0; t < 3 && len < n; t++) {
        len += (size_t)snprintf(text + len, n - len, "%s%s[",
                                t == 0 ? "" : t == 1 ? (beta != 0.0 ? " += " : " = ") : " * ",
                                tensor_name[t]);
        for (int k = 0; k < v->n[t] && len < n; k++)
            len += (size_t)snprintf(text + len, n - len, "%sx%d", k ? "," : "", v->order[t][k]);
        if (len < n)
            len += (size_t)snprintf(text + len, n - len, "]");
    }
    if (len >= n || ls >= ns)
        return tc_error_set(err, TC_EINPUT, 0, 0, "tc_plan_create_views: problem too large");
    return TC_OK;
}

tc_plan *tc_plan_create_views(const tc_tensor_desc *C, const tc_tensor_desc *A,
                              const tc_tensor_desc *B, double alpha, double beta,
                              unsigned flags, tc_error *err)
{
    const tc_tensor_desc *const d[3] = {C, A, B};
    if (!C || !A || !B) {
        tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_create_views: NULL tensor");
        return NULL;
    }
    if ((beta != 0.0 && beta != 1.0) || (flags & TC_ROW_MAJOR)) {
        tc_error_set(err, TC_EUSAGE, 0, 0, "tc_plan_create_views: %s",
                     flags & TC_ROW_MAJOR ? "views carry their own layout: no TC_ROW_MAJOR"
                                          : "beta is 0 or 1 (tc_execute_scaled takes any)");
        return NULL;
    }
    views v;
    char text[512], sizes[512];
    tc_contraction user, storage;
    int which;
    if (read_labels(d, &v, err) != TC_OK || order_modes(d, &v, err) != TC_OK ||
        problem_text(&v, beta, text, sizeof text, sizes, sizeof sizes, err) != TC_OK ||
        tc_plan_problem(text, sizes, 0, &user, &storage, &which, err) != TC_OK)
        return NULL;
    user.alpha = alpha;
    for (int t = 0; t < 3; t++)
        if (tc_contraction_set_strides(&user, t, v.stride[t], err) != TC_OK)
            return NULL;
    tc_plan_options o = tc_plan_options_default();
    return tc_plan_create_with(&user, flags, &o, err);
}
