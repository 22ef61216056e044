/*
 * hardware.h - the cache hierarchy the predictions emulate: levels, sizes,
 * line size, associativity and sharing, from hwloc with a sysfs fallback,
 * and an X-Ray-style measurement to cross-check them (docs/design.md §3).
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
 * Always returns TC_OK with a usable description; err (if non-NULL) gets
 * the note tc_mb_hardware_detect_from leaves. Detection runs once per
 * process, on the first call (thread-safe); later calls copy its result.
 */
tc_status tc_mb_hardware_detect(tc_hardware *hw, tc_error *err);

/* Sources for tc_mb_hardware_detect_from, a bit mask. */
#define TC_MB_HW_HWLOC 1u
#define TC_MB_HW_SYSFS 2u

/*
 * tc_mb_hardware_detect with a choice of sources, for tests and for forcing
 * a fallback: tries hwloc if `sources` has TC_MB_HW_HWLOC, then the sysfs
 * tree under `sysfs_root` if it has TC_MB_HW_SYSFS (NULL root:
 * /sys/devices/system/cpu/cpu0/cache; the tree holds index0, index1, ...
 * each with level, type, size, coherency_line_size, ways_of_associativity
 * and shared_cpu_list), then the defaults. Always TC_OK. When a source was
 * tried and failed, err (if non-NULL) keeps why, as a note with code TC_OK
 * ("sysfs: ..."); its message is empty when the first source tried worked.
 * Not cached: every call detects. tc_mb_hardware_detect(hw, err) is the
 * first tc_mb_hardware_detect_from(TC_MB_HW_HWLOC | TC_MB_HW_SYSFS, NULL,
 * hw, err) of the process.
 */
tc_status tc_mb_hardware_detect_from(unsigned sources, const char *sysfs_root,
                                     tc_hardware *hw, tc_error *err);

/* The machine as wisdom and the profile identify it: CPU model, detected
 * cache sizes, line size and CPU count, e.g.
 * "AMD EPYC 9R14|L1 48K|L2 1024K|L3 32768K|line 64|cpus 2" (no tab or
 * newline). */
void tc_mb_hardware_signature(const tc_hardware *hw, char *buf, size_t n);

#define TC_MB_XRAY_POINTS 160

/* What the X-Ray-style measurement found (0 where it could not tell). */
typedef struct tc_xray {
    int line_bytes;
    int nlevels;
    int64_t bytes[TC_MB_MAX_LEVELS];      /* capacity of each level found */
    double latency_ns[TC_MB_MAX_LEVELS + 1]; /* per level, then memory */
    double seconds;                        /* time the measurement took */
    int npoints;                           /* the latency curve: working set */
    int64_t point_bytes[TC_MB_XRAY_POINTS]; /* sizes and their latency per */
    double point_ns[TC_MB_XRAY_POINTS];     /* access, after smoothing */
} tc_xray;

/* Measures the line size and the capacity of each level by pointer chasing
 * (a few seconds). TC_ERESOURCE when its buffers cannot be allocated. */
tc_status tc_mb_xray_measure(tc_xray *out, tc_error *err);

/*
 * tc_mb_xray_measure with the largest working set given: the capacity scan
 * stops at max_bytes (tc_mb_xray_measure uses 64 MiB), so a level larger
 * than about max_bytes / 1.25 is not seen and the last plateau found is
 * reported as memory. At least 64 KiB. Errors: TC_EUSAGE (max_bytes out of
 * range), TC_ERESOURCE (no memory, no clock).
 */
tc_status tc_mb_xray_measure_upto(int64_t max_bytes, tc_xray *out, tc_error *err);

/*
 * tc_mb_xray_measure_upto that stops early: once the slowest latency
 * (memory) has set in beyond 8 MiB and held for two doublings of the
 * working set, larger ones are not measured. What the profile uses: it stays quick when hwloc
 * reports a huge cache one process cannot use.
 */
tc_status tc_mb_xray_measure_until(int64_t max_bytes, tc_xray *out, tc_error *err);

#endif
