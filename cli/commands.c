/* commands.c - the table of subcommands; a new one is one file plus one entry. */
#include "cli.h"
#include "commands.h"

const tc_command tc_commands[] = {
    {"parse", "parse CONTRACTION [SIZES] [--format table|tsv|json]",
     "Prints the contraction as tcgen understands it: its normal form, each\n"
     "index's role (free_a, free_b, contracted, batch) and size, and each\n"
     "tensor's indices, column-major strides (in elements) and bytes.\n",
     tc_cmd_parse},
    {NULL, NULL, NULL, NULL},
};
