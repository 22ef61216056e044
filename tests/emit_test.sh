#!/usr/bin/env bash
# emit_test.sh - what `tcgen emit` and the main job write besides the C
# itself: --fortran (the interface module compiles with gfortran
# -std=f2008, is written only when the C is, atomically; examples/fortran
# builds from it and runs), --function checked before any work, header
# comments that survive any command line, names that are not usable in C
# or clash in Fortran. Ends with "emit: N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
CC=${CC:-cc}
MAKE=${MAKE:-make}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export TCGEN_THREADS=1

inc=$(cblas_include)
FC=$(command -v gfortran || true)
[ -n "$FC" ] || echo "emit_test: gfortran not found: the Fortran checks are skipped" >&2
FFLAGS="-std=f2008 -Wall -Wextra -pedantic -Werror"

# cc_ok FILE WHAT: the C compiles warning-free, also under the stricter
# warnings a user's build may add (conversions, shadowing).
cc_ok() {
    if $CC $EMITTED_CFLAGS -I"$inc" -c -o "$1.o" "$1" 2>"$tmp/cc.err"; then
        ok
    else
        bad "$2: the C does not compile: $(head -c 400 "$tmp/cc.err")"
    fi
}
# fc_ok FILE WHAT: the Fortran module compiles warning-free.
fc_ok() {
    [ -n "$FC" ] || return 0
    if (cd "$tmp" && $FC $FFLAGS -c -o "$1.o" "$1") 2>"$tmp/fc.err"; then
        ok
    else
        bad "$2: the module does not compile: $(head -c 600 "$tmp/fc.err")"
    fi
}
# first CONTRACTION SIZES: the first algorithm tcgen list shows.
first() { "$TCGEN" list "$@" --family paper --format tsv | awk -F'\t' '!/^#/ && $1 != "name" {print $1; exit}'; }
# has FILE REGEX WHAT
has() { if grep -Eq -- "$2" "$1"; then ok; else bad "$3: no line matching '$2' in $1"; fi; }

R='R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]'
RS='a=b=e=6,i=j=m=4'
ALG="ab'e'-dgemm"

# ---- --fortran with emit and the main job, fixed and generic, both layouts
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" --function ring -o "$tmp/ring.c" \
    --fortran "$tmp/ring_if.f90" 2>"$tmp/err" && ok || bad "emit --fortran failed: $(cat "$tmp/err")"
cc_ok "$tmp/ring.c" "emit --fortran"
fc_ok ring_if.f90 "emit --fortran"
has "$tmp/ring_if.f90" '^module ring_interface$' "module name"
has "$tmp/ring_if.f90" 'function ring\(T, W, R\) &$' "dummies named after the tensors"
has "$tmp/ring_if.f90" 'result\(rc\) bind\(C, name="ring"\)$' "bind(C)"
has "$tmp/ring_if.f90" 'real\(c_double\), intent\(in\) :: T\(6, 6, 4, 4\)$' "A intent(in), its shape"
has "$tmp/ring_if.f90" 'real\(c_double\), intent\(inout\) :: R\(6, 6, 4, 4\)$' "C intent(inout)"
has "$tmp/ring_if.f90" 'integer\(c_int\) :: rc$' "result c_int"

# (the main job: list does not show --layout row's names)
"$TCGEN" "$R" "$RS" -q --function ring --generic --layout row \
    -o "$tmp/ringg.c" --fortran "$tmp/ringg_if.f90" 2>"$tmp/err" && ok || bad "--generic --layout row --fortran: $(cat "$tmp/err")"
cc_ok "$tmp/ringg.c" "--generic --layout row --fortran"
fc_ok ringg_if.f90 "--generic --layout row --fortran"
has "$tmp/ringg_if.f90" 'function ring\(n_a, n_b, n_i, n_j, n_e, n_m, T, W, R\) &$' "generic dummies"
has "$tmp/ringg_if.f90" 'integer\(c_size_t\), value :: n_a, n_b, n_i, n_j, n_e, n_m$' "sizes by value"
has "$tmp/ringg_if.f90" 'intent\(in\) :: T\(n_m, n_i, n_e, n_a\)$' "row-major: indices reversed"

# ---- names: C keywords and types, Fortran's case-insensitive clashes
H='r[size_t,int] = R[size_t,I,A,a] * t[I,A,a,int]'
"$TCGEN" emit "$H" size_t=int=I=A=a=3 --algorithm "$(first "$H")" --generic --function h \
    -o "$tmp/h.c" --fortran "$tmp/h_if.f90" 2>"$tmp/err" && ok || bad "hostile names: $(cat "$tmp/err")"
cc_ok "$tmp/h.c" "hostile names"
fc_ok h_if.f90 "hostile names"
has "$tmp/h.c" '^int h\(size_t n_size_t, size_t n_int, size_t n_I, size_t n_A, size_t a,$' \
    "C parameters: the name or n_NAME"
has "$tmp/h_if.f90" 'function h\(n_size_t, n_int, n_I, n_A, n_a_2, R, t, r_2\) &$' \
    "Fortran: case-insensitive clashes renamed"

# ---- the header comment survives any command line
mkdir -p "$tmp/x*/y "
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" -o "$tmp/x*/y /*z.c" 2>"$tmp/err" \
    && ok || bad "emit -o 'x*/y /*z.c': $(cat "$tmp/err")"
cp "$tmp/x*/y /*z.c" "$tmp/comment.c" 2>/dev/null
cc_ok "$tmp/comment.c" "'*/' and '/*' in the command line"

# ---- --function before any work (-v prints progress lines off a terminal)
"$TCGEN" "$R" "$RS" -v --function 1abc -o "$tmp/f.c" 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "--function 1abc: exit status 2 expected"
has "$tmp/err" "'1abc' cannot be the function's name" "--function 1abc: the message"
grep -q predicting "$tmp/err" && bad "--function 1abc: ranked first: $(cat "$tmp/err")" || ok
long=f234567890123456789012345678901234567890123456789012345
"$TCGEN" "$R" "$RS" -v --function "$long" -o "$tmp/f.c" --fortran "$tmp/f.f90" 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "--fortran with a 55-character --function: exit status 2 expected"
has "$tmp/err" "too long for --fortran" "--fortran, long --function: the message"
grep -q predicting "$tmp/err" && bad "--fortran, long --function: ranked first" || ok
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" --function size_t 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && ok || bad "emit --function size_t: exit status 2 expected"
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" --fortran - 2>/dev/null >/dev/null
[ $? -eq 2 ] && ok || bad "--fortran -: exit status 2 expected"
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" -o "$tmp/same" --fortran "$tmp/same" 2>/dev/null
[ $? -eq 2 ] && [ ! -e "$tmp/same" ] && ok || bad "--fortran and -o the same file: refused expected"
[ ! -e "$tmp/f.c" ] && [ ! -e "$tmp/f.f90" ] && ok || bad "a refused run wrote a file"

# ---- the wider families: one dgemm over b*c, no pass over C; a permutation
"$TCGEN" emit 'C[a,b,c] = A[a,i] * B[i,b,c]' a=b=c=8,i=4 --algorithm '(bc)-dgemm' >"$tmp/f.c" 2>"$tmp/err"
[ $? -eq 0 ] && ok || bad "emit of a fused algorithm: exit status 0 expected: $(cat "$tmp/err")"
has "$tmp/f.c" "\(int\)N_a, \(int\)\(N_b \* N_c\), \(int\)N_i," "emit of (bc)-dgemm: n = b*c"
grep -q "C\[pos\]" "$tmp/f.c" && bad "emit of (bc)-dgemm: a pass over C" || ok
"$TCGEN" emit 'C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]' a=b=c=d=e=f=4 --algorithm 'A^B^C^-dgemm' \
    --fortran "$tmp/p_if.f90" >"$tmp/p.c" 2>"$tmp/err" && ok || bad "emit of A^B^C^-dgemm: $(cat "$tmp/err")"
fc_ok p_if.f90 "emit of A^B^C^-dgemm --fortran"
has "$tmp/p_if.f90" 'subroutine contraction_release\(\) bind\(C, name="contraction_release"\)' \
    "emit of A^B^C^-dgemm --fortran: the release bound"
has "$tmp/p.c" "tcgen_permute\(4, tmp_extent, A, tmp_tensor, tmpA, tmp_temp, 0\.0, N_a \* N_e \* N_b \* N_f\);" \
    "emit of A^B^C^-dgemm: A permuted by the kernel"
$CC -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c -o "$tmp/p.o" "$tmp/p.c" 2>"$tmp/cc" \
    && ok || bad "emit of A^B^C^-dgemm does not compile: $(head -c 300 "$tmp/cc")"
has "$tmp/p.c" "^void contraction_release\(void\)$" "emit of A^B^C^-dgemm: a release"
grep -q "^#define TCGEN_KEEP_TEMPORARIES" "$tmp/p.c" && bad "emit of A^B^C^-dgemm: temporaries kept by default" || ok
has "$tmp/p.c" "temporaries are allocated per call" "emit of A^B^C^-dgemm: the header says per call"
"$TCGEN" emit 'C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]' a=b=c=d=e=f=4 --algorithm 'A^B^C^-dgemm' \
    --keep-temporaries >"$tmp/pk.c" 2>"$tmp/err" && ok || bad "emit --keep-temporaries: $(cat "$tmp/err")"
has "$tmp/pk.c" "^#define TCGEN_KEEP_TEMPORARIES" "emit --keep-temporaries: the file keeps them"
has "$tmp/pk.c" "temporaries are kept between calls" "emit --keep-temporaries: the header says kept"
cc_ok "$tmp/pk.c" "emit --keep-temporaries"
# C permuted back block by block: inside loop e, at the block's offset, streamed as C's whole
"$TCGEN" emit 'C[a,b,c,d,e,f] = A[d,e,g,a] * B[g,f,b,c]' a=b=c=d=e=f=3,g=4 --algorithm 'A^feC^-dgemm' \
    --generic >"$tmp/bl.c" 2>"$tmp/err" && ok || bad "emit of A^feC^-dgemm: $(cat "$tmp/err")"
has "$tmp/bl.c" "tcgen_permute\(4, tmp_extent, tmpC, tmp_temp, &C\[N_a \* N_b \* N_c \* N_d \* ix_e \+ N_a \* N_b \* N_c \* N_d \* N_e \* ix_f\], tmp_tensor, 0\.0, N_a \* N_b \* N_c \* N_d \* N_e \* N_f\);" \
    "emit of A^feC^-dgemm: each block permuted back at its offset"
cc_ok "$tmp/bl.c" "emit of A^feC^-dgemm --generic"
# an input permuted block by block: A's block at c, inside loop c
"$TCGEN" emit 'C_abjcd = A_dkbac B_jk' a=b=c=d=j=k=3 --algorithm 'cA^d(ab)-dgemm' >"$tmp/bi.c" \
    2>"$tmp/err" && ok || bad "emit of cA^d(ab)-dgemm: $(cat "$tmp/err")"
has "$tmp/bi.c" "tcgen_permute\(4, tmp_extent, &A\[N_d \* N_k \* N_b \* N_a \* c\], tmp_tensor, tmpA, tmp_temp, 0\.0, N_d \* N_k \* N_b \* N_a\);" \
    "emit of cA^d(ab)-dgemm: each block permuted in from its offset"
cc_ok "$tmp/bi.c" "emit of cA^d(ab)-dgemm"
$CC -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$inc" -c -o "$tmp/p.o" "$tmp/p.c" 2>"$tmp/cc" \
    && ok || bad "emit of A^B^C^-dgemm does not compile as C11 (_Thread_local): $(head -c 300 "$tmp/cc")"
# the permutation split over OpenMP's threads: compiles clean with
# -fopenmp, and gives the serial build's C bit for bit (18^4 elements of
# A and C: above the split size); split by slices of its outer dimensions
# (A^B^C^-dgemm), and inside its path, where C^'s [c,d,a,b] from
# [a,b,c,d] has no outer dimension
cat >"$tmp/omp_main.c" <<'DRIVER'
#include <stdio.h>
#include <stdlib.h>
int contraction(const double *A, const double *B, double *C);
int main(void)
{
    enum { N = 18 * 18 * 18 * 18 };
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c), s = 0;
    for (long i = 0; i < N; i++)
        a[i] = (double)(i % 7) - 3, b[i] = (double)(i % 5) - 2, c[i] = 0;
    if (contraction(a, b, c))
        return 1;
    for (long i = 0; i < N; i++)
        s += c[i] * (double)(i % 11);
    printf("%a\n", s);
    return 0;
}
DRIVER
while IFS='|' read -r con alg; do
    rm -f "$tmp/omp" "$tmp/omp-fopenmp"
    "$TCGEN" emit "$con" a=b=c=d=e=f=18 --algorithm "$alg" >"$tmp/omp.c" 2>"$tmp/err" && ok ||
        bad "emit of $alg for OpenMP: $(cat "$tmp/err")"
    for omp in "" -fopenmp; do
        $CC -std=c99 -Wall -Wextra -Wpedantic -Werror $omp -I"$inc" -o "$tmp/omp$omp" "$tmp/omp.c" \
            "$tmp/omp_main.c" -lopenblas 2>"$tmp/cc" && ok \
            || bad "emit of $alg with '$omp': $(head -c 300 "$tmp/cc")"
    done
    [ -x "$tmp/omp" ] && [ -x "$tmp/omp-fopenmp" ] &&
        [ "$(OMP_NUM_THREADS=3 "$tmp/omp-fopenmp")" = "$("$tmp/omp")" ] && ok ||
        bad "$alg: the OpenMP build's C differs from the serial build's"
done <<'CASES'
C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]|A^B^C^-dgemm
C[c,d,a,b] = A[a,b,e,f] * B[e,f,c,d]|C^-dgemm
CASES

# ---- written only when the C was; a failure leaves the previous module
echo previous >"$tmp/keep.f90"
"$TCGEN" emit "$R" "$RS" --algorithm nosuch-dgemm --fortran "$tmp/keep.f90" -o "$tmp/k.c" 2>/dev/null
[ $? -ne 0 ] && [ "$(cat "$tmp/keep.f90")" = previous ] && ok ||
    bad "a failed emit touched the --fortran file"
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" --fortran "$tmp/keep.f90" -o "$tmp/nodir/k.c" 2>/dev/null
[ $? -ne 0 ] && [ "$(cat "$tmp/keep.f90")" = previous ] && ok ||
    bad "a C file that could not be written still got its --fortran file"
"$TCGEN" emit "$R" "$RS" --algorithm "$ALG" --fortran "$tmp/nodir/k.f90" -o "$tmp/k2.c" 2>"$tmp/err"
[ $? -eq 3 ] && ok || bad "--fortran into a missing directory: exit status 3 expected"
has "$tmp/err" "nodir/k.f90" "--fortran write error: the message names the file"
ls "$tmp" | grep -q '\.tmp' && bad "a temporary was left: $(ls "$tmp")" || ok

# ---- examples/fortran: built from the emitted interface modules, run
if [ -n "$FC" ]; then
    if $MAKE -s -C examples/fortran check TCGEN="$(cd "$(dirname "$TCGEN")" && pwd)/$(basename "$TCGEN")" \
            OUT="$tmp/fortran" >"$tmp/fortran.out" 2>&1; then ok; else
        bad "examples/fortran: $(tail -5 "$tmp/fortran.out")"
    fi
    has "$tmp/fortran.out" '^fortran: all checks ok$' "examples/fortran: verdict"
    [ -f "$tmp/fortran/relativity_interface.f90" ] && [ -f "$tmp/fortran/gemv_like_interface.f90" ] &&
        ok || bad "examples/fortran: the interface modules were not written by tcgen"
    grep -q 'function relativity' examples/fortran/main.F90 &&
        bad "examples/fortran/main.F90 declares an interface by hand" || ok
fi

finish "emit"
