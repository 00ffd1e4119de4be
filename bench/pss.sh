#!/usr/bin/env bash
# PSS benchmark, the shape of the original experiment: 86 queries x 2,771 subjects x 1,000
# permutations, sequences drawn from balifam1000 (fixed seed, so every run scores the same
# pairs), BLOSUM62 11/1. Prints the wall time, the score phase (plan to last tile, Gumbel fits
# included) and TCUPS = sum over pairs of |q| x |s| x N / score-phase seconds; on the GPU also
# the summed score-kernel time and its TCUPS.
#   bench/pss.sh [BALIFAM1000.fa]     (default: tests/data/balifam1000.fa.gz)
# Environment: HPCALIGN (binary), BACKEND (cuda; cpu runs a small
# sanity shape: NQ=4 NS=60), NQ, NS, PERMS (1000), THREADS, QUERY_BATCH, WORK (kept dir),
# LAUNCH (prefix such as "mpirun -np 2").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
source_fa=${1:-$root/tests/data/balifam1000.fa.gz}
backend=${BACKEND:-cuda}
if [ "$backend" = cpu ]; then nq=${NQ:-4}; ns=${NS:-60}; else nq=${NQ:-86}; ns=${NS:-2771}; fi
perms=${PERMS:-1000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -s "$source_fa" ] || { echo "bench/pss.sh: no sequences at $source_fa" >&2; exit 1; }

# Deterministic pick: distinct sequences, queries and subjects disjoint, file order kept.
python3 "$root/bench/pick_sequences.py" "$source_fa" "$work/queries.fa:$nq" "$work/subjects.fa:$ns"
stats() { awk '!/^>/{n++; r+=length($0)} END{printf "%d sequences, %d residues (mean %.0f)", n, r, r/n}' "$1"; }
echo "queries:  $(stats "$work/queries.fa")"
echo "subjects: $(stats "$work/subjects.fa")"

extra=()
[ -n "${THREADS:-}" ] && extra+=(--threads "$THREADS")
[ -n "${QUERY_BATCH:-}" ] && extra+=(--query-batch "$QUERY_BATCH")
t0=$(date +%s.%N)
${LAUNCH:-} "$bin" pss -q "$work/queries.fa" -s "$work/subjects.fa" -o "$work/pss.h5" --backend "$backend" \
  --permutations "$perms" --matrix BLOSUM62 --gapopen 11 --gapextend 1 --verbose --quiet "${extra[@]}" 2>"$work/pss.log"
t1=$(date +%s.%N)
grep "T = floor" "$work/pss.log" || true
python3 - "$work/pss.log" "$t0" "$t1" "$perms" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"load ([\d.]+) s, score phase ([\d.]+) s, ([\d.e+]+) cells .*?: ([\d.]+) GCUPS", log)
if not m:
    sys.exit("no timing line in " + sys.argv[1] + ":\n" + log)
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"permutations {sys.argv[4]}, cells (sum |q| x |s| x N) {float(m.group(3)):.4g}")
print(f"score phase  {float(m.group(2)):.3f} s  {float(m.group(4)) / 1000:.3f} TCUPS  (permutation, scoring and Gumbel fits)")
k = re.search(r"GPU score kernels ([\d.]+) s summed over workers \(([\d.]+) GCUPS", log)
if k:
    print(f"GPU kernels  {float(k.group(1)):.3f} s  {float(k.group(2)) / 1000:.3f} TCUPS per GPU (score kernels only)")
print(f"end to end   {wall:.3f} s  (input load {float(m.group(1)):.3f} s and device setup included)")
PY
