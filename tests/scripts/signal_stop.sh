#!/usr/bin/env bash
# Graceful stop (issue 7): SIGTERM and SIGUSR1 (Slurm --signal=B:USR1@120) make the run
# hand out no more tiles, deliver those in flight, leave the file resumable (status
# incomplete, attribute stopped_by_signal) and exit 0; --resume then completes it with
# results identical to an uninterrupted run.
source "$(dirname "$0")/lib.bash"
Q=${SHARED_DATA:-}/cudasw_queries20.fa
[ -r "$Q" ] || Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 "$@"; }
attr() { h5dump -a "/$2" "$1" 2>/dev/null | sed -n 's/.*(0): "\{0,1\}\([^"]*\)"\{0,1\}.*/\1/p'; }
ledger() { h5dump -d /tiles/id "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }

expect_ok "uninterrupted run" search -o "$WORK/ref.h5" --quiet

# stop_and_resume NAME SIGNAL LAUNCHER...: run slowly, signal after 1.2 s, check, resume.
stop_and_resume() {
  local name=$1 sig=$2; shift 2
  local out=$WORK/$name.h5
  HPCALIGN_FAULT_SLOW_MS=700 "$@" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out" \
    >"$WORK/$name.log" 2>&1 &
  local pid=$!
  sleep 1.2
  local t0=$(date +%s%N)
  kill -"$sig" "$pid"
  wait "$pid"
  local rc=$? ms=$((($(date +%s%N) - t0) / 1000000))
  echo "# $name: exit $rc ${ms} ms after SIG$sig; ledger $(ledger "$out")/$(attr "$out" tiles) tiles"
  [ $rc = 0 ] && pass "$name: exit 0" || fail "$name: exit $rc: $(tail -3 "$WORK/$name.log")"
  [ "$ms" -lt 15000 ] && pass "$name: stopped within the grace time (${ms} ms)" || fail "$name: took ${ms} ms"
  [ "$(attr "$out" status)" = incomplete ] && pass "$name: status incomplete" || fail "$name: status '$(attr "$out" status)'"
  [ "$(attr "$out" stopped_by_signal)" = "SIG$sig" ] && pass "$name: stopped_by_signal=SIG$sig" || fail "$name: stopped_by_signal '$(attr "$out" stopped_by_signal)'"
  grep -q "resumable with --resume" "$WORK/$name.log" && pass "$name: says the file is resumable" || fail "$name: log lacks the resume hint"
  [ "$(ledger "$out")" -lt "$(attr "$out" tiles)" ] && pass "$name: stopped before the last tile" || fail "$name: ran to the end"
  expect_ok "$name: --resume" search -o "$out" --resume --quiet
  [ "$(attr "$out" status)" = complete ] && pass "$name: complete after resume" || fail "$name: status after resume '$(attr "$out" status)'"
  same_hits "$name: identical to the uninterrupted run" "$WORK/ref.h5" "$out"
}

stop_and_resume single_term TERM
stop_and_resume single_usr1 USR1
if command -v mpirun >/dev/null; then
  # mpirun forwards SIGUSR1 to every rank. (SIGTERM to mpirun itself means "abort the job"
  # to Open MPI: it exits non-zero whatever the ranks do; under Slurm, srun forwards it.)
  stop_and_resume mpi_usr1 USR1 mpirun -np 3
  # SIGTERM delivered to the ranks themselves, as srun/slurmstepd do.
  out=$WORK/mpi_term.h5
  HPCALIGN_FAULT_SLOW_MS=700 mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out" >"$WORK/mpi_term.log" 2>&1 &
  pid=$!
  sleep 1.2
  pkill -TERM -P "$pid" -f "hpcalign search"  # the ranks: children of this mpirun
  wait "$pid"
  rc=$?
  [ $rc = 0 ] && pass "mpi_term: exit 0 when every rank gets SIGTERM" || fail "mpi_term: exit $rc: $(tail -3 "$WORK/mpi_term.log")"
  [ "$(attr "$out" status)" = incomplete ] && pass "mpi_term: resumable" || fail "mpi_term: status '$(attr "$out" status)'"
  expect_ok "mpi_term: --resume under mpirun -np 2" mpirun -np 2 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out" --resume --quiet
  same_hits "mpi_term: identical to the uninterrupted run" "$WORK/ref.h5" "$out"
fi
finish
