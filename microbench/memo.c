/* memo.c - open-addressing hash table from case keys to median times. */
#include "microbench/memo.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash;
    char *key;      /* NULL: empty */
    double seconds;
} slot;

struct tc_mb_memo {
    slot *slot;
    size_t capacity; /* a power of two */
    size_t count;
};

#define MEMO_INITIAL 64

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

tc_mb_memo *tc_mb_memo_new(void)
{
    tc_mb_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->slot = calloc(MEMO_INITIAL, sizeof *m->slot);
    if (!m->slot) {
        free(m);
        return NULL;
    }
    m->capacity = MEMO_INITIAL;
    return m;
}

void tc_mb_memo_free(tc_mb_memo *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->capacity; i++)
        free(m->slot[i].key);
    free(m->slot);
    free(m);
}

/* The slot holding key, or the empty slot where it belongs. */
static slot *probe(slot *table, size_t capacity, uint64_t hash, const char *key)
{
    size_t i = (size_t)hash & (capacity - 1);
    for (;;) {
        slot *sl = &table[i];
        if (!sl->key || (sl->hash == hash && strcmp(sl->key, key) == 0))
            return sl;
        i = (i + 1) & (capacity - 1);
    }
}

int tc_mb_memo_find(const tc_mb_memo *m, const char *key, double *seconds)
{
    const slot *sl = probe(m->slot, m->capacity, fnv1a(key), key);
    if (!sl->key)
        return 0;
    *seconds = sl->seconds;
    return 1;
}

static int grow(tc_mb_memo *m)
{
    if (m->capacity > SIZE_MAX / 2 / sizeof *m->slot)
        return -1;
    size_t cap = m->capacity * 2;
    slot *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slot[i].key)
            *probe(t, cap, m->slot[i].hash, m->slot[i].key) = m->slot[i];
    free(m->slot);
    m->slot = t;
    m->capacity = cap;
    return 0;
}

int tc_mb_memo_put(tc_mb_memo *m, const char *key, double seconds)
{
    uint64_t h = fnv1a(key);
    slot *sl = probe(m->slot, m->capacity, h, key);
    if (sl->key) {
        sl->seconds = seconds;
        return 0;
    }
    /* keep the load at most one half, so probes stay short */
    if (2 * (m->count + 1) > m->capacity) {
        if (grow(m) != 0)
            return -1;
        sl = probe(m->slot, m->capacity, h, key);
    }
    size_t n = strlen(key) + 1;
    char *copy = malloc(n);
    if (!copy)
        return -1;
    memcpy(copy, key, n);
    sl->hash = h;
    sl->key = copy;
    sl->seconds = seconds;
    m->count++;
    return 0;
}

int64_t tc_mb_memo_count(const tc_mb_memo *m)
{
    return (int64_t)m->count;
}
