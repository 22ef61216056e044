/* scratch.c - temporaries kept mapped between executions (scratch.h). */
#include "runtime/scratch.h"

#include <pthread.h>

#include "runtime/memory.h"

typedef struct slot {
    double *p;
    int64_t count; /* doubles the block holds */
} slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot cache[TC_SCRATCH_SLOTS];
static int ncached;
static int64_t cached_bytes;

double *tc_rt_scratch_take(int64_t count, tc_error *err)
{
    double *p = NULL;
    pthread_mutex_lock(&lock);
    int best = -1;
    for (int i = 0; i < ncached; i++)
        if (cache[i].count >= count && (best < 0 || cache[i].count < cache[best].count))
            best = i;
    if (best >= 0) {
        p = cache[best].p;
        cached_bytes -= cache[best].count * (int64_t)sizeof(double);
        cache[best] = cache[--ncached];
    }
    pthread_mutex_unlock(&lock);
    return p ? p : tc_rt_alloc(count, err);
}

void tc_rt_scratch_give(double *p, int64_t count)
{
    if (!p)
        return;
    int64_t bytes = count * (int64_t)sizeof(double);
    pthread_mutex_lock(&lock);
    int kept = ncached < TC_SCRATCH_SLOTS && bytes <= TC_SCRATCH_MAX_BYTES - cached_bytes;
    if (kept) {
        cache[ncached++] = (slot){p, count};
        cached_bytes += bytes;
    }
    pthread_mutex_unlock(&lock);
    if (!kept)
        tc_rt_free(p);
}

void tc_rt_scratch_release(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncached; i++)
        tc_rt_free(cache[i].p);
    ncached = 0;
    cached_bytes = 0;
    pthread_mutex_unlock(&lock);
}

int tc_rt_scratch_cached(int64_t *bytes)
{
    pthread_mutex_lock(&lock);
    int n = ncached;
    if (bytes)
        *bytes = cached_bytes;
    pthread_mutex_unlock(&lock);
    return n;
}
