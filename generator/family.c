/*
 * family.c - the family table (enumerate.h): one row per candidate family,
 * each with the test that it applies, its enumeration and its count, as
 * FFTW registers its solvers; and what reads only the rows: building or
 * counting the classes (family x kernel) asked for, tc_gen_count, the
 * families' names.
 */
#include "generator/enumerate.h"

#include <string.h>

#include "ast/error.h"

/* Indices of the contraction by role. */
typedef struct roles {
    int nfa, nfb, nk;
    int fa[TC_MAX_INDICES], fb[TC_MAX_INDICES], k[TC_MAX_INDICES];
} roles;

static void get_roles(const tc_contraction *c, roles *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < c->nindex; i++) {
        switch (c->index[i].role) {
        case TC_ROLE_FREE_A: r->fa[r->nfa++] = i; break;
        case TC_ROLE_FREE_B: r->fb[r->nfb++] = i; break;
        case TC_ROLE_CONTRACTED: r->k[r->nk++] = i; break;
        case TC_ROLE_BATCH: break;
        }
    }
}

uint64_t tc_gen_factorial(int n)
{
    uint64_t f = 1;
    for (int i = 2; i <= n; i++)
        f *= (uint64_t)i;
    return f;
}

/* ---- the rows --------------------------------------------------------- */

static int always(const tc_contraction *c)
{
    (void)c;
    return 1;
}

/* The fused family needs a role with a run of two or more indices. */
static int has_run(const tc_contraction *c)
{
    static const int holders[3][3] = {{TC_ROLE_FREE_A, TC_A, TC_C},
                                      {TC_ROLE_FREE_B, TC_B, TC_C},
                                      {TC_ROLE_CONTRACTED, TC_A, TC_B}};
    for (int r = 0; r < 3; r++) {
        kdims l;
        tc_gen_role_dims(c, (tc_role)holders[r][0], holders[r][1], holders[r][2], 1, &l);
        for (int i = 0; i < l.n; i++)
            if (l.d[i].n > 1)
                return 1;
    }
    return 0;
}

/* The permuted family needs an index of every role but batch. */
static int every_role(const tc_contraction *c)
{
    roles r;
    get_roles(c, &r);
    return r.nfa > 0 && r.nfb > 0 && r.nk > 0;
}

/* The paper's and the fused family: every kernel asked, its dimensions
 * chosen from the runs of their roles (single indices without fuse). */
static tc_status enumerate_choices(builder *b, tc_error *err)
{
    const tc_contraction *c = b->c;
    int fuse = b->row->fuse;
    kdims fa, fb, kc;
    tc_gen_role_dims(c, TC_ROLE_FREE_A, TC_A, TC_C, fuse, &fa);
    tc_gen_role_dims(c, TC_ROLE_FREE_B, TC_B, TC_C, fuse, &fb);
    tc_gen_role_dims(c, TC_ROLE_CONTRACTED, TC_A, TC_B, fuse, &kc);
    for (int k = TC_KERNEL_COUNT - 1; k >= 0; k--) {
        if (!(b->kernels_of[b->family] & (1u << k)))
            continue;
        b->kernel = (tc_kernel)k;
        tc_status s = tc_gen_choose(b, &fa, &fb, &kc, err);
        if (s != TC_OK)
            return s;
    }
    return TC_OK;
}

/* The paper's closed form (docs/design.md §4): the choices of the
 * kernel's dimensions times (the other indices)! loop orders. */
static uint64_t count_paper(const tc_contraction *c, tc_kernel k)
{
    const tc_kernel_row *row = tc_kernel_row_of(k);
    if (!row)
        return 0;
    roles r;
    get_roles(c, &r);
    uint64_t choices = tc_kernel_choices(k, (uint64_t)r.nfa, (uint64_t)r.nfb, (uint64_t)r.nk);
    if (choices == 0 || c->nindex < row->nkept)
        return 0;
    return choices * tc_gen_factorial(c->nindex - row->nkept);
}

/* The family's candidates with kernel k, counted by its enumeration in
 * counting mode (a choice adds its loop orders at once; nothing built). */
static uint64_t count_enumerating(tc_family f, const tc_contraction *c, tc_kernel k)
{
    uint64_t counts[TC_FAMILY_COUNT][TC_KERNEL_COUNT];
    builder b;
    memset(&b, 0, sizeof b);
    memset(counts, 0, sizeof counts);
    b.c = b.orig = c;
    b.kernels_of[f] = 1u << k;
    b.counts = counts;
    b.family = f;
    b.row = &tc_family_table[f];
    b.row->enumerate(&b, NULL); /* counting allocates nothing: it cannot fail */
    return counts[f][k];
}

static uint64_t count_fused(const tc_contraction *c, tc_kernel k)
{
    return count_enumerating(TC_FAMILY_FUSED, c, k);
}

static uint64_t count_permuted(const tc_contraction *c, tc_kernel k)
{
    return count_enumerating(TC_FAMILY_PERMUTED, c, k);
}

const tc_family_row tc_family_table[TC_FAMILY_COUNT] = {
    [TC_FAMILY_PAPER] = {
        .name = "paper", .fuse = 0, .grouped = 0, .copies = 1, .bounded_order = 2,
        .applicable = always, .enumerate = enumerate_choices, .count = count_paper,
    },
    [TC_FAMILY_FUSED] = {
        .name = "fused", .fuse = 1, .grouped = 1, .copies = 0, .bounded_order = 0,
        .applicable = has_run, .enumerate = enumerate_choices, .count = count_fused,
    },
    [TC_FAMILY_PERMUTED] = {
        .name = "permuted", .fuse = 1, .grouped = -1, .copies = 0, .bounded_order = 1,
        .applicable = every_role, .enumerate = tc_gen_enumerate_permuted,
        .count = count_permuted,
    },
};

/* ---- what reads the rows ---------------------------------------------- */

const char *tc_family_name(tc_family f)
{
    return f >= 0 && f < TC_FAMILY_COUNT ? tc_family_table[f].name : "?";
}

tc_status tc_gen_traverse(builder *b, tc_error *err)
{
    const tc_contraction *c = b->c;
    for (int i = 0; i < c->nindex; i++)
        if (strlen(c->index[i].name) > 1)
            b->dot_names = 1;
    for (int f = 0; f < TC_FAMILY_COUNT; f++) {
        const tc_family_row *row = &tc_family_table[f];
        if (!b->kernels_of[f] || !row->applicable(c))
            continue;
        b->family = (tc_family)f;
        b->row = row;
        tc_status s = row->enumerate(b, err);
        if (s != TC_OK)
            return s;
    }
    return TC_OK;
}

uint64_t tc_gen_count(const tc_contraction *c, unsigned family_mask, tc_kernel k)
{
    uint64_t total = 0;
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        if ((family_mask & (1u << f)) && tc_family_table[f].applicable(c))
            total += tc_family_table[f].count(c, k);
    return total;
}

void tc_gen_count_classes(const tc_contraction *c, const unsigned kernels_of[TC_FAMILY_COUNT],
                          uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT])
{
    memset(count, 0, sizeof(uint64_t) * TC_FAMILY_COUNT * TC_KERNEL_COUNT);
    for (int f = 0; f < TC_FAMILY_COUNT; f++) {
        if (!kernels_of[f] || !tc_family_table[f].applicable(c))
            continue;
        for (int k = 0; k < TC_KERNEL_COUNT; k++)
            if (kernels_of[f] & (1u << k))
                count[f][k] = tc_family_table[f].count(c, (tc_kernel)k);
    }
}

uint64_t tc_gen_classes_total(uint64_t count[TC_FAMILY_COUNT][TC_KERNEL_COUNT])
{
    uint64_t total = 0;
    for (int f = 0; f < TC_FAMILY_COUNT; f++)
        for (int k = 0; k < TC_KERNEL_COUNT; k++)
            total = total + count[f][k] < total ? UINT64_MAX : total + count[f][k];
    return total;
}

size_t tc_gen_format_families(const tc_algorithm_set *s, char *buf, size_t n)
{
    int count[TC_FAMILY_COUNT] = {0};
    for (int i = 0; i < s->count; i++)
        count[s->alg[i]->family]++;
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    tc_text_put(buf, n, &len, "families:");
    for (int f = 0; f < TC_FAMILY_COUNT; f++) {
        char part[64];
        snprintf(part, sizeof part, " %s %d%s", tc_family_table[f].name, count[f],
                 f + 1 < TC_FAMILY_COUNT ? "," : "");
        tc_text_put(buf, n, &len, part);
    }
    return len;
}

tc_status tc_gen_parse_family(const char *name, const char *what, unsigned *mask,
                              tc_error *err)
{
    if (strcmp(name, "paper") == 0)
        *mask = 1u << TC_FAMILY_PAPER;
    else if (strcmp(name, "all") == 0)
        *mask = TC_FAMILY_MASK_ALL;
    else
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "unknown family '%s' in %s (choose paper or all)", name, what);
    return TC_OK;
}
