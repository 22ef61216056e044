#!/usr/bin/env bash
# install_test.sh - make install / make uninstall as a user meets them: the
# files land where they should, the installed tcgen runs, the man page is
# valid roff, documents every option and is what `man tcgen` shows with
# PREFIX/bin on PATH, pkg-config gives flags that build a program that runs
# without LD_LIBRARY_PATH (an rpath for a non-system libdir) against the
# shared library, and against the archive (static_libs), a Fortran program
# builds with the installed module tcgen (tcgen.mod and libtcgen_fortran.a,
# and from the installed source tcgen.f90 as another compiler would), the
# Python package imports with PYTHONPATH set to the folder install names and
# computes a contraction with the installed library (writing its
# __pycache__, as a user's import does), and uninstall leaves nothing
# behind. Run from the top directory (make
# test-install does, with TCGEN, BUILD, CC, SAN and MAKE set); it installs
# with the same BUILD so nothing is rebuilt. Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
TCGEN=${TCGEN:-$BUILD/tcgen}
MAKE=${MAKE:-make}
CC=${CC:-cc}
SAN=${SAN:-}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# check DESCRIPTION COMMAND...: one check that COMMAND succeeds.
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

version=$(sed -n 's/^#define TC_VERSION "\([0-9.]*\)".*/\1/p' include/tcgen.h)
major=${version%%.*}
[ -n "$version" ] && ok || bad "no TC_VERSION in include/tcgen.h"
files=(bin/tcgen lib/libtcgen.a "lib/libtcgen.so.$version" "lib/libtcgen.so.$major"
       lib/libtcgen.so include/tcgen.h lib/pkgconfig/tcgen.pc share/man/man1/tcgen.1
       lib/cmake/tcgen/tcgenConfig.cmake lib/cmake/tcgen/tcgenConfigVersion.cmake include/tcgen.f90
       lib/tcgen/python/tcgen/_installed.py)
for f in python/tcgen/*.py; do files+=("lib/tcgen/python/tcgen/${f##*/}"); done
files+=(include/tapp.h)
for f in include/tapp/*.h; do files+=("include/tapp/${f##*/}"); done
# the module file and the wrappers' code when gfortran built them (make all)
FC=$(command -v gfortran || true)
[ -n "$FC" ] && files+=(include/tcgen.mod lib/libtcgen_fortran.a)

# mk TARGET PREFIX [VAR=VALUE...]: make install/uninstall, output in $tmp/make.log.
mk() {
    local target=$1 prefix=$2; shift 2
    $MAKE --no-print-directory "$target" PREFIX="$prefix" BUILD="$BUILD" "$@" >"$tmp/make.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || echo "  make $target PREFIX=$prefix $*: $(tail -n 5 "$tmp/make.log")" >&2
    return $rc
}
# The files and links under DIR, one per line, sorted (empty if DIR is gone).
left() { [ -d "$1" ] && (cd "$1" && find . -mindepth 1 \( -type f -o -type l \) | sort); }

# --- install into a prefix that does not exist yet -------------------------
p=$tmp/prefix
check "make install PREFIX=$p" mk install "$p"
cp "$tmp/make.log" "$tmp/install.log"
if [ -n "${MAKELEVEL:-}" ]; then  # make test-install built everything first
    grep -qE '^ *(CC|LD|AR|BISON|FLEX) ' "$tmp/make.log" \
        && bad "make install rebuilt something: $(grep -E '^ *(CC|LD|AR) ' "$tmp/make.log" | head -3)" || ok
fi
for f in "${files[@]}"; do
    [ -e "$p/$f" ] && ok || bad "make install did not install $f"
done
[ "$(left "$p" | wc -l)" -eq ${#files[@]} ] && ok \
    || bad "make install installed more than ${#files[@]} files: $(left "$p" | tr '\n' ' ')"
[ -x "$p/bin/tcgen" ] && ok || bad "bin/tcgen is not executable"
[ ! -x "$p/include/tcgen.h" ] && [ ! -x "$p/share/man/man1/tcgen.1" ] && ok \
    || bad "tcgen.h or tcgen.1 installed executable"
cmp -s "$TCGEN" "$p/bin/tcgen" && ok || bad "bin/tcgen differs from $TCGEN"
cmp -s "$BUILD/libtcgen.a" "$p/lib/libtcgen.a" && ok || bad "lib/libtcgen.a differs from $BUILD/libtcgen.a"
cmp -s "$BUILD/libtcgen.so" "$p/lib/libtcgen.so.$version" && ok \
    || bad "lib/libtcgen.so.$version differs from $BUILD/libtcgen.so"
cmp -s include/tcgen.h "$p/include/tcgen.h" && ok || bad "include/tcgen.h differs"
cmp -s man/tcgen.1 "$p/share/man/man1/tcgen.1" && ok || bad "tcgen.1 differs"
cmp -s fortran/tcgen.f90 "$p/include/tcgen.f90" && ok || bad "include/tcgen.f90 differs"
if [ -n "$FC" ]; then
    cmp -s "$BUILD/fortran/tcgen.mod" "$p/include/tcgen.mod" && ok || bad "include/tcgen.mod differs"
    [ ! -x "$p/include/tcgen.mod" ] && [ ! -x "$p/include/tcgen.f90" ] && ok || bad "tcgen.mod or tcgen.f90 installed executable"
fi
[ "$(readlink "$p/lib/libtcgen.so.$major")" = "libtcgen.so.$version" ] && ok \
    || bad "lib/libtcgen.so.$major is not a link to libtcgen.so.$version"
[ "$(readlink "$p/lib/libtcgen.so")" = "libtcgen.so.$major" ] && ok \
    || bad "lib/libtcgen.so is not a link to libtcgen.so.$major"
if command -v readelf >/dev/null; then
    soname=$(readelf -d "$p/lib/libtcgen.so.$version" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "libtcgen.so.$major" ] && ok \
        || bad "libtcgen.so's soname is '$soname', want libtcgen.so.$major (the top Makefile links it with -Wl,-soname,\$(TC_SONAME))"
else
    echo "note: no readelf; soname not checked" >&2
fi

# --- the installed command --------------------------------------------------
out=$("$p/bin/tcgen" --version 2>&1)
[ "$out" = "tcgen $version" ] && ok || bad "installed tcgen --version says '$out', want 'tcgen $version'"
"$p/bin/tcgen" parse 'C[a,b] = A[a,i] * B[i,b]' a=b=i=16 --format tsv >"$tmp/parse.tsv" 2>&1 \
    && grep -q '^index	i	contracted	16' "$tmp/parse.tsv" && ok \
    || bad "installed tcgen parse: $(head -c 300 "$tmp/parse.tsv")"

# --- the Python package ---------------------------------------------------
# imported from outside the repository by PYTHONPATH alone (the folder make
# install printed), it loads the installed library and computes right
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
grep -qxF "Python: PYTHONPATH=$p/lib/tcgen/python python3 -c 'import tcgen'" "$tmp/install.log" && ok \
    || bad "make install does not print the PYTHONPATH: $(tail -n 3 "$tmp/install.log")"
# shellcheck disable=SC2046 # python_env gives VAR=VALUE words (the sanitizers' runtimes)
out=$(cd "$tmp" && env -u TCGEN_LIBRARY -u LD_LIBRARY_PATH -u PYTHONDONTWRITEBYTECODE $(python_env) \
      PYTHONPATH="$p/lib/tcgen/python" "$py" -c '
import numpy as np, tcgen
a = np.arange(12.0).reshape(3, 4); b = np.arange(20.0).reshape(4, 5) - 7
c = tcgen.einsum("ij,jk->ik", a, b)
print(tcgen.library_path, tcgen.__version__, isinstance(tcgen.cached("ij,jk->ik", a, b), tcgen.Plan),
      np.array_equal(c, a @ b))' 2>&1)
[ "$out" = "$p/lib/libtcgen.so.$major $version True True" ] && ok \
    || bad "PYTHONPATH=$p/lib/tcgen/python, import tcgen and a contraction: $out"

# --- the man page -----------------------------------------------------------
man1=$p/share/man/man1/tcgen.1
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$man1" >"$tmp/groff.log" 2>&1
    [ $? -eq 0 ] && [ ! -s "$tmp/groff.log" ] && ok || bad "groff warns about tcgen.1: $(head -5 "$tmp/groff.log")"
else
    echo "note: no groff; tcgen.1 not checked as roff" >&2
fi
grep -q "^\.TH TCGEN 1 .*\"tcgen $version\"" "$man1" && ok || bad "tcgen.1's .TH does not say tcgen $version"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS CONTRACTION SIZES OPTIONS ENVIRONMENT \
         "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
    grep -qE "^\.SH \"?$s\"?\$" "$man1" && ok || bad "tcgen.1 has no section $s"
done
# Every command and every option of the command line (and the main job's
# options) is documented.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man1")
for c in $(sed -n 's/^ *{"\([a-z]*\)", .*/\1/p' cli/commands.c); do
    grep -qE "^\.BI? \"?$c( |\"|\$)" <<<"$text" && ok || bad "tcgen.1 does not document command '$c'"
done
opts=$( (grep -oE '"--?[a-z][a-z-]*"' cli/main.c | tr -d '"'; grep -h '"' cli/commands.c cli/main.c | grep -oE -- '--[a-z][a-z-]*';
         echo --generic --layout --measure --candidates --wisdom) | tr ' ' '\n' | sort -u)
for o in $opts; do
    grep -qw -- "$o" <<<"$text" && ok || bad "tcgen.1 does not document option $o"
done
for v in TCGEN_BLAS TCGEN_THREADS TCGEN_WORKSPACE; do
    grep -qE "^\.B $v\$" "$man1" && ok || bad "tcgen.1 does not document $v"
done
grep -qF "tcgen \\(aqC[a,b,c] = A[a,i] * B[i,b,c]\\(aq a=b=c=400,i=8 \\-o contract.c" "$man1" && ok \
    || bad "tcgen.1 lacks the README's main example"

# man-db finds the page through PATH: PREFIX/bin -> PREFIX/share/man.
if command -v man >/dev/null; then
    got=$(env -u MANPATH PATH="$p/bin:$PATH" man -w tcgen 2>&1)
    [ "$got" = "$man1" ] && ok || bad "PATH=$p/bin:\$PATH man -w tcgen: '$got', want $man1"
    env -u MANPATH PATH="$p/bin:$PATH" MANPAGER=cat PAGER=cat MANWIDTH=80 man tcgen >"$tmp/man.txt" 2>&1
    grep -q 'tcgen.*generate' "$tmp/man.txt" && ok || bad "man tcgen shows: $(head -c 300 "$tmp/man.txt")"
else
    echo "note: no man (man-db); man tcgen not checked" >&2
fi
grep -q "note: $p/bin is not on PATH" "$tmp/install.log" && ok \
    || bad "make install with $p/bin not on PATH does not say so: $(head -c 300 "$tmp/install.log")"

# --- pkg-config -------------------------------------------------------------
export PKG_CONFIG_PATH=$p/lib/pkgconfig
pc() { pkg-config "$@" tcgen 2>&1; }
if command -v pkg-config >/dev/null; then
    check "pkg-config --validate tcgen: $(pc --validate)" pkg-config --validate tcgen
    [ "$(pc --modversion)" = "$version" ] && ok || bad "pkg-config --modversion: '$(pc --modversion)', want $version"
    [ "$(pc --variable=prefix)" = "$p" ] && ok || bad "tcgen.pc prefix: '$(pc --variable=prefix)', want $p"
    [ "$(echo $(pc --cflags))" = "-I$p/include" ] && ok || bad "pkg-config --cflags: '$(pc --cflags)'"
    [ "$(echo $(pc --libs))" = "-L$p/lib -Wl,-rpath,$p/lib -ltcgen" ] && ok || bad "pkg-config --libs: '$(pc --libs)'"
    [ "$(echo $(pc --static --libs))" = "-L$p/lib -Wl,-rpath,$p/lib -ltcgen -lhwloc -ldl -lm -lpthread" ] && ok \
        || bad "pkg-config --static --libs: '$(pc --static --libs)'"
    [ "$(pc --variable=static_libs)" = "$p/lib/libtcgen.a -lhwloc -ldl -lm -lpthread" ] && ok \
        || bad "pkg-config --variable=static_libs: '$(pc --variable=static_libs)'"
else
    bad "pkg-config is not installed (scripts/install-deps.sh installs it)"
fi

# --- a program built against the installed library --------------------------
cat >"$tmp/prog.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tcgen.h>

int main(void)
{
    if (strcmp(tc_version(), TC_VERSION) != 0) {
        fprintf(stderr, "tc_version() is '%s', the header says '%s'\n", tc_version(), TC_VERSION);
        return 1;
    }
#ifdef WITH_PLAN
    enum { N = 16 };
    static double A[N * N], B[N * N], C[N * N], R[N * N];
    for (int k = 0; k < N * N; k++) {
        A[k] = (k * 7) % 13 - 6.0;
        B[k] = (k * 5) % 11 - 5.0;
        C[k] = 1e300; /* "=" overwrites C */
    }
    for (int a = 0; a < N; a++) /* column-major: A[a,i] is A[a + N*i] */
        for (int b = 0; b < N; b++) {
            double s = 0;
            for (int i = 0; i < N; i++)
                s += A[a + N * i] * B[i + N * b];
            R[a + N * b] = s;
        }
    tc_error err;
    tc_plan *p = tc_plan_create("C[a,b] = A[a,i] * B[i,b]", "a=b=i=16", TC_ESTIMATE, &err);
    if (!p) {
        fprintf(stderr, "tc_plan_create: %s\n", err.message);
        return 1;
    }
    tc_status s = tc_execute(p, A, B, C);
    if (s != TC_OK) {
        fprintf(stderr, "tc_execute: %s\n", tc_status_name(s));
        tc_plan_destroy(p);
        return 1;
    }
    for (int k = 0; k < N * N; k++)
        if (fabs(C[k] - R[k]) > 1e-9 * (1 + fabs(R[k]))) {
            fprintf(stderr, "C[%d] = %g by %s, naive loops give %g\n", k, C[k],
                    tc_plan_algorithm(p), R[k]);
            tc_plan_destroy(p);
            return 1;
        }
    printf("plan %s ok\n", tc_plan_algorithm(p));
    tc_plan_destroy(p);
#endif
    puts("ok");
    return 0;
}
EOF
defs=()
if grep -q 'tc_plan_create *(' "$p/include/tcgen.h"; then
    if command -v nm >/dev/null && ! nm -g --defined-only "$p/lib/libtcgen.a" 2>/dev/null | grep -qw tc_plan_create; then
        bad "tcgen.h declares tc_plan_create but libtcgen.a does not define it; the plan check is skipped"
    else
        defs=(-DWITH_PLAN)
    fi
fi
cflags=(-std=c11 -Wall -Wextra -Wpedantic -Werror $SAN "${defs[@]}")
# The programs run as a user's would: without LD_LIBRARY_PATH.
run() { env -u LD_LIBRARY_PATH "$@"; }
if command -v pkg-config >/dev/null; then
    # static: the archive and what it needs, as tcgen.pc's comment says
    if $CC "${cflags[@]}" $(pc --cflags) -o "$tmp/prog_static" "$tmp/prog.c" $(pc --variable=static_libs) \
            >"$tmp/cc.log" 2>&1; then
        ok
        if command -v readelf >/dev/null; then
            readelf -d "$tmp/prog_static" | grep -q 'NEEDED.*libtcgen' \
                && bad "the static program needs libtcgen.so" || ok
        fi
        out=$(run "$tmp/prog_static" 2>&1) && [ "${out##*$'\n'}" = ok ] \
            && { [ ${#defs[@]} -eq 0 ] || grep -q '^plan .* ok$' <<<"$out"; } && ok \
            || bad "program linked with libtcgen.a: $(head -c 500 <<<"$out")"
    else
        bad "cannot build against libtcgen.a with pkg-config --variable=static_libs: $(head -c 800 "$tmp/cc.log")"
    fi
    # shared: cc prog.c $(pkg-config --cflags --libs tcgen), exactly; the
    # program records the soname and finds the library by tcgen.pc's rpath
    if $CC "${cflags[@]}" -o "$tmp/prog_shared" "$tmp/prog.c" $(pc --cflags --libs) >"$tmp/cc.log" 2>&1; then
        ok
        if command -v readelf >/dev/null; then
            readelf -d "$tmp/prog_shared" | grep -q "NEEDED.*\[libtcgen.so.$major\]" && ok \
                || bad "the shared program does not need libtcgen.so.$major: $(readelf -d "$tmp/prog_shared" | grep NEEDED | tr -s ' ' | tr '\n' ' ')"
            readelf -d "$tmp/prog_shared" | grep -E '(RUNPATH|RPATH)' | grep -qF "[$p/lib]" && ok \
                || bad "the shared program has no run path $p/lib: $(readelf -d "$tmp/prog_shared" | grep PATH)"
        fi
        out=$(run "$tmp/prog_shared" 2>&1) && [ "${out##*$'\n'}" = ok ] \
            && { [ ${#defs[@]} -eq 0 ] || grep -q '^plan .* ok$' <<<"$out"; } && ok \
            || bad "program linked with libtcgen.so: $(head -c 500 <<<"$out")"
    else
        bad "cannot build against libtcgen.so with pkg-config: $(head -c 800 "$tmp/cc.log")"
    fi
fi

# --- a TAPP program: the standard's header from the prefix, -ltcgen --------
cat >"$tmp/tapp_prog.c" <<'EOF'
#include <stdio.h>
#include <tapp.h>
int main(void)
{
    int64_t ik[2] = {'i', 'k'}, kj[2] = {'k', 'j'}, ij[2] = {'i', 'j'};
    int64_t e[2] = {2, 2}, s[2] = {1, 2};
    TAPP_tensor_info t;
    TAPP_tensor_product p;
    TAPP_handle h;
    if (TAPP_create_handle(&h) || TAPP_create_tensor_info(&t, TAPP_F64, 2, e, s) ||
        TAPP_create_tensor_product(&p, h, TAPP_IDENTITY, t, ik, TAPP_IDENTITY, t, kj,
                                   TAPP_IDENTITY, t, ij, TAPP_IDENTITY, t, ij, TAPP_DEFAULT_PREC))
        return 1;
    double A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, D[4], one = 1, zero = 0;
    int bad = TAPP_execute_product(p, 0, NULL, &one, A, B, &zero, NULL, D) || D[2] != 3;
    TAPP_destroy_tensor_product(p);
    TAPP_destroy_tensor_info(t);
    TAPP_destroy_handle(h);
    if (bad)
        return 2;
    puts("tapp ok");
    return 0;
}
EOF
if $CC -std=c11 $SAN -I"$p/include" -o "$tmp/tapp_prog" "$tmp/tapp_prog.c" -L"$p/lib" \
       -Wl,-rpath,"$p/lib" -ltcgen >"$tmp/cc.log" 2>&1; then
    out=$(run "$tmp/tapp_prog" 2>&1) && [ "$out" = "tapp ok" ] && ok \
        || bad "a TAPP program against the installed libtcgen: $(head -c 300 <<<"$out")"
else
    bad "a TAPP program does not build against the prefix: $(head -c 500 "$tmp/cc.log")"
fi

# --- a Fortran program built against the installed module tcgen -----------
cat >"$tmp/prog.f90" <<'EOF'
program prog
  use, intrinsic :: iso_c_binding, only: c_double, c_ptr, c_associated
  use tcgen
  implicit none
  real(c_double), allocatable :: A(:, :), B(:, :), C(:, :)
  type(c_ptr) :: plan
  type(tc_error) :: err
  integer :: k
  if (tcgen_version() /= TC_MODULE_VERSION) error stop 'tcgen_version() is not TC_MODULE_VERSION'
  A = reshape([(modulo(k * 7, 13) - 6.0_c_double, k = 1, 256)], [16, 16])
  B = reshape([(modulo(k * 5, 11) - 5.0_c_double, k = 1, 256)], [16, 16])
  allocate (C(16, 16))
  plan = tcgen_plan_create('C[a,b] = A[a,i] * B[i,b]', 'a=b=i=16', TC_ESTIMATE, err)
  if (.not. c_associated(plan)) then
    write (*, '(2a)') 'tcgen_plan_create: ', tcgen_error_message(err)
    error stop 1
  end if
  if (tcgen_execute(plan, A, B, C) /= TC_OK) error stop 'tcgen_execute failed'
  if (any(abs(C - matmul(A, B)) > 1e-12_c_double * (1 + abs(C)))) error stop 'C is not A * B'
  write (*, '(3a)') 'plan ', tcgen_plan_algorithm(plan), ' ok'
  call tcgen_plan_destroy(plan)
  deallocate (A, B, C) ! a main program's are not (LeakSanitizer in make test-asan)
  write (*, '(a)') 'ok'
end program prog
EOF
# fc_prog WHAT FLAGS...: builds $tmp/fprog with FLAGS and runs it.
fc_prog() {
    local what=$1; shift
    if "$FC" -std=f2018 -Wall -Wextra -pedantic -Werror $SAN -o "$tmp/fprog" "$tmp/prog.f90" "$@" \
            >"$tmp/fc.log" 2>&1; then
        ok
        out=$(run "$tmp/fprog" 2>&1) && [ "${out##*$'\n'}" = ok ] && grep -q '^plan .* ok$' <<<"$out" && ok \
            || bad "Fortran program, $what: $(head -c 500 <<<"$out")"
    else
        bad "cannot build a Fortran program, $what: $(head -c 800 "$tmp/fc.log")"
    fi
}
if [ -n "$FC" ] && command -v pkg-config >/dev/null; then
    # gfortran prog.f90 -I$PREFIX/include -L$PREFIX/lib -ltcgen_fortran $(pkg-config --libs tcgen)
    fc_prog "the installed tcgen.mod and libtcgen_fortran.a" -I"$p/include" -L"$p/lib" -ltcgen_fortran \
        $(pc --libs)
    # another compiler's way: the installed source compiled with the program
    mkdir -p "$tmp/own"
    if "$FC" -std=f2008 -J"$tmp/own" -c -o "$tmp/own/tcgen.o" "$p/include/tcgen.f90" >"$tmp/fc.log" 2>&1; then
        ok
        fc_prog "the installed tcgen.f90 compiled" -I"$tmp/own" "$tmp/own/tcgen.o" $(pc --libs)
    else
        bad "the installed tcgen.f90 does not compile: $(head -c 800 "$tmp/fc.log")"
    fi
elif [ -z "$FC" ]; then
    echo "note: no gfortran; the Fortran module is not checked" >&2
fi
unset PKG_CONFIG_PATH

# --- find_package(tcgen) in a CMake project ---------------------------------
# the shared target and the static one, each a program that runs; a newer
# or another major version than the installed one is not found
cmake_project() { # DIR TARGET [VERSION]: configure and build, output in $tmp/cmake.log
    mkdir -p "$1"
    cp "$tmp/prog.c" "$1/prog.c"
    cat >"$1/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.13)
project(uses_tcgen C)
find_package(tcgen $3 REQUIRED)
add_executable(prog prog.c)
target_compile_definitions(prog PRIVATE ${defs[*]/-D/})
target_link_libraries(prog PRIVATE $2 m)
CMAKE
    cmake -S "$1" -B "$1/build" -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_C_FLAGS="$SAN" >"$tmp/cmake.log" 2>&1 &&
        cmake --build "$1/build" >>"$tmp/cmake.log" 2>&1
}
if command -v cmake >/dev/null; then
    for target in tcgen::tcgen tcgen::tcgen_static; do
        d=$tmp/cmake_${target#tcgen::}
        if cmake_project "$d" "$target" "$version"; then
            ok
            out=$(run "$d/build/prog" 2>&1) && [ "${out##*$'\n'}" = ok ] \
                && { [ ${#defs[@]} -eq 0 ] || grep -q '^plan .* ok$' <<<"$out"; } && ok \
                || bad "CMake program with $target: $(head -c 500 <<<"$out")"
        else
            bad "find_package(tcgen) with $target: $(tail -c 800 "$tmp/cmake.log")"
        fi
    done
    readelf -d "$tmp/cmake_tcgen_static/build/prog" 2>/dev/null | grep -q 'NEEDED.*libtcgen' \
        && bad "the CMake program with tcgen::tcgen_static needs libtcgen.so" || ok
    cmake_project "$tmp/cmake_newer" tcgen::tcgen "$((major + 1))" && bad "find_package(tcgen $((major + 1))) found $version" || ok
else
    bad "cmake is not installed (scripts/install-deps.sh installs it)"
fi

# --- uninstall --------------------------------------------------------------
check "make uninstall PREFIX=$p" mk uninstall "$p"
[ ! -e "$p" ] && ok || bad "make uninstall left $(cd "$p" && find . -mindepth 1 | sort | tr '\n' ' ')"
check "make uninstall with nothing installed" mk uninstall "$p"
[ ! -e "$p" ] && ok || bad "make uninstall with nothing installed created $p"

# Directories that were there before install stay, with what else they hold;
# installing twice still removes the directories the first install made.
q=$tmp/existing
mkdir -p "$q/bin" "$q/lib" && echo mine >"$q/bin/other"
check "make install into $q" mk install "$q"
check "make install again into $q" mk install "$q"
check "make uninstall PREFIX=$q" mk uninstall "$q"
got=$(cd "$q" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$got" = "./bin ./bin/other ./lib " ] && ok \
    || bad "make uninstall into existing directories: left '$got', want './bin ./bin/other ./lib '"

# A staged install (DESTDIR): files under DESTDIR, tcgen.pc names PREFIX.
d=$tmp/stage
check "make install DESTDIR=$d" mk install /opt/tcgen DESTDIR="$d"
missing=
for f in "${files[@]}"; do
    [ -e "$d/opt/tcgen/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok || bad "DESTDIR install lacks$missing"
grep -qx 'prefix=/opt/tcgen' "$d/opt/tcgen/lib/pkgconfig/tcgen.pc" 2>/dev/null && ok \
    || bad "DESTDIR install: tcgen.pc does not say prefix=/opt/tcgen"
grep -qxF "LIBRARY = '/opt/tcgen/lib/libtcgen.so.$major'" "$d/opt/tcgen/lib/tcgen/python/tcgen/_installed.py" \
    2>/dev/null && ok || bad "DESTDIR install: the Python package does not name /opt/tcgen/lib/libtcgen.so.$major"
grep -qx 'Libs: -L${libdir} -Wl,-rpath,${libdir} -ltcgen' "$d/opt/tcgen/lib/pkgconfig/tcgen.pc" && ok \
    || bad "tcgen.pc for /opt/tcgen has no rpath: $(grep '^Libs:' "$d/opt/tcgen/lib/pkgconfig/tcgen.pc")"
check "make uninstall DESTDIR=$d" mk uninstall /opt/tcgen DESTDIR="$d"
[ -z "$(left "$d")" ] && ok || bad "make uninstall DESTDIR=$d left $(left "$d" | tr '\n' ' ')"

# The rpath: none where the dynamic linker looks anyway (/usr/lib and its
# multiarch directory), none with PC_RPATH=no, always with PC_RPATH=yes.
# libs_line PREFIX [VAR=VALUE...]: the Libs line of a staged install's tcgen.pc.
libs_line() {
    local prefix=$1; shift
    mk install "$prefix" DESTDIR="$d" "$@" || return 1
    grep '^Libs:' "$(find "$d" -name tcgen.pc | head -n 1)"
    mk uninstall "$prefix" DESTDIR="$d" "$@"
}
norpath='Libs: -L${libdir} -ltcgen'
rpath='Libs: -L${libdir} -Wl,-rpath,${libdir} -ltcgen'
[ "$(libs_line /usr)" = "$norpath" ] && ok || bad "PREFIX=/usr: '$(libs_line /usr)', want '$norpath'"
ma=$($CC -print-multiarch 2>/dev/null)
if [ -n "$ma" ]; then
    got=$(libs_line /usr LIBDIR=/usr/lib/$ma)
    [ "$got" = "$norpath" ] && ok || bad "LIBDIR=/usr/lib/$ma: '$got', want '$norpath'"
fi
got=$(libs_line /usr/local)
[ "$got" = "$rpath" ] && ok || bad "PREFIX=/usr/local (found only after ldconfig): '$got', want '$rpath'"
got=$(libs_line /opt/tcgen PC_RPATH=no)
[ "$got" = "$norpath" ] && ok || bad "PC_RPATH=no: '$got', want '$norpath'"
got=$(libs_line /usr PC_RPATH=yes)
[ "$got" = "$rpath" ] && ok || bad "PC_RPATH=yes: '$got', want '$rpath'"
mk install /opt/tcgen DESTDIR="$d" PC_RPATH=sometimes 2>/dev/null && bad "PC_RPATH=sometimes accepted" \
    || { grep -q "PC_RPATH is 'sometimes'; it takes auto, yes or no" "$tmp/make.log" && ok \
         || bad "PC_RPATH=sometimes: $(tail -n 2 "$tmp/make.log")"; }
mk install relative/prefix DESTDIR="$d" 2>/dev/null && bad "a relative PREFIX accepted" \
    || { grep -q "'relative/prefix' is not an absolute path" "$tmp/make.log" && ok \
         || bad "relative PREFIX: $(tail -n 2 "$tmp/make.log")"; }
[ -z "$(left "$d")" ] && ok || bad "the rpath installs left $(left "$d" | tr '\n' ' ')"

finish "install"
