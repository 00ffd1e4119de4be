#!/usr/bin/env bash
# hpcalign msv: the workers stage their rows in run files, merged into /msv (sorted by model,
# target) when the run completes. 1, 2 and 3 MPI ranks write the same /msv rows and pipeline
# counts and print the same tblout as a single process, also text-only, and a 3-rank run killed
# mid-way resumes under 2 ranks to the same file (lib.bash: staged_rows_checks; --all, so that
# every tile has rows); without --all, `view --format tblout` prints one line per surviving pair.
source "$(dirname "$0")/lib.bash"
DB=$TEST_DATA/balifam2000.fa
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
MODELS=$WORK/models.hmm
for f in "$TEST_DATA"/hmm/*.hmm*; do  # the protein models (3box is DNA)
  if [ "$(zcat -f "$f" | sed -n 's/^ALPH *//p')" = amino ]; then zcat -f "$f"; fi
done >"$MODELS"

# A tile's journal record: its models' pipeline counters and the run's place (no rows).
staged_rows_checks msv /msv,/pipeline,/models,/targets tblout 400 -- msv -m "$MODELS" -d "$DB" --all
expect_ok "survivors only, mpirun -np 3" mpirun -np 3 "$HPCALIGN" msv -m "$MODELS" -d "$DB" --backend cpu --quiet --threads 1 -o "$WORK/np3.h5"

"$HPCALIGN" view "$WORK/np3.h5" --format tblout >"$WORK/np3.tbl" 2>"$WORK/view.err" && pass "view --format tblout" ||
  fail "view --format tblout: $(cat "$WORK/view.err")"
# Without --all the rows are the pairs that passed every filter: as many as the Vit counts.
survivors=$(h5dump -d /pipeline/past_vit "$WORK/np3.h5" | sed -n '/DATA {/,/}/p' | grep -o '[0-9]\+' | sed 1d |
  awk '{s += $1} END {print s + 0}')
rows=$(grep -vc '^#' "$WORK/np3.tbl")
[ "$rows" -gt 0 ] && [ "$rows" = "$survivors" ] && pass "tblout has one line per survivor ($rows)" ||
  fail "tblout lines $rows, survivors $survivors"
"$HPCALIGN" view "$WORK/np3.h5" --format tsv >"$WORK/np3.tsv"
bad=$(tail -n +2 "$WORK/np3.tsv" | awk -F'\t' '$8 != 1 || $5 != 1' | wc -l)
[ "$bad" = 0 ] && [ "$(tail -n +2 "$WORK/np3.tsv" | wc -l)" = "$rows" ] && pass "every row passed bias and Vit (tsv)" ||
  fail "$bad rows not passed"
"$HPCALIGN" view "$WORK/msv-single.h5" --format tsv | awk -F'\t' 'NR == 1 || $8 == 1' >"$WORK/passed.tsv"
cmp -s "$WORK/passed.tsv" "$WORK/np3.tsv" && pass "the survivors are the --all run's passed rows" ||
  fail "survivors differ from the --all run's passed rows: $(diff "$WORK/passed.tsv" "$WORK/np3.tsv" | head -3)"
sorted=$(grep -v '^#' "$WORK/np3.tbl" | awk '{print $3}' | uniq | sort | uniq -d | wc -l)
[ "$sorted" = 0 ] && pass "tblout rows grouped by model" || fail "tblout rows not grouped by model"
expect_error "tblout refuses a file that is not an msv result" "not an HDF5|tblout is for" "$HPCALIGN" view "$WORK/models.hmm" --format tblout
finish
