#!/usr/bin/env bash
# The GPU check of a machine, in under 5 minutes: lists the OpenCL devices, verifies N = 1..18
# (total and unique) on one GPU against the published table, times N = 18..21 on the GPU alone
# (--kernel opencl) and beside the CPU threads (--gpu), and writes everything to a results folder
# named after the device.
#
#   scripts/gpu-check.sh [--device I] [--any-device] [--verify-max M] [--time "18 19 20 21"]
#                        [--budget SECONDS] [--out DIR]
#
# --device I      the OpenCL device (an index of `nqueens devices`) [default: the first GPU]
# --any-device    accept a device that is not a GPU (PoCL: how this script is tested without one)
# --verify-max M  verify N = 1..M [default: 18]
# --time LIST     board sizes to time [default: "18 19 20 21"]; each is skipped, and the skip
#                 written down, when the time of the size before it says it would not fit the budget
# --budget S      seconds the timings may take in all [default: 240]
# --out DIR       results folder [default: results/<date>-gpu-<device name>]
#
# The binary is $NQUEENS, else target/release/nqueens (built with cargo when missing). OpenCL
# comes from the usual places; OCL_ICD_VENDORS names a folder of .icd files and
# OPENCL_DYLIB_PATH the OpenCL library, for a machine where they are not installed.
set -euo pipefail
cd "$(dirname "$0")/.."

device="" any=0 verify_max=18 sizes="18 19 20 21" budget=240 out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) device=$2; shift 2 ;;
        --any-device) any=1; shift ;;
        --verify-max) verify_max=$2; shift 2 ;;
        --time) sizes=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu-check: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
log() { echo "gpu-check: $*" >&2; }

bin=${NQUEENS:-target/release/nqueens}
if [ ! -x "$bin" ]; then
    log "building $bin"
    cargo build --release --quiet
fi

devices=$("$bin" devices)
echo "$devices" | sed 's/^/  /' >&2
if [ -z "$device" ]; then
    device=$(echo "$devices" | awk -F: '/, GPU, / { print $1; exit }')
    if [ -z "$device" ] && [ "$any" = 1 ]; then
        device=$(echo "$devices" | awk -F: '/^[0-9]+:/ { print $1; exit }')
    fi
fi
line=$(echo "$devices" | grep "^$device: " || true)
if [ -z "$device" ] || [ -z "$line" ]; then
    log "no OpenCL GPU${device:+ $device} to check (pass --any-device to accept another kind)"
    exit 1
fi
if [ "$any" != 1 ] && ! echo "$line" | grep -q ', GPU, '; then
    log "device $device is not a GPU: $line (pass --any-device to check it anyway)"
    exit 1
fi
name=$(echo "$line" | sed -E 's/^[0-9]+: (.*) \([^)]*\), [^,]+, .*$/\1/')
slug=$(echo "$name" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//' | cut -c1-40)
out=${out:-results/$(date -u +%F)-gpu-$slug}
mkdir -p "$out"
log "device $device: $name; results in $out"

{
    echo "date: $(date -u +%FT%TZ)"
    echo "device: $line"
    echo "host: $(uname -n), $(nproc) logical CPUs, $(uname -sr)"
    grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name\s*:/cpu:/' || true
    command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | sed 's/^/nvidia-smi: /' || true
    echo "binary: $("$bin" --version 2>/dev/null || echo "$bin")"
} >"$out/machine.txt"
echo "$devices" >"$out/devices.txt"

log "verify N = 1..$verify_max on device $device"
status=0
"$bin" verify --max "$verify_max" --unique --kernel opencl --opencl-device "$device" \
    >"$out/verify.txt" || status=$?
cat "$out/verify.txt" >&2
if [ "$status" != 0 ]; then
    log "VERIFY FAILED (exit $status)"
fi

# One timed count: mode (gpu, hybrid, cpu), N; appends a row to times.csv.
echo "n,mode,seconds,count_seconds,total,unique,units,device_units" >"$out/times.csv"
spent=0 last=""
time_one() {
    local mode=$1 n=$2 flags
    case "$mode" in
        gpu) flags=(--kernel opencl --opencl-device "$device") ;;
        hybrid) flags=(--gpu); [ "$any" = 1 ] && flags+=(--opencl-device "$device") ;;
        cpu) flags=() ;;
    esac
    local t0 t1 json
    t0=$(date +%s.%N)
    json=$("$bin" count "$n" --unique --json --yes "${flags[@]}")
    t1=$(date +%s.%N)
    local secs
    secs=$(printf '%.3f' "$(echo "$t1 - $t0" | bc)")
    spent=$(echo "$spent + $secs" | bc)
    last=$secs
    # Plain text fields of the one-line JSON (no jq on a bare machine).
    field() { echo "$json" | grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
    local dev_units
    dev_units=$(echo "$json" | grep -o '"devices":\[.*\]' | grep -o '"units":[0-9]*' | cut -d: -f2 | paste -sd+ - | bc 2>/dev/null || echo 0)
    local count_secs
    count_secs=$(printf '%.3f' "$(field elapsed_s)")
    echo "$n,$mode,$secs,$count_secs,$(field total),$(field unique),$(field units),${dev_units:-0}" >>"$out/times.csv"
    log "N = $n $mode: ${secs}s ($(field total) $(field unique))"
}

prev=""
for n in $sizes; do
    for mode in gpu hybrid; do
        # The next size costs about 7 times the last (A000170 grows by about that much).
        if [ -n "$prev" ] && [ "$(echo "$spent + 7 * $prev > $budget" | bc)" = 1 ]; then
            log "N = $n $mode skipped: about $(echo "7 * $prev" | bc)s would pass the budget of ${budget}s"
            echo "$n,$mode,skipped,,,,," >>"$out/times.csv"
            continue
        fi
        time_one "$mode" "$n"
    done
    prev=$last
done

{
    echo "# GPU check: $name"
    echo
    echo "\`scripts/gpu-check.sh\` on $(date -u +%F). Machine: see machine.txt."
    echo
    echo "Verify N = 1..$verify_max (total and unique) on device $device: $([ "$status" = 0 ] && echo "all OK" || echo "FAILED, see verify.txt")."
    echo
    echo "| N | mode | seconds (whole command) | seconds (count, kernels built) | total | unique | units on the device |"
    echo "|---|---|---|---|---|---|---|"
    tail -n +2 "$out/times.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s of %s |\n", $1, $2, $3, $4, $5, $6, $8, $7 }'
    echo
    echo "gpu: \`count N --unique --kernel opencl --opencl-device $device\`; hybrid: \`count N --unique --gpu\` (every GPU, or with --any-device device $device, beside $(nproc) CPU threads)."
    echo "Targets (issue #12, one H200): N = 21 at most 15 s, N = 22 at most 125 s."
} >"$out/summary.md"
log "wrote $out"
exit "$status"
