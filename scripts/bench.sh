#!/usr/bin/env bash
# The committed scaling benchmark: builds the release binary and runs `nqueens bench` with its
# defaults (N from 10 within a 10-minute budget, up to the N whose run on the most threads lasts
# a second; threads 1, 2, 4, ... up to the logical cores; the default method and mirror; 3 runs
# each, a count under 10 ms repeated within its run to 50 ms) into results/<date>-<host>/ (or
# -2, -3, ... when that holds an earlier run), or into $1. Extra arguments go to `nqueens bench`.
# Run it on an otherwise idle machine: the summary warns when other work took CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
out=()
if [[ $# -gt 0 && $1 != --* ]]; then
    out=(--out "$1")
    shift
fi
./target/release/nqueens bench "${out[@]}" "$@"
