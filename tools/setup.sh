#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   bash tools/setup.sh example   install, build the program only, search the bundled example
#   bash tools/setup.sh test      install, build everything, run the whole test suite (ctest)
# Environment: BUILD_DIR (default build), JOBS (default nproc), SKIP_INSTALL=1 to skip apt.
set -euo pipefail
mode=${1:-test}
case "$mode" in example|test) ;; *) echo "usage: $0 example|test" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}

install_packages() {
  [ "${SKIP_INSTALL:-0}" = 1 ] && return
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  # Build deps, then the real peers the oracle tests compare against (ssearch36, water/needle,
  # hmmsearch, blastp/makeblastdb/blast_formatter; ncbi-data: NCBI's matrix files).
  local pkgs=(build-essential cmake pkg-config zlib1g-dev libdeflate-dev libopenmpi-dev openmpi-bin libhdf5-dev hdf5-tools
              libboost-program-options-dev googletest libgtest-dev python3 python3-h5py python3-matplotlib
              fasta3 emboss ncbi-data hmmer ncbi-blast+
              slurm-wlm munge  # the real-Slurm test (tests/scripts/slurm_jobs.sh)
              clang libclang-rt-14-dev  # libFuzzer targets (tests/fuzz/, tests/scripts/fuzz_smoke.sh)
              libsimde-dev g++-aarch64-linux-gnu qemu-user)  # the CPU kernels on aarch64 (tests/scripts/cross_aarch64.sh)
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
  cmake --build "$build" -j "$jobs" "$@"
}

# The example's hits with each side's Pfam family (the pfam= of the FASTA headers) beside them.
show_families() {
  awk -F'\t' -v files="$1 $2" '
    BEGIN { n = split(files, f, " ")
            for (i = 1; i <= n; ++i)
              while ((getline line < f[i]) > 0)
                if (line ~ /^>/ && match(line, /pfam=[A-Z0-9]+/)) { split(line, w, " "); fam[substr(w[1], 2)] = substr(line, RSTART + 5, RLENGTH - 5) }
            printf "%-26s %-8s  %-26s %-8s %6s %5s %9s\n", "query", "family", "hit", "family", "%id", "bits", "E-value" }
    { printf "%-26s %-8s  %-26s %-8s %6.1f %5.0f %9.2g\n", $1, fam[$1], $2, fam[$2], $3, $12, $11 }'
}

install_packages
case "$mode" in
  example)
    configure_and_build --target hpcalign  # the program only: the tests take minutes to build
    queries=$root/tests/data/example_pfam3.fa db=$root/tests/data/balifam2000.fa
    out=$(mktemp -d)/example.h5
    "$build/hpcalign" search -q "$queries" -d "$db" -o "$out" --max-hits 5
    echo
    echo "3 Pfam domains (not in the database) against 2,000 Pfam domains of 56 families: each query's"
    echo "5 best hits belong to its own family, all at E-values well below 1e-5. The same table as"
    echo "BLAST tabular output: $build/hpcalign view $out --format blast6"
    echo
    "$build/hpcalign" view "$out" --format blast6 | show_families "$queries" "$db"
    ;;
  test)
    configure_and_build
    # MPI tests start several ranks on this machine, as root in CI containers.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
esac
