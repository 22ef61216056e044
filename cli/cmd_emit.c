/* cmd_emit.c - `tcgen emit CONTRACTION SIZES --algorithm NAME [-o FILE]`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"

/* The command line, shell-quoted where needed, for the emitted header. */
static char *command_line(const tc_cli *cli)
{
    size_t n = 1;
    for (int i = 0; i < cli->argc; i++)
        n += 4 * strlen(cli->argv[i]) + 3;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < cli->argc; i++) {
        const char *a = cli->argv[i];
        if (i)
            *p++ = ' ';
        if (i == 0 && strrchr(a, '/')) /* the program's own name */
            a = strrchr(a, '/') + 1;
        int plain = a[0] != '\0' && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_=,./:+-@%") == strlen(a);
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        if (strchr(a, '\'') && strpbrk(a, "\"$`\\!") == NULL) { /* "i'c-dgemm" */
            p += sprintf(p, "\"%s\"", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

/* The kernel an algorithm name ends in ("i'c-dgemm" -> dgemm), or -1. */
static int kernel_of(const char *name)
{
    const char *dash = strrchr(name, '-');
    return tc_kernel_from_name(dash ? dash + 1 : name);
}

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

int tc_cmd_emit(const tc_cli *cli)
{
    if (!cli->algorithm)
        return tc_cli_failf(TC_EUSAGE, "emit needs --algorithm NAME ('tcgen list CONTRACTION' "
                                       "shows the names; try 'tcgen emit --help')");
    tc_contraction c;
    int rc = tc_cli_load(cli, 1, &c);
    if (rc)
        return rc;
    tc_error err;
    tc_algorithm_set *set = NULL;
    int k = kernel_of(cli->algorithm);
    unsigned mask = k >= 0 ? 1u << k : TC_KERNEL_MASK_ALL;
    if (tc_gen_enumerate(&c, mask, &set, &err) != TC_OK)
        return k >= 0 ? tc_cli_fail(&err, NULL) : unknown(cli->algorithm, NULL, -1);
    const tc_algorithm *alg = tc_alg_set_find(set, cli->algorithm);
    if (!alg) {
        if (k >= 0 && set->count == 0) { /* no such kernel here: suggest others */
            tc_algorithm_set *all = NULL;
            if (tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &all, &err) == TC_OK) {
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
    /* Emit into memory first, so that an error leaves no partial file. */
    char *text = NULL, *cmd = command_line(cli);
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem || !cmd) {
        if (mem)
            fclose(mem);
        free(text);
        free(cmd);
        tc_alg_set_free(set);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.function = cli->function;
    opt.command_line = cmd;
    tc_status s = tc_emit_c(alg, &c, &opt, mem, &err);
    fclose(mem);
    free(cmd);
    tc_alg_set_free(set);
    if (s != TC_OK) {
        free(text);
        return tc_cli_fail(&err, NULL);
    }
    FILE *out = tc_cli_open_output(cli);
    if (!out) {
        free(text);
        return TC_ERESOURCE;
    }
    fwrite(text, 1, len, out);
    free(text);
    return tc_cli_close_output(out);
}
