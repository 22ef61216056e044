#!/usr/bin/env bash
# workspace_test.sh - the workspace budget as a user meets it: a program
# that plans, executes, destroys and calls tc_release_workspace() is back
# within 5 MiB of its resident set before the first plan
# (tests/memory/release_rss.c); the command's --workspace and
# TCGEN_WORKSPACE bound the chosen algorithm, a bad value is a usage
# error, list counts the algorithms over the budget. Run from the top
# directory with TCGEN, BUILD, CC and SAN. Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
TCGEN=${TCGEN:-$BUILD/tcgen}
CC=${CC:-cc}
SAN=${SAN:-}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

ring='C[a,b,c,d] = A[a,e,c,f] * B[f,b,e,d]'

# ---- the resident set after tc_release_workspace
if $CC -std=c11 -O2 $SAN -D_GNU_SOURCE -Iinclude -I. -I"$BUILD" -I"$BUILD/gen" \
       -o "$tmp/release_rss" tests/memory/release_rss.c "$BUILD/libtcgen.a" \
       -lopenblas -lhwloc -ldl -lm -lpthread 2>"$tmp/cc"; then
    ok
    # ASan's shadow memory and quarantine hold what the program frees: there
    # the program must run, the bound is not measured
    TCGEN_THREADS=1 "$tmp/release_rss" >"$tmp/rss" 2>&1
    rc=$?
    sed 's/^/  /' "$tmp/rss"
    if [ -n "$SAN" ]; then
        [ $rc -le 1 ] && ok || bad "release_rss under sanitizers: exit $rc: $(tail -2 "$tmp/rss")"
    else
        [ $rc -eq 0 ] && ok || bad "release_rss: exit $rc: $(tail -2 "$tmp/rss")"
    fi
else
    bad "release_rss does not build: $(head -c 400 "$tmp/cc")"
fi

# ---- an emitted function that permutes whole tensors keeps nothing by default
inc=$(cblas_include)
"$TCGEN" emit "$ring" a=b=c=d=e=f=24 --algorithm 'A^B^C^-dgemm' --function ring \
    -o "$tmp/ring.c" 2>"$tmp/err" && ok || bad "emit A^B^C^-dgemm: $(cat "$tmp/err")"
if $CC -std=c99 -O2 $SAN -I"$inc" -o "$tmp/leaves" tests/memory/emitted_leaves.c "$tmp/ring.c" \
       -lopenblas 2>"$tmp/cc"; then
    "$tmp/leaves" >"$tmp/leaves.out" 2>&1 && ok \
        || bad "the emitted function left memory behind: $(cat "$tmp/leaves.out")"
else
    bad "emitted_leaves does not build: $(head -c 400 "$tmp/cc")"
fi

# ---- the command
# the chosen algorithm is one of those predict ranks within the budget, and
# the budget leaves out some (a whole 24^4 tensor permuted takes 2.6 MB)
"$TCGEN" predict "$ring" a=b=c=d=e=f=24 --format tsv -q --reps 1 2>/dev/null \
    | awk -F'\t' 'NR > 1 && !/^#/ {print $2}' | sort >"$tmp/all"
for w in 0 1M; do
    "$TCGEN" "$ring" a=b=c=d=e=f=24 --workspace "$w" -o "$tmp/w$w.c" 2>"$tmp/err" \
        && ok || bad "main job --workspace $w: $(cat "$tmp/err")"
    chosen=$(sed -n 's/^tcgen: \([^,]*\), .*/\1/p' "$tmp/err" | tail -1)
    "$TCGEN" predict "$ring" a=b=c=d=e=f=24 --workspace "$w" --format tsv -q --reps 1 2>/dev/null \
        | awk -F'\t' 'NR > 1 && !/^#/ {print $2}' | sort >"$tmp/within"
    [ -n "$chosen" ] && grep -qxF -- "$chosen" "$tmp/within" && ok \
        || bad "main job --workspace $w chose '$chosen', not a candidate within the budget"
    [ "$(comm -23 "$tmp/all" "$tmp/within" | wc -l)" -gt 0 ] && ok \
        || bad "--workspace $w left out no algorithm of the ring term at 24^4"
done
grep -q "malloc(" "$tmp/w0.c" && bad "main job --workspace 0: the emitted code allocates" || ok
TCGEN_WORKSPACE=0 "$TCGEN" "$ring" a=b=c=d=e=f=24 -q -o "$tmp/e0.c" 2>"$tmp/err" \
    && ! grep -q "malloc(" "$tmp/e0.c" && ok || bad "TCGEN_WORKSPACE=0: temporaries allocated"
"$TCGEN" "$ring" a=b=c=d=e=f=24 --workspace 12MB -o "$tmp/x.c" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "usage: --workspace needs a byte count.*not '12MB'" "$tmp/err" && ok \
    || bad "--workspace 12MB: usage error expected: $(cat "$tmp/err")"
TCGEN_WORKSPACE=lots "$TCGEN" "$ring" a=b=c=d=e=f=24 -o "$tmp/x.c" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "TCGEN_WORKSPACE is 'lots'" "$tmp/err" && ok \
    || bad "TCGEN_WORKSPACE=lots: usage error expected: $(cat "$tmp/err")"
"$TCGEN" list "$ring" a=b=c=d=e=f=24 --workspace 0 --format tsv >"$tmp/list" 2>"$tmp/err" \
    && grep -qE "^# [0-9]+ algorithms are not candidates: their temporaries need more than the 0 bytes of --workspace$" "$tmp/list" \
    && ok || bad "list --workspace 0: no '#' line counting the algorithms over it"
TCGEN_WORKSPACE=1G "$TCGEN" list "$ring" a=b=c=d=e=f=24 --format tsv >"$tmp/list" 2>"$tmp/err" \
    && ! grep -q "not candidates" "$tmp/list" && ok \
    || bad "list with TCGEN_WORKSPACE=1G: algorithms over the budget at 24^4"
"$TCGEN" predict "$ring" a=b=c=d=e=f=8 --workspace 0 --format tsv -q >"$tmp/pred" 2>"$tmp/err" \
    && ! grep -q "\^" "$tmp/pred" && ok || bad "predict --workspace 0 ranked a permuted algorithm"
finish "workspace"
