#!/usr/bin/env bash
# Ranking benchmark: how well E-values rank homologs, hpcalign's --stats modes beside ssearch36
# and blastp on the same data. Truth = Pfam family, and the cross pairs of two families of one Pfam
# clan (bench/pfam_clans.tsv) count as neither homolog nor false positive: OUT_DIR/ranking.tsv and .png.
# The same hits scored by family alone: OUT_DIR/family/. bench/ranking_eval.py says how it scores.
#
#   bench/ranking.sh [OUT_DIR]        (default: bench-ranking/)
#
# Data: from tests/data/balifam1000.fa.gz (56 Pfam families), 3 queries per family and 40
# other members per family as the database (168 queries x 2,240 sequences, ~376k residues;
# fixed seed). Every tool reports every hit to E <= 1000 and every subject (no top-N cut).
# Env: SOURCE (labelled FASTA), QUERIES_PER_FAMILY (3), DB_PER_FAMILY (40), SEED (the draw's;
# ranking_data.py's default), EVAL_ARGS (ranking_eval.py's options: "--families even", "--unscored
# PF00155:PF00202,..."; the hits stay in OUT_DIR, so ranking_eval.py can score them again), CLANS (the
# family-to-clan table; "" scores the main table by family alone too), MODES ("ka blast
# comp regress regress-comp regress-qcomp"), RESCORE ("50": regress with --rescore N for each N listed; "" for none),
# THREADS (all cores), HPCALIGN (build/hpcalign), PYTHON (python3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-bench-ranking}" && cd "${1:-bench-ranking}" && pwd)
source_fa=${SOURCE:-$root/tests/data/balifam1000.fa.gz}
hpcalign=${HPCALIGN:-$root/build/hpcalign}
python=${PYTHON:-python3}
threads=${THREADS:-$(nproc)}
modes=${MODES:-ka blast comp regress regress-comp regress-qcomp}
rescore=${RESCORE-50}
for tool in "$hpcalign" ssearch36 blastp makeblastdb; do
  command -v "$tool" >/dev/null || { echo "ranking.sh: $tool not found" >&2; exit 1; }
done
[ -r "$source_fa" ] || { echo "ranking.sh: $source_fa not readable" >&2; exit 1; }

"$python" "$root/bench/ranking_data.py" "$source_fa" "$out/queries.fa" "$out/db.fa" \
  --per-family-queries "${QUERIES_PER_FAMILY:-3}" --per-family-db "${DB_PER_FAMILY:-40}" ${SEED:+--seed "$SEED"}
nseq=$(grep -c '>' "$out/db.fa")
now() { date +%s.%N; }
timings=()
timed() {  # timed NAME command...: runs it, records its wall time
  local name=$1 t0
  shift
  t0=$(now)
  "$@"
  timings+=("$name $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')")
}

runs=()
for mode in $modes; do
  timed "hpcalign-$mode" "$hpcalign" search -q "$out/queries.fa" -d "$out/db.fa" -o "$out/hpcalign-$mode.h5" \
    --stats "$mode" --max-hits "$nseq" --evalue 1000 --backend cpu --threads "$threads" --quiet
  "$hpcalign" view "$out/hpcalign-$mode.h5" --format tsv | tail -n +2 | cut -f1,2,5 >"$out/hpcalign-$mode.tsv"
  runs+=("hpcalign --stats $mode=$out/hpcalign-$mode.tsv")
done
for n in $rescore; do  # regress, then permutation E-values for each query's n best hits
  timed "hpcalign-rescore$n" "$hpcalign" search -q "$out/queries.fa" -d "$out/db.fa" -o "$out/hpcalign-rescore$n.h5" \
    --stats regress --rescore "$n" --max-hits "$nseq" --evalue 1000 --backend cpu --threads "$threads" --quiet
  "$hpcalign" view "$out/hpcalign-rescore$n.h5" --format tsv | tail -n +2 | cut -f1,2,5 >"$out/hpcalign-rescore$n.tsv"
  runs+=("hpcalign --stats regress --rescore $n=$out/hpcalign-rescore$n.tsv")
done
# ssearch36 with its default statistics (regression on ln(length), -z 1), BLOSUM62 11/1.
timed ssearch36 ssearch36 -q -s BP62 -f -11 -g -1 -m 8 -E 1000 -b "$nseq" -d 0 -T "$threads" \
  "$out/queries.fa" "$out/db.fa" >"$out/ssearch36.m8" 2>/dev/null
cut -f1,2,11 "$out/ssearch36.m8" >"$out/ssearch36.tsv"
runs+=("ssearch36=$out/ssearch36.tsv")
makeblastdb -in "$out/db.fa" -dbtype prot -out "$out/blastdb" >/dev/null
for cbs in 0 2; do
  timed "blastp-cbs$cbs" blastp -query "$out/queries.fa" -db "$out/blastdb" -comp_based_stats $cbs -seg no \
    -evalue 1000 -max_target_seqs "$nseq" -num_threads "$threads" -outfmt "6 qseqid sseqid evalue" \
    >"$out/blastp-cbs$cbs.tsv"
  runs+=("blastp -comp_based_stats $cbs=$out/blastp-cbs$cbs.tsv")
done

clans=${CLANS-$root/bench/pfam_clans.tsv}
mkdir -p "$out/family"
echo "Pfam family truth:"
# shellcheck disable=SC2086  # EVAL_ARGS: options, split on spaces
"$python" "$root/bench/ranking_eval.py" "$out/queries.fa" "$out/db.fa" "$out/family" "${runs[@]}" ${EVAL_ARGS:-}
echo "Pfam family truth, clan mates unscored${clans:+ ($clans)}:"
# shellcheck disable=SC2086
"$python" "$root/bench/ranking_eval.py" "$out/queries.fa" "$out/db.fa" "$out" "${runs[@]}" \
  ${clans:+--clans "$clans"} ${EVAL_ARGS:-}
echo "wall seconds (${threads} threads): ${timings[*]}"
echo "tables: $out/ranking.tsv (clan-aware), $out/family/ranking.tsv  plots: ranking.png beside each"
