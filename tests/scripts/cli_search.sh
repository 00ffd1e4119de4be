#!/usr/bin/env bash
# End-to-end: search from FASTA and from a makedb file, view, help, thread counts.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa

for cmd in search makedb view; do
  expect_ok "$cmd --help" "$HPCALIGN" $cmd --help
  grep -q "usage: hpcalign $cmd" "$WORK/out.txt" && pass "$cmd --help shows usage" || fail "$cmd --help shows usage"
done
grep -q -- "--gapopen" <("$HPCALIGN" search --help) && pass "search --help lists --gapopen" || fail "search --help lists --gapopen"
grep -q "open + k\*extend" <("$HPCALIGN" search --help) && pass "search --help states the gap convention" || fail "gap convention in help"

expect_ok "search FASTA db" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/a.h5" --backend cpu --quiet --evalue 1000 --max-hits 10
[ "$(h5_status "$WORK/a.h5")" = complete ] && pass "finished file is complete" || fail "status attribute: $(h5_status "$WORK/a.h5")"

expect_ok "makedb" "$HPCALIGN" makedb "$DB" "$WORK/db.h5"
expect_ok "search makedb db" "$HPCALIGN" search -q "$Q" -d "$WORK/db.h5" -o "$WORK/b.h5" --backend cpu --quiet --evalue 1000 --max-hits 10
same_hits "FASTA and makedb databases give identical hits" "$WORK/a.h5" "$WORK/b.h5"

gzip -c "$DB" >"$WORK/db.fa.gz"
expect_ok "search gzip db" "$HPCALIGN" search -q "$Q" -d "$WORK/db.fa.gz" -o "$WORK/c.h5" --backend cpu --quiet --threads 1 --evalue 1000 --max-hits 10
same_hits "gzip database and 1 thread give identical hits" "$WORK/a.h5" "$WORK/c.h5"

"$HPCALIGN" view "$WORK/a.h5" --format blast6 >"$WORK/a.tsv" 2>"$WORK/view.err"
lines=$(wc -l <"$WORK/a.tsv")
[ "$lines" -eq 30 ] && pass "blast6: 3 queries x 10 hits" || fail "blast6 line count $lines"
awk -F'\t' 'NF != 12 { bad = 1 } END { exit bad }' "$WORK/a.tsv" && pass "blast6: 12 columns" || fail "blast6 columns"
awk -F'\t' '$1 != "gi|122087146|sp|P02232.2|LGB1_VICFA" && $1 != "gi|113390|sp|P07327.2|ADH1A_HUMAN" && $1 != "gi|119811|sp|P21177.2|FADB_ECOLI" { bad = 1 } END { exit bad }' "$WORK/a.tsv" \
  && pass "blast6: query ids are the first header word" || fail "blast6 query ids"
[ ! -s "$WORK/view.err" ] && pass "view of a complete file warns nothing" || fail "view warned: $(cat "$WORK/view.err")"

# Per query, bit scores never increase down the list (hits are in raw-score order; E-values
# with a per-subject length term need not be monotone).
awk -F'\t' '$1 == q && $12 > b + 1e-9 { bad = 1 } { q = $1; b = $12 } END { exit bad }' "$WORK/a.tsv" \
  && pass "hits sorted by score" || fail "hits not sorted"

expect_ok "max-hits 3 and evalue cut" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/d.h5" --max-hits 3 --evalue 1e-5 --quiet
"$HPCALIGN" view "$WORK/d.h5" >"$WORK/d.tsv"
awk -F'\t' '{ n[$1]++; if ($11 > 1e-5) bad = 1 } END { for (q in n) if (n[q] > 3) bad = 1; exit bad }' "$WORK/d.tsv" \
  && pass "--max-hits and --evalue respected" || fail "--max-hits/--evalue"

expect_ok "other matrix with its published gaps" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/e.h5" --matrix PAM30 --gapopen 9 --gapextend 1 --quiet
expect_ok "user lambda/K" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/f.h5" --gapopen 5 --gapextend 5 --lambda 0.2 --K 0.05 --quiet
expect_ok "verbose prints the plan" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/g.h5" --verbose
grep -q "query batch" "$WORK/err.txt" && pass "--verbose logs tile sizes" || fail "--verbose: $(cat "$WORK/err.txt")"
finish
