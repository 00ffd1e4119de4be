#pragma once
// Helpers shared by the CUDA search and traceback tests. The gpu test binary is built only
// with the CUDA backend; each test skips itself when no GPU is visible.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>
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

// Point mutations every `every` residues (G) and, for every > 8, a deletion or a PPP insertion
// now and then: a homolog of `s` with gaps.
inline std::string mutate(std::mt19937& rng, const std::string& s, int every) {
  std::string out;
  std::uniform_int_distribution<int> die(0, every - 1);
  for (char c : s) {
    const int r = die(rng);
    if (r == 0) out += 'G';
    else if (r == 1 && every > 8) continue;                        // deletion
    else if (r == 2 && every > 8) out += std::string(3, 'P') + c;  // insertion
    else out += c;
  }
  return out;
}

// `count` queries and targets over two- and three-letter alphabets (ties for the end cell and
// the path everywhere) and the 20 amino acids, of every length around the traceback kernels'
// stripe width (1,024 columns) and block rows (128).
inline std::pair<std::vector<std::string>, std::vector<std::string>> tied_pair_lists(std::mt19937& rng, size_t count) {
  const std::vector<size_t> lens = {1, 2, 5, 31, 127, 128, 129, 300, 1023, 1024, 1025, 2100};
  std::vector<std::string> qs, ts;
  for (size_t k = 0; k < count; ++k) {
    const std::string letters = k % 3 == 0 ? "AG" : k % 3 == 1 ? "WCP" : "ARNDCQEGHILKMFPSTWYV";
    qs.push_back(random_protein(rng, lens[k % lens.size()], letters));
    ts.push_back(random_protein(rng, lens[(k * 7 + 3) % lens.size()], letters));
  }
  return {qs, ts};
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
