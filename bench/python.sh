#!/usr/bin/env bash
# python.sh [LIBRARY] [REPS] - the Python package's tcgen.einsum against
# numpy.einsum(optimize=True) on the 48 contractions of the TCCG benchmark
# and the CCSD terms of examples/ccsd (bench/tccg.txt, sized as
# bench/peers.sh sizes them: largest tensor about 16 MiB), one thread,
# both writing into an out of the operands' layout, Fortran order (TCCG's)
# and C order, in one run (bench/python_einsum.py): the first call
# (planning cold, and from wisdom) and repeated calls (the plan cache),
# medians of REPS (default 5) in 3 interleaved rounds. LIBRARY defaults to
# build/libtcgen.so. Writes bench/results/python.tsv, a row per case and
# order, then '#' lines with the geometric means. PYTHON_ORDERS="F"
# measures one order; PYTHON_MATCH=REGEX keeps the matching cases only.
set -euo pipefail
cd "$(dirname "$0")/.."
LIB=${1:-build/libtcgen.so}
REPS=${2:-5}
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
out=bench/results/python.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 TCGEN_THREADS=1 OMP_NUM_THREADS=1
export TCGEN_LIBRARY=$LIB PYTHONPATH=$PWD/python
unset TCGEN_WISDOM
[ -e "$LIB" ] || { echo "python.sh: no $LIB (run make)" >&2; exit 3; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "python.sh: $PY needs numpy (python3-numpy)" >&2; exit 3; }
mkdir -p bench/results
bash bench/tccg_sizes.sh | grep -E -- "${PYTHON_MATCH:-.}" > "$tmp/cases"
# shellcheck disable=SC2086 # the orders are words
"$PY" bench/python_einsum.py "$tmp/cases" "$REPS" ${PYTHON_ORDERS:-F C} | tee "$out.tmp"
mv -f "$out.tmp" "$out"
