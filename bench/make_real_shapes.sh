#!/usr/bin/env bash
# Inputs at the shapes of real Pfam releases and proteomes, for checking the GPU paths against
# the CPU backend and hmmsearch (nothing downloaded; the same files for the same SEED and awk):
#   bench/make_real_shapes.sh OUT_DIR
# OUT_DIR/models.hmm: HMMER3/f models built by hmmbuild --hand from generated alignments, at
#   the GPU kernels' edges (MSV: 64 slots x Q nodes, at most 4,096; Viterbi: 32 lanes x S, at
#   most 1,280; longer models take the CPU twins) and a real release's extremes: 1, 2, 3, 64, 65,
#   1,280, 1,281, ~2,500 (RF/CS, GA/TC/NC, an odd DESC), ~3,500, 4,096, 4,097 nodes; then the
#   repository's HMMER3/f Pfam-style models (fn3, Pkinase, pfam_style: globins4 and XYPPX,
#   2OG-FeII_Oxy_3).
# OUT_DIR/models_3e.hmm: the ~2,500-node model and pfam_style converted to HMMER3/e, and the
#   repository's 3/e models (RRM_1, Caudal_act, LuxC, 20aa, the 1-node M1): hmmsearch wants one
#   format a file.
# OUT_DIR/targets.fa: a proteome's extremes: a 35,000- and a 100,000-residue target holding
#   members of the long models and a mutated 20,000-residue stretch of each other; fragments
#   of 1 to 5 residues; X/U/O/B/Z/J in runs and alone; '*' ending records and inside them;
#   lower and mixed case; repeated ids (same and different sequences); globins45 and every
#   600th balifam1000 domain with UniProt-style headers; members emitted from every model.
# OUT_DIR/targets.h5 (when HPCALIGN is set): targets.fa through `hpcalign makedb`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
seed=${SEED:-20261128}
data=$root/tests/data
for tool in hmmbuild hmmemit hmmconvert; do
  command -v $tool >/dev/null || { echo "bench/make_real_shapes.sh: $tool missing (apt-get install hmmer)" >&2; exit 1; }
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Random numbers: Park and Miller's generator (rnd() below) in each awk program, not awk's rand(),
# whose sequence for a seed differs between awks (mawk's changed from run to run on Ubuntu 24.04).

# alignment NAME NODES SEED: six copies of a random protein over NODES RF columns (each a match
# state under hmmbuild --hand), ~15% of each copy substituted and ~2% deleted, one insert
# column every 50, and an SS_cons line.
alignment() {
  awk -v name="$1" -v nodes="$2" -v seed="$3" 'function rnd() { state = (state * 16807) % 2147483647; return state / 2147483647 }
  BEGIN {
    state = seed % 2147483646 + 1; aa = "ACDEFGHIKLMNPQRSTVWY"; cols = 0
    for (k = 1; k <= nodes; k++) {
      base[++cols] = substr(aa, int(rnd() * 20) + 1, 1); rf = rf "x"
      if (k % 50 == 0 && k < nodes) { base[++cols] = "-"; rf = rf "." }
      ss = ss substr("HHEE--C", int(rnd() * 7) + 1, 1)
      if (k % 50 == 0 && k < nodes) ss = ss "."
    }
    print "# STOCKHOLM 1.0"; print "#=GF ID " name
    for (i = 1; i <= 6; i++) {
      s = ""
      for (j = 1; j <= cols; j++) {
        r = rnd()
        if (base[j] == "-") s = s (r < 0.3 ? substr(aa, int(rnd() * 20) + 1, 1) : "-")
        else s = s (r < 0.15 ? substr(aa, int(rnd() * 20) + 1, 1) : r < 0.17 ? "-" : base[j])
      }
      print name "_" i " " s
    }
    print "#=GC RF " rf; print "#=GC SS_cons " ss; print "//" }'
}
source "$root/tests/scripts/pfam_lines.bash"
cutoffs=("25.00 20.00" "26.50 21.20" "24.90 19.80")  # GA, TC, NC

: >"$out/models.hmm"
i=0
for spec in one:1 two:2 three:3 slots64:64 slots65:65 vit1280:1280 vit1281:1281 long:2500 huge:3500 \
  msv4096:4096 msv4097:4097; do
  name=${spec%%:*} nodes=${spec#*:} i=$((i + 1))
  alignment "$name" "$nodes" $((seed + i)) >"$work/$name.sto"
  hmmbuild --amino --hand --seed 42 "$work/$name.raw" "$work/$name.sto" >/dev/null
  if [ "$name" = long ]; then
    with_pfam_lines PF99901.3 'Odd <chars> & "quotes" 100% \back\slash; (a|b) [c] {d} ~`$x`' "${cutoffs[@]}" <"$work/$name.raw" >"$work/$name.hmm"
  else
    with_pfam_lines "PF999$(printf %02d $((i + 10))).1" "Generated family of $nodes nodes" "${cutoffs[@]}" <"$work/$name.raw" >"$work/$name.hmm"
  fi
  got=$(awk '/^LENG/ { print $2 }' "$work/$name.hmm")
  [ "$got" = "$nodes" ] || { echo "bench/make_real_shapes.sh: $name has $got nodes, not $nodes" >&2; exit 1; }
  cat "$work/$name.hmm" >>"$out/models.hmm"
done
for f in fn3.hmm Pkinase.hmm pfam_style.hmm 2OG-FeII_Oxy_3.hmm.gz; do zcat -f "$data/hmm/$f" >>"$out/models.hmm"; done
{ hmmconvert --outfmt 3/e "$work/long.hmm"; hmmconvert --outfmt 3/e "$data/hmm/pfam_style.hmm"
  zcat -f "$data"/hmm/{RRM_1.hmm.gz,Caudal_act.hmm.gz,LuxC.hmm.gz,20aa.hmm.gz,M1.hmm}; } >"$out/models_3e.hmm"

# Members: three of each generated model of 64 nodes or more, two of the repository's.
: >"$work/emit.fa"
n=0
for name in slots64 slots65 vit1280 vit1281 long huge msv4096 msv4097; do
  n=$((n + 1)); hmmemit -N 3 --seed $((seed % 1000 + n)) "$work/$name.hmm" >>"$work/emit.fa"
done
for f in fn3.hmm Pkinase.hmm globins4.hmm; do
  n=$((n + 1)); hmmemit -N 2 --seed $((seed % 1000 + n)) "$data/hmm/$f" >>"$work/emit.fa"
done
zcat "$data/balifam1000.fa.gz" | awk '/^>/ { n++; keep = n % 600 == 0 } keep' >"$work/bali.fa"

awk -v seed="$seed" 'function rnd() { state = (state * 16807) % 2147483647; return state / 2147483647 }
  BEGIN { state = seed % 2147483646 + 1; aa = "ACDEFGHIKLMNPQRSTVWY" }
  function random_protein(n,   s) { s = ""; while (n-- > 0) s = s substr(aa, int(rnd() * 20) + 1, 1); return s }
  function mutated(s,   t, i, c) { t = ""
    for (i = 1; i <= length(s); i++) { c = substr(s, i, 1); t = t (rnd() < 0.1 ? substr(aa, int(rnd() * 20) + 1, 1) : c) }
    return t }
  function wrap(s, w) { while (length(s) > w) { print substr(s, 1, w); s = substr(s, w + 1) } print s }
  function first(prefix,   k) { for (k = 1; k <= n; k++) if (index(name_of[k], prefix) == 1) return seq_of[k]; return "" }
  function pad(s, len) { return length(s) >= len ? substr(s, 1, len) : s random_protein(len - length(s)) }
  /^>/ { name_of[++n] = substr($1, 2); kind[n] = FILENAME ~ /emit/ ? "emitted" : FILENAME ~ /bali/ ? "domain" : "globin"; next }
  { seq_of[n] = seq_of[n] $0 }
  END {
    for (i = 1; i <= n; i++) {
      s = seq_of[i]
      if (i % 9 == 0) s = tolower(s)                                     # lower case
      else if (i % 11 == 0) s = substr(s, 1, 10) tolower(substr(s, 11))  # mixed case
      if (i % 6 == 0) s = substr(s, 1, 20) "XXXXXXXX" substr(s, 29)      # an X run
      if (i % 7 == 0) s = substr(s, 1, 5) "U" substr(s, 7, 10) "O" substr(s, 18, 10) "B" substr(s, 29, 5) "Z" substr(s, 35, 7) "J" substr(s, 43)
      if (i % 8 == 0) s = s "*"                                          # a translated stop, dropped
      if (i % 13 == 0) s = substr(s, 1, 30) "*" substr(s, 32)            # a stop inside, scored
      if (kind[i] == "globin")
        printf ">%ssp|P%05d|%s_HUMAN Hemoglobin subunit OS=Homo sapiens OX=9606 GN=HB%d PE=1 SV=2\n", (i % 3 == 0 ? "  " : ""), i, toupper(substr(name_of[i], 1, 5)), i
      else if (kind[i] == "domain") printf ">%s Pfam domain\n", name_of[i]
      else printf ">tr|E%d|%s emitted member OS=Synthetic OX=32630 PE=4 SV=1\n", i, name_of[i]
      wrap(s, i % 4 == 0 ? 80 : 60)
    }
    # Fragments of 1 to 5 residues, rare letters and cases among them.
    split("M w KX mkv A*C BZJUO XXXXX wU Oo QZ* hK", frag, " ")
    for (k = 1; k in frag; k++) { printf ">sp|F%05d|FRAG%d fragment of %d residues\n", k, k, length(frag[k]); print frag[k] }
    # Repeated ids: the same record twice, and one id on two different sequences.
    printf ">sp|P00001|DUP_SAME repeated record\n"; wrap(seq_of[2], 60)
    printf ">sp|P00001|DUP_SAME repeated record\n"; wrap(seq_of[2], 60)
    printf ">DUP_OTHER first sequence\n"; wrap(seq_of[3], 60)
    printf ">DUP_OTHER second sequence\n"; wrap(seq_of[5], 60)
    # A titin-sized target (35,000) and a 100,000-residue one (hmmsearch s limit), each
    # holding members of the long models and a mutated 20,000-residue stretch of the other.
    shared = random_protein(20000)
    titin = pad(random_protein(3000) first("long") random_protein(1500) first("vit1281") mutated(shared) first("huge") \
      "XXXXXXXXXX" first("slots64"), 35000)
    big = pad(random_protein(7000) first("msv4097") random_protein(4000) first("huge") shared random_protein(9000) \
      first("msv4096") random_protein(2000) first("long") tolower(first("vit1280")) substr(titin, 1, 20000), 100000)
    printf ">sp|Q8WZ42|TITIN_SYN Titin-sized OS=Synthetic OX=32630 GN=TTN PE=1 SV=4\n"; wrap(titin, 60)
    printf ">sp|Q99999|GIANT_SYN 100,000 residues OS=Synthetic OX=32630 PE=5 SV=1\n"; wrap(big, 60)
  }' "$data/globins45.fa" "$work/bali.fa" "$work/emit.fa" >"$out/targets.fa"
if [ -n "${HPCALIGN:-}" ]; then "$HPCALIGN" makedb "$out/targets.fa" -o "$out/targets.h5" --force >/dev/null; fi
awk '/^>/ { n++ } !/^>/ { r += length($0) } END { printf "targets: %d records, %d residues\n", n, r }' "$out/targets.fa"
grep -c '^NAME' "$out/models.hmm" | sed 's/^/models: /'
