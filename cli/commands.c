/* commands.c - the table of subcommands; a new one is one file plus one entry.
 * Each entry lists the options it takes: any other is refused (exit 2)
 * rather than accepted and ignored. */
#include "cli.h"
#include "commands.h"

/* Options shared by the commands that rank by prediction. */
#define PREDICT_OPTIONS "--blas --threads --model --reps --cache-size --flush --workspace"

const tc_command tc_main_job = {
    "", "CONTRACTION SIZES [-o FILE]", "", tc_cmd_main,
    "-f -o --function --generic --layout --fortran --measure --candidates --wisdom --type "
    "--time-limit --family --keep-temporaries --strides " PREDICT_OPTIONS};

const tc_command tc_commands[] = {
    {"parse", "parse CONTRACTION [SIZES] [--format table|tsv|json]",
     "Prints the contraction as tcgen understands it: its normal form, each\n"
     "index's role (free_a, free_b, contracted, batch) and size, and each\n"
     "tensor's indices, column-major strides (in elements) and bytes.\n",
     tc_cmd_parse,
     "-f -o --format --strides --type"},
    {"list", "list CONTRACTION [SIZES] [--kernels dgemm,dger,dgemv,daxpy,ddot] "
             "[--family paper|all]",
     "Lists every algorithm that computes the contraction as a loop nest around\n"
     "one BLAS kernel: name, kernel, loops (outer to inner) and copies into\n"
     "temporaries (TENSOR@INDEX: the loop whose body holds the copy; '@-' before\n"
     "all loops; '-' none), then a '#' line with the count per kernel. Names:\n"
     "looped indices outer to inner, an apostrophe after a loop that holds a\n"
     "copy, '-', the kernel (\"i'c-dgemm\"); a kernel without loops is named\n"
     "alone (\"dgemm\"). --kernels restricts the list to the kernels named.\n"
     "A '#' line counts the algorithms whose temporaries need more than the\n"
     "workspace (--workspace BYTES, $TCGEN_WORKSPACE, else the memory available):\n"
     "they are not candidates for the main job, predict or explain.\n"
     "  --family paper|all  the dissertation's family alone, or also (default)\n"
     "                     fused kernel dimensions, '(bc)-dgemm', and operands\n"
     "                     permuted whole first, 'A^C^-dgemm' (copies 'A^'), or\n"
     "                     block by block under loops over their last indices,\n"
     "                     'A^kjC^-dgemm' (copies 'C^@j,A^'), 'cA^d(ab)-dgemm';\n"
     "                     a second '#' line counts the algorithms per family\n"
     "A contraction with what the TAPP interface maps, conj(A[..]) (types c, z),\n"
     "an index twice in an operand (a diagonal) or in one operand only (summed\n"
     "out), is listed as the contraction its plan computes, after a line per\n"
     "operand saying how it is packed ('#' lines in tsv, none in json).\n",
     tc_cmd_list,
     "-f -o --format --kernels --layout --family --workspace --strides --type"},
    {"emit", "emit CONTRACTION SIZES --algorithm NAME [-o FILE] [--function NAME] [--generic] "
             "[--layout col|row]",
     "Writes the named algorithm (see 'tcgen list') as one C99 function\n"
     "  int NAME(const double *A, const double *B, double *C)\n"
     "that calls CBLAS (default name: contraction), returning 0, or -1 when a\n"
     "temporary cannot be allocated. Compile it with any CBLAS library.\n"
     "  --generic          sizes as parameters, one size_t per index (in order of\n"
     "                     first appearance in C, A, B) before A, B, C; valid for any\n"
     "                     sizes, returns -2 when one overflows a BLAS int argument\n"
     "  --layout col|row   tensors in Fortran order (default) or C order\n"
     "  --fortran FILE     also write FILE, a Fortran 2008 module NAME_interface\n"
     "                     with the function's bind(C) interface and NAME_checked\n"
     "  --keep-temporaries keep tensor-sized temporaries between calls, one set per\n"
     "                     thread, freed by NAME_release() (default: per call)\n"
     "  --strides SPEC|param  tensors as views (see predict): with SPEC\n"
     "                     ('C=1,130,17160;A=1,40') their strides as constants, or\n"
     "                     with --generic or 'param' as parameters, a 'const long\n"
     "                     *stride_X' after each tensor X (one per index, in\n"
     "                     elements); the function returns -3 when they are not a\n"
     "                     view (first 1, each at least the one before times its\n"
     "                     size) or split indices the algorithm fuses. Also the\n"
     "                     main job; not with --fortran or --layout row\n",
     tc_cmd_emit,
     "-f -o --algorithm --function --generic --layout --fortran --keep-temporaries --type "
     "--strides"},
    {"predict", "predict CONTRACTION SIZES [--kernels K,...] [--model M] [--reps N]",
     "Predicts the runtime of every algorithm without running it: each\n"
     "algorithm's kernel (and copies) is timed in a replica of the cache state\n"
     "the algorithm gives it (access and prefetch distances, prefetch failures,\n"
     "first loop iterations), and the medians are weighted by how often each\n"
     "case occurs. Prints the ranking, fastest first (TSV columns rank, name,\n"
     "kernel, predicted_s, gflops), then '#' lines: the time the prediction\n"
     "took, the cases timed and reused, and the set-up.\n"
     "  --model warm|access|prefetch|failures|full   refinements used (default full);\n"
     "                        ',-RULE' after it switches one of the sampler's rules\n"
     "                        off, e.g. full,-stream-trains,-tlb (tcgen info --rules)\n"
     "  --reps N              timed repetitions per case, median kept (default 10)\n"
     "  --cache-size BYTES    last-level cache size for the 5/4 truncation\n"
     "  --flush clflush|remote  evict beyond-cache operands by flushing their lines\n"
     "                        (default) or by touching 5/4 of the cache, as in the paper\n"
     "  --sweep SPEC, --plot FILE   over a range of sizes, drawn (see compare)\n"
     "  --strides 'C=1,130,17160;A=1,40'   tensors as views of larger arrays (tiles):\n"
     "                        each tensor's strides (named as written, or C, A, B) in\n"
     "                        elements, one per index,\n"
     "                        the first 1, each at least the one before times its\n"
     "                        size; the others dense (also parse, list, measure,\n"
     "                        compare, explain, emit and the main job)\n"
     "  --type s|d|c|z        the elements: float, double (default), float complex,\n"
     "                        double complex (also the main job, emit, parse, list,\n"
     "                        measure, compare, explain): the type's BLAS routines,\n"
     "                        timed and emitted in the type\n",
     tc_cmd_predict,
     "-f -o --format --kernels --family --sweep --plot --repeat --strides --type " PREDICT_OPTIONS},
    {"measure", "measure CONTRACTION SIZES [--kernels K,...] [--algorithm NAME] [--reps N] "
                "[--time-limit S]",
     "Runs every algorithm (or those --kernels or --algorithm select) on real\n"
     "tensors with random data and ranks them by measured time (TSV columns\n"
     "rank, name, kernel, measured_s, gflops). The tensors are allocated once;\n"
     "each algorithm runs once untimed (the cache state of a repeated\n"
     "contraction), then --reps times (default 5), median kept. An algorithm\n"
     "whose first run exceeds --time-limit seconds (default 10) is stopped and\n"
     "listed last with '-'. Sizes whose tensors do not fit in memory are\n"
     "refused. --sweep and --plot as for compare.\n",
     tc_cmd_measure,
     "-f -o --format --kernels --family --algorithm --sweep --plot --reps --time-limit --blas "
     "--threads --workspace --strides --type"},
    {"compare", "compare CONTRACTION SIZES [--sweep SPEC] [--plot FILE.svg|.png]",
     "Predicts and measures every algorithm and prints, fastest measured first,\n"
     "name, kernel, predicted_s, measured_s and error_pct ((predicted -\n"
     "measured) / measured), then '#' lines: mean_abs_error_pct, best_predicted,\n"
     "best_measured, regret_pct (how much slower the predicted best runs than\n"
     "the measured best), predict_s, measure_s and, per kernel, the speedup of\n"
     "predicting over running (one run of the algorithms / their prediction time).\n"
     "  --sweep 'a=b=c=8:1000:64'   repeat for each size (START:STOP:STEP, or a\n"
     "                         list 'i=8,64,512'); rows start with the size\n"
     "  --plot FILE.svg|FILE.png  draw predicted (solid) and measured (dashed)\n"
     "                         GFLOP/s per algorithm with gnuplot, and the error\n"
     "  --repeat N             N rounds of an independent prediction, then a\n"
     "                         measurement; medians of both per algorithm\n"
     "Options of predict and measure apply (--reps sets both).\n",
     tc_cmd_compare,
     "-f -o --format --kernels --family --algorithm --sweep --plot --time-limit --repeat "
     "--strides --type " PREDICT_OPTIONS},
    {"explain", "explain CONTRACTION SIZES NAME [--measure] [--model M] [--reps N]",
     "Shows how algorithm NAME is predicted: its loop nest, then each case\n"
     "(steady state, prefetch failure, first iterations of a loop) of its kernel\n"
     "and copies, with every operand's size, access distance and prefetch\n"
     "distance (in doubles), the setup list run before the timed call ('[n]' is\n"
     "n doubles of remote memory, '~X' a prefetch touch of X), the occurrence\n"
     "count and the median time. --format tsv gives one row per case operand.\n"
     "  --measure   also run the algorithm (as measure does) with each part timed:\n"
     "              every copy, permutation and kernel (a loop nest around the\n"
     "              kernel counts as its), a split loop as one part, the beta\n"
     "              pass; each beside its prediction, then what the loops took\n"
     "              between them and the total (with --format tsv or json, this\n"
     "              table alone)\n"
     "What the TAPP interface maps (conj(A[..]) in the complex types, an index\n"
     "repeated within an operand, an index only one operand has) is shown here\n"
     "and by list: how each operand is packed, then the contraction the plan\n"
     "computes, which the rest describes ('#' lines in tsv, none in json).\n"
     "Options as for predict.\n",
     tc_cmd_explain,
     "-f -o --format --algorithm --measure --strides --type " PREDICT_OPTIONS},
    {"info", "info [--measure] [--rules] [--cache-size BYTES] [--blas B] [--threads N]",
     "Shows what predictions are built on: each data cache level (size, line,\n"
     "associativity, logical CPUs sharing it) from hwloc, else Linux sysfs, else\n"
     "defaults; the last-level size used for the 5/4 truncation of setup lists;\n"
     "the line size; the CPU model and count; the BLAS library (name, path,\n"
     "version, threads); and the timer (source, calibrated frequency,\n"
     "resolution, overhead of one start/stop pair). TSV: one row per cache level,\n"
     "then '# key value' lines.\n"
     "  --measure             also measure the line size and each level's capacity\n"
     "                        and latency by pointer chasing (X-Ray, a few seconds)\n"
     "                        and flag levels more than 2x off the detected size\n"
     "  --cache-size BYTES    last-level size to use instead of the detected one:\n"
     "                        bytes, or with K, M, G, KiB, MiB, GiB (powers of 1024)\n"
     "  --rules               list the sampler's rules instead (TSV: rule, switch,\n"
     "                        summary, its paragraph in docs/prediction.md); each\n"
     "                        can be switched off with --model full,-RULE\n",
     tc_cmd_info,
     "-o --format --measure --rules --cache-size --blas --threads"},
    {"wisdom", "wisdom FILE... [--prune] [-o FILE]",
     "Reads wisdom files (each checked whole: a damaged one is refused with its\n"
     "line and column), merges them (a later file's decision wins for the same\n"
     "problem) and writes one wisdom text to -o FILE or standard output, then\n"
     "says on standard error how many decisions it holds. Wisdom of several runs,\n"
     "or of the ranks of an MPI job, becomes one file.\n"
     "  --prune            keep only the decisions of this machine (its CPU and\n"
     "                     caches), leaving out what other node types decided\n",
     tc_cmd_wisdom,
     "-o --prune"},
    {NULL, NULL, NULL, NULL, NULL},
};
