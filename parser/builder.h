/*
 * builder.h - what the grammar's actions fill while parsing (private to
 * parser/): the raw tensors as written, the scalar factor, the assignment,
 * and the first error. parse.c turns a builder into a tc_contraction.
 */
#ifndef TC_PARSER_BUILDER_H
#define TC_PARSER_BUILDER_H

#include <setjmp.h>

#include "ast/contraction.h"
#include "parser/parser.h"

/* The scanner's allocations alive at once: the scanner, its buffer stack,
 * one buffer and that buffer's text (parser/lexer.l). */
#define TC_SCAN_BLOCKS 8

typedef struct tc_builder {
    tc_raw_tensor tensor[3];   /* output, first input, second input */
    int ntensor;               /* tensors seen, may exceed 3 */
    int extra_line, extra_column; /* where the first tensor beyond 3 starts */
    double alpha;
    int accumulate;            /* 1 for '+=' and '-=' */
    int subtract;              /* 1 for '-=': alpha is negated */
    tc_error *err;
    int failed;                /* 1 once *err holds the first error */
    int depth;                 /* '[' not yet closed (0 or 1) */
    int open_line, open_column;/* of that '[' */
    int line, column;          /* scanner position: next character */
    /* Flex cannot return an error from its allocating functions: its fatal
     * errors jump here instead of exiting (lexer.l), and every block the
     * scanner holds is listed so that the jump leaks none. */
    jmp_buf fatal;
    void *block[TC_SCAN_BLOCKS];
    int nblock;
    int out_of_memory;         /* an allocation of the scanner failed */
    const char *fatal_message; /* Flex's words for its fatal error */
} tc_builder;

/* Records the first error only; returns 1 so actions can write
 * `if (tc_builder_fail(...)) YYABORT;`. */
int tc_builder_fail(tc_builder *b, int line, int column, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Frees every block the scanner still holds (after a fatal error). */
void tc_scan_release(tc_builder *b);

/* tc_parse() for text whose first line is line `line` of its source. */
tc_status tc_parse_at(const char *text, int line, tc_contraction *out, tc_error *err);

#endif
