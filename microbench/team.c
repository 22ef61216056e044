/*
 * team.c - the samplers that predict a split algorithm's threads
 * (sample_impl.h, predict.h): copies of a sampler's options with BLAS on
 * one thread, each timing its own cases, all at once; and what starting
 * and joining the threads costs.
 */
#include "microbench/sample_impl.h"

#include <sched.h>
#include <stdlib.h>

#include "ast/error.h"
#include "microbench/stats.h"
#include "runtime/parallel.h"

tc_mb_sampler *const *tc_mbs_team(tc_mb_sampler *s, int n, tc_error *err)
{
    if (n > TC_MAX_SPLIT) {
        tc_error_set(err, TC_EUSAGE, 0, 0, "a loop split over %d threads (at most %d)", n,
                     TC_MAX_SPLIT);
        return NULL;
    }
    s->team_blas = *s->o.blas;
    s->team_blas.threads = 1;
    tc_mb_sampler_options o = s->o;
    o.blas = &s->team_blas;
    o.threads = 1;
    o.count_rules = 0;
    o.reps = s->created_reps;
    while (s->nteam < n) {
        tc_mb_sampler *t = NULL;
        if (tc_mb_sampler_new(&o, &t, err) != TC_OK)
            return NULL;
        tc_mb_sampler_set_reps(t, s->o.reps);
        t->round = s->round;
        t->sync = &s->team_sync;
        t->member = s->nteam;
        s->team[s->nteam++] = t;
    }
    return s->team;
}

static void nothing(void *arg, long lo, long hi)
{
    (void)arg, (void)lo, (void)hi;
}

#define START_SAMPLES 9

double tc_mbs_team_start(tc_mb_sampler *s, int n)
{
    if (n < 2 || n > TC_MAX_SPLIT)
        return 0.0;
    if (s->team_start_s[n] > 0.0)
        return s->team_start_s[n];
    double t[START_SAMPLES];
    for (int i = 0; i < START_SAMPLES; i++) {
        double t0 = tc_rt_now();
        tc_rt_parallel(n, n, nothing, NULL);
        t[i] = tc_rt_now() - t0;
    }
    double lo, median, hi;
    tc_mb_spread(t, START_SAMPLES, &lo, &median, &hi);
    s->team_start_s[n] = median > 0.0 ? median : 1e-9;
    return s->team_start_s[n];
}

void tc_mbs_team_free(tc_mb_sampler *s)
{
    for (int i = 0; i < s->nteam; i++)
        tc_mb_sampler_free(s->team[i]);
    s->nteam = 0;
}

/* Rule together: in a split loop every thread's calls run at once, and
 * share what the cores share (the memory's bandwidth, the LLC); a team
 * member timed alone, its neighbours in their setups, saw the machine to
 * itself. */
void tc_mbs_apply_together(const tc_mb_sampler *s, const tc_mb_case *cs, recipe *p)
{
    (void)cs;
    p->d.together = s->sync != NULL;
}

void tc_mbs_team_begin(tc_mb_sampler *s, int n)
{
    tc_mb_team_sync *y = &s->team_sync;
    y->n = n;
    for (int i = 0; i < n; i++) {
        atomic_store(&y->reps[i], 0);
        atomic_store(&y->running[i], 0);
    }
}

void tc_mbs_team_enter(tc_mb_sampler *m)
{
    atomic_store(&m->sync->running[m->member], 1);
}

/* Spins (yielding: a member may share a CPU) until each other running
 * member has started as many timed repetitions as this one; a member
 * whose cases differ (a memo hit, a case timed again) delays the others
 * by at most TC_MB_TEAM_WAIT_S a repetition. */
void tc_mbs_team_wait(tc_mb_sampler *m)
{
    tc_mb_team_sync *y = m->sync;
    long mine = atomic_fetch_add(&y->reps[m->member], 1) + 1;
    atomic_fetch_add(&y->together, 1);
    double until = tc_rt_now() + TC_MB_TEAM_WAIT_S;
    for (int u = 0; u < y->n; u++)
        while (u != m->member && atomic_load(&y->running[u]) && atomic_load(&y->reps[u]) < mine &&
               tc_rt_now() < until)
            sched_yield();
}

void tc_mbs_team_leave(tc_mb_sampler *m)
{
    atomic_store(&m->sync->running[m->member], 0);
}
