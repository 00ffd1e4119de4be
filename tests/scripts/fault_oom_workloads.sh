#!/usr/bin/env bash
# Out-of-memory recovery in allvsall, pss and msv (the driver's tile splitting): with an injected
# device limit (HPCALIGN_FAULT_OOM_CELLS) every tile above it throws hpc::OutOfMemory; the driver
# cuts it into smaller tiles, journals the split and runs them, and the results must equal an
# unconstrained run's: in one process, under `mpirun -np 2`, and after a kill -9 once splits
# and some of their pieces are journalled and a --resume (which must replay the split, not run
# the whole tile again). A limit no single pair fits gives a clear error naming the tile,
# exit != 0, and a file that is not complete (and resumes once the limit is gone).
source "$(dirname "$0")/lib.bash"
workload_inputs
allvsall() { "$HPCALIGN" allvsall -i "$WORK/short200.fa" --backend cpu --threads 1 --quiet "$@"; }
pss() { "$HPCALIGN" pss -q "$TEST_DATA/queries3.fa" -s "$WORK/subjects60.fa" --permutations 100 --keep-scores \
  --backend cpu --threads 1 --quiet "$@"; }
msv() { "$HPCALIGN" msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" --all --backend cpu --threads 1 --quiet "$@"; }

# check NAME GROUPS LIMIT: reference, split run under LIMIT cells, identical groups, splits logged.
check() {
  local name=$1 groups=$2 limit=$3
  expect_ok "$name: reference run" "$name" -o "$WORK/$name.ref.h5"
  if HPCALIGN_FAULT_OOM_CELLS=$limit "$name" -o "$WORK/$name.oom.h5" >/dev/null 2>"$WORK/$name.oom.log"; then
    pass "$name: run under an injected limit of $limit cells succeeds"
  else
    fail "$name: run under the limit failed: $(tail -2 "$WORK/$name.oom.log")"
  fi
  local splits
  splits=$(grep -c "out of memory on tile .*splitting" "$WORK/$name.oom.log")
  [ "$splits" -gt 0 ] && pass "$name: $splits split(s) logged" || fail "$name: no split logged"
  # shellcheck disable=SC2086
  same_groups "$name: results identical to the unconstrained run" "$WORK/$name.ref.h5" "$WORK/$name.oom.h5" $groups
  expect_ok "$name: mpirun -np 2 under the limit" env HPCALIGN_FAULT_OOM_CELLS="$limit" \
    mpirun -x HPCALIGN_FAULT_OOM_CELLS -np 2 "$HPCALIGN" "$@" -o "$WORK/$name.mpi.h5"
  grep -q "out of memory on tile .*splitting" "$WORK/err.txt" && pass "$name: mpirun: splits logged" ||
    fail "$name: mpirun: no split logged"
  # shellcheck disable=SC2086
  same_groups "$name: mpirun -np 2 results identical" "$WORK/$name.ref.h5" "$WORK/$name.mpi.h5" $groups
  # kill -9 once 2 tiles are journalled (the largest tiles come first: they are split by then).
  local out=$WORK/$name.kill.h5 journalled_splits
  kill_after_tiles "$out" 2 50 env HPCALIGN_FAULT_OOM_CELLS="$limit" HPCALIGN_FAULT_SLOW_MS=200 "$HPCALIGN" "$@" -o "$out" ||
    fail "$name: the run ended before 2 tiles were journalled"
  journalled_splits=$(python3 "$(dirname "$0")/journal.py" splits "$out.journal")
  [ "$(h5_status "$out")" != complete ] && [ "$journalled_splits" -ge 1 ] &&
    pass "$name: killed after $journalled_splits split(s) and $(journal_tiles "$out") tile(s) were journalled" ||
    fail "$name: not a partial run with a split to resume (status '$(h5_status "$out")', $journalled_splits splits)"
  expect_ok "$name: --resume under the limit" env HPCALIGN_FAULT_OOM_CELLS="$limit" "$HPCALIGN" "$@" -o "$out" --resume
  # The journalled splits are replayed, not made again: with those the resume makes, as many as
  # the uninterrupted run's.
  local resumed_splits
  resumed_splits=$(grep -c "out of memory on tile .*splitting" "$WORK/err.txt")
  [ $((journalled_splits + resumed_splits)) -eq "$splits" ] &&
    pass "$name: the resume made the other $resumed_splits of $splits splits" ||
    fail "$name: $journalled_splits splits journalled + $resumed_splits by the resume != $splits"
  # shellcheck disable=SC2086
  same_groups "$name: killed and resumed split run identical" "$WORK/$name.ref.h5" "$out" $groups
  expect_error "$name: a limit no pair fits names the tile" "tile [0-9]+.*does not fit the device" \
    env HPCALIGN_FAULT_OOM_CELLS=1 "$HPCALIGN" "$@" -o "$WORK/$name.none.h5"
  [ "$(h5_status "$WORK/$name.none.h5")" != complete ] && pass "$name: failed run not marked complete" ||
    fail "$name: failed run marked complete"
  expect_ok "$name: --resume without the limit" "$name" -o "$WORK/$name.none.h5" --resume
  # shellcheck disable=SC2086
  same_groups "$name: resumed result identical" "$WORK/$name.ref.h5" "$WORK/$name.none.h5" $groups
}

check allvsall "/hits /queries /targets" 200000 allvsall -i "$WORK/short200.fa" --backend cpu --threads 1 --quiet
check pss "/pss /pss_scores" 30000000 pss -q "$TEST_DATA/queries3.fa" -s "$WORK/subjects60.fa" --permutations 100 \
  --keep-scores --backend cpu --threads 1 --quiet
check msv "/msv /pipeline" 20000000 msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" --all --backend cpu --threads 1 --quiet
finish
