#!/usr/bin/env bash
# Tests the cluster recipes for real, on this machine: a one-node Slurm cluster runs the job
# array of scripts/slurm/ (N = 12 in 8 shards; N = 16 in 2 shards, one of them stopped by its
# time-limit warning and requeued; the same with every shard computed twice, --replicas 2) and
# the merge job; GNU parallel runs scripts/gnu-parallel.sh (N = 12 in 8 shards, then again after
# a shard file is lost, then with --replicas 2). Every total must be the published one.
#
# Needs root (it installs Debian's slurm-wlm, munge and parallel when missing and runs the
# daemons). munged, slurmctld and slurmd run in the foreground, without systemd, with every
# state, spool, log, pid and socket path in a temporary directory; every process this script
# starts is stopped by its PID on exit. Set KEEP=1 to keep the directory for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
    echo "test-cluster: needs root (to run munged, slurmctld and slurmd)" >&2
    exit 1
fi
log() { echo "test-cluster: $*"; }

missing=()
command -v slurmctld >/dev/null && command -v slurmd >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
command -v parallel >/dev/null || missing+=(parallel)
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

cargo build --release --quiet
export NQUEENS=$PWD/target/release/nqueens

tmp=$(mktemp -d /tmp/nqueens-cluster.XXXXXX)
chmod 755 "$tmp"
pids=()
jobs_submitted=()
cleanup() {
    local rc=$?
    set +e
    if [ ${#jobs_submitted[@]} -gt 0 ]; then
        scancel "${jobs_submitted[@]}" 2>/dev/null
        sleep 1
    fi
    for ((k = ${#pids[@]} - 1; k >= 0; k--)); do
        kill "${pids[k]}" 2>/dev/null
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null
    done
    if [ "$rc" != 0 ]; then
        # Every job's logs: the daemons', then each test's shards and merge.
        for f in "$tmp"/*.log "$tmp"/*/*.log; do
            [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
        done
    fi
    if [ -n "${KEEP:-}" ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
    exit "$rc"
}
trap cleanup EXIT

# munge: a fresh key and a private socket.
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --key-file="$tmp/munge/munge.key" \
    --socket="$tmp/munge/munge.socket" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munge.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)

# Slurm: one node, this machine; free ports picked at random in a quiet range.
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=nqueens-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SchedulerParameters=sched_interval=1
MinJobAge=600
NodeName=nqnode NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N nqnode -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
log "waiting for the Slurm node"
for ((t = 0; ; t++)); do
    state=$(sinfo -h -n nqnode -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    if [ "$t" -ge 60 ]; then
        log "Slurm did not come up (node state '$state')"
        exit 1
    fi
    sleep 1
done
log "Slurm is up after ${t}s"

# Waits until Slurm job $1 (all its array tasks) has left the queue; fails after $2 seconds.
wait_job() {
    for ((t = 0; t < $2; t++)); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 1
    done
    log "job $1 still queued after $2 s"
    squeue
    return 1
}
# The state of Slurm job $1.
job_state() {
    scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1
}
# Releases the requeued array task $1 at once (Slurm holds a requeued job back for a while), but
# not within the second of its requeue: slurmd refuses a launch whose credential dates from the
# second in which the last one was revoked, killing the task ("Job credential revoked", seen in
# a CI run on 2026-12-04, the release 0.5 s after the requeue).
release_requeued() {
    sleep 2
    if ! out=$(scontrol update JobId="$1" StartTime=now 2>&1); then
        # It may have started on its own meanwhile; still pending means a real failure.
        [ "$(job_state "$1")" != PENDING ] || { log "could not release $1: $out"; exit 1; }
    fi
}
# Checks that result file $1 holds total $2.
check_total() {
    grep -q "\"total\":$2," "$1" || {
        log "wrong total in $1: $(cat "$1")"
        exit 1
    }
}

log "Slurm: N = 12 in 8 shards, then the merge"
read -r array merge < <(scripts/slurm/submit.sh 12 8 "$tmp/slurm-job")
jobs_submitted+=("$array" "$merge")
wait_job "$merge" 180
[ "$(job_state "$merge")" = COMPLETED ] || { log "merge job: $(job_state "$merge")"; exit 1; }
check_total "$tmp/slurm-job/result.json" 14200
log "Slurm: merged total 14200 OK"
# nqueens status on the job's folder (its logs, result.json and lock-free files beside the
# shards): every shard finished, every unit done, the whole estimated work.
status=$("$NQUEENS" status --json "$tmp/slurm-job")
for want in '"shards":8,' '"finished":[0,1,2,3,4,5,6,7],' '"not_started":[],' \
    '"estimated_share_done":1.0,'; do
    grep -qF "$want" <<<"$status" || { log "status lacks $want: $status"; exit 1; }
done
log "Slurm: status of the finished job OK"

log "Slurm: a shard warned before its time limit saves its checkpoint and is requeued"
# N = 16 in 2 shards, slow enough to be stopped (plain, depth first: seconds): the warning is sent by hand (scancel -b -s
# USR1, as Slurm does at --signal=B:USR1@120), the task requeues itself and resumes.
read -r array merge < <(CHECKPOINT_EVERY=1000 PROGRESS_EVERY=0.2 \
    scripts/slurm/submit.sh 16 2 "$tmp/slurm-requeue" -- --method plain --kernel dfs)
jobs_submitted+=("$array" "$merge")
# Once the count reports progress, the batch script has set its signal traps.
for ((t = 0; ; t++)); do
    grep -qs "progress:" "$tmp/slurm-requeue/shard-0.log" && break
    if [ "$t" -ge 120 ]; then
        log "shard 0 reported no progress in 60 s"
        exit 1
    fi
    sleep 0.5
done
# While the shards run: status reads their files (never their locks) and says how far.
status=$("$NQUEENS" status --json "$tmp/slurm-requeue")
grep -qF '"shards":2,' <<<"$status" || { log "status of the running job: $status"; exit 1; }
scancel -b -s USR1 "${array}_0"
for ((t = 0; ; t++)); do
    [ "$(job_state "${array}_0")" = PENDING ] && break
    if [ "$t" -ge 60 ]; then
        log "shard 0 was not requeued within 30 s (state $(job_state "${array}_0"))"
        exit 1
    fi
    sleep 0.5
done
release_requeued "${array}_0"
wait_job "$merge" 300
[ "$(job_state "$merge")" = COMPLETED ] || { log "merge job: $(job_state "$merge")"; exit 1; }
grep -q "stopped by signal 15" "$tmp/slurm-requeue/shard-0.log" || { log "shard 0 was not stopped"; exit 1; }
grep -q "requeueing" "$tmp/slurm-requeue/shard-0.log" || { log "shard 0 was not requeued"; exit 1; }
grep -q "resuming from" "$tmp/slurm-requeue/shard-0.log" || { log "shard 0 did not resume"; exit 1; }
check_total "$tmp/slurm-requeue/result.json" 14772512
log "Slurm: requeued shard resumed, merged total 14772512 OK"

log "Slurm: replicas: N = 16 in 2 shards, each computed twice at once (srun), one task requeued"
# Both replicas of shard 0 report their split (their signal handlers are set by then) before
# the warning; both stop (SIGINT through Slurm), saving their checkpoints, the task requeues and
# both resume.
read -r array merge < <(CHECKPOINT_EVERY=1000 PROGRESS_EVERY=0.2 \
    scripts/slurm/submit.sh 16 2 "$tmp/slurm-replicas" --replicas 2 -- --method plain --kernel dfs \
    2>/dev/null)
jobs_submitted+=("$array" "$merge")
for ((t = 0; ; t++)); do
    [ "$(grep -cs "shard 0/2: 1118 of 2236 units" "$tmp/slurm-replicas/shard-0.log")" = 2 ] &&
        grep -qs "progress:" "$tmp/slurm-replicas/shard-0.log" && break
    if [ "$t" -ge 120 ]; then
        log "the replicas of shard 0 did not both start in 60 s"
        exit 1
    fi
    sleep 0.5
done
scancel -b -s USR1 "${array}_0"
for ((t = 0; ; t++)); do
    [ "$(job_state "${array}_0")" = PENDING ] && break
    if [ "$t" -ge 60 ]; then
        log "shard 0 was not requeued within 30 s (state $(job_state "${array}_0"))"
        exit 1
    fi
    sleep 0.5
done
release_requeued "${array}_0"
wait_job "$merge" 300
[ "$(job_state "$merge")" = COMPLETED ] || { log "merge job: $(job_state "$merge")"; exit 1; }
r=$tmp/slurm-replicas
grep -q "requeueing" "$r/shard-0.log" || { log "shard 0 was not requeued"; exit 1; }
# Each replica resumed from its own checkpoint. (Their "stopped by signal 2" lines are not
# checked: Slurm's log of a step signalled through scancel sometimes lacks a task's last line.)
for c in shard-0-of-2.ckpt shard-0-of-2.r1.ckpt; do
    grep -q "resuming from $r/$c" "$r/shard-0.log" || { log "$c was not resumed"; exit 1; }
done
for f in shard-0-of-2.json shard-0-of-2.r1.json shard-1-of-2.json shard-1-of-2.r1.json; do
    [ -s "$r/$f" ] || { log "replica file $f missing"; exit 1; }
done
check_total "$r/result.json" 14772512
grep -q '"files":4,"replicated_shards":2,' "$r/result.json" || {
    log "replicas not compared: $(cat "$r/result.json")"
    exit 1
}
log "Slurm: replicas agreed, merged total 14772512 OK"

log "GNU parallel: N = 12 in 8 shards"
scripts/gnu-parallel.sh 12 8 "$tmp/parallel" >/dev/null
check_total "$tmp/parallel/result.json" 14200
# A lost shard file: the rerun computes only what is missing (--joblog --resume-failed does
# not rerun finished shards; the lost one is rebuilt from its checkpoint).
rm "$tmp/parallel/shard-3-of-8.json" "$tmp/parallel/result.json"
sed -i '/--shard 3\/8 /d' "$tmp/parallel/joblog"
scripts/gnu-parallel.sh 12 8 "$tmp/parallel" >/dev/null
check_total "$tmp/parallel/result.json" 14200
log "GNU parallel: merged total 14200 OK"
log "GNU parallel: N = 12 in 8 shards, each computed twice"
scripts/gnu-parallel.sh 12 8 "$tmp/parallel-replicas" --replicas 2 >/dev/null
check_total "$tmp/parallel-replicas/result.json" 14200
grep -q '"files":16,"replicated_shards":8,' "$tmp/parallel-replicas/result.json" || {
    log "replicas not compared: $(cat "$tmp/parallel-replicas/result.json")"
    exit 1
}
log "GNU parallel: replicas agreed, merged total 14200 OK"
log "all passed"
