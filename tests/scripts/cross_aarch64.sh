#!/usr/bin/env bash
# The CPU SIMD kernels on aarch64 (Grace, Graviton): cross-compiles tests/cross (the kernels,
# which use SSE2 intrinsics through SIMDe's NEON translation, and their check against the
# scalar reference) with g++-aarch64-linux-gnu, and runs it under qemu-aarch64. The scores
# must equal the reference's exactly, as on x86.
set -uo pipefail
: "${SOURCE_DIR:?the repository root}"
command -v aarch64-linux-gnu-g++ >/dev/null || { echo "FAIL - aarch64-linux-gnu-g++ missing (g++-aarch64-linux-gnu)"; exit 1; }
command -v qemu-aarch64 >/dev/null || { echo "FAIL - qemu-aarch64 missing (qemu-user)"; exit 1; }
build=$(mktemp -d /tmp/hpcalign-cross-XXXXXX)
trap 'rm -rf "$build" "$build.log"' EXIT
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$SOURCE_DIR/tests/cross" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
      -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ "${launcher[@]}" >"$build.log" 2>&1 &&
  cmake --build "$build" -j 2 >>"$build.log" 2>&1 || { echo "FAIL - cross build:"; tail -30 "$build.log"; exit 1; }
readelf -h "$build/kernels_vs_reference" | grep -q "Machine:.*AArch64" || { echo "FAIL - not an aarch64 binary"; exit 1; }
qemu-aarch64 "$build/kernels_vs_reference"
