#!/usr/bin/env bash
# test.sh - make test and make check: runs the tests as steps, one after the
# other, and prints a line per step as it ends (result, name, seconds, the
# step's own summary line), then a total. A failed step shows the end of its
# log and the others still run; the exit status is 1 when any step failed.
#
#   scripts/test.sh full            make test: every CUnit suite (one line per
#                                   suite, from run_tests), the examples
#                                   (make examples-run), every tests/*_test.sh,
#                                   /dev/null checked before and after
#   scripts/test.sh check TEST...   make check: run_tests TEST..., then
#                                   tests/symbols_test.sh and scripts/smoke.sh
#
# Run from the top directory with the Makefile's TEST_ENV: TCGEN, BUILD,
# RUNNER, CC, SAN, MAKE. Step logs go to $BUILD/test-logs/NAME.log.
set -u
mode=${1:-}
[ $# -gt 0 ] && shift
BUILD=${BUILD:-build}
TCGEN=${TCGEN:-$BUILD/tcgen}
RUNNER=${RUNNER:-$BUILD/tests/run_tests}
CC=${CC:-cc}
SAN=${SAN:-}
MAKE=${MAKE:-make}
export BUILD TCGEN RUNNER CC SAN MAKE
logs=$BUILD/test-logs
mkdir -p "$logs" || exit 2

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
failed=()
steps=0 total=0
# On a terminal, a running step shows its name until its line replaces it.
if [ -t 1 ]; then
    running() { printf '  %-6s %-24s ...\r' "$((steps + 1))/$total" "$1"; }
else
    running() { :; }
fi

# report NAME STATUS START LOG: the step's line; on failure the end of its log.
report() {
    local name=$1 rc=$2 start=$3 log=$4 summary
    summary=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-80)
    steps=$((steps + 1))
    if [ "$rc" -eq 0 ]; then
        printf '  %-6s %-24s %7s s  ok      %s\n' "$steps/$total" "$name" "$(since "$start")" "$summary"
    else
        failed+=("$name")
        echo "---- $name: last lines of $log" >&2
        tail -n 40 "$log" | sed 's/^/    /' >&2
        printf '  %-6s %-24s %7s s  FAILED  exit %s, log %s\n' "$steps/$total" "$name" \
            "$(since "$start")" "$rc" "$log"
    fi
}

# step NAME COMMAND...: runs COMMAND with its output in the step's log.
step() {
    local name=$1 start log=$logs/$1.log
    shift
    start=$(now)
    running "$name"
    "$@" >"$log" 2>&1
    report "$name" $? "$start" "$log"
}

# unit ARGS...: the CUnit runner, its per-suite lines shown as they come.
unit() {
    local start log=$logs/unit.log
    start=$(now)
    set -o pipefail
    "$RUNNER" "$@" 2>&1 | tee "$log"
    local rc=$?
    set +o pipefail
    report run_tests "$rc" "$start" "$log"
}

# The suite runs as root in CI: /dev/null must be the device before and
# after it (a writer that renamed over it once made it a regular file).
dev_null() {
    if [ -c /dev/null ]; then
        echo "dev-null $1: 1 passed, 0 failed"
    else
        ls -l /dev/null
        echo "dev-null $1: 0 passed, 1 failed"
        return 1
    fi
}

start=$(now)
case $mode in
full)
    [ $# -eq 0 ] || { echo "usage: scripts/test.sh full" >&2; exit 2; }
    scripts=(tests/*_test.sh)
    total=$((4 + ${#scripts[@]}))
    step dev-null-before dev_null before
    unit
    step examples-run "$MAKE" --no-print-directory examples-run
    for t in "${scripts[@]}"; do
        step "$(basename "$t")" bash "$t"
    done
    step dev-null-after dev_null after
    what="make test"
    ;;
check)
    total=3
    unit "$@"
    step symbols_test.sh bash tests/symbols_test.sh
    step smoke.sh bash scripts/smoke.sh
    what="make check"
    ;;
*)
    echo "usage: scripts/test.sh full | check TEST..." >&2
    exit 2
    ;;
esac

if [ ${#failed[@]} -eq 0 ]; then
    echo "$what: $steps steps passed ($(since "$start") s)"
else
    echo "$what: FAILED: ${failed[*]} ($steps steps, $(since "$start") s)"
    exit 1
fi
