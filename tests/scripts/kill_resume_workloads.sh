#!/usr/bin/env bash
# Checkpoint/resume of allvsall, pss and msv under kill -9 (search has kill_resume.sh).
# For each workload: an uninterrupted reference run, then seeded trials that start the run
# (slowed per tile by HPCALIGN_FAULT_SLOW_MS), kill -9 it mid-run (once a random number of tiles,
# at most half, is in the resume journal, plus a random fraction of a tile), and finish it with
# --resume; every result dataset must equal the reference's, and every trial must have resumed a
# partial ledger (a run that finishes before its kill fails). The second trial also kills the
# resumed run; the last runs under `mpirun -np 3` and is resumed by a single process, which
# must reuse the stored plan (msv plans 3 times as many tiles for 3 workers). Then: a resume with
# other parameters (or of another workload's file) is refused naming what differs, a
# complete file is refused, and `view` flags a killed file.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
D=$TEST_DATA
SEED=${KILL_SEED:-20240611}
TRIALS=${KILL_TRIALS:-3}
RANDOM=$SEED
echo "# seed $SEED, $TRIALS trials per workload"

workload_inputs  # lib.bash: allvsall 19900 pairs with traceback, pss 3 x 60 pairs (a tile each), msv 10 models


# kill_trials NAME SLOW_MS GROUPS -- ARGS...: the trials for `hpcalign ARGS`. GROUPS:
# comma-separated result groups to compare. Every workload's workers stage their rows in run
# files (OUT.h5.runs), which go, with any other run state, when the file completes.
kill_trials() {
  local name=$1 slow=$2 groups=$3; shift 4
  local -a G run slowed
  IFS=, read -ra G <<<"$groups"
  run=("$HPCALIGN" "$@" --backend cpu --threads 1)
  slowed=(env HPCALIGN_FAULT_SLOW_MS="$slow" "${run[@]}" --quiet)
  local ref=$WORK/$name-ref.h5 t0 duration out trial k extra status journalled tiles
  local -a launcher
  t0=$(date +%s%N)
  expect_ok "$name: uninterrupted run" "${slowed[@]}" -o "$ref"
  duration=$((($(date +%s%N) - t0) / 1000000))
  cp "$WORK/out.txt" "$WORK/$name-ref.stdout"
  tiles=$(int_attr "$ref" tiles)
  echo "# $name: uninterrupted run ${duration} ms, $tiles tiles"
  [ "${tiles:-0}" -ge 10 ] && pass "$name: multi-tile run" || { fail "$name: tiles '$tiles'"; return; }
  [ ! -e "$ref.journal" ] && pass "$name: no journal left by a complete run" || fail "$name: journal left"

  for trial in $(seq "$TRIALS"); do
    out=$WORK/$name-$trial.h5
    k=$((1 + RANDOM % (tiles / 2))) extra=$((RANDOM % (slow / 2 + 1)))
    launcher=()
    [ "$trial" = "$TRIALS" ] && launcher=(mpirun -np 3)  # 3 ranks
    kill_after_tiles "$out" "$k" "$extra" "${launcher[@]}" "${slowed[@]}" -o "$out" ||
      { fail "$name trial $trial: the run ended before $k tiles were journalled"; continue; }
    status=$(h5_status "$out")
    journalled=$(journal_tiles "$out")
    echo "# $name trial $trial: killed ${extra} ms after tile $k$([ "$trial" = "$TRIALS" ] && echo " (mpirun -np 3)"):" \
      "${status:-no file}, $journalled tiles journalled"
    if [ "$status" != complete ] && [ "$journalled" -ge 1 ]; then
      pass "$name trial $trial: killed mid-run ($journalled tiles journalled)"
    else
      fail "$name trial $trial: not a partial run to resume (status '$status', $journalled tiles journalled)"; continue
    fi
    if [ "$trial" = 2 ]; then  # kill the resumed run too, once it has added a tile
      kill_after_tiles "$out" $((journalled + 1)) "$extra" "${slowed[@]}" -o "$out" --resume
      echo "# $name trial $trial: resumed run killed: $(h5_status "$out"), $(journal_tiles "$out") tiles journalled"
    fi
    if [ "$(h5_status "$out")" != complete ]; then  # (unless the resumed run outran the second kill)
      expect_ok "$name trial $trial: --resume finishes it" "${run[@]}" -o "$out" --resume
      echo "# $name trial $trial: $(grep -h -e 'already done' -e 'starting afresh' "$WORK/err.txt" | head -1)"
    fi
    [ "$(h5_status "$out")" = complete ] && pass "$name trial $trial: complete" || fail "$name trial $trial: status '$(h5_status "$out")'"
    same_groups "$name trial $trial: ${groups} identical to the uninterrupted run" "$ref" "$out" "${G[@]}"
    [ ! -e "$out.journal" ] && pass "$name trial $trial: journal removed" || fail "$name trial $trial: journal left"
    no_run_state "$out" && pass "$name trial $trial: complete file keeps no run state" ||
      fail "$name trial $trial: /staging or /tiles left in a complete file"
    [ ! -e "$out.runs" ] && pass "$name trial $trial: the workers' run files removed" ||
      fail "$name trial $trial: $out.runs left"
  done
}

# killed NAME ARGS...: $WORK/NAME-killed.h5, a run killed after its first tile.
killed() {
  local name=$1; shift
  local out=$WORK/$name-killed.h5
  kill_after_tiles "$out" 1 0 env HPCALIGN_FAULT_SLOW_MS=300 "$HPCALIGN" "$@" --backend cpu --threads 1 --quiet -o "$out" ||
    fail "$name: the run to refuse resumes of ended before its first tile"
}

A=(allvsall -i "$WORK/short200.fa" --mode local)
P=(pss -q "$D/queries3.fa" -s "$WORK/subjects60.fa" --query-batch 1 --permutations 100 --keep-scores)
M=(msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" --all)
kill_trials allvsall 200 /hits,/queries,/targets -- "${A[@]}"
kill_trials pss 15 /pss,/pss_scores,/queries,/targets -- "${P[@]}"
kill_trials msv 60 /msv,/pipeline,/models,/targets -- "${M[@]}"
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
