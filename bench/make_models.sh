#!/usr/bin/env bash
# The Pfam-style model batch of the msv benchmark (at least 20 models, a realistic batch): the
# protein models of HMMER's tutorial and testsuite (hmmer-examples), plus single-sequence
# models (hmmbuild --singlemx, BLOSUM62) of the CUDASW++ queries up to 1,000 residues.
#   bench/make_models.sh OUT.hmm [QUERIES.fa]     (default: tests/data/cudasw_queries20.fa)
# COUNT (default: none): a larger batch of COUNT models in all, the rest single-sequence models
# made the same way of balifam1000 domains (tests/data/balifam1000.fa.gz) up to 1,000 residues,
# taken in turn from each of its 56 Pfam families (the first unused domain of each, file order).
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
# single_models DIR: appends the single-sequence model of each DIR/*.sto to $out.
single_models() {
  for sto in "$1"/*.sto; do
    [ -e "$sto" ] || continue
    hmmbuild --amino --singlemx --mx BLOSUM62 "$sto.hmm" "$sto" >/dev/null
    cat "$sto.hmm" >>"$out"
  done
}
single_models "$work"
more=$((${COUNT:-0} - $(grep -c '^NAME' "$out")))
if [ "$more" -gt 0 ]; then
  mkdir "$work/domains"
  # Round r takes the r-th domain (<= 1,000 residues) of every family; files numbered in that
  # order, so the batch is the same on every machine.
  zcat "$root/tests/data/balifam1000.fa.gz" | awk -v dir="$work/domains" -v want="$more" '
    /^>/ { flush(); name = substr($1, 2); gsub(/[^A-Za-z0-9_.-]/, "_", name)
           family = $2; sub(/^pfam=/, "", family); seq = ""; next }
    { seq = seq $0 }
    function flush() { if (name != "" && length(seq) <= 1000) {
        if (!(family in count)) order[families++] = family
        k = count[family]++; ids[family, k] = name; seqs[family, k] = seq } }
    END { flush()
      for (r = 0; made < want; ++r) {
        any = 0
        for (i = 0; i < families && made < want; ++i) {
          f = order[i]; if (r >= count[f]) continue
          any = 1; file = sprintf("%s/%05d.sto", dir, made++)
          print "# STOCKHOLM 1.0\n#=GF ID " ids[f, r] "\n" ids[f, r] " " seqs[f, r] "\n//" > file; close(file) }
        if (!any) break } }'
  single_models "$work/domains"
fi
echo "$(grep -c '^NAME' "$out") models in $out" >&2
