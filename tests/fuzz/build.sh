#!/usr/bin/env bash
# Builds the libFuzzer targets for the input parsers with clang (ASan + UBSan), outside
# the CMake build, and lays out seed corpora taken from tests/data.
#   bash tests/fuzz/build.sh [OUT_DIR]      (default: build-fuzz/fuzzers in the repository root)
# Produces OUT_DIR/{fasta,matrix,hmm,pssm}_fuzzer and OUT_DIR/corpus/<name>/ seeds.
# Run one:  OUT_DIR/hmm_fuzzer OUT_DIR/corpus/hmm -max_total_time=60
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build-fuzz/fuzzers}
cxx=${CLANGXX:-$(command -v clang++ || command -v clang++-14 || true)}
[ -n "$cxx" ] || { echo "clang++ not found" >&2; exit 1; }
mkdir -p "$out"

flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I"$root"
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
# Each target: the fuzzer source, the parser, and the parser's small dependencies.
declare -A sources=(
  [fasta]="io/fasta.cpp src/core/alphabet.cpp"
  [matrix]="io/matrix.cpp io/builtin_matrices.cpp src/core/alphabet.cpp"
  [hmm]="io/hmm_file.cpp src/core/cpu_budget.cpp"
  [pssm]="io/pssm.cpp src/core/alphabet.cpp"
)
for name in fasta matrix hmm pssm; do
  srcs=()
  for s in ${sources[$name]}; do srcs+=("$root/$s"); done
  "$cxx" "${flags[@]}" "$root/tests/fuzz/${name}_fuzzer.cpp" "${srcs[@]}" -lz -o "$out/${name}_fuzzer"
done

# Seed corpora: small real inputs (libFuzzer mutates these; big files only slow it down).
corpus=$out/corpus
rm -rf "$corpus"
mkdir -p "$corpus"/{fasta,matrix,hmm,pssm}
data=$root/tests/data
cp "$data/queries3.fa" "$data/pss_query.fa" "$corpus/fasta/"
head -c 4000 "$data/balifam2000.fa" >"$corpus/fasta/balifam_head.fa"
printf '>a desc\r\nACDEFGHIKLMNPQRSTVWYBZX*\r\n>b\nuoj\n\n>c\nMK*\n' >"$corpus/fasta/edge_cases.fa"
cp "$root"/tests/fuzz/seeds/*.matrix "$corpus/matrix/"
cp "$data/hmm/M1.hmm" "$data/hmm/XYPPX.hmm" "$corpus/hmm/"
for gz in 3box 20aa; do gzip -dc "$data/hmm/$gz.hmm.gz" >"$corpus/hmm/$gz.hmm"; done
cp "$data/pss_query.pssm" "$corpus/pssm/"
head -n 12 "$data/pss_query.pssm" >"$corpus/pssm/short.pssm"
echo "built: $(cd "$out" && ls ./*_fuzzer | tr '\n' ' ')"
