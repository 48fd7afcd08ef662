#!/usr/bin/env bash
# Submits an nqueens count to Slurm as a job array of M shards and a merge job that runs when
# every shard succeeded.
#
#   scripts/slurm/submit.sh N M DIR [--replicas R] [sbatch options for the shards...] [-- count options...]
#
# DIR (created; on a file system every node sees) receives the shard files, checkpoints, logs
# and result.json. The nqueens binary is $NQUEENS, else the one on PATH; it must be at the same
# path on every node. Each shard runs on --cpus-per-task threads (default 1). --replicas R runs
# every shard R times (R tasks of one array element, on R different nodes when the cluster has
# R nodes), and the merge compares the replicas unit by unit. Example, N = 21 in 64 shards of
# 4 cores, each computed twice, 12 hours each at most:
#   scripts/slurm/submit.sh 21 64 "$HOME/q21" --replicas 2 --cpus-per-task=4 --time=12:00:00
# Prints the two job ids: "ARRAY_ID MERGE_ID".
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
n=$1
m=$2
dir=$3
shift 3
replicas=1
partition=()
sbatch_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case $1 in
        --replicas) replicas=${2:-}; shift ;;
        --replicas=*) replicas=${1#*=} ;;
        *)
            case $1 in
                -p | --partition) partition=(-p "${2:-}") ;;
                -p?*) partition=(-p "${1#-p}") ;;
                --partition=*) partition=(-p "${1#*=}") ;;
            esac
            sbatch_opts+=("$1")
            ;;
    esac
    shift
done
[ $# -gt 0 ] && shift
if ! [[ "$replicas" =~ ^[1-9][0-9]*$ ]]; then
    echo "--replicas needs a whole number of at least 1, got '$replicas'" >&2
    exit 2
fi
for tool in sbatch sinfo; do
    if ! command -v "$tool" >/dev/null; then
        echo "submit: $tool not found: run this on a machine that submits Slurm jobs (with sbatch and sinfo on PATH), or use scripts/gnu-parallel.sh" >&2
        exit 2
    fi
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
NQUEENS=$(command -v "${NQUEENS:-nqueens}") || {
    echo "nqueens not found: put it on PATH or set NQUEENS" >&2
    exit 2
}
export NQUEENS
# Replicas: R tasks per array element, one per node when the cluster (or the partition asked
# for) has R nodes, so that a faulty machine cannot compute both; otherwise on one node.
spread=()
if [ "$replicas" -gt 1 ]; then
    nodes=$(sinfo -h -N -o %N "${partition[@]}" | sort -u | wc -l)
    if [ "$nodes" -ge "$replicas" ]; then
        spread=(--ntasks="$replicas" --nodes="$replicas" --ntasks-per-node=1)
    else
        echo "submit: only $nodes node(s): the $replicas replicas of a shard share a node" >&2
        spread=(--ntasks="$replicas" --nodes=1)
    fi
fi
array=$(sbatch --parsable --array="0-$((m - 1))" --chdir="$dir" "${spread[@]}" \
    "${sbatch_opts[@]}" "$here/nqueens-shard.sbatch" "$n" "$dir" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --chdir="$dir" "$here/nqueens-merge.sbatch" "$m" "$dir" "$replicas")
merge=${merge%%;*}
echo "$array $merge"
