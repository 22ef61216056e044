/*
 * emit_fortran_checked.c - NAME_checked, the wrapper of the emitted
 * function in its Fortran module (emit_fortran.c writes the rest):
 *
 *   subroutine NAME_checked([n_a, n_b, ...,] A, B, C, stat, errmsg)
 *
 * with default integer sizes (--generic; none for fixed sizes) and
 * assumed-shape contiguous arrays of the element type (real(c_double),
 * complex(c_float_complex), ...) and of the tensors' ranks (scalars for
 * rank 0). Before calling NAME it refuses a negative size and
 * an array whose extent in some dimension is not the size of the index
 * that dimension stands for, in storage order: column-major arrays are
 * Fortran's own order, and for --layout row each array is the same memory
 * seen from Fortran, its indices reversed (as in the bind(C) interface).
 * The message names the function, the array, the dimension, the index and
 * both numbers: "ring: T has extent 10 in dimension 2 (index e), expected
 * 32". It converts the sizes to c_size_t itself.
 *
 * A refusal (stat 1) or a failure of the C function (stat = what it
 * returned: -1 no memory, -2 a size too large for BLAS's int) sets the
 * optional stat and errmsg when stat is present (the ALLOCATE statement's
 * convention), and otherwise writes the message to error_unit and ends the
 * program with error stop 1. A non-contiguous actual argument is copied
 * in (and out, for C) by the compiler, as for any contiguous dummy.
 */
#include "emit_fortran.h"

#include <string.h>

/* A Fortran character literal of s in buf: printable ASCII, quotes
 * doubled, other bytes as \xNN; cut after 60 characters with "...". */
static void literal(const char *s, char *buf, size_t n)
{
    size_t len = 0;
    buf[len++] = '\'';
    for (; *s && len < 61 && len + 8 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\'')
            len += (size_t)snprintf(buf + len, n - len, "''");
        else if (ch < 0x20 || ch >= 0x7f)
            len += (size_t)snprintf(buf + len, n - len, "\\x%02x", ch);
        else
            buf[len++] = (char)ch;
    }
    snprintf(buf + len, n - len, "%s'", *s ? "..." : "");
}

/* "    call NAME(item, item, ...)" with continuation lines. */
static void call(const fortran *f, const char *name, const char *const *items, int n)
{
    fortran_line l;
    char text[FNAME_MAX + 16];
    snprintf(text, sizeof text, "    call %s(", name);
    tc_fortran_start(&l, f->out, text, "        ");
    for (int k = 0; k < n; k++)
        tc_fortran_item(&l, items[k]);
    fputs(")\n", f->out);
}

/* An array dummy: assumed-shape and contiguous, a scalar at rank 0. */
static void declare_array(const fortran *f, int t, const char *intent)
{
    const tc_tensor *x = &f->c->tensor[t];
    const char *type = tc_type_row_of(f->c->type)->fortran; /* "real(c_double)" */
    char text[FNAME_MAX + 80];
    fortran_line l;
    if (x->rank == 0) {
        fprintf(f->out, "    %s, intent(%s) :: %s\n", type, intent, f->array[t]);
        return;
    }
    snprintf(text, sizeof text, "    %s, intent(%s), contiguous :: %s(", type, intent,
             f->array[t]);
    char shape[3 * TC_MAX_RANK] = ":";
    for (int k = 1; k < x->rank; k++)
        strcat(shape, ", :");
    tc_fortran_start(&l, f->out, text, "        ");
    tc_fortran_item(&l, shape); /* entire, on a line of its own when need be */
    fputs(")\n", f->out);
}

/* The subroutine statement and the declarations. */
static void declarations(const fortran *f)
{
    FILE *out = f->out;
    fortran_line l;
    char text[FNAME_MAX + 16];
    snprintf(text, sizeof text, "  subroutine %s(", f->checked);
    tc_fortran_start(&l, out, text, "      ");
    tc_fortran_dummies(&l, f);
    tc_fortran_item(&l, f->stat);
    tc_fortran_item(&l, f->errmsg);
    fputs(")\n", out);
    if (f->opt->generic) {
        tc_fortran_start(&l, out, "    integer, intent(in) :: ", "        ");
        for (int i = 0; i < f->c->nindex; i++)
            tc_fortran_item(&l, f->size[i]);
        fputs("\n", out);
    }
    declare_array(f, TC_A, "in");
    declare_array(f, TC_B, "in");
    declare_array(f, TC_C, "inout");
    fprintf(out, "    integer, intent(out), optional :: %s\n"
                 "    character(len=*), intent(inout), optional :: %s\n"
                 "    character(len=512) :: %s\n"
                 "    integer(c_int) :: %s\n\n",
            f->stat, f->errmsg, f->msg, f->result);
}

/* The size of index i as the wrapper has it: a c_size_t expression. */
static void want(const fortran *f, int i, char *buf, size_t n)
{
    if (f->opt->generic)
        snprintf(buf, n, "int(%s, c_size_t)", f->size[i]);
    else
        snprintf(buf, n, "%lld_c_size_t", (long long)f->c->index[i].size);
}

/* A call of tcgen_size for every size, of tcgen_extent for every extent. */
static void checks(const fortran *f)
{
    enum { ITEM = FNAME_MAX + 4 * 16 };
    char it[6][ITEM];
    const char *const items[6] = {it[0], it[1], it[2], it[3], it[4], it[5]};
    fprintf(f->out, "    %s = ''\n", f->msg);
    for (int i = 0; f->opt->generic && i < f->c->nindex; i++) {
        snprintf(it[0], ITEM, "%s", f->msg);
        snprintf(it[1], ITEM, "'%s'", f->size[i]);
        literal(f->c->index[i].name, it[2], ITEM);
        snprintf(it[3], ITEM, "%s", f->size[i]);
        call(f, "tcgen_size", items, 4);
    }
    static const int order[3] = {TC_A, TC_B, TC_C}; /* the arguments' */
    for (int t = 0; t < 3; t++) {
        const tc_tensor *x = &f->c->tensor[order[t]];
        const char *name = f->array[order[t]];
        for (int k = 0; k < x->rank; k++) {
            snprintf(it[0], ITEM, "%s", f->msg);
            snprintf(it[1], ITEM, "'%s'", name);
            snprintf(it[2], ITEM, "%d", k + 1);
            literal(f->c->index[x->index[k]].name, it[3], ITEM);
            snprintf(it[4], ITEM, "size(%s, %d, c_size_t)", name, k + 1);
            want(f, x->index[k], it[5], ITEM);
            call(f, "tcgen_extent", items, 6);
        }
    }
}

void tc_fortran_checked(const fortran *f)
{
    FILE *out = f->out;
    fortran_line l;
    char text[3 * FNAME_MAX + 200];
    snprintf(text, sizeof text, "%s: %s with %sassumed-shape arrays, each %s checked first "
             "(stat: 0 done, 1 an argument refused, else what %s returned; see tcgen_finish)",
             f->checked, f->fname, f->opt->generic ? "default integer sizes and " : "",
             f->opt->generic ? "size and extent" : "extent", f->fname);
    tc_fortran_comment(out, "  ", "", text);
    declarations(f);
    checks(f);
    fprintf(out, "    %s = 0\n", f->result);
    snprintf(text, sizeof text, "    if (%s == '') %s = %s(", f->msg, f->result, f->fname);
    tc_fortran_start(&l, out, text, "        ");
    for (int i = 0; f->opt->generic && i < f->c->nindex; i++) {
        want(f, i, text, sizeof text);
        tc_fortran_item(&l, text);
    }
    tc_fortran_arrays(&l, f);
    fputs(")\n", out);
    const char *const end[4] = {f->msg, f->result, f->stat, f->errmsg};
    call(f, "tcgen_finish", end, 4);
    fprintf(out, "  end subroutine %s\n\n", f->checked);
}

/* The same for every function: the messages name it through tcgen_fn.
 * The checks: msg names the first argument refused, '' while none is. */
static const char size_helper[] =
    "  ! a negative size (generic functions only)\n"
    "  subroutine tcgen_size(msg, dummy, index, n)\n"
    "    character(len=*), intent(inout) :: msg\n"
    "    character(len=*), intent(in) :: dummy, index\n"
    "    integer, intent(in) :: n\n"
    "    if (msg /= '' .or. n >= 0) return\n"
    "    write (msg, '(6a, i0, a)') tcgen_fn, ': ', dummy, ', the size of index ', index, &\n"
    "      ', is ', n, ': sizes cannot be negative'\n"
    "  end subroutine tcgen_size\n"
    "\n";

static const char helpers[] =
    "  ! The checks: msg names the first argument refused, '' while none is.\n"
    "  subroutine tcgen_extent(msg, tensor, dim, index, extent, want)\n"
    "    character(len=*), intent(inout) :: msg\n"
    "    character(len=*), intent(in) :: tensor, index\n"
    "    integer, intent(in) :: dim\n"
    "    integer(c_size_t), intent(in) :: extent, want\n"
    "    if (msg /= '' .or. extent == want) return\n"
    "    write (msg, '(4a, i0, a, i0, 3a, i0)') tcgen_fn, ': ', tensor, ' has extent ', extent, &\n"
    "      ' in dimension ', dim, ' (index ', index, '), expected ', want\n"
    "  end subroutine tcgen_extent\n"
    "\n"
    "  ! stat = 0: done; 1: an argument refused (msg says which; nothing called,\n"
    "  ! no array changed); else what the function returned (-1: no memory for\n"
    "  ! its temporaries, -2: a size too large for a BLAS int argument). errmsg\n"
    "  ! gets the message when stat is present; without stat a failure writes it\n"
    "  ! to error_unit and stops the program (error stop 1).\n"
    "  subroutine tcgen_finish(msg, rc, stat, errmsg)\n"
    "    use, intrinsic :: iso_fortran_env, only: error_unit\n"
    "    character(len=*), intent(inout) :: msg\n"
    "    integer(c_int), intent(in) :: rc\n"
    "    integer, intent(out), optional :: stat\n"
    "    character(len=*), intent(inout), optional :: errmsg\n"
    "    integer :: code\n"
    "    code = rc\n"
    "    if (msg /= '') then\n"
    "      code = 1\n"
    "    else if (rc == -1) then\n"
    "      msg = tcgen_fn // ': no memory for its temporaries (it returned -1)'\n"
    "    else if (rc == -2) then\n"
    "      msg = tcgen_fn // ': a size is too large for a BLAS int argument (it returned -2)'\n"
    "    else if (rc /= 0) then\n"
    "      write (msg, '(2a, i0)') tcgen_fn, ': it returned ', rc\n"
    "    end if\n"
    "    if (present(stat)) then\n"
    "      stat = code\n"
    "      if (code /= 0 .and. present(errmsg)) errmsg = msg\n"
    "    else if (code /= 0) then\n"
    "      write (error_unit, '(a)') trim(msg)\n"
    "      error stop 1\n"
    "    end if\n"
    "  end subroutine tcgen_finish\n";

void tc_fortran_helpers(const fortran *f)
{
    if (f->opt->generic)
        fputs(size_helper, f->out);
    fputs(helpers, f->out);
}
