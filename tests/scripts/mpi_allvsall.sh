#!/usr/bin/env bash
# MPI: allvsall under mpirun -np 1, 2 and 3 (and 3 ranks with an idle master) writes the same
# /hits, /queries and /targets as a single process, in every mode and for a rectangle screen.
# Every rank stages its own tiles' rows in its own run file (OUT.runs/w<rank>, io/run_files.hpp),
# which rank 0 merges: the files go when the run completes.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
# 150 sequences of balifam2000 (11,175 pairs): several tiles per rank.
awk '/^>/{n++} n>=300 && n<450' "$TEST_DATA/balifam2000.fa" >"$WORK/s.fa"
awk '/^>/{n++} n>=1000 && n<1040' "$TEST_DATA/balifam2000.fa" >"$WORK/b.fa"

for mode in local global semiglobal; do
  expect_ok "$mode single process" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/$mode.h5" --mode $mode --backend cpu --quiet
  for np in 1 2 3; do
    expect_ok "$mode mpirun -np $np" mpirun -np $np "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/$mode-np$np.h5" --mode $mode --backend cpu --threads 1 --quiet
    same_hits "$mode: np $np equals single process" "$WORK/$mode.h5" "$WORK/$mode-np$np.h5"
    [ ! -e "$WORK/$mode-np$np.h5.runs" ] && pass "$mode np $np: run files removed" || fail "$mode np $np: $WORK/$mode-np$np.h5.runs left"
  done
done
tiles() { h5dump -a /tiles "$1" 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p'; }
[ "$(tiles "$WORK/local-np3.h5")" -ge 6 ] && pass "np 3 had >= 6 tiles to share" || fail "tiles: '$(tiles "$WORK/local-np3.h5")'"

expect_ok "idle master, 3 ranks" env HPCALIGN_MASTER_IDLE=1 mpirun -x HPCALIGN_MASTER_IDLE -np 3 "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/idle.h5" --backend cpu --threads 1 --quiet
same_hits "idle master equals single process" "$WORK/local.h5" "$WORK/idle.h5"

expect_ok "rectangle single process" "$HPCALIGN" allvsall -i "$WORK/b.fa" -j "$WORK/s.fa" -o "$WORK/rect.h5" --mode global --score-only --backend cpu --quiet
expect_ok "rectangle mpirun -np 3" mpirun -np 3 "$HPCALIGN" allvsall -i "$WORK/b.fa" -j "$WORK/s.fa" -o "$WORK/rect3.h5" --mode global --score-only --backend cpu --threads 1 --quiet
same_hits "rectangle: np 3 equals single process" "$WORK/rect.h5" "$WORK/rect3.h5"

# Rank 0's temporary file (-o -, text only) is not where the other ranks can stage: they send
# their rows to rank 0, which stages them; the text equals the single process's.
expect_ok "text only, mpirun -np 3" mpirun -np 3 "$HPCALIGN" allvsall -i "$WORK/s.fa" -o - --format tsv --backend cpu --threads 1 --quiet
cp "$WORK/out.txt" "$WORK/np3.tsv"
expect_ok "text only, single process" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o - --format tsv --backend cpu --quiet
cp "$WORK/out.txt" "$WORK/np1.tsv"
[ -s "$WORK/np1.tsv" ] && cmp -s "$WORK/np1.tsv" "$WORK/np3.tsv" && pass "text only: np 3 equals single process" ||
  fail "text only: np 3 differs: $(diff "$WORK/np1.tsv" "$WORK/np3.tsv" | head -3)"

expect_error "mpirun with a bad mode fails cleanly" "--mode must be" mpirun -np 3 "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/bad.h5" --mode banana --backend cpu
finish
