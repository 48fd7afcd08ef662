#!/usr/bin/env bash
# The project's timing runs, one subcommand each (they were six scripts: bench.sh, bench-edge.sh,
# bench-kernels.sh, bench-solutions.sh, eta-check.sh, bench-eta-check.sh). Every subcommand builds
# the release binary first, unless BIN=PATH names one to time instead. Run them on an otherwise
# idle machine: each records the load average beside its figures.
#
#   scripts/timing.sh bench [OUT_DIR] [BENCH ARGS...]
#       The committed scaling benchmark: `nqueens bench` with its defaults (N from 10 within a
#       10-minute budget, up to the N whose run on the most threads lasts a second; threads 1, 2,
#       4, ... up to the logical cores; the default method and mirror; 3 runs each, a count under
#       10 ms repeated within its run to 50 ms) into results/<date>-<host>/ (or -2, -3, ... when
#       that holds an earlier run), or into OUT_DIR. Extra arguments go to `nqueens bench`.
#
#   scripts/timing.sh edge BASE_BINARY [REPS] [OUT_DIR]
#       The edge method against d4 (issue 13): `count N --unique -t T` for (N, T) = (17, 1),
#       (17, 2), (18, 1), each with BASE_BINARY (a build of 976a6be, whose default is d4), this
#       build with --method d4 and with --method edge. REPS (default 5) into OUT_DIR (default
#       results/<date>-edge).
#
#   scripts/timing.sh kernels [REPS] [OUT_DIR]
#       The CPU kernels on one thread (issue 21): `count N [--unique] -t 1 --kernel K` for N = 17
#       and 18, unique and total, every kernel this processor has among dfs, portable, avx2,
#       avx512 and neon. REPS (default 3) into OUT_DIR (default results/<date>-kernels).
#
#   scripts/timing.sh model [REPS] [OUT_DIR]
#       The counts the CPU-time model (`src/longrun/estimate.rs`) is fitted on and judged by,
#       interleaved, with each count's own estimate (`estimated_cpu_s` of --json): the default
#       method with --unique on the fastest kernel, one thread, N = 16 to 19, and N = 20 on
#       every core (CPU time: user seconds); every method, unique and total, and every kernel
#       this processor has, at N = 17 on one thread; `list N` to /dev/null in the columns and
#       board formats, N = 14 to 16, one thread. REPS (default 3) into OUT_DIR (default
#       results/<date>-cpu-model).
#
#   scripts/timing.sh listing-model [REPS] [OUT_DIR]
#       The listings of `model` alone (their user time per solution and per byte is the listing
#       estimate's), REPS (default 3) into OUT_DIR (default results/<date>-listing-model).
#
#   scripts/timing.sh solutions
#       Speed and memory of the solution paths (issue 3): `solve 10000000` and `list 16` on one
#       thread and on every core, output to /dev/null; wall, CPU and peak RSS of each of RUNS
#       runs (default 3), printed.
#
#   scripts/timing.sh listing [REPS] [OUT_DIR]
#       A listing against its pipe (issue 35): `list N -t T | wc -c` for T in TS (default 1 2)
#       against `cat FILE | wc -c` of the same bytes (FILE written once by `list N -t 1` and
#       compared with every T's listing first), for N in NS (default 14 15 16), each command in
#       the same pipe into `wc -c`, interleaved, REPS repetitions (default 5) into OUT_DIR
#       (default results/<date>-listing-speed): raw.tsv (wall, user and system seconds, the
#       load before each run, the bytes counted), rss.tsv (each listing's peak RSS, from its
#       comparison run, where GNU time is at /usr/bin/time) and summary.md (medians; each -t T
#       against cat and -t 1 against each -t T, as ratios of the medians and as medians of the
#       ratios of each repetition's runs, which run back to back). A control runs with them
#       (PAIR=0 leaves it out): two `list N -t 1 | wc -c` at once ("pair"), the same work twice
#       on separate processes, no thread of one waiting for the other; 2 x (-t 1) / pair is
#       what the machine gives two single-thread listings at that hour, the ceiling of -t 2's
#       ratio there (on a VM, the cores' speed with both busy varies with the neighbours).
#
#   scripts/timing.sh eta [N:T ...]
#       How right the ETA of `count` is (issues 14 and 22): `count N -t T --progress` for each N:T
#       (default 18:1 18:2 19:1 19:2), every progress line stamped as it arrives and its ETA
#       compared with the time the run really went on after it. EVERY=SECS (progress interval,
#       default 2), METHOD=M (--method M), MIN_LEFT=SECS (lines with less really left are listed
#       but not judged, default 5), RESUME=SHARE (each count is stopped by SIGINT once it shows
#       SHARE of the work, and the resumed run is judged from its first line). OUT=DIR (default
#       results/<date>-eta).
#
#   scripts/timing.sh bench-eta [BENCH ARGS...]
#       The same for the progress of `nqueens bench --progress` with the arguments given (issue
#       22 item 2); its own files go to OUT/bench. OUT=DIR (default results/<date>-bench-eta).
#
# The interleaved subcommands (edge, kernels) run every configuration once per repetition, one
# after the other, and write raw.tsv (wall and user seconds from /usr/bin/time, the load before
# each run, the output) and summary.md (medians, spreads, and each variant's time against the
# configuration's first one). The ETA subcommands append to lines.tsv (every line) and
# summary.md (per run: the largest and the mean |error| of the lines judged: from a fifth of the
# run on, with at least MIN_LEFT s really left; the target is 25 %).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

binary() {
    if [ -n "${BIN:-}" ]; then
        echo "$BIN"
    else
        cargo build --release --quiet
        echo target/release/nqueens
    fi
}

load() { cut -d' ' -f1 /proc/loadavg; }

# The subcommands that time with GNU time say so at once where it is missing.
need_time() {
    [ -x /usr/bin/time ] ||
        { echo "timing.sh: $1 needs GNU time at /usr/bin/time (Debian, Ubuntu: apt-get install time)" >&2; exit 2; }
}

# interleave OUT REPS TITLE SPEC...: each SPEC is "CONFIG|VARIANT|COMMAND"; every repetition
# runs every command in turn. A COMMAND written `null:COMMAND` writes to /dev/null.
interleave() {
    local out=$1 reps=$2 title=$3
    shift 3
    need_time "$title"
    mkdir -p "$out"
    local raw=$out/raw.tsv tmp
    tmp=$(mktemp)
    printf 'rep\tconfig\tvariant\twall_s\tuser_s\tload1\toutput\n' >"$raw"
    for rep in $(seq "$reps"); do
        for spec in "$@"; do
            IFS='|' read -r config variant cmd <<<"$spec"
            local l times wall user sink=$tmp
            l=$(load)
            # A command marked `null:` writes to /dev/null (a listing: too long to keep).
            if [[ $cmd == null:* ]]; then
                cmd=${cmd#null:}
                sink=/dev/null
                : >"$tmp"
            fi
            # Word splitting of $cmd is meant: the commands are plain words.
            # shellcheck disable=SC2086
            times=$({ /usr/bin/time -f '%e %U' $cmd >"$sink"; } 2>&1)
            read -r wall user <<<"$times"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$config" "$variant" "$wall" "$user" \
                "$l" "$(tr '\n' ' ' <"$tmp")" >>"$raw"
        done
    done
    rm -f "$tmp"
    python3 - "$raw" "$title" >"$out/summary.md" <<'EOF'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
configs = list(dict.fromkeys(r[1] for r in rows))
variants = {c: list(dict.fromkeys(r[2] for r in rows if r[1] == c)) for c in configs}
def runs(c, v, i):
    return sorted(float(r[i]) for r in rows if (r[1], r[2]) == (c, v))
loads = [float(r[5]) for r in rows]
print(f"# {sys.argv[2]}, interleaved ({len({r[0] for r in rows})} repetitions)\n")
print(f"Load average (1 min) before the runs: min {min(loads):.2f}, median "
      f"{statistics.median(loads):.2f}, max {max(loads):.2f}.\n")
print("| configuration | variant | wall median (s) | wall min–max | user median (s) | user min–max |")
print("|---|---|---:|---|---:|---|")
med = {}
for c in configs:
    for v in variants[c]:
        w, u = runs(c, v, 3), runs(c, v, 4)
        med[(c, v)] = (statistics.median(w), statistics.median(u))
        print(f"| {c} | {v} | {med[(c, v)][0]:.3f} | {w[0]:.3f}–{w[-1]:.3f} "
              f"| {med[(c, v)][1]:.3f} | {u[0]:.3f}–{u[-1]:.3f} |")
print("\nRatios of medians: each variant's time ÷ the configuration's first variant's (below 1, "
      "it is faster).\n")
print("| configuration | ratio | wall | user |")
print("|---|---|---:|---:|")
for c in configs:
    first = variants[c][0]
    for v in variants[c][1:]:
        a, b = med[(c, v)], med[(c, first)]
        ratio = lambda x, y: f"{x / y:.3f}" if y > 0 else "–"
        print(f"| {c} | {v} / {first} | {ratio(a[0], b[0])} | {ratio(a[1], b[1])} |")
outputs = {(r[1], r[2]): set() for r in rows}
for r in rows:
    outputs[(r[1], r[2])].add(r[6].strip())
print("\nOutputs per configuration and variant (every run): " + "; ".join(
    f"{c} {v}: {', '.join(sorted(o))}" for (c, v), o in outputs.items()))
EOF
    cat "$out/summary.md"
}

# judge RUN_NAME N T FROM LINES SUMMARY START END LOAD LOG: the ETA of every stamped progress
# line of LOG (`TIME nqueens: WHAT: P% ..., ETA [Nd ]H:MM:SS[, ...]`, as `count` and `bench`
# write them) against the time really left; a row of SUMMARY for the run.
judge() {
    local n=$1 t=$2 from=$3 lines=$4 summary=$5 start=$6 end=$7 load=$8 log=$9
    awk -v n="$n" -v t="$t" -v start="$start" -v end="$end" -v min_left="${MIN_LEFT:-5}" \
        -v from="$from" -v lines="$lines" -v load="$load" '
        function secs(c,   p) { split(c, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
        / ETA / {
            at = $1 - start
            pct = $4; sub(/%/, "", pct)
            eta_s = -1
            for (i = 1; i < NF; i++) if ($i == "ETA") {
                e = $(i + 1); sub(/,$/, "", e)
                if (e ~ /d$/) { d = e; sub(/d/, "", d); e = $(i + 2); sub(/,$/, "", e); eta_s = d * 86400 + secs(e) }
                else if (e != "?") eta_s = secs(e)
            }
            if (eta_s < 0) next
            real = end - $1
            err = real > 0 ? (eta_s - real) / real : 0
            printf "%s\t%s\t%.2f\t%s\t%d\t%.2f\t%.4f\n", n, t, at, pct, eta_s, real, err >> lines
            if (at >= from * (end - start) && real >= min_left) {
                judged++; a = err < 0 ? -err : err; sum += a
                if (a > worst) { worst = a; wl = sprintf("%.0f: %d / %.1f", at, eta_s, real) }
            }
        }
        END {
            run = end - start
            if (judged) printf "| %s | %s | %.1f | %d | %.1f %% | %.1f %% | %s | %s |\n", n, t, run, judged, 100 * worst, 100 * sum / judged, wl, load
            else printf "| %s | %s | %.1f | 0 | – | – | – | %s |\n", n, t, run, load
        }' "$log" >>"$summary"
    tail -n 1 "$summary"
}

# eta_files OUT HEADER NOTE: lines.tsv and summary.md in OUT; the header of this call's table
# (what ran, then the date, the machine and the commit; NOTE says what is judged).
eta_files() {
    local out=$1
    mkdir -p "$out"
    [ -e "$out/lines.tsv" ] ||
        printf 'n\tthreads\tat_s\tshown_pct\tpredicted_left_s\treal_left_s\terror\n' >"$out/lines.tsv"
    [ -e "$out/summary.md" ] || echo "# ETA check: predicted against real time left" >"$out/summary.md"
    {
        echo
        echo "$2, $(date -u '+%Y-%m-%d %H:%M UTC'),"
        echo "$(nproc) logical cores, commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src || echo ' (src modified)')${BIN:+, binary $BIN}."
        echo "$3"
        echo
        echo "| N | threads | run (s) | lines judged | max \|error\| | mean \|error\| | worst line (at s: predicted / real left) | load before → after |"
        echo "|---|---|---|---|---|---|---|---|"
    } >>"$out/summary.md"
}

now() { date +%s.%N; }

# stamped LOG COMMAND...: runs COMMAND with its stderr (the progress lines) stamped into LOG and
# its stdout discarded; prints the start and end times.
stamped() {
    local log=$1 start
    shift
    start=$(now)
    "$@" 2>&1 >/dev/null | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$log"
    echo "$start $(now)"
}

cmd_bench() {
    local bin out=()
    bin=$(binary)
    if [[ $# -gt 0 && $1 != --* ]]; then
        out=(--out "$1")
        shift
    fi
    "$bin" bench "${out[@]}" "$@"
}

cmd_edge() {
    local base=${1:?usage: scripts/timing.sh edge BASE_BINARY [REPS] [OUT_DIR]} bin specs=()
    bin=$(binary)
    for cfg in "17 1" "17 2" "18 1"; do
        read -r n t <<<"$cfg"
        specs+=("N = $n, $t thread(s)|976a6be d4|$base count $n --unique -t $t"
            "N = $n, $t thread(s)|d4|$bin count $n --unique -t $t --method d4"
            "N = $n, $t thread(s)|edge|$bin count $n --unique -t $t --method edge")
    done
    interleave "${3:-results/$(date +%F)-edge}" "${2:-5}" "Edge vs d4" "${specs[@]}"
}

cmd_kernels() {
    local bin kernels=() specs=()
    bin=$(binary)
    for k in dfs portable avx2 avx512 neon; do
        if "$bin" count 4 --kernel "$k" >/dev/null 2>&1; then kernels+=("$k"); fi
    done
    for cfg in "17 unique" "17 total" "18 unique" "18 total"; do
        read -r n mode <<<"$cfg"
        local flag=""
        [ "$mode" = unique ] && flag=--unique
        for k in "${kernels[@]}"; do
            specs+=("N = $n, $mode|$k|$bin count $n $flag -t 1 --kernel $k")
        done
    done
    interleave "${2:-results/$(date +%F)-kernels}" "${1:-3}" "CPU kernels on one thread" "${specs[@]}"
}

cmd_model() {
    local bin best kernels=() specs=() cores
    bin=$(binary)
    cores=$(nproc)
    best=$("$bin" count 4 --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["kernel"])')
    for k in dfs portable avx2 avx512 neon; do
        if "$bin" count 4 --kernel "$k" >/dev/null 2>&1; then kernels+=("$k"); fi
    done
    for n in 16 17 18 19; do
        specs+=("edge --unique, N = $n, 1 thread|$best|$bin count $n --unique -t 1 --json")
    done
    specs+=("edge --unique, N = 20, $cores threads|$best|$bin count 20 --unique -t $cores --json")
    for m in edge d4 mirror plain; do
        for flag in --unique ""; do
            specs+=("$m ${flag:-total}, N = 17, 1 thread|$best|$bin count 17 $flag -t 1 --method $m --json")
        done
    done
    for k in "${kernels[@]}"; do
        [ "$k" = "$best" ] || specs+=("edge --unique, N = 17, 1 thread, $k|$k|$bin count 17 --unique -t 1 --kernel $k --json")
    done
    mapfile -t -O "${#specs[@]}" specs < <(listing_specs "$bin")
    local out=${2:-results/$(date +%F)-cpu-model}
    interleave "$out" "${1:-3}" "CPU-time model: counts and listings" "${specs[@]}"
}

# listing_specs BIN: the listings the model's time per solution and per byte are fitted on.
listing_specs() {
    for n in 14 15 16; do
        for f in columns board; do
            echo "list $n --format $f, 1 thread|$f|null:$1 list $n --format $f -t 1"
        done
    done
}

cmd_listing_model() {
    local bin specs
    bin=$(binary)
    mapfile -t specs < <(listing_specs "$bin")
    interleave "${2:-results/$(date +%F)-listing-model}" "${1:-3}" \
        "The listing estimate's model: listings to /dev/null" "${specs[@]}"
}

cmd_solutions() {
    local bin runs=${RUNS:-3}
    need_time solutions
    bin=$(binary)
    echo "machine: $(nproc) logical cores, $(uname -srm); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "solve 10000000 --format columns: %e s wall, %U s user, %M KiB max RSS" \
            "$bin" solve 10000000 --format columns >/dev/null
    done
    for _ in $(seq "$runs"); do
        for t in 1 "$(nproc)"; do
            /usr/bin/time -f "list 16 --format columns -t $t: %e s wall, %U s user, %M KiB max RSS (14772512 solutions)" \
                "$bin" list 16 --format columns -t "$t" >/dev/null
        done
    done
}

# piped RAW REP N VARIANT COMMAND [PAIR]: one run of `COMMAND | wc -c` (a shell pipe), a row
# of RAW: wall seconds (a monotonic clock around the shell), the user and system seconds of the
# shell and what it waited for (wait4: no process of the harness's own in the timed pipe), the
# load, the bytes. With PAIR, a second `COMMAND | wc -c` runs at the same time (the bytes: both
# counts).
piped() {
    local raw=$1 rep=$2 n=$3 variant=$4 cmd=$5 l line
    l=$(load)
    line="$cmd | wc -c"
    [[ -z ${6:-} ]] || line="$line & $cmd | wc -c; wait"
    python3 - "$line" "$rep" "$n" "$variant" "$l" >>"$raw" <<'EOF'
import os, subprocess, sys, time
cmd, rep, n, variant, load = sys.argv[1:]
start = time.perf_counter()
p = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE)
out = p.stdout.read()
_, status, use = os.wait4(p.pid, 0)
wall = time.perf_counter() - start
assert status == 0, f"{cmd}: status {status}"
print("\t".join([rep, n, variant, f"{wall:.4f}", f"{use.ru_utime:.4f}", f"{use.ru_stime:.4f}",
                 load, "+".join(out.decode().split())]))
EOF
}

cmd_listing() {
    local bin reps=${1:-5} out=${2:-results/$(date +%F)-listing-speed} dir raw rss
    local ns=${NS:-14 15 16} ts=${TS:-1 2}
    bin=$(binary)
    dir=$(mktemp -d)
    mkdir -p "$out"
    raw=$out/raw.tsv rss=$out/rss.tsv
    printf 'rep\tn\tvariant\twall_s\tuser_s\tsys_s\tload1\tbytes\n' >"$raw"
    printf 'n\tvariant\tmax_rss_kib\n' >"$rss"
    # The peak RSS of each listing comes from its comparison run (through a pipe too), with GNU
    # time where there is one; the timed runs below have nothing between the shell and COMMAND.
    local time=()
    [ -x /usr/bin/time ] && time=(/usr/bin/time -f %M -o "$dir/rss")
    for n in $ns; do
        "$bin" list "$n" -t 1 >"$dir/$n"
        for t in $ts; do
            "${time[@]}" "$bin" list "$n" -t "$t" | cmp -s - "$dir/$n" ||
                { echo "list $n -t $t differs from list $n -t 1" >&2; exit 1; }
            [ ${#time[@]} -eq 0 ] || printf '%s\t-t %s\t%s\n' "$n" "$t" "$(cat "$dir/rss")" >>"$rss"
        done
    done
    for rep in $(seq "$reps"); do
        for n in $ns; do
            piped "$raw" "$rep" "$n" cat "cat $dir/$n"
            for t in $ts; do
                piped "$raw" "$rep" "$n" "-t $t" "$bin list $n -t $t"
            done
            [[ ${PAIR:-1} == 0 ]] || piped "$raw" "$rep" "$n" pair "$bin list $n -t 1" pair
        done
    done
    rm -rf "$dir"
    python3 - "$raw" "$rss" >"$out/summary.md" <<'EOF'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
rss_of = {(r[0], r[1]): int(r[2]) for r in
          (l.rstrip('\n').split('\t') for l in list(open(sys.argv[2]))[1:])}
ns = list(dict.fromkeys(r[1] for r in rows))
variants = list(dict.fromkeys(r[2] for r in rows))
def runs(n, v, f):
    return [f(r) for r in rows if (r[1], r[2]) == (n, v)]
wall = lambda r: float(r[3])
cpu = lambda r: float(r[4]) + float(r[5])
loads = [float(r[6]) for r in rows]
print(f"# A listing against its pipe, interleaved ({len({r[0] for r in rows})} repetitions)\n")
print(f"Load average (1 min) before the runs: min {min(loads):.2f}, median "
      f"{statistics.median(loads):.2f}, max {max(loads):.2f}.\n")
print("| N | command | bytes | wall median (s) | wall min–max | CPU median (s) | peak RSS (MiB) |")
print("|---:|---|---:|---:|---|---:|---:|")
for n in ns:
    for v in variants:
        w = sorted(runs(n, v, wall))
        c = statistics.median(runs(n, v, cpu))
        rss = f"{rss_of[(n, v)] / 1024:.1f}" if (n, v) in rss_of else "–"
        b = set(runs(n, v, lambda r: r[7]))
        cmd = {"cat": "cat FILE", "pair": f"list {n} -t 1"}.get(v, f"list {n} {v}")
        cmd = f"`{cmd} \\| wc -c`" + (" twice at once" if v == "pair" else "")
        print(f"| {n} | {cmd} | {', '.join(sorted(b))} | {statistics.median(w):.3f} "
              f"| {w[0]:.3f}–{w[-1]:.3f} | {c:.3f} | {rss} |")
print("\nWall-time ratios: of the medians, and the median of each repetition's own ratio.\n")
print("| N | ratio | of medians | median of ratios |")
print("|---:|---|---:|---:|")
def paired(n, a, b, times=1):
    by = lambda v: {r[0]: wall(r) for r in rows if (r[1], r[2]) == (n, v)}
    x, y = by(a), by(b)
    r = [times * x[k] / y[k] for k in x if k in y and y[k] > 0]
    return f"{statistics.median(r):.2f}" if r else "–"
for n in ns:
    med = {v: statistics.median(runs(n, v, wall)) for v in variants}
    lists = [v for v in variants if v not in ("cat", "pair")]
    pairs = [(v, "cat") for v in lists] + [(lists[0], v) for v in lists[1:]]
    for a, b in pairs:
        ratio = f"{med[a] / med[b]:.2f}" if med[b] > 0 else "–"
        print(f"| {n} | {a} ÷ {b} | {ratio} | {paired(n, a, b)} |")
    if "pair" in med and med["pair"] > 0:
        # Two one-thread listings at once: the same work twice, nothing shared.
        print(f"| {n} | 2 × ({lists[0]}) ÷ pair: the two cores' ceiling | "
              f"{2 * med[lists[0]] / med['pair']:.2f} | {paired(n, lists[0], 'pair', 2)} |")
if "pair" in variants:
    print("\nThe ceiling: what two single-thread listings get from the machine at once, as a "
          "speed-up over one; about the most a listing on two threads can get (the same work, "
          "with one process start where the pair has two side by side).")
EOF
    cat "$out/summary.md"
}

cmd_eta() {
    local bin out=${OUT:-results/$(date -u +%Y-%m-%d)-eta} every=${EVERY:-2} resume=${RESUME:-}
    local runs=("$@") method=() note="Judged: the lines from a fifth of the run on with at least ${MIN_LEFT:-5} s really left."
    bin=$(binary)
    [ ${#runs[@]} -gt 0 ] || runs=(18:1 18:2 19:1 19:2)
    [ -z "${METHOD:-}" ] || method=(--method "$METHOD")
    [ -z "$resume" ] || note="Each run resumed after a stop at $resume of the work; judged: the resumed run's lines with at least ${MIN_LEFT:-5} s really left."
    eta_files "$out" "\`${resume:+RESUME=$resume }${METHOD:+METHOD=$METHOD }scripts/timing.sh eta ${runs[*]}\` with --progress-every $every" "$note"
    for run in "${runs[@]}"; do
        local n=${run%:*} t=${run#*:} ckpt=() from=0.2 log start end load0
        if [ -n "$resume" ]; then
            ckpt=(--checkpoint "$(mktemp -u --suffix=.ckpt)")
            from=0
            resume_part "$bin" "$resume" count "$n" -t "$t" "${method[@]}" "${ckpt[@]}"
        fi
        load0=$(load)
        log=$(mktemp)
        read -r start end < <(stamped "$log" "$bin" count "$n" -t "$t" "${method[@]}" "${ckpt[@]}" --progress --progress-every "$every")
        [ -z "$resume" ] || rm -f "${ckpt[1]}" "${ckpt[1]}.lock"
        judge "$n" "$t" "$from" "$out/lines.tsv" "$out/summary.md" "$start" "$end" "$load0 → $(load)" "$log"
        rm -f "$log"
    done
    echo "wrote $out/summary.md and $out/lines.tsv"
}

# resume_part BIN SHARE ARGS...: the first part of a resumed run: `BIN ARGS --progress`, its
# lines watched until they show SHARE of the work, then SIGINT to its own process ID.
resume_part() {
    local bin=$1 share=$2 first pid shown
    shift 2
    first=$(mktemp)
    "$bin" "$@" --progress --progress-every 0.5 2>"$first" >/dev/null &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        shown=$(sed -n 's/.*progress: \([0-9.]*\)%.*/\1/p' "$first" | tail -n 1)
        if [ -n "$shown" ] && awk -v s="$shown" -v r="$share" 'BEGIN { exit !(s >= 100 * r) }'; then
            kill -INT "$pid"
            break
        fi
        sleep 0.2
    done
    wait "$pid" || true
    grep -h 'stopped by signal' "$first" || { echo "the count ended before $share of it" >&2; exit 1; }
    rm -f "$first"
}

cmd_bench_eta() {
    local bin out=${OUT:-results/$(date -u +%Y-%m-%d)-bench-eta} log start end load0
    bin=$(binary)
    [ ! -e "$out/bench" ] || { echo "$out/bench exists" >&2; exit 2; }
    eta_files "$out" "\`scripts/timing.sh bench-eta $*\`" "Judged: the lines from a fifth of the run on with at least ${MIN_LEFT:-5} s really left."
    load0=$(load)
    log=$(mktemp)
    read -r start end < <(stamped "$log" "$bin" bench --progress --out "$out/bench" "$@")
    judge bench - 0.2 "$out/lines.tsv" "$out/summary.md" "$start" "$end" "$load0 → $(load)" "$log"
    rm -f "$log"
}

case ${1:-} in
bench | edge | kernels | model | listing-model | solutions | listing | eta | bench-eta)
    sub=${1//-/_}
    shift
    "cmd_$sub" "$@"
    ;;
*) usage ;;
esac
