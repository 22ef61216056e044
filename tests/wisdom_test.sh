#!/usr/bin/env bash
# wisdom_test.sh - wisdom between processes (planner/wisdom.c, planner/plan.c):
# 8 tcgen processes adding decisions to one --wisdom file at once lose none
# and leave a valid file; a write that fails (ulimit -f) leaves the previous
# file as it was; a NUL byte in the file is refused with file:line:column;
# wisdom written by the command is used by a program linking libtcgen (and
# the other way round) with the default thread count (the CPUs the process
# may use, in both); --measure with every candidate over the time limit writes a
# header that says the prediction decided; `tcgen wisdom` merges, prunes
# and refuses damaged files; TCGEN_WISDOM_TOLERANCE reuses a decision for
# nearby sizes. Ends with "wisdom: N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
unset TCGEN_THREADS # the default is what is tested: the CPUs the process may use
X='C[a,b] = A[a,c] * B[c,b]' # canonical names, as wisdom writes them

# 1. Eight processes, eight decisions, one file.
W="$tmp/shared.wisdom"
pids=()
for k in 1 2 3 4 5 6 7 8; do
    n=$((8 + k))
    "$TCGEN" "$X" "a=b=$n,c=4" --wisdom "$W" -q -o "$tmp/p$k.c" 2>"$tmp/p$k.err" &
    pids+=($!)
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ] && ok || bad "$failed of 8 concurrent tcgen --wisdom runs failed: $(cat "$tmp"/p*.err | head -c 400)"
head -1 "$W" | grep -qx "# tcgen wisdom 1" && ok || bad "concurrent writers: no header"
n=$(grep -vc '^#' "$W")
[ "$n" -eq 8 ] && ok || bad "concurrent writers: $n entries, want 8: $(cat "$W")"
for k in 1 2 3 4 5 6 7 8; do
    n=$((8 + k))
    grep -qF "	a=$n,b=$n,c=4	" "$W" || bad "concurrent writers: the decision for a=b=$n is missing"
done
# The file is valid: a later run reads it and takes its decision.
"$TCGEN" "$X" "a=b=12,c=4" --wisdom "$W" -o "$tmp/again.c" 2>"$tmp/again.err" && ok \
    || bad "the merged file is not readable: $(cat "$tmp/again.err")"
grep -qF "from wisdom" "$tmp/again.err" && ok || bad "merged decision not used: $(cat "$tmp/again.err")"

# 2. A write that fails leaves the file as it was (and no temporary).
cp "$W" "$tmp/before.wisdom"
[ "$(stat -c %s "$W")" -gt 1024 ] || bad "test set-up: the wisdom file is not over 1 KiB"
(ulimit -f 1; exec "$TCGEN" "$X" "a=b=40,c=4" --wisdom "$W" -q -o "$tmp/limit.c") 2>"$tmp/limit.err"
[ $? -ne 0 ] && ok || bad "a write past ulimit -f succeeded"
cmp -s "$W" "$tmp/before.wisdom" && ok || bad "a failed write changed the wisdom file"
ls "$tmp" | grep -q '\.tmp\.' && bad "a failed write left a temporary: $(ls "$tmp")" || ok

# 3. A NUL byte inside a line: refused, located, the file left alone.
T=$'\t'
before_nul="$X${T}a=8,b=8,c=8${T}col${T}openblas${T}1${T}m${T}dgemm${T}1e-05${T}esti"
printf '# tcgen wisdom 1\n%s\0mate\n' "$before_nul" >"$tmp/nul.wisdom"
cp "$tmp/nul.wisdom" "$tmp/nul.orig"
col=$(( ${#before_nul} + 1 ))
"$TCGEN" "$X" a=b=c=8 --wisdom "$tmp/nul.wisdom" -q -o "$tmp/nul.c" 2>"$tmp/nul.err"
[ $? -eq 1 ] && ok || bad "NUL in wisdom: exit status is not 1"
grep -qF "$tmp/nul.wisdom:2:$col:" "$tmp/nul.err" && ok || bad "NUL in wisdom: not located at 2:$col: $(cat "$tmp/nul.err")"
cmp -s "$tmp/nul.wisdom" "$tmp/nul.orig" && ok || bad "NUL in wisdom: the file was changed"

# 4. The command's wisdom is the library's: same default thread count,
#    same key. A program linking libtcgen.a imports what tcgen wrote and
#    plans the problem without ranking; what it writes, tcgen uses.
cat >"$tmp/lib.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "tcgen.h"
/* lib WISDOM CONTRACTION SIZES EXPECT: EXPECT "wisdom" or "estimate". */
int main(int argc, char **argv)
{
    tc_error err;
    if (argc != 5)
        return 2;
    if (strcmp(argv[4], "wisdom") == 0 && tc_wisdom_import_file(argv[1], &err) != TC_OK) {
        fprintf(stderr, "import: %s\n", err.message);
        return 1;
    }
    tc_plan *p = tc_plan_create(argv[2], argv[3], TC_ESTIMATE, &err);
    if (!p) {
        fprintf(stderr, "plan: %s\n", err.message);
        return 1;
    }
    printf("%s %s\n", tc_plan_origin(p), tc_plan_algorithm(p));
    int rc = strcmp(tc_plan_origin(p), argv[4]) != 0;
    if (tc_wisdom_export_file(argv[1], &err) != TC_OK) {
        fprintf(stderr, "export: %s\n", err.message);
        rc = 1;
    }
    tc_plan_destroy(p);
    return rc;
}
EOF
if $CC -std=c11 $SAN -Iinclude -o "$tmp/lib" "$tmp/lib.c" "$BUILD/libtcgen.a" -lhwloc -ldl -lm \
        -lpthread 2>"$tmp/lib.cc"; then
    ok
    L="$tmp/lib.wisdom"
    "$TCGEN" "$X" a=b=c=64 --wisdom "$L" -q -o "$tmp/x.c" 2>"$tmp/x.err" && ok \
        || bad "tcgen --wisdom: $(cat "$tmp/x.err")"
    alg=$(grep -v '^#' "$L" | cut -f7)
    threads=$(grep -v '^#' "$L" | cut -f5)
    out=$("$tmp/lib" "$L" "$X" a=b=c=64 wisdom 2>&1)
    [ $? -eq 0 ] && ok || bad "the library did not take tcgen's wisdom (threads $threads): $out"
    [ "$out" = "wisdom $alg" ] && ok || bad "the library planned '$out', tcgen's wisdom says '$alg'"
    # ... and the other way: the library decides, the command reuses it.
    out=$("$tmp/lib" "$L" "$X" a=b=c=48 estimate 2>&1)
    [ $? -eq 0 ] && ok || bad "the library could not plan and export: $out"
    "$TCGEN" "$X" a=b=c=48 --wisdom "$L" -o "$tmp/y.c" 2>"$tmp/y.err" && ok \
        || bad "tcgen after the library: $(cat "$tmp/y.err")"
    grep -qF "from wisdom" "$tmp/y.err" && ok || bad "tcgen did not use the library's wisdom: $(cat "$tmp/y.err")"
    n=$(grep -vc '^#' "$L")
    [ "$n" -eq 2 ] && ok || bad "command + library wisdom: $n entries, want 2"
else
    bad "a program linking $BUILD/libtcgen.a does not build: $(head -c 400 "$tmp/lib.cc")"
fi

# 5. --measure with every candidate over the time limit: the header says
#    the prediction decided, not "measured".
"$TCGEN" "$X" a=b=c=32 --measure --candidates 2 --time-limit 1e-9 -q -o "$tmp/m.c" \
    2>"$tmp/m.err" && ok || bad "--measure over the limit failed: $(cat "$tmp/m.err")"
# the header comment as one line (the emitter wraps it)
header=$(sed -n '1,/\*\//p' "$tmp/m.c" | sed 's/^ *\** *//' | tr '\n' ' ' | tr -s ' ')
case "$header" in
*"over the time limit"*) ok ;;
*) bad "header does not say every candidate was over the limit: $header" ;;
esac
grep -qE '^ \*   measured ' "$tmp/m.c" && bad "header claims a measured time: $(grep measured "$tmp/m.c")" || ok
grep -qE '^ \*   predicted ' "$tmp/m.c" && ok || bad "header does not say the time is predicted"

# 6. tcgen wisdom: files merged (the later wins), pruned to this machine,
#    written whole; a damaged file refused with its place; no file a usage error.
"$TCGEN" "$X" a=b=12,c=4 --wisdom "$tmp/one.wisdom" -q -o /dev/null 2>"$tmp/err" \
    && "$TCGEN" "$X" a=b=20,c=4 --wisdom "$tmp/two.wisdom" -q -o /dev/null 2>>"$tmp/err" \
    && ok || bad "wisdom files for tcgen wisdom: $(cat "$tmp/err")"
"$TCGEN" wisdom "$tmp/one.wisdom" "$tmp/two.wisdom" -o "$tmp/both.wisdom" 2>"$tmp/err" \
    && [ "$(grep -vc '^#' "$tmp/both.wisdom")" -eq 2 ] \
    && grep -q "^tcgen: 2 decisions from 2 files$" "$tmp/err" && ok \
    || bad "tcgen wisdom: two files not merged into two decisions: $(cat "$tmp/err" "$tmp/both.wisdom")"
# the same decision from another machine, and one whose time differs
awk -F'\t' -v OFS='\t' '!/^#/ { $6 = "Other CPU|L1 48K"; print; next } { print }' \
    "$tmp/one.wisdom" >"$tmp/other.wisdom"
awk -F'\t' -v OFS='\t' '!/^#/ { $8 = "9.5"; print; next } { print }' \
    "$tmp/one.wisdom" >"$tmp/later.wisdom"
"$TCGEN" wisdom "$tmp/both.wisdom" "$tmp/other.wisdom" "$tmp/later.wisdom" >"$tmp/all" 2>"$tmp/err" \
    && [ "$(grep -vc '^#' "$tmp/all")" -eq 3 ] && grep -q "	9.5	" "$tmp/all" && ok \
    || bad "tcgen wisdom: three decisions, the later file's time, expected: $(cat "$tmp/err" "$tmp/all")"
"$TCGEN" wisdom "$tmp/both.wisdom" "$tmp/other.wisdom" --prune >"$tmp/pruned" 2>"$tmp/err" \
    && [ "$(grep -vc '^#' "$tmp/pruned")" -eq 2 ] && ! grep -q "Other CPU" "$tmp/pruned" \
    && grep -q "; 1 of other machines left out$" "$tmp/err" && ok \
    || bad "tcgen wisdom --prune: the other machine's decision kept: $(cat "$tmp/err" "$tmp/pruned")"
printf '# tcgen wisdom 1\nC[a,b] = A[a,c]\n' >"$tmp/bad.wisdom"
"$TCGEN" wisdom "$tmp/one.wisdom" "$tmp/bad.wisdom" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "bad.wisdom:2:" "$tmp/err" && [ ! -s "$tmp/out" ] && ok \
    || bad "tcgen wisdom with a damaged file: exit 1 and its line expected: $(cat "$tmp/err")"
"$TCGEN" wisdom >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "tcgen wisdom without a file: usage error expected"

# 7. TCGEN_WISDOM_TOLERANCE: a decision reused for sizes within the fraction
#    (the header says for which), not beyond it; a bad value is refused.
"$TCGEN" "$X" a=b=40,c=8 --wisdom "$tmp/tol.wisdom" -q -o /dev/null 2>"$tmp/err" \
    && ok || bad "planning for the tolerance test: $(cat "$tmp/err")"
TCGEN_WISDOM_TOLERANCE=0.1 "$TCGEN" "$X" a=b=43,c=8 --wisdom "$tmp/tol.wisdom" -o /dev/null \
    2>"$tmp/err" && grep -q "from wisdom" "$tmp/err" && ok \
    || bad "a=b=43 within 10 % of a=b=40: not from wisdom: $(cat "$tmp/err")"
TCGEN_WISDOM_TOLERANCE=0.1 "$TCGEN" "$X" a=b=46,c=8 --wisdom "$tmp/tol.wisdom" -o /dev/null \
    2>"$tmp/err" && ! grep -q "from wisdom" "$tmp/err" && ok \
    || bad "a=b=46 is 15 % from a=b=40: taken from wisdom: $(cat "$tmp/err")"
"$TCGEN" "$X" a=b=41,c=8 --wisdom "$tmp/tol.wisdom" -o /dev/null 2>"$tmp/err" \
    && ! grep -q "from wisdom" "$tmp/err" && ok \
    || bad "without TCGEN_WISDOM_TOLERANCE a=b=41 came from wisdom: $(cat "$tmp/err")"
TCGEN_WISDOM_TOLERANCE=half "$TCGEN" "$X" a=b=41,c=8 -o /dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "TCGEN_WISDOM_TOLERANCE is 'half'" "$tmp/err" && ok \
    || bad "TCGEN_WISDOM_TOLERANCE=half: usage error expected: $(cat "$tmp/err")"

finish "wisdom"
