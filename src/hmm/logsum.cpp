#include "src/hmm/logsum.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace hpc::hmm {
namespace {

constexpr int kTable = 16000;
constexpr float kScale = 1000.0f;

const std::array<float, kTable>& table() {
  static const std::array<float, kTable> t = [] {
    std::array<float, kTable> v{};
    for (int i = 0; i < kTable; ++i) v[i] = float(std::log(1.0 + std::exp(double(-i) / kScale)));
    return v;
  }();
  return t;
}

}  // namespace

float flogsum(float a, float b) {
  const float max = std::max(a, b), min = std::min(a, b);
  if (min == -std::numeric_limits<float>::infinity() || (max - min) >= 15.7f) return max;
  return max + table()[int((max - min) * kScale)];
}

}  // namespace hpc::hmm
