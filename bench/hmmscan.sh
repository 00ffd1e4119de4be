#!/usr/bin/env bash
# hmmscan benchmark: a model library against a sequence set, `hpcalign hmmscan` on each backend
# vs HMMER's `hmmscan --cpu N` (N = nproc) on the hmmpress'ed library. Prints each run's wall
# and CPU seconds, and compares every output with hmmscan's: --tblout, --domtblout and
# --pfamtblout rows ('#' lines aside) and the -o report (the lines naming programs, files,
# thread counts and CPU times aside); fails unless all are identical.
#   bench/hmmscan.sh MODELS.hmm QUERIES.fa [WORKDIR]
# Environment: HPCALIGN (binary), HMMSCAN, HMMPRESS (default: on PATH), BACKENDS ("cuda cpu"),
# CPUS (N), ROUNDS (1: runs of each, alternating). MODELS must be in one HMMER format (hmmpress
# refuses a file that mixes them; bench/hmmsearch.sh shows the hmmconvert step).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${HPCALIGN:-$root/build/hpcalign}
hmmscan=${HMMSCAN:-hmmscan}
cpus=${CPUS:-$(nproc)}
rounds=${ROUNDS:-1}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
cp "$1" "$work/models.hmm"
"${HMMPRESS:-hmmpress}" -f "$work/models.hmm" >/dev/null
queries=$2
TIMEFORMAT='%R %U %S'

# run NAME CMD...: NAME.{tbl,dom,pfam,out} in $work, "NAME wall user system" appended to times.
run() {
  local name=$1 t
  shift
  t=$({ time "$@" --tblout "$work/$name.tbl" --domtblout "$work/$name.dom" --pfamtblout "$work/$name.pfam" \
    -o "$work/$name.out" "$work/models.hmm" "$queries" >/dev/null 2>"$work/$name.log"; } 2>&1)
  echo "$name $t" >>"$work/times"
}
: >"$work/times"
for ((r = 0; r < rounds; r++)); do
  for b in ${BACKENDS:-cuda cpu}; do run "hpcalign-$b" "$bin" hmmscan --backend "$b" --cpu "$cpus"; done
  run hmmscan "$hmmscan" --cpu "$cpus"
done

rows() { grep -v '^#' "$1"; }
report() {
  grep -v -E '^# ((hpcalign )?hmmscan ::|HMMER |Copyright|Freely distributed|query sequence file:|target HMM database:|output directed to file:|per-seq hits tabular output:|per-dom hits tabular output:|pfam-style tabular hit output:|number of worker threads:|CPU time:|Mc/sec:)' "$1"
}
ok=1
for b in ${BACKENDS:-cuda cpu}; do
  for t in tbl dom pfam; do
    if cmp -s <(rows "$work/hpcalign-$b.$t") <(rows "$work/hmmscan.$t"); then
      echo "--${t%tbl}tblout: hpcalign --backend $b = hmmscan ($(rows "$work/hmmscan.$t" | wc -l) rows)"
    else
      echo "--${t%tbl}tblout: hpcalign --backend $b DIFFERS from hmmscan" && ok=0
    fi
  done
  if cmp -s <(report "$work/hpcalign-$b.out") <(report "$work/hmmscan.out"); then
    echo "-o: hpcalign --backend $b = hmmscan"
  else
    echo "-o: hpcalign --backend $b DIFFERS from hmmscan" && ok=0
  fi
done
echo "$(grep -c '^NAME' "$work/models.hmm") models x $(grep -c '^>' "$queries") sequences; wall, user, system seconds:"
column -t "$work/times"
[ "$ok" = 1 ] || { echo "FAIL: outputs differ from hmmscan's"; exit 1; }
