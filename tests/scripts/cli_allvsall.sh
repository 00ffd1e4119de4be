#!/usr/bin/env bash
# End-to-end allvsall: help, square and rectangle screens, output filters, thread counts,
# view, and clear errors on bad options.
source "$(dirname "$0")/lib.bash"
awk '/^>/{n++} n<=40' "$TEST_DATA/balifam2000.fa" >"$WORK/s.fa"        # 780 pairs
awk '/^>/{n++} n>40 && n<=52' "$TEST_DATA/balifam2000.fa" >"$WORK/b.fa"  # 12 more
nrows() { h5dump -H -d /hits/score "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }
col() { h5dump -y -w 0 -d "/hits/$2" "$1" 2>/dev/null | sed -n '/DATA {/,/}/p' | grep -o -- '-\?[0-9.eE+-]*\|nan\|"[^"]*"' ; }

expect_ok "allvsall --help" "$HPCALIGN" allvsall --help
grep -q "usage: hpcalign allvsall" "$WORK/out.txt" && pass "help shows usage" || fail "help shows usage"
grep -q "open + k\*gapextend" "$WORK/out.txt" && pass "help states the gap convention" || fail "gap convention in help"

expect_ok "square local" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/sq.h5" --quiet
[ "$(nrows "$WORK/sq.h5")" = 780 ] && pass "square: 40 x 39 / 2 rows" || fail "square rows: $(nrows "$WORK/sq.h5")"
[ "$(h5_status "$WORK/sq.h5")" = complete ] && pass "file complete" || fail "status $(h5_status "$WORK/sq.h5")"
paste <(col "$WORK/sq.h5" query) <(col "$WORK/sq.h5" target) | awk '$1 >= $2 { bad = 1 } END { exit bad }' \
  && pass "square rows have query < target" || fail "query >= target somewhere"
expect_ok "1 thread" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/sq1.h5" --quiet --threads 1
same_hits "1 thread equals all threads" "$WORK/sq.h5" "$WORK/sq1.h5"

"$HPCALIGN" view "$WORK/sq.h5" --format blast6 >"$WORK/sq.tsv"
[ "$(wc -l <"$WORK/sq.tsv")" = 780 ] && pass "view blast6: one line per pair" || fail "blast6 lines $(wc -l <"$WORK/sq.tsv")"
awk -F'\t' 'NF != 12 { bad = 1 } END { exit bad }' "$WORK/sq.tsv" && pass "blast6: 12 columns" || fail "blast6 columns"

expect_ok "rectangle" "$HPCALIGN" allvsall -i "$WORK/b.fa" -j "$WORK/s.fa" -o "$WORK/rect.h5" --mode semiglobal --quiet
[ "$(nrows "$WORK/rect.h5")" = 480 ] && pass "rectangle: 12 x 40 rows" || fail "rectangle rows: $(nrows "$WORK/rect.h5")"

expect_ok "score-only" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/so.h5" --score-only --quiet
cmp -s <(col "$WORK/sq.h5" score) <(col "$WORK/so.h5" score) && pass "score-only: same scores" || fail "score-only scores differ"
nchars() { h5dump -H -d /hits/cigar_chars "$1" 2>/dev/null | sed -n 's/.*DATASPACE  SIMPLE { ( \([0-9]*\) ).*/\1/p'; }
[ "$(nchars "$WORK/so.h5")" = 0 ] && [ "$(nchars "$WORK/sq.h5")" -gt 0 ] && pass "score-only: no CIGARs" \
  || fail "CIGAR characters: score-only $(nchars "$WORK/so.h5"), with alignments $(nchars "$WORK/sq.h5")"

expect_ok "min-score 40" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/min.h5" --min-score 40 --quiet
want=$(col "$WORK/sq.h5" score | awk '$1 >= 40' | wc -l)
[ "$(nrows "$WORK/min.h5")" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt 780 ] && pass "min-score keeps the $want pairs scoring >= 40" \
  || fail "min-score rows $(nrows "$WORK/min.h5"), want $want"
expect_ok "--evalue 1e-3" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/ev.h5" --evalue 1e-3 --quiet
want=$(col "$WORK/sq.h5" evalue | awk '$1 <= 1e-3' | wc -l)
[ "$(nrows "$WORK/ev.h5")" = "$want" ] && [ "$want" -gt 0 ] && pass "--evalue keeps the $want pairs with E <= 1e-3" \
  || fail "--evalue rows $(nrows "$WORK/ev.h5"), want $want"
expect_ok "global" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/gl.h5" --mode global --quiet
[ "$(col "$WORK/gl.h5" evalue | sort -u)" = nan ] && pass "global: evalue NaN" || fail "global evalues: $(col "$WORK/gl.h5" evalue | sort -u | head -3)"

expect_error "bad mode" "--mode must be local, global or semiglobal" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/x.h5" --mode glob
expect_error "--evalue in global mode" "--evalue needs --mode local" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/x.h5" --mode global --evalue 1
expect_error "missing input" "nope.fa" "$HPCALIGN" allvsall -i "$WORK/nope.fa" -o "$WORK/x.h5"
expect_error "missing -o" "out" "$HPCALIGN" allvsall -i "$WORK/s.fa"
expect_error "bad gap costs" "gapextend >= 1" "$HPCALIGN" allvsall -i "$WORK/s.fa" -o "$WORK/x.h5" --gapextend 0
finish
