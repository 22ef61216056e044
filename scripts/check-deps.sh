#!/usr/bin/env bash
# check-deps.sh - what `make` needs, found by what it does (a command, a
# header, a library), not by package name, so it works on any Linux; it
# installs nothing. When something is missing it lists it and prints the
# commands that install it on Debian/Ubuntu and on RPM systems, and exits 1.
# Only `make demo` and CI install (scripts/install-deps.sh, Debian).
#   scripts/check-deps.sh build   building libtcgen and the command
#   scripts/check-deps.sh test    building and running the test suite too
set -u
set_=${1:-build}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# need WHAT DEBIAN RPM TEST: records WHAT as missing when TEST fails.
missing=() deb=() rpm=()
need() {
    local what=$1 d=$2 r=$3
    shift 3
    "$@" >/dev/null 2>&1 && return
    missing+=("$what") deb+=("$d") rpm+=("$r")
}
have() { command -v "$1"; }
header() { printf '#include <%s>\n' "$1" | "$cc" -E -x c - -o "$tmp/h.i"; }
library() { printf 'int main(void) { return 0; }\n' | "$cc" -x c - -o "$tmp/a.out" "-l$1"; }
openblas() { ls /usr/include/*/openblas*/cblas.h /usr/include/openblas/cblas.h /usr/include/cblas.h \
                 2>/dev/null | grep -q . && library openblas; }
locale_de() { locale -a | grep -qix 'de_DE.utf8'; }
# The python the Python package's test runs ($PYTHON, else Debian's), with numpy.
numpy() { py=${PYTHON:-/usr/bin/python3}; [ -x "$py" ] || py=python3; "$py" -c 'import numpy'; }

need "a C compiler ($cc)" gcc gcc have "$cc"
need make make make have make
need bison bison bison have bison
need flex flex flex have flex
need "hwloc (hwloc.h, -lhwloc)" libhwloc-dev hwloc-devel eval 'header hwloc.h && library hwloc'
if [ "$set_" = test ]; then
    need "CUnit (CUnit/CUnit.h)" libcunit1-dev CUnit-devel header CUnit/CUnit.h
    need "OpenBLAS (cblas.h, -lopenblas)" libopenblas-dev openblas-devel openblas
    need "BLIS (-lblis)" libblis-dev blis-devel library blis
    need gfortran gfortran gcc-gfortran have gfortran
    need gnuplot gnuplot-nox gnuplot have gnuplot
    need pkg-config pkg-config pkgconf-pkg-config have pkg-config
    need "cmake (find_package(tcgen) is tested)" cmake cmake have cmake
    need man man-db man-db have man
    need "python3 with numpy (tests/python_test.sh)" python3-numpy python3-numpy numpy
    need "the de_DE.UTF-8 locale (tests under a comma-decimal locale)" locales glibc-langpack-de locale_de
elif [ "$set_" != build ]; then
    echo "usage: scripts/check-deps.sh build|test" >&2
    exit 2
fi
[ ${#missing[@]} -eq 0 ] && exit 0
{
    echo "tcgen: missing to $([ "$set_" = test ] && echo "build and test" || echo build):"
    printf '  %s\n' "${missing[@]}"
    echo "install them, e.g."
    echo "  Debian/Ubuntu: sudo apt-get install ${deb[*]}$(printf ' %s' "${deb[@]}" | grep -q locales && echo " && sudo localedef -i de_DE -f UTF-8 de_DE.UTF-8")"
    echo "  RHEL/Fedora:   sudo dnf install ${rpm[*]}"
    echo "(or 'make demo', which installs them on Debian)"
} >&2
exit 1
