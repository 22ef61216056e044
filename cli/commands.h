/* commands.h - one run function per subcommand (cli/cmd_<name>.c). */
#ifndef TC_CLI_COMMANDS_H
#define TC_CLI_COMMANDS_H

#include "cli.h"

int tc_cmd_parse(const tc_cli *cli);
int tc_cmd_main(const tc_cli *cli);
int tc_cmd_list(const tc_cli *cli);
int tc_cmd_emit(const tc_cli *cli);

/* Prints the IR in cli->format to -o FILE or stdout (cmd_parse.c). */
int tc_cli_print_contraction(const tc_cli *cli, const tc_contraction *c);

#endif
