#!/usr/bin/env bash
# The slow correctness checks kept out of CI (minutes): the ignored tests (the serial solver
# and the depth-first kernel at N = 16 and 17, the edge method at N = 18 on every kernel, units
# of N = 24 on three kernels, 10^7-row solutions) and a verify run up to N = 18 with unique
# counts. The lane-kernel counts of N = 16 and 17 run in CI (`cargo test --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -- --ignored
cargo run --release --quiet -- verify --max 18 --unique
