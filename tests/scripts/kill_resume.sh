#!/usr/bin/env bash
# Checkpoint/resume under kill -9: a multi-tile search under `mpirun -np 3` is killed (the
# whole session: mpirun and every rank) mid-run, after a seeded random number of tiles (at most
# half) has reached the resume journal plus a random fraction of a tile, resumed with --resume
# (sometimes killed again, sometimes with another rank count, which must use the stored plan),
# and must end with /hits, /queries and /targets identical to an uninterrupted run. Every trial
# must resume a partial ledger: a run that finishes before its kill fails the test. A torn
# journal record and a damaged HDF5 file must be repaired from the journal.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
Q=$TEST_DATA/cudasw_queries20.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
SEED=${KILL_SEED:-20240607}
TRIALS=${KILL_TRIALS:-6}
RANDOM=$SEED
# Every tile takes 400 ms longer: after the kill's K tiles at least half the run is left.
export HPCALIGN_FAULT_SLOW_MS=400
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "$@"; }

# The killed runs: `"${MPI3[@]}" -o OUT` (run by kill_after_tiles).
MPI3=(mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet)

expect_ok "uninterrupted single-process run" search -o "$WORK/ref.h5"
t0=$(date +%s%N)
expect_ok "uninterrupted mpirun -np 3 run" mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/mpi.h5" --backend cpu --threads 1 --quiet
duration_ms=$((($(date +%s%N) - t0) / 1000000))
same_hits "mpirun -np 3 equals single process" "$WORK/ref.h5" "$WORK/mpi.h5"
tiles=$(int_attr "$WORK/mpi.h5" tiles)
echo "# uninterrupted run: ${duration_ms} ms, $tiles tiles; seed $SEED"
[ "${tiles:-0}" -ge 6 ] && pass "the run has $tiles tiles (multi-tile)" || fail "too few tiles: '$tiles'"

kills=0
partial=0
for trial in $(seq "$TRIALS"); do
  out=$WORK/trial$trial.h5
  k=$((1 + RANDOM % (tiles / 2))) extra=$((RANDOM % 300))
  kill_after_tiles "$out" "$k" "$extra" "${MPI3[@]}" -o "$out" || { fail "trial $trial: the run ended before $k tiles were journalled"; continue; }
  kills=$((kills + 1))
  journalled=$(journal_tiles "$out")
  status=$(h5_status "$out")
  echo "# trial $trial: killed ${extra} ms after tile $k: $journalled of $tiles tiles journalled, status '${status:-no file}'"
  if [ "$status" != complete ] && [ "$journalled" -ge 1 ] && [ "$journalled" -lt "$tiles" ]; then
    pass "trial $trial: killed mid-run ($journalled of $tiles tiles journalled)"; partial=$((partial + 1))
  else
    fail "trial $trial: not a partial run to resume (status '$status', $journalled tiles journalled)"; continue
  fi
  # Every other trial: kill the resumed run too, once it has added a tile to the journal.
  if [ $((trial % 2)) = 0 ]; then
    kill_after_tiles "$out" $((journalled + 1)) $((RANDOM % 300)) "${MPI3[@]}" -o "$out" --resume && kills=$((kills + 1))
    echo "# trial $trial: resumed run killed: $(journal_tiles "$out") tiles journalled, status '$(h5_status "$out")'"
  fi
  # Resume with 3, 2 ranks or a single process: other worker counts must reuse the stored plan
  # (unless the resumed run above finished before its kill).
  [ "$(h5_status "$out")" = complete ] || case $((trial % 3)) in
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
[ "$partial" = "$TRIALS" ] && pass "every trial resumed a partial ledger ($partial of $TRIALS)" ||
  fail "only $partial of $TRIALS trials resumed a partial ledger"

# A torn journal record (a kill inside write()) and an HDF5 file damaged by a kill inside a
# flush: the torn tail is dropped, the HDF5 file rebuilt from the journal, results identical.
if kill_after_tiles "$WORK/torn.h5" $((tiles / 2)) 0 "${MPI3[@]}" -o "$WORK/torn.h5" && [ "$(h5_status "$WORK/torn.h5")" != complete ]; then
  size=$(stat -c %s "$WORK/torn.h5.journal")
  printf 'HPJ1T\377\377' >>"$WORK/torn.h5.journal"  # a record header cut short
  head -c $((size + 7)) "$WORK/torn.h5.journal" >"$WORK/j" && cat "$WORK/j" >"$WORK/torn.h5.journal"
  h5size=$(stat -c %s "$WORK/torn.h5")
  dd if=/dev/urandom of="$WORK/torn.h5" bs=1 seek=$((h5size / 2)) count=4096 conv=notrunc status=none
  expect_ok "torn journal + damaged HDF5: resume" search -o "$WORK/torn.h5" --resume
  same_hits "torn journal + damaged HDF5: result identical" "$WORK/ref.h5" "$WORK/torn.h5"
  [ ! -e "$WORK/torn.h5.journal" ] && pass "journal removed once complete" || fail "journal left after completion"
else
  fail "torn journal: the run ended before half its tiles were journalled"
fi

# Resume refuses other parameters, names them, and leaves the file as it was.
if kill_after_tiles "$WORK/mismatch.h5" 1 0 "${MPI3[@]}" -o "$WORK/mismatch.h5"; then
  expect_error "resume with another matrix is refused" "matrix: the file has 'BLOSUM62" search -o "$WORK/mismatch.h5" --resume --matrix BLOSUM50 --gapopen 13 --gapextend 2
  expect_error "resume with another --max-hits is refused" "max_hits" search -o "$WORK/mismatch.h5" --resume --max-hits 3
  expect_error "resume with another database is refused" "database" "$HPCALIGN" search -q "$Q" -d "$TEST_DATA/queries3.fa" -o "$WORK/mismatch.h5" --backend cpu --quiet --resume
  expect_error "resume with other queries is refused" "queries" "$HPCALIGN" search -q "$TEST_DATA/queries3.fa" -d "$DB" -o "$WORK/mismatch.h5" --backend cpu --quiet --resume
  expect_ok "resume with the right parameters still works" search -o "$WORK/mismatch.h5" --resume
  same_hits "after refused resumes the result is intact" "$WORK/ref.h5" "$WORK/mismatch.h5"
else
  fail "refused resumes: the run ended before a tile was journalled"
fi
expect_error "resume of a complete file is refused" "status 'complete'" search -o "$WORK/ref.h5" --resume
expect_ok "resume without an output file starts afresh" search -o "$WORK/fresh.h5" --resume
same_hits "fresh --resume run" "$WORK/ref.h5" "$WORK/fresh.h5"
echo "not hdf5" >"$WORK/foreign.h5"
expect_error "resume of a foreign file is refused" "not an hpcalign result file" search -o "$WORK/foreign.h5" --resume
finish
