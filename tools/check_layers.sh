#!/usr/bin/env bash
# Includes go one way, from higher layers to lower ones (ctest: lint_layers):
#
#   src/core  <-  src/align  <-  io  <-  src/plan, src/hmm  <-  kernels  <-  mpi
#             <-  src/stats, src/report, src/pss, src/hmm/filter_pipeline  <-  src/workloads  <-  src/cli
#
# A file may include files of its own layer and of lower ones. The layer of a path is that of
# its longest prefix in LAYERS below; every file under src/, io/, kernels/ and mpi/ needs one.
# src/hmm holds the models the kernels score (profiles, null model), its filter pipeline
# drives the kernels. The msv and pss engines (kernels/W_engine with their cpu/cuda twins) return
# that layer's results (filter pipeline, pss statistics), so they sit with it, below the workloads. Tests, tools and benchmarks may include anything.
#   usage: tools/check_layers.sh SOURCE_DIR      (--self-test: shows that it catches a fault)
set -euo pipefail

LAYERS='
src/core 0
src/align 1
io 2
src/plan 3
src/hmm 3
kernels 4
kernels/cpu/simd_intrinsics 0
mpi 5
src/stats 6
src/report 6
src/pss 6
src/hmm/filter_pipeline 6
src/hmm/hmmsearch_pipeline 6
kernels/msv_engine 6
kernels/cpu/msv_engine_cpu 6
kernels/cuda/msv_engine_cuda 6
kernels/pss_engine 6
kernels/cpu/pss_cpu 6
kernels/cuda/pss_gpu_engine 6
src/workloads 7
src/cli 8
'

check() {  # check ROOT: prints each wrong-way include, returns 1 if any
  local root=$1
  (cd "$root" && find src io kernels mpi -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) |
    sort | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null || true) |
    awk -v layers="$LAYERS" '
      function layer(path,   p, best, len) {
        best = -1; len = 0
        for (p in level)
          if ((path == p || index(path, p "/") == 1 || index(path, p ".") == 1) && length(p) > len) {
            best = level[p]; len = length(p)
          }
        return best
      }
      BEGIN {
        n = split(layers, rows, "\n")
        for (i = 1; i <= n; i++) if (split(rows[i], f, " ") == 2) level[f[1]] = f[2]
      }
      {
        split($0, parts, ":"); file = parts[1]; line = parts[2]
        match($0, /"[^"]*"/); target = substr($0, RSTART + 1, RLENGTH - 2)
        from = layer(file)
        if (from < 0) { if (!(file in told)) print file ": in no layer (tools/check_layers.sh LAYERS)"; told[file] = 1; bad = 1; next }
        to = layer(target)
        if (to > from) { print file ":" line ": includes " target " (layer " to ") from layer " from; bad = 1 }
      }
      END { exit bad }'
}

if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/src/core" "$tmp/src/plan" "$tmp/io" "$tmp/kernels" "$tmp/mpi"
  echo '#include "src/core/a.hpp"' >"$tmp/src/plan/b.hpp"
  echo '#include "src/plan/b.hpp"' >"$tmp/kernels/k.hpp"
  check "$tmp" >/dev/null || { echo "self-test: downward includes were refused"; exit 1; }
  echo '#include "src/plan/b.hpp"' >"$tmp/io/journal.hpp"
  grep -q 'io/journal.hpp:1: includes src/plan/b.hpp (layer 3) from layer 2' <<<"$(check "$tmp" || true)" ||
    { echo "self-test: an upward include passed"; exit 1; }
  echo "self-test: an upward include is caught"
  exit 0
fi
check "${1:?usage: $0 SOURCE_DIR | --self-test}" && echo "layers: every include goes down"
