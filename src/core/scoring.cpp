#include "src/core/scoring.hpp"

#include <algorithm>

namespace hpc {

int ScoreMatrix::max_score() const {
  int m = score[0][0];
  for (const auto& row : score) m = std::max(m, *std::max_element(row.begin(), row.end()));
  return m;
}

int ScoreMatrix::min_score() const {
  int m = score[0][0];
  for (const auto& row : score) m = std::min(m, *std::min_element(row.begin(), row.end()));
  return m;
}

const char* to_string(AlignMode m) {
  switch (m) {
    case AlignMode::Local: return "local";
    case AlignMode::Global: return "global";
    case AlignMode::SemiGlobal: return "semiglobal";
  }
  return "?";
}

}  // namespace hpc
