#!/usr/bin/env bash
# cli_test.sh - the tcgen command as a user meets it: exit statuses, messages
# on stderr, output formats. Ends with "N passed, N failed".
set -u
TCGEN=${TCGEN:-build/tcgen}
DATA=${TC_TEST_DATA:-tests/data}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# The counts below are one thread's candidates; more threads add the loops
# split over them (checked on their own at the end).
export TCGEN_THREADS=1


# expect STATUS STDERR-SUBSTRING -- ARGS...
expect() {
    local want=$1 msg=$2; shift 3
    "$TCGEN" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        bad "tcgen $* -> exit $got, want $want; stderr: $(head -c 300 "$tmp/err")"
    elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/err"; then
        bad "tcgen $* -> stderr lacks '$msg': $(head -c 300 "$tmp/err")"
    else
        ok
    fi
}

# Every malformed input: exit 1, "tcgen: error: WHERE: ...MESSAGE...", nothing on stdout.
while IFS=$'\t' read -r contraction sizes where message; do
    case "$contraction" in '#'*|'') continue ;; esac
    [ "$contraction" = "<empty>" ] && contraction=""
    args=(parse "$contraction")
    [ "$sizes" != "-" ] && args+=("$sizes")
    prefix="tcgen: error: "
    [ "$where" != "-" ] && prefix="tcgen: error: $where: "
    expect 1 "$prefix" -- "${args[@]}"
    grep -qF -- "$message" "$tmp/err" && ok || bad "tcgen ${args[*]}: message lacks '$message'"
    [ -s "$tmp/out" ] && bad "tcgen ${args[*]}: wrote to stdout on error" || ok
done < "$DATA/malformed.tsv"

# Usage errors exit 2.
E='C[a,b] = A[a,i] * B[i,b]'
expect 2 "usage" -- 
expect 2 "unknown option '--bogus'" -- parse "$E" --bogus
expect 2 "unknown format 'xml'" -- parse "$E" --format xml
expect 2 "needs a whole number of threads" -- predict "$E" a=b=i=4 --threads 0
expect 2 "option '--format' needs a value" -- parse "$E" --format
expect 2 "missing CONTRACTION" -- parse
expect 2 "missing SIZES" -- "$E"
expect 2 "unknown command 'frobnicate'" -- help frobnicate

# Help and version exit 0 and print to stdout.
expect 0 "" -- --help
grep -q "usage: tcgen" "$tmp/out" && ok || bad "--help prints no usage"
expect 0 "" -- parse --help
grep -q "normal form" "$tmp/out" && ok || bad "parse --help prints no help"
expect 0 "" -- --version
grep -q "^tcgen [0-9]" "$tmp/out" && ok || bad "--version prints no version"

# parse: formats, sizes in several arguments, files, warnings, -o.
expect 0 "" -- parse "C_abc = A_ai B_ibc" a=b=c=400 i=8 --format tsv
grep -q "^tensor	B	input	-	i,b,c	1,8,3200	10240000$" "$tmp/out" && ok || bad "parse tsv: B row"
grep -q "^# contraction C\[a,b,c\] = A\[a,i\] \* B\[i,b,c\]$" "$tmp/out" && ok || bad "parse tsv: normal form"
expect 0 "" -- parse "$E" a=2,b=3,i=4 --format json
grep -q '"role": "contracted", "size": 4' "$tmp/out" && ok || bad "parse json: index i"
if command -v python3 >/dev/null; then
    python3 -m json.tool "$tmp/out" >/dev/null && ok || bad "parse json is not valid JSON"
fi
expect 0 "" -- parse "$E" a=2,b=3,i=4 --format table
grep -qE "^tensor +C +output" "$tmp/out" && ok || bad "parse table: C row"
# A size for an index the contraction does not use is often a typo for
# another: an error naming it, also in the main job before any ranking, and
# with the library (tc_plan_create); --allow-unused makes it a warning.
expect 1 "error: sizes:1:13: a size is given for 'x', which the contraction does not use (--allow-unused accepts it)" \
    -- parse "$E" a=2,b=3,i=4,x=5
expect 1 "a size is given for 'x'" -- "$E" a=b=8,i=4,x=5 -q
[ -s "$tmp/out" ] && bad "an unused size: output written" || ok
# Tensors this machine cannot hold: refused with the numbers, before ranking.
expect 3 "more than the" -- "$E" a=b=i=1000000 -q
each=$(awk 'BEGIN { printf "%.1f", 1e12 * 8 / 2^30 }') all=$(awk 'BEGIN { printf "%.1f", 3e12 * 8 / 2^30 }')
grep -qF "the tensors take $all GiB (A $each, B $each, C $each)" "$tmp/err" && ok \
    || bad "no numbers for tensors that do not fit: $(cat "$tmp/err")"
expect 0 "warning: sizes:1:13: a size is given for 'x'" -- parse "$E" a=2,b=3,i=4,x=5 --allow-unused
expect 0 "" -- parse "$E" a=2,b=3,i=4,x=5 -q --allow-unused
[ -s "$tmp/err" ] && bad "-q still warns" || ok
expect 0 "" -- parse -f "$DATA/files/ai_ibc.tc" --format tsv
grep -q "^index	c	free_b	400" "$tmp/out" && ok || bad "parse -f: sizes from the file"
expect 1 "tcgen: error: $DATA/files/bad_size.tc:4:5: size of 'b' must be a positive integer" -- parse -f "$DATA/files/bad_size.tc"
expect 1 "tcgen: error: $DATA/files/bad_contraction.tc:3:17: unexpected character '\$'" -- parse -f "$DATA/files/bad_contraction.tc"
expect 1 "cannot open" -- parse -f "$tmp/nothing.tc"
expect 0 "" -- parse "$E" a=2,b=3,i=4 -o "$tmp/ir.tsv" --format tsv
grep -q "^index	a	free_a	2" "$tmp/ir.tsv" && ok || bad "-o FILE"
expect 3 "cannot write" -- parse "$E" -o "$tmp/no/such/dir/x"

# list: the three dissertation oracles, byte for byte against the goldens.
for pair in "list_abc_ai_ibc.tsv:C[a,b,c] = A[a,i] * B[i,b,c]" \
            "list_a_iaj_ji.tsv:C[a] = A[i,a,j] * B[j,i]" \
            "list_abc_ija_jbic.tsv:C[a,b,c] = A[i,j,a] * B[j,b,i,c]"; do
    golden=${pair%%:*} contraction=${pair#*:}
    expect 0 "" -- list "$contraction" --format tsv --family paper
    cmp -s "$tmp/out" "$DATA/golden/$golden" && ok || bad "list '$contraction' differs from $golden"
done
expect 0 "" -- list "$E" --kernels dgemm,dger --format json
grep -q '"name": "dgemm"' "$tmp/out" && grep -q '"kernel": "dger"' "$tmp/out" && ok || bad "list --kernels json"
expect 2 "unknown kernel 'dgemmm'" -- list "$E" --kernels dgemm,dgemmm
# the wider families (default): fused groups and permuted operands, counted
expect 0 "" -- list 'C[a,b,c] = A[a,i] * B[i,b,c]' --format tsv
grep -q $'^(bc)-dgemm\tdgemm\t-\t-$' "$tmp/out" && grep -qx "# families: paper 36, fused 5, permuted 0" "$tmp/out" &&
    ok || bad "list: no fused (bc)-dgemm or family counts"
expect 0 "" -- list 'C[a,b,c,d,e,f] = A[d,e,g,a] * B[g,f,b,c]' --kernels dgemm --format tsv
grep -q $'^A^C^-dgemm\tdgemm\t-\tC^,A^$' "$tmp/out" && ok || bad "list: no permuted A^C^-dgemm"
expect 2 "unknown family 'x'" -- list "$E" --family x
# More algorithms than tcgen builds at once: list (which takes --kernels)
# names that remedy; emit and explain of a kernel that has few of them work,
# and where that kernel alone is too many, the message names no option.
BIG='C[a,b,o,p,d,g,h,q] = A[p,o,g,n] * B[q,a,h,b,d,n]'
BIGS='a=1,b=3,d=8,g=2,h=8,n=2,o=10,p=3,q=4'
expect 1 "restrict --kernels" -- list "$BIG"
expect 0 "" -- list "$BIG" --kernels dgemm --format tsv
expect 0 "" -- emit "$BIG" "$BIGS" --algorithm 'B^C^-dgemm' -o "$tmp/bigemit.c"
expect 1 "more than tcgen enumerates" -- emit "$BIG" "$BIGS" --algorithm 'abcdefgh-daxpy'
grep -q -- "--" "$tmp/err" && bad "emit names an option it lacks: $(cat "$tmp/err")" || ok
expect 1 "more than tcgen enumerates" -- explain "$BIG" "$BIGS" 'abcdefgh-daxpy'
grep -q -- "--" "$tmp/err" && bad "explain names an option it lacks: $(cat "$tmp/err")" || ok

# emit: an algorithm by name, errors for unknown or missing names.
expect 0 "" -- emit "$E" a=b=4,i=2 --algorithm dgemm --function my_mm -o "$tmp/mm.c"
grep -q "^int my_mm(const double \*A, const double \*B, double \*C)" "$tmp/mm.c" && ok || bad "emit --function"
expect 1 "no algorithm named 'x-dgemm'" -- emit "$E" a=b=4,i=2 --algorithm x-dgemm -o "$tmp/none.c"
[ -e "$tmp/none.c" ] && bad "emit wrote a file on error" || ok
expect 2 "--algorithm" -- emit "$E" a=b=4,i=2
expect 2 "missing SIZES" -- emit "$E" --algorithm dgemm

# info: caches, line size, BLAS library, timer; --cache-size; errors.
expect 0 "" -- info --format tsv
grep -q "^# llc_bytes [1-9][0-9]* " "$tmp/out" && ok || bad "info tsv: no last-level cache line"
grep -q "^L1	[1-9]" "$tmp/out" && ok || bad "info tsv: no L1 row"
grep -q "^# timer_ghz " "$tmp/out" && grep -q "^# blas_threads [1-9][0-9]*$" "$tmp/out" && ok || bad "info tsv: timer or BLAS lines"
expect 0 "" -- info --format tsv --threads 1
grep -q "^# blas_threads 1$" "$tmp/out" && ok || bad "info --threads 1"
expect 0 "" -- info --format json
if command -v python3 >/dev/null; then
    python3 -m json.tool "$tmp/out" >/dev/null && ok || bad "info json is not valid JSON"
fi
grep -q '"llc_overridden": false' "$tmp/out" && ok || bad "info json: llc_overridden"
expect 0 "" -- info --cache-size 6MiB --format tsv
grep -q "^# llc_bytes 6291456 .*--cache-size" "$tmp/out" && ok || bad "info --cache-size 6MiB: llc_bytes"
expect 0 "" -- info --cache-size=512K --format json
grep -q '"llc_bytes": 524288,' "$tmp/out" && ok || bad "info --cache-size=512K json"
expect 2 "tcgen: usage: --cache-size needs" -- info --cache-size 0
expect 2 "tcgen: usage: --cache-size needs" -- info --cache-size 12Q
expect 2 "tcgen: usage: --cache-size needs" -- info --cache-size 2048G
expect 3 "cannot load BLAS library '/nonexistent.so'" -- info --blas /nonexistent.so
expect 2 "info takes no arguments" -- info extra
expect 0 "" -- info --help
grep -q "^usage: tcgen info" "$tmp/out" && ok || bad "info --help"

# predict: a ranking of every algorithm, fastest first; models; errors.
P='C[a,b,c] = A[a,i] * B[i,b,c]'
expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --family paper --format tsv
head -1 "$tmp/out" | grep -qx "rank	name	kernel	predicted_s	gflops" && ok || bad "predict: header"
[ "$(grep -vc '^#\|^rank' "$tmp/out")" -eq 36 ] && ok || bad "predict: not 36 algorithms"
awk -F'\t' 'NR > 1 && !/^#/ { if ($1 != NR - 1 || $4 <= 0 || $4 < prev) exit 1; prev = $4 }' "$tmp/out" \
    && ok || bad "predict: ranks not 1..36 by increasing positive time"
grep -q "^# predict_s [0-9.]*$" "$tmp/out" && grep -q "^# cases_timed [0-9]* reused [0-9]*$" "$tmp/out" \
    && ok || bad "predict: summary lines"
# every family by default: as many as list shows, fused and permuted among them
Q='C[a,b,c,d] = A[a,e,b,f] * B[d,f,c,e]'
expect 0 "" -- list "$Q" a=b=c=d=e=f=6 --format tsv
nlist=$(grep -vc '^#\|^name' "$tmp/out")
expect 0 "" -- predict "$Q" a=b=c=d=e=f=6 --reps 1 --format tsv
[ "$(grep -vc '^#\|^rank' "$tmp/out")" -eq "$nlist" ] && grep -q "	A^B^C^-dgemm	dgemm	" "$tmp/out" \
    && ok || bad "predict: not the $nlist algorithms of every family"
expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --format tsv
grep -q "^[0-9]*	(bc)-dgemm	dgemm	" "$tmp/out" && ok || bad "predict: no fused (bc)-dgemm"
expect 0 "" -- explain "$Q" a=b=c=d=e=f=6 'A^B^C^-dgemm' --reps 1 --format table
grep -q "^case .*: copy B\[:,:,:,:\] -> T2 steady" "$tmp/out" && ok || bad "explain: a whole permutation's case"
# explain --measure: each part (three permutations, the dgemm) beside its
# prediction, then the loops between them and the algorithm, as numbers
expect 0 "" -- explain "$Q" a=b=c=d=e=f=6 'A^B^C^-dgemm' --reps 1 --measure --format tsv
[ "$(head -1 "$tmp/out")" = "$(printf 'part\tpredicted_s\tmeasured_s\terror_pct')" ] &&
    grep -q "^copy A\[:,:,:,:\] -> T1	[0-9.e+-]*	[0-9.e+-]*	-\?[0-9.]*$" "$tmp/out" &&
    grep -q "^dgemm	[0-9.e+-]*	[0-9.e+-]*	" "$tmp/out" && grep -q "^between the parts	-	" "$tmp/out" &&
    [ "$(grep -c "^copy" "$tmp/out")" -eq 3 ] && [ "$(grep -c "^algorithm	" "$tmp/out")" -eq 1 ] &&
    ok || bad "explain --measure: the parts table"
expect 0 "" -- explain "$P" a=b=c=24,i=8 'c-dgemm@2' --reps 1 --measure --format json
grep -q '"part": "split loop over c", "predicted_s": [0-9]' "$tmp/out" && ok ||
    bad "explain --measure: a split loop as one part"
expect 2 "not an option" -- predict "$Q" a=b=c=d=e=f=6 --measure
# temporaries larger than memory (400^4 doubles: 205 GB each): not candidates, said so
expect 0 "are not candidates: their temporaries need more than" -- \
    predict "$Q" a=b=c=d=e=f=400 --kernels dgemm --reps 1 --format tsv
grep -q "\^" "$tmp/out" && bad "predict ranked a permutation larger than memory" || ok
expect 0 "" -- list "$Q" a=b=c=d=e=f=400 --kernels dgemm
grep -q "^# 20 algorithms are not candidates: their temporaries need more than the [0-9]* bytes of the memory available$" "$tmp/out" && ok ||
    bad "list does not say which temporaries do not fit"
expect 2 "unknown family 'some'" -- predict "$P" a=b=c=24,i=8 --family some
for fam in all:41 paper:36; do
    expect 0 "" -- "$P" a=b=c=24,i=8 --family "${fam%:*}" --threads 1
    grep -q "ranked  *${fam#*:} algorithms" "$tmp/out" && ok || bad "main job --family ${fam%:*}: not ${fam#*:} ranked"
done
for m in warm access prefetch failures full; do
    expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --model "$m" --kernels dgemm,dger --family paper --format tsv
    [ "$(grep -vc '^#\|^rank' "$tmp/out")" -eq 6 ] && grep -q "model $m," "$tmp/out" && ok || bad "predict --model $m"
done
expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --blas blis --flush remote --format json
python3 -m json.tool "$tmp/out" >/dev/null && ok || bad "predict json is not valid JSON"
expect 2 "unknown model 'cold'" -- predict "$P" a=b=c=24,i=8 --model cold
# --model LEVEL,-RULE: every rule of 'info --rules' can be switched off (and
# on again); an unknown rule is named, with the valid ones listed.
expect 0 "" -- info --rules --format tsv
rules=$(grep -v '^#\|^rule' "$tmp/out" | cut -f1)
[ "$(wc -w <<<"$rules")" -ge 10 ] && ok || bad "info --rules lists $(wc -w <<<"$rules") rules"
grep -q '^tlb	--model full,-tlb	' "$tmp/out" && ok || bad "info --rules: no tlb row with its switch"
expect 0 "" -- info --rules --format json
python3 -m json.tool "$tmp/out" >/dev/null && ok || bad "info --rules json is not valid JSON"
for r in $rules; do
    expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --model "full,-$r" --kernels dgemv --family paper --format tsv
    grep -q "model full,-$r," "$tmp/out" && ok || bad "predict --model full,-$r: not in the set-up line"
done
expect 0 "" -- predict "$P" a=b=c=24,i=8 --reps 1 --model "full,-tlb,+tlb" --kernels dgemv --family paper --format tsv
grep -q "model full," "$tmp/out" && ok || bad "predict --model full,-tlb,+tlb: tlb not on again"
expect 2 "unknown rule switch '-trainz'" -- predict "$P" a=b=c=24,i=8 --model full,-trainz
grep -q "llc-edge, tlb," "$tmp/err" && ok || bad "an unknown rule does not list the valid ones"
expect 2 "unknown rule switch 'tlb'" -- predict "$P" a=b=c=24,i=8 --model full,tlb
expect 2 "ends in a comma" -- predict "$P" a=b=c=24,i=8 --model full,
expect 2 "--reps needs a whole number" -- predict "$P" a=b=c=24,i=8 --reps 0
expect 2 "unknown flush 'x'" -- predict "$P" a=b=c=24,i=8 --flush x
expect 2 "missing SIZES" -- predict "$P"
expect 1 "no size given for index" -- predict "$P" a=b=c=24
expect 3 "cannot load BLAS library" -- predict "$P" a=b=c=24,i=8 --blas /nonexistent.so
# 8 TB of operands: predicted on parts of the calls (nothing that size is
# allocated), refused by measure before allocating.
expect 0 "" -- predict 'C[a,b] = A[a,i] * B[i,b]' a=b=1000000,i=8 --reps 1 --kernels dgemm --format tsv
grep -q "	dgemm	dgemm	[0-9.e+]*	" "$tmp/out" && ok || bad "predict of an 8 TB contraction"
expect 3 "measuring needs 7629517 MiB for the tensors" -- \
    measure 'C[a,b] = A[a,i] * B[i,b]' a=b=1000000,i=8 --reps 1 --kernels dgemm
# every contraction of the corpus
while IFS=';' read -r con sz; do
    case "$con" in '#'*|'') continue ;; esac
    expect 0 "" -- predict "$con" $sz --reps 1 --format tsv
done < "$DATA/contractions.txt"

# explain: Example 6.7/6.10 end to end (ca-dgemv, Harpertown's 6 MiB cache),
# in the model of §6.2.4 (the full model adds a shared line's own footprint
# to its prefetch distance: docs/prediction.md)
expect 0 "" -- explain "$P" a=b=c=400,i=8 ca-dgemv --cache-size 6MiB --reps 1 --format tsv \
    --model failures
grep -q "	failure	.*	\[816632\], A\[a,:\], \[163200\], B\[:,:,c\]$" "$tmp/out" && ok || bad "explain: failure setup"
grep -q "	steady	.*	A\[a,:\]	8	166400	line	0	8	-$" "$tmp/out" && ok || bad "explain: A[a,:] distances"
grep -q "^# predicted_s [0-9]" "$tmp/out" && ok || bad "explain: predicted_s"
expect 0 "" -- explain "$P" a=b=c=40,i=8 "bi-dger" --reps 1 --format table
grep -q "^algorithm bi-dger" "$tmp/out" && grep -q "^predicted " "$tmp/out" && ok || bad "explain table"
expect 0 "" -- explain 'C[a,b,c] = A[i,j,a] * B[j,b,i,c]' i=j=8,a=b=c=16 "i'c-dgemm" --reps 1 --format json
python3 -m json.tool "$tmp/out" >/dev/null && grep -q "copy A\[i,:,:\] -> T0" "$tmp/out" && ok || bad "explain json with a copy"
expect 1 "no algorithm named 'zz-dgemm'" -- explain "$P" a=b=c=40,i=8 zz-dgemm
expect 2 "explain needs an algorithm name" -- explain "$P" a=b=c=40,i=8

# measure and compare: real runs on small sizes.
expect 0 "" -- measure "$P" a=b=c=16,i=4 --reps 3 --family paper --format tsv
head -1 "$tmp/out" | grep -qx "rank	name	kernel	measured_s	gflops" && ok || bad "measure: header"
[ "$(grep -vc '^#\|^rank' "$tmp/out")" -eq 36 ] && ok || bad "measure: not 36 algorithms"
awk -F'\t' 'NR > 1 && !/^#/ { if ($4 <= 0 || $4 < prev) exit 1; prev = $4 }' "$tmp/out" \
    && ok || bad "measure: times not increasing and positive"
expect 0 "" -- measure "$P" a=b=c=16,i=4 --algorithm ca-dgemv --reps 1 --format tsv
[ "$(grep -vc '^#\|^rank' "$tmp/out")" -eq 1 ] && grep -q "	ca-dgemv	dgemv	" "$tmp/out" && ok || bad "measure --algorithm"
expect 0 "" -- measure "$P" a=b=c=300,i=300 --algorithm abc-ddot --time-limit 0.05 --reps 1 --format tsv
grep -q "^1	abc-ddot	ddot	-	-$" "$tmp/out" && grep -q "^# over_limit 1 (time limit 0.05 s)" "$tmp/out" \
    && ok || bad "measure: over the time limit"
expect 2 "--time-limit needs seconds" -- measure "$P" a=b=c=16,i=4 --time-limit 0
expect 1 "no algorithm named 'x-dgemm'" -- measure "$P" a=b=c=16,i=4 --algorithm x-dgemm
expect 3 "measuring needs" -- measure 'C[a,b] = A[a,i] * B[i,b]' a=b=2000000,i=2 --algorithm dgemm
expect 0 "" -- compare "$P" a=b=c=16,i=4 --reps 3 --kernels dgemm,dger,dgemv --family paper --format tsv
head -1 "$tmp/out" | grep -qx "name	kernel	predicted_s	measured_s	error_pct" && ok || bad "compare: header"
[ "$(grep -vc '^#\|^name' "$tmp/out")" -eq 12 ] && ok || bad "compare: not 12 algorithms"
for key in mean_abs_error_pct best_predicted best_measured regret_pct regret_sweep_pct \
    regret_against predict_s measure_s; do
    grep -q "^# $key " "$tmp/out" && ok || bad "compare: no '# $key' line"
done
# the side-by-side regret: never negative, against an algorithm of the table
awk '/^# regret_pct / { exit !($3 >= 0) }' "$tmp/out" && ok || bad "compare: regret_pct below 0"
against=$(awk '/^# regret_against / { print $3 }' "$tmp/out")
grep -q "^$against	" "$tmp/out" && ok || bad "compare: regret_against '$against' is not in the table"
# the error column is computed from the two times
awk -F'\t' 'NR > 1 && !/^#/ { e = ($3 - $4) / $4 * 100; if (e - $5 > 0.01 || $5 - e > 0.01) exit 1 }' \
    "$tmp/out" && ok || bad "compare: error_pct does not match the times"
# sweeps: one row per (size, algorithm), sizes from the range
expect 0 "" -- predict "$P" i=4 --sweep 'a=b=c=8:24:8' --kernels dgemm --family paper --reps 1 --format tsv
head -1 "$tmp/out" | grep -qx "a=b=c	rank	name	kernel	predicted_s	gflops" && ok || bad "sweep: header"
[ "$(grep -c '^8	\|^16	\|^24	' "$tmp/out")" -eq 6 ] && ok || bad "sweep: not 3 sizes x 2 algorithms"
expect 0 "" -- compare "$P" a=b=c=12 --sweep 'i=2,5' --kernels dgemm --reps 1 --format tsv
grep -q "^# i=5 regret_pct " "$tmp/out" && grep -q "^# mean_abs_error_pct " "$tmp/out" && ok || bad "compare sweep summary"
expect 2 "--sweep 'a=8:4:1': STOP is below START" -- predict "$P" i=4 b=c=8 --sweep 'a=8:4:1'
expect 2 "--sweep 'a': expected '='" -- predict "$P" i=4 b=c=8 --sweep 'a'
expect 2 "more than 1000 points" -- predict "$P" i=4 b=c=8 --sweep 'a=1:5000:1'
expect 1 "no size given for index 'c'" -- predict "$P" i=4 b=8 --sweep 'a=8,16'

# --plot: gnuplot draws the sweep; bad names and a missing gnuplot are refused.
expect 0 "" -- compare "$P" i=4 --sweep 'a=b=c=8,16' --kernels dgemm --reps 1 --plot "$tmp/p.svg" -q
grep -q "<svg" "$tmp/p.svg" && grep -q "b-dgemm" "$tmp/p.svg" && ok || bad "--plot wrote no SVG with the algorithms"
expect 0 "" -- predict "$P" a=b=c=8,i=4 --kernels dgemm --reps 1 --plot "$tmp/p.png" -q
[ "$(head -c 4 "$tmp/p.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok || bad "--plot wrote no PNG"
expect 2 "must end in .svg or .png" -- predict "$P" a=b=c=8,i=4 --kernels dgemm --reps 1 --plot "$tmp/p.pdf"
TCGEN_GNUPLOT=/nonexistent expect 3 "gnuplot" -- predict "$P" a=b=c=8,i=4 --kernels dgemm --reps 1 --plot "$tmp/q.svg"

# Options a command does not take are refused (exit 2), never accepted and
# ignored; what can be checked without the problem is checked before work.
expect 2 "unknown command 'bogus'" -- bogus a=4
expect 2 "'--kernels' is not an option of the main job" -- "$E" a=b=i=4 --kernels ddot
expect 2 "'--algorithm' is not an option of the main job" -- "$E" a=b=i=4 --algorithm dgemm
expect 2 "'--layout' is not an option of 'tcgen parse'" -- parse "$E" --layout row
expect 2 "unknown layout 'diag'" -- list "$E" --layout diag
# list --layout row names what emit --layout row takes: every one emits.
expect 0 "" -- list "$P" a=b=c=8,i=8 --layout row --family paper --format tsv
n=0; fails=0
for name in $(awk -F'\t' 'NR > 1 && !/^#/ {print $1}' "$tmp/out"); do
    n=$((n + 1))
    "$TCGEN" emit "$P" a=b=c=8,i=8 --layout row --algorithm "$name" -o "$tmp/row.c" 2>/dev/null \
        || fails=$((fails + 1))
done
[ "$n" -eq 36 ] && [ "$fails" -eq 0 ] && ok || bad "list --layout row: $fails of $n names refused by emit --layout row"
expect 2 "'--threads' is not an option of 'tcgen list'" -- list "$E" --threads 1
expect 2 "needs a whole number of threads" -- predict "$E" a=b=i=4 --threads ' 4'
expect 2 "logical CPU" -- predict "$E" a=b=i=4 --threads "$(( $(nproc) + 1 ))"
TCGEN_THREADS=x expect 2 "TCGEN_THREADS needs a whole number" -- predict "$E" a=b=i=4
expect 2 "unknown kernel" -- predict "$E" a=b=i=4 --kernels foo
expect 2 "must end in .svg or .png" -- predict "$E" i=4 --sweep a=b=4:8:4 --plot x.pdf
[ -s "$tmp/out" ] && bad "--plot x.pdf: the sweep ran before the usage error" || ok
for arg in --help --version; do
    "$TCGEN" $arg > /dev/full 2>"$tmp/err"
    [ $? -eq 3 ] && grep -q "cannot write to standard output" "$tmp/err" && ok || bad "$arg > /dev/full"
done
# Sizes: empty items and raw bytes in messages.
expect 1 "empty item in sizes" -- parse "$E" 'a=4,,b=4' i=2
expect 1 "empty item in sizes" -- parse "$E" 'a=4,b=4,' i=2
expect 1 "found '\xc3\xa9'" -- parse "$E" $'a=\xc3\xa9' b=i=2
LC_ALL=C grep -q $'[\x80-\xff]' "$tmp/err" && bad "raw non-ASCII bytes in a message" || ok
# No algorithm: one true message from every command and the main job.
for con in 'C[p] = A[p] * B[p]' 'C[p,q] = A[p,q] * B[q,p]' 'C[] = A[] * B[]'; do
    for cmd in list predict measure compare ""; do
        expect 1 "no BLAS kernel applies" -- $cmd "$con" p=q=4
    done
done
# -v: progress lines and what the ranking rests on, even off a terminal.
expect 0 "ranked with model full" -- "$E" a=b=i=8 -v --reps 1 -o "$tmp/v.c"
grep -q "predicting [0-9]*/" "$tmp/err" && ok || bad "-v shows no progress"
# -= and a leading sign are how coupled-cluster terms are written: alpha -1.
expect 0 "" -- parse 'R[a,b] -= W[a,e] * T[e,b]' --format tsv
grep -qx "# alpha -1" "$tmp/out" && grep -qx "# beta 1" "$tmp/out" && ok || bad "-= parses to alpha -1, beta 1"
expect 0 "" -- parse 'R[a,b] += -W[a,e] * T[e,b]' --format tsv
grep -qx "# alpha -1" "$tmp/out" && ok || bad "+= -W parses to alpha -1"
# --plot never hands its file name to gnuplot (a leading '|' is a pipe there).
abs_tcgen=$(cd "$(dirname "$TCGEN")" && pwd)/$(basename "$TCGEN")
(cd "$tmp" && "$abs_tcgen" predict 'C[a] = A[i,a,j] * B[j,i]' a=i=j=8 --sweep a=8:16:8 --reps 1 -q \
    --plot '|touch pwned;.svg' > /dev/null 2>&1)
[ -e "$tmp/pwned" ] && bad "--plot ran a shell command" || ok
grep -q "<svg" "$tmp/|touch pwned;.svg" 2>/dev/null && ok || bad "--plot '|...' did not write the file named"
# A failed write leaves the previous -o file intact.
echo previous > "$tmp/keep.c"
(ulimit -f 1; "$TCGEN" emit "$P" a=b=c=40,i=8 --algorithm cb-dgemv -o "$tmp/keep.c" 2>"$tmp/err")
[ $? -eq 3 ] && [ "$(cat "$tmp/keep.c")" = previous ] && ok || bad "-o under ulimit -f: file not intact"
ls "$tmp" | grep -q "keep.c.tmp" && bad "-o under ulimit -f left a temporary" || ok

# Loops split over threads: at --threads 2 predict ranks NAME@2 beside the
# others and list shows them (TCGEN_THREADS=2); emit and explain take such a name where the
# loop can be split (an index of C) and refuse it where it cannot (a
# contracted index), as any unknown name.
expect 0 "" -- predict "$P" a=b=c=24,i=8 --threads 2 --reps 1 --format tsv
grep -q "	c-dgemm@2	" "$tmp/out" && grep -q "	c-dgemm	" "$tmp/out" && ok \
    || bad "predict --threads 2: no c-dgemm and c-dgemm@2"
TCGEN_THREADS=2 expect 0 "" -- list "$P" a=b=c=24,i=8
grep -q "^c-dgemm@2	" "$tmp/out" && ok || bad "list at 2 threads: no c-dgemm@2"
expect 0 "" -- emit "$P" a=b=c=24,i=8 --algorithm c-dgemm@2 -o "$tmp/split.c"
grep -q "#pragma omp parallel for num_threads(2)" "$tmp/split.c" && ok || bad "emit c-dgemm@2: no split loop"
expect 0 "" -- explain "$P" a=b=c=24,i=8 --algorithm c-dgemm@2 --threads 2 \
    --reps 1 --format table
grep -q "for c in 0..24, split over 2 threads (at most 12 each, BLAS on one)" "$tmp/out" && ok \
    || bad "explain c-dgemm@2: the split loop not shown"
expect 1 "no algorithm named 'ic-dger@2'" -- emit "$P" a=b=c=24,i=8 --algorithm ic-dger@2

# --strides: tensors as views of larger arrays (tiles), by name or role letter.
expect 0 "" -- parse "$P" a=b=c=4,i=3 --strides 'C=1,6,36;B=1,5,30' --format tsv
grep -q "^tensor	C	output	-	a,b,c	1,6,36	1040$" "$tmp/out" && ok \
    || bad "parse --strides: C's strides and bytes not shown"
expect 2 "index 'b' of B has stride 2" -- parse "$P" a=b=c=4,i=3 --strides 'B=1,2,30'
expect 2 "expected 3 strides for B" -- list "$P" a=b=c=4,i=3 --strides 'B=1,5'
# emitted views: strides as constants (a SPEC), as parameters (--generic, 'param')
expect 0 "" -- "$P" a=b=c=4,i=3 --strides 'B=1,5,30' -q -o "$tmp/views.c"
grep -q "const long sB_b = 5, sB_c = 30;" "$tmp/views.c" && ok || bad "main job --strides: B's strides not constants"
expect 0 "" -- emit "$P" a=b=c=4,i=3 --algorithm '(bc)-dgemm' --strides param -o "$tmp/views.c"
grep -q "double \*C, const long \*stride_C)" "$tmp/views.c" && grep -q "return -3;" "$tmp/views.c" \
    && ok || bad "emit --strides param: no stride parameters or checks"
expect 0 "" -- emit "$P" a=b=c=4,i=3 --algorithm b-dgemm --strides 'B=1,3,13' --generic -o "$tmp/views.c"
grep -q "const long sB_b = stride_B\[1\]" "$tmp/views.c" && ok || bad "emit --generic --strides: strides not parameters"
expect 2 "'--strides param' (strides as parameters) is for emit and the main job" -- \
    list "$P" a=b=c=4,i=3 --strides param
expect 2 "the Fortran interface takes explicit-shape arrays" -- emit "$P" a=b=c=4,i=3 \
    --algorithm '(bc)-dgemm' --strides param --fortran "$tmp/views.f90"
expect 1 "no algorithm named '(bc)-dgemm'" -- emit "$P" a=b=c=4,i=3 --algorithm '(bc)-dgemm' \
    --strides 'B=1,3,13'
# a gap between b and c in B and C: no (bc) group; the algorithms still run
expect 0 "" -- list "$P" a=b=c=4,i=3 --strides 'B=1,3,13;C=1,4,17'
grep -q "(bc)" "$tmp/out" && bad "list --strides: (bc) fused across a gap" || ok
expect 0 "" -- explain "$P" a=b=c=4,i=3 --strides 'B=1,3,13' --algorithm b-dgemm --reps 1 \
    --format table
grep -q "^B a view: strides 1,3,13 (its 48 elements spread over 51)$" "$tmp/out" && ok \
    || bad "explain --strides: B's view not shown"
expect 0 "" -- measure "$P" a=b=c=4,i=3 --strides 'B=1,3,13;C=1,4,17' --reps 1 --format tsv
[ "$(grep -vc '^#' "$tmp/out")" -gt 10 ] && ok || bad "measure --strides: too few algorithms"

# --type: the algorithms named with the type's kernels, measured in the type
expect 0 "" -- list "$P" a=b=c=4,i=3 --type z --format tsv
grep -q "^(bc)-zgemm	zgemm	" "$tmp/out" && ok || bad "list --type z: no (bc)-zgemm"
grep -q "dgemm" "$tmp/out" && bad "list --type z: a double kernel named" || ok
expect 0 "" -- measure "$P" a=b=c=4,i=3 --type c --kernels dgemm --reps 1 --format tsv
[ "$(grep -c 'cgemm	' "$tmp/out")" -ge 3 ] && ok || bad "measure --type c: no cgemm measured"
expect 0 "" -- parse "$P" a=b=c=4,i=3 --type s --format tsv
grep -q "^tensor	A	.*	48$" "$tmp/out" && ok || bad "parse --type s: A's 12 floats are not 48 bytes"
expect 0 "" -- "$P" a=b=c=4,i=3 --type c -o "$tmp/c.c" -q
grep -q "cblas_cgemm\|cblas_cgemv\|cblas_cgeru\|cblas_caxpy\|cblas_cdotu_sub" "$tmp/c.c" && \
    grep -q "float complex \*C" "$tmp/c.c" && ok || bad "main job --type c: no float complex C"
expect 2 "bad --type 'q'" -- predict "$P" a=b=c=4,i=3 --type q
expect 2 "bad --type 'zz'" -- list "$P" a=b=c=4,i=3 --type zz

# What the TAPP interface maps (conj, a diagonal, an index summed out):
# list and explain show the mapping, then the plan's contraction.
M='C[a,b] += -0.5 * conj(A[a,a,i,k]) * B[i,b]'
expect 0 "" -- list "$M" a=10,i=12,b=8,k=4 --type z --format table
grep -q "^conj(A\[a,a,i,k\]): packed into a dense A\[a,i\] before the plan runs (conjugated; the diagonal over a, its stride 1 + 10 = 11; k summed out)" \
    "$tmp/out" && ok || bad "list: conj(A[a,a,i,k])'s mapping not shown"
grep -q "^B\[i,b\]: read in place$" "$tmp/out" && ok || bad "list: B in place not shown"
grep -q "^the plan computes C\[a,b\] += -0.5 \* A\[a,i\] \* B\[i,b\]$" "$tmp/out" && ok \
    || bad "list: the plan's contraction not shown"
grep -q "^zgemm  *zgemm" "$tmp/out" && ok || bad "list: the mapped contraction's algorithms not listed"
expect 0 "" -- list 'C_ab = A_aik B_ib' --format tsv
grep -q "^# A\[a,i,k\]: packed into a dense A\[a,i\] before the plan runs (k summed out)" "$tmp/out" \
    && ok || bad "list without sizes: the summed index not shown"
expect 0 "" -- explain 'C[a,b] = A[a,i] * conj(B[i,b,b])' a=6,i=5,b=4 --type c cgemm --format table
grep -q "^conj(B\[i,b,b\]): packed into a dense B\[i,b\] before the plan runs (conjugated; the diagonal over b, its stride 5 + 20 = 25)" \
    "$tmp/out" && grep -q "^predicted " "$tmp/out" && ok || bad "explain: conj(B[i,b,b])'s mapping or prediction missing"
expect 1 "1:18: conj(A) of a real tensor: conjugation needs a complex type" -- list "$M" a=b=i=k=2
expect 1 "1:18: conj(A): a conjugated operand is for the TAPP interface" -- "$M" a=b=i=k=2 --type z
expect 1 "1:5: index 'a' appears twice in the output C" -- list 'C[a,a] = A[a,i,i] * B[i,a]'
expect 1 "sizes: 'x' is not an index of the contraction" -- list "$M" a=b=i=k=2,x=3 --type z
expect 1 "no size given for index 'k'" -- explain "$M" a=b=i=2 --type z zgemm
expect 1 "sizes: A's elements do not fit in 64 bits" -- list "$M" a=i=k=b=4000000000 --type z
expect 2 "usage: --strides, with conj" -- list "$M" a=b=i=k=2 --type z --strides 'B=1,3'

finish "cli"
