/*
 * wisdom.c - remembered decisions, their text file, and the lock that lets
 * any thread plan at any time.
 *
 * Entries live in an insertion-ordered array indexed by a hash of the key
 * (open addressing), so adding, replacing and looking up cost the same at
 * 10 entries and at 100 000. Import reads the whole file into a private
 * store and checks every field of every line (the contraction parses, the
 * sizes are complete, the algorithm is one of the contraction's) before
 * merging: a damaged file changes nothing. The algorithm check enumerates
 * each distinct contraction and layout once per file (a cache of sorted
 * names), not once per line.
 *
 * Export merges under an advisory lock on PATH.lock: the file is re-read,
 * its entries that memory does not have are kept (memory wins on a key),
 * and the result replaces the file whole (runtime/file.h), so concurrent
 * writers lose nothing and a reader never sees half a file.
 * docs/decisions.md, "Wisdom and planning".
 */
#include "planner/wisdom.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ast/c_locale.h"
#include "ast/error.h"
#include "generator/generator.h"
#include "planner/problem.h"
#include "runtime/file.h"

#define HEADER "# tcgen wisdom 1"
#define NFIELDS 9
#define LINE_MAX_BYTES 4094 /* longer than any entry whose fields fit */
#define KEY_MAX 3712        /* the six key fields of a tc_wisdom_entry fit */
#define CACHE_MAX_ALGORITHMS 200000 /* enumerations kept while reading a file */

/* ---- the store: records in insertion order, indexed by key hash ---------- */

typedef struct rec {
    char *key;       /* contraction, sizes, layout, blas, threads, machine:
                        each ended by '\0' (so no two keys share bytes) */
    size_t keylen;
    uint64_t hash;
    char *algorithm;
    double seconds;
    char origin[16];
} rec;

typedef struct store {
    rec *rec;
    int count, cap;
    int *slot;       /* record index + 1; 0 is empty (linear probing) */
    size_t nslots;   /* a power of two, at least twice count; or 0 */
} store;

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)p[k]) * 1099511628211ull;
    return h;
}

/* The record with this key, or -1. */
static int store_find(const store *s, const char *key, size_t len, uint64_t h)
{
    if (!s->nslots)
        return -1;
    for (size_t i = h & (s->nslots - 1);; i = (i + 1) & (s->nslots - 1)) {
        int k = s->slot[i] - 1;
        if (k < 0)
            return -1;
        const rec *r = &s->rec[k];
        if (r->hash == h && r->keylen == len && memcmp(r->key, key, len) == 0)
            return k;
    }
}

static void slot_insert(int *slot, size_t nslots, uint64_t h, int index)
{
    size_t i = h & (nslots - 1);
    while (slot[i])
        i = (i + 1) & (nslots - 1);
    slot[i] = index + 1;
}

/* Room for `more` new records, so that the inserts after it cannot fail. */
static int store_reserve(store *s, int more)
{
    if (more > INT32_MAX / 4 - s->count)
        return -1;
    int need = s->count + more;
    if (need > s->cap) {
        int c = s->cap ? s->cap : 16;
        while (c < need)
            c *= 2;
        rec *p = realloc(s->rec, (size_t)c * sizeof *p);
        if (!p)
            return -1;
        s->rec = p;
        s->cap = c;
    }
    if ((size_t)need * 2 > s->nslots) {
        size_t n = s->nslots ? s->nslots : 32;
        while ((size_t)need * 2 > n)
            n *= 2;
        int *slot = calloc(n, sizeof *slot);
        if (!slot)
            return -1;
        for (int k = 0; k < s->count; k++)
            slot_insert(slot, n, s->rec[k].hash, k);
        free(s->slot);
        s->slot = slot;
        s->nslots = n;
    }
    return 0;
}

/* Takes r's strings: a new key is appended, a known one gets r's decision.
 * The caller has reserved room. */
static void store_insert(store *s, rec *r)
{
    int k = store_find(s, r->key, r->keylen, r->hash);
    if (k >= 0) {
        rec *old = &s->rec[k];
        free(old->algorithm);
        old->algorithm = r->algorithm;
        old->seconds = r->seconds;
        memcpy(old->origin, r->origin, sizeof old->origin);
        free(r->key);
    } else {
        s->rec[s->count] = *r;
        slot_insert(s->slot, s->nslots, r->hash, s->count);
        s->count++;
    }
    r->key = r->algorithm = NULL;
}

static void rec_free(rec *r)
{
    free(r->key);
    free(r->algorithm);
    r->key = r->algorithm = NULL;
}

static void store_free(store *s)
{
    for (int k = 0; k < s->count; k++)
        rec_free(&s->rec[k]);
    free(s->rec);
    free(s->slot);
    memset(s, 0, sizeof *s);
}

/* ---- entries and records ------------------------------------------------ */

/* 1 if s is non-empty and free of tabs, line ends and other control bytes
 * (they would break the file's lines and fields). */
static int plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* e's key as a record key into buf; its length, or 0 when a field is not
 * plain text. */
static size_t make_key(const tc_wisdom_entry *e, char *buf, size_t n)
{
    char threads[16];
    snprintf(threads, sizeof threads, "%d", e->threads);
    const char *f[6] = {e->contraction, e->sizes, e->layout, e->blas, threads, e->machine};
    size_t len = 0;
    for (int k = 0; k < 6; k++) {
        size_t l = strlen(f[k]);
        if (!plain(f[k]) || len + l + 1 > n)
            return 0;
        memcpy(buf + len, f[k], l + 1);
        len += l + 1;
    }
    return len;
}

/* A record of e (new strings); -1 when out of memory or a field is not
 * plain text (*bad then 1). */
static int rec_make(const tc_wisdom_entry *e, rec *r, int *bad)
{
    char key[KEY_MAX];
    size_t len = make_key(e, key, sizeof key);
    *bad = !len || !plain(e->algorithm) || !plain(e->origin);
    memset(r, 0, sizeof *r);
    if (*bad)
        return -1;
    r->key = malloc(len);
    r->algorithm = strdup(e->algorithm);
    if (!r->key || !r->algorithm) {
        rec_free(r);
        return -1;
    }
    memcpy(r->key, key, len);
    r->keylen = len;
    r->hash = hash_bytes(key, len);
    r->seconds = e->seconds;
    snprintf(r->origin, sizeof r->origin, "%s", e->origin);
    return 0;
}

/* ---- the process's wisdom ------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static store mem;

int tc_wisdom_lookup(tc_wisdom_entry *e)
{
    char key[KEY_MAX];
    size_t len = make_key(e, key, sizeof key);
    if (!len)
        return 0;
    uint64_t h = hash_bytes(key, len);
    pthread_mutex_lock(&lock);
    int k = store_find(&mem, key, len, h);
    if (k >= 0) {
        const rec *r = &mem.rec[k];
        snprintf(e->algorithm, sizeof e->algorithm, "%s", r->algorithm);
        e->seconds = r->seconds;
        snprintf(e->origin, sizeof e->origin, "%s", r->origin);
    }
    pthread_mutex_unlock(&lock);
    return k >= 0;
}

tc_status tc_wisdom_add(const tc_wisdom_entry *e, tc_error *err)
{
    rec r;
    int bad;
    if (rec_make(e, &r, &bad) != 0)
        return bad ? tc_error_set(err, TC_EINPUT, 0, 0, "a wisdom entry's fields must be "
                                                        "non-empty text without tabs or line "
                                                        "breaks")
                   : tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory adding to the wisdom");
    pthread_mutex_lock(&lock);
    int fail = store_reserve(&mem, 1);
    if (!fail)
        store_insert(&mem, &r);
    pthread_mutex_unlock(&lock);
    if (fail) {
        rec_free(&r);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory adding to the wisdom");
    }
    return TC_OK;
}

/* Field k of a record's key (0 contraction, 1 sizes, ... 5 machine). */
static const char *key_field(const rec *r, int k)
{
    const char *p = r->key;
    while (k--)
        p += strlen(p) + 1;
    return p;
}

/* The largest relative difference between two size lists of one problem
 * ("a=32,b=30" and "a=33,b=30": 1/32), or -1 when they name other
 * indices or do not parse. */
static double size_distance(const char *have, const char *want)
{
    double worst = 0.0;
    while (*have && *want) {
        size_t nh = strcspn(have, "="), nw = strcspn(want, "=");
        if (nh != nw || strncmp(have, want, nh) != 0 || !have[nh] || !want[nw])
            return -1.0;
        char *end_h, *end_w;
        double h = strtod(have + nh + 1, &end_h), w = strtod(want + nw + 1, &end_w);
        if (end_h == have + nh + 1 || end_w == want + nw + 1 || !(w > 0.0))
            return -1.0;
        worst = fmax(worst, fabs(h - w) / w);
        have = *end_h == ',' ? end_h + 1 : end_h;
        want = *end_w == ',' ? end_w + 1 : end_w;
    }
    return *have || *want ? -1.0 : worst;
}

int tc_wisdom_lookup_near(tc_wisdom_entry *e, double tolerance)
{
    char key[KEY_MAX];
    size_t len = make_key(e, key, sizeof key);
    if (!len)
        return 0;
    const rec probe = {key, len, 0, NULL, 0.0, {0}};
    int best = -1;
    double best_d = 0.0;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < mem.count; k++) {
        const rec *r = &mem.rec[k];
        int same = strcmp(key_field(r, 0), key_field(&probe, 0)) == 0;
        for (int f = 2; same && f < 6; f++)
            same = strcmp(key_field(r, f), key_field(&probe, f)) == 0;
        double d = same ? size_distance(key_field(r, 1), key_field(&probe, 1)) : -1.0;
        if (d >= 0.0 && d <= tolerance && (best < 0 || d < best_d)) {
            best = k;
            best_d = d;
        }
    }
    if (best >= 0) {
        const rec *r = &mem.rec[best];
        snprintf(e->sizes, sizeof e->sizes, "%s", key_field(r, 1));
        snprintf(e->algorithm, sizeof e->algorithm, "%s", r->algorithm);
        e->seconds = r->seconds;
        snprintf(e->origin, sizeof e->origin, "%s", r->origin);
    }
    pthread_mutex_unlock(&lock);
    return best >= 0;
}

int tc_wisdom_keep_machine(const char *machine)
{
    pthread_mutex_lock(&lock);
    int kept = 0;
    for (int k = 0; k < mem.count; k++) {
        if (strcmp(key_field(&mem.rec[k], 5), machine) == 0)
            mem.rec[kept++] = mem.rec[k];
        else
            rec_free(&mem.rec[k]);
    }
    int removed = mem.count - kept;
    mem.count = kept;
    if (mem.nslots) {
        memset(mem.slot, 0, mem.nslots * sizeof *mem.slot);
        for (int k = 0; k < kept; k++)
            slot_insert(mem.slot, mem.nslots, mem.rec[k].hash, k);
    }
    pthread_mutex_unlock(&lock);
    return removed;
}

int tc_wisdom_count(void)
{
    pthread_mutex_lock(&lock);
    int n = mem.count;
    pthread_mutex_unlock(&lock);
    return n;
}

void tc_wisdom_forget(void)
{
    pthread_mutex_lock(&lock);
    store_free(&mem);
    pthread_mutex_unlock(&lock);
}

/* ---- reading a file ------------------------------------------------------- */

/* The algorithms of one contraction and layout, names sorted for bsearch. */
typedef struct known {
    tc_algorithm_set *set;
    const char **name;
} known;

/* Enumerations made while reading one file, by "contraction\0layout\0"
 * (the names do not depend on the sizes: generator.h). */
typedef struct checker {
    store seen;      /* keys only; record k is known[k] */
    known *known;
    long algorithms; /* in all sets: flushed beyond CACHE_MAX_ALGORITHMS */
} checker;

static void checker_free(checker *c)
{
    for (int k = 0; k < c->seen.count; k++) {
        tc_alg_set_free(c->known[k].set);
        free(c->known[k].name);
    }
    free(c->known);
    store_free(&c->seen);
    memset(c, 0, sizeof *c);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether `algorithm` is one of storage's (the problem of `contraction`
 * in `layout`): 1 yes, 0 no, or a status < 0 with *err set. */
static int checker_has(checker *c, const char *contraction, const char *layout,
                       const tc_contraction *storage, const char *algorithm, tc_status *st,
                       tc_error *err)
{
    size_t lc = strlen(contraction), ll = strlen(layout), len = lc + ll + 2;
    char key[1700]; /* a contraction and a layout */
    if (len > sizeof key) {
        *st = tc_error_set(err, TC_EINPUT, 0, 0, "contraction too long");
        return -1;
    }
    memcpy(key, contraction, lc + 1);
    memcpy(key + lc + 1, layout, ll + 1);
    uint64_t h = hash_bytes(key, len);
    int k = store_find(&c->seen, key, len, h);
    if (k < 0) {
        tc_algorithm_set *set = NULL;
        tc_gen_subset sub; /* the candidates the planner ranks (all, or a subset) */
        *st = tc_gen_enumerate_bounded(storage, TC_FAMILY_MASK_ALL, TC_GEN_MAX_ALGORITHMS, &set,
                                       &sub, err);
        if (*st != TC_OK)
            return -1;
        if (c->algorithms + set->count > CACHE_MAX_ALGORITHMS)
            checker_free(c);
        const char **name = malloc(((size_t)set->count + 1) * sizeof *name);
        rec r = {malloc(len), len, h, NULL, 0.0, ""};
        known *kn = realloc(c->known, ((size_t)c->seen.count + 1) * sizeof *kn);
        if (kn)
            c->known = kn;
        if (!name || !r.key || !kn || store_reserve(&c->seen, 1) != 0) {
            free(name);
            free(r.key);
            tc_alg_set_free(set);
            *st = tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory reading wisdom");
            return -1;
        }
        for (int i = 0; i < set->count; i++)
            name[i] = set->alg[i]->name;
        qsort(name, (size_t)set->count, sizeof *name, by_name);
        memcpy(r.key, key, len);
        k = c->seen.count;
        store_insert(&c->seen, &r);
        c->known[k] = (known){set, name};
        c->algorithms += set->count;
    }
    const known *kn = &c->known[k];
    char base[TC_WISDOM_NAME_MAX];
    int threads = tc_alg_split_name(algorithm, base, sizeof base);
    if (threads) /* a loop split over threads (ast/split.c) */
        return tc_alg_splittable(tc_alg_set_find(kn->set, base), storage, threads);
    return bsearch(&algorithm, kn->name, (size_t)kn->set->count, sizeof *kn->name, by_name) !=
           NULL;
}

/* Copies a field into dst; 0 when it does not fit or is empty. */
static int take(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= n)
        return 0;
    memcpy(dst, s, len + 1);
    return 1;
}

/* Checks one entry line (split into fields at col[]) and fills *e. */
static tc_status parse_entry(char **field, const int *col, int line, checker *chk,
                             tc_wisdom_entry *e, tc_error *err)
{
    static const char *const names[NFIELDS] = {"contraction", "sizes", "layout", "BLAS library",
                                               "thread count", "machine", "algorithm",
                                               "seconds", "origin"};
    memset(e, 0, sizeof *e);
    char *end;
    long threads = strtol(field[4], NULL, 10); /* digits only: checked below */
    e->seconds = strtod(field[7], &end);
    int bad = -1;
    if (!take(e->contraction, sizeof e->contraction, field[0]))
        bad = 0;
    else if (!take(e->sizes, sizeof e->sizes, field[1]))
        bad = 1;
    else if (!take(e->layout, sizeof e->layout, field[2]))
        bad = 2;
    else if (!take(e->blas, sizeof e->blas, field[3]))
        bad = 3;
    else if (!field[4][0] || strspn(field[4], "0123456789") != strlen(field[4]) ||
             threads < 1 || threads > 1024)
        bad = 4;
    else if (!take(e->machine, sizeof e->machine, field[5]))
        bad = 5;
    else if (!take(e->algorithm, sizeof e->algorithm, field[6]))
        bad = 6;
    else if (!field[7][0] || *end || !isfinite(e->seconds) || e->seconds <= 0)
        bad = 7;
    else if (strcmp(field[8], "estimate") && strcmp(field[8], "measure"))
        bad = 8;
    if (bad >= 0)
        return tc_error_set(err, TC_EINPUT, line, col[bad], "bad %s '%.60s'%s", names[bad],
                            field[bad],
                            bad == 2 ? " (use col or row)" :
                            bad == 8 ? " (use estimate or measure)" : "");
    snprintf(e->origin, sizeof e->origin, "%s", field[8]);
    e->threads = (int)threads;

    /* The problem must be one tcgen can plan, and the algorithm one of its. */
    tc_contraction user, storage;
    tc_error sub;
    unsigned flags = strncmp(e->layout, "row", 3) == 0 ? TC_ROW_MAJOR : 0;
    int which;
    tc_status s = tc_plan_problem(e->contraction, e->sizes, flags, &user, &storage, &which,
                                  &sub);
    if (s != TC_OK)
        return tc_error_set(err, TC_EINPUT, line, col[which] + (sub.column ? sub.column - 1 : 0),
                            "%s", sub.message);
    if (tc_plan_layout_read(e->layout, &storage, &flags, &sub) != TC_OK)
        return tc_error_set(err, TC_EINPUT, line, col[2], "bad layout '%.60s': %s", e->layout,
                            sub.message);
    char form[1024], sizes[1024];
    tc_contraction_format(&user, form, sizeof form);
    tc_contraction_format_sizes(&user, sizes, sizeof sizes);
    if (strcmp(form, e->contraction) || strcmp(sizes, e->sizes))
        return tc_error_set(err, TC_EINPUT, line, col[strcmp(form, e->contraction) ? 0 : 1],
                            "not in normal form: write '%s' with sizes '%s'", form, sizes);
    int known = checker_has(chk, e->contraction, e->layout, &storage, e->algorithm, &s, &sub);
    if (known < 0)
        return tc_error_set(err, s, line, col[0], "%s", sub.message);
    if (!known)
        return tc_error_set(err, TC_EINPUT, line, col[6], "'%s' is not an algorithm of %s",
                            e->algorithm, e->contraction);
    return TC_OK;
}

/* Checks one line (len bytes, its end removed) and adds its entry to *out. */
static tc_status read_line(char *buf, size_t len, int line, checker *chk, store *out,
                           tc_error *err)
{
    /* Damage first: a NUL would hide the rest of the line from strlen. */
    for (size_t k = 0; k < len; k++) {
        unsigned char ch = (unsigned char)buf[k];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return tc_error_set(err, TC_EINPUT, line, (int)k + 1,
                                ch ? "control character 0x%02x in an entry"
                                   : "a NUL byte (0x%02x) in an entry",
                                ch);
    }
    if (buf[0] == '#' || strspn(buf, " \t") == len)
        return TC_OK;
    char *field[NFIELDS];
    int col[NFIELDS], nf = 0;
    char *p = buf;
    while (nf < NFIELDS) {
        field[nf] = p;
        col[nf++] = (int)(p - buf) + 1;
        char *tab = strchr(p, '\t');
        if (!tab || nf == NFIELDS) /* a tab left in the last field: too many */
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (nf < NFIELDS || strchr(p, '\t'))
        return tc_error_set(err, TC_EINPUT, line, 1,
                            "an entry has %d tab-separated fields: contraction, sizes, "
                            "layout, blas, threads, machine, algorithm, seconds, origin "
                            "(this line has %s)",
                            NFIELDS, nf < NFIELDS ? "fewer" : "more");
    tc_wisdom_entry e;
    tc_status s = parse_entry(field, col, line, chk, &e, err);
    if (s != TC_OK)
        return s;
    rec r;
    int bad;
    if (rec_make(&e, &r, &bad) != 0 || store_reserve(out, 1) != 0) {
        rec_free(&r);
        return tc_error_set(err, TC_ERESOURCE, line, 0, "out of memory reading wisdom");
    }
    store_insert(out, &r);
    return TC_OK;
}

/* Reads and checks every entry of f into *out (a later line replaces an
 * earlier one with its key). Errors are located by line and column. */
static tc_status read_entries(FILE *f, store *out, tc_error *err)
{
    char *buf = NULL;
    size_t size = 0;
    ssize_t got;
    int line = 0;
    tc_status s = TC_OK;
    checker chk;
    memset(&chk, 0, sizeof chk);
    while (s == TC_OK && (got = getline(&buf, &size, f)) >= 0) {
        line++;
        size_t len = (size_t)got;
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (len > LINE_MAX_BYTES)
            s = tc_error_set(err, TC_EINPUT, line, 1, "line longer than %d bytes",
                             LINE_MAX_BYTES);
        else if (line == 1 && (len != strlen(HEADER) || memcmp(buf, HEADER, len) != 0))
            s = tc_error_set(err, TC_EINPUT, 1, 1,
                             "not a tcgen wisdom file: the first line must be '%s'", HEADER);
        else if (line > 1)
            s = read_line(buf, len, line, &chk, out, err);
    }
    free(buf);
    checker_free(&chk);
    if (s != TC_OK)
        return s;
    if (ferror(f))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "read error");
    if (line == 0)
        return tc_error_set(err, TC_EINPUT, 1, 1, "empty file: the first line must be '%s'",
                            HEADER);
    return TC_OK;
}

/* Reads path into *out: TC_OK with nothing when it does not exist and
 * missing_ok. Messages name the file. */
static tc_status read_file(const char *path, int missing_ok, store *out, tc_error *err)
{
    FILE *f = tc_rt_file_open_regular(path);
    if (!f && errno == EINVAL)
        return tc_error_set(err, TC_EINPUT, 0, 0, "wisdom file '%s' is not a regular file "
                            "(wisdom is read, merged and written back)", path);
    if (!f) {
        if (missing_ok && errno == ENOENT)
            return TC_OK;
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot read wisdom file '%s': %s", path,
                            strerror(errno));
    }
    tc_error sub;
    tc_status s = read_entries(f, out, &sub);
    fclose(f);
    if (s != TC_OK) {
        store_free(out);
        return tc_error_set(err, s, sub.line, sub.column, "%s", sub.message);
    }
    return TC_OK;
}

/* Takes every entry of fresh into the process's memory, or none of them. */
static tc_status merge(store *fresh, tc_error *err)
{
    /* Room first, so that the merge itself cannot fail half way. */
    pthread_mutex_lock(&lock);
    int fail = store_reserve(&mem, fresh->count);
    for (int k = 0; !fail && k < fresh->count; k++)
        store_insert(&mem, &fresh->rec[k]);
    pthread_mutex_unlock(&lock);
    return fail ? tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory merging wisdom") : TC_OK;
}

tc_status tc_wisdom_import_file(const char *path, tc_error *err)
{
    if (!path)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_wisdom_import_file: NULL path");
    locale_t saved = tc_c_locale_enter();
    store fresh;
    memset(&fresh, 0, sizeof fresh);
    tc_status s = read_file(path, 0, &fresh, err);
    if (s == TC_OK)
        s = merge(&fresh, err);
    store_free(&fresh);
    tc_c_locale_leave(saved);
    return s;
}

tc_status tc_wisdom_import_string(const char *wisdom, tc_error *err)
{
    if (!wisdom)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_wisdom_import_string: NULL text");
    if (!*wisdom)
        return tc_error_set(err, TC_EINPUT, 1, 1, "empty text: the first line must be '%s'",
                            HEADER);
    FILE *f = fmemopen((void *)(uintptr_t)wisdom, strlen(wisdom), "r");
    if (!f)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory reading wisdom");
    locale_t saved = tc_c_locale_enter();
    store fresh;
    memset(&fresh, 0, sizeof fresh);
    tc_status s = read_entries(f, &fresh, err);
    fclose(f);
    if (s == TC_OK)
        s = merge(&fresh, err);
    store_free(&fresh);
    tc_c_locale_leave(saved);
    return s;
}

/* ---- writing a file ------------------------------------------------------- */

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(text *t, const char *fmt, ...)
{
    for (int again = 0; !t->failed && again < 2; again++) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->len : NULL, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = 1;
        } else if ((size_t)k < t->cap - t->len) {
            t->len += (size_t)k;
            return;
        } else {
            size_t c = t->cap ? t->cap : 4096;
            while (c - t->len <= (size_t)k)
                c *= 2;
            char *p = realloc(t->p, c);
            if (!p)
                t->failed = 1;
            else
                t->p = p, t->cap = c;
        }
    }
}

static void put_rec(text *t, const rec *r)
{
    /* the key's '\0' separators become the file's tabs */
    for (size_t i = 0; i < r->keylen; i++)
        put(t, "%s\t", r->key + i), i += strlen(r->key + i);
    put(t, "%s\t%.6g\t%s\n", r->algorithm, r->seconds, r->origin);
}

/* The wisdom text: the header, then disk's entries that memory does not
 * hold (disk may be NULL), then memory's. t->failed when out of memory. */
static void wisdom_text(const store *disk, text *t)
{
    put(t, HEADER "\n# contraction\tsizes\tlayout\tblas\tthreads\tmachine\talgorithm"
           "\tseconds\torigin\n");
    pthread_mutex_lock(&lock);
    for (int k = 0; disk && k < disk->count; k++) {
        const rec *r = &disk->rec[k];
        if (store_find(&mem, r->key, r->keylen, r->hash) < 0)
            put_rec(t, r);
    }
    for (int k = 0; k < mem.count; k++)
        put_rec(t, &mem.rec[k]);
    pthread_mutex_unlock(&lock);
}

char *tc_wisdom_export_string(tc_error *err)
{
    locale_t saved = tc_c_locale_enter();
    text t = {NULL, 0, 0, 0};
    wisdom_text(NULL, &t);
    tc_c_locale_leave(saved);
    if (t.failed) {
        free(t.p);
        tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory writing wisdom");
        return NULL;
    }
    return t.p;
}

tc_status tc_wisdom_export_file(const char *path, tc_error *err)
{
    if (!path)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_wisdom_export_file: NULL path");
    locale_t saved = tc_c_locale_enter();
    int fd = tc_rt_file_lock(path, err);
    if (fd < 0) {
        tc_c_locale_leave(saved);
        return err ? err->code : TC_ERESOURCE;
    }
    store disk;
    memset(&disk, 0, sizeof disk);
    tc_error sub;
    tc_status s = read_file(path, 1, &disk, &sub);
    if (s != TC_OK) {
        s = tc_error_set(err, s, sub.line, sub.column, "%s%s (wisdom not written: the file is "
                         "left as it was)", sub.line ? "in the wisdom file: " : "",
                         sub.message);
    } else {
        text t = {NULL, 0, 0, 0};
        wisdom_text(&disk, &t);
        if (t.failed)
            s = tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory writing wisdom file '%s'",
                             path);
        else
            s = tc_rt_file_replace(path, t.p, t.len, err);
        free(t.p);
    }
    store_free(&disk);
    tc_rt_file_unlock(fd);
    tc_c_locale_leave(saved);
    return s;
}
