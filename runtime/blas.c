/*
 * blas.c - loads a CBLAS library with dlopen and fills a tc_blas table.
 *
 * Libraries are opened RTLD_LOCAL, so OpenBLAS and BLIS can live side by
 * side: neither enters the global scope, so neither captures the other's
 * internal calls (BLIS's cblas_dgemm calls its own dgemm_ through the PLT).
 * They are also opened RTLD_NODELETE: unloading BLIS's OpenMP or OpenBLAS's
 * thread pool under running threads is unsafe, and memory the library keeps
 * in its globals would show up as leaks under LeakSanitizer once unmapped.
 */
#include "runtime/blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ast/error.h"
#include "runtime/cpus.h"

typedef void (*tc_fn)(void);

static const struct {
    const char *symbol;
    size_t offset;
} kernels[] = {
    {"cblas_ddot", offsetof(tc_blas, ddot)},
    {"cblas_daxpy", offsetof(tc_blas, daxpy)},
    {"cblas_dgemv", offsetof(tc_blas, dgemv)},
    {"cblas_dger", offsetof(tc_blas, dger)},
    {"cblas_dgemm", offsetof(tc_blas, dgemm)},
    {"cblas_dcopy", offsetof(tc_blas, dcopy)},
    {"cblas_sdot", offsetof(tc_blas, sdot)},
    {"cblas_saxpy", offsetof(tc_blas, saxpy)},
    {"cblas_sgemv", offsetof(tc_blas, sgemv)},
    {"cblas_sger", offsetof(tc_blas, sger)},
    {"cblas_sgemm", offsetof(tc_blas, sgemm)},
    {"cblas_cdotu_sub", offsetof(tc_blas, xdotu_sub[0])},
    {"cblas_caxpy", offsetof(tc_blas, xaxpy[0])},
    {"cblas_cgemv", offsetof(tc_blas, xgemv[0])},
    {"cblas_cgeru", offsetof(tc_blas, xgeru[0])},
    {"cblas_cgemm", offsetof(tc_blas, xgemm[0])},
    {"cblas_zdotu_sub", offsetof(tc_blas, xdotu_sub[1])},
    {"cblas_zaxpy", offsetof(tc_blas, xaxpy[1])},
    {"cblas_zgemv", offsetof(tc_blas, xgemv[1])},
    {"cblas_zgeru", offsetof(tc_blas, xgeru[1])},
    {"cblas_zgemm", offsetof(tc_blas, xgemm[1])},
    {"cblas_dscal", offsetof(tc_blas, dscal)},
};

/* ISO C has no cast from void * to a function pointer; POSIX guarantees
 * the representations agree, so copy the bytes. */
static int resolve(void *handle, const char *symbol, void *fn_slot)
{
    void *p = dlsym(handle, symbol);
    if (p)
        memcpy(fn_slot, &p, sizeof(tc_fn));
    return p != NULL;
}

/* "libx.so", "libx.so.4", "libx.so.4.1" */
static int ends_in_so(const char *s)
{
    const char *so = NULL;
    for (const char *p = strstr(s, ".so"); p; p = strstr(p + 1, ".so"))
        so = p;
    if (!so)
        return 0;
    const char *rest = so + 3;
    if (*rest == '\0')
        return 1;
    if (*rest != '.')
        return 0;
    for (; *rest; rest++)
        if (*rest != '.' && (*rest < '0' || *rest > '9'))
            return 0;
    return 1;
}

/*
 * When a BLAS is already in the global scope (an executable linked with
 * -lblas), it would capture the new library's calls of its own exported
 * symbols; RTLD_DEEPBIND puts the library's own scope first. DEEPBIND also
 * bypasses AddressSanitizer's malloc interposition (ASan aborts on it), so
 * it is used only when such a BLAS is present and ASan is not.
 */
static int deepbind_flag(void)
{
#ifdef RTLD_DEEPBIND
    int global_blas = dlsym(RTLD_DEFAULT, "dgemm_") != NULL ||
                      dlsym(RTLD_DEFAULT, "cblas_dgemm") != NULL;
    int asan = dlsym(RTLD_DEFAULT, "__asan_init") != NULL;
    return global_blas && !asan ? RTLD_DEEPBIND : 0;
#else
    return 0;
#endif
}

static void copy_string(char *dst, size_t n, const char *src)
{
    size_t l = strlen(src);
    if (l >= n)
        l = n - 1;
    memcpy(dst, src, l);
    while (l > 0 && (dst[l - 1] == ' ' || dst[l - 1] == '\n' || dst[l - 1] == '\t'))
        l--;
    dst[l] = '\0';
}

/* ---- OpenBLAS's kernel sets ------------------------------------------ */

#if defined(__x86_64__) && defined(__GNUC__)
static int runs_prescott(void) { return __builtin_cpu_supports("sse3"); }
static int runs_nehalem(void) { return __builtin_cpu_supports("sse4.2"); }
static int runs_sandybridge(void) { return __builtin_cpu_supports("avx"); }
static int runs_haswell(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
static int runs_skylakex(void)
{
    return runs_haswell() && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd");
}
static int runs_cooperlake(void)
{
    return runs_skylakex() && __builtin_cpu_supports("avx512bf16");
}

/* The kernel sets OPENBLAS_CORETYPE names, narrowest first, and whether
 * this CPU has the instructions each needs (a set it lacks dies of
 * SIGILL). Zen's kernels are Haswell's, tuned for AMD's caches. */
static const struct {
    const char *name;
    int (*runs)(void);
} cores[] = {
    {"Prescott", runs_prescott},     {"Nehalem", runs_nehalem},
    {"Sandybridge", runs_sandybridge}, {"Haswell", runs_haswell},
    {"Zen", runs_haswell},           {"SkylakeX", runs_skylakex},
    {"Cooperlake", runs_cooperlake},
};

int tc_rt_openblas_cores(const char *names[], int max)
{
    int n = 0;
    __builtin_cpu_init();
    for (size_t k = 0; k < sizeof cores / sizeof cores[0] && n < max; k++)
        if (cores[k].runs())
            names[n++] = cores[k].name;
    return n;
}
#else
int tc_rt_openblas_cores(const char *names[], int max)
{
    (void)names, (void)max;
    return 0;
}
#endif

/* "Haswell" of "openblas:Haswell" when this CPU runs it (its canonical
 * spelling); NULL otherwise. */
static const char *openblas_core(const char *which)
{
    const char *names[16];
    int n = tc_rt_openblas_cores(names, 16);
    for (int k = 0; k < n; k++)
        if (strcasecmp(which + 9, names[k]) == 0)
            return names[k];
    return NULL;
}

/*
 * A copy of OpenBLAS of its own, in a new link-map namespace, initialised
 * with OPENBLAS_CORETYPE=core (the variable restored afterwards: OpenBLAS
 * reads it once, when it loads). A process has few namespaces (glibc:
 * 16), so each kernel set is loaded once and kept (RTLD_NODELETE); a
 * later load of it gets the same copy, as dlopen would.
 */
static void *open_openblas_core(const char *path, const char *core)
{
#if defined(LM_ID_NEWLM) && defined(__x86_64__) && defined(__GNUC__)
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        const char *core; /* a name of cores[] */
        void *handle;
    } kept[sizeof cores / sizeof cores[0]];
    void *h = NULL;
    pthread_mutex_lock(&lock);
    size_t k = 0;
    while (k < sizeof kept / sizeof kept[0] && kept[k].core && kept[k].core != core)
        k++;
    if (k < sizeof kept / sizeof kept[0] && kept[k].core == core) {
        h = kept[k].handle;
    } else if (k < sizeof kept / sizeof kept[0]) {
        const char *old = getenv("OPENBLAS_CORETYPE");
        char saved[64];
        snprintf(saved, sizeof saved, "%s", old ? old : "");
        setenv("OPENBLAS_CORETYPE", core, 1);
        h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (old)
            setenv("OPENBLAS_CORETYPE", saved, 1);
        else
            unsetenv("OPENBLAS_CORETYPE");
        if (h)
            kept[k].core = core, kept[k].handle = h;
    }
    pthread_mutex_unlock(&lock);
    return h;
#else
    (void)path, (void)core;
    return NULL;
#endif
}

/* Opens the library named by `which`; fills b->name, b->path, b->handle. */
static tc_status open_library(tc_blas *b, const char *which, tc_error *err)
{
    static const char *const openblas[] = {"libopenblas.so.0", "libopenblas.so"};
    static const char *const blis[] = {"libblis.so.4", "libblis.so"};
    const char *const *candidates;
    const char *path_only[1];
    size_t ncand;
    int flags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | deepbind_flag();
    const char *core = NULL;

    if (strncmp(which, "openblas:", 9) == 0) {
        core = openblas_core(which);
        if (!core) {
            char list[256] = "";
            const char *names[16];
            int n = tc_rt_openblas_cores(names, 16);
            for (int k = 0; k < n; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                         names[k]);
            return tc_error_set(err, TC_ERESOURCE, 0, 0,
                                "cannot load BLAS library '%.64s': this CPU runs OpenBLAS's "
                                "kernel sets %s", which, n ? list : "(none known off x86-64)");
        }
        candidates = openblas;
        ncand = 2;
        snprintf(b->name, sizeof b->name, "openblas:%s", core);
    } else if (strcmp(which, "openblas") == 0) {
        candidates = openblas;
        ncand = 2;
        copy_string(b->name, sizeof b->name, "openblas");
    } else if (strcmp(which, "blis") == 0) {
        candidates = blis;
        ncand = 2;
        copy_string(b->name, sizeof b->name, "blis");
    } else if (strchr(which, '/') || ends_in_so(which)) {
        if (strlen(which) >= sizeof b->path)
            return tc_error_set(err, TC_ERESOURCE, 0, 0,
                                "cannot load BLAS library '%.64s...': the path is "
                                "longer than %zu bytes",
                                which, sizeof b->path - 1);
        path_only[0] = which;
        candidates = path_only;
        ncand = 1;
        const char *base = strrchr(which, '/');
        copy_string(b->name, sizeof b->name, base ? base + 1 : which);
    } else {
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot load BLAS library '%s': expected 'openblas', "
                            "'blis' or the path of a CBLAS shared library (.so)",
                            which);
    }

    const char *why = "unknown error";
    for (size_t k = 0; k < ncand; k++) {
        dlerror();
        b->handle = core ? open_openblas_core(candidates[k], core) : dlopen(candidates[k], flags);
        if (b->handle) {
            copy_string(b->path, sizeof b->path, candidates[k]);
            return TC_OK;
        }
        const char *e = dlerror();
        if (e)
            why = e;
    }
    if (ncand == 1)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "cannot load BLAS library '%s': %s", which, why);
    return tc_error_set(err, TC_ERESOURCE, 0, 0,
                        "cannot load BLAS library '%s' (tried %s, %s): %s", which,
                        candidates[0], candidates[1], why);
}

/* Finds the thread-count setter and the version string, if the library has them. */
static void probe_extras(tc_blas *b)
{
    const char *(*version)(void) = NULL;
    if (!resolve(b->handle, "openblas_set_num_threads", &b->set_threads))
        resolve(b->handle, "bli_thread_set_num_threads", &b->set_threads);
    if (!resolve(b->handle, "openblas_get_num_threads", &b->get_threads))
        resolve(b->handle, "bli_thread_get_num_threads", &b->get_threads);
    if (!resolve(b->handle, "openblas_get_config", &version))
        resolve(b->handle, "bli_info_get_version_str", &version);
    const char *v = version ? version() : NULL;
    copy_string(b->version, sizeof b->version, v ? v : "");
    const char *(*corename)(void) = NULL;
    const char *c = resolve(b->handle, "openblas_get_corename", &corename) ? corename() : NULL;
    copy_string(b->kernels, sizeof b->kernels, c ? c : "");
}

tc_status tc_rt_blas_load(const char *which, int threads, tc_blas **out,
                          tc_error *err)
{
    if (!out)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "tc_rt_blas_load: no place to store the result");
    *out = NULL;
    if (threads < 0)
        return tc_error_set(err, TC_EUSAGE, 0, 0,
                            "the BLAS thread count must be at least 1, or 0 to leave it "
                            "as it is (got %d)",
                            threads);
    if (!which) {
        which = getenv("TCGEN_BLAS");
        if (!which || !*which)
            which = "openblas";
    }

    tc_blas *b = calloc(1, sizeof *b);
    if (!b)
        return tc_error_set(err, TC_ERESOURCE, 0, 0,
                            "out of memory allocating the BLAS table (%zu bytes)",
                            sizeof *b);
    tc_status s = open_library(b, which, err);
    if (s != TC_OK) {
        free(b);
        return s;
    }
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
        if (!resolve(b->handle, kernels[k].symbol, (char *)b + kernels[k].offset)) {
            s = tc_error_set(err, TC_ERESOURCE, 0, 0,
                             "BLAS library '%s' (%s) has no symbol %s; is it a "
                             "CBLAS library?",
                             which, b->path, kernels[k].symbol);
            tc_rt_blas_unload(b);
            return s;
        }
    }
    probe_extras(b);
    const char *want = strncmp(b->name, "openblas:", 9) == 0 ? b->name + 9 : NULL;
    if (want && strcasecmp(want, b->kernels) != 0) {
        s = tc_error_set(err, TC_ERESOURCE, 0, 0,
                         "OpenBLAS (%s) runs its %s kernels though %s were asked for: it "
                         "was built without them", b->path, b->kernels, want);
        tc_rt_blas_unload(b);
        return s;
    }
    if (b->set_threads && b->get_threads)
        b->threads = threads > 0 ? threads : tc_rt_process_cpus();
    else /* the library's own count, which tcgen cannot change */
        b->threads = b->get_threads ? b->get_threads() : 1;
    if (b->threads < 1) /* BLIS answers -1 when nothing has been set */
        b->threads = 1;
    *out = b;
    return TC_OK;
}

int tc_rt_blas_enter(const tc_blas *b, int n)
{
    if (!b || !b->set_threads || !b->get_threads || n < 1)
        return 0;
    int now = b->get_threads();
    if (now == n)
        return 0;
    b->set_threads(n);
    return now < 1 ? 1 : now; /* BLIS's -1 (nothing set) runs one thread */
}

void tc_rt_blas_leave(const tc_blas *b, int saved)
{
    if (b && b->set_threads && saved > 0)
        b->set_threads(saved);
}

void tc_rt_blas_unload(tc_blas *b)
{
    if (!b)
        return;
    if (b->handle && strncmp(b->name, "openblas:", 9) != 0) /* those are kept */
        dlclose(b->handle);
    free(b);
}
