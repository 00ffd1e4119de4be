#!/usr/bin/env bash
# hpcalign pss: the workers stage their rows (and with --keep-scores every pair's permuted
# scores) in run files, merged into /pss (sorted by query, target) when the run completes.
# 1, 2 and 3 MPI ranks write the same /pss and /pss_scores and print the same tsv as a single
# process, also text-only, and a 3-rank run killed mid-way resumes under 2 ranks to the same file
# (lib.bash: staged_rows_checks).
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
workload_inputs  # lib.bash: subjects60.fa

# 3 queries x 60 subjects, a tile a query and subject block; a tile's journal record: its times
# and the run's place (its 100 permuted scores a pair stay in the run file).
staged_rows_checks pss /pss,/pss_scores,/queries,/targets tsv 200 -- \
  pss -q "$TEST_DATA/queries3.fa" -s "$WORK/subjects60.fa" --query-batch 1 --permutations 100 --keep-scores
rows=$("$HPCALIGN" view "$WORK/pss-single.h5" --format tsv | tail -n +2 | wc -l)
[ "$rows" = 180 ] && pass "pss: 3 x 60 pairs" || fail "pss: $rows rows"
finish
