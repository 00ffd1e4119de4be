#!/usr/bin/env bash
# search --rescore N: each query's N best hits (by E-value) get permutation E-values through the
# pss machinery. Checked: E = P x database sequences with P the one `hpcalign pss` computes for
# the same pair (pss with the database as its subject file: shuffle k of subject t is a pure
# function of (seed, t, k) in both); the other hits keep their --stats E-values; the same
# E-values from 1 and 2 MPI ranks and from a second run; another --seed changes them.
source "$(dirname "$0")/lib.bash"
command -v mpirun >/dev/null || { echo "mpirun missing"; exit 1; }
Q=$TEST_DATA/queries3.fa
awk '/^>/ { n++ } n <= 300' "$TEST_DATA/balifam2000.fa" >"$WORK/db.fa"  # 300 domains of several families
DB=$WORK/db.fa
nseq=$(grep -c '>' "$DB")
tsv() { "$HPCALIGN" view "$1" --format tsv | tail -n +2 | cut -f1,2,3,5 | sort; }  # E at full precision
run() { "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet --max-hits 1000 --evalue 1000 "$@"; }

expect_ok "search (default --stats)" run -o "$WORK/plain.h5"
expect_ok "search --rescore 4 --permutations 200" run -o "$WORK/r1.h5" --rescore 4 --permutations 200 --threads 2
expect_ok "the same again" run -o "$WORK/r2.h5" --rescore 4 --permutations 200 --threads 1
expect_ok "mpirun -np 2" mpirun -np 2 "$HPCALIGN" search -q "$Q" -d "$DB" --backend cpu --quiet --max-hits 1000 \
  --evalue 1000 -o "$WORK/np2.h5" --rescore 4 --permutations 200 --threads 1
expect_ok "another seed" run -o "$WORK/seed.h5" --rescore 4 --permutations 200 --seed 7
expect_ok "pss of the queries against the database" "$HPCALIGN" pss -q "$Q" -s "$DB" -o "$WORK/pss.h5" \
  --permutations 200 --backend cpu --quiet
"$HPCALIGN" view "$WORK/pss.h5" --format tsv >"$WORK/pss.tsv"
for f in plain r1 r2 np2 seed; do tsv "$WORK/$f.h5" >"$WORK/$f.tsv"; done

cmp -s "$WORK/r1.tsv" "$WORK/r2.tsv" && pass "a second run (1 thread) gives the same E-values" || fail "runs differ: $(diff "$WORK/r1.tsv" "$WORK/r2.tsv" | head -3)"
cmp -s "$WORK/r1.tsv" "$WORK/np2.tsv" && pass "2 MPI ranks give the same E-values" || fail "np 2 differs: $(diff "$WORK/r1.tsv" "$WORK/np2.tsv" | head -3)"
same_hits "2 MPI ranks: identical /hits" "$WORK/r1.h5" "$WORK/np2.h5"
[ "$(int_attr "$WORK/r1.h5" rescore)" = 4 ] && pass "the file records --rescore" || fail "rescore attribute: '$(int_attr "$WORK/r1.h5" rescore)'"

python3 - "$WORK/plain.tsv" "$WORK/r1.tsv" "$WORK/seed.tsv" "$WORK/pss.tsv" "$DB" <<'PY'
import sys
def hits(path):
    out = {}
    for line in open(path):
        q, t, score, e = line.split()
        out[(q, t)] = (int(score), float(e))
    return out
plain, resc, seed = hits(sys.argv[1]), hits(sys.argv[2]), hits(sys.argv[3])
order = [l[1:].split()[0] for l in open(sys.argv[5]) if l.startswith(">")]
index = {t: i for i, t in enumerate(order)}
nseq = len(order)
pss = {}
rows = open(sys.argv[4]).read().splitlines()
head = rows[0].split("\t")
for line in rows[1:]:
    f = dict(zip(head, line.split("\t")))
    pss[(f["qseqid"], f["sseqid"])] = (int(f["score"]), float(f["pvalue"]))
bad = []
queries = sorted({q for q, _ in plain})
rescored = kept = 0
for q in queries:
    # the 4 best by the plain E-value, then score descending, then database order
    mine = sorted(((e, -s, index[t], t) for (qq, t), (s, e) in plain.items() if qq == q))
    top = {t for _, _, _, t in mine[:4]}
    for e0, s, _, t in mine:
        s1, e1 = resc[(q, t)]
        if t in top:
            ps, p = pss[(q, t)]
            if ps != -s: bad.append(f"{q} {t}: pss score {ps} != search score {-s}")
            if abs(e1 - p * nseq) > 1e-9 * p * nseq:
                bad.append(f"{q} {t}: rescored E {e1} != pss P {p} x {nseq}")
            rescored += 1
            if seed[(q, t)][1] == e1: bad.append(f"{q} {t}: --seed 7 left E {e1} unchanged")
        else:
            if e1 != e0: bad.append(f"{q} {t}: not rescored but E {e0} -> {e1}")
            kept += 1
print(f"{rescored} rescored hits, {kept} kept; {len(bad)} problems")
for b in bad[:10]: print(b)
sys.exit(0 if rescored == 4 * len(queries) and kept > 100 and not bad else 1)
PY
[ $? -eq 0 ] && pass "rescored E-values = pss P x database size; the rest unchanged; seed matters" || fail "rescored E-values"

OUT=$WORK/bad.h5
bad "--permutations below 10 is refused" "permutations must be at least 10" search -q "$Q" -d "$DB" -o "$OUT" --backend cpu --rescore 2 --permutations 5
finish
