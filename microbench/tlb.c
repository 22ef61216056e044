/* tlb.c - pages that evict address translations, and the TLB's reach (tlb.h). */
#include "microbench/tlb.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ast/error.h"
#include "runtime/timer.h"

#define PAGE 4096
#define LINE 64
/* Virtual pages per physical page. One physical page under all of them
 * would move the least data, but a hypervisor that shadows the page tables
 * keeps a bounded list of a page's mappings: past it (1024 aliases on a
 * Zen 5 VM) every touch traps, 4 us instead of a page walk, and the TLB's
 * reach measured the list (896 pages). 128 aliases stay fast there. */
#define ALIASES 128
/* A page walk whose tables are in cache adds about half a second-level
 * TLB hit's step (measured 11 -> 18 ns at 4096 pages on a Zen 5 VM); the
 * steps within the second level stay within 5 %. */
#define TLB_STEP 1.4

tc_status tc_mb_pages_map(int64_t count, tc_mb_pages *out, tc_error *err)
{
    memset(out, 0, sizeof *out);
    if (count <= 0)
        return TC_OK;
    int64_t physical = (count + ALIASES - 1) / ALIASES;
    int fd = memfd_create("tcgen-tlb", 0);
    if (fd < 0 || ftruncate(fd, (off_t)(physical * PAGE)) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot make the TLB pages: %s",
                            strerror(e));
    }
    /* reserve the range, then put file page k % physical at its page k */
    char *base = mmap(NULL, (size_t)count * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int ok = base != MAP_FAILED;
    for (int64_t k = 0; ok && k < count; k++)
        ok = mmap(base + k * PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                  (off_t)((k % physical) * PAGE)) != MAP_FAILED;
    int e = errno;
    close(fd);
    if (!ok) {
        if (base != MAP_FAILED)
            munmap(base, (size_t)count * PAGE);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "cannot map %lld TLB pages: %s",
                            (long long)count, strerror(e));
    }
    for (int64_t k = 0; k < physical; k++) /* each file page, through its first mapping */
        memset(base + k * PAGE, 0, PAGE);
    volatile char sink = 0;
    for (int64_t k = 0; k < count; k++) /* fault every mapping in */
        sink += base[k * PAGE];
    (void)sink;
    out->base = base;
    out->count = count;
    out->physical = physical;
    return TC_OK;
}

void tc_mb_pages_unmap(tc_mb_pages *p)
{
    if (p && p->base)
        munmap(p->base, (size_t)p->count * PAGE);
    if (p)
        memset(p, 0, sizeof *p);
}

/* The line read in page k: one per physical page, a different one for each
 * (so the reads spread over cache sets), so at most `physical` lines of data
 * are ever touched. */
static const char *page_line(const tc_mb_pages *p, int64_t k)
{
    return p->base + k * PAGE + (k % p->physical) % (PAGE / LINE) * LINE;
}

int64_t tc_mb_pages_touch(const tc_mb_pages *p, int64_t count, double *acc)
{
    if (count > p->count)
        count = p->count;
    double sum = 0.0;
    for (int64_t k = 0; k < count; k++)
        sum += *(const volatile double *)page_line(p, k);
    *acc += sum;
    return count;
}

/* Seconds per step of a chase through one line of each of the first n
 * pages in a scrambled cyclic order: the next page depends on the value
 * loaded (always 0), so the loads do not overlap. */
static double chase(const tc_mb_pages *p, int64_t n)
{
    const int64_t stride = (n / 3) | 1; /* odd, near n/3: every page, far apart */
    const int64_t steps = (int64_t)1 << 19;
    int64_t k = 0, v = 0;
    double t0 = 0.0;
    for (int64_t s = -2 * n; s < steps; s++) { /* 2n warm-up steps first */
        if (s == 0)
            t0 = tc_rt_now();
        k += stride + v;
        if (k >= n)
            k -= n;
        v = *(const volatile int64_t *)page_line(p, k);
    }
    return (tc_rt_now() - t0) / (double)steps;
}

static int64_t highest_power_of_two(int64_t n)
{
    int64_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* The fastest of three chases: a preempted one is not the TLB. */
static double fastest_chase(const tc_mb_pages *p, int64_t n)
{
    double best = chase(p, n);
    for (int r = 1; r < 3; r++) {
        double t = chase(p, n);
        best = t < best ? t : best;
    }
    return best;
}

int64_t tc_mb_tlb_measure(void)
{
    tc_mb_pages p;
    if (tc_mb_pages_map(TC_MB_TLB_MAX_PAGES, &p, NULL) != TC_OK)
        return 0;
    double base = fastest_chase(&p, TC_MB_TLB_BASE_PAGES);
    int64_t reach = 0;
    /* four sizes per doubling: 512, 640, 768, 896, 1024, 1280, ... */
    for (int64_t n = TC_MB_TLB_BASE_PAGES, last = n; n <= TC_MB_TLB_MAX_PAGES;
         last = n, n += highest_power_of_two(n) / 4)
        if (fastest_chase(&p, n) > TLB_STEP * base) {
            reach = last;
            break;
        }
    tc_mb_pages_unmap(&p);
    return reach;
}
