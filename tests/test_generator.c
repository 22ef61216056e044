/*
 * test_generator.c - algorithm enumeration: the three oracles of docs/design.md
 * §4 (totals, per-kernel counts, every named algorithm), the closed forms
 * of docs/design.md §4 on the corpus and on random contractions, copy placement
 * (docs/design.md §4), order and naming, sizes beyond int, and the golden
 * `list` output of the oracles.
 */
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ast/algorithm.h"
#include "ast/kernel_print.h"
#include "generator/enumerate.h"
#include "generator/generator.h"
#include "generator/kernel_gen.h"
#include "parser/parser.h"
#include "runtime/execute.h"
#include "runtime/kernel_run.h"
#include "tests/helpers_corpus.h"
#include "tests/helpers_data.h"

/* Parses and enumerates; NULL (with a failed assertion) on error. */
static tc_algorithm_set *enumerate(const char *text, const char *sizes, tc_contraction *c,
                                   unsigned mask)
{
    char msg[512];
    tc_error e;
    tc_algorithm_set *set = NULL;
    if (tc_corpus_parse(text, sizes, c, msg, sizeof msg) != 0) {
        fprintf(stderr, "\n  %s\n", msg);
        CU_FAIL("parse");
        return NULL;
    }
    if (tc_gen_enumerate(c, mask, &set, &e) != TC_OK) {
        fprintf(stderr, "\n  %s: %s\n", text, e.message);
        CU_FAIL("enumerate");
        return NULL;
    }
    return set;
}

static void count_kernels(const tc_algorithm_set *s, int count[TC_KERNEL_COUNT])
{
    memset(count, 0, TC_KERNEL_COUNT * sizeof count[0]);
    for (int i = 0; i < s->count; i++)
        count[s->alg[i]->kernel]++;
}

/* ---- the fused family ------------------------------------------------- */

/* The fused candidates of a contraction, by name; their calls span the
 * product of each group's sizes. */
static void test_fused(void)
{
    static const struct {
        const char *text, *sizes;
        int count;
        const char *names[8];
    } cases[] = {
        /* n = (b,c): adjacent in B and C */
        {"C[a,b,c] = A[a,i] * B[i,b,c]", "a=3,b=4,c=5,i=2", 5,
         {"(bc)-dgemm", "i(bc)-dger", "a(bc)-dgemv", "ai(bc)-daxpy", "ia(bc)-daxpy"}},
        /* (d,e) and (b,c) fuse, but a dgemm over them leaves C's first
         * index a looped: C would need a copy, so no fused dgemm (-2) */
        {"C[a,b,c,d,e,f] = A[d,e,g,a] * B[g,f,b,c]", NULL, -2,
         {"defg(bc)-dger", "abcf(de)-dgemv", "gfeda(bc)-daxpy"}},
        /* contracted (i,j) in the same order in A and B; C[a,b] */
        {"C[a,b] = A[a,i,j] * B[i,j,b]", "a=2,b=3,i=4,j=5", -1, {"(ij)-dgemm", "ab(ij)-ddot"}},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        tc_contraction c;
        char msg[512];
        tc_error e;
        tc_algorithm_set *set = NULL;
        CU_ASSERT_EQUAL_FATAL(tc_corpus_parse(cases[t].text, cases[t].sizes, &c, msg, sizeof msg), 0);
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL,
                                                        1u << TC_FAMILY_FUSED, &set, &e), TC_OK);
        if (cases[t].count >= 0)
            CU_ASSERT_EQUAL(set->count, cases[t].count);
        for (int i = 0; cases[t].count == -2 && i < set->count; i++)
            CU_ASSERT_NOT_EQUAL(set->alg[i]->kernel, TC_KERNEL_DGEMM);
        for (int i = 0; i < set->count; i++)
            CU_ASSERT_EQUAL(set->alg[i]->family, TC_FAMILY_FUSED);
        for (int k = 0; k < 8 && cases[t].names[k]; k++) {
            const tc_algorithm *a = tc_alg_set_find(set, cases[t].names[k]);
            CU_ASSERT_PTR_NOT_NULL(a);
            if (!a)
                fprintf(stderr, "\n  %s: no %s\n", cases[t].text, cases[t].names[k]);
        }
        tc_alg_set_free(set);
    }
    /* (bc)-dgemm is one call: m = a, n = b*c, k = i, no transposes */
    tc_contraction c;
    tc_algorithm_set *set = NULL, *paper = NULL;
    char msg[512];
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse(cases[0].text, cases[0].sizes, &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                    &set, &e), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &paper, &e), TC_OK);
    CU_ASSERT_EQUAL(set->count, paper->count + 5);
    const tc_algorithm *g = tc_alg_set_find(set, "(bc)-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    const tc_call *k = g->kernel_node->call;
    CU_ASSERT_EQUAL(g->nloops, 0);
    CU_ASSERT_EQUAL(k->m, 3);
    CU_ASSERT_EQUAL(k->n, 20);
    CU_ASSERT_EQUAL(k->k, 2);
    CU_ASSERT_EQUAL(k->trans_a, 0);
    CU_ASSERT_EQUAL(k->trans_b, 0);
    CU_ASSERT_EQUAL(k->arg[1].ld, 2);
    CU_ASSERT_EQUAL(k->arg[2].ld, 3);
    CU_ASSERT_EQUAL(k->arg[2].dim[1].n, 2);
    tc_alg_set_free(set);
    tc_alg_set_free(paper);
}

/* The permuted family's cases: the candidates each layout allows (a dgemm
 * over whole roles, or with one tensor permuted over maximal runs and
 * looped over the rest; a tensor's blocks looped outermost). */
static const struct {
    const char *text;
    int count;
    const char *names[4];
} permuted_cases[] = {
    {"C[a,b,c,d,e,f] = A[d,e,g,a] * B[g,f,b,c]", 36,
     {"A^C^-dgemm", "C^a(de)(fbc)-dgemm", "A^feC^-dgemm", "feC^a(bc)-dgemm"}},
    {"C[a,b,c] = A[i,j,a] * B[j,b,i,c]", 8,
     {"A^B^-dgemm", "B^-dgemm", "A^bi-dgemm", "A^cB^-dgemm"}},
    {"R[a,b,i,j] += W[a,m,e,j] * T[e,b,i,m]", 7,
     {"W^T^R^-dgemm", "R^jm(bi)-dgemm", "T^j(bi)(me)-dgemm", "jW^m(bi)-dgemm"}},
    {"C[a,b,z] = A[z,a,i] * B[i,b,z]", 1, {"A^z-dgemm"}},
    {"C[a,b,c] = A[a,i] * B[i,b,c]", 0, {NULL}}, /* nothing to permute */
};

/* The candidates of each case: their count, some names, and with two or
 * more tensors permuted, loops around the blocks alone. */
static void permuted_candidates(void)
{
    for (size_t t = 0; t < sizeof permuted_cases / sizeof permuted_cases[0]; t++) {
        tc_contraction c;
        char msg[512];
        tc_error e;
        tc_algorithm_set *set = NULL;
        CU_ASSERT_EQUAL_FATAL(
            tc_corpus_parse(permuted_cases[t].text, NULL, &c, msg, sizeof msg), 0);
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL,
                                                        1u << TC_FAMILY_PERMUTED, &set, &e),
                              TC_OK);
        for (int n = 0; n < 4 && permuted_cases[t].names[n]; n++)
            CU_ASSERT_PTR_NOT_NULL(tc_alg_set_find(set, permuted_cases[t].names[n]));
        CU_ASSERT_EQUAL(set->count, permuted_cases[t].count);
        /* two or more tensors permuted: only over whole roles, looped
         * over the blocks alone (the deepest copy's loops) */
        for (int a = 0; a < set->count; a++) {
            const tc_algorithm *alg = set->alg[a];
            const char *hat = strchr(alg->name, '^');
            int deepest = 0;
            for (int k = 0; k < alg->ncopies; k++)
                if (alg->copy_node[k]->depth > deepest)
                    deepest = alg->copy_node[k]->depth;
            if (hat && strchr(hat + 1, '^'))
                CU_ASSERT_EQUAL(alg->nloops, deepest);
        }
        tc_alg_set_free(set);
    }
}

/* A^C^-dgemm: A permuted in before the loops, C computed in a temporary
 * and permuted back after them, one dgemm over whole roles between; and
 * blocked, A^feC^-dgemm. */
static void permuted_shapes(void)
{
    tc_contraction c;
    char msg[512];
    tc_error e;
    tc_algorithm_set *set = NULL;
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse(permuted_cases[0].text, "a=b=c=d=e=f=3,g=4", &c, msg,
                                          sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL,
                                                    TC_FAMILY_MASK_ALL, &set, &e), TC_OK);
    const tc_algorithm *a = tc_alg_set_find(set, "A^C^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->family, TC_FAMILY_PERMUTED);
    CU_ASSERT_EQUAL(a->nloops, 0);
    CU_ASSERT_EQUAL(a->ntemps, 2);
    const tc_node *first = a->body;
    CU_ASSERT(first->kind == TC_NODE_PERMUTE && first->perm->dir == TC_COPY_IN &&
              first->perm->tensor == TC_A);
    CU_ASSERT(first->next == a->kernel_node);
    const tc_node *last = a->kernel_node->next;
    CU_ASSERT_FATAL(last != NULL);
    CU_ASSERT(last->kind == TC_NODE_PERMUTE && last->perm->dir == TC_COPY_OUT &&
              last->perm->tensor == TC_C);
    const tc_call *k = a->kernel_node->call;
    CU_ASSERT_EQUAL(k->m, 27); /* (d,e,a) */
    CU_ASSERT_EQUAL(k->n, 27); /* (f,b,c) */
    CU_ASSERT_EQUAL(k->k, 4);  /* g */
    CU_ASSERT_EQUAL(k->trans_a + k->trans_b, 0);
    CU_ASSERT(tc_alg_kernel_owns_beta(a));
    CU_ASSERT_EQUAL(tc_alg_kernel_beta(a, &c), 0.0);
    /* blocked: loops f, e around the dgemm; C's block below them (a,b,c,d)
     * computed in a temporary of its size and permuted back in each */
    const tc_algorithm *bl = tc_alg_set_find(set, "A^feC^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bl);
    CU_ASSERT_EQUAL(bl->nloops, 2);
    CU_ASSERT_EQUAL(bl->loop[0], 5); /* f: C's last index outermost */
    CU_ASSERT_EQUAL(bl->loop[1], 4);
    const tc_node *out = bl->kernel_node->next;
    CU_ASSERT_FATAL(out != NULL && out->kind == TC_NODE_PERMUTE);
    CU_ASSERT(out->parent == bl->loop_node[1] && out->perm->dir == TC_COPY_OUT);
    const tc_temp *tc = &bl->temp[out->perm->temp];
    CU_ASSERT_EQUAL(tc->rank, 4);
    CU_ASSERT_EQUAL(tc->elements, 81);
    CU_ASSERT_EQUAL(out->perm->view.rank, 4);
    CU_ASSERT_EQUAL(tc_permutation_elements(out->perm), 81);
    CU_ASSERT_EQUAL(out->perm->ndep, 2);
    CU_ASSERT_EQUAL(out->perm->written, 729);
    const tc_call *kb = bl->kernel_node->call;
    CU_ASSERT_EQUAL(kb->arg[2].ndep, 0); /* the same temporary in every block */
    CU_ASSERT_EQUAL(kb->m, 9); /* (d,a) */
    CU_ASSERT_EQUAL(kb->n, 9); /* (b,c) */
    tc_alg_set_free(set);
}

/* An input blocked: cB^-dgemm. */
static void permuted_input_blocked(void)
{
    tc_contraction c;
    char msg[512];
    tc_error e;
    tc_algorithm_set *set = NULL;
    /* an input blocked: B[j,b,i,c]'s block at c (j,b,i) permuted in the c
     * loop, before the dgemm, which reads it at no offset */
    CU_ASSERT_EQUAL_FATAL(
        tc_corpus_parse(permuted_cases[1].text, "a=b=c=4,i=j=3", &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL,
                                                    TC_FAMILY_MASK_ALL, &set, &e), TC_OK);
    const tc_algorithm *in = tc_alg_set_find(set, "cB^-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    CU_ASSERT_EQUAL(in->nloops, 1);
    const tc_node *cp = in->loop_node[0]->child;
    CU_ASSERT_FATAL(cp != NULL && cp->kind == TC_NODE_PERMUTE);
    CU_ASSERT(cp->perm->dir == TC_COPY_IN && cp->perm->tensor == TC_B);
    CU_ASSERT(cp->next == in->kernel_node);
    CU_ASSERT_EQUAL(in->temp[cp->perm->temp].elements, 36);
    CU_ASSERT_EQUAL(cp->perm->written, 36); /* its block, read right after */
    CU_ASSERT_EQUAL(cp->perm->ndep, 1);
    CU_ASSERT_EQUAL(in->kernel_node->call->arg[1].ndep, 0);
    tc_alg_set_free(set);
}

/* The permuted family: its candidates, and the shape of some. */
static void test_permuted(void)
{
    permuted_candidates();
    permuted_shapes();
    permuted_input_blocked();
}

/* ---- the oracles ------------------------------------------------------ */

struct oracle {
    const char *text;
    int total, ddot, daxpy, dgemv, dger, dgemm;
    const char *names[12];
};

static const struct oracle oracles[] = {
    {"C[a,b,c] = A[a,i] * B[i,b,c]", 36, 6, 18, 6, 4, 2,
     {"bc-dgemv", "cb-dgemv", "ac-dgemv", "ca-dgemv", "ab-dgemv", "ba-dgemv", "ci-dger",
      "ic-dger", "bi-dger", "ib-dger", "c-dgemm", "b-dgemm"}},
    {"C[a] = A[i,a,j] * B[j,i]", 8, 4, 2, 2, 0, 0,
     {"aj-ddot", "ja-ddot", "ai-ddot", "ia-ddot", "ij-daxpy", "ji-daxpy", "j-dgemv",
      "i'-dgemv"}},
    {"C[a,b,c] = A[i,j,a] * B[j,b,i,c]", 176, 48, 72, 36, 12, 8,
     {"cj'-dgemm", "jc'-dgemm", "ci'-dgemm", "i'c-dgemm", "bj'-dgemm", "jb'-dgemm",
      "bi'-dgemm", "i'b-dgemm"}},
};

static void test_oracles(void)
{
    for (size_t o = 0; o < sizeof oracles / sizeof oracles[0]; o++) {
        const struct oracle *x = &oracles[o];
        tc_contraction c;
        tc_algorithm_set *s = enumerate(x->text, NULL, &c, TC_KERNEL_MASK_ALL);
        if (!s)
            continue;
        int n[TC_KERNEL_COUNT];
        count_kernels(s, n);
        CU_ASSERT_EQUAL(s->count, x->total);
        CU_ASSERT_EQUAL(n[TC_KERNEL_DDOT], x->ddot);
        CU_ASSERT_EQUAL(n[TC_KERNEL_DAXPY], x->daxpy);
        CU_ASSERT_EQUAL(n[TC_KERNEL_DGEMV], x->dgemv);
        CU_ASSERT_EQUAL(n[TC_KERNEL_DGER], x->dger);
        CU_ASSERT_EQUAL(n[TC_KERNEL_DGEMM], x->dgemm);
        for (int k = 0; k < 12 && x->names[k]; k++) {
            const tc_algorithm *a = tc_alg_set_find(s, x->names[k]);
            if (!a)
                fprintf(stderr, "\n  %s: no algorithm %s\n", x->text, x->names[k]);
            CU_ASSERT_PTR_NOT_NULL(a);
        }
        tc_alg_set_free(s);
    }
}

/* The same counts with sizes, in the compact notation, and per kernel mask. */
static void test_oracles_masked(void)
{
    tc_contraction c;
    tc_algorithm_set *s = enumerate("C_abc = A_ija B_jbic", "a=b=c=40,i=j=8", &c,
                                    (1u << TC_KERNEL_DGEMM) | (1u << TC_KERNEL_DGEMV));
    if (!s)
        return;
    CU_ASSERT_EQUAL(s->count, 8 + 36);
    for (int i = 0; i < s->count; i++)
        CU_ASSERT(s->alg[i]->kernel == TC_KERNEL_DGEMM || s->alg[i]->kernel == TC_KERNEL_DGEMV);
    /* 18 of the 36 dgemv algorithms copy (docs/design.md §4) */
    int copying = 0;
    for (int i = 0; i < s->count; i++)
        if (s->alg[i]->kernel == TC_KERNEL_DGEMV && s->alg[i]->ncopies > 0)
            copying++;
    CU_ASSERT_EQUAL(copying, 18);
    tc_alg_set_free(s);
}

/* ---- closed forms ----------------------------------------------------- */

static uint64_t fact(int n)
{
    uint64_t f = 1;
    for (int i = 2; i <= n; i++)
        f *= (uint64_t)i;
    return n < 0 ? 0 : f;
}

/* The table of docs/design.md §4, computed independently of the generator. */
static void closed_form(const tc_contraction *c, uint64_t want[TC_KERNEL_COUNT])
{
    uint64_t fa = 0, fb = 0, k = 0;
    int n = c->nindex;
    for (int i = 0; i < n; i++) {
        fa += c->index[i].role == TC_ROLE_FREE_A;
        fb += c->index[i].role == TC_ROLE_FREE_B;
        k += c->index[i].role == TC_ROLE_CONTRACTED;
    }
    want[TC_KERNEL_DDOT] = k * fact(n - 1);
    want[TC_KERNEL_DAXPY] = (fa + fb) * fact(n - 1);
    want[TC_KERNEL_DGEMV] = (fa + fb) * k * fact(n - 2);
    want[TC_KERNEL_DGER] = fa * fb * fact(n - 2);
    want[TC_KERNEL_DGEMM] = fa * fb * k * fact(n - 3);
}

static int is_kept(const tc_algorithm *a, int i)
{
    for (int k = 0; k < a->nkept; k++)
        if (tc_dim_holds(&a->kept[k], i))
            return 1;
    return 0;
}

/* Structural invariants of one algorithm a of c; returns failures. */
static int check_alg(const tc_contraction *c, const tc_algorithm *a, const char *text)
{
    int bad = 0;
    /* loops + kernel indices = every index once; batch never kept */
    int seen[TC_MAX_INDICES] = {0};
    for (int p = 0; p < a->nloops; p++)
        seen[a->loop[p]]++;
    for (int k = 0; k < a->nkept; k++) {
        for (int j = 0; j < a->kept[k].n; j++)
            seen[a->kept[k].index[j]]++;
        if (tc_dim_role(c, &a->kept[k]) == TC_ROLE_BATCH)
            bad++;
    }
    for (int x = 0; x < c->nindex; x++)
        if (seen[x] != 1)
            bad++;
    /* loop nodes form the nest; the kernel sits in the innermost */
    for (int p = 0; p < a->nloops; p++)
        if (a->loop_node[p]->index != a->loop[p] || a->loop_node[p]->depth != p ||
            a->loop_node[p]->parent != (p ? a->loop_node[p - 1] : NULL))
            bad++;
    if (a->kernel_node->parent != (a->nloops ? a->loop_node[a->nloops - 1] : NULL))
        bad++;
    /* copies: exactly the matrix slices whose first index is kept not */
    int need = 0;
    for (int t = 0; t < 3; t++) {
        int kept = 0;
        for (int r = 0; r < c->tensor[t].rank; r++)
            kept += is_kept(a, c->tensor[t].index[r]);
        if (kept == 2 && !is_kept(a, c->tensor[t].index[0]))
            need += t == TC_C ? 2 : 1;
    }
    if (need != a->ncopies) {
        fprintf(stderr, "\n  %s: %s has %d copies, expected %d\n", text, a->name,
                a->ncopies, need);
        bad++;
    }
    /* a copy sits in its innermost dependency loop */
    for (int k = 0; k < a->ncopies; k++) {
        const tc_node *n = a->copy_node[k];
        int inner = -1;
        for (int p = 0; p < a->nloops; p++)
            for (int d = 0; d < n->copy->slice.ndep; d++)
                if (n->copy->slice.dep[d] == a->loop[p])
                    inner = p;
        if (n->parent != (inner >= 0 ? a->loop_node[inner] : NULL))
            bad++;
        if (!strchr(a->name, '\''))
            bad++;
    }
    /* the kernel's operands have the right ranks */
    static const int ranks[TC_KERNEL_COUNT][3] = {
        {1, 1, 0}, {0, 1, 1}, {2, 1, 1}, {1, 1, 2}, {2, 2, 2}};
    for (int k = 0; k < 3; k++)
        if (a->kernel_node->call->arg[k].rank != ranks[a->kernel][k])
            bad++;
    if (strstr(a->name, tc_kernel_name(a->kernel)) == NULL)
        bad++;
    return bad;
}

/* Structural invariants of every algorithm of a set; returns failures. */
static int check_set(const tc_contraction *c, const tc_algorithm_set *s, const char *text)
{
    int bad = 0;
    uint64_t want[TC_KERNEL_COUNT];
    int got[TC_KERNEL_COUNT];
    closed_form(c, want);
    count_kernels(s, got);
    for (int k = 0; k < TC_KERNEL_COUNT; k++)
        if ((uint64_t)got[k] != want[k]) {
            fprintf(stderr, "\n  %s: %s %d, closed form %llu\n", text,
                    tc_kernel_name((tc_kernel)k), got[k], (unsigned long long)want[k]);
            bad++;
        }
    for (int i = 0; i < s->count; i++) {
        const tc_algorithm *a = s->alg[i];
        /* sorted by kernel (dgemm first) then name; names unique */
        if (i > 0) {
            const tc_algorithm *p = s->alg[i - 1];
            if (p->kernel < a->kernel ||
                (p->kernel == a->kernel && strcmp(p->name, a->name) >= 0)) {
                fprintf(stderr, "\n  %s: order %s before %s\n", text, p->name, a->name);
                bad++;
            }
        }
        bad += check_alg(c, a, text);
    }
    return bad;
}

static void test_corpus_closed_forms(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    for (int i = 0; i < n; i++) {
        tc_algorithm_set *s = NULL;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&corpus[i].c, TC_KERNEL_MASK_ALL, &s, &e), TC_OK);
        CU_ASSERT_EQUAL(check_set(&corpus[i].c, s, corpus[i].text), 0);
        for (int k = 0; k < TC_KERNEL_COUNT; k++) {
            uint64_t want[TC_KERNEL_COUNT];
            closed_form(&corpus[i].c, want);
            CU_ASSERT_EQUAL(tc_gen_count(&corpus[i].c, 1u << TC_FAMILY_PAPER, (tc_kernel)k),
                            want[k]);
        }
        tc_alg_set_free(s);
    }
}

/* Random contractions: 2-6 indices in A and B, every role including batch,
 * one- and multi-character names, at most 8 distinct indices. */
static void test_random_closed_forms(void)
{
    uint64_t state = 12345;
    for (int k = 0; k < 150; k++) {
        char text[256];
        tc_corpus_random(&state, 8, 1, text, sizeof text, NULL, 0);
        tc_contraction c;
        tc_algorithm_set *s = enumerate(text, NULL, &c, TC_KERNEL_MASK_ALL);
        if (!s)
            continue;
        CU_ASSERT_EQUAL(check_set(&c, s, text), 0);
        /* names joined with '.' exactly when an index name is long */
        int dots = 0;
        for (int i = 0; i < c.nindex; i++)
            dots |= strlen(c.index[i].name) > 1;
        for (int i = 0; i < s->count; i++)
            if (s->alg[i]->nloops > 1)
                CU_ASSERT_EQUAL(strchr(s->alg[i]->name, '.') != NULL, dots);
        tc_alg_set_free(s);
    }
}

/* ---- copies and names ------------------------------------------------- */

static const tc_algorithm *find(const tc_algorithm_set *s, const char *name)
{
    const tc_algorithm *a = tc_alg_set_find(s, name);
    if (!a)
        fprintf(stderr, "\n  no algorithm %s\n", name);
    return a;
}

/* The dgemm slice copies of C[a,b,c] = A[i,j,a] * B[j,b,i,c]. */
static void copies_of_dgemms(void)
{
    tc_contraction c;
    tc_algorithm_set *s = enumerate("C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "a=4,b=5,c=6,i=2,j=3",
                                    &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return;
    int ia = tc_contraction_find_index(&c, "a"), ib = tc_contraction_find_index(&c, "b");
    int ii = tc_contraction_find_index(&c, "i"), ij = tc_contraction_find_index(&c, "j");
    /* i'c: for i { A~ := A[i,:,:]; for c { dgemm } } */
    const tc_algorithm *x = find(s, "i'c-dgemm");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->ncopies, 1);
    const tc_node *loop_i = x->body;
    CU_ASSERT_EQUAL(loop_i->index, ii);
    CU_ASSERT_EQUAL(loop_i->child->kind, TC_NODE_COPY);
    CU_ASSERT_EQUAL(loop_i->child->next->kind, TC_NODE_LOOP);
    CU_ASSERT_EQUAL(loop_i->child->next->child->kind, TC_NODE_KERNEL);
    CU_ASSERT_EQUAL(x->copy_node[0]->copy->slice.tensor, TC_A);
    CU_ASSERT_EQUAL(x->temp[0].dim[0], ij);
    CU_ASSERT_EQUAL(x->temp[0].dim[1], ia);
    CU_ASSERT_EQUAL(x->temp[0].elements, 3 * 4);
    const tc_call *k = x->kernel_node->call;
    CU_ASSERT(k->trans_a == 1 && k->trans_b == 0); /* dgemm_TN */
    CU_ASSERT(k->m == 4 && k->n == 5 && k->k == 3);
    CU_ASSERT_EQUAL(k->arg[0].base, TC_BASE_TEMP);
    CU_ASSERT_EQUAL(k->arg[1].base, TC_B);
    CU_ASSERT_EQUAL(k->arg[1].ld, 3);          /* B[:,:,i,c]: j x b, ld j */
    CU_ASSERT_EQUAL(k->arg[1].ndep, 2);
    CU_ASSERT_EQUAL(k->arg[1].dep_stride[0], 3 * 5); /* i */
    CU_ASSERT_EQUAL(k->arg[1].dep_stride[1], 3 * 5 * 2); /* c */
    /* ci': for c { for i { A~ := A[i,:,:]; dgemm } } */
    x = find(s, "ci'-dgemm");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->copy_node[0]->parent, x->loop_node[1]);
    CU_ASSERT_EQUAL(x->loop_node[1]->child, x->copy_node[0]);
    CU_ASSERT_EQUAL(x->copy_node[0]->next, x->kernel_node);
    /* cj': B~ := B[j,:,:,c] (b x i), dgemm_TT */
    x = find(s, "cj'-dgemm");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->copy_node[0]->copy->slice.tensor, TC_B);
    CU_ASSERT_EQUAL(x->copy_node[0]->parent, x->loop_node[1]);
    CU_ASSERT(x->temp[0].dim[0] == ib && x->temp[0].dim[1] == ii);
    CU_ASSERT(x->kernel_node->call->trans_a == 1 && x->kernel_node->call->trans_b == 1);
    /* jc': the copy depends on j and c, so it is in the innermost loop */
    x = find(s, "jc'-dgemm");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->copy_node[0]->parent, x->loop_node[1]);
    /* no algorithm without an apostrophe among the copying names */
    CU_ASSERT_PTR_NULL(tc_alg_set_find(s, "ic-dgemm"));
    CU_ASSERT_PTR_NULL(tc_alg_set_find(s, "ci-dgemm"));
    tc_alg_set_free(s);
}

/* A dgemv with a copied A, and one without a copy. */
static void copies_of_dgemvs(void)
{
    tc_contraction c;
    const tc_algorithm *x;
    tc_algorithm_set *s;
    /* i'-dgemv of C_a = A_iaj B_ji: A[i,:,:] copied, then dgemvN */
    s = enumerate("C[a] = A[i,a,j] * B[j,i]", "a=5,i=3,j=4", &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return;
    x = find(s, "i'-dgemv");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->kernel_node->call->trans_a, 0);
    CU_ASSERT_EQUAL(x->kernel_node->call->arg[1].ld, 1); /* B[:,i] */
    x = find(s, "j-dgemv");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->kernel_node->call->trans_a, 1);
    CU_ASSERT_EQUAL(x->kernel_node->call->arg[1].ld, 4); /* B[j,:] has inc j */
    CU_ASSERT_EQUAL(x->ncopies, 0);
    tc_alg_set_free(s);
}

/* An output slice without its first index: copied in and back out. */
static void copies_of_outputs(void)
{
    tc_contraction c;
    const tc_algorithm *x;
    tc_algorithm_set *s;
    s = enumerate("C[a,b,c] = A[a,b,i] * B[i,c]", "a=3,b=4,c=5,i=2", &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return;
    x = find(s, "a'-dgemm");
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->ncopies, 3);
    const tc_node *n = x->loop_node[0]->child;
    CU_ASSERT(n->kind == TC_NODE_COPY && n->copy->dir == TC_COPY_IN &&
              n->copy->slice.tensor == TC_C);
    n = n->next;
    CU_ASSERT(n->kind == TC_NODE_COPY && n->copy->dir == TC_COPY_IN &&
              n->copy->slice.tensor == TC_A);
    n = n->next;
    CU_ASSERT_EQUAL(n, x->kernel_node);
    n = n->next;
    CU_ASSERT(n && n->kind == TC_NODE_COPY && n->copy->dir == TC_COPY_OUT &&
              n->copy->slice.tensor == TC_C && n->next == NULL);
    char buf[64];
    tc_gen_format_copies(x, &c, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "C@a,A@a");
    x = find(s, "a'i-dger"); /* C[a,:,:] copied at a, accumulated over i */
    CU_ASSERT_FATAL(x != NULL);
    CU_ASSERT_EQUAL(x->copy_node[0]->parent, x->loop_node[0]);
    CU_ASSERT_EQUAL(x->loop_node[0]->child->next, x->loop_node[1]);
    tc_gen_format_loops(x, &c, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "a,i");
    tc_alg_set_free(s);
}

static void test_copy_placement(void)
{
    copies_of_dgemms();
    copies_of_dgemvs();
    copies_of_outputs();
}

static void test_names(void)
{
    tc_contraction c;
    /* no loops: the kernel's name alone */
    tc_algorithm_set *s = enumerate("C[a,b] = A[a,i] * B[i,b]", NULL, &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return;
    CU_ASSERT_EQUAL(s->count, 10); /* docs/design.md §4 sanity case */
    CU_ASSERT_STRING_EQUAL(s->alg[0]->name, "dgemm");
    CU_ASSERT_EQUAL(s->alg[0]->nloops, 0);
    CU_ASSERT_PTR_EQUAL(s->alg[0]->body, s->alg[0]->kernel_node);
    CU_ASSERT_EQUAL(s->alg[0]->kernel_node->call->m, 0); /* no sizes */
    char buf[128];
    tc_gen_format_loops(s->alg[0], &c, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "-");
    tc_gen_format_copies(s->alg[0], &c, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "-");
    tc_gen_format_summary(s, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "10 algorithms: dgemm 1, dger 1, dgemv 2, daxpy 4, ddot 2");
    tc_alg_set_free(s);
    /* multi-character names are joined with '.' */
    s = enumerate("C[a1,b2,c3] = A[i1,j2,a1] * B[j2,b2,i1,c3]", NULL, &c, 1u << TC_KERNEL_DGEMM);
    if (!s)
        return;
    CU_ASSERT_EQUAL(s->count, 8);
    CU_ASSERT_PTR_NOT_NULL(find(s, "i1'.c3-dgemm"));
    CU_ASSERT_PTR_NOT_NULL(find(s, "c3.j2'-dgemm"));
    tc_alg_set_free(s);
    /* batch indices are always looped */
    s = enumerate("C[a,b,n] = A[a,i,n] * B[i,b,n]", NULL, &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return;
    CU_ASSERT_PTR_NOT_NULL(find(s, "n-dgemm"));
    CU_ASSERT_EQUAL(s->count, 1 + 2 + 4 + 12 + 6); /* dgemm dger dgemv daxpy ddot */
    tc_alg_set_free(s);
}

static void test_errors_and_limits(void)
{
    tc_error e;
    unsigned mask = 0;
    CU_ASSERT_EQUAL(tc_gen_parse_kernels("dgemm,dgemv", "--kernels", &mask, &e), TC_OK);
    CU_ASSERT_EQUAL(mask, (1u << TC_KERNEL_DGEMM) | (1u << TC_KERNEL_DGEMV));
    CU_ASSERT_EQUAL(tc_gen_parse_kernels("zgemm,sger", "--kernels", &mask, &e), TC_OK);
    CU_ASSERT_EQUAL(mask, (1u << TC_KERNEL_DGEMM) | (1u << TC_KERNEL_DGER)); /* any type's name */
    CU_ASSERT_EQUAL(tc_gen_parse_kernels("dgemm,hgemm", "--kernels", &mask, &e), TC_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "hgemm"));
    CU_ASSERT_EQUAL(tc_gen_parse_kernels("", "--kernels", &mask, &e), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_gen_parse_kernels("dgemm,", "--kernels", &mask, &e), TC_EUSAGE);

    /* too many algorithms: refused, not attempted */
    tc_contraction c;
    char msg[256];
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c,d,e,f] = A[a,b,c,i,j,k] * B[i,j,k,d,e,f]",
                                          NULL, &c, msg, sizeof msg), 0);
    tc_algorithm_set *s = (tc_algorithm_set *)&c; /* must be reset to NULL */
    CU_ASSERT_EQUAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &s, &e), TC_EINPUT);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "algorithms"));
    /* with one kernel it fits: 27 * 6! */
    CU_ASSERT_EQUAL(tc_gen_enumerate(&c, 1u << TC_KERNEL_DGEMM, &s, &e), TC_OK);
    CU_ASSERT_EQUAL(s ? s->count : -1, 27 * 720);
    tc_alg_set_free(s);

    /* BLAS arguments beyond INT_MAX are marked, and refused by the executor */
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=1,b=3000000000,i=1",
                                          &c, msg, sizeof msg), 0);
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &s, &e), TC_OK);
    const tc_algorithm *big = tc_alg_set_find(s, "dgemm");
    CU_ASSERT_FATAL(big != NULL);
    CU_ASSERT_EQUAL(big->fits_int, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(big->why, "INT_MAX"));
    const tc_algorithm *ok = tc_alg_set_find(s, "b-dgemv"); /* 1 x 1, incs 1 */
    CU_ASSERT_FATAL(ok != NULL);
    CU_ASSERT_EQUAL(ok->fits_int, 1);
    tc_blas fake;
    memset(&fake, 0, sizeof fake);
    double x = 0;
    CU_ASSERT_EQUAL(tc_rt_execute(&fake, big, &c, &x, &x, &x, &e), TC_EINPUT);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        CU_ASSERT_EQUAL(tc_emit_c(big, &c, &opt, devnull, &e), TC_EINPUT);
        fclose(devnull);
    }
    tc_alg_set_free(s);
    tc_alg_set_free(NULL);
}

/* The printer writes into the FILE it is given. */
static void test_print(void)
{
    tc_contraction c;
    tc_algorithm_set *s = enumerate("C[a,b,c] = A[i,j,a] * B[j,b,i,c]", "a=4,b=5,c=6,i=2,j=3",
                                    &c, 1u << TC_KERNEL_DGEMM);
    if (!s)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_FATAL(f != NULL);
    tc_alg_print(tc_alg_set_find(s, "i'c-dgemm"), &c, f);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(text,
                           "algorithm i'c-dgemm (kernel dgemm)\n"
                           "  for i in 0..2\n"
                           "    copy A[i,:,:] -> T0 (j x a)\n"
                           "    for c in 0..6\n"
                           "      dgemm TN m=a:4 n=b:5 k=j:3 C[:,:,c](ld 4) += "
                           "T0[:,:]^T(ld 3) * B[:,:,i,c](ld 3)\n");
    free(text);
    tc_alg_set_free(s);
}

/* ---- one algorithm built alone (a plan from wisdom) ------------------- */

/* alg as text (caller frees; NULL when out of memory): its tree, and what
 * the tree printer leaves out. */
static char *describe(const tc_algorithm *alg, const tc_contraction *c)
{
    char *text = NULL, loops[256], copies[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    tc_alg_print(alg, c, f);
    tc_gen_format_loops(alg, c, loops, sizeof loops);
    tc_gen_format_copies(alg, c, copies, sizeof copies);
    fprintf(f, "serial %d, family %d, loops %s, copies %s, %d temporaries of %lld bytes, "
               "fits %d %s\n",
            alg->serial, (int)alg->family, loops, copies, alg->ntemps,
            (long long)tc_alg_temp_bytes(alg), alg->fits_int, alg->why);
    fclose(f);
    return text;
}

/* tc_gen_find_bounded(c, bound) by name (or by serial) of algorithm a of
 * the whole set: one algorithm, described as a is, and the same subset
 * as the whole set's (*sub). */
static void expect_found(const tc_contraction *c, int bound, const tc_algorithm *a, int by_name,
                         const tc_gen_subset *sub, const char *text)
{
    tc_algorithm_set *one = NULL;
    tc_gen_subset got;
    tc_error e;
    const char *name = by_name ? a->name : NULL;
    CU_ASSERT_EQUAL_FATAL(tc_gen_find_bounded(c, TC_FAMILY_MASK_ALL, bound, name, a->serial, &one,
                                              &got, &e), TC_OK);
    CU_ASSERT_EQUAL(got.candidates, sub->candidates);
    CU_ASSERT_EQUAL(got.partial, sub->partial);
    CU_ASSERT_STRING_EQUAL(got.which, sub->which);
    char *want = describe(a, c), *have = one->count == 1 ? describe(one->alg[0], c) : NULL;
    if (!want || !have || strcmp(want, have) != 0) {
        fprintf(stderr, "\n  %s, bound %d, %s found by %s as\n%s", text, bound, a->name,
                by_name ? "name" : "serial", have ? have : "(none)\n");
        CU_FAIL("found alone otherwise than enumerated");
    }
    free(want);
    free(have);
    tc_alg_set_free(one);
}

/* Every algorithm of c's bounded set (at most about 60, spread over it),
 * found alone by name and by serial, is the one the whole set holds; a
 * name and a serial the set lacks find none; a contraction the bound
 * refuses is refused alike. Returns the number of algorithms checked;
 * *partial counts the sets that hold a part of the candidates. */
static int check_found_alone(const tc_contraction *c, int bound, const char *text, int *partial)
{
    tc_algorithm_set *all = NULL, *none = NULL;
    tc_gen_subset sub, got;
    tc_error e;
    tc_status st = tc_gen_enumerate_bounded(c, TC_FAMILY_MASK_ALL, bound, &all, &sub, &e);
    CU_ASSERT_EQUAL(tc_gen_find_bounded(c, TC_FAMILY_MASK_ALL, bound, NULL, 0, &none, &got, &e),
                    st);
    tc_alg_set_free(none);
    if (st != TC_OK)
        return 0;
    int step = all->count > 60 ? all->count / 60 : 1, checked = 0;
    *partial += sub.partial;
    for (int i = 0; i < all->count; i += step, checked++)
        for (int by_name = 0; by_name < 2; by_name++)
            expect_found(c, bound, all->alg[i], by_name, &sub, text);
    for (int k = 0; k < 2; k++) { /* neither "dgemm-dgemm" nor serial count is one */
        CU_ASSERT_EQUAL_FATAL(tc_gen_find_bounded(c, TC_FAMILY_MASK_ALL, bound,
                                                  k ? "dgemm-dgemm" : NULL, all->count, &none,
                                                  &got, &e), TC_OK);
        CU_ASSERT_EQUAL(none->count, 0);
        tc_alg_set_free(none);
    }
    tc_alg_set_free(all);
    return checked;
}

/* The corpus and random contractions (long names, batch indices), whole
 * and bounded to a part (the dgemm families), each algorithm built alone
 * as the enumeration builds it. */
static void test_find_alone(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), checked = 0, partial = 0;
    for (int i = 0; i < n; i++) {
        checked += check_found_alone(&corpus[i].c, TC_GEN_MAX_ALGORITHMS, corpus[i].text,
                                     &partial);
        checked += check_found_alone(&corpus[i].c, 40, corpus[i].text, &partial);
    }
    uint64_t state = 4242;
    for (int k = 0; k < 40; k++) {
        char text[256], sizes[256], msg[256];
        tc_contraction c;
        tc_corpus_random(&state, 7, 5, text, sizeof text, sizes, sizeof sizes);
        if (tc_corpus_parse(text, sizes, &c, msg, sizeof msg) != 0)
            continue;
        checked += check_found_alone(&c, TC_GEN_MAX_ALGORITHMS, text, &partial);
        checked += check_found_alone(&c, 100, text, &partial);
    }
    CU_ASSERT(checked > 2000);
    CU_ASSERT(partial > 20);
}

/* ---- golden `list` output --------------------------------------------- */

/* What `tcgen list --format tsv` prints, built from the same functions. */
static char *list_tsv(const char *text)
{
    tc_contraction c;
    tc_algorithm_set *s = enumerate(text, NULL, &c, TC_KERNEL_MASK_ALL);
    if (!s)
        return NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fprintf(f, "name\tkernel\tloops\tcopies\n");
    for (int i = 0; i < s->count; i++) {
        char loops[256], copies[256];
        tc_gen_format_loops(s->alg[i], &c, loops, sizeof loops);
        tc_gen_format_copies(s->alg[i], &c, copies, sizeof copies);
        fprintf(f, "%s\t%s\t%s\t%s\n", s->alg[i]->name, tc_kernel_name(s->alg[i]->kernel),
                loops, copies);
    }
    char sum[256];
    tc_gen_format_summary(s, sum, sizeof sum);
    fprintf(f, "# %s\n", sum);
    fclose(f);
    tc_alg_set_free(s);
    return out;
}

static void test_golden_lists(void)
{
    static const char *const files[3] = {"golden/list_abc_ai_ibc.tsv", "golden/list_a_iaj_ji.tsv",
                                         "golden/list_abc_ija_jbic.tsv"};
    for (int o = 0; o < 3; o++) {
        char *got = list_tsv(oracles[o].text);
        char what[256];
        snprintf(what, sizeof what, "the enumeration of %s", oracles[o].text);
        tc_test_golden(files[o], got, what);
        free(got);
    }
}

/* tc_gen_count counts every family the mask names: with all of them, per
 * kernel, what tc_gen_enumerate_families builds; with the paper's alone,
 * the closed form (the oracles: 36, 8, 176). */
static void test_count_every_family(void)
{
    static const uint64_t paper_total[3] = {36, 8, 176};
    for (int o = 0; o < 3; o++) {
        tc_contraction c;
        tc_error e;
        CU_ASSERT_EQUAL_FATAL(tc_parse(oracles[o].text, &c, &e), TC_OK);
        uint64_t paper = 0;
        for (int k = 0; k < TC_KERNEL_COUNT; k++)
            paper += tc_gen_count(&c, 1u << TC_FAMILY_PAPER, (tc_kernel)k);
        CU_ASSERT_EQUAL(paper, paper_total[o]);
    }
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        tc_algorithm_set *s = NULL;
        tc_error e;
        if (tc_gen_enumerate_families(&corpus[i].c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &s,
                                      &e) != TC_OK)
            continue; /* more than tcgen builds at once */
        uint64_t built[TC_KERNEL_COUNT] = {0};
        for (int a = 0; a < s->count; a++)
            built[s->alg[a]->kernel]++;
        for (int k = 0; k < TC_KERNEL_COUNT; k++)
            CU_ASSERT_EQUAL(tc_gen_count(&corpus[i].c, TC_FAMILY_MASK_ALL, (tc_kernel)k), built[k]);
        checked++;
        tc_alg_set_free(s);
    }
    CU_ASSERT(checked > 10);
}

/* Every kernel has a full row in each floor's table, and its name maps
 * back to it; every family has a full row. */
/* 1 when f(arg) aborts (an assertion) in a child process. */
static int aborts(void (*f)(const void *), const void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fclose(stderr); /* the assertion's message is expected */
        f(arg);
        _exit(0);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
           WTERMSIG(status) == SIGABRT;
}

static tc_contraction view_c;

static void check_operand(const void *op)
{
    tc_operand_check(&view_c, op);
}

static void check_permutation(const void *p)
{
    tc_permutation_check(p);
}

static void check_fused(const void *idx)
{
    tc_dim_make(&view_c, idx, 2);
}

/* The views' invariants are guarded: a matrix whose dimension 0 has no
 * unit stride, an extent that is not its dimension's, a temporary side
 * with a hole, a fused group whose indices are not adjacent. */
static void test_view_assertions(void)
{
    char msg[256];
    CU_ASSERT_EQUAL_FATAL(tc_corpus_parse("C[a,b,c] = A[a,i] * B[i,b,c]", "a=3,b=4,c=5,i=2",
                                          &view_c, msg, sizeof msg), 0);
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_EQUAL_FATAL(tc_gen_enumerate_families(&view_c, TC_KERNEL_MASK_ALL,
                                                    TC_FAMILY_MASK_ALL, &set, &e), TC_OK);
    const tc_algorithm *a = tc_alg_set_find(set, "(bc)-dgemm");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    tc_operand good = a->kernel_node->call->arg[2];
    CU_ASSERT(!aborts(check_operand, &good));
    tc_operand bad = good;
    bad.stride[0] = 2;
    CU_ASSERT(aborts(check_operand, &bad));
    bad = good;
    bad.extent[1] = 4; /* (bc) is 20 */
    CU_ASSERT(aborts(check_operand, &bad));
    tc_permutation p = {.view = {2, {3, 4}, {1, 3}, {4, 1}}};
    CU_ASSERT(!aborts(check_permutation, &p));
    p.view.dst_stride[0] = 5; /* a hole */
    CU_ASSERT(aborts(check_permutation, &p));
    const int bc[2] = {1, 2}, cb[2] = {2, 1};
    CU_ASSERT(!aborts(check_fused, bc));
    CU_ASSERT(aborts(check_fused, cb));
    tc_alg_set_free(set);
}

static void test_tables(void)
{
    for (int k = 0; k < TC_KERNEL_COUNT; k++) {
        const tc_kernel_row *row = tc_kernel_row_of((tc_kernel)k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(row);
        for (int t = 0; t < TC_TYPE_COUNT; t++) { /* every type's name, its own */
            tc_type back = TC_TYPE_COUNT;
            const char *name = tc_kernel_type_name((tc_kernel)k, (tc_type)t);
            CU_ASSERT_EQUAL(tc_kernel_from_name(name, &back), k);
            CU_ASSERT_EQUAL(back, t);
            CU_ASSERT_EQUAL(name[0], tc_type_row_of((tc_type)t)->letter);
        }
        CU_ASSERT(row->nkept >= 1 && row->nkept <= 3);
        CU_ASSERT(row->blas_dims != 0);
    }
    static const int ranks[TC_KERNEL_COUNT][3] = {
        {1, 1, 0}, {0, 1, 1}, {2, 1, 1}, {1, 1, 2}, {2, 2, 2}};
    for (int k = 0; k < TC_KERNEL_COUNT; k++)
        for (int a = 0; a < 3; a++)
            CU_ASSERT_EQUAL(tc_kernel_table[k].arg_rank[a], ranks[k][a]);
    for (int k = 0; k < TC_KERNEL_COUNT; k++) { /* a row on every floor */
        CU_ASSERT_PTR_NOT_NULL(tc_kernel_print_rows[k].print);
        CU_ASSERT_PTR_NOT_NULL(tc_kernel_gen_rows[k].build);
        CU_ASSERT_PTR_NOT_NULL(tc_kernel_gen_rows[k].emit);
        CU_ASSERT_PTR_NOT_NULL(tc_kernel_run_rows[k].call);
    }
    CU_ASSERT_PTR_NULL(tc_kernel_row_of(TC_KERNEL_COUNT));
    CU_ASSERT_STRING_EQUAL(tc_kernel_name(TC_KERNEL_COUNT), "?");
    CU_ASSERT_EQUAL(tc_kernel_flops(TC_KERNEL_DGEMM, 2, 3, 4), 48.0);
    CU_ASSERT_EQUAL(tc_kernel_flops(TC_KERNEL_DGER, 2, 3, 4), 12.0);
    CU_ASSERT_EQUAL(tc_kernel_flops(TC_KERNEL_DDOT, 2, 3, 4), 6.0);
    char list[128];
    tc_kernel_list(list, sizeof list);
    CU_ASSERT_STRING_EQUAL(list, "ddot, daxpy, dgemv, dger, dgemm");
    for (int f = 0; f < TC_FAMILY_COUNT; f++) {
        CU_ASSERT_STRING_NOT_EQUAL(tc_family_name((tc_family)f), "?");
        CU_ASSERT(tc_family_table[f].applicable && tc_family_table[f].enumerate &&
                  tc_family_table[f].count);
    }
    CU_ASSERT_STRING_EQUAL(tc_family_name(TC_FAMILY_PERMUTED), "permuted");
}

int tc_suite_generator(void)
{
    CU_pSuite s = CU_add_suite("generator", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "oracles: totals, per kernel, named algorithms", test_oracles) ||
           !CU_add_test(s, "oracle with sizes, compact form, kernel mask", test_oracles_masked) ||
           !CU_add_test(s, "closed forms and invariants on the corpus", test_corpus_closed_forms) ||
           !CU_add_test(s, "closed forms on 150 random contractions", test_random_closed_forms) ||
           !CU_add_test(s, "copy placement (docs/design.md §4)", test_copy_placement) ||
           !CU_add_test(s, "names: no loops, long names, batch", test_names) ||
           !CU_add_test(s, "kernel lists, limits, sizes beyond int", test_errors_and_limits) ||
           !CU_add_test(s, "tree printer", test_print) ||
           !CU_add_test(s, "golden list output of the oracles", test_golden_lists) ||
           !CU_add_test(s, "fused family: names, groups, calls", test_fused) ||
           !CU_add_test(s, "permuted family: names, copies, the dgemm", test_permuted) ||
           !CU_add_test(s, "tc_gen_count counts every family", test_count_every_family) ||
           !CU_add_test(s, "one algorithm built alone, by name and by serial", test_find_alone) ||
           !CU_add_test(s, "kernel and family tables", test_tables) ||
           !CU_add_test(s, "views: assertions guard their invariants", test_view_assertions)
               ? -1
               : 0;
}
