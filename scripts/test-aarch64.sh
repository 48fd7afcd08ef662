#!/usr/bin/env bash
# Tests the aarch64 build under emulation: cross-builds for aarch64-unknown-linux-gnu and runs,
# under qemu-aarch64, the lane kernels' unit tests (`lanes::` and the edge method's gapped
# search, `edge::tests`, on every kernel the emulated processor has: dfs, portable, neon; and
# the kernel choice, `search::kernel::`), `nqueens verify --max 12 --unique` with --kernel neon,
# portable and auto, and `count 14 --unique` on neon and portable (large enough for the lanes),
# and checks that auto chose neon (`count --json`) and that avx2 is refused. Emulated time says nothing of an ARM processor's speed; this
# checks that the counts are exact.
#
# Installs what is missing: the Rust target (rustup), Debian's gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross and qemu-user (apt-get, as root). Builds into target/aarch64 with a
# lighter release profile (no LTO, 16 codegen units, no debug info; the dependencies at
# opt-level 1): this checks correctness, not speed. Extra arguments go to the test binary
# (e.g. a narrower filter).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "test-aarch64: $*"; }
target=aarch64-unknown-linux-gnu

if ! rustup target list --installed | grep -qx "$target"; then
    log "installing the Rust target $target"
    rustup target add "$target" >/dev/null
fi
missing=()
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "test-aarch64: needs root to install ${missing[*]}" >&2
        exit 1
    fi
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

export CARGO_TARGET_DIR=target/aarch64
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
export CARGO_PROFILE_RELEASE_DEBUG=false
light=(--config 'profile.release.package."*".opt-level=1')
cargo=(cargo "${light[@]}" --quiet)

log "building for $target"
"${cargo[@]}" build --release --target "$target"
nq() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$CARGO_TARGET_DIR/$target/release/nqueens" "$@"; }

# The kernels the emulated processor has, and the one auto chooses.
kernel=$(nq count 12 --json | sed -n 's/.*"kernel":"\([a-z0-9]*\)".*/\1/p')
if [ "$kernel" != neon ]; then
    echo "test-aarch64: auto chose '$kernel', not neon" >&2
    exit 1
fi
if nq count 8 --kernel avx2 2>/dev/null; then
    echo "test-aarch64: --kernel avx2 was accepted on aarch64" >&2
    exit 1
fi

log "lane and kernel tests (lanes::, edge::tests, search::kernel::) under qemu-aarch64"
# A failing random case is reported after a few shrinking steps, not thousands: under
# emulation each costs seconds.
export PROPTEST_MAX_SHRINK_ITERS=${PROPTEST_MAX_SHRINK_ITERS:-16}
"${cargo[@]}" test --release --target "$target" --lib -- lanes:: edge::tests search::kernel:: "$@"

for k in neon portable auto; do
    log "verify --max 12 --unique --kernel $k"
    out=$(nq verify --max 12 --unique --kernel "$k")
    if [ "$(grep -c ' OK$' <<<"$out")" != 12 ]; then
        echo "$out" >&2
        echo "test-aarch64: verify --kernel $k failed" >&2
        exit 1
    fi
done
# Counts through the engine, total and unique, on each lane kernel: verify's boards are too
# small for the lanes (fewer than lanes::MIN_ROWS rows below the units); from N = 14 on they
# run.
for k in neon portable; do
    got=$(nq count 14 --unique --kernel "$k" --json)
    case $got in
    *'"total":365596,"unique":45752,'*'"kernel":"'$k'"'*) ;;
    *)
        echo "test-aarch64: count 14 --kernel $k: $got" >&2
        exit 1
        ;;
    esac
done
log "ok: neon is auto's choice, and every count is exact"
