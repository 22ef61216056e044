/*
 * cpus.h - how many CPUs this process may use: the default thread count
 * (docs/design.md, Threads).
 */
#ifndef TC_RUNTIME_CPUS_H
#define TC_RUNTIME_CPUS_H

/*
 * The CPUs in the process's affinity mask, at most its cgroup's CPU quota
 * rounded up (cgroup v2 cpu.max, else v1 cpu.cfs_quota_us over
 * cpu.cfs_period_us; no quota: the mask), at least 1. A container limited
 * to 2 CPUs on a 64-core host answers 2, where the online CPUs say 64.
 */
int tc_rt_process_cpus(void);

#endif
