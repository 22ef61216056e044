/*
 * c_locale.h - numbers read and written the same under any host locale.
 *
 * A program that links libtcgen may call setlocale(LC_ALL, "de_DE.UTF-8");
 * strtod would then stop at the '.' of "0.5" and printf would write "0,5".
 * Every public entry point that parses or prints numbers switches the
 * calling thread to the "C" locale for its duration (uselocale is per
 * thread, so other threads of the host program are not affected).
 */
#ifndef TC_AST_C_LOCALE_H
#define TC_AST_C_LOCALE_H

#include <locale.h>

/* Switches this thread to the "C" locale; returns what to restore. When
 * the C locale object cannot be created the thread's locale is left as it
 * is (and the returned value restores nothing). */
locale_t tc_c_locale_enter(void);

/* Restores what tc_c_locale_enter returned. */
void tc_c_locale_leave(locale_t previous);

#endif
