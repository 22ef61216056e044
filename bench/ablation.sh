#!/usr/bin/env bash
# ablation.sh - what each sampler rule buys: every rule `tcgen info --rules`
# lists, switched off alone (--model full,-RULE), against all rules on, in
# one run and on the same measurements:
#   - experiment 1 (C[a,b,c] = A[a,i] * B[i,b,c], i=8, a=b=c=64..448, the
#     dgemv, dger and dgemm algorithms): measured once, then predicted under
#     every variant, interleaved size by size; the mean |error| per variant;
#   - the CCSD terms: every algorithm's measured time from the tables
#     bench/prediction.sh wrote (results/prediction_ccsd_TERM.tsv); each
#     variant's predicted best is looked up there, and its regret is its
#     measured time against the fastest measured;
#   - how many algorithms' predictions a rule moves beyond the noise: all
#     rules on is predicted three times; the first two make each
#     algorithm's baseline (their mean) and its noise (their difference),
#     and a prediction moved by more than 10 % + twice that noise counts.
#     The third all-on run counts what noise alone moves.
#   - how many of the cases timed each rule changes, counted exactly: the
#     third all-on run is made with -v, and the sampler reports, rule by
#     rule, the cases whose recipe (placement, train, slab), blend or
#     composed time would differ with that rule alone off
#     (tc_mb_sampler_rule_cases). Timing noise does not enter it.
#   - five more problems, predicted only, where the rules about long calls
#     and memory-bound loops act: one dgemm longer than a millisecond
#     (slabs, bound), the demo's contraction with its daxpy and ddot loops
#     over memory (one-pass, stream-bytes, write-back, trains), TCCG's
#     ij-ikl-ljk at its 16 MiB sizes (slab-floor: memory-bound calls whose
#     slabs must stay beyond the LLC) and TCCG's abcd-aecf-fbed at 38
#     (warm-slabs: the one dgemm after the permutations, its operands in
#     memory; interleaved-trains: its loops of small dgemms), and a
#     CCSD(T) term (interleaved-trains and first-streams: its loops of
#     24^3 dgemms writing C's columns in place).
# Run by bench/prediction.sh after its CCSD section (it needs those tables);
# writes results/ablation.tsv and results/ablation.md.
#   bash bench/ablation.sh [TCGEN]        ABLATION_QUICK=1: two sizes, one term
set -euo pipefail
# one thread, as the CCSD tables were measured (at more, split twins rank too)
export TCGEN_THREADS=1 OPENBLAS_NUM_THREADS=1
tcgen=${1:-build/tcgen}
out=bench/results
quick=${ABLATION_QUICK:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { printf '[ablation.sh] %s\n' "$*" >&2; }

E1='C[a,b,c] = A[a,i] * B[i,b,c]'
sweep='a=b=c=64:448:64'
[[ $quick == 1 ]] && sweep='a=b=c=64:128:64'
kernels=dgemv,dger,dgemm
terms=(ring ladder hole_ladder)
[[ $quick == 1 ]] && terms=(ring)
extras=("long_dgemm|C[i,j] = A[i,k] * B[k,j]|i=j=k=1500" "demo|$E1|a=b=c=400,i=8"
    "tccg_ij_ikl_ljk|C[i,j] = A[i,k,l] * B[l,j,k]|i=144,j=128,k=128,l=144"
    "tccg_abcd_aecf_fbed|C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]|a=b=c=d=e=f=38"
    "ccsd_t_abcijk_jkmb_miac|C[a,b,c,i,j,k] = A[j,k,m,b] * B[m,i,a,c]|a=24,b=12,c=12,i=12,j=24,k=12,m=24")
[[ $quick == 1 ]] && extras=("long_dgemm|C[i,j] = A[i,k] * B[k,j]|i=j=k=300" "demo|$E1|a=b=c=64,i=8")
extra_names=()
for x in "${extras[@]}"; do extra_names+=("${x%%|*}"); done
for t in "${terms[@]}"; do
    [[ -s $out/prediction_ccsd_$t.tsv ]] || { log "error: $out/prediction_ccsd_$t.tsv is missing (run bench/prediction.sh)"; exit 1; }
done
# the term's contraction and sizes, from prediction.sh's summary
term_problem() { awk -F'\t' -v t="$1" '$1 == t { print $2 "|" $3 }' "$out/prediction_ccsd.tsv"; }

rules=$("$tcgen" info --rules --format tsv | awk -F'\t' 'NR > 1 && !/^#/ { print $1 }')
variants=(full again again2)
for r in $rules; do variants+=("-$r"); done
model() { case $1 in full | again | again2) echo full ;; *) echo "full,$1" ;; esac; }
log "${#variants[@]} variants: all rules on (three times) and each of $(wc -w <<<"$rules") rules off"

log "experiment 1: measured once ($E1, $sweep, $kernels)"
"$tcgen" measure "$E1" a=b=c=64,i=8 --sweep "$sweep" --kernels "$kernels" --format tsv -q \
    >"$tmp/e1_measured.tsv"
# Predictions: per problem, every variant in turn, so a slow phase of the
# host falls on all of them alike.
predict() { # FILE CONTRACTION SIZES [OPTIONS...]
    local file=$1 con=$2 sz=$3; shift 3
    for v in "${variants[@]}"; do
        local verbose=-q
        [[ $v == again2 ]] && verbose=-v # the rules' cases, counted
        "$tcgen" predict "$con" "$sz" --model "$(model "$v")" --format tsv "$verbose" "$@" \
            >"$tmp/$file.$v.tsv" 2>"$tmp/$file.$v.log" || { cat "$tmp/$file.$v.log" >&2; exit 1; }
    done
}
log "experiment 1: predicted under each variant"
predict e1 "$E1" a=b=c=64,i=8 --sweep "$sweep" --kernels "$kernels"
for t in "${terms[@]}"; do
    IFS='|' read -r con sz <<<"$(term_problem "$t")"
    log "$t: predicted under each variant ($con $sz)"
    predict "$t" "$con" "$sz" --family paper
done
for x in "${extras[@]}"; do
    IFS='|' read -r name con sz <<<"$x"
    log "$name: predicted under each variant ($con $sz)"
    predict "$name" "$con" "$sz"
done

# mean |error| of experiment 1 (sweep files: x rank name kernel predicted_s)
e1_error() {
    awk -F'\t' 'FNR == 1 || /^#/ { next } NR == FNR { m[$1 "\t" $3] = $5; next }
        ($1 "\t" $3) in m && m[$1 "\t" $3] != "-" { d = ($5 - m[$1 "\t" $3]) / m[$1 "\t" $3]; s += d < 0 ? -d : d; n++ }
        END { printf "%.2f", n ? s / n * 100 : 0 }' "$tmp/e1_measured.tsv" "$tmp/e1.$1.tsv"
}
# regret of a term's predicted best (files: rank name kernel predicted_s;
# the table: name kernel predicted_s measured_s error_pct)
regret() {
    awk -F'\t' 'FNR == 1 || /^#/ { next }
        NR == FNR { if ($4 != "-") { m[$1] = $4; if (best == "" || $4 < best) best = $4 }; next }
        !pick { pick = $2 }
        END { if (!(pick in m)) print "over limit"; else printf "%.2f", (m[pick] / best - 1) * 100 }' \
        "$out/prediction_ccsd_$2.tsv" "$tmp/$2.$1.tsv"
}
# algorithms whose prediction under variant $1 moved beyond the noise:
# |v - b| / b > 10 % + 2 |full - again| / b, b the mean of full and again
moved() {
    local v=$1 f total=0 n
    for f in e1 "${terms[@]}" "${extra_names[@]}"; do
        n=$(awk -F'\t' -v sweep="$([[ $f == e1 ]] && echo 1 || echo 0)" '
            FNR == 1 { file++ } FNR == 1 || /^#/ { next }
            { key = sweep ? $1 "\t" $3 : $2; t = sweep ? $5 : $4 }
            file == 1 { a[key] = t; next }
            file == 2 { b[key] = t; next }
            (key in a) && (key in b) {
                base = (a[key] + b[key]) / 2; noise = a[key] - b[key]; noise = noise < 0 ? -noise : noise
                d = t - base; d = d < 0 ? -d : d
                if (d > 0.10 * base + 2 * noise) n++ }
            END { print n + 0 }' "$tmp/$f.full.tsv" "$tmp/$f.again.tsv" "$tmp/$f.$v.tsv")
        total=$((total + n))
    done
    echo "$total"
}
# the cases timed that rule $1 changes, over every problem (third all-on run)
rule_cases() {
    local f total=0
    for f in e1 "${terms[@]}" "${extra_names[@]}"; do
        total=$((total + $(awk -v r="$1" '/^# rule_cases/ { for (k = 3; k <= NF; k++) {
            split($k, kv, "="); if (kv[1] == r) n += kv[2] } } END { print n + 0 }' "$tmp/$f.again2.tsv")))
    done
    echo "$total"
}
cases_timed() {
    local f total=0
    for f in e1 "${terms[@]}" "${extra_names[@]}"; do
        total=$((total + $(awk '/^# cases_timed/ { n += $3 } END { print n + 0 }' "$tmp/$f.again2.tsv")))
    done
    echo "$total"
}
# how many algorithms the cases hold, over all of them
algorithms() {
    local f total=0
    for f in e1 "${terms[@]}" "${extra_names[@]}"; do
        total=$((total + $(awk 'NR > 1 && !/^#/' "$tmp/$f.full.tsv" | wc -l)))
    done
    echo "$total"
}

{
    printf 'variant\tmodel\te1_mean_abs_error_pct'
    for t in "${terms[@]}"; do printf '\t%s_regret_pct' "$t"; done
    printf '\tmoved_beyond_noise\tcases_changed\n'
    for v in "${variants[@]}"; do
        printf '%s\t%s\t%s' "$v" "$(model "$v")" "$(e1_error "$v")"
        for t in "${terms[@]}"; do printf '\t%s' "$(regret "$v" "$t")"; done
        case $v in
        full | again) printf '\t-\t-\n' ;;
        again2) printf '\t%s\t%s timed\n' "$(moved "$v")" "$(cases_timed)" ;;
        *) printf '\t%s\t%s\n' "$(moved "$v")" "$(rule_cases "${v#-}")" ;;
        esac
    done
} >"$out/ablation.tsv"

{
    printf '### What each sampler rule buys (ablation)\n\n'
    printf 'Each rule of `tcgen info --rules` switched off alone (`--model full,-RULE`), against all rules on, predicted three times. Experiment 1 measured once, the CCSD terms'"'"' measurements those of the table above; every variant predicted in turn, problem by problem. Moved: of the %s algorithms of these cases and of five more predicted only (`C[i,j] = A[i,k] * B[k,j]` at i=j=k=1500, one dgemm longer than a millisecond; `make demo`'"'"'s contraction with its loops over memory; TCCG'"'"'s `C[i,j] = A[i,k,l] * B[l,j,k]` at i=144, j=k=128, l=144; TCCG'"'"'s `C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]` at 38, its one dgemm after permutations and its loops of small dgemms; the CCSD(T) term `C[a,b,c,i,j,k] = A[j,k,m,b] * B[m,i,a,c]`, its loops of 24^3 dgemms writing C in place), one thread, how many a variant predicts more than 10 %% + twice their noise away from their all-on baseline (the mean of the first two all-on runs; the noise, their difference); the third all-on run shows what noise alone moves. Cases changed: of the cases the third all-on run timed (its row), how many the rule changes, counted exactly by the sampler (`-v`): switched off alone, the case'"'"'s recipe (placement, train, slab), its blend over the LLC'"'"'s edge or the time composed from the same timing would differ; no timing noise enters it, and a rule at 0 does nothing on this machine'"'"'s profile for these problems. The regrets move with the noise too: compare a rule'"'"'s with the three all-on rows.\n\n' "$(algorithms)"
    printf '| rules | experiment 1 mean abs error |'
    for t in "${terms[@]}"; do printf ' %s regret |' "$t"; done
    printf ' predictions moved beyond the noise | cases changed |\n|---|---:|'
    for t in "${terms[@]}"; do printf -- '---:|'; done
    printf -- '---:|---:|\n'
    awk -F'\t' 'NR > 1 {
        name = $1 == "full" ? "all on" : $1 == "again" ? "all on, again" : $1 == "again2" ? "all on, a third time" : "off: " substr($1, 2)
        printf "| %s | %s %% |", name, $3
        for (k = 4; k < NF - 1; k++) printf " %s%s |", $k, $k ~ /^[0-9.]+$/ ? " %" : ""
        printf " %s | %s |\n", $(NF - 1), $NF }' "$out/ablation.tsv"
    printf '\n'
} >"$out/ablation.md"
log "wrote $out/ablation.tsv and $out/ablation.md"
