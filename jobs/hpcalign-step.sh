# Shared by the jobs/*.sbatch templates (sourced): run one hpcalign step so that a job
# that is preempted, hits its time limit or is requeued never loses or repeats work.
#   run_resumable OUT CMD ARGS...   runs `hpcalign CMD ARGS... -o OUT [--resume]`
# - OUT complete already: nothing to do (a requeue after the end).
# - OUT incomplete (or its journal present): adds --resume (when CMD supports it).
# - SIGUSR1 / SIGTERM to the batch shell (#SBATCH --signal=B:USR1@120, scancel --signal):
#   forwarded to the step, which finishes its tiles in flight, flushes and exits 0; the
#   job then requeues itself (#SBATCH --requeue) while MAX_REQUEUES allows.
# Launchers (HPCALIGN_LAUNCHER): srun (default; --mpi=$SRUN_MPI, default pmix, which
# Debian's Slurm 22.05 and Open MPI 4.1 both speak), mpirun (Open MPI reads the Slurm
# allocation), none (one process: threads).
HPCALIGN=${HPCALIGN:-hpcalign}

result_status() {  # complete | incomplete | missing
  [ -e "$1" ] || { echo missing; return; }
  local s
  s=$(h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p')
  [ -n "$s" ] || s=$(python3 -c 'import sys,h5py; print(h5py.File(sys.argv[1],"r").attrs["status"])' "$1" 2>/dev/null)
  echo "${s:-incomplete}"
}

launch() {
  case ${HPCALIGN_LAUNCHER:-srun} in
    # One task per GPU; each rank picks GPU (local rank mod visible GPUs) itself, so every
    # rank must see all GPUs of its node: --gpu-bind=none.
    srun) srun --mpi="${SRUN_MPI:-pmix}" --kill-on-bad-exit=1 --gpu-bind=none "$@" ;;
    mpirun) mpirun -np "${SLURM_NTASKS:-1}" "$@" ;;
    none) "$@" ;;
    *) echo "unknown HPCALIGN_LAUNCHER '$HPCALIGN_LAUNCHER'" >&2; return 2 ;;
  esac
}

run_resumable() {
  local out=$1 cmd=$2; shift 2
  local status; status=$(result_status "$out")
  if [ "$status" = complete ]; then echo "hpcalign-step: $out is complete; nothing to do"; return 0; fi
  local resume=()
  if [ "$status" = incomplete ] || [ -e "$out.journal" ]; then
    # The help text whole first: `--help | grep -q` under the sbatch scripts' pipefail fails
    # whenever grep exits before hpcalign has written the rest (SIGPIPE).
    local help; help=$("$HPCALIGN" "$cmd" --help 2>/dev/null || true)
    if grep -q -- --resume <<<"$help"; then
      resume=(--resume)
      echo "hpcalign-step: resuming $out (restart ${SLURM_RESTART_COUNT:-0})"
    else
      echo "hpcalign-step: '$cmd' cannot resume; starting $out over" >&2
    fi
  fi
  local stopped="" pid rc
  launch "$HPCALIGN" "$cmd" "$@" -o "$out" "${resume[@]}" &
  pid=$!
  # Every rank gets SIGUSR1; rank 0 stops handing out tiles. srun itself dies of SIGUSR1
  # (Slurm 22.05) instead of forwarding it, so under srun the job's steps are signalled
  # through Slurm; mpirun forwards SIGUSR1 to its ranks.
  trap 'stopped=1; echo "hpcalign-step: signal received: stopping at the next tile boundary"
        if [ "${HPCALIGN_LAUNCHER:-srun}" = srun ] && [ -n "${SLURM_JOB_ID:-}" ]; then
          scancel --signal=USR1 "$SLURM_JOB_ID"
        else
          kill -USR1 $pid 2>/dev/null
        fi' USR1 TERM
  rc=0
  while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done
  trap - USR1 TERM
  status=$(result_status "$out")
  echo "hpcalign-step: exit $rc, $out $status"
  if [ -n "$stopped" ] && [ "$status" != complete ] && [ -n "${SLURM_JOB_ID:-}" ] &&
     [ "${SLURM_RESTART_COUNT:-0}" -lt "${MAX_REQUEUES:-5}" ]; then
    echo "hpcalign-step: requeueing job $SLURM_JOB_ID to resume"
    scontrol requeue "$SLURM_JOB_ID"
    return 0
  fi
  return $rc
}
