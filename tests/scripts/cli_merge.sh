#!/usr/bin/env bash
# `hpcalign merge`: shard results joined in order equal one run over all queries; runs that
# differ in database, matrix, gaps, max-hits, E-value, or are unfinished, are refused.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/cudasw_queries20.fa
DB=$TEST_DATA/balifam2000.fa
search() { "$HPCALIGN" search --backend cpu --quiet "$@"; }
python3 "$SOURCE_DIR/jobs/shard_fasta.py" "$Q" 3 "$WORK/shards" >/dev/null && pass "shard_fasta.py: 3 shards" || fail "shard_fasta.py"
cat "$WORK"/shards/shard-*.fa | cmp -s - "$Q" && pass "shards concatenate to the input" || fail "shards differ from the input"
expect_ok "whole run" search -q "$Q" -d "$DB" -o "$WORK/all.h5"
for f in "$WORK"/shards/shard-*.fa; do expect_ok "shard $(basename "$f")" search -q "$f" -d "$DB" -o "${f%.fa}.h5"; done
S=("$WORK"/shards/shard-*.h5)
expect_ok "merge 3 shards" "$HPCALIGN" merge "${S[@]}" -o "$WORK/merged.h5"
same_hits "merged shards equal the whole run" "$WORK/all.h5" "$WORK/merged.h5"
[ "$(h5_status "$WORK/merged.h5")" = complete ] && pass "merged file complete" || fail "merged status"
"$HPCALIGN" view "$WORK/merged.h5" >"$WORK/m.tsv" 2>/dev/null && "$HPCALIGN" view "$WORK/all.h5" >"$WORK/a.tsv" &&
  cmp -s "$WORK/m.tsv" "$WORK/a.tsv" && pass "view of the merge equals view of the whole run" || fail "view differs"

expect_ok "shard 0 with BLOSUM50" search -q "$WORK/shards/shard-0000.fa" -d "$DB" -o "$WORK/b50.h5" --matrix BLOSUM50 --gapopen 13 --gapextend 2
expect_error "refuses another matrix" "incompatible runs.*|matrix" "$HPCALIGN" merge "${S[1]}" "$WORK/b50.h5" -o "$WORK/x.h5"
expect_ok "shard 0 with --max-hits 3" search -q "$WORK/shards/shard-0000.fa" -d "$DB" -o "$WORK/mh.h5" --max-hits 3
expect_error "refuses another --max-hits" "max_hits" "$HPCALIGN" merge "${S[1]}" "$WORK/mh.h5" -o "$WORK/x.h5"
expect_ok "shard 0 with --evalue 1" search -q "$WORK/shards/shard-0000.fa" -d "$DB" -o "$WORK/ev.h5" --evalue 1
expect_error "refuses another --evalue" "max_evalue" "$HPCALIGN" merge "${S[1]}" "$WORK/ev.h5" -o "$WORK/x.h5"
expect_ok "shard 0 against another database" search -q "$WORK/shards/shard-0000.fa" -d "$TEST_DATA/queries3.fa" -o "$WORK/db.h5"
expect_error "refuses another database" "database|db_sequences|targets" "$HPCALIGN" merge "${S[1]}" "$WORK/db.h5" -o "$WORK/x.h5"
HPCALIGN_FAULT_FAIL_TILE=0 search -q "$Q" -d "$DB" -o "$WORK/unfinished.h5" 2>/dev/null
expect_error "refuses an unfinished run" "unfinished run" "$HPCALIGN" merge "${S[1]}" "$WORK/unfinished.h5" -o "$WORK/x.h5"
expect_error "refuses the output among the inputs" "refusing to write the output .*shard-0001.h5 over the input file" "$HPCALIGN" merge "${S[0]}" "${S[1]}" -o "${S[1]}"
expect_error "refuses an input given twice" "given twice" "$HPCALIGN" merge "${S[0]}" "${S[0]}" -o "$WORK/x.h5"
expect_error "refuses a missing input" "cannot open" "$HPCALIGN" merge "$WORK/nope.h5" -o "$WORK/x.h5"
expect_error "refuses a FASTA file" "not an hpcalign result" "$HPCALIGN" merge "$DB" -o "$WORK/x.h5"
expect_error "no inputs: usage error" "required|inputs" "$HPCALIGN" merge -o "$WORK/x.h5"
[ ! -e "$WORK/x.h5" ] && pass "no output left by refused merges" || fail "refused merge left $WORK/x.h5"
finish
