/* helpers_corpus.c - the test corpus, random data and comparison. */
#include "tests/helpers_corpus.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parser/parser.h"
#include "tests/helpers_data.h"

int tc_corpus_parse(const char *text, const char *sizes, tc_contraction *c,
                    char *msg, size_t msgn)
{
    tc_error e;
    if (tc_parse(text, c, &e) != TC_OK) {
        snprintf(msg, msgn, "%s: %s", text, e.message);
        return -1;
    }
    if (!sizes)
        return 0;
    tc_sizes s;
    memset(&s, 0, sizeof s);
    if (tc_parse_sizes(sizes, 1, &s, &e) != TC_OK ||
        tc_contraction_set_sizes(c, &s, c, &e, NULL) != TC_OK) {
        snprintf(msg, msgn, "%s ; %s: %s", text, sizes, e.message);
        return -1;
    }
    return 0;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    size_t k = strspn(s, " \t");
    memmove(s, s + k, strlen(s + k) + 1);
}

int tc_corpus_load(tc_corpus_entry *out, int max, char *msg, size_t msgn)
{
    char path[512], line[600];
    tc_test_data_path("contractions.txt", path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(msg, msgn, "cannot open %s", path);
        return -1;
    }
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        trim(line);
        if (!line[0] || line[0] == '#')
            continue;
        char *semi = strchr(line, ';');
        if (!semi || n == max) {
            snprintf(msg, msgn, "%s: bad line or too many lines: %s", path, line);
            fclose(f);
            return -1;
        }
        *semi = '\0';
        tc_corpus_entry *e = &out[n];
        if (strlen(line) >= sizeof e->text || strlen(semi + 1) >= sizeof e->sizes) {
            snprintf(msg, msgn, "%s: line too long", path);
            fclose(f);
            return -1;
        }
        memcpy(e->text, line, strlen(line) + 1);
        memcpy(e->sizes, semi + 1, strlen(semi + 1) + 1);
        trim(e->text);
        trim(e->sizes);
        if (tc_corpus_parse(e->text, e->sizes, &e->c, msg, msgn) != 0) {
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

void tc_corpus_fill(double *x, int64_t n, uint64_t *state)
{
    for (int64_t k = 0; k < n; k++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        x[k] = (double)(*state >> 11) / 4503599627370496.0 - 1.0;
    }
}

double tc_corpus_relerr(const double *got, const double *want, int64_t n)
{
    double scale = 1.0, err = 0.0;
    for (int64_t k = 0; k < n; k++)
        if (fabs(want[k]) > scale)
            scale = fabs(want[k]);
    for (int64_t k = 0; k < n; k++) {
        double d = fabs(got[k] - want[k]);
        if (!(d <= err)) /* NaN counts as an error */
            err = isnan(d) ? INFINITY : d;
    }
    return err / scale;
}

static unsigned rnd(uint64_t *state, unsigned n)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((*state >> 33) % n);
}

static void shuffle(uint64_t *state, const char **v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd(state, (unsigned)i + 1);
        const char *t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void append_tensor(char *buf, size_t n, const char *name, const char **idx, int rank)
{
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s[", name);
    for (int k = 0; k < rank; k++)
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s", k ? "," : "", idx[k]);
    if (len < n)
        snprintf(buf + len, n - len, "]");
}

void tc_corpus_random(uint64_t *state, int max_indices, int max_size, char *text,
                      size_t textn, char *sizes, size_t sizesn)
{
    static const char *const short_names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    static const char *const long_names[] = {"p1", "q2", "rr", "s_3", "t4", "uu", "v5", "w6"};
    if (max_indices > 8)
        max_indices = 8;
    for (;;) {
        int n = 2 + (int)rnd(state, (unsigned)max_indices - 1);
        const char *const *names = rnd(state, 3) == 0 ? long_names : short_names;
        const char *a[8], *b[8], *cc[8];
        int na = 0, nb = 0, nc = 0;
        for (int i = 0; i < n; i++) {
            switch (rnd(state, 4)) {
            case 0: a[na++] = names[i]; cc[nc++] = names[i]; break;
            case 1: b[nb++] = names[i]; cc[nc++] = names[i]; break;
            case 2: a[na++] = names[i]; b[nb++] = names[i]; break;
            default: a[na++] = names[i]; b[nb++] = names[i]; cc[nc++] = names[i]; break;
            }
        }
        /* every index batch: no BLAS kernel applies (refused by the parser) */
        if (na < 2 || na > 6 || nb < 2 || nb > 6 || nc > 6 || (na == n && nb == n && nc == n))
            continue;
        shuffle(state, a, na);
        shuffle(state, b, nb);
        shuffle(state, cc, nc);
        text[0] = '\0';
        append_tensor(text, textn, "C", cc, nc);
        switch (rnd(state, 3)) {
        case 0: strncat(text, " = ", textn - strlen(text) - 1); break;
        case 1: strncat(text, " += ", textn - strlen(text) - 1); break;
        default: strncat(text, " = -0.75 * ", textn - strlen(text) - 1); break;
        }
        append_tensor(text, textn, "A", a, na);
        strncat(text, " * ", textn - strlen(text) - 1);
        append_tensor(text, textn, "B", b, nb);
        if (sizes) {
            size_t len = 0;
            sizes[0] = '\0';
            for (int i = 0; i < n && len < sizesn; i++)
                len += (size_t)snprintf(sizes + len, sizesn - len, "%s%s=%u", i ? "," : "",
                                        names[i], 1 + rnd(state, (unsigned)max_size));
        }
        return;
    }
}

int tc_corpus_require(tc_corpus_entry **out)
{
    static tc_corpus_entry corpus[TC_CORPUS_MAX];
    char msg[512];
    int n = tc_corpus_load(corpus, TC_CORPUS_MAX, msg, sizeof msg);
    if (n < 0)
        fprintf(stderr, "\n  %s\n", msg);
    CU_ASSERT_FATAL(n >= 15);
    *out = corpus;
    return n;
}

int tc_corpus_with_gaps(const tc_contraction *c, tc_contraction *out, tc_error *e)
{
    *out = *c;
    for (int t = TC_C; t <= TC_B; t++) {
        const tc_tensor *x = &c->tensor[t];
        int64_t s[TC_MAX_RANK], least = 1;
        for (int k = 0; k < x->rank; k++) {
            s[k] = k == 0 ? 1 : least + 1 + (k + t) % 3;
            least = s[k] * c->index[x->index[k]].size;
        }
        if (tc_contraction_set_strides(out, t, s, e) != TC_OK)
            return -1;
    }
    return 0;
}

int tc_corpus_next_permutation(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] > a[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (a[j] < a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--)
        t = a[l], a[l] = a[r], a[r] = t;
    return 1;
}
