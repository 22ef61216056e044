/* main.c - the tcgen command: options, subcommand dispatch, --help, --version. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

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
    "  --candidates N        how many of them --measure runs (default 8, 0 = all)\n"
    "  --wisdom FILE         reuse decisions in FILE and add this one to it\n"
    "  (and predict's --model, --reps, --cache-size, --flush; measure's --time-limit)\n"
    "\n"
    "options:\n"
    "  -f FILE               read the contraction (first line) and 'name = size' lines\n"
    "  -o FILE               write the output to FILE instead of standard output\n"
    "  --format table|tsv|json   output format (table on a terminal, else tsv)\n"
    "  --blas openblas|blis|PATH.so   BLAS library (default: $TCGEN_BLAS or openblas)\n"
    "  --threads N           BLAS threads (default 1)\n"
    "  -q, -v                quieter, more verbose\n"
    "  -h, --help            this text; 'tcgen COMMAND --help' for a command\n"
    "  --version             tcgen's version\n"
    "\n"
    "exit status: 0 success, 1 bad input, 2 usage, 3 resources (memory, BLAS library)\n"
    "\n"
    "commands:\n";

static void print_usage(FILE *f)
{
    fputs(usage_text, f);
    for (const tc_command *c = tc_commands; c->name; c++)
        fprintf(f, "  tcgen %s\n", c->synopsis);
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

static int set_threads(tc_cli *cli, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1 || n > 1024)
        return usage_error("--threads needs a whole number from 1 to 1024, not '%s'", v);
    cli->threads = (int)n;
    return 0;
}

/* Fills *cli from argv[first..]; returns 0, -1 after --help/--version, or an exit status. */
static int parse_args(tc_cli *cli, int argc, char **argv, int first, const tc_command *cmd)
{
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
            if (cmd)
                printf("usage: tcgen %s\n\n%s", cmd->synopsis, cmd->help);
            else
                print_usage(stdout);
            return -1;
        } else if (strcmp(arg, "--version") == 0) {
            printf("tcgen %s\n", TC_VERSION);
            return -1;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            cli->quiet = 1;
        } else if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            cli->verbose = 1;
        } else if (strcmp(arg, "--measure") == 0) {
            cli->measure = 1;
        } else if (strcmp(arg, "--generic") == 0) {
            cli->generic = 1;
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
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return usage_error("option '%s' needs a value", name);
            if (slot)
                *slot = value;
            else if (is_format ? set_format(cli, value) : set_threads(cli, value))
                return TC_EUSAGE;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    tc_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.format = isatty(STDOUT_FILENO) ? TC_FMT_TABLE : TC_FMT_TSV;
    cli.threads = 1;
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
        if (cmd)
            printf("usage: tcgen %s\n\n%s", cmd->synopsis, cmd->help);
        else
            print_usage(stdout);
        return 0;
    }
    if ((cmd = find_command(argv[1])) != NULL) {
        cli.command = cmd->name;
        first = 2;
    }
    int rc = parse_args(&cli, argc, argv, first, cmd);
    if (rc)
        return rc < 0 ? 0 : rc;
    return cmd ? cmd->run(&cli) : tc_cmd_main(&cli);
}
