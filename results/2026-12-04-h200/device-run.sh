#!/usr/bin/env bash
# One device call: GPU check, listing against its pipe (#35), 16-thread scaling bench.
set -u
R=/tmp/r; mkdir -p $R
B=target/gpu-bundle
[ -x /usr/bin/time ] || cp .devtools/time /usr/bin/time
{ date -u; nproc; lscpu; free -g; cat /etc/os-release; ldd --version | head -1; uptime; } >$R/machine.txt 2>&1
head -20 $R/machine.txt
echo "== gpu-check $(date -u +%T)"
timeout -k 5 220 $B/gpu-check --out $R/gpu --budget 180; echo "gpu-check exit $?"
N=$PWD/$B/lib/nqueens
$N --version || N=$PWD/$B/nqueens
echo "binary: $N"; $N devices 2>&1 | head -8
echo "== listing $(date -u +%T)"
TS="1 2 4" BIN=$N timeout -k 5 110 scripts/timing.sh listing 11 $R/listing; echo "listing exit $?"
cat $R/listing/summary.md
echo "== bench $(date -u +%T)"
timeout -k 5 200 $N bench --n-min 14 --n-max 18 --repeat 3 --out $R/bench; echo "bench exit $?"
echo "== end $(date -u +%T)"; uptime
tar -C /tmp -czf $OUT/device.tgz r
cp $R/bench/summary.md $OUT/bench-summary.md 2>/dev/null
cp $R/gpu/summary.md $OUT/gpu-summary.md 2>/dev/null
grep -E '^\| (17|18) ' $R/bench/summary.md | head -30
