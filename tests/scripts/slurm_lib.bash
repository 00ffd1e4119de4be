# A throwaway one-node Slurm cluster on localhost for the tests (sourced by slurm_jobs.sh;
# not a test itself: ctest globs *.sh only). Needs root (slurmd runs jobs as their user).
# Everything lives under $SLURM_DIR; stop_slurm (run from the caller's EXIT trap) ends
# the daemons this file started, by their pid files.

slurm_packages_present() { command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; }

install_slurm() {
  slurm_packages_present && return 0
  [ "$(id -u)" = 0 ] || return 1
  command -v apt-get >/dev/null || return 1
  echo "# installing slurm-wlm and munge with apt-get"
  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge) \
    >"$WORK/apt.log" 2>&1 || { tail -5 "$WORK/apt.log"; return 1; }
}

# start_slurm DIR: munged (own socket), slurmctld and slurmd on free ports; exports SLURM_CONF.
start_slurm() {
  SLURM_DIR=$1
  mkdir -p "$SLURM_DIR"/{state,spool,munge,log}
  chmod 755 "$SLURM_DIR"
  # munge: a private key and socket, so nothing depends on (or disturbs) a system munged.
  local key=$SLURM_DIR/munge/munge.key sock=$SLURM_DIR/munge/munge.socket
  dd if=/dev/urandom of="$key" bs=1 count=1024 status=none
  chown -R munge:munge "$SLURM_DIR/munge" 2>/dev/null || true
  chmod 700 "$SLURM_DIR/munge"; chmod 400 "$key"
  runuser -u munge -- munged --key-file="$key" --socket="$sock" --pid-file="$SLURM_DIR/munge/munged.pid" \
    --log-file="$SLURM_DIR/munge/munged.log" --seed-file="$SLURM_DIR/munge/seed" >/dev/null 2>&1 ||
    munged --force --key-file="$key" --socket="$sock" --pid-file="$SLURM_DIR/munge/munged.pid" \
      --log-file="$SLURM_DIR/munge/munged.log" --seed-file="$SLURM_DIR/munge/seed" || return 1
  # Ports: pick two free ones near a random base, so reruns never race a lingering socket.
  local base=$((20000 + RANDOM % 20000))
  # At least 4 CPUs declared (config_overrides lets slurmd accept more than the machine
  # has): the jobs run 3 tasks, also on a 2-core CI machine.
  local cpus; cpus=$(nproc); [ "$cpus" -ge 4 ] || cpus=4
  local mem; mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
  cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=hpcalign-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerType=sched/builtin
KillWait=10
InactiveLimit=0
SlurmdTimeout=30
NodeName=localhost CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  slurmctld -i -f "$SLURM_CONF" || return 1
  slurmd -N localhost -f "$SLURM_CONF" || return 1
  for _ in $(seq 60); do
    sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed)' && return 0
    sleep 0.5
  done
  echo "# slurm did not come up:"; sinfo 2>&1 | head -3; tail -5 "$SLURM_DIR/log/slurmctld.log" "$SLURM_DIR/log/slurmd.log"
  return 1
}

stop_slurm() {
  [ -n "${SLURM_DIR:-}" ] || return 0
  scancel --full -u "$(id -un)" >/dev/null 2>&1 || true
  local f
  for f in "$SLURM_DIR/slurmd.pid" "$SLURM_DIR/slurmctld.pid" "$SLURM_DIR/munge/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  for f in "$SLURM_DIR/slurmd.pid" "$SLURM_DIR/slurmctld.pid" "$SLURM_DIR/munge/munged.pid"; do
    for _ in $(seq 50); do [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  return 0
}

# wait_job ID [SECONDS]: until the job leaves the queue; prints its final state.
wait_job() {
  local id=$1 limit=${2:-300} state=""
  for _ in $(seq $((limit * 2))); do
    state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case $state in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE) echo "$state"; return;; esac
    sleep 0.5
  done
  echo "${state:-UNKNOWN}(timeout)"
}
