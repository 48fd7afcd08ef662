#!/usr/bin/env bash
# Speed and memory of the solution paths (issue 3): `solve` for N = 10^7 and `list 16` on one
# thread and on every core, output to /dev/null. Prints wall time, CPU time and peak RSS of each
# run (GNU time). Timings are only comparable within one run on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/nqueens
runs=${RUNS:-3}
echo "machine: $(nproc) logical cores, $(uname -srm); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$runs"); do
  /usr/bin/time -f "solve 10000000 --format columns: %e s wall, %U s user, %M KiB max RSS" \
    "$bin" solve 10000000 --format columns > /dev/null
done
for _ in $(seq "$runs"); do
  for t in 1 "$(nproc)"; do
    /usr/bin/time -f "list 16 --format columns -t $t: %e s wall, %U s user, %M KiB max RSS (14772512 solutions)" \
      "$bin" list 16 --format columns -t "$t" > /dev/null
  done
done
