#!/usr/bin/env bash
# Interleaved timings of the CPU kernels on one thread, for issue 21:
#
#   scripts/bench-kernels.sh [REPS] [OUT_DIR]
#
# Builds this tree (release profile) and runs, every repetition one after the other,
# `nqueens count N [--unique] -t 1 --kernel K` for N = 17 and 18, unique and total, and every
# kernel this processor has among dfs, portable, avx2, avx512 and neon. Wall and user seconds
# from /usr/bin/time, the load average before each run. REPS defaults to 3. Writes raw.tsv and
# summary.md (medians, spreads, ratios against dfs and against portable) into OUT_DIR (default
# results/<date>-kernels), and prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
out=${2:-results/$(date +%F)-kernels}
cargo build --release --quiet
bin=./target/release/nqueens
kernels=()
for k in dfs portable avx2 avx512 neon; do
    if "$bin" count 4 --kernel "$k" >/dev/null 2>&1; then
        kernels+=("$k")
    fi
done
mkdir -p "$out"
raw=$out/raw.tsv
printf 'rep\tn\tmode\tkernel\twall_s\tuser_s\tload1\toutput\n' >"$raw"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for rep in $(seq "$reps"); do
    for cfg in "17 unique" "17 total" "18 unique" "18 total"; do
        read -r n mode <<<"$cfg"
        flag=()
        [ "$mode" = unique ] && flag=(--unique)
        for k in "${kernels[@]}"; do
            load=$(cut -d' ' -f1 /proc/loadavg)
            times=$({ /usr/bin/time -f '%e %U' "$bin" count "$n" "${flag[@]}" -t 1 --kernel "$k" >"$tmp"; } 2>&1)
            read -r wall user <<<"$times"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rep" "$n" "$mode" "$k" "$wall" "$user" \
                "$load" "$(tr '\n' ' ' <"$tmp")" >>"$raw"
        done
    done
done
python3 - "$raw" >"$out/summary.md" <<'EOF'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
kernels = list(dict.fromkeys(r[3] for r in rows))
cfgs = list(dict.fromkeys((r[1], r[2]) for r in rows))
def runs(cfg, k, i):
    return sorted(float(r[i]) for r in rows if (r[1], r[2], r[3]) == (*cfg, k))
loads = [float(r[6]) for r in rows]
reps = len({r[0] for r in rows})
print(f"# CPU kernels on one thread, interleaved ({reps} repetitions)\n")
print(f"Load average (1 min) before the runs: min {min(loads):.2f}, median "
      f"{statistics.median(loads):.2f}, max {max(loads):.2f}.\n")
print("| N | counts | kernel | wall median (s) | wall min–max | user median (s) | user min–max |")
print("|---|---|---|---:|---|---:|---|")
med = {}
for cfg in cfgs:
    for k in kernels:
        w, u = runs(cfg, k, 4), runs(cfg, k, 5)
        med[(cfg, k)] = (statistics.median(w), statistics.median(u))
        print(f"| {cfg[0]} | {cfg[1]} | {k} | {med[(cfg, k)][0]:.3f} | {w[0]:.3f}–{w[-1]:.3f} "
              f"| {med[(cfg, k)][1]:.3f} | {u[0]:.3f}–{u[-1]:.3f} |")
print("\nRatios of medians (time of the first ÷ time of the second: above 1, the second is "
      "faster).\n")
print("| N | counts | ratio | wall | user |")
print("|---|---|---|---:|---:|")
pairs = [(a, b) for a, b in [("dfs", "portable"), ("portable", "avx2"), ("portable", "avx512"),
                             ("portable", "neon"), ("dfs", "avx2"), ("dfs", "avx512")]
         if a in kernels and b in kernels]
for cfg in cfgs:
    for a, b in pairs:
        x, y = med[(cfg, a)], med[(cfg, b)]
        print(f"| {cfg[0]} | {cfg[1]} | {a} / {b} | {x[0] / y[0]:.2f} | {x[1] / y[1]:.2f} |")
outputs = {cfg: {r[7].strip() for r in rows if (r[1], r[2]) == cfg} for cfg in cfgs}
print("\nOutputs per configuration (every kernel, every run): " + "; ".join(
    f"N = {n} {m}: {', '.join(sorted(v))}" for (n, m), v in outputs.items()))
EOF
cat "$out/summary.md"
