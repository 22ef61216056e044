#!/usr/bin/env bash
# kernels_test.sh - the right BLAS kernels, as a user on a machine whose
# OpenBLAS picks slow ones meets them: with OPENBLAS_CORETYPE=Prescott
# forced (SSE3 kernels), tcgen info reports the kernel set, its rate
# against the CPU's FMA peak and the faster set measured; --blas auto
# ranks with the faster set and the emitted header names it; a kernel set
# the CPU cannot run is refused with the list it can. In a temporary
# cache directory. Ends with "kernels_test: N passed, N failed". No
# assertion on time beyond what the profile itself decides.
set -u
TCGEN=${TCGEN:-build/tcgen}
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
has() { grep -q -- "$2" "$1" && ok || bad "$3: no '$2' in $(head -c 900 "$1")"; }

export XDG_CACHE_HOME="$tmp/cache" TCGEN_THREADS=1
"$TCGEN" info --format tsv >"$tmp/info" 2>"$tmp/err" && ok || bad "info: $(cat "$tmp/err")"
has "$tmp/info" "^# cpu_peak_gflops [0-9.e+]* (\(avx512\|avx2\|sse2\|scalar\) FMA loop" "info peak"
if ! grep -q "^# kernel_gflops \(Haswell\|Zen\|SkylakeX\|Cooperlake\|Sandybridge\) " "$tmp/info"; then
    echo "kernels_test: OpenBLAS has no kernel set here wider than SSE; nothing to compare" >&2
    ok
else
    # 1. Prescott forced: info says so and names the faster set it measured.
    OPENBLAS_CORETYPE=Prescott "$TCGEN" info --format tsv >"$tmp/slow" 2>"$tmp/err" && ok \
        || bad "info (Prescott): $(cat "$tmp/err")"
    has "$tmp/slow" "^# blas_kernels Prescott" "Prescott kernels"
    has "$tmp/slow" "^# note OpenBLAS runs its Prescott kernels: dgemm [0-9.]* GFLOP/s, [0-9.]* of the CPU's .* FMA peak .*; its [A-Za-z]* kernels measured [0-9.]* ([0-9.]*x): set OPENBLAS_CORETYPE=[A-Za-z]*, or --blas auto" "slow-kernels note"
    better=$(sed -n 's/.*set OPENBLAS_CORETYPE=\([A-Za-z]*\),.*/\1/p' "$tmp/slow" | head -n 1)

    # 2. --blas auto ranks with it (or with BLIS, where its profile measured
    #    it clearly faster still); the emitted header says how to run it.
    OPENBLAS_CORETYPE=Prescott "$TCGEN" 'C[i,j] = A[i,k] * B[k,j]' i=j=k=64 --blas auto \
        -o "$tmp/auto.c" 2>"$tmp/err" && ok || bad "auto: $(cat "$tmp/err")"
    if grep -q "^ \*   on .* blis " "$tmp/auto.c"; then
        ok
    else
        has "$tmp/auto.c" "run with     OpenBLAS and OPENBLAS_CORETYPE=$better in the environment" "auto header"
        has "$tmp/auto.c" "openblas:$better" "auto setup line"
    fi
    grep -q "^ \* warning" "$tmp/auto.c" && bad "auto header warns of slow kernels" || ok
    # the same choice named by hand, and the kernels it runs checked
    "$TCGEN" info --blas "openblas:$better" --format tsv >"$tmp/named" 2>"$tmp/err" && ok \
        || bad "info --blas openblas:$better: $(cat "$tmp/err")"
    has "$tmp/named" "^# blas_kernels $better" "named kernels"
fi

# 3. A kernel set this CPU does not run, or that does not exist: refused.
"$TCGEN" info --blas openblas:Pentium4000 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 3 ] && ok || bad "openblas:Pentium4000 not refused with exit 3"
has "$tmp/err" "this CPU runs OpenBLAS's kernel sets" "refusal lists the sets"

finish kernels_test
