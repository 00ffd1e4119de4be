#!/usr/bin/env bash
# The Pfam-style model batch of the msv benchmark (at least 20 models, a realistic batch): the
# protein models of HMMER's tutorial and testsuite (hmmer-examples), plus single-sequence
# models (hmmbuild --singlemx, BLOSUM62) of the CUDASW++ queries up to 1,000 residues.
#   bench/make_models.sh OUT.hmm [QUERIES.fa]     (default: tests/data/cudasw_queries20.fa)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
queries=${2:-$root/tests/data/cudasw_queries20.fa}
examples=/usr/share/doc/hmmer/examples
command -v hmmbuild >/dev/null || { echo "bench/make_models.sh: hmmbuild missing (apt-get install hmmer)" >&2; exit 1; }
[ -d "$examples" ] || { echo "bench/make_models.sh: $examples missing (apt-get install hmmer-examples)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$out"
for f in "$examples"/tutorial/*.hmm* "$examples"/testsuite/*.hmm*; do
  if [ "$(zcat -f "$f" | sed -n 's/^ALPH *//p' | head -1)" = amino ]; then zcat -f "$f" >>"$out"; fi
done
# One Stockholm file per query of <= 1,000 residues (one-sequence "alignments").
awk -v dir="$work" '
  /^>/ { flush(); name = substr($1, 2); gsub(/[^A-Za-z0-9_.-]/, "_", name); seq = ""; next }
  { seq = seq $0 }
  function flush() { if (name != "" && length(seq) <= 1000) {
      f = dir "/" name ".sto"; print "# STOCKHOLM 1.0\n#=GF ID " name "\n" name " " seq "\n//" > f; close(f) } }
  END { flush() }' "$queries"
for sto in "$work"/*.sto; do
  hmmbuild --amino --singlemx --mx BLOSUM62 "$sto.hmm" "$sto" >/dev/null
  cat "$sto.hmm" >>"$out"
done
echo "$(grep -c '^NAME' "$out") models in $out" >&2
