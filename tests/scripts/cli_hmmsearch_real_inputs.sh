#!/usr/bin/env bash
# hpcalign hmmsearch against HMMER 3.3.2's hmmsearch --cpu 1 on inputs shaped as Pfam releases
# and proteomes ship them (tables and report identical but for the lines hmmsearch_report.bash
# names): models of ~1,400 and ~3,000 nodes (RF, CS, COM, GA/TC/NC, a DESC of odd characters),
# the long model in every HMMER3 format, a model file with CRLF ends, blank lines between models
# and gzipped; a proteome with UniProt headers (blanks after '>' or at the end of some, nr's
# Ctrl-A), CRLF ends, blank lines, a 1-residue sequence, a titin-sized (~40,000 residues) one
# holding domains of the long models, a duplicated record; records of '*' only under --max (where
# hmmsearch stops). A record without residues is refused with its file and line.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/hmmsearch_report.bash"
source "$(dirname "$0")/pfam_lines.bash"
for tool in hmmsearch hmmbuild hmmemit hmmconvert; do command -v $tool >/dev/null || { echo "$tool missing"; exit 1; }; done
D=$TEST_DATA

# long_alignment NAME COLUMNS SEED: six copies of a random protein, ~15% of each substituted and
# ~2% deleted, with RF and SS_cons lines (hmmbuild --hand keeps RF's columns, CS the SS_cons).
long_alignment() {
  awk -v name="$1" -v cols="$2" -v seed="$3" 'BEGIN {
    srand(seed); aa = "ACDEFGHIKLMNPQRSTVWY"
    for (j = 1; j <= cols; j++) { base[j] = substr(aa, int(rand() * 20) + 1, 1); rf = rf (rand() < 0.97 ? "x" : ".");
      ss = ss substr("HHEE--C", int(rand() * 7) + 1, 1) }
    print "# STOCKHOLM 1.0"; print "#=GF ID " name
    for (i = 1; i <= 6; i++) {
      s = ""
      for (j = 1; j <= cols; j++) { r = rand(); s = s (r < 0.15 ? substr(aa, int(rand() * 20) + 1, 1) : r < 0.17 ? "-" : base[j]) }
      print name "_" i " " s
    }
    print "#=GC RF " rf; print "#=GC SS_cons " ss; print "//" }'
}
long_alignment longfam 1420 7 >"$WORK/long.sto"
long_alignment hugefam 3050 11 >"$WORK/huge.sto"
for m in long huge; do
  hmmbuild --hand --seed 42 "$WORK/$m.raw" "$WORK/$m.sto" >/dev/null || { fail "hmmbuild $m"; finish; exit; }
done
with_pfam_lines PF99901.3 'Odd <chars> & "quotes" 100% \back\slash; (a|b) [c] {d} ~`$x`' <"$WORK/long.raw" >"$WORK/long.hmm"
with_pfam_lines PF99902.12 'Huge family, 3,000+ nodes' <"$WORK/huge.raw" >"$WORK/huge.hmm"
read -r long_nodes huge_nodes < <(awk '/^LENG/ { printf "%s ", $2 }' "$WORK/long.hmm" "$WORK/huge.hmm")
[ "$long_nodes" -gt 1280 ] && [ "$huge_nodes" -gt 2900 ] && pass "models of $long_nodes and $huge_nodes nodes" ||
  fail "model lengths $long_nodes, $huge_nodes"
MODELS=$WORK/models.hmm
cat "$WORK/long.hmm" "$WORK/huge.hmm" "$D/hmm/pfam_style.hmm" "$D/hmm/Pkinase.hmm" >"$MODELS"

# The proteome: globins45 with UniProt headers (every third with blanks after '>', every fifth
# with a second defline after a Ctrl-A, as NCBI nr merges them), emitted
# members of the long models and Pkinase (every second with blanks ending its header, which
# hmmsearch keeps in the description), a 1-residue and a titin-sized sequence.
hmmemit -N 3 --seed 3 "$WORK/long.hmm" >"$WORK/emit.fa" && hmmemit -N 2 --seed 4 "$WORK/huge.hmm" >>"$WORK/emit.fa" &&
  hmmemit -N 2 --seed 5 "$D/hmm/Pkinase.hmm" >>"$WORK/emit.fa" || { fail "hmmemit"; finish; exit; }
awk 'BEGIN { srand(5); aa = "ACDEFGHIKLMNPQRSTVWY" }
  function random_protein(n,   s) { s = ""; while (n-- > 0) s = s substr(aa, int(rand() * 20) + 1, 1); return s }
  function wrap(s) { while (length(s) > 60) { print substr(s, 1, 60); s = substr(s, 61) } print s }
  /^>/ { if (seq != "") keep(); name = substr($1, 2); seq = ""; next } { seq = seq $0 }
  END {
    keep()
    for (i = 1; i <= n; i++) {
      if (kind[i] == "globin") {
        printf ">%ssp|P%05d|%s_HUMAN Hemoglobin subunit (fragment) OS=Homo sapiens OX=9606 GN=HB%d PE=1 SV=2%s\n", \
          (i % 3 == 0 ? "  " : ""), i, toupper(substr(name_of[i], 1, 5)), i, \
          (i % 5 == 0 ? "\001WP_" i ".1 hemoglobin [Pan troglodytes]" : "")
      } else print ">tr|E" i "|" name_of[i] " emitted member OS=Synthetic OX=32630 PE=4 SV=1" (i % 2 ? " \t " : "")
      wrap(seq_of[i])
      if (i % 7 == 0) print ""
    }
    print ">sp|P00001|ONE_RES Single residue OS=Synthetic OX=32630 PE=5 SV=1"; print "M"
    print ">sp|Q8WZ42|TITIN_SYN Titin-sized OS=Synthetic OX=32630 GN=TTN PE=1 SV=4"
    wrap(random_protein(6000) emitted_long random_protein(9000) emitted_huge random_protein(8000) seq_of[1] random_protein(12000))
    print ""; print ">  sp|P00001|DUP_NAME duplicated record, first copy"; wrap(seq_of[2])
    print ">sp|P00001|DUP_NAME duplicated record, second copy"; wrap(seq_of[2])
  }
  function keep() {
    n++; seq_of[n] = seq; name_of[n] = name; kind[n] = FILENAME ~ /emit/ ? "emitted" : "globin"
    if (name ~ /^longfam/ && emitted_long == "") emitted_long = seq
    if (name ~ /^hugefam/ && emitted_huge == "") emitted_huge = seq
  }' "$D/globins45.fa" "$WORK/emit.fa" | sed 's/$/\r/' >"$WORK/proteome.fa"
longest=$(awk '/^>/ { if (l > m) m = l; l = 0; next } { l += length($0) - 1 } END { if (l > m) m = l; print m }' "$WORK/proteome.fa")
[ "$longest" -gt 35000 ] && pass "a titin-sized target of $longest residues" || fail "longest target $longest"

compare() { compare_hmmer hmmsearch "$@"; }
compare "long and Pfam-style models x a CRLF proteome" "$MODELS" "$WORK/proteome.fa"
compare "--cut_ga" "$MODELS" "$WORK/proteome.fa" --cut_ga
compare "--cut_tc --acc --notextw" "$MODELS" "$WORK/proteome.fa" --cut_tc --acc --notextw
compare "-E --domE --incE --incdomE -Z --domZ" "$MODELS" "$WORK/proteome.fa" -E 1e-3 --domE 1e-3 --incE 1e-30 \
  --incdomE 1e-20 -Z 61295632 --domZ 1000
compare "--max --noali" "$MODELS" "$WORK/proteome.fa" --max --noali
awk '{ print } /^\/\/$/ { print "" }' "$MODELS" | sed 's/$/\r/' | gzip >"$WORK/models_crlf.hmm.gz"
compare "a gzipped model file with CRLF ends and blank lines between models" "$WORK/models_crlf.hmm.gz" "$WORK/proteome.fa" -T 25 --domT 15
for f in a b c d e; do
  hmmconvert --outfmt 3/$f "$WORK/long.hmm" >"$WORK/long_3$f.hmm" 2>/dev/null || { fail "hmmconvert 3/$f"; continue; }
  compare "the long model as HMMER3/$f" "$WORK/long_3$f.hmm" "$WORK/proteome.fa"
done

# Records of nonresidues only (a translated stop codon, a run of '*'): Forward scores 0, and
# hmmsearch --max stops on them ("forward score underflow"); hpcalign fails them at the Forward
# filter, so its tables under a fixed -Z are hmmsearch's on the file without them.
{ printf '>stop_only translated ORF\n*\n'; cat "$WORK/proteome.fa"; printf '>stops\n**********\n'; } >"$WORK/stops.fa"
mkdir -p "$WORK/theirs_stops" "$WORK/ours_stops"
hmmsearch --cpu 1 --max -Z 1000 $(outputs hmmsearch "$WORK/theirs_stops") "$MODELS" "$WORK/proteome.fa" >/dev/null 2>&1 ||
  fail "hmmsearch --max on the proteome"
expect_ok "--max over records of '*' only runs" "$HPCALIGN" hmmsearch --cpu 2 --quiet --max -Z 1000 \
  $(outputs hmmsearch "$WORK/ours_stops") "$MODELS" "$WORK/stops.fa"
same_tables "--max over records of '*' only, against hmmsearch without them" "$WORK/theirs_stops" "$WORK/ours_stops"
passed=$(grep '^Passed Fwd filter' "$WORK/ours_stops/out" | awk '{ s += $4 } END { print s }')
theirs=$(grep '^Passed Fwd filter' "$WORK/theirs_stops/out" | awk '{ s += $4 } END { print s }')
[ "$passed" = "$theirs" ] && pass "the '*' records fail the Forward filter ($passed passed)" ||
  fail "Passed Fwd filter: ours $passed, hmmsearch without the records $theirs"

{ cat "$WORK/proteome.fa"; printf '>no_residues described\r\n>next\r\nMKV\r\n'; } >"$WORK/empty.fa"
line=$(grep -n '^>no_residues' "$WORK/empty.fa" | cut -d: -f1)
expect_error "a record without residues: file and line named" "empty\.fa:$line: sequence 'no_residues' has no residues" \
  "$HPCALIGN" hmmsearch --backend cpu "$MODELS" "$WORK/empty.fa"
finish
