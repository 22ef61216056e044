/*
 * emit_fortran.c - the Fortran 2008 interface of the function emit_c.c
 * writes: a module NAME_interface with the bind(C) interface block of NAME,
 * so that a Fortran program calls the emitted C without writing (or
 * reading) the binding itself, and the checked wrapper NAME_checked
 * (emit_fortran_checked.c).
 *
 * Fortran names are case-insensitive, so every dummy name is checked
 * against the others in lowercase; a clash gets "_2", "_3", ... The names
 * the wrapper needs (stat, errmsg, its local msg, the intrinsics size and
 * int, its helpers) are taken before the tensors', so that the keywords
 * stat= and errmsg= are what they say. The array dummies of the interface
 * are explicit-shape in storage order (the C function's tensors as Fortran
 * sees the same memory: a row-major tensor's indices reversed), up to rank
 * 7; a rank-8 tensor is assumed-size there and its shape is in the comment
 * (the wrapper's assumed-shape arrays have every rank up to Fortran 2008's
 * 15).
 */
#include "emit_fortran.h"

#include <stdlib.h>
#include <string.h>

#include "ast/c_locale.h"
#include "ast/error.h"

#define MODULE_SUFFIX "_interface"

/* Names the module uses besides the function's own: the function may not
 * take one (the module would hide the intrinsic or the kind). */
static const char *const module_names[] = {
    "c_double", "c_float", "c_double_complex", "c_float_complex", /* the types' kinds */
    "c_int", "c_size_t", "size", "int", "present", "trim", "error_unit",
    "tcgen_fn", "tcgen_size", "tcgen_extent", "tcgen_finish", NULL};

static int letter(int ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int digit(int ch) { return ch >= '0' && ch <= '9'; }

/* A letter, then letters, digits and '_', at most 63 characters. */
static int fortran_name(const char *s)
{
    if (!letter((unsigned char)s[0]) || strlen(s) > 63)
        return 0;
    for (; *s; s++)
        if (!letter((unsigned char)*s) && !digit((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        x += x >= 'A' && x <= 'Z' ? 'a' - 'A' : 0;
        y += y >= 'A' && y <= 'Z' ? 'a' - 'A' : 0;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

static int taken(const fnames *f, const char *s)
{
    for (int k = 0; k < f->n; k++)
        if (same_name(f->name[k], s))
            return 1;
    return 0;
}

/* Adds want (or want_2, want_3, ... when taken) to f; returns it. */
static const char *claim(fnames *f, const char *want)
{
    char *out = f->name[f->n];
    snprintf(out, FNAME_MAX, "%s", want);
    for (int k = 2; taken(f, out); k++)
        snprintf(out, FNAME_MAX, "%.50s_%d", want, k);
    f->n++;
    return out;
}

/* s as comment text (malloc'ed): printable ASCII, other bytes as \xNN,
 * line breaks as spaces. */
static char *escaped(const char *s)
{
    char *out = malloc(4 * strlen(s) + 1), *p = out;
    for (; out && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\n' || ch == '\r')
            *p++ = ' ';
        else if (ch < 0x20 || ch >= 0x7f)
            p += sprintf(p, "\\x%02x", ch);
        else
            *p++ = (char)ch;
    }
    if (out)
        *p = '\0';
    return out;
}

/* "! " + label + text, broken into lines of at most WIDTH characters
 * (after a space where there is one), continued under the text. */
void tc_fortran_comment(FILE *out, const char *indent, const char *label, const char *raw)
{
    char *text = escaped(raw);
    if (!text) {
        fprintf(out, "%s!\n", indent);
        return;
    }
    size_t room = WIDTH - strlen(indent) - 2 - strlen(label);
    const char *p = text;
    size_t len = strlen(p);
    int first = 1;
    if (!len && !label[0])
        fprintf(out, "%s!\n", indent);
    while (len || (first && label[0])) {
        size_t take = len;
        if (len > room) {
            take = room;
            for (size_t k = room; k > room / 2; k--)
                if (p[k] == ' ') {
                    take = k;
                    break;
                }
        }
        fprintf(out, "%s! %*s%s%.*s\n", indent, first ? 0 : (int)strlen(label), "",
                first ? label : "", (int)take, p);
        p += take;
        len -= take;
        while (len && *p == ' ')
            p++, len--;
        first = 0;
    }
    free(text);
}

void tc_fortran_item(fortran_line *l, const char *text)
{
    int n = (int)strlen(text);
    if (!l->items && l->col + n + 4 > WIDTH) { /* the first item on a line of its own */
        fprintf(l->out, "&\n%s", l->indent);
        l->col = (int)strlen(l->indent);
    } else if (l->items && l->col + n + 4 > WIDTH) {
        fprintf(l->out, ", &\n%s", l->indent);
        l->col = (int)strlen(l->indent);
    } else if (l->items) {
        fputs(", ", l->out);
        l->col += 2;
    }
    fputs(text, l->out);
    l->col += n;
    l->items++;
}

void tc_fortran_arrays(fortran_line *l, const fortran *f)
{
    static const int order[3] = {TC_A, TC_B, TC_C}; /* the C function's */
    for (int t = 0; t < 3; t++)
        tc_fortran_item(l, f->array[order[t]]);
}

void tc_fortran_dummies(fortran_line *l, const fortran *f)
{
    for (int i = 0; f->opt->generic && i < f->c->nindex; i++)
        tc_fortran_item(l, f->size[i]);
    tc_fortran_arrays(l, f);
}

void tc_fortran_start(fortran_line *l, FILE *out, const char *text, const char *indent)
{
    l->out = out;
    l->col = fprintf(out, "%s", text);
    l->items = 0;
    l->indent = indent;
}

/* The contraction (sizes = 0) or its sizes as text (malloc'ed). */
static char *contraction_text(const tc_contraction *c, int sizes)
{
    size_t n = sizes ? tc_contraction_format_sizes(c, NULL, 0) : tc_contraction_format(c, NULL, 0);
    char *s = malloc(n + 1);
    if (s && sizes)
        tc_contraction_format_sizes(c, s, n + 1);
    else if (s)
        tc_contraction_format(c, s, n + 1);
    return s;
}

/* "T[a,e,i,m]" (user's form) into buf. */
static void tensor_text(const tc_contraction *c, int t, char *buf, size_t n)
{
    const tc_tensor *x = &c->tensor[t];
    size_t len = 0;
    tc_text_put(buf, n, &len, x->name);
    tc_text_put(buf, n, &len, "[");
    for (int k = 0; k < x->rank; k++) {
        tc_text_put(buf, n, &len, k ? "," : "");
        tc_text_put(buf, n, &len, c->index[x->index[k]].name);
    }
    tc_text_put(buf, n, &len, "]");
}

tc_status tc_emit_fortran_check(const char *function, tc_error *err)
{
    const char *fname = function ? function : "contraction";
    tc_status s = tc_gen_check_function_name(function, err);
    if (s != TC_OK)
        return s;
    if (strlen(fname) + strlen(MODULE_SUFFIX) > 63)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "'%s' is too long for --fortran: the module %s%s would have more "
                            "than 63 characters (use at most %d)", fname, fname, MODULE_SUFFIX,
                            63 - (int)strlen(MODULE_SUFFIX));
    for (int k = 0; module_names[k]; k++)
        if (same_name(fname, module_names[k]))
            return tc_error_set(err, TC_EUSAGE, 0, 0,
                                "'%s' cannot be the function's name with --fortran: the "
                                "Fortran module uses the name %s", fname, module_names[k]);
    return TC_OK;
}

/* Dummy names: the function's, the module's and the wrapper's names are
 * taken first, then the tensors', the sizes' and the result's. */
static void name_dummies(fortran *f)
{
    char checked[FNAME_MAX];
    claim(&f->names, f->fname);
    for (int k = 0; module_names[k]; k++)
        claim(&f->names, module_names[k]);
    snprintf(checked, sizeof checked, "%s_checked", f->fname); /* fname: 53 at most */
    f->checked = claim(&f->names, checked);
    f->stat = claim(&f->names, "stat");
    f->errmsg = claim(&f->names, "errmsg");
    f->msg = claim(&f->names, "msg");
    static const int order[3] = {TC_A, TC_B, TC_C}; /* the arguments' */
    static const char *const role[3] = {"A", "B", "C"};
    for (int k = 0; k < 3; k++) {
        const char *n = f->user.tensor[order[k]].name;
        f->array[order[k]] = claim(&f->names, fortran_name(n) ? n : role[k]);
    }
    for (int i = 0; f->opt->generic && i < f->c->nindex; i++) {
        char want[FNAME_MAX];
        const char *n = f->c->index[i].name;
        if (fortran_name(n) && strlen(n) <= 60)
            snprintf(want, sizeof want, "n_%s", n);
        else
            snprintf(want, sizeof want, "n_%d", i + 1);
        f->size[i] = claim(&f->names, want);
    }
    f->result = claim(&f->names, "rc");
}

static void header(fortran *f, char *form, char *sizes)
{
    FILE *out = f->out;
    char text[2 * FNAME_MAX + 80];
    snprintf(text, sizeof text, "Generated by tcgen %s: the Fortran interface of the C function %s.",
             TC_VERSION, f->fname);
    tc_fortran_comment(out, "", "", text);
    tc_fortran_comment(out, "", "", "");
    tc_fortran_comment(out, "", "  contraction  ", form);
    if (f->opt->generic) {
        char *s = malloc(strlen(sizes) + 64);
        if (s) {
            sprintf(s, "arguments of the function (ranked for %s)", sizes);
            tc_fortran_comment(out, "", "  sizes        ", s);
        }
        free(s);
    } else {
        tc_fortran_comment(out, "", "  sizes        ", sizes);
    }
    tc_fortran_comment(out, "", "  algorithm    ", f->alg->name);
    if (f->opt->command_line)
        tc_fortran_comment(out, "", "  command      ", f->opt->command_line);
    tc_fortran_comment(out, "", "", "");
    tc_fortran_comment(out, "", "", f->opt->row_major ?
            "The C function takes row-major (C order) tensors: each array below is the same "
            "memory seen from Fortran, its indices in reverse order." :
            "Arrays are column-major, Fortran's own order: pass them as they are.");
    tc_fortran_comment(out, "", "", "Link the object file of the emitted C and a CBLAS library "
                         "(e.g. -lopenblas).");
    tc_fortran_comment(out, "", "", "");
    char more[2 * FNAME_MAX + 400];
    snprintf(more, sizeof more, "Or call %s: it takes %sassumed-shape arrays in the same order, "
             "checks that every extent is the size of its index%s, and refuses a mismatch with "
             "a message (error stop, or stat and errmsg when stat is given).", f->checked,
             f->opt->generic ? "default integer sizes and " : "",
             f->opt->generic ? " and that no size is negative" : "");
    tc_fortran_comment(out, "", "", more);
}

/* What the C function takes, as a comment. */
static void c_signature(fortran *f)
{
    char text[3 * TC_NAME_MAX + FNAME_MAX + 200];
    const char *T = tc_type_row_of(f->c->type)->c_name;
    size_t len = 0;
    if (f->opt->generic)
        len = (size_t)snprintf(text, sizeof text, "int %s(%d sizes as size_t, ", f->fname,
                               f->c->nindex);
    else
        len = (size_t)snprintf(text, sizeof text, "int %s(", f->fname);
    const tc_tensor *t = f->user.tensor;
    if (strcmp(t[TC_A].name, "A") || strcmp(t[TC_B].name, "B") || strcmp(t[TC_C].name, "C"))
        snprintf(text + len, sizeof text - len, "const %s *A, const %s *B, %s *C): "
                 "A holds %s, B holds %s, C holds %s", T, T, T, t[TC_A].name, t[TC_B].name,
                 t[TC_C].name);
    else
        snprintf(text + len, sizeof text - len, "const %s *A, const %s *B, %s *C)", T, T, T);
    tc_fortran_comment(f->out, "    ", "", text);
}

static void declare_array(fortran *f, int t, const char *intent, fortran_line *l)
{
    const tc_tensor *x = &f->c->tensor[t];
    FILE *out = f->out;
    char text[FNAME_MAX + 80], what[TC_MAX_RANK * (TC_NAME_MAX + 1) + TC_NAME_MAX + 8];
    tensor_text(&f->user, t, what, sizeof what);
    tc_fortran_comment(out, "      ", "", what);
    snprintf(text, sizeof text, "      %s, intent(%s) :: %s", tc_type_row_of(f->c->type)->fortran,
             intent, f->array[t]);
    if (x->rank == 0) {
        fprintf(out, "%s\n", text);
        return;
    }
    if (x->rank > 7) { /* beyond Fortran 2003's rank 7: the memory, any shape */
        fprintf(out, "%s(*)\n", text);
        return;
    }
    strcat(text, "(");
    tc_fortran_start(l, out, text, "          ");
    for (int k = 0; k < x->rank; k++) {
        char dim[FNAME_MAX];
        int i = x->index[k];
        if (f->opt->generic)
            snprintf(dim, sizeof dim, "%s", f->size[i]);
        else
            snprintf(dim, sizeof dim, "%lld", (long long)f->c->index[i].size);
        tc_fortran_item(l, dim);
    }
    fputs(")\n", out);
}

/* "module NAME_interface", what it uses, what it makes public. */
static void module_head(fortran *f, int kept)
{
    FILE *out = f->out;
    fprintf(out, "module %s%s\n", f->fname, MODULE_SUFFIX);
    fprintf(out, "  use, intrinsic :: iso_c_binding, only: %s, c_int, c_size_t\n"
                 "  implicit none\n  private\n", tc_type_row_of(f->c->type)->fortran_kind);
    fprintf(out, "  public :: %s\n  public :: %s\n", f->fname, f->checked);
    if (kept) /* fname is at most 53 characters (the module's name) */
        fprintf(out, "  public :: %s_release\n", f->fname);
    /* the function's name in the wrapper's messages: a line of at most 99 */
    fprintf(out, "  character(len=*), parameter :: tcgen_fn = '%s'\n", f->fname);
}

/* The bind(C) interface of the function (and of NAME_release). */
static void interface_block(fortran *f, int kept)
{
    FILE *out = f->out;
    fortran_line l;
    char text[2 * FNAME_MAX + 64];
    fputs("\n  interface\n", out);
    c_signature(f);
    snprintf(text, sizeof text, "    function %s(", f->fname);
    tc_fortran_start(&l, out, text, "        ");
    tc_fortran_dummies(&l, f);
    fprintf(out, ") &\n        result(%s) bind(C, name=\"%s\")\n", f->result, f->fname);
    fprintf(out, "      import :: %s, c_int%s\n      implicit none\n",
            tc_type_row_of(f->c->type)->fortran_kind, f->opt->generic ? ", c_size_t" : "");
    if (f->opt->generic) {
        tc_fortran_start(&l, out, "      integer(c_size_t), value :: ", "          ");
        for (int i = 0; i < f->c->nindex; i++)
            tc_fortran_item(&l, f->size[i]);
        fputs("\n", out);
    }
    declare_array(f, TC_A, "in", &l);
    declare_array(f, TC_B, "in", &l);
    declare_array(f, TC_C, "inout", &l);
    fprintf(out, "      integer(c_int) :: %s\n    end function %s\n", f->result, f->fname);
    if (kept)
        fprintf(out, "    ! frees the temporaries %s keeps for the calling thread\n"
                     "    subroutine %s_release() bind(C, name=\"%s_release\")\n"
                     "    end subroutine %s_release\n",
                f->fname, f->fname, f->fname, f->fname);
    fputs("  end interface\n", out);
}

static void body(fortran *f)
{
    int kept = tc_alg_permuted_temps(f->alg); /* the C function keeps them (emit_c.c) */
    module_head(f, kept);
    interface_block(f, kept);
    fputs("\ncontains\n\n", f->out);
    tc_fortran_checked(f);
    tc_fortran_helpers(f);
    fprintf(f->out, "end module %s%s\n", f->fname, MODULE_SUFFIX);
}

tc_status tc_emit_fortran(const tc_algorithm *alg, const tc_contraction *c,
                          const tc_emit_options *opt, FILE *out, tc_error *err)
{
    static const tc_emit_options defaults;
    if (!opt)
        opt = &defaults;
    if (!alg || !c || !out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_emit_fortran: NULL argument");
    tc_status s = tc_emit_fortran_check(opt->function, err);
    if (s != TC_OK)
        return s;
    if (!c->has_sizes)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "cannot emit %s: the contraction has no sizes", alg->name);
    if (opt->strides || tc_contraction_strided(c))
        return tc_error_set(err, TC_EUSAGE, 0, 0, "cannot emit %s: the Fortran interface takes "
                            "explicit-shape arrays, not views", alg->name);
    fortran f;
    memset(&f, 0, sizeof f);
    f.alg = alg;
    f.c = c;
    f.opt = opt;
    f.fname = opt->function ? opt->function : "contraction";
    f.out = out;
    if (opt->row_major)
        tc_contraction_transpose(c, &f.user);
    else
        f.user = *c;
    name_dummies(&f);
    locale_t saved = tc_c_locale_enter();
    char *form = contraction_text(&f.user, 0), *sizes = contraction_text(&f.user, 1);
    if (form && sizes) {
        header(&f, form, sizes);
        body(&f);
    }
    tc_c_locale_leave(saved);
    int oom = !form || !sizes;
    free(form);
    free(sizes);
    if (oom)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot emit %s: out of memory", alg->name);
    if (ferror(out))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write the Fortran interface: "
                                                     "write error");
    return TC_OK;
}
