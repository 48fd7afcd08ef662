#!/usr/bin/env bash
# Submits an nqueens count to Slurm as a job array of M shards and a merge job that runs when
# every shard succeeded.
#
#   scripts/slurm/submit.sh N M DIR [sbatch options for the shards...] [-- count options...]
#
# DIR (created; on a file system every node sees) receives the shard files, checkpoints, logs
# and result.json. The nqueens binary is $NQUEENS, else the one on PATH; it must be at the same
# path on every node. Each shard runs on --cpus-per-task threads (default 1). Example, N = 21 in
# 64 shards of 4 cores, 12 hours each at most:
#   scripts/slurm/submit.sh 21 64 "$HOME/q21" --cpus-per-task=4 --time=12:00:00
# Prints the two job ids: "ARRAY_ID MERGE_ID".
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
n=$1
m=$2
dir=$3
shift 3
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    sbatch_opts+=("$1")
    shift
done
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
NQUEENS=$(command -v "${NQUEENS:-nqueens}") || {
    echo "nqueens not found: put it on PATH or set NQUEENS" >&2
    exit 2
}
export NQUEENS
array=$(sbatch --parsable --array="0-$((m - 1))" --chdir="$dir" "${sbatch_opts[@]}" \
    "$here/nqueens-shard.sbatch" "$n" "$dir" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --chdir="$dir" "$here/nqueens-merge.sbatch" "$m" "$dir")
merge=${merge%%;*}
echo "$array $merge"
