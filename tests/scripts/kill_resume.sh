#!/usr/bin/env bash
# Checkpoint/resume under kill -9 (issue 7): a multi-tile search under `mpirun -np 3` is
# killed (the whole session: mpirun and every rank) at seeded random instants, resumed with
# --resume (sometimes killed again, sometimes with another rank count, which must use the
# stored plan), and must end with /hits, /queries and /targets identical to an uninterrupted
# run. A torn write (rows without their ledger entry) is forged with h5py and must be dropped.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
command -v setsid >/dev/null || { echo "setsid missing"; exit 1; }
Q=${SHARED_DATA:-}/cudasw_queries20.fa
[ -r "$Q" ] || Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
SEED=${KILL_SEED:-20240607}
TRIALS=${KILL_TRIALS:-6}
RANDOM=$SEED
# Every tile takes 400 ms longer: the run lasts a few seconds, so kills land at every phase.
export HPCALIGN_FAULT_SLOW_MS=400
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "$@"; }

# Starts `mpirun -np N search ... -o OUT ARGS` in its own session; prints the session id.
start_mpi() {
  local np=$1 out=$2; shift 2
  start_session mpirun -np "$np" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$out" --backend cpu --threads 1 --quiet "$@"
}

expect_ok "uninterrupted single-process run" search -o "$WORK/ref.h5"
t0=$(date +%s%N)
expect_ok "uninterrupted mpirun -np 3 run" mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/mpi.h5" --backend cpu --threads 1 --quiet
duration_ms=$((($(date +%s%N) - t0) / 1000000))
same_hits "mpirun -np 3 equals single process" "$WORK/ref.h5" "$WORK/mpi.h5"
tiles=$(int_attr "$WORK/mpi.h5" tiles)
echo "# uninterrupted run: ${duration_ms} ms, $tiles tiles; seed $SEED"
[ "${tiles:-0}" -ge 6 ] && pass "the run has $tiles tiles (multi-tile)" || fail "too few tiles: '$tiles'"

kills=0
for trial in $(seq "$TRIALS"); do
  out=$WORK/trial$trial.h5
  delay=$((duration_ms * (5 + RANDOM % 90) / 100))  # 5%..95% of a full run
  sid=$(start_mpi 3 "$out")
  sleep_ms "$delay"
  kill_session "$sid"
  kills=$((kills + 1))
  done_before=$(tiles_done "$out")
  status=$(h5_status "$out")
  echo "# trial $trial: killed after ${delay} ms: ${done_before:-no} tiles in the ledger, status '${status:-no file}'"
  [ "$status" != complete ] && pass "trial $trial: killed run is not marked complete" || {
    # The run outran the kill: legitimate, but then there is nothing to resume.
    pass "trial $trial: run finished before the kill"; same_hits "trial $trial: finished run" "$WORK/ref.h5" "$out"; continue; }
  # Every other trial: kill the resumed run too, at a random instant.
  if [ $((trial % 2)) = 0 ] && [ -e "$out" ]; then
    delay2=$((duration_ms * (10 + RANDOM % 50) / 100))
    sid=$(start_mpi 3 "$out" --resume)
    sleep_ms "$delay2"
    kill_session "$sid"
    kills=$((kills + 1))
    echo "# trial $trial: resumed run killed after ${delay2} ms: $(tiles_done "$out") tiles in the ledger"
  fi
  # Resume with 3, 2 ranks or a single process: other worker counts must reuse the stored plan.
  case $((trial % 3)) in
    0) expect_ok "trial $trial: resume (single process)" search -o "$out" --resume ;;
    1) expect_ok "trial $trial: resume (mpirun -np 3)" mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$out" --backend cpu --threads 1 --quiet --resume ;;
    2) expect_ok "trial $trial: resume (mpirun -np 2)" mpirun -np 2 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$out" --backend cpu --threads 1 --quiet --resume ;;
  esac
  [ "$(h5_status "$out")" = complete ] && pass "trial $trial: complete after resume" || fail "trial $trial: status '$(h5_status "$out")'"
  same_hits "trial $trial: resumed /hits, /queries, /targets identical" "$WORK/ref.h5" "$out"
  # Each tile once: the identical /hits above; the ledger and staging rows go with completion.
  no_run_state "$out" && pass "trial $trial: complete file keeps no run state" || fail "trial $trial: /staging or /tiles left in a complete file"
done
echo "# $kills kill -9 in $TRIALS trials"

# A torn journal record (a kill inside write()) and an HDF5 file damaged by a kill inside a
# flush: the torn tail is dropped, the HDF5 file rebuilt from the journal, results identical.
sid=$(start_mpi 3 "$WORK/torn.h5")
sleep_ms $((duration_ms * 6 / 10))
kill_session "$sid"
if [ -s "$WORK/torn.h5.journal" ]; then
  size=$(stat -c %s "$WORK/torn.h5.journal")
  printf 'HPJ1T\377\377' >>"$WORK/torn.h5.journal"  # a record header cut short
  head -c $((size + 7)) "$WORK/torn.h5.journal" >"$WORK/j" && cat "$WORK/j" >"$WORK/torn.h5.journal"
  h5size=$(stat -c %s "$WORK/torn.h5")
  dd if=/dev/urandom of="$WORK/torn.h5" bs=1 seek=$((h5size / 2)) count=4096 conv=notrunc status=none
  expect_ok "torn journal + damaged HDF5: resume" search -o "$WORK/torn.h5" --resume
  same_hits "torn journal + damaged HDF5: result identical" "$WORK/ref.h5" "$WORK/torn.h5"
  [ ! -e "$WORK/torn.h5.journal" ] && pass "journal removed once complete" || fail "journal left after completion"
else
  fail "no journal next to a killed run"
fi

# Resume refuses other parameters, names them, and leaves the file as it was.
sid=$(start_mpi 3 "$WORK/mismatch.h5"); sleep 1; kill_session "$sid"
if [ -e "$WORK/mismatch.h5" ] && [ "$(h5_status "$WORK/mismatch.h5")" != complete ]; then
  expect_error "resume with another matrix is refused" "matrix: the file has 'BLOSUM62" search -o "$WORK/mismatch.h5" --resume --matrix BLOSUM50 --gapopen 13 --gapextend 2
  expect_error "resume with another --max-hits is refused" "max_hits" search -o "$WORK/mismatch.h5" --resume --max-hits 3
  expect_error "resume with another database is refused" "database" "$HPCALIGN" search -q "$Q" -d "$TEST_DATA/queries3.fa" -o "$WORK/mismatch.h5" --backend cpu --quiet --resume
  expect_error "resume with other queries is refused" "queries" "$HPCALIGN" search -q "$TEST_DATA/queries3.fa" -d "$DB" -o "$WORK/mismatch.h5" --backend cpu --quiet --resume
  expect_ok "resume with the right parameters still works" search -o "$WORK/mismatch.h5" --resume
  same_hits "after refused resumes the result is intact" "$WORK/ref.h5" "$WORK/mismatch.h5"
fi
expect_error "resume of a complete file is refused" "status 'complete'" search -o "$WORK/ref.h5" --resume
expect_ok "resume without an output file starts afresh" search -o "$WORK/fresh.h5" --resume
same_hits "fresh --resume run" "$WORK/ref.h5" "$WORK/fresh.h5"
echo "not hdf5" >"$WORK/foreign.h5"
expect_error "resume of a foreign file is refused" "not an hpcalign result file" search -o "$WORK/foreign.h5" --resume
finish
