/* memory_limit.c - the memory tcgen may use (memory_limit.h). */
#include "runtime/memory_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast/error.h"

/* MemAvailable in bytes, or -1 when /proc/meminfo does not say. */
static int64_t meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "MemAvailable:", 13) == 0) {
            if (sscanf(line + 13, "%lld", &kib) != 1)
                kib = -1;
            break;
        }
    }
    fclose(f);
    if (kib < 0 || kib > INT64_MAX / 1024)
        return -1;
    return (int64_t)kib * 1024;
}

static int64_t physical_available(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES);
    if (pages < 0)
        pages = sysconf(_SC_PHYS_PAGES);
    long page = sysconf(_SC_PAGESIZE);
    if (pages < 0 || page <= 0)
        return -1;
    if ((int64_t)pages > INT64_MAX / page)
        return INT64_MAX;
    return (int64_t)pages * page;
}

/* The first number in file dir/name, or -1 ("max", absent, unreadable). */
static int64_t read_number(const char *dir, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long v = -1;
    if (fscanf(f, "%lld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* The process's group path for the v2 hierarchy ("0::/path") or for the v1
 * memory controller ("N:...,memory,...:/path") into path; 0 when found. */
static int group_path(int v2, char *path, size_t n)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (found && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        const char *ctl = c1 + 1;
        int match = v2 ? strncmp(line, "0:", 2) == 0 && !*ctl
                       : strstr(ctl, "memory") != NULL;
        if (match) {
            snprintf(path, n, "%s", c2 + 1);
            path[strcspn(path, "\n")] = '\0';
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* The least room (limit - usage) over the group at mount+path and every
 * group above it that the mount shows; -1 when none has a limit. A group
 * path outside the mount's view (a namespace) is cut from its start. */
static int64_t hierarchy_room(const char *mount, const char *path, const char *limit_file,
                              const char *usage_file)
{
    char dir[4096];
    int64_t room = -1;
    for (int n = snprintf(dir, sizeof dir, "%s%s", mount, path);
         n > 0 && n < (int)sizeof dir && strlen(dir) >= strlen(mount);) {
        int64_t limit = read_number(dir, limit_file), used = read_number(dir, usage_file);
        /* v1 writes "no limit" as a huge number, a page short of 2^63 */
        if (limit >= 0 && limit < ((int64_t)1 << 60) && used >= 0) {
            int64_t r = limit > used ? limit - used : 0;
            if (room < 0 || r < room)
                room = r;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash < dir + strlen(mount))
            break;
        *slash = '\0';
    }
    return room;
}

int64_t tc_rt_cgroup_memory_room(void)
{
    char path[2048];
    if (access("/sys/fs/cgroup/cgroup.controllers", R_OK) == 0 &&
        group_path(1, path, sizeof path) == 0)
        return hierarchy_room("/sys/fs/cgroup", path, "memory.max", "memory.current");
    if (group_path(0, path, sizeof path) == 0)
        return hierarchy_room("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                              "memory.usage_in_bytes");
    return -1;
}

int64_t tc_rt_memory_available(void)
{
    int64_t bytes = meminfo_available();
    if (bytes < 0)
        bytes = physical_available();
    int64_t room = tc_rt_cgroup_memory_room();
    if (room >= 0 && (bytes < 0 || room < bytes))
        bytes = room;
    return bytes;
}

int tc_rt_parse_bytes(const char *text, int64_t *bytes)
{
    static const struct {
        const char *suffix;
        int shift;
    } units[] = {{"", 0},       {"K", 10},    {"M", 20},    {"G", 30},   {"T", 40},
                 {"KiB", 10},   {"MiB", 20},  {"GiB", 30},  {"TiB", 40}};
    int64_t n = 0;
    const char *p = text;
    for (; p && *p >= '0' && *p <= '9'; p++) {
        if (n > TC_BYTES_MAX) /* already too big; stop before it overflows */
            return -1;
        n = 10 * n + (*p - '0');
    }
    if (!p || p == text)
        return -1;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strcmp(p, units[k].suffix) == 0) {
            if (n > TC_BYTES_MAX >> units[k].shift)
                return -1;
            *bytes = n << units[k].shift;
            return 0;
        }
    return -1;
}

tc_status tc_rt_workspace_from_env(int64_t *bytes, const char **from, tc_error *err)
{
    const char *v = getenv("TCGEN_WORKSPACE");
    if (v && *v) {
        *from = "TCGEN_WORKSPACE";
        if (tc_rt_parse_bytes(v, bytes) == 0)
            return TC_OK;
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "TCGEN_WORKSPACE is '%.64s': it takes a byte count, digits with "
                            "an optional K, M, G or T (powers of 1024), e.g. 512M or 0",
                            v);
    }
    *from = "the memory available";
    *bytes = tc_rt_memory_available();
    return TC_OK;
}
