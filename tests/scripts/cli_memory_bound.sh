#!/usr/bin/env bash
# Bounded memory of the result sink: an all-pairs screen whose rows, held in memory until the
# end (the design before the streaming sink: ~215 bytes a hit, measured), would need far more
# than the bound completes under it (peak resident set size, as --verbose reports it from
# getrusage), with /hits identical to the same screen under MPI (other tiles' arrival order)
# and in the documented order: query, then score descending, then target. With a fan-in of 4
# (HPCALIGN_MERGE_FAN_IN) its hundreds of runs are merged in levels through intermediate run
# files: under the same bound, /hits identical, the intermediate files gone. The merge holds what
# its budget (HPCALIGN_MERGE_MEMORY_MIB; the final merge's HPCALIGN_FINAL_MERGE_MEMORY_MIB) allows:
# 64 MiB here, and a quarter of it cuts the rows into more segments, for the same rows under a
# lower bound (a screen's final merge cuts them into ranges of whole 64 Ki-row chunks, at least
# one a range: here 2 chunks a range at 64 MiB, 1 at 16 MiB).
source "$(dirname "$0")/lib.bash"
export HPCALIGN_MERGE_MEMORY_MIB=64 HPCALIGN_FINAL_MERGE_MEMORY_MIB=64
n=1500
awk -v n=$n '/^>/{k++} k<=n' "$TEST_DATA/balifam2000.fa" >"$WORK/s.fa"
pairs=$((n * (n - 1) / 2))
bound_mib=120
held_mib=$((pairs * 215 / 1048576))
[ "$held_mib" -gt $((3 * bound_mib / 2)) ] && pass "holding the $pairs rows would take ~$held_mib MiB, over 1.5 times the bound" \
  || fail "screen too small to tell: $held_mib MiB held vs bound $bound_mib MiB"

expect_ok "every pair kept, score-only" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/a.h5" --score-only --backend cpu --verbose
segments() { sed -n "s/.*then the last merge of [0-9]* runs; its \([0-9]*\) segments' stages.*/\1/p" "$WORK/err.txt"; }
wide=$(segments)
peak=$(sed -n 's/^hpcalign: peak resident memory \([0-9]*\) MiB$/\1/p' "$WORK/err.txt")
[ -n "$peak" ] && [ "$peak" -le $bound_mib ] && pass "peak resident memory $peak MiB <= $bound_mib MiB" \
  || fail "peak resident memory '$peak' MiB, bound $bound_mib MiB"
nrows() { h5dump -H -d /hits/score "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }
[ "$(nrows "$WORK/a.h5")" = "$pairs" ] && pass "every one of the $pairs pairs in /hits" || fail "/hits rows $(nrows "$WORK/a.h5")"
no_run_state "$WORK/a.h5" && pass "no staging rows or ledger left" || fail "run state left in the complete file"

col() { h5dump -y -w 0 -d "/hits/$2" "$1" 2>/dev/null | sed -n '/DATA {/,/}/p' | grep -o -- '-\?[0-9]\+'; }
paste <(col "$WORK/a.h5" query) <(col "$WORK/a.h5" score) <(col "$WORK/a.h5" target) >"$WORK/keys.txt"
sort -k1,1n -k2,2nr -k3,3n -c "$WORK/keys.txt" 2>/dev/null && pass "rows sorted by query, score descending, target" \
  || fail "rows out of order: $(sort -k1,1n -k2,2nr -k3,3n -c "$WORK/keys.txt" 2>&1 | head -1)"

expect_ok "the same screen, merged through a fan-in of 4" env HPCALIGN_MERGE_FAN_IN=4 "$HPCALIGN" allvsall -i "$WORK/s.fa" \
  -o "$WORK/f.h5" --score-only --backend cpu --verbose
# How many runs reach the final merge depends on how far the background merges kept up (the
# box's load: 48-237 seen); more than 16 still needs two levels of intermediate runs at fan-in 4.
runs=$(sed -n 's/^hpcalign: timing: final merge of \([0-9]*\) sorted runs.*/\1/p' "$WORK/err.txt")
levels=$(sed -n 's/.*: first \([0-9]*\) intermediate runs of .*then the last merge of \([0-9]*\) runs;.*/\1 \2/p' "$WORK/err.txt")
[ -n "$runs" ] && [ "$runs" -gt 16 ] && [ "${levels%% *}" -ge $(((runs - 4) / 3)) ] && [ "${levels##* }" -le 4 ] \
  && pass "$runs runs: ${levels%% *} intermediate runs, the last merge of ${levels##* }" \
  || fail "runs '$runs', levels '$levels' (intermediate runs, last merge's runs)"
peak=$(sed -n 's/^hpcalign: peak resident memory \([0-9]*\) MiB$/\1/p' "$WORK/err.txt")
[ -n "$peak" ] && [ "$peak" -le $bound_mib ] && pass "merged in levels: peak $peak MiB <= $bound_mib MiB" \
  || fail "merged in levels: peak resident memory '$peak' MiB, bound $bound_mib MiB"
same_hits "merged in levels equals the one-level merge" "$WORK/a.h5" "$WORK/f.h5"
[ ! -e "$WORK/f.h5.runs" ] && pass "no run files left" || fail "left: $(ls "$WORK/f.h5.runs")"

expect_ok "the same screen, a 16 MiB merge" env HPCALIGN_MERGE_MEMORY_MIB=16 HPCALIGN_FINAL_MERGE_MEMORY_MIB=16 "$HPCALIGN" allvsall -i "$WORK/s.fa" \
  -o "$WORK/b.h5" --score-only --backend cpu --verbose
narrow=$(segments)
[ -n "$wide" ] && [ -n "$narrow" ] && [ "$narrow" -ge $((2 * wide)) ] && pass "a quarter of the budget: $narrow segments against $wide" \
  || fail "segments with 64 MiB '$wide', with 16 MiB '$narrow'"
peak=$(sed -n 's/^hpcalign: peak resident memory \([0-9]*\) MiB$/\1/p' "$WORK/err.txt")
[ -n "$peak" ] && [ "$peak" -le 80 ] && pass "a 16 MiB merge: peak $peak MiB <= 80 MiB" \
  || fail "a 16 MiB merge: peak resident memory '$peak' MiB, bound 80 MiB"
same_hits "a 16 MiB merge equals the 64 MiB one" "$WORK/a.h5" "$WORK/b.h5"

expect_ok "the same screen on 3 ranks" mpirun -np 3 "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/m.h5" --score-only --backend cpu --threads 1 --quiet
same_hits "bounded run equals the MPI run" "$WORK/a.h5" "$WORK/m.h5"
finish
