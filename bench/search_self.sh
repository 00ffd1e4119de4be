#!/usr/bin/env bash
# GPU search benchmark on short queries and a small database: the first N sequences of
# balifam1000 (57,592 Pfam domains, mean 169 aa) searched against themselves, BLOSUM62 11/1,
# default --max-hits and --evalue, --backend cuda. Prints the search phase's TCUPS (sum |q| x
# database residues / search-phase seconds, as `hpcalign search --verbose` reports it), the
# alignment seconds in it, the hits written and the wall time.
#   bench/search_self.sh [N ...]      (default: 11000 57592)
# Environment: HPCALIGN (binary), BACKEND (cuda), WORK (a directory kept between runs), ARGS (more search options).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -s "$work/balifam1000.fa" ] || gzip -dc "$root/tests/data/balifam1000.fa.gz" >"$work/balifam1000.fa"
echo "       N   phase_s    TCUPS  align_s      hits   wall_s"
for n in "${@:-11000 57592}"; do
  fa=$work/first$n.fa
  rm -rf "$work/self$n.h5" "$work/self$n.h5.journal" "$work/self$n.h5.runs"
  awk -v n="$n" '/^>/{k++} k<=n' "$work/balifam1000.fa" >"$fa"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$bin" search -q "$fa" -d "$fa" -o "$work/self$n.h5" --backend "${BACKEND:-cuda}" --verbose ${ARGS:-} \
    2>"$work/self$n.log"
  t1=$(date +%s.%N)
  python3 - "$work/self$n.log" "$n" "$t0" "$t1" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
m = re.search(r"search phase ([\d.]+) s \(([\d.]+) GCUPS\).*align ([\d.]+) s", log)
h = re.search(r"(\d+) hits for", log)
if not m or not h:
    sys.exit("no timing line in " + sys.argv[1] + ":\n" + log)
print(f"{sys.argv[2]:>8} {float(m.group(1)):9.3f} {float(m.group(2)) / 1000:8.3f} {float(m.group(3)):8.3f} "
      f"{h.group(1):>9} {float(sys.argv[4]) - float(sys.argv[3]):8.2f}")
PY
done
