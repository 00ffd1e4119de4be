#!/usr/bin/env bash
# MSV benchmark: every protein model of tests/data/hmm (or of $MODELS) against the synthetic 207M-residue database
# (hpcalign makedb --synthetic --residues 207e6 --seed 1), `hpcalign msv --backend cuda` vs `hmmsearch --cpu N`
# (N = nproc; one run per model file). Prints both wall times, the speed-up, the TCUPS of hpcalign's filter phase
# (sum of model lengths x database residues / filter-phase seconds, from `msv --verbose`; the
# phase includes the host bias and Viterbi filters of the survivors), and fails unless the
# MSV / bias / Vit pass counts equal hmmsearch's for every model.
#   bench/msv.sh [WORKDIR]       (WORKDIR keeps the database between runs; default: a temp dir)
# Environment: HPCALIGN (binary), HMMSEARCH (default: hmmsearch),
# BACKEND (cuda), RESIDUES (207e6), CPUS (hmmsearch --cpu; default nproc), MODELS (a model file
# to use instead of tests/data/hmm, e.g. the 22-model batch of bench/make_models.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
hmmsearch=${HMMSEARCH:-hmmsearch}
backend=${BACKEND:-cuda}
residues=${RESIDUES:-207e6}
cpus=${CPUS:-$(nproc)}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }

db=$work/db_$residues
if [ ! -s "$db.fa" ] || [ ! -s "$db.h5" ]; then  # hmmsearch reads the FASTA, hpcalign the makedb file
  t0=$(now)
  "$bin" makedb --synthetic --residues "$residues" --seed 1 -o "$db.fa"
  "$bin" makedb "$db.fa" "$db.h5" >/dev/null
  echo "database built in $(elapsed "$t0" "$(now)") s"
fi
models=$work/models.hmm
if [ -n "${MODELS:-}" ]; then
  cp "$MODELS" "$models"
else
  for f in "$root"/tests/data/hmm/*.hmm*; do  # the protein models (3box is DNA)
    if [ "$(zcat -f "$f" | sed -n 's/^ALPH *//p')" = amino ]; then zcat -f "$f"; fi
  done >"$models"
fi

t0=$(now)
"$bin" msv -m "$models" -d "$db.h5" -o "$work/msv.h5" --backend "$backend" --verbose --quiet \
  >"$work/hpcalign.txt" 2>"$work/hpcalign.log"
hp_wall=$(elapsed "$t0" "$(now)")
t0=$(now)
# One hmmsearch per model: HMMER refuses a file that mixes HMMER3/e and 3/f models, and
# with several queries it reads the database once per query anyway.
: >"$work/hmmsearch.txt"
rm -rf "$work/split" && mkdir "$work/split"
awk -v dir="$work/split" '{ print > sprintf("%s/%04d.hmm", dir, n) } /^\/\//{ close(sprintf("%s/%04d.hmm", dir, n)); n++ }' "$models"
for f in "$work"/split/*.hmm; do
  "$hmmsearch" --cpu "$cpus" --noali -o "$work/one.txt" "$f" "$db.fa"
  cat "$work/one.txt" >>"$work/hmmsearch.txt"
done
hs_wall=$(elapsed "$t0" "$(now)")

python3 - "$work/hpcalign.txt" "$work/hmmsearch.txt" "$work/hpcalign.log" "$hp_wall" "$hs_wall" "$cpus" "$backend" <<'PY'
import re, sys
ours, theirs, log, hp_wall, hs_wall, cpus, backend = sys.argv[1:]
def counts(path):
    # [(model, {"MSV": n, "bias": n, "Vit": n})] in query order, from hmmsearch-style summaries.
    out = []
    for line in open(path):
        m = re.match(r"^Query:\s+(\S+)", line)
        if m:
            out.append((m.group(1), {}))
        m = re.match(r"^Passed (MSV|bias|Vit) filter:\s+(\d+)", line)
        if m:
            out[-1][1][m.group(1)] = int(m.group(2))
    return out
a, b = counts(ours), counts(theirs)
print(f"{'model':<20} {'MSV':>8} {'bias':>8} {'Vit':>8}   (hpcalign = hmmsearch)")
ok = len(a) == len(b) and len(a) > 0
for (ma, ca), (mb, cb) in zip(a, b):
    same = ma == mb and ca == cb
    ok &= same
    print(f"{ma:<20} {ca.get('MSV', -1):>8} {ca.get('bias', -1):>8} {ca.get('Vit', -1):>8}   " +
          ("identical" if same else f"DIFFERENT: hmmsearch {mb} {cb}"))
m = re.search(r"filter phase ([\d.e+-]+) s, ([\d.e+-]+) MSV cells.*?([\d.e+-]+) TCUPS", open(log).read())
if not m:
    sys.exit("no filter-phase line in " + log + ":\n" + open(log).read())
hp, hs = float(hp_wall), float(hs_wall)
print(f"hpcalign msv --backend {backend}: {hp:.3f} s wall, filter phase {float(m.group(1)):.3f} s, "
      f"{float(m.group(3)):.4f} TCUPS ({float(m.group(2)):.3e} cells)")
print(f"hmmsearch --cpu {cpus}: {hs:.3f} s wall")
print(f"speed-up (wall): {hs / hp:.2f}x")
if not ok:
    sys.exit("FAIL: pass counts differ from hmmsearch (or no summaries were found)")
print("pass counts identical for every model")
PY
