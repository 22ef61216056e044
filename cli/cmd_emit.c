/* cmd_emit.c - `tcgen emit CONTRACTION SIZES --algorithm NAME [-o FILE]`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"

/* kernel: the set holds only that kernel's algorithms (-1: all kernels). */
static int unknown(const char *name, const tc_algorithm_set *set, int kernel)
{
    char filter[64] = "";
    if (kernel >= 0)
        snprintf(filter, sizeof filter, " --kernels %s", tc_kernel_name((tc_kernel)kernel));
    char some[512] = "";
    size_t len = 0;
    int shown = set ? (set->count < 6 ? set->count : 6) : 0;
    for (int i = 0; i < shown && len < sizeof some; i++)
        len += (size_t)snprintf(some + len, sizeof some - len, "%s%s", i ? ", " : "",
                                set->alg[i]->name);
    if (shown)
        return tc_cli_failf(TC_EINPUT,
                            "no algorithm named '%s' for this contraction; valid names "
                            "include %s%s ('tcgen list CONTRACTION%s' shows all %d)",
                            name, some, set->count > shown ? ", ..." : "", filter, set->count);
    return tc_cli_failf(TC_EINPUT,
                        "no algorithm named '%s' for this contraction ('tcgen list "
                        "CONTRACTION' shows the names)", name);
}

typedef struct emit_job {
    const tc_algorithm *alg;
    const tc_contraction *c;
    tc_emit_options opt;
} emit_job;

static tc_status emit_job_run(const void *data, FILE *out, tc_error *err)
{
    const emit_job *j = data;
    return tc_emit_c(j->alg, j->c, &j->opt, out, err);
}

int tc_cmd_emit(const tc_cli *cli)
{
    if (!cli->algorithm)
        return tc_cli_failf(TC_EUSAGE, "emit needs --algorithm NAME ('tcgen list CONTRACTION' "
                                       "shows the names; try 'tcgen emit --help')");
    tc_contraction c;
    int row_major = 0;
    int rc = tc_cli_check_emit_names(cli);
    if (!rc)
        rc = tc_cli_load(cli, 1, &c);
    if (!rc)
        rc = tc_cli_layout(cli, &row_major);
    if (rc)
        return rc;
    if (row_major)
        tc_contraction_transpose(&c, &c);
    tc_error err;
    tc_algorithm_set *set = NULL;
    int k = tc_cli_name_kernel(cli->algorithm);
    unsigned mask = k >= 0 ? 1u << k : TC_KERNEL_MASK_ALL;
    if (tc_gen_enumerate_families(&c, mask, TC_FAMILY_MASK_ALL, &set, &err) != TC_OK)
        return k >= 0 ? tc_cli_fail(&err, NULL) : unknown(cli->algorithm, NULL, -1);
    const tc_algorithm *alg = tc_gen_find(set, &c, cli->algorithm);
    if (!alg) {
        if (k >= 0 && set->count == 0) { /* no such kernel here: suggest others */
            tc_algorithm_set *all = NULL;
            if (tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &all,
                                          &err) == TC_OK) {
                rc = unknown(cli->algorithm, all, -1);
                tc_alg_set_free(all);
                tc_alg_set_free(set);
                return rc;
            }
        }
        rc = unknown(cli->algorithm, set, k);
        tc_alg_set_free(set);
        return rc;
    }
    emit_job job = {alg, &c, {0}};
    job.opt.function = cli->function;
    job.opt.generic = cli->generic;
    job.opt.keep_temporaries = cli->keep_temporaries;
    job.opt.strides = tc_cli_strides_param(cli);
    job.opt.row_major = row_major;
    char *cmd = tc_cli_command_line(cli);
    job.opt.command_line = cmd;
    rc = cmd ? tc_cli_write_c(cli, emit_job_run, &job) : tc_cli_failf(TC_ERESOURCE, "out of memory");
    /* --fortran FILE: written only when the C was */
    if (!rc && cli->fortran)
        rc = tc_cli_write_fortran(cli, alg, &c, &job.opt);
    free(cmd);
    tc_alg_set_free(set);
    return rc;
}
