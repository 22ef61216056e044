#!/usr/bin/env bash
# execute_overhead.sh [TCGEN] [REPS] - how much slower tc_execute (the
# library walking the algorithm's tree) is than the emitted C of the same
# algorithm. For each case: the main job decides and writes its wisdom,
# the wisdom line is pointed at the algorithm under test, `tcgen emit`
# writes that algorithm's C, and bench/execute_overhead.c times both
# alternately in one process (median of REPS). Writes
# bench/results/execute_overhead.tsv. The target is ratio <= 1.05.
set -euo pipefail
cd "$(dirname "$0")/.."
TCGEN=${1:-build/tcgen}
REPS=${2:-101}
BUILD=$(dirname "$TCGEN")
out=bench/results/execute_overhead.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TCGEN_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p bench/results

# contraction, sizes, algorithm: few large calls, and many small ones
# (where a tree walk per call would show most).
cases=(
  "C[a,b,c] = A[a,i] * B[i,b,c]|a=b=c=256,i=8|c-dgemm"
  "C[a,b,c] = A[a,i] * B[i,b,c]|a=b=c=256,i=8|cb-dgemv"
  "C[a,b,c] = A[a,i] * B[i,b,c]|a=b=c=128,i=8|cbi-daxpy"
  "C[a,b,c] = A[i,j,a] * B[j,b,i,c]|a=b=c=64,i=j=8|i'c-dgemm"
  "C[a,b,c] = A[i,j,a] * B[j,b,i,c]|a=b=c=32,i=j=8|cbai-ddot"
  "R[a,b,i,j] += W[a,b,e,f] * T[e,f,i,j]|a=b=e=f=24,i=j=8|af'i'-dgemm"
  "R[a,b,i,j] += W[a,b,e,f] * T[e,f,i,j]|a=b=e=f=24,i=j=8|abfi-dgemv"
)
printf 'contraction\tsizes\talgorithm\temitted_s\texecute_s\tratio\n' > "$out"
n=0
for c in "${cases[@]}"; do
    IFS='|' read -r con sizes alg <<<"$c"
    n=$((n + 1))
    w="$tmp/w$n.txt"
    "$TCGEN" "$con" "$sizes" -q --reps 1 --wisdom "$w" -o "$tmp/plan$n.c"
    # point the entry at the algorithm under test (field 7)
    awk -F'\t' -v OFS='\t' -v alg="$alg" '/^#/ {print; next} {$7 = alg; print}' "$w" > "$w.2"
    "$TCGEN" emit "$con" "$sizes" --algorithm "$alg" --function bench_fn -o "$tmp/f$n.c"
    read -r na nb nc < <("$TCGEN" parse "$con" "$sizes" --format tsv |
        awk -F'\t' '$1 == "tensor" {e[++t] = $7 / 8} END {print e[2], e[3], e[1]}')  # C, A, B rows
    cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -Iinclude -DFUNC=bench_fn -o "$tmp/b$n" bench/execute_overhead.c "$tmp/f$n.c" \
        "$BUILD/libtcgen.a" -lopenblas -lhwloc -ldl -lm -lpthread
    row=$("$tmp/b$n" "$con" "$sizes" "$w.2" "$na" "$nb" "$nc" "$REPS")
    printf '%s\t%s\t%s\n' "$con" "$sizes" "$row" | tee -a "$out"
done
awk -F'\t' 'NR > 1 && $6 > max {max = $6} END {printf "# worst ratio %.3f (target <= 1.05)\n", max}' "$out" | tee -a "$out"
