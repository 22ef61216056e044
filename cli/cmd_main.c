/*
 * cmd_main.c - `tcgen CONTRACTION SIZES`, the main job.
 *
 * Until prediction exists (issue "Cache-aware micro-benchmarks") the main job
 * cannot rank algorithms, so it prints the parsed contraction and says so.
 */
#include "cli.h"
#include "commands.h"

int tc_cmd_main(const tc_cli *cli)
{
    tc_contraction c;
    int rc = tc_cli_load(cli, 1, &c);
    if (rc)
        return rc;
    if (!cli->quiet)
        fputs("tcgen: note: ranking by predicted time is not built yet; "
              "showing the parsed contraction\n", stderr);
    return tc_cli_print_contraction(cli, &c);
}
