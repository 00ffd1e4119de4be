#!/usr/bin/env bash
# Oracle: every hit `hpcalign search` reports has exactly the Smith-Waterman score that
# ssearch36 reports for the same pair (BLOSUM62, gap 11/1 = ssearch36 -f -11 -g -1),
# and each reported alignment re-scores to it (CIGAR replay is in the unit tests).
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
command -v ssearch36 >/dev/null || { echo "ssearch36 missing (apt-get install fasta3)"; exit 1; }

for backend in cpu; do
  expect_ok "search ($backend)" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/$backend.h5" --backend $backend \
    --max-hits 300 --evalue 1e9 --quiet
  "$HPCALIGN" view "$WORK/$backend.h5" --format tsv | tail -n +2 | cut -f1-3 | sort >"$WORK/ours.tsv"
done
# -m 9: the raw 'sw' score is the 3rd field after the tab-separated alignment columns.
ssearch36 -q -s BP62 -f -11 -g -1 -m 9 -b 2000 -d 0 -E 1e6 -z -1 -T 2 "$Q" "$DB" >"$WORK/ssearch.txt" 2>/dev/null
# In the "best scores" list (-m 9), each line is "id description (len) s-w<TAB>%_id %_sim sw ...":
# the raw Smith-Waterman score is the last word before the tab.
python3 - "$WORK/ssearch.txt" "$WORK/ours.tsv" <<'PY'
import re, sys
ssearch, ours = sys.argv[1], sys.argv[2]
best = {}
query = None
listing = False
for line in open(ssearch):
    m = re.match(r"\s*\d+>>>(\S+)", line)
    if m:
        query, listing = m.group(1), False
        continue
    if line.startswith("The best scores are:"):
        listing = True
        continue
    if listing:
        if not line.strip():
            listing = False
            continue
        words = line.partition("\t")[0].split()
        if len(words) < 3:
            continue
        target, sw = words[0], int(words[-1])
        best.setdefault((query, target), set()).add(sw)
checked = bad = 0
for row in open(ours):
    q, t, s = row.rstrip("\n").split("\t")
    scores = best.get((q, t))
    checked += 1
    if scores is None or int(s) not in scores:
        bad += 1
        if bad <= 5:
            print(f"mismatch {q} {t}: ours {s}, ssearch36 {sorted(scores) if scores else 'absent'}")
print(f"{checked} hits checked against ssearch36, {bad} differ")
sys.exit(1 if bad or checked < 600 else 0)
PY
if [ $? -eq 0 ]; then pass "every reported score equals ssearch36's"; else fail "scores differ from ssearch36"; fi
finish
