#!/usr/bin/env bash
# tapp.sh [BUILD] [REPS] - issue 35's overhead line: TAPP_execute_product
# against tc_execute of the same plan on the TCCG suite and the CCSD terms
# (bench/tccg_sizes.sh's sizes), one thread, dense column-major tensors,
# alternating in one process (bench/tapp_overhead.c, median of REPS); then
# TAPP_create_tensor_product (and destroy) of each product found in wisdom,
# median of REPS. Writes bench/results/tapp.tsv, the median ratio (target
# <= 1.02) and the median and max planning time from wisdom (target < 1 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-21}
out=bench/results/tapp.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TCGEN_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p bench/results
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -Iinclude \
    -o "$tmp/tapp_overhead" bench/tapp_overhead.c "$BUILD/libtcgen.a" -lhwloc -ldl -lm -lpthread
printf 'group\tspec\tsizes\talgorithm\texecute_s\ttapp_s\tratio\twisdom_plan_s\n' > "$out"
bash bench/tccg_sizes.sh | while IFS=$'\t' read -r group spec con sizes; do
    row=$("$tmp/tapp_overhead" "$spec" "$sizes" "$REPS") || { echo "tapp.sh: $spec failed" >&2; continue; }
    printf '%s\t%s\t%s\t%s\n' "$group" "$spec" "$sizes" "$row" | tee -a "$out"
done
awk -F'\t' 'NR > 1 && !/^#/ { print $7 }' "$out" | sort -g | awk '{ r[++n] = $1 }
    END { m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
          printf "# %d contractions: median TAPP_execute_product / tc_execute %.3f (target <= 1.02), range %.3f-%.3f\n", n, m, r[1], r[n] }' \
    | tee -a "$out"
awk -F'\t' 'NR > 1 && !/^#/ { print $8 }' "$out" | sort -g | awk '{ r[++n] = $1 * 1e3 }
    END { m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
          printf "# %d contractions: planning a TAPP product found in wisdom median %.3f ms, max %.3f ms (target < 1 ms)\n", n, m, r[n] }' \
    | tee -a "$out"
