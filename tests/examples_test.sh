#!/usr/bin/env bash
# examples_test.sh - the examples (examples/README.md) say what they should,
# and deliberately wrong builds of emitted code are caught. `make examples`
# runs the examples into $BUILD/examples and then this script, which reads
# their outputs and builds the wrong variants in a temporary directory.
# Ends with "N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
EX=$BUILD/examples
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# has FILE ERE WHAT: some line of FILE matches the extended regular expression
has() { grep -qE -- "$2" "$1" && ok || bad "$3: no line of $1 matches '$2'"; }
# hasnt FILE ERE WHAT: no line does
hasnt() { grep -qE -- "$2" "$1" && bad "$3: $1 has a line matching '$2'" || ok; }

# The sub-makes run with an absolute tcgen and none of the calling make's flags.
case $TCGEN in */*) TCGEN=$(cd "$(dirname "$TCGEN")" && pwd)/$(basename "$TCGEN") ;;
                *) TCGEN=$(command -v "$TCGEN") ;; esac
submake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$root/examples/$1" check \
                TCGEN="$TCGEN" "${@:2}" >"$tmp/out" 2>&1; }

for f in "$EX"/ccsd/output.txt "$EX"/emitted/output.txt "$EX"/fortran/output.txt; do
    [ -s "$f" ] || { echo "examples_test: $f is missing; run make examples (BUILD=$BUILD)" >&2; exit 1; }
done

# Every contraction file parses.
n=0
for f in "$root"/examples/*.tc; do
    n=$((n + 1))
    "$TCGEN" parse -f "$f" -q >/dev/null 2>"$tmp/err" && ok || bad "tcgen parse -f $f: $(head -c 300 "$tmp/err")"
done
[ "$n" -ge 7 ] && ok || bad "only $n contraction files in examples/"

# ---- ccsd: every term planned, planned again from wisdom, checked.
out=$EX/ccsd/output.txt
has "$out" "^ccsd: o=[0-9]+ v=[0-9]+, 3 doubles terms" "ccsd header"
for t in ladder hole_ladder ring; do
    has "$out" "^  $t +R\[a,b,i,j\] \+= .* estimate +[^ ]*d(gemm|gemv|ger|axpy|dot)(@[0-9]+)? +planned in [0-9.]+ s$" \
        "ccsd: $t planned with TC_ESTIMATE"
    has "$out" "^  $t +wisdom +[^ ]*d(gemm|gemv|ger|axpy|dot)(@[0-9]+)? +planned in [0-9.]+ s \(same algorithm\)$" \
        "ccsd: $t planned again from wisdom"
    has "$out" "^  $t +[^ ]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+  ok$" "ccsd: $t checked"
    # the executed algorithm is the estimated one; predicted and measured times are positive
    est=$(awk -v t="$t" '$1 == t && / estimate / { print $(NF - 4) }' "$out")
    run=$(awk -v t="$t" '$1 == t && $NF == "ok" { print $2 }' "$out")
    [ -n "$est" ] && [ "$est" = "$run" ] && ok || bad "ccsd: $t estimated '$est' but ran '$run'"
    awk -v t="$t" '$1 == t && $NF == "ok" { found = 1; if (!($3 > 0 && $4 > 0)) exit 1 }
                   END { exit !found }' "$out" && ok || bad "ccsd: $t times not positive"
done
# planning from wisdom benchmarks nothing: it takes less time than estimating
awk '/ estimate .* s$/ { e += $(NF - 1) } / \(same algorithm\)$/ { w += $(NF - 3) }
     END { exit !(w > 0 && w < e) }' "$out" && ok || bad "ccsd: planning from wisdom is not faster"
has "$out" "TC_WISDOM_ONLY refuses: .+" "ccsd: TC_WISDOM_ONLY without wisdom"
has "$out" "^ccsd: all 3 terms ok$" "ccsd: verdict"
w=$EX/ccsd/ccsd.wisdom
# Wisdom is keyed by structure (docs/design.md): each term is stored in its
# canonical form, tensors C, A, B and indices in order of first appearance, so
# the ladder R[a,b,i,j] += 0.5 * W[a,b,e,f] * T[e,f,i,j] is C[a,b,c,d] += ...
# with its sizes renamed alike. o and v are read from the output's header.
o=$(sed -n 's/^ccsd: o=\([0-9]*\) v=.*/\1/p' "$out"); v=$(sed -n 's/^ccsd: o=[0-9]* v=\([0-9]*\),.*/\1/p' "$out")
for c in "C[a,b,c,d] += A[a,b,e,f] * B[e,f,c,d]	a=$v,b=$v,c=$o,d=$o,e=$v,f=$v" \
         "C[a,b,c,d] += A[a,b,e,f] * B[e,f,c,d]	a=$v,b=$v,c=$o,d=$o,e=$o,f=$o" \
         "C[a,b,c,d] += A[a,e,c,f] * B[f,b,e,d]	a=$v,b=$v,c=$o,d=$o,e=$v,f=$o"; do
    [ -n "$o" ] && grep -qF -- "$c" "$w" && ok || bad "ccsd: wisdom file lacks '$c'"
done
"$EX/ccsd/ccsd" 0 4 >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "^usage: ccsd" "$tmp/out" && ok || bad "ccsd 0 4: no usage error"

# ---- emitted: three routines compiled as plain C99, checked by main.c.
out=$EX/emitted/output.txt
for line in "ladder \(v=[0-9]+ o=[0-9]+\)" "transform \(a=64 n=80 i=16 j=16 m=80\)" \
            "transform \(a=7 n=5 i=3 j=4 m=6\)" "transform \(a=7 n=5 i=3 j=4 m=0\)" \
            "transform \(a=INT_MAX\+1\) +returned -2" "ring_rm \(v=[0-9]+ o=[0-9]+, row-major\)"; do
    has "$out" "^$line .*  ok$" "emitted: $line"
done
has "$out" "^emitted: all checks ok$" "emitted: verdict"
has "$EX/emitted/ladder.c" "^int ladder\(const double \*A, const double \*B, double \*C\)$" "emitted: ladder signature"
has "$EX/emitted/ladder.c" "column-major" "emitted: ladder layout"
has "$EX/emitted/transform.c" "^int transform\(size_t a, size_t n, size_t i, size_t j, size_t m,$" \
    "emitted: generic signature (indices of V, then of Cv)"
has "$EX/emitted/ring_rm.c" "row-major" "emitted: ring_rm layout"
for f in ladder transform ring_rm; do
    has "$EX/emitted/$f.c" "^#include <cblas.h>$" "emitted: $f includes cblas.h"
    hasnt "$EX/emitted/$f.c" "tcgen\.h|tc_[a-z]+\(" "emitted: $f needs no tcgen"
done

# ---- fortran: the routines called through ISO_C_BINDING.
out=$EX/fortran/output.txt
for line in "relativity \(i=j=[0-9]+ a=b=c=[0-9]+\)" "gemv_like \(a=40 i=24 j=32\)" "gemv_like \(a=7 i=5 j=3\)"; do
    has "$out" "^$line +returned 0, max error .*  ok$" "fortran: $line"
done
has "$out" "^fortran: all checks ok$" "fortran: verdict"
has "$EX/fortran/gemv_like.c" "^int gemv_like\(size_t a, size_t i, size_t j,$" "fortran: generic signature"
has "$EX/fortran/gemv_like_interface.f90" "^module gemv_like_interface$" "fortran: emitted interface module"
has "$EX/fortran/gemv_like_interface.f90" "bind\(C, name=\"gemv_like\"\)" "fortran: interface binds the emitted C"
has "$EX/fortran/gemv_like_interface.f90" "^  subroutine gemv_like_checked\(n_a, n_i, n_j, A, B, C, stat, errmsg\)$" \
    "fortran: the checked wrapper main.F90 calls"

# ---- wrong builds must be caught (and only where they are wrong).
# main.c for v=24, routines generated for v=20: the fixed-size ones are wrong.
submake emitted OUT="$tmp/emitted" VIRT=20 MAIN_VIRT=24
[ $? -ne 0 ] && ok || bad "emitted: sizes mismatched, yet make check succeeded"
has "$tmp/out" "^ladder \(v=24 o=8\) .*MISMATCH$" "emitted, mismatched sizes: ladder"
has "$tmp/out" "^ring_rm \(v=24 o=8, row-major\) .*MISMATCH$" "emitted, mismatched sizes: ring_rm"
has "$tmp/out" "^transform \(a=7 n=5 i=3 j=4 m=6\) .*  ok$" "emitted, mismatched sizes: generic transform"
has "$tmp/out" "^emitted: 2 checks FAILED$" "emitted, mismatched sizes: verdict"
# ring_rm generated column-major while main.c passes C-order tensors.
submake emitted OUT="$tmp/emitted" RING_LAYOUT=col
[ $? -ne 0 ] && ok || bad "emitted: layouts mismatched, yet make check succeeded"
has "$tmp/out" "^ring_rm .*MISMATCH$" "emitted, mismatched layout: ring_rm"
has "$tmp/out" "^ladder \(v=24 o=8\) .*  ok$" "emitted, mismatched layout: ladder"
has "$tmp/emitted/ring_rm.c" "column-major" "emitted, mismatched layout: ring_rm.c regenerated"
# Fortran: relativity generated for a=b=c=32, main.F90 compiled for 40.
submake fortran OUT="$tmp/fortran" NABC=32 MAIN_NABC=40
[ $? -ne 0 ] && ok || bad "fortran: sizes mismatched, yet make check succeeded"
has "$tmp/out" "^relativity \(i=j=8 a=b=c=40\) .*MISMATCH$" "fortran, mismatched sizes: relativity"
has "$tmp/out" "^gemv_like \(a=7 i=5 j=3\) .*  ok$" "fortran, mismatched sizes: gemv_like"
"$tmp/fortran/check" >/dev/null 2>&1
[ $? -ne 0 ] && ok || bad "fortran: a failed check exits 0 (error stop expected)"

finish "examples"
