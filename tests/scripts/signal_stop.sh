#!/usr/bin/env bash
# Graceful stop: SIGTERM and SIGUSR1 (Slurm --signal=B:USR1@120) make the run
# hand out no more tiles, deliver those in flight, leave the file resumable (status
# incomplete, attribute stopped_by_signal) and exit 0; --resume then completes it with
# results identical to an uninterrupted run.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/cudasw_queries20.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 "$@"; }
ledger() { h5dump -d /tiles/id "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }

expect_ok "uninterrupted run" search -o "$WORK/ref.h5" --quiet

# stop_and_resume NAME SIGNAL LAUNCHER...: run slowly, signal after its first tile, check, resume.
stop_and_resume() {
  local name=$1 sig=$2; shift 2
  local out=$WORK/$name.h5
  signal_stop_check "$name" "$sig" "$out" "$WORK/$name.log" \
    env HPCALIGN_FAULT_SLOW_MS=700 "$@" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out"
  echo "# $name: ledger $(ledger "$out")/$(attr "$out" tiles) tiles"
  [ "$(ledger "$out")" -lt "$(attr "$out" tiles)" ] && pass "$name: stopped before the last tile" || fail "$name: ran to the end"
  expect_ok "$name: --resume" search -o "$out" --resume --quiet
  [ "$(attr "$out" status)" = complete ] && pass "$name: complete after resume" || fail "$name: status after resume '$(attr "$out" status)'"
  same_hits "$name: identical to the uninterrupted run" "$WORK/ref.h5" "$out"
}

stop_and_resume single_term TERM
stop_and_resume single_usr1 USR1
if command -v mpirun >/dev/null || { fail "mpirun missing (Debian package openmpi-bin)"; false; }; then
  # mpirun forwards SIGUSR1 to every rank. (SIGTERM to mpirun itself means "abort the job"
  # to Open MPI: it exits non-zero whatever the ranks do; under Slurm, srun forwards it.)
  stop_and_resume mpi_usr1 USR1 mpirun -np 3
  # SIGTERM delivered to the ranks themselves, as srun/slurmstepd do.
  out=$WORK/mpi_term.h5
  stopped=$(signal_after_tiles "$out" 1 TERM ranks "$WORK/mpi_term.log" \
    env HPCALIGN_FAULT_SLOW_MS=700 mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out") ||
    fail "mpi_term: the run ended before its first tile"
  rc=${stopped%% *}
  [ "$rc" = 0 ] && pass "mpi_term: exit 0 when every rank gets SIGTERM" || fail "mpi_term: exit $rc: $(tail -3 "$WORK/mpi_term.log")"
  [ "$(attr "$out" status)" = incomplete ] && pass "mpi_term: resumable" || fail "mpi_term: status '$(attr "$out" status)'"
  expect_ok "mpi_term: --resume under mpirun -np 2" mpirun -np 2 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$out" --resume --quiet
  same_hits "mpi_term: identical to the uninterrupted run" "$WORK/ref.h5" "$out"
fi
finish
