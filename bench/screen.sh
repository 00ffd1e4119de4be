#!/usr/bin/env bash
# All-vs-all screen at scale: every pair of the first N sequences of balifam1000 (default all
# 57,592), pairs scoring >= MIN_SCORE kept, one run; prints wall time, the run's own phase lines
# (compute, storing, final merge), the peak resident memory of the process (GNU time), hits
# written, file size and bytes per hit (what a screen costs the file system).
#   bench/screen.sh [BALIFAM1000.fa[.gz]]
# Environment: HPCALIGN (binary), N (all), MIN_SCORE (35), BACKEND (cuda), LAUNCH (e.g.
# "mpirun -np 2"), ALIGN=1 (alignments too; default --score-only), WORK (kept dir).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
source_fa=${1:-$root/tests/data/balifam1000.fa.gz}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
if [ -n "${N:-}" ]; then
  python3 "$root/bench/pick_sequences.py" "$source_fa" "$work/seqs.fa:$N"
else
  gzip -dcf "$source_fa" >"$work/seqs.fa"
fi
awk '!/^>/{r+=length($0)} /^>/{n++} END{printf "sequences: %d, %d residues\n", n, r}' "$work/seqs.fa"
mode=(--score-only)
[ "${ALIGN:-0}" = 1 ] && mode=()
rm -f "$work/screen.h5"
t0=$(date +%s.%N)
timer=()  # GNU time where installed; the run's own --verbose line gives its peak memory anyway
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "peak RSS of the launched process: %M KiB")
"${timer[@]}" ${LAUNCH:-} "$bin" allvsall -i "$work/seqs.fa" \
  -o "$work/screen.h5" --backend "${BACKEND:-cuda}" --min-score "${MIN_SCORE:-35}" "${mode[@]}" --verbose \
  2>"$work/screen.log"
t1=$(date +%s.%N)
grep -E "compute phase|storing|merge|peak|plan:" "$work/screen.log" || true
hits=$(python3 -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["hits/query"].shape[0])' "$work/screen.h5" 2>/dev/null ||
       h5dump -H -d /hits/query "$work/screen.h5" | sed -n 's/.*SIMPLE { ( \([0-9]*\) ).*/\1/p')
bytes=$(stat -c %s "$work/screen.h5")
python3 -c "
w = $t1 - $t0; h = $hits; b = $bytes
print(f'wall {w:.2f} s, {h} hits written ({h / w / 1e6:.2f} M hits/s of wall), file {b / 1e6:.1f} MB = {b / max(h, 1):.1f} bytes per hit')"
