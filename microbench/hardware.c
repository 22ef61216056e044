/*
 * hardware.c - the cache hierarchy from hwloc, else from Linux sysfs, else
 * defaults (hardware.h). Only data and unified caches count; the levels
 * are those of the caches above CPU 0 (the first CPU when 0 is absent).
 */
#include "microbench/hardware.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast/error.h"

#define SYSFS_CACHE "/sys/devices/system/cpu/cpu0/cache"
#define SYSFS_MAX_INDEX 32   /* index0 .. index31 */
#define DEFAULT_L1 (32 * 1024)
#define DEFAULT_LLC (8 * 1024 * 1024)
#define DEFAULT_LINE 64

static void copy_text(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

/* A CPU name without the padding CPUs put in it ("Processor      "): white
 * space trimmed at both ends and runs of it made one space, since the name
 * reaches emitted headers and wisdom keys. */
static void copy_name(char *dst, size_t n, const char *src)
{
    size_t k = 0;
    int space = 0;
    if (n == 0)
        return;
    for (const char *p = src ? src : ""; *p && k + 1 < n; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            space = k > 0;
            continue;
        }
        if (space && k + 2 < n)
            dst[k++] = ' ';
        space = 0;
        dst[k++] = *p;
    }
    dst[k] = '\0';
}

static int valid_line(long v)
{
    return v >= 8 && v <= 4096 && (v & (v - 1)) == 0;
}

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 1 << 20 ? (int)n : 1;
}

/* "model name : AMD EPYC ..." from /proc/cpuinfo; "" when there is none. */
static void cpuinfo_model(char *buf, size_t n)
{
    char line[512];
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        copy_name(buf, n, v);
        break;
    }
    fclose(f);
}

/* Sorts the levels by level number, keeps the first of a level, and sets
 * llc_bytes and line_bytes. */
static void finish(tc_hardware *hw)
{
    for (int i = 1; i < hw->nlevels; i++)
        for (int j = i; j > 0 && hw->level[j].level < hw->level[j - 1].level; j--) {
            tc_cache_level t = hw->level[j];
            hw->level[j] = hw->level[j - 1];
            hw->level[j - 1] = t;
        }
    int kept = 0;
    for (int i = 0; i < hw->nlevels; i++)
        if (kept == 0 || hw->level[i].level != hw->level[kept - 1].level)
            hw->level[kept++] = hw->level[i];
    hw->nlevels = kept;
    hw->llc_bytes = hw->level[kept - 1].bytes;
    hw->line_bytes = DEFAULT_LINE;
    for (int i = kept - 1; i >= 0; i--) /* L1's line, else the nearest level's */
        if (valid_line(hw->level[i].line_bytes))
            hw->line_bytes = hw->level[i].line_bytes;
}

static void set_defaults(tc_hardware *hw)
{
    static const tc_cache_level levels[2] = {
        {1, DEFAULT_L1, DEFAULT_LINE, 0, 0},
        {2, DEFAULT_LLC, DEFAULT_LINE, 0, 0},
    };
    hw->nlevels = 2;
    memcpy(hw->level, levels, sizeof levels);
    copy_text(hw->source, sizeof hw->source, "default");
    finish(hw);
}

/* ---- hwloc ---------------------------------------------------------- */

static int from_hwloc(tc_hardware *hw, char *why, size_t n)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(why, n, "hwloc: cannot initialise a topology");
        return -1;
    }
    if (hwloc_topology_load(topo) != 0) {
        snprintf(why, n, "hwloc: cannot load the topology: %s", strerror(errno));
        hwloc_topology_destroy(topo);
        return -1;
    }
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, 0);
    if (!pu)
        pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
    hw->nlevels = 0;
    for (hwloc_obj_t o = pu ? pu->parent : NULL; o && hw->nlevels < TC_MB_MAX_LEVELS;
         o = o->parent) {
        if (!hwloc_obj_type_is_dcache(o->type) || !o->attr ||
            o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION || o->attr->cache.size == 0 ||
            o->attr->cache.size > (hwloc_uint64_t)INT64_MAX)
            continue;
        tc_cache_level *l = &hw->level[hw->nlevels++];
        l->level = (int)o->attr->cache.depth;
        l->bytes = (int64_t)o->attr->cache.size;
        unsigned line = o->attr->cache.linesize;
        l->line_bytes = valid_line((long)line) ? (int)line : 0;
        l->ways = o->attr->cache.associativity >= -1 ? o->attr->cache.associativity : 0;
        int w = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;
        l->shared_by = w > 0 ? w : 0;
    }
    if (hw->nlevels == 0) {
        snprintf(why, n, "hwloc: no data or unified cache above the first CPU");
        hwloc_topology_destroy(topo);
        return -1;
    }
    int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    hw->cpus = pus > 0 ? pus : online_cpus();
    const char *model = NULL;
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    if (pkg)
        model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
    if (!model)
        model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
    if (model)
        copy_name(hw->cpu_model, sizeof hw->cpu_model, model);
    else
        cpuinfo_model(hw->cpu_model, sizeof hw->cpu_model);
    copy_text(hw->source, sizeof hw->source, "hwloc");
    hwloc_topology_destroy(topo);
    return 0;
}

/* ---- sysfs ---------------------------------------------------------- */

/* Reads dir/name into buf without trailing white space; -1 when it is
 * missing, unreadable, empty or longer than buf. */
static int read_text(const char *dir, const char *name, char *buf, size_t n)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t len = fread(buf, 1, n - 1, f);
    int too_long = len == n - 1 && fgetc(f) != EOF;
    fclose(f);
    if (too_long)
        return -1;
    buf[len] = '\0';
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        buf[--len] = '\0';
    return len > 0 ? 0 : -1;
}

/* Digits only, up to `max`; *end gets what follows. -1 when none or too big. */
static int parse_digits(const char *s, long max, long *v, const char **end)
{
    long x = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (x > (max - (*p - '0')) / 10)
            return -1;
        x = 10 * x + (*p - '0');
    }
    if (p == s)
        return -1;
    *v = x;
    *end = p;
    return 0;
}

static int parse_int(const char *s, long max, long *v)
{
    const char *end;
    return parse_digits(s, max, v, &end) == 0 && *end == '\0' ? 0 : -1;
}

/* "48K", "1024K", "32M", "512": bytes, > 0. */
static int parse_size(const char *s, int64_t *bytes)
{
    long v;
    const char *end;
    int shift = 0;
    if (parse_digits(s, 1L << 30, &v, &end) != 0 || v == 0)
        return -1;
    if (*end == 'K')
        shift = 10;
    else if (*end == 'M')
        shift = 20;
    else if (*end == 'G')
        shift = 30;
    else if (*end != '\0')
        return -1;
    if (shift && end[1] != '\0')
        return -1;
    *bytes = (int64_t)v << shift;
    return 0;
}

/* "0", "0-1", "0-3,8-11": the number of CPUs listed; -1 when malformed. */
static int parse_cpu_list(const char *s)
{
    long count = 0;
    const char *p = s;
    for (;;) {
        long a, b;
        if (parse_digits(p, 1L << 20, &a, &p) != 0)
            return -1;
        b = a;
        if (*p == '-' && parse_digits(p + 1, 1L << 20, &b, &p) != 0)
            return -1;
        if (b < a)
            return -1;
        count += b - a + 1;
        if (count > 1L << 20)
            return -1;
        if (*p == '\0')
            return (int)count;
        if (*p != ',')
            return -1;
        p++;
    }
}

/* One index<k> directory: 1 a data or unified cache filled into *l, 0 not
 * one (missing, an instruction cache), -1 malformed (why says what). */
static int sysfs_index(const char *dir, tc_cache_level *l, char *why, size_t n)
{
    char text[256];
    long v;
    int64_t bytes;
    if (read_text(dir, "type", text, sizeof text) != 0)
        return 0;
    if (strcmp(text, "Instruction") == 0)
        return 0;
    if (strcmp(text, "Data") != 0 && strcmp(text, "Unified") != 0) {
        snprintf(why, n, "sysfs: %.200s/type: unknown cache type", dir);
        return -1;
    }
    if (read_text(dir, "level", text, sizeof text) != 0 || parse_int(text, 9, &v) != 0 ||
        v < 1) {
        snprintf(why, n, "sysfs: %.200s/level: missing or not a level from 1 to 9", dir);
        return -1;
    }
    l->level = (int)v;
    if (read_text(dir, "size", text, sizeof text) != 0 || parse_size(text, &bytes) != 0) {
        snprintf(why, n, "sysfs: %.200s/size: missing or not a size such as 48K", dir);
        return -1;
    }
    l->bytes = bytes;
    /* The rest is optional: 0 = unknown. */
    l->line_bytes = read_text(dir, "coherency_line_size", text, sizeof text) == 0 &&
                            parse_int(text, 4096, &v) == 0 && valid_line(v)
                        ? (int)v
                        : 0;
    l->ways = read_text(dir, "ways_of_associativity", text, sizeof text) == 0 &&
                      parse_int(text, 1L << 16, &v) == 0
                  ? (int)v
                  : 0;
    int shared = read_text(dir, "shared_cpu_list", text, sizeof text) == 0
                     ? parse_cpu_list(text)
                     : -1;
    l->shared_by = shared > 0 ? shared : 0;
    return 1;
}

static int from_sysfs(const char *root, tc_hardware *hw, char *why, size_t n)
{
    char dir[4096];
    char bad[TC_ERROR_MESSAGE_MAX] = "";
    hw->nlevels = 0;
    for (int k = 0; k < SYSFS_MAX_INDEX && hw->nlevels < TC_MB_MAX_LEVELS; k++) {
        if ((size_t)snprintf(dir, sizeof dir, "%s/index%d", root, k) >= sizeof dir)
            break;
        tc_cache_level l;
        char note[TC_ERROR_MESSAGE_MAX];
        int r = sysfs_index(dir, &l, note, sizeof note);
        if (r > 0)
            hw->level[hw->nlevels++] = l;
        else if (r < 0 && !bad[0]) /* the first malformed index says why */
            copy_text(bad, sizeof bad, note);
    }
    if (hw->nlevels == 0) {
        if (bad[0])
            snprintf(why, n, "%s", bad);
        else
            snprintf(why, n, "sysfs: no data or unified cache under %.200s", root);
        return -1;
    }
    hw->cpus = online_cpus();
    cpuinfo_model(hw->cpu_model, sizeof hw->cpu_model);
    copy_text(hw->source, sizeof hw->source, "sysfs");
    return 0;
}

/* ---- detection ------------------------------------------------------ */

tc_status tc_mb_hardware_detect_from(unsigned sources, const char *sysfs_root,
                                     tc_hardware *hw, tc_error *err)
{
    char notes[TC_ERROR_MESSAGE_MAX] = "";
    char why[TC_ERROR_MESSAGE_MAX];
    size_t len = 0;
    int found = 0;
    memset(hw, 0, sizeof *hw);
    if ((sources & TC_MB_HW_HWLOC) && !found) {
        why[0] = '\0';
        found = from_hwloc(hw, why, sizeof why) == 0;
        if (!found) {
            tc_text_put(notes, sizeof notes, &len, why);
            memset(hw, 0, sizeof *hw);
        }
    }
    if ((sources & TC_MB_HW_SYSFS) && !found) {
        why[0] = '\0';
        found = from_sysfs(sysfs_root ? sysfs_root : SYSFS_CACHE, hw, why, sizeof why) == 0;
        if (!found) {
            tc_text_put(notes, sizeof notes, &len, len ? "; " : "");
            tc_text_put(notes, sizeof notes, &len, why);
            memset(hw, 0, sizeof *hw);
        }
    }
    if (found) {
        finish(hw);
    } else {
        hw->cpus = online_cpus();
        cpuinfo_model(hw->cpu_model, sizeof hw->cpu_model);
        set_defaults(hw);
    }
    if (err) {
        tc_error_clear(err);
        copy_text(err->message, sizeof err->message, notes);
    }
    return TC_OK;
}

/* The machine does not change under a process: detected once, by the
 * first caller (every plan asks; hwloc's topology costs milliseconds and
 * many allocations each time). */
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static tc_hardware detected;
static tc_error detected_note;

static void detect_now(void)
{
    tc_mb_hardware_detect_from(TC_MB_HW_HWLOC | TC_MB_HW_SYSFS, NULL, &detected, &detected_note);
}

tc_status tc_mb_hardware_detect(tc_hardware *hw, tc_error *err)
{
    pthread_once(&detect_once, detect_now);
    *hw = detected;
    if (err)
        *err = detected_note;
    return TC_OK;
}

void tc_mb_hardware_signature(const tc_hardware *hw, char *buf, size_t n)
{
    if (n == 0)
        return;
    size_t len = (size_t)snprintf(buf, n, "%s", hw->cpu_model[0] ? hw->cpu_model : "unknown cpu");
    for (int l = 0; l < hw->nlevels && len < n; l++)
        len += (size_t)snprintf(buf + len, n - len, "|L%d %lldK", hw->level[l].level,
                                (long long)(hw->level[l].bytes / 1024));
    if (len < n)
        snprintf(buf + len, n - len, "|line %d|cpus %d", hw->line_bytes, hw->cpus);
    for (char *p = buf; *p; p++) /* one field of a line-based, tab-separated file */
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}
