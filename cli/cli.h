/*
 * cli.h - the tcgen command: shared option block and helpers for the
 * subcommands. cli/ is the only folder that prints or exits.
 */
#ifndef TC_CLI_H
#define TC_CLI_H

#include <stdio.h>

#include "ast/contraction.h"
#include "generator/generator.h"

typedef enum { TC_FMT_TABLE, TC_FMT_TSV, TC_FMT_JSON } tc_format;

#define TC_CLI_MAX_POSITIONAL 32

/* Everything the command line said, after option parsing. */
typedef struct tc_cli {
    const char *command;        /* subcommand name ("" for the main job) */
    int npositional;
    const char *positional[TC_CLI_MAX_POSITIONAL];
    tc_format format;           /* table when stdout is a terminal, else tsv */
    const char *file;           /* -f FILE */
    const char *output;         /* -o FILE */
    const char *blas;           /* --blas, NULL = default */
    int threads;                /* --threads, default 1 */
    int quiet, verbose;         /* -q, -v */
    int allow_unused;           /* --allow-unused: a size for an index the
                                   contraction does not use is a warning */
    const char *algorithm;      /* --algorithm NAME */
    const char *function;       /* --function NAME */
    const char *kernels;        /* --kernels dgemm,dgemv,... */
    const char *family;         /* --family paper|all */
    const char *model;          /* --model LEVEL[,-RULE...]: warm|access|prefetch|
                                   failures|full, rules switched off (rules.h) */
    const char *reps;           /* --reps N (validated by the command) */
    const char *cache_size;     /* --cache-size BYTES: last-level cache override */
    const char *flush;          /* --flush clflush|remote: how cases evict */
    const char *time_limit;     /* --time-limit SECONDS per measured algorithm */
    const char *sweep;          /* --sweep 'a=b=c=8:1000:64' or 'i=8,64,512' */
    const char *plot;           /* --plot FILE.svg|FILE.png */
    int measure;                /* --measure */
    int rules;                  /* --rules (info): the sampler's rules */
    const char *candidates;     /* --candidates N: algorithms --measure runs */
    const char *wisdom;         /* --wisdom FILE: decisions read and added */
    const char *layout;         /* --layout row|col */
    const char *strides;        /* --strides 'C=1,40,1800;A=1,40': views (tiles) */
    const char *type;           /* --type s|d|c|z: the elements' type */
    int generic;                /* --generic: sizes as parameters */
    const char *repeat;         /* --repeat N: independent predictions (predict) */
    const char *fortran;        /* --fortran FILE: Fortran interface of the emitted C */
    const char *workspace;      /* --workspace BYTES: the temporaries' budget */
    int keep_temporaries;       /* --keep-temporaries: emitted C keeps them */
    int prune;                  /* --prune (wisdom): this machine's entries only */
    int argc;                   /* the original command line, for headers */
    char **argv;
} tc_cli;

/* A subcommand: its run function returns the exit status. */
typedef struct tc_command {
    const char *name;
    const char *synopsis;       /* one line, after "tcgen " */
    const char *help;           /* the rest of --help */
    int (*run)(const tc_cli *cli);
    const char *options;        /* the options it takes besides -h, --help,
                                   --version, -q, -v: "-o --format ..." (long
                                   names; -f and -o stand for --file, --output) */
} tc_command;

/* The table of subcommands, NULL-name terminated, and the main job
 * (`tcgen CONTRACTION SIZES`) described the same way (commands.c). */
extern const tc_command tc_commands[];
extern const tc_command tc_main_job;

/* --sweep: indices set to each of a list of values in turn. */
#define TC_SWEEP_MAX_POINTS 1000
typedef struct tc_sweep {
    int nnames;
    char names[TC_MAX_INDICES][TC_NAME_MAX];
    char label[TC_MAX_INDICES * TC_NAME_MAX];   /* "a=b=c" */
    int npoints;
    int64_t value[TC_SWEEP_MAX_POINTS];
} tc_sweep;

/* Parses --sweep 'a=b=c=8:1000:64' (start:stop:step) or 'i=8,64,512'. On
 * error prints it and returns the exit status (2). */
int tc_cli_sweep_parse(const char *spec, tc_sweep *sw);

/*
 * Loads the problem: the contraction from -f FILE or positional[0], and the
 * sizes from the file and/or the remaining positionals. need_sizes: 1 if
 * every index must have a size. On error prints the message and returns the
 * exit status (non-zero); on success returns 0.
 */
int tc_cli_load(const tc_cli *cli, int need_sizes, tc_contraction *out);

/* tc_cli_load with sizes, where the indices of sw (if not NULL) take their
 * value at `point` instead of any size given for them. */
int tc_cli_load_at(const tc_cli *cli, const tc_sweep *sw, int point, tc_contraction *out);

/* How list and explain loaded a contraction whose operands the TAPP
 * interface maps (conj, a diagonal, an index summed out): a line per
 * operand, and the contraction the plan computes (n 0: none mapped). */
typedef struct tc_cli_mapping {
    int n;
    char line[2][768];
    char plan[512];
} tc_cli_mapping;

/* tc_cli_load, where such a contraction loads as the one its plan
 * computes and *m says how (cli/mapped.c). */
int tc_cli_load_mapped(const tc_cli *cli, int need_sizes, tc_contraction *out,
                       tc_cli_mapping *m);

/* m's lines (table; '#' lines in tsv; nothing in json). */
void tc_cli_print_mapping(const tc_cli *cli, FILE *out, const tc_cli_mapping *m);

/* Prints "tcgen: error: [where:]line:col: message" and returns the exit status. */
int tc_cli_fail(const tc_error *err, const char *where);

/* Prints "tcgen: error: message" (printf-style) and returns `status`. */
int tc_cli_failf(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "tcgen: warning: ..." unless -q. */
void tc_cli_warn(const tc_cli *cli, const tc_error *w, const char *where);

/* Opens -o FILE (or stdout); returns NULL after printing an error. */
FILE *tc_cli_open_output(const tc_cli *cli);
/* Closes what tc_cli_open_output gave; returns exit status (3 on I/O error). */
int tc_cli_close_output(FILE *f);

/* --fortran FILE: the Fortran interface of alg written whole through the
 * one file writer (runtime/file.h). Returns the exit status. */
int tc_cli_write_fortran(const tc_cli *cli, const tc_algorithm *alg, const tc_contraction *c,
                         const tc_emit_options *opt);

/* The command line, shell-quoted where needed, for emitted headers
 * (malloc'ed; NULL when out of memory). */
char *tc_cli_command_line(const tc_cli *cli);

/* --function and --fortran of emit and the main job, checked before any
 * work (a bad name found after ranking wastes the ranking). Returns the
 * exit status. */
int tc_cli_check_emit_names(const tc_cli *cli);

/* --kernels and --family as masks (every kernel, every family when not
 * given). Returns the exit status. */
int tc_cli_masks(const tc_cli *cli, unsigned *kernels, unsigned *families);

/* --layout: *row_major 1 for row, 0 for col (the default); on a bad value
 * prints it and returns 2. */
int tc_cli_layout(const tc_cli *cli, int *row_major);

/* Whether emitted C takes the strides as parameters: --strides param, or
 * --strides SPEC with --generic (sizes that vary make constant strides
 * meaningless). */
int tc_cli_strides_param(const tc_cli *cli);

/* Runs emit(data, out) into memory, then writes the text to -o FILE or
 * stdout (nothing is written on error). Returns the exit status. */
int tc_cli_write_c(const tc_cli *cli,
                   tc_status (*emit)(const void *data, FILE *out, tc_error *err),
                   const void *data);

/* Writes s as a JSON string literal (with quotes). */
void tc_cli_json_string(FILE *f, const char *s);

#endif
