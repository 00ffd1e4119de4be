# Shared helpers for the shell tests (sourced; not a test itself).
set -uo pipefail
: "${HPCALIGN:?path to the hpcalign binary}" "${TEST_DATA:?tests/data}"
WORK=$(mktemp -d /tmp/hpcalign-sh-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failures=0
checks=0

pass() { checks=$((checks + 1)); echo "ok - $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL - $1"; }

# expect_ok NAME CMD...: the command must exit 0.
expect_ok() {
  local name=$1; shift
  if "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"; then pass "$name"; else fail "$name (exit $?): $(head -c 400 "$WORK/err.txt")"; fi
}

# expect_error NAME PATTERN CMD...: non-zero exit and stderr matching PATTERN (grep -E).
expect_error() {
  local name=$1 pattern=$2; shift 2
  "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  local rc=$?
  if [ $rc -eq 0 ]; then fail "$name: exit 0, expected an error"; return; fi
  if ! grep -Eq -- "$pattern" "$WORK/err.txt"; then fail "$name: stderr lacks /$pattern/: $(head -c 400 "$WORK/err.txt")"; return; fi
  if grep -q -e "Segmentation fault" -e "terminate called" -e "Aborted" "$WORK/err.txt"; then
    fail "$name: crashed: $(grep -m 3 -e "Segmentation fault" -e "terminate called" -e "Aborted" "$WORK/err.txt" | tr '\n' ' ')"
    return
  fi
  # A death by signal (the shell's "Segmentation fault" goes to the script's stderr, not err.txt).
  if [ $rc -ge 128 ]; then fail "$name: killed by signal $((rc - 128))"; return; fi
  pass "$name (exit $rc)"
}

# bad NAME PATTERN ARGS...: `hpcalign ARGS` must fail with PATTERN on stderr and leave no
# complete-looking output file at $OUT (the caller sets OUT).
bad() {
  local name=$1 pattern=$2; shift 2
  rm -f "$OUT"
  expect_error "$name" "$pattern" "$HPCALIGN" "$@"
  if [ -e "$OUT" ] && [ "$(h5_status "$OUT")" = complete ]; then fail "$name: left a complete-looking $OUT"; fi
}

# The status attribute of a result file ("complete"/"incomplete"), empty if unreadable.
h5_status() { h5dump -a /status "$1" 2>/dev/null | sed -n 's/.*(0): "\(.*\)".*/\1/p'; }

# Text dump of one group with full float precision (h5diff reports "not comparable"
# datasets of different sizes as equal, so we compare dumps instead).
dump_group() { h5dump -m '%.17g' -g "$2" "$1" 2>&1 | tail -n +2; }

# same_groups NAME A.h5 B.h5 GROUP...: every dataset of each group identical (values, types,
# shapes; root attributes such as timings are not compared). A group missing from A fails.
same_groups() {
  local name=$1 a=$2 b=$3 g; shift 3
  for g in "$@"; do
    # (grep -c, not -q: an early exit would SIGPIPE h5dump, a failure under pipefail)
    if ! dump_group "$a" "$g" | grep -c DATASET >/dev/null; then fail "$name: no datasets in $g of $a"; return; fi
    if ! cmp -s <(dump_group "$a" "$g") <(dump_group "$b" "$g"); then
      fail "$name: $g differs: $(diff <(dump_group "$a" "$g") <(dump_group "$b" "$g") | head -5)"; return
    fi
  done
  pass "$name"
}

same_hits() { same_groups "$1" "$2" "$3" /hits /queries /targets; }  # same_hits NAME A.h5 B.h5

# True when a complete result file kept none of the run's state (/staging rows, /tiles ledger).
no_run_state() { ! h5ls "$1/staging" >/dev/null 2>&1 && ! h5ls "$1/tiles" >/dev/null 2>&1; }
# An attribute on '/' as text, quotes stripped (empty when absent).
attr() { h5dump -a "/$2" "$1" 2>/dev/null | sed -n 's/.*(0): "\{0,1\}\([^"]*\)"\{0,1\}.*/\1/p'; }
# An integer attribute on '/' (empty when absent).
int_attr() { h5dump -a "/$2" "$1" 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p'; }

# signal_after_tiles OUT K SIGNAL TARGET LOG CMD...: runs CMD (a run writing OUT; output appended
# to LOG) in a session of its own and sends SIGNAL once K tiles of OUT are journalled, to CMD
# (TARGET run) or to its hpcalign children (TARGET ranks); prints "STATUS MS", CMD's exit status
# and the ms from the signal to its end. Returns 1 (after kill -9 of the session) when the run
# ended first or nothing came within 300 s. (Started by the poller, as kill_after_tiles.)
signal_after_tiles() {
  local out=$1 k=$2 sig=$3 target=$4 log=$5; shift 5
  python3 "$(dirname "${BASH_SOURCE[0]}")/journal.py" signal-run "$out.journal" "$k" "$sig" "$target" "$log" "$@"
}

# signal_stop_check NAME SIGNAL OUT LOG CMD...: runs CMD (output to LOG), sends it SIGNAL once its
# first tile is journalled (so every rank is running, with its signal handlers, and tiles are
# left) and checks the graceful stop: exit 0 within the grace time, OUT marked incomplete with
# stopped_by_signal, and the log saying it is resumable.
signal_stop_check() {
  local name=$1 sig=$2 out=$3 log=$4 stopped rc ms; shift 4
  stopped=$(signal_after_tiles "$out" 1 "$sig" run "$log" "$@") ||
    { fail "$name: the run ended before its first tile was journalled"; return; }
  read -r rc ms <<<"$stopped"
  echo "# $name: exit $rc ${ms} ms after SIG$sig"
  [ $rc = 0 ] && pass "$name: exit 0" || fail "$name: exit $rc: $(tail -3 "$log")"
  # Within half of Slurm's usual grace (--signal=B:USR1@120): the tiles in flight are delivered
  # first, and on a loaded 2-core machine those alone took ~13 s (the ledger check of the callers
  # proves the stop came before the last tile).
  [ "$ms" -lt 60000 ] && pass "$name: stopped within the grace time (${ms} ms)" || fail "$name: took ${ms} ms"
  [ "$(attr "$out" status)" = incomplete ] && pass "$name: status incomplete" || fail "$name: status '$(attr "$out" status)'"
  [ "$(attr "$out" stopped_by_signal)" = "SIG$sig" ] && pass "$name: stopped_by_signal=SIG$sig" ||
    fail "$name: stopped_by_signal '$(attr "$out" stopped_by_signal)'"
  grep -q "stopped by SIG$sig.*is resumable with --resume" "$log" && pass "$name: says the file is resumable" ||
    fail "$name: log lacks the resume hint: $(tail -2 "$log")"
}

sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

# Whole tile records in the resume journal of a run writing OUT (0 when it has none).
journal_tiles() { python3 "$(dirname "${BASH_SOURCE[0]}")/journal.py" count "$1.journal"; }

# kill_after_tiles OUT K EXTRA_MS CMD...: runs CMD (a run writing OUT; output appended to
# $WORK/session.log) in a session of its own, and once it has journalled K tiles of OUT waits
# EXTRA_MS and kills the session (kill -9 every process: Open MPI puts each rank in its own
# process group). The poller starts the run, so that its interpreter's start (over a second on a
# loaded machine) is not in the race; polling the journal, not sleeping, puts the kill mid-run
# however loaded the machine is. Returns 1 (after killing) when the run ended first or nothing
# came within 300 s.
kill_after_tiles() {
  local out=$1 k=$2 extra=$3; shift 3
  python3 "$(dirname "${BASH_SOURCE[0]}")/journal.py" kill-run "$out.journal" "$k" "$extra" "$WORK/session.log" "$@"
}

# staged_rows_checks NAME GROUPS FORMAT MAX_RECORD -- ARGS...: `hpcalign ARGS` (pss, msv) has its
# workers stage their rows in run files (OUT.h5.runs, merged when the run completes). Checks:
# 1, 2 and 3 MPI ranks write the same GROUPS (comma-separated) as a single process, and print the
# same `view --format FORMAT` text; text-only under 3 ranks (`-o - --format FORMAT`: the other
# ranks cannot see rank 0's temporary file and send it their rows) prints what a single process
# prints; the run files go at the end; a 3-rank run killed mid-way has its rows in the run files
# and in its journal tile records of at most MAX_RECORD bytes (places, not rows), and a 2-rank
# --resume equals the single process. Leaves $WORK/NAME-single.h5. (The tblout trailer's
# command line, directory and date differ between runs.)
staged_rows_checks() {
  local name=$1 groups=$2 format=$3 max_record=$4; shift 5
  local -a G one=("$HPCALIGN" "$@" --backend cpu --quiet) three=(mpirun -np 3 "$HPCALIGN" "$@" --backend cpu --quiet --threads 1)
  local single=$WORK/$name-single.h5 trailer='^# \(Option settings\|Date\|Current dir\):' np out staged largest
  IFS=, read -ra G <<<"$groups"
  staged_text() { "$HPCALIGN" view "$1" --format "$format" | grep -v "$trailer"; }
  expect_ok "$name: single process" "${one[@]}" -o "$single" --threads 2
  for np in 1 2 3; do
    out=$WORK/$name-np$np.h5
    expect_ok "$name: mpirun -np $np" mpirun -np $np "$HPCALIGN" "$@" --backend cpu --quiet --threads 1 -o "$out"
    same_groups "$name: np $np: ${groups} identical to the single process" "$single" "$out" "${G[@]}"
    cmp -s <(staged_text "$single") <(staged_text "$out") && pass "$name: np $np: view --format $format identical" ||
      fail "$name: np $np: view --format $format differs"
    [ ! -e "$out.runs" ] && pass "$name: np $np: run files removed" || fail "$name: np $np: $out.runs left"
  done
  expect_ok "$name: text only, single process" "${one[@]}" -o - --format "$format"
  grep -v "$trailer" "$WORK/out.txt" >"$WORK/$name-text1.txt"
  expect_ok "$name: text only, mpirun -np 3" "${three[@]}" -o - --format "$format"
  [ -s "$WORK/$name-text1.txt" ] && cmp -s "$WORK/$name-text1.txt" <(grep -v "$trailer" "$WORK/out.txt") &&
    pass "$name: text only: np 3 equals single process" ||
    fail "$name: text only: np 3 differs: $(diff "$WORK/$name-text1.txt" <(grep -v "$trailer" "$WORK/out.txt") | head -3)"
  cmp -s "$WORK/$name-text1.txt" <(staged_text "$single") && pass "$name: text only equals view of the h5 file" ||
    fail "$name: text only differs from view"

  out=$WORK/$name-killed.h5
  if kill_after_tiles "$out" 3 0 env HPCALIGN_FAULT_SLOW_MS=300 "${three[@]}" -o "$out"; then
    staged=$(cat "$out".runs/w* 2>/dev/null | wc -c)
    largest=$(python3 "$(dirname "${BASH_SOURCE[0]}")/journal.py" largest "$out.journal")
    echo "# $name: killed after $(journal_tiles "$out") tiles: ${staged} bytes in the run files, largest journal tile record ${largest} bytes"
    [ "$staged" -gt 100 ] && pass "$name: the workers' run files hold the staged rows" || fail "$name: run files: $staged bytes"
    [ "$largest" -gt 0 ] && [ "$largest" -le "$max_record" ] &&
      pass "$name: the journal holds run places (<= $largest bytes a tile)" || fail "$name: a journal tile record of $largest bytes"
    expect_ok "$name: resume (mpirun -np 2)" mpirun -np 2 "$HPCALIGN" "$@" --backend cpu --quiet --threads 1 -o "$out" --resume
    same_groups "$name: resumed run equals the single process" "$single" "$out" "${G[@]}"
    [ ! -e "$out.runs" ] && pass "$name: resumed run: run files removed" || fail "$name: resumed run: $out.runs left"
  else
    fail "$name: the run ended before 3 tiles were journalled"
  fi
}

# Small inputs for allvsall, pss and msv runs of a few seconds in many tiles on one CPU thread
# (kill and signal tests): $WORK/short200.fa (200 sequences of <= 120 residues), subjects60.fa,
# db2000.fa (the first 2000 of db2M.fa) and models10.hmm (the protein models of tests/data/hmm).
fasta_head() {  # fasta_head FILE N MAXLEN: the first N records of at most MAXLEN residues
  awk -v n="$2" -v max="$3" '/^>/ { if (h != "" && len <= max && k < n) { print h; printf "%s", s; k++ }
    h = $0; s = ""; len = 0; next } { s = s $0 "\n"; len += length($0) }
    END { if (h != "" && len <= max && k < n) { print h; printf "%s", s } }' "$1"
}
workload_inputs() {
  fasta_head "$TEST_DATA/balifam2000.fa" 200 120 >"$WORK/short200.fa"
  fasta_head "$TEST_DATA/balifam2000.fa" 60 400 >"$WORK/subjects60.fa"
  fasta_head "$TEST_DATA/db2M.fa" 2000 100000 >"$WORK/db2000.fa"
  local f
  for f in 20aa.hmm.gz 2OG-FeII_Oxy_3.hmm.gz Caudal_act.hmm.gz LuxC.hmm.gz M1.hmm Pkinase.hmm RRM_1.hmm.gz XYPPX.hmm \
           fn3.hmm globins4.hmm; do
    case $f in *.gz) zcat "$TEST_DATA/hmm/$f" ;; *) cat "$TEST_DATA/hmm/$f" ;; esac
  done >"$WORK/models10.hmm"
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
