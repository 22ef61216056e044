#!/usr/bin/env bash
# Prediction cost: predicts every algorithm of the two contractions of
# issue 4 and reports how long each prediction took (the '# predict_s'
# line of 'tcgen predict'), with both ways of evicting out-of-cache
# operands. Results: bench/results/predict_speed.tsv.
#   bench/predict_speed.sh [TCGEN] [RUNS]
set -euo pipefail
tcgen=${1:-build/tcgen}
runs=${2:-3}
out=bench/results
mkdir -p "$out"
tsv=$out/predict_speed.tsv

problems=(
  "C[a,b,c] = A[i,j,a] * B[j,b,i,c]|i=j=8,a=b=c=200"
  "C[a,b,c] = A[a,i] * B[i,b,c]|i=8,a=b=c=400"
)

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

printf 'contraction\tsizes\tflush\talgorithms\tcases_timed\tcases_reused\tpredict_s_median\tpredict_s_runs\n' >"$tsv"
for p in "${problems[@]}"; do
    contraction=${p%%|*}
    sizes=${p##*|}
    for flush in clflush remote; do
        times=()
        for ((r = 0; r < runs; r++)); do
            res=$("$tcgen" predict "$contraction" "$sizes" --flush "$flush" --format tsv -q)
            times+=("$(awk '/^# predict_s/ {print $3}' <<<"$res")")
            algs=$(grep -vc '^#\|^rank' <<<"$res")
            timed=$(awk '/^# cases_timed/ {print $3}' <<<"$res")
            reused=$(awk '/^# cases_timed/ {print $5}' <<<"$res")
        done
        med=$(printf '%s\n' "${times[@]}" | median)
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$contraction" "$sizes" "$flush" "$algs" \
            "$timed" "$reused" "$med" "$(IFS=,; echo "${times[*]}")" >>"$tsv"
    done
done
column -t -s $'\t' "$tsv"
