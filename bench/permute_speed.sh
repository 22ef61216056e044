#!/usr/bin/env bash
# permute_speed.sh [BUILD] [REPS] - the permutation copy of runtime/permute.c
# against memcpy of the same 16 MiB, every permutation of a 128^3 tensor
# (bench/permute_speed.c). Writes bench/results/permute_speed.tsv; the
# target is permute_vs_memcpy >= 0.6 for every permutation.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-21}
out=bench/results/permute_speed.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p bench/results
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -I. -Iinclude \
    -o "$tmp/permute_speed" bench/permute_speed.c "$BUILD/libtcgen.a" -lm
"$tmp/permute_speed" "$REPS" | tee "$out"
awk -F'\t' 'NR > 1 && (min == "" || $6 < min) {min = $6} END {printf "# worst permute_vs_memcpy %.2f (target >= 0.6)\n", min}' "$out" | tee -a "$out"
