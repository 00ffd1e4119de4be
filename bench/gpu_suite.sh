#!/usr/bin/env bash
# One GPU-machine session: the `gpu`-labelled tests, then the search benchmark on 1 GPU and
# on every visible GPU (threads, and MPI with one rank per GPU), for the multi-GPU efficiency.
#   bench/gpu_suite.sh BIN_DIR OUT_DIR
# BIN_DIR holds hpcalign and hpcalign_gpu_tests; MAKE_DB and QUERIES as in bench/search.sh.
set -uo pipefail
bin=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
export HPCALIGN_TEST_DATA=${HPCALIGN_TEST_DATA:-$root/tests/data}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${WORK:-/tmp/hpcalign-bench}
mkdir -p "$work" "$out"
nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm --format=csv | tee "$out/gpus.txt"
ngpu=$(nvidia-smi -L | wc -l)

t0=$(date +%s)
timeout "${TEST_LIMIT:-240}" "$bin/hpcalign_gpu_tests" >"$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$? in $(( $(date +%s) - t0 )) s: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]" "$out/gpu_tests.log" | head

bench() {  # bench TAG CMD-PREFIX...: runs bench/search.sh's search with a launcher prefix
  local tag=$1; shift
  HPCALIGN="$bin/hpcalign" LAUNCH="$*" bench/search.sh "$work" >"$out/bench_$tag.log" 2>&1
  echo "== $tag: $*"; grep -E "TCUPS|end to end|plan:" "$out/bench_$tag.log"
}
bench 1gpu env CUDA_VISIBLE_DEVICES=0
if [ "$ngpu" -gt 1 ]; then
  bench "${ngpu}gpu_threads"
  bench "${ngpu}gpu_mpi" mpirun -np "$ngpu" --bind-to none
fi
