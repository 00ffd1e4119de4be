#!/usr/bin/env bash
# bench/ranking_eval.py computes its measures correctly on a hand-made ranking.
source "$(dirname "$0")/lib.bash"
: "${SOURCE_DIR:?repository root}"
python3 - "$SOURCE_DIR/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from ranking_eval import evaluate, coverage_at, family_half, parse_clans, parse_unscored

queries = {"q1": "A", "q2": "B"}
db = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C"}
hits = {("q1", "a1"): 1e-10, ("q1", "c1"): 1e-5, ("q1", "a2"): 1e-3, ("q1", "b1"): 1e-3,
        ("q2", "b1"): 1e-8, ("q2", "b2"): 1e-8, ("q2", "a1"): 0.5}
sens1, curve = evaluate(hits, queries, db)
# q1: a1 before its first false positive (c1), 1 of 3 homologs; q2: both of 2.
assert abs(sens1 - (1 / 3 + 1) / 2) < 1e-12, sens1
# Pooled, 5 homolog pairs, 2 queries: a1 | b1 b2 (tie) | c1 F | a2 T + b1 F (tie) | a1 F
assert curve == [(0, 0), (0, 0.2), (0, 0.6), (0.5, 0.6), (1.0, 0.8), (1.5, 0.8)], curve
assert coverage_at(curve, 0.1) == 0.6 and coverage_at(curve, 1.0) == 0.8
# A tie between a homolog and a false positive is one step, never split in the tool's favour.
assert coverage_at(curve, 0.5) == 0.6
# A false positive tied with a query's homologs: none counts as ranked before it.
hits[("q2", "c1")] = 1e-8
sens1, _ = evaluate(hits, queries, db)
assert abs(sens1 - (1 / 3 + 0) / 2) < 1e-12, sens1
# A hit naming a sequence outside the benchmark is an error, not silently dropped.
try:
    evaluate({("q1", "zz"): 1.0}, queries, db)
    raise SystemExit("unknown target accepted")
except ValueError:
    pass
# Pairs of families left unscored (clan mates): A:C and A:B pairs are neither homolog nor false
# positive (q1's c1 and b1, q2's a1); B:C still counts (q2's c1, now at 1e-3).
unscored = parse_unscored("A:C,B:A")
assert unscored == {frozenset("AC"), frozenset("AB")}, unscored
hits[("q2", "c1")] = 1e-3
sens1, curve = evaluate(hits, queries, db, unscored)
# q1: no false positive left, a1 and a2 of its 3; q2: b1, b2 before c1, 2 of 2.
assert abs(sens1 - (2 / 3 + 1) / 2) < 1e-12, sens1
# Pooled: a1 | b1 b2 (tie) | q1's a2 T tied with q2's c1 F (q1's b1 and q2's a1 unscored)
assert curve == [(0, 0), (0, 0.2), (0, 0.6), (0.5, 0.8)], curve
# Half of the families: sorted A, B -> even keeps A's queries, odd B's.
assert family_half(queries, "even") == {"q1": "A"} and family_half(queries, "odd") == {"q2": "B"}
assert family_half(queries, "all") == queries
# A clan table: every two families of one clan are unscored, families of no clan are not.
import os, tempfile
with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
    f.write("# family, name, clan\nA\ta\tCL1\nB\tb\tCL2\nC\tc\tCL1\nD\td\tCL1\nE\te\t\n")
try:
    assert parse_clans(f.name) == {frozenset("AC"), frozenset("AD"), frozenset("CD")}, parse_clans(f.name)
finally:
    os.unlink(f.name)
print("evaluator measures as computed by hand")
PY
if [ $? -eq 0 ]; then pass "ranking evaluator on a hand-made ranking"; else fail "ranking evaluator"; fi
finish
