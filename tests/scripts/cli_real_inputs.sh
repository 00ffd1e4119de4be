#!/usr/bin/env bash
# search, allvsall, pss, makedb, view and merge on FASTA shaped as UniProt, NCBI nr/RefSeq, PDB
# seqres and translated ORF sets ship it (hmmsearch's are in cli_hmmsearch_real_inputs.sh):
# - one proteome written cleanly and "messy" (blanks after '>', tabs, nr's Ctrl-A titles, a
#   70 KiB description, CRLF, blank lines inside and between records, lower case, ragged and
#   unwrapped lines, trailing blanks, a final '*', no final newline), plain and as two gzip
#   members: every command's results identical to the clean file's;
# - every search score equal to ssearch36's (BLOSUM62 11/1) on the clean file, which holds B, Z,
#   runs of X and a 1-residue record, and against a titin-sized (35,000) one; ids are the
#   headers' first words;
# - U/O/J scored as X with a warning counting them for every input (queries and databases), and
#   DNA/RNA records (PDB seqres's mol:na) warned of;
# - what is refused, with file and line: an empty record, a lone '*', a byte-order mark, CR-only
#   line ends, bzip2/xz/zstd/zip data and an HDF5 file given for FASTA;
# - queries from a pipe: the file's hits; pairwise, which reads them again, says the pipe was read;
# - peak memory of makedb and a search against a 200,000-sequence proteome.
source "$(dirname "$0")/lib.bash"
command -v ssearch36 >/dev/null || { echo "ssearch36 missing (apt-get install fasta3)"; exit 1; }
# NCBI's BLOSUM62 (package ncbi-data): unlike ssearch36's BP62, its X, B and Z equal BLAST's and ours.
BLOSUM62=/usr/share/ncbi/data/BLOSUM62
[ -r $BLOSUM62 ] || { echo "$BLOSUM62 missing (apt-get install ncbi-data)"; exit 1; }
H=$HPCALIGN
RUN=(--backend cpu --threads 2 --quiet)
cd "$WORK" || exit 1

python3 - <<'PY'
import bz2, gzip, lzma, random, zipfile
random.seed(11)
AA = "ACDEFGHIKLMNPQRSTVWY"
def protein(n): return "".join(random.choices(AA, k=n))
def mutate(s):
    out = []
    for c in s:
        r = random.random()
        if r < 0.03: continue
        out.append(random.choice(AA) if r < 0.28 else c)
        if random.random() < 0.02: out.append(protein(random.randint(1, 4)))
    return "".join(out)
def wrap(s, width=60): return "\n".join(s[i:i + width] for i in range(0, len(s), width))

families = [protein(random.randint(80, 400)) for _ in range(8)]
records = []  # (id, description, residues)
for i in range(40):
    s = mutate(families[i // 5])
    if i == 7: s = s[:30] + "B" + s[31:60] + "Z" + s[61:90] + "XXXXXXXXXXXX" + s[90:]
    records.append((f"sp|P{i:05d}|FAM{i // 5}_{['HUMAN', 'MOUSE', 'YEAST', 'ECOLI', 'ARATH'][i % 5]}",
                    f"Protein of family {i // 5} OS=Homo sapiens OX=9606 GN=F{i} PE=1 SV=2", s))
records.append(("sp|P99999|ONE_RES", "Single residue OS=Synthetic OX=32630 PE=5 SV=1", "M"))
open("clean.fa", "w").write("".join(f">{i} {d}\n{wrap(s)}\n" for i, d, s in records))
titin = protein(17000) + records[2][2] + protein(18000)
open("titin.fa", "w").write(f">sp|Q8WZ42|TITIN_HUMAN Titin OS=Homo sapiens OX=9606 GN=TTN PE=1 SV=4\n{wrap(titin)}\n")

messy = []
for k, (i, d, s) in enumerate(records):
    head = (" " * (k % 3)) + i + ("\t" if k % 4 == 1 else " ") + d
    if k % 5 == 2: head += "\x01XP_%06d.1 hypothetical protein [Pan troglodytes]\x01WP_%06d.1 MULTISPECIES" % (k, k)
    if k == 3: head += " " + "long description " * 4200  # 71 KiB
    if k % 6 == 4: head += " \t "
    body = s.lower() if k % 3 == 0 else s[:20].lower() + s[20:] if k % 3 == 1 else s
    if k % 4 == 3: body += "*"  # a translated ORF's stop codon
    lines = [body] if k % 7 == 0 else wrap(body, 80 if k % 2 else 61).split("\n")
    if k % 5 == 1: lines = [l + "  \t" for l in lines]
    if k % 4 == 0 and len(lines) > 1: lines.insert(1, "")
    messy.append(">" + head + "\n" + "\n".join(lines) + "\n" + ("\n\n" if k % 6 == 5 else ""))
text = "".join(messy).replace("\n", "\r\n").rstrip("\r\n")  # no newline after the last line
open("messy.fa", "w", newline="").write(text)
half = len(text) // 2
open("messy.fa.gz", "wb").write(gzip.compress(text[:half].encode()) + gzip.compress(text[half:].encode()))

# NCBI nr / RefSeq and PDB seqres titles around three of the records.
nr = [(">XP_011518491.1 hemoglobin subunit alpha [Homo sapiens]\x01NP_000549.1 hemoglobin subunit alpha "
       "[Homo sapiens]\x01sp|P69905.2| RecName: Full=Hemoglobin subunit alpha", records[0][2]),
      (">WP_000001.1 MULTISPECIES: ABC transporter ATP-binding protein [Enterobacteriaceae]", records[5][2]),
      (">101m_A mol:protein length:%d  MYOGLOBIN" % len(records[10][2]), records[10][2]),
      (">1a02_F mol:na length:24  DNA (5'-D(*TP*TP*GP*GP*AP*AP*AP*AP*TP*TP*TP*GP*TP*TP*TP*TP*TP*TP*CP*GP*CP*TP*TP*C)-3')",
       "TTGGAAAATTTGTTTTTTCGCTTC")]
open("nr_pdb.fa", "w").write("".join(f"{h}\n{wrap(s, 80)}\n" for h, s in nr))

# U/O/J at the same places as X in a twin file; `rare.count` is how many.
rare, xed, n = [], [], 0
for i, d, s in records[:20]:
    r = list(s)
    for p in range(5, len(r), 37): r[p] = "UOJ"[p % 3]; n += 1
    rare.append(f">{i}\n{wrap(''.join(r))}\n")
    xed.append(f">{i}\n{wrap(''.join(r).replace('U', 'X').replace('O', 'X').replace('J', 'X'))}\n")
open("rare.fa", "w").write("".join(rare)); open("xed.fa", "w").write("".join(xed)); open("rare.count", "w").write(str(n))

# Refused inputs.
good = f">{records[0][0]}\n{wrap(records[0][2])}\n"
open("empty_record.fa", "w").write(good + ">sp|P00002|EMPTY described, no residues\n" + good)
open("stop_only.fa", "w").write(good + ">orf_7 translated\n*\n")
open("bom.fa", "w", encoding="utf-8-sig").write(good)
open("cr_only.fa", "w", newline="").write(good.replace("\n", "\r"))
open("clean.fa.bz2", "wb").write(bz2.compress(good.encode()))
open("clean.fa.xz", "wb").write(lzma.compress(good.encode()))
open("clean.fa.zst", "wb").write(b"\x28\xb5\x2f\xfd" + bytes(12))  # zstd's frame magic
with zipfile.ZipFile("clean.zip", "w") as z: z.writestr("clean.fa", good)

# A proteome of 200,000 sequences (UniProt headers, 30-120 residues) and four queries from it.
with open("proteome.fa", "w") as f:
    for i in range(200000):
        f.write(f">tr|A0A{i:06d}|A0A{i:06d}_9EUKA Uncharacterized protein OS=Synthetic OX=32630 PE=4 SV=1\n"
                f"{protein(random.randint(30, 120))}\n")
PY
awk '/^>/ { n++ } n <= 4' proteome.fa >proteome_q.fa

# --- search: the messy file's results are the clean file's, and the scores ssearch36's ---
tsv() { "$H" search "${RUN[@]}" --max-hits 100 --evalue 1e9 --format tsv "$@"; }
tsv -q clean.fa -d clean.fa >clean.tsv 2>err.txt || fail "search on the clean file: $(head -c 300 err.txt)"
[ "$(tail -n +2 clean.tsv | wc -l)" -gt 1500 ] && pass "search: $(tail -n +2 clean.tsv | wc -l) hits on the clean file" ||
  fail "search: $(wc -l <clean.tsv) lines"
for q in messy.fa messy.fa.gz; do
  for d in messy.fa messy.fa.gz; do
    tsv -q $q -d $d >messy.tsv 2>err.txt || fail "search -q $q -d $d: $(head -c 300 err.txt)"
    cmp -s clean.tsv messy.tsv && pass "search -q $q -d $d: the clean file's results" ||
      fail "search -q $q -d $d: $(diff clean.tsv messy.tsv | head -3)"
  done
done
cut -f1 clean.tsv | sort -u | grep -c '^sp|' | grep -qx 41 && ! grep -q 'Protein of' clean.tsv &&
  pass "ids are the headers' first words" || fail "ids: $(cut -f1 clean.tsv | sort -u | head -3)"
tsv -q titin.fa -d clean.fa >titin.tsv && tail -n +2 titin.tsv >>clean_titin.tsv
tsv -q clean.fa -d titin.fa | tail -n +2 >>clean_titin.tsv
cat clean.tsv clean_titin.tsv >checked.tsv
cat clean.fa titin.fa >library.fa
{ ssearch36 -q -s $BLOSUM62 -f -11 -g -1 -m 10 -b 100 -d 100 -E 1e9 -z -1 -T 2 clean.fa library.fa &&
  ssearch36 -q -s $BLOSUM62 -f -11 -g -1 -m 10 -b 100 -d 100 -E 1e9 -z -1 -T 2 titin.fa clean.fa; } >ssearch.txt 2>/dev/null ||
  fail "ssearch36 failed"
python3 - ssearch.txt checked.tsv <<'PY'
import re, sys
best, query = {}, None
for line in open(sys.argv[1]):
    m = re.match(r">>>(\S+?),? \d+ aa vs", line)
    if m: query = m.group(1); continue
    m = re.match(r">>([^>]\S*)", line)
    if m: target = m.group(1); continue
    m = re.match(r"; sw_score: (\d+)", line)
    if m: best.setdefault((query, target), set()).add(int(m.group(1)))
checked = bad = titin = one = 0
for row in open(sys.argv[2]):
    if row.startswith("qseqid"): continue
    q, t, score = row.split("\t")[:3]
    checked += 1
    titin += "TITIN" in q + t
    one += q == t == "sp|P99999|ONE_RES"
    if int(score) not in best.get((q, t), ()):
        bad += 1
        if bad <= 5: print(f"mismatch {q} {t}: ours {score}, ssearch36 {best.get((q, t))}")
print(f"{checked} hits ({titin} with titin) checked against ssearch36, {bad} differ")
sys.exit(1 if bad or checked < 1500 or titin < 4 or one != 1 else 0)
PY
[ $? -eq 0 ] && pass "every search score equals ssearch36's (B, Z, X runs, 1 and 35,000 residues)" ||
  fail "search scores differ from ssearch36's"

"$H" search --backend cpu --threads 2 -q nr_pdb.fa -d clean.fa --max-hits 3 -o nr.h5 2>err.txt || fail "nr/PDB titles: $(cat err.txt)"
grep -q 'nr_pdb.fa: 1 of 4 sequences look like DNA/RNA' err.txt && pass "a PDB mol:na record: warned of as DNA/RNA" ||
  fail "no DNA/RNA warning: $(cat err.txt)"
"$H" view nr.h5 --format "6 qseqid sseqid pident length" | awk '$3 == 100 && $4 > 50 { print $1, $2 }' >nr.txt
printf '%s\n' "XP_011518491.1 sp|P00000|FAM0_HUMAN" "WP_000001.1 sp|P00005|FAM1_HUMAN" "101m_A sp|P00010|FAM2_HUMAN" |
  cmp -s - nr.txt && pass "NCBI nr and PDB seqres titles: the first word is the id" || fail "nr/PDB ids: $(cat nr.txt)"
"$H" view nr.h5 -d messy.fa --format pairwise >nr_pairwise.txt 2>err.txt &&
  grep -q '^>sp|P00000|FAM0_HUMAN  Length=' nr_pairwise.txt && pass "view -d: pairwise from the messy twin" ||
  fail "view -d messy.fa.gz: $(head -c 300 err.txt)"

# Queries from a pipe: ids and scores need only the run; sequences (pairwise) cannot be read twice.
"$H" search "${RUN[@]}" -q nr_pdb.fa -d clean.fa --max-hits 3 --format blast6 >file.txt
gzip -c nr_pdb.fa | "$H" search "${RUN[@]}" -q <(gzip -dc) -d clean.fa --max-hits 3 --format blast6 >pipe.txt &&
  cmp -s file.txt pipe.txt && pass "queries from a pipe: the file's hits" || fail "pipe: $(diff file.txt pipe.txt | head -3)"
expect_error "pairwise of queries from a pipe: says the pipe was read" "is a pipe or device, read by the run already" \
  bash -c 'cat "$2" | "$1" search --backend cpu --quiet -q /dev/stdin -d "$3" --max-hits 1 --format pairwise' _ "$H" nr_pdb.fa clean.fa

# --- translated ORFs: a final '*' is dropped, one inside is kept and scored ---
awk '/^>/ { n++ } n == 2' clean.fa >orf.fa
sed -e 's/^>.*/>orf_stop/' -e '$ s/$/*/' orf.fa >orf_stop.fa
awk 'NR == 2 { $0 = substr($0, 1, 30) "*" substr($0, 31) } { sub(/^>.*/, ">orf_inner") } 1' orf.fa >orf_inner.fa
"$H" search "${RUN[@]}" -q orf_stop.fa -d clean.fa --max-hits 1 --format "6 qlen score" >stop.txt
"$H" search "${RUN[@]}" -q orf.fa -d clean.fa --max-hits 1 --format "6 qlen score" >plain.txt
cmp -s stop.txt plain.txt && pass "a final '*' is dropped" || fail "final '*': $(cat stop.txt) vs $(cat plain.txt)"
"$H" search "${RUN[@]}" -q orf_inner.fa -d clean.fa --max-hits 1 --format "6 qlen score qseq" >inner.txt
read -r len score qseq <inner.txt
[ "$len" = $(($(cut -f1 plain.txt) + 1)) ] && [ "$score" -lt "$(cut -f2 plain.txt)" ] && [[ $qseq == *'*'* ]] &&
  pass "a '*' inside is kept and scored ($score)" || fail "inner '*': $(cat inner.txt)"

# --- U/O/J: scored as X, counted in a warning for every input ---
n=$(cat rare.count)
"$H" search --backend cpu --threads 2 -q rare.fa -d rare.fa --max-hits 100 --evalue 1e9 -o - --format tsv >rare.tsv 2>err.txt
"$H" search "${RUN[@]}" -q xed.fa -d xed.fa --max-hits 100 --evalue 1e9 -o - --format tsv >xed.tsv
cmp -s rare.tsv xed.tsv && pass "U/O/J score as X" || fail "U/O/J: $(diff rare.tsv xed.tsv | head -3)"
[ "$(grep -c "rare.fa: $n U/O/J residues scored as X" err.txt)" = 2 ] && pass "search warns of U/O/J in -q and -d ($n)" ||
  fail "search's U/O/J warnings: $(cat err.txt)"
"$H" makedb rare.fa rare.h5 2>err.txt && grep -q "rare.fa: $n U/O/J" err.txt && pass "makedb warns of U/O/J" ||
  fail "makedb's U/O/J warning: $(cat err.txt)"
"$H" allvsall --backend cpu --threads 2 -i rare.fa -o - --format tsv >/dev/null 2>err.txt &&
  grep -q "rare.fa: $n U/O/J" err.txt && pass "allvsall warns of U/O/J" || fail "allvsall's U/O/J warning: $(cat err.txt)"
"$H" pss --backend cpu --threads 2 -q orf.fa -s rare.fa --permutations 20 -o - --format tsv >/dev/null 2>err.txt &&
  grep -q "rare.fa: $n U/O/J" err.txt && pass "pss warns of U/O/J in its subjects" || fail "pss's U/O/J warning: $(cat err.txt)"

# --- makedb, allvsall, pss, merge and view: the messy twins give the clean file's results ---
expect_ok "makedb of the clean file" "$H" makedb clean.fa clean.h5
expect_ok "makedb of the messy gzip twin" "$H" makedb messy.fa.gz messy.h5
differing=
for g in /db/residues /db/offsets /db/id_text /db/by_length; do
  cmp -s <(h5dump -d $g clean.h5 | tail -n +3) <(h5dump -d $g messy.h5 | tail -n +3) || differing+=" $g"
done
[ -z "$differing" ] && pass "makedb: residues, ids and order identical from either file" || fail "makedb:$differing differ"
tsv -q messy.fa.gz -d messy.h5 >messy.tsv && cmp -s clean.tsv messy.tsv && pass "search -d of the makedb file" ||
  fail "search -d messy.h5: $(diff clean.tsv messy.tsv | head -3)"
avs() { "$H" allvsall "${RUN[@]}" -o - --format "6 qseqid sseqid score qstart qend sstart send evalue" "$@"; }
avs -i clean.fa >avs_clean.txt && avs -i messy.fa.gz >avs_messy.txt && [ -s avs_clean.txt ] &&
  cmp -s avs_clean.txt avs_messy.txt && pass "allvsall: the messy twin's pairs are the clean file's" ||
  fail "allvsall: $(diff avs_clean.txt avs_messy.txt | head -3)"
awk '/^>/ { n++ } n <= 3' clean.fa >pss_q.fa
pss() { "$H" pss "${RUN[@]}" --permutations 50 -o - --format tsv "$@"; }
pss -q pss_q.fa -s clean.fa >pss_clean.txt && pss -q pss_q.fa -s messy.fa >pss_messy.txt &&
  [ "$(wc -l <pss_clean.txt)" = 124 ] && cmp -s pss_clean.txt pss_messy.txt &&
  pass "pss: the messy twin's fits are the clean file's" || fail "pss: $(diff pss_clean.txt pss_messy.txt | head -3)"
awk '/^>/ { n++ } n <= 20' clean.fa >shard1.fa
python3 -c 'import sys; t = open("messy.fa", newline="").read(); print(t[t.rindex(">", 0, t.index("sp|P00020")):], end="")' >shard2.fa
"$H" search "${RUN[@]}" -q shard1.fa -d messy.fa.gz --max-hits 100 --evalue 1e9 -o s1.h5 &&
  "$H" search "${RUN[@]}" -q shard2.fa -d messy.fa.gz --max-hits 100 --evalue 1e9 -o s2.h5 &&
  "$H" merge s1.h5 s2.h5 -o merged.h5 2>/dev/null && "$H" view merged.h5 --format tsv >merged.tsv &&
  cmp -s clean.tsv merged.tsv && pass "merge of query shards (clean, messy CRLF) = the whole search" ||
  fail "merge: $(diff clean.tsv merged.tsv | head -3)"
"$H" view merged.h5 -q messy.fa --format pairwise >merged_pairwise.txt 2>err.txt &&
  [ "$(grep -c '^Query=' merged_pairwise.txt)" = 41 ] && pass "view -q: pairwise of the merged file" ||
  fail "view merged pairwise: $(head -c 300 err.txt)"

# --- refused, with file and line ---
Q=clean.fa
OUT=$WORK/refused.h5
bad "an empty record" "empty_record.fa:$(grep -n EMPTY empty_record.fa | cut -d: -f1): sequence 'sp\|P00002\|EMPTY' has no residues" \
  search -q empty_record.fa -d "$Q" -o "$OUT"
bad "a lone '*'" "stop_only.fa:$(grep -n orf_7 stop_only.fa | cut -d: -f1): sequence 'orf_7' has no residues \(only a '\*'" \
  allvsall -i stop_only.fa -o "$OUT"
bad "a UTF-8 byte-order mark" "bom.fa:1: .*byte-order mark" makedb bom.fa "$OUT"
bad "CR-only line ends" "cr_only.fa:1: .*CR alone" search -q "$Q" -d cr_only.fa -o "$OUT"
bad "bzip2 data" "clean.fa.bz2:1: bzip2-compressed" search -q clean.fa.bz2 -d "$Q" -o "$OUT"
bad "xz data" "clean.fa.xz:1: xz-compressed" makedb clean.fa.xz "$OUT"
bad "zstd data" "clean.fa.zst:1: zstd-compressed" pss -q "$Q" -s clean.fa.zst -o "$OUT"
bad "a zip archive" "clean.zip:1: a zip archive" allvsall -i "$Q" -j clean.zip -o "$OUT"
bad "a makedb database as queries" "clean.h5:1: an HDF5 file" search -q clean.h5 -d "$Q" -o "$OUT"

# --- a 200,000-sequence proteome: makedb and a search in bounded memory ---
peak_kb() {  # peak_kb CMD...: runs CMD (output discarded), prints its peak RSS in KiB, fails with it
  python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(rc)' "$@"
}
fasta_kb=$(( $(stat -c %s proteome.fa) / 1024 ))
kb=$(peak_kb "$H" makedb proteome.fa proteome.h5) && [ "$(int_attr proteome.h5 sequences)" = 200000 ] &&
  [ "$kb" -lt $((2 * fasta_kb + 100000)) ] && pass "makedb: 200,000 sequences, peak RSS $kb KiB (FASTA $fasta_kb KiB)" ||
  fail "makedb of the proteome: peak $kb KiB, $(int_attr proteome.h5 sequences) sequences"
kb=$(peak_kb "$H" search "${RUN[@]}" -q proteome_q.fa -d proteome.h5 --max-hits 5 -o big.h5) &&
  [ "$(attr big.h5 status)" = complete ] && [ "$kb" -lt $((2 * fasta_kb + 200000)) ] &&
  pass "search of 4 queries against it: peak RSS $kb KiB" || fail "search against the proteome: peak $kb KiB"
[ "$("$H" view big.h5 --format "6 qseqid sseqid" | awk '$1 == $2' | wc -l)" = 4 ] &&
  pass "each query finds itself among 200,000" || fail "self-hits: $("$H" view big.h5 | head -5)"
finish
