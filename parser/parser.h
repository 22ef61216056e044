/*
 * parser.h - from text to a validated tc_contraction.
 *
 * Accepted forms (docs/design.md §6):
 *   C[a,b,c] = A[a,i] * B[i,b,c]       bracket form, index names are identifiers
 *   C_abc = A_ai B_ibc                 compact form, one letter per index
 *   :=  is a synonym of  =;   +=  accumulates (beta = 1)
 *   C[a,b] = -0.5 * A[a,i] * B[i,b]    optional scalar factor
 *   C[] = A[i] * B[i]                  scalar output (compact: C = A_i B_i)
 * Errors carry the 1-based line and column of the offending token.
 */
#ifndef TC_PARSER_H
#define TC_PARSER_H

#include "ast/contraction.h"

/* A tensor as written, before the checks of tc_parse. */
typedef struct tc_raw_tensor {
    char name[TC_NAME_MAX];
    int line, column;
    int rank;
    char index[TC_MAX_RANK][TC_NAME_MAX];
    int index_line[TC_MAX_RANK], index_column[TC_MAX_RANK];
    int conj;                  /* written conj(X) (an operand) */
    int conj_line, conj_column;
} tc_raw_tensor;

/* A contraction as written (tc_parse_written): its three tensors and
 * scalars, with what tc_parse refuses and the TAPP interface maps
 * (docs/tapp.md): a conjugated operand, an index repeated within an
 * operand, an index only one operand has. `tcgen list` and `explain`
 * show that mapping (cli/mapped.c). */
typedef struct tc_written {
    tc_raw_tensor tensor[3]; /* output, first operand, second operand */
    double alpha;            /* '-=' already folded in */
    int accumulate;          /* '+=' or '-=' */
} tc_written;

/* Parses a contraction without validating its indices. */
tc_status tc_parse_written(const char *text, tc_written *out, tc_error *err);

/* Parses and validates a contraction (no sizes). */
tc_status tc_parse(const char *text, tc_contraction *out, tc_error *err);

/*
 * Parses "a=400,b=400", "a=b=c=400" (commas or whitespace between entries)
 * and appends the entries to *sizes. `line` is the line number to report in
 * errors (1 for a command-line argument). A name given twice with different
 * sizes is an error; sizes are positive integers below 2^63.
 */
tc_status tc_parse_sizes(const char *text, int line, tc_sizes *sizes,
                         tc_error *err);

/*
 * Reads a contraction file (TCCG's format): '#' starts a comment, the first
 * non-blank line is the contraction, every further line is "name = size"
 * (or any SIZES text). Errors are located by file line and column.
 */
tc_status tc_parse_file(const char *path, tc_contraction *out,
                        tc_sizes *sizes, tc_error *err);

#endif
