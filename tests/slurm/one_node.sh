#!/usr/bin/env bash
# A one-node Slurm cluster on localhost, with its own configuration, keys, state and logs under a
# temporary folder, for CI: it runs the shipped examples/cluster/slurm.sh as a plain array
# (--array=0-3) and as a stepped one (--array=0-6:2), merges each one's shards and checks that
# the merged file equals the unsharded study byte for byte. It stops only the daemons it started.
#
# Needs root (slurmd starts the jobs) and Debian's slurmctld, slurmd, slurm-client and munge;
# .ci/run installs them. Run from the project folder after `cargo build --release`:
#   bash tests/slurm/one_node.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
program="$PWD/target/release/agentbox"
[ -x "$program" ] || { echo "one_node.sh: build first: cargo build --release" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "one_node.sh: run as root (slurmd starts jobs as their user)" >&2; exit 1; }

tmp="$(mktemp -d /tmp/agentbox-slurm.XXXXXX)"
pids=()
stop() {
  status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  if [ "$status" -ne 0 ]; then
    for log in "$tmp"/*.log; do echo "== $log"; tail -n 20 "$log"; done >&2
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap stop EXIT

echo "== munge, with its own key and socket"
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 0400 "$tmp/munge.key"
munged --force --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed"
pids+=("$(cat "$tmp/munged.pid")")

echo "== slurmctld and slurmd on localhost"
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=agentbox-ci
SlurmctldHost=localhost
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost CPUs=2 RealMemory=2048 State=UNKNOWN
PartitionName=ci Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF"
for _ in $(seq 50); do [ -s "$tmp/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmctld.pid")")
slurmd -f "$SLURM_CONF" -N localhost
for _ in $(seq 50); do [ -s "$tmp/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmd.pid")")
for _ in $(seq 100); do
  state="$(sinfo -h -n localhost -o %t 2>/dev/null || true)"
  [ "$state" = "idle" ] && break
  sleep 0.2
done
[ "$state" = "idle" ] || { echo "one_node.sh: the node is '$state', not idle" >&2; exit 1; }
echo "node localhost is idle"

# A small study: the shipped script with fewer seeds and ticks, and the program given by path.
export AGENTBOX="$program" SEEDS="1..40" TICKS="120"
echo "== the unsharded study"
"$program" compare scenes/pursuit.yaml --variant chaser \
  --variant interceptor:scripts/plain_chaser.lua=scripts/interceptor.lua \
  --seeds "$SEEDS" --ticks "$TICKS" --out "$tmp/whole.jsonl" 2>/dev/null

# Submits examples/cluster/slurm.sh as `--array=$1`, waits for it, merges its shards and
# compares the merged file with the unsharded study, byte for byte.
array_equals_unsharded() {
  local spec="$1" results="$tmp/results-${1//[^0-9]/_}"
  echo "== sbatch --array=$spec examples/cluster/slurm.sh"
  RESULTS="$results" timeout 600 sbatch --wait --array="$spec" \
    --output="$tmp/task-%A_%a.log" examples/cluster/slurm.sh
  ls "$results"
  "$program" merge "$results"/shard-*.jsonl --out "$tmp/merged.jsonl"
  cmp "$tmp/whole.jsonl" "$tmp/merged.jsonl"
  echo "merged shards of --array=$spec equal the unsharded study byte for byte"
}
array_equals_unsharded 0-3
array_equals_unsharded 0-6:2

echo "== a listed array is refused, and says what to do"
if RESULTS="$tmp/results-listed" timeout 600 sbatch --wait --array=0,3,5 \
  --output="$tmp/listed-%a.log" examples/cluster/slurm.sh; then
  echo "one_node.sh: --array=0,3,5 ran; it should have been refused" >&2
  exit 1
fi
grep -h "not evenly spaced" "$tmp"/listed-*.log | head -n 1
echo "slurm: all checks passed"
