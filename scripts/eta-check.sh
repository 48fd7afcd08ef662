#!/usr/bin/env bash
# How right the progress ETA is (issue #14): runs `nqueens count N -t T --progress` for each
# N:T given (default 18:1 18:2 19:1 19:2), stamps every progress line as it arrives, and
# compares the ETA each line predicts with the time the run really went on after it.
#
#   scripts/eta-check.sh [N:T ...]        EVERY=SECS (progress interval, default 2)
#                                         OUT=DIR (default results/<date>-eta)
#                                         METHOD=M (--method M; default: the default method)
#                                         RESUME=SHARE (see below)
#                                         BIN=PATH (this binary, not a fresh release build)
#
# With RESUME=SHARE (for example 0.5), each run is a resumed one (issue 22): the count runs with
# --checkpoint until its progress shows SHARE of the work, is stopped there by SIGINT, and the
# same command resumes it; the resumed run's lines are judged from its first line on, since the
# ETA right after a resume is what is checked.
#
# Appends to OUT/lines.tsv (every line: run, seconds since start, share shown, predicted and
# real seconds left, relative error) and OUT/summary.md (per run: the largest and the mean
# relative error of the lines from a fifth of the run on, the load of the machine before and
# after), writing their headers when they are new.
# Lines with under MIN_LEFT seconds really left (default 5) are listed but not judged: the ETA
# is shown in whole seconds. The target is |error| <= 25 %.
set -euo pipefail
cd "$(dirname "$0")/.."
every=${EVERY:-2}
min_left=${MIN_LEFT:-5}
method=${METHOD:-}
resume=${RESUME:-}
method_args=()
[ -z "$method" ] || method_args=(--method "$method")
out=${OUT:-results/$(date -u +%Y-%m-%d)-eta}
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(18:1 18:2 19:1 19:2)
bin=${BIN:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=target/release/nqueens
fi
mkdir -p "$out"
lines=$out/lines.tsv
summary=$out/summary.md
[ -e "$lines" ] ||
    printf 'n\tthreads\tat_s\tshown_pct\tpredicted_left_s\treal_left_s\terror\n' >"$lines"
[ -e "$summary" ] || echo "# ETA check: predicted against real time left" >"$summary"
{
    echo
    echo "\`${resume:+RESUME=$resume }${method:+METHOD=$method }scripts/eta-check.sh ${runs[*]}\` with --progress-every $every, $(date -u '+%Y-%m-%d %H:%M UTC'),"
    echo "$(nproc) logical cores, commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' (src modified)')${BIN:+, binary $BIN}."
    if [ -n "$resume" ]; then
        echo "Each run resumed after a stop at $resume of the work; judged: the resumed run's lines with at least $min_left s really left."
    else
        echo "Judged: the lines from a fifth of the run on with at least $min_left s really left."
    fi
    echo
    echo "| N | threads | run (s) | lines judged | max \|error\| | mean \|error\| | worst line (at s: predicted / real left) | load before → after |"
    echo "|---|---|---|---|---|---|---|---|"
} >>"$summary"
now() { date +%s.%N; }
for run in "${runs[@]}"; do
    n=${run%:*}
    t=${run#*:}
    ckpt_args=()
    from=0.2
    if [ -n "$resume" ]; then
        ckpt=$(mktemp -u --suffix=.ckpt)
        ckpt_args=(--checkpoint "$ckpt")
        from=0
        first=$(mktemp)
        # The first part: progress lines every half second into a file, watched until they
        # show the share asked for; then SIGINT to this count's own process ID.
        "$bin" count "$n" -t "$t" "${method_args[@]}" "${ckpt_args[@]}" --progress \
            --progress-every 0.5 2>"$first" >/dev/null &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            share=$(sed -n 's/.*progress: \([0-9.]*\)%.*/\1/p' "$first" | tail -n 1)
            if [ -n "$share" ] && awk -v s="$share" -v r="$resume" 'BEGIN { exit !(s >= 100 * r) }'; then
                kill -INT "$pid"
                break
            fi
            sleep 0.2
        done
        wait "$pid" || true
        grep -h 'stopped by signal' "$first" || { echo "the count ended before $resume of it" >&2; exit 1; }
        rm -f "$first"
    fi
    load0=$(cut -d' ' -f1 /proc/loadavg)
    log=$(mktemp)
    start=$(now)
    # stderr (the progress lines) through the stamping loop, the count itself discarded.
    "$bin" count "$n" -t "$t" "${method_args[@]}" "${ckpt_args[@]}" --progress --progress-every "$every" 2>&1 >/dev/null |
        while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log"
    end=$(now)
    [ -z "$resume" ] || rm -f "$ckpt" "$ckpt.lock"
    load1=$(cut -d' ' -f1 /proc/loadavg)
    awk -v n="$n" -v t="$t" -v start="$start" -v end="$end" -v min_left="$min_left" -v from="$from" \
        -v lines="$lines" -v load="$load0 → $load1" '
        function secs(c,   p, k) {  # h:mm:ss or Nd h:mm:ss
            k = split(c, p, ":")
            return p[1] * 3600 + p[2] * 60 + p[3]
        }
        / ETA / {
            at = $1 - start
            pct = $4; sub(/%/, "", pct)
            eta = $NF
            if ($(NF - 1) ~ /d$/) { d = $(NF - 1); sub(/d/, "", d); eta_s = d * 86400 + secs(eta) }
            else if (eta == "?") next
            else eta_s = secs(eta)
            real = end - $1
            err = real > 0 ? (eta_s - real) / real : 0
            printf "%s\t%s\t%.2f\t%s\t%d\t%.2f\t%.4f\n", n, t, at, pct, eta_s, real, err >> lines
            if (at >= from * (end - start) && real >= min_left) {
                judged++
                a = err < 0 ? -err : err
                sum += a
                if (a > worst) { worst = a; wl = sprintf("%.0f: %d / %.1f", at, eta_s, real) }
            }
        }
        END {
            run = end - start
            if (judged) printf "| %s | %s | %.1f | %d | %.1f %% | %.1f %% | %s | %s |\n", n, t, run, judged, 100 * worst, 100 * sum / judged, wl, load
            else printf "| %s | %s | %.1f | 0 | – | – | – | %s |\n", n, t, run, load
        }' "$log" >>"$summary"
    rm -f "$log"
    tail -n 1 "$summary"
done
echo "wrote $summary and $lines"
