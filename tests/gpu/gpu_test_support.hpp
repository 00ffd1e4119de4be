#pragma once
// Helpers shared by the CUDA search and traceback tests. The gpu test binary is built only
// with the CUDA backend; each test skips itself when no GPU is visible.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "io/matrix.hpp"
#include "kernels/backend.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"
#include "src/core/tuning.hpp"  // ScopedTunable: a kernel choice for one scope

#define REQUIRE_GPU() \
  if (hpc::cuda_device_count() == 0) GTEST_SKIP() << "no GPU"

namespace hpc::test {

inline SequenceSet make_set(const std::vector<std::string>& seqs) {
  SequenceSet s;
  for (size_t i = 0; i < seqs.size(); ++i) {
    std::vector<uint8_t> codes;
    for (char c : seqs[i]) codes.push_back(encode_residue(static_cast<unsigned char>(c)));
    s.add("s" + std::to_string(i), codes.data(), codes.size());
  }
  return s;
}

inline std::string random_protein(std::mt19937& rng, size_t n, const std::string& letters = "ARNDCQEGHILKMFPSTWYV") {
  std::uniform_int_distribution<size_t> pick(0, letters.size() - 1);
  std::string s(n, 'A');
  for (auto& c : s) c = letters[pick(rng)];
  return s;
}

// A search of `queries` against `db` with BLOSUM62 11/1, keeping max_hits per query.
inline SearchSetup blosum62_setup(const SequenceSet& queries, const Database& db, uint32_t max_hits) {
  SearchSetup s;
  s.queries = &queries;
  s.db = &db;
  s.matrix = load_matrix("BLOSUM62");
  s.gaps = GapCosts{11, 1};
  s.max_hits = max_hits;
  return s;
}

}  // namespace hpc::test
