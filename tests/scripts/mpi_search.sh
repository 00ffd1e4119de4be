#!/usr/bin/env bash
# MPI: 1, 2, 3 and 4 ranks (with rank 0 working or idle) give the same /hits as a single process.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }

expect_ok "single process" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/single.h5" --backend cpu --quiet
for np in 1 2 3 4; do
  expect_ok "mpirun -np $np" mpirun -np $np "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/np$np.h5" --backend cpu --threads 1 --quiet
  same_hits "np $np equals single process" "$WORK/single.h5" "$WORK/np$np.h5"
done
workers() { h5dump -a /workers "$1" 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p'; }
[ "$(workers "$WORK/np3.h5")" = 3 ] && pass "np 3 ran 3 workers (rank 0 works too)" || fail "np 3 workers: '$(workers "$WORK/np3.h5")'"
expect_ok "mpirun -np 3, idle master" env HPCALIGN_MASTER_IDLE=1 mpirun -x HPCALIGN_MASTER_IDLE -np 3 "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/idle.h5" --backend cpu --threads 1 --quiet
same_hits "idle master equals single process" "$WORK/single.h5" "$WORK/idle.h5"
[ "$(workers "$WORK/idle.h5")" = 2 ] && pass "idle master: 2 workers" || fail "idle master workers: '$(workers "$WORK/idle.h5")'"
expect_error "mpirun with a bad input fails cleanly" "no sequences|empty" mpirun -np 3 "$HPCALIGN" search -q /dev/null -d "$DB" -o "$WORK/bad.h5" --backend cpu
[ ! -e "$WORK/bad.h5" ] && pass "no output file after a failed MPI run" || fail "output left after failed MPI run"
finish
