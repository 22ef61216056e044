/*
 * emit_c.c - one algorithm as a standalone C99 function that calls CBLAS.
 *
 * The output reads like code a person would write: sizes are named
 * constants N_<index>, loop variables are named after the indices, offsets
 * are written as products of sizes (long arithmetic), temporaries come from
 * malloc, and each copy carries a comment saying why it is there.
 */
#include "generator.h"

#include <stdlib.h>
#include <string.h>

#include "ast/c_locale.h"
#include "ast/error.h"
#include "generator/kernel_gen.h"
#include "permute_kernel_text.h" /* generated from runtime/permute_kernel.inc */

/*
 * Emitted names. Every identifier the code declares is one of
 *   the function (the caller's name, tc_gen_check_function_name),
 *   A, B, C, alpha, beta, pos, tmpA, tmpB, tmpC, tmpA_block, tmpB_block,
 *   tmpC_block, tmp_extent, tmp_tensor, tmp_temp, tcgen_permute and the
 *   tcgen_permute_... of its kernel, tcgen_huge_alloc, for a split loop
 *   tmpA_part, tmpB_part, tmpC_part, tcgen_part, tcgen_blas,
 *   tcgen_blas_one, tcgen_blas_restore, tcgen_parts (generic), for
 *   complex calls tcgen_dot, tcgen_factor, tcgen_beta (block-local) and
 *   tcgen_cdotu, tcgen_zdotu (kernel_gen.c), stride_A, stride_B, stride_C
 *   (strides as parameters),
 *   N_<index>     a size (constant, or taken from a generic parameter),
 *   sA_<index>    a view's stride (sB_, sC_; constant or from stride_A),
 *   <index>       a loop variable (plain code) or a size parameter (generic
 *                 code) when the index name is usable, else
 *   ix_<index>    a loop variable, n_<index> a size parameter.
 * Usable: lowercase letters, digits and '_', not a keyword, not a name
 * below, not ending in "_t", not starting with ix_, n_, tmp or tcgen, not the
 * function's. So a mangled name never equals a usable one, and the
 * function's name may not start with N_, n_, ix_, tmp, sA_, sB_, sC_ or
 * stride_. A name that is
 * not a C identifier at all (the parser allows none) is spelled in hex:
 * ix__<hex>, n__<hex>, N__<hex>.
 */
#define IDENT_MAX (4 + 2 * TC_NAME_MAX) /* "ix__" + two hex digits a byte */

/* Keywords of C99 to C23 and GNU C. */
static const char c_keywords[] =
    " auto break case char const continue default do double else enum extern float for"
    " goto if inline int long register restrict return short signed sizeof static struct"
    " switch typedef union unsigned void volatile while asm typeof alignas alignof bool"
    " constexpr false nullptr static_assert thread_local true typeof_unqual ";

/* Lowercase names taken in the emitted code: its own (alpha, beta, pos,
 * main, malloc, free), and the object-like macros and typedef names (those
 * not ending in _t) of its headers: the C library, OpenBLAS's and BLIS's
 * cblas.h, GNU C's predefined macros. */
static const char c_taken[] =
    " alpha beta pos main malloc free complex imaginary xdouble unix linux i386 errno"
    " stdin stdout stderr sched_priority math_errhandling bli_nat bli_1m blasint bfloat16"
    " uint ulong ushort void_fp ";

/* Functions and function-like macros the emitted file's headers may
 * declare (glibc's stdlib.h, stddef.h, limits.h, and what BLIS's cblas.h
 * pulls in: stdio.h, string.h, math.h, complex.h, ctype.h, time.h): the
 * function's name must not be one. */
static const char c_library[] =
    " a64l abort abs acos acosf acosh acoshf acoshl acosl aligned_alloc alloca"
    " arc4random arc4random_buf arc4random_uniform asctime asctime_r asin asinf asinh"
    " asinhf asinhl asinl at_quick_exit atan atan2 atan2f atan2l atanf atanh atanhf"
    " atanhl atanl atexit atof atoi atol atoll bsearch cabs cabsf cabsl cacos cacosf"
    " cacosh cacoshf cacoshl cacosl calloc carg cargf cargl casin casinf casinh"
    " casinhf casinhl casinl catan catanf catanh catanhf catanhl catanl cbrt cbrtf"
    " cbrtl ccos ccosf ccosh ccoshf ccoshl ccosl ceil ceilf ceill cexp cexpf cexpl"
    " cimag cimagf cimagl clearenv clearerr clearerr_unlocked clock clog clogf clogl"
    " conj conjf conjl copysign copysignf copysignl cos cosf cosh coshf coshl cosl"
    " cpow cpowf cpowl cproj cprojf cprojl creal crealf creall csin csinf csinh"
    " csinhf csinhl csinl csqrt csqrtf csqrtl ctan ctanf ctanh ctanhf ctanhl ctanl"
    " ctermid ctime ctime_r difftime div dprintf drand48 drand48_r ecvt ecvt_r"
    " erand48 erand48_r erf erfc erfcf erfcl erff erfl exit exp exp2 exp2f exp2l expf"
    " expl expm1 expm1f expm1l fabs fabsf fabsl fclose fcvt fcvt_r fdim fdimf fdiml"
    " fdopen feof feof_unlocked ferror ferror_unlocked fflush fflush_unlocked fgetc"
    " fgetc_unlocked fgetpos fgets fileno fileno_unlocked flockfile floor floorf"
    " floorl fma fmaf fmal fmax fmaxf fmaxl fmemopen fmin fminf fminl fmod fmodf"
    " fmodl fopen fpclassify fprintf fputc fputc_unlocked fputs fread fread_unlocked"
    " free freopen frexp frexpf frexpl fscanf fseek fseeko fsetpos ftell ftello"
    " ftrylockfile funlockfile fwrite fwrite_unlocked gcvt getc getc_unlocked getchar"
    " getchar_unlocked getdelim getenv getline getloadavg gets getsubopt getw gmtime"
    " gmtime_r goto_set_num_threads hypot hypotf hypotl ilogb ilogbf ilogbl initstate"
    " initstate_r isalnum isalnum_l isalpha isalpha_l isblank isblank_l iscntrl"
    " iscntrl_l isdigit isdigit_l isfinite isgraph isgraph_l isgreater isgreaterequal"
    " isinf isless islessequal islessgreater islower islower_l isnan isnormal isprint"
    " isprint_l ispunct ispunct_l isspace isspace_l isunordered isupper isupper_l"
    " isxdigit isxdigit_l jrand48 jrand48_r l64a labs lcong48 lcong48_r ldexp ldexpf"
    " ldexpl ldiv lgamma lgammaf lgammal llabs lldiv llrint llrintf llrintl llround"
    " llroundf llroundl localtime localtime_r log log10 log10f log10l log1p log1pf"
    " log1pl log2 log2f log2l logb logbf logbl logf logl lrand48 lrand48_r lrint"
    " lrintf lrintl lround lroundf lroundl malloc mblen mbstowcs mbtowc memchr memcmp"
    " memcpy memmove memset mkdtemp mkstemp mkstemps mktemp mktime modf modff modfl"
    " mrand48 mrand48_r nan nanf nanl nanosleep nearbyint nearbyintf nearbyintl"
    " nextafter nextafterf nextafterl nexttoward nexttowardf nexttowardl nrand48"
    " nrand48_r offsetof on_exit open_memstream pclose perror popen posix_memalign"
    " pow powf powl printf pselect putc putc_unlocked putchar putchar_unlocked putenv"
    " puts putw qecvt qecvt_r qfcvt qfcvt_r qgcvt qsort quick_exit rand rand_r random"
    " random_r realloc reallocarray realpath remainder remainderf remainderl remove"
    " remquo remquof remquol rename renameat rewind rint rintf rintl round roundf"
    " roundl rpmatch scalbln scalblnf scalblnl scalbn scalbnf scalbnl scanf seed48"
    " seed48_r select setbuf setbuffer setenv setlinebuf setstate setstate_r setvbuf"
    " signbit sin sinf sinh sinhf sinhl sinl snprintf sprintf sqrt sqrtf sqrtl srand"
    " srand48 srand48_r srandom srandom_r sscanf stpcpy stpncpy strcat strchr strcmp"
    " strcoll strcoll_l strcpy strcspn strdup strerror strerror_l strerror_r strftime"
    " strftime_l strlen strncat strncmp strncpy strndup strnlen strpbrk strrchr"
    " strsignal strspn strstr strtod strtof strtok strtok_r strtol strtold strtoll"
    " strtoq strtoul strtoull strtouq strxfrm strxfrm_l system tan tanf tanh tanhf"
    " tanhl tanl tempnam tgamma tgammaf tgammal time timespec_get tmpfile tmpnam"
    " tmpnam_r tolower tolower_l toupper toupper_l trunc truncf truncl tzset ungetc"
    " unsetenv va_arg va_copy va_end va_start valloc vdprintf vfprintf vfscanf"
    " vprintf vscanf vsnprintf vsprintf vsscanf wcstombs wctomb"
    " ";

/* Whether name is a word of list (" a b c "). */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    if (n == 0)
        return 0;
    for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
        if (p[-1] == ' ' && p[n] == ' ')
            return 1;
    return 0;
}

static int is_lower(int ch) { return ch >= 'a' && ch <= 'z'; }
static int is_letter(int ch) { return is_lower(ch) || (ch >= 'A' && ch <= 'Z'); }
static int is_digit(int ch) { return ch >= '0' && ch <= '9'; }

/* A letter, then letters, digits and '_' (ASCII, whatever the locale). */
static int c_identifier(const char *s)
{
    if (!is_letter((unsigned char)s[0]))
        return 0;
    for (; *s; s++)
        if (!is_letter((unsigned char)*s) && !is_digit((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* An index name the code may use as it is (see above). */
static int usable(const char *s, const char *fname)
{
    if (!is_lower((unsigned char)s[0]))
        return 0;
    for (const char *p = s; *p; p++)
        if (!is_lower((unsigned char)*p) && !is_digit((unsigned char)*p) && *p != '_')
            return 0;
    size_t n = strlen(s);
    return !in_list(c_keywords, s) && !in_list(c_taken, s) &&
           !(n >= 2 && strcmp(s + n - 2, "_t") == 0) && !has_prefix(s, "ix_") &&
           !has_prefix(s, "n_") && !has_prefix(s, "tmp") && !has_prefix(s, "tcgen") &&
           !has_prefix(s, "cblas") && !has_prefix(s, "openblas") &&
           !has_prefix(s, "bli_") && strcmp(s, fname) != 0;
}

/* prefix + name, or prefix + "_" + the name's bytes in hex when it is not
 * a C identifier. */
static void mangle(const char *prefix, const char *name, char out[IDENT_MAX])
{
    if (c_identifier(name)) {
        snprintf(out, IDENT_MAX, "%s%s", prefix, name);
        return;
    }
    size_t len = (size_t)snprintf(out, IDENT_MAX, "%s_", prefix);
    for (const char *p = name; *p && len + 3 <= IDENT_MAX; p++)
        len += (size_t)snprintf(out + len, IDENT_MAX - len, "%02x", (unsigned char)*p);
}

tc_status tc_gen_check_function_name(const char *name, tc_error *err)
{
    const char *why = NULL;
    if (!name)
        return TC_OK; /* the default, "contraction" */
    if (!c_identifier(name))
        why = "use a C identifier: a letter, then letters, digits or '_'";
    else if (strlen(name) > 63)
        why = "use at most 63 characters";
    else if (in_list(c_keywords, name))
        why = "it is a C keyword";
    else if (!strcmp(name, "A") || !strcmp(name, "B") || !strcmp(name, "C") ||
             in_list(c_taken, name) || has_prefix(name, "N_") || has_prefix(name, "n_") ||
             has_prefix(name, "ix_") || has_prefix(name, "tmp") || has_prefix(name, "tcgen") ||
             has_prefix(name, "stride_") || has_prefix(name, "sA_") ||
             has_prefix(name, "sB_") || has_prefix(name, "sC_"))
        why = "the emitted code uses it (A, B, C, alpha, beta, pos, N_..., n_..., ix_..., "
              "tmp..., tcgen..., stride_..., sA_..., sB_..., sC_...)";
    else if (in_list(c_library, name) || has_prefix(name, "cblas") ||
             has_prefix(name, "openblas") || has_prefix(name, "goto_") ||
             has_prefix(name, "bli_") || has_prefix(name, "pthread_") ||
             has_prefix(name, "sched_") || !strcmp(name, "I") /* complex.h's */ ||
             (strlen(name) > 2 && strcmp(name + strlen(name) - 2, "_t") == 0))
        why = "the C library or the CBLAS header declares it";
    if (!why)
        return TC_OK;
    return tc_error_set(err, TC_EUSAGE, 0, 0, "'%.80s%s' cannot be the function's name: %s",
                        name, strlen(name) > 80 ? "..." : "", why);
}

/* The strides parameters of C, A and B (tc_emit_options.strides). */
static const char *const stride_param[3] = {"stride_C", "stride_A", "stride_B"};

typedef struct emitter {
    const tc_algorithm *alg;
    const tc_contraction *c;    /* storage form: column-major */
    tc_contraction user;        /* as the user wrote it (differs for row-major) */
    const tc_emit_options *opt;
    const tc_type_row *ty;      /* the element type (the contraction's) */
    FILE *out;
    const char *fname;          /* the function's name */
    int nkept;                  /* tensor-sized temporaries (kept between calls) */
    int oom;                    /* a text could not be allocated */
    int in_part;                /* inside a split loop's part: the per-thread
                                   temporaries are NAME_part, and C is
                                   tcgen_C where the loop is contracted */
    char parts[16];             /* a split loop's parts: "P", or in generic
                                   code OpenMP's thread count */
    char size[TC_MAX_INDICES][IDENT_MAX];  /* N_<index> */
    char var[TC_MAX_INDICES][IDENT_MAX];   /* loop variable per index */
    char param[TC_MAX_INDICES][IDENT_MAX]; /* size parameter (generic) */
    int views;                  /* A, B and C addressed through their strides */
    char stride[3][TC_MAX_RANK][IDENT_MAX]; /* sC_<index>, sA_..., sB_...: a view's
                                               stride at each position after the first */
    unsigned char *used;        /* [3 * TC_MAX_RANK]: the strides the code uses */
} emitter;

/* The names of the sizes, loop variables and parameters (see above). */
static void name_variables(emitter *e, const char *fname)
{
    const tc_contraction *c = e->c;
    for (int i = 0; i < c->nindex; i++) {
        const char *n = c->index[i].name;
        int plain = usable(n, fname);
        mangle("N_", n, e->size[i]);
        if (e->opt->generic) { /* the parameters take the plain names */
            if (plain)
                snprintf(e->param[i], IDENT_MAX, "%s", n);
            else
                mangle("n_", n, e->param[i]);
            mangle("ix_", n, e->var[i]);
        } else if (plain) {
            snprintf(e->var[i], IDENT_MAX, "%s", n);
        } else {
            mangle("ix_", n, e->var[i]);
        }
    }
    static const char *const prefix[3] = {"sC_", "sA_", "sB_"};
    for (int t = 0; t < 3; t++)
        for (int k = 1; k < c->tensor[t].rank; k++)
            mangle(prefix[t], c->index[c->tensor[t].index[k]].name, e->stride[t][k]);
}

/* ---- expressions ------------------------------------------------------ */

static void put(const emitter *e, const char *s)
{
    fputs(s, e->out);
}

/* A literal of x in double (single = 0) or float (single = 1, x rounded
 * to float first) that reads back exactly: "1.0", "-0.5",
 * "0.10000000000000001", "0.1f" (the caller is in the C locale). A float
 * literal keeps -Wconversion quiet where a double one would be narrowed. */
static const char *literal(double x, int single, char *buf, size_t n)
{
    const int digits = single ? 9 : 17;
    if (single)
        x = (float)x;
    snprintf(buf, n, "%.*g", digits, x);
    for (int p = 1; p <= digits; p++) { /* the shortest exact form */
        char s[64];
        snprintf(s, sizeof s, "%.*g", p, x);
        if (single ? strtof(s, NULL) == (float)x : strtod(s, NULL) == x) {
            snprintf(buf, n, "%s", s);
            break;
        }
    }
    if (!strpbrk(buf, ".eEni"))
        snprintf(buf + strlen(buf), n - strlen(buf), ".0");
    if (single && !strpbrk(buf, "ni")) /* not inf or nan */
        snprintf(buf + strlen(buf), n - strlen(buf), "f");
    return buf;
}

/* Whether the element's reals are floats (float, float complex). */
static int single(const emitter *e)
{
    return e->ty->real_bytes == 4;
}

/* A real literal in the element's precision. */
static const char *number_of(const emitter *e, double x, char *buf, size_t n)
{
    return literal(x, single(e), buf, n);
}

/* 1 in the element's precision: "1.0", "1.0f". */
static const char *one(const emitter *e)
{
    return single(e) ? "1.0f" : "1.0";
}

/* The element type's C name: "double", "float complex". */
static const char *elem(const emitter *e)
{
    return e->ty->c_name;
}

/* The imaginary parts of alpha and beta: 0 for a real type. */
static double alpha_im(const emitter *e)
{
    return e->ty->is_complex ? e->c->alpha_im : 0.0;
}

static double beta_im(const emitter *e)
{
    return e->ty->is_complex ? e->c->beta_im : 0.0;
}

static int alpha_zero(const emitter *e)
{
    return e->c->alpha == 0.0 && alpha_im(e) == 0.0;
}

/* Whether beta is the real x (0 or 1: what the code treats apart). */
static int beta_is(const emitter *e, double x)
{
    return e->c->beta == x && beta_im(e) == 0.0;
}

/* "const T NAME = re;" or, complex with an imaginary part,
 * "const T NAME = re + im * I;" (I of complex.h: C99 has no CMPLX). */
static void put_scalar(const emitter *e, const char *name, double re, double im)
{
    char num[64];
    fprintf(e->out, "    const %s %s = %s", elem(e), name, number_of(e, re, num, sizeof num));
    if (im != 0.0)
        fprintf(e->out, " %c %s * I", im < 0 ? '-' : '+', number_of(e, im < 0 ? -im : im, num,
                                                                     sizeof num));
    fputs(";\n", e->out);
}

/*
 * Layouts. Every base the code indexes is dense and column-major in some
 * order of its indices: A, B and C in the contraction's order, a whole
 * temporary (the permuted family) in its order[], a slice temporary in its
 * two indices. Strides and offsets are written from that order.
 */
typedef struct layout {
    int rank;
    int index[TC_MAX_RANK];
} layout;

static layout layout_of(const emitter *e, int base)
{
    layout l = {0, {0}};
    if (base < TC_BASE_TEMP) {
        const tc_tensor *x = &e->c->tensor[base];
        l.rank = x->rank;
        memcpy(l.index, x->index, sizeof l.index);
        return l;
    }
    const tc_temp *tp = &e->alg->temp[base - TC_BASE_TEMP];
    if (tp->filled_by == TC_NODE_PERMUTE) {
        l.rank = tp->rank;
        memcpy(l.index, tp->order, sizeof l.index);
    } else {
        l.rank = 2;
        l.index[0] = tp->dim[0];
        l.index[1] = tp->dim[1];
    }
    return l;
}

/* "N_a * N_b": the product of the sizes of indices idx[0..n); 0 (nothing
 * written) when n is 0. */
static int put_product(const emitter *e, const int *idx, int n)
{
    for (int j = 0; j < n; j++) {
        put(e, j ? " * " : "");
        put(e, e->size[idx[j]]);
    }
    return n > 0;
}

/* The same, "1" when n is 0. */
static void put_product1(const emitter *e, const int *idx, int n)
{
    if (!put_product(e, idx, n))
        put(e, "1");
}

/* The same converted to `type` ("int" for a BLAS argument, "size_t" for
 * a byte count): "(int)N_a", "(int)(N_b * N_c)", "1". The sizes are long;
 * converting once keeps the C clean under -Wconversion and
 * -Wsign-conversion. */
static void put_product_as(const emitter *e, const char *type, const int *idx, int n)
{
    if (n == 0) {
        put(e, "1");
        return;
    }
    fprintf(e->out, n == 1 ? "(%s)" : "(%s)(", type);
    put_product(e, idx, n);
    put(e, n == 1 ? "" : ")");
}

static int position_in(const layout *l, int index)
{
    for (int k = 0; k < l->rank; k++)
        if (l->index[k] == index)
            return k;
    return -1;
}

/* The stride of position k of a base (layout l): in a view (A, B, C when
 * e->views) its stride's name, recorded as used, else the product of the
 * sizes before it. 0 (nothing written) when it is 1: a first index's. */
static int put_stride(const emitter *e, int base, const layout *l, int k)
{
    if (base >= TC_BASE_TEMP || !e->views || k == 0)
        return put_product(e, l->index, k);
    put(e, e->stride[base][k]);
    e->used[base * TC_MAX_RANK + k] = 1;
    return 1;
}

/* Offset in a base with the variables of the `use` indices (others 0):
 * "i + N_i * j + N_i * N_j * a" ("i + sA_j * j + ..." in a view); "0"
 * when empty. */
static void put_offset(const emitter *e, int base, const int *use)
{
    layout l = layout_of(e, base);
    int any = 0;
    for (int k = 0; k < l.rank; k++) {
        int i = l.index[k];
        if (!use[i])
            continue;
        put(e, any ? " + " : "");
        if (put_stride(e, base, &l, k))
            put(e, " * ");
        put(e, e->var[i]);
        any = 1;
    }
    if (!any)
        put(e, "0");
}

static const char *base_name(const emitter *e, int base)
{
    static const char *const names[] = {"C", "A", "B", "tmpC", "tmpA", "tmpB"};
    static const char *const parts[] = {"tmpC_part", "tmpA_part", "tmpB_part"};
    if (base == TC_C && e->in_part && e->alg->partial) /* this part's C (emit_split_loop) */
        return "tcgen_C";
    if (base < TC_BASE_TEMP)
        return names[base];
    int t = base - TC_BASE_TEMP, tensor = e->alg->temp[t].tensor;
    return e->in_part && tc_alg_temp_per_thread(e->alg, t) ? parts[tensor]
                                                            : names[TC_BASE_TEMP + tensor];
}

/* The offset of an operand in its base, from the loops it depends on. */
static void put_operand_offset(const emitter *e, const tc_operand *op)
{
    int use[TC_MAX_INDICES] = {0};
    for (int d = 0; d < op->ndep; d++)
        use[op->dep[d]] = 1;
    put_offset(e, op->base, use);
}

/* The address of an operand: "A", or "&B[N_j * N_b * i + ...]". */
static void put_address(const emitter *e, const tc_operand *op)
{
    if (op->ndep == 0) {
        put(e, base_name(e, op->base));
        return;
    }
    fprintf(e->out, "&%s[", base_name(e, op->base));
    put_operand_offset(e, op);
    put(e, "]");
}

/* An element (scalar operand): "C[a + N_a * b]" or "C[0]". */
static void put_element(const emitter *e, const tc_operand *op)
{
    fprintf(e->out, "%s[", base_name(e, op->base));
    put_operand_offset(e, op);
    put(e, "]");
}

/* The leading dimension or increment of an operand: the stride of its
 * (last) kept dimension, i.e. of the index that dimension starts with. */
static void put_ld(const emitter *e, const tc_operand *op)
{
    layout l = layout_of(e, op->base);
    int k = position_in(&l, tc_dim_start(&op->dim[op->rank == 2 ? 1 : 0]));
    if (op->base < TC_BASE_TEMP && e->views && k > 0) {
        put(e, "(int)");
        put_stride(e, op->base, &l, k);
        return;
    }
    put_product_as(e, "int", l.index, k > 0 ? k : 0);
}

/* A BLAS dimension as an expression: "N_b" or "N_b * N_c". */
static void put_dim(const emitter *e, const tc_dim *d)
{
    put_product_as(e, "int", d->index, d->n);
}

/* "N_a * N_b * N_c", "1" for a scalar: the element count of tensor t. */
static void put_elements(const emitter *e, int t)
{
    const tc_tensor *x = &e->c->tensor[t];
    put_product1(e, x->index, x->rank);
}

/* C's span (elements from its first to one past its last) as a size_t:
 * its elements, or in a view "(size_t)(1 + (N_a - 1) + (N_b - 1) * sC_b)". */
static void put_c_span(const emitter *e)
{
    const tc_tensor *x = &e->c->tensor[TC_C];
    if (!e->views) {
        put_product_as(e, "size_t", x->index, x->rank);
        return;
    }
    layout l = layout_of(e, TC_C);
    put(e, "(size_t)(1");
    for (int k = 0; k < l.rank; k++) {
        fprintf(e->out, " + (%s - 1)", e->size[l.index[k]]);
        if (k > 0) {
            put(e, " * ");
            put_stride(e, TC_C, &l, k);
        }
    }
    put(e, ")");
}

/* A comment's text: it cannot end the comment or open another (-Wcomment),
 * form a trigraph, or hold a line break or a byte outside printable ASCII
 * (shown as \xNN). */
static void comment_n(FILE *out, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char ch = (unsigned char)s[k];
        if (ch == '\n' || ch == '\r')
            fputc(' ', out);
        else if (ch < 0x20 || ch >= 0x7f)
            fprintf(out, "\\x%02x", ch);
        else
            fputc(ch, out);
        char next = k + 1 < n ? s[k + 1] : '\0';
        if ((ch == '*' && next == '/') || (ch == '/' && next == '*') || (ch == '?' && next == '?'))
            fputc(' ', out);
    }
}

static void comment_text(FILE *out, const char *s)
{
    comment_n(out, s, strlen(s));
}

/* "W[a,:,:,f]" in the user's names, into a comment. */
static void comment_slice(emitter *e, const tc_operand *op)
{
    size_t n = tc_alg_format_operand(&e->user, op, NULL, 0);
    char *text = malloc(n + 1);
    if (!text) {
        e->oom = 1;
        return;
    }
    tc_alg_format_operand(&e->user, op, text, n + 1);
    comment_text(e->out, text);
    free(text);
}

/* "T[a,e,i,m]" in the user's names, into a comment. */
static void comment_tensor(const emitter *e, int t)
{
    const tc_tensor *x = &e->user.tensor[t];
    comment_text(e->out, x->name);
    put(e, "[");
    for (int k = 0; k < x->rank; k++) {
        put(e, k ? "," : "");
        comment_text(e->out, e->user.index[x->index[k]].name);
    }
    put(e, "]");
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

/* ", X, ldX" for operands a[from..to]. */
static void put_args(const emitter *e, const tc_operand *a, int from, int to)
{
    for (int k = from; k <= to; k++) {
        put(e, ", ");
        put_address(e, &a[k]);
        put(e, ", ");
        put_ld(e, &a[k]);
    }
}

/* Whether index i is contracted and looped. */
static int contracted_loop(const emitter *e, int p)
{
    return e->c->index[e->alg->loop[p]].role == TC_ROLE_CONTRACTED;
}

/* "i == 0 && j == 0": the looped contracted indices all at their first
 * value (a split contracted loop's, in its part: tcgen_first); 0 (nothing
 * written) when no contracted index is looped. */
static int put_first_iteration(const emitter *e, int write)
{
    int any = 0;
    for (int p = 0; p < e->alg->nloops; p++)
        if (contracted_loop(e, p)) {
            const char *from = p == 0 && e->in_part && e->alg->partial ? "tcgen_first" : "0";
            if (write)
                fprintf(e->out, "%s%s == %s", any ? " && " : "", e->var[e->alg->loop[p]], from);
            any = 1;
        }
    return any;
}

/* The beta a kernel call applies (algorithm.h), as text into buf: where the
 * kernel owns beta, the kernel's on the first contracted iteration and 1
 * after it; else 1, C being scaled before the loops. *cond is set when it
 * depends on the iteration: then the text is the first iteration's. */
static const char *kernel_beta(const emitter *e, char *buf, size_t n, int *cond)
{
    double kb[2]; /* 0 or the contraction's beta */
    tc_alg_kernel_beta_complex(e->alg, e->c, kb);
    kb[1] = e->ty->is_complex ? kb[1] : 0.0;
    *cond = 0;
    if (!tc_alg_kernel_owns_beta(e->alg) || (kb[0] == 1.0 && kb[1] == 0.0))
        return one(e);
    *cond = put_first_iteration(e, 0);
    return kb[0] != 0.0 || kb[1] != 0.0 ? "beta" : number_of(e, kb[0], buf, n);
}

/* The beta argument of dgemv and dgemm: "beta", "0.0", "(k == 0 ? beta : 1.0)". */
static void put_kernel_beta(const emitter *e)
{
    char num[64];
    int cond;
    const char *b = kernel_beta(e, num, sizeof num, &cond);
    if (!cond) {
        put(e, b);
        return;
    }
    put(e, "(");
    put_first_iteration(e, 1);
    fprintf(e->out, " ? %s : %s)", b, one(e));
}

/* ---- the kit of the kernel table's emit rows (generator/kernel_gen.h) -- */

FILE *tc_emit_out(const tc_emitter *e)
{
    return e->out;
}

void tc_emit_put(const tc_emitter *e, const char *s)
{
    put(e, s);
}

void tc_emit_indent(const tc_emitter *e, int level)
{
    indent(e, level);
}

void tc_emit_dim(const tc_emitter *e, const tc_dim *d)
{
    put_dim(e, d);
}

void tc_emit_args(const tc_emitter *e, const tc_operand *a, int from, int to)
{
    put_args(e, a, from, to);
}

void tc_emit_address(const tc_emitter *e, const tc_operand *op)
{
    put_address(e, op);
}

void tc_emit_element(const tc_emitter *e, const tc_operand *op)
{
    put_element(e, op);
}

void tc_emit_ld(const tc_emitter *e, const tc_operand *op)
{
    put_ld(e, op);
}

void tc_emit_kernel_beta(const tc_emitter *e)
{
    put_kernel_beta(e);
}

const char *tc_emit_kernel_beta_text(const tc_emitter *e, char *buf, size_t n, int *cond)
{
    return kernel_beta(e, buf, n, cond);
}

int tc_emit_first_iteration(const tc_emitter *e, int write)
{
    return put_first_iteration(e, write);
}

const char *tc_emit_trans(int t)
{
    return tr(t);
}

const tc_type_row *tc_emit_type(const tc_emitter *e)
{
    return e->ty;
}

const char *tc_emit_one(const tc_emitter *e)
{
    return one(e);
}

/* One kernel call, by its row of the kernel table. */
static void emit_call(const emitter *e, const tc_call *k, int level)
{
    indent(e, level);
    if ((unsigned)k->kernel < TC_KERNEL_COUNT)
        tc_kernel_gen_rows[k->kernel].emit(e, k, level);
}

/* The comment above a permutation: which temporary, which tensor (or
 * block), in what order, and what the copy back does with C. */
static void comment_permutation(emitter *e, const tc_permutation *cp, const layout *lp,
                                int level)
{
    FILE *out = e->out;
    indent(e, level);
    fprintf(out, "/* %s: ", base_name(e, TC_BASE_TEMP + cp->temp));
    comment_tensor(e, cp->tensor);
    for (int d = 0; d < cp->ndep; d++) { /* a block: " at j,k" */
        put(e, d ? "," : "'s block at ");
        comment_text(out, e->user.index[cp->dep[d]].name);
    }
    put(e, " ordered ");
    for (int k = 0; k < lp->rank; k++) {
        put(e, k ? "," : "");
        comment_text(out, e->user.index[lp->index[k]].name);
    }
    fprintf(out, ", the %s's layout", tc_kernel_type_name(TC_KERNEL_DGEMM, e->c->type));
    if (cp->dir == TC_COPY_OUT)
        put(e, beta_is(e, 0.0)   ? "; C = tmpC"
               : beta_is(e, 1.0) ? "; C += tmpC"
                                 : "; C = tmpC + beta * C");
    put(e, " */\n");
}

/* Loops over the first n indices of layout l, its last outermost, from
 * `level`, each marked in use[]; returns the level of their body. */
static int put_loops(const emitter *e, const layout *l, int n, int *use, int level)
{
    for (int k = n - 1; k >= 0; k--) {
        const char *v = e->var[l->index[k]];
        use[l->index[k]] = 1;
        indent(e, level++);
        fprintf(e->out, "for (long %s = 0; %s < %s; %s++)\n", v, v, e->size[l->index[k]], v);
    }
    return level;
}

/* A complex beta (an imaginary part): C's block times beta in a loop
 * nest before tmpC is added to it, the permutation kernel taking a real
 * beta only (as the executor does, tc_rt_permutation). */
static void emit_block_scale(const emitter *e, const tc_operand *block, const layout *lt,
                             int level)
{
    int use[TC_MAX_INDICES] = {0};
    for (int d = 0; d < block->ndep; d++)
        use[block->dep[d]] = 1;
    indent(e, level);
    put(e, "/* C's block times beta first: the copy back adds with a real beta */\n");
    indent(e, put_loops(e, lt, lt->rank, use, level));
    put(e, "C[");
    put_offset(e, TC_C, use);
    put(e, "] *= beta;\n");
}

/* The beta argument of a permutation (the kernel's is a real double):
 * "0.0" for a copy in, else "0.0", "1.0" (beta 1, or a complex beta
 * already applied), "beta", "creal(beta)" (complex, imaginary part 0). */
static const char *permute_beta(const emitter *e, const tc_permutation *cp)
{
    if (cp->dir == TC_COPY_IN || beta_is(e, 0.0))
        return "0.0";
    if (beta_is(e, 1.0) || beta_im(e) != 0.0)
        return "1.0";
    if (!e->ty->is_complex)
        return "beta";
    return single(e) ? "crealf(beta)" : "creal(beta)";
}

/*
 * A permutation (the permuted family): an input permuted into its
 * temporary before the loops, or C's temporary permuted back after them
 * (or after each block's calls: the block's indices only, at the block's
 * offset in C), C = tmpC + beta * C, by a call of tcgen_permute (the
 * executor's kernel, written into the file before the function:
 * emit_kernel_text), or tcgen_permute_typed for float and complex
 * elements.
 */
static void emit_permutation(emitter *e, const tc_permutation *cp, int level)
{
    int t = cp->tensor, temp = TC_BASE_TEMP + cp->temp;
    tc_operand block, unused; /* the tensor side's address */
    tc_permutation_operands(cp, NULL, &block, &unused);
    layout all = layout_of(e, t), lt = all, lp = layout_of(e, temp);
    lt.rank = lp.rank; /* a block: the tensor's first indices */
    FILE *out = e->out;
    comment_permutation(e, cp, &lp, level);
    if (cp->dir == TC_COPY_OUT && beta_im(e) != 0.0)
        emit_block_scale(e, &block, &lt, level);
    /* per index of the tensor: its size, its stride in the tensor and in
     * the temporary */
    const layout *sides[2] = {&lt, &lp};
    static const char *const names[3] = {"tmp_extent", "tmp_tensor", "tmp_temp"};
    indent(e, level);
    put(e, "{\n");
    for (int a = 0; a < 3; a++) {
        indent(e, level + 1);
        fprintf(out, "const long %s[%d] = {", names[a], lt.rank);
        for (int k = 0; k < lt.rank; k++) {
            put(e, k ? ", " : "");
            if (a == 0) {
                put(e, e->size[lt.index[k]]);
                continue;
            }
            const layout *l = sides[a - 1];
            if (!put_stride(e, a == 1 ? t : temp, l, position_in(l, lt.index[k])))
                put(e, "1");
        }
        put(e, "};\n");
    }
    const char *b = permute_beta(e, cp);
    indent(e, level + 1);
    if (e->c->type == TC_TYPE_D) /* tcgen_permute(rank, ...) */
        fprintf(out, "tcgen_permute(%d, tmp_extent, ", lt.rank);
    else /* tcgen_permute_typed(bytes of a real, reals per element, rank, ...) */
        fprintf(out, "tcgen_permute_typed(%d, %d, %d, tmp_extent, ", e->ty->real_bytes,
                e->ty->reals, lt.rank);
    if (cp->dir == TC_COPY_IN) {
        put_address(e, &block);
        fprintf(out, ", tmp_tensor, %s, tmp_temp, %s, ", base_name(e, temp), b);
        put_product(e, lt.index, lt.rank); /* written: the block */
    } else {
        fprintf(out, "%s, tmp_temp, ", base_name(e, temp));
        put_address(e, &block);
        fprintf(out, ", tmp_tensor, %s, ", b);
        put_product(e, all.index, all.rank); /* written: all of C's blocks */
    }
    put(e, ");\n");
    indent(e, level);
    put(e, "}\n");
}

/* Large temporaries on 2 MiB boundaries and on transparent huge pages
 * where the system offers them (as numpy does for its arrays): a
 * permutation of a large tensor walks many pages, and with 4 KiB pages the
 * TLB's misses made a CCSD(T) term's emitted TTGT 1.7x slower. A block
 * malloc'd anywhere got huge pages only for its aligned middle: on a VM
 * where every page fault exits to the hypervisor a TCCG intensli term's
 * TTGT ran in 39.5 ms, 22.3 ms aligned. A partial last huge page faults
 * 4 KiB at a time: a 35 MB temporary took 5.7 ms to fault in, 2.0 ms
 * rounded up to whole huge pages. Allocated per call by default; kept
 * between calls (tcgen_kept, per thread) under TCGEN_KEEP_TEMPORARIES,
 * they are faulted in once (docs/decisions.md). */
static const char huge_pages_text[] =
    "#ifndef TCGEN_HUGE_ALLOC_DEFINED\n"
    "#define TCGEN_HUGE_ALLOC_DEFINED\n"
    "/* A tensor-sized temporary of `bytes`: malloc'd 2 MiB larger, started on a\n"
    " * 2 MiB boundary, rounded up to full 2 MiB pages and offered to\n"
    " * transparent huge pages (Linux, when the C dialect declares madvise);\n"
    " * *block gets what to free. NULL if out of memory. */\n"
    "static double *tcgen_huge_alloc(size_t bytes, void **block)\n"
    "{\n"
    "    const size_t huge = (size_t)2 << 20;\n"
    "    size_t rounded = bytes <= (size_t)-1 - 2 * huge ? (bytes + huge - 1) / huge * huge : 0;\n"
    "    char *p = rounded ? malloc(rounded + huge) : NULL;\n"
    "    *block = p;\n"
    "    if (!p)\n"
    "        return NULL;\n"
    "    p += (huge - (size_t)((uintptr_t)p % huge)) % huge;\n"
    "#if defined(__linux__) && defined(MADV_HUGEPAGE)\n"
    "    if (bytes >= 2 * huge)\n"
    "        madvise(p, rounded, MADV_HUGEPAGE);\n"
    "#endif\n"
    "    return (double *)(void *)p;\n"
    "}\n"
    "\n"
    "/* Tensor-sized temporaries: each call allocates and frees its own, so\n"
    " * nothing stays behind. With TCGEN_KEEP_TEMPORARIES defined (tcgen\n"
    " * --keep-temporaries writes it) they are kept between calls, one set per\n"
    " * thread, where the compiler has thread-local storage: faulting them in\n"
    " * anew on every call can cost as much as the permutation that fills\n"
    " * them. */\n"
    "#if !defined(TCGEN_KEEP_TEMPORARIES)\n"
    "#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
    "#define TCGEN_THREAD_LOCAL _Thread_local\n"
    "#elif defined(__GNUC__)\n"
    "#define TCGEN_THREAD_LOCAL __thread\n"
    "#endif\n"
    "typedef struct tcgen_kept {\n"
    "    void *block;\n"
    "    double *data;\n"
    "    size_t bytes;\n"
    "} tcgen_kept;\n"
    "\n"
    "/* k's temporary, of at least `bytes`: the one kept if large enough. */\n"
    "static double *tcgen_kept_get(tcgen_kept *k, size_t bytes)\n"
    "{\n"
    "    if (k->data && k->bytes >= bytes)\n"
    "        return k->data;\n"
    "    free(k->block);\n"
    "    k->data = tcgen_huge_alloc(bytes, &k->block);\n"
    "    k->bytes = k->data ? bytes : 0;\n"
    "    return k->data;\n"
    "}\n"
    "\n"
    "static void tcgen_kept_free(tcgen_kept *k, int n)\n"
    "{\n"
    "    for (int t = 0; t < n; t++) {\n"
    "        free(k[t].block);\n"
    "        k[t].block = NULL;\n"
    "        k[t].data = NULL;\n"
    "        k[t].bytes = 0;\n"
    "    }\n"
    "}\n"
    "#endif\n";

/* The permutation kernel's text (runtime/permute_kernel.inc) and the huge
 * page request, once per file that permutes a tensor: their include guards
 * keep a second copy out when several functions share the file. */
/* For a split loop compiled with OpenMP: OpenBLAS set to one thread for
 * the parts' calls and restored, through weak references (nothing set
 * with another CBLAS, without GNU C, or without OpenMP, where one thread
 * runs the parts and BLAS keeps its count); once per file. */
static const char blas_one_text[] =
    "\n#if !defined(TCGEN_BLAS_ONE_DEFINED)\n#define TCGEN_BLAS_ONE_DEFINED\n"
    "#if defined(_OPENMP)\n#include <omp.h>\n#endif\n"
    "/* A split loop's threads call BLAS on one thread each: OpenBLAS (found\n"
    " * through weak references) is set so for the call, then restored.\n"
    " * Without OpenMP one thread runs the parts and BLAS keeps its count. */\n"
    "#if defined(__GNUC__) && defined(_OPENMP)\n"
    "extern void openblas_set_num_threads(int) __attribute__((weak));\n"
    "extern int openblas_get_num_threads(void) __attribute__((weak));\n"
    "#endif\n"
    "static int tcgen_blas_one(void)\n{\n"
    "    int n = 0;\n"
    "#if defined(__GNUC__) && defined(_OPENMP)\n"
    "    if (openblas_get_num_threads && openblas_set_num_threads) {\n"
    "        n = openblas_get_num_threads();\n"
    "        if (n > 1)\n"
    "            openblas_set_num_threads(1);\n"
    "    }\n"
    "#endif\n"
    "    return n;\n}\n\n"
    "static void tcgen_blas_restore(int n)\n{\n"
    "#if defined(__GNUC__) && defined(_OPENMP)\n"
    "    if (n > 1 && openblas_set_num_threads)\n"
    "        openblas_set_num_threads(n);\n"
    "#else\n"
    "    (void)n;\n"
    "#endif\n"
    "}\n#endif\n";

static void emit_kernel_text(const emitter *e)
{
    if (!e->nkept)
        return;
    if (e->opt->keep_temporaries)
        fputs("\n#ifndef TCGEN_KEEP_TEMPORARIES\n#define TCGEN_KEEP_TEMPORARIES\n#endif\n", e->out);
    if (e->c->type != TC_TYPE_D) /* the kernel's tcgen_permute_typed too */
        fputs("\n#if defined(TCGEN_PERMUTE_DEFINED) && !defined(TCGEN_PERMUTE_TYPED)\n"
              "#error \"put the functions of float and complex types before those of double\"\n"
              "#endif\n#ifndef TCGEN_PERMUTE_TYPED\n#define TCGEN_PERMUTE_TYPED\n#endif\n",
              e->out);
    fputs("\n", e->out);
    for (int k = 0; tc_permute_kernel_text[k]; k++) {
        fputs(tc_permute_kernel_text[k], e->out);
        fputs("\n", e->out);
    }
    fputs(huge_pages_text, e->out);
}

static void emit_copy(emitter *e, const tc_copy *cp, int level)
{
    const tc_contraction *c = e->c;
    const tc_operand *s = &cp->slice;
    const char *tmp = base_name(e, TC_BASE_TEMP + cp->temp);
    const char *tensor = s->tensor == TC_A ? "A" : s->tensor == TC_B ? "B" : "C";
    FILE *out = e->out;
    int use[TC_MAX_INDICES] = {0};
    for (int i = 0; i < c->nindex; i++)
        use[i] = 1;
    const tc_temp *tp = &e->alg->temp[cp->temp]; /* its two indices, column-major */
    const char *v0 = e->var[tp->dim[0]], *v1 = e->var[tp->dim[1]];
    const char *n0 = e->size[tp->dim[0]], *n1 = e->size[tp->dim[1]];
    indent(e, level);
    if (cp->dir == TC_COPY_IN) {
        put(e, "/* copy ");
        comment_slice(e, s);
        fprintf(out, " into %s (", tmp);
        comment_text(out, c->index[tp->dim[0]].name);
        put(e, " x ");
        comment_text(out, c->index[tp->dim[1]].name);
        put(e, "): the slice has no stride-1 dimension */\n");
    } else {
        fprintf(out, "/* copy %s back into ", tmp);
        comment_slice(e, s);
        put(e, " */\n");
    }
    indent(e, level);
    fprintf(out, "for (long %s = 0; %s < %s; %s++)\n", v1, v1, n1, v1);
    indent(e, level + 1);
    fprintf(out, "for (long %s = 0; %s < %s; %s++)\n", v0, v0, n0, v0);
    indent(e, level + 2);
    if (cp->dir == TC_COPY_IN)
        fprintf(out, "%s[%s + %s * %s] = %s[", tmp, v0, n0, v1, tensor);
    else
        fprintf(out, "%s[", tensor);
    put_offset(e, s->tensor, use);
    if (cp->dir == TC_COPY_IN)
        put(e, "];\n");
    else
        fprintf(out, "] = %s[%s + %s * %s];\n", tmp, v0, n0, v1);
}

static void emit_list(emitter *e, const tc_node *n, int level);

/*
 * After a contracted split loop: the partial C of parts 1.. added into C
 * (over its elements, or a view's in a loop nest), on OpenMP's threads.
 */
static void emit_partial_sum(const emitter *e, int level)
{
    FILE *out = e->out;
    indent(e, level);
    fputs("/* the other parts' partial C added into C */\n", out);
    indent(e, level);
    fprintf(out, "for (long tcgen_part = 1; tcgen_part < %s; tcgen_part++) {\n", e->parts);
    indent(e, level + 1);
    fprintf(out, "const %s *tcgen_C = tcgen_partial + (size_t)(tcgen_part - 1) * ", elem(e));
    put_c_span(e);
    fprintf(out, ";\n#if defined(_OPENMP)\n#pragma omp parallel for num_threads(%s)\n#endif\n",
            e->parts);
    layout l = layout_of(e, TC_C);
    int use[TC_MAX_INDICES] = {0};
    if (e->views && l.rank > 0) {
        indent(e, put_loops(e, &l, l.rank, use, level + 1));
        put(e, "C[");
        put_offset(e, TC_C, use);
        put(e, "] += tcgen_C[");
        put_offset(e, TC_C, use);
        put(e, "];\n");
    } else {
        indent(e, level + 1);
        fputs("for (long pos = 0; pos < ", out);
        put_elements(e, TC_C);
        fputs("; pos++)\n", out);
        indent(e, level + 2);
        fputs("C[pos] += tcgen_C[pos];\n", out);
    }
    indent(e, level);
    fputs("}\n", out);
}

/*
 * The split loop (tc_algorithm.split): P parts of its values, the
 * executor's, one per OpenMP thread, each with its part of the per-thread
 * temporaries (shadowing the whole), BLAS on one thread meanwhile. A
 * contracted loop's part 0 accumulates into C, each other into its own
 * partial C (zeroed: the kernel's beta leaves it 0), added after.
 */
static void emit_split_loop(emitter *e, const tc_node *n, int level)
{
    const tc_algorithm *alg = e->alg;
    FILE *out = e->out;
    const char *v = e->var[n->index], *size = e->size[n->index];
    const char *p = e->parts;
    indent(e, level);
    fprintf(out, "/* the loop over ");
    comment_text(out, e->user.index[n->index].name);
    fprintf(out, " in %s parts, one per thread (one after the other without\n", p);
    indent(e, level);
    fputs(" * OpenMP), each with its own temporaries filled inside it */\n", out);
    indent(e, level);
    fputs("int tcgen_blas = tcgen_blas_one();\n#if defined(_OPENMP)\n", out);
    fprintf(out, "#pragma omp parallel for num_threads(%s) schedule(static, 1)\n#endif\n", p);
    indent(e, level);
    fprintf(out, "for (long tcgen_part = 0; tcgen_part < %s; tcgen_part++) {\n", p);
    for (int t = 0; t < alg->ntemps; t++) {
        if (!tc_alg_temp_per_thread(alg, t))
            continue;
        layout l = layout_of(e, TC_BASE_TEMP + t);
        indent(e, level + 1);
        const char *name = base_name(e, TC_BASE_TEMP + t);
        fprintf(out, "%s *%s_part = %s + (size_t)tcgen_part * ", elem(e), name, name);
        put_product_as(e, "size_t", l.index, l.rank);
        put(e, ";\n");
    }
    char num[64];
    int first = 0;
    if (alg->partial) {
        indent(e, level + 1);
        fprintf(out, "%s *tcgen_C = tcgen_part == 0 ? C : ", elem(e));
        put(e, "tcgen_partial + (size_t)(tcgen_part - 1) * ");
        put_c_span(e);
        put(e, ";\n");
        kernel_beta(e, num, sizeof num, &first); /* does a call ask for the first iteration? */
    }
    if (first) {
        indent(e, level + 1);
        fprintf(out, "const long tcgen_first = %s * tcgen_part / %s;\n", size, p);
    }
    indent(e, level + 1);
    fprintf(out, "for (long %s = %s * tcgen_part / %s; %s < %s * (tcgen_part + 1) / %s; %s++) {\n",
            v, size, p, v, size, p, v);
    e->in_part = 1;
    emit_list(e, n->child, level + 2);
    e->in_part = 0;
    indent(e, level + 1);
    fputs("}\n", out);
    indent(e, level);
    fputs("}\n", out);
    indent(e, level);
    fputs("tcgen_blas_restore(tcgen_blas);\n", out);
    if (alg->partial)
        emit_partial_sum(e, level);
}

static void emit_list(emitter *e, const tc_node *n, int level)
{
    for (; n; n = n->next) {
        switch (n->kind) {
        case TC_NODE_LOOP: {
            if (e->alg->split > 1 && n == e->alg->loop_node[0]) {
                emit_split_loop(e, n, level);
                break;
            }
            const char *v = e->var[n->index];
            indent(e, level);
            fprintf(e->out, "for (long %s = 0; %s < %s; %s++) {\n", v, v, e->size[n->index], v);
            emit_list(e, n->child, level + 1);
            indent(e, level);
            fprintf(e->out, "}\n");
            break;
        }
        case TC_NODE_COPY:
            emit_copy(e, n->copy, level);
            break;
        case TC_NODE_PERMUTE:
            emit_permutation(e, n->perm, level);
            break;
        case TC_NODE_KERNEL:
            emit_call(e, n->call, level);
            break;
        }
    }
}

/* The normal form (sizes = 0) or the sizes of the user's contraction, into
 * a comment. */
static void comment_contraction(emitter *e, int sizes)
{
    size_t n = sizes ? tc_contraction_format_sizes(&e->user, NULL, 0) :
                       tc_contraction_format(&e->user, NULL, 0);
    char *text = malloc(n + 1);
    if (!text) {
        e->oom = 1;
        return;
    }
    if (sizes)
        tc_contraction_format_sizes(&e->user, text, n + 1);
    else
        tc_contraction_format(&e->user, text, n + 1);
    comment_text(e->out, text);
    free(text);
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
            fprintf(out, " *   %*s", first ? 0 : VALUE, "");
            comment_n(out, text, take);
            fputs("\n", out);
            text += take + skip;
            len -= take + skip;
            first = 0;
        }
        text = next;
    }
}

static void emit_header(emitter *e)
{
    const tc_emit_options *opt = e->opt;
    FILE *out = e->out;
    fprintf(out, "/*\n * Generated by tcgen %s.\n *\n", TC_VERSION);
    fputs(" *   contraction  ", out);
    comment_contraction(e, 0);
    fputs(opt->generic ? "\n *   sizes        parameters of the function (ranked for " :
                         "\n *   sizes        ", out);
    comment_contraction(e, 1);
    fputs(opt->generic ? ")" : "", out);
    fputs("\n *   algorithm    ", out);
    comment_text(out, e->alg->name);
    if (e->c->type != TC_TYPE_D)
        fprintf(out, "\n *   elements     %s", elem(e));
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
          e->views ?
          " * Tensors are column-major views (a tensor's first index has stride 1, the\n"
          " * others' strides are given below).\n" :
          " * Tensors are dense, column-major (Fortran order: a tensor's first index\n"
          " * has stride 1).\n", out);
    fputs(" * Compile with a CBLAS library, e.g. cc -O2 -c file.c; link -lopenblas.\n", out);
    int permutes = 0;
    for (int t = 0; t < e->alg->ntemps; t++)
        permutes |= e->alg->temp[t].filled_by == TC_NODE_PERMUTE;
    if (permutes)
        fputs(" * With -fopenmp its permutation copies are split over OpenMP's threads\n"
              " * (OMP_NUM_THREADS); without it they run on one, and it is as correct.\n",
              out);
    if (e->alg->split > 1)
        fprintf(out, " * Compile with -fopenmp: its outer loop runs on %d OpenMP threads, each\n"
                     " * calling BLAS on one thread (OpenBLAS's count is set to 1 for them and\n"
                     " * restored); without -fopenmp one thread runs it, as correct but slower.\n",
                e->alg->split);
    fputs(" */\n", out);
    tc_emit_includes(out);
    if (e->ty->is_complex)
        fputs("#include <complex.h>\n", out);
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
          "#include <stdlib.h>\n"
          "#if defined(__linux__)\n"
          "#include <sys/mman.h> /* madvise, where the C dialect declares it */\n"
          "#endif\n",
          out);
}

static const char *temp_name(const emitter *e, int t)
{
    return base_name(e, TC_BASE_TEMP + t);
}

/* "const double *A, const double *B, double *C)" and the opening brace;
 * with strides as parameters each tensor's after it, on lines of their
 * own from column col. */
static void put_tensor_params(const emitter *e, int col)
{
    static const char *const form[3] = {"%s *C", "const %s *A", "const %s *B"};
    static const int order[3] = {TC_A, TC_B, TC_C};
    for (int n = 0; n < 3; n++) {
        int t = order[n];
        fprintf(e->out, form[t], elem(e));
        if (e->opt->strides)
            fprintf(e->out, ", const long *%s", stride_param[t]);
        fputs(n == 2 ? ")\n{\n" : ",", e->out);
        if (n < 2 && e->opt->strides)
            fprintf(e->out, "\n%*s", col, "");
        else if (n < 2)
            fputs(" ", e->out);
    }
}

/* What the function's comment says of views. */
static void comment_views(const emitter *e)
{
    FILE *out = e->out;
    if (e->opt->strides) {
        fputs(" * Each tensor X is a view: stride_X[k] is the stride (in elements) of its\n"
              " * k-th index, the first 1 and each other at least the one before times its\n"
              " * size; -3 is returned when they are not, or when indices that the\n"
              " * algorithm takes as one BLAS dimension are not contiguous.\n", out);
        return;
    }
    if (!e->views)
        return;
    fputs(" * Each tensor is a view with strides (in elements, per index):", out);
    for (int t = 0; t < 3; t++) {
        const tc_tensor *x = &e->user.tensor[t];
        fputs(t ? ";" : "", out);
        fputs(" ", out);
        comment_text(out, x->name);
        for (int k = 0; k < x->rank; k++)
            fprintf(out, "%s%lld", k ? "," : " ", (long long)x->stride[k]);
    }
    fputs(".\n", out);
}

/* The comment above the function, and its signature. */
static void emit_prototype(emitter *e, const char *fname)
{
    const tc_contraction *u = &e->user;
    FILE *out = e->out;
    fputs("\n/*\n * ", out);
    comment_contraction(e, 0);
    fputs("\n * by algorithm ", out);
    comment_text(out, e->alg->name);
    fprintf(out, ", with %s called in a loop nest.\n",
            tc_kernel_type_name(e->alg->kernel, e->c->type));
    if (strcmp(u->tensor[TC_A].name, "A") || strcmp(u->tensor[TC_B].name, "B") ||
        strcmp(u->tensor[TC_C].name, "C")) {
        fputs(" * A holds ", out);
        comment_tensor(e, TC_A);
        fputs(", B holds ", out);
        comment_tensor(e, TC_B);
        fputs(", C holds ", out);
        comment_tensor(e, TC_C);
        fputs(".\n", out);
    }
    if (alpha_im(e) != 0.0 || beta_im(e) != 0.0) { /* the form above shows real parts */
        char n[4][64];
        fprintf(out, " * Complex alpha = %s%s%si, beta = %s%s%si.\n",
                literal(u->alpha, 0, n[0], 64), alpha_im(e) < 0 ? "" : "+",
                literal(alpha_im(e), 0, n[1], 64), literal(u->beta, 0, n[2], 64),
                beta_im(e) < 0 ? "" : "+", literal(beta_im(e), 0, n[3], 64));
    }
    fputs(e->opt->row_major ? " * Row-major (C order) tensors.\n" : "", out);
    fputs(alpha_zero(e) ? " * With alpha = 0 it only scales C by beta, as BLAS does.\n" : "", out);
    if (e->nkept)
        fprintf(out, " * Its tensor-sized temporaries are %s\n"
                     " * (TCGEN_KEEP_TEMPORARIES: kept between calls, one set per thread;\n"
                     " * %s_release() frees the calling thread's).\n",
                e->opt->keep_temporaries ? "kept between calls" : "allocated per call",
                fname);
    if (e->opt->generic) {
        fputs(" * Valid for any sizes. Returns 0, -1 when a temporary cannot be\n"
              " * allocated, or -2 when a size makes a BLAS argument exceed INT_MAX.\n",
              out);
        if (e->alg->split > 1)
            fprintf(out, " * Its outer loop is split over OpenMP's threads (omp_get_max_threads();\n"
                         " * ranked for %d), one thread without OpenMP.\n", e->alg->split);
        comment_views(e);
        fputs(" */\n", out);
        int col = fprintf(out, "int %s(", fname);
        for (int i = 0; i < u->nindex; i++)
            fprintf(out, "size_t %s,%s", e->param[i], i + 1 < u->nindex ? " " : "");
        fprintf(out, "\n%*s", col, "");
        put_tensor_params(e, col);
    } else {
        fputs(" * Returns 0, or -1 when a temporary cannot be allocated.\n", out);
        comment_views(e);
        fputs(" */\n", out);
        put_tensor_params(e, fprintf(out, "int %s(", fname));
    }
}

/* A BLAS int argument of generic code: the product of the size parameters
 * of n indices (in double when n > 1, which cannot overflow); or (tensor
 * >= 0) a view's stride parameter, at position index[0]. */
typedef struct int_arg {
    int n;
    int index[TC_MAX_RANK];
    int tensor;
} int_arg;

/* At most every index alone and every proper prefix of a tensor's indices. */
#define MAX_INT_ARGS (TC_MAX_INDICES + 3 * TC_MAX_RANK)

/* Adds the product of the n indices idx (tensor -1), or tensor's stride at
 * position idx[0], to list (of *count) unless there. */
static void add_unique(int_arg *list, int *count, const int *idx, int n, int tensor)
{
    for (int k = 0; k < *count; k++)
        if (list[k].n == n && list[k].tensor == tensor &&
            memcmp(list[k].index, idx, (size_t)n * sizeof *idx) == 0)
            return;
    if (*count < MAX_INT_ARGS) { /* always: see MAX_INT_ARGS */
        list[*count].n = n;
        list[*count].tensor = tensor;
        memcpy(list[*count].index, idx, (size_t)n * sizeof *idx);
        ++*count;
    }
}

/* Every BLAS int argument that is a parameter: dimensions and a dense
 * tensor's leading dimensions and increments (generic code), a view's
 * (strides as parameters). */
static void collect_int_args(const emitter *e, const tc_node *n, int_arg *list, int *count)
{
    for (; n; n = n->next) {
        if (n->kind == TC_NODE_LOOP)
            collect_int_args(e, n->child, list, count);
        if (n->kind != TC_NODE_KERNEL)
            continue;
        const tc_call *k = n->call;
        const tc_dim *dims[3] = {&k->dim_m, &k->dim_n, &k->dim_k};
        int generic = e->opt->generic;
        for (int d = 0; generic && d < 3; d++)
            if (dims[d]->n > 0)
                add_unique(list, count, dims[d]->index, dims[d]->n, -1);
        for (int a = 0; a < 3; a++) {
            const tc_operand *op = &k->arg[a];
            if (op->rank == 0)
                continue;
            layout l = layout_of(e, op->base);
            int j = position_in(&l, tc_dim_start(&op->dim[op->rank == 2 ? 1 : 0]));
            if (j > 0 && op->base < TC_BASE_TEMP && e->opt->strides)
                add_unique(list, count, &j, 1, op->base);
            else if (j > 0 && generic)
                add_unique(list, count, l.index, j, -1);
        }
    }
}

/* The scaling of C by beta (nothing for beta = 1): over its elements, or
 * a view's in a loop nest. */
static void emit_beta(const emitter *e, int level)
{
    FILE *out = e->out;
    const tc_tensor *x = &e->c->tensor[TC_C];
    char zero[64], op[80];
    if (beta_is(e, 1.0))
        return;
    if (beta_is(e, 0.0))
        snprintf(op, sizeof op, " = %s;\n", number_of(e, 0.0, zero, sizeof zero));
    else
        snprintf(op, sizeof op, " *= beta;\n");
    indent(e, level);
    fputs(beta_is(e, 0.0) ? "/* C = 0 before accumulating (beta = 0) */\n"
                          : "/* C = beta * C before accumulating */\n", out);
    if (x->rank == 0) {
        indent(e, level);
        fprintf(out, "C[0]%s", op);
    } else if (e->views) {
        layout l = layout_of(e, TC_C);
        int use[TC_MAX_INDICES] = {0};
        indent(e, put_loops(e, &l, l.rank, use, level));
        put(e, "C[");
        put_offset(e, TC_C, use);
        fprintf(out, "]%s", op);
    } else {
        indent(e, level);
        fputs("for (long pos = 0; pos < ", out);
        put_elements(e, TC_C);
        fputs("; pos++)\n", out);
        indent(e, level + 1);
        fprintf(out, "C[pos]%s", op);
    }
}

/* "const long N_a = ..., N_b = ...;" for the indices in mask[] (all: NULL). */
static void emit_sizes(const emitter *e, const int *mask)
{
    const tc_contraction *c = e->c;
    int any = 0;
    for (int i = 0; i < c->nindex; i++) {
        if (mask && !mask[i])
            continue;
        fputs(any++ ? ", " : "    const long ", e->out);
        if (e->opt->generic)
            fprintf(e->out, "%s = (long)%s", e->size[i], e->param[i]);
        else
            fprintf(e->out, "%s = %lld", e->size[i], (long long)c->index[i].size);
    }
    fputs(any ? ";\n" : "", e->out);
}

/* Returns -2 when a BLAS int argument that is a parameter (a size, a
 * product of sizes, a view's stride) exceeds INT_MAX. */
static void emit_int_checks(const emitter *e)
{
    FILE *out = e->out;
    int_arg list[MAX_INT_ARGS];
    int count = 0;
    collect_int_args(e, e->alg->body, list, &count);
    if (!count)
        return;
    fputs("\n    /* BLAS takes int dimensions and strides */\n    if (", out);
    for (int k = 0; k < count; k++) {
        fputs(k == 0 ? "" : k % 3 ? " || " : " ||\n        ", out);
        if (list[k].tensor >= 0) {
            layout l = layout_of(e, list[k].tensor);
            put_stride(e, list[k].tensor, &l, list[k].index[0]);
        }
        for (int j = 0; list[k].tensor < 0 && j < list[k].n; j++) /* in double: no overflow */
            fprintf(out, "%s%s%s", j ? " * " : "", list[k].n > 1 ? "(double)" : "",
                    e->param[list[k].index[j]]);
        fputs(" > INT_MAX", out);
    }
    fputs(")\n        return -2;\n", out);
}

/* Strides as parameters: returns -3 unless each of the first `tensors`
 * of C, A, B is a view tcgen takes, its first stride 1 and each other at
 * least the one before times its size (in double: no overflow), so no
 * two elements share a place. A scalar's strides are not read. */
static void emit_view_checks(const emitter *e, int tensors)
{
    FILE *out = e->out;
    int n = 0;
    for (int t = 0; t < tensors; t++) {
        const tc_tensor *x = &e->c->tensor[t];
        layout l = layout_of(e, t);
        for (int k = 0; k < x->rank; k++) {
            fputs(n == 0 ? "\n    /* views: the first stride 1, each other at least the one "
                           "before\n     * times its size */\n    if ("
                  : n % 3 ? " || " : " ||\n        ", out);
            n++;
            if (k == 0) {
                fprintf(out, "%s[0] != 1", stride_param[t]);
                continue;
            }
            fputs(k > 1 ? "(double)" : "", out);
            put_stride(e, t, &l, k);
            fputs(" < ", out);
            if (k > 1) {
                fputs("(double)", out);
                put_stride(e, t, &l, k - 1);
                fputs(" * (double)", out);
            }
            put(e, e->size[x->index[k - 1]]);
        }
    }
    fputs(n ? ")\n        return -3;\n" : "", out);
}

/* Marks fused[t][k] where positions k - 1 and k of tensor t are one BLAS
 * dimension of some call (they must then be contiguous). */
static void collect_fused(const emitter *e, const tc_node *n, int fused[3][TC_MAX_RANK])
{
    for (; n; n = n->next) {
        if (n->kind == TC_NODE_LOOP)
            collect_fused(e, n->child, fused);
        if (n->kind != TC_NODE_KERNEL)
            continue;
        for (int a = 0; a < 3; a++) {
            const tc_operand *op = &n->call->arg[a];
            if (op->base >= TC_BASE_TEMP)
                continue;
            layout l = layout_of(e, op->base);
            for (int d = 0; d < op->rank; d++)
                for (int j = 1; j < op->dim[d].n; j++) {
                    int k = position_in(&l, op->dim[d].index[j]);
                    if (k > 0)
                        fused[op->base][k] = 1;
                }
        }
    }
}

/* Strides as parameters: returns -3 where indices the algorithm fuses
 * into one BLAS dimension are not contiguous in the view. */
static void emit_fused_checks(const emitter *e)
{
    int fused[3][TC_MAX_RANK] = {{0}}, n = 0;
    collect_fused(e, e->alg->body, fused);
    for (int t = 0; t < 3; t++) {
        layout l = layout_of(e, t);
        for (int k = 1; k < l.rank; k++) {
            if (!fused[t][k])
                continue;
            fputs(n == 0 ? "\n    /* indices taken as one BLAS dimension: contiguous */\n    if ("
                  : n % 3 ? " || " : " ||\n        ", e->out);
            n++;
            put_stride(e, t, &l, k);
            fputs(" != ", e->out);
            if (put_stride(e, t, &l, k - 1))
                put(e, " * ");
            put(e, e->size[l.index[k - 1]]);
        }
    }
    fputs(n ? ")\n        return -3;\n" : "", e->out);
}

/* Alpha and beta, the thread count, and the checks of what is a
 * parameter: -2 (int arguments), -3 (views), an empty index (C = beta * C
 * and return). */
static void emit_constants(const emitter *e)
{
    const tc_contraction *c = e->c;
    FILE *out = e->out;
    put_scalar(e, "alpha", c->alpha, alpha_im(e));
    if (e->opt->generic && e->alg->split > 1)
        fputs("#if defined(_OPENMP)\n    const int tcgen_parts = omp_get_max_threads();\n"
              "#else\n    const int tcgen_parts = 1;\n#endif\n", out);
    if (!beta_is(e, 0.0) && !beta_is(e, 1.0))
        put_scalar(e, "beta", c->beta, beta_im(e));
    if (e->opt->generic || e->opt->strides)
        emit_int_checks(e);
    if (e->opt->strides)
        emit_view_checks(e, 3);
    if (e->opt->generic) {
        /* An empty index leaves C = beta * C (and BLAS refuses leading
         * dimensions of 0), so it returns before any call. */
        fputs("\n    if (", out);
        for (int i = 0; i < c->nindex; i++)
            fprintf(out, "%s%s == 0", i == 0 ? "" : i % 4 ? " || " : " ||\n        ", e->size[i]);
        fputs(") {\n", out);
        emit_beta(e, 2);
        fputs("        return 0;\n    }\n", out);
    }
    if (e->opt->strides)
        emit_fused_checks(e);
}

/* The views' strides the code uses (e->used): "const long sA_b =
 * stride_A[1], ...;" as parameters, else the contraction's. */
static void declare_strides(const emitter *e)
{
    for (int t = 0; t < 3; t++) {
        const tc_tensor *x = &e->c->tensor[t];
        int any = 0;
        for (int k = 1; k < x->rank; k++) {
            if (!e->used[t * TC_MAX_RANK + k])
                continue;
            fprintf(e->out, "%s%s = ", any++ ? ", " : "    const long ", e->stride[t][k]);
            if (e->opt->strides)
                fprintf(e->out, "%s[%d]", stride_param[t], k);
            else
                fprintf(e->out, "%lld", (long long)x->stride[k]);
        }
        fputs(any ? ";\n" : "", e->out);
    }
}

/* body(e), after the declarations of the strides it uses (only those:
 * -Wunused-variable); it is written to memory first to learn which. */
static void emit_with_strides(emitter *e, void (*body)(emitter *))
{
    if (!e->views) {
        body(e);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *real = e->out, *mem = open_memstream(&text, &len);
    if (!mem) {
        e->oom = 1;
        return;
    }
    e->out = mem;
    body(e);
    e->oom |= fclose(mem) != 0;
    e->out = real;
    declare_strides(e);
    if (text)
        fwrite(text, 1, len, real);
    free(text);
}

/* alpha = 0 and beta other than 1: C = beta * C, C's view checked first. */
static void emit_zero_alpha_scaling(emitter *e)
{
    if (!beta_is(e, 0.0))
        put_scalar(e, "beta", e->c->beta, beta_im(e));
    if (e->opt->strides)
        emit_view_checks(e, 1); /* C alone: TC_C is first */
    emit_beta(e, 1);
}

/*
 * The body for alpha = 0: C = beta * C alone, as BLAS defines it, so A and
 * B are not read and an Inf or NaN in them cannot become a NaN in C that
 * one algorithm makes and another does not. Declares only what it uses
 * (C's sizes and strides; beta other than 0 and 1), so the file stays
 * warning-free; of the views only C's is checked.
 */
static void emit_zero_alpha(emitter *e)
{
    const tc_contraction *c = e->c;
    const tc_tensor *x = &c->tensor[TC_C];
    FILE *out = e->out;
    int scale = !beta_is(e, 1.0), in_c[TC_MAX_INDICES] = {0};
    fputs("    /* alpha = 0: C = beta * C alone, as in BLAS; A and B are not read\n"
          "     * (0 * Inf would be NaN) */\n    (void)A;\n    (void)B;\n", out);
    if (e->opt->strides)
        fputs("    (void)stride_A;\n    (void)stride_B;\n", out);
    if (e->opt->strides && !(scale && x->rank)) /* else read where C is scaled */
        fputs("    (void)stride_C;\n", out);
    for (int i = 0; e->opt->generic && i < c->nindex; i++)
        if (!scale || !tc_tensor_has_index(x, i))
            fprintf(out, "    (void)%s;\n", e->param[i]);
    if (!scale) {
        fputs("    (void)C; /* beta = 1: C stays as it is */\n", out);
        return;
    }
    for (int k = 0; k < x->rank; k++)
        in_c[x->index[k]] = 1;
    emit_sizes(e, in_c);
    emit_with_strides(e, emit_zero_alpha_scaling);
}

/* Frees the temporaries a call does not keep: the slices, and the
 * tensor-sized ones where there is no thread-local storage. */
static void emit_free(const emitter *e, const char *indent)
{
    for (int t = 0; t < e->alg->ntemps; t++)
        if (e->alg->temp[t].filled_by != TC_NODE_PERMUTE)
            fprintf(e->out, "%sfree(%s);\n", indent, temp_name(e, t));
    if (e->alg->partial)
        fprintf(e->out, "%sfree(tcgen_partial);\n", indent);
    if (e->nkept)
        fprintf(e->out, "#ifndef TCGEN_THREAD_LOCAL\n%stcgen_kept_free(%s_kept, %d);\n#endif\n",
                indent, e->fname, e->nkept);
}

/* The tensor-sized temporaries' slots, at file scope where each thread
 * keeps its own (before the function), else in the call (in it). */
static void emit_kept_slots(const emitter *e, int in_function)
{
    if (!e->nkept)
        return;
    if (in_function)
        fprintf(e->out, "#ifndef TCGEN_THREAD_LOCAL\n    tcgen_kept %s_kept[%d] = {{NULL, NULL, 0}};\n"
                        "#endif\n", e->fname, e->nkept);
    else
        fprintf(e->out, "\n#ifdef TCGEN_THREAD_LOCAL\nstatic TCGEN_THREAD_LOCAL tcgen_kept %s_kept[%d];\n"
                        "#endif\n", e->fname, e->nkept);
}

static void emit_temporaries(const emitter *e)
{
    const tc_algorithm *alg = e->alg;
    FILE *out = e->out;
    emit_kept_slots(e, 1);
    for (int t = 0, kept = 0; t < alg->ntemps; t++) {
        layout l = layout_of(e, TC_BASE_TEMP + t);
        fprintf(out, "    %s *%s = ", elem(e), temp_name(e, t));
        if (alg->temp[t].filled_by == TC_NODE_PERMUTE) /* tensor-sized; a slice is small */
            fprintf(out, "%stcgen_kept_get(&%s_kept[%d], sizeof(%s) * ",
                    e->c->type == TC_TYPE_D ? "" : "(void *)", e->fname, kept++,
                    elem(e));
        else
            fprintf(out, "malloc(sizeof(%s) * ", elem(e));
        if (tc_alg_temp_per_thread(alg, t)) /* one per thread of the split loop */
            fprintf(out, "(size_t)%s * ", e->parts);
        put_product_as(e, "size_t", l.index, l.rank);
        put(e, ");\n");
    }
    if (alg->partial) { /* parts 1..'s partial C, zeroed (+ 1: never calloc(0)) */
        fprintf(out, "    %s *tcgen_partial = calloc((size_t)(%s - 1) * ", elem(e), e->parts);
        put_c_span(e);
        fprintf(out, " + 1, sizeof(%s));\n", elem(e));
    }
    const char *name[TC_MAX_TEMPS + 1];
    int n = 0;
    for (int t = 0; t < alg->ntemps; t++)
        name[n++] = temp_name(e, t);
    if (alg->partial)
        name[n++] = "tcgen_partial";
    if (n == 1 && !e->nkept) {
        fprintf(out, "    if (!%s)\n        return -1;\n", name[0]);
    } else if (n) {
        fputs("    if (", out);
        for (int k = 0; k < n; k++)
            fprintf(out, "%s!%s", k ? " || " : "", name[k]);
        fputs(") {\n", out);
        emit_free(e, "        ");
        fputs("        return -1;\n    }\n", out);
    }
}

/* FNAME_release(): frees what the calling thread keeps. With alpha = 0
 * nothing is kept, but the function is there as for any other alpha (the
 * Fortran interface and callers name it). */
static void emit_release(const emitter *e)
{
    if (!e->nkept && alpha_zero(e) && tc_alg_permuted_temps(e->alg)) {
        fprintf(e->out, "\n/* Nothing to free: with alpha = 0 %s keeps no temporaries. */\n"
                        "void %s_release(void)\n{\n}\n", e->fname, e->fname);
        return;
    }
    if (!e->nkept)
        return;
    fprintf(e->out,
            "\n/* Frees the tensor-sized temporaries %s keeps between calls on the\n"
            " * calling thread under TCGEN_KEEP_TEMPORARIES (the next call allocates\n"
            " * them again); without it there is nothing to free. */\n"
            "void %s_release(void)\n{\n#ifdef TCGEN_THREAD_LOCAL\n"
            "    tcgen_kept_free(%s_kept, %d);\n#endif\n}\n",
            e->fname, e->fname, e->fname, e->nkept);
}

/* The statements of a call, after its sizes. */
static void emit_body(emitter *e)
{
    const tc_algorithm *alg = e->alg;
    FILE *out = e->out;
    emit_constants(e);
    emit_temporaries(e);
    fputs("\n", out);
    if (tc_alg_needs_beta_pass(alg, e->c)) {
        emit_beta(e, 1);
        fputs("\n", out);
    }
    emit_list(e, alg->body, 1);
    if (alg->ntemps)
        fputs("\n", out);
    emit_free(e, "    ");
    fputs("    return 0;\n", out);
}

static void emit_function(emitter *e, const char *fname)
{
    const tc_algorithm *alg = e->alg;
    FILE *out = e->out;
    if (!e->opt->no_header)
        emit_header(e);
    emit_kernel_text(e);
    if (tc_kernel_gen_rows[alg->kernel].prologue && !alpha_zero(e))
        tc_kernel_gen_rows[alg->kernel].prologue(e);
    if (alg->split > 1 && !alpha_zero(e))
        put(e, blas_one_text);
    emit_kept_slots(e, 0);
    emit_prototype(e, fname);
    if (alpha_zero(e)) {
        emit_zero_alpha(e);
        fputs("    return 0;\n}\n", out);
        emit_release(e);
        return;
    }
    for (int t = 0; e->opt->strides && t < 3; t++)
        if (e->c->tensor[t].rank == 0) /* a scalar's strides are not read */
            fprintf(out, "    (void)%s;\n", stride_param[t]);
    emit_sizes(e, NULL);
    emit_with_strides(e, emit_body);
    fputs("}\n", out);
    emit_release(e);
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
    tc_status s = tc_gen_check_function_name(fname, err);
    if (s != TC_OK)
        return s;
    if (!c->has_sizes)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "cannot emit %s: the contraction has no sizes", alg->name);
    if (!alg->fits_int && !opt->generic)
        return tc_error_set(err, TC_EINPUT, 0, 0, "cannot emit %s: %s", alg->name, alg->why);
    if (alg->type != c->type) /* its calls name the algorithm's type's routines */
        return tc_error_set(err, TC_EUSAGE, 0, 0, "cannot emit %s: the contraction is of %s",
                            alg->name, tc_type_row_of(c->type)->c_name);
    int views = opt->strides || tc_contraction_strided(c);
    if (views && opt->row_major)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "cannot emit %s: views (strides) are "
                            "column-major only", alg->name);
    if (tc_contraction_strided(c) && opt->generic && !opt->strides)
        return tc_error_set(err, TC_EUSAGE, 0, 0, "cannot emit %s: generic code of views takes "
                            "their strides as parameters (strides option)", alg->name);

    emitter em;
    memset(&em, 0, sizeof em);
    em.alg = alg;
    em.c = c;
    em.opt = opt;
    em.out = out;
    em.fname = fname;
    em.ty = tc_type_row_of(c->type);
    em.views = views;
    unsigned char used[3 * TC_MAX_RANK] = {0};
    em.used = used;
    em.nkept = alpha_zero(&em) ? 0 : tc_alg_permuted_temps(alg); /* alpha 0: no temporaries */
    if (opt->row_major)
        tc_contraction_transpose(c, &em.user);
    else
        em.user = *c;
    name_variables(&em, fname);
    snprintf(em.parts, sizeof em.parts, opt->generic ? "tcgen_parts" : "%d", alg->split);
    locale_t saved = tc_c_locale_enter(); /* '.' in numbers, whatever the host's locale */
    emit_function(&em, fname);
    tc_c_locale_leave(saved);
    if (em.oom)
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot emit %s: out of memory", alg->name);
    if (ferror(out))
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot write the emitted C: write error");
    return TC_OK;
}
