#!/usr/bin/env bash
# deps_test.sh - `make` on a machine that lacks something it needs stops
# with the list and the install commands for Debian and RPM systems, and
# installs nothing (no apt-get, no sudo: only `make demo` and CI install).
# The machine is simulated by a PATH that has every command of /usr/bin but
# bison, and an apt-get and a sudo that record being called. Ends with
# "deps: N passed, N failed".
set -u
MAKE=${MAKE:-make}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

mkdir -p "$tmp/bin"
for f in /usr/bin/* /bin/*; do
    name=${f##*/}
    case $name in bison | apt-get | apt | sudo | dnf | yum) continue ;; esac
    [ -e "$tmp/bin/$name" ] || ln -s "$f" "$tmp/bin/$name"
done
for name in apt-get sudo; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/called"\n' "$name" "$tmp" >"$tmp/bin/$name"
    chmod +x "$tmp/bin/$name"
done

PATH=$tmp/bin "$MAKE" --no-print-directory BUILD="$tmp/build" all >"$tmp/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && ok || bad "make without bison succeeded"
grep -q "^  bison$" "$tmp/out" && ok || bad "bison not listed: $(head -c 600 "$tmp/out")"
grep -q "Debian/Ubuntu: sudo apt-get install bison" "$tmp/out" && ok || bad "no Debian command: $(head -c 600 "$tmp/out")"
grep -q "RHEL/Fedora:   sudo dnf install bison" "$tmp/out" && ok || bad "no RPM command: $(head -c 600 "$tmp/out")"
[ -e "$tmp/called" ] && bad "make called: $(cat "$tmp/called")" || ok
[ -e "$tmp/build/obj" ] && bad "make compiled before stopping" || ok
# With everything there the check passes and says nothing.
bash scripts/check-deps.sh test >"$tmp/out" 2>&1 && [ ! -s "$tmp/out" ] && ok \
    || bad "check-deps.sh test on this machine: $(cat "$tmp/out")"
finish deps
