/* pool.c - the shared remote pool and the process-wide memory budget (pool.h). */
#include "microbench/pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "ast/error.h"
#include "microbench/touch.h"
#include "runtime/memory.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static int64_t reserved, peak, pools; /* bytes: all, the most at once, pools alone */
static double *shared;                /* the shared pool */
static int64_t shared_bytes;
static int shared_refs;

/* Under the lock. */
static void add_reserved(int64_t bytes)
{
    reserved += bytes;
    if (reserved > peak)
        peak = reserved;
}

tc_status tc_mb_pool_acquire(int64_t bytes, int64_t budget, const double **pool,
                             tc_error *err)
{
    *pool = NULL;
    pthread_mutex_lock(&lock);
    /* the shared pool when it is large enough but not wastefully so (a pool
     * kept from a sampler with a larger cache would eat others' budgets) */
    if (shared && shared_bytes >= bytes && (shared_refs > 0 || shared_bytes <= 2 * bytes)) {
        if (pools > budget) {
            pthread_mutex_unlock(&lock);
            return tc_error_set(err, TC_ERESOURCE, 0, 0,
                                "the sampler's remote pools (%lld bytes) do not fit in its "
                                "memory budget of %lld bytes",
                                (long long)pools, (long long)budget);
        }
        shared_refs++;
        *pool = shared;
        pthread_mutex_unlock(&lock);
        return TC_OK;
    }
    int replace = shared_refs == 0; /* else a private pool: the shared one is in use */
    int64_t freeing = replace ? shared_bytes : 0;
    if (pools - freeing + bytes > budget) {
        pthread_mutex_unlock(&lock);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "the sampler's remote pool of %lld bytes does not fit in its "
                            "memory budget of %lld bytes",
                            (long long)bytes, (long long)budget);
    }
    double *p = tc_rt_alloc(bytes / 8, err);
    if (!p) {
        pthread_mutex_unlock(&lock);
        return TC_ERESOURCE;
    }
    tc_mb_shape all = {bytes / 8, 1, 1, 0};
    tc_mb_touch_init(p, &all); /* fault every page in now, not while timing */
    if (replace) {
        tc_rt_free(shared);
        reserved -= shared_bytes;
        pools -= shared_bytes;
        shared = p;
        shared_bytes = bytes;
        shared_refs = 1;
    }
    pools += bytes;
    add_reserved(bytes);
    *pool = p;
    pthread_mutex_unlock(&lock);
    return TC_OK;
}

void tc_mb_pool_release(const double *pool, int64_t bytes)
{
    if (!pool)
        return;
    pthread_mutex_lock(&lock);
    if (pool == shared) {
        /* kept for the next sampler (planning again is the common case);
         * freed when a larger one replaces it */
        shared_refs--;
    } else {
        tc_rt_free((double *)pool);
        pools -= bytes;
        reserved -= bytes;
        pthread_cond_broadcast(&freed);
    }
    pthread_mutex_unlock(&lock);
}

void tc_mb_pool_trim(void)
{
    pthread_mutex_lock(&lock);
    if (shared && shared_refs == 0) {
        tc_rt_free(shared);
        reserved -= shared_bytes;
        pools -= shared_bytes;
        shared = NULL;
        shared_bytes = 0;
        pthread_cond_broadcast(&freed);
    }
    pthread_mutex_unlock(&lock);
}

tc_status tc_mb_budget_reserve(int64_t bytes, int64_t budget, tc_error *err)
{
    pthread_mutex_lock(&lock);
    if (bytes < 0 || pools + bytes > budget) {
        int64_t p = pools;
        pthread_mutex_unlock(&lock);
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "a case needs %lld bytes of operands, over the sampler's memory "
                            "budget of %lld bytes (the remote pools hold %lld)",
                            (long long)bytes, (long long)budget, (long long)p);
    }
    while (reserved + bytes > budget)
        pthread_cond_wait(&freed, &lock);
    add_reserved(bytes);
    pthread_mutex_unlock(&lock);
    return TC_OK;
}

void tc_mb_budget_release(int64_t bytes)
{
    pthread_mutex_lock(&lock);
    reserved -= bytes;
    pthread_cond_broadcast(&freed);
    pthread_mutex_unlock(&lock);
}

int64_t tc_mb_budget_in_use(void)
{
    pthread_mutex_lock(&lock);
    int64_t r = reserved;
    pthread_mutex_unlock(&lock);
    return r;
}

int64_t tc_mb_budget_peak(void)
{
    pthread_mutex_lock(&lock);
    int64_t r = peak;
    pthread_mutex_unlock(&lock);
    return r;
}

void tc_mb_budget_reset_peak(void)
{
    pthread_mutex_lock(&lock);
    peak = reserved;
    pthread_mutex_unlock(&lock);
}
