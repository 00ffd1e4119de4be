#!/usr/bin/env bash
# More bad input, across allvsall, pss, msv, merge and makedb (cli_bad_input.sh covers search
# and view): empty, binary, truncated or corrupt gzip inputs, absurd sizes, wrong alphabets,
# unwritable outputs and a full disk. Each case: exit != 0, a clear message naming the file,
# no crash, and no output file that looks complete.
# Documented behaviours tested here as successes:
#   - a 1 MB FASTA header line (or a 1 MB id) is accepted: ids are stored as they are;
#   - duplicate ids (FASTA records or HMM names) are accepted by every reader, alike: results
#     refer to sequences and models by index, ids are labels only;
#   - pss refuses sequences over 100000 residues (N shuffled copies of each subject make a
#     10 MB subject a multi-day run); allvsall and msv have no such limit.
source "$(dirname "$0")/lib.bash"
D=$TEST_DATA
Q=$D/queries3.fa
HMM=$D/hmm/M1.hmm
OUT=$WORK/out.h5

# --- inputs ---
: >"$WORK/empty.fa"
: >"$WORK/empty.hmm"
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00' >"$WORK/binary.fa"
gzip -c "$D/balifam2000.fa" | head -c 20000 >"$WORK/truncated.fa.gz"
gzip -c "$D/balifam2000.fa" >"$WORK/corrupt.fa.gz"   # valid header, garbage in the deflate stream
printf 'garbage!garbage!garbage!garbage!' | dd of="$WORK/corrupt.fa.gz" bs=1 seek=5000 conv=notrunc status=none
gzip -c "$D/hmm/M1.hmm" | head -c 300 >"$WORK/truncated.hmm.gz"
head -n 100 "$D/hmm/globins4.hmm" >"$WORK/cut.hmm"
awk 'NR==22{print ""} {print}' "$D/hmm/globins4.hmm" >"$WORK/blank_body.hmm"  # the fuzzer's crash, via the CLI
awk '/^>/{n++} n<=1' "$Q" >"$WORK/q1.fa"
awk '/^>/{n++} n>=1 && n<=3' "$D/balifam2000.fa" >"$WORK/s3.fa"
python3 - "$WORK" <<'PY'
import random, sys
random.seed(1)
aa = "ACDEFGHIKLMNPQRSTVWY"
w = sys.argv[1]
open(w + "/big10M.fa", "w").write(">big\n" + "".join(random.choices(aa, k=10_000_000)) + "\n")
open(w + "/hdr1M.fa", "w").write(">longhdr " + "x" * 1_000_000 + "\nMKVLAAGIVGLLLAAQPAMA\n>second\nMKVLAAGIVG\n")
open(w + "/id1M.fa", "w").write(">" + "i" * 1_000_000 + "\nMKVLAAGIVGLLLAAQPAMA\n")
PY
printf '>a\nMKVLAAGIVGLLLAAQPAMA\n>a\nMKVLAAGIVGLLLAAQPAMV\n' >"$WORK/dup.fa"
printf '>q\nMKVLAAGIVG\n' >"$WORK/pssm_mismatch.fa"
awk 'NR==5{$3="x"} {print}' "$D/pss_query.pssm" >"$WORK/bad.pssm"  # row 2's first score

# --- allvsall ---
bad "allvsall: empty input"            "empty.fa.*no sequences"        allvsall -i "$WORK/empty.fa" -o "$OUT"
bad "allvsall: binary input"           "binary.fa.*binary"             allvsall -i "$WORK/binary.fa" -o "$OUT"
bad "allvsall: truncated gzip"         "truncated.fa.gz.*(truncated|corrupt)" allvsall -i "$WORK/truncated.fa.gz" -o "$OUT"
bad "allvsall: corrupt gzip (-j)"      "corrupt.fa.gz.*corrupt"        allvsall -i "$Q" -j "$WORK/corrupt.fa.gz" -o "$OUT"
bad "allvsall: unknown mode"           "mode"                          allvsall -i "$Q" -o "$OUT" --mode sideways
bad "allvsall: unwritable output"      "/no/such/dir/out.h5"           allvsall -i "$Q" -o /no/such/dir/out.h5

# --- pss ---
bad "pss: 10 MB subject is refused"    "big10M.fa.*10000000 residues.*at most 100000" pss -q "$WORK/q1.fa" -s "$WORK/big10M.fa" -o "$OUT"
bad "pss: empty query"                 "empty.fa.*no sequences"        pss -q "$WORK/empty.fa" -s "$WORK/s3.fa" -o "$OUT"
bad "pss: binary subjects"             "binary.fa.*binary"             pss -q "$WORK/q1.fa" -s "$WORK/binary.fa" -o "$OUT"
bad "pss: PSSM for another query"      "pss_query.pssm.*differs"       pss -q "$WORK/pssm_mismatch.fa" -s "$WORK/s3.fa" -o "$OUT" --pssm "$D/pss_query.pssm"
bad "pss: malformed PSSM score"        "bad.pssm:5:.*'x'"          pss -q "$D/pss_query.fa" -s "$WORK/s3.fa" -o "$OUT" --pssm "$WORK/bad.pssm"
bad "pss: missing PSSM file"           "nopssm.pssm"                   pss -q "$D/pss_query.fa" -s "$WORK/s3.fa" -o "$OUT" --pssm "$WORK/nopssm.pssm"

# --- msv ---
bad "msv: DNA HMM"                     "3box.hmm.gz:5.*protein models only" msv -m "$D/hmm/3box.hmm.gz" -d "$Q" -o "$OUT"
bad "msv: empty HMM file"              "empty.hmm.*no HMM"             msv -m "$WORK/empty.hmm" -d "$Q" -o "$OUT"
bad "msv: truncated gzip HMM"          "truncated.hmm.gz"              msv -m "$WORK/truncated.hmm.gz" -d "$Q" -o "$OUT"
bad "msv: HMM cut in the body"         "cut.hmm:[0-9]+.*(premature|truncated)" msv -m "$WORK/cut.hmm" -d "$Q" -o "$OUT"
bad "msv: blank line in an HMM body"   "blank_body.hmm:22.*blank line" msv -m "$WORK/blank_body.hmm" -d "$Q" -o "$OUT"
bad "msv: FASTA given as the model"    "queries3.fa:1"                 msv -m "$Q" -d "$Q" -o "$OUT"
bad "msv: binary database"             "binary.fa.*binary"             msv -m "$HMM" -d "$WORK/binary.fa" -o "$OUT"

# --- makedb ---
bad "makedb: empty FASTA"              "empty.fa.*no sequences"        makedb "$WORK/empty.fa" "$OUT"
bad "makedb: corrupt gzip"             "corrupt.fa.gz.*corrupt"        makedb "$WORK/corrupt.fa.gz" "$OUT"
bad "makedb: unwritable output"        "/no/such/dir/db.h5"            makedb "$Q" /no/such/dir/db.h5

# --- merge ---
awk '/^>/{n++} n>=2' "$Q" >"$WORK/q23.fa"
"$HPCALIGN" search -q "$WORK/q1.fa" -d "$D/balifam2000.fa" -o "$WORK/r1.h5" --quiet 2>/dev/null
"$HPCALIGN" search -q "$WORK/q23.fa" -d "$D/balifam2000.fa" -o "$WORK/r2.h5" --quiet 2>/dev/null
"$HPCALIGN" makedb "$Q" "$WORK/db.h5" 2>/dev/null
bad "merge: text file as input"        "queries3.fa"                   merge "$WORK/r1.h5" "$Q" -o "$OUT"
bad "merge: database file as input"    "db.h5"                         merge "$WORK/r1.h5" "$WORK/db.h5" -o "$OUT"
bad "merge: missing input"             "nothere.h5"                    merge "$WORK/r1.h5" "$WORK/nothere.h5" -o "$OUT"
bad "merge: unwritable output"         "/no/such/dir/m.h5"             merge "$WORK/r1.h5" "$WORK/r2.h5" -o /no/such/dir/m.h5

# --- a full disk: a 64 KiB tmpfs (or, where mounting is refused, a 64 KiB file size limit) ---
FULL=$WORK/full
mkdir -p "$FULL"
if mount -t tmpfs -o size=64k tmpfs "$FULL" 2>/dev/null; then
  trap 'umount "$FULL" 2>/dev/null; rm -rf "$WORK"' EXIT
  limit=()
else
  limit=(ulimit -f 64)  # 64 blocks of 1 KiB; writes beyond fail (SIGXFSZ ignored below)
fi
disk_full() {  # disk_full NAME ARGS...: the write must fail with a message naming the output
  local name=$1 out=$FULL/out.h5; shift
  rm -f "$out"
  expect_error "$name" "out.h5.*(No space left|File too large)" bash -c "trap '' XFSZ; ${limit[*]:-true}; exec \"\$@\"" _ "$HPCALIGN" "$@"
  if [ -e "$out" ] && [ "$(h5_status "$out")" = complete ]; then fail "$name: left a complete-looking $out"; fi
}
disk_full "disk full: makedb"   makedb "$D/balifam2000.fa" "$FULL/out.h5"
disk_full "disk full: allvsall" allvsall -i "$D/balifam2000.fa" -j "$Q" -o "$FULL/out.h5" --quiet
disk_full "disk full: msv"      msv -m "$HMM" -d "$D/balifam2000.fa" -o "$FULL/out.h5" --all --quiet

# --- documented successes ---
expect_ok "1 MB header line is accepted"     "$HPCALIGN" allvsall -i "$WORK/hdr1M.fa" -o "$WORK/hdr.h5" --quiet
[ "$(h5_status "$WORK/hdr.h5")" = complete ] && pass "1 MB header: complete result" || fail "1 MB header: status $(h5_status "$WORK/hdr.h5")"
expect_ok "1 MB id is accepted"              "$HPCALIGN" allvsall -i "$WORK/id1M.fa" -j "$WORK/q1.fa" -o "$WORK/id.h5" --quiet
expect_ok "duplicate ids: allvsall accepts"  "$HPCALIGN" allvsall -i "$WORK/dup.fa" -o "$WORK/dup1.h5" --quiet
expect_ok "duplicate ids: makedb accepts"    "$HPCALIGN" makedb "$WORK/dup.fa" "$WORK/dup2.h5"
grep -q "2 sequences" "$WORK/err.txt" && pass "duplicate ids: makedb keeps both records" || fail "makedb dup: $(cat "$WORK/err.txt")"
expect_ok "duplicate ids: pss accepts"       "$HPCALIGN" pss -q "$WORK/dup.fa" -s "$WORK/dup.fa" -o "$WORK/dup3.h5" --permutations 20 --quiet
cat "$HMM" "$HMM" >"$WORK/dup.hmm"
expect_ok "duplicate HMM names: msv accepts" "$HPCALIGN" msv -m "$WORK/dup.hmm" -d "$WORK/dup.fa" -o "$WORK/dup4.h5" --quiet
finish
