/* select.c - the algorithms a command works on: --kernels, --algorithm. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "generator/generator.h"
#include "runtime/memory.h"
#include "runtime/cpus.h"
#include "runtime/memory_limit.h"

int tc_cli_select(const tc_cli *cli, const tc_contraction *c, tc_algorithm_set **set,
                  const tc_algorithm ***sel, int *n)
{
    unsigned mask, families;
    tc_error err;
    *set = NULL;
    *sel = NULL;
    *n = 0;
    int64_t avail;
    const char *from;
    int rc = tc_cli_masks(cli, &mask, &families);
    if (!rc)
        rc = tc_cli_workspace(cli, &avail, &from);
    if (rc)
        return rc;
    if (tc_gen_enumerate_families(c, mask, families, set, &err) != TC_OK)
        return tc_cli_fail_enumerate(&err);
    /* with threads, the loops split over them too (generator.h) */
    int threads = tc_cli_threads(cli);
    if (threads > 1 && tc_gen_add_threaded(*set, c, threads, &err) != TC_OK) {
        tc_alg_set_free(*set);
        *set = NULL;
        return tc_cli_fail(&err, NULL);
    }
    *sel = calloc((size_t)(*set)->count + 1, sizeof **sel);
    if (!*sel) {
        tc_alg_set_free(*set);
        *set = NULL;
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    int skipped = 0, no_memory = 0;
    for (int i = 0; i < (*set)->count; i++) {
        const tc_algorithm *a = (*set)->alg[i];
        if (cli->algorithm && strcmp(a->name, cli->algorithm) != 0)
            continue;
        if (!a->fits_int)
            skipped++;
        else if (!tc_alg_temps_fit(a, avail))
            no_memory++;
        else
            (*sel)[(*n)++] = a;
    }
    if (cli->algorithm && *n == 0 && !skipped && !no_memory) {
        free(*sel);
        tc_alg_set_free(*set);
        *sel = NULL;
        *set = NULL;
        return tc_cli_failf(TC_EINPUT, "no algorithm named '%s' (see 'tcgen list')",
                            cli->algorithm);
    }
    if (skipped && !cli->quiet)
        fprintf(stderr, "tcgen: warning: %d algorithms skipped: a BLAS dimension exceeds "
                        "INT_MAX\n", skipped);
    if (!cli->quiet)
        tc_cli_report_no_memory(stderr, "tcgen: warning: ", no_memory, avail, from);
    return 0;
}

int tc_cli_workspace(const tc_cli *cli, int64_t *bytes, const char **from)
{
    tc_error err;
    if (!cli->workspace)
        return tc_rt_workspace_from_env(bytes, from, &err) == TC_OK ? 0 : tc_cli_fail(&err, NULL);
    *from = "--workspace";
    if (tc_rt_parse_bytes(cli->workspace, bytes) == 0)
        return 0;
    return tc_cli_failf(TC_EUSAGE, "usage: --workspace needs a byte count, digits with an "
                                   "optional K, M, G or T (powers of 1024), e.g. 512M or 0; "
                                   "not '%s'", cli->workspace);
}

void tc_cli_report_no_memory(FILE *out, const char *lead, int count, int64_t bytes,
                             const char *from)
{
    if (count)
        fprintf(out, "%s%d algorithm%s not candidates: their temporaries need more than the "
                     "%lld bytes of %s\n", lead, count, count == 1 ? " is" : "s are",
                (long long)bytes, from);
}

int tc_cli_threads(const tc_cli *cli)
{
    return cli->threads > 0 ? cli->threads : tc_rt_process_cpus();
}

int tc_cli_name_kernel(const char *name)
{
    char base[512];
    if (tc_alg_split_name(name, base, sizeof base))
        name = base;
    const char *dash = strrchr(name, '-');
    return tc_kernel_from_name(dash ? dash + 1 : name, NULL);
}

int tc_cli_fail_enumerate(const tc_error *err)
{
    tc_error e = *err;
    size_t n = strlen(e.message);
    if (e.code == TC_EINPUT && n < sizeof e.message)
        snprintf(e.message + n, sizeof e.message - n, "; restrict --kernels or use fewer "
                                                      "indices");
    return tc_cli_fail(&e, NULL);
}

int tc_cli_measure_options(const tc_cli *cli, tc_measure_options *o)
{
    o->reps = 5;
    o->time_limit_s = 10.0;
    if (cli->reps) {
        char *end;
        long r = strtol(cli->reps, &end, 10);
        if (*cli->reps == '\0' || *end != '\0' || r < 1 || r > 1000)
            return tc_cli_failf(TC_EUSAGE, "usage: --reps needs a whole number from 1 to "
                                           "1000, not '%s'", cli->reps);
        o->reps = (int)r;
    }
    if (cli->time_limit) {
        char *end;
        double t = strtod(cli->time_limit, &end);
        if (*cli->time_limit == '\0' || *end != '\0' || !(t > 0) || t > 1e6)
            return tc_cli_failf(TC_EUSAGE, "usage: --time-limit needs seconds above 0 and at "
                                           "most 1000000, not '%s'", cli->time_limit);
        o->time_limit_s = t;
    }
    return 0;
}
