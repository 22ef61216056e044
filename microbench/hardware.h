/*
 * hardware.h - the cache hierarchy the predictions emulate: levels, sizes,
 * line size, associativity and sharing, from hwloc with a sysfs fallback,
 * and an X-Ray-style measurement to cross-check them (docs/method.md §2).
 */
#ifndef TC_MICROBENCH_HARDWARE_H
#define TC_MICROBENCH_HARDWARE_H

#include <stdint.h>

#include "tcgen.h"

#define TC_MB_MAX_LEVELS 4

/* One data or unified cache level. */
typedef struct tc_cache_level {
    int level;           /* 1, 2, 3, ... */
    int64_t bytes;       /* capacity of one instance */
    int line_bytes;
    int ways;            /* associativity; 0 unknown, -1 fully associative */
    int shared_by;       /* logical CPUs sharing one instance (0 unknown) */
} tc_cache_level;

typedef struct tc_hardware {
    int nlevels;
    tc_cache_level level[TC_MB_MAX_LEVELS];  /* L1 first */
    int64_t llc_bytes;   /* last-level size used for the 5/4 truncation */
    int line_bytes;      /* cache-line size; prefetch-failure period = line / 8 B */
    int cpus;            /* logical CPUs */
    char source[16];     /* "hwloc", "sysfs" or "default" */
    char cpu_model[128]; /* e.g. "AMD EPYC", "" when unknown */
} tc_hardware;

/*
 * Fills *hw from hwloc, else from /sys/devices/system/cpu/cpu0/cache, else
 * with defaults (64 B lines, 32 KiB L1, 8 MiB LLC; source "default").
 * Always returns TC_OK with a usable description; err is for future use.
 */
tc_status tc_mb_hardware_detect(tc_hardware *hw, tc_error *err);

/* What the X-Ray-style measurement found (0 where it could not tell). */
typedef struct tc_xray {
    int line_bytes;
    int nlevels;
    int64_t bytes[TC_MB_MAX_LEVELS];      /* capacity of each level found */
    double latency_ns[TC_MB_MAX_LEVELS + 1]; /* per level, then memory */
    double seconds;                        /* time the measurement took */
} tc_xray;

/* Measures the line size and the capacity of each level by pointer chasing
 * (a few seconds). TC_ERESOURCE when its buffers cannot be allocated. */
tc_status tc_mb_xray_measure(tc_xray *out, tc_error *err);

#endif
