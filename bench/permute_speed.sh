#!/usr/bin/env bash
# permute_speed.sh [BUILD] [REPS] - the permutation copy of runtime/permute.c
# against memcpy of the same bytes, every permutation of a 128^3 tensor and
# of a 48 x 864 x 48 one (short unit-stride dimensions 4 KiB multiples apart),
# into a tcgen temporary and into a malloc'd block (bench/permute_speed.c).
# Writes bench/results/permute_speed.tsv; the target is permute_vs_memcpy
# >= 0.6 for every permutation into a temporary.
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
awk -F'\t' 'NR > 1 && !($2 in min && min[$2] <= $7) {min[$2] = $7}
    END {printf "# worst permute_vs_memcpy %.2f into a temporary (target >= 0.6), %.2f into malloc'"'"'d memory\n", min["temporary"], min["malloc"]}' "$out" | tee -a "$out"
