#!/usr/bin/env bash
# run_slurm_test.sh TABULA SOURCE [PYTHONPATH] — scripts/slurm/ on a real Slurm cluster of
# one node, started here from Debian's slurm-wlm and munge: munged,
# slurmctld and slurmd on this machine with their own configuration, key,
# sockets, ports and spool in a temporary folder (as root, as CI runs).  It
# submits a 4-shard match and its merge with scripts/slurm/submit-match.sh,
# waits for them, and checks the merged table and records against the same
# match run whole; then a 3-shard self-play run (submit-selfplay.sh), whose
# files tabula.datasets (from PYTHONPATH, the build's python folder) reads
# as the same decisions as a run on one machine.  Every daemon it started is stopped at the end, whatever
# happens.  A missing Slurm or munge, or not being root, is a failure, never
# a skip.
set -u
tabula=$(realpath "$1")
src=$(realpath "$2")
pypath=${3:-}
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

for prog in munged slurmctld slurmd sbatch squeue scontrol; do
  if ! command -v "$prog" >/dev/null; then
    bad "Slurm is installed ($prog missing: install the Debian packages slurm-wlm and munge)"
    finish
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  bad "the Slurm test runs as root (it starts munged, slurmctld and slurmd)"
  finish
fi

tmp=$(mktemp -d /tmp/tabula-slurm.XXXXXX)
chmod 700 "$tmp"
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  # jobs' processes, if any were left (slurmstepd runs under slurmd's spool)
  pkill -9 -f "$tmp/" 2>/dev/null
  rm -rf "$tmp"
}
trap stop_all EXIT

# Two free ports on loopback for slurmctld and slurmd.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port); slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
host=$(hostname -s)

# munge: its own key and socket
mkdir -p "$tmp/munge" "$tmp/spool" "$tmp/state" "$tmp/log" "$tmp/work"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" \
  --seed-file="$tmp/munge/munged.seed" 2>"$tmp/log/munged.err"
sleep 0.5
[ -f "$tmp/munge/munged.pid" ] && pids+=("$(cat "$tmp/munge/munged.pid")")
check "munged started" test -S "$tmp/munge/munge.socket"

cpus=$(nproc)
cat >"$tmp/slurm.conf" <<EOF
ClusterName=tabulatest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=tabnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=tabnode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -i -f "$SLURM_CONF" 2>"$tmp/log/slurmctld.err"
for _ in $(seq 50); do [ -s "$tmp/slurmctld.pid" ] && break; sleep 0.1; done
[ -s "$tmp/slurmctld.pid" ] && pids+=("$(cat "$tmp/slurmctld.pid")")
slurmd -N tabnode -f "$SLURM_CONF" 2>"$tmp/log/slurmd.err"
for _ in $(seq 50); do [ -s "$tmp/slurmd.pid" ] && break; sleep 0.1; done
[ -s "$tmp/slurmd.pid" ] && pids+=("$(cat "$tmp/slurmd.pid")")
up=false
for _ in $(seq 150); do
  if sinfo -h -o '%t' 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then up=true; break; fi
  sleep 0.2
done
check "the one-node cluster is up (sinfo: idle)" $up
if ! $up; then
  tail -n 20 "$tmp"/log/*.log "$tmp"/log/*.err 2>/dev/null
  finish
fi

# The match, whole, here; then in 4 shards through Slurm.
export TABULA=$tabula GAME=clans AGENTS=greedy,random,ismcts:iterations=100 GAMES=10 SEED=11
"$tabula" match --game clans --agents "$AGENTS" --games "$GAMES" --seed "$SEED" \
  --out "$tmp/whole.json" >"$tmp/whole.out" 2>&1
check "the whole match runs" test -s "$tmp/whole.json"
export OUT=$tmp/work/run
SHARDS=4 "$src/scripts/slurm/submit-match.sh" >"$tmp/submit.out" 2>&1; rc=$?
check "submit-match.sh queues the jobs" test $rc -eq 0
read -r array merge < <(sed -nE 's/^array job ([0-9]+) .*merge job ([0-9]+)$/\1 \2/p' "$tmp/submit.out")
check "submit-match.sh names both jobs" test -n "${array:-}" -a -n "${merge:-}"
check "the merge waits for the array (afterok)" \
  bash -c "scontrol show job ${merge:-0} | grep -q 'Dependency=afterok:${array:-0}'"
done_all=false
for _ in $(seq 600); do # at most two minutes
  if [ -z "$(squeue -h -j "${array:-0},${merge:-0}" 2>/dev/null)" ]; then done_all=true; break; fi
  sleep 0.2
done
check "the jobs finish within two minutes" $done_all
check "four shard files" test "$(ls "$OUT"/shard-*.json 2>/dev/null | wc -l)" -eq 4
check "the merge wrote the table" test -s "$OUT/table.txt"
table() { grep -v -e 'seats rotated' -e json "$1" | awk '{ if ($0 ~ /ms\/decision|[0-9]%  /) $NF=""; print }'; }
strip() { sed -E 's/"(started|finished)":"[^"]*"//g; s/"seconds_per_decision":[^,}]*//g; s/"threads":[0-9]+,("shards":[0-9]+,)?//' "$1"; }
check "the merged table is the whole match's" test "$(table "$tmp/whole.out")" = "$(table "$OUT/table.txt")"
check "the merged records are the whole match's" test "$(strip "$tmp/whole.json")" = "$(strip "$OUT/match.json")"
check "the table says it was merged from 4 shards" grep -q "merged from 4 shards" "$OUT/table.txt"
# Self-play: 3 array tasks, compared with the same run on one machine.
if [ -n "$pypath" ]; then
  export OUT=$tmp/work/selfplay AGENT=ismcts:iterations=40 GAMES=5 SEED=3 PLAYERS=2
  "$tabula" selfplay clans --agent "$AGENT" --games "$GAMES" --seed "$SEED" --quiet \
    --out "$tmp/selfplay-whole" >/dev/null 2>&1
  SHARDS=3 "$src/scripts/slurm/submit-selfplay.sh" >"$tmp/submit2.out" 2>&1; rc=$?
  check "submit-selfplay.sh queues the array" test $rc -eq 0
  sp=$(sed -nE 's/^array job ([0-9]+) .*/\1/p' "$tmp/submit2.out")
  for _ in $(seq 600); do
    [ -z "$(squeue -h -j "${sp:-0}" 2>/dev/null)" ] && break
    sleep 0.2
  done
  check "three self-play files" test "$(ls "$OUT"/selfplay-*-of-3.npz 2>/dev/null | wc -l)" -eq 3
  PYTHONPATH=$pypath /usr/bin/python3 - "$tmp/selfplay-whole" "$OUT" >"$tmp/sp.out" 2>&1 <<'PY'
import sys
import numpy as np
import tabula
a, b = (tabula.datasets.load(d) for d in sys.argv[1:3])
ia = np.lexsort((a["decision"], a["game"]))
ib = np.lexsort((b["decision"], b["game"]))
for k in ("game", "decision", "seat", "observation", "action", "returns"):
    assert np.array_equal(np.asarray(a[k])[ia], np.asarray(b[k])[ib]), k
assert b["meta"]["shards_found"] == [0, 1, 2]
print("same decisions", len(ia))
PY
  check "the cluster's self-play data is the one-machine run's" grep -q "same decisions" "$tmp/sp.out"
fi
if [ "$failed" -gt 0 ]; then
  cat "$tmp/sp.out" 2>/dev/null
  cat "$tmp/submit.out"; ls -la "$OUT" 2>/dev/null; cat "$OUT"/*.log 2>/dev/null | tail -20
  tail -n 20 "$tmp"/log/*.log 2>/dev/null
fi
finish
