#!/usr/bin/env bash
# python_test.sh - the Python package (python/tcgen) against numpy.einsum:
# tests/python_test.py on every contraction of the TCCG suite and the CCSD
# terms of examples/ccsd (bench/tccg.txt at small sizes: bench/tccg_sizes.sh
# 16384), in Fortran and C order, transposed and strided, out given and
# not, alpha and beta, implicit output, batch indices, every fallback to
# numpy.einsum, bad input, wisdom (effort 'measure' and 'wisdom' too); then,
# from the shell: the package used in place by PYTHONPATH alone, a clear
# ImportError without the library, and
# $TCGEN_WISDOM carrying decisions from one process to the next. Needs
# python3 with numpy ($PYTHON, default /usr/bin/python3: Debian's, which
# python3-numpy serves); under $SAN (make test-asan) the sanitizer runtimes
# are preloaded (python_env). Ends with "python: N passed, N failed".
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
SAN=${SAN:-}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=python3
# shellcheck disable=SC2046 # python_env gives VAR=VALUE words
PY=(env $(python_env) "$py")
export PYTHONPATH=$PWD/python PYTHONDONTWRITEBYTECODE=1 TCGEN_LIBRARY=$PWD/$BUILD/libtcgen.so
case $BUILD in /*) TCGEN_LIBRARY=$BUILD/libtcgen.so ;; esac
unset TCGEN_WISDOM

if ! "${PY[@]}" -c 'import numpy' 2>"$tmp/numpy.err"; then
    bad "$py has no numpy (python3-numpy): $(head -c 300 "$tmp/numpy.err")"
    finish python
    exit 1
fi

# 1. The package against numpy.einsum, check by check.
bash bench/tccg_sizes.sh 16384 >"$tmp/cases" || bad "bench/tccg_sizes.sh failed"
"${PY[@]}" tests/python_test.py "$tmp/cases" "$tmp/t.wisdom" >"$tmp/checks" 2>"$tmp/checks.err"
rc=$?
n=$(grep -c '^ok ' "$tmp/checks")
for _ in $(seq "$n"); do ok; done
while IFS= read -r line; do bad "${line#FAIL: }"; done < <(grep '^FAIL: ' "$tmp/checks")
[ "$rc" -eq 0 ] || bad "tests/python_test.py exited $rc: $(tail -n 20 "$tmp/checks.err")"
[ "$n" -gt 250 ] && ok || bad "only $n checks passed; the suite has more than 250"

# 2. In place, by PYTHONPATH alone: the repository's build is found
#    (TCGEN_LIBRARY unset), when this is the default build directory.
if [ "$BUILD" = build ]; then
    out=$(env -u TCGEN_LIBRARY "${PY[@]}" -c 'import tcgen; print(tcgen.library_path)' 2>&1)
    [ "$out" = "$PWD/build/libtcgen.so" ] && ok || bad "in place, tcgen found '$out'"
fi
# A library that is not there: ImportError naming it.
out=$(TCGEN_LIBRARY=$tmp/none.so "${PY[@]}" -c 'import tcgen' 2>&1)
[ $? -ne 0 ] && grep -q "ImportError: tcgen: cannot load libtcgen from \$TCGEN_LIBRARY ($tmp/none.so)" <<<"$out" \
    && ok || bad "a missing library: $out"

# 3. $TCGEN_WISDOM: one process decides and saves at exit, the next plans
#    from wisdom; a damaged file is a warning and planning goes on.
prog='import sys, numpy as np, tcgen
p = tcgen.plan("abc,cd->abd", (6, 5, 7), (7, 8))
print(p.origin)'
W=$tmp/env.wisdom
out=$(TCGEN_WISDOM=$W "${PY[@]}" -c "$prog" 2>&1)
[ "$out" = estimate ] && ok || bad "first process with \$TCGEN_WISDOM: $out"
head -1 "$W" 2>/dev/null | grep -qx '# tcgen wisdom 1' && ok || bad "\$TCGEN_WISDOM not written at exit"
out=$(TCGEN_WISDOM=$W "${PY[@]}" -c "$prog" 2>&1)
[ "$out" = wisdom ] && ok || bad "second process with \$TCGEN_WISDOM: '$out', want wisdom"
printf 'not wisdom\n' >"$tmp/bad.wisdom"
out=$(TCGEN_WISDOM=$tmp/bad.wisdom "${PY[@]}" -c "$prog" 2>&1)
grep -q 'RuntimeWarning: tcgen: $TCGEN_WISDOM not used' <<<"$out" && grep -qx estimate <<<"$out" \
    && ok || bad "a damaged \$TCGEN_WISDOM: $out"
[ "$(cat "$tmp/bad.wisdom")" = "not wisdom" ] && ok || bad "a damaged \$TCGEN_WISDOM was overwritten"

finish python
