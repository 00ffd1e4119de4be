#pragma once
// Random residue sequences and mutated relatives for the kernel tests (tests/unit and the
// dependency-free tests/cross), so that pairs have real alignments with gaps, not only noise.
#include <cstdint>
#include <random>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"

namespace hpc::test {

inline std::vector<uint8_t> random_seq(std::mt19937& rng, size_t n, int letters = 20) {
  std::uniform_int_distribution<int> code(0, letters - 1);
  std::vector<uint8_t> s(n);
  for (auto& c : s) c = uint8_t(code(rng));
  return s;
}

// A relative of `s`: substitutions, insertions and deletions at about `rate`, so that
// pairs have real alignments with gaps and high scores, not only noise.
inline std::vector<uint8_t> mutate(std::mt19937& rng, const std::vector<uint8_t>& s, double rate) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> code(0, kAlphabetSize - 1);
  std::vector<uint8_t> out;
  for (uint8_t c : s) {
    const double r = u(rng);
    if (r < rate / 3) continue;                                  // deletion
    if (r < 2 * rate / 3) out.push_back(uint8_t(code(rng)));     // insertion before c
    out.push_back(r < rate ? uint8_t(code(rng)) : c);            // substitution or copy
  }
  if (out.empty()) out.push_back(s.front());
  return out;
}

// A test's residue vector as the aligners' view of it.
inline SeqView view(const std::vector<uint8_t>& s) { return {s.data(), uint32_t(s.size())}; }

}  // namespace hpc::test
