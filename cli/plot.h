/*
 * plot.h - --plot FILE.svg|FILE.png: predicted and measured GFLOP/s per
 * algorithm over a sweep, drawn with gnuplot (the dissertation's Figure
 * 6.9 layout: one line per algorithm, a colour per kernel, predicted solid,
 * measured dashed; for compare, a second panel with the error per algorithm).
 */
#ifndef TC_CLI_PLOT_H
#define TC_CLI_PLOT_H

#include "cli.h"

/* One point of one algorithm; NAN where a value is absent (e.g. measured
 * values of `predict`, or an algorithm over the time limit). */
typedef struct tc_plot_row {
    double x;                 /* the swept size */
    const char *name;         /* algorithm */
    const char *kernel;       /* "dgemm", ... (decides the colour) */
    double predicted_gflops;
    double measured_gflops;
    double error_pct;         /* (predicted - measured) / measured * 100 */
} tc_plot_row;

typedef struct tc_plot {
    const char *file;         /* ends in .svg or .png */
    const char *title;        /* e.g. the contraction */
    const char *subtitle;     /* e.g. "AMD EPYC, OpenBLAS 0.3.21, 1 thread" */
    const char *xlabel;       /* e.g. "a=b=c" */
    int with_error_panel;     /* compare: add the error panel */
    int n;
    const tc_plot_row *rows;
} tc_plot;

/* Writes the plot with gnuplot. On error prints it and returns the exit
 * status: 1 nothing to plot, 2 a file name not ending in .svg or .png, 3
 * gnuplot missing or failing (e.g. the file is not writable); 0 on success. */
int tc_cli_plot(const tc_plot *p);

/* Checks --plot FILE before any work: the extension and that gnuplot can
 * be found. Prints the problem and returns the exit status; 0 when fine. */
int tc_cli_plot_check(const char *file);

#endif
