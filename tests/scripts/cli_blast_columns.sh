#!/usr/bin/env bash
# Custom BLAST columns side by side with blastp on the same data (BLOSUM62 11/1, no composition
# statistics, no SEG; 20 Pfam domains against the 2,000 of tests/data): for every pair both
# report with the same raw score, qlen, slen and the bit score must agree; where the alignments
# also have the same coordinates, qcovs must agree, and qseq/sseq must be the same rows or an
# equally scoring placement of the gaps (a tie: both rows rescored under BLOSUM62 11/1 give the
# raw score). Our qseq/sseq with gaps removed must be the query and subject residues at our
# coordinates, and rescore to our raw score.
source "$(dirname "$0")/lib.bash"
for tool in blastp makeblastdb; do command -v $tool >/dev/null || { fail "$tool not installed (ncbi-blast+)"; finish; exit 1; }; done
# Plain ids: BLAST rewrites ids such as gi|..|sp|..; ours are the first word of the header.
awk '/^>/ { if (++n > 20) exit; printf(">q%d\n", n); next } { print }' "$TEST_DATA/balifam2000.fa" >"$WORK/q.fa"
awk '/^>/ { printf(">s%04d\n", ++n); next } { print }' "$TEST_DATA/balifam2000.fa" >"$WORK/db.fa"
COLS="qseqid sseqid score bitscore qlen slen qstart qend sstart send qcovs pident length mismatch gapopen qseq sseq"

makeblastdb -in "$WORK/db.fa" -dbtype prot -out "$WORK/blastdb" >/dev/null
blastp -query "$WORK/q.fa" -db "$WORK/blastdb" -matrix BLOSUM62 -gapopen 11 -gapextend 1 -comp_based_stats 0 \
  -seg no -evalue 10 -max_target_seqs 500 -max_hsps 1 -outfmt "6 $COLS" >"$WORK/blast.tsv"
expect_ok "search --format '6 ...' -o -" "$HPCALIGN" search -q "$WORK/q.fa" -d "$WORK/db.fa" --backend cpu --quiet \
  --evalue 10 -o - --format "6 $COLS"
cp "$WORK/out.txt" "$WORK/ours.tsv"
awk -F'\t' 'NF != 17 { bad = 1 } END { exit bad || NR == 0 }' "$WORK/ours.tsv" && pass "17 columns on every line" || fail "column count"

# key: qseqid sseqid score
join_on_score() { awk -F'\t' '{ print $1 "|" $2 "|" $3 "\t" $0 }' "$1" | sort -t$'\t' -k1,1; }
join -t$'\t' <(join_on_score "$WORK/ours.tsv") <(join_on_score "$WORK/blast.tsv") >"$WORK/same_score.tsv"
n=$(wc -l <"$WORK/same_score.tsv")
[ "$n" -ge 200 ] && pass "$n pairs with the same raw score in both" || fail "only $n pairs share a raw score"
# Fields after the key: ours 2..18, blast's 19..35 (column k of COLS at 1+k and 18+k).
cmp_cols() {  # cmp_cols NAME K...: columns K of COLS equal on every line (in the subset piped in)
  local name=$1; shift
  local bad
  bad=$(awk -F'\t' -v ks="$*" 'BEGIN { split(ks, K, " ") } { for (i in K) if ($(1 + K[i]) != $(18 + K[i])) { b++; break } } END { print b + 0 }')
  [ "$bad" = 0 ] && pass "$name" || fail "$name: $bad lines differ"
}
cmp_cols "same score: qlen, slen and bitscore agree" 4 5 6 <"$WORK/same_score.tsv"
awk -F'\t' '$8 == $25 && $9 == $26 && $10 == $27 && $11 == $28' "$WORK/same_score.tsv" >"$WORK/same_coords.tsv"
m=$(wc -l <"$WORK/same_coords.tsv")
[ "$m" -ge 150 ] && pass "$m of them with the same coordinates" || fail "only $m pairs with the same coordinates"
cmp_cols "same alignment span: qcovs agrees" 11 <"$WORK/same_coords.tsv"
ties=$(awk -F'\t' '$17 != $34 || $18 != $35' "$WORK/same_coords.tsv" | tee "$WORK/ties.tsv" | wc -l)
# (Ties are common here: 94 of 651 rows place a gap differently; the rescoring below checks them.)
[ "$ties" -le $((m / 2)) ] && pass "same alignment span: qseq and sseq identical for $((m - ties)) of $m" ||
  fail "qseq/sseq differ for $ties of $m"

# qseq/sseq are our residues: gaps removed they are the sequences at our coordinates.
python3 - "$WORK/ours.tsv" "$WORK/q.fa" "$WORK/db.fa" "$WORK/ties.tsv" <<'PY' && pass "qseq/sseq are the residues at our coordinates and score the raw score; differing rows are ties" || fail "qseq/sseq do not match the sequences or the scores"
import sys
def blosum62():
    rows = [l.split() for l in open("/usr/share/ncbi/data/BLOSUM62") if l.strip() and not l.startswith("#")]
    cols = rows[0]
    return {(r[0], c): int(v) for r in rows[1:] for c, v in zip(cols, r[1:])}
M = blosum62()
def rescore(a, b):  # BLAST's gap convention: a gap of length k costs 11 + k
    s, gap = 0, None
    for x, y in zip(a, b):
        if x == "-" or y == "-":
            kind = "q" if x == "-" else "s"
            s -= 1 if gap == kind else 12
            gap = kind
        else:
            s += M[(x, y)]; gap = None
    return s
for row in open(sys.argv[4]):  # key, ours 2..18, blast 19..35: both rows score the raw score
    f = row.rstrip("\n").split("\t")
    if rescore(f[16], f[17]) != int(f[3]) or rescore(f[33], f[34]) != int(f[20]):
        sys.exit("not a tie: " + row)
def fasta(p):
    s, k = {}, None
    for line in open(p):
        line = line.strip()
        if line.startswith(">"): k = line[1:].split()[0]; s[k] = ""
        elif k: s[k] += line
    return s
q, d = fasta(sys.argv[2]), fasta(sys.argv[3])
for row in open(sys.argv[1]):
    f = row.rstrip("\n").split("\t")
    qs, qe, ss, se = map(int, f[6:10])
    if f[15].replace("-", "") != q[f[0]][qs - 1:qe] or f[16].replace("-", "") != d[f[1]][ss - 1:se] or len(f[15]) != len(f[16]):
        sys.exit(1)
    if int(f[4]) != len(q[f[0]]) or int(f[5]) != len(d[f[1]]) or rescore(f[15], f[16]) != int(f[2]): sys.exit(1)
PY
finish
