/* cmd_predict.c - `tcgen predict CONTRACTION SIZES`: ranking by predicted time. */
#include "cli.h"
#include "commands.h"
#include "generator/generator.h"
#include "predictor.h"
#include "table.h"

int tc_cmd_predict(const tc_cli *cli)
{
    static const char *const headers[] = {"rank", "name", "kernel", "predicted_s", "gflops"};
    unsigned mask = TC_KERNEL_MASK_ALL;
    tc_error err;
    if (cli->kernels && tc_gen_parse_kernels(cli->kernels, &mask, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    tc_contraction c;
    int rc = tc_cli_load(cli, 1, &c);
    if (rc)
        return rc;
    tc_algorithm_set *set = NULL;
    if (tc_gen_enumerate(&c, mask, &set, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    tc_cli_predictor p;
    tc_ranking *r = NULL;
    rc = tc_cli_predictor_open(cli, &p);
    if (!rc)
        rc = tc_cli_rank(cli, &p, &c, set, &r);
    tc_table *t = rc ? NULL : tc_table_new(5, headers, "nssnn");
    if (!rc && !t)
        rc = tc_cli_failf(TC_ERESOURCE, "out of memory");
    double flops = tc_contraction_flops(&c);
    for (int i = 0; !rc && i < r->count; i++) {
        double s = r->entry[i].seconds;
        if (tc_table_addf(t, "%d\t%s\t%s\t%.6e\t%.3f", i + 1, r->entry[i].alg->name,
                          tc_kernel_name(r->entry[i].alg->kernel), s,
                          s > 0 ? flops / s * 1e-9 : 0.0) != 0)
            rc = tc_cli_failf(TC_ERESOURCE, "out of memory");
    }
    FILE *out = rc ? NULL : tc_cli_open_output(cli);
    if (!rc && !out)
        rc = TC_ERESOURCE;
    if (!rc) {
        tc_table_print(t, out, cli->format);
        if (cli->format != TC_FMT_JSON) {
            char how[256];
            tc_cli_predictor_describe(&p, how, sizeof how);
            fprintf(out, "# predict_s %.3f\n", r->elapsed_s);
            fprintf(out, "# cases_timed %lld reused %lld\n",
                    (long long)tc_mb_sampler_timed(p.sampler),
                    (long long)tc_mb_sampler_reused(p.sampler));
            fprintf(out, "# %s\n", how);
        }
        rc = tc_cli_close_output(out);
    }
    tc_table_free(t);
    tc_ranking_free(r);
    if (p.blas)
        tc_cli_predictor_close(&p);
    tc_alg_set_free(set);
    return rc;
}
