#!/usr/bin/env bash
# All-vs-all benchmark: N sequences of balifam1000 (fixed-seed pick, so every run screens the
# same pairs), BLOSUM62 11/1, each mode of MODES with --score-only and with alignments
# (coordinates + CIGAR). Prints per run the wall time, the compute phase (plan to last tile),
# pairs, cells (sum over pairs of |a| x |b|), TCUPS = cells / compute-phase seconds, hits
# written, and the traceback overhead (phase with alignments / phase score-only).
#   bench/allvsall.sh [BALIFAM1000.fa]     (default: tests/data/balifam1000.fa.gz)
# Environment: HPCALIGN (binary), BACKEND (cuda), N (20000),
# MODES ("local global"), MIN_SCORE (report/align only pairs scoring >= this; default: all),
# THREADS, WORK (kept dir), LAUNCH (prefix such as "mpirun -np 2"), KEEP_H5=1 (keep outputs).
# At N=20000 there are 200M pairs: without MIN_SCORE every one is kept in memory, written and
# (without --score-only) aligned; MIN_SCORE=50 keeps ~1.6% (balifam1000, BLOSUM62 11/1), so
# the alignment run then measures the traceback of the reported hits. The score pass always
# covers every pair, so the TCUPS of the score-only runs do not depend on MIN_SCORE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
source_fa=${1:-$root/tests/data/balifam1000.fa.gz}
backend=${BACKEND:-cuda}
n=${N:-20000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -s "$source_fa" ] || { echo "bench/allvsall.sh: no sequences at $source_fa" >&2; exit 1; }

python3 "$root/bench/pick_sequences.py" "$source_fa" "$work/seqs.fa:$n"
awk '!/^>/{n++; r+=length($0)} END{printf "sequences: %d, %d residues (mean %.0f), backend '"$backend"'\n", n, r, r/n}' "$work/seqs.fa"

extra=()
[ -n "${THREADS:-}" ] && extra+=(--threads "$THREADS")
[ -n "${MIN_SCORE:-}" ] && extra+=(--min-score "$MIN_SCORE")

# One run; prints "<wall s> <phase s> <pairs> <cells> <GCUPS> <hits>".
run() {
  local tag=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  ${LAUNCH:-} "$bin" allvsall -i "$work/seqs.fa" -o "$work/$tag.h5" --backend "$backend" --matrix BLOSUM62 \
    --gapopen 11 --gapextend 1 --verbose --quiet "${extra[@]}" "$@" 2>"$work/$tag.log"
  t1=$(date +%s.%N)
  local hits
  hits=$(h5dump -H -d /hits/query "$work/$tag.h5" 2>/dev/null | sed -n 's/.*SIMPLE { ( \([0-9]*\) ).*/\1/p') || true
  [ -n "$hits" ] || hits=$(python3 -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["hits/query"].shape[0])' \
    "$work/$tag.h5" 2>/dev/null) || hits=-1  # -1: neither h5dump nor h5py
  python3 - "$work/$tag.log" "$t0" "$t1" "${hits:-0}" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"compute phase ([\d.]+) s, (\d+) pairs, (\d+) cells: ([\d.]+) GCUPS", log)
if not m:
    sys.exit("no timing line in " + sys.argv[1] + ":\n" + log)
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.3f} {m.group(1)} {m.group(2)} {m.group(3)} {m.group(4)} {sys.argv[4]}")
PY
  [ "${KEEP_H5:-0}" = 1 ] || rm -f "$work/$tag.h5"
}

printf "%-8s %-11s %9s %9s %12s %10s %8s %11s\n" mode run wall_s phase_s pairs cells TCUPS hits_written
for mode in ${MODES:-local global}; do
  read -r w1 p1 pairs cells g1 h1 < <(run "${mode}_score" --mode "$mode" --score-only)
  printf "%-8s %-11s %9.3f %9.3f %12d %10.4g %8.4f %11d\n" "$mode" score-only "$w1" "$p1" "$pairs" "$cells" \
    "$(python3 -c "print($g1 / 1000)")" "$h1"
  read -r w2 p2 pairs cells g2 h2 < <(run "${mode}_align" --mode "$mode")
  printf "%-8s %-11s %9.3f %9.3f %12d %10.4g %8.4f %11d\n" "$mode" alignments "$w2" "$p2" "$pairs" "$cells" \
    "$(python3 -c "print($g2 / 1000)")" "$h2"
  python3 -c "print(f'{\"$mode\":<8} traceback overhead: phase x{$p2 / max($p1, 1e-9):.2f}, wall x{$w2 / max($w1, 1e-9):.2f}')"
done
grep -h "plan:" "$work"/*_score.log | sort -u
