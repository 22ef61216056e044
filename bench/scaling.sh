#!/usr/bin/env bash
# scaling.sh - what P threads of this machine give together, the bound of
# any threaded algorithm's speedup (issue 39), for P = 1, 2, 4, ... THREADS:
#   - fma: a loop of fused multiply-adds in registers in each thread
#     (threads_compute.c, where cc is there): the cores' arithmetic;
#   - split: P single-thread dgemms side by side, tcgen's `b-dgemm@P` on
#     C[i,j,b] = A[i,k,b] * B[k,j,b] (16 slices of N^3, N = SPLIT_N, 512);
#   - blas: one dgemm of M^3 on P BLAS threads, for each M in GEMM_N
#     ("1626 3072") and each library in BLASES ("auto blis");
#   - read, update: memory bandwidth (threads_bandwidth.c).
# Each dgemm figure is tcgen measure's median of REPS (3).
#   bash bench/scaling.sh [TCGEN]      THREADS=16 OUT=DIR
# Writes scaling.tsv (what, P, library, N, seconds, GFLOP/s, x one thread)
# and scaling_cc.txt (the C programs' lines) under OUT (default bench/results).
set -euo pipefail
cd "$(dirname "$0")/.."
tcgen=${1:-build/tcgen}
out=${OUT:-bench/results}
threads=${THREADS:-$(nproc)}
reps=${REPS:-3}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

counts() { local p=1; while ((p < threads)); do echo $p; p=$((p * 2)); done; echo "$threads"; }
measure() { # CONTRACTION SIZES NAME P [BLAS]: seconds and GFLOP/s
    "$tcgen" measure "$1" "$2" --algorithm "$3" --threads "$4" ${5:+--blas "$5"} --reps "$reps" \
        --format tsv -q | awk -F'\t' 'NR == 2 { print $4 "\t" $5 }'
}
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$out/scaling.tsv"; } # WHAT P LIBRARY N SECONDS<TAB>GFLOPS

printf 'what\tP\tlibrary\tN\tseconds\tgflops\n' >"$out/scaling.tsv"
: >"$out/scaling_cc.txt"
if command -v cc >/dev/null && cc -O2 -march=native -pthread bench/threads_compute.c -o "$tmp/fma" 2>/dev/null &&
    cc -O2 -pthread bench/threads_bandwidth.c -o "$tmp/bw" 2>/dev/null; then
    "$tmp/fma" "$threads" >>"$out/scaling_cc.txt"
    "$tmp/bw" "$threads" >>"$out/scaling_cc.txt"
else
    echo "no C compiler: arithmetic and bandwidth not measured" >>"$out/scaling_cc.txt"
fi
n=${SPLIT_N:-512}
for p in $(counts); do
    name=b-dgemm
    ((p > 1)) && name="b-dgemm@$p"
    row split "$p" auto "$n" "$(measure 'C[i,j,b] = A[i,k,b] * B[k,j,b]' "i=j=k=$n,b=16" "$name" "$p")"
done
for lib in ${BLASES:-auto blis}; do
    for m in ${GEMM_N:-1626 3072}; do
        for p in $(counts); do
            row blas "$p" "$lib" "$m" "$(measure 'C[i,j] = A[i,k] * B[k,j]' "i=j=k=$m" dgemm "$p" "$lib")"
        done
    done
done
# each row's gain over its own P = 1 row
awk -F'\t' 'NR == 1 { print $0 "\tx_one"; next }
    { k = $1 "/" $3 "/" $4; if ($2 == 1) one[k] = $6; printf "%s\t%.2f\n", $0, (k in one && one[k] > 0) ? $6 / one[k] : 0 }' \
    "$out/scaling.tsv" >"$tmp/s" && cp "$tmp/s" "$out/scaling.tsv"
cat "$out/scaling_cc.txt" "$out/scaling.tsv"
