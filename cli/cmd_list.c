/* cmd_list.c - `tcgen list CONTRACTION [SIZES] [--kernels K,...] [--family F]`:
 * every algorithm. */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "generator/generator.h"
#include "table.h"

int tc_cmd_list(const tc_cli *cli)
{
    static const char *const headers[] = {"name", "kernel", "loops", "copies"};
    unsigned mask, families;
    tc_error err;
    int64_t avail;
    const char *from;
    int rc = tc_cli_masks(cli, &mask, &families);
    if (!rc)
        rc = tc_cli_workspace(cli, &avail, &from);
    if (rc)
        return rc;
    tc_contraction c;
    tc_cli_mapping mapping;
    int row_major = 0;
    rc = tc_cli_load_mapped(cli, 0, &c, &mapping);
    if (!rc)
        rc = tc_cli_layout(cli, &row_major);
    if (rc)
        return rc;
    if (row_major) /* the names emit --layout row takes */
        tc_contraction_transpose(&c, &c);
    tc_algorithm_set *set = NULL;
    if (tc_gen_enumerate_families(&c, mask, families, &set, &err) != TC_OK)
        return tc_cli_fail_enumerate(&err);
    /* the space's own algorithms; with --threads P also the loops split */
    if (cli->threads > 1 && tc_gen_add_threaded(set, &c, cli->threads, &err) != TC_OK) {
        tc_alg_set_free(set);
        return tc_cli_fail(&err, NULL);
    }
    tc_table *t = tc_table_new(4, headers, "ssll");
    int bad = t == NULL;
    for (int i = 0; i < set->count && !bad; i++) {
        char loops[TC_MAX_INDICES * (TC_NAME_MAX + 1) + 2];
        char copies[2 * TC_MAX_TEMPS * (2 * TC_NAME_MAX + 2) + 2];
        tc_gen_format_loops(set->alg[i], &c, loops, sizeof loops);
        tc_gen_format_copies(set->alg[i], &c, copies, sizeof copies);
        const char *cells[4] = {set->alg[i]->name, tc_kernel_type_name(set->alg[i]->kernel, set->alg[i]->type), loops,
                                copies};
        bad = tc_table_add(t, cells) != 0;
    }
    if (bad) {
        tc_table_free(t);
        tc_alg_set_free(set);
        return tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    FILE *out = tc_cli_open_output(cli);
    if (!out) {
        tc_table_free(t);
        tc_alg_set_free(set);
        return TC_ERESOURCE;
    }
    tc_cli_print_mapping(cli, out, &mapping);
    tc_table_print(t, out, cli->format);
    if (cli->format != TC_FMT_JSON) {
        char summary[256];
        tc_gen_format_summary(set, summary, sizeof summary);
        fprintf(out, "# %s\n", summary);
        if (families != 1u << TC_FAMILY_PAPER) {
            tc_gen_format_families(set, summary, sizeof summary);
            fprintf(out, "# %s\n", summary);
        }
        int no_memory = 0;
        for (int i = 0; i < set->count; i++)
            no_memory += !tc_alg_temps_fit(set->alg[i], avail);
        tc_cli_report_no_memory(out, "# ", no_memory, avail, from);
    }
    tc_table_free(t);
    tc_alg_set_free(set);
    return tc_cli_close_output(out);
}
