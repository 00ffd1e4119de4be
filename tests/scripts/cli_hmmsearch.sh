#!/usr/bin/env bash
# hpcalign hmmsearch against HMMER 3.3.2's hmmsearch --cpu 1 on the same files: the main report
# (-o), the -A alignment, --tblout and --domtblout identical (the lines hmmsearch_report.bash
# names aside) with its default thresholds and each option hpcalign offers; the same outputs
# from 2 MPI ranks and after a kill -9 and --resume; the HDF5 result's groups; hmmsearch's
# refusals. (cli_hmmsearch_report: the report's own options and unusual targets.)
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/hmmsearch_report.bash"
command -v hmmsearch >/dev/null || { echo "hmmsearch (HMMER 3.3.2) missing"; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
D=$TEST_DATA

# Targets: globins45, sevenless (fn3 repeats) and every 10th sequence of balifam1000 (5,759).
zcat "$D/balifam1000.fa.gz" | awk '/^>/ { n++; keep = n % 10 == 0 } keep' >"$WORK/bali.fa"
cat "$D/globins45.fa" "$D/7LESS_DROME.fa" "$WORK/bali.fa" >"$WORK/db.fa"
# Models (HMMER3/f, as hmmsearch wants one format a file): Pfam-style ones with GA/TC/NC lines,
# and two balifam families built here (30 sequences aligned to a one-sequence model), which
# have hits among the balifam targets.
family_model PF00202 && family_model PF00155 || { fail "hmmbuild/hmmalign of the family models"; finish; exit; }
PFAM=$WORK/pfam5.hmm  # fn3, Pkinase, globins4, XYPPX, 2OG-FeII_Oxy_3: all with GA, TC and NC
{ cat "$D/hmm/fn3.hmm" "$D/hmm/Pkinase.hmm" "$D/hmm/pfam_style.hmm"; zcat "$D/hmm/2OG-FeII_Oxy_3.hmm.gz"; } >"$PFAM"
ALL=$WORK/all7.hmm
cat "$PFAM" "$WORK/PF00202.hmm" "$WORK/PF00155.hmm" >"$ALL"

# compare NAME MODELS DB [OPTIONS...]: hpcalign hmmsearch against hmmsearch, same options.
compare() { compare_hmmer hmmsearch "$@"; }

compare "globins4 x globins45" "$D/hmm/globins4.hmm" "$D/globins45.fa"
compare "7 models x 5,805 targets" "$ALL" "$WORK/db.fa"
compare "fn3 x sevenless" "$D/hmm/fn3.hmm" "$D/7LESS_DROME.fa"
for cut in ga tc nc; do compare "Pfam-style models --cut_$cut" "$PFAM" "$WORK/db.fa" --cut_$cut; done
compare "-E --domE --incE --incdomE" "$ALL" "$WORK/db.fa" -E 1e-5 --domE 1e-3 --incE 1e-20 --incdomE 1e-8
compare "-T --domT" "$ALL" "$WORK/db.fa" -T 30 --domT 25
compare "-Z --domZ" "$ALL" "$WORK/db.fa" -Z 1000000 --domZ 50
compare "--F1 --F2 --F3" "$ALL" "$WORK/db.fa" --F1 0.1 --F2 0.01 --F3 1e-3
compare "--nobias" "$ALL" "$WORK/db.fa" --nobias
compare "--nonull2" "$ALL" "$WORK/db.fa" --nonull2
compare "--max" "$PFAM" "$D/globins45.fa" --max
compare "--seed 7" "$D/hmm/fn3.hmm" "$D/7LESS_DROME.fa" --seed 7
compare "--seed 123" "$ALL" "$WORK/db.fa" --seed 123
compare "--noali" "$D/hmm/globins4.hmm" "$D/globins45.fa" --noali

# Two MPI ranks, kill -9 and --resume, and the HDF5 result.
mpi_and_resume hmmsearch "$ALL" "$WORK/db.fa" "$WORK/theirs2" /hmmsearch /models
reported=$(column_sum "$WORK/one.h5" /hmmsearch/targets/reported)
[ "$reported" = "$(table_rows "$WORK/one/tbl")" ] && pass "HDF5: $reported reported targets, as tblout" ||
  fail "HDF5 reported $reported, tblout $(table_rows "$WORK/one/tbl")"
past_fwd=$(h5dump -a /hmmsearch/targets/past_fwd "$WORK/one.h5" | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
theirs_fwd=$(grep '^Passed Fwd' "$WORK/theirs2/out" | awk '{s += $4} END {print s}')
[ -n "$past_fwd" ] && [ "$past_fwd" = "$theirs_fwd" ] && pass "HDF5: past_fwd attribute $past_fwd, as hmmsearch" ||
  fail "HDF5 past_fwd '$past_fwd', hmmsearch $theirs_fwd"

# Refusals.
expect_error "--cut_ga on a model without GA names it" "GA bit thresholds unavailable on model test" \
  "$HPCALIGN" hmmsearch --cut_ga "$D/hmm/20aa.hmm.gz" "$D/globins45.fa"
expect_error "--cut_ga with -E refused" "exclude each other" "$HPCALIGN" hmmsearch --cut_ga -E 1 "$PFAM" "$D/globins45.fa"
expect_error "--max with --F1 refused" "exclude each other" "$HPCALIGN" hmmsearch --max --F1 0.1 "$PFAM" "$D/globins45.fa"
expect_error "--seed 0 refused" "seed" "$HPCALIGN" hmmsearch --seed 0 "$PFAM" "$D/globins45.fa"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then  # with a GPU: HmmsearchGpu.*
  expect_error "--backend cuda without a GPU" "cuda" "$HPCALIGN" hmmsearch --backend cuda "$PFAM" "$D/globins45.fa"
fi
expect_error "--resume without --h5 refused" "needs --h5" "$HPCALIGN" hmmsearch --resume "$PFAM" "$D/globins45.fa"
expect_error "a missing model file" "nosuch.hmm" "$HPCALIGN" hmmsearch "$WORK/nosuch.hmm" "$D/globins45.fa"
finish
