/*
 * profile.c - the machine profile's file: where it lives, its text form,
 * the checks that refuse a damaged or foreign one, and load-or-measure
 * under a lock (profile.h). The measurements are in profile_measure.c.
 *
 * The text is one "key value" line per fact, written and read in the C
 * locale (ast/c_locale.h), with doubles printed with 17 significant digits
 * so that a profile read back is the profile written. The last line is
 * "check HEX", the FNV-1a hash of everything before it: any damage (a
 * truncated write, an edit, a stray byte) fails the check and the whole
 * file is refused.
 */
#include "microbench/profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "ast/c_locale.h"
#include "ast/error.h"
#include "microbench/model_input.h"
#include "microbench/tlb.h"
#include "runtime/file.h"

#define PROFILE_MAGIC "tcgen-profile"
#define PROFILE_TEXT_MAX 8192
#define LLC_GRAIN ((int64_t)64 << 10) /* the LLC's measured size is a multiple of this */
#define DISAGREE 2.0 /* measured / detected beyond this factor: the measurement wins */
#define MEMORY_STEP 4.0 /* memory is at least this much slower than the last level */

/* ---- the path ---------------------------------------------------------- */

static uint64_t fnv1a(const char *s, size_t n);

/* The CPU model in lower case, other characters runs of one dash:
 * "AMD EPYC 9R14 96-Core" -> "amd-epyc-9r14-96-core"; "cpu" when empty. */
static void model_slug(const char *model, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = model; *p && k + 1 < n; p++) {
        char ch = *p;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            out[k++] = ch;
        else if (k > 0 && out[k - 1] != '-')
            out[k++] = '-';
    }
    while (k > 0 && out[k - 1] == '-')
        k--;
    out[k] = '\0';
    if (k == 0)
        snprintf(out, n, "cpu");
}

tc_status tc_mb_profile_path(const char *blas_name, const tc_hardware *hw, char *buf, size_t n,
                             tc_error *err)
{
    char name[64];
    size_t k = 0;
    for (const char *p = blas_name && *blas_name ? blas_name : "blas"; *p && k + 1 < sizeof name;
         p++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        name[k] = ok && !(k == 0 && ch == '.') ? ch : '_';
        k++;
    }
    name[k] = '\0';
    char sig[TC_MB_SIGNATURE_MAX], model[40];
    tc_mb_hardware_signature(hw, sig, sizeof sig);
    model_slug(hw->cpu_model, model, sizeof model);
    char file[160];
    snprintf(file, sizeof file, "profile-%s-%s-%08x.txt", name, model,
             (unsigned)(fnv1a(sig, strlen(sig)) & 0xffffffffu));
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int w;
    /* the XDG rule: a relative XDG_CACHE_HOME is invalid and ignored */
    if (xdg && xdg[0] == '/')
        w = snprintf(buf, n, "%s/tcgen/%s", xdg, file);
    else if (home && home[0] == '/')
        w = snprintf(buf, n, "%s/.cache/tcgen/%s", home, file);
    else
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "no place for the machine profile: neither XDG_CACHE_HOME nor "
                            "HOME is an absolute directory");
    if (w < 0 || (size_t)w >= n)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "the machine profile's path is too long (XDG_CACHE_HOME or HOME)");
    return TC_OK;
}

/* mkdir -p of the directory holding path. */
static tc_status make_parent(const char *path, tc_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return TC_OK;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot create the directory '%s': %s",
                                dir, strerror(errno));
        *p = saved;
        if (saved == '\0')
            return TC_OK;
    }
}

/* ---- the hierarchy in use ------------------------------------------------ */

int64_t tc_mb_profile_llc_from_curve(const tc_xray *x, int64_t upper_bytes)
{
    int n = x->npoints, start = 0;
    while (start < n && x->point_bytes[start] <= upper_bytes)
        start++;
    if (start >= n)
        return 0;
    /* the level's fastest point and memory (the largest working set), and
     * the level ends where the curve comes nearer memory than the level
     * on a log scale: between the last point below that midpoint and the
     * next, at the crossing (log-linear). The last point alone said 16 MiB
     * of a Zen 5 VM's L3 where the crossing lies at 18 MiB and a sweep
     * read and written in place keeps half its L3 speed up to 20 MiB. */
    double fast = x->point_ns[start], memory = x->point_ns[n - 1];
    if (!(fast > 0.0) || !(memory > MEMORY_STEP * fast))
        return 0; /* no step to memory seen */
    double half = sqrt(fast * memory);
    int last = start;
    while (last + 1 < n && x->point_ns[last + 1] <= half)
        last++;
    if (last + 1 >= n)
        return 0;
    double lo = x->point_ns[last], hi = x->point_ns[last + 1];
    double f = lo > 0.0 && hi > lo ? log(half / lo) / log(hi / lo) : 0.0;
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    double b0 = (double)x->point_bytes[last], b1 = (double)x->point_bytes[last + 1];
    int64_t bytes = (int64_t)(b0 * pow(b1 / b0, f)) / LLC_GRAIN * LLC_GRAIN;
    return bytes > x->point_bytes[last] ? bytes : x->point_bytes[last];
}

void tc_mb_profile_choose(tc_mb_profile *p)
{
    const tc_hardware *d = &p->detected;
    const tc_xray *x = &p->xray;
    tc_hardware u = *d;
    u.nlevels = 0;
    /* the largest working set at which the measurement still saw a cache */
    int64_t seen = p->llc_measured > 0 ? p->llc_measured
                   : x->nlevels > 0    ? x->bytes[x->nlevels - 1]
                                       : 0;
    for (int k = 0; k < d->nlevels; k++) {
        tc_cache_level l = d->level[k];
        tc_mb_level_source src = TC_LEVEL_DETECTED;
        int last = k == d->nlevels - 1;
        /* the last level: its own measurement, else the scan's level */
        int64_t m = last && p->llc_measured > 0 ? p->llc_measured
                    : k < x->nlevels             ? x->bytes[k]
                                                 : 0;
        if (m > 0) {
            double ratio = (double)m / (double)l.bytes;
            /* the LLC's cliff, when the scan found one, is the share this
             * process gets, whatever the factor: a Zen 5 VM's 32 MiB L3
             * measured 14-20 MiB, and the 2x rule flipped the size used
             * between 14 and 32 MiB from one measurement to the next */
            if (ratio > DISAGREE || ratio < 1.0 / DISAGREE || (last && p->llc_measured > 0)) {
                l.bytes = m;
                src = TC_LEVEL_MEASURED;
            }
        } else if (!last && seen > 0 && (double)l.bytes > DISAGREE * (double)seen) {
            continue; /* memory latency where it claims a cache: not there */
        }
        if (u.nlevels > 0 && l.bytes <= u.level[u.nlevels - 1].bytes)
            continue; /* a level must hold more than the one above */
        p->source[u.nlevels] = src;
        u.level[u.nlevels++] = l;
    }
    if (u.nlevels == 0) { /* cannot happen with a detected hierarchy; stay usable */
        u = *d;
        for (int k = 0; k < u.nlevels; k++)
            p->source[k] = TC_LEVEL_DETECTED;
    }
    u.llc_bytes = u.level[u.nlevels - 1].bytes;
    if (x->line_bytes > 0 && ((double)x->line_bytes > DISAGREE * d->line_bytes ||
                              (double)x->line_bytes * DISAGREE < d->line_bytes))
        u.line_bytes = x->line_bytes;
    p->used = u;
}

/* ---- text ------------------------------------------------------------------ */

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

typedef struct out {
    char *buf;
    size_t n, len;
} out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->len < o->n ? o->buf + o->len : NULL, o->len < o->n ? o->n - o->len : 0,
                      fmt, ap);
    va_end(ap);
    if (w > 0)
        o->len += (size_t)w;
}

/* Free text on one line: tabs and line ends would break the format. */
static void clean(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
}

int tc_mb_profile_better_kernels(const tc_mb_profile *p)
{
    int best = -1;
    for (int k = 0; k < p->nkernel; k++)
        if (p->kernel_flops[k] >= TC_MB_KERNELS_BETTER * p->peak_flops &&
            (best < 0 || p->kernel_flops[k] > p->kernel_flops[best]))
            best = k;
    return best;
}

int tc_mb_profile_kernels_note(const tc_mb_profile *p, char *buf, size_t n)
{
    char runs[96] = "the BLAS";
    if (p->blas_kernels[0])
        snprintf(runs, sizeof runs, "OpenBLAS runs its %s kernels", p->blas_kernels);
    int len = snprintf(buf, n, "%s: dgemm %.3g GFLOP/s", runs, p->peak_flops * 1e-9);
    if (p->cpu_peak_flops > 0.0 && len >= 0 && (size_t)len < n)
        len += snprintf(buf + len, n - (size_t)len, ", %.2f of the CPU's %s FMA peak (%.3g)",
                        p->peak_flops / p->cpu_peak_flops, p->cpu_peak_width,
                        p->cpu_peak_flops * 1e-9);
    int k = tc_mb_profile_better_kernels(p);
    if (k >= 0 && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len,
                 "; its %s kernels measured %.3g (%.2fx): set OPENBLAS_CORETYPE=%s, or "
                 "--blas auto",
                 p->kernel_name[k], p->kernel_flops[k] * 1e-9,
                 p->kernel_flops[k] / p->peak_flops, p->kernel_name[k]);
    return k >= 0;
}

size_t tc_mb_profile_format(const tc_mb_profile *p, char *buf, size_t n)
{
    locale_t saved = tc_c_locale_enter();
    out o = {buf, n, 0};
    char text[TC_MB_SIGNATURE_MAX];
    put(&o, "%s %d\n", PROFILE_MAGIC, TC_MB_PROFILE_VERSION);
    snprintf(text, sizeof text, "%s", p->machine);
    clean(text);
    put(&o, "machine %s\n", text);
    snprintf(text, sizeof text, "%s", p->blas);
    clean(text);
    put(&o, "blas %s\n", text);
    snprintf(text, sizeof text, "%s", p->blas_version);
    clean(text);
    put(&o, "blas_version %s\n", text);
    put(&o, "measured_at %.17g\nmeasure_seconds %.17g\n", p->measured_at, p->measure_seconds);
    const tc_hardware *d = &p->detected;
    snprintf(text, sizeof text, "%s", d->cpu_model);
    clean(text);
    put(&o, "cpu_model %s\ncpus %d\ndetected_source %s\ndetected_line %d\n", text, d->cpus,
        d->source, d->line_bytes);
    for (int k = 0; k < d->nlevels; k++)
        put(&o, "detected %d %lld %d %d %d\n", d->level[k].level, (long long)d->level[k].bytes,
            d->level[k].line_bytes, d->level[k].ways, d->level[k].shared_by);
    const tc_xray *x = &p->xray;
    put(&o, "measured_line %d\nmeasured_seconds %.17g\n", x->line_bytes, x->seconds);
    for (int k = 0; k < x->nlevels; k++)
        put(&o, "measured %lld %.17g\n", (long long)x->bytes[k], x->latency_ns[k]);
    put(&o, "memory_latency_ns %.17g\nmeasured_llc %lld\n", x->latency_ns[x->nlevels],
        (long long)p->llc_measured);
    put(&o, "stream_lines %d\ntlb_pages %lld\ntimer_resolution_s %.17g\ntimer_overhead_s %.17g\n",
        p->stream_lines, (long long)p->tlb_pages, p->timer_resolution_s, p->timer_overhead_s);
    put(&o, "peak_flops %.17g\nmemory_bandwidth %.17g\nupdate_bandwidth %.17g\n", p->peak_flops,
        p->memory_bandwidth, p->update_bandwidth);
    put(&o, "llc_edge");
    for (int k = 0; k < TC_EDGE_POINTS; k++)
        put(&o, " %.6g", p->llc_edge[k]);
    put(&o, "\n");
    put(&o, "cpu_peak_flops %.17g\ncpu_peak_width %s\nblas_kernels %s\n", p->cpu_peak_flops,
        p->cpu_peak_width[0] ? p->cpu_peak_width : "-", p->blas_kernels[0] ? p->blas_kernels : "-");
    for (int k = 0; k < p->nkernel; k++)
        put(&o, "kernel_rate %s %.17g\n", p->kernel_name[k], p->kernel_flops[k]);
    size_t body = o.len;
    if (body < n)
        put(&o, "check %016llx\n", (unsigned long long)fnv1a(buf, body));
    else
        o.len += 23; /* "check " + 16 digits + "\n" */
    tc_c_locale_leave(saved);
    return o.len;
}

/* Whole-line parsers: 0 when the rest of the line is exactly that. */
static int read_ll(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || errno || x < lo || x > hi)
        return -1;
    *v = x;
    return *end == '\0' || *end == ' ' ? 0 : -1;
}

static int read_int(const char *s, long long lo, long long hi, int *v)
{
    long long x;
    if (read_ll(s, lo, hi, &x) != 0 || strchr(s, ' '))
        return -1;
    *v = (int)x;
    return 0;
}

static int read_double(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !(x >= lo && x <= hi))
        return -1;
    *v = x;
    return 0;
}

/* The LLC's edge: TC_EDGE_POINTS numbers (what the model takes of them is
 * its check's, model_input.h). */
static int read_edge(const char *s, double share[TC_EDGE_POINTS])
{
    for (int k = 0; k < TC_EDGE_POINTS; k++) {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || errno || (*end != ' ' && (*end != '\0' || k + 1 < TC_EDGE_POINTS)))
            return -1;
        share[k] = x;
        s = end;
    }
    return *s != '\0';
}

/* Five numbers of a "detected" line. */
static int read_level(const char *s, tc_cache_level *l)
{
    long long v[5];
    const char *p = s;
    for (int i = 0; i < 5; i++) {
        char *end;
        errno = 0;
        v[i] = strtoll(p, &end, 10);
        if (end == p || errno || (i < 4 && *end != ' ') || (i == 4 && *end != '\0'))
            return -1;
        p = end + (i < 4);
    }
    if (v[0] < 1 || v[0] > 9 || v[1] < 1 || v[1] > TC_MB_LLC_MAX || v[2] < 0 ||
        v[2] > 4096 || v[3] < -1 || v[3] > 1 << 16 || v[4] < 0 || v[4] > 1 << 20)
        return -1;
    *l = (tc_cache_level){(int)v[0], v[1], (int)v[2], (int)v[3], (int)v[4]};
    return 0;
}

static int read_measured(const char *s, int64_t *bytes, double *ns)
{
    long long b;
    if (read_ll(s, 1, TC_MB_PROFILE_SCAN_MAX, &b) != 0)
        return -1;
    const char *sp = strchr(s, ' ');
    if (!sp || read_double(sp + 1, 0.0, 1e9, ns) != 0)
        return -1;
    *bytes = b;
    return 0;
}

/* Bits of what a valid profile must hold. */
enum {
    HAVE_MAGIC = 1 << 0, HAVE_MACHINE = 1 << 1, HAVE_BLAS = 1 << 2, HAVE_BLAS_VERSION = 1 << 3,
    HAVE_AT = 1 << 4, HAVE_SECONDS = 1 << 5, HAVE_CPU = 1 << 6, HAVE_CPUS = 1 << 7,
    HAVE_DSOURCE = 1 << 8, HAVE_DLINE = 1 << 9, HAVE_MLINE = 1 << 10, HAVE_MSECONDS = 1 << 11,
    HAVE_MEMLAT = 1 << 12, HAVE_STREAM = 1 << 13, HAVE_RES = 1 << 14, HAVE_OVER = 1 << 15,
    HAVE_PEAK = 1 << 16, HAVE_BW = 1 << 17, HAVE_LLC = 1 << 18, HAVE_TLB = 1 << 19,
    HAVE_UPDATE = 1 << 20, HAVE_EDGE = 1 << 21, HAVE_CPU_PEAK = 1 << 22, HAVE_WIDTH = 1 << 23,
    HAVE_KERNELS = 1 << 24, HAVE_ALL = (1 << 25) - 1
};

/* The lines that need more than a number or a text: 0 when v is good. */
static int read_source(tc_mb_profile *p, const char *v, unsigned have)
{
    (void)have;
    if (strlen(v) >= sizeof p->detected.source || !*v)
        return -1;
    snprintf(p->detected.source, sizeof p->detected.source, "%s", v);
    return 0;
}

static int read_detected(tc_mb_profile *p, const char *v, unsigned have)
{
    (void)have;
    if (p->detected.nlevels == TC_MB_MAX_LEVELS ||
        read_level(v, &p->detected.level[p->detected.nlevels]) != 0)
        return -1;
    p->detected.nlevels++;
    return 0;
}

static int read_measured_level(tc_mb_profile *p, const char *v, unsigned have)
{
    int k = p->xray.nlevels;
    if (k == TC_MB_MAX_LEVELS || (have & HAVE_MEMLAT) ||
        read_measured(v, &p->xray.bytes[k], &p->xray.latency_ns[k]) != 0)
        return -1;
    p->xray.nlevels++;
    return 0;
}

static int read_memory_latency(tc_mb_profile *p, const char *v, unsigned have)
{
    (void)have; /* after the levels: the slot past the last one */
    return read_double(v, 0.0, 1e9, &p->xray.latency_ns[p->xray.nlevels]);
}

static int read_llc_edge(tc_mb_profile *p, const char *v, unsigned have)
{
    (void)have;
    return read_edge(v, p->llc_edge);
}

/* "NAME RATE": a kernel set of OpenBLAS and its dgemm rate. */
static int read_kernel_rate(tc_mb_profile *p, const char *v, unsigned have)
{
    (void)have;
    const char *sp = strchr(v, ' ');
    int k = p->nkernel;
    size_t len = sp ? (size_t)(sp - v) : 0;
    if (k == TC_MB_MAX_KERNEL_SETS || len == 0 || len >= sizeof p->kernel_name[k] ||
        read_double(sp + 1, 1e6, 1e16, &p->kernel_flops[k]) != 0)
        return -1;
    memcpy(p->kernel_name[k], v, len);
    p->kernel_name[k][len] = '\0';
    p->nkernel++;
    return 0;
}

/* Every line but the first (PROFILE_MAGIC): its key, the bit it sets (0:
 * it may repeat), and how its value is read into the profile at offset. */
typedef enum { F_TEXT, F_INT, F_INT8, F_INT64, F_REAL, F_CUSTOM } field_kind;
static const struct field {
    const char *key;
    unsigned bit;
    field_kind kind;
    double lo, hi;   /* F_INT*, F_REAL: the range */
    size_t offset;   /* where in tc_mb_profile; F_TEXT: size is the member's */
    size_t size;
    int (*read)(tc_mb_profile *p, const char *v, unsigned have); /* F_CUSTOM */
} fields[] = {
#define AT(member) offsetof(tc_mb_profile, member), sizeof(((tc_mb_profile *)0)->member)
    {"machine", HAVE_MACHINE, F_TEXT, 0, 0, AT(machine), NULL},
    {"blas", HAVE_BLAS, F_TEXT, 0, 0, AT(blas), NULL},
    {"blas_version", HAVE_BLAS_VERSION, F_TEXT, 0, 0, AT(blas_version), NULL},
    {"measured_at", HAVE_AT, F_REAL, 0.0, 1e12, AT(measured_at), NULL},
    {"measure_seconds", HAVE_SECONDS, F_REAL, 0.0, 1e6, AT(measure_seconds), NULL},
    {"cpu_model", HAVE_CPU, F_TEXT, 0, 0, AT(detected.cpu_model), NULL},
    {"cpus", HAVE_CPUS, F_INT, 1, 1 << 20, AT(detected.cpus), NULL},
    {"detected_source", HAVE_DSOURCE, F_CUSTOM, 0, 0, 0, 0, read_source},
    {"detected_line", HAVE_DLINE, F_INT8, 8, TC_MB_LINE_MAX, AT(detected.line_bytes), NULL},
    {"detected", 0, F_CUSTOM, 0, 0, 0, 0, read_detected},
    /* 0: the measurement could not tell */
    {"measured_line", HAVE_MLINE, F_INT8, 0, TC_MB_LINE_MAX, AT(xray.line_bytes), NULL},
    {"measured_seconds", HAVE_MSECONDS, F_REAL, 0.0, 1e6, AT(xray.seconds), NULL},
    {"measured", 0, F_CUSTOM, 0, 0, 0, 0, read_measured_level},
    {"memory_latency_ns", HAVE_MEMLAT, F_CUSTOM, 0, 0, 0, 0, read_memory_latency},
    {"measured_llc", HAVE_LLC, F_INT64, 0, (double)TC_MB_PROFILE_SCAN_MAX, AT(llc_measured), NULL},
    {"stream_lines", HAVE_STREAM, F_INT, 0, TC_MB_STREAM_MAX, AT(stream_lines), NULL},
    {"tlb_pages", HAVE_TLB, F_INT64, 0, TC_MB_TLB_MAX_PAGES, AT(tlb_pages), NULL},
    {"timer_resolution_s", HAVE_RES, F_REAL, 0.0, 1.0, AT(timer_resolution_s), NULL},
    {"timer_overhead_s", HAVE_OVER, F_REAL, 0.0, 1.0, AT(timer_overhead_s), NULL},
    {"peak_flops", HAVE_PEAK, F_REAL, 1e6, 1e16, AT(peak_flops), NULL},
    {"memory_bandwidth", HAVE_BW, F_REAL, 1e6, 1e16, AT(memory_bandwidth), NULL},
    {"update_bandwidth", HAVE_UPDATE, F_REAL, 1e6, 1e16, AT(update_bandwidth), NULL},
    {"llc_edge", HAVE_EDGE, F_CUSTOM, 0, 0, 0, 0, read_llc_edge},
    /* 0: not measured (a profile made by hand) */
    {"cpu_peak_flops", HAVE_CPU_PEAK, F_REAL, 0.0, 1e16, AT(cpu_peak_flops), NULL},
    {"cpu_peak_width", HAVE_WIDTH, F_TEXT, 0, 0, AT(cpu_peak_width), NULL},
    {"blas_kernels", HAVE_KERNELS, F_TEXT, 0, 0, AT(blas_kernels), NULL},
    {"kernel_rate", 0, F_CUSTOM, 0, 0, 0, 0, read_kernel_rate},
#undef AT
};

/* Reads v as field f into p: 0 when it is a good value. */
static int read_field(tc_mb_profile *p, const struct field *f, const char *v, unsigned have)
{
    char *at = (char *)p + f->offset;
    long long x;
    switch (f->kind) {
    case F_TEXT:
        snprintf(at, f->size, "%s", v);
        return 0;
    case F_INT:
    case F_INT8:
        return read_int(v, (long long)f->lo, (long long)f->hi, (int *)(void *)at) != 0 ||
               (f->kind == F_INT8 && *(int *)(void *)at % 8 != 0);
    case F_INT64:
        if (read_ll(v, (long long)f->lo, (long long)f->hi, &x) != 0 || strchr(v, ' '))
            return -1;
        *(int64_t *)(void *)at = x;
        return 0;
    case F_REAL:
        return read_double(v, f->lo, f->hi, (double *)(void *)at);
    case F_CUSTOM:
        return f->read(p, v, have);
    }
    return -1;
}

static tc_status parse_line(tc_mb_profile *p, const char *key, const char *v, unsigned *have,
                            char *why, size_t n)
{
    const struct field *f = NULL;
    if (strcmp(key, PROFILE_MAGIC) == 0) {
        int version;
        if (read_int(v, 0, 1000000, &version) != 0 || version != TC_MB_PROFILE_VERSION) {
            snprintf(why, n, "format version '%.40s', this tcgen writes %d", v,
                     TC_MB_PROFILE_VERSION);
            return TC_EINPUT;
        }
    } else if (!(*have & HAVE_MAGIC)) {
        snprintf(why, n, "it does not start with '%s %d'", PROFILE_MAGIC, TC_MB_PROFILE_VERSION);
        return TC_EINPUT;
    } else {
        for (size_t k = 0; k < sizeof fields / sizeof fields[0] && !f; k++)
            if (strcmp(key, fields[k].key) == 0)
                f = &fields[k];
        if (!f) {
            snprintf(why, n, "unknown line '%.40s'", key);
            return TC_EINPUT;
        }
        if (read_field(p, f, v, *have) != 0) {
            snprintf(why, n, "malformed or out-of-range '%.40s' line", key);
            return TC_EINPUT;
        }
    }
    unsigned bit = f ? f->bit : HAVE_MAGIC;
    if (bit && (*have & bit)) {
        snprintf(why, n, "the '%.40s' line appears twice", key);
        return TC_EINPUT;
    }
    *have |= bit;
    return TC_OK;
}

/* The checksum line, which covers every byte before it; NULL (err set)
 * when it is missing or does not match. */
static const char *checked_end(const char *text, tc_error *err)
{
    size_t len = strlen(text);
    if (len == 0 || len > PROFILE_TEXT_MAX) {
        tc_error_set(err, TC_EINPUT, 0, 0, "the profile is %s",
                     len ? "too long to be one" : "empty");
        return NULL;
    }
    const char *check = NULL;
    for (const char *q = strstr(text, "check "); q; q = strstr(q + 1, "check "))
        if (q == text || q[-1] == '\n')
            check = q;
    char expect[32];
    if (!check || text[len - 1] != '\n') {
        tc_error_set(err, TC_EINPUT, 0, 0, "the profile has no checksum line at its end "
                                           "(a truncated write?)");
        return NULL;
    }
    snprintf(expect, sizeof expect, "check %016llx\n",
             (unsigned long long)fnv1a(text, (size_t)(check - text)));
    if (strcmp(check, expect) != 0) {
        tc_error_set(err, TC_EINPUT, 0, 0, "the profile's checksum does not match its "
                                           "content (damaged or edited)");
        return NULL;
    }
    return check;
}

tc_status tc_mb_profile_parse(const char *text, tc_mb_profile *p, tc_error *err)
{
    memset(p, 0, sizeof *p);
    const char *check = checked_end(text, err);
    if (!check)
        return TC_EINPUT;
    locale_t saved = tc_c_locale_enter();
    unsigned have = 0;
    char why[TC_ERROR_MESSAGE_MAX] = "";
    int lineno = 0;
    tc_status st = TC_OK;
    for (const char *q = text; q < check && st == TC_OK; lineno++) {
        const char *nl = memchr(q, '\n', (size_t)(check - q));
        if (!nl) {
            snprintf(why, sizeof why, "a line without an end");
            st = TC_EINPUT;
            break;
        }
        char line[1024];
        size_t n = (size_t)(nl - q);
        if (n >= sizeof line) {
            snprintf(why, sizeof why, "a line longer than %zu bytes", sizeof line - 1);
            st = TC_EINPUT;
            break;
        }
        memcpy(line, q, n);
        line[n] = '\0';
        q = nl + 1;
        char *sp = strchr(line, ' ');
        if (!sp) {
            snprintf(why, sizeof why, "a line without a value");
            st = TC_EINPUT;
            break;
        }
        *sp = '\0';
        st = parse_line(p, line, sp + 1, &have, why, sizeof why);
    }
    tc_c_locale_leave(saved);
    if (st == TC_OK && (have != HAVE_ALL || p->detected.nlevels == 0)) {
        snprintf(why, sizeof why, "a required line is missing");
        st = TC_EINPUT;
    }
    if (st != TC_OK) {
        memset(p, 0, sizeof *p);
        return tc_error_set(err, TC_EINPUT, lineno, 0, "the profile is damaged: line %d: %s",
                            lineno, why);
    }
    /* "-" is how the file says nothing */
    if (strcmp(p->blas_kernels, "-") == 0)
        p->blas_kernels[0] = '\0';
    if (strcmp(p->cpu_peak_width, "-") == 0)
        p->cpu_peak_width[0] = '\0';
    /* derived: the detected description's summary and the hierarchy in use */
    tc_hardware *d = &p->detected;
    d->llc_bytes = d->level[d->nlevels - 1].bytes;
    /* the detected lines are the machine line's (which tc_mb_profile_check
     * holds against this machine): a level edited alone is refused */
    char sig[TC_MB_SIGNATURE_MAX];
    tc_mb_hardware_signature(d, sig, sizeof sig);
    if (strcmp(sig, p->machine) != 0) {
        tc_error_set(err, TC_EINPUT, 0, 0,
                     "the profile's detected lines ('%.200s') are not its machine line's "
                     "('%.200s')",
                     sig, p->machine);
        memset(p, 0, sizeof *p);
        return TC_EINPUT;
    }
    tc_mb_profile_choose(p);
    st = tc_mb_profile_usable(p, err);
    if (st != TC_OK)
        memset(p, 0, sizeof *p);
    return st;
}

tc_status tc_mb_profile_usable(const tc_mb_profile *p, tc_error *err)
{
    tc_mb_sampler_options o;
    memset(&o, 0, sizeof o);
    tc_mb_model_input(p, &p->used, &o);
    tc_error e;
    if (tc_mb_model_input_check(&o, &e) != TC_OK)
        return tc_error_set(err, TC_EINPUT, 0, 0, "the profile holds what the model cannot use: %s",
                            e.message);
    return TC_OK;
}

tc_status tc_mb_profile_check(const tc_mb_profile *p, const tc_hardware *detected,
                              const tc_blas *blas, tc_error *err)
{
    char sig[TC_MB_SIGNATURE_MAX];
    tc_mb_hardware_signature(detected, sig, sizeof sig);
    if (strcmp(sig, p->machine) != 0)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the profile is of another machine ('%.200s', this is '%.200s')",
                            p->machine, sig);
    char version[sizeof p->blas_version];
    snprintf(version, sizeof version, "%s", blas->version);
    clean(version);
    if (strcmp(p->blas, blas->name) != 0 || strcmp(p->blas_version, version) != 0)
        return tc_error_set(err, TC_EINPUT, 0, 0,
                            "the profile is of another BLAS library (%.100s %.100s, this is "
                            "%.100s %.100s)",
                            p->blas, p->blas_version, blas->name, version);
    return TC_OK;
}

/* ---- load or measure --------------------------------------------------- */

/* The file's text in buf; -1 when it cannot be read or is too long. */
static int read_file(const char *path, char *buf, size_t n)
{
    FILE *f = tc_rt_file_open_regular(path);
    if (!f)
        return -1;
    size_t len = fread(buf, 1, n - 1, f);
    int too_long = len == n - 1 && fgetc(f) != EOF;
    int bad = ferror(f);
    fclose(f);
    if (too_long || bad)
        return -1;
    buf[len] = '\0';
    if (strlen(buf) != len) /* a NUL byte inside: damage */
        buf[0] = '\0';
    return 0;
}

/* Reads and checks path's profile: 1 valid (*p filled), 0 absent, -1
 * refused (why in note), -2 out of memory. */
static int try_load(const char *path, const tc_hardware *detected, const tc_blas *blas,
                    tc_mb_profile *p, char *note, size_t n)
{
    char *buf = malloc(PROFILE_TEXT_MAX + 2);
    if (!buf)
        return -2;
    int r = read_file(path, buf, PROFILE_TEXT_MAX + 2);
    if (r != 0) {
        free(buf);
        return 0;
    }
    tc_error e;
    tc_status st = tc_mb_profile_parse(buf, p, &e);
    free(buf);
    if (st == TC_OK)
        st = tc_mb_profile_check(p, detected, blas, &e);
    if (st != TC_OK) {
        snprintf(note, n, "refused %.200s: %.250s; measured anew", path, e.message);
        return -1;
    }
    return 1;
}

static tc_status save(const char *path, const tc_mb_profile *p, tc_error *err)
{
    char *text = malloc(PROFILE_TEXT_MAX + 1);
    if (!text)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory writing the profile");
    size_t len = tc_mb_profile_format(p, text, PROFILE_TEXT_MAX + 1);
    tc_status st = len > PROFILE_TEXT_MAX
                       ? tc_error_set(err, TC_EINTERNAL, 0, 0, "the profile text is too long")
                       : make_parent(path, err);
    struct stat sb; /* read back by every run: a device or a FIFO there is no store */
    if (st == TC_OK && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        st = tc_error_set(err, TC_ERESOURCE, 0, 0, "it is not a regular file");
    if (st == TC_OK)
        st = tc_rt_file_replace(path, text, len, err);
    free(text);
    return st;
}

/* The note of a profile measured but not written: which file, why, and
 * that the measurement serves this run only; then why an older file was
 * refused, if it was, as far as it fits. */
static void unsaved(tc_mb_profile_origin *o, const char *why)
{
    char before[sizeof o->note];
    snprintf(before, sizeof before, "%s", o->note);
    snprintf(o->note, sizeof o->note,
             "cannot save %.160s (%.220s): this machine was measured for this run only%s%.60s",
             o->path, why, before[0] ? "; " : "", before);
}

tc_status tc_mb_profile_get(const tc_blas *blas, const tc_timer *timer, int refresh,
                            tc_mb_profile_progress progress, void *data, tc_mb_profile *p,
                            tc_mb_profile_origin *origin, tc_error *err)
{
    tc_mb_profile_origin local;
    tc_mb_profile_origin *o = origin ? origin : &local;
    memset(o, 0, sizeof *o);
    if (!blas || !timer || !p)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_mb_profile_get: NULL argument");
    tc_hardware detected;
    tc_mb_hardware_detect(&detected, NULL);
    tc_error e;
    int have_path =
        tc_mb_profile_path(blas->name, &detected, o->path, sizeof o->path, &e) == TC_OK;
    if (!have_path) {
        o->path[0] = '\0';
        snprintf(o->note, sizeof o->note, "%.400s; this machine was measured for this run only", e.message);
    }
    int got = have_path && !refresh ? try_load(o->path, &detected, blas, p, o->note,
                                                sizeof o->note) : 0;
    if (got == 1) {
        o->loaded = 1;
        return TC_OK;
    }
    if (got == -2) /* not a reason to measure the machine again */
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory reading the profile");
    /* one process measures; the others wait and then read its result */
    int lock = -1;
    tc_status kept = TC_OK; /* why the file cannot be written (in e) */
    if (have_path && (kept = make_parent(o->path, &e)) == TC_OK) {
        lock = tc_rt_file_lock(o->path, &e);
        kept = lock < 0 ? TC_ERESOURCE : TC_OK;
    }
    if (lock >= 0 && !refresh) {
        char again[TC_ERROR_MESSAGE_MAX] = "";
        got = try_load(o->path, &detected, blas, p, again, sizeof again);
        if (got == 1 || got == -2) {
            tc_rt_file_unlock(lock);
            o->loaded = got == 1;
            o->note[0] = '\0';
            return got == 1 ? TC_OK : tc_error_set(err, TC_ERESOURCE, 0, 0,
                                                   "out of memory reading the profile");
        }
    }
    tc_status st = tc_mb_profile_measure(&detected, blas, timer, progress, data, p, err);
    if (st == TC_OK && tc_mb_profile_usable(p, &e) != TC_OK) /* a bug in the measurement */
        st = tc_error_set(err, TC_EINTERNAL, 0, 0, "this machine's measurement: %s", e.message);
    if (st == TC_OK && lock >= 0)
        kept = save(o->path, p, &e);
    if (st == TC_OK && kept == TC_OK && lock >= 0)
        o->saved = 1;
    else if (st == TC_OK && have_path)
        unsaved(o, e.message);
    tc_rt_file_unlock(lock);
    return st;
}
