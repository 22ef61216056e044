#!/usr/bin/env bash
# symbols_test.sh - libtcgen.so's ABI is include/tcgen.h and include/tapp.h
# (TAPP) and nothing more: every function tcgen.h declares is marked
# TC_API, every one the TAPP headers declare TAPP_EXPORT, the shared library
# exports exactly those functions (no Flex/Bison tc_yy*, no tc_rt_*/tc_mb_*
# internals or test hooks), a program cannot link an internal function
# against it, and the command and the test runner do not depend on it (they
# link libtcgen.a). Run from the top directory with BUILD set (make test,
# make check). Ends with "symbols: N passed, N failed".
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
so=$BUILD/libtcgen.so
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"


[ -f "$so" ] || { echo "symbols_test: $so is missing; run make BUILD=$BUILD all" >&2; exit 1; }
command -v nm >/dev/null || { echo "symbols_test: no nm (binutils)" >&2; exit 1; }

# The header without its comments (the preprocessor strips them; includes and
# macros are left alone), then the declared functions: identifiers followed
# by '(' outside preprocessor lines.
$CC -fpreprocessed -dD -E -P include/tcgen.h 2>"$tmp/cpp.err" | grep -v '^ *#' >"$tmp/header" \
    && [ -s "$tmp/header" ] && ok || bad "cannot strip the comments of include/tcgen.h: $(head -c 300 "$tmp/cpp.err")"
tr '\n' ' ' <"$tmp/header" | tr ';' '\n' >"$tmp/decls"
grep -oE '\btc_[A-Za-z0-9_]+ *\(' "$tmp/decls" | tr -d ' (' | sort -u >"$tmp/declared"
grep -E '(^|[^A-Za-z0-9_])TC_API[^A-Za-z0-9_]' "$tmp/decls" | grep -oE '\btc_[A-Za-z0-9_]+ *\(' \
    | tr -d ' (' | sort -u >"$tmp/marked"
n=$(wc -l <"$tmp/declared")
[ "$n" -ge 10 ] && ok || bad "found only $n function declarations in include/tcgen.h: $(tr '\n' ' ' <"$tmp/declared")"
unmarked=$(comm -23 "$tmp/declared" "$tmp/marked" | tr '\n' ' ')
[ -z "$unmarked" ] && ok || bad "include/tcgen.h declares without TC_API (so hidden): $unmarked"
# TAPP's functions, from its headers the same way
$CC -fpreprocessed -dD -E -P include/tapp/*.h 2>/dev/null | grep -v '^ *#' | tr '\n' ' ' | tr ';' '\n' \
    >"$tmp/tapp_decls"
grep -oE '\bTAPP_[A-Za-z0-9_]+ *\(' "$tmp/tapp_decls" | tr -d ' (' | sort -u >"$tmp/tapp_declared"
grep -E '(^|[^A-Za-z0-9_])TAPP_EXPORT[^A-Za-z0-9_]' "$tmp/tapp_decls" \
    | grep -oE '\bTAPP_[A-Za-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$tmp/tapp_marked"
[ "$(wc -l <"$tmp/tapp_declared")" -ge 20 ] && ok \
    || bad "found only $(wc -l <"$tmp/tapp_declared") functions in include/tapp/"
unmarked=$(comm -23 "$tmp/tapp_declared" "$tmp/tapp_marked" | tr '\n' ' ')
[ -z "$unmarked" ] && ok || bad "include/tapp/ declares without TAPP_EXPORT: $unmarked"
sort -u "$tmp/declared" "$tmp/tapp_declared" -o "$tmp/declared"

# What the shared library exports: every defined dynamic symbol.
nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
[ -z "$extra" ] && ok \
    || bad "$so exports $(wc -l <<<"$extra") symbols tcgen.h and tapp.h do not declare: $(head -n 12 <<<"$extra" | tr '\n' ' ')"
[ -z "$missing" ] && ok || bad "$so does not export: $missing"
nm -D --defined-only "$so" | awk 'NF >= 3 && $2 !~ /^[TW]$/ { print }' >"$tmp/data"
[ ! -s "$tmp/data" ] && ok || bad "$so exports data symbols: $(head -n 5 "$tmp/data" | tr '\n' ' ')"

# A program using an internal function does not link against the library;
# one using only the header does.
cat >"$tmp/internal.c" <<'EOF'
#include <tcgen.h>
const char *tc_kernel_name(int k);
int main(void) { return tc_kernel_name(0) == 0 && tc_version() != 0; }
EOF
cat >"$tmp/public.c" <<'EOF'
#include <stdio.h>
#include <tcgen.h>
int main(void) { puts(tc_version()); return 0; }
EOF
if $CC -std=c11 -Iinclude $SAN -o "$tmp/internal" "$tmp/internal.c" -L"$BUILD" -ltcgen \
        >"$tmp/cc.log" 2>&1; then
    bad "a program calling the internal tc_kernel_name links against $so"
else
    grep -q 'undefined reference.*tc_kernel_name' "$tmp/cc.log" && ok \
        || bad "linking tc_kernel_name failed for another reason: $(head -c 300 "$tmp/cc.log")"
fi
if $CC -std=c11 -Iinclude $SAN -o "$tmp/public" "$tmp/public.c" -L"$BUILD" -ltcgen \
        -Wl,-rpath,"$(cd "$BUILD" && pwd)" >"$tmp/cc.log" 2>&1; then
    out=$("$tmp/public" 2>&1)
    want=$(sed -n 's/^#define TC_VERSION "\(.*\)".*/\1/p' include/tcgen.h)
    [ "$out" = "$want" ] && ok || bad "a program linked with $so prints '$out', want '$want'"
else
    bad "a program using only tcgen.h does not link against $so: $(head -c 300 "$tmp/cc.log")"
fi

# The command and the test runner carry the library (libtcgen.a) inside.
for exe in "$BUILD/tcgen" "$BUILD/tests/run_tests"; do
    [ -x "$exe" ] || continue
    readelf -d "$exe" 2>/dev/null | grep -q 'NEEDED.*libtcgen' && bad "$exe needs libtcgen.so" || ok
done

finish "symbols"
