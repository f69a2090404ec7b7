#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing the recipes of
# deploy/slurm: munged, slurmctld and slurmd with every file (key, sockets,
# state, spool, logs, pid files) under one directory, so that nothing of the
# machine's own Slurm or MUNGE set-up is touched. Debian 12's slurm-wlm and
# munge (make setup installs them); root, because slurmd runs jobs as their
# users.
#
#   scripts/slurm-local.sh start DIR   # start; prints the SLURM_CONF to export
#   scripts/slurm-local.sh stop DIR    # stop what start started in DIR
#
# SLURM_LOCAL_PORT (default 16817) is the controller's port; slurmd takes the
# next one. The node is this machine as `slurmd -C` describes it, without
# GPUs: the recipes' GPU request is optional (deploy/README.md).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(realpath -m "$2")

stop() {
  # Each daemon by the pid it wrote, newest first; never by name.
  for name in slurmd slurmctld munged; do
    pidfile="$dir/$name.pid"
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

case "$cmd" in
stop)
  stop
  exit 0
  ;;
start) ;;
*) usage ;;
esac

for bin in munged mungekey slurmctld slurmd sbatch scontrol sinfo; do
  if ! command -v "$bin" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$bin" ]; then
    echo "slurm-local: $bin not found: install Debian's slurm-wlm and munge (make setup)" >&2
    exit 3
  fi
done
if [ "$(id -u)" != 0 ]; then
  echo "slurm-local: slurmd must run as root to run jobs" >&2
  exit 3
fi
export PATH="$PATH:/usr/sbin"

mkdir -p "$dir"/{munge,state,spool,log}
chmod 0755 "$dir" "$dir/munge"
port=${SLURM_LOCAL_PORT:-16817}
node=$(hostname -s)

# MUNGE: a fresh key and a socket of our own.
if [ ! -f "$dir/munge/munge.key" ]; then
  mungekey --create --keyfile="$dir/munge/munge.key" --bits=1024
fi
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"

# The node as slurmd sees it (CPUs, sockets, cores, memory), minus what
# slurmd -C adds after the node line.
nodeline=$(slurmd -C | head -n 1)
cat >"$dir/slurm.conf" <<EOF
ClusterName=vidscreen-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# Dependent jobs start within seconds of the array, not at the next minute.
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=3600
$nodeline NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Slurm reads the gres and cgroup files next to slurm.conf; none are used.
: >"$dir/gres.conf"
rm -f "$dir/cgroup.conf"

export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF"

# Wait until the node takes jobs.
for _ in $(seq 120); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  case "$state" in
  idle* | mix* | alloc*)
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
    ;;
  esac
  sleep 0.5
done
echo "slurm-local: node $node is not up after 60 s (state '${state:-none}'); logs in $dir/log" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
stop
exit 1
