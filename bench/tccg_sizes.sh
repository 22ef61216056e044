#!/usr/bin/env bash
# tccg_sizes.sh [BYTES] - bench/tccg.txt as tcgen input, one line per
# contraction: GROUP<TAB>SPEC<TAB>CONTRACTION<TAB>SIZES (SPEC as in the
# list, C-A-B). Sizes follow TCCG's rule,
# scaled so the largest tensor holds about BYTES (default 16 MiB) of
# doubles: every index near the same size s = (BYTES/8)^(1/largest rank),
# a first (stride-1) index rounded up to a multiple of 24, the others to
# the nearest multiple of 4; intensli's j is 24.
set -euo pipefail
cd "$(dirname "$0")/.."
BYTES=${1:-16777216}
grep -v '^#' bench/tccg.txt | awk -v bytes="$BYTES" '
{
    group = $1; split($2, t, "-")
    rank = 0
    for (k = 1; k <= 3; k++) if (length(t[k]) > rank) rank = length(t[k])
    s = exp(log(bytes / 8) / rank)
    delete size; list = ""
    for (k = 1; k <= 3; k++)
        for (p = 1; p <= length(t[k]); p++) {
            c = substr(t[k], p, 1)
            if (c in size) continue
            first = 0
            for (q = 1; q <= 3; q++) if (substr(t[q], 1, 1) == c) first = 1
            if (group == "intensli" && c == "j") v = 24
            else if (first) v = int((s + 23) / 24) * 24
            else { up = int((s + 3) / 4) * 4; down = int(s / 4) * 4; if (down < 4) down = 4
                   v = (up - s < s - down) ? up : down }
            size[c] = v; list = list (list == "" ? "" : ",") c "=" v
        }
    printf "%s\t%s\tC_%s = A_%s B_%s\t%s\n", group, $2, t[1], t[2], t[3], list
}'
