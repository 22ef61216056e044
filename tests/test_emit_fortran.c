/*
 * test_emit_fortran.c - the checked wrapper NAME_checked in the Fortran
 * module tc_emit_fortran writes (generator/emit_fortran_checked.c): its
 * dummies and checks for column- and row-major, generic and fixed sizes,
 * names that clash with the wrapper's, index names that need escaping in
 * a character literal, function names the module cannot take. Each module
 * compiles with gfortran -std=f2008 -Wall -Wextra -pedantic -Werror when
 * gfortran is there (tests/fortran_test.sh runs them).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator/generator.h"
#include "tests/helpers_corpus.h"
#include "tests/helpers_data.h"

static char tmpdir[200];
static int have_fc;

static int suite_init(void)
{
    have_fc = system("command -v gfortran >/dev/null 2>&1") == 0;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tcgen-emit-fortran-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return tmpdir[0] && system(cmd) != 0 ? -1 : 0;
}

/* The module for text/sizes (row: C-order tensors, as the command's
 * --layout row passes them: the transposed contraction) by the first
 * algorithm; compiled when gfortran is there. Malloc'ed, NULL on failure. */
static char *module(const char *text, const char *sizes, int generic, int row,
                    const char *function, void (*edit)(tc_contraction *))
{
    tc_contraction user, c;
    char msg[512], path[300], cmd[700];
    tc_error e;
    CU_ASSERT_FATAL(tc_corpus_parse(text, sizes, &user, msg, sizeof msg) == 0);
    if (edit)
        edit(&user);
    if (row)
        tc_contraction_transpose(&user, &c);
    else
        c = user;
    tc_algorithm_set *set = NULL;
    CU_ASSERT_FATAL(tc_gen_enumerate(&c, TC_KERNEL_MASK_ALL, &set, &e) == TC_OK);
    tc_emit_options opt;
    memset(&opt, 0, sizeof opt);
    opt.function = function;
    opt.generic = generic;
    opt.row_major = row;
    snprintf(path, sizeof path, "%s/%s_%d%d.f90", tmpdir, function, generic, row);
    FILE *f = fopen(path, "w+");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(tc_emit_fortran(set->alg[0], &c, &opt, f, &e), TC_OK);
    tc_alg_set_free(set);
    rewind(f);
    char *got = tc_test_slurp(f);
    fclose(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    for (const char *p = got; *p; p++) { /* printable ASCII, lines within 132 */
        CU_ASSERT_FATAL(*p == '\n' || (*p >= 0x20 && *p < 0x7f));
        const char *nl = strchr(p, '\n');
        CU_ASSERT_FATAL(nl && nl - p <= 132);
        p = nl;
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && gfortran -std=f2008 -Wall -Wextra -pedantic -Werror "
             "-c -o m.o '%s' 2>&1", tmpdir, path);
    if (have_fc && system(cmd) != 0) {
        fprintf(stderr, "\n  %s does not compile\n", path);
        CU_FAIL("the module does not compile");
    }
    return got;
}

#define HAS(text, s) CU_ASSERT_PTR_NOT_NULL(strstr(text, s))

static const char *const X = "C[a,b,c] = A[a,i] * B[i,b,c]", *const XS = "a=3,b=4,c=5,i=2";

static void test_column_major(void)
{
    char *m = module(X, XS, 0, 0, "f", NULL);
    HAS(m, "  public :: f\n  public :: f_checked\n");
    HAS(m, "  character(len=*), parameter :: tcgen_fn = 'f'\n");
    HAS(m, "\ncontains\n");
    HAS(m, "  subroutine f_checked(A, B, C, stat, errmsg)\n");
    HAS(m, "    real(c_double), intent(in), contiguous :: A(:, :)\n");
    HAS(m, "    real(c_double), intent(inout), contiguous :: C(:, :, :)\n");
    HAS(m, "    integer, intent(out), optional :: stat\n");
    HAS(m, "    character(len=*), intent(inout), optional :: errmsg\n");
    HAS(m, "    call tcgen_extent(msg, 'A', 1, 'a', size(A, 1, c_size_t), 3_c_size_t)\n"
           "    call tcgen_extent(msg, 'A', 2, 'i', size(A, 2, c_size_t), 2_c_size_t)\n"
           "    call tcgen_extent(msg, 'B', 1, 'i', size(B, 1, c_size_t), 2_c_size_t)\n");
    HAS(m, "    call tcgen_extent(msg, 'C', 3, 'c', size(C, 3, c_size_t), 5_c_size_t)\n");
    HAS(m, "    if (msg == '') rc = f(A, B, C)\n    call tcgen_finish(msg, rc, stat, errmsg)\n");
    CU_ASSERT_PTR_NULL(strstr(m, "tcgen_size")); /* no sizes to check */
    free(m);

    m = module(X, XS, 1, 0, "g", NULL);
    HAS(m, "  subroutine g_checked(n_a, n_b, n_c, n_i, A, B, C, stat, errmsg)\n"
           "    integer, intent(in) :: n_a, n_b, n_c, n_i\n");
    HAS(m, "    call tcgen_size(msg, 'n_a', 'a', n_a)\n");
    HAS(m, "    call tcgen_size(msg, 'n_i', 'i', n_i)\n");
    HAS(m, "    call tcgen_extent(msg, 'A', 2, 'i', size(A, 2, c_size_t), int(n_i, c_size_t))\n");
    HAS(m, "    call tcgen_extent(msg, 'B', 3, 'c', size(B, 3, c_size_t), int(n_c, c_size_t))\n");
    HAS(m, "rc = g(int(n_a, c_size_t), int(n_b, c_size_t), int(n_c, c_size_t), ");
    HAS(m, "  subroutine tcgen_size(msg, dummy, index, n)\n");
    free(m);
}

/* C order: each array is the same memory seen from Fortran, its indices
 * reversed, as in the bind(C) interface. */
static void test_row_major(void)
{
    char *m = module(X, XS, 0, 1, "f", NULL);
    HAS(m, "    real(c_double), intent(in) :: A(2, 3)\n"); /* the interface */
    HAS(m, "    call tcgen_extent(msg, 'A', 1, 'i', size(A, 1, c_size_t), 2_c_size_t)\n"
           "    call tcgen_extent(msg, 'A', 2, 'a', size(A, 2, c_size_t), 3_c_size_t)\n"
           "    call tcgen_extent(msg, 'B', 1, 'c', size(B, 1, c_size_t), 5_c_size_t)\n"
           "    call tcgen_extent(msg, 'B', 2, 'b', size(B, 2, c_size_t), 4_c_size_t)\n"
           "    call tcgen_extent(msg, 'B', 3, 'i', size(B, 3, c_size_t), 2_c_size_t)\n"
           "    call tcgen_extent(msg, 'C', 1, 'c', size(C, 1, c_size_t), 5_c_size_t)\n");
    free(m);

    m = module(X, XS, 1, 1, "g", NULL);
    HAS(m, "    call tcgen_extent(msg, 'C', 1, 'c', size(C, 1, c_size_t), int(n_c, c_size_t))\n"
           "    call tcgen_extent(msg, 'C', 2, 'b', size(C, 2, c_size_t), int(n_b, c_size_t))\n"
           "    call tcgen_extent(msg, 'C', 3, 'a', size(C, 3, c_size_t), int(n_a, c_size_t))\n");
    HAS(m, "    call tcgen_size(msg, 'n_a', 'a', n_a)\n");
    free(m);
}

static void quote_and_accent(tc_contraction *c)
{
    snprintf(c->index[0].name, sizeof c->index[0].name, "a'b");
    snprintf(c->index[1].name, sizeof c->index[1].name, "\xc3\xa9");
}

/* Tensors named like the wrapper's dummies, the intrinsics it calls and its
 * local give way (stat= stays the keyword); index names become literals. */
static void test_names(void)
{
    char *m = module("size[a,b] = stat[a,i] * msg[i,b]", "a=b=i=3", 1, 0, "f", NULL);
    HAS(m, "  subroutine f_checked(n_a, n_b, n_i, stat_2, msg_2, size_2, stat, errmsg)\n");
    HAS(m, "    real(c_double), intent(inout), contiguous :: size_2(:, :)\n");
    HAS(m, "size(stat_2, 1, c_size_t)");
    free(m);
    m = module("C[a,b] = A[a,i] * B[i,b]", "a=b=i=3", 1, 0, "f", quote_and_accent);
    HAS(m, "    call tcgen_extent(msg, 'A', 1, 'a''b', size(A, 1, c_size_t), ");
    HAS(m, "    call tcgen_extent(msg, 'C', 2, '\\xc3\\xa9', size(C, 2, c_size_t), ");
    free(m);

    tc_error e;
    static const char *const refused[] = {"size", "Trim", "C_SIZE_T", "present", "error_unit"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        memset(&e, 0, sizeof e);
        CU_ASSERT_EQUAL(tc_emit_fortran_check(refused[k], &e), TC_EUSAGE);
        HAS(e.message, "the Fortran module uses the name");
    }
    CU_ASSERT_EQUAL(tc_emit_fortran_check("tcgen_finish", &e), TC_EUSAGE); /* C refuses tcgen* */
    CU_ASSERT_EQUAL(tc_emit_fortran_check("sizes", &e), TC_OK);
    CU_ASSERT_EQUAL(tc_emit_fortran_check("stat", &e), TC_OK); /* the dummy is stat_2 */
}

static void to_float(tc_contraction *c)
{
    CU_ASSERT_FATAL(tc_contraction_set_type(c, TC_TYPE_S, NULL) == TC_OK);
}

static void to_float_complex(tc_contraction *c)
{
    CU_ASSERT_FATAL(tc_contraction_set_type(c, TC_TYPE_C, NULL) == TC_OK);
}

/* The arrays in the element type, in the interface and the wrapper, with
 * its kind imported; the kinds are names the function may not take. */
static void test_types(void)
{
    char *m = module(X, XS, 0, 0, "f", to_float);
    HAS(m, "  use, intrinsic :: iso_c_binding, only: c_float, c_int, c_size_t\n");
    HAS(m, "      import :: c_float, c_int\n");
    HAS(m, "      real(c_float), intent(in) :: A(3, 2)\n");
    HAS(m, "    real(c_float), intent(inout), contiguous :: C(:, :, :)\n");
    HAS(m, "const float *A, const float *B, float *C)");
    CU_ASSERT_PTR_NULL(strstr(m, "c_double"));
    free(m);
    m = module(X, XS, 1, 0, "g", to_float_complex);
    HAS(m, "  use, intrinsic :: iso_c_binding, only: c_float_complex, c_int, c_size_t\n");
    HAS(m, "      import :: c_float_complex, c_int, c_size_t\n");
    HAS(m, "      complex(c_float_complex), intent(inout) :: C(n_a, n_b, n_c)\n");
    HAS(m, "    complex(c_float_complex), intent(in), contiguous :: A(:, :)\n");
    free(m);
    tc_error e;
    CU_ASSERT_EQUAL(tc_emit_fortran_check("c_double_complex", &e), TC_EUSAGE);
    CU_ASSERT_EQUAL(tc_emit_fortran_check("c_float", &e), TC_EUSAGE);
}

int tc_suite_emit_fortran(void)
{
    CU_pSuite s = CU_add_suite("emit_fortran", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "checked wrapper, column-major, fixed and generic", test_column_major) ||
           !CU_add_test(s, "checked wrapper, row-major: indices reversed", test_row_major) ||
           !CU_add_test(s, "checked wrapper: names that clash, literals, refused names",
                        test_names) ||
           !CU_add_test(s, "element types: float and complex arrays", test_types)
               ? -1
               : 0;
}
