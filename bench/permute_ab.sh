#!/usr/bin/env bash
# permute_ab.sh [REV] [PASSES] [REPS] - the permutation kernel at git
# revision REV (default HEAD) against the working tree's, side by side in
# one process (bench/permute_ab.c), on the tensors of bench/permute_speed.sh
# (every transposing permutation of 128^3, 48 x 864 x 48 and 38^4, 10 of
# 11^6's), 11 of a CCSD(T) tensor's (24 x 12 x 12 x 24 x 12 x 12,
# 110 MiB) and 10 of a 16 MiB one's (16 x 8 x 8 x 16 x 8 x 8), a 1444 x
# 1444 transpose; PASSES (3) passes over the list, each
# case the median of REPS (15) alternating runs. Writes
# bench/results/permute_ab.tsv: per case the medians over the passes of
# each version's bandwidth as a fraction of memcpy's; '+' or '-' where
# the new one is 5 % faster or slower.
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:-HEAD}
PASSES=${2:-3}
REPS=${3:-15}
out=bench/results/permute_ab.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p bench/results
make -s build/libtcgen.a
git show "$REV:runtime/permute_kernel.inc" > "$tmp/old.inc"
for v in old new; do
    inc=$([ $v = old ] && echo "$tmp/old.inc" || echo "$PWD/runtime/permute_kernel.inc")
    printf '#include "%s"\nvoid permute_ab_%s(int r, const long *e, const double *s, const long *f, double *d, const long *t, long w)\n{ tcgen_permute(r, e, s, f, d, t, 0.0, w); }\n' \
        "$inc" "$v" > "$tmp/$v.c"
    cc -O2 -std=c11 -c -o "$tmp/$v.o" "$tmp/$v.c"
done
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -I. -Iinclude \
    -o "$tmp/permute_ab" bench/permute_ab.c "$tmp/old.o" "$tmp/new.o" build/libtcgen.a -lm
{
    for p in 102 120 201 210; do echo "$p 128 128 128"; echo "$p 48 864 48"; done
    for p in 1023 1032 1203 1230 1302 1320 2013 2031 2103 2130 2301 2310 \
             3012 3021 3102 3120 3201 3210; do echo "$p 38 38 38 38"; done
    for p in 543210 245031 123504 315204 524013 425103 304215 453102 413250 150342; do
        echo "$p 11 11 11 11 11 11"; done
    for p in 543210 342015 325104 203145 432015 340215 450231 103245 153024 210543 420153; do
        echo "$p 24 12 12 24 12 12"; done
    for p in 543210 250413 241503 251043 534201 241305 254310 523401 523041 304152; do
        echo "$p 16 8 8 16 8 8"; done
    echo "10 1444 1444"
} > "$tmp/cases"
for pass in $(seq "$PASSES"); do
    while read -r p e; do
        # shellcheck disable=SC2086
        "$tmp/permute_ab" "$p" $e "$REPS"
    done < "$tmp/cases"
done > "$tmp/raw"
{
    printf 'permutation\tmemcpy_s\told_vs_memcpy\tnew_vs_memcpy\tchange\n'
    awk -F'\t' '
        function median(arr, key, c,   q, j, x, v) {
            for (q = 1; q <= c; q++) v[q] = arr[key, q]
            for (q = 2; q <= c; q++) {
                x = v[q]
                for (j = q - 1; j > 0 && v[j] > x; j--) v[j + 1] = v[j]
                v[j + 1] = x
            }
            return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
        }
        { k = $1; if (!(k in cnt)) order[++m] = k; cnt[k]++
          t[k, cnt[k]] = $2; o[k, cnt[k]] = $3; w[k, cnt[k]] = $4 }
        END { for (i = 1; i <= m; i++) {
                  k = order[i]; before = median(o, k, cnt[k]); after = median(w, k, cnt[k])
                  change = after > before * 1.05 ? "+" : (after < before * 0.95 ? "-" : "")
                  printf "%s\t%.4e\t%.2f\t%.2f\t%s\n", k, median(t, k, cnt[k]), before, after, change
              } }' "$tmp/raw"
} | tee "$out"
echo "# $REV against the working tree, $PASSES passes of $REPS runs: $(grep -c '+$' "$out") faster by 5 % or more, $(grep -c -- '-$' "$out") slower" | tee -a "$out"
