#!/usr/bin/env bash
# Outputs never clobber inputs or unfinished runs: -o naming an input (by any path: the check
# is by device and inode), a journal name that is an input, an unfinished run without
# --resume, an existing complete result without --force; makedb and merge write under a
# temporary name. Every refusal names the file, exits non-zero and leaves the file intact.
source "$(dirname "$0")/lib.bash"
workload_inputs  # lib.bash
Q=$WORK/q.fa
DB=$WORK/db.fa
cp "$TEST_DATA/queries3.fa" "$Q"
cp "$TEST_DATA/balifam2000.fa" "$DB"
cp "$DB" "$WORK/db.orig"
cp "$Q" "$WORK/q.orig"
S=(search -q "$Q" -d "$DB" --backend cpu --quiet)

intact() {  # intact NAME FILE ORIGINAL
  cmp -s "$2" "$3" && pass "$1: $2 left intact" || fail "$1: $2 was changed"
}

# --- inputs ---
expect_error "search -o the database" "refusing to write the output $DB over the input file $DB" "$HPCALIGN" "${S[@]}" -o "$DB"
intact "search -o the database" "$DB" "$WORK/db.orig"
expect_error "search -o the database by another path" "over the input file" "$HPCALIGN" "${S[@]}" -o "$WORK/./../$(basename "$WORK")/db.fa"
intact "another path" "$DB" "$WORK/db.orig"
ln "$DB" "$WORK/hardlink.h5"
expect_error "search -o a hard link of the database" "hardlink.h5 over the input file $DB" "$HPCALIGN" "${S[@]}" -o "$WORK/hardlink.h5"
intact "hard link" "$DB" "$WORK/db.orig"
expect_error "search -o the query file" "over the input file $Q" "$HPCALIGN" "${S[@]}" -o "$Q" --force
intact "search -o the query (even with --force)" "$Q" "$WORK/q.orig"
cp "$DB" "$WORK/x.h5.journal"
expect_error "search whose journal name is the database" "journal $WORK/x.h5.journal is the input file" \
  "$HPCALIGN" search -q "$Q" -d "$WORK/x.h5.journal" --backend cpu --quiet -o "$WORK/x.h5"
intact "journal name" "$WORK/x.h5.journal" "$WORK/db.orig"
expect_error "allvsall -o its -j input" "over the input file $WORK/short200.fa" \
  "$HPCALIGN" allvsall -i "$Q" -j "$WORK/short200.fa" -o "$WORK/short200.fa"
expect_error "pss -o its subjects" "over the input file $WORK/subjects60.fa" \
  "$HPCALIGN" pss -q "$Q" -s "$WORK/subjects60.fa" -o "$WORK/subjects60.fa"
cp "$WORK/models10.hmm" "$WORK/models.orig"
expect_error "msv -o its models" "over the input file $WORK/models10.hmm" \
  "$HPCALIGN" msv -m "$WORK/models10.hmm" -d "$WORK/db2000.fa" -o "$WORK/models10.hmm"
intact "msv -o its models" "$WORK/models10.hmm" "$WORK/models.orig"
expect_error "makedb -o its input" "over the input file $DB" "$HPCALIGN" makedb "$DB" -o "$DB" --force
intact "makedb" "$DB" "$WORK/db.orig"

# --- complete results: only with --force ---
expect_ok "search into a new file" "$HPCALIGN" "${S[@]}" -o "$WORK/a.h5"
cp "$WORK/a.h5" "$WORK/a.orig"
expect_error "a second run over a complete result" "$WORK/a.h5 already holds a complete result; pass --force" \
  "$HPCALIGN" "${S[@]}" -o "$WORK/a.h5" --max-hits 3
intact "complete result without --force" "$WORK/a.h5" "$WORK/a.orig"
expect_ok "--force overwrites a complete result" "$HPCALIGN" "${S[@]}" -o "$WORK/a.h5" --max-hits 3 --force
[ "$(int_attr "$WORK/a.h5" max_hits)" = 3 ] && pass "--force: the new run's file" || fail "--force: max_hits $(int_attr "$WORK/a.h5" max_hits)"
echo "notes" >"$WORK/notes.txt"
expect_error "a foreign file" "notes.txt exists and is not an hpcalign result file; pass --force" \
  "$HPCALIGN" "${S[@]}" -o "$WORK/notes.txt"
grep -qx notes "$WORK/notes.txt" && pass "foreign file intact" || fail "foreign file changed"

# --- unfinished runs: only --resume ---
U=(allvsall -i "$WORK/short200.fa")
signal_stop_check "stopped allvsall" TERM "$WORK/u.h5" "$WORK/u.log" \
  env HPCALIGN_FAULT_SLOW_MS=200 "$HPCALIGN" "${U[@]}" -o "$WORK/u.h5" --threads 1
cp "$WORK/u.h5" "$WORK/u.orig"
expect_error "a new run over an unfinished one" \
  "$WORK/u.h5 is an unfinished run \(its journal $WORK/u.h5.journal is present\): continue it with --resume" \
  "$HPCALIGN" "${U[@]}" -o "$WORK/u.h5"
expect_error "--force does not overwrite an unfinished run" "continue it with --resume" "$HPCALIGN" "${U[@]}" -o "$WORK/u.h5" --force
intact "unfinished run" "$WORK/u.h5" "$WORK/u.orig"
[ -e "$WORK/u.h5.journal" ] && pass "unfinished run: journal kept" || fail "unfinished run: journal gone"
mv "$WORK/u.h5.journal" "$WORK/u.journal.saved"
expect_error "status incomplete without a journal" "u.h5 is an unfinished run \(status 'incomplete'\)" \
  "$HPCALIGN" "${U[@]}" -o "$WORK/u.h5"
mv "$WORK/u.journal.saved" "$WORK/u.h5.journal"
expect_ok "--resume finishes it" "$HPCALIGN" "${U[@]}" -o "$WORK/u.h5" --resume --quiet
[ "$(attr "$WORK/u.h5" status)" = complete ] && pass "resumed to complete" || fail "status $(attr "$WORK/u.h5" status)"
expect_error "text-only output cannot resume" "--resume needs the unfinished run's file" "$HPCALIGN" "${U[@]}" -o - --resume

# --- makedb and merge: temporary name, then rename; --force to replace ---
expect_ok "makedb IN -o OUT" "$HPCALIGN" makedb "$DB" -o "$WORK/db.h5"
expect_ok "makedb IN OUT (positional)" "$HPCALIGN" makedb "$DB" "$WORK/db2.h5"
cmp -s <(h5dump "$WORK/db.h5" | tail -n +2) <(h5dump "$WORK/db2.h5" | tail -n +2) && pass "both makedb forms agree" || fail "makedb forms differ"
expect_error "makedb over an existing file" "db.h5 exists and is not an hpcalign result file; pass --force" \
  "$HPCALIGN" makedb "$DB" -o "$WORK/db.h5"
expect_ok "makedb --force" "$HPCALIGN" makedb "$DB" -o "$WORK/db.h5" --force
ls "$WORK" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$WORK" | grep '\.tmp\.')" || pass "no temporary files left"
: >"$WORK/empty.fa"
expect_error "makedb of a bad input leaves no file" "empty.fa.*no sequences" "$HPCALIGN" makedb "$WORK/empty.fa" -o "$WORK/empty.h5"
[ ! -e "$WORK/empty.h5" ] && ! ls "$WORK" | grep -q '\.tmp\.' && pass "failed makedb: nothing written" || fail "failed makedb left files"
expect_error "merge -o one of its inputs" "over the input file $WORK/a.h5" "$HPCALIGN" merge "$WORK/a.h5" -o "$WORK/a.h5" --force
expect_ok "merge into a new file" "$HPCALIGN" merge "$WORK/a.h5" -o "$WORK/m.h5" --quiet
expect_error "merge over a complete result" "m.h5 already holds a complete result; pass --force" \
  "$HPCALIGN" merge "$WORK/a.h5" -o "$WORK/m.h5"
finish
