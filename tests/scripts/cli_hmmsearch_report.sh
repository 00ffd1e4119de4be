#!/usr/bin/env bash
# hpcalign hmmsearch's main report (-o) and -A alignment against HMMER 3.3.2's hmmsearch
# --cpu 1, byte for byte but for the lines hmmsearch_report.bash names, under the report's own
# options (--acc, --incT, --incdomT, --textw, --notextw, --noali, --tformat): a query file of
# five models (accessions and descriptions; CS lines: fn3, Pkinase; RF lines: a globin model
# built here with hmmbuild --hand; Pkinase has no hit), against targets with U, O, J, B, Z, X,
# '*' and lower case, descriptions longer than a line, a long name and a target holding two
# globins (two domains); a target listed twice (-A's unique names). The refusals of these options.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/hmmsearch_report.bash"
for tool in hmmsearch hmmbuild python3; do command -v $tool >/dev/null || { echo "$tool missing"; exit 1; }; done
D=$TEST_DATA

# Targets: globins45 with a description each (some over 120 characters), one rare letter each
# (cycling through U O J B Z X *), every 5th in lower case, one long name; the two-globin
# target; sevenless (fn3 repeats).
awk 'BEGIN { split("U O J B Z X *", rare, " "); words = "oxygen binding heme protein of the globin family" }
  /^>/ { if (seq != "") emit(); name = substr($1, 2); seq = ""; next } { seq = seq $0 }
  END { emit(); print ">two_globins " first " then " second_name; print first_seq second_seq }
  function emit(   d, s) {
    n++
    if (n == 1) { first = name; first_seq = seq } else if (n == 2) { second_name = name; second_seq = seq }
    d = "record " n ":"; while (length(d) < 10 + 9 * n) d = d " " words
    s = substr(seq, 1, 4 + n) rare[n % 7 + 1] substr(seq, 6 + n)
    if (n % 5 == 0) s = tolower(s)
    if (n == 7) name = name "_with_a_rather_long_name_for_the_columns"
    print ">" name " " d; print s
  }' "$D/globins45.fa" >"$WORK/targets.fa"
{ cat "$WORK/targets.fa"; sed '1s/$/ Protein sevenless (fn3 repeats)/' "$D/7LESS_DROME.fa"; } >"$WORK/db.fa"

# A globin model with an RF line: globins4.sto in one block, RF 'x' on columns <= half gaps.
python3 - "$D/hmm/globins4.sto" "$WORK/rf.sto" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith(("#", "//")):
        name, s = line.split()
        rows[name] = rows.get(name, "") + s
cols = len(next(iter(rows.values())))
rf = "".join("x" if sum(r[c] not in ".-" for r in rows.values()) * 2 >= len(rows) else "." for c in range(cols))
with open(sys.argv[2], "w") as f:
    f.write("# STOCKHOLM 1.0\n\n")
    for name, s in rows.items():
        f.write("%-12s %s\n" % (name, s))
    f.write("%-12s %s\n//\n" % ("#=GC RF", rf))
PY
hmmbuild --hand -n globins_rf "$WORK/rf.hmm" "$WORK/rf.sto" >/dev/null || { fail "hmmbuild --hand"; finish; exit; }
grep -q '^RF    yes' "$WORK/rf.hmm" || fail "the hand-built model has no RF line"
MODELS=$WORK/models.hmm
cat "$D/hmm/globins4.hmm" "$D/hmm/fn3.hmm" "$D/hmm/Pkinase.hmm" "$D/hmm/pfam_style.hmm" "$WORK/rf.hmm" >"$MODELS"

# compare NAME [OPTIONS...]: both programs on MODELS x db.fa with the same options.
n=0
compare() {
  local name=$1; shift
  n=$((n + 1))
  run_both "$name" "$MODELS" "$WORK/db.fa" "$WORK/theirs$n" "$WORK/ours$n" "$@" || return
  same_report "$name" "$WORK/theirs$n" "$WORK/ours$n"
  same_tables "$name" "$WORK/theirs$n" "$WORK/ours$n"
}

compare "5 models, defaults"
out=$WORK/theirs1/out
for what in '^Query: *Pkinase' 'No hits detected' ' CS$' ' RF$' 'inclusion threshold' '^>> two_globins' '== domain 2' \
  'Accession:   PF00041' 'Description: Fibronectin'; do
  grep -q -- "$what" "$out" && pass "hmmsearch's report has /$what/ (the case is tested)" ||
    fail "hmmsearch's report lacks /$what/: the test does not cover it"
done
for letter in U O J B Z X; do
  grep -Eq "^ +[^ ]+ +[0-9]+ [A-Za-z.*-]*$letter" "$out" && pass "an alignment shows $letter" || fail "no alignment shows $letter"
done
compare "--acc" --acc
compare "--incT --incdomT" --incT 150 --incdomT 60
compare "--incE --incdomE -T --domT" --incE 1e-50 --incdomE 1e-40 -T 20 --domT 10
compare "--textw 120" --textw 120
compare "--textw 170" --textw 170
compare "--notextw" --notextw
compare "--noali" --noali
compare "--tformat fasta" --tformat fasta
MODELS=$WORK/pfam.hmm
cat "$D/hmm/fn3.hmm" "$D/hmm/Pkinase.hmm" "$D/hmm/pfam_style.hmm" >"$MODELS"
compare "--cut_ga (the models with GA lines)" --cut_ga
compare "-E 10.0 --textw 120 --seed 42 (hmmsearch's defaults: not echoed)" -E 10.0 --textw 120 --seed 42
MODELS=$WORK/models.hmm

# A target listed twice: the -A names repeat, and are made unique as Easel's writer makes them.
awk '/^>/ { n++ } n <= 3' "$D/globins45.fa" >"$WORK/twice.fa"
awk '/^>/ { n++ } n == 2' "$D/globins45.fa" >>"$WORK/twice.fa"
if run_both "a target listed twice" "$D/hmm/globins4.hmm" "$WORK/twice.fa" "$WORK/theirs_twice" "$WORK/ours_twice"; then
  grep -q "made unique" "$WORK/theirs_twice/ali" || fail "hmmsearch's -A has no unique names: the case is not tested"
  same_report "a target listed twice" "$WORK/theirs_twice" "$WORK/ours_twice"
fi

# Without -o the report goes to stdout, as hmmsearch's does.
hmmsearch --cpu 1 "$D/hmm/fn3.hmm" "$D/7LESS_DROME.fa" >"$WORK/stdout_theirs" 2>&1
"$HPCALIGN" hmmsearch --quiet "$D/hmm/fn3.hmm" "$D/7LESS_DROME.fa" >"$WORK/stdout_ours" 2>"$WORK/stdout_err"
grep -q '== domain 9' "$WORK/stdout_theirs" || fail "hmmsearch's stdout report lacks sevenless' 9 fn3 domains"
cmp -s <(report_body "$WORK/stdout_theirs") <(report_body "$WORK/stdout_ours") && pass "report on stdout identical" ||
  fail "report on stdout differs: $(diff <(report_body "$WORK/stdout_theirs") <(report_body "$WORK/stdout_ours") | head -4 | tr '\n' '|')"

# Refusals, as hmmsearch refuses them.
expect_error "--incT with --incE" "exclude each other" "$HPCALIGN" hmmsearch --incT 20 --incE 1 "$MODELS" "$WORK/db.fa"
expect_error "--incdomT with --cut_ga" "exclude each other" "$HPCALIGN" hmmsearch --incdomT 20 --cut_ga "$MODELS" "$WORK/db.fa"
expect_error "--textw under 120" "textw" "$HPCALIGN" hmmsearch --textw 100 "$MODELS" "$WORK/db.fa"
expect_error "--textw with --notextw" "exclude each other" "$HPCALIGN" hmmsearch --textw 150 --notextw "$MODELS" "$WORK/db.fa"
expect_error "--tformat embl" "only FASTA" "$HPCALIGN" hmmsearch --tformat embl "$MODELS" "$WORK/db.fa"
expect_error "--tformat nonsense" "not a recognized" "$HPCALIGN" hmmsearch --tformat nonsense "$MODELS" "$WORK/db.fa"
expect_ok "makedb database" "$HPCALIGN" makedb "$WORK/db.fa" "$WORK/db.h5"
expect_error "--tformat fasta on a makedb file" "db.h5.*makedb" "$HPCALIGN" hmmsearch --tformat fasta "$MODELS" "$WORK/db.h5"
expect_error "-A over an input" "is an input" "$HPCALIGN" hmmsearch -A "$WORK/db.fa" "$MODELS" "$WORK/db.fa"
finish
