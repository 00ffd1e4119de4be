#!/usr/bin/env bash
# Out-of-memory recovery in allvsall, pss and msv (split and retry): with an injected device
# limit (HPCALIGN_FAULT_OOM_CELLS) every piece of work above it throws hpc::OutOfMemory; the
# worker cuts it in halves and retries, and the results must equal an unconstrained run's.
# A limit no single pair fits gives a clear error naming the tile, exit != 0, and a file that
# is not complete (and resumes once the limit is gone).
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
