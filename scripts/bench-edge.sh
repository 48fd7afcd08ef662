#!/usr/bin/env bash
# Interleaved timings of the edge method against the d4 method, for issue 13:
#
#   scripts/bench-edge.sh BASE_BINARY [REPS] [OUT_DIR]
#
# BASE_BINARY: `nqueens` built in release mode at commit 976a6be (the main of issue 13; its
# default method is d4), e.g. from `git worktree add /tmp/base 976a6be && cd /tmp/base &&
# cargo build --release`. This tree's binary is built here. Every repetition runs, one after the
# other: `count N --unique -t T` for (N, T) = (17, 1), (17, 2), (18, 1), each with the base
# binary (d4), this build with `--method d4` and this build with `--method edge`; wall and user
# seconds from /usr/bin/time, the load average before each run. REPS defaults to 5. Writes
# raw.tsv and summary.md (medians, spreads, ratios) into OUT_DIR (default
# results/<date>-edge), and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-edge.sh BASE_BINARY [REPS] [OUT_DIR]}
reps=${2:-5}
out=${3:-results/$(date +%F)-edge}
cargo build --release --quiet
new=./target/release/nqueens
mkdir -p "$out"
raw=$out/raw.tsv
printf 'rep\tn\tthreads\tbinary\tmethod\twall_s\tuser_s\tload1\toutput\n' >"$raw"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for rep in $(seq "$reps"); do
    for cfg in "17 1" "17 2" "18 1"; do
        read -r n t <<<"$cfg"
        for which in base-d4 new-d4 new-edge; do
            case $which in
            base-d4) cmd=("$base" count "$n" --unique -t "$t") ;;
            new-d4) cmd=("$new" count "$n" --unique -t "$t" --method d4) ;;
            new-edge) cmd=("$new" count "$n" --unique -t "$t" --method edge) ;;
            esac
            load=$(cut -d' ' -f1 /proc/loadavg)
            times=$({ /usr/bin/time -f '%e %U' "${cmd[@]}" >"$tmp"; } 2>&1)
            read -r wall user <<<"$times"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$n" "$t" "${which%%-*}" \
                "${which#*-}" "$wall" "$user" "$load" "$(tr '\n' ' ' <"$tmp")" >>"$raw"
        done
    done
done
python3 - "$raw" >"$out/summary.md" <<'EOF'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
def runs(n, t, binary, method, field):
    i = 5 if field == 'wall' else 6
    return sorted(float(r[i]) for r in rows if (r[1], r[2], r[3], r[4]) == (n, t, binary, method))
outputs = {(r[1], r[4]): set() for r in rows}
for r in rows:
    outputs[(r[1], r[4])].add(r[8].strip())
loads = [float(r[7]) for r in rows]
print(f"# Edge vs d4, interleaved ({len(rows) // 9} repetitions)\n")
print(f"Load average (1 min) before the runs: min {min(loads):.2f}, median "
      f"{statistics.median(loads):.2f}, max {max(loads):.2f}.\n")
print("| N | threads | binary | method | wall median (s) | wall min–max | user median (s) |")
print("|---|---:|---|---|---:|---|---:|")
med = {}
for n, t in [("17", "1"), ("17", "2"), ("18", "1")]:
    for b, m in [("base", "d4"), ("new", "d4"), ("new", "edge")]:
        w, u = runs(n, t, b, m, 'wall'), runs(n, t, b, m, 'user')
        med[(n, t, b, m)] = (statistics.median(w), statistics.median(u))
        print(f"| {n} | {t} | {b} | {m} | {statistics.median(w):.3f} | {w[0]:.3f}–{w[-1]:.3f} "
              f"| {statistics.median(u):.3f} |")
print("\n| ratio (medians) | wall | user |")
print("|---|---:|---:|")
for n, t in [("17", "1"), ("17", "2"), ("18", "1")]:
    e, b, d = med[(n, t, "new", "edge")], med[(n, t, "base", "d4")], med[(n, t, "new", "d4")]
    print(f"| N = {n}, {t} thread(s): edge / 976a6be d4 | {e[0] / b[0]:.3f} | {e[1] / b[1]:.3f} |")
    print(f"| N = {n}, {t} thread(s): edge / d4 (same build) | {e[0] / d[0]:.3f} | {e[1] / d[1]:.3f} |")
for m in ["edge", "d4"]:
    one, two = med[("17", "1", "new", m)][0], med[("17", "2", "new", m)][0]
    print(f"| N = 17, {m}: 1-thread / 2-thread wall (speed-up) | {one / two:.3f} | |")
print("\nOutputs (total unique) per N and method: " + "; ".join(
    f"N = {n} {m}: {', '.join(sorted(v))}" for (n, m), v in sorted(outputs.items())))
EOF
cat "$out/summary.md"
