#!/usr/bin/env bash
# The GPU check of a machine, within a wall-time budget (7 minutes unless told): lists the OpenCL
# devices, verifies N = 1..18 (total and unique) on one GPU against the published table, times
# N = 18..22 on the GPU alone (--kernel opencl) and beside the CPU threads (--gpu), checks each
# timed count against the published table and the units the GPU took, and writes a results folder.
#
#   scripts/gpu-check.sh [--device I] [--any-device] [--verify-max M] [--time "18 19 20 21 22"]
#                        [--budget SECONDS] [--batch SUBS] [--out DIR]
#
# --device I      the OpenCL device (an index of `nqueens devices`) [default: the first GPU]
# --any-device    accept a device that is not a GPU (PoCL: how this script is tested without one)
# --verify-max M  verify N = 1..M [default: 18]
# --time LIST     board sizes to time [default: "18 19 20 21 22"]
# --budget S      seconds the whole check may take [default: 420]. Verify gets 40 % of it at
#                 most. A timed count is skipped when its estimate (the time of the same mode at
#                 the size before, times the ratio of their published totals) would not fit in
#                 what is left, and stopped if it runs past the budget all the same.
# --batch SUBS    passed to every timed count as --opencl-batch SUBS: the sub-problems a device
#                 gathers per launch, for tuning one [default: the binary's, 262144]
# --out DIR       results folder [default: results/<date>-gpu-<device name>]
#
# Exit status 0 when every check passed; 1 when one failed: no OpenCL GPU (diagnose.txt says
# where OpenCL was looked for and what is there), verify, a timed count that differs from the
# published table or exits with an error, or a device that failed or counted no units (with
# --gpu: none though its kernels were built 5 s before the count ended); 2 for bad options.
# The results folder holds at most 8 files: summary.md (the result and the table of times, also
# printed on stdout), machine.txt, devices.txt, verify.txt, times.csv, counts.jsonl (the JSON of
# each timed count), log.txt (what the commands wrote on stderr), diagnose.txt (only without a
# GPU).
#
# The binary is $NQUEENS, else target/release/nqueens (built with cargo when missing). OpenCL
# comes from the usual places; OCL_ICD_VENDORS names a folder of .icd files and
# OPENCL_DYLIB_PATH the OpenCL library, for a machine where they are not installed. Needs bash,
# coreutils, awk, grep and sed; no bc, no jq.
set -euo pipefail
start_dir=$PWD
cd "$(dirname "$0")/.."
t_start=$(date +%s.%N)

device="" any=0 verify_max=18 sizes="18 19 20 21 22" budget=420 out="" batch=""
usage() { echo "gpu-check: $* (see --help)" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --device|--verify-max|--time|--budget|--batch|--out) [ $# -ge 2 ] || usage "$1 needs a value" ;;
    esac
    case "$1" in
        --device) device=$2; shift 2 ;;
        --any-device) any=1; shift ;;
        --verify-max) verify_max=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --time) sizes=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown option $1" ;;
    esac
done
is_int() { [[ $1 =~ ^[0-9]+$ ]]; }
[ -z "$device" ] || is_int "$device" || usage "--device takes an index, not $device"
in_range() { is_int "$1" && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
in_range "$verify_max" 1 27 || usage "--verify-max takes 1..27, not $verify_max"
[ -z "$batch" ] || in_range "$batch" 1 16777216 || usage "--batch takes 1..16777216 sub-problems, not $batch"
for n in $sizes; do
    in_range "$n" 1 27 || usage "--time takes sizes 1..27, not $n"
done
in_range "$budget" 1 86400 || usage "--budget takes a number of seconds, not $budget"
case "$out" in "" | /*) ;; *) out=$start_dir/$out ;; esac

# Published counts, OEIS A000170 (total) and A002562 (unique), index N. Kept here rather than
# taken from the binary so that a wrong table in the binary cannot agree with itself.
pub_total=(- 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596 2279184 14772512 95815104
    666090624 4968057848 39029188884 314666222712 2691008701644 24233937684440
    227514171973736 2207893435808352 22317699616364044 234907967154122528)
pub_unique=(- 1 0 0 1 2 1 6 12 46 92 341 1787 9233 45752 285053 1846955 11977939 83263591
    621012754 4878666808 39333324973 336376244042 3029242658210 28439272956934
    275986683743434 2789712466510289 29363495934315694)

log_file="" fails=() notes=()
log() {
    echo "gpu-check: $*" >&2
    if [ -n "$log_file" ]; then echo "gpu-check: $*" >>"$log_file"; fi
}
fail() { fails+=("$*"); log "FAIL: $*"; }
note() { notes+=("$*"); log "$*"; }
# Seconds since the start, and arithmetic on decimals (awk: a bare machine may have no bc).
elapsed() { awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
is_true() { awk "BEGIN { exit !($1) }"; }
# Runs "$@" for at most $1 seconds (then TERM, and KILL 5 s later); 124 or 137 when stopped.
limited() {
    local secs=$1
    shift
    if command -v timeout >/dev/null; then timeout -k 5 "$secs" "$@"; else "$@"; fi
}

bin=${NQUEENS:-target/release/nqueens}
if [ ! -x "$bin" ]; then
    log "building $bin"
    cargo build --release --quiet
fi

devices_err=$(mktemp)
trap 'rm -f "$devices_err"' EXIT
devices=$("$bin" devices 2>"$devices_err") || log "\`nqueens devices\` exited $?"
printf '%s\n' "$devices" | sed 's/^/  /' >&2
if [ -z "$device" ]; then
    device=$(echo "$devices" | awk -F: '/, GPU, / { print $1; exit }')
    if [ -z "$device" ] && [ "$any" = 1 ]; then
        device=$(echo "$devices" | awk -F: '/^[0-9]+:/ { print $1; exit }')
    fi
fi
line=""
[ -z "$device" ] || line=$(echo "$devices" | grep "^$device: " || true)
missing=""
if [ -z "$line" ]; then
    if [ -n "$device" ]; then
        missing="no OpenCL device $device"
    elif echo "$devices" | grep -q '^[0-9]*: '; then
        missing="no OpenCL GPU (pass --any-device to accept another kind)"
    else
        missing="no OpenCL platform or device"
    fi
elif [ "$any" != 1 ] && ! echo "$line" | grep -q ', GPU, '; then
    missing="OpenCL device $device is not a GPU: $line (pass --any-device to check it anyway)"
fi
if [ -n "$line" ]; then
    name=$(echo "$line" | sed -E 's/^[0-9]+: (.*) \([^)]*\), [^,]+, .*$/\1/')
else
    name=none
fi
slug=$(echo "$name" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//' | cut -c1-40)
out=${out:-results/$(date -u +%F)-gpu-$slug}
mkdir -p "$out"
log_file=$out/log.txt
: >"$log_file"
cat "$devices_err" >>"$log_file"
echo "$devices" >"$out/devices.txt"

{
    echo "date: $(date -u +%FT%TZ)"
    echo "device: ${line:-none}"
    echo "host: $(uname -n), $(nproc) logical CPUs, $(uname -sr)"
    grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/^model name\s*:/cpu:/' || true
    echo "C library of the machine: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L 2>&1 | sed 's/^/nvidia-smi: /' || true
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit \
            --format=csv,noheader 2>&1 | sed 's/^/nvidia-smi: /' || true
    fi
    echo "binary: $("$bin" --version 2>/dev/null || echo "$bin")"
    if [ -n "${NQUEENS_BUNDLE:-}" ] && [ -f "$NQUEENS_BUNDLE/BUILD.txt" ]; then
        sed 's/^/bundle /' "$NQUEENS_BUNDLE/BUILD.txt"
    fi
} >"$out/machine.txt"

# Where OpenCL was looked for and what is there, for a machine where no GPU was found.
diagnose() {
    local vend=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
    local path=${NQUEENS_BUNDLE_PATH:-${LD_LIBRARY_PATH:-}}
    local -a dirs names=()
    local d f lib found
    IFS=: read -ra dirs <<<"$path"
    section() { printf '\n== %s\n' "$*"; }
    # The full path of library $1 as the loader would find it: the library path, ldconfig's
    # cache, the default folders.
    resolve() {
        case "$1" in /*) [ ! -e "$1" ] || echo "$1"; return 0 ;; esac
        for d in "${dirs[@]}"; do
            [ -n "$d" ] && [ -e "$d/$1" ] && { echo "$d/$1"; return; }
        done
        local cached
        cached=$({ ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true; } |
            awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }')
        [ -z "$cached" ] || { echo "$cached"; return; }
        for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
            [ -e "$d/$1" ] && { echo "$d/$1"; return; }
        done
        return 0
    }
    # Each .icd file of folder $1, the library it names, and that library's dependencies.
    icds() {
        if [ ! -d "$1" ]; then echo "(no folder $1)"; return; fi
        local any_icd=0
        for f in "$1"/*.icd; do
            [ -e "$f" ] || continue
            any_icd=1
            lib=$(head -1 "$f")
            names+=("$(basename "$lib")")
            echo "$f: $lib"
            found=$(resolve "$lib")
            if [ -z "$found" ]; then
                echo "  $lib: NOT FOUND (searched ${path:-no library path}, ldconfig's cache, /lib, /usr/lib and their x86_64-linux-gnu and 64 folders)"
                continue
            fi
            echo "  found: $(ls -lL "$found" 2>&1)"
            echo "  its dependencies, as the loader that runs nqueens resolves them:"
            if [ -n "${NQUEENS_BUNDLE_LOADER:-}" ]; then
                "$NQUEENS_BUNDLE_LOADER" --library-path "$NQUEENS_BUNDLE_PATH" --list "$found" 2>&1
            else
                ldd "$found" 2>&1
            fi | head -40 | sed 's/^/    /'
        done
        [ "$any_icd" = 1 ] || echo "(no .icd file in $1)"
    }
    {
        echo "gpu-check: $missing. Where OpenCL was looked for, and what is there:"
        section "nqueens devices ($bin)"
        echo "$devices"
        cat "$devices_err"
        section "environment"
        for v in OCL_ICD_VENDORS OCL_ICD_FILENAMES OPENCL_DYLIB_PATH LD_LIBRARY_PATH \
            NQUEENS_BUNDLE_PATH NQUEENS_BUNDLE_LOADER; do
            echo "$v=${!v-(unset)}"
        done
        section "vendors files in $vend (the drivers the OpenCL loader opens)"
        icds "$vend"
        if [ "$vend" != /etc/OpenCL/vendors ]; then
            section "/etc/OpenCL/vendors (not read: OCL_ICD_VENDORS is set)"
            icds /etc/OpenCL/vendors
        fi
        section "OpenCL, NVIDIA and CUDA libraries in the library path (${path:-empty})"
        for d in "${dirs[@]}"; do
            [ -n "$d" ] || continue
            ls -l "$d"/libnvidia-opencl.so* "$d"/libcuda.so* "$d"/libOpenCL.so* \
                "$d"/libnvidia-ptxjitcompiler.so* "$d"/libpocl.so* 2>/dev/null || true
        done
        section "ldconfig -p: OpenCL, NVIDIA, CUDA and PoCL libraries"
        { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || echo "(no ldconfig)"; } |
            grep -E 'OpenCL|nvidia|libcuda|pocl|Cache generated' | head -60 || echo "(none)"
        section "nvidia-smi -L"
        if command -v nvidia-smi >/dev/null; then nvidia-smi -L 2>&1 || true; else echo "(no nvidia-smi)"; fi
        section "/proc/driver/nvidia/version"
        cat /proc/driver/nvidia/version 2>&1 || true
        section "/dev/nvidia*"
        ls -l /dev/nvidia* 2>&1 || true
        section "/usr/local/nvidia"
        if [ -d /usr/local/nvidia ]; then
            find /usr/local/nvidia -maxdepth 3 2>&1 | head -100
        else
            echo "(no /usr/local/nvidia)"
        fi
        section "C libraries"
        echo "machine: $(getconf GNU_LIBC_VERSION 2>/dev/null || echo unknown)"
        if [ -n "${NQUEENS_BUNDLE_LOADER:-}" ]; then
            echo "carried: $("$NQUEENS_BUNDLE_LOADER" --version 2>&1 | head -1)"
        fi
        section "the loader's search for the vendors' libraries during \`nqueens devices\` (LD_DEBUG=libs)"
        if [ ${#names[@]} -gt 0 ]; then
            local pattern
            pattern=$(printf '%s\n' "${names[@]}" | sed 's/[.]/[.]/g' | paste -sd'|' -)
            LD_DEBUG=libs "$bin" devices 2>&1 >/dev/null |
                grep -E "find library=|calling init:|error|cannot" | grep -v 'symbol lookup error' |
                grep -E "$pattern" | head -40 || echo "(nothing)"
        else
            echo "(no vendors' library to look for)"
        fi
    } >"$out/diagnose.txt" 2>&1
}

# Writes summary.md and prints it; exits 1 if a check failed.
finish() {
    local f
    {
        echo "# GPU check: $name"
        echo
        if [ ${#fails[@]} -eq 0 ]; then
            echo "**Result: OK**"
        else
            echo "**Result: FAILED**"
            echo
            for f in "${fails[@]}"; do echo "- $f"; done
        fi
        if [ ${#notes[@]} -gt 0 ]; then
            echo
            echo "Notes:"
            echo
            for f in "${notes[@]}"; do echo "- $f"; done
        fi
        echo
        echo "\`scripts/gpu-check.sh\` on $(date -u +%F), $(elapsed) s of a budget of $budget s. Machine: see machine.txt."
        if [ -n "$missing" ]; then
            echo
            echo "No check ran: $missing. diagnose.txt says where OpenCL was looked for and what is there."
        else
            echo
            echo "Verify N = 1..$verify_max (total and unique) on device $device: $verify_result."
            echo
            echo "| N | mode | seconds (whole command) | seconds (count, kernels built) | total | unique | units on the device | batches | host s / launch s |"
            echo "|---|---|---|---|---|---|---|---|---|"
            tail -n +2 "$out/times.csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, ($8 == "" ? "" : $8 " of " $7), $9, ($10 == "" ? "" : sprintf("%.3f / %.3f", $10, $11)) }'
            echo
            echo "Host s: the device's worker preparing its batches (taking units, splitting them into sub-problems), the device waiting; launch s: the batches' uploads, kernels and downloads."
            echo
            echo "gpu: \`count N --unique --kernel opencl --opencl-device $device\`; hybrid: \`count N --unique --gpu\` (every GPU$([ "$any" = 1 ] && echo ", here device $device"), beside $(nproc) CPU threads)$([ -n "$batch" ] && echo "; both with \`--opencl-batch $batch\`"). Each count is checked against OEIS A000170 and A002562."
            echo "Targets (issue #12, one H200): N = 21 at most 15 s, N = 22 at most 125 s."
        fi
    } >"$out/summary.md"
    log "wrote $out"
    cat "$out/summary.md"
    [ ${#fails[@]} -eq 0 ] || exit 1
    exit 0
}

if [ -n "$missing" ]; then
    fail "$missing"
    diagnose
    sed 's/^/  /' "$out/diagnose.txt" >&2
    finish
fi
log "device $device: $name; results in $out"

verify_limit=$((budget * 2 / 5))
[ "$verify_limit" -ge 1 ] || verify_limit=1
log "verify N = 1..$verify_max on device $device (at most $verify_limit s)"
status=0
limited "$verify_limit" "$bin" verify --max "$verify_max" --unique --kernel opencl \
    --opencl-device "$device" >"$out/verify.txt" 2>>"$log_file" || status=$?
cat "$out/verify.txt" >&2
case "$status" in
    0) verify_result="all OK" ;;
    124 | 137) verify_result="stopped after $verify_limit s (40 % of the budget), see verify.txt"
        fail "verify did not finish in $verify_limit s" ;;
    *) verify_result="FAILED (exit $status), see verify.txt and log.txt"
        fail "verify N = 1..$verify_max exited $status" ;;
esac

echo "n,mode,seconds,count_seconds,total,unique,units,device_units,batches,host_s,launch_s" >"$out/times.csv"
: >"$out/counts.jsonl"
# One timed count: mode (gpu, hybrid), N, seconds allowed; checks it, appends a row to times.csv.
declare -A last_n last_secs
time_one() {
    local mode=$1 n=$2 limit=$3 flags rc=0 json t0 t1 secs
    case "$mode" in
        gpu) flags=(--kernel opencl --opencl-device "$device") ;;
        hybrid) flags=(--gpu); [ "$any" = 1 ] && flags+=(--opencl-device "$device") ;;
    esac
    [ -z "$batch" ] || flags+=(--opencl-batch "$batch")
    t0=$(date +%s.%N)
    json=$(limited "$limit" "$bin" count "$n" --unique --json --yes "${flags[@]}" 2>>"$log_file") || rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        note "N = $n $mode stopped after ${secs}s: the budget ran out"
        echo "$n,$mode,stopped,,,,,,,," >>"$out/times.csv"
        return
    elif [ "$rc" != 0 ]; then
        fail "N = $n $mode: count exited $rc (see log.txt)"
        echo "$n,$mode,failed,,,,,,,," >>"$out/times.csv"
        return
    fi
    echo "$json" >>"$out/counts.jsonl"
    # Fields of the one-line JSON: the first "units" is the job's (it comes before "devices").
    field() { echo "$json" | grep -o "\"$1\":[0-9.e+-]*" | head -1 | cut -d: -f2; }
    local total unique units count_secs entry dev_units build batches host launch
    total=$(field total) unique=$(field unique) units=$(field units)
    count_secs=$(awk -v s="$(field elapsed_s)" 'BEGIN { printf "%.3f", s }')
    # This device's entry of "devices": [{"index":I,...,"units":U,"build_s":B,"batches":K,
    # "host_s":H,"launch_s":L[,"error":E]},...]
    entry=$(echo "$json" | grep -o '"devices":\[.*\]' | sed 's/},{/}\n{/g' | grep "\"index\":$device," || true)
    dev_units=$(echo "$entry" | grep -o '"units":[0-9]*' | head -1 | cut -d: -f2)
    build=$(echo "$entry" | grep -o '"build_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
    # The device's batches, and the seconds its worker prepared them (the device waiting)
    # against the seconds of their launches.
    batches=$(echo "$entry" | grep -o '"batches":[0-9]*' | head -1 | cut -d: -f2)
    host=$(echo "$entry" | grep -o '"host_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
    launch=$(echo "$entry" | grep -o '"launch_s":[0-9.e+-]*' | head -1 | cut -d: -f2)
    dev_units=${dev_units:-0} build=${build:-0}
    echo "$n,$mode,$secs,$count_secs,$total,$unique,$units,$dev_units,$batches,$host,$launch" >>"$out/times.csv"
    log "N = $n $mode: ${secs}s ($total $unique; $dev_units of $units units on device $device)"
    if [ "$total" != "${pub_total[$n]}" ] || [ "$unique" != "${pub_unique[$n]}" ]; then
        fail "N = $n $mode counted $total $unique; the published counts are ${pub_total[$n]} ${pub_unique[$n]}"
    fi
    if [ -z "$entry" ]; then
        fail "N = $n $mode: device $device is not in the count's devices"
    elif echo "$entry" | grep -q '"error":'; then
        fail "N = $n $mode: device $device failed: $(echo "$entry" | sed 's/.*"error"://; s/}$//')"
    elif [ "$dev_units" = 0 ]; then
        # Beside CPU threads a device takes units only once its kernels are built: a short count
        # may end first.
        if [ "$mode" = gpu ] || is_true "$(field elapsed_s) > $build + 5"; then
            fail "N = $n $mode: device $device counted no units (kernels built in ${build}s, count ${count_secs}s)"
        else
            note "N = $n $mode: device $device counted no units: the count (${count_secs}s) ended within 5 s of its kernel build (${build}s)"
        fi
    fi
    last_n[$mode]=$n last_secs[$mode]=$secs
}

for n in $sizes; do
    for mode in gpu hybrid; do
        left=$(calc "$budget - $(elapsed)")
        est=0
        if [ -n "${last_n[$mode]:-}" ]; then
            # The time grows about as the number of solutions (the last size's total is at least 1).
            est=$(calc "${last_secs[$mode]} * ${pub_total[$n]} / (${pub_total[${last_n[$mode]}]} + (${pub_total[${last_n[$mode]}]} == 0))")
        fi
        if is_true "$left < 1 || $est > $left"; then
            note "N = $n $mode skipped: estimated ${est}s, ${left}s of the budget left"
            echo "$n,$mode,skipped,,,,,,,," >>"$out/times.csv"
            continue
        fi
        time_one "$mode" "$n" "$(awk -v l="$left" 'BEGIN { printf "%d", l + 1 }')"
    done
done
finish
