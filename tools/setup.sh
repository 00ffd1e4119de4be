#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   bash tools/setup.sh example   install, build, run `hpcalign search` on the bundled example
#   bash tools/setup.sh test      install, build, run the whole test suite (ctest)
# Environment: BUILD_DIR (default build), JOBS (default nproc), SKIP_INSTALL=1 to skip apt.
set -euo pipefail
mode=${1:-test}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

install_packages() {
  [ "${SKIP_INSTALL:-0}" = 1 ] && return
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  # Build deps, then the real peers the oracle tests compare against (ssearch36, water/needle).
  local pkgs=(build-essential cmake pkg-config zlib1g-dev libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools
              libboost-program-options-dev googletest libgtest-dev python3 python3-h5py python3-matplotlib
              fasta3 emboss ncbi-data ncbi-blast+ hmmer
              slurm-wlm munge  # the real-Slurm test (tests/scripts/slurm_jobs.sh)
              clang libclang-rt-14-dev)  # libFuzzer targets (tests/fuzz/, tests/scripts/fuzz_smoke.sh)
  local missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

configure_and_build() {
  local cuda_args=()
  # nvcc is optional; where it is installed but not on PATH, point CMake at it so the
  # CUDA kernels are compiled (and checked) even on machines without a GPU.
  if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  fi
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${CMAKE_ARGS:-}
  cmake --build "$build" -j "$jobs"
}

install_packages
configure_and_build
case "$mode" in
  example)
    out=$(mktemp -d)/example.h5
    "$build/hpcalign" search -q "$root/tests/data/queries3.fa" -d "$root/tests/data/balifam2000.fa" -o "$out" --max-hits 5
    "$build/hpcalign" view "$out" --format blast6
    ;;
  test)
    # MPI tests start several ranks on this machine, as root in CI containers.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
  *) echo "usage: $0 example|test" >&2; exit 2 ;;
esac
