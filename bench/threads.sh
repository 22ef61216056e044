#!/usr/bin/env bash
# threads.sh - tcgen on all cores (issue 39's bench): for each case (the
# CCSD terms of examples/ccsd_*.tc, the 48 TCCG contractions at 16 MiB),
# at 1 thread and at THREADS threads (default: the CPUs the process may
# use), the algorithm tcgen chooses there (`predict --threads T`, its
# best) measured at that count, against:
#   - the same contraction's 1-thread choice measured at 1 thread (speedup;
#     the two alternated in SPEEDUP_ROUNDS (5) rounds, medians),
#   - one dgemm of equal flops at T threads (its rate: the share of a gemm),
#   - numpy.einsum (optimize=True) with its BLAS at T threads, where
#     python3-numpy is installed (PYTHON: another python3 with numpy);
# and, per case, the regret of the choice against the best measured of
# the REGRET_TOP (10) best predicted at T threads and the best predicted
# with its loop split over the threads (NAME@P) and without, all measured
# in 3 interleaved rounds, a regret above 5 % confirmed in CONFIRM (20) more
# rounds of the choice against that best, compared by medians and by the
# least of the rounds (each candidate's predicted time, median, rounds and
# least in threads_candidates.tsv).
# Then the rate of each BLAS kernel set the machine offers (tcgen info).
# Every figure is a median of REPS runs, measured side by side in one run.
#   bash bench/threads.sh [TCGEN]      THREADS=16 REPS=5 MATCH=ccsd REGRET=0
# Writes results/threads.tsv and results/threads.md (under OUT, default
# bench/results).
set -euo pipefail
cd "$(dirname "$0")/.."
tcgen=${1:-build/tcgen}
out=${OUT:-bench/results}
reps=${REPS:-3}
match=${MATCH:-.}
threads=${THREADS:-$(nproc)}
python=${PYTHON:-/usr/bin/python3}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { printf '[threads.sh] %s\n' "$*" >&2; }
have_numpy=0
"$python" -c 'import numpy' 2>/dev/null && have_numpy=1

# the cases: NAME<TAB>CONTRACTION<TAB>SIZES<TAB>SPEC (C-A-B index letters, for numpy)
spec_of() { sed 's/[^][A-Za-z]*\([A-Za-z]*\)\[\([^]]*\)\]/\2-/g; s/,//g; s/-[^-]*$//' <<<"$1" | tr -d ' '; }
{
    for t in ring ladder hole_ladder; do
        f=examples/ccsd_$t.tc
        con=$(grep -v '^#' "$f" | grep '\[' | head -n 1)
        sz=$(grep -v '^#' "$f" | grep '=' | grep -v '\[' | sed 's/#.*//' |
            awk '{ gsub(/ /, ""); n = split($0, p, "="); for (k = 1; k < n; k++) printf "%s%s=%s", (c++ ? "," : ""), p[k], p[n] } END { print "" }')
        printf 'ccsd_%s\t%s\t%s\t%s\n' "$t" "$con" "$sz" "$(spec_of "$con")"
    done
    bash bench/tccg_sizes.sh | awk -F'\t' '{ printf "%s:%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $2 }'
} | grep -E -- "$match" >"$tmp/cases"
log "$(wc -l <"$tmp/cases") cases at 1 and $threads threads, $reps runs each"

best() { # CONTRACTION SIZES T: the predicted best's name
    "$tcgen" predict "$1" "$2" --threads "$3" --format tsv -q | awk -F'\t' 'NR == 2 { print $2 }'
}
measure() { # CONTRACTION SIZES NAME T: its median time
    "$tcgen" measure "$1" "$2" --algorithm "$3" --threads "$4" --reps "$reps" --format tsv -q |
        awk -F'\t' 'NR == 2 { print $4 }'
}
rounds() { # N CONTRACTION SIZES T: N interleaved rounds of the names in $tmp/cands
    local r name
    for r in $(seq "$1"); do
        while read -r name; do
            printf '%s\t%s\n' "$name" "$(measure "$2" "$3" "$name" "$4")" >>"$tmp/rounds"
        done <"$tmp/cands"
    done
}
# awk: sorted(S, X) splits the list S (" a b c") into X, sorted, and returns its length
sorted_awk='function sorted(s, x,   k, i, j, t) { k = split(substr(s, 2), x, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
    return k }'
medians() { # CHOICE: per name in $tmp/rounds its median, rounds and least, then
    # "best NAME PCT LEAST_PCT": the best median among the names in $tmp/cands (after a
    # confirmation, the two it measured) and the choice's regret by medians and by leasts
    awk -F'\t' -v ch="$1" "$sorted_awk"'
        FNR == NR { in_play[$1] = 1; next }
        $2 != "" { t[$1] = t[$1] " " $2 }
        END {
            for (n in t) {
                k = sorted(t[n], v)
                m[n] = v[int((k + 1) / 2)]
                if (n in in_play && (best == "" || m[n] < m[best])) best = n
                if (n in in_play && (least == "" || v[1] < least)) least = v[1]
                lo[n] = v[1]
                print n "\t" m[n] "\t" k "\t" v[1]
            }
            printf "best\t%s\t%.2f\t%.2f\n", best, (ch in m && m[best] > 0) ? (m[ch] / m[best] - 1) * 100 : 0,
                (ch in lo && least > 0) ? (lo[ch] / least - 1) * 100 : 0
        }' "$tmp/cands" "$tmp/rounds"
}
regret() { # CASE CONTRACTION SIZES T CHOICE: the choice's time over the best measured of it,
    # the REGRET_TOP best predicted and the best predicted split and unsplit (NAME@P or not),
    # each the median of 3 interleaved rounds (a phase of the host falls on all of them);
    # a regret above 5 % is measured again, the choice against that best alone in CONFIRM
    # (20) more interleaved rounds (the least of many 3-round medians is biased low on a
    # noisy host, as in peers.sh); prints the regret by medians and by leasts (the least of
    # a candidate's rounds: its time when nothing else took the CPUs); each candidate's
    # predicted time, median, number of rounds and least go to threads_candidates.tsv
    local best pct least
    "$tcgen" predict "$2" "$3" --threads "$4" --format tsv -q >"$tmp/ranked"
    { echo "$5"; awk -F'\t' -v top="${REGRET_TOP:-10}" -v ch="$5" 'NR > 1 && $2 != ch { k = $2 ~ /@/; if (NR <= top + 1) { seen[k]++; print $2 } else if (!seen[k]++) print $2 }' "$tmp/ranked"; } >"$tmp/cands"
    : >"$tmp/rounds"
    rounds 3 "$2" "$3" "$4"
    read -r _ best pct least < <(medians "$5" | tail -n 1)
    if [[ $best != "$5" ]] && awk -v p="$pct" 'BEGIN { exit !(p > 5) }'; then
        printf '%s\n%s\n' "$5" "$best" >"$tmp/cands"
        rounds "${CONFIRM:-20}" "$2" "$3" "$4"
        read -r _ best pct least < <(medians "$5" | tail -n 1)
    fi
    medians "$5" | awk -F'\t' -v c="$1" -v T="$4" 'FNR == NR { rank[$2] = $1; pred[$2] = $4; next }
        $1 != "best" { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c, T, ($1 in rank) ? rank[$1] : "-", $1, ($1 in pred) ? pred[$1] : "-", $2, $3, $4 }' \
        "$tmp/ranked" - >>"$out/threads_candidates.tsv"
    printf '%s\t%s' "$pct" "$least"
}
gemm() { # FLOPS T: the time of one dgemm of about that many flops
    local n
    n=$(awk -v f="$1" 'BEGIN { n = int(exp(log(f / 2) / 3) + 0.5); print n < 8 ? 8 : n }')
    "$tcgen" measure 'C[i,j] = A[i,k] * B[k,j]' "i=j=k=$n" --algorithm dgemm --threads "$2" \
        --reps "$reps" --format tsv -q | awk -F'\t' -v n="$n" -v f="$1" 'NR == 2 { print $4 * f / (2 * n * n * n) }'
}
flops() { "$tcgen" parse "$1" "$2" --format tsv | awk '$1 == "#" && $2 == "flops" { print $3 }'; }
paired() { # CONTRACTION SIZES C1 CT T: the medians of SPEEDUP_ROUNDS (5) interleaved rounds of
    # C1 at 1 thread and CT at T threads, each round a process apiece (a phase of the host in
    # which one vCPU is slow falls on both, or on one round only)
    local r
    for r in $(seq "${SPEEDUP_ROUNDS:-5}"); do
        printf '1\t%s\n' "$(measure "$1" "$2" "$3" 1)"
        printf 'T\t%s\n' "$(measure "$1" "$2" "$4" "$5")"
    done | awk -F'\t' "$sorted_awk"'
        function median(s,   x, k) { k = sorted(s, x); return x[int((k + 1) / 2)] }
        { v[$1] = v[$1] " " $2 }
        END { print median(v["1"]) "\t" median(v["T"]) }'
}

printf 'case\tthreads\trank\tname\tpredicted_s\tmeasured_s\trounds\tleast_s\n' >"$out/threads_candidates.tsv"
printf 'case\tthreads\tchoice\tseconds\tchoice_1\tseconds_1\tspeedup\tgemm_share\tnumpy_ratio\tregret_pct\tregret_least_pct\n' >"$out/threads.tsv"
while IFS=$'\t' read -r name con sz spec; do
    f=$(flops "$con" "$sz")
    c1=$(best "$con" "$sz" 1)
    cT=$c1
    [[ $threads -gt 1 ]] && cT=$(best "$con" "$sz" "$threads")
    read -r t1 tT < <(paired "$con" "$sz" "$c1" "$cT" "$threads")
    for T in 1 $([[ $threads -gt 1 ]] && echo "$threads"); do
        [[ $T == 1 ]] && t=$t1 c=$c1 || t=$tT c=$cT
        g=$(gemm "$f" "$T")
        np=-
        if [[ $have_numpy == 1 ]]; then
            np=$(OPENBLAS_NUM_THREADS=$T OMP_NUM_THREADS=$T "$python" bench/peers.py "$spec" "$sz" "$reps" 2>/dev/null |
                awk '{ print $1 }' || echo -)
        fi
        r=$'-\t-'
        [[ ${REGRET:-1} == 1 ]] && r=$(regret "$name" "$con" "$sz" "$T" "$c")
        awk -v n="$name" -v T="$T" -v c="$c" -v t="$t" -v c1="$c1" -v t1="$t1" -v g="$g" -v np="$np" -v r="$r" \
            'BEGIN { printf "%s\t%s\t%s\t%.6g\t%s\t%.6g\t%.3f\t%.3f\t%s\t%s\n", n, T, c, t, c1, t1, t1 / t, g / t,
                     np == "-" ? "-" : sprintf("%.3f", np / t), r }' >>"$out/threads.tsv"
        log "$name T=$T: $c $t s (1 thread: $c1 $t1 s)"
    done
done <"$tmp/cases"
"$tcgen" info --format tsv | awk '/^# (blas|blas_kernels|kernel_gflops|peak_gflops|cpu_peak_gflops|cpus) /' >"$out/threads_blas.txt"

{
    printf '### All cores (bench/threads.sh, %s, %s threads)\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$threads"
    printf 'Each case'"'"'s choice at T threads measured at T threads, alternated with its 1-thread choice at 1 thread in %s rounds of %s runs each (medians; speedup), one dgemm of equal flops at T threads (gemm share: the gemm'"'"'s time over the choice'"'"'s), numpy.einsum at T BLAS threads (its time over the choice'"'"'s), and the best measured of the %s best predicted and the best split and unsplit (regret, by medians of their interleaved rounds and by the least of them).\n\n' "${SPEEDUP_ROUNDS:-5}" "$reps" "${REGRET_TOP:-10}"
    printf '| case | T | choice | s | speedup vs 1 thread | gemm share | vs numpy | regret | by least |\n|---|---:|---|---:|---:|---:|---:|---:|---:|\n'
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $7, $8, $9, $10, $11 }' "$out/threads.tsv"
    awk -F'\t' -v T="$threads" 'NR > 1 && $2 == T { s += log($7); g += log($8); n++; if ($9 != "-") { p += log($9); m++ }
            r += ($10 != "-" && $10 > 5); q += ($11 != "-" && $11 > 5) }
        END { if (n) printf "\nAt %s threads over %d cases: geometric mean speedup %.2fx, gemm share %.2f%s; regrets above 5 %%: %d by medians, %d by leasts.\n", T, n, exp(s / n), exp(g / n),
              m ? sprintf(", %.2fx numpy.einsum (%d cases)", exp(p / m), m) : "", r, q }' "$out/threads.tsv"
    printf '\nThe BLAS (tcgen info):\n\n```\n'
    cat "$out/threads_blas.txt"
    printf '```\n'
} >"$out/threads.md"
log "wrote $out/threads.tsv and $out/threads.md"
