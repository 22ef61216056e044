/* cpus.c - the CPUs this process may use (cpus.h). */
#include "runtime/cpus.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The first two numbers of a file ("max 100000" gives *a = -1); 1 when read. */
static int read_pair(const char *path, long long *a, long long *b)
{
    FILE *f = fopen(path, "r");
    char first[32] = "";
    int n = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%31s %lld", first, b) >= 1) {
        n = 1;
        *a = strcmp(first, "max") == 0 ? -1 : 0;
        if (*a == 0 && sscanf(first, "%lld", a) != 1)
            n = 0;
    }
    fclose(f);
    return n;
}

/* The CPU quota of the process's cgroup, rounded up; 0 when none is set. */
static int cgroup_quota(void)
{
    char line[512], path[600];
    long long quota = -1, period = 0;
    FILE *f = fopen("/proc/self/cgroup", "r");
    path[0] = '\0';
    while (f && fgets(line, sizeof line, f)) /* v2: "0::/path" */
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", line + 3);
        }
    if (f)
        fclose(f);
    if (!(path[0] && read_pair(path, &quota, &period)) &&
        !read_pair("/sys/fs/cgroup/cpu.max", &quota, &period)) {
        long long q = -1, p = 0, unused;
        if (read_pair("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", &q, &unused) &&
            read_pair("/sys/fs/cgroup/cpu/cpu.cfs_period_us", &p, &unused))
            quota = q, period = p;
    }
    if (quota <= 0 || period <= 0)
        return 0;
    return (int)((quota + period - 1) / period);
}

int tc_rt_process_cpus(void)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
            : online > 0                                ? (int)online
                                                        : 1;
    int quota = cgroup_quota();
    if (quota > 0 && quota < n)
        n = quota;
    return n > 0 ? n : 1;
}
