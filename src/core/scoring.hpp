#pragma once
// Substitution matrix and affine gap costs.
// Gap convention (BLAST's): a gap of length k costs open + k * extend, both given
// as positive numbers. EMBOSS charges open' + (k-1) * extend', so open' = open + extend.
#include <array>
#include <string>

#include "src/core/alphabet.hpp"

namespace hpc {

struct ScoreMatrix {
  std::string name;  // "BLOSUM62" or the file it was read from
  std::array<std::array<int, kAlphabetSize>, kAlphabetSize> score{};
  int operator()(uint8_t a, uint8_t b) const { return score[a][b]; }
  int max_score() const;
  int min_score() const;
};

struct GapCosts {
  int open = 11;
  int extend = 1;
  int first() const { return open + extend; }  // cost of a gap of length 1
};

enum class AlignMode { Local, Global, SemiGlobal };
const char* to_string(AlignMode m);

}  // namespace hpc
