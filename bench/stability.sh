#!/usr/bin/env bash
# stability.sh [TCGEN] - issue 37's "a stable choice": the main job run
# three times on each contraction of bench/peers.sh's list (bench/tccg_sizes.sh:
# the 48 TCCG contractions and the CCSD terms), one thread, each run with
# wisdom of its own (so each ranks anew); where the three choices differ,
# each distinct choice measured (`tcgen measure`, median of 5, in ROUNDS
# (9) interleaved rounds, the median of the rounds) and the spread of their
# times reported, next to the spread of a control: the first choice
# measured a second time in the same rounds, as if it were another
# algorithm (the bench's own noise: with 3 rounds it reached 29 % on a
# CCSD(T) term, docs/benchmarks.md). Target: every case the same choice,
# or choices measured within 3 % of each other. Writes
# bench/results/stability.tsv (case, the three choices, how many distinct,
# their spread in %, the control's spread in %) and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tcgen=${1:-build/tcgen}
out=bench/results/stability.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'case\tchoices\tdistinct\tspread_pct\tcontrol_pct\n' >"$out"
# spread (in %) between the medians of ROUNDS interleaved rounds of the
# names on stdin (a phase of the host falls on every name, not on one);
# "NAME#2" measures NAME again under its own label
spread_of() { # CONTRACTION SIZES
    local names
    names=$(cat)
    for r in $(seq "${ROUNDS:-9}"); do
        while read -r a; do
            printf '%s\t%s\n' "$a" "$("$tcgen" measure "$1" "$2" --algorithm "${a%#2}" --threads 1 --reps 5 \
                --format tsv -q | sed -n 2p | cut -f4)"
        done <<<"$names"
    done | sort -t$'\t' -k1,1 -k2,2g | awk -F'\t' '{ t[$1] = t[$1] " " $2; n[$1]++ }
        END { for (a in t) { split(substr(t[a], 2), v, " "); m[a] = v[int((n[a] + 1) / 2)] }
              for (a in m) { if (a ~ /#2$/) continue; if (lo == "" || m[a] < lo) lo = m[a]; if (m[a] > hi) hi = m[a] }
              for (a in m) if (a ~ /#2$/) { c = m[a]; b = m[substr(a, 1, length(a) - 2)] }
              printf "%.1f\t%.1f", 100 * (hi / lo - 1), 100 * ((c > b ? c / b : b / c) - 1) }'
}
bash bench/tccg_sizes.sh | while IFS=$'\t' read -r group spec con sizes; do
    names=()
    for r in 1 2 3; do
        rm -f "$tmp/w"
        names+=("$(TCGEN_WISDOM=$tmp/w "$tcgen" "$con" "$sizes" --threads 1 -o "$tmp/f.c" 2>&1 |
            sed -n 's/^tcgen: \([^,]*\), .*/\1/p' | tail -1)")
    done
    distinct=$(printf '%s\n' "${names[@]}" | sort -u)
    k=$(wc -l <<<"$distinct")
    spreads=$'0.0\t-'
    if [ "$k" -gt 1 ]; then
        spreads=$(printf '%s\n%s#2\n' "$distinct" "${names[0]}" | spread_of "$con" "$sizes")
    fi
    printf '%s:%s\t%s\t%d\t%s\n' "$group" "$spec" "$(IFS=,; echo "${names[*]}")" "$k" "$spreads" >>"$out"
done
awk -F'\t' 'NR > 1 {n++; if ($3 == 1) same++; else if ($4 <= 3) near++; else far++}
    END {printf "# %d cases: %d the same choice in 3 runs, %d different choices within 3 %%, %d more than 3 %% apart\n", n, same, near, far}' "$out" |
    tee -a "$out"
awk -F'\t' 'NR > 1 && $5 != "-" && $5 != "" {print $5}' "$out" | sort -g |
    awk '{v[NR] = $1} END {if (NR) printf "# control (the first choice against itself, %d cases): median %.1f %%, largest %.1f %%\n", NR, v[int((NR + 1) / 2)], v[NR]}' |
    tee -a "$out"
