#!/usr/bin/env bash
# One-step text on every workload: -o - (text only; the HDF5 result in a temporary file that
# is removed), --format F -o OUT.h5 (both, the text equal to `view OUT.h5 --format F`), view of
# every workload's file, N/A instead of made-up coordinates or NaN E-values, the pairwise
# display, the msv table in hmmsearch --tblout's layout next to a real hmmsearch run, and one
# spelling of the shared options on every command.
source "$(dirname "$0")/lib.bash"
workload_inputs  # lib.bash
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
cd "$WORK" || exit 1
no_temp_left() { [ -z "$(ls -A "$TMPDIR")" ] && [ ! -e "$WORK/-" ] && pass "$1: no temporary or '-' file left" || fail "$1: left $(ls -A "$TMPDIR") $(ls "$WORK/-" 2>/dev/null)"; }

# --- search ---
expect_ok "search -o OUT.h5 --format blast6" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet -o s.h5 --format blast6
cp out.txt s_both.txt
"$HPCALIGN" view s.h5 >s_view.txt
[ -s s_view.txt ] && cmp -s s_both.txt s_view.txt && pass "--format prints what view prints" || fail "--format text differs from view"
expect_ok "search -o -" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet -o -
cmp -s out.txt s_view.txt && pass "-o - prints the same text" || fail "-o - text differs"
no_temp_left "search -o -"
expect_ok "search --format tsv (no -o)" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet --format tsv
head -1 out.txt | grep -q $'^qseqid\tsseqid\tscore\tbitscore\tevalue\tpident' && pass "tsv header names pident" || fail "tsv header: $(head -1 out.txt)"
# tsv pident is a percentage, as blast6's (same rows, same order).
paste <(tail -n +2 out.txt | cut -f6) <(cut -f3 s_view.txt) | awk '{ d = $1 - $2; if (d < -0.0005 || d > 0.0005) bad = 1 } END { exit bad || NR == 0 }' &&
  pass "tsv pident equals blast6 pident (percent)" || fail "tsv and blast6 identity differ"
n=$(cut -f1 s_view.txt | sort | uniq -c | awk '{ print $1 }' | sort -n | tail -1)
[ "$n" -gt 10 ] && pass "default --max-hits is BLAST's 500 (a query has $n hits)" || fail "at most $n hits per query"
expect_ok "search --format pairwise" "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet -o - --format pairwise --max-hits 2
grep -c '^Query= ' out.txt | grep -qx 3 && grep -q '^ Identities = ' out.txt && grep -q '^Sbjct  ' out.txt &&
  pass "pairwise: 3 queries with alignments" || fail "pairwise: $(head -5 out.txt)"
# The alignment rows spell the residues: query rows, gaps removed, are in the query sequence.
first=$(awk '/^Query  /{ print $3; exit }' out.txt)
tr -d '\n' <"$Q" | grep -q "${first//-/}" && pass "pairwise: query row is the query's residues" || fail "pairwise row '$first'"
expect_ok "view -q/-d override with the run's files" "$HPCALIGN" view s.h5 --format "6 qseqid qseq" -q "$Q" -d "$DB"
expect_error "view with the wrong sequences" "does not hold the run's target sequences" \
  "$HPCALIGN" view s.h5 --format "6 qseq" -d "$WORK/subjects60.fa"
expect_error "unknown column" "unknown output column 'bogus'" "$HPCALIGN" view s.h5 --format "6 qseqid bogus"
expect_error "tblout on a hits file" "tblout is for .hpcalign msv" "$HPCALIGN" view s.h5 --format tblout

# --- allvsall ---
expect_ok "allvsall --score-only -o -" "$HPCALIGN" allvsall -i "$Q" --score-only --quiet -o -
awk -F'\t' 'NF != 12 || $7 != "N/A" || $3 != "N/A" { bad = 1 } END { exit bad || NR != 3 }' out.txt &&
  pass "score-only: N/A coordinates and identities, no 0 0 0 0" || fail "score-only: $(head -2 out.txt)"
expect_ok "allvsall --mode global --format tsv" "$HPCALIGN" allvsall -i "$Q" --mode global --quiet --format tsv
grep -qi nan out.txt && fail "global mode prints nan" || pass "global mode: no nan"
tail -n +2 out.txt | awk -F'\t' '$4 != "N/A" || $5 != "N/A" { bad = 1 } END { exit bad || NR != 3 }' &&
  pass "global mode: bitscore and evalue N/A" || fail "global: $(head -3 out.txt)"
expect_ok "allvsall --evalue (was --max-evalue)" "$HPCALIGN" allvsall -i "$WORK/short200.fa" --evalue 1e-3 --quiet -o -
cp out.txt ev_new.txt
expect_ok "allvsall --max-evalue still accepted" "$HPCALIGN" allvsall -i "$WORK/short200.fa" --max-evalue 1e-3 --quiet -o -
cmp -s out.txt ev_new.txt && [ -s ev_new.txt ] && pass "--max-evalue is --evalue" || fail "--max-evalue differs"

# A text-only run stopped by a signal prints no text, exits 1 and keeps its temporary file,
# named with the --resume command that finishes it.
env HPCALIGN_FAULT_SLOW_MS=200 "$HPCALIGN" allvsall -i "$WORK/short200.fa" --threads 1 -o - >stopped.txt 2>stopped.err &
pid=$!
sleep 1.2
kill -TERM $pid
wait $pid
rc=$?
tmp=$(sed -n 's/.*--resume -o \([^ )]*\).*/\1/p' stopped.err)
[ $rc = 1 ] && [ ! -s stopped.txt ] && [ -n "$tmp" ] && [ -e "$tmp" ] && [ "$(attr "$tmp" status)" = incomplete ] &&
  pass "stopped -o - run: exit 1, no text, the unfinished file kept and named" || fail "stopped -o -: exit $rc, $(tail -2 stopped.err)"
expect_ok "the kept file resumes" "$HPCALIGN" allvsall -i "$WORK/short200.fa" -o "$tmp" --resume --quiet --format blast6
[ "$(wc -l <out.txt)" = 19900 ] && pass "resumed: every pair of 200 sequences printed" || fail "resumed: $(wc -l <out.txt) lines"
rm -f "$tmp" "$tmp.journal"

# --- pss ---
P=(pss -q "$Q" -s "$WORK/subjects60.fa" --permutations 50 --quiet)
expect_ok "pss -o OUT.h5 --format tsv" "$HPCALIGN" "${P[@]}" -o p.h5 --format tsv
[ "$(wc -l <out.txt)" = 181 ] && head -1 out.txt | grep -q $'^qseqid\tsseqid\tscore\tmu\tlambda\tK\tpvalue' &&
  pass "pss tsv: header + 3 x 60 rows" || fail "pss tsv: $(wc -l <out.txt) lines, $(head -1 out.txt)"
cp out.txt p_both.txt
expect_ok "view of a pss file" "$HPCALIGN" view p.h5
cmp -s out.txt p_both.txt && pass "view pss equals --format tsv" || fail "view pss differs"
expect_ok "pss -o -" "$HPCALIGN" "${P[@]}" -o -
cmp -s out.txt p_both.txt && pass "pss -o - prints the same" || fail "pss -o - differs"
no_temp_left "pss -o -"

# --- msv, next to hmmsearch --tblout ---
command -v hmmsearch >/dev/null || fail "hmmsearch not installed (hmmer)"
# Ids of one width (both tables' name columns 20 wide), the original headers as descriptions.
cat "$Q" "$DB" | awk '/^>/ { printf(">seq%05d %s\n", ++n, substr($0, 2)); next } { print }' >targets.fa
M=$TEST_DATA/hmm/globins4.hmm
hmmsearch --tblout hmmer.tbl -o /dev/null "$M" targets.fa
expect_ok "msv -o - (tblout)" "$HPCALIGN" msv -m "$M" -d targets.fa -o -
cp out.txt ours.tbl
grep -q '^Query: ' ours.tbl && fail "pipeline counts mixed into the table" || pass "stdout holds only the table"
grep -q '^Query: *globins4' err.txt && pass "pipeline counts on stderr" || fail "pipeline counts missing: $(head -3 err.txt)"
no_temp_left "msv -o -"
# hmmsearch's three header lines, byte for byte (both name columns 20 wide here).
grep '^# target name\|^#---\|^# *--- full' hmmer.tbl >hmmer.head
grep '^# target name\|^#---\|^# *--- full' ours.tbl >ours.head
[ "$(wc -l <hmmer.head)" = 3 ] && cmp -s hmmer.head ours.head && pass "tblout header lines equal hmmsearch's" ||
  fail "tblout header differs: $(diff hmmer.head ours.head | head -4)"
rowpat='^.{20} .{10} .{20} .{10} .{9} .{6} .{5} .{9} .{6} .{5} .{5} .{3} .{3} .{3} .{3} .{3} .{3} .{3} .+$'
for f in hmmer.tbl ours.tbl; do
  grep -v '^#' $f | awk '{ if (NF < 19) bad = 1 } END { exit bad || NR == 0 }' && grep -v '^#' $f | grep -Evq "$rowpat" &&
    fail "$f: a row off the fixed widths" || pass "$f: rows of 18 fields + description in hmmsearch's widths"
done
# Every target hmmsearch reports as significant (inc 1) survived our filters, same query name,
# accession and description of target.
grep -v '^#' hmmer.tbl | awk '$18 == 1 { d = ""; for (i = 19; i <= NF; i++) d = d " " $i; print $1, $3, $4, d }' | sort >hmmer.inc
grep -v '^#' ours.tbl | awk '{ d = ""; for (i = 19; i <= NF; i++) d = d " " $i; print $1, $3, $4, d }' | sort >ours.rows
[ -s hmmer.inc ] && [ -z "$(comm -23 hmmer.inc ours.rows)" ] && pass "hmmsearch's significant hits ($(wc -l <hmmer.inc)) are in our table" ||
  fail "missing: $(comm -23 hmmer.inc ours.rows | head -3)"
tail -1 ours.tbl | grep -qx '# \[ok\]' && grep -q '^# Program: *hpcalign msv' ours.tbl && pass "tblout trailer" || fail "tblout trailer"
grep -q '^# hpcalign msv: filter figures' ours.tbl && pass "the table says its numbers are filter figures" || fail "no filter note"
expect_ok "msv -o OUT.h5 --format tsv" "$HPCALIGN" msv -m "$M" -d targets.fa -o m.h5 --format tsv
head -1 out.txt | grep -q $'^model\ttarget\tmsv_bits' && pass "msv tsv header" || fail "msv tsv: $(head -1 out.txt)"
expect_ok "view of an msv file (tblout by default)" "$HPCALIGN" view m.h5
diff <(grep -v '^# \(Date\|Option\|Current\)' out.txt) <(grep -v '^# \(Date\|Option\|Current\)' ours.tbl) >/dev/null &&
  pass "view msv prints the same table" || fail "view msv differs"

# --- one spelling per option, documented ---
for cmd in search allvsall pss msv; do
  help=$("$HPCALIGN" $cmd --help)
  for opt in --out --format --force --backend --threads --verbose --quiet --resume --progress-interval; do
    grep -q -- "$opt" <<<"$help" || fail "$cmd --help lacks $opt"
  done
  pass "$cmd --help documents the output and run options"
done
for cmd in search allvsall pss; do
  grep -q -- "--gapopen" <("$HPCALIGN" $cmd --help) || fail "$cmd --help lacks --gapopen"
done
for cmd in search allvsall; do
  help=$("$HPCALIGN" $cmd --help)
  grep -q -- "--evalue" <<<"$help" && grep -q -- "--lambda" <<<"$help" && ! grep -q -- "--max-evalue" <<<"$help" &&
    pass "$cmd: --evalue and --lambda/--K" || fail "$cmd: evalue/lambda options"
done
expect_error "--lambda without --K" "--lambda and --K go together" "$HPCALIGN" search -q "$Q" -d "$DB" -o - --lambda 0.3
# A format the workload cannot print is refused before the run: no file, no work.
expect_error "pss --format blast6 refused up front" "unknown output format 'blast6' for pss results" \
  "$HPCALIGN" pss -q "$Q" -s "$WORK/subjects60.fa" -o never.h5 --format blast6
expect_error "search with an unknown column refused up front" "unknown output column 'staxids'" \
  "$HPCALIGN" search -q "$Q" -d "$DB" -o never.h5 --format "6 qseqid staxids"
expect_error "msv --format pairwise refused up front" "for msv results" "$HPCALIGN" msv -m "$M" -d targets.fa -o never.h5 --format pairwise
[ ! -e never.h5 ] && pass "refused formats: no output file" || fail "a refused format left never.h5"
expect_error "no output" "-o OUT.h5, -o - or --format is required" "$HPCALIGN" search -q "$Q" -d "$DB"
finish
