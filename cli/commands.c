/* commands.c - the table of subcommands; a new one is one file plus one entry. */
#include "cli.h"
#include "commands.h"

const tc_command tc_commands[] = {
    {"parse", "parse CONTRACTION [SIZES] [--format table|tsv|json]",
     "Prints the contraction as tcgen understands it: its normal form, each\n"
     "index's role (free_a, free_b, contracted, batch) and size, and each\n"
     "tensor's indices, column-major strides (in elements) and bytes.\n",
     tc_cmd_parse},
    {"list", "list CONTRACTION [SIZES] [--kernels dgemm,dger,dgemv,daxpy,ddot]",
     "Lists every algorithm that computes the contraction as a loop nest around\n"
     "one BLAS kernel: name, kernel, loops (outer to inner) and copies into\n"
     "temporaries (TENSOR@INDEX: the loop whose body holds the copy; '@-' before\n"
     "all loops; '-' none), then a '#' line with the count per kernel. Names:\n"
     "looped indices outer to inner, an apostrophe after a loop that holds a\n"
     "copy, '-', the kernel (\"i'c-dgemm\"); a kernel without loops is named\n"
     "alone (\"dgemm\"). --kernels restricts the list to the kernels named.\n",
     tc_cmd_list},
    {"emit", "emit CONTRACTION SIZES --algorithm NAME [-o FILE] [--function NAME]",
     "Writes the named algorithm (see 'tcgen list') as one C99 function\n"
     "  int NAME(const double *A, const double *B, double *C)\n"
     "that calls CBLAS (default name: contraction), returning 0, or -1 when a\n"
     "temporary cannot be allocated. Compile it with any CBLAS library.\n",
     tc_cmd_emit},
    {NULL, NULL, NULL, NULL},
};
