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
family_model() {  # family_model PFAM
  zcat "$D/balifam1000.fa.gz" | awk -v f="pfam=$1" '/^>/ { keep = index($0, f) && ++n <= 30 } keep' >"$WORK/$1.fa"
  awk '/^>/ { n++ } n == 1' "$WORK/$1.fa" >"$WORK/$1.one.fa"
  hmmbuild --singlemx --informat afa -n seed "$WORK/$1.one.hmm" "$WORK/$1.one.fa" >/dev/null &&
    hmmalign --outformat afa "$WORK/$1.one.hmm" "$WORK/$1.fa" >"$WORK/$1.afa" &&
    hmmbuild --informat afa -n "$1" "$WORK/$1.hmm" "$WORK/$1.afa" >/dev/null
}
family_model PF00202 && family_model PF00155 || { fail "hmmbuild/hmmalign of the family models"; finish; exit; }
PFAM=$WORK/pfam5.hmm  # fn3, Pkinase, globins4, XYPPX, 2OG-FeII_Oxy_3: all with GA, TC and NC
{ cat "$D/hmm/fn3.hmm" "$D/hmm/Pkinase.hmm" "$D/hmm/pfam_style.hmm"; zcat "$D/hmm/2OG-FeII_Oxy_3.hmm.gz"; } >"$PFAM"
ALL=$WORK/all7.hmm
cat "$PFAM" "$WORK/PF00202.hmm" "$WORK/PF00155.hmm" >"$ALL"

# compare NAME MODELS DB [OPTIONS...]: hpcalign hmmsearch against hmmsearch, same options.
n=0
compare() {
  local name=$1 models=$2 db=$3; shift 3
  n=$((n + 1))
  run_both "$name" "$models" "$db" "$WORK/theirs$n" "$WORK/ours$n" "$@" || return
  [ "$(table_rows "$WORK/theirs$n/tbl")" -gt 0 ] || fail "$name: hmmsearch reports no target (a test that cannot fail)"
  same_tables "$name" "$WORK/theirs$n" "$WORK/ours$n"
  same_report "$name" "$WORK/theirs$n" "$WORK/ours$n"
}

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

# Two MPI ranks, and the HDF5 result.
mkdir -p "$WORK/mpi" "$WORK/one"
expect_ok "one process --h5" "$HPCALIGN" hmmsearch --quiet --cpu 2 --h5 "$WORK/one.h5" --tblout "$WORK/one/tbl" \
  --domtblout "$WORK/one/dom" -o "$WORK/one/out" -A "$WORK/one/ali" "$ALL" "$WORK/db.fa"
expect_ok "mpirun -np 2" mpirun --oversubscribe -np 2 "$HPCALIGN" hmmsearch --quiet --cpu 1 --h5 "$WORK/mpi.h5" \
  --tblout "$WORK/mpi/tbl" --domtblout "$WORK/mpi/dom" -o "$WORK/mpi/out" -A "$WORK/mpi/ali" "$ALL" "$WORK/db.fa"
same_tables "2 MPI ranks vs one process" "$WORK/one" "$WORK/mpi"
same_tables "2 MPI ranks vs hmmsearch" "$WORK/theirs2" "$WORK/mpi"
same_report "2 MPI ranks vs hmmsearch" "$WORK/theirs2" "$WORK/mpi"
for g in /hmmsearch /models; do
  [ "$(dump_group "$WORK/one.h5" $g)" = "$(dump_group "$WORK/mpi.h5" $g)" ] && pass "np 2: $g identical" ||
    fail "np 2: $g differs"
done
[ "$(attr "$WORK/one.h5" status)" = complete ] && pass "HDF5 status complete" || fail "status '$(attr "$WORK/one.h5" status)'"
reported=$(h5dump -y -d /hmmsearch/targets/reported "$WORK/one.h5" | sed -n '/DATA {/,/}/p' | grep -o '[0-9]\+' |
  awk '{s += $1} END {print s + 0}')
[ "$reported" = "$(table_rows "$WORK/one/tbl")" ] && pass "HDF5: $reported reported targets, as tblout" ||
  fail "HDF5 reported $reported, tblout $(table_rows "$WORK/one/tbl")"
past_fwd=$(h5dump -a /hmmsearch/targets/past_fwd "$WORK/one.h5" | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
theirs_fwd=$(grep '^Passed Fwd' "$WORK/theirs2/out" | awk '{s += $4} END {print s}')
[ -n "$past_fwd" ] && [ "$past_fwd" = "$theirs_fwd" ] && pass "HDF5: past_fwd attribute $past_fwd, as hmmsearch" ||
  fail "HDF5 past_fwd '$past_fwd', hmmsearch $theirs_fwd"

# kill -9 after some tiles, --resume: the same tables.
mkdir -p "$WORK/res"
out=$WORK/killed.h5
sid=$(start_session env HPCALIGN_FAULT_SLOW_MS=150 "$HPCALIGN" hmmsearch --quiet --cpu 4 --h5 "$out" \
  --tblout "$WORK/res/tbl" --domtblout "$WORK/res/dom" -o "$WORK/res/out" -A "$WORK/res/ali" "$ALL" "$WORK/db.fa")
if kill_after_tiles "$sid" "$out" 3 40; then
  [ "$(attr "$out" status)" != complete ] && [ ! -e "$WORK/res/tbl" ] && [ ! -e "$WORK/res/out" ] &&
    pass "killed mid-run, no table or report written" ||
    fail "killed run: status '$(attr "$out" status)'"
  expect_error "resume with other --F1 refused" "F1" "$HPCALIGN" hmmsearch --quiet --h5 "$out" --resume --F1 0.05 \
    "$ALL" "$WORK/db.fa"
  expect_ok "--resume finishes it" "$HPCALIGN" hmmsearch --quiet --cpu 2 --h5 "$out" --resume \
    --tblout "$WORK/res/tbl" --domtblout "$WORK/res/dom" -o "$WORK/res/out" -A "$WORK/res/ali" "$ALL" "$WORK/db.fa"
  same_tables "resumed run vs uninterrupted" "$WORK/one" "$WORK/res"
  same_report "resumed run vs hmmsearch" "$WORK/theirs2" "$WORK/res"
else
  fail "the run ended before 3 tiles were journalled"
fi

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
