/* c_locale.c - the per-thread switch to the "C" locale (see c_locale.h). */
#include "ast/c_locale.h"

#include <pthread.h>

static locale_t c_locale = (locale_t)0;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Created once and kept for the life of the process (freeing it at exit
 * could race with a thread still inside the library). */
static void make_c_locale(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t tc_c_locale_enter(void)
{
    pthread_once(&once, make_c_locale);
    if (c_locale == (locale_t)0)
        return (locale_t)0;
    return uselocale(c_locale);
}

void tc_c_locale_leave(locale_t previous)
{
    if (previous != (locale_t)0)
        uselocale(previous);
}
