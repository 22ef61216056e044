/*
 * cmd_wisdom.c - `tcgen wisdom FILE... [--prune] [-o FILE]`: wisdom files
 * read (each checked whole, as the library imports them), merged (a later
 * file's decision wins on a key), with --prune only this machine's kept,
 * and written as one wisdom text: print them, merge the files of several
 * runs or ranks, drop what other node types decided.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ast/error.h"
#include "cli.h"
#include "commands.h"
#include "microbench/hardware.h"
#include "planner/setup.h"
#include "planner/wisdom.h"

static tc_status put_text(const void *data, FILE *out, tc_error *err)
{
    if (fputs((const char *)data, out) == EOF)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "write error");
    return TC_OK;
}

int tc_cmd_wisdom(const tc_cli *cli)
{
    tc_error err;
    if (cli->npositional < 1)
        return tc_cli_failf(TC_EUSAGE, "usage: wisdom needs one or more wisdom FILEs "
                                       "(try 'tcgen wisdom --help')");
    tc_wisdom_forget();
    for (int k = 0; k < cli->npositional; k++)
        if (tc_wisdom_import_file(cli->positional[k], &err) != TC_OK)
            return tc_cli_fail(&err, cli->positional[k]);
    int pruned = 0;
    if (cli->prune) {
        tc_hardware hw;
        char machine[512];
        tc_mb_hardware_detect(&hw, NULL);
        tc_plan_machine_signature(&hw, machine, sizeof machine);
        pruned = tc_wisdom_keep_machine(machine);
    }
    int count = tc_wisdom_count();
    char *text = tc_wisdom_export_string(&err);
    if (!text)
        return tc_cli_fail(&err, NULL);
    int rc = tc_cli_write_c(cli, put_text, text);
    free(text);
    if (!rc && !cli->quiet)
        fprintf(stderr, "tcgen: %d decision%s from %d file%s", count, count == 1 ? "" : "s",
                cli->npositional, cli->npositional == 1 ? "" : "s");
    if (!rc && !cli->quiet)
        fprintf(stderr, cli->prune ? "; %d of other machines left out\n" : "\n", pruned);
    return rc;
}
