#!/usr/bin/env bash
# How right the progress of `nqueens bench` is (issue 22 item 2): runs `nqueens bench --progress`
# with the arguments given (default: none, the default open range), stamps every progress line
# as it arrives, and compares the share and the ETA each line shows with the time the run really
# went on after it.
#
#   scripts/bench-eta-check.sh [BENCH ARGS...]    OUT=DIR (default results/<date>-bench-eta)
#                                                 BIN=PATH (this binary, not a fresh build)
#
# Writes OUT/lines.tsv (every line: seconds since start, share shown, share of the real run,
# predicted and real seconds left, relative error of the ETA), OUT/bench/ (the benchmark's own
# files) and OUT/summary.md (the largest and mean |error| of the lines from a fifth of the run on
# with at least 10 s left, and the load before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-results/$(date -u +%Y-%m-%d)-bench-eta}
bin=${BIN:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=target/release/nqueens
fi
mkdir -p "$out"
[ ! -e "$out/bench" ] || { echo "$out/bench exists" >&2; exit 2; }
load0=$(cut -d' ' -f1 /proc/loadavg)
log=$(mktemp)
now() { date +%s.%N; }
start=$(now)
"$bin" bench --progress --out "$out/bench" "$@" 2>&1 >/dev/null |
    while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log"
end=$(now)
load1=$(cut -d' ' -f1 /proc/loadavg)
printf 'at_s\tshown_pct\treal_pct\tpredicted_left_s\treal_left_s\terror\n' >"$out/lines.tsv"
awk -v start="$start" -v end="$end" -v lines="$out/lines.tsv" -v load="$load0 → $load1" '
    function secs(c,   p) { split(c, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
    / ETA / {
        at = $1 - start
        pct = $4; sub(/%/, "", pct)
        for (i = 1; i <= NF; i++) if ($i == "ETA") { eta = $(i + 1); sub(/,$/, "", eta) }
        eta_s = secs(eta)
        real = end - $1
        err = real > 0 ? (eta_s - real) / real : 0
        printf "%.1f\t%s\t%.1f\t%d\t%.1f\t%.4f\n", at, pct, 100 * at / (end - start), eta_s, real, err >> lines
        if (at >= 0.2 * (end - start) && real >= 10) {
            judged++; a = err < 0 ? -err : err; sum += a
            if (a > worst) { worst = a; wl = sprintf("%.0f: %d / %.0f", at, eta_s, real) }
        }
    }
    END {
        printf "run %.0f s, %d lines judged, max |error| %.1f %%, mean %.1f %%, worst line (at s: predicted / real left) %s, load %s\n",
            end - start, judged, 100 * worst, judged ? 100 * sum / judged : 0, wl, load
    }' "$log" | tee "$out/summary.md"
rm -f "$log"
