#!/usr/bin/env bash
# Installs the Debian packages tcgen needs, only those that are missing.
#   scripts/install-deps.sh        build, test and run dependencies
#   scripts/install-deps.sh fuzz   also clang and libFuzzer
set -euo pipefail

pkgs=(gcc gfortran make bison flex pkg-config libcunit1-dev libopenblas-dev libblis-dev libhwloc-dev gnuplot-nox)
if [ "${1:-}" = fuzz ]; then
    pkgs+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tcgen: installing missing packages: ${missing[*]}"
SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "tcgen: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
