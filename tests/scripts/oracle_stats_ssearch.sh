#!/usr/bin/env bash
# Oracle: `search --stats regress` makes the fit ssearch36 makes by default (-z 1, FASTA's
# proc_hist_r: length bins, capped scores, z-trimming, variance-bin trimming), so on the same
# scores its E-values are ssearch36's: every shared hit with 1e-30 < E < 10 within the
# rounding of ssearch36's two-digit E-values (|log10 ratio| <= 0.03), and the bulk closer.
source "$(dirname "$0")/lib.bash"
Q=$TEST_DATA/queries3.fa
DB=$TEST_DATA/balifam2000.fa
command -v ssearch36 >/dev/null || { echo "ssearch36 missing (apt-get install fasta3)"; exit 1; }

expect_ok "search --stats regress" "$HPCALIGN" search -q "$Q" -d "$DB" -o "$WORK/ours.h5" --stats regress \
  --max-hits 2000 --evalue 100 --quiet
"$HPCALIGN" view "$WORK/ours.h5" --format tsv | tail -n +2 | cut -f1,2,3,5 >"$WORK/ours.tsv"
ssearch36 -q -s BP62 -f -11 -g -1 -m 8 -E 100 -b 2000 -d 0 -T 2 "$Q" "$DB" >"$WORK/ssearch.m8" 2>/dev/null

python3 - "$WORK/ours.tsv" "$WORK/ssearch.m8" <<'PY'
import math, statistics, sys
ours = {}
for line in open(sys.argv[1]):
    q, t, score, e = line.split("\t")
    ours[(q, t)] = float(e)
logs = []
for line in open(sys.argv[2]):
    f = line.split("\t")
    e = float(f[10])
    if (f[0], f[1]) in ours and 1e-30 < e < 10:
        logs.append(math.log10(max(ours[(f[0], f[1])], 1e-300) / e))
logs.sort()
median_abs = statistics.median(abs(x) for x in logs)
worst = max(abs(x) for x in logs)
print(f"{len(logs)} shared hits; median |log10(E/E_ssearch36)| {median_abs:.4f}; largest {worst:.4f}")
sys.exit(0 if len(logs) >= 30 and median_abs < 0.01 and worst <= 0.03 else 1)
PY
if [ $? -eq 0 ]; then pass "regress E-values follow ssearch36's"; else fail "regress E-values far from ssearch36's"; fi
finish
