#!/usr/bin/env bash
# Checkpoint/resume of allvsall, pss and msv under kill -9 (issue 7; search has kill_resume.sh).
# For each workload: an uninterrupted reference run, then seeded trials that start the run
# (slowed per tile by HPCALIGN_FAULT_SLOW_MS), kill -9 it at a random instant, and finish it
# with --resume; every result dataset must equal the reference's. The second trial also kills
# the resumed run; the last runs under `mpirun -np 3` and is resumed by a single process, which
# must reuse the stored plan (msv plans 3 times as many tiles for 3 workers). Then: a resume with
# other parameters (or of another workload's file) is refused naming what differs, a
# complete file is refused, and `view` flags a killed file.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
command -v setsid >/dev/null || { echo "setsid missing"; exit 1; }
D=$TEST_DATA
SEED=${KILL_SEED:-20240611}
TRIALS=${KILL_TRIALS:-3}
RANDOM=$SEED
echo "# seed $SEED, $TRIALS trials per workload"

workload_inputs  # lib.bash: allvsall 19900 pairs with traceback, pss 3 x 60 pairs (a tile each), msv 10 models

# Polls until the run writing OUT has journalled its plan (at most ~10 s).
wait_for_journal() { for _ in $(seq 200); do [ -s "$1.journal" ] && return; sleep 0.05; done; }

# kill_trials NAME SLOW_MS LEDGER GROUPS -- ARGS...: the trials for `hpcalign ARGS`. GROUPS:
# comma-separated result groups to compare; LEDGER=1: the file keeps a /tiles ledger (msv),
# LEDGER=hits: a hits file, whose ledger and staging rows go when it completes.
kill_trials() {
  local name=$1 slow=$2 ledger=$3 groups=$4; shift 5
  local -a G run slowed
  IFS=, read -ra G <<<"$groups"
  run=("$HPCALIGN" "$@" --backend cpu --threads 1)
  slowed=(env HPCALIGN_FAULT_SLOW_MS="$slow" "${run[@]}" --quiet)
  local ref=$WORK/$name-ref.h5 t0 duration out trial delay sid status
  t0=$(date +%s%N)
  expect_ok "$name: uninterrupted run" "${slowed[@]}" -o "$ref"
  duration=$((($(date +%s%N) - t0) / 1000000))
  cp "$WORK/out.txt" "$WORK/$name-ref.stdout"
  echo "# $name: uninterrupted run ${duration} ms, $(int_attr "$ref" tiles) tiles"
  [ "$(int_attr "$ref" tiles)" -ge 10 ] && pass "$name: multi-tile run" || fail "$name: tiles '$(int_attr "$ref" tiles)'"
  [ ! -e "$ref.journal" ] && pass "$name: no journal left by a complete run" || fail "$name: journal left"

  for trial in $(seq "$TRIALS"); do
    out=$WORK/$name-$trial.h5
    if [ "$trial" = "$TRIALS" ]; then  # 3 ranks; killed once the plan is journalled
      sid=$(start_session mpirun -np 3 "${slowed[@]}" -o "$out")
      wait_for_journal "$out"
      delay=$((RANDOM % (duration / 3 + 1)))
    else
      delay=$((duration * (5 + RANDOM % 90) / 100))  # 5%..95% of a full run
      sid=$(start_session "${slowed[@]}" -o "$out")
    fi
    sleep_ms "$delay"
    kill_session "$sid"
    status=$(h5_status "$out")
    echo "# $name trial $trial: killed after ${delay} ms$([ "$trial" = "$TRIALS" ] && echo " (mpirun -np 3, after its plan)"):" \
      "${status:-no file}, journal $(stat -c %s "$out.journal" 2>/dev/null || echo none) bytes"
    if [ "$status" = complete ]; then  # the run outran the kill: legitimate, nothing to resume
      pass "$name trial $trial: run finished before the kill"
    else
      pass "$name trial $trial: killed run is not marked complete"
      if [ "$trial" = 2 ]; then  # kill the resumed run too
        sid=$(start_session "${slowed[@]}" -o "$out" --resume)
        delay=$((duration * (5 + RANDOM % 30) / 100))  # (the resumed run has less to do)
        sleep_ms "$delay"
        kill_session "$sid"
        echo "# $name trial $trial: resumed run killed after ${delay} ms: $(h5_status "$out")"
      fi
      if [ "$(h5_status "$out")" != complete ]; then  # (unless the resumed run outran the kill)
        expect_ok "$name trial $trial: --resume finishes it" "${run[@]}" -o "$out" --resume
        echo "# $name trial $trial: $(grep -h -e 'already done' -e 'starting afresh' "$WORK/err.txt" | head -1)"
      fi
    fi
    [ "$(h5_status "$out")" = complete ] && pass "$name trial $trial: complete" || fail "$name trial $trial: status '$(h5_status "$out")'"
    same_groups "$name trial $trial: ${groups} identical to the uninterrupted run" "$ref" "$out" "${G[@]}"
    [ ! -e "$out.journal" ] && pass "$name trial $trial: journal removed" || fail "$name trial $trial: journal left"
    if [ "$ledger" = hits ]; then
      no_run_state "$out" && pass "$name trial $trial: complete file keeps no run state" ||
        fail "$name trial $trial: /staging or /tiles left in a complete file"
    elif [ "$ledger" = 1 ]; then
      [ "$(tiles_done "$out")" = "$(int_attr "$out" tiles)" ] && pass "$name trial $trial: ledger lists each tile once" ||
        fail "$name trial $trial: ledger $(tiles_done "$out") rows, $(int_attr "$out" tiles) tiles"
    fi
  done
}

# killed NAME ARGS...: $WORK/NAME-killed.h5, a run killed after its plan and a tile or so.
killed() {
  local name=$1; shift
  local out=$WORK/$name-killed.h5 sid
  sid=$(start_session env HPCALIGN_FAULT_SLOW_MS=300 "$HPCALIGN" "$@" --backend cpu --threads 1 --quiet -o "$out")
  wait_for_journal "$out"
  sleep 0.5
  kill_session "$sid"
}

A=(allvsall -i "$WORK/short200.fa" --mode local)
P=(pss -q "$D/queries3.fa" -s "$WORK/subjects60.fa" --query-batch 1 --permutations 100 --keep-scores)
M=(msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" --all)
kill_trials allvsall 200 hits /hits,/queries,/targets -- "${A[@]}"
kill_trials pss 15 0 /pss,/pss_scores,/queries,/targets -- "${P[@]}"
kill_trials msv 60 1 /msv,/pipeline,/models,/targets -- "${M[@]}"
# msv prints hmmsearch's pipeline counts: the resumed run counts the replayed tiles too.
cmp -s "$WORK/msv-ref.stdout" "$WORK/out.txt" && pass "msv: resumed run prints the same pipeline summary" ||
  fail "msv: summary differs: $(diff "$WORK/msv-ref.stdout" "$WORK/out.txt" | head -4)"

# Other parameters, another workload's file, a complete file: refused, and the file stays resumable.
refuse() {  # refuse NAME PATTERN ARGS...: `hpcalign ARGS --resume` fails naming PATTERN
  local name=$1 pattern=$2; shift 2
  expect_error "$name" "$pattern" "$HPCALIGN" "$@" --backend cpu --threads 1 --quiet --resume
}
killed allvsall "${A[@]}"
killed pss "${P[@]}"
killed msv "${M[@]}"
"$HPCALIGN" view "$WORK/allvsall-killed.h5" >/dev/null 2>"$WORK/view.txt"
grep -q "unfinished run" "$WORK/view.txt" && pass "view warns on a killed allvsall file" || fail "view: $(head -2 "$WORK/view.txt")"
refuse "allvsall: other --mode refused" "mode: the file has 'local', this run 'global'" allvsall -i "$WORK/short200.fa" --mode global -o "$WORK/allvsall-killed.h5"
refuse "allvsall: other --min-score refused" "min_score: the file has 'none'" "${A[@]}" --min-score 30 -o "$WORK/allvsall-killed.h5"
refuse "pss: other --seed refused" "seed: the file has '42', this run '7'" "${P[@]}" --seed 7 -o "$WORK/pss-killed.h5"
refuse "pss: other subjects refused" "subjects: the file has" pss -q "$D/queries3.fa" -s "$WORK/short200.fa" --query-batch 1 --permutations 100 --keep-scores -o "$WORK/pss-killed.h5"
refuse "msv: other --F1 refused" "F1: the file has '0.02" "${M[@]}" --F1 0.05 -o "$WORK/msv-killed.h5"
refuse "msv: other models refused" "models: the file has '10 models" msv -m "$D/hmm/Pkinase.hmm" -d "$WORK/db2000.fa" --all -o "$WORK/msv-killed.h5"
refuse "pss --resume of an allvsall file refused" "workload: the file has 'allvsall', this run 'pss'" "${P[@]}" -o "$WORK/allvsall-killed.h5"
expect_ok "allvsall: the refused file still resumes" "$HPCALIGN" "${A[@]}" --backend cpu --quiet --resume -o "$WORK/allvsall-killed.h5"
same_hits "allvsall: after refused resumes the result is intact" "$WORK/allvsall-ref.h5" "$WORK/allvsall-killed.h5"
expect_ok "pss: the refused file still resumes" "$HPCALIGN" "${P[@]}" --backend cpu --quiet --resume -o "$WORK/pss-killed.h5"
same_groups "pss: after refused resumes the result is intact" "$WORK/pss-ref.h5" "$WORK/pss-killed.h5" /pss /pss_scores
expect_ok "msv: the refused file still resumes" "$HPCALIGN" "${M[@]}" --backend cpu --quiet --resume -o "$WORK/msv-killed.h5"
same_groups "msv: after refused resumes the result is intact" "$WORK/msv-ref.h5" "$WORK/msv-killed.h5" /msv /pipeline
refuse "allvsall: resume of a complete file refused" "status 'complete'" "${A[@]}" -o "$WORK/allvsall-ref.h5"
refuse "pss: resume of a complete file refused" "status 'complete'" "${P[@]}" -o "$WORK/pss-ref.h5"
refuse "msv: resume of a complete file refused" "status 'complete'" "${M[@]}" -o "$WORK/msv-ref.h5"
finish
