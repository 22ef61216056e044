#!/usr/bin/env bash
# Reproduces the experiments of Peise's dissertation, ch. 6 §6.3 (docs/design.md §5) with tcgen on this machine, and writes
#   bench/results/e*.tsv, *.log   raw outputs of every tcgen run
#   bench/results/e*.svg (+ .png) predicted (solid) / measured (dashed) GFLOP/s
#   docs/results.md               the summary, generated (do not edit by hand)
#
#   bash bench/paper.sh [TCGEN]          (make bench runs it)
#   PAPER_QUICK=1 bash bench/paper.sh    tiny sizes, to test the script itself
#   PAPER_REPORT_ONLY=1 bash bench/paper.sh   only rewrite docs/results.md from
#                                        the outputs of the last run
#
# Experiments
#   1  C[a,b,c] = A[a,i] * B[i,b,c], i=8, a=b=c swept, dgemm/dger/dgemv:
#      the error ladder (measured once, predicted with each of the 5 models)
#   2  the same, a=b=c=128, i swept, all 36 algorithms
#   3  C[a] = A[i,a,j] * B[j,i], a=i=j swept, all 8 algorithms
#   4  C[a,b,c] = A[i,j,a] * B[j,b,i,c], i=j=8, all 176 algorithms
#   5  speedup of prediction over one run, per kernel (from 1-4)
#   6  BLIS instead of OpenBLAS for experiments 1 and 3
# It takes about 15 minutes on a 2-core machine (see the header of
# docs/results.md for the last run's time).
set -euo pipefail

tcgen=${1:-build/tcgen}
out=bench/results
doc=docs/results.md
quick=${PAPER_QUICK:-0}
report_only=${PAPER_REPORT_ONLY:-0}

t0=$(date +%s)
log() { printf '[paper.sh %4ds] %s\n' "$(($(date +%s) - t0))" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $tcgen ]] || die "'$tcgen' is not an executable; build it with make (or pass its path)"
mkdir -p "$out" "$(dirname "$doc")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One BLAS thread, as in the dissertation's experiments: a 2-thread call's
# time on a 2-vCPU VM depends on how fast the host wakes the other vCPU,
# which changes from process to process (docs/prediction.md).
export TCGEN_THREADS=${PAPER_THREADS:-1}

# ---------------------------------------------------------------- parameters
E1_C='C[a,b,c] = A[a,i] * B[i,b,c]'
E3_C='C[a] = A[i,a,j] * B[j,i]'
E4_C='C[a,b,c] = A[i,j,a] * B[j,b,i,c]'
if [[ $quick == 1 ]]; then
    E1_SIZES='a=b=c=32,i=8';    E1_SWEEP='a=b=c=32:64:32'
    E2_SIZES='a=b=c=32,i=8';    E2_SWEEP='i=8,64'
    E3_SIZES='a=i=j=32';        E3_SWEEP='a=i=j=32:64:32'
    E4_SIZES='i=j=8,a=b=c=16';  E4_SWEEP='a=b=c=16,24'
else
    E1_SIZES='a=b=c=64,i=8';    E1_SWEEP='a=b=c=64:448:64'
    E2_SIZES='a=b=c=128,i=8';   E2_SWEEP='i=8,64,128,256,512'
    E3_SIZES='a=i=j=64';        E3_SWEEP='a=i=j=64:512:64'
    E4_SIZES='i=j=8,a=b=c=64';  E4_SWEEP='a=b=c=64,128'
fi
E1_KERNELS=dgemv,dger,dgemm
LIMIT=1          # --time-limit (s) for the experiments with BLAS-1 algorithms
LIMIT3=3         # experiment 3 (and its BLIS run): all 8 algorithms measured up to a=i=j=512
MODELS=(warm access prefetch failures full)
declare -A PAPER=([warm]=154 [access]=26.3 [prefetch]=19.1 [failures]=14.7 [full]=9.47)
declare -A STEP=([warm]='repeated execution, warm operands (§6.2.1)'
                 [access]='+ access distances (§6.2.2)'
                 [prefetch]='+ prefetching, shared cache lines (§6.2.3)'
                 [failures]='+ prefetch failures (§6.2.4)'
                 [full]='+ first loop iterations (§6.2.5)')

# --------------------------------------------------- PNG copies of the plots
# tcgen draws one file per run; a gnuplot wrapper draws the same script a
# second time as PNG (for bench/README.md), so no run has to be repeated.
gnuplot_bin=$(command -v gnuplot || true)
[[ -n $gnuplot_bin ]] || die "gnuplot is needed for the plots (apt-get install gnuplot-nox)"
png_term='png size 1000,700 enhanced font "sans,10" background "#ffffff"'
if "$gnuplot_bin" -e 'print GPVAL_TERMINALS' 2>&1 | grep -qw pngcairo; then
    png_term='pngcairo size 1000,700 enhanced font "sans,10" background "white"'
fi
cat >"$tmp/gnuplot" <<EOF
#!/usr/bin/env bash
"$gnuplot_bin" "\$1" || exit \$?
awk -v term='$png_term' '
    /^set terminal svg / { print "set terminal " term; next }
    /^set output ".*\\.svg"\$/ { sub(/\\.svg"\$/, ".png\\""); print; next }
    { print }' "\$1" >"\$1.png.gp" && "$gnuplot_bin" "\$1.png.gp" 2>/dev/null
rm -f "\$1.png.gp"
exit 0
EOF
chmod +x "$tmp/gnuplot"
export TCGEN_GNUPLOT=$tmp/gnuplot

# ------------------------------------------------------------------- helpers
# run NAME ARGS...: runs tcgen ARGS, stdout to $out/NAME.tsv, stderr to
# $out/NAME.log (and the terminal's stderr when it fails).
run() {
    local name=$1; shift
    local s=$(date +%s)
    if ! "$tcgen" "$@" --family paper --format tsv -q >"$out/$name.tsv" 2>"$out/$name.log"; then
        cat "$out/$name.log" >&2
        die "tcgen $* failed (see $out/$name.log)"
    fi
    log "  $name done in $(($(date +%s) - s)) s"
}

# ------------------------------------------------------------ awk programs
# All read a `compare --sweep` TSV: a header, rows 'x name kernel
# predicted_s measured_s error_pct' (measured '-' over the time limit), then
# '# LABEL=x key value' lines per size and '# key value' lines.

# Per size: x, mean abs error, best predicted, best measured, regret (side
# by side), top-1, predict_s, measure_s, their ratio, algorithms over the
# time limit, Spearman, the regret from the table's one pass.
AWK_SIZES='
    NR == 1 { next }
    /^#/ { split($0, w, " "); if (w[2] !~ /=/) next
           x = w[2]; sub(/.*=/, "", x)
           if (!(x in seen)) { seen[x] = 1; xs[++n] = x }
           v[x, w[3]] = w[4]; next }
    END {
        for (k = 1; k <= n; k++) {
            x = xs[k]
            hit = (v[x, "best_predicted"] == v[x, "best_measured"]) ? "yes" : "no"
            ps = v[x, "predict_s"]; ms = v[x, "measure_s"]
            ratio = (ps > 0) ? sprintf("%.0f", ms / ps) : "-"
            ol = ((x, "over_limit") in v) ? v[x, "over_limit"] : 0
            sp = ((x, "spearman") in v) ? v[x, "spearman"] : "-"
            rs = ((x, "regret_sweep_pct") in v) ? v[x, "regret_sweep_pct"] : "-"
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x, v[x, "mean_abs_error_pct"],
                v[x, "best_predicted"], v[x, "best_measured"], v[x, "regret_pct"], hit,
                ps, ms, ratio, ol, sp, rs
        }
    }'

# key<TAB>value aggregates: n rows, mean abs error (all, per kernel), worst
# regret and its size, top-1 hits/sizes, predict_s/measure_s sums, ratio.
AWK_AGG='
    function abs(z) { return z < 0 ? -z : z }
    NR == 1 { next }
    /^#/ { split($0, w, " "); if (w[2] !~ /=/) next
           x = w[2]; sub(/.*=/, "", x)
           if (!(x in seen)) { seen[x] = 1; xs[++n] = x }
           v[x, w[3]] = w[4]; next }
    $5 != "-" { e = abs($4 - $5) / $5 * 100; s += e; c++
                ks[$3] += e; kc[$3]++ }
    END {
        printf "rows\t%d\n", c
        printf "mean_abs_error_pct\t%.1f\n", c ? s / c : 0
        for (k in ks) printf "mean_abs_error_pct_%s\t%.1f\n", k, ks[k] / kc[k]
        worst = -1; hits = 0; ps = 0; ms = 0; minsp = 2; maxerr = -1
        for (k = 1; k <= n; k++) {
            x = xs[k]
            if ((x, "spearman") in v && v[x, "spearman"] != "nan" && v[x, "spearman"] + 0 < minsp) minsp = v[x, "spearman"] + 0
            if (v[x, "mean_abs_error_pct"] + 0 > maxerr) maxerr = v[x, "mean_abs_error_pct"] + 0
            r = v[x, "regret_pct"]; r = (r == "inf") ? 1e300 : r + 0
            if (r > worst) { worst = r; wx = x }
            if ((x, "regret_sweep_pct") in v) {
                r = v[x, "regret_sweep_pct"]; r = (r == "inf") ? 1e300 : r + 0
                if (!nsweep++ || r > worst_sweep) worst_sweep = r
            }
            if (v[x, "best_predicted"] == v[x, "best_measured"]) hits++
            ps += v[x, "predict_s"]; ms += v[x, "measure_s"]
        }
        if (worst >= 1e300) printf "worst_regret_pct\tinf\n"; else printf "worst_regret_pct\t%.2f\n", worst
        if (!nsweep) print "worst_regret_sweep_pct\t-"
        else if (worst_sweep >= 1e300) printf "worst_regret_sweep_pct\tinf\n"; else printf "worst_regret_sweep_pct\t%.2f\n", worst_sweep
        printf "worst_regret_at\t%s\n", wx
        if (minsp <= 1) printf "min_spearman\t%.3f\n", minsp; else print "min_spearman\t-"
        printf "worst_size_error_pct\t%.2f\n", maxerr
        printf "top1_hits\t%d\nsizes\t%d\n", hits, n
        printf "predict_s\t%.3f\nmeasure_s\t%.3f\n", ps, ms
        if (ps > 0) printf "ratio\t%.0f\n", ms / ps; else print "ratio\t-"
    }'

# Per kernel: speedup of prediction over one run, at every size (markdown row
# per kernel: kernel | x1 | x2 | ...).
AWK_SPEEDUP='
    /^#/ && $2 ~ /=/ && $3 ~ /^speedup_/ {
        x = $2; sub(/.*=/, "", x); k = $3; sub(/^speedup_/, "", k)
        if (!(x in sx)) { sx[x] = 1; xs[++n] = x }
        if (!(k in sk)) { sk[k] = 1; ks[++m] = k }
        v[x, k] = $4 }
    END {
        printf "| kernel |"; for (i = 1; i <= n; i++) printf " %s |", xs[i]; print ""
        printf "|---|"; for (i = 1; i <= n; i++) printf "---:|"; print ""
        for (j = 1; j <= m; j++) {
            printf "| %s |", ks[j]
            for (i = 1; i <= n; i++) printf " %s |", ((xs[i], ks[j]) in v) ? v[xs[i], ks[j]] "x" : "-"
            print ""
        }
    }'

# The N largest |errors|: x name kernel predicted measured error.
largest_errors() {
    awk 'NR > 1 && !/^#/ && $5 != "-" { e = $6 < 0 ? -$6 : $6; print e "\t" $0 }' "$1" |
        sort -t$'\t' -k1,1gr | head -n "$2" | cut -f2-
}

# Per algorithm: mean |error| over the sizes, largest first.
per_algorithm_errors() {
    awk 'NR > 1 && !/^#/ && $5 != "-" { e = $6 < 0 ? -$6 : $6
             s[$2] += e; c[$2]++; k[$2] = $3; if (e > mx[$2]) { mx[$2] = e; at[$2] = $1 } }
         END { for (a in s) printf "%.1f\t%s\t%s\t%.1f\t%s\n", s[a] / c[a], a, k[a], mx[a], at[a] }' "$1" |
        sort -t$'\t' -k1,1gr | head -n "$2"
}

agg() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$1"; }

# ============================================================== experiments
declare -A SECS
run_date=$(date -u "+%Y-%m-%d %H:%M UTC")
if [[ $report_only != 1 ]]; then
log "tcgen: $tcgen ($("$tcgen" --version)); results in $out/, summary in $doc"
"$tcgen" info --format tsv >"$out/info_openblas.tsv" 2>/dev/null
"$tcgen" info --blas blis --format tsv >"$out/info_blis.tsv" 2>/dev/null ||
    log "warning: BLIS is not available; experiment 6 will fail"

# ---- 1: error ladder
log "experiment 1: $E1_C, sweep $E1_SWEEP, kernels $E1_KERNELS"
log "experiment 1: 3 rounds of prediction and measurement (compare --model full --repeat 3, also draws the plot)"
s=$(date +%s)
run e1_compare compare "$E1_C" "$E1_SIZES" --sweep "$E1_SWEEP" --kernels "$E1_KERNELS" \
    --model full --repeat 3 --plot "$out/e1_full.svg"
pfiles=()
for m in "${MODELS[@]}"; do
    log "experiment 1: predict --model $m"
    run "e1_predict_$m" predict "$E1_C" "$E1_SIZES" --sweep "$E1_SWEEP" --kernels "$E1_KERNELS" \
        --model "$m"
    pfiles+=("$out/e1_predict_$m.tsv")
done
# Join per (size, algorithm): x name kernel measured_s, then predicted_s and
# error_pct for each model.
{
    printf 'x\tname\tkernel\tmeasured_s'
    for m in "${MODELS[@]}"; do printf '\tpred_%s\terr_%s_pct' "$m" "$m"; done
    printf '\n'
    awk -F'\t' '
        FNR == 1 { f++; next }
        /^#/ { next }
        f == 1 { if ($5 != "-") { key = $1 "\t" $2; meas[key] = $5; kern[key] = $3; order[++n] = key }
                 next }
        { pred[f - 1, $1 "\t" $3] = $5 }
        END {
            for (r = 1; r <= n; r++) {
                key = order[r]; printf "%s\t%s\t%s", key, kern[key], meas[key]
                for (m = 1; m < f; m++)
                    if ((m, key) in pred)
                        printf "\t%s\t%.2f", pred[m, key], (pred[m, key] - meas[key]) / meas[key] * 100
                    else
                        printf "\t-\t-"
                printf "\n"
            }
        }' "$out/e1_compare.tsv" "${pfiles[@]}"
} >"$out/e1_ladder_rows.tsv"
# Per model: mean |error| over (size, algorithm), per kernel, the worst
# algorithm (mean over sizes), top-1 hits, worst regret, prediction time.
{
    printf 'model\tmean_abs_error_pct\tdissertation_pct\tdgemm_pct\tdger_pct\tdgemv_pct\tworst_algorithm\tworst_algorithm_pct\ttop1_hits\tsizes\tworst_regret_pct\tworst_regret_at\tpredict_s\tmedian_abs_error_pct\n'
    col=5
    for m in "${MODELS[@]}"; do
        ps=$(awk '/^#/ && $2 ~ /=/ && $3 == "predict_s" { s += $4 } END { printf "%.3f", s }' \
            "$out/e1_predict_$m.tsv")
        awk -F'\t' -v c="$col" -v m="$m" -v paper="${PAPER[$m]}" -v ps="$ps" '
            function abs(z) { return z < 0 ? -z : z }
            NR == 1 || $c == "-" { next }
            { x = $1; p = $c; t = $4; e = abs(p - t) / t * 100
              s += e; es[++n] = e; ks[$3] += e; kc[$3]++; as[$2] += e; ac[$2]++
              if (!(x in seen)) { seen[x] = 1; xs[++nx] = x }
              if (!(x in bp) || p < bp[x]) { bp[x] = p; bpn[x] = $2; bpt[x] = t }
              if (!(x in bm) || t < bm[x]) { bm[x] = t; bmn[x] = $2 } }
            function km(k) { return (k in kc) ? sprintf("%.1f", ks[k] / kc[k]) : "-" }
            END {
                wa = ""; wv = -1
                for (a in as) if (as[a] / ac[a] > wv) { wv = as[a] / ac[a]; wa = a }
                hits = 0; wr = -1
                for (i = 1; i <= nx; i++) {
                    x = xs[i]; if (bpn[x] == bmn[x]) hits++
                    r = (bpt[x] / bm[x] - 1) * 100; if (r > wr) { wr = r; wx = x }
                }
                for (i = 2; i <= n; i++) { t = es[i]; for (j = i - 1; j >= 1 && es[j] > t; j--) es[j + 1] = es[j]; es[j + 1] = t }
                med = n ? ((n % 2) ? es[(n + 1) / 2] : (es[n / 2] + es[n / 2 + 1]) / 2) : 0
                printf "%s\t%.1f\t%s\t%s\t%s\t%s\t%s\t%.1f\t%d\t%d\t%.2f\t%s\t%s\t%.1f\n", m, n ? s / n : 0,
                    paper, km("dgemm"), km("dger"), km("dgemv"), wa, wv, hits, nx, wr, wx, ps, med
            }' "$out/e1_ladder_rows.tsv"
        col=$((col + 2))
    done
} >"$out/e1_ladder.tsv"
column -t -s $'\t' "$out/e1_ladder.tsv" >&2
# A bar chart of the ladder: ours next to the dissertation's.
awk -F'\t' 'NR > 1 { print $1 "\t" $2 "\t" $3 }' "$out/e1_ladder.tsv" >"$tmp/ladder.dat"
for ext in svg png; do
    if [[ $ext == svg ]]; then term='svg size 800,450 dynamic enhanced font "sans,11" background "white"'
    else term=${png_term/1000,700/800,450}; fi
    "$gnuplot_bin" <<GP 2>"$out/e1_ladder_plot.log" || log "warning: the ladder plot ($ext) failed, see $out/e1_ladder_plot.log"
set terminal $term
set output "$out/e1_ladder.$ext"
set title "Error ladder: $E1_C, i=8, ${E1_SWEEP}, dgemm/dger/dgemv algorithms"
set ylabel "mean absolute error [%] (log scale)"
set logscale y
set yrange [1:*]
set grid ytics
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top right
set datafile separator "\t"
plot "$tmp/ladder.dat" using 2:xtic(1) title "tcgen (this machine)" lc rgb "#1f77b4", \
     "" using 3 title "dissertation (Harpertown)" lc rgb "#aaaaaa", \
     "" using 0:2:(sprintf("%.1f", \$2)) with labels offset -1.5,0.7 notitle, \
     "" using 0:3:(sprintf("%s", strcol(3))) with labels offset 1.5,0.7 notitle
GP
done
SECS[1]=$(($(date +%s) - s))
log "experiment 1 done in ${SECS[1]} s"

# ---- 2: a=b=c=128, i swept, all 36 algorithms
log "experiment 2: $E1_C, $E2_SIZES, sweep $E2_SWEEP, all algorithms, --time-limit $LIMIT"
s=$(date +%s)
run e2_compare compare "$E1_C" "$E2_SIZES" --sweep "$E2_SWEEP" --time-limit "$LIMIT" \
    --plot "$out/e2_isweep.svg"
SECS[2]=$(($(date +%s) - s))
log "experiment 2 done in ${SECS[2]} s"

# ---- 3: C[a] = A[i,a,j] * B[j,i]
log "experiment 3: $E3_C, sweep $E3_SWEEP, all algorithms, --time-limit $LIMIT3"
s=$(date +%s)
run e3_compare compare "$E3_C" "$E3_SIZES" --sweep "$E3_SWEEP" --time-limit "$LIMIT3" \
    --plot "$out/e3_gemv.svg"
SECS[3]=$(($(date +%s) - s))
log "experiment 3 done in ${SECS[3]} s"

# ---- 4: C[a,b,c] = A[i,j,a] * B[j,b,i,c], 176 algorithms
log "experiment 4: $E4_C, $E4_SIZES, sweep $E4_SWEEP, all algorithms, --time-limit $LIMIT"
s=$(date +%s)
run e4_compare compare "$E4_C" "$E4_SIZES" --sweep "$E4_SWEEP" --time-limit "$LIMIT" \
    --plot "$out/e4_relativity.svg"
SECS[4]=$(($(date +%s) - s))
log "experiment 4 done in ${SECS[4]} s"

# ---- 6: BLIS
log "experiment 6: BLIS for experiments 1 (full model) and 3"
s=$(date +%s)
run e6_blis_e1_compare compare "$E1_C" "$E1_SIZES" --sweep "$E1_SWEEP" --kernels "$E1_KERNELS" \
    --model full --blas blis --plot "$out/e6_blis_e1.svg"
run e6_blis_e3_compare compare "$E3_C" "$E3_SIZES" --sweep "$E3_SWEEP" --time-limit "$LIMIT3" \
    --blas blis --plot "$out/e6_blis_e3.svg"
SECS[6]=$(($(date +%s) - s))
log "experiment 6 done in ${SECS[6]} s"

total=$(($(date +%s) - t0))
{
    printf 'run_date\t%s\ntotal\t%s\n' "$run_date" "$total"
    for k in 1 2 3 4 6; do printf '%s\t%s\n' "$k" "${SECS[$k]}"; done
} >"$out/paper_times.tsv"
else
    # PAPER_REPORT_ONLY=1: rewrite docs/results.md from the outputs of the last run.
    [[ -f $out/paper_times.tsv ]] || die "no $out/paper_times.tsv: run the experiments first"
    log "report only: using the outputs in $out/"
    run_date=$(awk -F'\t' '$1 == "run_date" { print $2 }' "$out/paper_times.tsv")
    total=$(awk -F'\t' '$1 == "total" { print $2 }' "$out/paper_times.tsv")
    for k in 1 2 3 4 6; do SECS[$k]=$(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$out/paper_times.tsv"); done
fi

# ==================================================================== report
for f in e1 e2 e3 e4 e6_blis_e1 e6_blis_e3; do
    awk -F'\t' "$AWK_AGG" "$out/${f}_compare.tsv" >"$out/${f}_summary.tsv"
done

info() { awk -v k="$2" '$1 == "#" && $2 == k { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$1"; }
caches=$(awk -F'\t' 'NR > 1 && $1 ~ /^L/ { printf "%s%s %s detected (%s B lines, %s-way, shared by %s), %s measured, %s used", sep, $1, $3, $4, $5, $6, $8, $11; sep = "; " }' \
    "$out/info_openblas.tsv")
pct() { [[ $1 == - || -z $1 ]] && { echo -; return; }; echo "$1 %"; }
reg() { [[ $1 == inf ]] && { echo "∞ (predicted best over the time limit)"; return; }; echo "$1 %"; }
yesno() { awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN { ok = (op == "le") ? (a + 0 <= b + 0) : (a + 0 >= b + 0); print ok ? "met" : "**missed**" }'; }
by() { awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN {
        if (a == "inf") { print "the predicted best ran over the time limit"; exit }
        if (op == "le") { if (a + 0 <= b + 0) print "-"; else printf "by %.1f points (%.1fx the target)\n", a - b, a / b }
        else { if (a + 0 >= b + 0) print "-"; else if (a + 0 <= 0) print "n/a"; else printf "by %.1fx (%.0fx instead of %.0fx)\n", b / a, a, b } }'; }

# size table of one compare run (markdown)
size_table() {
    printf '| %s | mean abs error | Spearman | best predicted | best measured | regret side by side | regret in the table | top-1 | predict_s | measure_s | measure/predict | over limit |\n' "$2"
    printf '|---:|---:|---:|---|---|---:|---:|:-:|---:|---:|---:|---:|\n'
    awk -F'\t' "$AWK_SIZES" "$1" |
        awk -F'\t' '{ r = ($5 == "inf") ? "∞ (over limit)" : $5 " %"; rs = ($12 == "-") ? "-" : $12 " %"
               printf "| %s | %s %% | %s | %s | %s | %s | %s | %s | %s | %s | %sx | %s |\n", $1, $2, $11, $3, $4, r, rs, $6, $7, $8, $9, $10 }'
}
kernel_errors() {
    local f=$1 k v line=""
    for k in dgemm dger dgemv daxpy ddot; do
        v=$(agg "$f" "mean_abs_error_pct_$k")
        [[ -n $v ]] && line+="${line:+, }$k $v %"
    done
    echo "$line"
}
largest_table() {
    printf '| %s | algorithm | kernel | predicted_s | measured_s | error |\n|---:|---|---|---:|---:|---:|\n' "$3"
    largest_errors "$1" "$2" | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s %% |\n", $1, $2, $3, $4, $5, $6 }'
}
alg_table() {
    printf '| algorithm | kernel | mean abs error over sizes | largest | at %s |\n|---|---|---:|---:|---:|\n' "$3"
    per_algorithm_errors "$1" "$2" | awk -F'\t' '{ printf "| %s | %s | %s %% | %s %% | %s |\n", $2, $3, $1, $4, $5 }'
}
img() { # markdown link(s) to a plot
    local b=$1
    printf '[%s.svg](../bench/results/%s.svg)' "$b" "$b"
    [[ -f $out/$b.png ]] && printf ' ([PNG](../bench/results/%s.png))' "$b"
    printf '\n'
}

S1=$out/e1_summary.tsv S2=$out/e2_summary.tsv S3=$out/e3_summary.tsv S4=$out/e4_summary.tsv
full_err=$(awk -F'\t' '$1 == "full" { print $2 }' "$out/e1_ladder.tsv")
worst_regret=$(for f in "$S1" "$S2" "$S3" "$S4"; do agg "$f" worst_regret_pct; done | sort -g | tail -1)
worst_regret_sweep=$(for f in "$S1" "$S2" "$S3" "$S4"; do agg "$f" worst_regret_sweep_pct; done | sort -g | tail -1)
min_ratio=$(for f in "$S1" "$S2" "$S3" "$S4"; do agg "$f" ratio; done | sort -g | head -1)
blas_ob=$(info "$out/info_openblas.tsv" blas_version)
blas_bl=$(info "$out/info_blis.tsv" blas_version || true)

quick_env=''; [[ $quick == 1 ]] && quick_env='PAPER_QUICK=1 '
report_note=''; [[ $report_only == 1 ]] && report_note=" (this report rewritten $(date -u '+%Y-%m-%d %H:%M UTC') with PAPER_REPORT_ONLY=1)"
summary_row() { # n title sizes algorithms summary-file dissertation
    local f=$5
    printf '| %s | %s | %s | %s | %s | %s (%s) | %s/%s | %s | %s | %sx | %s |\n' "$1" "$2" "$3" "$4" \
        "$(pct "$(agg "$f" mean_abs_error_pct)")" "$(reg "$(agg "$f" worst_regret_pct)")" "$(agg "$f" worst_regret_at)" \
        "$(agg "$f" top1_hits)" "$(agg "$f" sizes)" "$(agg "$f" predict_s)" "$(agg "$f" measure_s)" \
        "$(agg "$f" ratio)" "$6"
}

{
cat <<MD
# Results: predicted vs measured runtimes (Peise, ch. 6, §6.3)

*Generated by \`${quick_env}bash bench/paper.sh $tcgen\` (\`make bench\`), run on $run_date${report_note},
in $total s. Do not edit: re-run the script to regenerate. Raw outputs (TSV, logs)
and plots are in [bench/results/](../bench/results/); the method is in
docs/design.md §5.*

## Machine

| | |
|---|---|
| CPU | $(info "$out/info_openblas.tsv" cpu_model), $(info "$out/info_openblas.tsv" cpus) logical CPUs |
| caches | $caches |
| LLC in use (machine profile, docs/prediction.md) | $(info "$out/info_openblas.tsv" llc_bytes), line $(info "$out/info_openblas.tsv" line_bytes) B |
| BLAS | $blas_ob ($(info "$out/info_openblas.tsv" blas_path)), 1 thread; BLIS ${blas_bl:-n/a} (experiment 6) |
| timer | $(info "$out/info_openblas.tsv" timer), $(info "$out/info_openblas.tsv" timer_ghz) GHz |
| tcgen | $("$tcgen" --version) |

Defaults: predictions time each case 10 times and keep the median; measurements
run each algorithm once untimed, then 5 times, median kept; \`--time-limit $LIMIT\` ($LIMIT3 in experiment 3)
stops an algorithm whose first run takes longer (experiments 2-4: "over limit",
excluded from errors). Errors are \`(predicted - measured) / measured\`; the mean
absolute error is over every (size, algorithm) pair that was measured. Regret =
how much slower the predicted-best algorithm runs than the measured best.
measure/predict = (time to measure all algorithms: 6 runs each) / (time to
predict all of them), summed over the sizes.

## Summary

| # | experiment | sizes | algorithms | mean abs error | worst regret (at) | top-1 hits | predict_s | measure_s | measure/predict | dissertation |
|---|---|---|---|---:|---:|---:|---:|---:|---:|---|
MD
summary_row 1 "\`$E1_C\`, i=8, dgemm/dger/dgemv, full model" "$E1_SWEEP" 12 "$S1" \
    "9.47 % (Harpertown, a=b=c=8..1000)"
summary_row 2 "\`$E1_C\`, $E2_SIZES" "$E2_SWEEP" 36 "$S2" "\"equivalent quality\"; dgemm > 75 % of peak"
summary_row 3 "\`$E3_C\`" "$E3_SWEEP" 8 "$S3" "j-dgemv fastest, i'-dgemv slow (copy)"
summary_row 4 "\`$E4_C\`, i=j=8" "$E4_SWEEP" 176 "$S4" "dgemm fastest, > 20 % apart"
summary_row 6a "experiment 1 with BLIS" "$E1_SWEEP" 12 "$out/e6_blis_e1_summary.tsv" "-"
summary_row 6b "experiment 3 with BLIS" "$E3_SWEEP" 8 "$out/e6_blis_e3_summary.tsv" "-"
cat <<MD

Error ladder (experiment 1, mean absolute error per model, same measurements):
$(awk -F'\t' 'NR > 1 { printf "%s%s %.1f %%", sep, $1, $2; sep = " -> " }' "$out/e1_ladder.tsv");
dissertation 154 % -> 26.3 % -> 19.1 % -> 14.7 % -> 9.47 %.
Median absolute error per model: $(awk -F'\t' 'NR > 1 { printf "%s%s %.1f %%", sep, $1, $14; sep = " -> " }' "$out/e1_ladder.tsv").

### Targets

| target | result | status | missed |
|---|---|---|---|
| mean abs error <= 15 % at every size (experiment 1, dgemv/dger/dgemm, full model; issue 12) | worst size $(agg "$S1" worst_size_error_pct) % (all sizes: $(agg "$S1" mean_abs_error_pct) %) | $(yesno "$(agg "$S1" worst_size_error_pct)" 15 le) | $(by "$(agg "$S1" worst_size_error_pct)" 15 le) |
| Spearman rank correlation >= 0.9 at every size (experiment 1) | lowest $(agg "$S1" min_spearman) | $(yesno "$(agg "$S1" min_spearman)" 0.9 ge) | - |
| regret <= 5 % in every experiment (1-4, every size), side by side | worst $worst_regret % (in the tables' one pass: $worst_regret_sweep %) | $(yesno "$worst_regret" 5 le) | $(by "$worst_regret" 5 le) |
| prediction >= 100x cheaper than measurement (1-4) | lowest measure/predict ${min_ratio}x | $(yesno "$min_ratio" 100 ge) | $(by "$min_ratio" 100 ge) |

Per experiment: regret 1: $(agg "$S1" worst_regret_pct) %, 2: $(agg "$S2" worst_regret_pct) %,
3: $(agg "$S3" worst_regret_pct) %, 4: $(agg "$S4" worst_regret_pct) %;
measure/predict 1: $(agg "$S1" ratio)x, 2: $(agg "$S2" ratio)x, 3: $(agg "$S3" ratio)x, 4: $(agg "$S4" ratio)x
(per size in the tables below).

## 1. Error ladder: \`$E1_C\`, i=8, $E1_SWEEP, dgemm/dger/dgemv

Measured in 3 rounds interleaved with 3 full-model predictions
(\`compare --model full --repeat 3\`: medians, so that a slow phase of the
shared host falls on both sides), whose measurements every model is
compared with; predicted once with each model. Joined rows:
[e1_ladder_rows.tsv](../bench/results/e1_ladder_rows.tsv); per model:
[e1_ladder.tsv](../bench/results/e1_ladder.tsv). Plots: $(img e1_full) and the ladder $(img e1_ladder)

| model | refinement | mean abs error | dissertation | median abs error | dgemm | dger | dgemv | worst algorithm (mean over sizes) | top-1 | worst regret (at) | predict_s |
|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|
MD
awk -F'\t' -v steps="$(for m in "${MODELS[@]}"; do printf '%s=%s|' "$m" "${STEP[$m]}"; done)" '
    BEGIN { n = split(steps, a, "|"); for (i = 1; i <= n; i++) { p = index(a[i], "="); st[substr(a[i], 1, p - 1)] = substr(a[i], p + 1) } }
    NR > 1 { printf "| %s | %s | %s %% | %s %% | %s %% | %s %% | %s %% | %s %% | %s (%s %%) | %s/%s | %s %% (%s) | %s |\n",
             $1, st[$1], $2, $3, $14, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 }' "$out/e1_ladder.tsv"
cat <<MD

Full model (the \`compare\` run) per size; the compare run's own predictions
give a mean absolute error of $(agg "$S1" mean_abs_error_pct) % (the separate \`predict --model full\`
run above: $full_err %):

$(size_table "$out/e1_compare.tsv" a=b=c)

Per kernel (full model): $(kernel_errors "$S1").

Reproducibility of the predictions: the \`compare\` run and the separate
\`predict --model full\` run predict the same (size, algorithm) pairs
independently. $(awk -F'\t' '
    FNR == 1 { f++; next } /^#/ { next }
    f == 1 { p[$1 "\t" $2] = $4; next }
    ($1 "\t" $3) in p { q = p[$1 "\t" $3]; r = $5 / q; if (r < 1) r = 1 / r; n++
        if (r > 1.3) off++
        if (r > wr) { wr = r; wn = $3; wx = $1; wa = q; wb = $5 } }
    END { printf "They differ by more than 30 %% for %d of %d pairs; the largest difference is %.1fx (%s at %s: %.3g s vs %.3g s).",
          off, n, wr, wn, wx, wa, wb }' "$out/e1_compare.tsv" "$out/e1_predict_full.tsv")

Algorithms by mean absolute error over the sizes (full model):

$(alg_table "$out/e1_compare.tsv" 12 a=b=c)

## 2. \`$E1_C\`, $E2_SIZES, $E2_SWEEP, all 36 algorithms

Plot: $(img e2_isweep)
Dissertation (§6.3.1, Ivy Bridge, MKL, i = 8..1000): predictions of "equivalent
quality"; the dgemm algorithms are best and equal, > 75 % of peak.

$(size_table "$out/e2_compare.tsv" i)

Per kernel: $(kernel_errors "$S2").

Largest errors:

$(largest_table "$out/e2_compare.tsv" 15 i)

## 3. \`$E3_C\`, $E3_SWEEP, all 8 algorithms

Plot: $(img e3_gemv)
Dissertation (§6.3.2, Harpertown, OpenBLAS): j-dgemv fastest across the board,
the next group of four recognised, i'-dgemv slow because of its copy (predicted).

$(size_table "$out/e3_compare.tsv" a=i=j)

Per kernel: $(kernel_errors "$S3").

Measured ranking at the largest size (predicted rank in brackets):

$(awk -F'\t' 'NR > 1 && !/^#/ { last = $1; row[$1, ++n[$1]] = $0 }
    END { for (r = 1; r <= n[last]; r++) { split(row[last, r], f, "\t"); p[r] = f[4]; nm[r] = f[2]; m[r] = f[5]; e[r] = f[6] }
          for (r = 1; r <= n[last]; r++) { pr = 1; for (q = 1; q <= n[last]; q++) if (p[q] + 0 < p[r] + 0) pr++
              printf "%d. %s: measured %s s, predicted %s s (%s %%) [%d]\n", r, nm[r], m[r], p[r], e[r], pr } }' "$out/e3_compare.tsv")

Algorithms by mean absolute error over the sizes:

$(alg_table "$out/e3_compare.tsv" 8 a=i=j)

## 4. \`$E4_C\`, i=j=8, $E4_SWEEP, all 176 algorithms

Plot: $(img e4_relativity)
Dissertation (§6.3.3, Ivy Bridge, OpenBLAS, 1 thread): the dgemm algorithms are
fastest even with their copies but differ by > 20 %; predictions separate the
fast bulk from the slightly slower ones.

$(size_table "$out/e4_compare.tsv" a=b=c)

Per kernel: $(kernel_errors "$S4").

dgemm algorithms (measured order):

| a=b=c | algorithm | predicted_s | measured_s | error |
|---:|---|---:|---:|---:|
$(awk -F'\t' 'NR > 1 && !/^#/ && $3 == "dgemm" { printf "| %s | %s | %s | %s | %s %% |\n", $1, $2, $4, $5, $6 }' "$out/e4_compare.tsv")

Largest errors:

$(largest_table "$out/e4_compare.tsv" 15 a=b=c)

## 5. Speedup of prediction over one run, per kernel class (§6.3.4)

\`# speedup_<kernel>\` of each compare run: one run of the class's algorithms
divided by the time their prediction took. Dissertation (Harpertown, OpenBLAS,
\`$E1_C\`, i=8, a=b=c=1000): dgemm 1000x, dger 6000-10 000x, dgemv
5·10^5-10^6x, BLAS-1 10^6-10^9x. tcgen prints the speedup as an
integer: 0x means predicting took longer than one run of the algorithms.

Experiment 1 (a=b=c):

$(awk "$AWK_SPEEDUP" "$out/e1_compare.tsv")

Experiment 2 (i):

$(awk "$AWK_SPEEDUP" "$out/e2_compare.tsv")

Experiment 3 (a=i=j):

$(awk "$AWK_SPEEDUP" "$out/e3_compare.tsv")

Experiment 4 (a=b=c):

$(awk "$AWK_SPEEDUP" "$out/e4_compare.tsv")

## 6. Both BLAS backends

Experiment 1 (full model) and experiment 3 with BLIS ($blas_bl) next to
OpenBLAS ($blas_ob). Plots: $(img e6_blis_e1), $(img e6_blis_e3)

| experiment | BLAS | mean abs error | worst regret (at) | top-1 hits | predict_s | measure_s | measure/predict |
|---|---|---:|---:|---:|---:|---:|---:|
MD
for pair in "1|OpenBLAS|$S1" "1|BLIS|$out/e6_blis_e1_summary.tsv" "3|OpenBLAS|$S3" "3|BLIS|$out/e6_blis_e3_summary.tsv"; do
    IFS='|' read -r e b f <<<"$pair"
    printf '| %s | %s | %s %% | %s (%s) | %s/%s | %s | %s | %sx |\n' "$e" "$b" "$(agg "$f" mean_abs_error_pct)" \
        "$(reg "$(agg "$f" worst_regret_pct)")" "$(agg "$f" worst_regret_at)" "$(agg "$f" top1_hits)" "$(agg "$f" sizes)" \
        "$(agg "$f" predict_s)" "$(agg "$f" measure_s)" "$(agg "$f" ratio)"
done
cat <<MD

BLIS, experiment 1 per size:

$(size_table "$out/e6_blis_e1_compare.tsv" a=b=c)

BLIS, experiment 1, per kernel: $(kernel_errors "$out/e6_blis_e1_summary.tsv");
experiment 3, per kernel: $(kernel_errors "$out/e6_blis_e3_summary.tsv").

$(if [[ -f $out/prediction.md ]]; then cat "$out/prediction.md"; else printf '## Prediction on any machine (issue 12)\n\nNot run: bash bench/prediction.sh writes this section.\n'; fi)

## Run time

| experiment | seconds |
|---|---:|
| 1 (1 compare + 5 predict) | ${SECS[1]} |
| 2 | ${SECS[2]} |
| 3 | ${SECS[3]} |
| 4 | ${SECS[4]} |
| 6 (2 compare) | ${SECS[6]} |
| total | $total |
MD
} >"$doc"
log "wrote $doc; total $total s"
