#!/usr/bin/env bash
# Oracle: `search --stats blast` gives blastp's E-values (-comp_based_stats 0, BLOSUM62 11/1):
# for every pair both report with the same raw score, the E-values agree to blastp's printed
# precision, and so do the bit scores.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
for tool in blastp makeblastdb; do
  command -v $tool >/dev/null || { echo "$tool missing (apt-get install ncbi-blast+)"; exit 1; }
done

expect_ok "search --stats blast" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/ours.h5" --stats blast \
  --max-hits 500 --evalue 1000 --quiet
"$HPCALIGN" view "$WORK/ours.h5" --format tsv | tail -n +2 | cut -f1-5 >"$WORK/ours.tsv"
makeblastdb -in "$DB" -dbtype prot -out "$WORK/db" >/dev/null
blastp -query "$Q" -db "$WORK/db" -comp_based_stats 0 -seg no -evalue 1000 -max_target_seqs 500 \
  -outfmt "6 qseqid sseqid score evalue bitscore" >"$WORK/blastp.tsv"

python3 - "$WORK/ours.tsv" "$WORK/blastp.tsv" <<'PY'
import sys
ours = {}
for line in open(sys.argv[1]):
    q, t, score, bits, e = line.rstrip("\n").split("\t")
    ours[(q, t)] = (int(score), float(bits), float(e))

def tolerance(text, value):
    # blastp prints 3 significant digits ("1.94e-110") or a fixed number of decimals ("0.69").
    if "e" in text:
        return 0.0051 * value
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals + 1e-12

same, bad = 0, []
for line in open(sys.argv[2]):
    q, t, score, e_text, bits_text = line.rstrip("\n").split("\t")
    mine = ours.get((q, t))
    if mine is None or mine[0] != int(score):
        continue  # blastp's heuristic alignment differs from Smith-Waterman's
    same += 1
    e = float(e_text)
    if abs(mine[2] - e) > tolerance(e_text, e):
        bad.append(f"{q} {t} score {score}: E {mine[2]:.4g} vs blastp {e_text}")
    # bit scores above 99.9 are printed truncated to an integer, others with one decimal
    b = float(bits_text)
    if not (b <= mine[1] < b + 1 if "." not in bits_text else abs(mine[1] - b) <= 0.05 + 1e-9):
        bad.append(f"{q} {t} score {score}: bits {mine[1]:.4g} vs blastp {bits_text}")
print(f"{same} pairs with the same raw score")
for b in bad[:20]:
    print("MISMATCH", b)
sys.exit(1 if bad or same < 300 else 0)
PY
if [ $? -eq 0 ]; then pass "E-values and bit scores equal blastp's"; else fail "E-values or bit scores differ from blastp's"; fi
finish
