#!/usr/bin/env bash
# smoke.sh - make check's pass over the command and the library as a user
# meets them, in seconds: the command's version, parse, errors and exit
# statuses, algorithm counts; one algorithm of each kernel (ddot, daxpy,
# dgemv, dger, dgemm, and a dgemm with a copied slice, '+=' and a negative
# factor) emitted as C, compiled -Werror, run and compared with naive loops;
# the main job on a small problem (the only ranking here: prediction costs
# seconds) writing wisdom; a program linked with libtcgen.so (in the build
# tree, by rpath) that imports that wisdom, plans, executes and compares.
# Run from the top directory with BUILD and TCGEN set (scripts/test.sh).
# Ends with "smoke: N passed, N failed".
set -u
BUILD=${BUILD:-build}
TCGEN=${TCGEN:-$BUILD/tcgen}
CC=${CC:-cc}
SAN=${SAN:-}
BLAS_LIBS=${BLAS_LIBS:--lopenblas}
. "$(dirname "${BASH_SOURCE[0]}")/../tests/harness.sh"

# expect STATUS STDERR-SUBSTRING -- ARGS...: tcgen ARGS exits STATUS, saying that.
expect() {
    local want=$1 msg=$2; shift 3
    "$TCGEN" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    [ "$got" -eq "$want" ] && grep -qF -- "$msg" "$tmp/err" && ok \
        || bad "tcgen $* -> exit $got (want $want), stderr: $(head -c 300 "$tmp/err") (want '$msg')"
}

# --- the command --------------------------------------------------------
version=$(sed -n 's/^#define TC_VERSION "\(.*\)".*/\1/p' include/tcgen.h)
out=$("$TCGEN" --version 2>&1)
[ "$out" = "tcgen $version" ] && ok || bad "tcgen --version: '$out', want 'tcgen $version'"
ABC='C[a,b,c] = A[a,i] * B[i,b,c]'
"$TCGEN" parse "$ABC" a=b=c=400,i=8 --format tsv >"$tmp/parse" 2>&1 \
    && grep -q '^index	i	contracted	8' "$tmp/parse" && grep -q '^index	a	free_a	400' "$tmp/parse" \
    && ok || bad "tcgen parse: $(head -c 300 "$tmp/parse")"
expect 1 "1:16: index 'x' appears only in A" -- parse 'C[a,b,c] = A[a,x] * B[i,b,c]'
expect 1 "1:23: unexpected end of input" -- parse 'C[a,b] = A[a,i] * B[i,b'
expect 2 "--no-such-option" -- parse "$ABC" --no-such-option
"$TCGEN" list "$ABC" --family paper --format tsv >"$tmp/list" 2>&1 \
    && grep -qx '# 36 algorithms: dgemm 2, dger 4, dgemv 6, daxpy 18, ddot 6' "$tmp/list" && ok \
    || bad "tcgen list: want 36 algorithms (dgemm 2, dger 4, dgemv 6, daxpy 18, ddot 6): $(tail -n 1 "$tmp/list")"

# --- one algorithm per kernel, emitted, compiled, run ------------------------
# f_KERNEL: the first algorithm of the paper's family with that kernel, for
# C[a,b,c] = A[a,i] * B[i,b,c] at a=5,b=6,c=7,i=3; f_copy: C[a,b,c] += -0.5 *
# A[i,j,a] * B[j,b,i,c] by i'c-dgemm (B's slice copied) at a=4,b=5,c=3,i=3,j=2.
emit() { # FUNCTION CONTRACTION SIZES ALGORITHM
    "$TCGEN" emit "$2" "$3" --algorithm "$4" --function "$1" -o "$tmp/$1.c" 2>"$tmp/err" && ok \
        || bad "tcgen emit --algorithm $4: $(head -c 300 "$tmp/err")"
}
srcs=()
for k in ddot daxpy dgemv dger dgemm; do
    alg=$(awk -F'\t' -v k="$k" '$2 == k { print $1; exit }' "$tmp/list")
    [ -n "$alg" ] || { bad "tcgen list shows no $k algorithm"; continue; }
    emit "f_$k" "$ABC" a=5,b=6,c=7,i=3 "$alg"
    srcs+=("$tmp/f_$k.c")
done
emit f_copy 'C[a,b,c] += -0.5 * A[i,j,a] * B[j,b,i,c]' a=4,b=5,c=3,i=3,j=2 "i'c-dgemm"
srcs+=("$tmp/f_copy.c")
grep -q 'cblas_dcopy\|for (long' "$tmp/f_copy.c" && ok || bad "i'c-dgemm's emitted C copies nothing"

# --- the main job, ranked by prediction; its wisdom ---------------------------
MM='C[a,b] = A[a,i] * B[i,b]'
"$TCGEN" "$MM" a=b=i=16 -q --function f_main --wisdom "$tmp/w" -o "$tmp/f_main.c" 2>"$tmp/err" && ok \
    || bad "tcgen main job: $(head -c 300 "$tmp/err")"
srcs+=("$tmp/f_main.c")
[ -s "$tmp/w" ] && ok || bad "the main job wrote no wisdom to --wisdom FILE"

cat >"$tmp/driver.c" <<'EOF'
#include <math.h>
#include <stdio.h>
int f_ddot(const double *, const double *, double *);
int f_daxpy(const double *, const double *, double *);
int f_dgemv(const double *, const double *, double *);
int f_dger(const double *, const double *, double *);
int f_dgemm(const double *, const double *, double *);
int f_copy(const double *, const double *, double *);
int f_main(const double *, const double *, double *);

static double A[512], B[512], C[512], R[512];
static int failed;

static void fill(int na, int nb, int nc)
{
    for (int k = 0; k < na; k++) A[k] = (k * 7) % 13 - 6.0;
    for (int k = 0; k < nb; k++) B[k] = (k * 5) % 11 - 5.0;
    for (int k = 0; k < nc; k++) C[k] = R[k] = (k * 3) % 7 - 3.0;
}

static void compare(const char *name, int rc, int n)
{
    if (rc != 0) {
        printf("%s returned %d\n", name, rc);
        failed = 1;
        return;
    }
    for (int k = 0; k < n; k++)
        if (fabs(C[k] - R[k]) > 1e-12 * (1 + fabs(R[k]))) {
            printf("%s: C[%d] = %.17g, naive loops give %.17g\n", name, k, C[k], R[k]);
            failed = 1;
            return;
        }
    printf("%s ok\n", name);
}

int main(void)
{
    /* C[a,b,c] = A[a,i] * B[i,b,c], a=5 b=6 c=7 i=3, column-major. */
    int (*const abc[])(const double *, const double *, double *) = {f_ddot, f_daxpy, f_dgemv,
                                                                    f_dger, f_dgemm};
    const char *const names[] = {"f_ddot", "f_daxpy", "f_dgemv", "f_dger", "f_dgemm"};
    for (int f = 0; f < 5; f++) {
        fill(5 * 3, 3 * 6 * 7, 5 * 6 * 7);
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 6; b++)
                for (int c = 0; c < 7; c++) {
                    double s = 0;
                    for (int i = 0; i < 3; i++)
                        s += A[a + 5 * i] * B[i + 3 * (b + 6 * c)];
                    R[a + 5 * (b + 6 * c)] = s;
                }
        compare(names[f], abc[f](A, B, C), 5 * 6 * 7);
    }
    /* C[a,b,c] += -0.5 * A[i,j,a] * B[j,b,i,c], a=4 b=5 c=3 i=3 j=2. */
    fill(3 * 2 * 4, 2 * 5 * 3 * 3, 4 * 5 * 3);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 2; j++)
                        s += A[i + 3 * (j + 2 * a)] * B[j + 2 * (b + 5 * (i + 3 * c))];
                R[a + 4 * (b + 5 * c)] += -0.5 * s;
            }
    compare("f_copy", f_copy(A, B, C), 4 * 5 * 3);
    /* C[a,b] = A[a,i] * B[i,b], a=b=i=16. */
    fill(256, 256, 256);
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++) {
            double s = 0;
            for (int i = 0; i < 16; i++)
                s += A[a + 16 * i] * B[i + 16 * b];
            R[a + 16 * b] = s;
        }
    compare("f_main", f_main(A, B, C), 256);
    return failed;
}
EOF
if [ ${#srcs[@]} -eq 7 ]; then
    if $CC -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -o "$tmp/driver" "$tmp/driver.c" "${srcs[@]}" \
            $BLAS_LIBS -lm >"$tmp/cc.log" 2>&1; then
        ok
        "$tmp/driver" >"$tmp/run" 2>&1 && [ "$(grep -c ' ok$' "$tmp/run")" -eq 7 ] && ok \
            || bad "emitted code against naive loops: $(grep -v ' ok$' "$tmp/run" | head -c 500)"
    else
        bad "the emitted C does not compile -Werror: $(head -c 800 "$tmp/cc.log")"
    fi
fi

# --- the library, linked as a shared object ------------------------------------
cat >"$tmp/lib.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <tcgen.h>

int main(int argc, char **argv)
{
    tc_error err;
    if (argc != 2 || tc_wisdom_import_file(argv[1], &err) != TC_OK) {
        fprintf(stderr, "tc_wisdom_import_file: %s\n", argc == 2 ? err.message : "usage");
        return 1;
    }
    static double A[16 * 16], B[16 * 16], C[16 * 16];
    for (int k = 0; k < 256; k++) {
        A[k] = (k * 7) % 13 - 6.0;
        B[k] = (k * 5) % 11 - 5.0;
        C[k] = NAN; /* "=" overwrites C */
    }
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=b=i=16", TC_ESTIMATE, &err);
    if (!p) {
        fprintf(stderr, "tc_plan_create: %d:%d: %s\n", err.line, err.column, err.message);
        return 1;
    }
    tc_status s = tc_execute(p, A, B, C);
    int bad = s != TC_OK;
    for (int a = 0; a < 16 && !bad; a++)
        for (int b = 0; b < 16 && !bad; b++) {
            double r = 0;
            for (int i = 0; i < 16; i++)
                r += A[a + 16 * i] * B[i + 16 * b];
            bad = !(fabs(C[a + 16 * b] - r) <= 1e-12 * (1 + fabs(r)));
        }
    printf("%s %s by %s (%s)\n", bad ? "wrong" : "ok", tc_status_name(s), tc_plan_algorithm(p),
           tc_plan_origin(p));
    tc_plan_destroy(p);
    tc_wisdom_forget();
    return bad;
}
EOF
if $CC -std=c11 -Wall -Wextra -Wpedantic -Werror $SAN -Iinclude -o "$tmp/lib" "$tmp/lib.c" \
        -L"$BUILD" -ltcgen -Wl,-rpath,"$(cd "$BUILD" && pwd)" -lm >"$tmp/cc.log" 2>&1; then
    ok
    out=$("$tmp/lib" "$tmp/w" 2>&1) && [ "${out%% *}" = ok ] && ok \
        || bad "a program linked with libtcgen.so: $(head -c 500 <<<"$out")"
    echo "library: $out"
else
    bad "cannot build a program against $BUILD/libtcgen.so: $(head -c 800 "$tmp/cc.log")"
fi

finish "smoke"
