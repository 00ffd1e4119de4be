#!/usr/bin/env bash
# MSV benchmark: every protein model of tests/data/hmm (or of $MODELS) against the synthetic 207M-residue database
# (hpcalign makedb --synthetic --residues 207e6 --seed 1), `hpcalign msv --backend cuda` vs `hmmsearch --cpu N`
# (N = nproc; one run per model file). Prints both wall times and CPU seconds (user + system, also per
# core: / N), the speed-ups, the TCUPS of hpcalign's filter phase (sum of model lengths x database
# residues / filter-phase seconds, from `msv --verbose`; the phase includes the host bias and Viterbi
# filters of the survivors), and fails unless the MSV / bias / Vit pass counts equal hmmsearch's for
# every model. hmmsearch also runs its later stages (Forward, domains) on the few Viterbi survivors.
#   bench/msv.sh [WORKDIR]       (WORKDIR keeps the database between runs; default: a temp dir)
# Environment: HPCALIGN (binary), HMMSEARCH (default: hmmsearch),
# BACKEND (cuda; cpu runs hpcalign with --threads N), RESIDUES (207e6), CPUS (N: hmmsearch --cpu,
# hpcalign --threads on the CPU backend; default nproc), MODELS (a model file to use instead of
# tests/data/hmm, e.g. the 22-model batch of bench/make_models.sh), ROUNDS (1: runs of each
# program, alternating, for a machine shared with other work; every round is printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
hmmsearch=${HMMSEARCH:-hmmsearch}
backend=${BACKEND:-cuda}
residues=${RESIDUES:-207e6}
cpus=${CPUS:-$(nproc)}
rounds=${ROUNDS:-1}
threads=()
[ "$backend" = cpu ] && threads=(--threads "$cpus")
work=${1:-$(mktemp -d)}
mkdir -p "$work"
source "$root/bench/hmm_bench_lib.bash"

db=$work/db_$residues
synthetic_db "$bin" "$residues" "$db"  # hmmsearch reads the FASTA, hpcalign the makedb file
models=$work/models.hmm
if [ -n "${MODELS:-}" ]; then
  cp "$MODELS" "$models"
else
  for f in "$root"/tests/data/hmm/*.hmm*; do  # the protein models (3box is DNA)
    if [ "$(zcat -f "$f" | sed -n 's/^ALPH *//p')" = amino ]; then zcat -f "$f"; fi
  done >"$models"
fi

# One hmmsearch per model: HMMER refuses a file that mixes HMMER3/e and 3/f models, and
# with several queries it reads the database once per query anyway.
split_models "$models" "$work/split"
# timed NAME CMD...: appends "NAME wall user+system" to $work/times (GNU time counts the children).
: >"$work/times"
timed() {
  local name=$1
  shift
  /usr/bin/time -f "$name %e %U %S" -a -o "$work/times" "$@"
}
run_hpcalign() {
  "$bin" msv -m "$models" -d "$db.h5" -o "$work/msv.h5" --force --backend "$backend" "${threads[@]}" --verbose \
    --quiet >"$work/hpcalign.txt" 2>"$work/hpcalign.log"
}
run_hmmsearch() {
  : >"$work/hmmsearch.txt"
  for f in "$work"/split/*.hmm; do
    "$hmmsearch" --cpu "$cpus" --noali -o "$work/one.txt" "$f" "$db.fa"
    cat "$work/one.txt" >>"$work/hmmsearch.txt"
  done
}
export -f run_hpcalign run_hmmsearch
export bin models db work backend cpus hmmsearch
export threads_flat="${threads[*]}"
for ((r = 0; r < rounds; r++)); do
  timed hpcalign bash -c 'threads=($threads_flat); run_hpcalign'
  timed hmmsearch bash -c 'run_hmmsearch'
done

python3 - "$work/hpcalign.txt" "$work/hmmsearch.txt" "$work/hpcalign.log" "$work/times" "$cpus" "$backend" <<'PY'
import re, statistics, sys
ours, theirs, log, times, cpus, backend = sys.argv[1:]
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
runs = {"hpcalign": [], "hmmsearch": []}
for line in open(times):
    f = line.split()
    if len(f) == 4 and f[0] in runs:
        runs[f[0]].append((float(f[1]), float(f[2]) + float(f[3])))
n = int(cpus)
print(f"{'round':<6} {'hpcalign wall':>14} {'cpu':>8} {'cpu/core':>9}   {'hmmsearch wall':>15} {'cpu':>8} {'cpu/core':>9}")
for r, ((aw, ac), (bw, bc)) in enumerate(zip(runs["hpcalign"], runs["hmmsearch"])):
    print(f"{r + 1:<6} {aw:>14.2f} {ac:>8.2f} {ac / n:>9.2f}   {bw:>15.2f} {bc:>8.2f} {bc / n:>9.2f}")
med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in runs.items()}
(hw, hc), (sw, sc) = med["hpcalign"], med["hmmsearch"]
print(f"hpcalign msv --backend {backend}: {hw:.3f} s wall, {hc:.2f} CPU s (median of {len(runs['hpcalign'])}); "
      f"last run's filter phase {float(m.group(1)):.3f} s, {float(m.group(3)):.4f} TCUPS ({float(m.group(2)):.3e} cells)")
print(f"hmmsearch --cpu {cpus}: {sw:.3f} s wall, {sc:.2f} CPU s (median)")
print(f"speed-up: {sw / hw:.2f}x wall, {sc / hc:.2f}x per core (CPU seconds)")
if not ok:
    sys.exit("FAIL: pass counts differ from hmmsearch (or no summaries were found)")
print("pass counts identical for every model")
PY
