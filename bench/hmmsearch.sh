#!/usr/bin/env bash
# hmmsearch benchmark: a model batch against the synthetic 207M-residue database
# (hpcalign makedb --synthetic --residues 207e6 --seed 1), `hpcalign hmmsearch` vs `hmmsearch --cpu N`
# (N = nproc), both writing --tblout and --domtblout. Prints both wall times and CPU seconds per
# round, the speed-ups, and the comparison of the tables (rows compared, rows identical byte for
# byte, '#' comment lines excluded); fails unless every row is identical.
#   bench/hmmsearch.sh [WORKDIR]   (WORKDIR keeps the database between runs; default: a temp dir)
# Environment: HPCALIGN (binary), HMMSEARCH (default: hmmsearch), BACKEND (auto; cpu or cuda),
# RESIDUES (207e6), TARGETS (a FASTA file, plain or .gz, to search instead of the synthetic
# database; both programs read it), CPUS (N), ROUNDS (1: runs of each program, alternating), MODELS (a model
# file in one HMMER format; default: bench/make_models.sh's 22-model batch, each model converted
# with hmmconvert, because hmmsearch refuses a file that mixes HMMER3/e and 3/f models), COUNT
# (that batch grown to COUNT models, e.g. 100: bench/make_models.sh).
# hpcalign reads the makedb file of the database, hmmsearch the FASTA file (same residues: the
# synthetic database has only the 20 standard amino acids).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
hmmsearch=${HMMSEARCH:-hmmsearch}
backend=${BACKEND:-auto}
residues=${RESIDUES:-207e6}
cpus=${CPUS:-$(nproc)}
rounds=${ROUNDS:-1}
work=${1:-$(mktemp -d)}
mkdir -p "$work"
source "$root/bench/hmm_bench_lib.bash"

db=$work/db_$residues
ours_db=$db.h5
if [ -n "${TARGETS:-}" ]; then
  db=$work/targets
  zcat -f "$TARGETS" >"$db.fa"
  ours_db=$db.fa
else
  synthetic_db "$bin" "$residues" "$db"
fi
models=$work/models.hmm
if [ -n "${MODELS:-}" ]; then
  cp "$MODELS" "$models"
else
  bash "$root/bench/make_models.sh" "$work/mixed.hmm"
  split_models "$work/mixed.hmm" "$work/split"
  for f in "$work"/split/*.hmm; do hmmconvert "$f"; done >"$models"
fi

# timed NAME CMD...: appends "NAME wall user system" to $work/times (CPU seconds 0 where GNU
# time is not installed).
timed() {
  local name=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "$name %e %U %S" -a -o "$work/times" "$@"
  else
    local t0
    t0=$(now)
    "$@"
    echo "$name $(elapsed "$t0" "$(now)") 0 0" >>"$work/times"
  fi
}
: >"$work/times"
for ((r = 0; r < rounds; r++)); do
  timed hpcalign "$bin" hmmsearch --backend "$backend" --cpu "$cpus" --tblout "$work/ours.tbl" --domtblout "$work/ours.dom" \
    -o /dev/null "$models" "$ours_db" 2>"$work/hpcalign.log"
  timed hmmsearch "$hmmsearch" --cpu "$cpus" --tblout "$work/theirs.tbl" --domtblout "$work/theirs.dom" -o /dev/null "$models" "$db.fa"
done

python3 - "$work" "$cpus" "$backend" "$(grep -c '^NAME' "$models")" <<'PY'
import statistics, sys
work, cpus, backend, nmodels = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ok = True
for kind in ("tbl", "dom"):
    ours = [l for l in open(f"{work}/ours.{kind}") if not l.startswith("#")]
    theirs = [l for l in open(f"{work}/theirs.{kind}") if not l.startswith("#")]
    same = sum(a == b for a, b in zip(ours, theirs))
    ok &= same == len(ours) == len(theirs)
    print(f"--{ {'tbl': 'tbl', 'dom': 'domtbl'}[kind]}out: hmmsearch {len(theirs)} rows, hpcalign {len(ours)} rows, {same} identical")
runs = {"hpcalign": [], "hmmsearch": []}
for line in open(f"{work}/times"):
    f = line.split()
    if len(f) == 4 and f[0] in runs:
        runs[f[0]].append((float(f[1]), float(f[2]) + float(f[3])))
print(f"{'round':<6} {'hpcalign wall':>14} {'cpu':>8}   {'hmmsearch wall':>15} {'cpu':>8}")
for r, ((aw, ac), (bw, bc)) in enumerate(zip(runs["hpcalign"], runs["hmmsearch"])):
    print(f"{r + 1:<6} {aw:>14.2f} {ac:>8.2f}   {bw:>15.2f} {bc:>8.2f}")
(hw, hc), (sw, sc) = [(statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for v in runs.values()]
print(f"{nmodels} models: hpcalign hmmsearch --backend {backend}: {hw:.3f} s wall, {hc:.2f} CPU s; "
      f"hmmsearch --cpu {cpus}: {sw:.3f} s wall, {sc:.2f} CPU s (medians)")
print(f"speed-up: {sw / hw:.2f}x wall" + (f", {sc / hc:.2f}x CPU seconds" if hc > 0 else ""))
if not ok:
    sys.exit("FAIL: the tables differ from hmmsearch's")
print("tables identical")
PY
