#!/usr/bin/env bash
# tapp.sh [BUILD] [REPS] - issue 35's overhead line: TAPP_execute_product
# against tc_execute of the same plan on the TCCG suite and the CCSD terms
# (bench/tccg_sizes.sh's sizes), one thread, dense column-major tensors,
# alternating in one process (bench/tapp_overhead.c, median of REPS); then
# TAPP_create_tensor_product (and destroy) of each product found in wisdom,
# median of REPS. Writes bench/results/tapp.tsv, the median ratio (target
# <= 1.02) and the median and max planning time from wisdom (target < 1 ms);
# then the tile case (bench/tapp_tile.c) into bench/results/tapp_tile.tsv.
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

# The tile case: the CCSD ring term on tiles (a, b, e 32 of 128 virtual
# orbitals; i, j, m 16 of 32 occupied), in place through the tiles'
# strides against copying them out, the dense product and adding back
# (bench/tapp_tile.c), three runs of 21 interleaved repetitions.
tile=bench/results/tapp_tile.tsv
cc -O2 -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Wpedantic -Werror -I. -Iinclude \
    -o "$tmp/tapp_tile" bench/tapp_tile.c "$BUILD/libtcgen.a" -lhwloc -ldl -lm -lpthread
printf 'run\tin_place_algorithm\tcopied_algorithm\tin_place_s\tcopied_s\tratio\n' > "$tile"
for run in 1 2 3; do
    printf '%s\t%s\n' "$run" "$("$tmp/tapp_tile" 128 32 32 16 "$REPS")" | tee -a "$tile"
done
awk -F'\t' 'NR > 1 && !/^#/ { print $6 }' "$tile" | sort -g | awk '{ r[++n] = $1 }
    END { printf "# tile case, %d runs: copy-out + dense + add-back over in place, median %.3f, range %.3f-%.3f (target >= 1.3)\n", n, r[int((n + 1) / 2)], r[1], r[n] }' \
    | tee -a "$tile"
