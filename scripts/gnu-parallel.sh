#!/usr/bin/env bash
# Runs an nqueens count as M shards with GNU parallel, on this machine or over ssh, then merges.
#
#   scripts/gnu-parallel.sh N M DIR [--replicas R [--replica-sshloginfile FILE]...]
#       [--sshloginfile FILE] [other parallel options...] [-- count options...]
#
# DIR receives the shard files, their checkpoints, the job log and result.json. Over ssh
# (--sshloginfile, one host a line, as parallel reads it), DIR and the nqueens binary ($NQUEENS,
# else the one on PATH) must be at the same paths on every host (a shared file system).
# Each shard uses $THREADS threads (default 1) and parallel runs one shard per core. Running this
# script is the confirmation that `count` asks (--yes) for a shard of more than an hour of CPU.
# --replicas R computes every shard R times (replica K > 0 into shard-I-of-M.rK.json), in R runs
# of parallel side by side; the K-th --replica-sshloginfile gives replica K its own hosts, so
# that the replicas of a shard never share a machine. The merge compares them unit by unit.
#
# Run the same command again after a crash, a reboot or Ctrl-C: --joblog with --resume-failed
# skips the shards that finished and reruns the others, which resume from their checkpoints.
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,18p' "$0" >&2
    exit 2
fi
n=$1
m=$2
dir=$3
shift 3
replicas=1
hosts=()
par_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
        --replicas) replicas=${2:-}; shift ;;
        --replica-sshloginfile) hosts+=("${2:-}"); shift ;;
        *) par_opts+=("$1") ;;
    esac
    shift
done
[ $# -gt 0 ] && shift
if ! [[ "$replicas" =~ ^[1-9][0-9]*$ ]] || [ ${#hosts[@]} -gt "$replicas" ]; then
    echo "--replicas R needs a whole number R >= 1, and at most R --replica-sshloginfile" \
        "(got R = '$replicas' and ${#hosts[@]} files)" >&2
    exit 2
fi
command -v parallel >/dev/null || {
    echo "GNU parallel not found: install it (Debian/Ubuntu: apt-get install parallel;" \
        "Fedora: dnf install parallel; macOS: brew install parallel) or put it on PATH" >&2
    exit 2
}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
nqueens=$(command -v "${NQUEENS:-nqueens}") || {
    echo "nqueens not found: put it on PATH or set NQUEENS" >&2
    exit 2
}
extra=""
for a in "$@"; do
    extra+=" $(printf '%q' "$a")"
done
# The files of replica $1: "" for the first, ".rK" for the others.
suffix() { if [ "$1" = 0 ]; then echo ""; else echo ".r$1"; fi; }
pids=()
for ((r = 0; r < replicas; r++)); do
    x=$(suffix "$r")
    own=()
    [ "$r" -lt ${#hosts[@]} ] && own=(--sshloginfile "${hosts[r]}")
    seq 0 $((m - 1)) | parallel --will-cite --joblog "$dir/joblog$x" --resume-failed --retries 2 \
        --halt soon,fail=1 --termseq TERM,10000,KILL,25 "${par_opts[@]}" "${own[@]}" \
        "$(printf '%q' "$nqueens") count $n --shard {}/$m --quiet --yes --threads ${THREADS:-1}" \
        "--checkpoint $(printf '%q' "$dir")/shard-{}-of-$m$x.ckpt" \
        "--out $(printf '%q' "$dir")/shard-{}-of-$m$x.json$extra" &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
done
[ "$failed" = 0 ] || exit 1
files=()
for ((i = 0; i < m; i++)); do
    for ((r = 0; r < replicas; r++)); do
        files+=("$dir/shard-$i-of-$m$(suffix "$r").json")
    done
done
"$nqueens" merge --json "${files[@]}" > "$dir/result.json.tmp"
mv "$dir/result.json.tmp" "$dir/result.json"
cat "$dir/result.json"
