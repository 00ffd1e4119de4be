#!/usr/bin/env bash
# Bad input: a clear message naming the file (and line), exit != 0, and no output file
# that looks complete.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
OUT=$WORK/out.h5

: >"$WORK/empty.fa"
printf 'this is not FASTA\njust text\n' >"$WORK/text.fa"
printf '>q1\nMKVLAAGIV\n>q2 second\nMKV1LAA\n' >"$WORK/digit.fa"
printf '>q1\nMKVL-AAG\n' >"$WORK/dash.fa"
printf '>\nMKVLAAG\n' >"$WORK/noid.fa"
printf '>q1\n>q2\nMKV\n' >"$WORK/norecord.fa"
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00' >"$WORK/binary.fa"
gzip -c "$DB" | head -c 20000 >"$WORK/truncated.fa.gz"
printf '# broken\n   A  R  N\nA  4 -1\n' >"$WORK/broken.mat"

bad "empty query file"        "empty.fa.*(no sequences|empty)"           search -q "$WORK/empty.fa" -d "$DB" -o "$OUT"
bad "empty database"          "empty.fa.*(no sequences|empty)"           search -q "$Q" -d "$WORK/empty.fa" -o "$OUT"
bad "not FASTA"               "text.fa:1"                                search -q "$WORK/text.fa" -d "$DB" -o "$OUT"
bad "digit in a residue line" "digit.fa:4.*'1'"                          search -q "$WORK/digit.fa" -d "$DB" -o "$OUT"
bad "gap character"           "dash.fa:2"                                search -q "$WORK/dash.fa" -d "$DB" -o "$OUT"
bad "header without id"       "noid.fa:1"                                search -q "$WORK/noid.fa" -d "$DB" -o "$OUT"
bad "record without residues" "norecord.fa:1"                            search -q "$WORK/norecord.fa" -d "$DB" -o "$OUT"
bad "binary file"             "binary.fa"                                search -q "$WORK/binary.fa" -d "$DB" -o "$OUT"
bad "truncated gzip database" "truncated.fa.gz"                          search -q "$Q" -d "$WORK/truncated.fa.gz" -o "$OUT"
bad "missing query file"      "nonexistent.fa"                           search -q "$WORK/nonexistent.fa" -d "$DB" -o "$OUT"
bad "missing database"        "nodb.h5"                                  search -q "$Q" -d "$WORK/nodb.h5" -o "$OUT"
bad "unknown matrix"          "BLOSUM99"                                 search -q "$Q" -d "$DB" -o "$OUT" --matrix BLOSUM99
bad "broken matrix file"      "broken.mat:[0-9]"                         search -q "$Q" -d "$DB" -o "$OUT" --matrix "$WORK/broken.mat"
bad "gaps without parameters" "no published Karlin-Altschul"             search -q "$Q" -d "$DB" -o "$OUT" --gapopen 3 --gapextend 3
bad "lambda without K"        "--lambda and --K"                         search -q "$Q" -d "$DB" -o "$OUT" --lambda 0.3
bad "negative gap extend"     "gap"                                      search -q "$Q" -d "$DB" -o "$OUT" --gapextend 0
bad "zero max-hits"           "max-hits"                                 search -q "$Q" -d "$DB" -o "$OUT" --max-hits 0
bad "unknown backend"         "unknown backend"                          search -q "$Q" -d "$DB" -o "$OUT" --backend fpga
bad "unknown option"          "unrecognised|unrecognized"               search -q "$Q" -d "$DB" -o "$OUT" --bogus
bad "missing required option" "required"                                 search -q "$Q" -o "$OUT"
rm -f "$OUT"
expect_error "unwritable output" "cannot create.*/no/such/dir/out.h5" "$HPCALIGN" search -q "$Q" -d "$DB" -o /no/such/dir/out.h5
bad "view of a non-result"    "text.fa"                                  view "$WORK/text.fa"
"$HPCALIGN" makedb "$Q" "$WORK/db.h5" 2>/dev/null
bad "view of a database file" "db.h5.*not a result file"               view "$WORK/db.h5"
bad "unknown command"         "unknown command"                          frobnicate
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  bad "--backend cuda without a GPU" "cuda"                              search -q "$Q" -d "$DB" -o "$OUT" --backend cuda
fi
finish
