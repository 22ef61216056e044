#!/usr/bin/env bash
# types.sh [TCGEN] [REPS] - issue 35's type lines, one thread:
#  1. over the TCCG suite and the CCSD terms (bench/tccg_sizes.sh), in
#     each type, the main job's emitted C (--type, --keep-temporaries)
#     against one gemm of that type with as many multiply-adds
#     (bench/types_run.c, REPS alternating rounds, medians): each type's
#     geometric mean fraction of its gemm's rate, and that over double's
#     (target >= 0.9);
#  2. the paper's experiment 1 (C[a,b,c] = A[a,i] * B[i,b,c], i=8, a=b=c
#     64..448, dgemv/dger/dgemm algorithms) predicted and measured in each
#     type: `compare`'s mean absolute error (target <= 20 %).
# Writes bench/results/types.tsv and bench/results/types_e1.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
TCGEN=${1:-build/tcgen}
REPS=${2:-11}
out=bench/results/types.tsv
e1=bench/results/types_e1.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TCGEN_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p bench/results
cblas_inc=$(dirname "$(ls /usr/include/*/openblas*/cblas.h /usr/include/openblas/cblas.h 2>/dev/null | head -1)")
declare -A ELEM=([s]=float [d]=double [c]='float complex' [z]='double complex')
printf 'type\tgroup\tspec\tsizes\talgorithm\tcontraction_s\tgemm_s\tfraction\n' > "$out"
while IFS=$'\t' read -r group spec con sizes; do
    # elements of each tensor and the multiply-adds, from the sizes
    IFS=- read -r ic ia ib <<<"$spec"
    count() { local n=1 x; for x in $(grep -o . <<<"$1"); do
        n=$((n * $(tr ',' '\n' <<<"$sizes" | sed -n "s/^$x=//p"))); done; echo $n; }
    all=$(tr -d '\n' <<<"$ic$ia$ib" | grep -o . | sort -u | tr -d '\n')
    for t in d s c z; do
        "$TCGEN" "$con" "$sizes" --type $t --keep-temporaries --function tc_fn -q \
            -o "$tmp/f.c" 2>"$tmp/err" || { echo "types.sh: $spec $t: $(cat "$tmp/err")" >&2; continue; }
        alg=$(sed -n 's/^ \*   algorithm *//p' "$tmp/f.c")
        complex=0; [[ $t == c || $t == z ]] && complex=1
        cc -O2 -I"$cblas_inc" -DFUNC=tc_fn "-DELEM=${ELEM[$t]}" -DGEMM=cblas_${t}gemm \
            -DIS_COMPLEX=$complex -o "$tmp/run" bench/types_run.c "$tmp/f.c" \
            -lopenblas -lm 2>"$tmp/err" || { echo "types.sh: $spec $t: $(cat "$tmp/err")" >&2; continue; }
        row=$("$tmp/run" "$(count "$ia")" "$(count "$ib")" "$(count "$ic")" "$(count "$all")" "$REPS")
        read -r fs gs <<<"$row"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$group" "$spec" "$sizes" "$alg" "$fs" "$gs" \
            "$(awk -v f="$fs" -v g="$gs" 'BEGIN { printf "%.4f", g / f }')" | tee -a "$out"
    done
done < <(bash bench/tccg_sizes.sh)
awk -F'\t' 'NR > 1 && !/^#/ && $8 > 0 { s[$1] += log($8); n[$1]++ }
    END { for (t in n) g[t] = exp(s[t] / n[t])
          split("d s c z", order, " ")
          for (k = 1; k <= 4; k++) { t = order[k]; if (!(t in n)) continue
              printf "# type %s: %d contractions, geometric mean fraction of its gemm rate %.3f, %.3f of double'"'"'s (target >= 0.9)\n", t, n[t], g[t], g[t] / g["d"] } }' \
    "$out" | tee -a "$out"
printf 'type\tmean_abs_error_pct\tmean_spearman\n' > "$e1"
for t in d s c z; do
    "$TCGEN" compare 'C[a,b,c] = A[a,i] * B[i,b,c]' a=b=c=64,i=8 --sweep a=b=c=64:448:64 \
        --kernels dgemv,dger,dgemm --type $t --format tsv > "$tmp/e1.tsv"
    # the whole sweep's error; the rank correlation per size, averaged
    printf '%s\t%s\t%s\n' "$t" "$(sed -n 's/^# mean_abs_error_pct //p' "$tmp/e1.tsv" | tail -1)" \
        "$(awk '/^# .* spearman / { s += $NF; n++ } END { if (n) printf "%.3f", s / n }' "$tmp/e1.tsv")" \
        | tee -a "$e1"
done
echo "# experiment 1 per type: mean absolute error of the prediction (target <= 20 %)" | tee -a "$e1"
