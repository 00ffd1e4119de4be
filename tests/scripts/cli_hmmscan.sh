#!/usr/bin/env bash
# hpcalign hmmscan against HMMER 3.3.2's hmmscan --cpu 1 (on the hmmpress'ed model file): the main
# report (-o: per query the model hit list, domain tables, alignments, statistics), --tblout,
# --domtblout and --pfamtblout identical (the lines hmmsearch_report.bash names aside), with
# default thresholds and with each option hpcalign offers (the report's own: --acc, --noali,
# --textw, --notextw, --qformat); the same outputs from 2 MPI ranks and after a kill -9 and --resume; the
# HDF5 result's groups; refusals (and hmmsearch's -A and --tformat, which hmmscan has not).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/hmmsearch_report.bash"
for p in hmmscan hmmpress hmmconvert hmmbuild hmmalign mpirun; do command -v $p >/dev/null || { echo "$p missing"; exit 1; }; done
D=$TEST_DATA

# Models, all converted to HMMER3/f (hmmconvert, hmmpress and hmmscan want one format a file):
# eight Pfam models with ACC, DESC and GA/TC/NC lines (fn3, Pkinase, globins4, XYPPX,
# 2OG-FeII_Oxy_3, RRM_1, Caudal_act, LuxC: hmmbuild 3.0 to 3.3.2), two balifam family models
# without ACC and DESC, one named longer than the tables' 20 columns, and one more without them.
family_model PF00202 && family_model PF00155 PF00155_aminotransferase_class_I_and_II ||
  { fail "hmmbuild/hmmalign of the family models"; finish; exit; }
to3f() { local f; for f in "$@"; do zcat -f "$f" >"$WORK/one.hmm" && hmmconvert "$WORK/one.hmm" || return 1; done; }
PFAM=$WORK/pfam8.hmm
to3f "$D/hmm/fn3.hmm" "$D/hmm/Pkinase.hmm" "$D/hmm/pfam_style.hmm" "$D/hmm/2OG-FeII_Oxy_3.hmm.gz" \
  "$D/hmm/RRM_1.hmm.gz" "$D/hmm/Caudal_act.hmm.gz" "$D/hmm/LuxC.hmm.gz" >"$PFAM" || fail "hmmconvert"
ALL=$WORK/all11.hmm
{ cat "$PFAM"; to3f "$WORK/PF00202.hmm" "$WORK/PF00155.hmm" "$D/hmm/20aa.hmm.gz"; } >"$ALL"
[ "$(grep -c '^NAME' "$PFAM")" = 8 ] && [ "$(grep -c '^NAME' "$ALL")" = 11 ] || fail "model files: $(grep -c '^NAME' "$ALL") models"
for f in "$PFAM" "$ALL"; do hmmpress -f "$f" >/dev/null || fail "hmmpress $f"; done

# Queries: globins45, sevenless (nine fn3 repeats and a kinase domain), every 50th balifam1000
# sequence and the family models' members (ids longer than 20 characters), and built ones:
# chimeras of a globin, sevenless's kinase region, two of its fn3 repeats and a PF00202 member
# joined by linkers (several domains of several models in one query), and copies of globins and
# chimeras with every ~20th residue one of U O J B Z X * and stretches in lower case.
zcat "$D/balifam1000.fa.gz" | awk '/^>/ { n++; keep = n % 50 == 0 } keep' >"$WORK/bali.fa"
python3 - "$D/globins45.fa" "$D/7LESS_DROME.fa" "$WORK/PF00202.fa" >"$WORK/built.fa" <<'PY'
import random, sys
def read(path):
    recs, name = [], None
    for line in open(path):
        if line.startswith(">"):
            name = line[1:].split()[0]; recs.append([name, ""])
        else:
            recs[-1][1] += line.strip()
    return recs
globins, sevenless, family = read(sys.argv[1]), read(sys.argv[2])[0][1], read(sys.argv[3])
kinase, fn3a, fn3b = sevenless[2200:2490], sevenless[430:525], sevenless[1300:1390]
rng = random.Random(7)
chimeras = []
for k in range(12):
    parts = [globins[k][1], kinase, fn3a, fn3b, family[k % len(family)][1]]
    rng.shuffle(parts)
    chimeras.append(("chimera%d" % k, "GSGSGGSG".join(parts)))
for name, s in chimeras:
    print(">%s globin, kinase, two fn3 and a PF00202 member\n%s" % (name, s))
for name, s in globins[:15] + chimeras:
    t = [rng.choice("UOJBZX*") if rng.random() < 0.05 else c for c in s]
    a = rng.randrange(len(t) // 2)
    t[a:a + 40] = [c.lower() for c in t[a:a + 40]]
    print(">rare_%s\n%s" % (name, "".join(t)))
PY
cat "$D/globins45.fa" "$D/7LESS_DROME.fa" "$WORK/built.fa" "$WORK/bali.fa" "$WORK/PF00202.fa" "$WORK/PF00155.fa" >"$WORK/q.fa"
Q=$WORK/q.fa

compare() { compare_hmmer hmmscan "$@"; }
compare "11 models x $(grep -c '>' "$Q") queries" "$ALL" "$Q"
compare "sevenless" "$ALL" "$D/7LESS_DROME.fa"
for cut in ga tc nc; do compare "Pfam models --cut_$cut" "$PFAM" "$Q" --cut_$cut; done
compare "-E --domE --incE --incdomE" "$ALL" "$Q" -E 1e-3 --domE 1e-2 --incE 1e-10 --incdomE 1e-4
compare "-T --domT" "$ALL" "$Q" -T 20 --domT 15
compare "-Z --domZ" "$ALL" "$Q" -Z 20000 --domZ 3
compare "--F1 --F2 --F3" "$ALL" "$Q" --F1 0.1 --F2 0.01 --F3 1e-3
compare "--nobias" "$ALL" "$Q" --nobias
compare "--nonull2" "$ALL" "$Q" --nonull2
compare "--max" "$ALL" "$WORK/built.fa" --max
compare "--seed 7" "$ALL" "$WORK/built.fa" --seed 7
compare "--noali" "$ALL" "$D/globins45.fa" --noali
compare "--acc" "$ALL" "$Q" --acc
compare "--qformat fasta" "$ALL" "$Q" --qformat fasta
grep -q '^>> PF[0-9]' "$WORK/theirs$compare_n/out" && pass "hmmscan --acc's report shows accessions" ||
  fail "hmmscan --acc's report shows no accession: the test does not cover it"
compare "--textw 150" "$ALL" "$WORK/built.fa" --textw 150
compare "--notextw" "$ALL" "$WORK/built.fa" --notextw
compare "--incT --incdomT" "$ALL" "$Q" --incT 20 --incdomT 10
# Inclusion by score lists models by score, as hmmscan sorts them; under --max with -E 100 many
# weak hits are listed and score order differs from E-value order (each model its own λ, τ).
compare "--incT --max -E 100 (models listed by score)" "$ALL" "$WORK/built.fa" --incT 20 --max -E 100
inversions=$(awk '!/^#/ { if ($3 == q && $5 + 0 < e) n++; q = $3; e = $5 + 0 } END { print n + 0 }' "$WORK/theirs$compare_n/tbl")
[ "$inversions" -gt 0 ] && pass "--incT: $inversions models listed before a smaller E-value (score order tested)" ||
  fail "--incT: hmmscan's lists follow E-value order: the test does not cover score order"
compare "-E 10.0 --textw 120 --seed 42 (hmmscan's defaults: not echoed)" "$ALL" "$D/7LESS_DROME.fa" -E 10.0 --textw 120 --seed 42
compare "-T --domT above every fn3 domain (a model without reported domains)" "$ALL" "$D/7LESS_DROME.fa" -T 100 --domT 50
for what in 'No hits detected' 'inclusion threshold' ' CS$' '== domain 3' '^Description: ' '^>> PF00202 ' \
  'No individual domains'; do
  grep -q -- "$what" "$WORK"/theirs*/out && pass "hmmscan's reports have /$what/ (the case is tested)" ||
    fail "hmmscan's report lacks /$what/: the test does not cover it"
done
rows=$(awk '!/^#/ && $16 > 1' "$WORK/ours1/tbl" | wc -l)
rare=$(grep -c '^[^#]' <(grep ' rare_' "$WORK/ours1/tbl"))
[ "$rows" -gt 10 ] && [ "$rare" -gt 10 ] && pass "default run: $rows multi-domain rows, $rare rows of rare-letter queries" ||
  fail "default run: $rows multi-domain rows, $rare rare-letter rows (the test data lost its point)"

# Two MPI ranks, kill -9 and --resume, and the HDF5 result.
mpi_and_resume hmmscan "$ALL" "$Q" "$WORK/theirs1" /hmmscan /models /targets
reported=$(column_sum "$WORK/one.h5" /hmmscan/targets/reported)
[ "$reported" = "$(table_rows "$WORK/one/tbl")" ] && pass "HDF5: $reported reported (model, sequence) hits, as tblout" ||
  fail "HDF5 reported $reported, tblout $(table_rows "$WORK/one/tbl")"
for stage in msv fwd; do
  ours=$(column_sum "$WORK/one.h5" "/targets/past_$stage")
  theirs=$(grep -i "^Passed $stage" "$WORK/theirs1/out" | awk '{s += $4} END {print s}')
  [ -n "$ours" ] && [ "$ours" = "$theirs" ] && pass "HDF5: /targets/past_$stage sums to $ours, as hmmscan's" ||
    fail "HDF5 /targets/past_$stage '$ours', hmmscan $theirs"
done

# Refusals.
expect_error "--cut_ga on a model without GA names it" "GA bit thresholds unavailable on model PF00202" \
  "$HPCALIGN" hmmscan --cut_ga "$ALL" "$D/globins45.fa"
expect_error "--cut_tc with -T refused" "exclude each other" "$HPCALIGN" hmmscan --cut_tc -T 1 "$PFAM" "$D/globins45.fa"
expect_error "--max with --F3 refused" "exclude each other" "$HPCALIGN" hmmscan --max --F3 0.1 "$PFAM" "$D/globins45.fa"
expect_error "--textw under 120" "textw" "$HPCALIGN" hmmscan --textw 100 "$PFAM" "$D/globins45.fa"
expect_error "--textw with --notextw" "exclude each other" "$HPCALIGN" hmmscan --textw 150 --notextw "$PFAM" "$D/globins45.fa"
expect_error "--pfamtblout over an input" "is an input" "$HPCALIGN" hmmscan --pfamtblout "$PFAM" "$PFAM" "$D/globins45.fa"
expect_error "--resume without --h5 refused" "needs --h5" "$HPCALIGN" hmmscan --resume "$PFAM" "$D/globins45.fa"
for o in "-A $WORK/x.sto" "--tformat fasta"; do
  expect_error "hmmsearch's option $o not offered (hmmscan has none)" "unrecognised option" \
    "$HPCALIGN" hmmscan $o "$PFAM" "$D/globins45.fa"
done
expect_error "--qformat of a format not read" "only FASTA queries" "$HPCALIGN" hmmscan --qformat embl "$PFAM" "$D/globins45.fa"
expect_error "--qformat of no format" "not a recognized" "$HPCALIGN" hmmscan --qformat nosuch "$PFAM" "$D/globins45.fa"
expect_error "a missing sequence file" "nosuch.fa" "$HPCALIGN" hmmscan "$PFAM" "$WORK/nosuch.fa"
finish
