/* parse.c - the parser driver: text -> builder (Bison/Flex) -> tc_contraction. */
#include "parser.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ast/error.h"
#include "builder.h"
#include "grammar.tab.h"
#define YYSTYPE TC_YYSTYPE
#define YYLTYPE TC_YYLTYPE
#include "lexer.h"

int tc_builder_fail(tc_builder *b, int line, int column, const char *fmt, ...)
{
    if (!b->failed) {
        va_list ap;
        b->failed = 1;
        if (b->err) {
            b->err->code = TC_EINPUT;
            b->err->line = line;
            b->err->column = column;
            va_start(ap, fmt);
            vsnprintf(b->err->message, sizeof b->err->message, fmt, ap);
            va_end(ap);
        }
    }
    return 1;
}

/* Raw tensors -> IR: index table in order of first appearance (C, A, B). */
static tc_status build(const tc_builder *b, tc_contraction *out, tc_error *err)
{
    tc_contraction c;
    memset(&c, 0, sizeof c);
    c.alpha = b->subtract ? -b->alpha : b->alpha;
    if (c.alpha == 0.0) /* -0 (from '-= 0 *' or '-0 *') is 0: one wisdom key, one text */
        c.alpha = 0.0;
    c.beta = b->accumulate ? 1.0 : 0.0;
    for (int t = 0; t < 3; t++) {
        const tc_raw_tensor *r = &b->tensor[t];
        tc_tensor *x = &c.tensor[t];
        if (r->conj) /* the TAPP interface maps it, not a plan of tcgen's own */
            return tc_error_set(err, TC_EINPUT, r->conj_line, r->conj_column,
                                "conj(%s): a conjugated operand is for the TAPP interface "
                                "(docs/tapp.md; 'tcgen list' and 'explain' show its mapping)",
                                r->name);
        strcpy(x->name, r->name);
        x->line = r->line;
        x->column = r->column;
        x->rank = r->rank;
        for (int k = 0; k < r->rank; k++) {
            int i = tc_contraction_find_index(&c, r->index[k]);
            if (i < 0) {
                if (c.nindex == TC_MAX_INDICES)
                    return tc_error_set(err, TC_EINPUT, r->index_line[k], r->index_column[k],
                                        "index '%s' is one too many: at most %d distinct "
                                        "indices are supported",
                                        r->index[k], TC_MAX_INDICES);
                i = c.nindex++;
                strcpy(c.index[i].name, r->index[k]);
                c.index[i].line = r->index_line[k];
                c.index[i].column = r->index_column[k];
            }
            x->index[k] = i;
            x->index_line[k] = r->index_line[k];
            x->index_column[k] = r->index_column[k];
        }
    }
    tc_status s = tc_contraction_validate(&c, err);
    if (s == TC_OK)
        *out = c;
    return s;
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return 0;
    return 1;
}

/* Runs the scanner and the parser over text; *rc is tc_yyparse's. A fatal
 * error of the scanner (out of memory, an internal error) jumps back here;
 * Bison's stacks never leave the C stack (grammar.y), so the jump over
 * tc_yyparse leaks nothing of the parser and the scanner's blocks are
 * freed. Locals set after setjmp are not used after the jump. */
static tc_status scan_and_parse(const char *text, tc_builder *b, int *rc)
{
    yyscan_t scanner;
    if (setjmp(b->fatal) != 0) {
        tc_scan_release(b);
        if (b->out_of_memory)
            return tc_error_set(b->err, TC_ERESOURCE, 0, 0, "out of memory in the scanner");
        return tc_error_set(b->err, TC_EINTERNAL, 0, 0, "scanner: %s", b->fatal_message);
    }
    if (tc_yylex_init_extra(b, &scanner) != 0) {
        tc_scan_release(b);
        return tc_error_set(b->err, TC_ERESOURCE, 0, 0, "out of memory starting the scanner");
    }
    YY_BUFFER_STATE buf = tc_yy_scan_string(text, scanner);
    *rc = tc_yyparse(scanner, b);
    tc_yy_delete_buffer(buf, scanner);
    tc_yylex_destroy(scanner);
    return TC_OK;
}

/* Text -> b, the tensors as written (exactly three). */
static tc_status parse_raw(const char *text, int line, tc_builder *b, tc_error *err)
{
    tc_error_clear(err);
    if (blank(text))
        return tc_error_set(err, TC_EINPUT, line, 1,
                            "empty contraction: expected something like "
                            "'C[a,b] = A[a,i] * B[i,b]'");
    memset(b, 0, sizeof *b);
    b->alpha = 1.0;
    b->err = err;
    b->line = line;
    b->column = 1;
    int rc;
    tc_status s = scan_and_parse(text, b, &rc);
    if (s != TC_OK)
        return s;
    /* 2: Bison ran out of stack (its "memory exhausted" went through
     * tc_yyerror as if it were a syntax error) */
    if (rc == 2)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory while parsing");
    if (b->failed || rc != 0)
        return err->code != TC_OK ? err->code
                                  : tc_error_set(err, TC_EINPUT, line, 1, "syntax error");
    if (b->ntensor != 3)
        return tc_error_set(err, TC_EINPUT, b->ntensor > 3 ? b->extra_line : b->tensor[1].line,
                            b->ntensor > 3 ? b->extra_column : b->tensor[1].column,
                            "a contraction multiplies exactly two tensors; found %d on the "
                            "right-hand side",
                            b->ntensor - 1);
    return TC_OK;
}

tc_status tc_parse_at(const char *text, int line, tc_contraction *out, tc_error *err)
{
    tc_builder b;
    tc_error local;
    if (!err)
        err = &local;
    tc_status s = parse_raw(text, line, &b, err);
    return s != TC_OK ? s : build(&b, out, err);
}

tc_status tc_parse(const char *text, tc_contraction *out, tc_error *err)
{
    return tc_parse_at(text, 1, out, err);
}

tc_status tc_parse_written(const char *text, tc_written *out, tc_error *err)
{
    tc_builder b;
    tc_error local;
    if (!err)
        err = &local;
    tc_status s = parse_raw(text, 1, &b, err);
    if (s != TC_OK)
        return s;
    memcpy(out->tensor, b.tensor, sizeof out->tensor);
    out->alpha = b.subtract ? -b.alpha : b.alpha;
    out->accumulate = b.accumulate;
    return TC_OK;
}
