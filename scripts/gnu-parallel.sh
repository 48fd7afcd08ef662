#!/usr/bin/env bash
# Runs an nqueens count as M shards with GNU parallel, on this machine or over ssh, then merges.
#
#   scripts/gnu-parallel.sh N M DIR [--sshloginfile FILE] [other parallel options...] [-- count options...]
#
# DIR receives the shard files, their checkpoints, the job log and result.json. Over ssh
# (--sshloginfile, one host a line, as parallel reads it), DIR and the nqueens binary ($NQUEENS,
# else the one on PATH) must be at the same paths on every host (a shared file system).
# Each shard uses $THREADS threads (default 1) and parallel runs one shard per core. Running this
# script is the confirmation that `count` asks (--yes) for a shard of more than an hour of CPU.
#
# Run the same command again after a crash, a reboot or Ctrl-C: --joblog with --resume-failed
# skips the shards that finished and reruns the others, which resume from their checkpoints.
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
n=$1
m=$2
dir=$3
shift 3
par_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    par_opts+=("$1")
    shift
done
[ $# -gt 0 ] && shift
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
seq 0 $((m - 1)) | parallel --will-cite --joblog "$dir/joblog" --resume-failed --retries 2 \
    --halt soon,fail=1 --termseq TERM,10000,KILL,25 "${par_opts[@]}" \
    "$(printf '%q' "$nqueens") count $n --shard {}/$m --quiet --yes --threads ${THREADS:-1}" \
    "--checkpoint $(printf '%q' "$dir")/shard-{}-of-$m.ckpt" \
    "--out $(printf '%q' "$dir")/shard-{}-of-$m.json$extra"
files=()
for ((i = 0; i < m; i++)); do
    files+=("$dir/shard-$i-of-$m.json")
done
"$nqueens" merge --json "${files[@]}" > "$dir/result.json.tmp"
mv "$dir/result.json.tmp" "$dir/result.json"
cat "$dir/result.json"
