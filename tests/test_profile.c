/*
 * test_profile.c - the machine profile (microbench/profile.h): its text
 * form read back exactly and under a comma-decimal locale, damaged and
 * foreign profiles refused, the choice between detected and measured
 * sizes, the LLC found on a latency curve with a slow ramp, where the file
 * lives, and tc_mb_profile_get loading a stored profile without measuring
 * and measuring anew when the stored one is damaged. XDG_CACHE_HOME points
 * at a temporary directory for the whole suite: the user's cache is never
 * read or written. No assertion on wall-clock time.
 */
#include <CUnit/CUnit.h>
#include <ftw.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "microbench/profile.h"
#include "runtime/blas.h"
#include "runtime/timer.h"

static char dir[64];
static char *saved_xdg;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int suite_init(void)
{
    const char *x = getenv("XDG_CACHE_HOME");
    saved_xdg = x ? strdup(x) : NULL;
    snprintf(dir, sizeof dir, "/tmp/tc_profile_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    return setenv("XDG_CACHE_HOME", dir, 1);
}

static int suite_clean(void)
{
    nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
    if (saved_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    free(saved_xdg);
    return 0;
}

/* A profile of a 3-level machine whose L3 one process sees as 8 MiB. */
static void sample_profile(tc_mb_profile *p)
{
    memset(p, 0, sizeof *p);
    tc_hardware *d = &p->detected;
    d->nlevels = 3;
    d->level[0] = (tc_cache_level){1, 49152, 64, 12, 1};
    d->level[1] = (tc_cache_level){2, 1048576, 64, 8, 1};
    d->level[2] = (tc_cache_level){3, 532676608, 64, 0, 1};
    d->llc_bytes = 532676608;
    d->line_bytes = 64;
    d->cpus = 2;
    snprintf(d->source, sizeof d->source, "hwloc");
    snprintf(d->cpu_model, sizeof d->cpu_model, "Test CPU 1.5 GHz");
    tc_mb_hardware_signature(d, p->machine, sizeof p->machine);
    snprintf(p->blas, sizeof p->blas, "openblas");
    snprintf(p->blas_version, sizeof p->blas_version, "OpenBLAS 0.3.21 Haswell");
    p->xray.line_bytes = 64;
    p->xray.nlevels = 3;
    p->xray.bytes[0] = 49152;
    p->xray.bytes[1] = 655360;
    p->xray.bytes[2] = 14680064;
    p->xray.latency_ns[0] = 1.0835944096013828;
    p->xray.latency_ns[1] = 3.75;
    p->xray.latency_ns[2] = 14.7;
    p->xray.latency_ns[3] = 48.9;
    p->xray.seconds = 2.5;
    p->llc_measured = 8388608;
    p->stream_lines = 8;
    p->tlb_pages = 2560;
    p->timer_resolution_s = 2.0037890184733375e-08;
    p->timer_overhead_s = 1.9e-08;
    p->peak_flops = 52593318436.703011;
    p->memory_bandwidth = 32050999715.007725;
    p->update_bandwidth = 61234567890.123456;
    p->cpu_peak_flops = 58765432109.87654;
    snprintf(p->cpu_peak_width, sizeof p->cpu_peak_width, "avx512");
    snprintf(p->blas_kernels, sizeof p->blas_kernels, "Prescott");
    p->nkernel = 2;
    snprintf(p->kernel_name[0], sizeof p->kernel_name[0], "Haswell");
    p->kernel_flops[0] = 53123456789.5;
    snprintf(p->kernel_name[1], sizeof p->kernel_name[1], "SkylakeX");
    p->kernel_flops[1] = 53234567890.25;
    static const double edge[TC_EDGE_POINTS] = {1, 1, 0.9, 0.7, 0.5, 0.3, 0.2, 0.1, 0, 0, 0};
    memcpy(p->llc_edge, edge, sizeof edge);
    p->measured_at = 1795374456;
    p->measure_seconds = 4.25;
    tc_mb_profile_choose(p);
}

static char *format(const tc_mb_profile *p)
{
    size_t n = tc_mb_profile_format(p, NULL, 0);
    char *text = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_EQUAL(tc_mb_profile_format(p, text, n + 1), n);
    return text;
}

static void check_same(const tc_mb_profile *a, const tc_mb_profile *b)
{
    CU_ASSERT_STRING_EQUAL(a->machine, b->machine);
    CU_ASSERT_STRING_EQUAL(a->blas_version, b->blas_version);
    CU_ASSERT_STRING_EQUAL(a->detected.cpu_model, b->detected.cpu_model);
    CU_ASSERT_EQUAL(a->detected.nlevels, b->detected.nlevels);
    for (int k = 0; k < a->detected.nlevels; k++)
        CU_ASSERT_EQUAL(a->detected.level[k].bytes, b->detected.level[k].bytes);
    CU_ASSERT_EQUAL(a->xray.nlevels, b->xray.nlevels);
    for (int k = 0; k <= a->xray.nlevels; k++)
        CU_ASSERT_EQUAL(a->xray.latency_ns[k], b->xray.latency_ns[k]); /* exact */
    CU_ASSERT_EQUAL(a->llc_measured, b->llc_measured);
    CU_ASSERT_EQUAL(a->peak_flops, b->peak_flops);
    CU_ASSERT_EQUAL(a->memory_bandwidth, b->memory_bandwidth);
    CU_ASSERT_EQUAL(a->update_bandwidth, b->update_bandwidth);
    CU_ASSERT_EQUAL(a->timer_resolution_s, b->timer_resolution_s);
    CU_ASSERT_EQUAL(a->stream_lines, b->stream_lines);
    CU_ASSERT_EQUAL(a->tlb_pages, b->tlb_pages);
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        CU_ASSERT_EQUAL(a->llc_edge[k], b->llc_edge[k]);
    CU_ASSERT_EQUAL(a->cpu_peak_flops, b->cpu_peak_flops);
    CU_ASSERT_STRING_EQUAL(a->cpu_peak_width, b->cpu_peak_width);
    CU_ASSERT_STRING_EQUAL(a->blas_kernels, b->blas_kernels);
    CU_ASSERT_EQUAL_FATAL(a->nkernel, b->nkernel);
    for (int k = 0; k < a->nkernel; k++) {
        CU_ASSERT_STRING_EQUAL(a->kernel_name[k], b->kernel_name[k]);
        CU_ASSERT_EQUAL(a->kernel_flops[k], b->kernel_flops[k]);
    }
    CU_ASSERT_EQUAL(a->used.llc_bytes, b->used.llc_bytes);
    CU_ASSERT_EQUAL(a->used.nlevels, b->used.nlevels);
}

/* ---- tests ---------------------------------------------------------------- */

/* Another kernel set is named only where it is TC_MB_KERNELS_BETTER times
 * as fast as the one OpenBLAS runs: near-equal sets are noise apart. */
static void test_better_kernels(void)
{
    tc_mb_profile p;
    char note[TC_ERROR_MESSAGE_MAX];
    sample_profile(&p); /* Prescott at 52.6 GFLOP/s, Haswell 53.1, SkylakeX 53.2 */
    CU_ASSERT_EQUAL(tc_mb_profile_better_kernels(&p), -1);
    CU_ASSERT_EQUAL(tc_mb_profile_kernels_note(&p, note, sizeof note), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "OpenBLAS runs its Prescott kernels: dgemm 52.6 GFLOP/s"));
    CU_ASSERT_PTR_NULL(strstr(note, "OPENBLAS_CORETYPE"));
    p.peak_flops = 21e9;
    CU_ASSERT_EQUAL(tc_mb_profile_better_kernels(&p), 1);
    CU_ASSERT_EQUAL(tc_mb_profile_kernels_note(&p, note, sizeof note), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "0.36 of the CPU's avx512 FMA peak (58.8)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(note, "its SkylakeX kernels measured 53.2 (2.53x): set "
                                        "OPENBLAS_CORETYPE=SkylakeX, or --blas auto"));
    p.nkernel = 0; /* not OpenBLAS, or nothing else measured */
    CU_ASSERT_EQUAL(tc_mb_profile_better_kernels(&p), -1);
}

static void test_round_trip(void)
{
    tc_mb_profile p, q;
    tc_error err;
    sample_profile(&p);
    char *text = format(&p);
    CU_ASSERT_EQUAL(tc_mb_profile_parse(text, &q, &err), TC_OK);
    check_same(&p, &q);
    free(text);
}

/* Numbers in the C locale whatever the caller's: written with '.', read back
 * under de_DE (where strtod would stop at the '.'). */
static void test_locale(void)
{
    char *old = setlocale(LC_ALL, NULL);
    char *saved = old ? strdup(old) : NULL;
    if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8")) {
        free(saved);
        return; /* no comma-decimal locale installed: nothing to show */
    }
    tc_mb_profile p, q;
    tc_error err;
    sample_profile(&p);
    char *text = format(&p);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "peak_flops 52593318436.703011"));
    CU_ASSERT_PTR_NULL(strstr(text, "52593318436,7"));
    CU_ASSERT_EQUAL(tc_mb_profile_parse(text, &q, &err), TC_OK);
    check_same(&p, &q);
    free(text);
    setlocale(LC_ALL, saved ? saved : "C");
    free(saved);
}

/* Replaces the first occurrence of `from` by `to` and fixes the checksum:
 * damage the checksum alone does not catch. */
static void edit_resealed(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    CU_ASSERT_EQUAL_FATAL(strlen(from), strlen(to));
    memcpy(at, to, strlen(to));
    char *check = strstr(text, "check ");
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char *c = text; c < check; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ULL;
    }
    snprintf(check, 24, "check %016llx\n", (unsigned long long)h);
}

/* A copy of text with the first line of `key` holding `value` instead,
 * resealed (malloc'd). */
static char *with_line(const char *text, const char *key, const char *value)
{
    char head[64];
    snprintf(head, sizeof head, "\n%s ", key);
    const char *at = strstr(text, head);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    at++;
    const char *end = strchr(at, '\n');
    size_t n = strlen(text) + strlen(value) + 64;
    char *out = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    snprintf(out, n, "%.*s%s %s%s", (int)(at - text), text, key, value, end);
    char *check = strstr(out, "check ");
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char *c = out; c < check; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ULL;
    }
    snprintf(check, 24, "check %016llx\n", (unsigned long long)h);
    return out;
}

/* Values the model cannot use, each refused at load with a message naming
 * it (the line, or the model's own words), not accepted to fail every
 * run later. */
static const struct {
    const char *key, *value, *named;
} unusable[] = {
    {"measured_line", "12", "measured_line"},     /* not a whole number of doubles */
    {"measured_line", "4", "measured_line"},      /* below one double */
    {"detected_line", "12", "detected_line"},
    {"detected_line", "8192", "detected_line"},   /* beyond any line */
    {"measured_llc", "1125899906842624", "measured_llc"}, /* 1 PiB: beyond the scan */
    {"measured", "1125899906842624 1.5", "measured"},
    {"detected", "1 1125899906842624 64 12 1", "machine line"}, /* not this machine's */
    {"stream_lines", "5000", "stream_lines"},
    {"tlb_pages", "99999", "tlb_pages"},
    {"peak_flops", "0", "peak_flops"},
    {"peak_flops", "inf", "peak_flops"},
    {"memory_bandwidth", "nan", "memory_bandwidth"},
    {"update_bandwidth", "-1", "update_bandwidth"},
    {"llc_edge", "1 1 0.9 0.7 0.5 0.3 0.2 0.1 0 0 2", "edge"}, /* a share above 1 */
    {"llc_edge", "1 1 0.9 0.7 0.5 0.3 0.2 0.1 0 0 -0.5", "edge"},
};

static void test_unusable_refused(void)
{
    tc_mb_profile p, q;
    tc_error err;
    sample_profile(&p);
    char *text = format(&p);
    for (size_t k = 0; k < sizeof unusable / sizeof unusable[0]; k++) {
        char *bad = with_line(text, unusable[k].key, unusable[k].value);
        CU_ASSERT_EQUAL(tc_mb_profile_parse(bad, &q, &err), TC_EINPUT);
        if (!strstr(err.message, unusable[k].named))
            fprintf(stderr, "\n  %s %s: '%s'\n", unusable[k].key, unusable[k].value,
                    err.message);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, unusable[k].named));
        CU_ASSERT_EQUAL(q.used.nlevels, 0); /* nothing of it used */
        free(bad);
    }
    /* the model's check is the sampler's: what it refuses, the profile does */
    CU_ASSERT_EQUAL(tc_mb_profile_usable(&p, &err), TC_OK);
    p.used.line_bytes = 12;
    CU_ASSERT_EQUAL(tc_mb_profile_usable(&p, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cache line"));
    sample_profile(&p);
    p.used.level[1].bytes = p.used.level[0].bytes; /* levels that do not grow */
    CU_ASSERT_EQUAL(tc_mb_profile_usable(&p, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "grow"));
    free(text);
}

static void test_damaged_refused(void)
{
    tc_mb_profile p, q;
    tc_error err;
    sample_profile(&p);
    char *text = format(&p);
    size_t len = strlen(text);

    char *copy = strdup(text); /* one changed digit */
    copy[strstr(copy, "peak_flops") - copy + 12] ^= 1;
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "checksum"));
    CU_ASSERT_EQUAL(q.peak_flops, 0.0); /* nothing of it used */
    free(copy);

    copy = strdup(text); /* a truncated write */
    copy[len / 2] = '\0';
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    free(copy);

    CU_ASSERT_EQUAL(tc_mb_profile_parse("", &q, &err), TC_EINPUT);

    copy = strdup(text); /* a well-sealed but malformed number */
    edit_resealed(copy, "stream_lines 8", "stream_lines x");
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "stream_lines"));
    free(copy);
    copy = strdup(text); /* a negative TLB reach */
    edit_resealed(copy, "tlb_pages 2560", "tlb_pages -256");
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "tlb_pages"));
    free(copy);

    copy = strdup(text); /* an edge that rises again */
    edit_resealed(copy, "llc_edge 1 1 0.9 0.7", "llc_edge 1 1 0.7 0.9");
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "edge"));
    free(copy);
    copy = strdup(text); /* an edge point malformed */
    edit_resealed(copy, " 0 0 0\n", " 0 0 -\n");
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    free(copy);

    copy = malloc(len + 32); /* a stray line after the checksum */
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    snprintf(copy, len + 32, "%speak_flops 1\n", text);
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    free(copy);

    copy = strdup(text); /* a required line renamed away */
    edit_resealed(copy, "peak_flops", "peak_flopz");
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    free(copy);

    copy = strdup(text); /* another format version */
    char ours[32], other[32];
    snprintf(ours, sizeof ours, "tcgen-profile %d", TC_MB_PROFILE_VERSION);
    snprintf(other, sizeof other, "tcgen-profile %d", (TC_MB_PROFILE_VERSION + 1) % 10);
    edit_resealed(copy, ours, other);
    CU_ASSERT_EQUAL(tc_mb_profile_parse(copy, &q, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "version"));
    free(copy);
    free(text);
}

static void test_foreign_refused(void)
{
    tc_mb_profile p;
    tc_error err;
    sample_profile(&p);
    tc_blas blas;
    memset(&blas, 0, sizeof blas);
    snprintf(blas.name, sizeof blas.name, "openblas");
    snprintf(blas.version, sizeof blas.version, "OpenBLAS 0.3.21 Haswell");
    CU_ASSERT_EQUAL(tc_mb_profile_check(&p, &p.detected, &blas, &err), TC_OK);
    tc_hardware other = p.detected;
    other.level[2].bytes = 33554432;
    CU_ASSERT_EQUAL(tc_mb_profile_check(&p, &other, &blas, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "another machine"));
    snprintf(blas.version, sizeof blas.version, "OpenBLAS 0.3.26 Zen");
    CU_ASSERT_EQUAL(tc_mb_profile_check(&p, &p.detected, &blas, &err), TC_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "another BLAS"));
}

/* More than 2x apart: the measurement; within 2x: the detected size, but
 * for the LLC's cliff, always the measurement. */
static void test_choose(void)
{
    tc_mb_profile p;
    sample_profile(&p);
    CU_ASSERT_EQUAL(p.used.nlevels, 3);
    CU_ASSERT_EQUAL(p.used.level[0].bytes, 49152);
    CU_ASSERT_EQUAL(p.source[0], TC_LEVEL_DETECTED);
    CU_ASSERT_EQUAL(p.used.level[1].bytes, 1048576); /* 640 KiB measured: within 2x */
    CU_ASSERT_EQUAL(p.source[1], TC_LEVEL_DETECTED);
    CU_ASSERT_EQUAL(p.used.level[2].bytes, 8388608); /* 508 MiB detected, 8 MiB seen */
    CU_ASSERT_EQUAL(p.source[2], TC_LEVEL_MEASURED);
    CU_ASSERT_EQUAL(p.used.llc_bytes, 8388608);

    p.llc_measured = 400 << 20; /* 400 of 508 MiB: the LLC's cliff is used all the same */
    tc_mb_profile_choose(&p);
    CU_ASSERT_EQUAL(p.used.llc_bytes, 400 << 20);
    CU_ASSERT_EQUAL(p.source[2], TC_LEVEL_MEASURED);

    p.llc_measured = 0; /* no plateau to memory: the scan's last level, 14 MiB */
    tc_mb_profile_choose(&p);
    CU_ASSERT_EQUAL(p.used.llc_bytes, 14680064);
    CU_ASSERT_EQUAL(p.source[2], TC_LEVEL_MEASURED);

    p.xray.nlevels = 2; /* nor a third level in the scan: the detected size */
    tc_mb_profile_choose(&p);
    CU_ASSERT_EQUAL(p.used.llc_bytes, 532676608);
    p.xray.nlevels = 3;

    p.llc_measured = 512 << 10; /* measured below the L2: the level is dropped */
    tc_mb_profile_choose(&p);
    CU_ASSERT_EQUAL(p.used.nlevels, 2);
    CU_ASSERT_EQUAL(p.used.llc_bytes, 1048576);
}

/* A curve with an L3 plateau to 10 MiB, then a ramp (sharing, TLB misses)
 * to memory: the level ends just past its plateau, not on the ramp. */
static void test_llc_from_curve(void)
{
    static const struct {
        int kib;
        double ns;
    } pts[] = {{256, 3.8},   {384, 3.8},   {512, 4.3},    {768, 5.8},    {1024, 8.4},
               {1536, 11.9}, {2048, 15.8}, {3072, 16.6},  {4096, 17.0},  {6144, 17.3},
               {8192, 17.7}, {10240, 17.7}, {12288, 29.1}, {16384, 29.1}, {24576, 39.7},
               {32768, 52.0}, {49152, 58.2}, {65536, 96.2}};
    tc_xray x;
    memset(&x, 0, sizeof x);
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        x.point_bytes[x.npoints] = (int64_t)pts[i].kib << 10;
        x.point_ns[x.npoints++] = pts[i].ns;
    }
    /* the crossing of the midpoint between the plateau's last point and
     * the next one */
    int64_t llc = tc_mb_profile_llc_from_curve(&x, 655360);
    CU_ASSERT(llc > (int64_t)10240 << 10 && llc < (int64_t)12288 << 10);
    /* no step to memory after the plateau: cannot tell */
    x.npoints = 12;
    CU_ASSERT_EQUAL(tc_mb_profile_llc_from_curve(&x, 655360), 0);

    /* a VM's scan: a ramp from the L2 through the LLC, the cliff after 5
     * MiB, then memory with a bump (6-12 MiB) and its own ramp, each long
     * enough to pass for a level; the LLC ends at the cliff */
    static const int vm_ns[] = {5,  6,  8,  10, 12, 12, 13,  14,  14,  15,  16,  18,  79, 87,
                                87, 78, 78, 124, 128, 150, 159, 161, 171, 178, 191, 191, 199};
    static const int vm_kib[] = {768,   896,   1024,  1280,  1536,  1792,  2048,
                                 2560,  3072,  3584,  4096,  5120,  6144,  7168,
                                 8192,  10240, 12288, 14336, 16384, 20480, 24576,
                                 28672, 32768, 40960, 49152, 57344, 65536};
    memset(&x, 0, sizeof x);
    for (size_t i = 0; i < sizeof vm_ns / sizeof vm_ns[0]; i++) {
        x.point_bytes[x.npoints] = (int64_t)vm_kib[i] << 10;
        x.point_ns[x.npoints++] = vm_ns[i];
    }
    llc = tc_mb_profile_llc_from_curve(&x, 655360);
    CU_ASSERT(llc > (int64_t)5120 << 10 && llc < (int64_t)6144 << 10);
}

static void test_path(void)
{
    char buf[4096], *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    tc_error err;
    tc_hardware hw, other;
    memset(&hw, 0, sizeof hw);
    hw.nlevels = 1;
    hw.level[0] = (tc_cache_level){1, 32768, 64, 8, 1};
    hw.line_bytes = 64;
    hw.cpus = 4;
    snprintf(hw.cpu_model, sizeof hw.cpu_model, "Intel(R) Xeon(R)  Gold 6130 @ 2.10GHz ");
    CU_ASSERT_EQUAL(tc_mb_profile_path("openblas", &hw, buf, sizeof buf, &err), TC_OK);
    char want[256];
    snprintf(want, sizeof want, "%s/tcgen/profile-openblas-intel-r-xeon-r-gold-6130-2-10ghz-", dir);
    CU_ASSERT_EQUAL(strncmp(buf, want, strlen(want)), 0);
    CU_ASSERT_EQUAL(strlen(buf), strlen(want) + 12); /* 8 hex digits, ".txt" */
    CU_ASSERT_STRING_EQUAL(buf + strlen(buf) - 4, ".txt");
    /* another node type (another cache, CPU count or model): another file */
    char first[4096];
    snprintf(first, sizeof first, "%s", buf);
    other = hw;
    other.level[0].bytes = 49152;
    CU_ASSERT_EQUAL(tc_mb_profile_path("openblas", &other, buf, sizeof buf, &err), TC_OK);
    CU_ASSERT_STRING_NOT_EQUAL(buf, first);
    other = hw;
    other.cpu_model[0] = '\0';
    CU_ASSERT_EQUAL(tc_mb_profile_path("openblas", &other, buf, sizeof buf, &err), TC_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "/tcgen/profile-openblas-cpu-"));
    CU_ASSERT_EQUAL(tc_mb_profile_path("../lib/x y.so", &hw, buf, sizeof buf, &err), TC_OK);
    CU_ASSERT_PTR_NULL(strstr(buf, "/tcgen/profile-../")); /* stays in the directory */
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "/tcgen/profile-_._lib_x_y.so-intel"));
    setenv("XDG_CACHE_HOME", "relative/dir", 1); /* invalid per XDG: HOME/.cache */
    setenv("HOME", "/home/someone", 1);
    CU_ASSERT_EQUAL(tc_mb_profile_path("blis", &hw, buf, sizeof buf, &err), TC_OK);
    CU_ASSERT_EQUAL(strncmp(buf, "/home/someone/.cache/tcgen/profile-blis-intel", 45), 0);
    unsetenv("HOME");
    CU_ASSERT_EQUAL(tc_mb_profile_path("blis", &hw, buf, sizeof buf, NULL), TC_ERESOURCE);
    CU_ASSERT_EQUAL(tc_mb_profile_path("blis", &hw, buf, sizeof buf, &err), TC_ERESOURCE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "XDG_CACHE_HOME"));
    CU_ASSERT_EQUAL(tc_mb_profile_path("blis", &hw, buf, 8, &err), TC_ERESOURCE);
    if (home)
        setenv("HOME", home, 1);
    free(home);
    setenv("XDG_CACHE_HOME", dir, 1);
}

/* A stored profile of this machine is used as it is (its made-up figures
 * come back: nothing was measured); a damaged one is measured anew and
 * replaced by a valid file. */
static void test_get_load_and_remeasure(void)
{
    tc_blas *blas = NULL;
    tc_timer timer;
    tc_error err;
    if (tc_rt_blas_load(NULL, 1, &blas, &err) != TC_OK) {
        fprintf(stderr, "\n  profile: no BLAS: %s\n", err.message);
        CU_FAIL_FATAL("no BLAS library");
    }
    CU_ASSERT_EQUAL_FATAL(tc_rt_timer_init(&timer, &err), TC_OK);
    tc_mb_profile p, q;
    sample_profile(&p);
    tc_mb_hardware_detect(&p.detected, NULL);
    tc_mb_hardware_signature(&p.detected, p.machine, sizeof p.machine);
    snprintf(p.blas, sizeof p.blas, "%s", blas->name);
    snprintf(p.blas_version, sizeof p.blas_version, "%s", blas->version);
    p.peak_flops = 1234567890.0; /* no measurement gives exactly this */
    tc_mb_profile_choose(&p);
    char path[4096];
    CU_ASSERT_EQUAL_FATAL(tc_mb_profile_path(blas->name, &p.detected, path, sizeof path, &err),
                          TC_OK);
    char tdir[4200];
    snprintf(tdir, sizeof tdir, "%s/tcgen", dir);
    mkdir(tdir, 0700);
    char *text = format(&p);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);

    tc_mb_profile_origin o;
    CU_ASSERT_EQUAL(tc_mb_profile_get(blas, &timer, 0, NULL, NULL, &q, &o, &err), TC_OK);
    CU_ASSERT_EQUAL(o.loaded, 1);
    CU_ASSERT_STRING_EQUAL(o.path, path);
    CU_ASSERT_EQUAL(q.peak_flops, 1234567890.0);
    CU_ASSERT_EQUAL(q.used.llc_bytes, p.used.llc_bytes);

    /* a line the model cannot use: refused at load, naming the file and
     * the line, and measured anew */
    char *bad = with_line(text, "measured_line", "12");
    f = fopen(path, "w");
    fputs(bad, f);
    fclose(f);
    free(bad);
    CU_ASSERT_EQUAL(tc_mb_profile_get(blas, &timer, 0, NULL, NULL, &q, &o, &err), TC_OK);
    CU_ASSERT_EQUAL(o.loaded, 0);
    CU_ASSERT_EQUAL(o.saved, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "refused"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "measured_line"));
    CU_ASSERT(q.peak_flops != 1234567890.0 && q.peak_flops > 0.0);
    CU_ASSERT(q.memory_bandwidth > 0.0);
    CU_ASSERT(q.update_bandwidth > 0.0);
    CU_ASSERT(q.used.nlevels >= 1 && q.used.llc_bytes > 0);

    tc_mb_profile r; /* the file now holds exactly what was measured */
    CU_ASSERT_EQUAL(tc_mb_profile_get(blas, &timer, 0, NULL, NULL, &r, &o, &err), TC_OK);
    CU_ASSERT_EQUAL(o.loaded, 1);
    check_same(&q, &r);
    free(text);
    tc_rt_blas_unload(blas);
}

/* A profile that cannot be written (its directory's parent is a regular
 * file: refused to root too) is measured, used, and the note says which
 * file, why, and that the measurement serves this run only. */
static void test_get_unsaved(void)
{
    tc_blas *blas = NULL;
    tc_timer timer;
    tc_error err;
    CU_ASSERT_EQUAL_FATAL(tc_rt_blas_load(NULL, 1, &blas, &err), TC_OK);
    CU_ASSERT_EQUAL_FATAL(tc_rt_timer_init(&timer, &err), TC_OK);
    char file[128], xdg[160];
    snprintf(file, sizeof file, "%s/a-file", dir);
    FILE *f = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    snprintf(xdg, sizeof xdg, "%s/cache", file);
    setenv("XDG_CACHE_HOME", xdg, 1);
    tc_mb_profile p;
    tc_mb_profile_origin o;
    CU_ASSERT_EQUAL(tc_mb_profile_get(blas, &timer, 0, NULL, NULL, &p, &o, &err), TC_OK);
    setenv("XDG_CACHE_HOME", dir, 1);
    CU_ASSERT_EQUAL(o.loaded, 0);
    CU_ASSERT_EQUAL(o.saved, 0);
    CU_ASSERT(p.used.nlevels >= 1 && p.peak_flops > 0.0);
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, o.path));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "Not a directory"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o.note, "this machine was measured for this run only"));
    tc_rt_blas_unload(blas);
}

/* The LLC's edge: the share interpolated between the curve's points, 1
 * before them and 0 after; an unknown curve a step at the LLC; the
 * chase's share from an X-Ray curve. */
static void test_llc_edge(void)
{
    const int64_t llc = 8 << 20;
    double edge[TC_EDGE_POINTS] = {1, 1, 0.9, 0.7, 0.5, 0.3, 0.2, 0.1, 0, 0, 0};
    CU_ASSERT(tc_mb_edge_known(edge));
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_edge_share(edge, llc, 0.1 * llc), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_edge_share(edge, llc, 1.0 * llc), 0.9, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_edge_share(edge, llc, 1.125 * llc), 0.8, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(tc_mb_edge_share(edge, llc, 10.0 * llc), 0.0, 1e-12);
    double none[TC_EDGE_POINTS] = {0};
    CU_ASSERT(!tc_mb_edge_known(none));
    CU_ASSERT_EQUAL(tc_mb_edge_share(none, llc, 0.99 * llc), 1.0);
    CU_ASSERT_EQUAL(tc_mb_edge_share(none, llc, 1.0 * llc), 0.0);

    /* latency 10 ns to the LLC, 55 at 1.5x, 100 from 2x */
    tc_xray x;
    memset(&x, 0, sizeof x);
    const double r[] = {0.25, 0.5, 1.0, 1.5, 2.0, 4.0}, ns[] = {10, 10, 10, 55, 100, 100};
    x.npoints = 6;
    for (int k = 0; k < x.npoints; k++) {
        x.point_bytes[k] = (int64_t)(r[k] * llc);
        x.point_ns[k] = ns[k];
    }
    double chase[TC_EDGE_POINTS];
    CU_ASSERT_FATAL(tc_mb_edge_from_chase(&x, llc, chase));
    CU_ASSERT_DOUBLE_EQUAL(chase[0], 1.0, 1e-12);                 /* 0.5x */
    CU_ASSERT_DOUBLE_EQUAL(chase[2], 1.0, 1e-12);                 /* 1x */
    CU_ASSERT_DOUBLE_EQUAL(chase[4], 0.5, 1e-12);                 /* 1.5x */
    CU_ASSERT(chase[3] < 1.0 && chase[3] > 0.5);                  /* 1.25x: between */
    CU_ASSERT_DOUBLE_EQUAL(chase[TC_EDGE_POINTS - 1], 0.0, 1e-12); /* 3x */
    for (int k = 0; k < x.npoints; k++) /* no step to memory: no curve */
        x.point_ns[k] = 10;
    CU_ASSERT(!tc_mb_edge_from_chase(&x, llc, chase));
}

/* The edge curve from sweeps: sweeps that step to memory give their
 * normalised share, half the curve beside the chase's; sweeps that stay
 * at the LLC's speed over the whole range (in two passes of three) keep
 * share 1, not an unknown curve (which would put everything past the
 * LLC in memory); one flat pass of three does not decide. */
static void test_llc_edge_curve(void)
{
    double chase[TC_EDGE_POINTS], sweeps[2][TC_EDGE_PASSES][TC_EDGE_POINTS], share[TC_EDGE_POINTS];
    for (int k = 0; k < TC_EDGE_POINTS; k++) /* the chase: 1 to 1x, then 0.4 to 2.5x, then 0 */
        chase[k] = k <= 2 ? 1.0 : k < TC_EDGE_POINTS - 1 ? 0.4 : 0.0;
    for (int u = 0; u < 2; u++) /* sweeps: 1 ns per line to 2x, then 5 ns (memory) */
        for (int pass = 0; pass < TC_EDGE_PASSES; pass++)
            for (int k = 0; k < TC_EDGE_POINTS; k++)
                sweeps[u][pass][k] = k <= 6 ? 1e-9 : 5e-9;
    tc_mb_edge_curve(sweeps, chase, share);
    CU_ASSERT(tc_mb_edge_known(share));
    CU_ASSERT_DOUBLE_EQUAL(share[0], 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(share[4], 0.7, 1e-12); /* 1.5x: the sweeps' 1, the chase's 0.4 */
    CU_ASSERT_DOUBLE_EQUAL(share[8], 0.2, 1e-12); /* 2.5x: the sweeps' 0, the chase's 0.4 */
    CU_ASSERT_DOUBLE_EQUAL(share[TC_EDGE_POINTS - 1], 0.0, 1e-12);

    for (int u = 0; u < 2; u++) /* flat in two passes of three: the LLC keeps the sweeps */
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < TC_EDGE_POINTS; k++)
                sweeps[u][pass][k] = 1e-9;
    tc_mb_edge_curve(sweeps, chase, share);
    CU_ASSERT(tc_mb_edge_known(share));
    CU_ASSERT_DOUBLE_EQUAL(share[4], 0.7, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(share[8], 0.7, 1e-12); /* 2.5x: the sweeps' 1 */
    CU_ASSERT_DOUBLE_EQUAL(share[TC_EDGE_POINTS - 1], 0.0, 1e-12);

    for (int k = 0; k < TC_EDGE_POINTS; k++) /* one flat pass only: the steps decide */
        sweeps[0][1][k] = sweeps[1][1][k] = k <= 6 ? 1e-9 : 5e-9;
    tc_mb_edge_curve(sweeps, chase, share);
    CU_ASSERT_DOUBLE_EQUAL(share[8], 0.2, 1e-12);
}

int tc_suite_profile(void)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"text: read back exactly", test_round_trip},
        {"text: C locale under de_DE", test_locale},
        {"damaged: refused whole", test_damaged_refused},
        {"foreign: machine or BLAS", test_foreign_refused},
        {"unusable: refused at load", test_unusable_refused},
        {"choose: measured beyond 2x", test_choose},
        {"llc: at the cliff to memory", test_llc_from_curve},
        {"llc: its edge", test_llc_edge},
        {"llc: the edge from sweeps, flat ones kept", test_llc_edge_curve},
        {"kernels: a better set named, near-equal not", test_better_kernels},
        {"path: XDG, HOME, names", test_path},
        {"get: load, refuse, measure", test_get_load_and_remeasure},
        {"get: unsaved says so", test_get_unsaved},
    };
    CU_pSuite s = CU_add_suite("profile", suite_init, suite_clean);
    if (!s)
        return 1;
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++)
        if (!CU_add_test(s, tests[k].name, tests[k].fn))
            return 1;
    return 0;
}
