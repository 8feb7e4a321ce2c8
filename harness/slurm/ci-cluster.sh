#!/bin/bash
# harness/slurm/ci-cluster.sh: the Slurm recipe on a real Slurm, for CI
# (.ci/run) on a machine without a GPU; never part of make check.
#
#   bash harness/slurm/ci-cluster.sh [CLASS_SIZE]
#
# Installs Debian's slurm-wlm and munge where they are missing (as root,
# apt-get update first), starts a single-node cluster by hand in a scratch
# folder (munged, slurmctld, slurmd: no systemd; a count-only gpu GRES,
# AutoDetect=off, Name=gpu Count=1 File=/dev/null; proctrack/linuxproc,
# task/none, no cgroup.conf), then grades CLASS_SIZE (default 16)
# submissions of the grading corpus with --build-only through
# harness/slurm/submit.sh (a 4-task array, then the afterany merge job),
# and checks that the merged grades.csv equals a one-machine --build-only
# grading of the same class with the same seed. The daemons it started
# are stopped on every exit (trap), failure included.
#
# Exit 0: the check passed. Exit 1: it failed. Exit 0 with a loud SKIPPED
# block when Slurm cannot be installed or started here (not root, no
# apt-get, no network): CI says so, and the recipe went untested.
set -eu
cd "$(dirname "$0")/../.."
REPO=$(pwd)
SIZE=${1:-16}
TASKS=4
SEED=20261201
ARCH=75
say() { echo "slurm-ci: $*"; }
skip() {
    echo "slurm-ci: ================================================================"
    echo "slurm-ci: SKIPPED: the Slurm recipe was NOT tested on a real Slurm: $*"
    echo "slurm-ci: ================================================================"
    exit 0
}
t0=$(date +%s.%N)
elapsed() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)"; }

[ -d harness/grade-tests/corpus ] ||
    skip "this copy has no grading corpus (harness/grade-tests/corpus: a student's copy)"

# ---- the packages ----------------------------------------------------------
need=()
for p in slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-client munged:munge; do
    command -v "${p%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${p%%:*}" ] || need+=("${p#*:}")
done
if [ "${#need[@]}" -gt 0 ]; then
    [ "$(id -u)" = 0 ] || skip "not root, and ${need[*]} missing"
    command -v apt-get >/dev/null || skip "no apt-get to install ${need[*]}"
    say "installing slurm-wlm munge (apt-get)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; } ||
        skip "apt-get could not install slurm-wlm munge"
fi
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to start jobs as their user"
PATH=/usr/sbin:$PATH

# ---- the cluster -----------------------------------------------------------
work=$(mktemp -d /tmp/slurm-ci.XXXXXX)
chmod 755 "$work"
pids=()
stop() {
    rc=$?
    # The jobs first, while slurmd can still end them (and their grade.py,
    # which kills its compiles on SIGTERM); then the daemons.
    if [ -n "${SLURM_CONF:-}" ] && [ "${#pids[@]}" -ge 3 ]; then
        jobs=$(squeue -h -o %A 2>/dev/null || true)
        if [ -n "$jobs" ]; then
            # shellcheck disable=SC2086
            scancel $jobs 2>/dev/null || true
            for _ in $(seq 40); do
                squeue -h 2>/dev/null | grep -q . || break
                sleep 0.25
            done
        fi
    fi
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$rc" != 0 ]; then
        for log in "$work"/slurmctld.log "$work"/slurmd.log "$work"/munged.log; do
            [ -f "$log" ] && { echo "--- $log (last lines)"; tail -n 15 "$log"; }
        done
    fi
    rm -rf "$work"
    exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

host=$(hostname -s)
port=${SLURM_CI_PORT:-6817}
mkdir -p "$work/munge" "$work/state" "$work/spool"
# munged: its own key and socket in the scratch folder, as root (--force:
# the key and folders are root's, which munged otherwise refuses).
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$work/munge"; chmod 400 "$work/munge/munge.key"
sock="$work/munge/munge.socket"
# started NAME PIDFILE: records the daemon's pid once its pid file is
# written (the daemons fork), or skips with its log's last lines.
started() {
    for _ in $(seq 100); do
        if [ -s "$2" ]; then pids+=("$(cat "$2")"); return 0; fi
        sleep 0.1
    done
    tail -n 5 "$work/$1.log" 2>/dev/null || true
    skip "$1 would not start (its log's last lines are above)"
}
munged --force --key-file="$work/munge/munge.key" --socket="$sock" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" \
    --seed-file="$work/munge/munged.seed" || true
started munged "$work/munge/munged.pid"
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
cat >"$work/slurm.conf" <<CONF
ClusterName=ci
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=600
NodeName=$host CPUs=$cpus RealMemory=$mem Gres=gpu:1 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$work/gres.conf" <<CONF
AutoDetect=off
Name=gpu Count=1 File=/dev/null
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -i -f "$SLURM_CONF" || true
started slurmctld "$work/slurmctld.pid"
slurmd -f "$SLURM_CONF" || true
started slurmd "$work/slurmd.pid"
up=0
for _ in $(seq 100); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
    case "$state" in idle*|mix*|alloc*) up=1; break ;; esac
    sleep 0.2
done
[ "$up" = 1 ] || skip "the node did not come up (state: ${state:-none}; another Slurm on port $port? set SLURM_CI_PORT)"
say "single-node cluster up on $host ($cpus CPUs, 1 count-only gpu GRES) in $(elapsed) s"

# ---- the class, graded through the array and on one machine ---------------
class="$work/class"
mkdir -p "$class"
find harness/grade-tests/corpus -mindepth 2 -maxdepth 2 -name threeway.cu -type f |
    sort | head -n "$SIZE" | while read -r f; do
        cp -r "$(dirname "$f")" "$class/"
    done
got=$(find "$class" -mindepth 1 -maxdepth 1 -type d | wc -l)
out="$work/out-slurm"
chmod -R a+rX "$work"
t1=$(date +%s.%N)
# The node has as few as 2 CPUs: the tasks ask for one each (the
# recipe's own requests are a real cluster's).
SEED=$SEED ARCH=$ARCH GRADE_FLAGS=--build-only \
    SBATCH_FLAGS="--cpus-per-task=1 --mem=1G --time=00:10:00" \
    bash harness/slurm/submit.sh "$class" "$out" any "$TASKS" >"$work/submit.log" 2>&1 ||
    { say "FAIL: submit.sh failed:"; cat "$work/submit.log"; exit 1; }
sed '$d' "$work/submit.log"
ids=$(tail -n 1 "$work/submit.log")
merge=${ids#* }
done=0
for _ in $(seq 1200); do
    squeue -h -j "$merge" 2>/dev/null | grep -q . || { done=1; break; }
    sleep 0.25
done
if [ "$done" = 0 ]; then
    say "FAIL: the jobs did not end within 300 s:"
    squeue -o "%i %j %T %r" || true
    exit 1
fi
slurm_s=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t1" "$(date +%s.%N)")
for log in "$out"/logs/merge-*.log; do
    [ -f "$log" ] && tail -n 4 "$log" | sed 's/^/  merge job: /'
done
if [ ! -f "$out/grades.csv" ]; then
    say "FAIL: the merge job wrote no grades.csv"
    for log in "$out"/logs/*.log; do echo "--- $log"; tail -n 10 "$log"; done
    exit 1
fi
one="$work/out-one"
python3 harness/grade.py "$class" --out "$one" --build-only --seed "$SEED" \
    --arch "$ARCH" --jobs 2 >"$work/one.log" 2>&1 || {
    say "FAIL: the one-machine grading failed"; tail -n 20 "$work/one.log"; exit 1; }
if cmp -s "$out/grades.csv" "$one/grades.csv"; then
    rows=$(($(wc -l <"$one/grades.csv") - 1))
    say "ok: $got submissions, a $TASKS-task array and its afterany merge on a real Slurm in $slurm_s s: the merged grades.csv ($rows rows) equals one machine's, same seed"
else
    say "FAIL: the merged grades.csv differs from one machine's:"
    diff "$one/grades.csv" "$out/grades.csv" | head -n 20
    exit 1
fi
# A task that left no shard: the merge job names it and merges nothing.
part="$work/out-part"
cp -r "$out" "$part"
rm -rf "$part/shard-2" "$part/grades.csv"
if OUT=$part TASKS=$TASKS ARRAY_JOB=1 bash harness/slurm/merge.sh >"$work/part.log" 2>&1 ||
        ! grep -q "task(s) 2 of job 1" "$work/part.log" || [ -f "$part/grades.csv" ]; then
    say "FAIL: a missing shard was not named by the merge job:"; cat "$work/part.log"; exit 1
fi
say "ok: the merge job names a task that left no shard, and merges nothing: $(head -n 1 "$work/part.log")"
say "done in $(elapsed) s; stopping the daemons"
