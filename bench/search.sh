#!/usr/bin/env bash
# GPU search benchmark: the 20 CUDASW++ queries against the synthetic 207M-residue database
# (hpcalign makedb --synthetic --residues 207e6 --seed 1), BLOSUM62 11/1, top 10, --backend cuda.
# Prints TCUPS of the search phase (sum |q| x database residues / search-phase seconds, as
# `hpcalign search --verbose` reports it), the end-to-end wall time (database load included),
# and, with PER_QUERY=1, the same figures for each query searched on its own.
#   bench/search.sh [WORKDIR]       (WORKDIR keeps the database between runs; default: a temp dir)
# Environment: HPCALIGN (binary), QUERIES (FASTA; default tests/data/cudasw_queries20.fa), BACKEND (cuda), PER_QUERY,
# LAUNCH (a prefix such as "mpirun -np 4" or "env CUDA_VISIBLE_DEVICES=0").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
queries=${QUERIES:-$root/tests/data/cudasw_queries20.fa}
backend=${BACKEND:-cuda}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
now() { date +%s.%N; }

if [ ! -s "$work/db207M.h5" ]; then
  t0=$(now)
  "$bin" makedb --synthetic --residues 207e6 --seed 1 -o "$work/db207M.h5"
  echo "database built in $(python3 -c "print(f'{$(now) - $t0:.1f}')") s"
fi

# One search; prints "<wall s> <phase s> <phase GCUPS> <align s>" from the --verbose timing line.
search() {
  local q=$1 tag=$2 t0 t1
  t0=$(now)
  ${LAUNCH:-} "$bin" search -q "$q" -d "$work/db207M.h5" -o "$work/$tag.h5" --backend "$backend" --matrix BLOSUM62 \
    --gapopen 11 --gapextend 1 --max-hits 10 --verbose --quiet 2>"$work/$tag.log"
  t1=$(now)
  python3 - "$work/$tag.log" "$t0" "$t1" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"search phase ([\d.]+) s \(([\d.]+) GCUPS\).*align ([\d.]+) s", log)
if not m:
    sys.exit("no timing line in " + sys.argv[1] + ":\n" + log)
print(f"{float(sys.argv[3]) - float(sys.argv[2]):.3f} {m.group(1)} {m.group(2)} {m.group(3)}")
PY
}

read -r wall phase gcups align < <(search "$queries" all)
grep "plan:" "$work/all.log" || true
nq=$(grep -c '^>' "$queries")
echo "queries: $nq ($queries), backend $backend"
printf "search phase %.3f s  %.3f TCUPS  (alignments of the top hits: %.3f s of it)\n" "$phase" \
  "$(python3 -c "print($gcups / 1000)")" "$align"
printf "end to end   %.3f s  (database load and device setup included)\n" "$wall"

if [ "${PER_QUERY:-0}" = 1 ]; then
  echo "per query (each searched alone):  id  length  phase_s  TCUPS  wall_s"
  awk -v dir="$work" '/^>/{n++; f=sprintf("%s/q%02d.fa", dir, n)} {print > f}' "$queries"
  for f in "$work"/q[0-9][0-9].fa; do
    id=$(head -1 "$f" | cut -c2- | cut -d' ' -f1)
    len=$(grep -v '^>' "$f" | tr -d ' \n\r' | wc -c)
    read -r wall phase gcups align < <(search "$f" "$(basename "$f" .fa)")
    printf "  %-12s %6d  %7.3f  %6.3f  %7.3f\n" "$id" "$len" "$phase" "$(python3 -c "print($gcups / 1000)")" "$wall"
  done
fi
