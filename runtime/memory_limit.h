/*
 * memory_limit.h - how much memory tcgen may use: what the system and the
 * job's control group leave, and the workspace budget for temporaries
 * (docs/design.md §8).
 */
#ifndef TC_RUNTIME_MEMORY_LIMIT_H
#define TC_RUNTIME_MEMORY_LIMIT_H

#include <stdint.h>

#include "tcgen.h"

#define TC_BYTES_MAX ((int64_t)1 << 50) /* 1 PiB: the largest size a byte count may give */

/*
 * Bytes of memory available to a new allocation without swapping or
 * meeting a limit: the smaller of MemAvailable (/proc/meminfo, else the
 * free physical pages) and the room left under the process's memory
 * control group and every group above it (cgroup v2 memory.max minus
 * memory.current, v1 memory.limit_in_bytes minus memory.usage_in_bytes:
 * a batch job's SLURM or container limit). -1 when none can be read.
 */
int64_t tc_rt_memory_available(void);

/* The room under the process's control groups alone: -1 when there is no
 * limit or it cannot be read. */
int64_t tc_rt_cgroup_memory_room(void);

/*
 * Reads a byte count: digits, optionally followed by K, M, G, T or KiB,
 * MiB, GiB, TiB (powers of 1024), at most TC_BYTES_MAX. Returns 0 and sets
 * *bytes, or -1 when the text is not one.
 */
int tc_rt_parse_bytes(const char *text, int64_t *bytes);

/*
 * The workspace budget from the environment: $TCGEN_WORKSPACE when set
 * (*bytes, *from "TCGEN_WORKSPACE"), else what tc_rt_memory_available
 * says (*from "the memory available", -1 when unknown: no limit).
 * TC_EUSAGE naming the variable when it is set but not a byte count.
 */
tc_status tc_rt_workspace_from_env(int64_t *bytes, const char **from, tc_error *err);

#endif
