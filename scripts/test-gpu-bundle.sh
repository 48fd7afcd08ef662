#!/usr/bin/env bash
# Tests scripts/gpu-bundle.sh and scripts/gpu-check.sh on this machine, with PoCL (a CPU OpenCL
# driver) standing in for NVIDIA's:
# - a driver named by its bare file name and reachable only through LD_LIBRARY_PATH (how NVIDIA
#   containers expose /usr/local/nvidia/lib64) is loaded by the bundle, and not without it;
# - a libnvidia-opencl.so.1 in a folder of LD_LIBRARY_PATH is named by its full path in the
#   vendors file the bundle writes, and loads; without one the bare name is written;
# - the carried C library wins over one in LD_LIBRARY_PATH;
# - without a driver, the bundle's gpu-check exits 1 and its diagnose.txt says where it looked;
# - with one, it passes, in at most 8 files, no folder in its results folder;
# - gpu-check exits 1 when a timed count differs from the published table, exits with an error,
#   or the device failed or counted no units; it skips a size that would pass the budget and
#   stops a count that runs past it.
#
#   scripts/test-gpu-bundle.sh [BINARY]   # BINARY: pack it rather than build (CI: the
#                                         # target/release/nqueens of `cargo test --release`)
# Needs PoCL and the OpenCL loader (apt-get install pocl-opencl-icd ocl-icd-libopencl1).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { echo "test-gpu-bundle: $*"; }
die() { echo "test-gpu-bundle: FAILED: $*" >&2; exit 1; }
# Asserts that file or text $2 contains (grep -E) $1.
has() { grep -qE -- "$1" <<<"$2" || die "expected /$1/ in: $2"; }
hasnt() { ! grep -qE -- "$1" <<<"$2" || die "did not expect /$1/ in: $2"; }

pocl=$(ldconfig -p | awk '/libpocl\.so\.2 .*x86-64/ { print $NF; exit }')
[ -n "$pocl" ] || die "PoCL is not installed (apt-get install pocl-opencl-icd ocl-icd-libopencl1)"
for d in /usr/lib/x86_64-linux-gnu/pocl /usr/share/pocl; do
    [ -d "$d" ] || die "no $d: PoCL is installed elsewhere than Debian puts it"
done
platform='\(Portable Computing Language\), CPU'

bundle=$tmp/bundle
if [ $# -ge 1 ]; then
    scripts/gpu-bundle.sh --binary "$1" "$bundle" >/dev/null
    bin=$1
else
    scripts/gpu-bundle.sh "$bundle" >/dev/null
    bin=target/release/nqueens
fi
for f in nqueens gpu-check lib/nqueens lib/env.sh lib/libc.so.6 lib/libOpenCL.so.1 \
    scripts/gpu-check.sh BUILD.txt; do
    [ -e "$bundle/$f" ] || die "the bundle has no $f"
done
size=$(du -sk "$bundle" | cut -f1)
[ "$size" -lt $((64 * 1024)) ] || die "the bundle is $size KiB, over the 64 MiB a device run carries"
log "bundle: $((size / 1024)) MiB"

# A copy of PoCL named $2 in a folder of its own under $1 (PoCL finds its device modules and
# headers relative to where it is: ../../share/pocl); prints the folder.
fake_driver() {
    local dir=$1/usr/lib/x86_64-linux-gnu
    mkdir -p "$dir" "$1/usr/share"
    cp -L "$pocl" "$dir/$2"
    ln -s /usr/lib/x86_64-linux-gnu/pocl "$dir/pocl"
    ln -s /usr/share/pocl "$1/usr/share/pocl"
    echo "$dir"
}

# 1. A driver by its bare name, reachable only through LD_LIBRARY_PATH (the issue's case).
priv=$(fake_driver "$tmp/private" libnqtest-pocl.so)
mkdir "$tmp/vendors"
echo libnqtest-pocl.so >"$tmp/vendors/test.icd"
out=$(env -u LD_LIBRARY_PATH OCL_ICD_VENDORS="$tmp/vendors" "$bundle/nqueens" devices)
has 'no OpenCL platform' "$out"
out=$(LD_LIBRARY_PATH=$priv OCL_ICD_VENDORS="$tmp/vendors" "$bundle/nqueens" devices)
has "^0: .*$platform" "$out"
out=$(LD_LIBRARY_PATH=$priv OCL_ICD_VENDORS="$tmp/vendors" "$bundle/nqueens" count 10 --unique --kernel opencl --json)
has '"total":724,"unique":92,' "$out"
has '"units":[1-9][0-9]*,"build_s"' "$out"
log "a driver named bare, reachable only through LD_LIBRARY_PATH: loaded, counts 724 92"

# 2. libnvidia-opencl.so.1 in a folder of LD_LIBRARY_PATH: named by full path, and loads.
nv=$(fake_driver "$tmp/nvidia" libnvidia-opencl.so.1)
out=$(LD_LIBRARY_PATH=/nonexistent:$nv env -u OCL_ICD_VENDORS "$bundle/nqueens" devices)
has "^0: .*$platform" "$out"
[ "$(cat "$bundle/vendors/nvidia.icd")" = "$nv/libnvidia-opencl.so.1" ] ||
    die "vendors/nvidia.icd is '$(cat "$bundle/vendors/nvidia.icd")', not $nv/libnvidia-opencl.so.1"
# A relative folder is written as a full path (the loader reads the file from anywhere).
(cd "$tmp/nvidia/usr/lib" && LD_LIBRARY_PATH=x86_64-linux-gnu env -u OCL_ICD_VENDORS "$bundle/nqueens" devices >/dev/null)
[ "$(cat "$bundle/vendors/nvidia.icd")" = "$nv/libnvidia-opencl.so.1" ] ||
    die "with a relative LD_LIBRARY_PATH, vendors/nvidia.icd is '$(cat "$bundle/vendors/nvidia.icd")'"
# Without it, the bare name (unless this machine has NVIDIA's driver in one of the folders).
out=$(env -u LD_LIBRARY_PATH -u OCL_ICD_VENDORS "$bundle/nqueens" devices)
if ! ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1 \
    /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1 >/dev/null 2>&1 &&
    ! ldconfig -p | grep -q libnvidia-opencl.so.1; then
    [ "$(cat "$bundle/vendors/nvidia.icd")" = libnvidia-opencl.so.1 ] ||
        die "without a driver, vendors/nvidia.icd is '$(cat "$bundle/vendors/nvidia.icd")'"
    has 'no OpenCL platform' "$out"
fi
log "libnvidia-opencl.so.1 in LD_LIBRARY_PATH: named by its full path, loaded"

# 3. The carried C library comes before the machine's: a libm.so.6 in LD_LIBRARY_PATH (here a
# copy of another library, which would stop the binary from starting if it were taken; libm
# rather than libc, which would stop the machine's bash that runs the wrapper too).
mkdir "$tmp/badlibm"
cp -L "$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ { print $NF; exit }')" "$tmp/badlibm/libm.so.6"
out=$(LD_LIBRARY_PATH=$tmp/badlibm:$nv "$bundle/nqueens" count 8)
[ "$out" = 92 ] || die "with a libm.so.6 in LD_LIBRARY_PATH, count 8 gave '$out'"
# The whole path: the carried libraries, LD_LIBRARY_PATH in its order, the driver folders that
# exist; LD_LIBRARY_PATH itself unchanged (the machine's programs keep the machine's libraries).
want=$bundle/lib:$tmp/badlibm:$nv
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
    [ ! -d "$d" ] || want=$want:$d
done
got=$(export LD_LIBRARY_PATH=$tmp/badlibm::$nv OCL_ICD_VENDORS=$tmp/vendors bundle
    # shellcheck source=/dev/null
    . "$bundle/lib/env.sh"
    echo "$NQUEENS_BUNDLE_PATH|$LD_LIBRARY_PATH")
[ "$got" = "$want|$tmp/badlibm::$nv" ] || die "library path|LD_LIBRARY_PATH is $got, not $want|$tmp/badlibm::$nv"
log "a libm.so.6 in LD_LIBRARY_PATH: the carried one is used; the library path is $want"

# 4. No driver: gpu-check exits 1 and says where it looked.
mkdir "$tmp/empty"
rc=0
OCL_ICD_VENDORS=$tmp/empty "$bundle/gpu-check" --out "$tmp/none" >"$tmp/none.stdout" 2>"$tmp/none.stderr" || rc=$?
[ "$rc" = 1 ] || die "gpu-check without a driver exited $rc, not 1"
d=$(cat "$tmp/none/diagnose.txt")
for section in "OCL_ICD_VENDORS=$tmp/empty" "no .icd file in $tmp/empty" "NQUEENS_BUNDLE_PATH=$bundle/lib" \
    '== ldconfig -p' '== nvidia-smi -L' '== /dev/nvidia' '== /usr/local/nvidia' '== /etc/OpenCL/vendors' \
    'carried: ld.so'; do
    has "$section" "$d"
done
has 'Result: FAILED' "$(cat "$tmp/none.stdout")"
has 'no OpenCL platform or device' "$(cat "$tmp/none/summary.md")"
has 'Where OpenCL was looked for' "$(cat "$tmp/none.stderr")"
# The vendors file the bundle writes, naming a driver that is not here.
rc=0
env -u LD_LIBRARY_PATH -u OCL_ICD_VENDORS "$bundle/gpu-check" --out "$tmp/none2" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || die "gpu-check without NVIDIA's driver exited $rc, not 1"
has "$bundle/vendors/nvidia.icd: libnvidia-opencl.so.1" "$(cat "$tmp/none2/diagnose.txt")"
has 'libnvidia-opencl.so.1: NOT FOUND' "$(cat "$tmp/none2/diagnose.txt")"
# A driver that is there but is none (a copy of libz): found, and its dependencies listed as the
# carried loader resolves them: the carried C library.
mkdir "$tmp/notdriver"
cp "$tmp/badlibm/libm.so.6" "$tmp/notdriver/libnvidia-opencl.so.1"
rc=0
LD_LIBRARY_PATH=$tmp/notdriver env -u OCL_ICD_VENDORS "$bundle/gpu-check" --out "$tmp/none3" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || die "gpu-check with a library that is no driver exited $rc, not 1"
d=$(cat "$tmp/none3/diagnose.txt")
has "nvidia.icd: $tmp/notdriver/libnvidia-opencl.so.1" "$d"
has "found: .*$tmp/notdriver/libnvidia-opencl.so.1" "$d"
has "libc.so.6 => $bundle/lib/libc.so.6" "$d"
log "no driver: gpu-check exits 1, diagnose.txt names what it looked at"

# 5. With a driver: gpu-check passes; at most 8 files, no folder. Launches of 20 sub-problems
# (--batch): several batches a count, their times in times.csv.
rc=0
LD_LIBRARY_PATH=$nv env -u OCL_ICD_VENDORS "$bundle/gpu-check" --any-device --verify-max 10 \
    --time "10 11" --budget 60 --batch 20 --out "$tmp/ok" >"$tmp/ok.stdout" 2>"$tmp/ok.stderr" || rc=$?
[ "$rc" = 0 ] || die "gpu-check with a driver exited $rc: $(cat "$tmp/ok.stdout" "$tmp/ok.stderr")"
has 'Result: OK' "$(cat "$tmp/ok.stdout")"
has 'both with `--opencl-batch 20`' "$(cat "$tmp/ok.stdout")"
[ "$(find "$tmp/ok" -mindepth 1 -type d | wc -l)" = 0 ] || die "gpu-check wrote a folder"
files=$(find "$tmp/ok" -type f | wc -l)
[ "$files" -le 8 ] || die "gpu-check wrote $files files"
t=$(cat "$tmp/ok/times.csv")
batched='[0-9]+,[1-9][0-9]*,([2-9]|[1-9][0-9]+),[0-9.e+-]+,[0-9.e+-]+$'
for row in "^10,gpu,[0-9.]+,[0-9.]+,724,92,$batched" '^10,hybrid,[0-9.]+,[0-9.]+,724,92,' \
    "^11,gpu,[0-9.]+,[0-9.]+,2680,341,$batched" '^11,hybrid,[0-9.]+,[0-9.]+,2680,341,'; do
    grep -qE -- "$row" <<<"$t" || die "no row /$row/ in times.csv: $t"
done
[ "$(wc -l <"$tmp/ok/counts.jsonl")" = 4 ] || die "counts.jsonl has not 4 lines"
has '^bundle commit: ' "$(cat "$tmp/ok/machine.txt")"
log "with a driver: gpu-check passes ($files files)"
rc=0
"$bundle/gpu-check" --batch 0 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || die "gpu-check --batch 0 exited $rc, not 2"

# 6. Failures of a timed count, planted by a fake nqueens that alters the real one's JSON.
cat >"$tmp/fake" <<'EOF'
#!/usr/bin/env bash
# The real nqueens ($REAL), with `count` changed as $FAKE says.
[ "${1:-}" = count ] || exec "$REAL" "$@"
case "$FAKE" in exit3) exit 3 ;; sleep*) sleep "${FAKE#sleep}" ;; esac
json=$("$REAL" "$@") || exit
case " $* " in *" --gpu "*) mode=hybrid ;; *) mode=gpu ;; esac
t=$(grep -o '"total":[0-9]*' <<<"$json" | cut -d: -f2)
case "$FAKE:$mode" in
    units0:gpu) json=$(sed -E 's/"units":[0-9]+,"build_s"/"units":0,"build_s"/' <<<"$json") ;;
    total:gpu) json=${json/\"total\":$t,/\"total\":$((t + 1)),} ;;
    error:gpu) json=$(sed -E 's/("launch_s":[0-9.e+-]+)\}/\1,"error":"planted"}/' <<<"$json") ;;
    hybrid0-long:hybrid) json=$(sed -E 's/"units":[0-9]+,"build_s":[0-9.e+-]+/"units":0,"build_s":0.5/; s/"elapsed_s":[0-9.e+-]+/"elapsed_s":100/' <<<"$json") ;;
    hybrid0-short:hybrid) json=$(sed -E 's/"units":[0-9]+,"build_s":[0-9.e+-]+/"units":0,"build_s":0.5/; s/"elapsed_s":[0-9.e+-]+/"elapsed_s":0.01/' <<<"$json") ;;
esac
echo "$json"
EOF
chmod +x "$tmp/fake"
# Runs gpu-check with the fake ($1 = FAKE, then options); leaves its exit status in $rc.
check_fake() {
    local fake=$1
    shift
    rc=0
    REAL=$bin FAKE=$fake NQUEENS=$tmp/fake scripts/gpu-check.sh --any-device --verify-max 8 \
        --out "$tmp/f-$fake" "$@" >/dev/null 2>&1 || rc=$?
    summary=$(cat "$tmp/f-$fake/summary.md")
}
check_fake units0 --time 10 --budget 60
[ "$rc" = 1 ] || die "a GPU count with no units on the device: exit $rc, not 1"
has 'N = 10 gpu: device 0 counted no units' "$summary"
check_fake total --time 10 --budget 60
[ "$rc" = 1 ] || die "a wrong total: exit $rc, not 1"
has 'N = 10 gpu counted 725 92; the published counts are 724 92' "$summary"
check_fake error --time 10 --budget 60
[ "$rc" = 1 ] || die "a failed device: exit $rc, not 1"
has 'N = 10 gpu: device 0 failed: "planted"' "$summary"
check_fake exit3 --time 10 --budget 60
[ "$rc" = 1 ] || die "a count that exits 3: exit $rc, not 1"
has 'N = 10 gpu: count exited 3' "$summary"
check_fake hybrid0-long --time 10 --budget 60
[ "$rc" = 1 ] || die "a long hybrid count with no units on the device: exit $rc, not 1"
has 'N = 10 hybrid: device 0 counted no units' "$summary"
check_fake hybrid0-short --time 10 --budget 60
[ "$rc" = 0 ] || die "a short hybrid count with no units on the device: exit $rc, not 0"
has 'Result: OK' "$summary"
has 'N = 10 hybrid: device 0 counted no units: the count \(0.010s\) ended within 5 s' "$summary"
log "a count with no device units, a wrong total, a failed device, an error exit: gpu-check exits 1"

# 7. The budget: each count of the fake takes 2 s more, so N = 12 (5.3 times N = 11's solutions)
# is estimated at over 10 s and skipped; then a count longer than the budget is stopped.
check_fake sleep2 --time "11 12" --budget 10
[ "$rc" = 0 ] || die "a check with skipped sizes: exit $rc, not 0"
has 'N = 12 gpu skipped: estimated [1-9][0-9]+[.][0-9]s' "$summary"
grep -q '^12,hybrid,skipped' "$tmp/f-sleep2/times.csv" || die "N = 12 hybrid not skipped"
grep -qE '^11,hybrid,[0-9.]+,[0-9.]+,2680,341,' "$tmp/f-sleep2/times.csv" || die "N = 11 hybrid not timed"
start=$SECONDS
check_fake sleep30 --time 11 --budget 4
[ "$rc" = 0 ] || die "a check with a stopped count: exit $rc, not 0"
[ $((SECONDS - start)) -le 12 ] || die "a budget of 4 s took $((SECONDS - start)) s"
has 'N = 11 gpu stopped after [0-9.]+s: the budget ran out' "$summary"
has 'N = 11 hybrid skipped' "$summary"
log "the budget: N = 12 skipped on its estimate, a long count stopped"
log "all passed in $((SECONDS - t0)) s"
