#!/usr/bin/env bash
# main_job_test.sh - the main job as a code meets it: `tcgen CONTRACTION
# SIZES` writes C that compiles warning-free with $EMITTED_CFLAGS
# (harness.sh: -std=c99, -Wall -Wextra -Wpedantic, conversions, shadowing)
# against OpenBLAS and computes the right result, in both layouts, with
# fixed sizes and --generic, for '=' and '+=' with a factor;
# plus --measure, --wisdom, -o and the errors. Ends with "N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
DATA=${TC_TEST_DATA:-tests/data}
CC=${TC_TEST_CC:-cc}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export TCGEN_THREADS=1

inc=$(cblas_include)

# build NAME ROW GENERIC ACC ALPHA -- TCGEN-ARGS: emit, compile, run at other sizes.
build() {
    local name=$1 row=$2 generic=$3 acc=$4 alpha=$5; shift 6
    if ! "$TCGEN" "$@" -q -o "$tmp/$name.c" 2>"$tmp/$name.err"; then
        bad "$name: tcgen $* failed: $(head -c 300 "$tmp/$name.err")"; return
    fi
    local sizes="-DNA=7 -DNB=5 -DNC=6 -DNI=3"   # what the code is run at
    [ "$generic" = 0 ] && sizes="-DNA=9 -DNB=8 -DNC=7 -DNI=4"  # what it was emitted for
    if ! $CC $EMITTED_CFLAGS -I"$inc" -c -o "$tmp/$name.o" "$tmp/$name.c" 2>"$tmp/$name.cc"; then
        bad "$name: emitted code does not compile warning-free: $(head -c 400 "$tmp/$name.cc")"; return
    fi
    ok
    if ! $CC -std=c99 -O1 -DROW="$row" -DGENERIC="$generic" -DACC="$acc" -DALPHA="$alpha" $sizes \
            -o "$tmp/$name" "$DATA/main_job/driver.c" "$tmp/$name.o" -lopenblas -lm 2>"$tmp/$name.cc"; then
        bad "$name: driver does not build: $(head -c 400 "$tmp/$name.cc")"; return
    fi
    if "$tmp/$name" >"$tmp/$name.out" 2>&1; then ok; else bad "$name: $(cat "$tmp/$name.out")"; fi
}

S='a=9,b=8,c=7,i=4'
build col      0 0 0 1.0 -- 'C[a,b,c] = A[a,i] * B[i,b,c]' "$S"
build row      1 0 0 1.0 -- 'C[a,b,c] = A[a,i] * B[i,b,c]' "$S" --layout row
build colacc   0 0 1 0.5 -- 'C[a,b,c] += 0.5 * A[a,i] * B[i,b,c]' "$S"
build rowacc   1 0 1 0.5 -- 'C[a,b,c] += 0.5 * A[a,i] * B[i,b,c]' "$S" --layout row
build gen      0 1 0 1.0 -- 'C[a,b,c] = A[a,i] * B[i,b,c]' "$S" --generic
build genrow   1 1 1 -2.0 -- 'C[a,b,c] += -2 * A[a,i] * B[i,b,c]' "$S" --generic --layout row
build measured 0 0 0 1.0 -- 'C[a,b,c] = A[a,i] * B[i,b,c]' "$S" --measure --candidates 3 --reps 1

# The header says what the choice rests on.
h="$tmp/col.c"
for want in "contraction  C[a,b,c] = A[a,i] * B[i,b,c]" "predicted" "GFLOP/s" "runner-ups" \
            "ranked       41 algorithms" "machine" "openblas" "column-major"; do
    grep -qF -- "$want" "$h" && ok || bad "main job header lacks '$want'"
done
grep -qF "row-major (C order" "$tmp/row.c" && ok || bad "row-major header lacks the layout"
grep -qF "measured" "$tmp/measured.c" && ok || bad "--measure header does not say measured"
grep -qE "^int contraction\(size_t a, size_t b, size_t c, size_t i,$" "$tmp/gen.c" && ok \
    || bad "--generic prototype: $(grep -A1 '^int contraction' "$tmp/gen.c")"
alg=$(sed -n 's/^ \*   algorithm    //p' "$h")
"$TCGEN" list 'C[a,b,c] = A[a,i] * B[i,b,c]' | cut -f1 | grep -qxF -- "$alg" && ok \
    || bad "main job chose '$alg', not an algorithm of the contraction"

# Without -o the C goes to stdout, the summary to stderr; --function names it.
"$TCGEN" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --function my_gemm >"$tmp/o.c" 2>"$tmp/o.err"
grep -q "^int my_gemm(const double \*A, const double \*B, double \*C)" "$tmp/o.c" && ok \
    || bad "stdout lacks the function my_gemm"
grep -q "^tcgen: .*predicted" "$tmp/o.err" && ok || bad "stderr lacks the summary: $(cat "$tmp/o.err")"

# --wisdom: the first run decides and writes it, the second reuses it.
W="$tmp/w.txt"
"$TCGEN" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --wisdom "$W" -o "$tmp/w1.c" 2>/dev/null
head -1 "$W" | grep -qx "# tcgen wisdom 1" && ok || bad "--wisdom wrote no wisdom file"
"$TCGEN" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --wisdom "$W" -o "$tmp/w2.c" 2>"$tmp/w2.err"
grep -q "from wisdom" "$tmp/w2.err" && ok || bad "second run did not use the wisdom: $(cat "$tmp/w2.err")"
grep -qF "remembered" "$tmp/w2.c" && ok || bad "wisdom-based header does not say remembered"
[ "$(sed -n 's/^ \*   algorithm    //p' "$tmp/w1.c")" = "$(sed -n 's/^ \*   algorithm    //p' "$tmp/w2.c")" ] \
    && ok || bad "wisdom gave another algorithm"
# A damaged wisdom file is refused with its line and column, and left alone.
printf '# tcgen wisdom 1\nC[a,b] = A[a,i] * B[i,b]\ta=8,b=8,i=8\tdiag\n' >"$tmp/bad.txt"
cp "$tmp/bad.txt" "$tmp/bad.orig"
"$TCGEN" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --wisdom "$tmp/bad.txt" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 1 ] && ok || bad "damaged wisdom: exit status is not 1"
grep -qF "$tmp/bad.txt:2:1:" "$tmp/bad.err" && ok || bad "damaged wisdom: no file:line:column: $(cat "$tmp/bad.err")"
cmp -s "$tmp/bad.txt" "$tmp/bad.orig" && ok || bad "damaged wisdom file was overwritten"

# More candidates than tcgen ranks at once (489726 here, the bound is
# 100000): the main job ranks a stated subset, says so on stderr and in the
# header, naming no option it refuses, and its C matches the reference
# loops (runtime/reference.c, from libtcgen.a).
BIG='C[a,b,o,p,d,g,h,q] = A[p,o,g,n] * B[q,a,h,b,d,n]'
BIGS='a=1,b=3,d=8,g=2,h=8,n=2,o=10,p=3,q=4'
LIB_A=${BUILD:-build}/libtcgen.a
if "$TCGEN" "$BIG" "$BIGS" -o "$tmp/big.c" 2>"$tmp/big.err"; then
    ok
    grep -qE "^tcgen: .*ranked [0-9]+ of [0-9]+ candidates by prediction \(the dgemm" "$tmp/big.err" \
        && ok || bad "big contraction: stderr does not say which candidates: $(cat "$tmp/big.err")"
    grep -qE "candidates   [0-9]+ of [0-9]+ ranked \(the dgemm" "$tmp/big.c" && ok \
        || bad "big contraction: the header does not say which candidates"
    ! grep -q -- "--kernels" "$tmp/big.err" "$tmp/big.c" && ok \
        || bad "big contraction: a message names --kernels, which the main job refuses"
    if $CC $EMITTED_CFLAGS -I"$inc" -c -o "$tmp/big.o" "$tmp/big.c" 2>"$tmp/big.cc" &&
       $CC ${SAN:-} -std=c99 -O1 -Iinclude -I. -o "$tmp/big" "$DATA/main_job/reference_driver.c" \
           "$tmp/big.o" "$LIB_A" -lopenblas -lhwloc -ldl -lm -lpthread 2>>"$tmp/big.cc"; then
        "$tmp/big" "$BIG" "$BIGS" >"$tmp/big.out" 2>&1 && ok \
            || bad "big contraction: emitted C differs from the reference: $(cat "$tmp/big.out")"
    else
        bad "big contraction: does not build: $(head -c 400 "$tmp/big.cc")"
    fi
else
    bad "big contraction: tcgen failed: $(head -c 300 "$tmp/big.err")"
fi

# Errors: bad layout (2), bad candidates (2), missing size (1); nothing on stdout or in -o.
expect_status() {
    local want=$1 msg=$2; shift 2
    "$TCGEN" "$@" >"$tmp/e.out" 2>"$tmp/e.err"; local got=$?
    [ "$got" -eq "$want" ] && grep -qF -- "$msg" "$tmp/e.err" && [ ! -s "$tmp/e.out" ] && ok \
        || bad "tcgen $* -> $got, want $want with '$msg': $(head -c 300 "$tmp/e.err")"
}
expect_status 2 "unknown layout 'diag'" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --layout diag
expect_status 2 "--candidates needs a whole number" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --measure --candidates x
expect_status 1 "no size given for index 'i'" 'C[a,b] = A[a,i] * B[i,b]' a=b=8
expect_status 3 "BLAS" 'C[a,b] = A[a,i] * B[i,b]' a=b=i=8 --blas /nonexistent/libcblas.so
rm -f "$tmp/none.c"
"$TCGEN" 'C[a,b] = A[a,i] * B[i,b]' a=b=8 -o "$tmp/none.c" 2>/dev/null
[ ! -e "$tmp/none.c" ] && ok || bad "a failed main job left $tmp/none.c"

finish "main job"
