#!/usr/bin/env bash
# hpcalign msv: 1 and 3 MPI ranks write the same /msv rows (sorted by model, target at the end
# of the run) and the same pipeline counts as a single process; `view --format tblout` prints
# one line per surviving pair.
source "$(dirname "$0")/lib.bash"
DB=$TEST_DATA/balifam2000.fa
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
MODELS=$WORK/models.hmm
for f in "$TEST_DATA"/hmm/*.hmm*; do  # the protein models (3box is DNA)
  if [ "$(zcat -f "$f" | sed -n 's/^ALPH *//p')" = amino ]; then zcat -f "$f"; fi
done >"$MODELS"

ARGS=(msv -m "$MODELS" -d "$DB" --backend cpu --quiet)
expect_ok "single process" "$HPCALIGN" "${ARGS[@]}" -o "$WORK/single.h5" --threads 2
for np in 1 3; do
  expect_ok "mpirun -np $np" mpirun -np $np "$HPCALIGN" "${ARGS[@]}" -o "$WORK/np$np.h5" --threads 1
  for g in msv pipeline; do
    [ "$(dump_group "$WORK/single.h5" /$g)" = "$(dump_group "$WORK/np$np.h5" /$g)" ] &&
      pass "np $np: /$g identical to the single process" || fail "np $np: /$g differs"
  done
done

"$HPCALIGN" view "$WORK/np3.h5" --format tblout >"$WORK/np3.tbl" 2>"$WORK/view.err" && pass "view --format tblout" ||
  fail "view --format tblout: $(cat "$WORK/view.err")"
"$HPCALIGN" view "$WORK/single.h5" --format tblout >"$WORK/single.tbl"
# (The trailer's command line and date differ between the runs.)
trailer='^# \(Option settings\|Date\|Current dir\):'
cmp -s <(grep -v "$trailer" "$WORK/single.tbl") <(grep -v "$trailer" "$WORK/np3.tbl") && pass "tblout identical for np 3 and one process" || fail "tblout differs"
# Without --all the rows are the pairs that passed every filter: as many as the Vit counts.
survivors=$(h5dump -d /pipeline/past_vit "$WORK/single.h5" | sed -n '/DATA {/,/}/p' | grep -o '[0-9]\+' | sed 1d |
  awk '{s += $1} END {print s + 0}')
rows=$(grep -vc '^#' "$WORK/single.tbl")
[ "$rows" -gt 0 ] && [ "$rows" = "$survivors" ] && pass "tblout has one line per survivor ($rows)" ||
  fail "tblout lines $rows, survivors $survivors"
"$HPCALIGN" view "$WORK/single.h5" --format tsv >"$WORK/single.tsv"
bad=$(tail -n +2 "$WORK/single.tsv" | awk -F'\t' '$8 != 1 || $5 != 1' | wc -l)
[ "$bad" = 0 ] && [ "$(tail -n +2 "$WORK/single.tsv" | wc -l)" = "$rows" ] && pass "every row passed bias and Vit (tsv)" ||
  fail "$bad rows not passed"
sorted=$(grep -v '^#' "$WORK/single.tbl" | awk '{print $3}' | uniq | sort | uniq -d | wc -l)
[ "$sorted" = 0 ] && pass "tblout rows grouped by model" || fail "tblout rows not grouped by model"
expect_error "tblout refuses a file that is not an msv result" "not an HDF5|tblout is for" "$HPCALIGN" view "$WORK/models.hmm" --format tblout
finish
