#!/usr/bin/env bash
# End-to-end `hpcalign pss`: single pair, multi-pair, reproducibility across threads and tile
# shapes, seeds, PSSM profiles, --keep-scores, and bad inputs.
source "$(dirname "$0")/lib.bash"
Q3=$TEST_DATA/queries3.fa
PQ=$TEST_DATA/pss_query.fa
PSSM=$TEST_DATA/pss_query.pssm
PY=${PYTHON:-/usr/bin/python3}  # Debian python3 has h5py and matplotlib
awk '/^>/{n++} n<=1' "$Q3" >"$WORK/q1.fa"
awk '/^>/{n++} n>=1 && n<=4' "$TEST_DATA/balifam2000.fa" >"$WORK/s4.fa"
awk '/^>/{n++} n>=1 && n<=1' "$TEST_DATA/balifam2000.fa" >"$WORK/s1.fa"
col() { h5dump -m '%.17g' -d "/pss/$2" "$1" 2>/dev/null | sed -n '/DATA {/,/}/p' | tr -d '\n' | sed 's/([0-9]*)://g; s/DATA {//; s/}//; s/ //g'; }
same_pss() {  # same_pss NAME A.h5 B.h5: every /pss column identical
  local ok=1
  for c in query target score mu lambda K pvalue n_perm converged; do [ "$(col "$2" $c)" = "$(col "$3" $c)" ] || ok=0; done
  [ $ok = 1 ] && pass "$1" || fail "$1: lambda $(col "$2" lambda) vs $(col "$3" lambda)"
}

expect_ok "pss --help" "$HPCALIGN" pss --help
grep -q "usage: hpcalign pss" "$WORK/out.txt" && pass "pss --help shows usage" || fail "pss --help shows usage"
grep -q -- "--censor" "$WORK/out.txt" && grep -q "open + k\*extend" "$WORK/out.txt" && pass "help lists --censor and the gap convention" || fail "help content"
grep -q "pss" <<<"$("$HPCALIGN" --help)" && pass "top-level usage lists pss" || fail "top-level usage lacks pss"

expect_ok "single pair" "$HPCALIGN" pss -q "$WORK/q1.fa" -s "$WORK/s1.fa" -o "$WORK/one.h5" --quiet
[ "$(h5_status "$WORK/one.h5")" = complete ] && pass "single pair file is complete" || fail "status $(h5_status "$WORK/one.h5")"
[ "$(col "$WORK/one.h5" n_perm)" = 1000 ] && pass "default N = 1000" || fail "n_perm $(col "$WORK/one.h5" n_perm)"
[ "$(col "$WORK/one.h5" converged)" = 1 ] && pass "single pair fit converged" || fail "converged $(col "$WORK/one.h5" converged)"

expect_ok "multi-pair, 2 threads" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/a.h5" --permutations 300 --seed 7 --threads 2 --quiet
rows=$(col "$WORK/a.h5" query | awk -F, '{print NF}')
[ "$rows" = 12 ] && pass "3 queries x 4 subjects = 12 rows" || fail "rows $rows"
[ "$(col "$WORK/a.h5" query)" = "0,0,0,0,1,1,1,1,2,2,2,2" ] && pass "rows sorted by query, target" || fail "order $(col "$WORK/a.h5" query)"
"$PY" - "$WORK/a.h5" <<'PY' && pass "P = 1 - exp(-K m n e^(-lambda x)), K = exp(lambda mu)/(m n), 0 < P <= 1" || fail "P/K formula check"
import sys, math, h5py
f = h5py.File(sys.argv[1], "r"); p = f["pss"]
ql = f["queries/length"][:]; tl = f["targets/length"][:]
for i in range(len(p["score"])):
    m, n = ql[p["query"][i]], tl[p["target"][i]]
    lam, mu, K, x = p["lambda"][i], p["mu"][i], p["K"][i], p["score"][i]
    assert abs(K - math.exp(lam * mu) / (m * n)) <= 1e-12 * K
    P = -math.expm1(-K * m * n * math.exp(-lam * x))
    assert abs(P - p["pvalue"][i]) <= 1e-12 and 0 < P <= 1
assert f.attrs["seed"] == "7" and f.attrs["permutations"] == 300 and f.attrs["censor"] == "median"
PY

expect_ok "1 thread, 1 query per tile" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/b.h5" --permutations 300 --seed 7 --threads 1 --query-batch 1 --quiet
same_pss "identical results for any thread count and tile shape" "$WORK/a.h5" "$WORK/b.h5"
expect_ok "other seed" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/c.h5" --permutations 300 --seed 8 --quiet
[ "$(col "$WORK/a.h5" lambda)" != "$(col "$WORK/c.h5" lambda)" ] && pass "different seed -> different fits" || fail "seed ignored"
[ "$(col "$WORK/a.h5" score)" = "$(col "$WORK/c.h5" score)" ] && pass "real scores do not depend on the seed" || fail "real scores changed"

expect_ok "keep scores" "$HPCALIGN" pss -q "$WORK/q1.fa" -s "$WORK/s4.fa" -o "$WORK/k.h5" --permutations 200 --keep-scores --censor none --quiet
"$PY" - "$WORK/k.h5" <<'PY' && pass "/pss_scores/scores holds n_perm scores per row" || fail "/pss_scores layout"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
s = f["pss_scores/scores"][:]
assert len(s) == 4 * 200 and s.min() >= 0 and f.attrs["censor"] == "none"
PY
if "$PY" -c "import matplotlib" 2>/dev/null; then
  expect_ok "plot script" "$PY" "$SOURCE_DIR/bench/plot_pss.py" "$WORK/k.h5" --row 2 -o "$WORK/k.png"
  [ -s "$WORK/k.png" ] && head -c 8 "$WORK/k.png" | grep -q PNG && pass "plot is a PNG" || fail "no PNG"
fi

expect_ok "PSSM profile" "$HPCALIGN" pss -q "$PQ" -s "$WORK/s4.fa" -o "$WORK/p.h5" --pssm "$PSSM" --permutations 200 --quiet
expect_ok "same query without PSSM" "$HPCALIGN" pss -q "$PQ" -s "$WORK/s4.fa" -o "$WORK/m.h5" --permutations 200 --quiet
[ "$(col "$WORK/p.h5" score)" != "$(col "$WORK/m.h5" score)" ] && pass "the PSSM changes the scores" || fail "PSSM ignored"
[ "$(col "$WORK/p.h5" target | tr ',' '\n' | sed -n 1p)" = 0 ] && pass "PSSM: 4 subjects" || fail "PSSM rows"

# Bad inputs: clear errors, no crash.
expect_error "missing subjects option" "subjects" "$HPCALIGN" pss -q "$Q3" -o "$WORK/x.h5"
expect_error "missing query file" "nonexistent" "$HPCALIGN" pss -q "$WORK/nonexistent.fa" -s "$WORK/s4.fa" -o "$WORK/x.h5"
expect_error "too few permutations" "permutations must be at least" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/x.h5" --permutations 5
expect_error "bad censor" "censor" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/x.h5" --censor sideways
expect_error "PSSM with several queries" "exactly one query" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/x.h5" --pssm "$PSSM"
expect_error "PSSM of another query" "differs from the query" "$HPCALIGN" pss -q "$WORK/q1.fa" -s "$WORK/s4.fa" -o "$WORK/x.h5" --pssm "$PSSM"
printf 'not a pssm\n' >"$WORK/bad.pssm"
expect_error "malformed PSSM" "bad.pssm.*no header" "$HPCALIGN" pss -q "$PQ" -s "$WORK/s4.fa" -o "$WORK/x.h5" --pssm "$WORK/bad.pssm"
expect_error "unwritable output" "cannot create" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o /nonexistent/dir/x.h5
expect_error "bad gap costs" "gap costs" "$HPCALIGN" pss -q "$Q3" -s "$WORK/s4.fa" -o "$WORK/x.h5" --gapextend 0
finish
