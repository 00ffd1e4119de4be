#!/usr/bin/env bash
# CPU backend vs ssearch36, one core each, same queries, database and scoring
# (BLOSUM62, gap 11/1). Prints GCUPS = sum(|q|) x database residues / seconds.
#   bench/cpu_vs_ssearch.sh [QUERIES.fa] [DB.fa or DB.fa.gz] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
q=${1:-$root/tests/data/queries3.fa}
db_in=${2:-$root/tests/data/balifam1000.fa.gz}
threads=${3:-1}
bin=${HPCALIGN:-$root/build/hpcalign}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/db.fa  # plain FASTA for ssearch36 and the residue count
zcat -f "$db_in" >"$db"

residues() { grep -v '^>' "$1" | tr -d ' \n\r' | wc -c; }
qres=$(residues "$q"); dbres=$(residues "$db")
cells=$(python3 -c "print($qres * $dbres)")
now() { date +%s.%N; }

"$bin" makedb "$db" "$work/db.h5" 2>/dev/null
t0=$(now); "$bin" search -q "$q" -d "$work/db.h5" -o "$work/out.h5" --backend cpu --threads "$threads" --quiet; t1=$(now)
t2=$(now); ssearch36 -q -p -s BP62 -f -11 -g -1 -T "$threads" -b 10 -d 0 -z -1 "$q" "$db" >"$work/ssearch.txt"; t3=$(now)
python3 - "$cells" "$t0" "$t1" "$t2" "$t3" "$threads" <<'PY'
import sys
cells, t0, t1, t2, t3, th = float(sys.argv[1]), *map(float, sys.argv[2:6]), int(sys.argv[6])
a, b = t1 - t0, t3 - t2
print(f"cells {cells:.3e}, threads {th}")
print(f"hpcalign cpu : {a:7.2f} s  {cells / a / 1e9:6.2f} GCUPS  ({cells / a / 1e9 / th:5.2f} per core)")
print(f"ssearch36    : {b:7.2f} s  {cells / b / 1e9:6.2f} GCUPS  ({cells / b / 1e9 / th:5.2f} per core)")
print(f"ratio        : {b / a:5.2f}x ssearch36")
PY
