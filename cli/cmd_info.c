/*
 * cmd_info.c - `tcgen info [--measure] [--cache-size BYTES]`: the machine
 * profile predictions rest on (microbench/profile.h): the caches as hwloc
 * or sysfs describe them next to what the measurement found and which of
 * the two is used, the line size, the stream-prefetch depth, peak flop
 * rate and bandwidth, the BLAS backend and the timer. The profile is read
 * from its file, or measured when there is none (or it is damaged or of
 * another machine); --measure measures it anew. Also --cache-size parsing,
 * shared with predict and explain.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "predictor.h"
#include "microbench/hardware.h"
#include "microbench/profile.h"
#include "microbench/rules.h"
#include "runtime/blas.h"
#include "runtime/memory_limit.h"
#include "runtime/timer.h"
#include "table.h"

#define TIB ((int64_t)1 << 40)
#define DISAGREE 2.0         /* measured / detected beyond this factor: measured used */
#define MAX_NOTES 6

/* Worded like the option errors of main.c ("tcgen: usage: --threads needs ..."). */
static int cache_size_usage(const tc_cli *cli, const char *v)
{
    fprintf(stderr,
            "tcgen: usage: --cache-size needs a whole number of bytes from 1 to 1 TiB, "
            "optionally followed by K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), "
            "e.g. 32MiB; not '%s' (try 'tcgen %s%s--help')\n",
            v, cli->command ? cli->command : "", cli->command && cli->command[0] ? " " : "");
    return TC_EUSAGE;
}

int tc_cli_cache_size(const tc_cli *cli, tc_hardware *hw)
{
    int64_t n;
    if (!cli->cache_size)
        return 0;
    if (tc_rt_parse_bytes(cli->cache_size, &n) != 0 || n < 1 || n > TIB)
        return cache_size_usage(cli, cli->cache_size);
    hw->llc_bytes = n;
    return 0;
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
    tc_mb_profile profile;
    tc_mb_profile_origin origin;
    int64_t llc_bytes;        /* in use: the profile's, or --cache-size */
    int overridden;           /* --cache-size given */
    char hw_note[TC_ERROR_MESSAGE_MAX];
    tc_blas *blas;
    tc_timer timer;
    char check[TC_MB_MAX_LEVELS][32]; /* per row: "ok", "DIFFERS", ... */
    int used_row[TC_MB_MAX_LEVELS];   /* per row: index into profile.used, or -1 */
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

/* The measured capacity of row k: X-Ray's level, but for the last detected
 * level what the profile found one process can use of it; 0 when none. */
static int64_t measured_bytes(const tc_mb_profile *p, int k)
{
    if (k == p->detected.nlevels - 1 && p->llc_measured > 0)
        return p->llc_measured;
    return k < p->xray.nlevels ? p->xray.bytes[k] : 0;
}

/* Compares the measured capacities with the detected ones, level by level,
 * and says which one predictions use. */
static void compare(info *in)
{
    const tc_hardware *hw = &in->profile.detected;
    const tc_hardware *used = &in->profile.used;
    const tc_xray *x = &in->profile.xray;
    int64_t cumulative = 0;
    int differs = 0, exclusive = 0;
    char a[32], b[32], c[32];
    in->rows = hw->nlevels > x->nlevels ? hw->nlevels : x->nlevels;
    for (int k = 0; k < in->rows; k++) {
        in->used_row[k] = -1;
        for (int u = 0; k < hw->nlevels && u < used->nlevels; u++)
            if (used->level[u].level == hw->level[k].level)
                in->used_row[k] = u;
        int64_t d = k < hw->nlevels ? hw->level[k].bytes : 0;
        int64_t m = measured_bytes(&in->profile, k);
        cumulative += d;
        if (d == 0 || m == 0) {
            snprintf(in->check[k], sizeof in->check[k], "%s",
                     d == 0 ? "extra" : in->used_row[k] < 0 ? "not seen, dropped" : "not found");
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
                         "the measured size%s",
                         hw->level[k].level, a, b, c,
                         ratio < 1.0 ? "a cache shared with other cores or virtual machines, "
                                       "partitioned by the host, or physically indexed over "
                                       "scattered pages gives one process less than its size"
                                     : "a virtual machine may report a smaller cache than "
                                       "the host has, and a level the measurement did not "
                                       "tell apart merges with the next",
                         in->overridden ? " (the LLC: --cache-size)" : "");
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
        add_note(in, "the measured line size (%d B) differs from the detected one (%d B)%s",
                 x->line_bytes, hw->line_bytes,
                 used->line_bytes == x->line_bytes ? "; the measured one is used" : "");
}

/* Where the LLC size in use comes from. */
static const char *llc_origin(const info *in)
{
    const tc_mb_profile *p = &in->profile;
    if (in->overridden)
        return "set by --cache-size";
    return p->source[p->used.nlevels - 1] == TC_LEVEL_MEASURED ? "measured" : "detected";
}

static const char *profile_origin(const info *in)
{
    if (in->origin.loaded)
        return "loaded";
    return in->origin.saved ? "measured now, saved" : "measured now, not saved";
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
    static const char *const headers[] = {"level",          "bytes",         "size",
                                          "line",           "ways",          "shared_by",
                                          "measured_bytes", "measured_size", "latency_ns",
                                          "used_bytes",     "used",          "check"};
    const tc_hardware *hw = &in->profile.detected;
    const tc_mb_profile *p = &in->profile;
    tc_table *t = tc_table_new(12, headers, "snsnnnnsnnss");
    if (!t)
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    int bad = 0;
    for (int k = 0; k < in->rows; k++) {
        char level[16], bytes[32] = "-", size[32] = "-", line[16] = "-", ways[16] = "-",
                        shared[16] = "-", mbytes[32] = "-", msize[32] = "-", lat[32] = "-",
                        ubytes[32] = "-", used[32] = "-";
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
        if (measured_bytes(p, k) > 0) {
            snprintf(mbytes, sizeof mbytes, "%" PRId64, measured_bytes(p, k));
            human_bytes(measured_bytes(p, k), msize, sizeof msize);
        }
        if (k < p->xray.nlevels)
            snprintf(lat, sizeof lat, "%.3g", p->xray.latency_ns[k]);
        int u = in->used_row[k];
        if (u >= 0) {
            int last = u == p->used.nlevels - 1;
            int64_t b = last && in->overridden ? in->llc_bytes : p->used.level[u].bytes;
            snprintf(ubytes, sizeof ubytes, "%" PRId64, b);
            snprintf(used, sizeof used, "%s",
                     last && in->overridden                       ? "--cache-size"
                     : p->source[u] == TC_LEVEL_MEASURED          ? "measured"
                                                                  : "detected");
        }
        bad |= tc_table_addf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", level, bytes,
                             size, line, ways, shared, mbytes, msize, lat, ubytes, used,
                             in->check[k]);
    }
    if (!bad)
        bad |= tc_table_addf(t, "memory\t-\t-\t-\t-\t-\t-\t-\t%.3g\t-\t-\t-",
                             p->xray.latency_ns[p->xray.nlevels]);
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
    const tc_mb_profile *p = &in->profile;
    const tc_hardware *hw = &p->detected;
    const tc_blas *b = in->blas;
    const tc_timer *t = &in->timer;
    char size[32];
    if (f == TC_FMT_TABLE)
        fputc('\n', out);
    kv(out, f, "cache_source", "%s", hw->source);
    human_bytes(in->llc_bytes, size, sizeof size);
    kv(out, f, "llc_bytes", "%" PRId64 " (%s, L%d, %s; detected %" PRId64 ")", in->llc_bytes,
       size, p->used.level[p->used.nlevels - 1].level, llc_origin(in), hw->llc_bytes);
    kv(out, f, "line_bytes", "%d", p->used.line_bytes);
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
    kv(out, f, "profile", "%s", in->origin.path[0] ? in->origin.path : "-");
    kv(out, f, "profile_origin", "%s", profile_origin(in));
    kv(out, f, "profile_measure_seconds", "%.2f", p->measure_seconds);
    kv(out, f, "measured_line_bytes", p->xray.line_bytes ? "%d" : "- (could not tell)",
       p->xray.line_bytes);
    kv(out, f, "measured_levels", "%d", p->xray.nlevels);
    kv(out, f, "stream_prefetch_lines", "%d", p->stream_lines);
    kv(out, f, "tlb_pages", "%lld (4 KiB pages the TLB keeps)", (long long)p->tlb_pages);
    kv(out, f, "peak_gflops", "%.4g (dgemm, one thread)", p->peak_flops * 1e-9);
    if (p->cpu_peak_flops > 0.0)
        kv(out, f, "cpu_peak_gflops", "%.4g (%s FMA loop, one thread)", p->cpu_peak_flops * 1e-9,
           p->cpu_peak_width);
    kv(out, f, "blas_kernels", "%s", p->blas_kernels[0] ? p->blas_kernels : "-");
    for (int k = 0; k < p->nkernel; k++)
        kv(out, f, "kernel_gflops", "%s %.4g (dgemm, one thread)", p->kernel_name[k],
           p->kernel_flops[k] * 1e-9);
    kv(out, f, "memory_gb_per_s", "%.4g (streaming read, one thread)",
       p->memory_bandwidth * 1e-9);
    kv(out, f, "update_gb_per_s", "%.4g (read and written back in place, both ways)",
       p->update_bandwidth * 1e-9);
    char edge[TC_EDGE_POINTS * 8 + 64] = "- (not measured: the LLC keeps all or nothing)";
    if (tc_mb_edge_known(p->llc_edge)) {
        int len = 0;
        for (int k = 0; k < TC_EDGE_POINTS; k++)
            len += snprintf(edge + len, sizeof edge - (size_t)len, "%s%.2f", k ? " " : "",
                            p->llc_edge[k]);
        snprintf(edge + len, sizeof edge - (size_t)len, " (LLC kept at %g..%g x its size)",
                 TC_EDGE_FIRST, TC_EDGE_FIRST + TC_EDGE_STEP * (TC_EDGE_POINTS - 1));
    }
    kv(out, f, "llc_edge", "%s", edge);
    if (in->origin.note[0])
        kv(out, f, "note", "profile: %s", in->origin.note);
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
    const tc_mb_profile *p = &in->profile;
    const tc_hardware *hw = &p->detected;
    const tc_blas *b = in->blas;
    const tc_timer *t = &in->timer;
    fputs("{\n  \"caches\": [\n", out);
    for (int k = 0; k < hw->nlevels; k++) {
        const tc_cache_level *l = &hw->level[k];
        fprintf(out,
                "    {\"level\": %d, \"bytes\": %" PRId64 ", \"line_bytes\": %d, \"ways\": %d, "
                "\"shared_by\": %d",
                l->level, l->bytes, l->line_bytes, l->ways, l->shared_by);
        if (measured_bytes(p, k) > 0)
            fprintf(out, ", \"measured_bytes\": %" PRId64, measured_bytes(p, k));
        else
            fputs(", \"measured_bytes\": null", out);
        if (k < p->xray.nlevels)
            fprintf(out, ", \"latency_ns\": %.6g", p->xray.latency_ns[k]);
        else
            fputs(", \"latency_ns\": null", out);
        int u = in->used_row[k];
        if (u >= 0)
            fprintf(out, ", \"used_bytes\": %" PRId64 ", \"used\": \"%s\"",
                    u == p->used.nlevels - 1 ? in->llc_bytes : p->used.level[u].bytes,
                    u == p->used.nlevels - 1 && in->overridden ? "--cache-size"
                    : p->source[u] == TC_LEVEL_MEASURED        ? "measured"
                                                               : "detected");
        else
            fputs(", \"used_bytes\": null, \"used\": null", out);
        fputs(", \"check\": ", out);
        tc_cli_json_string(out, in->check[k]);
        fputs(k + 1 < hw->nlevels ? "},\n" : "}\n", out);
    }
    fputs("  ],\n", out);
    json_kv_string(out, "  ", "cache_source", hw->source, 1);
    fprintf(out, "  \"llc_bytes\": %" PRId64 ",\n  \"llc_detected_bytes\": %" PRId64
                 ",\n  \"llc_overridden\": %s,\n",
            in->llc_bytes, hw->llc_bytes, in->overridden ? "true" : "false");
    json_kv_string(out, "  ", "llc_origin", llc_origin(in), 1);
    fprintf(out, "  \"line_bytes\": %d,\n", p->used.line_bytes);
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
    fputs("  \"profile\": {\n", out);
    json_kv_string(out, "    ", "path", in->origin.path, 1);
    json_kv_string(out, "    ", "origin", profile_origin(in), 1);
    const tc_xray *x = &p->xray;
    fprintf(out, "    \"line_bytes\": %d,\n    \"levels\": [", x->line_bytes);
    for (int k = 0; k < x->nlevels; k++)
        fprintf(out, "%s{\"bytes\": %" PRId64 ", \"latency_ns\": %.6g}", k ? ", " : "",
                x->bytes[k], x->latency_ns[k]);
    fprintf(out,
            "],\n    \"memory_latency_ns\": %.6g,\n    \"stream_prefetch_lines\": %d,\n"
            "    \"tlb_pages\": %" PRId64 ",\n"
            "    \"peak_flops\": %.6g,\n    \"memory_bytes_per_s\": %.6g,\n"
            "    \"update_bytes_per_s\": %.6g,\n    \"llc_edge\": [",
            x->latency_ns[x->nlevels], p->stream_lines, p->tlb_pages, p->peak_flops,
            p->memory_bandwidth, p->update_bandwidth);
    for (int k = 0; k < TC_EDGE_POINTS && tc_mb_edge_known(p->llc_edge); k++)
        fprintf(out, "%s%.6g", k ? ", " : "", p->llc_edge[k]);
    fprintf(out, "],\n    \"seconds\": %.6g\n  },\n", p->measure_seconds);
    fputs("  \"notes\": [", out);
    int first = 1;
    char note[2 * TC_ERROR_MESSAGE_MAX];
    if (in->origin.note[0]) {
        snprintf(note, sizeof note, "profile: %s", in->origin.note);
        tc_cli_json_string(out, note);
        first = 0;
    }
    if (in->hw_note[0]) {
        snprintf(note, sizeof note, "cache description from %s: %s", hw->source, in->hw_note);
        fputs(first ? "" : ", ", out);
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

/* info --rules: the sampler's rules (microbench/rules.h), in the order they
 * apply, each with its switch. */
static int print_rules(const tc_cli *cli)
{
    FILE *out = tc_cli_open_output(cli);
    if (!out)
        return TC_ERESOURCE;
    int json = cli->format == TC_FMT_JSON;
    fputs(json ? "[\n" : "rule\tswitch\tsummary\tdoc\n", out);
    for (int r = 0; r < TC_RULE_COUNT; r++) {
        const tc_mb_rule_info *ri = tc_mb_rule_get(r);
        if (json)
            fprintf(out,
                    "  {\"rule\": \"%s\", \"switch\": \"--model full,-%s\", \"summary\": "
                    "\"%s\", \"doc\": \"docs/prediction.md: %s\"}%s\n",
                    ri->name, ri->name, ri->summary, ri->doc, r + 1 < TC_RULE_COUNT ? "," : "");
        else
            fprintf(out, "%s\t--model full,-%s\t%s\tdocs/prediction.md: %s\n", ri->name,
                    ri->name, ri->summary, ri->doc);
    }
    if (json)
        fputs("]\n", out);
    else
        fprintf(out, "# rules %d (all on by default; --model full,-RULE switches one off)\n",
                TC_RULE_COUNT);
    return tc_cli_close_output(out);
}

int tc_cmd_info(const tc_cli *cli)
{
    info in;
    tc_error err;
    memset(&in, 0, sizeof in);
    if (cli->npositional > 0)
        return tc_cli_failf(TC_EUSAGE,
                            "info takes no arguments, not '%s' (try 'tcgen info --help')",
                            cli->positional[0]);
    if (cli->rules)
        return print_rules(cli);
    tc_hardware hw;
    tc_mb_hardware_detect(&hw, &err);
    snprintf(in.hw_note, sizeof in.hw_note, "%s", err.message);
    in.overridden = cli->cache_size != NULL;
    int rc = tc_cli_cache_size(cli, &hw);
    if (rc)
        return rc;
    if (tc_plan_blas_open(cli->blas, cli->threads, &in.blas, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    if (tc_rt_timer_init(&in.timer, &err) != TC_OK) {
        tc_rt_blas_unload(in.blas);
        return tc_cli_fail(&err, NULL);
    }
    int progress = !cli->quiet && isatty(STDERR_FILENO);
    if (tc_mb_profile_get(in.blas, &in.timer, cli->measure,
                          progress ? tc_cli_profile_progress : NULL, NULL, &in.profile,
                          &in.origin, &err) != TC_OK) {
        tc_rt_blas_unload(in.blas);
        return tc_cli_fail(&err, "measuring the machine profile");
    }
    in.llc_bytes = in.overridden ? hw.llc_bytes : in.profile.used.llc_bytes;
    compare(&in);
    char kernels[TC_ERROR_MESSAGE_MAX];
    if (tc_mb_profile_kernels_note(&in.profile, kernels, sizeof kernels))
        add_note(&in, "%s", kernels); /* the BLAS runs below this CPU's ability */
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
