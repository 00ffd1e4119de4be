#!/usr/bin/env bash
# The HPCALIGN_* variables through the binary (src/core/tuning.hpp): a value a variable does not
# take stops the program before any work, naming the variable (also under mpirun, where every
# rank checks before MPI starts); good values run; --help-tuning lists the registry.
source "$(dirname "$0")/lib.bash"
D=$TEST_DATA
Q=$D/queries3.fa
OUT=$WORK/out.h5
search=(search -q "$Q" -d "$D/balifam2000.fa" --backend cpu --threads 1 --quiet -o "$OUT")

expect_error "bad number"        'HPCALIGN_TILES_PER_WORKER=many: expected a whole number in 1\.\.' env HPCALIGN_TILES_PER_WORKER=many "$HPCALIGN" "${search[@]}"
expect_error "number below range" 'HPCALIGN_WORKERS_PER_GPU=0: expected a whole number in 1\.\.'    env HPCALIGN_WORKERS_PER_GPU=0 "$HPCALIGN" "${search[@]}"
expect_error "unknown choice"    'HPCALIGN_MSV_KERNEL=fast: expected one of f16, w16, dpx, mix, w8, byte' env HPCALIGN_MSV_KERNEL=fast "$HPCALIGN" "${search[@]}"
expect_error "flag set to 0"     'HPCALIGN_MASTER_IDLE=0: a flag is on whenever it is set'            env HPCALIGN_MASTER_IDLE=0 "$HPCALIGN" "${search[@]}"
[ -e "$OUT" ] && fail "a refused value left $OUT" || pass "a refused value writes nothing"
expect_error "bad value under mpirun" 'HPCALIGN_PSS_WAVES=x: expected a whole number' \
  env HPCALIGN_PSS_WAVES=x mpirun -x HPCALIGN_PSS_WAVES -np 2 "$HPCALIGN" "${search[@]}"

# Good values (and an empty one, which counts as unset) run to a complete result.
expect_ok "good values run" env HPCALIGN_TILES_PER_WORKER=3 HPCALIGN_MSV_KERNEL=w8 HPCALIGN_FAULT_SLOW_MS= \
  "$HPCALIGN" "${search[@]}"
[ "$(h5_status "$OUT")" = complete ] && pass "good values: complete result" || fail "good values: status $(h5_status "$OUT")"

# --help-tuning: every variable the sources read through the registry is listed, test-only ones marked.
expect_ok "--help-tuning" "$HPCALIGN" --help-tuning
for v in HPCALIGN_TILES_PER_WORKER HPCALIGN_MSV_KERNEL HPCALIGN_CUDA_TIMING HPCALIGN_FAULT_OOM_CELLS HPCALIGN_TEST_DATA; do
  grep -q "^  $v=" "$WORK/out.txt" && pass "--help-tuning lists $v" || fail "--help-tuning lacks $v"
done
grep -A1 "^  HPCALIGN_FAULT_OOM_CELLS=" "$WORK/out.txt" | grep -q '\[tests only\]' && pass "fault injection marked tests only" ||
  fail "HPCALIGN_FAULT_OOM_CELLS not marked tests only"
finish
