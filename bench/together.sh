#!/usr/bin/env bash
# together.sh - what a sampler rule does to split algorithms' predictions at
# all cores (issue 39; rule `together` by default): each case predicted with
# every rule on and with RULE off (`predict --threads T --model full,-RULE`),
# the 6 best of each prediction measured at T threads in 3 interleaved rounds
# (`measure --reps 5`, median of the rounds); then each candidate's error and
# each choice's distance from the fastest measured; and the memory bandwidth
# of 1, 2, 4, ... T threads together (threads_bandwidth.c, where cc is there).
#   bash bench/together.sh [TCGEN]      THREADS=16 RULE=together OUT=DIR
# Writes together.md, together_pred.tsv, together_meas.tsv and
# together_bw.txt under OUT (default bench/results).
set -euo pipefail
cd "$(dirname "$0")/.."
tcgen=${1:-build/tcgen}
out=${OUT:-bench/results}
threads=${THREADS:-$(nproc)}
rule=${RULE:-together}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if command -v cc >/dev/null && cc -O2 -pthread bench/threads_bandwidth.c -o "$tmp/bw" 2>/dev/null; then
    "$tmp/bw" "$threads" >"$out/together_bw.txt"
else
    echo "no C compiler: bandwidth not measured" >"$out/together_bw.txt"
fi
printf 'case\tmodel\trank\tname\tpredicted_s\tpredict_s\n' >"$out/together_pred.tsv"
printf 'case\tround\tname\tmeasured_s\n' >"$out/together_meas.tsv"
while IFS=$'\t' read -r name con sz; do
    for m in full "full,-$rule"; do
        s=$(date +%s.%N)
        "$tcgen" predict "$con" "$sz" --threads "$threads" --model "$m" --format tsv -q >"$tmp/p"
        d=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
        awk -F'\t' -v c="$name" -v m="$m" -v d="$d" 'NR > 1 && NR <= 16 { print c "\t" m "\t" $1 "\t" $2 "\t" $4 "\t" d }' \
            "$tmp/p" >>"$out/together_pred.tsv"
    done
    awk -F'\t' -v c="$name" '$1 == c && $3 <= 6 { print $4 }' "$out/together_pred.tsv" | sort -u >"$tmp/cand"
    for r in 1 2 3; do
        while read -r a; do
            t=$("$tcgen" measure "$con" "$sz" --algorithm "$a" --threads "$threads" --reps 5 --format tsv -q |
                awk -F'\t' 'NR == 2 { print $4 }')
            printf '%s\t%s\t%s\t%s\n' "$name" "$r" "$a" "$t" >>"$out/together_meas.tsv"
        done <"$tmp/cand"
    done
    printf '[together.sh] %s done at %s s\n' "$name" "$SECONDS" >&2
done <<CASES
${CASES:-ccsd_t:abcijk-eiab-jkec	C[a,b,c,i,j,k] = A[e,i,a,b] * B[j,k,e,c]	a=24,b=12,c=12,i=12,j=24,k=12,e=24
ccsd_t:abcijk-ijma-mkbc	C[a,b,c,i,j,k] = A[i,j,m,a] * B[m,k,b,c]	a=24,b=12,c=12,i=24,j=12,k=12,m=24}
CASES

python3 - "$out" "$rule" "$threads" >"$out/together.md" <<'PY'
import collections, statistics, sys
out, rule, threads = sys.argv[1], sys.argv[2], sys.argv[3]
models = ("full", "full,-" + rule)
meas = collections.defaultdict(list)
for line in open(out + "/together_meas.tsv").read().splitlines()[1:]:
    c, r, n, t = line.split("\t")
    if t:
        meas[(c, n)].append(float(t))
pred, took = {}, {}
for line in open(out + "/together_pred.tsv").read().splitlines()[1:]:
    c, m, r, n, p, d = line.split("\t")
    pred[(c, m, n)] = (int(r), float(p))
    took[(c, m)] = float(d)
print(f"### Rule `{rule}` at {threads} threads (bench/together.sh)\n")
print("Each case predicted with every rule on and with the rule off; the 6 best of each "
      "measured in 3 interleaved rounds (median; the rounds in brackets). Error: predicted "
      "over measured, minus one.\n")
for c in dict.fromkeys(k[0] for k in meas):
    rows = sorted(((statistics.median(v), n, v) for (cc, n), v in meas.items() if cc == c))
    best = rows[0][0]
    print(f"#### {c}\n")
    print("Prediction took " + ", ".join(f"{took[(c, m)]:.1f} s ({m})" for m in models) + ".\n")
    print("| algorithm | measured ms | " + " | ".join(f"{m}: rank, ms, error" for m in models) + " |")
    print("|---|---|" + "---|" * len(models))
    for md, n, v in rows:
        cells = []
        for m in models:
            if (c, m, n) in pred:
                r, p = pred[(c, m, n)]
                cells.append(f"{r}, {p * 1e3:.2f}, {(p / md - 1) * 100:+.0f} %")
            else:
                cells.append("-")
        rounds = ", ".join(f"{x * 1e3:.2f}" for x in v)
        print(f"| `{n}` | {md * 1e3:.2f} ({rounds}) | " + " | ".join(cells) + " |")
    print()
    for m in models:
        errs = [abs(pred[(c, m, n)][1] / md - 1) for md, n, v in rows if (c, m, n) in pred]
        choice = [n for (cc, mm, n), (r, p) in pred.items() if cc == c and mm == m and r == 1][0]
        regret = statistics.median(meas[(c, choice)]) / best - 1 if meas[(c, choice)] else float("nan")
        print(f"- `{m}`: mean absolute error {statistics.mean(errs) * 100:.0f} % over {len(errs)}; "
              f"choice `{choice}`, {regret * 100:.0f} % slower than the fastest measured")
    print()
print("Memory bandwidth of P threads together (threads_bandwidth.c):\n\n```")
print(open(out + "/together_bw.txt").read().rstrip())
print("```")
PY
printf '[together.sh] wrote %s/together.md\n' "$out" >&2
