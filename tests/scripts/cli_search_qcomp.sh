#!/usr/bin/env bash
# search --stats regress-qcomp: regress's E-values of a query, all times one
# factor, exp of the mean ln(E_regress-comp / E_regress) over its sample subjects of regress
# P <= 0.5. Checked against the regress and regress-comp runs of the same search (a database of 300 is its own
# sample): the factor is constant within each query (so the order within a query is regress's)
# and equals that mean; it is the default; 1 and 2 MPI ranks give the same E-values.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
Q=$TEST_DATA/queries3.fa
awk '/^>/ { n++ } n <= 300' "$TEST_DATA/balifam2000.fa" >"$WORK/db.fa"  # 300 domains of several families
DB=$WORK/db.fa
tsv() { "$HPCALIGN" view "$1" --format tsv | tail -n +2 | cut -f1,2,3,5 | sort; }  # E at full precision
run() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet --max-hits 1000 --evalue 1e300 "$@"; }

for mode in regress regress-comp regress-qcomp; do
  expect_ok "search --stats $mode" run -o "$WORK/$mode.h5" --stats $mode --threads 2
done
expect_ok "search (default --stats)" run -o "$WORK/default.h5" --threads 1
expect_ok "mpirun -np 2 --stats regress-qcomp" mpirun -np 2 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet \
  --max-hits 1000 --evalue 1e300 -o "$WORK/np2.h5" --stats regress-qcomp --threads 1
for f in regress regress-comp regress-qcomp default np2; do tsv "$WORK/$f.h5" >"$WORK/$f.tsv"; done

cmp -s "$WORK/regress-qcomp.tsv" "$WORK/default.tsv" && pass "the default is regress-qcomp (1 thread as 2)" || fail "default differs from regress-qcomp"
cmp -s "$WORK/regress-qcomp.tsv" "$WORK/np2.tsv" && pass "2 MPI ranks give the same E-values" || fail "np 2 differs: $(diff "$WORK/regress-qcomp.tsv" "$WORK/np2.tsv" | head -3)"
same_hits "2 MPI ranks: identical /hits" "$WORK/regress-qcomp.h5" "$WORK/np2.h5"

python3 - "$WORK/regress.tsv" "$WORK/regress-comp.tsv" "$WORK/regress-qcomp.tsv" "$(grep -c '>' "$DB")" <<'PY'
import math, sys
def hits(path):
    return {(q, t): (int(s), float(e)) for q, t, s, e in (line.split() for line in open(path))}
regress, comp, qcomp = hits(sys.argv[1]), hits(sys.argv[2]), hits(sys.argv[3])
nseq = int(sys.argv[4])
bad = []
if set(qcomp) != set(regress): bad.append("regress-qcomp reports other pairs than regress (E cut 1e300)")
queries = sorted({q for q, _ in regress})
for q in queries:
    pairs = [k for k in regress if k[0] == q]
    factors = [qcomp[k][1] / regress[k][1] for k in pairs if regress[k][1] > 0 and k in qcomp]
    f = factors[0]
    if any(abs(x - f) > 1e-9 * f for x in factors): bad.append(f"{q}: factors {min(factors)}..{max(factors)} differ")
    terms = [math.log(comp[k][1] / regress[k][1]) for k in pairs
             if regress[k][0] > 0 and regress[k][1] <= 0.5 * nseq]
    mean = sum(terms) / len(terms)
    if len(terms) < 20 or abs(math.log(f) - mean) > 1e-6: bad.append(f"{q}: ln factor {math.log(f)} != mean {mean} of {len(terms)}")
    print(f"{q}: factor {f:.4g} over {len(terms)} pairs")
for b in bad[:10]: print(b)
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && pass "one factor per query, exp of the mean ln(E_regress-comp/E_regress) over regress P <= 0.5" || fail "regress-qcomp factors"
finish
