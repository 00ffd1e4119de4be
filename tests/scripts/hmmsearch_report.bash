# The HMMER oracle helpers (sourced after lib.bash by cli_hmmsearch.sh, cli_hmmsearch_report.sh
# and cli_hmmscan.sh; not a test itself): models built by hmmbuild, and hpcalign hmmsearch's and
# hmmscan's text outputs compared with HMMER 3.3.2's.
#
# The main report (-o) of hmmsearch and of hmmscan is compared byte for byte but for these lines,
# which name the program, its version, paths or times and so differ by design:
#   "# hmmsearch :: ...", "# hmmscan :: ...", "# HMMER 3.3.2 (Nov 2020)...", "# Copyright ...",
#   "# Freely distributed ..."   HMMER's banner; ours: "# hpcalign hmmsearch :: ..." (hmmscan)
#                                and "# HMMER 3.3.2's hmmsearch ..."
#   "# query HMM file:", "# target sequence database:", "# query sequence file:",
#   "# target HMM database:", "# output directed to file:", "# MSA of all hits saved to file:",
#   "# per-seq hits tabular output:", "# per-dom hits tabular output:",
#   "# pfam-style tabular hit output:"                    paths (each run writes its own files)
#   "# number of worker threads:"                         --cpu differs (1 for HMMER's)
#   "# CPU time:", "# Mc/sec:"                            HMMER's timings (we print none)
# and "# Alignment of N hits ... saved to: PATH" is compared without its PATH.
# The -A alignment is compared but for its "#=GF AU" line (the program that wrote it); the
# tables (--tblout, --domtblout, --pfamtblout) but for HMMER's trailing "# Program:" comment
# block, which we do not write.

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

report_body() {
  grep -v -E '^# ((hpcalign )?(hmmsearch|hmmscan) ::|HMMER |Copyright|Freely distributed|query HMM file:|target sequence database:|query sequence file:|target HMM database:|output directed to file:|MSA of all hits saved to file:|per-seq hits tabular output:|per-dom hits tabular output:|pfam-style tabular hit output:|number of worker threads:|CPU time:|Mc/sec:)' "$1" |
    sed 's/^\(# Alignment of [0-9]* hits satisfying inclusion thresholds saved to: \).*/\1FILE/'
}
msa_body() { grep -v '^#=GF AU ' "$1"; }
table_rows() { grep -v '^#' "$1" | wc -l; }
table_body() { sed '/^# Program:/,$d' "$1" | sed '${/^#$/d}'; }  # without hmmsearch's '#' and trailer

# same_report NAME DIR_A DIR_B: the reports (out) and the -A alignments (ali) of two runs.
same_report() {
  local name=$1 a=$2 b=$3
  if [ ! -s "$b/out" ]; then fail "$name: no report"; return; fi
  if cmp -s <(report_body "$a/out") <(report_body "$b/out"); then
    pass "$name: report identical ($(grep -c '^>>' "$a/out") targets, $(grep -c '== domain' "$a/out") alignments)"
  else
    fail "$name: report differs: $(diff <(report_body "$a/out") <(report_body "$b/out") | head -8 | tr '\n' '|')"
  fi
  [ -e "$a/ali" ] || return 0
  if cmp -s <(msa_body "$a/ali") <(msa_body "$b/ali"); then
    pass "$name: -A identical ($(grep -c '^#=GS' "$a/ali") sequences)"
  else
    fail "$name: -A differs: $(diff <(msa_body "$a/ali") <(msa_body "$b/ali") | head -6 | tr '\n' '|')"
  fi
}

# same_tables NAME DIR_A DIR_B: tblout, domtblout and pfamtblout (tbl, dom, pfam) of two runs identical.
same_tables() {
  local name=$1 a=$2 b=$3 t
  for t in tbl dom pfam; do
    if cmp -s <(table_body "$a/$t") <(table_body "$b/$t"); then
      pass "$name: $t identical ($(table_rows "$a/$t") rows)"
    else
      fail "$name: $t differs: $(diff <(table_body "$a/$t") <(table_body "$b/$t") | head -6 | tr '\n' '|')"
    fi
  done
}

# outputs PROGRAM DIR: the text output options of a run writing into DIR (out, ali, tbl, dom,
# pfam; -A for hmmsearch only).
outputs() {
  echo -o "$2/out" --tblout "$2/tbl" --domtblout "$2/dom" --pfamtblout "$2/pfam"
  [ "$1" = hmmsearch ] && echo -A "$2/ali"
  return 0
}

# run_hmmer PROGRAM NAME MODELS DB DIR_THEIRS DIR_OURS [OPTIONS...]: HMMER's PROGRAM --cpu 1 and
# hpcalign PROGRAM with the same options, each writing its outputs into its directory; returns 1
# when HMMER's fails. (Directories without blanks.)
run_hmmer() {
  local program=$1 name=$2 models=$3 db=$4 theirs=$5 ours=$6; shift 6
  mkdir -p "$ours" "$theirs"
  $program --cpu 1 "$@" $(outputs $program "$theirs") "$models" "$db" >/dev/null 2>"$theirs/err" ||
    { fail "$name: $program failed: $(head -c 300 "$theirs/err")"; return 1; }
  expect_ok "$name: hpcalign $program runs" "$HPCALIGN" $program --cpu 2 --quiet "$@" $(outputs $program "$ours") \
    "$models" "$db"
}
run_both() { run_hmmer hmmsearch "$@"; }

# compare_hmmer PROGRAM NAME MODELS DB [OPTIONS...]: hpcalign PROGRAM against HMMER's, same
# options: tables and text identical. Outputs in $WORK/theirsN and $WORK/oursN (N counts calls).
compare_n=0
compare_hmmer() {
  local program=$1 name=$2 models=$3 db=$4; shift 4
  compare_n=$((compare_n + 1))
  local theirs=$WORK/theirs$compare_n ours=$WORK/ours$compare_n
  run_hmmer $program "$name" "$models" "$db" "$theirs" "$ours" "$@" || return
  [ "$(table_rows "$theirs/tbl")" -gt 0 ] || fail "$name: $program reports no target (a test that cannot fail)"
  same_tables "$name" "$theirs" "$ours"
  same_report "$name" "$theirs" "$ours"
}

column_sum() { h5dump -y -d "$2" "$1" | sed -n '/DATA {/,/}/p' | grep -o '[0-9]\+' | awk '{s += $1} END {print s + 0}'; }

# mpi_and_resume PROGRAM MODELS DB THEIRS GROUP...: `hpcalign PROGRAM --h5` in one process
# ($WORK/one.h5, outputs in $WORK/one), from 2 MPI ranks, and killed with kill -9 after 3 tiles,
# then resumed: the same tables and text (as HMMER's, in directory THEIRS) and the same HDF5 GROUPs.
mpi_and_resume() {
  local program=$1 models=$2 db=$3 theirs=$4; shift 4
  local other=hmmsearch out=$WORK/killed.h5
  [ "$program" = hmmsearch ] && other=hmmscan
  mkdir -p "$WORK/mpi" "$WORK/one" "$WORK/res"
  expect_ok "one process --h5" "$HPCALIGN" $program --quiet --cpu 2 --h5 "$WORK/one.h5" $(outputs $program "$WORK/one") \
    "$models" "$db"
  expect_ok "mpirun -np 2" mpirun --oversubscribe -np 2 "$HPCALIGN" $program --quiet --cpu 1 --h5 "$WORK/mpi.h5" \
    $(outputs $program "$WORK/mpi") "$models" "$db"
  same_tables "2 MPI ranks vs one process" "$WORK/one" "$WORK/mpi"
  same_tables "2 MPI ranks vs $program" "$theirs" "$WORK/mpi"
  same_report "2 MPI ranks vs $program" "$theirs" "$WORK/mpi"
  same_groups "np 2 vs one process" "$WORK/one.h5" "$WORK/mpi.h5" "$@"
  [ "$(attr "$WORK/one.h5" status)" = complete ] && [ "$(attr "$WORK/one.h5" workload)" = "$program" ] &&
    pass "HDF5 status complete, workload $program" || fail "status '$(attr "$WORK/one.h5" status)'"

  if kill_after_tiles "$out" 3 40 env HPCALIGN_FAULT_SLOW_MS=150 "$HPCALIGN" $program --quiet --cpu 4 --h5 "$out" \
      $(outputs $program "$WORK/res") "$models" "$db"; then
    [ "$(attr "$out" status)" != complete ] && [ ! -e "$WORK/res/tbl" ] && [ ! -e "$WORK/res/out" ] &&
      pass "killed mid-run, no table or text written" || fail "killed run: status '$(attr "$out" status)'"
    expect_error "resume with other --F1 refused" "F1" "$HPCALIGN" $program --quiet --h5 "$out" --resume --F1 0.05 \
      "$models" "$db"
    expect_error "$other --resume of a $program run refused" "workload" "$HPCALIGN" $other --quiet --h5 "$out" \
      --resume "$models" "$db"
    expect_ok "--resume finishes it" "$HPCALIGN" $program --quiet --cpu 2 --h5 "$out" --resume \
      $(outputs $program "$WORK/res") "$models" "$db"
    same_tables "resumed run vs uninterrupted" "$WORK/one" "$WORK/res"
    same_report "resumed run vs $program" "$theirs" "$WORK/res"
    same_groups "resumed run vs uninterrupted" "$WORK/one.h5" "$out" "$@"
  else
    fail "the run ended before 3 tiles were journalled"
  fi
}
