/* commands.h - one run function per subcommand (cli/cmd_<name>.c). */
#ifndef TC_CLI_COMMANDS_H
#define TC_CLI_COMMANDS_H

#include "cli.h"
#include "planner/measure.h"
#include "microbench/hardware.h"

int tc_cmd_parse(const tc_cli *cli);
int tc_cmd_main(const tc_cli *cli);
int tc_cmd_list(const tc_cli *cli);
int tc_cmd_emit(const tc_cli *cli);
int tc_cmd_info(const tc_cli *cli);
int tc_cmd_predict(const tc_cli *cli);
int tc_cmd_explain(const tc_cli *cli);
int tc_cmd_measure(const tc_cli *cli);
int tc_cmd_compare(const tc_cli *cli);
int tc_cmd_wisdom(const tc_cli *cli);

/* Prints the IR in cli->format to -o FILE or stdout (cmd_parse.c). */
int tc_cli_print_contraction(const tc_cli *cli, const tc_contraction *c);

/*
 * --cache-size BYTES (cmd_info.c): a whole number of bytes, optionally
 * followed by K, M, G or KiB, MiB, GiB (powers of 1024), from 1 B to 1 TiB.
 * Sets hw->llc_bytes and returns 0; without the option changes nothing;
 * otherwise prints "tcgen: usage: --cache-size needs ..." and returns 2.
 */
int tc_cli_cache_size(const tc_cli *cli, tc_hardware *hw);

/*
 * Enumerates the algorithms of c that --kernels and --algorithm select and
 * BLAS can run (the others are counted in a warning). *set and *sel are the
 * caller's (tc_alg_set_free, free). On error prints it and returns the exit
 * status.
 */
int tc_cli_select(const tc_cli *cli, const tc_contraction *c, tc_algorithm_set **set,
                  const tc_algorithm ***sel, int *n);

/* The workspace budget (docs/design.md §8): --workspace BYTES, else
 * $TCGEN_WORKSPACE, else the memory available (-1: unknown, no limit);
 * *from names which. An algorithm whose temporaries need more is not a
 * candidate. On error prints it and returns the exit status. */
int tc_cli_workspace(const tc_cli *cli, int64_t *bytes, const char **from);

/* "N not candidates: ..." for the algorithms of set over the budget, to
 * out as a '#' line (list) or as a warning; nothing when there are none. */
void tc_cli_report_no_memory(FILE *out, const char *lead, int count, int64_t bytes,
                             const char *from);

/* --reps (default 5) and --time-limit (default 10 s) for measuring; on error
 * prints it and returns the exit status. */
/* Reports a failed enumeration of a command that takes --kernels: too
 * many algorithms (TC_EINPUT) gets that remedy. Returns the exit code. */
int tc_cli_fail_enumerate(const tc_error *err);
/* The threads tcgen's calls run at: --threads or $TCGEN_THREADS, else the
 * CPUs the process may use (as the BLAS is loaded with). */
int tc_cli_threads(const tc_cli *cli);
/* The kernel an algorithm name ends in ("i'c-dgemm", or "c-dgemm@2" split
 * over threads -> dgemm), or -1. */
int tc_cli_name_kernel(const char *name);

int tc_cli_measure_options(const tc_cli *cli, tc_measure_options *o);

#endif
