#!/usr/bin/env bash
# Graceful stop of allvsall, pss and msv: SIGTERM or SIGUSR1 makes the run hand
# out no more tiles, deliver those in flight, mark the file (status incomplete, attribute
# stopped_by_signal) and exit 0 saying the file is resumable; `--resume` then finishes it
# with results identical to an uninterrupted run.
source "$(dirname "$0")/lib.bash"
workload_inputs  # lib.bash

# stop NAME SIGNAL SLOW_MS GROUPS -- ARGS...: start hpcalign ARGS -o NAME.h5 (one CPU thread,
# every tile SLOW_MS longer: a few seconds of work in many tiles), signal it after 1.2 s,
# check the stop, resume, and compare GROUPS (comma-separated) with an uninterrupted run.
stop() {
  local name=$1 sig=$2 slow=$3 groups=$4; shift 5
  local out=$WORK/$name.h5 ref=$WORK/$name-ref.h5
  local -a G
  IFS=, read -ra G <<<"$groups"
  expect_ok "$name: uninterrupted run" "$HPCALIGN" "$@" -o "$ref" --quiet
  signal_stop_check "$name" "$sig" "$out" "$WORK/$name.log" \
    env HPCALIGN_FAULT_SLOW_MS="$slow" "$HPCALIGN" "$@" -o "$out" --threads 1
  if [ "$1" = allvsall ]; then  # a view of a stopped file must not present it as a finished result
    "$HPCALIGN" view "$out" >/dev/null 2>"$WORK/view.txt"
    grep -q "unfinished run" "$WORK/view.txt" && pass "$name: view flags the stopped file" || fail "$name: view: $(head -c 200 "$WORK/view.txt")"
  fi
  expect_ok "$name: --resume finishes it" "$HPCALIGN" "$@" -o "$out" --resume
  grep -q "tiles already done" "$WORK/err.txt" && pass "$name: the resume kept the finished tiles" || fail "$name: resume log: $(head -2 "$WORK/err.txt")"
  [ "$(attr "$out" status)" = complete ] && pass "$name: complete after --resume" || fail "$name: status '$(attr "$out" status)' after --resume"
  same_groups "$name: $groups identical to the uninterrupted run" "$ref" "$out" "${G[@]}"
}

stop allvsall_term TERM 200 /hits,/queries,/targets -- allvsall -i "$WORK/short200.fa"
stop allvsall_usr1 USR1 200 /hits,/queries,/targets -- allvsall -i "$WORK/short200.fa" --score-only
stop pss_term      TERM 15 /pss,/queries,/targets -- pss -q "$TEST_DATA/queries3.fa" -s "$WORK/subjects60.fa" --query-batch 1 --permutations 100
stop pss_usr1      USR1 15 /pss,/queries,/targets -- pss -q "$TEST_DATA/queries3.fa" -s "$WORK/subjects60.fa" --query-batch 1 --permutations 100
stop msv_term      TERM 60 /msv,/pipeline,/models -- msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" --all
stop msv_usr1      USR1 60 /msv,/pipeline,/models -- msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa"
finish
