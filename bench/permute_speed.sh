#!/usr/bin/env bash
# permute_speed.sh [BUILD] [REPS] - the permutation copy of runtime/permute.c
# against memcpy of the same bytes, every permutation of a 128^3 tensor, of
# a 48 x 864 x 48 one (short unit-stride dimensions 4 KiB multiples apart)
# and of a 38^4 one, and 16 of a 11^6 one's and of a 16 x 8 x 8 x 16 x
# 8 x 8 one's (a CCSD(T) term's C), into a tcgen temporary and
# into a malloc'd block (bench/permute_speed.c). Writes
# bench/results/permute_speed.tsv, then the worst permute_vs_memcpy per
# shape and destination (issue 37's target: at least 0.7 for the 4- and
# 6-index tensors). The '# read:' lines say how fast the source alone can
# be read in runs of the lengths these shapes have, taken far apart, against
# one sequential read: what a permutation that reads such runs can reach.
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
awk -F'\t' 'NR > 1 && !/^#/ { split($1, f, " "); k = length(f[1]) "-index " f[2] "\t" $2
        if (!(k in min) || $7 < min[k]) { min[k] = $7; at[k] = $1 }
        sum[k] += log($7); cnt[k]++ }
    END { for (k in min) { split(k, x, "\t")
            printf "# %s into %s: worst permute_vs_memcpy %.2f (%s), geometric mean %.2f over %d\n",
                   x[1], x[2] == "malloc" ? "malloc'"'"'d memory" : "a temporary", min[k], at[k],
                   exp(sum[k] / cnt[k]), cnt[k] } }' "$out" | sort | tee -a "$out"
