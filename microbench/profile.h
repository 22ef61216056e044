/*
 * profile.h - the machine profile: what one process can use of this
 * machine, measured once per machine and BLAS library and kept in a file
 * (docs/prediction.md).
 *
 * hwloc or sysfs give the first guess of the cache hierarchy
 * (hardware.h); an X-Ray-style measurement checks it, and where a level's
 * measured capacity differs from the detected one by more than 2x the
 * measurement is used (a virtual machine may report the host's whole L3
 * while one process sees a few MiB of it). The profile also holds the
 * timer's resolution and overhead, the stream-prefetch depth, the LLC's
 * edge (how much of it data reused near its size keeps), one core's
 * peak dgemm flop rate and memory bandwidth (the bounds no prediction may
 * beat), and the BLAS identity.
 *
 * The file is $XDG_CACHE_HOME/tcgen/profile-BLAS.txt (else
 * $HOME/.cache/tcgen/...): "key value" lines in the C locale, ending with
 * a checksum line. A file that is damaged (bad checksum, a missing or
 * malformed line), foreign (another machine, another BLAS version) or
 * unusable (a value the model refuses, model_input.h) is refused as a
 * whole and the profile measured anew; it is replaced
 * atomically under an advisory lock, so concurrent processes never see a
 * half-written profile and measure it once.
 */
#ifndef TC_MICROBENCH_PROFILE_H
#define TC_MICROBENCH_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "microbench/hardware.h"
#include "microbench/llc_edge.h"
#include "runtime/blas.h"
#include "runtime/timer.h"
#include "tcgen.h"

/* 7: cpu_peak_flops and cpu_peak_width (fma_peak.h), blas_kernels and
 * kernel_rate (OpenBLAS's other kernel sets and their dgemm rates).
 * 6: llc_edge, the LLC's edge curve (llc_edge.h).
 * 5: measured_llc is the cliff to memory (tc_mb_profile_llc_from_curve),
 * format 4's the longest plateau, which could be a part of memory.
 * 4: no fresh-memory rate (format 3's fresh_bandwidth: nothing uses it
 * since the emitted C keeps its temporaries between calls).
 * 3: the TLB reach is measured on pages that do not all alias one physical
 * page (tlb.c), format 2's could be a hypervisor's limit instead; the
 * bandwidths are the best of several loops, and the in-place update's is
 * kept (update_bandwidth) */
#define TC_MB_PROFILE_VERSION 7
#define TC_MB_MAX_KERNEL_SETS 8
#define TC_MB_SIGNATURE_MAX 512
/* The cache scan goes no further (past it TLB misses add a step of their
 * own): no measured capacity is larger. */
#define TC_MB_PROFILE_SCAN_MAX ((int64_t)128 << 20)

/* Where a level of the hierarchy in use comes from. */
typedef enum { TC_LEVEL_DETECTED = 0, TC_LEVEL_MEASURED = 1 } tc_mb_level_source;

typedef struct tc_mb_profile {
    char machine[TC_MB_SIGNATURE_MAX]; /* tc_mb_hardware_signature of detected */
    char blas[32];                     /* BLAS name and version string */
    char blas_version[128];
    tc_hardware detected;              /* hwloc / sysfs / defaults */
    tc_xray xray;                      /* the measurement */
    int64_t llc_measured;              /* what one process can use of the
                                          last level (0: could not tell) */
    tc_hardware used;                  /* what predictions use */
    tc_mb_level_source source[TC_MB_MAX_LEVELS]; /* per level of used */
    int stream_lines;                  /* lines a unit-stride stream is fetched
                                          ahead (0: no stream prefetch seen) */
    int64_t tlb_pages;                 /* 4 KiB pages the TLB keeps (tlb.h;
                                          0: no step seen) */
    double timer_resolution_s, timer_overhead_s;
    double peak_flops;                 /* one thread, dgemm, flop/s */
    double cpu_peak_flops;             /* one thread, a loop of FMAs at the
                                          widest vector width (fma_peak.h) */
    char cpu_peak_width[16];           /* that width: "avx512", "avx2", ... */
    char blas_kernels[32];             /* OpenBLAS: the kernel set it runs
                                          ("-": the library does not say) */
    int nkernel;                       /* OpenBLAS: its other kernel sets this
                                          CPU runs (tc_rt_openblas_cores) ... */
    char kernel_name[TC_MB_MAX_KERNEL_SETS][32];
    double kernel_flops[TC_MB_MAX_KERNEL_SETS]; /* ... and their dgemm rates, as
                                                   peak_flops */
    double memory_bandwidth;           /* one thread, streaming read, bytes/s */
    double update_bandwidth;           /* one thread, read and written back in
                                          place, bytes/s both ways together */
    double llc_edge[TC_EDGE_POINTS];   /* the LLC's edge (llc_edge.h; all 0:
                                          not measured) */
    double measured_at;                /* Unix time of the measurement */
    double measure_seconds;            /* how long it took */
} tc_mb_profile;

/* How tc_mb_profile_get came by the profile. */
typedef struct tc_mb_profile_origin {
    char path[4096];                   /* the file ("" when none could be named) */
    int loaded;                        /* 1 read from path, 0 measured now */
    int saved;                         /* measured and written to path */
    char note[TC_ERROR_MESSAGE_MAX];   /* why a file was refused ("refused PATH:
                                          WHY; measured anew") or not written
                                          ("cannot save PATH (WHY): this machine
                                          was measured for this run only"); "" when neither */
} tc_mb_profile_origin;

/* The profile file for BLAS library `blas_name` (its name, e.g. "openblas";
 * other characters than [A-Za-z0-9._-] become '_') on the machine hw
 * describes: "profile-BLAS-MODEL-HASH.txt", MODEL the CPU model in lower
 * case and dashes, HASH 8 hex digits of hw's signature, so that node types
 * sharing a home directory keep a profile each instead of overwriting one;
 * under $XDG_CACHE_HOME when set and absolute, else $HOME/.cache.
 * TC_ERESOURCE when neither is usable or the path does not fit in n. */
tc_status tc_mb_profile_path(const char *blas_name, const tc_hardware *hw, char *buf, size_t n,
                             tc_error *err);

/*
 * Chooses the hierarchy in use from the detected one and the measurement:
 * level by level from L1, the measured capacity where it differs from the
 * detected one by more than 2x - for the last level, llc_measured; a
 * detected level above the last that is larger than every cache the
 * measurement found is dropped. Fills
 * p->used and p->source from p->detected and p->xray.
 */
void tc_mb_profile_choose(tc_mb_profile *p);

/*
 * The capacity of the last level one process can use, from the latency
 * curve of x: past `upper_bytes` (the level above), the level runs from
 * its first point to the last one before the curve first comes nearer
 * memory's latency (its largest working set) than the level's (its first
 * point) on a log scale. On a shared host the curve climbs from the level
 * above through the LLC, falls off a cliff, and climbs on in memory (TLB
 * misses); plateau finders split either ramp into invented levels (on one
 * VM five scans gave 3.5, 6, 6, 24 and 48 MiB), the cliff follows the
 * host (3.5-8 MiB on eight other scans; docs/prediction.md). 0 when memory
 * is not 4x slower than the level's first point (no step to memory seen).
 */
int64_t tc_mb_profile_llc_from_curve(const tc_xray *x, int64_t upper_bytes);

/*
 * The fastest kernel set of the profile's OpenBLAS other than the one it
 * runs, at least TC_MB_KERNELS_BETTER times its dgemm rate: its index in
 * kernel_name, else -1 (not OpenBLAS, or its own choice is as good).
 */
#define TC_MB_KERNELS_BETTER 1.25
int tc_mb_profile_better_kernels(const tc_mb_profile *p);

/* Writes what the BLAS's rate is against the CPU's (and, where another
 * kernel set of OpenBLAS measured faster, which and how to get it) into
 * buf, n bytes: "OpenBLAS runs its Prescott kernels: dgemm 20.8 GFLOP/s,
 * 0.19 of the CPU's avx512 FMA peak (107); its SkylakeX kernels measured
 * 53.1 (2.55x): set OPENBLAS_CORETYPE=SkylakeX, or --blas auto". Returns 1
 * when the BLAS runs below what this CPU runs (another kernel set
 * better), else 0 (buf then says how close the BLAS comes to the peak). */
int tc_mb_profile_kernels_note(const tc_mb_profile *p, char *buf, size_t n);

/* The profile as text (the file's content, checksum included); snprintf
 * semantics. Numbers are written in the C locale whatever the caller's. */
size_t tc_mb_profile_format(const tc_mb_profile *p, char *buf, size_t n);

/* Reads text written by tc_mb_profile_format. TC_EINPUT with a message
 * saying what is wrong when the text is damaged in any way, when its
 * detected lines are not those its machine line names, or when it holds a
 * value the model cannot use (tc_mb_profile_usable; a measured capacity
 * beyond TC_MB_PROFILE_SCAN_MAX is one the scan cannot have found).
 * Nothing of it is used then. */
tc_status tc_mb_profile_parse(const char *text, tc_mb_profile *p, tc_error *err);

/* TC_EINPUT, saying which value, when the model would refuse what p
 * hands it (tc_mb_model_input_check of its hierarchy in use and figures,
 * model_input.h): tc_mb_profile_parse refuses such a profile, and
 * tc_mb_profile_get fails (TC_EINTERNAL) rather than use a measurement
 * that yields one. */
tc_status tc_mb_profile_usable(const tc_mb_profile *p, tc_error *err);

/* TC_EINPUT when p was measured on another machine (its signature differs
 * from that of `detected`) or with another BLAS library or version. */
tc_status tc_mb_profile_check(const tc_mb_profile *p, const tc_hardware *detected,
                              const tc_blas *blas, tc_error *err);

/* Progress of a measurement: "caches", "bandwidth", ... (may be NULL). */
typedef void (*tc_mb_profile_progress)(const char *step, int done, int total, void *data);

/*
 * Measures the profile now (a few seconds, at most about 30): caches by
 * X-Ray, stream-prefetch depth, memory bandwidth, peak dgemm rate with one
 * BLAS thread (the library's thread count is restored), and takes the
 * timer's figures from `timer`. TC_ERESOURCE when memory runs out.
 */
tc_status tc_mb_profile_measure(const tc_hardware *detected, const tc_blas *blas,
                                const tc_timer *timer, tc_mb_profile_progress progress,
                                void *data, tc_mb_profile *p, tc_error *err);

/*
 * The profile for this machine and blas: read from its file when that is
 * valid and `refresh` is 0; otherwise measured (under the file's lock,
 * re-reading first in case another process measured it meanwhile) and
 * written atomically. A profile that cannot be written is still returned
 * (origin->note says which file, why, and that the measurement serves this
 * run only). Errors: those of tc_mb_profile_measure; TC_EINTERNAL when
 * what it measured is not usable (tc_mb_profile_usable).
 * origin may be NULL.
 */
tc_status tc_mb_profile_get(const tc_blas *blas, const tc_timer *timer, int refresh,
                            tc_mb_profile_progress progress, void *data, tc_mb_profile *p,
                            tc_mb_profile_origin *origin, tc_error *err);

#endif
