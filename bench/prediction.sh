#!/usr/bin/env bash
# prediction.sh - the figures of issue 12 ("prediction that holds on any
# machine"), on this machine whatever hwloc reports, with no --cache-size:
#   1. the machine profile: the first measurement (a fresh cache directory)
#      and loading it afterwards; what it found against what hwloc says
#   2. predicting the 176 algorithms of C[a,b,c] = A[i,j,a] * B[j,b,i,c] at
#      a=b=c=200, i=j=8 (median of 5 runs), and `make demo`'s ranking
#   3. two independent predictions of those 176 (predict --repeat 2)
#   4. no prediction faster than physics: 20 predictions of each bench
#      contraction with a CPU hog on another core, every predicted rate
#      against the profile's peak x BLAS threads
#   5. the sampler's memory: peak RSS (/usr/bin/time) of predictions whose
#      problem or reported cache is huge, against the 512 MiB budget
#   6. the CCSD terms of examples/ at v=32, o=8 (all 1056 algorithms of
#      each measured, time limit)
#   7. the ablation: each sampler rule switched off alone, its experiment 1
#      error and CCSD regrets against all on (bench/ablation.sh)
# Writes bench/results/prediction_*.tsv and bench/results/prediction.md (a
# section bench/paper.sh puts into docs/results.md).
#   bash bench/prediction.sh [TCGEN]        PREDICTION_QUICK=1: fewer runs
set -euo pipefail
# one thread: at more, split twins (NAME@P) rank too
export TCGEN_THREADS=1 OPENBLAS_NUM_THREADS=1
tcgen=${1:-build/tcgen}
out=bench/results
quick=${PREDICTION_QUICK:-0}
mkdir -p "$out"
tmp=$(mktemp -d)
hog=
cleanup() { [[ -n $hog ]] && kill "$hog" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
t0=$(date +%s)
log() { printf '[prediction.sh %4ds] %s\n' "$(($(date +%s) - t0))" "$*" >&2; }
[[ -x $tcgen ]] || { log "error: '$tcgen' is not an executable"; exit 1; }
[[ -x /usr/bin/time ]] || { log "error: /usr/bin/time is needed (apt-get install time)"; exit 1; }

ORACLE='C[a,b,c] = A[i,j,a] * B[j,b,i,c]'
ORACLE_SIZES='a=b=c=200,i=j=8'
E1='C[a,b,c] = A[a,i] * B[i,b,c]'
runs=5 loaded=20
[[ $quick == 1 ]] && { runs=2 loaded=3; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# wall seconds and peak RSS (KiB) of a command: "SECONDS KIB"
timed() { /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || {
    cat "$tmp/stderr" >&2; return 1; }; cat "$tmp/time"; }

# ---- 1. the profile
log "1. machine profile: first measurement in a fresh cache directory, then loads"
export XDG_CACHE_HOME=$tmp/cache
read -r first_s first_kib < <(timed "$tcgen" info --format tsv)
cp "$tmp/stdout" "$out/prediction_info.tsv"
loads=()
for ((r = 0; r < runs; r++)); do
    read -r s _ < <(timed "$tcgen" info --format tsv)
    loads+=("$s")
done
load_s=$(printf '%s\n' "${loads[@]}" | median)
inf() { awk -v k="$1" '$1 == "#" && $2 == k { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$out/prediction_info.tsv"; }
peak=$(inf peak_gflops | awk '{ print $1 }')
threads=$(inf blas_threads)

# ---- 2. prediction time
log "2. predicting the 176 algorithms at $ORACLE_SIZES, $runs runs; make demo's ranking"
printf 'run\tpredict_s\twall_s\tpeak_rss_kib\n' >"$out/prediction_speed.tsv"
for ((r = 1; r <= runs; r++)); do
    read -r wall kib < <(timed "$tcgen" predict "$ORACLE" "$ORACLE_SIZES" --family paper --format tsv -q)
    ps=$(awk '/^# predict_s/ { print $3 }' "$tmp/stdout")
    algs=$(grep -vc '^#\|^rank' "$tmp/stdout")
    printf '%d\t%s\t%s\t%s\n' "$r" "$ps" "$wall" "$kib" >>"$out/prediction_speed.tsv"
done
oracle_s=$(awk -F'\t' 'NR > 1 { print $2 }' "$out/prediction_speed.tsv" | median)
oracle_wall=$(awk -F'\t' 'NR > 1 { print $3 }' "$out/prediction_speed.tsv" | median)
oracle_kib=$(awk -F'\t' 'NR > 1 && $4 > m { m = $4 } END { print m }' "$out/prediction_speed.tsv")
demos=()
for ((r = 0; r < runs; r++)); do
    "$tcgen" "$E1" 'a=b=c=400,i=8' -o "$tmp/demo.c" 2>"$tmp/demo.err"
    demos+=("$(awk '/ranked by prediction in/ { for (i = 1; i <= NF; i++) if ($i == "in") print $(i + 1) }' "$tmp/demo.err" | tr -d s)")
done
demo_s=$(printf '%s\n' "${demos[@]}" | median)

# ---- 3. two independent predictions
log "3. two independent predictions of the 176 (predict --repeat 2)"
"$tcgen" predict "$ORACLE" "$ORACLE_SIZES" --family paper --repeat 2 --format tsv -q >"$out/prediction_repeat.tsv"
agree=$(awk '/^# within_20pct/ { print $3 " of " $5 " " $6 " " $7 }' "$out/prediction_repeat.tsv")
widest=$(awk '/^# max_spread_pct/ { print $3 }' "$out/prediction_repeat.tsv")

# ---- 4. loaded machine
log "4. $loaded predictions of each bench contraction with a CPU hog on another core"
( while :; do :; done ) &
hog=$!
problems=("C[i,j] = A[i,k] * B[k,j]|i=j=k=100" "$E1|a=b=c=200,i=8" "$ORACLE|$ORACLE_SIZES"
          "C[a] = A[i,a,j] * B[j,i]|a=i=j=256" "$E1|a=b=c=128,i=64")
printf 'contraction\tsizes\tpredictions\talgorithms\tbest_first\tfastest_gflops\tbound_gflops\tbelow_bound\n' >"$out/prediction_loaded.tsv"
for p in "${problems[@]}"; do
    con=${p%%|*} sz=${p##*|}
    "$tcgen" predict "$con" "$sz" --repeat "$loaded" --format tsv -q >"$tmp/loaded.tsv"
    flops=$(awk -F'\t' 'NR == 2 { print $4 * $5 * 1e9 }' "$tmp/loaded.tsv")
    # min_s is the fastest of the predictions of an algorithm: its rate
    # must stay under the peak of the threads the BLAS uses
    awk -F'\t' -v con="$con" -v sz="$sz" -v n="$loaded" -v peak="$peak" -v th="$threads" -v fl="$flops" '
        NR == 1 || /^#/ { next }
        { algs++; if (NR == 2) best = $2; r = fl / $6 * 1e-9; if (r > fast) fast = r
          if (r > peak * th * 1.0001) below++ }
        END { printf "%s\t%s\t%d\t%d\t%s\t%.2f\t%.2f\t%d\n", con, sz, n, algs, best, fast, peak * th, below }' \
        "$tmp/loaded.tsv" >>"$out/prediction_loaded.tsv"
done
kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null || true; hog=

# ---- 5. memory
log "5. peak RSS of predictions with a huge problem or a huge reported cache"
printf 'case\tcontraction\tsizes\toptions\twall_s\tpeak_rss_kib\n' >"$out/prediction_memory.tsv"
mem() {
    local name=$1 con=$2 sz=$3; shift 3
    read -r wall kib < <(timed "$tcgen" predict "$con" "$sz" --reps 3 --format tsv -q "$@")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$con" "$sz" "${*:--}" "$wall" "$kib" >>"$out/prediction_memory.tsv"
}
mem small 'C[a,b] = A[a,i] * B[i,b]' a=b=16,i=8
mem oracle "$ORACLE" "$ORACLE_SIZES"
mem large_problem "$E1" a=b=15000,c=2,i=8
# the budget against a huge LLC: --cache-size stands in for a host that reports one
mem huge_llc 'C[a,b] = A[a,i] * B[i,b]' a=b=16,i=8 --cache-size 8GiB
mem huge_llc_remote 'C[a,b] = A[a,i] * B[i,b]' a=b=16,i=8 --cache-size 8GiB --flush remote
max_kib=$(awk -F'\t' 'NR > 1 && $6 > m { m = $6 } END { print m }' "$out/prediction_memory.tsv")

# ---- 6. CCSD terms
# The terms of examples/ccsd_*.tc at v=32, o=8 (the files' sizes make each of
# their 1056 algorithms run for seconds): every algorithm measured, 3 runs,
# --time-limit 0.2 s.
log "6. the CCSD terms of examples/ (v=32, o=8): every algorithm measured"
printf 'term\tcontraction\tsizes\talgorithms\tmeasured\tmean_abs_error_pct\tspearman\tbest_predicted\tbest_measured\tregret_pct\tregret_sweep_pct\tpredict_s\tmeasure_s\n' >"$out/prediction_ccsd.tsv"
ccsd=("ring|R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]|a=b=e=32,i=j=m=8"
      "ladder|R[a,b,i,j] += 0.5 * W[a,b,e,f] * T[e,f,i,j]|a=b=e=f=32,i=j=8"
      "hole_ladder|R[a,b,i,j] += 0.5 * T[a,b,m,n] * W[m,n,i,j]|a=b=32,i=j=m=n=8")
[[ $quick == 1 ]] && ccsd=("ring|R[a,b,i,j] += T[a,e,i,m] * W[m,b,e,j]|a=b=e=12,i=j=m=4")
for t in "${ccsd[@]}"; do
    IFS='|' read -r term con sz <<<"$t"
    log "   $term: $con $sz"
    "$tcgen" compare "$con" "$sz" --family paper --time-limit 0.2 --reps 3 --format tsv -q >"$out/prediction_ccsd_$term.tsv"
    awk -v t="$term" -v con="$con" -v sz="$sz" '
        /^#/ { v[$2] = $3; next } NR > 1 { n++; if ($4 != "-") m++ }
        END { printf "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t, con, sz, n, m, v["mean_abs_error_pct"],
              v["spearman"], v["best_predicted"], v["best_measured"], v["regret_pct"], v["regret_sweep_pct"],
              v["predict_s"], v["measure_s"] }' \
        "$out/prediction_ccsd_$term.tsv" >>"$out/prediction_ccsd.tsv"
done

# ---- 7. what each sampler rule buys, on the CCSD tables just measured
log "7. ablation: each sampler rule switched off alone (bench/ablation.sh)"
ABLATION_QUICK=$quick bash bench/ablation.sh "$tcgen"

# ---- the report section
{
    printf '## Prediction on any machine (issue 12)\n\n'
    printf '*From `bash bench/prediction.sh %s`, %s, in %d s; no `--cache-size` but in the memory\n' "$tcgen" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(($(date +%s) - t0))"
    printf 'rows that stand for a host reporting a huge cache. Raw: bench/results/prediction_*.tsv.*\n\n'
    printf '### The machine profile\n\n'
    printf '| level | detected (%s) | measured | used |\n|---|---:|---:|---|\n' "$(inf cache_source)"
    awk -F'\t' 'NR > 1 && $1 ~ /^L/ { printf "| %s | %s | %s | %s %s |\n", $1, $3, $8, $10, $11 }' "$out/prediction_info.tsv"
    printf '\nLLC in use: %s. Stream prefetch: %s lines ahead. Peak %s GFLOP/s (dgemm, one thread), memory %s GB/s (one thread).\n' \
        "$(inf llc_bytes)" "$(inf stream_prefetch_lines)" "$peak" "$(inf memory_gb_per_s | awk '{ print $1 }')"
    printf 'First measurement (a new machine): %s s wall (peak RSS %s MiB); loading it afterwards: `tcgen info` in %s s (median of %d).\n\n' \
        "$first_s" "$((first_kib / 1024))" "$load_s" "$runs"
    printf '### Done-means of issue 12 measured here\n\n| figure | target | result |\n|---|---|---|\n'
    printf '| predicting the %s algorithms of `%s` at %s | < 0.5 s | %s s predict_s (median of %d; %s s wall, peak RSS %s MiB) |\n' \
        "$algs" "$ORACLE" "$ORACLE_SIZES" "$oracle_s" "$runs" "$oracle_wall" "$((oracle_kib / 1024))"
    printf '| `make demo` ranking (`%s` a=b=c=400,i=8) | < 1 s | %s s (median of %d) |\n' "$E1" "$demo_s" "$runs"
    printf '| two independent predictions within 20 %% | 95 %% of the algorithms | %s; widest spread %s %% |\n' "$agree" "$widest"
    below=$(awk -F'\t' 'NR > 1 { s += $8 } END { print s + 0 }' "$out/prediction_loaded.tsv")
    printf '| predictions faster than the flop bound, %d predictions per contraction, CPU hog on another core | none | %s |\n' "$loaded" "$below"
    printf '| sampler peak RSS (any problem, any reported LLC) | < 512 MiB | largest %s MiB |\n\n' "$((max_kib / 1024))"
    printf 'Loaded machine (the fastest of %d predictions per algorithm against peak x %s threads):\n\n' "$loaded" "$threads"
    printf '| contraction | sizes | algorithms | ranked first (median) | fastest predicted GFLOP/s | bound GFLOP/s | above the bound |\n|---|---|---:|---|---:|---:|---:|\n'
    awk -F'\t' 'NR > 1 { printf "| `%s` | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, $6, $7, $8 }' "$out/prediction_loaded.tsv"
    printf '\nMemory (peak RSS of the whole `tcgen predict` process):\n\n| case | contraction | sizes | options | wall s | peak RSS MiB |\n|---|---|---|---|---:|---:|\n'
    awk -F'\t' 'NR > 1 { printf "| %s | `%s` | %s | %s | %s | %.0f |\n", $1, $2, $3, $4, $5, $6 / 1024 }' "$out/prediction_memory.tsv"
    printf '\nCCSD terms (examples/ccsd_*.tc at v=32, o=8), every algorithm measured (3 runs, `--time-limit 0.2`; those over it are left out of the errors; the regret side by side: the predicted best against the 3 fastest of the table, 5 interleaved rounds):\n\n'
    printf '| term | sizes | algorithms | measured | mean abs error | Spearman | best predicted | best measured | regret side by side | regret in the table | predict_s | measure_s |\n|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|\n'
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s %% | %s | %s | %s | %s %% | %s %% | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$out/prediction_ccsd.tsv"
    printf '\n'
    cat "$out/ablation.md"
} >"$out/prediction.md"
log "wrote $out/prediction.md"
cat "$out/prediction.md"
