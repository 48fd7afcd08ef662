#!/usr/bin/env bash
# The slow correctness checks kept out of CI: the ignored tests (N = 16 and 17 against the
# published values, by every counting path) and a verify run up to N = 17.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -- --ignored
cargo run --release --quiet -- verify --max 17 --unique
