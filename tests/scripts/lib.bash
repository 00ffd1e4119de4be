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
  if grep -q -e "Segmentation fault" -e "terminate called" -e "Aborted" "$WORK/err.txt"; then fail "$name: crashed"; return; fi
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

same_hits() {  # same_hits NAME A.h5 B.h5: /hits, /queries and /targets identical
  local name=$1 a=$2 b=$3 ok=1
  for g in /hits /queries /targets; do
    cmp -s <(dump_group "$a" $g) <(dump_group "$b" $g) || ok=0
  done
  if [ $ok = 1 ]; then pass "$name"; else fail "$name: $(diff <(dump_group "$a" /hits) <(dump_group "$b" /hits) | head -5)"; fi
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
