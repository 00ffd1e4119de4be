#!/usr/bin/env bash
# Faults, with the CPU backend's fault injection (kernels/fault_injection.hpp):
# a backend error or a dead worker names the tile, exits non-zero and leaves the file
# resumable; an out-of-memory tile is split by the driver and its pieces run, with identical results.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/cudasw_queries20.fa
DB=$TEST_DATA/balifam2000.fa
# Several tiles per worker (the planner gives each MPI worker one by default): kills and
# signals must find tiles both done and to do.
export HPCALIGN_TILES_PER_WORKER=4
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "$@"; }
mpi() { mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "$@"; }

expect_ok "reference run" search -o "$WORK/ref.h5"
# Every tile after a fault must be resumable: run, fail on tile 2, resume, compare.
expect_error "backend error: names the tile" "tile 2 failed on worker 0: injected backend fault" \
  env HPCALIGN_FAULT_FAIL_TILE=2 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet -o "$WORK/fail.h5"
[ "$(h5_status "$WORK/fail.h5")" = incomplete ] && pass "backend error: file left incomplete" || fail "backend error: status '$(h5_status "$WORK/fail.h5")'"
expect_ok "backend error: --resume" search -o "$WORK/fail.h5" --resume
same_hits "backend error: resumed result identical" "$WORK/ref.h5" "$WORK/fail.h5"

if command -v mpirun >/dev/null || { fail "mpirun missing (Debian package openmpi-bin)"; false; }; then
  expect_error "MPI backend error: names tile and rank" "tile 2 failed on rank [0-9]+: injected backend fault" \
    env HPCALIGN_FAULT_FAIL_TILE=2 mpirun -x HPCALIGN_FAULT_FAIL_TILE -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet -o "$WORK/mfail.h5"
  [ "$(h5_status "$WORK/mfail.h5")" = incomplete ] && pass "MPI backend error: file left incomplete" || fail "MPI backend error: status '$(h5_status "$WORK/mfail.h5")'"
  expect_ok "MPI backend error: --resume" mpi -o "$WORK/mfail.h5" --resume
  same_hits "MPI backend error: resumed result identical" "$WORK/ref.h5" "$WORK/mfail.h5"
  # A worker process that dies: Open MPI 4.1 has no ULFM, so mpirun ends the job (non-zero,
  # naming the rank and exit code); every tile delivered before is on disk.
  expect_error "dead worker: mpirun reports it" "exited|exit code|non-zero status|aborted" \
    env HPCALIGN_FAULT_EXIT_TILE=3 mpirun -x HPCALIGN_FAULT_EXIT_TILE -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet -o "$WORK/dead.h5"
  [ "$(h5_status "$WORK/dead.h5")" = incomplete ] && pass "dead worker: file left incomplete" || fail "dead worker: status '$(h5_status "$WORK/dead.h5")'"
  expect_ok "dead worker: --resume" mpi -o "$WORK/dead.h5" --resume
  same_hits "dead worker: resumed result identical" "$WORK/ref.h5" "$WORK/dead.h5"
fi

# Out of memory: the driver splits tiles above the cell budget (queries, then partitions).
expect_ok "OOM: split and retry" env HPCALIGN_FAULT_OOM_CELLS=300000000 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 -o "$WORK/oom.h5"
grep -q "out of memory on tile .*splitting" "$WORK/err.txt" && pass "OOM: the split is logged" || fail "OOM: no split logged"
same_hits "OOM: split tiles give identical results" "$WORK/ref.h5" "$WORK/oom.h5"
expect_ok "OOM down to partition splits" env HPCALIGN_FAULT_OOM_CELLS=20000000 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet -o "$WORK/oom2.h5"
same_hits "OOM (partition splits): identical results" "$WORK/ref.h5" "$WORK/oom2.h5"
expect_error "OOM even for one pair: gives up naming the tile" "does not fit the device even as a single pair" \
  env HPCALIGN_FAULT_OOM_CELLS=0 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet -o "$WORK/oom3.h5"
[ "$(h5_status "$WORK/oom3.h5")" = incomplete ] && pass "OOM give-up: file left incomplete" || fail "OOM give-up: status '$(h5_status "$WORK/oom3.h5")'"
finish
