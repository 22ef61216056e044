#!/usr/bin/env bash
# fortran_test.sh - tcgen from Fortran, as a program uses it:
#   1. module tcgen (fortran/tcgen.f90, built by make into $BUILD/fortran and
#      $BUILD/libtcgen_fortran.a): tests/fortran/library.f90 plans and
#      executes on allocatable arrays in both layouts and on tiles of larger
#      arrays (tc_plan_create_views), reads the algorithm,
#      moves wisdom through a string and a file, provokes errors and prints
#      their messages; the source is standard Fortran 2008 as well;
#   2. the checked wrappers --fortran writes: tests/fortran/checked.f90
#      calls ring_checked (--generic, column-major), rings_checked (the
#      same split over OpenMP's threads, 3 here) and fixed_checked
#      (fixed sizes, --layout row) with default integers and allocatable
#      arrays, checks the results, and gets an array allocated in the wrong
#      index order with the right element count refused with its message,
#      through stat and errmsg and, without stat, by stopping the program.
# Ends with "fortran: N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export TCGEN_THREADS=1

FC=$(command -v gfortran || true)
if [ -z "$FC" ]; then
    echo "fortran_test: gfortran not found: nothing to test" >&2
    finish "fortran"
    exit
fi
# $SAN: make test-asan's sanitizers, which a program linking its libtcgen.so needs too
FFLAGS=(-std=f2018 -Wall -Wextra -pedantic -Werror -fcheck=all,no-array-temps -fno-backtrace $SAN)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$BUILD" && pwd)

# has FILE TEXT WHAT: FILE has a line that is TEXT exactly.
has() { if grep -qxF -- "$2" "$1"; then ok; else bad "$3: no line '$2' in: $(head -c 800 "$1")"; fi; }
# compile LOG WHAT COMMAND...: one check that COMMAND succeeds.
compile() {
    local log=$1 what=$2; shift 2
    if "$@" >"$log" 2>&1; then ok; else bad "$what: $(head -c 800 "$log")"; return 1; fi
}

# ---- 1. module tcgen ----------------------------------------------------
mod=$build/fortran
lib=$build/libtcgen_fortran.a
[ -f "$mod/tcgen.mod" ] && [ -f "$lib" ] && ok || bad "module tcgen not built: no $mod/tcgen.mod or $lib (make)"
mkdir -p "$tmp/f2008"
compile "$tmp/f2008.log" "fortran/tcgen.f90 as Fortran 2008" \
    "$FC" -std=f2008 -Wall -Wextra -pedantic -Werror -J"$tmp/f2008" -c -o "$tmp/f2008/tcgen.o" fortran/tcgen.f90
if compile "$tmp/library.log" "tests/fortran/library.f90 does not build" \
        "$FC" "${FFLAGS[@]}" -I"$mod" -J"$tmp" -o "$tmp/library" "$here/fortran/checks.f90" \
        "$here/fortran/library.f90" "$lib" \
        -L"$build" -Wl,-rpath,"$build" -ltcgen; then
    "$tmp/library" "$tmp/lib.wisdom" >"$tmp/library.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok || bad "library: exit status $rc: $(grep -v '^ok:' "$tmp/library.out" | head -c 800)"
    has "$tmp/library.out" "library: all checks ok" "library"
    grep -q '^FAIL' "$tmp/library.out" && bad "library: $(grep '^FAIL' "$tmp/library.out")" || ok
    has "$tmp/library.out" "error: in the contraction: unexpected end of input, expected ']' or ',' (to close '[' at 1:20)" \
        "library: tcgen_error_message of a bad contraction"
    grep -q "^error: no wisdom for C\[a,b,c\] = A\[a,d\] \* B\[d,b,c\]" "$tmp/library.out" && ok \
        || bad "library: the TC_WISDOM_ONLY message: $(grep '^error' "$tmp/library.out")"
    grep -q "^error: mode 1 of A (label 2) has stride 4: tcgen takes views" "$tmp/library.out" \
        && ok || bad "library: the overlapping view's message: $(grep '^error' "$tmp/library.out")"
    head -n 1 "$tmp/lib.wisdom" 2>/dev/null | grep -qx '# tcgen wisdom 1' && ok \
        || bad "library: tcgen_wisdom_export_file wrote no wisdom file"
fi

# ---- 2. the checked wrappers of emitted functions ------------------------
inc=$(cblas_include)
R='R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]'
"$TCGEN" emit "$R" a=b=e=6,i=j=m=4 --algorithm "ab'e'-dgemm" --generic --function ring \
    -o "$tmp/ring.c" --fortran "$tmp/ring_interface.f90" 2>"$tmp/err" && ok || bad "emit ring: $(cat "$tmp/err")"
"$TCGEN" emit "$R" a=b=e=6,i=j=m=4 --algorithm "ab'e'-dgemm@2" --generic --function rings \
    -o "$tmp/rings.c" --fortran "$tmp/rings_interface.f90" 2>"$tmp/err" && ok || bad "emit rings: $(cat "$tmp/err")"
"$TCGEN" 'C[a,b,c] = A[a,i] * B[i,b,c]' a=3,b=4,c=5,i=2 -q --layout row --function fixed \
    -o "$tmp/fixed.c" --fortran "$tmp/fixed_interface.f90" 2>"$tmp/err" && ok || bad "fixed: $(cat "$tmp/err")"
built=1
mkdir -p "$tmp/em"
for f in ring rings fixed; do
    compile "$tmp/cc.log" "$f.c" $CC -std=c99 -O2 -fopenmp -I"$inc" -c -o "$tmp/$f.o" "$tmp/$f.c" || built=0
    for std in f2008 f2018; do # the module is Fortran 2008, and 2018 takes it as it is
        compile "$tmp/fc.log" "${f}_interface.f90 with -std=$std" "$FC" -std=$std -Wall -Wextra \
            -pedantic -Werror -J"$tmp/em" -c -o "$tmp/${f}_if.o" "$tmp/${f}_interface.f90" || built=0
    done
done
if [ $built -eq 1 ] && compile "$tmp/checked.log" "tests/fortran/checked.f90 does not build" \
        "$FC" "${FFLAGS[@]}" -I"$tmp/em" -J"$tmp" -o "$tmp/checked" "$here/fortran/checks.f90" \
        "$here/fortran/checked.f90" \
        "$tmp/ring_if.o" "$tmp/rings_if.o" "$tmp/fixed_if.o" "$tmp/ring.o" "$tmp/rings.o" \
        "$tmp/fixed.o" -fopenmp -lopenblas; then
    out=$tmp/checked.out
    OMP_NUM_THREADS=3 "$tmp/checked" run >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] && ok || bad "checked run: exit status $rc: $(grep -v '^ok:' "$out" | head -c 800)"
    has "$out" "checked: all checks ok" "checked run"
    has "$out" "refused: ring: T has extent 6 in dimension 1 (index a), expected 5" "checked: wrong order"
    has "$out" "refused: ring: n_b, the size of index b, is -4: sizes cannot be negative" "checked: negative size"
    has "$out" "refused: fixed: A has extent 3 in dimension 1 (index i), expected 2" "checked: row-major"
    # no stat: the refusal stops the program (error stop 1), the message on stderr
    for mode in wrong-order negative; do
        "$tmp/checked" $mode >"$tmp/$mode.out" 2>"$tmp/$mode.err"
        rc=$?
        [ $rc -eq 1 ] && ok || bad "checked $mode: exit status $rc, want 1 (error stop 1)"
        grep -q "not refused" "$tmp/$mode.out" && bad "checked $mode: the call returned" || ok
    done
    has "$tmp/wrong-order.err" "ring: T has extent 6 in dimension 1 (index a), expected 5" \
        "checked wrong-order: the message on stderr"
    has "$tmp/negative.err" "ring: n_b, the size of index b, is -1: sizes cannot be negative" \
        "checked negative: the message on stderr"
fi

finish "fortran"
