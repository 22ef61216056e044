#!/usr/bin/env bash
# alloc_fail_test.sh - tcgen out of memory: every allocation of tc_parse and
# of tc_plan_create failed in turn (tests/alloc/alloc_fail.c) gives
# TC_ERESOURCE or a whole plan, never a crash, an exit, a leak or a line
# printed by the library; and the command exits 3 with a message when
# tc_parse runs out of memory (tests/alloc/cli_parse_oom.c). The profile
# is measured once into a temporary cache directory. make test builds both
# programs. Ends with "alloc_fail_test: N passed, N failed".
set -u
BUILD=${BUILD:-build}
ALLOC_FAIL=${ALLOC_FAIL:-$BUILD/tests/alloc_fail}
ALLOC_CLI=${ALLOC_CLI:-$BUILD/tests/tcgen_parse_oom}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
for p in "$ALLOC_FAIL" "$ALLOC_CLI"; do
    [ -x "$p" ] || { echo "alloc_fail_test: $p is missing; run make BUILD=$BUILD test" >&2; exit 1; }
done
export XDG_CACHE_HOME="$tmp/cache" TCGEN_THREADS=1

# 1. The library: every allocation failed in turn.
"$ALLOC_FAIL" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok || bad "alloc_fail exited $rc: $(tail -n 20 "$tmp/out")"
grep -v '^alloc_fail: ' "$tmp/out" >"$tmp/other"
[ -s "$tmp/other" ] && bad "something else printed: $(head -c 600 "$tmp/other")" || ok
grep -q '^alloc_fail: tc_parse: [1-9][0-9]* allocations' "$tmp/out" && ok || bad "no tc_parse count"
grep -q '^alloc_fail: tc_plan_create: up to [1-9][0-9]* allocations' "$tmp/out" && ok \
    || bad "no tc_plan_create count"
[ "$(tail -n 1 "$tmp/out")" = "alloc_fail: ok" ] && ok || bad "alloc_fail did not end with ok"
grep ' allocations' "$tmp/out" # the counts, in the log

# 2. The command: tc_parse out of memory at each of its allocations is exit
# status 3 with one message, nothing on standard output; no failure, exit 0.
text='C[a,b] = A[a,i] * B[i,b]'
n=1
while :; do
    TCGEN_TEST_PARSE_OOM=$n "$ALLOC_CLI" parse "$text" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 0 ] && break
    [ "$rc" -eq 3 ] && ok || bad "allocation $n failed: exit $rc, not 3: $(cat "$tmp/err")"
    [ -s "$tmp/out" ] && bad "allocation $n failed: printed $(head -c 300 "$tmp/out")" || ok
    grep -q '^tcgen: error: out of memory' "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok \
        || bad "allocation $n failed: message $(head -c 300 "$tmp/err")"
    n=$((n + 1))
    [ "$n" -le 100 ] || { bad "tc_parse fails beyond 100 allocations"; break; }
done
[ "$n" -gt 1 ] && ok || bad "the command's tc_parse allocated nothing: is the wrapper linked?"
grep -q '^# contraction C\[a,b\] = A\[a,i\] \* B\[i,b\]' "$tmp/out" && ok || bad "no failure: $(cat "$tmp/err")"
echo "tcgen parse: $((n - 1)) allocations of tc_parse failed in turn, exit 3 each"

finish alloc_fail_test
