#!/usr/bin/env bash
# stability.sh [TCGEN] - issue 37's "a stable choice": the main job run
# three times on each contraction of bench/peers.sh's list (bench/tccg_sizes.sh:
# the 48 TCCG contractions and the CCSD terms), one thread, each run with
# wisdom of its own (so each ranks anew); where the three choices differ,
# each distinct choice measured (`tcgen measure`, median of 5, in 3
# interleaved rounds, the median of the rounds) and the spread of their
# times reported. Target: every case the same choice, or
# choices measured within 3 % of each other. Writes
# bench/results/stability.tsv (case, the three choices, how many distinct,
# their spread in %) and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tcgen=${1:-build/tcgen}
out=bench/results/stability.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'case\tchoices\tdistinct\tspread_pct\n' >"$out"
bash bench/tccg_sizes.sh | while IFS=$'\t' read -r group spec con sizes; do
    names=()
    for r in 1 2 3; do
        rm -f "$tmp/w"
        names+=("$(TCGEN_WISDOM=$tmp/w "$tcgen" "$con" "$sizes" --threads 1 -o "$tmp/f.c" 2>&1 |
            sed -n 's/^tcgen: \([^,]*\), .*/\1/p' | tail -1)")
    done
    distinct=$(printf '%s\n' "${names[@]}" | sort -u)
    k=$(wc -l <<<"$distinct")
    spread=0.0
    if [ "$k" -gt 1 ]; then
        # 3 interleaved rounds, each choice's median of them: a phase of the
        # host falls on every choice, not on one
        spread=$(for r in 1 2 3; do
            while read -r a; do
                printf '%s\t%s\n' "$a" "$("$tcgen" measure "$con" "$sizes" --algorithm "$a" --threads 1 --reps 5 \
                    --format tsv -q | sed -n 2p | cut -f4)"
            done <<<"$distinct"
        done | sort -t$'\t' -k1,1 -k2,2g | awk -F'\t' '{ t[$1] = t[$1] " " $2; n[$1]++ }
            END { for (a in t) { split(substr(t[a], 2), v, " "); m = v[int((n[a] + 1) / 2)];
                                 if (lo == "" || m < lo) lo = m; if (m > hi) hi = m }
                  printf "%.1f", 100 * (hi / lo - 1) }')
    fi
    printf '%s:%s\t%s\t%d\t%s\n' "$group" "$spec" "$(IFS=,; echo "${names[*]}")" "$k" "$spread" >>"$out"
done
awk -F'\t' 'NR > 1 {n++; if ($3 == 1) same++; else if ($4 <= 3) near++; else far++}
    END {printf "# %d cases: %d the same choice in 3 runs, %d different choices within 3 %%, %d more than 3 %% apart\n", n, same, near, far}' "$out" |
    tee -a "$out"
