#!/usr/bin/env bash
# The progress lines of `nqueens count N -t T --progress-every E`, each stamped as it arrives,
# against the time the run really went on: prints every line as
# "N  T  seconds-in  share%  units-done/units  eta-shown  real-left" (tab-separated).
# Usage: check.sh BIN N:T[:E] ...   (E defaults to 0.5)
set -euo pipefail
bin=$1
shift
now() { date +%s.%N; }
for run in "$@"; do
    IFS=: read -r n t every <<<"$run"
    every=${every:-0.5}
    log=$(mktemp)
    start=$(now)
    "$bin" count "$n" -t "$t" --progress-every "$every" 2>&1 >/dev/null |
        while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log"
    end=$(now)
    awk -v n="$n" -v t="$t" -v start="$start" -v end="$end" '
        function secs(c,   p) { split(c, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
        / progress: / {
            eta = $NF
            if (eta != "?") eta = ($(NF - 1) ~ /d$/) ? "days" : secs(eta)
            printf "%s\t%s\t%.2f\t%s\t%s\t%s\t%.2f\n", n, t, $1 - start, $4, $9, eta, end - $1
        }' "$log"
    rm -f "$log"
done
