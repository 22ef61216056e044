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
