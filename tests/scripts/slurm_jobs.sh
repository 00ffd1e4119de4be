#!/usr/bin/env bash
# The jobs/ templates on a real (one-node, localhost) Slurm: installs slurm-wlm and munge
# when missing (root on Debian; CI machines are fresh), starts munged, slurmctld and slurmd
# from a private config, and submits with the CPU backend and 3 tasks (srun --mpi=pmix):
#   1. jobs/search.sbatch                     -> complete, identical to a local run
#   2. the same, stopped by SIGUSR1 to the batch shell (what --signal=B:USR1@120 sends)
#      -> the step stops at a tile boundary, the job requeues itself and resumes -> identical
#   3. jobs/search-array.sbatch over 3 shards + a dependent `hpcalign merge` -> identical
#   4. msv/pss/allvsall templates: accepted by sbatch (--test-only)
# Everything is shut down on exit (trap), so it can run again at once.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/slurm_lib.bash"
# Missing root or Slurm is a failure, not a skip: CI installs both (tools/setup.sh).
if [ "$(id -u)" != 0 ]; then echo "FAIL - needs root (slurmd, munged)"; exit 1; fi
install_slurm || { echo "FAIL - slurm-wlm/munge missing and not installable here"; exit 1; }
trap 'stop_slurm; rm -rf "$WORK"' EXIT
chmod 755 "$WORK"
start_slurm "$WORK/slurm" && pass "slurmctld + slurmd up (one node, localhost)" || { fail "slurm did not start"; finish; exit 1; }

Q=$TEST_DATA/cudasw_queries20.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
JOBS=$SOURCE_DIR/jobs
# 3 tasks, no GPUs; the CPU backend with one thread per rank.
SUBMIT=(sbatch --parsable --chdir="$WORK" --ntasks-per-node=3 --cpus-per-task=1 --gpus-per-node=0 --time=10)
export HPCALIGN HPCALIGN_JOBS=$JOBS BACKEND=cpu EXTRA_ARGS="--threads 1" SRUN_MPI=${SRUN_MPI:-pmix}
expect_ok "local reference run" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/ref.h5" --backend cpu --quiet

job_log() { cat "$WORK"/*-"$1".log 2>/dev/null; }

# 1. a plain run
id=$("${SUBMIT[@]}" --export=ALL,QUERIES="$Q",DB="$DB",OUT="$WORK/search.h5" "$JOBS/search.sbatch")
state=$(wait_job "$id" 240)
[ "$state" = COMPLETED ] && pass "search.sbatch: job $id COMPLETED" || fail "search.sbatch: job $id $state: $(job_log "$id" | tail -5)"
same_hits "search.sbatch: identical to the local run" "$WORK/ref.h5" "$WORK/search.h5"
workers=$(h5dump -a /workers "$WORK/search.h5" 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
[ "$workers" = 3 ] && pass "search.sbatch: 3 MPI ranks worked (srun --mpi=$SRUN_MPI)" || fail "search.sbatch: workers '$workers'"

# 2. SIGUSR1 to the batch shell -> clean stop -> requeue -> --resume -> complete
id=$(HPCALIGN_FAULT_SLOW_MS=3000 "${SUBMIT[@]}" --export=ALL,QUERIES="$Q",DB="$DB",OUT="$WORK/requeue.h5" "$JOBS/search.sbatch")
# The journal appears once the plan is made, i.e. every rank is up with its signal handlers
# (the HDF5 file is locked while it is written: watch the journal, a plain file).
for _ in $(seq 480); do
  [ -s "$WORK/requeue.h5.journal" ] && break
  sleep 0.25
done
sleep 0.5  # the first tiles (3 s each) are in flight
scancel --batch --signal=USR1 "$id" && pass "requeue: SIGUSR1 sent to the batch shell of job $id" || fail "scancel --signal failed"
# A requeued job waits for a BeginTime Slurm sets ~2 minutes ahead; let it start now, but
# only once the node is idle: the first instance's batch script, killed by the requeue, must
# have reported its end. Under load that report came after the new allocation, and slurmctld
# booked its exit status 1 against the new instance (job FAILED, slurmctld.log). A node seen
# idle once was not always enough (CI on a loaded machine, twice): it must stay idle for 2 s.
idle_since=""
for _ in $(seq 240); do
  reason=$(squeue -h -j "$id" -o '%T %r' 2>/dev/null)
  case $reason in
    PENDING*BeginTime*)
      if [ "$(sinfo -h -o '%T' 2>/dev/null | sort -u)" = idle ]; then
        [ -n "$idle_since" ] || idle_since=$(date +%s.%N)
        if python3 -c "import sys; sys.exit(0 if $(date +%s.%N) - $idle_since >= 2 else 1)"; then
          scontrol update JobId="$id" StartTime=now >/dev/null 2>&1
          break
        fi
      else
        idle_since=""
      fi ;;
    "") break ;;
  esac
  sleep 0.25
done
state=$(wait_job "$id" 300)
log=$(job_log "$id")
[ "$state" = COMPLETED ] && pass "requeue: job $id COMPLETED" ||
  fail "requeue: job $id $state: $(echo "$log" | tail -25)
slurmctld.log on job $id: $(grep -E "JobId=$id[^0-9]" "$WORK/slurm/log/slurmctld.log" 2>/dev/null | tail -20)"
echo "$log" | grep -q "requeueing job" && pass "requeue: the stopped job requeued itself" || fail "requeue: no requeue in the log: $(echo "$log" | tail -5)"
echo "$log" | grep -q "resuming" && pass "requeue: the second run resumed" || fail "requeue: no resume in the log: $(echo "$log" | grep -E 'hpcalign' | head -12)"
echo "$log" | grep -q "no more tiles handed out" && pass "requeue: hpcalign stopped at a tile boundary" || fail "requeue: no clean stop in the log"
same_hits "requeue: identical to the local run" "$WORK/ref.h5" "$WORK/requeue.h5"

# 3. job array over shards + dependent merge
python3 "$JOBS/shard_fasta.py" "$Q" 3 "$WORK/shards" >/dev/null
aid=$("${SUBMIT[@]}" --array=0-2 --ntasks-per-node=1 --export=ALL,SHARDS="$WORK/shards",DB="$DB" "$JOBS/search-array.sbatch")
mid=$(sbatch --parsable --chdir="$WORK" --dependency=afterok:"$aid" --output="$WORK/merge-%j.log" \
  --wrap "$HPCALIGN merge $WORK/shards/shard-0000.h5 $WORK/shards/shard-0001.h5 $WORK/shards/shard-0002.h5 -o $WORK/merged.h5")
for t in 0 1 2; do
  state=$(wait_job "${aid}_$t" 240)
  [ "$state" = COMPLETED ] && pass "array task $t COMPLETED" || fail "array task $t: $state"
done
state=$(wait_job "$mid" 120)
[ "$state" = COMPLETED ] && pass "merge job COMPLETED" || fail "merge job $state: $(cat "$WORK"/merge-*.log | tail -3)"
same_hits "array + merge: identical to the local run" "$WORK/ref.h5" "$WORK/merged.h5"

# 4. the other templates parse and are accepted
for t in msv pss allvsall; do
  expect_ok "$t.sbatch accepted by sbatch --test-only" sbatch --test-only --chdir="$WORK" --ntasks-per-node=3 --cpus-per-task=1 --gpus-per-node=0 \
    --export=ALL,MODELS=m.hmm,QUERIES=q.fa,SUBJECTS=s.fa,SEQS=s.fa,DB=d,OUT=o.h5 "$JOBS/$t.sbatch"
done
finish
