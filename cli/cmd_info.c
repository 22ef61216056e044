/*
 * cmd_info.c - `tcgen info [--measure] [--cache-size BYTES]`: the caches,
 * the line size, the BLAS backend and the timer that predictions use, and
 * with --measure an X-Ray measurement of the caches next to them.
 * Also --cache-size parsing, shared with predict and explain.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "microbench/hardware.h"
#include "runtime/blas.h"
#include "runtime/timer.h"
#include "table.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)
#define TIB ((int64_t)1 << 40)
#define DISAGREE 2.0         /* measured / detected beyond this factor is flagged */
#define XRAY_MIN_SCAN (64 * MIB)
#define MAX_NOTES 6
#define XRAY_MAX_SCAN GIB

/* Worded like the option errors of main.c ("tcgen: usage: --threads needs ..."). */
static int cache_size_usage(const tc_cli *cli, const char *v)
{
    fprintf(stderr,
            "tcgen: usage: --cache-size needs a whole number of bytes from 1 to 1 TiB, "
            "optionally followed by K, M, G or KiB, MiB, GiB (powers of 1024), "
            "e.g. 32MiB; not '%s' (try 'tcgen %s%s--help')\n",
            v, cli->command ? cli->command : "", cli->command && cli->command[0] ? " " : "");
    return TC_EUSAGE;
}

int tc_cli_cache_size(const tc_cli *cli, tc_hardware *hw)
{
    static const struct {
        const char *suffix;
        int64_t unit;
    } units[] = {{"", 1},      {"K", KIB},   {"M", MIB},   {"G", GIB},
                 {"KiB", KIB}, {"MiB", MIB}, {"GiB", GIB}};
    const char *v = cli->cache_size;
    if (!v)
        return 0;
    int64_t n = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > TIB) /* already too big; stop before it overflows */
            return cache_size_usage(cli, v);
        n = 10 * n + (*p - '0');
    }
    if (p == v)
        return cache_size_usage(cli, v);
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
        if (strcmp(p, units[k].suffix) != 0)
            continue;
        if (n == 0 || n > TIB / units[k].unit)
            return cache_size_usage(cli, v);
        hw->llc_bytes = n * units[k].unit;
        return 0;
    }
    return cache_size_usage(cli, v);
}

/* "48 KiB", "1.25 MiB", "640 B". */
static void human_bytes(int64_t b, char *buf, size_t n)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double x = (double)b;
    while (u < 4 && x >= 1024.0) {
        x /= 1024.0;
        u++;
    }
    snprintf(buf, n, "%.4g %s", x, names[u]);
}

static void ways_text(int ways, char *buf, size_t n)
{
    if (ways < 0)
        snprintf(buf, n, "full");
    else if (ways == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%d", ways);
}

static void count_text(int v, char *buf, size_t n)
{
    if (v > 0)
        snprintf(buf, n, "%d", v);
    else
        snprintf(buf, n, "-");
}

/* Everything the command found, gathered before printing. */
typedef struct info {
    tc_hardware hw;           /* detected, llc_bytes possibly overridden */
    int64_t detected_llc;
    int overridden;           /* --cache-size given */
    char hw_note[TC_ERROR_MESSAGE_MAX];
    tc_blas *blas;
    tc_timer timer;
    int measured;
    tc_xray xray;
    char check[TC_MB_MAX_LEVELS][32]; /* per row: "ok", "DIFFERS", ... */
    int rows;                 /* max(detected, measured) levels */
    char notes[MAX_NOTES][TC_ERROR_MESSAGE_MAX];
    int nnotes;
} info;

static void add_note(info *in, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add_note(info *in, const char *fmt, ...)
{
    if (in->nnotes == MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->notes[in->nnotes++], sizeof in->notes[0], fmt, ap);
    va_end(ap);
}

/* Compares the measured capacities with the detected ones, level by level. */
static void compare(info *in)
{
    const tc_hardware *hw = &in->hw;
    const tc_xray *x = &in->xray;
    int64_t cumulative = 0;
    int differs = 0, exclusive = 0;
    char a[32], b[32], c[32];
    in->rows = hw->nlevels > x->nlevels ? hw->nlevels : x->nlevels;
    for (int k = 0; k < in->rows; k++) {
        int64_t d = k < hw->nlevels ? hw->level[k].bytes : 0;
        int64_t m = k < x->nlevels ? x->bytes[k] : 0;
        cumulative += d;
        if (d == 0 || m == 0) {
            snprintf(in->check[k], sizeof in->check[k], "%s", d ? "not found" : "extra");
            continue;
        }
        double ratio = (double)m / (double)d;
        /* An exclusive (victim) level also holds what the one above evicted. */
        int is_exclusive = k > 0 && m > d + d / 20 && m <= cumulative + cumulative / 10;
        if (is_exclusive && !exclusive) {
            exclusive = 1;
            human_bytes(m, a, sizeof a);
            human_bytes(cumulative, b, sizeof b);
            add_note(in,
                     "L%d measures %s, about L1..L%d together (%s): an exclusive or victim "
                     "cache also holds what the levels above it evict, so their capacities "
                     "add (X-Ray measured C1+C2 on AMD L2s); not an error",
                     hw->level[k].level, a, hw->level[k].level, b);
        }
        if (ratio >= 1.0 / DISAGREE && ratio <= DISAGREE)
            snprintf(in->check[k], sizeof in->check[k], "ok");
        else if (is_exclusive)
            snprintf(in->check[k], sizeof in->check[k], "ok (exclusive)");
        else {
            snprintf(in->check[k], sizeof in->check[k], "DIFFERS");
            if (!differs) {
                differs = 1;
                human_bytes(m, a, sizeof a);
                human_bytes(d, b, sizeof b);
                snprintf(c, sizeof c, "%.2g", ratio);
                add_note(in,
                         "L%d measures %s against %s detected (%sx): %s; predictions use "
                         "the detected size unless --cache-size says otherwise",
                         hw->level[k].level, a, b, c,
                         ratio < 1.0 ? "a cache shared with other cores or virtual machines, "
                                       "partitioned by the host, or physically indexed over "
                                       "scattered pages gives one process less than its size, "
                                       "and noise blurs small latency steps"
                                     : "a virtual machine may report a smaller cache than "
                                       "the host has, and a level the measurement did not "
                                       "tell apart merges with the next");
            }
        }
    }
    if (x->nlevels != hw->nlevels)
        add_note(in,
                 "the measurement found %d cache level%s where %d are detected: a level less "
                 "than 1.8x slower than the one above, or whose plateau noise hides, is not "
                 "told apart, and a slow ramp between levels can look like one",
                 x->nlevels, x->nlevels == 1 ? "" : "s", hw->nlevels);
    if (x->line_bytes != 0 && x->line_bytes != hw->line_bytes)
        add_note(in, "the measured line size (%d B) differs from the detected one (%d B)",
                 x->line_bytes, hw->line_bytes);
}

/* ---- table and TSV ------------------------------------------------------ */

static void kv(FILE *out, tc_format f, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void kv(FILE *out, tc_format f, const char *key, const char *fmt, ...)
{
    va_list ap;
    if (f == TC_FMT_TSV)
        fprintf(out, "# %s ", key);
    else
        fprintf(out, "%-22s ", key);
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

static int print_caches(const info *in, FILE *out, tc_format f)
{
    static const char *const headers[] = {"level", "bytes", "size", "line", "ways", "shared_by",
                                          "measured_bytes", "measured_size", "latency_ns",
                                          "check"};
    const tc_hardware *hw = &in->hw;
    int ncols = in->measured ? 10 : 6;
    int rows = in->measured ? in->rows : hw->nlevels;
    tc_table *t = tc_table_new(ncols, headers, "snsnnnnsns");
    if (!t)
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    int bad = 0;
    for (int k = 0; k < rows; k++) {
        char level[16], bytes[32] = "-", size[32] = "-", line[16] = "-", ways[16] = "-",
                        shared[16] = "-", mbytes[32] = "-", msize[32] = "-", lat[32] = "-";
        if (k < hw->nlevels) {
            const tc_cache_level *l = &hw->level[k];
            snprintf(level, sizeof level, "L%d", l->level);
            snprintf(bytes, sizeof bytes, "%" PRId64, l->bytes);
            human_bytes(l->bytes, size, sizeof size);
            count_text(l->line_bytes, line, sizeof line);
            ways_text(l->ways, ways, sizeof ways);
            count_text(l->shared_by, shared, sizeof shared);
        } else {
            snprintf(level, sizeof level, "L%d?", k + 1);
        }
        if (in->measured && k < in->xray.nlevels) {
            snprintf(mbytes, sizeof mbytes, "%" PRId64, in->xray.bytes[k]);
            human_bytes(in->xray.bytes[k], msize, sizeof msize);
            snprintf(lat, sizeof lat, "%.3g", in->xray.latency_ns[k]);
        }
        bad |= tc_table_addf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", level, bytes, size, line,
                             ways, shared, mbytes, msize, lat, in->measured ? in->check[k] : "");
    }
    if (in->measured && !bad)
        bad |= tc_table_addf(t, "memory\t-\t-\t-\t-\t-\t-\t-\t%.3g\t-",
                             in->xray.latency_ns[in->xray.nlevels]);
    if (bad) {
        tc_table_free(t);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    tc_table_print(t, out, f);
    tc_table_free(t);
    return 0;
}

static void print_rows(const info *in, FILE *out, tc_format f)
{
    const tc_hardware *hw = &in->hw;
    const tc_blas *b = in->blas;
    const tc_timer *t = &in->timer;
    char size[32];
    if (f == TC_FMT_TABLE)
        fputc('\n', out);
    kv(out, f, "cache_source", "%s", hw->source);
    human_bytes(hw->llc_bytes, size, sizeof size);
    if (in->overridden)
        kv(out, f, "llc_bytes", "%" PRId64 " (%s, set by --cache-size; detected %" PRId64 ")",
           hw->llc_bytes, size, in->detected_llc);
    else
        kv(out, f, "llc_bytes", "%" PRId64 " (%s, L%d, detected)", hw->llc_bytes, size,
           hw->level[hw->nlevels - 1].level);
    kv(out, f, "line_bytes", "%d", hw->line_bytes);
    kv(out, f, "cpu_model", "%s", hw->cpu_model[0] ? hw->cpu_model : "-");
    kv(out, f, "cpus", "%d", hw->cpus);
    kv(out, f, "blas", "%s", b->name);
    kv(out, f, "blas_path", "%s", b->path);
    kv(out, f, "blas_version", "%s", b->version[0] ? b->version : "-");
    kv(out, f, "blas_threads", "%d", b->threads);
    kv(out, f, "timer", "%s", t->source);
    kv(out, f, "timer_ghz", "%.6g", 1e-9 / t->seconds_per_tick);
    kv(out, f, "timer_resolution_ns", "%.3g", t->resolution_s * 1e9);
    kv(out, f, "timer_overhead_ns", "%.3g", t->overhead_ticks * t->seconds_per_tick * 1e9);
    if (in->measured) {
        if (in->xray.line_bytes)
            kv(out, f, "measured_line_bytes", "%d", in->xray.line_bytes);
        else
            kv(out, f, "measured_line_bytes", "- (could not tell)");
        kv(out, f, "measured_levels", "%d", in->xray.nlevels);
        kv(out, f, "measure_seconds", "%.2f", in->xray.seconds);
    }
    if (in->hw_note[0])
        kv(out, f, "note", "cache description from %s: %s", hw->source, in->hw_note);
    for (int k = 0; k < in->nnotes; k++)
        kv(out, f, "note", "%s", in->notes[k]);
}

/* ---- JSON ----------------------------------------------------------------- */

static void json_kv_string(FILE *out, const char *indent, const char *key, const char *v,
                           int comma)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    tc_cli_json_string(out, v);
    fputs(comma ? ",\n" : "\n", out);
}

static void print_json(const info *in, FILE *out)
{
    const tc_hardware *hw = &in->hw;
    const tc_blas *b = in->blas;
    const tc_timer *t = &in->timer;
    fputs("{\n  \"caches\": [\n", out);
    for (int k = 0; k < hw->nlevels; k++) {
        const tc_cache_level *l = &hw->level[k];
        fprintf(out,
                "    {\"level\": %d, \"bytes\": %" PRId64 ", \"line_bytes\": %d, \"ways\": %d, "
                "\"shared_by\": %d",
                l->level, l->bytes, l->line_bytes, l->ways, l->shared_by);
        if (in->measured) {
            if (k < in->xray.nlevels)
                fprintf(out, ", \"measured_bytes\": %" PRId64 ", \"latency_ns\": %.6g",
                        in->xray.bytes[k], in->xray.latency_ns[k]);
            else
                fputs(", \"measured_bytes\": null, \"latency_ns\": null", out);
            fputs(", \"check\": ", out);
            tc_cli_json_string(out, in->check[k]);
        }
        fputs(k + 1 < hw->nlevels ? "},\n" : "}\n", out);
    }
    fputs("  ],\n", out);
    json_kv_string(out, "  ", "cache_source", hw->source, 1);
    fprintf(out, "  \"llc_bytes\": %" PRId64 ",\n  \"llc_detected_bytes\": %" PRId64
                 ",\n  \"llc_overridden\": %s,\n",
            hw->llc_bytes, in->detected_llc, in->overridden ? "true" : "false");
    fprintf(out, "  \"line_bytes\": %d,\n", hw->line_bytes);
    json_kv_string(out, "  ", "cpu_model", hw->cpu_model, 1);
    fprintf(out, "  \"cpus\": %d,\n  \"blas\": {\n", hw->cpus);
    json_kv_string(out, "    ", "name", b->name, 1);
    json_kv_string(out, "    ", "path", b->path, 1);
    json_kv_string(out, "    ", "version", b->version, 1);
    fprintf(out, "    \"threads\": %d\n  },\n  \"timer\": {\n", b->threads);
    json_kv_string(out, "    ", "source", t->source, 1);
    fprintf(out,
            "    \"ghz\": %.6g,\n    \"resolution_ns\": %.6g,\n    \"overhead_ns\": %.6g\n  },\n",
            1e-9 / t->seconds_per_tick, t->resolution_s * 1e9,
            t->overhead_ticks * t->seconds_per_tick * 1e9);
    fputs("  \"measured\": ", out);
    if (in->measured) {
        const tc_xray *x = &in->xray;
        fprintf(out, "{\n    \"line_bytes\": %d,\n    \"levels\": [", x->line_bytes);
        for (int k = 0; k < x->nlevels; k++)
            fprintf(out, "%s{\"bytes\": %" PRId64 ", \"latency_ns\": %.6g}", k ? ", " : "",
                    x->bytes[k], x->latency_ns[k]);
        fprintf(out, "],\n    \"memory_latency_ns\": %.6g,\n    \"seconds\": %.6g\n  },\n",
                x->latency_ns[x->nlevels], x->seconds);
    } else {
        fputs("null,\n", out);
    }
    fputs("  \"notes\": [", out);
    int first = 1;
    if (in->hw_note[0]) {
        char note[2 * TC_ERROR_MESSAGE_MAX];
        snprintf(note, sizeof note, "cache description from %s: %s", hw->source, in->hw_note);
        tc_cli_json_string(out, note);
        first = 0;
    }
    for (int k = 0; k < in->nnotes; k++, first = 0) {
        fputs(first ? "" : ", ", out);
        tc_cli_json_string(out, in->notes[k]);
    }
    fputs("]\n}\n", out);
}

/* ---- the command ---------------------------------------------------------- */

int tc_cmd_info(const tc_cli *cli)
{
    info in;
    tc_error err;
    memset(&in, 0, sizeof in);
    if (cli->npositional > 0)
        return tc_cli_failf(TC_EUSAGE,
                            "info takes no arguments, not '%s' (try 'tcgen info --help')",
                            cli->positional[0]);
    tc_mb_hardware_detect(&in.hw, &err);
    snprintf(in.hw_note, sizeof in.hw_note, "%s", err.message);
    in.detected_llc = in.hw.llc_bytes;
    in.overridden = cli->cache_size != NULL;
    int rc = tc_cli_cache_size(cli, &in.hw);
    if (rc)
        return rc;
    if (tc_rt_blas_load(cli->blas, cli->threads, &in.blas, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    if (tc_rt_timer_init(&in.timer, &err) != TC_OK) {
        tc_rt_blas_unload(in.blas);
        return tc_cli_fail(&err, NULL);
    }
    if (cli->measure) {
        int64_t scan = 2 * in.hw.llc_bytes;
        scan = scan < XRAY_MIN_SCAN ? XRAY_MIN_SCAN : scan > XRAY_MAX_SCAN ? XRAY_MAX_SCAN : scan;
        if (!cli->quiet && isatty(STDERR_FILENO))
            fprintf(stderr, "tcgen: measuring the caches with working sets up to %" PRId64
                            " MiB (a few seconds)...\n", scan / MIB);
        if (tc_mb_xray_measure_upto(scan, &in.xray, &err) != TC_OK) {
            tc_rt_blas_unload(in.blas);
            return tc_cli_fail(&err, "--measure");
        }
        in.measured = 1;
        compare(&in);
    }
    FILE *out = tc_cli_open_output(cli);
    if (!out) {
        tc_rt_blas_unload(in.blas);
        return TC_ERESOURCE;
    }
    if (cli->format == TC_FMT_JSON) {
        print_json(&in, out);
    } else {
        rc = print_caches(&in, out, cli->format);
        if (!rc)
            print_rows(&in, out, cli->format);
    }
    tc_rt_blas_unload(in.blas);
    int rc2 = tc_cli_close_output(out);
    return rc ? rc : rc2;
}
