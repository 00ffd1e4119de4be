#!/usr/bin/env bash
# search stages its rows the way allvsall does: every worker sorts its tiles' hits into its own
# run file (OUT.runs/w<worker>, io/run_files.hpp) and only the run's place reaches the master and
# its resume journal; the final merge keeps each query's best --max-hits over all tiles, those
# within --evalue. The tiles here cut the database (several per query batch), so the cut is
# the merge's. Checks: a run killed mid-way has its rows in the run files and only places in
# the journal (a few dozen bytes a tile), and its resume equals an uninterrupted run;
# 1, 2 and 3 ranks equal a single process, also text-only (the other ranks cannot see rank 0's
# temporary file: they send their rows, which rank 0 stages); the run files go at the end.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
export HPCALIGN_TILES_PER_WORKER=4  # 3 queries x 3 or 4 database partitions under 2 or 3 ranks
# Fewer hits than a tile keeps: the merge cuts across tiles. ka: regress on a database this
# small would give every tile the whole database (its own calibration sample).
CUT=(--max-hits 7 --evalue 1000 --stats ka)
search() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "${CUT[@]}" "$@"; }
mpi_search() { local np=$1; shift; mpirun -np "$np" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --threads 1 --quiet "${CUT[@]}" "$@"; }
int_attr0() { int_attr "$@" | head -1; }

expect_ok "single process" search -o "$WORK/single.h5"
for np in 1 2 3; do
  expect_ok "mpirun -np $np" mpi_search $np -o "$WORK/np$np.h5"
  same_hits "np $np equals single process" "$WORK/single.h5" "$WORK/np$np.h5"
  [ ! -e "$WORK/np$np.h5.runs" ] && pass "np $np: run files removed" || fail "np $np: $WORK/np$np.h5.runs left"
done
parts=$(int_attr0 "$WORK/np3.h5" tile_db_partitions)
[ "${parts:-0}" -ge 2 ] && pass "np 3: the database cut into $parts partitions" || fail "np 3 partitions: '$parts'"
"$HPCALIGN" view "$WORK/single.h5" --format tsv | tail -n +2 >"$WORK/single.tsv"  # without the header line
rows=$(wc -l <"$WORK/single.tsv")
per_query=$(cut -f1 "$WORK/single.tsv" | sort | uniq -c | sort -rn | awk 'NR==1{print $1}')
[ "$rows" -ge 10 ] && [ "$per_query" = 7 ] && pass "$rows hits, 7 for the best query (--max-hits 7)" ||
  fail "hits: $rows, at most $per_query a query"

expect_ok "text only, mpirun -np 3" mpi_search 3 -o - --format tsv
cp "$WORK/out.txt" "$WORK/np3.tsv"
expect_ok "text only, single process" search -o - --format tsv
cp "$WORK/out.txt" "$WORK/np1.tsv"
[ -s "$WORK/np1.tsv" ] && cmp -s "$WORK/np1.tsv" "$WORK/np3.tsv" && pass "text only: np 3 equals single process" ||
  fail "text only: np 3 differs: $(diff "$WORK/np1.tsv" "$WORK/np3.tsv" | head -3)"

# Killed after a few tiles (each made slow): the rows are in the workers' run files, the
# journal holds places (a tile's rows inline would take ~60 bytes each, with CIGARs).
out=$WORK/killed.h5
if kill_after_tiles "$out" 3 0 env HPCALIGN_FAULT_SLOW_MS=400 mpirun -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu \
     --threads 1 --quiet "${CUT[@]}" -o "$out"; then
  staged=$(cat "$out".runs/w* 2>/dev/null | wc -c)
  largest=$(python3 "$(dirname "$0")/journal.py" largest "$out.journal")
  echo "# killed after $(journal_tiles "$out") tiles: ${staged} bytes in the run files, largest journal tile record ${largest} bytes"
  [ "$staged" -gt 1000 ] && pass "the workers' run files hold the staged rows" || fail "run files: $staged bytes"
  [ "$largest" -gt 0 ] && [ "$largest" -lt 200 ] && pass "the journal holds run places only (<= $largest bytes a tile)" ||
    fail "a journal tile record of $largest bytes"
  expect_ok "resume (mpirun -np 2)" mpi_search 2 -o "$out" --resume
  same_hits "resumed run equals the uninterrupted one" "$WORK/single.h5" "$out"
  [ ! -e "$out.runs" ] && pass "resumed run: run files removed" || fail "resumed run: $out.runs left"
else
  fail "the run ended before 3 tiles were journalled"
fi
finish
