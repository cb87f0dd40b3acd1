#!/usr/bin/env bash
# A single-node Slurm cluster on this host, for trying the sweep runner's Slurm backend and for
# its test: munged, slurmctld and slurmd as root, with their key, state, spool and logs under DIR.
#   bash scripts/slurm_cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   bash scripts/slurm_cluster.sh stop DIR
# Needs root and Debian's slurm-wlm and munge (scripts/setup.sh --slurm installs them). Exit 77
# (the test's "skipped") with the reason when the cluster cannot be started here.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"  # the daemons, for users whose PATH lacks sbin
cmd=${1:-}; dir=${2:-}
[[ ( $cmd == start || $cmd == stop ) && -n $dir ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
skip() { echo "slurm cluster: $*" >&2; exit 77; }

if [[ $cmd == stop ]]; then
  [[ -f $dir/slurm.conf ]] || exit 0
  SLURM_CONF=$dir/slurm.conf scontrol shutdown >/dev/null 2>&1 || true
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do  # whatever did not stop on request
    if [[ -f $dir/$f ]]; then
      pid=$(cat "$dir/$f")
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill "$pid" 2>/dev/null || true
    fi
  done
  munged --stop --socket="$dir/munge/socket" >/dev/null 2>&1 || true
  exit 0
fi

[[ $(id -u) == 0 ]] || skip "needs root (slurmd runs the tasks as their submitter; this is user $(id -un))"
for t in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$t" >/dev/null || skip "$t not found (bash scripts/setup.sh --slurm installs slurm-wlm and munge)"
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 711 "$dir" "$dir/munge"  # munged wants its socket's directory searchable by all
head -c 1024 /dev/urandom > "$dir/munge/munge.key"
chmod 600 "$dir/munge/munge.key"
munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" --log-file="$dir/munge/log" \
  --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
  || skip "munged did not start: $(tail -n 3 "$dir/munge/log" 2>/dev/null)"
# Two free TCP ports for slurmctld and slurmd (the defaults may be taken by a real cluster).
read -r ctld_port d_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
host=$(hostname -s)
cat > "$dir/slurm.conf" <<CONF
# Written by scripts/slurm_cluster.sh: one node, this host, every CPU a slot.
ClusterName=mpgpu-sweep
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups here (containers, CI machines): track tasks by their parent process, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Start the next array tasks as soon as CPUs free up (the 3 s default batch delay dominates short runs).
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
fail() { bash "$0" stop "$dir"; skip "$1: $(tail -n 3 "$dir/log/$2" 2>/dev/null)"; }
slurmctld -i || fail "slurmctld did not start" slurmctld.log
slurmd || fail "slurmd did not start" slurmd.log
for _ in $(seq 60); do  # the node registers within a few seconds
  if [[ $(sinfo -h -o %t 2>/dev/null) == idle ]]; then
    echo "slurm cluster up: export SLURM_CONF=$dir/slurm.conf"
    exit 0
  fi
  sleep 0.5
done
fail "the node did not become idle within 30 s ($(sinfo -h -o %t 2>&1))" slurmd.log
