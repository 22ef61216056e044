/*
 * test_emit.c - emitted C: for every corpus contraction and both CBLAS
 * libraries, all algorithms go into one C file (functions alg0, alg1, ...)
 * with a main that runs each on fixed random data and compares with the
 * reference result written into the file; the file is compiled with
 * cc -std=c99 -Wall -Wextra -pedantic -Wconversion -Wsign-conversion
 * -Wshadow -Werror and run. Alpha 0 with Inf and NaN in A and B, every
 * algorithm of the corpus in one file. Plus one golden
 * emitted file, byte for byte, and the emitter's errors.
 */
#include <CUnit/CUnit.h>
#include <glob.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generator/generator.h"
#include "runtime/memory.h"
#include "runtime/reference.h"
#include "tests/helpers_corpus.h"
#include "tests/helpers_data.h"

#define NLIBS 2
static const char *const lib_names[NLIBS] = {"openblas", "blis"};
static const char *const lib_link[NLIBS] = {"-lopenblas", "-lblis"};
static const char *const lib_glob[NLIBS][3] = {
    {"/usr/include/*/openblas*/cblas.h", "/usr/include/openblas/cblas.h",
     "/usr/local/include/cblas.h"},
    {"/usr/include/*/blis*/cblas.h", "/usr/include/blis/cblas.h",
     "/usr/local/include/blis/cblas.h"}};
static char lib_include[NLIBS][512]; /* directory of the library's cblas.h */
static char tmpdir[200];
/* The dialect compile_and_run asks for: by default with the tensor-sized
 * temporaries kept between calls (the corpus programs release them between
 * calls); test_permute_portable and the identifiers test build the default,
 * temporaries allocated per call. */
#define KEPT_STD "-std=c99 -DTCGEN_KEEP_TEMPORARIES"
static const char *cc_std = KEPT_STD;

static int suite_init(void)
{
    for (int l = 0; l < NLIBS; l++) {
        lib_include[l][0] = '\0';
        for (int g = 0; g < 3 && !lib_include[l][0]; g++) {
            glob_t gl;
            if (glob(lib_glob[l][g], 0, NULL, &gl) == 0 && gl.gl_pathc > 0) {
                snprintf(lib_include[l], sizeof lib_include[l], "%s", gl.gl_pathv[0]);
                char *slash = strrchr(lib_include[l], '/');
                if (slash)
                    *slash = '\0';
            }
            globfree(&gl);
        }
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tcgen-emit-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    if (tmpdir[0]) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            return -1;
    }
    return 0;
}

/* n reals as a C array of double, or (single) of float: Inf and NaN as
 * math.h's INFINITY and NAN, float literals with an f (-Wconversion). */
static void write_reals(FILE *f, const char *name, const void *x, int64_t n, int single)
{
    fprintf(f, "static const %s %s[%lld] = {", single ? "float" : "double", name, (long long)n);
    for (int64_t k = 0; k < n; k++) {
        double v = single ? ((const float *)x)[k] : ((const double *)x)[k];
        fputs(k == 0 ? "\n    " : k % 4 ? ", " : ",\n    ", f);
        if (isnan(v))
            fputs("NAN", f);
        else if (isinf(v))
            fputs(v > 0 ? "INFINITY" : "-INFINITY", f);
        else if (single)
            fprintf(f, "%.9e%s", v, "f"); /* always a '.' and an exponent */
        else
            fprintf(f, "%.17g", v);
    }
    fprintf(f, "};\n");
}

static void write_array(FILE *f, const char *name, const double *x, int64_t n)
{
    write_reals(f, name, x, n, 0);
}

enum { PLAIN, GENERIC, ROW_MAJOR, SPLIT, SPLIT_GENERIC, VIEWS, VIEWS_GENERIC, SPLIT_VIEWS };

/* What a mode asks for: split algorithms, sizes as parameters, views with
 * gaps, their strides as parameters, OpenMP's threads set by the main. */
static int mode_split(int mode)
{
    return mode == SPLIT || mode == SPLIT_GENERIC || mode == SPLIT_VIEWS;
}

static int mode_generic(int mode)
{
    return mode == GENERIC || mode == SPLIT_GENERIC || mode == VIEWS_GENERIC ||
           mode == SPLIT_VIEWS;
}

static int mode_views(int mode)
{
    return mode == VIEWS || mode == VIEWS_GENERIC || mode == SPLIT_VIEWS;
}

static int mode_strides(int mode)
{
    return mode == VIEWS_GENERIC || mode == SPLIT_VIEWS;
}

static int mode_sets_threads(int mode)
{
    return mode == SPLIT_GENERIC || mode == SPLIT_VIEWS;
}

/* The sizes generic code is run at: each size changed (down, or up from
 * 1), so nothing depends on the sizes it was emitted for. */
static void other_sizes(const tc_contraction *c, tc_contraction *out)
{
    tc_sizes sz;
    memset(&sz, 0, sizeof sz);
    for (int i = 0; i < c->nindex; i++) {
        snprintf(sz.entry[i].name, sizeof sz.entry[i].name, "%s", c->index[i].name);
        sz.entry[i].size = c->index[i].size > 1 ? c->index[i].size - 1 : 2;
    }
    sz.count = c->nindex;
    tc_contraction_set_sizes(c, &sz, out, NULL, NULL);
}

/* The algorithms of *c with a kernel in mask (at most max of each kernel,
 * spread evenly, its first and last included; 0: all); for SPLIT and
 * SPLIT_GENERIC only those whose loop splits over 3 threads. NULL on
 * error. */
static tc_algorithm_set *select_algorithms(const tc_contraction *c, int mode, unsigned mask,
                                           int max)
{
    tc_algorithm_set *set = NULL;
    tc_error e;
    if (tc_gen_enumerate_families(c, mask, TC_FAMILY_MASK_ALL, &set, &e) != TC_OK)
        return NULL;
    if (mode_split(mode)) {
        int from = set->count, kept = 0;
        if (tc_gen_add_threaded(set, c, 3, &e) != TC_OK) {
            tc_alg_set_free(set);
            return NULL;
        }
        for (int i = from; i < set->count; i++)
            set->alg[kept++] = set->alg[i];
        set->count = kept;
    }
    if (max > 1) {
        int kept = 0;
        for (int first = 0, last; first < set->count; first = last) {
            for (last = first; last < set->count && set->alg[last]->kernel ==
                                                      set->alg[first]->kernel; last++)
                ;
            int n = last - first < max ? last - first : max;
            for (int k = 0; k < n; k++)
                set->alg[kept++] =
                    set->alg[first + (n > 1 ? (int)((int64_t)k * (last - first - 1) / (n - 1)) : 0)];
        }
        set->count = kept;
    }
    return set;
}

/* The reals of an element of type t (1, or 2 for complex) and whether
 * they are floats. */
static int reals_of(tc_type t)
{
    return tc_type_row_of(t)->reals;
}

static int single_of(tc_type t)
{
    return tc_type_row_of(t)->real_bytes == 4;
}

/* n elements of type t, random (in double first, then to float in
 * place, as tests/test_types.c does). */
static void *typed_random(tc_type t, int64_t n, uint64_t *state)
{
    int64_t r = n * reals_of(t);
    double *x = malloc((size_t)(r > 0 ? r : 1) * sizeof *x);
    if (!x)
        return NULL;
    tc_corpus_fill(x, r, state);
    if (single_of(t)) { /* front to back: each float before the doubles it overlaps */
        float *fl = (float *)(void *)x;
        for (int64_t k = 0; k < r; k++)
            fl[k] = (float)x[k];
    }
    return x;
}

/* The contraction length: the product of the contracted sizes. */
static double contraction_length(const tc_contraction *c)
{
    double n = 1.0;
    for (int i = 0; i < c->nindex; i++)
        if (c->index[i].role == TC_ROLE_CONTRACTED)
            n *= (double)c->index[i].size;
    return n;
}

/* The data of the program for *run (the sizes it is called at) and its
 * expected result: A0, B0, C0 (NaN in every other real when beta is 0: it
 * must not be read), want, as arrays of the type's reals, each a tensor's
 * span (a view's gaps must be left as they are). 0 on success. */
static int write_data(FILE *f, const tc_contraction *run, uint64_t seed)
{
    tc_type t = run->type;
    int64_t na = run->tensor[TC_A].span, nb = run->tensor[TC_B].span;
    int64_t nc = run->tensor[TC_C].span, bytes = tc_type_row_of(t)->bytes;
    uint64_t state = seed;
    void *A = typed_random(t, na, &state), *B = typed_random(t, nb, &state);
    void *C0 = typed_random(t, nc, &state), *want = malloc((size_t)(nc * bytes) + 1);
    int bad = !A || !B || !C0 || !want, single = single_of(t), r = reals_of(t);
    if (!bad) {
        for (int64_t k = 0; run->beta == 0.0 && run->beta_im == 0.0 && k < nc * r; k += 2)
            if (single)
                ((float *)C0)[k] = NAN;
            else
                ((double *)C0)[k] = NAN;
        memcpy(want, C0, (size_t)(nc * bytes)); /* the reference reads no C at beta 0 */
        tc_rt_reference(run, A, B, want);
        fputs("\n", f);
        write_reals(f, "A0", A, na * r, single);
        write_reals(f, "B0", B, nb * r, single);
        write_reals(f, "C0", C0, nc * r, single);
        write_reals(f, "want", want, nc * r, single);
    }
    free(A);
    free(B);
    free(C0);
    free(want);
    return bad ? -1 : 0;
}

/* The program's tables (fn, names, rel) and main: each function called 3
 * times on copies of A0, B0, C0, its temporaries released before the
 * third; the result's reals compared with want within tol * max(1,
 * max |want|). */
static void write_main(FILE *f, const tc_contraction *run, const tc_algorithm_set *set,
                       int mode, double tol)
{
    const char *T = tc_type_row_of(run->type)->c_name;
    const char *R = single_of(run->type) ? "float" : "double";
    int generic = mode_generic(mode);
    int r = reals_of(run->type);
    long long na = run->tensor[TC_A].span, nb = run->tensor[TC_B].span;
    long long nc = run->tensor[TC_C].span;
    fprintf(f, "\nstatic int (*const fn[%d])(const %s *, const %s *, %s *) = {", set->count, T,
            T, T);
    for (int i = 0; i < set->count; i++)
        fprintf(f, "%s%s%d", i == 0 ? "\n    " : i % 8 ? ", " : ",\n    ",
                generic ? "call" : "alg", i);
    fprintf(f, "};\nstatic const char *const names[%d] = {", set->count);
    for (int i = 0; i < set->count; i++)
        fprintf(f, "%s\"%s\"", i == 0 ? "\n    " : i % 6 ? ", " : ",\n    ",
                set->alg[i]->name);
    fprintf(f, "};\nstatic void (*const rel[%d])(void) = {", set->count);
    for (int i = 0; i < set->count; i++) {
        fprintf(f, "%s", i == 0 ? "\n    " : i % 6 ? ", " : ",\n    ");
        fprintf(f, tc_alg_permuted_temps(set->alg[i]) ? "alg%d_release" : "0", i);
    }
    fprintf(f, "};\n\n"
               "int main(void)\n{\n"
               "    static %s A[%lld], B[%lld], C[%lld];\n"
               "    static %s got[%lld];\n"
               "    double scale = 1.0;\n"
               "    int bad = 0;\n%s"
               "    memcpy(A, A0, sizeof A);\n"
               "    memcpy(B, B0, sizeof B);\n"
               "    for (long k = 0; k < %lld; k++)\n"
               "        if (fabs(want[k]) > scale)\n"
               "            scale = fabs(want[k]);\n"
               "    for (int i = 0; i < %d * 3; i++) {\n"
               "        if (i %% 3 == 2 && rel[i / 3]) /* kept temporaries: reused, */\n"
               "            rel[i / 3]();            /* then released */\n"
               "        memcpy(C, C0, sizeof C);\n"
               "        int r = fn[i / 3](A, B, C);\n"
               "        memcpy(got, C, sizeof got);\n"
               "        double err = 0.0;\n"
               "        for (long k = 0; k < %lld; k++) {\n"
               "            if (isnan(got[k]) && isnan(want[k])) /* a gap left as it was */\n"
               "                continue;\n"
               "            double d = fabs((double)got[k] - (double)want[k]);\n"
               "            if (!(d <= err))\n"
               "                err = isnan(d) ? INFINITY : d;\n"
               "        }\n"
               "        if (r != 0 || !(err <= %.17g * scale)) {\n"
               "            printf(\"%%s (call %%d): returned %%d, error %%g\\n\", names[i / 3], i %% 3, r, err);\n"
               "            bad++;\n"
               "        }\n"
               "    }\n"
               "    printf(\"%%d algorithms, %%d wrong\\n\", %d, bad);\n"
               "    return bad ? 1 : 0;\n}\n",
            T, na > 0 ? na : 1, nb > 0 ? nb : 1, nc, R, nc * r,
            mode_sets_threads(mode) ? "#if defined(_OPENMP)\n    omp_set_num_threads(2);\n#endif\n"
                                  : "",
            nc * r, set->count, nc * r, tol, set->count);
}

/*
 * Writes the test program for *c, in its element type: the algorithms
 * select_algorithms keeps, data, expected result, main. Returns the
 * number of functions, or -1. mode PLAIN: as emitted; GENERIC: sizes as
 * parameters, called at other_sizes(); ROW_MAJOR: c is taken as a
 * row-major contraction, emitted from its transpose (the reference
 * computes the transpose on the same memory); SPLIT: only the algorithms
 * whose loop splits over 3 threads, so split; SPLIT_GENERIC: those
 * generic, called at other sizes on OpenMP's threads (2, set by the
 * program); VIEWS: every tensor a view with gaps (tc_corpus_with_gaps),
 * its strides constants; VIEWS_GENERIC: those generic with the strides as
 * parameters, called at other sizes with gaps; SPLIT_VIEWS: the split
 * ones so, on OpenMP's threads (2). The tolerance: 1e-12 for
 * double, else 100 * epsilon * the contraction length.
 */
static int write_selection(const tc_contraction *user, const char *path, uint64_t seed,
                           int mode, unsigned mask, int max)
{
    tc_contraction storage, run;
    if (mode == ROW_MAJOR)
        tc_contraction_transpose(user, &storage);
    else
        storage = *user;
    const tc_contraction *c = &storage;
    run = storage;
    int generic = mode_generic(mode);
    if (generic)
        other_sizes(&storage, &run);
    if (mode_views(mode) &&
        (tc_corpus_with_gaps(&storage, &storage, NULL) != 0 ||
         tc_corpus_with_gaps(&run, &run, NULL) != 0))
        return -1;
    tc_algorithm_set *set = select_algorithms(c, mode, mask, max);
    FILE *f = set ? fopen(path, "w") : NULL;
    if (!f) {
        tc_alg_set_free(set);
        return -1;
    }
    const char *T = tc_type_row_of(c->type)->c_name;
    tc_emit_includes(f);
    fputs("#include <math.h>\n#include <stdio.h>\n#include <string.h>\n", f);
    fputs(tc_type_row_of(c->type)->is_complex ? "#include <complex.h>\n" : "", f);
    if (mode_sets_threads(mode)) /* the main sets the threads (alpha 0 calls no BLAS: no omp.h) */
        fputs("#if defined(_OPENMP)\n#include <omp.h>\n#endif\n", f);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.no_header = 1;
    opt.generic = generic;
    opt.row_major = mode == ROW_MAJOR;
    opt.strides = mode_strides(mode);
    char fname[32];
    tc_error e;
    int n = -1;
    for (int i = 0; i < set->count; i++) {
        snprintf(fname, sizeof fname, "alg%d", i);
        opt.function = fname;
        if (tc_emit_c(set->alg[i], c, &opt, f, &e) != TC_OK) {
            fprintf(stderr, "\n  emit %s: %s\n", set->alg[i]->name, e.message);
            goto done;
        }
    }
    for (int t = 0; opt.strides && t < 3; t++) {
        fprintf(f, "static const long stride%d[%d] = {", t, run.tensor[t].rank + 1);
        for (int k = 0; k < run.tensor[t].rank; k++)
            fprintf(f, "%lld, ", (long long)run.tensor[t].stride[k]);
        fputs("0};\n", f);
    }
    for (int i = 0; generic && i < set->count; i++) {
        fprintf(f, "static int call%d(const %s *A, const %s *B, %s *C)\n"
                   "{\n    return alg%d(", i, T, T, T, i);
        for (int x = 0; x < run.nindex; x++)
            fprintf(f, "%lld, ", (long long)run.index[x].size);
        fputs(opt.strides ? "A, stride1, B, stride2, C, stride0);\n}\n" : "A, B, C);\n}\n", f);
    }
    if (write_data(f, &run, seed) != 0)
        goto done;
    double tol = c->type == TC_TYPE_D ? 1e-12 : 100.0 * tc_type_row_of(c->type)->epsilon *
                                                    contraction_length(&run);
    write_main(f, &run, set, mode, tol);
    n = set->count;
done:
    if (fclose(f) != 0)
        n = -1;
    tc_alg_set_free(set);
    return n;
}

static int write_program(const tc_contraction *user, const char *path, uint64_t seed, int mode)
{
    return write_selection(user, path, seed, mode, TC_KERNEL_MASK_ALL, 0);
}

/* Compiles path against library l and runs it; 0 on success. */
static int compile_and_run(const char path[280], int l, const char *label)
{
    char exe[300], log[300], cmd[4096];
    snprintf(exe, sizeof exe, "%s.%s", path, lib_names[l]);
    snprintf(log, sizeof log, "%s.%s.log", path, lib_names[l]);
    const char *cc = getenv("TC_TEST_CC") ? getenv("TC_TEST_CC") : "cc";
    /* the warnings of tests/harness.sh's EMITTED_CFLAGS */
    snprintf(cmd, sizeof cmd,
             "%s %s -Wall -Wextra -pedantic -Wconversion -Wsign-conversion -Wshadow -Werror "
             "-I'%s' -o '%s' '%s' %s -lm "
             "> '%s' 2>&1 && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 BLIS_NUM_THREADS=1 "
             "'%s' >> '%s' 2>&1",
             cc, cc_std, lib_include[l], exe, path, lib_link[l], log, exe, log);
    int status = system(cmd);
    if (status != 0) {
        fprintf(stderr, "\n  %s with %s failed; %s says:\n", label, lib_names[l], log);
        FILE *f = fopen(log, "r");
        char line[512];
        for (int k = 0; f && k < 15 && fgets(line, sizeof line, f); k++)
            fprintf(stderr, "    %s", line);
        if (f)
            fclose(f);
    }
    return status;
}

static void test_corpus(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    for (int l = 0; l < NLIBS; l++) {
        if (!lib_include[l][0])
            fprintf(stderr, "\n  no cblas.h found for %s\n", lib_names[l]);
        CU_ASSERT(lib_include[l][0] != '\0');
    }
    int functions = 0;
    for (int i = 0; i < n; i++) {
        char path[280];
        snprintf(path, sizeof path, "%s/c%02d.c", tmpdir, i);
        int k = write_program(&corpus[i].c, path, 500 + (uint64_t)i, PLAIN);
        CU_ASSERT(k > 0);
        if (k <= 0)
            continue;
        functions += k;
        for (int l = 0; l < NLIBS; l++)
            if (lib_include[l][0])
                CU_ASSERT_EQUAL(compile_and_run(path, l, corpus[i].text), 0);
    }
    CU_ASSERT(functions > 2500);
}

/* *c in type t, with for every eighth contraction (serial 6, 14, ...)
 * alpha 0 (C = beta * C, beta complex for a complex type), else for a
 * complex type and every third a complex alpha and beta, else for every
 * fourth (2, 6, ...) beta 0 (NaN in C, which must not be read). */
static int typed_case(tc_contraction *c, tc_type t, int serial)
{
    tc_error e;
    int cplx = tc_type_row_of(t)->is_complex;
    if (tc_contraction_set_type(c, t, &e) != TC_OK)
        return -1;
    if (serial % 8 == 6) {
        c->alpha = 0.0, c->alpha_im = 0.0;
        c->beta = -0.5, c->beta_im = cplx ? 0.75 : 0.0;
    } else if (cplx && serial % 3 == 0) {
        c->alpha = 0.75, c->alpha_im = -1.25;
        c->beta = -0.5, c->beta_im = 0.75;
    } else if (serial % 4 == 2) {
        c->beta = 0.0, c->beta_im = 0.0;
    }
    return 0;
}

/*
 * Corpus contractions in float, float complex and double complex: all the
 * algorithms of one in one file per (contraction, type), compiled and run
 * with OpenBLAS against the reference in that type (tolerance 100 *
 * epsilon * the contraction length); complex alpha and beta, beta 0 and
 * alpha 0 by typed_case; float complex with temporaries allocated per call
 * (the default), the others kept between calls: every algorithm of every
 * contraction in every type (about 45 s). Then generic, row-major and
 * split generic code (-fopenmp) of every fourth contraction in turn, at
 * most 3 algorithms a kernel.
 */
static void test_types(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    static const tc_type types[3] = {TC_TYPE_S, TC_TYPE_C, TC_TYPE_Z};
    static const int modes[3] = {GENERIC, ROW_MAJOR, SPLIT_GENERIC};
    int functions[3] = {0, 0, 0}, variants = 0;
    for (int t = 0; t < 3 && lib_include[0][0]; t++)
        for (int i = 0; i < n; i++) {
            tc_contraction c = corpus[i].c;
            CU_ASSERT_FATAL(typed_case(&c, types[t], i) == 0);
            int mode = i % 4 == t ? modes[(i / 4) % 3] : PLAIN;
            for (int pass = 0; pass < 1 + (mode != PLAIN); pass++) {
                int m = pass ? mode : PLAIN;
                char path[280], what[400];
                snprintf(path, sizeof path, "%s/type%d_%d_%02d.c", tmpdir, t, m, i);
                int k = write_selection(&c, path, 1100 + (uint64_t)i, m, TC_KERNEL_MASK_ALL,
                                        m == PLAIN ? 0 : 3);
                CU_ASSERT(k > 0 || (k == 0 && m == SPLIT_GENERIC));
                if (k <= 0)
                    continue;
                *(m == PLAIN ? &functions[t] : &variants) += k;
                snprintf(what, sizeof what, "%s %s (mode %d)", tc_type_row_of(types[t])->c_name,
                         corpus[i].text, m);
                cc_std = m == SPLIT_GENERIC ? KEPT_STD " -fopenmp"
                         : t == 1            ? "-std=c99"
                                             : KEPT_STD;
                CU_ASSERT_EQUAL(compile_and_run(path, 0, what), 0);
            }
        }
    cc_std = KEPT_STD;
    fprintf(stderr, "[float %d, float complex %d, double complex %d functions; %d variants]\n",
            functions[0], functions[1], functions[2], variants);
    CU_ASSERT(functions[0] > 2500 && functions[1] > 2500 && functions[2] > 2500);
    CU_ASSERT(variants > 100);
}

/* Generic (sizes as parameters, run at other sizes), row-major code and
 * views (strides as constants, and generic with strides as parameters;
 * alpha 0 and beta 0 in turn, as typed_case sets them) of every corpus
 * contraction, with OpenBLAS. */
static void test_corpus_variants(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus);
    static const int modes[4] = {GENERIC, ROW_MAJOR, VIEWS, VIEWS_GENERIC};
    static const char *const label[4] = {"generic", "row-major", "views", "generic-views"};
    for (int m = 0; m < 4; m++) {
        int functions = 0, mode = modes[m];
        for (int i = 0; i < n; i++) {
            char path[280], what[300];
            tc_contraction c = corpus[i].c;
            if (mode >= VIEWS)
                CU_ASSERT_FATAL(typed_case(&c, TC_TYPE_D, i) == 0);
            snprintf(path, sizeof path, "%s/%s%02d.c", tmpdir, label[m], i);
            int k = write_program(&c, path, 700 + (uint64_t)i, mode);
            CU_ASSERT(k > 0);
            if (k <= 0)
                continue;
            functions += k;
            snprintf(what, sizeof what, "%s %s", label[m], corpus[i].text);
            if (lib_include[0][0])
                CU_ASSERT_EQUAL(compile_and_run(path, 0, what), 0);
        }
        CU_ASSERT(functions > 2500);
    }
}

/* The main of test_view_checks: C[a,b,c] += A[a,i] * B[i,b,c] at a=4,
 * b=5, c=3, i=6 by `fn`, fusing b and c, through views of dense, gapped
 * and refused strides. */
static const char view_checks_main[] =
    "static int run(const long *sa, const long *sb, const long *sc, int want_rc)\n"
    "{\n"
    "    static double A[200], B[400], C[400], C0[400];\n"
    "    for (int k = 0; k < 400; k++) {\n"
    "        B[k] = (k % 7) - 3.0;\n"
    "        C0[k] = C[k] = (k % 5) - 2.0;\n"
    "        if (k < 200)\n"
    "            A[k] = (k % 3) - 1.0;\n"
    "    }\n"
    "    int rc = fn(4, 5, 3, 6, A, sa, B, sb, C, sc);\n"
    "    if (rc != want_rc) {\n"
    "        printf(\"returned %d, not %d\\n\", rc, want_rc);\n"
    "        return 1;\n"
    "    }\n"
    "    for (long a = 0; a < 4 && rc == 0; a++)\n"
    "        for (long b = 0; b < 5; b++)\n"
    "            for (long c = 0; c < 3; c++) {\n"
    "                double x = C0[a + sc[1] * b + sc[2] * c];\n"
    "                for (long i = 0; i < 6; i++)\n"
    "                    x += A[a + sa[1] * i] * B[i + sb[1] * b + sb[2] * c];\n"
    "                C0[a + sc[1] * b + sc[2] * c] = x;\n"
    "            }\n"
    "    for (int k = 0; k < 400; k++) /* the result, gaps untouched (refused: all) */\n"
    "        if (C[k] != C0[k]) {\n"
    "            printf(\"C[%d] = %g, not %g\\n\", k, C[k], C0[k]);\n"
    "            return 1;\n"
    "        }\n"
    "    return 0;\n"
    "}\n\n"
    "int main(void)\n"
    "{\n"
    "    static const long a_dense[] = {1, 4}, b_dense[] = {1, 6, 30}, c_dense[] = {1, 4, 20};\n"
    "    static const long a_gaps[] = {1, 7}, b_gaps[] = {1, 9, 60}, c_gaps[] = {1, 5, 25};\n"
    "    static const long c_b_gap[] = {1, 4, 21}, c_first[] = {2, 8, 40},\n"
    "                      c_overlap[] = {1, 3, 20}, a_first[] = {0, 4};\n"
    "    int bad = run(a_dense, b_dense, c_dense, 0);   /* dense views */\n"
    "    bad += run(a_gaps, b_dense, c_dense, 0);       /* a gap where nothing fuses */\n"
    "    bad += run(a_dense, b_gaps, c_dense, -3);      /* B's b and c fused: a gap */\n"
    "    bad += run(a_dense, b_dense, c_b_gap, -3);     /* C's b and c fused: a gap */\n"
    "    bad += run(a_dense, b_dense, c_gaps, 0);       /* a gap before b only */\n"
    "    bad += run(a_dense, b_dense, c_first, -3);     /* a first stride of 2 */\n"
    "    bad += run(a_first, b_dense, c_dense, -3);     /* of 0 */\n"
    "    bad += run(a_dense, b_dense, c_overlap, -3);   /* b's stride 3 < 4 = N_a */\n"
    "    return bad ? 1 : 0;\n"
    "}\n";

/* Strides as parameters: an algorithm that fuses b and c into one dgemm
 * dimension computes through dense views and views whose gaps it does not
 * fuse across, and returns -3, C untouched, for a gap between b and c, a
 * first stride other than 1 and overlapping strides. */
static void test_view_checks(void)
{
    tc_contraction c;
    char msg[512], path[280];
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c] += A[a,i] * B[i,b,c]", "a=4,b=5,c=3,i=6", &c,
                                    msg, sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    tc_error e;
    CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL, &set,
                                              &e) == TC_OK);
    const tc_algorithm *alg = tc_gen_find(set, &c, "(bc)-dgemm");
    CU_ASSERT_FATAL(alg != NULL);
    snprintf(path, sizeof path, "%s/view_checks.c", tmpdir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.function = "fn";
    opt.generic = 1;
    opt.strides = 1;
    CU_ASSERT_EQUAL(tc_emit_c(alg, &c, &opt, f, &e), TC_OK);
    fputs("#include <stdio.h>\n\n", f);
    fputs(view_checks_main, f);
    CU_ASSERT_EQUAL(fclose(f), 0);
    tc_alg_set_free(set);
    if (lib_include[0][0])
        CU_ASSERT_EQUAL(compile_and_run(path, 0, "view checks"), 0);
}

/* The permutation kernel's portable path (no SSE2: as on other
 * architectures) and temporaries allocated per call (the default), through the dgemm algorithms of every
 * corpus contraction that has permuted ones and of one whose planes hold
 * whole 16 x 16 tiles, with OpenBLAS. */
static void test_permute_portable(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), permuted = 0;
    cc_std = "-std=c99 -U__SSE2__";
    tc_contraction tiles;
    char msg[512];
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c] = A[c,i,a] * B[i,b]", "a=20,b=3,c=18,i=2", &tiles,
                                    msg, sizeof msg) == 0);
    char tpath[280];
    snprintf(tpath, sizeof tpath, "%s/portable_tiles.c", tmpdir);
    CU_ASSERT(write_selection(&tiles, tpath, 899, PLAIN, 1u << TC_KERNEL_DGEMM, 0) > 0);
    if (lib_include[0][0])
        CU_ASSERT_EQUAL(compile_and_run(tpath, 0, "16 x 16 tiles"), 0);
    for (int i = 0; i < n && lib_include[0][0]; i++) {
        tc_algorithm_set *set = NULL;
        tc_error e;
        if (tc_gen_enumerate_families(&corpus[i].c, 1u << TC_KERNEL_DGEMM,
                                      1u << TC_FAMILY_PERMUTED, &set, &e) != TC_OK)
            continue;
        int any = set->count > 0;
        tc_alg_set_free(set);
        if (!any)
            continue;
        char path[280];
        snprintf(path, sizeof path, "%s/portable%02d.c", tmpdir, i);
        int k = write_selection(&corpus[i].c, path, 900 + (uint64_t)i, PLAIN,
                                1u << TC_KERNEL_DGEMM, 0);
        CU_ASSERT(k > 0);
        if (k > 0)
            CU_ASSERT_EQUAL(compile_and_run(path, 0, corpus[i].text), 0);
        permuted++;
    }
    cc_std = KEPT_STD;
    CU_ASSERT(permuted >= 8);
}

/* Loops split over threads (issue 39): the split algorithms of every
 * corpus contraction (at most 12 per kernel), over 3 OpenMP threads with
 * -fopenmp and on one thread without it, with OpenBLAS; generic, run at
 * other sizes on OpenMP's threads (2); and generic views with gaps, their
 * strides parameters (a contracted loop's partial C spans C's view). */
static void test_split(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), functions = 0;
    static const char *const flags[2] = {KEPT_STD " -fopenmp", "-std=c99"};
    static const int modes[5] = {SPLIT, SPLIT, SPLIT_GENERIC, SPLIT_GENERIC, SPLIT_VIEWS};
    for (int k = 0; k < 5 && lib_include[0][0]; k++) {
        cc_std = flags[k % 2];
        for (int i = 0; i < n; i++) {
            char path[280], what[300];
            snprintf(path, sizeof path, "%s/split%d_%02d.c", tmpdir, k, i);
            int m = write_selection(&corpus[i].c, path, 950 + (uint64_t)i,
                                    modes[k], TC_KERNEL_MASK_ALL, 12);
            CU_ASSERT(m >= 0);
            if (m <= 0)
                continue;
            functions += m;
            snprintf(what, sizeof what, "split%s %s (%s)",
                     k < 2 ? "" : k < 4 ? " generic" : " generic views",
                     corpus[i].text, flags[k % 2]);
            CU_ASSERT_EQUAL(compile_and_run(path, 0, what), 0);
        }
    }
    /* C accumulated into over two contracted indices, one split (the
     * corpus has no such case): the partial C of the other parts must not
     * carry beta */
    tc_contraction acc;
    char msg[256], path[280];
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c] += -1.5 * A[a,i,c,j] * B[j,b,i]",
                                    "a=3,b=4,c=2,i=5,j=7", &acc, msg, sizeof msg) == 0);
    for (int k = 0; k < 2 && lib_include[0][0]; k++) {
        cc_std = k ? KEPT_STD " -fopenmp" : "-std=c99";
        snprintf(path, sizeof path, "%s/split_accumulate%d.c", tmpdir, k);
        int m = write_selection(&acc, path, 990, k ? SPLIT_VIEWS : SPLIT, TC_KERNEL_MASK_ALL, 0);
        CU_ASSERT(m > 0);
        functions += m > 0 ? m : 0;
        if (m > 0)
            CU_ASSERT_EQUAL(compile_and_run(path, 0, "split, accumulated into"), 0);
    }
    cc_std = KEPT_STD;
    CU_ASSERT(functions > 200);
    fprintf(stderr, "[%d split functions]\n", functions);
}

/*
 * C = 0 * A * B + beta * C with Inf and NaN in A and B: every algorithm of
 * every corpus contraction (one in 16 also generic) in one file (one compile:
 * with alpha 0 no function calls BLAS), run against the reference (beta *
 * C, C not read for beta 0); beta 0, 1 and 0.5 in turn over the corpus.
 */
static void test_zero_alpha(void)
{
    tc_corpus_entry *corpus;
    int n = tc_corpus_require(&corpus), functions = 0;
    static const double betas[] = {0.0, 1.0, 0.5};
    char path[280];
    snprintf(path, sizeof path, "%s/zero_alpha.c", tmpdir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    tc_emit_includes(f);
    fputs("#include <math.h>\n#include <stdio.h>\n#include <string.h>\n", f);
    FILE *table = tmpfile(); /* the main's table, appended at the end */
    CU_ASSERT_FATAL(table != NULL);
    for (int i = 0; i < n; i++) {
        tc_contraction c = corpus[i].c;
        c.alpha = 0.0;
        c.beta = betas[i % 3];
        tc_algorithm_set *set = NULL;
        tc_error e;
        CU_ASSERT_FATAL(tc_gen_enumerate_families(&c, TC_KERNEL_MASK_ALL, TC_FAMILY_MASK_ALL,
                                                  &set, &e) == TC_OK);
        int64_t na = c.tensor[TC_A].elements, nb = c.tensor[TC_B].elements;
        int64_t nc = c.tensor[TC_C].elements;
        double *A = malloc((size_t)na * sizeof *A), *B = malloc((size_t)nb * sizeof *B);
        double *C0 = malloc((size_t)nc * sizeof *C0), *want = malloc((size_t)nc * sizeof *want);
        CU_ASSERT_FATAL(A && B && C0 && want);
        CU_ASSERT_FATAL(nc <= 4096); /* the main's C */
        uint64_t state = 61 + (uint64_t)i;
        tc_corpus_fill(A, na, &state);
        tc_corpus_fill(B, nb, &state);
        tc_corpus_fill(C0, nc, &state);
        A[0] = B[nb - 1] = INFINITY;
        A[na / 2] = B[0] = NAN;
        if (c.beta == 0.0) /* not to be read */
            for (int64_t k = 0; k < nc; k += 2)
                C0[k] = NAN;
        memcpy(want, C0, (size_t)nc * sizeof *want);
        tc_rt_reference(&c, A, B, want);
        char name[64];
        snprintf(name, sizeof name, "A%d", i);
        write_array(f, name, A, na);
        snprintf(name, sizeof name, "B%d", i);
        write_array(f, name, B, nb);
        snprintf(name, sizeof name, "C0_%d", i);
        write_array(f, name, C0, nc);
        snprintf(name, sizeof name, "want%d", i);
        write_array(f, name, want, nc);
        tc_emit_options opt;
        memset(&opt, 0, sizeof opt);
        opt.no_header = 1;
        for (int a = 0; a < set->count; a++)
            for (int g = 0; g < 1 + (a % 16 == 0); g++) { /* generic: one in 16 */
                snprintf(name, sizeof name, "z%d_%d%s", i, a, g ? "g" : "");
                opt.function = name;
                opt.generic = g;
                CU_ASSERT_EQUAL(tc_emit_c(set->alg[a], &c, &opt, f, &e), TC_OK);
                if (g) { /* called through the plain signature */
                    fprintf(f, "static int z%d_%dcall(const double *A, const double *B, "
                               "double *C)\n{\n    return z%d_%dg(", i, a, i, a);
                    for (int x = 0; x < c.nindex; x++)
                        fprintf(f, "%lld, ", (long long)c.index[x].size);
                    fputs("A, B, C);\n}\n", f);
                }
                fprintf(table, "    {z%d_%d%s, \"%s%s\", A%d, B%d, C0_%d, want%d, %lld},\n",
                        i, a, g ? "call" : "", set->alg[a]->name, g ? " (generic)" : "", i, i,
                        i, i, (long long)nc);
                functions++;
            }
        free(A);
        free(B);
        free(C0);
        free(want);
        tc_alg_set_free(set);
    }
    fputs("\nstatic const struct {\n"
          "    int (*fn)(const double *, const double *, double *);\n"
          "    const char *name;\n"
          "    const double *A, *B, *C0, *want;\n"
          "    long n;\n"
          "} run[] = {\n", f);
    rewind(table);
    int ch;
    while ((ch = fgetc(table)) != EOF)
        fputc(ch, f);
    fclose(table);
    fprintf(f, "};\n\n"
               "int main(void)\n{\n"
               "    static double C[4096];\n"
               "    int bad = 0;\n"
               "    for (int i = 0; i < %d; i++) {\n"
               "        memcpy(C, run[i].C0, (size_t)run[i].n * sizeof C[0]);\n"
               "        int r = run[i].fn(run[i].A, run[i].B, C);\n"
               "        for (long k = 0; k < run[i].n; k++)\n"
               "            if (r != 0 || !(C[k] == run[i].want[k])) {\n"
               "                printf(\"%%s: C[%%ld] = %%g, not %%g\\n\", run[i].name, k, C[k],\n"
               "                       run[i].want[k]);\n"
               "                bad++;\n"
               "                break;\n"
               "            }\n"
               "    }\n"
               "    printf(\"%%d functions, %%d wrong\\n\", %d, bad);\n"
               "    return bad ? 1 : 0;\n}\n",
            functions, functions);
    CU_ASSERT_EQUAL(fclose(f), 0);
    CU_ASSERT(functions > 2500);
    if (lib_include[0][0])
        CU_ASSERT_EQUAL(compile_and_run(path, 0, "alpha 0 with Inf and NaN"), 0);
}

/* One emitted file, byte for byte. */
/* One golden file: alg of "C[a,b,c] = A[i,j,a] * B[j,b,i,c]" with the given
 * options; the standalone file also compiles against both cblas.h without
 * warnings. */
static void check_golden(const char *golden, const char *name, const tc_emit_options *opt)
{
    tc_contraction c;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b,c] = A[i,j,a] * B[j,b,i,c]",
                                    "a=400,b=400,c=400,i=8,j=8", &c, msg, sizeof msg) == 0);
    if (opt->row_major)
        tc_contraction_transpose(&c, &c);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    const tc_algorithm *alg = tc_alg_set_find(set, name);
    CU_ASSERT_FATAL(alg != NULL);
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_EQUAL(tc_emit_c(alg, &c, opt, f, &e), TC_OK);
    char *got = tc_test_slurp(f);
    fclose(f);
    tc_test_golden(golden, got, name);
    char src[280];
    snprintf(src, sizeof src, "%s/golden.c", tmpdir);
    FILE *w = got ? fopen(src, "w") : NULL;
    CU_ASSERT_PTR_NOT_NULL(w);
    if (w) {
        fputs(got, w);
        fclose(w);
        for (int l = 0; l < NLIBS; l++) {
            char cmd[4096];
            snprintf(cmd, sizeof cmd,
                     "%s -std=c99 -Wall -Wextra -pedantic -Werror -I'%s' -c -o '%s.o' '%s'",
                     getenv("TC_TEST_CC") ? getenv("TC_TEST_CC") : "cc", lib_include[l], src,
                     src);
            if (lib_include[l][0])
                CU_ASSERT_EQUAL(system(cmd), 0);
        }
    }
    free(got);
    tc_alg_set_free(set);
}

static void test_golden(void)
{
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.command_line = "tcgen emit 'C[a,b,c] = A[i,j,a] * B[j,b,i,c]' a=b=c=400,i=j=8 "
                       "--algorithm \"i'c-dgemm\"";
    check_golden("golden/emit_abc_ija_jbic.c", "i'c-dgemm", &opt);
    /* generic, row-major, with notes as the main job writes them */
    opt.generic = 1;
    opt.row_major = 1;
    opt.function = "ccsd_term";
    opt.command_line = NULL;
    opt.notes = "predicted    0.01 s (1 GFLOP/s)\nrunner-ups   x 1 s, y 2 s, z 3 s, x 1 s, "
                "y 2 s, z 3 s, x 1 s, y 2 s, z 3 s, x 1 s, y 2 s, z 3 s, x 1 s, y 2 s";
    check_golden("golden/emit_abc_ija_jbic_generic_row.c", "c'i'-dgemm", &opt);
}

static void test_errors(void)
{
    tc_contraction c, nosizes;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=2,b=3,i=4", &c, msg,
                                    sizeof msg) == 0);
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", NULL, &nosizes, msg,
                                    sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    FILE *f = tmpfile();
    CU_ASSERT_FATAL(f != NULL);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    CU_ASSERT_EQUAL(tc_emit_c(set->alg[0], &nosizes, &opt, f, &e), TC_EUSAGE);
    static const char *const bad[] = {"", "1abc", "for", "A", "my-fn", "N_a", "cblas_dgemm"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        opt.function = bad[k];
        CU_ASSERT_EQUAL(tc_emit_c(set->alg[0], &c, &opt, f, &e), TC_EUSAGE);
    }
    /* the same check, alone (before any work) */
    static const char *const refused[] = {
        "", "1abc", "_f", "for", "bool", "A", "alpha", "main", "malloc", "exp", "qsort",
        "size_t", "my_t", "unix", "errno", "n_x", "ix_y", "N_z", "tmpx", "cblas_f", "bli_f",
        "a-b", "f\xc3\xa9",
        "a234567890123456789012345678901234567890123456789012345678901234"};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        CU_ASSERT_EQUAL(tc_gen_check_function_name(refused[k], &e), TC_EUSAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "cannot be the function's name"));
        CU_ASSERT_EQUAL(tc_gen_check_function_name(refused[k], NULL), TC_EUSAGE);
    }
    static const char *const accepted[] = {
        NULL, "contraction", "f", "ring", "ccsd_term2", "Exp", "nx", "ixy", "t_",
        "a23456789012345678901234567890123456789012345678901234567890123"};
    for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; k++)
        CU_ASSERT_EQUAL(tc_gen_check_function_name(accepted[k], NULL), TC_OK);
    opt.function = "my_contraction";
    CU_ASSERT_EQUAL(tc_emit_c(set->alg[0], &c, &opt, f, &e), TC_OK);
    char *text = tc_test_slurp(f);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text) {
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "int my_contraction(const double *A, const double *B, "
                                            "double *C)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "#include <cblas.h>"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "algorithm    dgemm"));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, TC_VERSION));
    }
    free(text);
    fclose(f);
    tc_alg_set_free(set);
}

/* ---- the documented limits and hostile names -------------------------- */

/* Replaces each lowercase one-letter index of tmpl by iprefix + letter and
 * each tensor name (an uppercase letter before '[') by tprefix + letter. */
static void expand(const char *tmpl, const char *iprefix, const char *tprefix, char *out,
                   size_t n)
{
    size_t len = 0;
    for (const char *p = tmpl; *p && len + 1 < n; p++) {
        const char *pre = p[0] >= 'a' && p[0] <= 'z' ? iprefix :
                          p[0] >= 'A' && p[0] <= 'Z' && p[1] == '[' ? tprefix : "";
        len += (size_t)snprintf(out + len, n - len, "%s%c", pre, *p);
    }
}

/* Sizes 2, 3, 2, 3, ... in index order. */
static void small_sizes(tc_contraction *c)
{
    tc_sizes sz;
    memset(&sz, 0, sizeof sz);
    for (int i = 0; i < c->nindex; i++) {
        snprintf(sz.entry[i].name, sizeof sz.entry[i].name, "%s", c->index[i].name);
        sz.entry[i].size = 2 + i % 2;
    }
    sz.count = c->nindex;
    CU_ASSERT_EQUAL(tc_contraction_set_sizes(c, &sz, c, NULL, NULL), TC_OK);
}

/* Emits up to max algorithms per kernel of mask in mode, compiles them with
 * library l and runs them against the reference; label names the case. */
static void check_emitted(const tc_contraction *c, unsigned mask, int max, int mode, int l,
                          const char *label)
{
    static int serial;
    char path[280];
    snprintf(path, sizeof path, "%s/case%03d.c", tmpdir, serial++);
    int k = write_selection(c, path, 900 + (uint64_t)serial, mode, mask, max);
    CU_ASSERT(k > 0);
    if (k <= 0) {
        fprintf(stderr, "\n  %s: nothing emitted\n", label);
        return;
    }
    if (lib_include[l][0])
        CU_ASSERT_EQUAL(compile_and_run(path, l, label), 0);
}

/* 31-character index and tensor names on rank-8 tensors (the parser's
 * limits, docs/decisions.md), every kernel, as written and mangled. */
static void test_limits(void)
{
    static const struct {
        const char *tmpl;
        unsigned mask;
    } cases[] = {
        {"C[a,b,c,d,e,f,g] = A[a,b,c,d,e,f,g,i] * B[i]",
         1u << TC_KERNEL_DGEMV | 1u << TC_KERNEL_DAXPY | 1u << TC_KERNEL_DDOT},
        {"C[a,b,c,d,e,f,g,x] = A[a,b,c,d,e,f,g,i] * B[i,x]",
         1u << TC_KERNEL_DGEMM | 1u << TC_KERNEL_DGER},
    };
    /* lowercase names are used as they are; uppercase ones get N_, n_, ix_ */
    static const char *const prefix[2] = {"abcdefghijklmnopqrstuvwxyz0123",
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int v = 0; v < 2; v++) {
            char text[2048], msg[512], label[64];
            expand(cases[k].tmpl, prefix[v], "Tensor_with_a_31_character_nam", text,
                   sizeof text);
            tc_contraction c;
            CU_ASSERT_FATAL(tc_corpus_parse(text, NULL, &c, msg, sizeof msg) == 0);
            small_sizes(&c);
            snprintf(label, sizeof label, "limits case %zu %s", k, v ? "mangled" : "plain");
            check_emitted(&c, cases[k].mask, 4, PLAIN, 0, label);
            check_emitted(&c, cases[k].mask, 4, v ? GENERIC : ROW_MAJOR, 0, label);
            if (!v)
                check_emitted(&c, cases[k].mask, 4, PLAIN, 1, label);
        }
}

/* Emits alg of c with opt into a new string (NULL on failure). */
static char *emit_text(const tc_algorithm *alg, const tc_contraction *c,
                       const tc_emit_options *opt)
{
    FILE *f = tmpfile();
    tc_error e;
    char *text = NULL;
    if (f && tc_emit_c(alg, c, opt, f, &e) == TC_OK)
        text = tc_test_slurp(f);
    else if (f)
        fprintf(stderr, "\n  emit %s: %s\n", alg->name, e.message);
    if (f)
        fclose(f);
    return text;
}

/* Index names that are C keywords, types, library macros, names the
 * emitted code uses, or mangled forms of each other: every emitted name
 * is still distinct and valid, in strict C99 and in GNU C (where unix and
 * linux are macros). */
static void test_identifiers(void)
{
    static const char *const texts[] = {
        "C[size_t,int,double,for] = A[size_t,I,unix,linux,for] * B[I,unix,linux,int,double,for]",
        "C[errno,complex,alpha,beta] = A[errno,pos,main,malloc] * "
        "B[pos,main,malloc,complex,alpha,beta]",
        "C[tmpA,N_a,n_a,ix_a,a] = A[tmpA,free,a,A,ix0] * B[free,A,ix0,N_a,n_a,ix_a]",
        "C[stdin,bool,true,div_t,ptrdiff_t] = A[stdin,bool,true,contraction,k] * "
        "B[k,contraction,ptrdiff_t,div_t]",
        "C[uint,xdouble,offsetof,cblas_ddot,INT_MAX] = A[uint,xdouble,NULL,EOF] * "
        "B[NULL,EOF,offsetof,cblas_ddot,INT_MAX]",
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        tc_contraction c;
        char msg[512], label[64];
        CU_ASSERT_FATAL(tc_corpus_parse(texts[t], NULL, &c, msg, sizeof msg) == 0);
        small_sizes(&c);
        snprintf(label, sizeof label, "identifiers %zu", t);
        for (int mode = PLAIN; mode <= ROW_MAJOR; mode++) {
            cc_std = "-std=c99";
            check_emitted(&c, TC_KERNEL_MASK_ALL, 2, mode, 0, label);
            cc_std = "-std=gnu17";
            check_emitted(&c, TC_KERNEL_MASK_ALL, 2, mode, 1, label);
        }
        cc_std = KEPT_STD;
    }
    /* the man page's rule: a parameter is its index's name, or n_NAME */
    tc_contraction c;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse(texts[0], NULL, &c, msg, sizeof msg) == 0);
    small_sizes(&c);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.generic = 1;
    char *text = emit_text(set->alg[0], &c, &opt);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text)
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "int contraction(size_t n_size_t, size_t n_int, "
                                            "size_t n_double, size_t n_for, size_t n_I, "
                                            "size_t n_unix, size_t n_linux,"));
    free(text);
    tc_alg_set_free(set);
}

/* Names that are not C identifiers at all (the parser allows none, a
 * program building a contraction could) are spelled out in hex. */
static void test_foreign_names(void)
{
    tc_contraction c;
    char msg[512];
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,k,i] * B[k,i,b]", NULL, &c, msg,
                                    sizeof msg) == 0);
    snprintf(c.index[0].name, sizeof c.index[0].name, "a-b");
    snprintf(c.index[1].name, sizeof c.index[1].name, "\xc3\xa9");
    snprintf(c.index[2].name, sizeof c.index[2].name, "k.1");
    small_sizes(&c);
    for (int mode = PLAIN; mode <= ROW_MAJOR; mode++)
        check_emitted(&c, TC_KERNEL_MASK_ALL, 2, mode, 0, "foreign names");
}

/* Nothing in the command line or the notes ends the header comment early
 * or warns: the first "* /" is the header's own end. */
static void test_header_escaped(void)
{
    tc_contraction c;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] = A[a,i] * B[i,b]", "a=b=i=4", &c, msg,
                                    sizeof msg) == 0);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.command_line = "tcgen emit 'C[a,b] = A[a,i] * B[i,b]' a=b=i=4 -o '/*x*/.c' "
                       "--function f */ int bad; /* \x01\x1b\n\r\xff ?\?/";
    opt.notes = "machine      */ evil /*\nrunner-ups   x */ 1 s, y /* 2 s, z ?\?/";
    char *text = emit_text(set->alg[0], &c, &opt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    const char *end = strstr(text, "link -lopenblas.\n */\n");
    CU_ASSERT_PTR_NOT_NULL(end);
    if (end)
        CU_ASSERT_PTR_EQUAL(strstr(text, "*/"), end + strlen("link -lopenblas.\n "));
    const char *open2 = strstr(text + 2, "/*");
    CU_ASSERT(open2 == NULL || (end && open2 > end));
    CU_ASSERT_PTR_NULL(strstr(text, "?\?"));
    for (const char *p = text; end && p < end; p++) /* printable ASCII and newlines */
        CU_ASSERT_FATAL(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
    char src[280], cmd[4096];
    snprintf(src, sizeof src, "%s/header.c", tmpdir);
    FILE *w = fopen(src, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    fputs(text, w);
    fclose(w);
    snprintf(cmd, sizeof cmd, "cc -std=c99 -Wall -Wextra -pedantic -Werror -I'%s' -c -o '%s.o' '%s'",
             lib_include[0], src, src);
    CU_ASSERT_EQUAL(system(cmd), 0);
    free(text);
    tc_alg_set_free(set);
}

/* Numbers do not follow the host program's locale. */
static void test_locale(void)
{
    tc_contraction c;
    char msg[512];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse("C[a,b] += 1e-3 * A[a,i] * B[i,b]", "a=b=i=4", &c, msg,
                                    sizeof msg) == 0);
    c.beta = 0.5;
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
        fprintf(stderr, "\n  locale de_DE.UTF-8 missing: the comma-decimal case is not run\n");
        CU_FAIL("locale de_DE.UTF-8 missing");
    }
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    char *text = emit_text(set->alg[0], &c, &opt);
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 0.5); /* the locale did switch */
    setlocale(LC_ALL, "C");
    CU_ASSERT_STRING_EQUAL(probe, "0,5");
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "    const double alpha = 0.001;\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "    const double beta = 0.5;\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "C[a,b] += 0.001 * A[a,i] * B[i,b]"));
    free(text);
    tc_alg_set_free(set);
}

/* The Fortran interface at the limits: 31-character names, a rank-8
 * tensor (assumed-size in the interface beyond rank 7), generic and not;
 * it compiles with gfortran -std=f2008 when gfortran is there. */
static void test_fortran(void)
{
    char text[2048], msg[512];
    expand("C[a,b,c,d,e,f,g] = A[a,b,c,d,e,f,g,i] * B[i]", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123",
           "Tensor_with_a_31_character_nam", text, sizeof text);
    tc_contraction c;
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse(text, NULL, &c, msg, sizeof msg) == 0);
    small_sizes(&c);
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, 1u << TC_KERNEL_DGEMV, &set, &e) == TC_OK);
    int have_fc = system("command -v gfortran >/dev/null 2>&1") == 0;
    for (int generic = 0; generic < 2; generic++) {
        tc_emit_options opt;
        memset(&opt, 0, sizeof opt);
        opt.generic = generic;
        opt.function = "limits_f";
        opt.command_line = "tcgen emit */ ! \x01 'a long command line' 'a long command line' "
                           "'a long command line' 'a long command line' 'a long command line'";
        char path[300], cmd[800];
        snprintf(path, sizeof path, "%s/limits_%d.f90", tmpdir, generic);
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(tc_emit_fortran(set->alg[0], &c, &opt, f, &e), TC_OK);
        CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
        f = fopen(path, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        char *got = tc_test_slurp(f);
        fclose(f);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "module limits_f_interface\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "bind(C, name=\"limits_f\")"));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, ":: Tensor_with_a_31_character_namA(*)\n"));
        if (generic)
            CU_ASSERT_PTR_NOT_NULL(strstr(got, "integer(c_size_t), value :: "
                                               "n_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123a,"));
        for (const char *p = got; *p; p++) { /* printable ASCII, lines within 132 */
            CU_ASSERT_FATAL(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
            const char *nl = strchr(p, '\n');
            CU_ASSERT_FATAL(nl && nl - p <= 132);
            p = nl;
        }
        free(got);
        snprintf(cmd, sizeof cmd, "cd '%s' && gfortran -std=f2008 -Wall -Wextra -pedantic "
                                  "-Werror -c -o limits_%d.o limits_%d.f90", tmpdir, generic, generic);
        if (have_fc)
            CU_ASSERT_EQUAL(system(cmd), 0);
    }
    /* errors: a bad or too long name, err == NULL */
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.function = "_f";
    CU_ASSERT_EQUAL(tc_emit_fortran(set->alg[0], &c, &opt, stdout, NULL), TC_EUSAGE);
    opt.function = "f2345678901234567890123456789012345678901234567890123456";
    CU_ASSERT_EQUAL(tc_gen_check_function_name(opt.function, NULL), TC_OK);
    CU_ASSERT_EQUAL(tc_emit_fortran_check(opt.function, &e), TC_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.message, "too long for --fortran"));
    CU_ASSERT_EQUAL(tc_emit_fortran(set->alg[0], &c, &opt, stdout, NULL), TC_EUSAGE);
    tc_alg_set_free(set);
}

int tc_suite_emit(void)
{
    CU_pSuite s = CU_add_suite("emit", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "all algorithms compiled and run, OpenBLAS and BLIS", test_corpus) ||
           !CU_add_test(s, "generic, row-major and view code of the corpus",
                        test_corpus_variants) ||
           !CU_add_test(s, "views with strides as parameters: checked", test_view_checks) ||
           !CU_add_test(s, "every type: float, float complex, double complex", test_types) ||
           !CU_add_test(s, "permutations without SSE2", test_permute_portable) ||
           !CU_add_test(s, "loops split over threads, with and without OpenMP", test_split) ||
           !CU_add_test(s, "alpha 0 with Inf and NaN in A and B: beta * C, every "
                           "algorithm, plain and generic", test_zero_alpha) ||
           !CU_add_test(s, "golden emitted file", test_golden) ||
           !CU_add_test(s, "errors and options", test_errors) ||
           !CU_add_test(s, "31-character names, rank-8 tensors, every kernel", test_limits) ||
           !CU_add_test(s, "hostile index names mangled", test_identifiers) ||
           !CU_add_test(s, "names that are not identifiers", test_foreign_names) ||
           !CU_add_test(s, "header comment escaped", test_header_escaped) ||
           !CU_add_test(s, "numbers under a comma-decimal locale", test_locale) ||
           !CU_add_test(s, "Fortran interface at the limits, errors", test_fortran)
               ? -1
               : 0;
}
