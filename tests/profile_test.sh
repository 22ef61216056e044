#!/usr/bin/env bash
# profile_test.sh - the machine profile as a user meets it: measured by the
# first command on a machine and stored under $XDG_CACHE_HOME/tcgen (else
# ~/.cache/tcgen), loaded by later ones (tcgen info says which), refused
# and measured anew when damaged or holding what the model cannot use (a
# warning naming the file), said once when it cannot be saved, refreshed
# by info --measure, written whole by concurrent first runs, --cache-size
# labelled as such. Each step runs in a temporary cache directory: the
# user's is never touched.
# Ends with "profile_test: N passed, N failed". No assertion on time.
set -u
TCGEN=${TCGEN:-build/tcgen}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
has() { grep -q -- "$2" "$1" && ok || bad "$3: no '$2' in $(head -c 600 "$1")"; }

export XDG_CACHE_HOME="$tmp/cache"

# 1. First run: measured and saved; the file is complete. Its name is the
# BLAS library's and this machine's (profile-openblas-MODEL-HASH.txt), so
# node types that share a home directory keep one each.
"$TCGEN" info --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "info (first): $(cat "$tmp/err")"
has "$tmp/out" "^# profile_origin measured now, saved" "first info"
profile=$(awk '$1 == "#" && $2 == "profile" { print $3 }' "$tmp/out")
name=${profile##*/}
[[ $profile == "$XDG_CACHE_HOME/tcgen/"* && $name =~ ^profile-openblas-[a-z0-9-]+-[0-9a-f]{8}\.txt$ ]] && ok \
    || bad "first info path: '$profile'"
[ -s "$profile" ] && ok || bad "no profile file at $profile"
tail -n 1 "$profile" | grep -q "^check [0-9a-f]\{16\}\$" && ok || bad "profile does not end with its checksum"
ls "$XDG_CACHE_HOME/tcgen" | grep -q '\.tmp\.' && bad "a temporary was left behind" || ok

# 2. Later runs load it; predictions say what the LLC rests on.
"$TCGEN" info --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "info (second)"
has "$tmp/out" "^# profile_origin loaded" "second info"
has "$tmp/out" "^# llc_bytes [1-9][0-9]* (.*, L[0-9], \(measured\|detected\); detected [0-9]*)" "llc line"
grep -q "^L1	[1-9][0-9]*	.*	\(detected\|measured\)	" "$tmp/out" && ok || bad "info: no used column on L1"
cp "$profile" "$tmp/before"
"$TCGEN" explain 'C[i,j] = A[i,k] * B[k,j]' i=j=k=32 dgemm --format table >"$tmp/out" 2>"$tmp/err" && ok || bad "explain: $(cat "$tmp/err")"
has "$tmp/out" "LLC [0-9]* KiB (\(measured\|hwloc\|sysfs\|default\))" "explain setup line"
cmp -s "$profile" "$tmp/before" && ok || bad "explain rewrote a valid profile"

# 3. --cache-size: labelled as such, never as detected or hwloc.
"$TCGEN" info --cache-size 6MiB --format tsv >"$tmp/out" 2>&1 && ok || bad "info --cache-size"
has "$tmp/out" "^# llc_bytes 6291456 (6 MiB, L[0-9], set by --cache-size; detected" "--cache-size llc line"
grep "^# llc_bytes" "$tmp/out" | grep -q "hwloc" && bad "--cache-size labelled hwloc" || ok
"$TCGEN" explain 'C[i,j] = A[i,k] * B[k,j]' i=j=k=32 dgemm --format table --cache-size 6MiB >"$tmp/out" 2>&1 && ok || bad "explain --cache-size"
has "$tmp/out" "LLC 6144 KiB (--cache-size)" "explain --cache-size label"

# 4. Damage: refused whole, measured anew, replaced by a valid file.
sed -i 's/^peak_flops .*/peak_flops 1/' "$profile"
"$TCGEN" info --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "info (damaged)"
has "$tmp/out" "^# profile_origin measured now, saved" "damaged profile"
has "$tmp/out" "^# note profile: refused .*checksum" "damaged profile note"
grep -q "^peak_flops 1\$" "$profile" && bad "damaged value survived" || ok
printf 'garbage\0\n' >"$profile"
"$TCGEN" info --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "info (garbage)"
has "$tmp/out" "^# profile_origin measured now, saved" "garbage profile"

# 4b. Values the model cannot use (a line that is no whole number of
#     doubles, a 1 PiB LLC, a level edited alone, ...): refused at load, the
#     warning naming the file once on stderr, measured anew; the run succeeds.
cp "$profile" "$tmp/good" # step 4 measured it anew
# reseal FILE KEY VALUE: FILE with KEY's first line holding VALUE, checksum fixed
reseal() {
    python3 - "$@" <<'PY'
import sys
path, key, value = sys.argv[1:4]
lines = open(path).read().split("\n")
body, done = [], False
for l in lines:
    if l.startswith("check "):
        break
    if not done and l.split(" ", 1)[0] == key:
        l, done = key + " " + value, True
    body.append(l)
text = "\n".join(body) + "\n"
h = 0xcbf29ce484222325
for b in text.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(path, "w").write(text + "check %016x\n" % h)
PY
}
for kv in "measured_line 12" "detected_line 12" "measured_llc 1125899906842624" \
          "detected 1 1125899906842624 64 8 1" "stream_lines 5000" \
          "llc_edge 1 1 1 1 1 1 1 1 1 1 2"; do
    cp "$tmp/good" "$profile"
    reseal "$profile" ${kv%% *} "${kv#* }"
    "$TCGEN" predict 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 >"$tmp/out" 2>"$tmp/err" && ok || bad "'$kv': $(cat "$tmp/err")"
    [ "$(grep -c "^tcgen: warning: profile: refused $profile: .*measured anew\$" "$tmp/err")" = 1 ] && ok || bad "'$kv': no single refusal naming the file: $(cat "$tmp/err")"
    grep -q "^$kv\$" "$profile" && bad "'$kv' survived" || ok
done
"$TCGEN" predict 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 >"$tmp/out" 2>"$tmp/err" && ok || bad "predict after the refusals"
[ -s "$tmp/err" ] && bad "a stored profile warned: $(cat "$tmp/err")" || ok

# 5. info --measure measures anew even when the file is valid.
"$TCGEN" info --measure --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "info --measure"
has "$tmp/out" "^# profile_origin measured now, saved" "info --measure"

# 6. HOME/.cache when XDG_CACHE_HOME is unset; an unwritable place still works.
(unset XDG_CACHE_HOME; HOME="$tmp/home" "$TCGEN" info --format tsv >"$tmp/out" 2>&1) && ok || bad "info with HOME only"
[ -s "$tmp/home/.cache/tcgen/$name" ] && ok || bad "no profile under HOME/.cache"
# A cache under a regular file (unwritable to root too): the main job
# measures for this run only, says so once on stderr, and succeeds.
: >"$tmp/afile"
XDG_CACHE_HOME="$tmp/afile/cache" "$TCGEN" 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 -o "$tmp/main.c" >"$tmp/out" 2>"$tmp/err" && ok || bad "main job, unwritable cache: $(cat "$tmp/err")"
[ "$(grep -c "^tcgen: warning: profile: cannot save $tmp/afile/cache/tcgen/$name (.*Not a directory.*): this machine was measured for this run only\$" "$tmp/err")" = 1 ] && ok || bad "main job, unwritable cache: no single warning: $(cat "$tmp/err")"
[ "$(grep -c "profile" "$tmp/err")" = 1 ] && ok || bad "main job, unwritable cache: more than one profile line"
XDG_CACHE_HOME="$tmp/afile/cache" "$TCGEN" predict 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 >"$tmp/out" 2>"$tmp/err" && ok || bad "predict, unwritable cache"
[ "$(grep -c "cannot save .*: this machine was measured for this run only" "$tmp/err")" = 1 ] && ok || bad "predict, unwritable cache: no single warning: $(cat "$tmp/err")"
mkdir -p "$tmp/ro" && chmod 500 "$tmp/ro"
if [ ! -w "$tmp/ro" ]; then # (root writes anywhere: nothing to show then)
    XDG_CACHE_HOME="$tmp/ro" "$TCGEN" info --format tsv >"$tmp/out" 2>&1 && ok || bad "info, unwritable cache"
    has "$tmp/out" "^# profile_origin measured now, not saved" "unwritable cache"
fi

# 7. Four first runs at once: one profile, whole, and every run succeeds.
export XDG_CACHE_HOME="$tmp/par"
for k in 1 2 3 4; do
    "$TCGEN" info --format tsv >"$tmp/par$k" 2>&1 &
done
st=0
for k in 1 2 3 4; do wait %$k || st=1; done
[ "$st" = 0 ] && ok || bad "a concurrent first run failed"
measured=$(grep -l "^# profile_origin measured now" "$tmp"/par? | wc -l)
[ "$measured" -le 1 ] && ok || bad "$measured concurrent runs measured (the lock should let one)"
"$TCGEN" info --format tsv >"$tmp/out" 2>&1
has "$tmp/out" "^# profile_origin loaded" "profile after concurrent runs"

# 8. A bad TCGEN_THREADS is a usage error naming it.
for v in ' 2' 2x 0 -1 99999; do
    TCGEN_THREADS="$v" "$TCGEN" predict 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 >"$tmp/out" 2>"$tmp/err"
    [ $? = 2 ] && grep -q "TCGEN_THREADS" "$tmp/err" && ok || bad "TCGEN_THREADS='$v' not refused: $(cat "$tmp/err")"
done
TCGEN_THREADS=1 "$TCGEN" predict 'C[i,j] = A[i,k] * B[k,j]' i=j=k=8 >"$tmp/out" 2>&1 && ok || bad "TCGEN_THREADS=1 refused"

# 9. Predictions rest on the profile: explain takes one algorithm (two names
#    are a usage error, not a sizes error) and agrees with predict.
"$TCGEN" explain 'C[i,j] = A[i,k] * B[k,j]' i=j=k=100 kj-daxpy jk-daxpy >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "explain takes one algorithm name" "$tmp/err" && ok || bad "explain with two names: $(cat "$tmp/err")"
"$TCGEN" explain 'C[i,j] = A[i,k] * B[k,j]' i=j=k=100 --algorithm kj-daxpy jk-daxpy >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && ok || bad "explain --algorithm with a second name"

# 10. Ranking quality: compare reports Spearman's rho; predict --repeat N the
#     spread of N independent predictions per algorithm (columns and '#' lines).
P='C[a,b,c] = A[a,i] * B[i,b,c]'
"$TCGEN" compare "$P" a=b=c=24,i=8 --kernels dgemm,dgemv --reps 1 --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "compare: $(cat "$tmp/err")"
grep -q "^# spearman \(-\?[01]\.[0-9]\{3\}\|nan\)$" "$tmp/out" && ok || bad "compare: no spearman line"
[ "$(grep -c "^# measure_s" "$tmp/out")" = 1 ] && ok || bad "compare: measure_s printed $(grep -c "^# measure_s" "$tmp/out") times"
"$TCGEN" predict "$P" a=b=c=24,i=8 --repeat 3 --reps 1 --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "predict --repeat: $(cat "$tmp/err")"
head -1 "$tmp/out" | grep -q "^rank	name	kernel	predicted_s	gflops	min_s	max_s	spread_pct$" && ok || bad "predict --repeat: columns"
has "$tmp/out" "^# repeat 3$" "predict --repeat"
grep -q "^# measure_s" "$tmp/out" && bad "predict prints a measure_s line" || ok
has "$tmp/out" "^# within_20pct [0-9]* of [0-9]* (" "predict --repeat"
awk -F'\t' 'NR > 1 && !/^#/ && !($6 <= $4 && $4 <= $7) { bad = 1 } END { exit bad }' "$tmp/out" && ok || bad "predict --repeat: median outside min..max"
"$TCGEN" predict "$P" a=b=c=24,i=8 --repeat 2 --reps 1 --format json >"$tmp/out" 2>&1 && python3 -m json.tool "$tmp/out" >/dev/null && grep -q '"spread_pct"' "$tmp/out" && ok || bad "predict --repeat json"
for v in 0 101 x ' 2'; do
    "$TCGEN" predict "$P" a=b=c=24,i=8 --repeat "$v" >"$tmp/out" 2>"$tmp/err"
    [ $? = 2 ] && grep -q -- "--repeat" "$tmp/err" && ok || bad "--repeat '$v' not refused"
done
# compare --repeat N: N rounds of prediction and measurement, medians; the
# same rows as one round
"$TCGEN" compare "$P" a=b=c=24,i=8 --kernels dgemm,dgemv --reps 1 --format tsv >"$tmp/one" 2>"$tmp/err"
"$TCGEN" compare "$P" a=b=c=24,i=8 --kernels dgemm,dgemv --reps 1 --repeat 3 --format tsv >"$tmp/out" 2>"$tmp/err" && ok || bad "compare --repeat: $(cat "$tmp/err")"
[ "$(head -1 "$tmp/out")" = "$(head -1 "$tmp/one")" ] && ok || bad "compare --repeat: columns"
[ "$(grep -vc '^#' "$tmp/out")" = "$(grep -vc '^#' "$tmp/one")" ] && ok || bad "compare --repeat: rows"
awk -F'\t' 'NR > 1 && !/^#/ && !($3 > 0 && $4 > 0) { bad = 1 } END { exit bad }' "$tmp/out" && ok || bad "compare --repeat: a time missing"
"$TCGEN" measure "$P" a=b=c=24,i=8 --repeat 2 >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q -- "--repeat" "$tmp/err" && ok || bad "measure --repeat not refused"

finish "profile_test"
