#!/usr/bin/env bash
# Installs the Debian packages tcgen needs, only those that are missing.
#   scripts/install-deps.sh        build, test and run dependencies
#   scripts/install-deps.sh fuzz   also clang and libFuzzer
#   scripts/install-deps.sh bench  the same (numpy, which bench/peers.sh and
#                                  bench/python.sh compare with, is in the first list:
#                                  tests/python_test.sh needs it)
set -euo pipefail

pkgs=(gcc gfortran make bison flex pkg-config cmake libcunit1-dev libopenblas-dev libblis-dev libhwloc-dev gnuplot-nox locales man-db python3-numpy)
if [ "${1:-}" = fuzz ]; then
    pkgs+=(clang libclang-rt-14-dev)
fi

# The tests check that a program under a comma-decimal locale gets the same
# results as under "C"; they need this locale compiled.
test_locale=de_DE.UTF-8

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
have_locale() { locale -a 2>/dev/null | grep -qix 'de_DE.utf8'; }
[ ${#missing[@]} -eq 0 ] && have_locale && exit 0

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "tcgen: need root (or sudo) to install: ${missing[*]} $test_locale" >&2; exit 1; }
    SUDO=sudo
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "tcgen: installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! have_locale; then
    echo "tcgen: compiling the $test_locale locale (for the locale tests)"
    $SUDO localedef -i de_DE -f UTF-8 "$test_locale"
fi
