# Helpers of the HMMER oracle tests (cli_hmmsearch.sh, cli_hmmscan.sh; sourced after lib.bash):
# models built by hmmbuild, and hpcalign's tables and -o statistics against HMMER 3.3.2's.

# family_model PFAM [NAME]: $WORK/PFAM.hmm, a model of the first 30 balifam1000 members of family
# PFAM (aligned to a one-sequence model of the first), named NAME (default PFAM).
family_model() {
  local f=$1 name=${2:-$1}
  zcat "$TEST_DATA/balifam1000.fa.gz" | awk -v f="pfam=$f" '/^>/ { keep = index($0, f) && ++n <= 30 } keep' >"$WORK/$f.fa"
  awk '/^>/ { n++ } n == 1' "$WORK/$f.fa" >"$WORK/$f.one.fa"
  hmmbuild --singlemx --informat afa -n seed "$WORK/$f.one.hmm" "$WORK/$f.one.fa" >/dev/null &&
    hmmalign --outformat afa "$WORK/$f.one.hmm" "$WORK/$f.fa" >"$WORK/$f.afa" &&
    hmmbuild --informat afa -n "$name" "$WORK/$f.hmm" "$WORK/$f.afa" >/dev/null
}

tables() { grep -v '^#' "$1" | wc -l; }
body() { sed '/^# Program:/,$d' "$1" | sed '${/^#$/d}'; }  # a table without HMMER's '#' and trailer

# same_tables NAME DIR_A DIR_B: tblout and domtblout of two runs identical.
same_tables() {
  local name=$1 a=$2 b=$3 t
  for t in tbl dom; do
    if cmp -s <(body "$a/$t") <(body "$b/$t"); then
      pass "$name: $t identical ($(tables "$a/$t") rows)"
    else
      fail "$name: $t differs: $(diff <(body "$a/$t") <(body "$b/$t") | head -6 | tr '\n' '|')"
    fi
  done
}

# compare_hmmer PROGRAM STATS NAME MODELS SEQS [OPTIONS...]: `hpcalign PROGRAM` against HMMER's
# PROGRAM --cpu 1 with the same options: tables identical, and the -o lines matching the grep
# pattern STATS. Leaves HMMER's outputs in $WORK/theirsN, ours in $WORK/oursN (N counts calls).
compare_n=0
compare_hmmer() {
  local program=$1 stats=$2 name=$3 models=$4 seqs=$5; shift 5
  compare_n=$((compare_n + 1))
  local ours=$WORK/ours$compare_n theirs=$WORK/theirs$compare_n
  mkdir -p "$ours" "$theirs"
  $program --cpu 1 "$@" -o "$theirs/out" --tblout "$theirs/tbl" --domtblout "$theirs/dom" "$models" "$seqs" \
    >/dev/null 2>"$theirs/err" || { fail "$name: $program failed: $(head -c 300 "$theirs/err")"; return; }
  expect_ok "$name: hpcalign $program runs" "$HPCALIGN" "$program" --cpu 2 --quiet "$@" -o "$ours/out" \
    --tblout "$ours/tbl" --domtblout "$ours/dom" "$models" "$seqs"
  [ "$(tables "$theirs/tbl")" -gt 0 ] || fail "$name: $program reports no target (a test that cannot fail)"
  same_tables "$name" "$theirs" "$ours"
  cmp -s <(grep "$stats" "$theirs/out") <(grep "$stats" "$ours/out") && pass "$name: -o statistics identical" ||
    fail "$name: -o statistics differ: $(diff <(grep "$stats" "$theirs/out") <(grep "$stats" "$ours/out") | head -4 | tr '\n' '|')"
}

column_sum() { h5dump -y -d "$2" "$1" | sed -n '/DATA {/,/}/p' | grep -o '[0-9]\+' | awk '{s += $1} END {print s + 0}'; }

# mpi_and_resume PROGRAM MODELS SEQS THEIRS GROUP...: `hpcalign PROGRAM --h5` in one process
# ($WORK/one.h5, tables in $WORK/one), from 2 MPI ranks, and killed with kill -9 after 3 tiles,
# then resumed: the same tables (and HMMER's, in directory THEIRS) and the same HDF5 GROUPs.
mpi_and_resume() {
  local program=$1 models=$2 seqs=$3 theirs=$4; shift 4
  local other=hmmsearch out=$WORK/killed.h5 sid
  [ "$program" = hmmsearch ] && other=hmmscan
  mkdir -p "$WORK/mpi" "$WORK/one" "$WORK/res"
  expect_ok "one process --h5" "$HPCALIGN" "$program" --quiet --cpu 2 --h5 "$WORK/one.h5" --tblout "$WORK/one/tbl" \
    --domtblout "$WORK/one/dom" "$models" "$seqs"
  expect_ok "mpirun -np 2" mpirun --oversubscribe -np 2 "$HPCALIGN" "$program" --quiet --cpu 1 --h5 "$WORK/mpi.h5" \
    --tblout "$WORK/mpi/tbl" --domtblout "$WORK/mpi/dom" "$models" "$seqs"
  same_tables "2 MPI ranks vs one process" "$WORK/one" "$WORK/mpi"
  same_tables "2 MPI ranks vs $program" "$theirs" "$WORK/mpi"
  same_groups "np 2 vs one process" "$WORK/one.h5" "$WORK/mpi.h5" "$@"
  [ "$(attr "$WORK/one.h5" status)" = complete ] && [ "$(attr "$WORK/one.h5" workload)" = "$program" ] &&
    pass "HDF5 status complete, workload $program" || fail "status '$(attr "$WORK/one.h5" status)'"

  sid=$(start_session env HPCALIGN_FAULT_SLOW_MS=150 "$HPCALIGN" "$program" --quiet --cpu 4 --h5 "$out" \
    --tblout "$WORK/res/tbl" --domtblout "$WORK/res/dom" "$models" "$seqs")
  if kill_after_tiles "$sid" "$out" 3 40; then
    [ "$(attr "$out" status)" != complete ] && [ ! -e "$WORK/res/tbl" ] && pass "killed mid-run, no table written" ||
      fail "killed run: status '$(attr "$out" status)'"
    expect_error "resume with other --F1 refused" "F1" "$HPCALIGN" "$program" --quiet --h5 "$out" --resume --F1 0.05 \
      "$models" "$seqs"
    expect_error "$other --resume of a $program run refused" "workload" "$HPCALIGN" "$other" --quiet --h5 "$out" \
      --resume "$models" "$seqs"
    expect_ok "--resume finishes it" "$HPCALIGN" "$program" --quiet --cpu 2 --h5 "$out" --resume \
      --tblout "$WORK/res/tbl" --domtblout "$WORK/res/dom" "$models" "$seqs"
    same_tables "resumed run vs uninterrupted" "$WORK/one" "$WORK/res"
    same_groups "resumed run vs uninterrupted" "$WORK/one.h5" "$out" "$@"
  else
    fail "the run ended before 3 tiles were journalled"
  fi
}
