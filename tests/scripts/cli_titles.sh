#!/usr/bin/env bash
# Title columns: stitle/salltitles as blastp prints them for a database that makeblastdb made
# from the same FASTA (headers with tabs, nr's Ctrl-A, other control and non-ASCII bytes, CRLF,
# blanks around), MMseqs2's qheader/theader, and the errors when only a makedb file is at hand.
source "$(dirname "$0")/lib.bash"
for tool in blastp makeblastdb; do command -v $tool >/dev/null || { fail "$tool not installed (ncbi-blast+)"; finish; exit 1; }; done
S=MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPH
printf '>q1 query one\n%sF\n' $S >"$WORK/q.fa"
printf '%s\n' ">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606" ${S}F \
  $'>t\ta\tbb\t\tx' ${S}A ">bare" ${S}C $'>nr1 first defline\x01nr2 second one\x01nr3 third' ${S}D \
  ">trailing desc   " ${S}E $'>crlf desc \r' ${S}G $'>ctl a\x02b\x7fc\vd' ${S}K $'>u caf\xc3\xa9 <> a|b' ${S}L \
  ">   spaced_id  two  words " ${S}M >"$WORK/db.fa"
COLS="qseqid sseqid stitle salltitles"
makeblastdb -in "$WORK/db.fa" -dbtype prot -out "$WORK/blastdb" >/dev/null 2>&1  # it complains of the non-ASCII bytes
blastp -query "$WORK/q.fa" -db "$WORK/blastdb" -outfmt "6 $COLS" | sort >"$WORK/blast.tsv"
expect_ok "search --format '6 $COLS'" "$HPCALIGN" search -q "$WORK/q.fa" -d "$WORK/db.fa" --backend cpu --quiet \
  --evalue 10 -o "$WORK/r.h5" --format "6 $COLS"
sort "$WORK/out.txt" >"$WORK/ours.tsv"
[ "$(wc -l <"$WORK/blast.tsv")" = 9 ] && pass "blastp reports all 9 subjects" || fail "blastp: $(wc -l <"$WORK/blast.tsv") rows"
cmp -s "$WORK/ours.tsv" "$WORK/blast.tsv" && pass "stitle and salltitles as blastp prints them" ||
  fail "titles differ from blastp's: $(diff "$WORK/ours.tsv" "$WORK/blast.tsv" | head -c 600)"

# MMseqs2 keeps the id, one blank, then the rest of the line after the id's delimiter as it is.
expect_ok "view --format query,target,qheader,theader" "$HPCALIGN" view "$WORK/r.h5" --format query,target,qheader,theader
grep -F -x -q $'q1\tt\tq1 query one\tt a\tbb\t\tx' "$WORK/out.txt" &&
  grep -F -x -q $'q1\tnr1\tq1 query one\tnr1 first defline\x01nr2 second one\x01nr3 third' "$WORK/out.txt" &&
  grep -F -x -q $'q1\tspaced_id\tq1 query one\tspaced_id  two  words ' "$WORK/out.txt" &&
  grep -F -x -q $'q1\tcrlf\tq1 query one\tcrlf desc ' "$WORK/out.txt" && pass "qheader/theader: MMseqs2's header lines" ||
  fail "qheader/theader: $(cat -A "$WORK/out.txt" | head -c 600)"

# allvsall of one file: both sides' titles from it (pairs q < t).
expect_ok "allvsall --format query,target,qheader,stitle" "$HPCALIGN" allvsall -i "$WORK/db.fa" --backend cpu --quiet \
  -o - --format query,target,qheader,stitle
grep -F -x -q $'t\tbare\tt a\tbb\t\tx\tbare' "$WORK/out.txt" &&
  grep -F -x -q $'sp|P69905|HBA_HUMAN\tt\tsp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606\tt   a   bb      x' "$WORK/out.txt" &&
  [ "$(wc -l <"$WORK/out.txt")" = 36 ] && pass "allvsall: titles of both sides, 36 pairs" ||
  fail "allvsall titles: $(head -c 600 "$WORK/out.txt" | cat -A)"

# A makedb file keeps no titles: refused before the run, and by view, naming the option.
expect_ok "makedb" "$HPCALIGN" makedb "$WORK/db.fa" -o "$WORK/db.h5"
expect_error "stitle against a makedb file: refused before the run" "db.h5 is a makedb database, which keeps no titles.*pass -d FILE.fa" \
  "$HPCALIGN" search -q "$WORK/q.fa" -d "$WORK/db.h5" --backend cpu --quiet -o "$WORK/m.h5" --format "6 qseqid stitle"
[ ! -e "$WORK/m.h5" ] && pass "no run" || fail "the refused run wrote $WORK/m.h5"
expect_ok "search against the makedb file" "$HPCALIGN" search -q "$WORK/q.fa" -d "$WORK/db.h5" --backend cpu --quiet -o "$WORK/m.h5"
expect_error "view stitle of a makedb run" "db.h5 is a makedb database, which keeps no titles" \
  "$HPCALIGN" view "$WORK/m.h5" --format "6 qseqid sseqid stitle salltitles"
expect_ok "view stitle -d the FASTA file" "$HPCALIGN" view "$WORK/m.h5" --format "6 $COLS" -d "$WORK/db.fa"
sort "$WORK/out.txt" | cmp -s - "$WORK/blast.tsv" && pass "view -d FASTA: blastp's titles" || fail "view -d FASTA: titles differ"
head -n 8 "$WORK/db.fa" >"$WORK/short.fa"
expect_error "view -d another FASTA file" "short.fa does not hold the run's target sequences \(4 records, the run had 9\)" \
  "$HPCALIGN" view "$WORK/m.h5" --format "6 stitle" -d "$WORK/short.fa"
finish
