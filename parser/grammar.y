/* grammar.y - a binary tensor contraction in Einstein notation.
 *
 *   contraction := tensor ( '=' | ':=' | '+=' ) [ factor ['*'] ] tensor ['*'] tensor
 *   tensor      := NAME '[' [ NAME { ',' NAME } ] ']'   bracket form
 *                | NAME                                 compact form: C_abc, or a scalar C
 *                | 'conj' '(' tensor ')'                a conjugated operand (A or B),
 *                                                       of a tensor of the two forms above
 *   factor      := [ '+' | '-' ] NUMBER
 * Semantic checks (roles, counts, limits) happen in parse.c.
 */
%define api.pure full
%define api.prefix {tc_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%define parse.lac full
/* The grammar is flat (its lists are left-recursive): the stacks stay a
 * dozen entries deep whatever the input, so Bison keeps them on the C stack
 * and never allocates (parse.c jumps over tc_yyparse on a fatal error of
 * the scanner). Were they ever full, tc_yyparse returns 2 and tc_parse
 * reports TC_ERESOURCE. */
%define parse.lac.es-capacity-initial {200}
%locations
%param {void *scanner}
%parse-param {tc_builder *b}

%code requires {
#include "parser/builder.h"
}

%code provides {
int tc_yylex(TC_YYSTYPE *lval, TC_YYLTYPE *lloc, void *scanner);
}

%union {
    char name[TC_NAME_MAX];
    double number;
}

%code {
#include <stdio.h>
#include <string.h>

#define YYMAXDEPTH YYINITDEPTH

static void tc_yyerror(TC_YYLTYPE *loc, void *scanner, tc_builder *b, const char *msg)
{
    (void)scanner;
    tc_builder_fail(b, loc->first_line, loc->first_column, "%s", msg);
}

/* The tensor being filled, or NULL past the third (only counted). */
static tc_raw_tensor *begin_tensor(tc_builder *b, const char *name, const TC_YYLTYPE *loc)
{
    if (b->ntensor == 3) {
        b->extra_line = loc->first_line;
        b->extra_column = loc->first_column;
    }
    if (b->ntensor++ >= 3)
        return NULL;
    tc_raw_tensor *t = &b->tensor[b->ntensor - 1];
    memset(t, 0, sizeof *t);
    strcpy(t->name, name);
    t->line = loc->first_line;
    t->column = loc->first_column;
    return t;
}

static int add_index(tc_builder *b, const char *name, int line, int column)
{
    if (b->ntensor > 3)
        return 0;
    tc_raw_tensor *t = &b->tensor[b->ntensor - 1];
    if (t->rank == TC_MAX_RANK)
        return tc_builder_fail(b, line, column,
                               "tensor %s has more than %d indices", t->name, TC_MAX_RANK);
    strcpy(t->index[t->rank], name);
    t->index_line[t->rank] = line;
    t->index_column[t->rank] = column;
    t->rank++;
    return 0;
}

/* conj(X): marks the tensor just read, which must be an operand, as
 * conjugated. Only tc_parse_written keeps the mark (parse.c). */
static int conjugate(tc_builder *b, const char *word, const TC_YYLTYPE *loc)
{
    if (strcmp(word, "conj") != 0)
        return tc_builder_fail(b, loc->first_line, loc->first_column,
                               "unknown function '%s' (the one function is conj)", word);
    if (b->ntensor > 3)
        return 0;
    tc_raw_tensor *t = &b->tensor[b->ntensor - 1];
    if (b->ntensor == 1)
        return tc_builder_fail(b, loc->first_line, loc->first_column,
                               "conj applies to an operand, not to the output %s", t->name);
    t->conj = 1;
    t->conj_line = loc->first_line;
    t->conj_column = loc->first_column;
    return 0;
}
/* Compact form: "C_abc" is tensor C with indices a, b, c; "C" is a scalar. */
static int compact_tensor(tc_builder *b, const char *word, const TC_YYLTYPE *loc)
{
    const char *us = strchr(word, '_');
    char name[TC_NAME_MAX];
    size_t len = us ? (size_t)(us - word) : strlen(word);
    memcpy(name, word, len);
    name[len] = '\0';
    begin_tensor(b, name, loc);
    if (!us)
        return 0;
    if (us[1] == '\0')
        return tc_builder_fail(b, loc->first_line, loc->first_column + (int)len,
                               "no indices after '_' in '%s' (write %s for a scalar)", word, name);
    for (const char *p = us + 1; *p; p++) {
        int col = loc->first_column + (int)(p - word);
        char idx[2] = {*p, '\0'};
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return tc_builder_fail(b, loc->first_line, col,
                                   "'%c' in '%s' is not an index: in the compact form "
                                   "every index is one letter (use C[i1,j2] for longer names)",
                                   *p, word);
        if (add_index(b, idx, loc->first_line, col))
            return 1;
    }
    return 0;
}
}

%token <name> NAME "name"
%token <number> NUMBER "number"
%token ASSIGN "'='" ACCUMULATE "'+='" SUBTRACT "'-='" ERROR "invalid token"
%token LBRACKET "'['" RBRACKET "']'" LPAREN "'('" RPAREN "')'" COMMA "','" STAR "'*'" MINUS "'-'" PLUS "'+'"
%type <number> factor

%%

contraction
    : tensor assignment operands
    ;

/* "C -= X" is "C += -X", as coupled-cluster terms are written. */
assignment
    : ASSIGN      { b->accumulate = 0; }
    | ACCUMULATE  { b->accumulate = 1; }
    | SUBTRACT    { b->accumulate = 1; b->subtract = 1; }
    ;

/* A sign alone stands for a factor of 1: "+= -T[..] * W[..]". */
operands
    : tensor_list
    | factor optional_star tensor_list   { b->alpha = $1; }
    | MINUS tensor_list                  { b->alpha = -1.0; }
    | PLUS tensor_list
    ;

factor
    : NUMBER      { $$ = $1; }
    | MINUS NUMBER  { $$ = -$2; }
    | PLUS NUMBER  { $$ = $2; }
    ;

optional_star
    : %empty
    | STAR
    ;

tensor_list
    : tensor
    | tensor_list optional_star tensor
    ;

/* conj takes a plain tensor, not a conj(...): no rule nests, so the
 * stacks stay shallow (above). */
tensor
    : plain_tensor
    | NAME LPAREN plain_tensor RPAREN   { if (conjugate(b, $1, &@1)) YYABORT; }
    ;
plain_tensor
    : NAME                              { if (compact_tensor(b, $1, &@1)) YYABORT; }
    | NAME LBRACKET                     { begin_tensor(b, $1, &@1); }
      index_list_opt RBRACKET
    ;

index_list_opt
    : %empty
    | index_list
    ;

index_list
    : NAME                    { if (add_index(b, $1, @1.first_line, @1.first_column)) YYABORT; }
    | index_list COMMA NAME     { if (add_index(b, $3, @3.first_line, @3.first_column)) YYABORT; }
    ;

%%

/* "unexpected ']', expected ',' or ']' (to close '[' at 1:2)". */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, tc_builder *b)
{
    (void)scanner;
    if (b->failed) /* the scanner already said what is wrong */
        return 0;
    const TC_YYLTYPE *loc = yypcontext_location(ctx);
    yysymbol_kind_t tok = yypcontext_token(ctx);
    yysymbol_kind_t expected[8];
    int n = yypcontext_expected_tokens(ctx, expected, 8);
    char msg[TC_ERROR_MESSAGE_MAX];
    size_t len = 0;
    int closes = 0;

    if (tok == YYSYMBOL_YYEOF)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected end of input");
    else
        len += (size_t)snprintf(msg + len, sizeof msg - len, "unexpected %s", yysymbol_name(tok));
    int shown = 0, wanted = 0;
    for (int i = 0; i < n; i++)
        wanted += expected[i] != YYSYMBOL_YYEOF && expected[i] != YYSYMBOL_ERROR;
    for (int i = 0; i < n && len < sizeof msg; i++) {
        if (expected[i] == YYSYMBOL_YYEOF || expected[i] == YYSYMBOL_ERROR)
            continue;
        if (expected[i] == YYSYMBOL_RBRACKET)
            closes = 1;
        shown++;
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
                                shown == 1 ? ", expected " : shown == wanted ? " or " : ", ",
                                yysymbol_name(expected[i]));
    }
    if (closes && b->depth > 0 && len < sizeof msg)
        snprintf(msg + len, sizeof msg - len, " (to close '[' at %d:%d)", b->open_line,
                 b->open_column);
    else if (tok == YYSYMBOL_RBRACKET && b->depth == 0 && len < sizeof msg)
        snprintf(msg + len, sizeof msg - len, " (no '[' to close)");
    tc_builder_fail(b, loc->first_line, loc->first_column, "%s", msg);
    return 0;
}
