/* main.c - the tcgen command: options, subcommand dispatch, --help, --version. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ctype.h>
#include <signal.h>
#include <errno.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"
#include "plot.h"

static const char usage_text[] =
    "usage: tcgen CONTRACTION SIZES [-o FILE]     emit the fastest algorithm as C\n"
    "       tcgen COMMAND [ARGS] [OPTIONS]\n"
    "\n"
    "CONTRACTION  'C[a,b,c] = A[a,i] * B[i,b,c]' or 'C_abc = A_ai B_ibc';\n"
    "             '+=' accumulates, a leading factor scales ('= 0.5 * A[..] * B[..]'),\n"
    "             'C[] = A[i] * B[i]' has a scalar output\n"
    "SIZES        'a=400,b=400,c=400,i=8' or 'a=b=c=400,i=8' (one or more arguments)\n"
    "\n"
    "The main job predicts every algorithm, picks the fastest and writes it as one\n"
    "C99 function calling CBLAS: int NAME(const double *A, const double *B, double *C).\n"
    "  --function NAME       the function's name (default contraction)\n"
    "  --generic             sizes as parameters: int NAME(size_t a, ..., A, B, C)\n"
    "  --layout col|row      tensors in Fortran order (default) or C order\n"
    "  --measure             rank by measured time: run the best predicted candidates\n"
    "  --candidates N        how many of them --measure runs (default 8, 0 = all),\n"
    "                        plus the best predicted of each other kernel\n"
    "  --wisdom FILE         reuse decisions in FILE and add this one to it\n"
    "  --family paper|all    the dissertation's algorithms alone, or also (default)\n"
    "                        fused kernel dimensions and whole-operand permutations\n"
    "  --fortran FILE        also write FILE, a Fortran 2008 module NAME_interface\n"
    "                        with the bind(C) interface of the emitted function\n"
    "                        and NAME_checked, which checks the arrays' shapes\n"
    "  --workspace BYTES     the most the chosen algorithm's temporaries may take\n"
    "                        (K, M, G, T: powers of 1024; 0: none), default\n"
    "                        $TCGEN_WORKSPACE, else the memory available (the\n"
    "                        smaller of MemAvailable and the cgroup's limit)\n"
    "  --keep-temporaries    the emitted function keeps its tensor-sized\n"
    "                        temporaries between calls (NAME_release() frees them)\n"
    "                        instead of allocating them per call\n"
    "  (and predict's --model (LEVEL[,-RULE...]; 'tcgen info --rules'), --reps,\n"
    "  --cache-size, --flush; measure's --time-limit)\n"
    "\n"
    "options:\n"
    "  -f FILE               read the contraction (first line) and 'name = size' lines\n"
    "  -o FILE               write the output to FILE instead of standard output\n"
    "  --format table|tsv|json   output format (table on a terminal, else tsv)\n"
    "  --blas openblas|blis|PATH.so|openblas:CORE|auto   BLAS library (default:\n"
    "                        $TCGEN_BLAS or openblas); CORE one of OpenBLAS's kernel\n"
    "                        sets (OPENBLAS_CORETYPE); auto the fastest here\n"
    "  --threads N           BLAS threads of tcgen's calls (default: $TCGEN_THREADS,\n"
    "                        else the CPUs the process may use, as in the library)\n"
    "  -q, -v                quieter; progress and what the ranking rests on (with\n"
    "                        predict, the cases each sampler rule changed: a little\n"
    "                        slower)\n"
    "  --allow-unused        a size for an index the contraction does not use is a\n"
    "                        warning (default: an error, as it is often a typo)\n"
    "  -h, --help            this text; 'tcgen COMMAND --help' for a command\n"
    "  --version             tcgen's version\n"
    "\n"
    "exit status: 0 success, 1 bad input, 2 usage, 3 resources (memory, BLAS library)\n"
    "\n"
    "commands:\n";

/* Writes text to stdout for --help/--version; an error writing it is
 * reported like any output error (exit 3). */
static int print_text(const char *text)
{
    fputs(text, stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        return tc_cli_failf(TC_ERESOURCE, "cannot write to standard output: %s",
                            strerror(errno));
    return 0;
}

/* The general usage text; returns the exit status of writing it. */
static int print_usage(FILE *f)
{
    fputs(usage_text, f);
    for (const tc_command *c = tc_commands; c->name; c++)
        fprintf(f, "  tcgen %s\n", c->synopsis);
    if (f == stdout)
        return print_text("");
    return 0;
}

static int print_help(const tc_command *cmd)
{
    printf("usage: tcgen %s\n\n", cmd->synopsis);
    return print_text(cmd->help);
}

static const tc_command *find_command(const char *name)
{
    for (const tc_command *c = tc_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tcgen: usage: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try 'tcgen --help')\n", stderr);
    return TC_EUSAGE;
}

/* Options that take a value stored as a string, and where it goes. */
static const char **value_slot(tc_cli *cli, const char *opt)
{
    static const struct {
        const char *name;
        size_t offset;
    } options[] = {
        {"-f", offsetof(tc_cli, file)},          {"--file", offsetof(tc_cli, file)},
        {"-o", offsetof(tc_cli, output)},        {"--output", offsetof(tc_cli, output)},
        {"--blas", offsetof(tc_cli, blas)},      {"--algorithm", offsetof(tc_cli, algorithm)},
        {"--function", offsetof(tc_cli, function)}, {"--kernels", offsetof(tc_cli, kernels)},
        {"--model", offsetof(tc_cli, model)},    {"--reps", offsetof(tc_cli, reps)},
        {"--cache-size", offsetof(tc_cli, cache_size)}, {"--flush", offsetof(tc_cli, flush)},
        {"--time-limit", offsetof(tc_cli, time_limit)}, {"--sweep", offsetof(tc_cli, sweep)},
        {"--plot", offsetof(tc_cli, plot)},     {"--candidates", offsetof(tc_cli, candidates)},
        {"--wisdom", offsetof(tc_cli, wisdom)}, {"--layout", offsetof(tc_cli, layout)},
        {"--repeat", offsetof(tc_cli, repeat)}, {"--fortran", offsetof(tc_cli, fortran)},
        {"--family", offsetof(tc_cli, family)}, {"--workspace", offsetof(tc_cli, workspace)},
        {"--strides", offsetof(tc_cli, strides)}, {"--type", offsetof(tc_cli, type)},
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (strcmp(opt, options[i].name) == 0)
            return (const char **)((char *)cli + options[i].offset);
    return NULL;
}

static int set_format(tc_cli *cli, const char *v)
{
    if (strcmp(v, "table") == 0)
        cli->format = TC_FMT_TABLE;
    else if (strcmp(v, "tsv") == 0)
        cli->format = TC_FMT_TSV;
    else if (strcmp(v, "json") == 0)
        cli->format = TC_FMT_JSON;
    else
        return usage_error("unknown format '%s' (use table, tsv or json)", v);
    return 0;
}

/* A thread count: digits only, at least 1, at most the logical CPUs (more
 * threads than CPUs only time-slice, and a prediction made that way says
 * nothing about the code). `what` names the source in the message. */
static int parse_threads(const char *what, const char *v, int *out)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    size_t digits = strspn(v, "0123456789");
    long n = digits && digits == strlen(v) && digits <= 6 ? strtol(v, NULL, 10) : 0;
    if (n < 1) {
        fprintf(stderr, "tcgen: usage: %s needs a whole number of threads from 1 to %ld, not "
                        "'%s' (try 'tcgen --help')\n", what, cpus, v);
        return TC_EUSAGE;
    }
    if (n > cpus) {
        fprintf(stderr, "tcgen: usage: %s %ld: this machine has %ld logical CPU%s; more BLAS "
                        "threads than CPUs only time-slice\n", what, n, cpus, cpus == 1 ? "" : "s");
        return TC_EUSAGE;
    }
    *out = (int)n;
    return 0;
}

/* 1 if the command takes option `name` (as written, long or short). */
static int takes(const tc_command *cmd, const char *name)
{
    if (strcmp(name, "--file") == 0)
        name = "-f";
    else if (strcmp(name, "--output") == 0)
        name = "-o";
    size_t n = strlen(name);
    for (const char *p = cmd->options; (p = strstr(p, name)) != NULL; p += n)
        if ((p == cmd->options || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static int not_taken(const tc_command *cmd, const char *name)
{
    if (cmd->name[0] == '\0') {
        if (strcmp(name, "--algorithm") == 0)
            return usage_error("'%s' is not an option of the main job, which picks the "
                               "algorithm: 'tcgen emit --algorithm NAME' writes a chosen one",
                               name);
        if (strcmp(name, "--kernels") == 0)
            return usage_error("'%s' is not an option of the main job, which ranks every "
                               "kernel: 'tcgen predict --kernels ...' ranks some", name);
        return usage_error("'%s' is not an option of the main job", name);
    }
    fprintf(stderr, "tcgen: usage: '%s' is not an option of 'tcgen %s' (try 'tcgen %s "
                    "--help')\n", name, cmd->name, cmd->name);
    return TC_EUSAGE;
}

/* Fills *cli from argv[first..]; returns 0, -1 after --help/--version, or an exit status. */
static int parse_args(tc_cli *cli, int argc, char **argv, int first, const tc_command *cmd)
{
    int threads_given = 0;
    int only_positional = 0;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            if (cli->npositional == TC_CLI_MAX_POSITIONAL)
                return usage_error("too many arguments (at '%s')", arg);
            cli->positional[cli->npositional++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            int rc = cmd->name[0] ? print_help(cmd) : print_usage(stdout);
            return rc ? rc : -1;
        } else if (strcmp(arg, "--version") == 0) {
            int rc = print_text("tcgen " TC_VERSION "\n");
            return rc ? rc : -1;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            cli->quiet = 1;
        } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            cli->verbose = 1;
        } else if (strcmp(arg, "--allow-unused") == 0) {
            cli->allow_unused = 1;
        } else if (strcmp(arg, "--measure") == 0 || strcmp(arg, "--generic") == 0 ||
                   strcmp(arg, "--rules") == 0 || strcmp(arg, "--keep-temporaries") == 0 ||
                   strcmp(arg, "--prune") == 0) {
            if (!takes(cmd, arg))
                return not_taken(cmd, arg);
            *(arg[2] == 'm' ? &cli->measure : arg[2] == 'r' ? &cli->rules
              : arg[2] == 'k' ? &cli->keep_temporaries : arg[3] == 'r' ? &cli->prune
              : &cli->generic) = 1;
        } else {
            /* --opt=value or --opt value */
            char name[64];
            const char *eq = strchr(arg, '=');
            const char *value = NULL;
            size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
            if (len >= sizeof name)
                return usage_error("unknown option '%s'", arg);
            memcpy(name, arg, len);
            name[len] = '\0';
            int is_format = strcmp(name, "--format") == 0;
            int is_threads = strcmp(name, "--threads") == 0;
            const char **slot = value_slot(cli, name);
            if (!slot && !is_format && !is_threads)
                return usage_error("unknown option '%s'", arg);
            if (!takes(cmd, name))
                return not_taken(cmd, name);
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return usage_error("option '%s' needs a value", name);
            if (slot)
                *slot = value;
            else if (is_format ? set_format(cli, value)
                               : parse_threads("--threads", value, &cli->threads))
                return TC_EUSAGE;
            threads_given |= is_threads;
        }
    }
    /* One default for the command and the library: $TCGEN_THREADS, else
     * the CPUs the process may use (threads 0: runtime/cpus.h). */
    const char *env = getenv("TCGEN_THREADS");
    if (!threads_given && env && *env && parse_threads("TCGEN_THREADS", env, &cli->threads))
        return TC_EUSAGE;
    return 0;
}

/* 1 for a bare word such as "bogus": no contraction has no '='. */
static int looks_like_command(const char *s)
{
    return isalpha((unsigned char)s[0]) && strspn(s, "abcdefghijklmnopqrstuvwxyz"
                                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                                strlen(s);
}

/* Checks, before any work, what can be checked without the problem: a
 * usage error must not come after seconds of ranking. */
static int check_options(const tc_cli *cli, const tc_command *cmd)
{
    int row_major;
    if (!cmd->name[0] && !cli->file && cli->npositional > 0 &&
        looks_like_command(cli->positional[0]))
        return usage_error("unknown command '%s'", cli->positional[0]);
    if (cli->layout && tc_cli_layout(cli, &row_major))
        return TC_EUSAGE;
    if (cli->strides && cli->layout && row_major)
        return usage_error("'--strides' views are column-major: not with '--layout %s'",
                           cli->layout);
    if (cli->strides && cli->fortran)
        return usage_error("'--strides %s': the Fortran interface takes explicit-shape arrays, not "
                           "views (no --fortran)", cli->strides);
    if (cli->strides && !strcmp(cli->strides, "param") && cmd->name[0] &&
        strcmp(cmd->name, "emit") != 0)
        return usage_error("'--strides param' (strides as parameters) is for emit and the "
                           "main job; '%s' takes a SPEC such as 'C=1,40,1800;A=1,40'", cmd->name);
    if (cli->type && (strlen(cli->type) != 1 || tc_type_from_letter(cli->type[0]) < 0 ||
                      cli->type[0] < 'a'))
        return usage_error("bad --type '%s' (use s, d, c or z: float, double, float complex, "
                           "double complex)", cli->type);
    int rc = cli->plot ? tc_cli_plot_check(cli->plot) : 0;
    if (rc)
        return rc;
    unsigned mask;
    tc_error err;
    if ((cli->kernels && tc_gen_parse_kernels(cli->kernels, "--kernels", &mask, &err) != TC_OK) ||
        (cli->family && tc_gen_parse_family(cli->family, "--family", &mask, &err) != TC_OK)) {
        fprintf(stderr, "tcgen: usage: %s\n", err.message);
        return TC_EUSAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* Past a file size limit, write() then fails with EFBIG and the
     * output file is left as it was, instead of the process dying. */
    signal(SIGXFSZ, SIG_IGN);
    tc_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.format = isatty(STDOUT_FILENO) ? TC_FMT_TABLE : TC_FMT_TSV;
    cli.threads = 0; /* the BLAS library's own setting, as in the library */
    cli.argc = argc;
    cli.argv = argv;
    cli.command = "";

    if (argc < 2) {
        print_usage(stderr);
        return TC_EUSAGE;
    }
    const tc_command *cmd = NULL;
    int first = 1;
    if (strcmp(argv[1], "help") == 0) {
        cmd = argc > 2 ? find_command(argv[2]) : NULL;
        if (argc > 2 && !cmd)
            return usage_error("unknown command '%s'", argv[2]);
        return cmd ? print_help(cmd) : print_usage(stdout);
    }
    if ((cmd = find_command(argv[1])) != NULL) {
        cli.command = cmd->name;
        first = 2;
    } else {
        cmd = &tc_main_job;
    }
    int rc = parse_args(&cli, argc, argv, first, cmd);
    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = check_options(&cli, cmd)) != 0)
        return rc;
    return cmd->run(&cli);
}
