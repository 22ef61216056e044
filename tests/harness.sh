# harness.sh - sourced by every tests/*_test.sh and scripts/smoke.sh: the
# pass/fail counters, a temporary directory removed on exit, ok and bad,
# and the summary line scripts/test.sh reads ("NAME: N passed, N failed").
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# finish NAME: the summary line; the status is 0 when nothing failed.
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
# The directory holding OpenBLAS's cblas.h (Debian puts it per architecture).
cblas_include() {
    dirname "$(ls /usr/include/*/openblas*/cblas.h /usr/include/openblas/cblas.h 2>/dev/null | head -1)"
}
# The warnings emitted C is compiled with, as errors: a user's strict build
# (tests/test_emit.c uses the same list).
EMITTED_CFLAGS="-std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror"
# python_env: what a python needs in its environment (env $(python_env) ...)
# to load a libtcgen built with $SAN: gcc's sanitizer runtimes preloaded
# (the interpreter does not link them) and no leak check (the interpreter
# keeps memory on purpose). Nothing without $SAN.
python_env() {
    local pre=
    case ${SAN:-} in *address*) pre=$(${CC:-cc} -print-file-name=libasan.so) ;; esac
    case ${SAN:-} in *undefined*) pre=$pre${pre:+:}$(${CC:-cc} -print-file-name=libubsan.so) ;; esac
    [ -z "$pre" ] || echo "LD_PRELOAD=$pre ASAN_OPTIONS=detect_leaks=0"
}
