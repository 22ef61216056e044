/*
 * test_hardware.c - the cache description (hwloc on this machine; the
 * sysfs parser on fake trees, malformed ones included; the defaults), the
 * timer, and a reduced X-Ray measurement. No assertion on wall-clock time.
 */
#include <CUnit/CUnit.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "microbench/hardware.h"
#include "runtime/timer.h"

/* ---- fake sysfs trees ------------------------------------------------- */

static char root[64];

static void put(const char *index, const char *file, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, index);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/%s", root, index, file);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* One index directory; NULL leaves a file out. */
static void put_index(const char *index, const char *level, const char *type, const char *size,
                      const char *line, const char *ways, const char *shared)
{
    const char *files[6] = {"level", "type", "size", "coherency_line_size",
                            "ways_of_associativity", "shared_cpu_list"};
    const char *text[6] = {level, type, size, line, ways, shared};
    for (int k = 0; k < 6; k++)
        if (text[k])
            put(index, files[k], text[k]);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void new_tree(void)
{
    snprintf(root, sizeof root, "/tmp/tc_hw_test_XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

static void drop_tree(void)
{
    nftw(root, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void check_level(const tc_cache_level *l, int level, int64_t bytes, int line, int ways,
                        int shared)
{
    CU_ASSERT_EQUAL(l->level, level);
    CU_ASSERT_EQUAL(l->bytes, bytes);
    CU_ASSERT_EQUAL(l->line_bytes, line);
    CU_ASSERT_EQUAL(l->ways, ways);
    CU_ASSERT_EQUAL(l->shared_by, shared);
}

static void check_defaults(const tc_hardware *hw)
{
    CU_ASSERT_STRING_EQUAL(hw->source, "default");
    CU_ASSERT_EQUAL(hw->nlevels, 2);
    CU_ASSERT_EQUAL(hw->level[0].bytes, 32 * 1024);
    CU_ASSERT_EQUAL(hw->llc_bytes, 8 * 1024 * 1024);
    CU_ASSERT_EQUAL(hw->line_bytes, 64);
    CU_ASSERT(hw->cpus >= 1);
}

/* ---- tests ------------------------------------------------------------- */

static void test_detect_this_machine(void)
{
    tc_hardware hw;
    tc_error err;
    CU_ASSERT_EQUAL(tc_mb_hardware_detect(&hw, &err), TC_OK);
    CU_ASSERT(hw.nlevels >= 1 && hw.nlevels <= TC_MB_MAX_LEVELS);
    CU_ASSERT(hw.line_bytes >= 16 && hw.line_bytes <= 512);
    CU_ASSERT_EQUAL(hw.line_bytes & (hw.line_bytes - 1), 0);
    CU_ASSERT(hw.llc_bytes >= hw.level[0].bytes);
    CU_ASSERT_EQUAL(hw.llc_bytes, hw.level[hw.nlevels - 1].bytes);
    CU_ASSERT(hw.level[0].bytes > 0);
    for (int k = 1; k < hw.nlevels; k++) {
        CU_ASSERT(hw.level[k].level > hw.level[k - 1].level);
        CU_ASSERT(hw.level[k].bytes > hw.level[k - 1].bytes);
    }
    CU_ASSERT(hw.cpus >= 1);
    /* no padding from the CPU's brand string: it reaches headers and wisdom */
    size_t n = strlen(hw.cpu_model);
    CU_ASSERT(n == 0 || (hw.cpu_model[0] != ' ' && hw.cpu_model[n - 1] != ' '));
    CU_ASSERT_PTR_NULL(strstr(hw.cpu_model, "  "));
    char sig[512];
    tc_mb_hardware_signature(&hw, sig, sizeof sig);
    CU_ASSERT_PTR_NULL(strstr(sig, " |"));
    CU_ASSERT_PTR_NULL(strchr(sig, '\t'));
    CU_ASSERT(strcmp(hw.source, "hwloc") == 0 || strcmp(hw.source, "sysfs") == 0 ||
              strcmp(hw.source, "default") == 0);
    /* Every source the machine offers agrees on the sizes (hwloc reads sysfs). */
    tc_hardware fs;
    tc_mb_hardware_detect_from(TC_MB_HW_SYSFS, NULL, &fs, NULL);
    if (strcmp(hw.source, "hwloc") == 0 && strcmp(fs.source, "sysfs") == 0) {
        CU_ASSERT_EQUAL(fs.nlevels, hw.nlevels);
        CU_ASSERT_EQUAL(fs.llc_bytes, hw.llc_bytes);
        CU_ASSERT_EQUAL(fs.line_bytes, hw.line_bytes);
    }
}

/* The cached detection (once per process) is what a fresh one finds, note
 * included: a plan and `tcgen info` see the machine as before. */
static void test_detect_cached(void)
{
    tc_hardware a, b;
    tc_error ea, eb;
    memset(&ea, 0x55, sizeof ea);
    CU_ASSERT_EQUAL(tc_mb_hardware_detect(&a, &ea), TC_OK);
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(TC_MB_HW_HWLOC | TC_MB_HW_SYSFS, NULL, &b, &eb),
                    TC_OK);
    CU_ASSERT_EQUAL(ea.code, TC_OK);
    CU_ASSERT_STRING_EQUAL(ea.message, eb.message);
    CU_ASSERT_EQUAL(a.nlevels, b.nlevels);
    CU_ASSERT_EQUAL(a.llc_bytes, b.llc_bytes);
    CU_ASSERT_EQUAL(a.line_bytes, b.line_bytes);
    CU_ASSERT_EQUAL(a.cpus, b.cpus);
    CU_ASSERT_STRING_EQUAL(a.source, b.source);
    CU_ASSERT_STRING_EQUAL(a.cpu_model, b.cpu_model);
    for (int k = 0; k < a.nlevels && k < b.nlevels; k++) {
        CU_ASSERT_EQUAL(a.level[k].bytes, b.level[k].bytes);
        CU_ASSERT_EQUAL(a.level[k].ways, b.level[k].ways);
        CU_ASSERT_EQUAL(a.level[k].shared_by, b.level[k].shared_by);
    }
}

static void test_sysfs_fake_tree(void)
{
    tc_hardware hw;
    tc_error err;
    new_tree();
    /* Out of order, with an instruction cache and a 4th level to sort. */
    put_index("index0", "2\n", "Unified\n", "1024K\n", "64\n", "16\n", "0\n");
    put_index("index1", "1\n", "Instruction\n", "32K\n", "64\n", "8\n", "0\n");
    put_index("index2", "1\n", "Data\n", "48K\n", "64\n", "12\n", "0\n");
    put_index("index3", "3\n", "Unified\n", "32768K\n", "64\n", "16\n", "0-3,8-11\n");
    put_index("index5", "4\n", "Unified\n", "1G\n", "128\n", "0\n", "0-63\n"); /* index4 absent */
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(TC_MB_HW_SYSFS, root, &hw, &err), TC_OK);
    CU_ASSERT_STRING_EQUAL(hw.source, "sysfs");
    CU_ASSERT_STRING_EQUAL(err.message, "");
    CU_ASSERT_EQUAL_FATAL(hw.nlevels, 4);
    check_level(&hw.level[0], 1, 48 * 1024, 64, 12, 1);
    check_level(&hw.level[1], 2, 1024 * 1024, 64, 16, 1);
    check_level(&hw.level[2], 3, 32 * 1024 * 1024, 64, 16, 8);
    check_level(&hw.level[3], 4, (int64_t)1 << 30, 128, 0, 64);
    CU_ASSERT_EQUAL(hw.llc_bytes, (int64_t)1 << 30);
    CU_ASSERT_EQUAL(hw.line_bytes, 64);
    CU_ASSERT(hw.cpus >= 1);
    drop_tree();
}

static void test_sysfs_malformed(void)
{
    tc_hardware hw;
    tc_error err;
    new_tree();
    put_index("index0", "one\n", "Data\n", "48K\n", "64\n", "12\n", "0\n");  /* bad level */
    put_index("index1", "2\n", "Unified\n", "lots\n", "64\n", "8\n", "0\n"); /* bad size */
    put_index("index2", "2\n", "Unified\n", "48KB\n", "64\n", "8\n", "0\n"); /* bad size */
    put_index("index3", "3\n", "Unified\n", NULL, "64\n", "8\n", "0\n");     /* no size */
    put_index("index4", "3\n", "Sideways\n", "8M\n", "64\n", "8\n", "0\n");  /* bad type */
    put_index("index6", "0\n", "Data\n", "8M\n", "64\n", "8\n", "0\n");      /* level 0 */
    put_index("index7", "", "Data\n", "8M\n", "64\n", "8\n", "0\n");         /* empty */
    /* The one usable level: optional files malformed become "unknown". */
    put_index("index5", "2\n", "Unified\n", "512K\n", "63\n", "x\n", "0-\n");
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(TC_MB_HW_SYSFS, root, &hw, &err), TC_OK);
    CU_ASSERT_STRING_EQUAL(hw.source, "sysfs");
    CU_ASSERT_EQUAL_FATAL(hw.nlevels, 1);
    check_level(&hw.level[0], 2, 512 * 1024, 0, 0, 0);
    CU_ASSERT_EQUAL(hw.llc_bytes, 512 * 1024);
    CU_ASSERT_EQUAL(hw.line_bytes, 64); /* no valid line anywhere: the default */
    drop_tree();

    /* Nothing usable: the defaults, and a note that says why. */
    new_tree();
    put_index("index0", "1\n", "Data\n", "-48K\n", "64\n", "12\n", "0\n");
    put_index("index1", "1\n", "Instruction\n", "32K\n", "64\n", "8\n", "0\n");
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(TC_MB_HW_SYSFS, root, &hw, &err), TC_OK);
    check_defaults(&hw);
    CU_ASSERT_EQUAL(err.code, TC_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "index0/size"));
    drop_tree();

    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(TC_MB_HW_SYSFS, "/nonexistent/tc", &hw, &err),
                    TC_OK);
    check_defaults(&hw);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no data or unified cache"));
}

static void test_forced_defaults(void)
{
    tc_hardware hw;
    tc_error err;
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(0, NULL, &hw, &err), TC_OK);
    check_defaults(&hw);
    CU_ASSERT_STRING_EQUAL(err.message, "");
    CU_ASSERT_EQUAL(tc_mb_hardware_detect_from(0, NULL, &hw, NULL), TC_OK);
}

static void test_timer(void)
{
    tc_timer t;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_rt_timer_init(&t, &err), TC_OK);
    CU_ASSERT_PTR_NOT_NULL(t.source);
    CU_ASSERT(t.seconds_per_tick > 0.0);
    CU_ASSERT(t.resolution_s > 0.0);
    CU_ASSERT(t.overhead_ticks >= 0.0);
    CU_ASSERT_EQUAL(tc_rt_timer_init(NULL, &err), TC_EUSAGE);

    for (int k = 0; k < 1000; k++) {
        uint64_t a = tc_rt_timer_start();
        uint64_t b = tc_rt_timer_stop();
        CU_ASSERT(tc_rt_timer_seconds(&t, a, b) >= 0.0);
    }
    CU_ASSERT_EQUAL(tc_rt_timer_seconds(&t, 100, 50), 0.0);
    CU_ASSERT_EQUAL(tc_rt_timer_seconds(&t, 100, 100), 0.0);

    /* Ten times the work takes longer, every time. */
    volatile double sink = 0.0;
    double previous = -1.0;
    for (long n = 10000; n <= 10000000; n *= 10) {
        uint64_t a = tc_rt_timer_start();
        for (long i = 0; i < n; i++)
            sink = sink + 1.0;
        uint64_t b = tc_rt_timer_stop();
        double s = tc_rt_timer_seconds(&t, a, b);
        CU_ASSERT(s > previous);
        previous = s;
    }
    CU_ASSERT(sink > 0.0);
}

static void test_xray_reduced(void)
{
    tc_xray x;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_mb_xray_measure_upto((int64_t)1 << 20, &x, &err), TC_OK);
    CU_ASSERT(x.line_bytes == 0 || x.line_bytes == 32 || x.line_bytes == 64 ||
              x.line_bytes == 128);
    CU_ASSERT(x.nlevels >= 0 && x.nlevels <= TC_MB_MAX_LEVELS);
    for (int k = 0; k < x.nlevels; k++) {
        CU_ASSERT(x.bytes[k] >= 4096 && x.bytes[k] <= (int64_t)1 << 20);
        CU_ASSERT(x.latency_ns[k] > 0.0);
        if (k > 0)
            CU_ASSERT(x.bytes[k] >= x.bytes[k - 1]);
    }
    CU_ASSERT(x.latency_ns[x.nlevels] > 0.0);
    CU_ASSERT(x.seconds > 0.0);

    CU_ASSERT_EQUAL(tc_mb_xray_measure_upto(1000, &x, &err), TC_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "64 KiB"));
    CU_ASSERT_EQUAL(tc_mb_xray_measure_upto((int64_t)1 << 20, NULL, &err), TC_EUSAGE);
}

/* A counter that advances in steps of 40 ticks (as a VM's TSC does in
 * 20 ns steps): a call of 30 ticks plus a 20-tick timer overhead reads as
 * 40 or 80 ticks depending on the phase. The median (40) less the overhead
 * (40, itself quantised) says 0; the mean of many readings, less the mean
 * overhead, finds the 30 ticks. */
static void test_timer_quantised(void)
{
    tc_timer t;
    memset(&t, 0, sizeof t);
    t.seconds_per_tick = 1e-9;
    t.quantum_ticks = 40.0;
    t.overhead_ticks = 40.0;      /* the median of quantised empty pairs */
    t.overhead_mean_ticks = 20.0; /* their mean: the true overhead */
    enum { N = 200 };
    uint64_t ticks[N];
    uint64_t seed = 12345;
    for (int k = 0; k < N; k++) { /* a random phase against the steps */
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t phase = (seed >> 33) % 40;
        uint64_t start = phase, stop = phase + 50;
        ticks[k] = stop / 40 * 40 - start / 40 * 40;
    }
    double s = tc_rt_timer_estimate(&t, ticks, N);
    CU_ASSERT(s > 25e-9 && s < 35e-9);
    /* a call long against the step: the median, less the overhead */
    for (int k = 0; k < N; k++)
        ticks[k] = 4000 + (k % 3 == 0 ? 100000 : 0); /* a third preempted */
    CU_ASSERT_DOUBLE_EQUAL(tc_rt_timer_estimate(&t, ticks, N), 3960e-9, 1e-12);
    CU_ASSERT_EQUAL(tc_rt_timer_estimate(&t, ticks, 0), 0.0);
    ticks[0] = 0; /* never negative */
    CU_ASSERT_EQUAL(tc_rt_timer_estimate(&t, ticks, 1), 0.0);
}

int tc_suite_hardware(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"detect: this machine", test_detect_this_machine},
        {"detect: cached, as a fresh detection", test_detect_cached},
        {"sysfs: fake tree, exact values", test_sysfs_fake_tree},
        {"sysfs: malformed and missing files", test_sysfs_malformed},
        {"detect: forced defaults", test_forced_defaults},
        {"timer: calibration, never negative, monotone", test_timer},
        {"timer: a quantised counter's short calls", test_timer_quantised},
        {"xray: reduced search up to 1 MiB", test_xray_reduced},
    };
    CU_pSuite s = CU_add_suite("hardware", NULL, NULL);
    if (!s)
        return 1;
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++)
        if (!CU_add_test(s, tests[k].name, tests[k].fn))
            return 1;
    return 0;
}
