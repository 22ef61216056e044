/*
 * emit_c.c - one algorithm as a standalone C99 function that calls CBLAS.
 *
 * The output reads like code a person would write: sizes are named
 * constants N_<index>, loop variables are named after the indices, offsets
 * are written as products of sizes (long arithmetic), temporaries come from
 * malloc, and each copy carries a comment saying why it is there.
 */
#include "generator.h"

#include <ctype.h>
#include <string.h>

#include "ast/error.h"

/* Identifiers an index variable must not take: C keywords, the names the
 * emitted code uses, and lowercase object-like macros of the C library,
 * OpenBLAS's and BLIS's cblas.h, and GNU C's predefined macros. */
static const char *const reserved[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "asm",
    "typeof", "alpha", "beta", "pos", "main", "bool", "true", "false", "complex",
    "imaginary", "xdouble", "unix", "linux", "i386", "errno", "stdin", "stdout",
    "stderr", "sched_priority", "math_errhandling", "bli_nat", "bli_1m", "malloc",
    "free", NULL};

typedef struct emitter {
    const tc_algorithm *alg;
    const tc_contraction *c;    /* storage form: column-major */
    tc_contraction user;        /* as the user wrote it (differs for row-major) */
    const tc_emit_options *opt;
    FILE *out;
    char var[TC_MAX_INDICES][TC_NAME_MAX + 16];   /* loop variable per index */
    char param[TC_MAX_INDICES][TC_NAME_MAX + 16]; /* size parameter (generic) */
} emitter;

static int is_reserved(const char *s)
{
    for (int k = 0; reserved[k]; k++)
        if (strcmp(s, reserved[k]) == 0)
            return 1;
    return strncmp(s, "cblas", 5) == 0 || strncmp(s, "openblas", 8) == 0 ||
           strncmp(s, "bli_", 4) == 0 || strncmp(s, "ix", 2) == 0;
}

static int plain_lowercase(const char *s)
{
    if (!islower((unsigned char)s[0]))
        return 0;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Loop variables: the index name when it is safe, else "ix_<name>", else
 * "ix<k>"; all distinct. */
static void name_variables(emitter *e)
{
    const tc_contraction *c = e->c;
    for (int i = 0; i < c->nindex; i++) {
        const char *n = c->index[i].name;
        if (plain_lowercase(n) && !is_reserved(n))
            snprintf(e->var[i], sizeof e->var[i], "%s", n);
        else
            snprintf(e->var[i], sizeof e->var[i], "ix_%s", n);
    }
    for (int i = 0; i < c->nindex; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(e->var[i], e->var[j]) == 0)
                snprintf(e->var[i], sizeof e->var[i], "ix%d", i);
    if (!e->opt->generic)
        return;
    /* Generic code: the parameters take the index names, so the loop
     * variables take the "ix_" form (no index name starts with "ix"). */
    for (int i = 0; i < c->nindex; i++) {
        const char *n = c->index[i].name;
        snprintf(e->var[i], sizeof e->var[i], "ix_%s", n);
        if (plain_lowercase(n) && !is_reserved(n) && strncmp(n, "n_", 2))
            snprintf(e->param[i], sizeof e->param[i], "%s", n);
        else
            snprintf(e->param[i], sizeof e->param[i], "n_%s", n);
    }
    for (int i = 0; i < c->nindex; i++)
        for (int j = 0; j < c->nindex; j++)
            if (j != i && strcmp(e->param[i], e->var[j]) == 0)
                snprintf(e->var[j], sizeof e->var[j], "ix%d", j);
}

static int valid_function_name(const char *s)
{
    if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_') || strlen(s) > 63)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    for (int k = 0; reserved[k] && k < 35; k++) /* the C keywords */
        if (strcmp(s, reserved[k]) == 0)
            return 0;
    return strcmp(s, "A") && strcmp(s, "B") && strcmp(s, "C") && strcmp(s, "alpha") &&
           strcmp(s, "beta") && strcmp(s, "pos") && strncmp(s, "N_", 2) &&
           strncmp(s, "tmp", 3) && strncmp(s, "cblas", 5) && strcmp(s, "malloc") &&
           strcmp(s, "free");
}

/* ---- expressions ------------------------------------------------------ */

/* "N_a * N_b": the stride of position k of tensor t ("" for stride 1). */
static void stride_expr(const emitter *e, int t, int k, char *buf, size_t n)
{
    const tc_tensor *x = &e->c->tensor[t];
    size_t len = 0;
    buf[0] = '\0';
    for (int j = 0; j < k && len < n; j++)
        len += (size_t)snprintf(buf + len, n - len, "%sN_%s", j ? " * " : "",
                                e->c->index[x->index[j]].name);
}

/* Offset of tensor t with the variables of `which` indices (others 0):
 * "i + N_i * j + N_i * N_j * a"; "0" when empty. */
static void offset_expr(const emitter *e, int t, const int *use, char *buf, size_t n)
{
    const tc_tensor *x = &e->c->tensor[t];
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < x->rank && len < n; k++) {
        int i = x->index[k];
        if (!use[i])
            continue;
        char s[TC_MAX_RANK * (TC_NAME_MAX + 8)];
        stride_expr(e, t, k, s, sizeof s);
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", len ? " + " : "", s,
                                s[0] ? " * " : "", e->var[i]);
    }
    if (!len)
        snprintf(buf, n, "0");
}

static const char *base_name(const tc_operand *op)
{
    static const char *const names[] = {"C", "A", "B", "tmpC", "tmpA", "tmpB"};
    if (op->base < TC_BASE_TEMP)
        return names[op->base];
    return names[TC_BASE_TEMP + op->tensor];
}

/* The offset of an operand in its base, from the loops it depends on. */
static void operand_offset(const emitter *e, const tc_operand *op, char *buf, size_t n)
{
    int use[TC_MAX_INDICES] = {0};
    for (int d = 0; d < op->ndep; d++)
        use[op->dep[d]] = 1;
    offset_expr(e, op->base, use, buf, n);
}

/* The address of an operand: "A", or "&B[N_j * N_b * i + ...]". */
static void address(const emitter *e, const tc_operand *op, char *buf, size_t n)
{
    char off[1024];
    if (op->base >= TC_BASE_TEMP || op->ndep == 0) {
        snprintf(buf, n, "%s", base_name(op));
        return;
    }
    operand_offset(e, op, off, sizeof off);
    snprintf(buf, n, "&%s[%s]", base_name(op), off);
}

/* An element (scalar operand): "C[a + N_a * b]" or "C[0]". */
static void element(const emitter *e, const tc_operand *op, char *buf, size_t n)
{
    char off[1024];
    operand_offset(e, op, off, sizeof off);
    snprintf(buf, n, "%s[%s]", base_name(op), off);
}

/* The leading dimension or increment of an operand as an expression. */
static void ld_expr(const emitter *e, const tc_operand *op, char *buf, size_t n)
{
    int d = op->rank == 2 ? 1 : 0;
    if (op->base >= TC_BASE_TEMP) {
        snprintf(buf, n, d ? "N_%s" : "1", e->c->index[op->dim[0]].name);
        return;
    }
    const tc_tensor *x = &e->c->tensor[op->base];
    for (int k = 0; k < x->rank; k++)
        if (x->index[k] == op->dim[d]) {
            stride_expr(e, op->base, k, buf, n);
            if (!buf[0])
                snprintf(buf, n, "1");
            return;
        }
    snprintf(buf, n, "1");
}

/* "N_a * N_b * N_c", "1" for a scalar: the element count of tensor t. */
static void elements_expr(const emitter *e, int t, char *buf, size_t n)
{
    const tc_tensor *x = &e->c->tensor[t];
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < x->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%sN_%s", k ? " * " : "",
                                e->c->index[x->index[k]].name);
    if (!len)
        snprintf(buf, n, "1");
}

/* "W[a,:,:,f]" in the user's names, for comments. */
static void slice_text(const emitter *e, const tc_operand *op, char *buf, size_t n)
{
    tc_alg_format_operand(&e->user, op, buf, n);
}

static void indent(const emitter *e, int level)
{
    fprintf(e->out, "%*s", 4 * level, "");
}

/* ---- statements ------------------------------------------------------- */

static const char *tr(int t)
{
    return t ? "CblasTrans" : "CblasNoTrans";
}

static void emit_call(const emitter *e, const tc_call *k, int level)
{
    const tc_contraction *c = e->c;
    const tc_operand *a = k->arg;
    char p0[1100], p1[1100], p2[1100], l0[300], l1[300], l2[300];
    address(e, &a[0], p0, sizeof p0);
    address(e, &a[1], p1, sizeof p1);
    address(e, &a[2], p2, sizeof p2);
    ld_expr(e, &a[0], l0, sizeof l0);
    ld_expr(e, &a[1], l1, sizeof l1);
    ld_expr(e, &a[2], l2, sizeof l2);
    const char *m = k->dim_m >= 0 ? c->index[k->dim_m].name : "";
    const char *nn = k->dim_n >= 0 ? c->index[k->dim_n].name : "";
    const char *kk = k->dim_k >= 0 ? c->index[k->dim_k].name : "";
    indent(e, level);
    switch (k->kernel) {
    case TC_KERNEL_DDOT:
        element(e, &a[2], p2, sizeof p2);
        fprintf(e->out, "%s += alpha * cblas_ddot(N_%s, %s, %s, %s, %s);\n", p2, nn, p0, l0,
                p1, l1);
        break;
    case TC_KERNEL_DAXPY:
        element(e, &a[0], p0, sizeof p0);
        fprintf(e->out, "cblas_daxpy(N_%s, alpha * %s, %s, %s, %s, %s);\n", nn, p0, p1, l1,
                p2, l2);
        break;
    case TC_KERNEL_DGEMV:
        fprintf(e->out, "cblas_dgemv(CblasColMajor, %s, N_%s, N_%s, alpha, %s, %s,\n",
                tr(k->trans_a), m, nn, p0, l0);
        indent(e, level + 3);
        fprintf(e->out, "%s, %s, 1.0, %s, %s);\n", p1, l1, p2, l2);
        break;
    case TC_KERNEL_DGER:
        fprintf(e->out, "cblas_dger(CblasColMajor, N_%s, N_%s, alpha, %s, %s,\n", m, nn, p0,
                l0);
        indent(e, level + 3);
        fprintf(e->out, "%s, %s, %s, %s);\n", p1, l1, p2, l2);
        break;
    case TC_KERNEL_DGEMM:
        fprintf(e->out, "cblas_dgemm(CblasColMajor, %s, %s, N_%s, N_%s, N_%s,\n",
                tr(k->trans_a), tr(k->trans_b), m, nn, kk);
        indent(e, level + 3);
        fprintf(e->out, "alpha, %s, %s, %s, %s,\n", p0, l0, p1, l1);
        indent(e, level + 3);
        fprintf(e->out, "1.0, %s, %s);\n", p2, l2);
        break;
    case TC_KERNEL_COUNT:
        break;
    }
}

static void emit_copy(const emitter *e, const tc_copy *cp, int level)
{
    const tc_contraction *c = e->c;
    const tc_operand *s = &cp->slice;
    const char *tmp = base_name(&(tc_operand){.base = TC_BASE_TEMP, .tensor = s->tensor});
    const char *tensor = s->tensor == TC_A ? "A" : s->tensor == TC_B ? "B" : "C";
    char text[512], src[1024], dst[256];
    slice_text(e, s, text, sizeof text);
    int use[TC_MAX_INDICES] = {0};
    for (int i = 0; i < c->nindex; i++)
        use[i] = 1;
    offset_expr(e, s->tensor, use, src, sizeof src);
    const char *v0 = e->var[s->dim[0]], *v1 = e->var[s->dim[1]];
    snprintf(dst, sizeof dst, "%s[%s + N_%s * %s]", tmp, v0, c->index[s->dim[0]].name, v1);
    indent(e, level);
    if (cp->dir == TC_COPY_IN)
        fprintf(e->out,
                "/* copy %s into %s (%s x %s): the slice has no stride-1 dimension */\n",
                text, tmp, c->index[s->dim[0]].name, c->index[s->dim[1]].name);
    else
        fprintf(e->out, "/* copy %s back into %s */\n", tmp, text);
    indent(e, level);
    fprintf(e->out, "for (long %s = 0; %s < N_%s; %s++)\n", v1, v1, c->index[s->dim[1]].name,
            v1);
    indent(e, level + 1);
    fprintf(e->out, "for (long %s = 0; %s < N_%s; %s++)\n", v0, v0, c->index[s->dim[0]].name,
            v0);
    indent(e, level + 2);
    if (cp->dir == TC_COPY_IN)
        fprintf(e->out, "%s = %s[%s];\n", dst, tensor, src);
    else
        fprintf(e->out, "%s[%s] = %s;\n", tensor, src, dst);
}

static void emit_list(const emitter *e, const tc_node *n, int level)
{
    for (; n; n = n->next) {
        switch (n->kind) {
        case TC_NODE_LOOP: {
            const char *v = e->var[n->index];
            indent(e, level);
            fprintf(e->out, "for (long %s = 0; %s < N_%s; %s++) {\n", v, v,
                    e->c->index[n->index].name, v);
            emit_list(e, n->child, level + 1);
            indent(e, level);
            fprintf(e->out, "}\n");
            break;
        }
        case TC_NODE_COPY:
            emit_copy(e, n->copy, level);
            break;
        case TC_NODE_KERNEL:
            emit_call(e, n->call, level);
            break;
        }
    }
}

static void tensor_text(const tc_contraction *c, int t, char *buf, size_t n)
{
    const tc_tensor *x = &c->tensor[t];
    size_t len = (size_t)snprintf(buf, n, "%s[", x->name);
    for (int k = 0; k < x->rank && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", k ? "," : "",
                                c->index[x->index[k]].name);
    if (len < n)
        snprintf(buf + len, n - len, "]");
}

/* A comment line must not end the comment early. */
static void comment_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (s[0] == '*' && s[1] == '/')
            fputs("* /", out), s++;
        else if (*s == '\n' || *s == '\r')
            fputc(' ', out);
        else
            fputc(*s, out);
    }
}

/* A double literal that reads back exactly: "1.0", "-0.5", "0.10000000000000001". */
static const char *number(double x, char *buf, size_t n)
{
    snprintf(buf, n, "%.17g", x);
    double back = 0;
    for (int p = 1; p <= 17; p++) { /* the shortest exact form */
        char s[64];
        snprintf(s, sizeof s, "%.*g", p, x);
        if (sscanf(s, "%lf", &back) == 1 && back == x) {
            snprintf(buf, n, "%s", s);
            break;
        }
    }
    if (!strpbrk(buf, ".eEni"))
        snprintf(buf + strlen(buf), n - strlen(buf), ".0");
    return buf;
}

/* Header lines from text: " *   " + each line of it; a line longer than
 * the page is broken after a ", " and continued under its value (notes are
 * "label        value"). */
static void comment_lines(FILE *out, const char *text)
{
    enum { WIDTH = 74, VALUE = 13 };
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        const char *next = text + len + (nl ? 1 : 0);
        int first = 1;
        while (len) {
            size_t take = len, skip = 0, room = first ? WIDTH : WIDTH - VALUE;
            for (int pass = 0; len > room && pass < 2 && !skip; pass++)
                for (size_t k = room; k > 1; k--)
                    if (text[k] == ' ' && (pass || text[k - 1] == ',')) {
                        take = k;
                        skip = 1;
                        break;
                    }
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)(take < sizeof line ? take : sizeof line - 1),
                     text);
            fprintf(out, " *   %*s", first ? 0 : VALUE, "");
            comment_text(out, line);
            fputs("\n", out);
            text += take + skip;
            len -= take + skip;
            first = 0;
        }
        text = next;
    }
}

static void emit_header(const emitter *e)
{
    const tc_emit_options *opt = e->opt;
    char form[1024], sizes[1024];
    tc_contraction_format(&e->user, form, sizeof form);
    tc_contraction_format_sizes(&e->user, sizes, sizeof sizes);
    FILE *out = e->out;
    fprintf(out, "/*\n * Generated by tcgen %s.\n *\n", TC_VERSION);
    fputs(" *   contraction  ", out);
    comment_text(out, form);
    fputs(opt->generic ? "\n *   sizes        parameters of the function (ranked for " :
                         "\n *   sizes        ", out);
    comment_text(out, sizes);
    fputs(opt->generic ? ")" : "", out);
    fputs("\n *   algorithm    ", out);
    comment_text(out, e->alg->name);
    if (opt->command_line) {
        fputs("\n *   command      ", out);
        comment_text(out, opt->command_line);
    }
    fputs("\n", out);
    if (opt->notes)
        comment_lines(out, opt->notes);
    fputs(" *\n", out);
    fputs(opt->row_major ?
          " * Tensors are dense, row-major (C order: a tensor's last index has stride 1).\n" :
          " * Tensors are dense, column-major (Fortran order: a tensor's first index\n"
          " * has stride 1).\n", out);
    fputs(" * Compile with a CBLAS library, e.g. cc -O2 -c file.c; link -lopenblas.\n"
          " */\n", out);
    tc_emit_includes(out);
}

void tc_emit_includes(FILE *out)
{
    fputs("/* BLIS's cblas.h defines static helpers that it does not use. */\n"
          "#if defined(__GNUC__)\n"
          "#pragma GCC diagnostic push\n"
          "#pragma GCC diagnostic ignored \"-Wunused-function\"\n"
          "#endif\n"
          "#include <cblas.h>\n"
          "#if defined(__GNUC__)\n"
          "#pragma GCC diagnostic pop\n"
          "#endif\n"
          "#include <limits.h>\n"
          "#include <stddef.h>\n"
          "#include <stdlib.h>\n",
          out);
}

static const char *temp_name(const tc_temp *tp)
{
    return base_name(&(tc_operand){.base = TC_BASE_TEMP, .tensor = tp->tensor});
}

/* The comment above the function, and its signature. */
static void emit_prototype(const emitter *e, const char *fname)
{
    const tc_contraction *u = &e->user;
    FILE *out = e->out;
    char ct[256], at[256], bt[256], form[1024];
    tensor_text(u, TC_C, ct, sizeof ct);
    tensor_text(u, TC_A, at, sizeof at);
    tensor_text(u, TC_B, bt, sizeof bt);
    tc_contraction_format(u, form, sizeof form);
    fputs("\n/*\n * ", out);
    comment_text(out, form);
    fprintf(out, "\n * by algorithm %s, with %s called in a loop nest.\n", e->alg->name,
            tc_kernel_name(e->alg->kernel));
    if (strcmp(u->tensor[TC_A].name, "A") || strcmp(u->tensor[TC_B].name, "B") ||
        strcmp(u->tensor[TC_C].name, "C")) {
        fputs(" * A holds ", out);
        comment_text(out, at);
        fputs(", B holds ", out);
        comment_text(out, bt);
        fputs(", C holds ", out);
        comment_text(out, ct);
        fputs(".\n", out);
    }
    fputs(e->opt->row_major ? " * Row-major (C order) tensors.\n" : "", out);
    if (e->opt->generic) {
        fputs(" * Valid for any sizes. Returns 0, -1 when a temporary cannot be\n"
              " * allocated, or -2 when a size makes a BLAS argument exceed INT_MAX.\n */\n",
              out);
        int col = fprintf(out, "int %s(", fname);
        for (int i = 0; i < u->nindex; i++)
            fprintf(out, "size_t %s,%s", e->param[i], i + 1 < u->nindex ? " " : "");
        fprintf(out, "\n%*sconst double *A, const double *B, double *C)\n{\n", col, "");
    } else {
        fputs(" * Returns 0, or -1 when a temporary cannot be allocated.\n */\n", out);
        fprintf(out, "int %s(const double *A, const double *B, double *C)\n{\n", fname);
    }
}

/* Adds expr to list (of n) unless it is there. */
static void add_unique(char list[][256], int *n, int max, const char *expr)
{
    for (int k = 0; k < *n; k++)
        if (strcmp(list[k], expr) == 0)
            return;
    if (*n < max)
        snprintf(list[(*n)++], 256, "%s", expr);
}

/* Generic code: every BLAS int argument (dimension, leading dimension,
 * increment) as an expression of the size parameters. */
static void collect_int_args(const emitter *e, const tc_node *n, char list[][256], int *count,
                             int max)
{
    for (; n; n = n->next) {
        if (n->kind == TC_NODE_LOOP)
            collect_int_args(e, n->child, list, count, max);
        if (n->kind != TC_NODE_KERNEL)
            continue;
        const tc_call *k = n->call;
        const int dims[3] = {k->dim_m, k->dim_n, k->dim_k};
        for (int d = 0; d < 3; d++)
            if (dims[d] >= 0)
                add_unique(list, count, max, e->param[dims[d]]);
        for (int a = 0; a < 3; a++) {
            const tc_operand *op = &k->arg[a];
            if (op->rank == 0 || op->base >= TC_BASE_TEMP)
                continue; /* temporaries' strides are kernel dimensions */
            const tc_tensor *x = &e->c->tensor[op->base];
            int dim = op->dim[op->rank == 2 ? 1 : 0];
            char expr[256] = "";
            size_t len = 0;
            int j = 0;
            for (; j < x->rank && x->index[j] != dim && len < sizeof expr; j++)
                len += (size_t)snprintf(expr + len, sizeof expr - len, "%s%s",
                                        j ? " * " : "", e->param[x->index[j]]);
            if (j > 1) { /* a product: in double, which cannot overflow */
                char prod[sizeof expr + 8] = "(double)";
                add_unique(list, count, max, strcat(prod, expr));
            } else if (j == 1) {
                add_unique(list, count, max, expr);
            }
        }
    }
}

/* The scaling of C by beta (nothing for beta = 1). */
static void emit_beta(const emitter *e, int level)
{
    char expr[1024];
    elements_expr(e, TC_C, expr, sizeof expr);
    FILE *out = e->out;
    if (e->c->beta == 0.0) {
        indent(e, level);
        fputs("/* C = 0 before accumulating (beta = 0) */\n", out);
        indent(e, level);
        if (e->c->tensor[TC_C].rank == 0) {
            fputs("C[0] = 0.0;\n", out);
            return;
        }
        fprintf(out, "for (long pos = 0; pos < %s; pos++)\n", expr);
        indent(e, level + 1);
        fputs("C[pos] = 0.0;\n", out);
    } else if (e->c->beta != 1.0) {
        indent(e, level);
        fputs("/* C = beta * C before accumulating */\n", out);
        indent(e, level);
        fprintf(out, "for (long pos = 0; pos < %s; pos++)\n", expr);
        indent(e, level + 1);
        fputs("C[pos] *= beta;\n", out);
    }
}

/* Sizes, alpha and beta; for generic code also the checks of the sizes. */
static void emit_constants(const emitter *e)
{
    const tc_contraction *c = e->c;
    FILE *out = e->out;
    fputs("    const long ", out);
    for (int i = 0; i < c->nindex; i++) {
        if (e->opt->generic)
            fprintf(out, "%sN_%s = (long)%s", i ? ", " : "", c->index[i].name, e->param[i]);
        else
            fprintf(out, "%sN_%s = %lld", i ? ", " : "", c->index[i].name,
                    (long long)c->index[i].size);
    }
    fputs(";\n", out);
    char num[64];
    fprintf(out, "    const double alpha = %s;\n", number(c->alpha, num, sizeof num));
    if (c->beta != 0.0 && c->beta != 1.0)
        fprintf(out, "    const double beta = %s;\n", number(c->beta, num, sizeof num));
    if (!e->opt->generic)
        return;

    char list[3 * TC_MAX_INDICES + 64][256];
    int count = 0;
    collect_int_args(e, e->alg->body, list, &count, (int)(sizeof list / sizeof list[0]));
    if (count) {
        fputs("\n    /* BLAS takes int dimensions and strides */\n    if (", out);
        for (int k = 0; k < count; k++)
            fprintf(out, "%s%s > INT_MAX", k == 0 ? "" : k % 3 ? " || " : " ||\n        ",
                    list[k]);
        fputs(")\n        return -2;\n", out);
    }
    /* An empty index leaves C = beta * C (and BLAS refuses leading
     * dimensions of 0), so it returns before any call. */
    fputs("\n    if (", out);
    for (int i = 0; i < c->nindex; i++)
        fprintf(out, "%sN_%s == 0", i == 0 ? "" : i % 4 ? " || " : " ||\n        ",
                c->index[i].name);
    fputs(") {\n", out);
    emit_beta(e, 2);
    fputs("        return 0;\n    }\n", out);
}

static void emit_temporaries(const emitter *e)
{
    const tc_algorithm *alg = e->alg;
    const tc_contraction *c = e->c;
    FILE *out = e->out;
    for (int t = 0; t < alg->ntemps; t++)
        fprintf(out, "    double *%s = malloc(sizeof(double) * N_%s * N_%s);\n",
                temp_name(&alg->temp[t]), c->index[alg->temp[t].dim[0]].name,
                c->index[alg->temp[t].dim[1]].name);
    if (alg->ntemps == 1) {
        fprintf(out, "    if (!%s)\n        return -1;\n", temp_name(&alg->temp[0]));
    } else if (alg->ntemps) {
        fputs("    if (", out);
        for (int t = 0; t < alg->ntemps; t++)
            fprintf(out, "%s!%s", t ? " || " : "", temp_name(&alg->temp[t]));
        fputs(") {\n", out);
        for (int t = 0; t < alg->ntemps; t++)
            fprintf(out, "        free(%s);\n", temp_name(&alg->temp[t]));
        fputs("        return -1;\n    }\n", out);
    }
}

tc_status tc_emit_c(const tc_algorithm *alg, const tc_contraction *c,
                    const tc_emit_options *opt, FILE *out, tc_error *err)
{
    static const tc_emit_options defaults;
    if (!opt)
        opt = &defaults;
    const char *fname = opt->function ? opt->function : "contraction";
    if (!alg || !c || !out)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "tc_emit_c: NULL argument");
    if (!valid_function_name(fname))
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "'%s' cannot be the function's name: use a C identifier "
                            "that is not a keyword, A, B, C, alpha, beta, or N_..., tmp..., "
                            "cblas...", fname);
    if (!c->has_sizes)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "cannot emit %s: the contraction has no sizes", alg->name);
    if (!alg->fits_int && !opt->generic)
        return tc_error_set(err, TC_EINPUT, 0, 0, "cannot emit %s: %s", alg->name, alg->why);

    emitter em;
    memset(&em, 0, sizeof em);
    em.alg = alg;
    em.c = c;
    em.opt = opt;
    em.out = out;
    if (opt->row_major)
        tc_contraction_transpose(c, &em.user);
    else
        em.user = *c;
    name_variables(&em);
    emitter *e = &em;

    if (!opt->no_header)
        emit_header(e);
    emit_prototype(e, fname);
    emit_constants(e);
    emit_temporaries(e);
    fputs("\n", out);
    emit_beta(e, 1);
    if (c->beta != 1.0)
        fputs("\n", out);
    emit_list(e, alg->body, 1);

    if (alg->ntemps)
        fputs("\n", out);
    for (int t = 0; t < alg->ntemps; t++)
        fprintf(out, "    free(%s);\n", temp_name(&alg->temp[t]));
    fputs("    return 0;\n}\n", out);
    if (ferror(out))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write the emitted C: write error");
    return TC_OK;
}
