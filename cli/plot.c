/*
 * plot.c - --plot FILE.svg|FILE.png: writes a gnuplot script (the data as
 * inline data blocks, one per algorithm and quantity) to a temporary file,
 * runs gnuplot on it and reports gnuplot's first error. gnuplot never sees
 * the user's file name (a name starting with '|' would make it run a shell
 * command): it draws to its standard output, which is tcgen's one file
 * writer's descriptor (runtime/file.h).
 *
 * Layout (the dissertation's Figure 6.9): GFLOP/s over the swept size, one
 * line per algorithm, a colour per kernel, predicted solid, measured dashed.
 * Up to MANY_ALGORITHMS algorithms the key names each algorithm; above, it
 * names the kernels and the fastest algorithms. With a single x value the
 * algorithms become the x axis (bars). compare adds an error panel below.
 */
#include "plot.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/file.h"

#define MANY_ALGORITHMS 12  /* above: the key names kernels, not algorithms */
#define MAX_TIC_NAMES 60    /* bars: up to this many algorithm names on the x axis */
#define ERR_CAPTURE 8192    /* bytes of gnuplot's stderr kept */
#define ERR_CLIP_LO -100.0  /* the error panel's range is clipped to these */
#define ERR_CLIP_HI 200.0
#define KEY_FONT 10         /* points */
#define WIDTH 1000.0
#define HEIGHT 700.0
#define MAX_TIC_SIZES 12    /* more swept sizes: tics at a round step */
#define TITLE_LABEL 10      /* gnuplot label tags of the title and subtitle */
#define TITLE_CHARS 90      /* characters that fit the canvas at 13 and 10 pt */
#define SUBTITLE_CHARS 140

/* Colours by kernel: distinct on white; other kernels get the other colours. */
static const struct {
    const char *name, *rgb;
} known_kernels[] = {
    {"dgemm", "#1f77b4"}, {"dger", "#2ca02c"}, {"dgemv", "#ff7f0e"},
    {"daxpy", "#9467bd"}, {"ddot", "#d62728"},
};
#define NKNOWN ((int)(sizeof known_kernels / sizeof known_kernels[0]))
static const char *const other_rgb[] = {"#8c564b", "#7f7f7f", "#17becf", "#bcbd22", "#e377c2"};
#define NOTHER ((int)(sizeof other_rgb / sizeof other_rgb[0]))
static const int point_types[] = {7, 5, 9, 11, 13, 6, 4, 8, 10, 12, 1, 2, 3};
#define NPT ((int)(sizeof point_types / sizeof point_types[0]))

typedef struct kernel {
    const char *name;
    const char *rgb;
    int rank;  /* order in the key: known kernels first */
    int count; /* algorithms */
} kernel;

typedef struct algo {
    const char *name;
    int kernel; /* into layout.kern */
    int pt;     /* gnuplot point type */
    int first, count; /* its points in layout.pts, sorted by x */
    int npred, nmeas, nerr;
} algo;

typedef struct point {
    const tc_plot_row *row;
    int alg;
} point;

typedef struct layout {
    const tc_plot *p;
    int png;
    kernel *kern;
    int nkern;
    algo *algs;
    int nalg;
    point *pts;
    int npts;
    int bars;           /* a single x value: algorithms on the x axis */
    double x0;          /* that x value */
    int has_pred, has_meas, has_err, error_panel;
    int many;           /* more than MANY_ALGORITHMS: the key names kernels */
    int best_pred, best_meas; /* fastest at the largest x, -1 if none */
    double err_lo, err_hi;    /* finite error range */
    /* screen coordinates */
    double left, right, top, bottom, split_hi, split_lo;
} layout;

/* ---- file names, gnuplot ---- */

/* 1 for FILE.png, 0 for FILE.svg (any case), -1 otherwise. */
static int extension_png(const char *file)
{
    const char *slash = strrchr(file, '/');
    const char *dot = strrchr(slash ? slash + 1 : file, '.');
    if (!dot || dot[1] == '\0')
        return -1;
    if (strcasecmp(dot, ".svg") == 0)
        return 0;
    if (strcasecmp(dot, ".png") == 0)
        return 1;
    return -1;
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *join_path(const char *dir, size_t len, const char *name)
{
    size_t n = strlen(name);
    char *s = malloc(len + n + 3);
    if (!s)
        return NULL;
    if (len == 0)
        s[len++] = '.';
    else
        memcpy(s, dir, len);
    s[len] = '/';
    memcpy(s + len + 1, name, n + 1);
    return s;
}

/* The gnuplot to run: $TCGEN_GNUPLOT (a path, or a name looked up in PATH)
 * or gnuplot from PATH. NULL if there is none (or out of memory). */
static char *find_gnuplot(void)
{
    const char *name = getenv("TCGEN_GNUPLOT");
    if (!name || !*name)
        name = "gnuplot";
    if (strchr(name, '/')) {
        return executable(name) ? strdup(name) : NULL;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = path;; ) {
        const char *end = strchr(dir, ':');
        size_t len = end ? (size_t)(end - dir) : strlen(dir);
        char *full = join_path(dir, len, name);
        if (!full)
            return NULL;
        if (executable(full))
            return full;
        free(full);
        if (!end)
            return NULL;
        dir = end + 1;
    }
}

/* ---- the data, grouped by algorithm ---- */

static int kernel_index(layout *l, const char *name)
{
    for (int k = 0; k < l->nkern; k++)
        if (strcmp(l->kern[k].name, name) == 0)
            return k;
    kernel *k = &l->kern[l->nkern];
    k->name = name;
    k->count = 0;
    k->rank = -1;
    for (int i = 0; i < NKNOWN; i++)
        if (strcmp(known_kernels[i].name, name) == 0) {
            k->rgb = known_kernels[i].rgb;
            k->rank = i;
        }
    if (k->rank < 0) {
        int others = 0;
        for (int i = 0; i < l->nkern; i++)
            others += l->kern[i].rank >= NKNOWN;
        k->rgb = other_rgb[others % NOTHER];
        k->rank = NKNOWN + others;
    }
    return l->nkern++;
}

static int algo_index(layout *l, const tc_plot_row *r)
{
    const char *name = r->name ? r->name : "(unnamed)";
    if (l->nalg > 0 && strcmp(l->algs[l->nalg - 1].name, name) == 0)
        return l->nalg - 1;
    for (int a = 0; a < l->nalg; a++)
        if (strcmp(l->algs[a].name, name) == 0)
            return a;
    algo *a = &l->algs[l->nalg];
    memset(a, 0, sizeof *a);
    a->name = name;
    a->kernel = kernel_index(l, r->kernel ? r->kernel : "?");
    a->pt = point_types[l->kern[a->kernel].count++ % NPT];
    return l->nalg++;
}

static int usable(const tc_plot_row *r)
{
    return isfinite(r->x) &&
           (isfinite(r->predicted_gflops) || isfinite(r->measured_gflops) ||
            isfinite(r->error_pct));
}

static int by_algo_then_x(const void *pa, const void *pb)
{
    const point *a = pa, *b = pb;
    if (a->alg != b->alg)
        return a->alg < b->alg ? -1 : 1;
    if (a->row->x != b->row->x)
        return a->row->x < b->row->x ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* The algorithm with the largest value at the largest x where it is finite. */
static int fastest(const layout *l, int measured)
{
    double xmax = -INFINITY, best = -INFINITY;
    int who = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < l->npts; i++) {
            const tc_plot_row *r = l->pts[i].row;
            double v = measured ? r->measured_gflops : r->predicted_gflops;
            if (!isfinite(v))
                continue;
            if (pass == 0 && r->x > xmax)
                xmax = r->x;
            if (pass == 1 && r->x == xmax && v > best) {
                best = v;
                who = l->pts[i].alg;
            }
        }
    return who;
}

static void count_values(layout *l)
{
    l->err_lo = INFINITY;
    l->err_hi = -INFINITY;
    for (int i = 0; i < l->npts; i++) {
        const tc_plot_row *r = l->pts[i].row;
        algo *a = &l->algs[l->pts[i].alg];
        if (a->count++ == 0)
            a->first = i;
        a->npred += isfinite(r->predicted_gflops) != 0;
        a->nmeas += isfinite(r->measured_gflops) != 0;
        if (isfinite(r->error_pct)) {
            a->nerr++;
            l->err_lo = fmin(l->err_lo, r->error_pct);
            l->err_hi = fmax(l->err_hi, r->error_pct);
        }
        l->has_pred |= isfinite(r->predicted_gflops) != 0;
        l->has_meas |= isfinite(r->measured_gflops) != 0;
        l->has_err |= isfinite(r->error_pct) != 0;
        if (r->x != l->pts[0].row->x)
            l->bars = 0;
    }
}

/* Groups the rows by algorithm (first appearance order), sorted by x.
 * Returns -1 when out of memory. */
static int build(layout *l, const tc_plot *p, int png)
{
    memset(l, 0, sizeof *l);
    l->p = p;
    l->png = png;
    size_t n = (size_t)p->n;
    l->kern = calloc(n, sizeof *l->kern);
    l->algs = calloc(n, sizeof *l->algs);
    l->pts = calloc(n, sizeof *l->pts);
    if (!l->kern || !l->algs || !l->pts)
        return -1;
    for (int i = 0; i < p->n; i++)
        if (usable(&p->rows[i])) {
            l->pts[l->npts].row = &p->rows[i];
            l->pts[l->npts++].alg = algo_index(l, &p->rows[i]);
        }
    if (l->npts == 0)
        return 0;
    qsort(l->pts, (size_t)l->npts, sizeof *l->pts, by_algo_then_x);
    l->bars = 1;
    l->x0 = l->pts[0].row->x;
    count_values(l);
    l->error_panel = p->with_error_panel && l->has_err;
    l->many = l->nalg > MANY_ALGORITHMS;
    l->best_pred = fastest(l, 0);
    l->best_meas = fastest(l, 1);
    return 0;
}

static void release(layout *l)
{
    free(l->kern);
    free(l->algs);
    free(l->pts);
}

/* ---- gnuplot text ---- */

/* s inside a double-quoted gnuplot string. Backquotes would run a shell
 * command even inside double quotes: they are written as an octal escape. */
static void put_chars(FILE *f, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '\\' || *c == '"')
            fprintf(f, "\\%c", *c);
        else if (*c == '`')
            fputs("\\140", f);
        else if (*c < 0x20 || *c == 0x7f)
            fputc(' ', f);
        else
            fputc(*c, f);
    }
}

/* One line of a title: runs of white space become one space and none
 * precedes a comma (CPU names come padded), and a text longer than max characters ends in "...". */
static void put_title_line(FILE *f, const char *s, size_t max)
{
    char buf[512];
    size_t n = 0;
    for (const char *c = s; *c && n + 1 < sizeof buf; c++) {
        if (*c == ',' && n > 0 && buf[n - 1] == ' ')
            n--; /* "name , next": a padded field before the comma */
        if (!isspace((unsigned char)*c) || (n > 0 && buf[n - 1] != ' '))
            buf[n++] = isspace((unsigned char)*c) ? ' ' : *c;
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    if (n > max && max > 3)
        memcpy(buf + max - 3, "...", 3), n = max;
    buf[n] = '\0';
    put_chars(f, buf);
}

/* A double-quoted gnuplot string: a, then b (either may be NULL). */
static void put_str2(FILE *f, const char *a, const char *b)
{
    fputc('"', f);
    put_chars(f, a);
    put_chars(f, b);
    fputc('"', f);
}

static void put_str(FILE *f, const char *s)
{
    put_str2(f, s, NULL);
}

static size_t text_len(const char *s)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        n += (*c & 0xc0) != 0x80; /* UTF-8 characters, not bytes */
    return n;
}

static void put_block(FILE *f, char kind, int a, const layout *l)
{
    const algo *al = &l->algs[a];
    fprintf(f, "$%c%d << EOD\n", kind, a);
    for (int i = al->first; i < al->first + al->count; i++) {
        const tc_plot_row *r = l->pts[i].row;
        double v = kind == 'p' ? r->predicted_gflops
                 : kind == 'm' ? r->measured_gflops : r->error_pct;
        if (isfinite(v))
            fprintf(f, "%.10g %.10g\n", l->bars ? (double)(a + 1) : r->x, v);
    }
    fputs("EOD\n", f);
}

static void put_data(FILE *f, const layout *l)
{
    for (int a = 0; a < l->nalg; a++) {
        if (l->algs[a].npred)
            put_block(f, 'p', a, l);
        if (l->algs[a].nmeas)
            put_block(f, 'm', a, l);
        if (l->error_panel && l->algs[a].nerr)
            put_block(f, 'e', a, l);
    }
}

static void put_terminal(FILE *f, const layout *l)
{
    if (l->png)
        fputs("if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
              "    set terminal pngcairo size 1000,700 enhanced font \"sans,10\" "
              "background \"white\"\n"
              "} else {\n"
              "    set terminal png size 1000,700 enhanced font \"sans,10\" "
              "background \"#ffffff\"\n"
              "}\n",
              f);
    else
        fputs("set terminal svg size 1000,700 dynamic enhanced font \"sans,11\" "
              "background \"white\"\n",
              f);
    fputs("set encoding utf8\nset output\n", f); /* standard output: see the top */
}

/* ---- layout ---- */

static const char *kind_title(const layout *l)
{
    if (l->has_pred && l->has_meas)
        return NULL;
    return l->has_pred ? "predicted" : "measured";
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The longest key entry, in characters. */
static size_t key_chars(const layout *l)
{
    size_t w = 10; /* "predicted", "measured" */
    if (!l->many && !l->bars) {
        for (int a = 0; a < l->nalg; a++)
            w = max_size(w, text_len(l->algs[a].name));
        return w;
    }
    for (int k = 0; k < l->nkern; k++)
        w = max_size(w, text_len(l->kern[k].name) + 16); /* " (18 algorithms)" */
    if (!l->bars && l->best_pred >= 0)
        w = max_size(w, text_len(l->algs[l->best_pred].name) + 19);
    if (!l->bars && l->best_meas >= 0)
        w = max_size(w, text_len(l->algs[l->best_meas].name) + 18);
    return w;
}

static size_t longest_name(const layout *l)
{
    size_t w = 0;
    for (int a = 0; a < l->nalg; a++)
        w = max_size(w, text_len(l->algs[a].name));
    return w;
}

static int tic_names(const layout *l)
{
    return l->bars && l->nalg <= MAX_TIC_NAMES;
}

/* Bars' fill: outlined unless they are too thin for an outline. */
static const char *bar_fill(const layout *l)
{
    return l->nalg <= MAX_TIC_NAMES ? "fs solid 0.75 border -1" : "fs solid 0.75 noborder";
}

static int tic_font(const layout *l)
{
    return l->nalg <= 20 ? 9 : l->nalg <= 40 ? 8 : 7;
}

/* Screen margins: the key in a column right of the plots, the error panel
 * a third of the height below the main panel. */
static void place(layout *l)
{
    double key_px = 95.0 + 0.75 * KEY_FONT * (double)key_chars(l);
    l->left = 0.085;
    l->right = 1.0 - key_px / WIDTH;
    l->right = l->right < 0.55 ? 0.55 : l->right > 0.86 ? 0.86 : l->right;
    l->top = l->p->title && l->p->subtitle ? 0.87 : l->p->title || l->p->subtitle ? 0.91 : 0.96;
    double names_px = tic_names(l) ? 0.62 * tic_font(l) * (double)longest_name(l) + 12.0 : 0.0;
    double names = names_px / HEIGHT;
    l->bottom = 0.085 + (names > 0.25 ? 0.25 : names);
    if (!l->error_panel) {
        l->split_hi = l->split_lo = l->bottom;
        return;
    }
    double h = l->top - l->bottom - 0.03;
    l->split_lo = l->bottom + h / 3.0;
    l->split_hi = l->split_lo + 0.03;
}

static void put_margins(FILE *f, const layout *l, double top, double bottom)
{
    fprintf(f, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
               "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
            l->left, l->right, top, bottom);
}

static void put_common(FILE *f, const layout *l)
{
    fputs("set grid xtics ytics lt 1 lw 1 lc rgb \"#e4e4e4\"\n"
          "set border 3 lw 1 lc rgb \"#404040\"\n"
          "set tics nomirror out scale 0.6\n"
          "set style fill solid 0.75 border -1\n"
          "set clip two\n",
          f);
    fprintf(f, "set key at screen %.4f, screen %.4f left top Left reverse vertical "
               "noenhanced samplen 3 spacing 1.15 font \",%d\"\n",
            l->right + 0.02, l->top, KEY_FONT);
    const char *kt = kind_title(l);
    if (kt)
        fprintf(f, "set key title \"%s\" left\n", kt);
    /* Centred on the canvas, not the plot area, so a long subtitle is not
     * cut off on the left. */
    double y = 0.975;
    if (l->p->title) {
        fprintf(f, "set label %d \"", TITLE_LABEL);
        put_title_line(f, l->p->title, TITLE_CHARS);
        fprintf(f, "\" at screen 0.5, screen %.4f center noenhanced font \",13\"\n", y);
        y -= 0.04;
    }
    if (l->p->subtitle) {
        fprintf(f, "set label %d \"", TITLE_LABEL + 1);
        put_title_line(f, l->p->subtitle, SUBTITLE_CHARS);
        fprintf(f, "\" at screen 0.5, screen %.4f center noenhanced font \",10\"\n", y);
    }
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
    if (!(x > 0))
        return 1.0;
    double p = pow(10.0, floor(log10(x)));
    return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* Sizes are integers: tics at the swept sizes when there are few of them,
 * else at a whole-number step (gnuplot's own choice can give 6.5). */
static void put_xtics(FILE *f, const layout *l)
{
    double lo = INFINITY, hi = -INFINITY, xs[MAX_TIC_SIZES];
    int nx = 0, integral = 1;
    for (int i = 0; i < l->npts; i++) {
        double x = l->pts[i].row->x;
        integral &= x == floor(x);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        int seen = 0;
        for (int k = 0; k < nx && !seen; k++)
            seen = xs[k] == x;
        if (!seen && nx <= MAX_TIC_SIZES - 1)
            xs[nx++] = x;
        else if (!seen)
            nx = MAX_TIC_SIZES + 1;
    }
    if (!integral || !(hi > lo)) {
        fputs("set xtics autofreq\n", f);
    } else if (nx <= MAX_TIC_SIZES) {
        fputs("set xtics (", f);
        for (int k = 0; k < nx; k++)
            fprintf(f, "%s%.0f", k ? ", " : "", xs[k]);
        fputs(")\n", f);
    } else {
        double step = nice_step((hi - lo) / 8.0);
        fprintf(f, "set xtics %.0f\n", step < 1.0 ? 1.0 : step);
    }
}

static void put_xaxis(FILE *f, const layout *l, int labelled)
{
    if (l->bars) {
        double pad = l->nalg < 6 ? (6 - l->nalg) / 2.0 : 0.0;
        fprintf(f, "set xrange [%.2f:%.2f]\n", 0.4 - pad, l->nalg + 0.6 + pad);
        if (labelled && tic_names(l)) {
            fputs("set xtics (", f);
            for (int a = 0; a < l->nalg; a++) {
                fputs(a ? ", " : "", f);
                put_str(f, l->algs[a].name);
                fprintf(f, " %d", a + 1);
            }
            fprintf(f, ") rotate by 90 right noenhanced font \",%d\"\n", tic_font(l));
            fputs("set grid noxtics\n", f);
        } else {
            fputs("set xtics autofreq\nset grid noxtics\n", f);
        }
    } else {
        fputs("set autoscale xfix\n", f);
        put_xtics(f, l);
    }
    if (!labelled) {
        fputs("set format x \"\"\nunset xlabel\n", f);
        return;
    }
    fputs("set format x \"%g\"\nset xlabel ", f);
    const char *xl = l->p->xlabel && *l->p->xlabel ? l->p->xlabel : "size";
    if (l->bars) {
        fprintf(f, "\"%s (", tic_names(l) ? "algorithm" : "algorithm number");
        put_chars(f, xl);
        fprintf(f, " = %g)\"", l->x0);
    } else {
        put_str(f, xl);
    }
    fputs(" noenhanced\n", f);
}

/* ---- plot clauses ---- */

static void sep(FILE *f, int *first)
{
    fputs(*first ? "plot " : ", \\\n     ", f);
    *first = 0;
}

/* Key-only entries: a kernel colour, or the line style of a kind. */
static void put_key_kernels(FILE *f, const layout *l, int *first)
{
    for (int rank = 0; rank < NKNOWN + l->nkern; rank++)
        for (int k = 0; k < l->nkern; k++)
            if (l->kern[k].rank == rank) {
                char t[160];
                snprintf(t, sizeof t, "%s (%d algorithm%s)", l->kern[k].name,
                         l->kern[k].count, l->kern[k].count == 1 ? "" : "s");
                sep(f, first);
                if (l->bars)
                    fprintf(f, "NaN with boxes fs solid 0.75 border -1 lc rgb \"%s\" title ",
                            l->kern[k].rgb);
                else
                    fprintf(f, "NaN with lines lw 3 lc rgb \"%s\" title ", l->kern[k].rgb);
                put_str(f, t);
            }
}

static void put_key_kinds(FILE *f, const layout *l, int *first)
{
    if (!l->has_pred || !l->has_meas)
        return;
    sep(f, first);
    if (l->bars) {
        fputs("NaN with boxes fs solid 0.75 border -1 lc rgb \"#606060\" title \"predicted\"", f);
        sep(f, first);
        fputs("NaN with boxes fs empty lc rgb \"#606060\" dt 2 lw 1.5 "
              "title \"measured\"", f);
        return;
    }
    fputs("NaN with lines lw 1.5 dt 1 lc rgb \"#404040\" title \"predicted\"", f);
    sep(f, first);
    fputs("NaN with lines lw 1.5 dt 2 lc rgb \"#404040\" title \"measured\"", f);
}

static void put_title(FILE *f, const char *prefix, const char *name)
{
    fputs(" title ", f);
    put_str2(f, prefix, name);
}

/* One algorithm's predicted or measured line. */
static void put_line(FILE *f, const layout *l, int a, int measured, int *first)
{
    const algo *al = &l->algs[a];
    int npts = measured ? al->nmeas : al->npred;
    if (npts == 0)
        return;
    sep(f, first);
    fprintf(f, "$%c%d using 1:2 ", measured ? 'm' : 'p', a);
    if (npts == 1)
        fprintf(f, "with points pt %d ps 1", al->pt);
    else if (l->many)
        fputs("with lines", f);
    else
        fprintf(f, "with linespoints pt %d ps 0.7 pi %d", al->pt, npts > 12 ? npts / 10 : 1);
    int best = a == (measured ? l->best_meas : l->best_pred);
    fprintf(f, " lc rgb \"%s\" dt %d lw %.1f", l->kern[al->kernel].rgb, measured ? 2 : 1,
            !l->many ? 1.6 : best ? 2.4 : 1.2);
    if (!l->many) {
        if (!measured || al->npred == 0)
            put_title(f, NULL, al->name);
        else
            fputs(" notitle", f);
    } else if (best) {
        put_title(f, measured ? "fastest measured: " : "fastest predicted: ", al->name);
    } else {
        fputs(" notitle", f);
    }
}

static void put_main_lines(FILE *f, const layout *l)
{
    int first = 1;
    if (l->many)
        put_key_kernels(f, l, &first);
    put_key_kinds(f, l, &first);
    for (int a = 0; a < l->nalg; a++) {
        put_line(f, l, a, 0, &first);
        put_line(f, l, a, 1, &first);
    }
    fputc('\n', f);
}

/* Bars: predicted filled, measured a dashed outline beside it. */
static void put_main_bars(FILE *f, const layout *l)
{
    int first = 1, both = l->has_pred && l->has_meas;
    double w = both ? 0.38 : 0.7, off = both ? 0.2 : 0.0;
    fprintf(f, "set boxwidth %.2f absolute\n", w);
    put_key_kernels(f, l, &first);
    put_key_kinds(f, l, &first);
    for (int a = 0; a < l->nalg; a++) {
        const char *rgb = l->kern[l->algs[a].kernel].rgb;
        if (l->algs[a].npred) {
            sep(f, &first);
            fprintf(f, "$p%d using ($1-%.2f):2 with boxes %s lc rgb \"%s\" notitle", a, off,
                    bar_fill(l), rgb);
        }
        if (l->algs[a].nmeas) {
            sep(f, &first);
            fprintf(f, "$m%d using ($1+%.2f):2 with boxes fs empty lc rgb \"%s\" "
                       "dt 2 lw 1.5 notitle", a, off, rgb);
        }
    }
    fputc('\n', f);
}


static void put_error_panel(FILE *f, const layout *l)
{
    put_margins(f, l, l->split_lo, l->bottom);
    fprintf(f, "unset label %d\nunset label %d\n", TITLE_LABEL, TITLE_LABEL + 1);
    fputs("unset key\nset ylabel \"prediction error [%]\"\n"
          "set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead front "
          "lw 1.2 lc rgb \"#000000\"\n", f);
    double lo = l->err_lo < ERR_CLIP_LO ? ERR_CLIP_LO : l->err_lo;
    double hi = l->err_hi > ERR_CLIP_HI ? ERR_CLIP_HI : l->err_hi;
    lo = lo > 0 ? 0 : lo;
    hi = hi < 0 ? 0 : hi;
    double pad = (hi - lo) * 0.05 + 0.5;
    fprintf(f, "set yrange [%.6g:%.6g]\nset ytics %.6g\n", lo - pad, hi + pad,
            nice_step((hi - lo) / 5.0));
    if (l->err_lo < lo || l->err_hi > hi)
        fprintf(f, "set label 2 \"errors outside\\n[%.0f%%, %.0f%%]\\nare clipped\" at screen %.4f, "
                   "screen %.4f left front font \",9\"\n", lo, hi, l->right + 0.02,
                l->split_lo - 0.02);
    put_xaxis(f, l, 1);
    int first = 1;
    if (l->bars)
        fputs("set boxwidth 0.6 absolute\n", f);
    for (int a = 0; a < l->nalg; a++) {
        const algo *al = &l->algs[a];
        if (!al->nerr)
            continue;
        sep(f, &first);
        fprintf(f, "$e%d using 1:2 ", a);
        if (l->bars)
            fprintf(f, "with boxes %s", bar_fill(l));
        else if (l->many)
            fputs("with lines lw 0.8", f);
        else
            fprintf(f, "with linespoints lw 1.2 pt %d ps 0.5 pi %d", al->pt,
                    al->nerr > 12 ? al->nerr / 10 : 1);
        fprintf(f, " lc rgb \"%s\" notitle", l->kern[al->kernel].rgb);
    }
    fputc('\n', f);
}

static void put_script(FILE *f, const layout *l)
{
    fputs("# tcgen --plot: GFLOP/s per algorithm (generated, temporary)\n", f);
    put_terminal(f, l);
    put_data(f, l);
    put_common(f, l);
    if (l->error_panel)
        fputs("set multiplot\n", f);
    put_margins(f, l, l->top, l->error_panel ? l->split_hi : l->bottom);
    fputs("set ylabel \"GFLOP/s\"\nset yrange [0:*]\nset ytics autofreq\n", f);
    put_xaxis(f, l, !l->error_panel);
    if (l->bars)
        put_main_bars(f, l);
    else
        put_main_lines(f, l);
    if (l->error_panel) {
        put_error_panel(f, l);
        fputs("unset multiplot\n", f);
    }
    fputs("set output\n", f);
}

/* ---- running gnuplot ---- */

/* The temporary script; NULL (after printing the error) on failure. */
static char *write_script(const layout *l, int *status)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *path = join_path(dir, strlen(dir), "tcgen-plot-XXXXXX");
    if (!path) {
        *status = tc_cli_failf(TC_ERESOURCE, "out of memory");
        return NULL;
    }
    int fd = mkstemp(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        *status = tc_cli_failf(TC_ERESOURCE, "cannot create a temporary file in %s: %s", dir,
                               strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        free(path);
        return NULL;
    }
    put_script(f, l);
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        *status = tc_cli_failf(TC_ERESOURCE, "cannot write the temporary file %s: %s", path,
                               strerror(errno));
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

/* Reads all of fd, keeping the first cap-1 bytes in buf (NUL-terminated). */
static void drain(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    char sink[512];
    for (;;) {
        char *to = len + 1 < cap ? buf + len : sink;
        size_t room = len + 1 < cap ? cap - 1 - len : sizeof sink;
        ssize_t got = read(fd, to, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (to == buf + len)
            len += (size_t)got;
    }
    buf[len] = '\0';
}

/* Gnuplot reports '"SCRIPT" line N: message'; else its first line that is
 * not a warning. */
static const char *first_error(char *err, const char *script)
{
    const char *pick = NULL;
    size_t slen = strlen(script);
    for (char *line = err; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        const char *at = strstr(line, script);
        const char *msg = at && at > line && at[-1] == '"' && at[slen] == '"'
                              ? strchr(at + slen, ':') : NULL;
        if (msg) {
            pick = msg + 1 + strspn(msg + 1, " ");
            break;
        }
        if (!pick && line[strspn(line, " \t^")] && strncmp(line, "warning:", 8) != 0)
            pick = line;
        line = nl ? nl + 1 : NULL;
    }
    return pick && *pick ? pick : NULL;
}

static void child(const char *gnuplot, const char *script, int outfd, int errfd)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        close(null);
    }
    dup2(outfd, STDOUT_FILENO);
    close(outfd);
    dup2(errfd, STDERR_FILENO);
    close(errfd);
    execl(gnuplot, gnuplot, script, (char *)NULL);
    static const char msg[] = "cannot execute gnuplot\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
}

/* Runs gnuplot with its standard output on outfd (the temporary file). */
static int run_gnuplot(const char *gnuplot, const char *script, const char *file, int outfd)
{
    int fds[2];
    if (pipe(fds) != 0)
        return tc_cli_failf(TC_ERESOURCE, "cannot run %s: %s", gnuplot, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return tc_cli_failf(TC_ERESOURCE, "cannot run %s: %s", gnuplot, strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child(gnuplot, script, outfd, fds[1]);
    }
    close(fds[1]);
    char err[ERR_CAPTURE];
    drain(fds[0], err, sizeof err);
    close(fds[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return tc_cli_failf(TC_ERESOURCE, "waiting for %s: %s", gnuplot, strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    const char *msg = first_error(err, script);
    if (msg)
        return tc_cli_failf(TC_ERESOURCE, "gnuplot could not draw '%s': %s", file, msg);
    if (WIFSIGNALED(st))
        return tc_cli_failf(TC_ERESOURCE, "gnuplot could not draw '%s': killed by signal %d",
                            file, WTERMSIG(st));
    return tc_cli_failf(TC_ERESOURCE, "gnuplot could not draw '%s': exit status %d", file,
                        WEXITSTATUS(st));
}

/* Draws through the one file writer (runtime/file.h): into a temporary
 * renamed over the file when gnuplot succeeded and removed otherwise, so a
 * failure leaves any old plot intact. */
static int draw(const char *gnuplot, const char *script, const char *file)
{
    tc_rt_file out;
    tc_error err;
    if (tc_rt_file_open(file, &out, &err) != TC_OK)
        return tc_cli_fail(&err, NULL);
    int status = run_gnuplot(gnuplot, script, file, out.fd);
    if (status != 0)
        tc_rt_file_abort(&out);
    else if (tc_rt_file_commit(&out, &err) != TC_OK)
        status = tc_cli_fail(&err, NULL);
    return status;
}

/* The gnuplot to use, or NULL after printing why there is none. */
static char *gnuplot_or_fail(int *status)
{
    char *gnuplot = find_gnuplot();
    if (gnuplot)
        return gnuplot;
    const char *env = getenv("TCGEN_GNUPLOT");
    if (env && *env)
        *status = tc_cli_failf(TC_ERESOURCE, "--plot needs gnuplot, but TCGEN_GNUPLOT='%s' is "
                                             "not an executable (unset it, and install "
                                             "gnuplot-nox)", env);
    else
        *status = tc_cli_failf(TC_ERESOURCE, "--plot needs gnuplot, which is not in PATH: "
                                             "install gnuplot-nox (apt-get install gnuplot-nox)");
    return NULL;
}

int tc_cli_plot_check(const char *file)
{
    if (!file || !*file)
        return tc_cli_failf(TC_EUSAGE, "--plot needs a file name ending in .svg or .png");
    if (extension_png(file) < 0)
        return tc_cli_failf(TC_EUSAGE, "cannot plot to '%s': the file name must end in .svg "
                                       "or .png", file);
    int status = 0;
    free(gnuplot_or_fail(&status));
    return status;
}

int tc_cli_plot(const tc_plot *p)
{
    int status = tc_cli_plot_check(p ? p->file : NULL);
    if (status)
        return status;
    if (p->n <= 0 || !p->rows)
        return tc_cli_failf(TC_EINPUT, "nothing to plot");
    int png = extension_png(p->file);
    char *gnuplot = gnuplot_or_fail(&status);
    if (!gnuplot)
        return status;
    layout l;
    if (build(&l, p, png) != 0)
        status = tc_cli_failf(TC_ERESOURCE, "out of memory");
    else if (l.npts == 0)
        status = tc_cli_failf(TC_EINPUT, "nothing to plot: every value is absent");
    if (status == 0) {
        place(&l);
        char *script = write_script(&l, &status);
        if (script) {
            status = draw(gnuplot, script, p->file);
            unlink(script);
            free(script);
        }
    }
    release(&l);
    free(gnuplot);
    return status;
}
