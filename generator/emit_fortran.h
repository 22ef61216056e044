/*
 * emit_fortran.h - what the two halves of the Fortran module share:
 * emit_fortran.c writes the module and its bind(C) interface,
 * emit_fortran_checked.c the checked wrapper NAME_checked and its helpers.
 * Internal to the generator.
 */
#ifndef TC_EMIT_FORTRAN_H
#define TC_EMIT_FORTRAN_H

#include <stdio.h>

#include "generator.h"

#define FNAME_MAX 64 /* a Fortran name: 63 characters */
#define WIDTH 100    /* wrap lines here (free form allows 132) */

/* The names taken in the module's scopes (emit_fortran.c compares them as
 * Fortran does, ignoring case). */
typedef struct fnames {
    int n;
    char name[TC_MAX_INDICES + 24][FNAME_MAX];
} fnames;

/* A list of items separated by ", ", continued with '&' before WIDTH. */
typedef struct fortran_line {
    FILE *out;
    int col, items;
    const char *indent; /* of continuation lines */
} fortran_line;

typedef struct fortran {
    const tc_algorithm *alg;
    const tc_contraction *c; /* storage form: column-major */
    tc_contraction user;     /* as the user wrote it */
    const tc_emit_options *opt;
    const char *fname;
    FILE *out;
    fnames names;
    const char *size[TC_MAX_INDICES]; /* size dummies (generic) */
    const char *array[3];             /* tensor dummies, by TC_A, TC_B, TC_C */
    const char *result;               /* the interface's result, the wrapper's rc */
    const char *checked;              /* NAME_checked */
    const char *stat, *errmsg, *msg;  /* the wrapper's optional dummies, its message */
} fortran;

/* "! " + label + text (printable ASCII, other bytes as \xNN), broken into
 * lines of at most WIDTH characters. */
void tc_fortran_comment(FILE *out, const char *indent, const char *label, const char *raw);

/* Starts a list after text; items go on continuation lines at indent. */
void tc_fortran_start(fortran_line *l, FILE *out, const char *text, const char *indent);
void tc_fortran_item(fortran_line *l, const char *text);
/* The tensor dummies A, B, C as items; the dummy list of the function and
 * its wrapper: the sizes (generic) then the tensors. */
void tc_fortran_arrays(fortran_line *l, const fortran *f);
void tc_fortran_dummies(fortran_line *l, const fortran *f);

/* The wrapper NAME_checked, after the module's contains (f named). */
void tc_fortran_checked(const fortran *f);

/* The wrapper's private helpers, at the end of the module. */
void tc_fortran_helpers(const fortran *f);

#endif
